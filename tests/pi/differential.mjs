// Differential conformance: every file of a pi-written corpus is read by
// piscope and by pi's own code (the reference oracle), and the answers must
// be equal as parsed JSON: `tree`, `info`, and `context` at the leaf, at
// `null` and at random entries. Then piscope edits copies of some files
// (`label`, `branch` with and without a summary, on user and other entries,
// `rename`) and pi, reading them back, must see exactly those edits.
// Finally the catalog: `ls --all --json` must be pi's session list of each
// corpus folder, and queries built from the corpus's own words must select
// and order what pi's /resume search does.
//
// usage: node differential.mjs --bin PISCOPE --oracle ORACLE.mjs --corpus DIR
//                              [--seed N] [--leaves K] [--edits M]
// Exit status 0 when everything agrees; 1 with the first differences printed.
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { createInterface } from "node:readline";
import { canonicalIds, firstDiff, xorshift32 } from "./compare.mjs";

const args = Object.fromEntries(
  process.argv.slice(2).reduce((acc, a, i, all) => (a.startsWith("--") ? [...acc, [a.slice(2), all[i + 1]]] : acc), []),
);
const BIN = args.bin;
const ORACLE = args.oracle;
const CORPUS = args.corpus;
const SEED = Number(args.seed ?? 1);
const LEAVES = Number(args.leaves ?? 3);
const EDITS = Number(args.edits ?? 12);
if (!BIN || !ORACLE || !CORPUS) {
  console.error("usage: node differential.mjs --bin PISCOPE --oracle ORACLE.mjs --corpus DIR [--seed N]");
  process.exit(2);
}

const rnd = xorshift32(SEED);
const pick = (xs) => xs[Math.floor(rnd() * xs.length)];

// The first entry at or above `id` in `file` that is not a label, a session
// name or piscope's branch marker (undefined: above the first entry).
function settled(file, id) {
  const byId = {};
  for (const line of readFileSync(file, "utf8").split("\n")) {
    try {
      const e = JSON.parse(line);
      if (typeof e.id === "string") byId[e.id] = e;
    } catch {}
  }
  for (let n = 0; id != null && n <= Object.keys(byId).length; n++) {
    const e = byId[id];
    if (!e) return id;
    const passed = e.type === "label" || e.type === "session_info" || (e.type === "custom" && e.customType === "piscope.branch");
    if (!passed) return id;
    id = e.parentId ?? null;
  }
  return id ?? null;
}

function sessionFiles(dirs) {
  const out = [];
  const walk = (d) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith(".jsonl")) out.push(p);
    }
  };
  for (const dir of dirs.split(",")) walk(dir);
  return out;
}

/** The oracle in batch mode: one node process answers every request. */
class Oracle {
  constructor() {
    this.proc = spawn(process.execPath, [ORACLE, "batch"], { stdio: ["pipe", "pipe", "inherit"] });
    this.waiting = [];
    createInterface({ input: this.proc.stdout }).on("line", (line) => this.waiting.shift()(JSON.parse(line)));
  }
  ask(request) {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.proc.stdin.write(`${JSON.stringify(request)}\n`);
    });
  }
  close() {
    this.proc.stdin.end();
  }
}

function piscope(argv, env = process.env) {
  const r = spawnSync(BIN, argv, { encoding: "utf8", maxBuffer: 1 << 30, env });
  if (r.status !== 0) return { error: `exit ${r.status}: ${r.stderr.trim()}` };
  try {
    return { ok: JSON.parse(r.stdout) };
  } catch (e) {
    return { error: `unparsable output: ${e.message}` };
  }
}

const failures = [];
function fail(file, what, detail) {
  failures.push(`seed ${SEED}: ${file}: ${what}: ${detail}`);
}

/** Whether a file predates version 3 (its ids are made up when read). */
function isLegacy(file) {
  try {
    const first = readFileSync(file, "utf8").split("\n", 1)[0];
    return (JSON.parse(first).version ?? 1) < 3;
  } catch {
    return false;
  }
}

async function compare(oracle, file, argv) {
  const [cmd, , ...rest] = argv;
  const mine = piscope([cmd, file, ...rest, "--json"]);
  const theirs = await oracle.ask([cmd, file, ...rest]);
  if (isLegacy(file) && mine.ok && theirs.ok) {
    const d = firstDiff(canonicalIds(mine.ok), canonicalIds(theirs.ok));
    if (d) fail(file, `${[cmd, ...rest].join(" ")} (legacy: ids compared by shape)`, d);
    return mine.ok;
  }
  if (mine.error || theirs.error) {
    if (!(mine.error && theirs.error)) fail(file, argv.join(" "), `piscope ${mine.error ?? "ok"} / pi ${theirs.error ?? "ok"}`);
    return mine.ok;
  }
  const d = firstDiff(mine.ok, theirs.ok);
  if (d) fail(file, [cmd, ...rest].join(" "), d);
  return mine.ok;
}

