// Writes, with pi's own SessionManager, sessions whose tool calls touch
// files in every way `piscope ls --touched` reads: read, edit (the edits
// list and the older oldText/newText, `path` and the older `file_path`),
// write, grep, find and ls, and bash commands that name files; paths
// relative, absolute, with pi's leading `@`, with `~`, with `./` and `..`;
// several calls in one message; results that are errors, and calls left
// without a result; in three projects, one inside another.
//
// The same seed writes the same bytes (scripts/seeded-pi.mjs): pi's clock
// and ids are seeded, the calls are picked by a generator of the script's
// own. Sessions go where pi puts them: OUT/sessions/--<encoded cwd>--/.
//
// usage: node pi-touched.mjs OUT SEED SESSIONS
//   prints each session's path, one a line
import { join, resolve } from "node:path";
import { seededPi } from "../../scripts/seeded-pi.mjs";

const [out, seedText, countText] = process.argv.slice(2);
const SEED = Number(seedText ?? 1);
const COUNT = Number(countText ?? 12);
const repo = resolve(import.meta.dirname, "../..");
const start = Date.UTC(2026, 2, 1, 9, 0, 0);
const { SessionManager, setClock } = await seededPi({ seed: SEED * 31 + 7, start, repo });
let clock = start;
const pass = (ms) => setClock((clock += ms));

let state = SEED >>> 0;
const next = () => {
  state = (state + 0x9e3779b9) >>> 0;
  let z = state;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
  return (z ^ (z >>> 16)) >>> 0;
};
const below = (n) => next() % n;
const pick = (items) => items[below(items.length)];
const chance = (p) => next() / 2 ** 32 < p;

const CWDS = ["/work/shop", "/work/shop/api", "/srv/tools"];
const FILES = ["src/parser.rs", "src/lexer.rs", "README.md", "docs/guide.md", "src/deep/mod.rs", "api/routes.ts"];

/** A way of writing `file` (relative to `cwd`) that pi resolves to it. */
function spelling(file, cwd) {
  switch (below(6)) {
    case 0:
      return `${cwd}/${file}`;
    case 1:
      return `@${file}`;
    case 2:
      return `./${file}`;
    case 3:
      return `src/../${file}`;
    default:
      return file;
  }
}

let calls = 0;
/** One tool call of a random kind, and whether its result is to fail. */
function call(cwd) {
  const id = `call_${SEED}_${++calls}`;
  const file = pick(FILES);
  const path = spelling(file, cwd);
  const kind = pick(["read", "read", "edit", "edit", "write", "bash", "bash", "grep", "find", "ls", "legacy"]);
  switch (kind) {
    case "read":
      return { type: "toolCall", id, name: "read", arguments: chance(0.1) ? { path: "~/notes.md" } : { path, offset: 1, limit: 40 } };
    case "edit":
      return { type: "toolCall", id, name: "edit", arguments: { path, edits: [{ oldText: "fn old()", newText: "fn new()" }] } };
    case "legacy":
      return { type: "toolCall", id, name: "edit", arguments: { file_path: path, oldText: "a", newText: "b" } };
    case "write":
      return { type: "toolCall", id, name: "write", arguments: { path, content: `// ${file}\n` } };
    case "grep":
      return { type: "toolCall", id, name: "grep", arguments: { pattern: "parse", path: pick(["src", "docs", file]) } };
    case "find":
      return { type: "toolCall", id, name: "find", arguments: chance(0.5) ? { pattern: "*.rs" } : { pattern: "*.md", path: "docs" } };
    case "ls":
      return { type: "toolCall", id, name: "ls", arguments: { path: pick([".", "src", "docs"]) } };
    default: {
      const command = pick([
        `cat ${file} | wc -l`,
        `cargo test && git diff -- ${path}`,
        `sed -i 's/old/new/' "${cwd}/${file}"`,
        "cargo build --release",
        `cd src && grep -n parse ${file.split("/").pop()}`,
        `rustfmt --config-path=cfg/rustfmt.toml ${file}; ls ~/notes.md`,
      ]);
      return { type: "toolCall", id, name: "bash", arguments: { command } };
    }
  }
}

const usage = { input: 100, output: 20, cacheRead: 0, cacheWrite: 0, totalTokens: 120, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
const assistant = (content, stopReason) => ({
  role: "assistant", content, api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5", usage, stopReason, timestamp: clock,
});

function encodeCwd(cwd) {
  return `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
}

for (let s = 0; s < COUNT; s++) {
  const cwd = CWDS[s % CWDS.length];
  const sm = SessionManager.create(cwd, join(out, "sessions", encodeCwd(cwd)));
  pass(60_000 + below(3_600_000));
  sm.appendMessage({ role: "user", content: `change the parser, session ${s}`, timestamp: clock });
  for (let turn = 1 + below(5); turn > 0; turn--) {
    pass(5_000 + below(60_000));
    const made = Array.from({ length: 1 + below(3) }, () => call(cwd));
    sm.appendMessage(assistant([{ type: "text", text: "Working on it." }, ...made], "toolUse"));
    for (const c of made) {
      if (chance(0.08)) continue; // left without a result
      pass(1_000);
      const failed = chance(0.2);
      const result = { role: "toolResult", toolCallId: c.id, toolName: c.name, content: [{ type: "text", text: failed ? "Error: no such file" : "ok" }], isError: failed, timestamp: clock };
      if (c.name === "edit" && !failed) result.details = { diff: "-1 fn old()\n+1 fn new()" };
      sm.appendMessage(result);
    }
  }
  pass(2_000);
  sm.appendMessage(assistant([{ type: "text", text: "Done." }], "stop"));
  console.log(sm.getSessionFile());
}
