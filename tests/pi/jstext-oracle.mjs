// The JavaScript string rules piscope re-implements (src/jstext), answered
// by the runtime itself, for tests/conformance/js_string_rules_match_node.rs.
//
// usage: node jstext-oracle.mjs
// stdin: one JSON request per line; stdout: one JSON answer per line.
//   {"s": STRING, "a": N, "b": N}  -> trim, \s+ runs, toLowerCase, pi's
//                                     normalizeWhitespaceLower, length,
//                                     slice(a, b), slice(a), substring(a, b)
//   {"d": STRING}                  -> Date.parse(STRING), null for NaN
//   {"sort": [N|null, ...]}         -> the indices, in the order
//                                     Array.prototype.sort puts them with
//                                     pi's comparator (a - b, null as NaN)
//   {"sweep": true}                -> every code point that \s matches, that
//                                     trim() removes, and whose toLowerCase
//                                     is not itself (with that lower case)
// Strings go out well-formed: a lone surrogate as U+FFFD, as node prints it.
// Local times use the zone of this process (its TZ).
import { createInterface } from "node:readline";

const wf = (s) => s.toWellFormed();

function strings({ s, a, b }) {
  return {
    trim: wf(s.trim()),
    collapse: wf(s.replace(/\s+/g, " ")),
    lower: wf(s.toLowerCase()),
    normalized: wf(s.toLowerCase().replace(/\s+/g, " ").trim()),
    length: s.length,
    slice: wf(s.slice(a, b)),
    sliceFrom: wf(s.slice(a)),
    substring: wf(s.substring(a, b)),
  };
}

function sweep() {
  const space = [];
  const trimmed = [];
  const lower = [];
  for (let c = 0; c <= 0x10ffff; c++) {
    if (c >= 0xd800 && c <= 0xdfff) continue;
    const s = String.fromCodePoint(c);
    if (/\s/.test(s)) space.push(c);
    if (s.trim() === "") trimmed.push(c);
    const l = s.toLowerCase();
    if (l !== s) lower.push([c, l]);
  }
  return { space, trimmed, lower };
}

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
const out = [];
for await (const line of rl) {
  if (!line) continue;
  const req = JSON.parse(line);
  let answer;
  if ("d" in req) {
    const t = Date.parse(req.d);
    answer = Number.isNaN(t) ? null : t;
  } else if ("sort" in req) {
    const keys = req.sort.map((k) => (k === null ? NaN : k));
    answer = keys.map((_, i) => i).sort((a, b) => keys[a] - keys[b]);
  } else if (req.sweep) {
    answer = sweep();
  } else {
    answer = strings(req);
  }
  out.push(JSON.stringify(answer));
  if (out.length >= 512) {
    process.stdout.write(out.join("\n") + "\n");
    out.length = 0;
  }
}
process.stdout.write(out.length ? out.join("\n") + "\n" : "");