async function readOnly(oracle, files) {
  let checks = 0;
  for (const file of files) {
    const tree = await compare(oracle, file, ["tree", file]);
    await compare(oracle, file, ["info", file]);
    await compare(oracle, file, ["context", file]);
    await compare(oracle, file, ["context", file, "--leaf", "null"]);
    checks += 4;
    if (isLegacy(file)) continue;
    const ids = (tree ?? []).map((n) => n.id);
    for (let k = 0; k < Math.min(LEAVES, ids.length); k++) {
      await compare(oracle, file, ["context", file, "--leaf", pick(ids)]);
      checks++;
    }
  }
  return checks;
}

function run(argv) {
  const r = spawnSync(BIN, argv, { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`piscope ${argv.join(" ")}: exit ${r.status}: ${r.stderr.trim()}`);
  return r.stdout;
}

async function edits(oracle, files) {
  const dir = mkdtempSync(join(tmpdir(), "piscope-diff-"));
  let checks = 0;
  try {
    for (let n = 0; n < EDITS && files.length; n++) {
      const src = pick(files);
      const file = join(dir, `${n}-${basename(src)}`);
      copyFileSync(src, file);
      // The copy is ours to edit, whatever the source's mode (the shared
      // fixtures are read-only, and piscope refuses read-only sessions).
      chmodSync(file, 0o644);
      const before = (await oracle.ask(["info", file])).ok;
      // piscope's ids: for a legacy file they become permanent with the first write.
      const entries = piscope(["tree", file, "--json"]).ok;
      if (!before || !entries || entries.length === 0) continue;
      const target = pick(entries);
      // label
      const text = `checkpoint ${n} ✓`;
      run(["label", "--yes", file, target.id, text]);
      let info = (await oracle.ask(["info", file])).ok;
      if (info.labels[target.id] !== text) fail(file, `label ${target.id}`, `pi sees ${JSON.stringify(info.labels[target.id])}`);
      checks++;
      const types = Object.fromEntries(entries.map((e) => [e.id, e.type]));
      const roles = {};
      for (const line of readFileSync(file, "utf8").split("\n")) {
        try {
          const e = JSON.parse(line);
          if (e.type === "message") roles[e.id] = e.message?.role;
        } catch {}
      }
      // rename
      const name = `  name ${n}\nwith newline  `;
      run(["rename", "--yes", file, name]);
      info = (await oracle.ask(["info", file])).ok;
      if (info.name !== `name ${n} with newline`) fail(file, "rename", `pi sees ${JSON.stringify(info.name)}`);
      checks++;
      // branch, on a user entry and on another one, with and without summary
      const users = entries.filter((e) => roles[e.id] === "user");
      const others = entries.filter((e) => roles[e.id] !== "user" && e.type !== "custom_message");
      for (const [pool, withSummary] of [
        [users, false],
        [others, true],
        [others, false],
        [users, true],
      ]) {
        if (!pool.length) continue;
        const t = pick(pool);
        const resubmit = roles[t.id] === "user" || types[t.id] === "custom_message";
        const expectedLeaf = resubmit ? t.parentId : t.id;
        const argv = ["branch", "--yes", file, t.id, ...(withSummary ? ["--summary", `left branch ${n}`] : [])];
        const prev = (await oracle.ask(["info", file])).ok;
        const there = settled(file, prev.leafId) === settled(file, expectedLeaf);
        const size = statSync(file).size;
        run(argv);
        const after = (await oracle.ask(["info", file])).ok;
        const tree = (await oracle.ask(["tree", file])).ok;
        const leaf = tree.find((e) => e.id === after.leafId);
        checks++;
        // Nothing is written when pi would resume where it already does:
        // its leaf and the point, each past labels, session names and
        // piscope's own branch markers (which change nothing pi resumes
        // with), are one entry.
        if (!withSummary && there) {
          if (statSync(file).size !== size) fail(file, argv.join(" "), "wrote although pi already resumes there");
          continue;
        }
        if (!leaf) {
          fail(file, argv.join(" "), `pi's leaf ${after.leafId} is not in its tree`);
          continue;
        }
        if ((leaf.parentId ?? null) !== (expectedLeaf ?? null)) {
          fail(file, argv.join(" "), `pi resumes under ${leaf.parentId}, expected ${expectedLeaf}`);
        }
        if (withSummary && leaf.type !== "branch_summary") fail(file, argv.join(" "), `leaf is ${leaf.type}`);
        if (!withSummary && leaf.type !== "custom") fail(file, argv.join(" "), `leaf is ${leaf.type}`);
        // pi's context at the new leaf equals its context at the branch point
        // (without a summary: the custom entry adds nothing).
        if (!withSummary) {
          const atLeaf = (await oracle.ask(["context", file])).ok;
          const atTarget = (await oracle.ask(["context", file, "--leaf", expectedLeaf ?? "null"])).ok;
          const d = firstDiff(atLeaf, atTarget);
          if (d) fail(file, argv.join(" "), `context differs from the branch point: ${d}`);
        }
        if (after.branch.at(-1) !== after.leafId) fail(file, argv.join(" "), "branch does not end at the leaf");
      }
      // piscope reads back what it wrote exactly as pi does
      await compare(oracle, file, ["info", file]);
      await compare(oracle, file, ["tree", file]);
      await compare(oracle, file, ["context", file]);
      checks += 3;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return checks;
}

/** Queries made of the corpus's own words: plain, two at once, phrases, a
 * regex, a fuzzy subsequence of a folder name, unicode, and a miss. */
function queriesFor(list) {
  const texts = list.map((s) => `${s.name ?? ""} ${s.firstMessage}`).join(" ");
  const words = texts.split(/\s+/).filter((w) => /^[\p{L}\p{N}]{3,}$/u.test(w));
  const out = ["zzzz-no-such-thing"];
  for (let k = 0; k < 6 && words.length; k++) out.push(pick(words));
  for (let k = 0; k < 2 && words.length; k++) out.push(`${pick(words)} ${pick(words)}`);
  const first = list.find((s) => s.firstMessage.split(" ").length > 2);
  if (first) {
    const ws = first.firstMessage.split(" ");
    out.push(`"${ws[0]}  ${ws[1]}"`);
    out.push(`re:${ws[0].slice(0, 3)}\\w*\\s+${ws[1].slice(0, 2)}`);
  }
  const cwd = pick(list)?.cwd ?? "";
  const letters = [...cwd.replace(/[^\p{L}]/gu, "")];
  out.push(letters.filter((_, i) => i % 3 === 0).slice(0, 5).join(""));
  return out;
}

async function catalog(oracle, dirs) {
  let checks = 0;
  for (const dir of dirs.split(",")) {
    const layout = readdirSync(dir).includes("sessions") ? "root" : "flat";
    const env = { ...process.env, PI_CODING_AGENT_DIR: dir };
    delete env.PI_CODING_AGENT_SESSION_DIR;
    const base = layout === "root" ? ["ls", "--all", "--json", "--no-cache"] : ["ls", "--all", "--json", "--no-cache", "--session-dir", dir];
    const target = layout === "root" ? join(dir, "sessions") : dir;
    const mine = piscope(base, env);
    const theirs = await oracle.ask([layout === "root" ? "list-root" : "list", target]);
    checks++;
    if (mine.error || theirs.error) {
      fail(dir, "ls", mine.error ?? theirs.error);
      continue;
    }
    const d = firstDiff(mine.ok, theirs.ok);
    if (d) fail(dir, "ls", `differs at ${d}`);
    for (const q of queriesFor(theirs.ok)) {
      for (const sort of ["recent", "relevance"]) {
        const got = piscope([...base, "--query", q, "--sort", sort], env);
        const want = await oracle.ask(["search", target, q, "--sort", sort]);
        checks++;
        if (got.error || want.error) {
          fail(dir, `ls --query ${q}`, got.error ?? want.error);
          continue;
        }
        const d = firstDiff(got.ok.map((s) => s.path), want.ok);
        if (d) fail(dir, `ls --query ${JSON.stringify(q)} --sort ${sort}`, `differs at ${d}`);
      }
    }
  }
  return checks;
}

const files = sessionFiles(CORPUS);
const oracle = new Oracle();
const started = Date.now();
const read = await readOnly(oracle, files);
const written = await edits(oracle, files);
const listed = await catalog(oracle, CORPUS);
oracle.close();
for (const f of failures.slice(0, 20)) console.error(f);
if (failures.length > 20) console.error(`... and ${failures.length - 20} more`);
console.log(
  `differential: seed ${SEED}, ${files.length} files, ${read} read checks, ${written} edit checks, ${listed} catalog checks, ${failures.length} mismatches (${Date.now() - started} ms)`,
);
process.exit(failures.length ? 1 : 0);
