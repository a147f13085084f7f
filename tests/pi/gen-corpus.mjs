// Writes a corpus of sessions with pi's own SessionManager, so every line is
// what pi itself writes: conversations with tool calls, thinking, images and
// errors; branches, new roots and branch summaries; labels set and cleared;
// compactions; names set and cleared; model and thinking-level changes;
// custom entries and custom messages; context edits; usage entries; bash
// runs; and forks of a branch into a new file. The texts carry emoji, CJK,
// right-to-left scripts, combining marks, zero-width characters, tabs, CRLF
// and raw terminal escape sequences, on purpose.
//
// The same seed writes the same bytes: pi's clock and random ids come from
// the seeded world of scripts/seeded-pi.mjs, the corpus's shape from its own
// generator below. Sessions go where pi puts them, so OUT can stand in for
// an agent folder (PI_CODING_AGENT_DIR):
//   OUT/sessions/--<encoded cwd>--/<timestamp>_<uuid>.jsonl
//
// usage: node gen-corpus.mjs --out DIR [--seed N] [--sessions K] [--turns T] [--big MB]
//   --sessions  how many sessions (default 40), each of 1 to T steps (default 30)
//   --big       grow the first session to about MB megabytes
// Prints {"out": DIR, "files": N}.
import { existsSync, mkdirSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { seededPi } from "../../scripts/seeded-pi.mjs";
import { referenceDir } from "./reference.mjs";

function flags(argv) {
  const known = new Set(["out", "seed", "sessions", "turns", "big"]);
  const out = {};
  for (let i = 0; i < argv.length; i += 2) {
    const name = argv[i].replace(/^--/, "");
    if (!argv[i].startsWith("--") || !known.has(name) || i + 1 >= argv.length) {
      process.stderr.write(`gen-corpus: unexpected ${argv[i]}\nusage: node gen-corpus.mjs --out DIR [--seed N] [--sessions K] [--turns T] [--big MB]\n`);
      process.exit(2);
    }
    out[name] = argv[i + 1];
  }
  return out;
}

const opts = flags(process.argv.slice(2));
const OUT = resolve(opts.out ?? "corpus");
const SEED = Number(opts.seed ?? 1);
const SESSIONS = Number(opts.sessions ?? 40);
const TURNS = Math.max(1, Number(opts.turns ?? 30));
const BIG_MB = Number(opts.big ?? 0);
for (const [name, v] of [["seed", SEED], ["sessions", SESSIONS], ["turns", TURNS], ["big", BIG_MB]]) {
  if (!Number.isFinite(v) || v < 0) {
    process.stderr.write(`gen-corpus: --${name} takes a number\n`);
    process.exit(2);
  }
}

// The corpus's shape: a small generator of its own (SplitMix32), apart from
// the one behind pi's ids, so the two never shift each other.
class Dice {
  constructor(seed) {
    this.state = seed >>> 0;
  }
  next() {
    this.state = (this.state + 0x9e3779b9) >>> 0;
    let z = this.state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return ((z ^ (z >>> 16)) >>> 0) / 4294967296;
  }
  below(n) {
    return Math.floor(this.next() * n);
  }
  between(lo, hi) {
    return lo + this.next() * (hi - lo);
  }
  pick(xs) {
    return xs[this.below(xs.length)];
  }
  chance(p) {
    return this.next() < p;
  }
}

const dice = new Dice(SEED ^ 0x5eed);
const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
process.env.PI_REF_DIR = referenceDir();
// Each seed starts on its own day, within about two weeks of the first.
const start = Date.UTC(2026, 0, 5, 8, 30) + Math.floor(dice.between(0, 14 * 86_400_000));
const { SessionManager, setClock } = await seededPi({ seed: SEED * 7919 + 17, start, repo });
let clock = start;
/** Lets `ms` (give or take half) pass on pi's clock. */
const pass = (ms) => setClock((clock += Math.round(ms * dice.between(0.5, 1.5))));

const PROJECTS = [
  "/home/ada/src/compiler",
  "/home/ada/src/web-shop",
  "/home/ada/notes",
  "/srv/work/infra: prod",
  "/home/ada/src/Ünïcødé-项目",
];
const VOCABULARY = (
  "the a session tree branch leaf label compaction summary parser lexer token widget render pane " +
  "event loop module test cargo build fix bug refactor read write edit bash file watch trash " +
  "resume context message model thinking cache index search query column layout"
).split(" ");
const words = (n) => Array.from({ length: n }, () => dice.pick(VOCABULARY)).join(" ");
/**
 * Text a renderer must not take at face value, each kind in its own piece.
 * No sequence that moves the cursor or clears the screen: pi draws text as
 * it is, and its own screen, put beside piscope's, must stay readable.
 */
const ODD_TEXT = [
  "plain words only",
  "emoji 🚀✨ 👩‍💻 🇯🇵 and CJK 漢字かなカナ 한국어",
  "ansi \u001b[1;31mred\u001b[0m, a bell \u0007 and a title \u001b]0;owned\u0007",
  "tabs\tbetween\tcells and\r\nCRLF\r\nline ends",
  "right-to-left: עברית and العربية mixed with ltr",
  "combining e\u0301 a\u0308 n\u0303 and zero\u200bwidth\u200djoiners",
  "one\ntwo\nthree lines",
];
const oddText = () => dice.pick(ODD_TEXT);

const MODELS = [
  { provider: "anthropic", model: "claude-sonnet-4-5", api: "anthropic-messages", price: [3, 15, 0.3] },
  { provider: "openai", model: "gpt-5.1-codex", api: "openai-responses", price: [1.25, 10, 0.125] },
  { provider: "google", model: "gemini-2.5-pro", api: "google-generative-ai", price: [1.25, 10, 0.31] },
];
let model = MODELS[0];

function usage() {
  const input = dice.below(20_000);
  const output = dice.below(3_000);
  const cacheRead = dice.below(50_000);
  const dollars = (tokens, perMillion) => Math.round(tokens * perMillion) / 1e6;
  const cost = {
    input: dollars(input, model.price[0]),
    output: dollars(output, model.price[1]),
    cacheRead: dollars(cacheRead, model.price[2]),
    cacheWrite: 0,
  };
  cost.total = cost.input + cost.output + cost.cacheRead;
  return { input, output, cacheRead, cacheWrite: 0, totalTokens: input + output + cacheRead, cost };
}

function userMessage() {
  pass(30_000);
  let text = words(2 + dice.below(14));
  if (dice.chance(0.2)) text += ` ${oddText()}`;
  if (dice.chance(0.5)) return { role: "user", content: text, timestamp: clock };
  const content = [{ type: "text", text }];
  if (dice.chance(0.1)) content.push({ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" });
  return { role: "user", content, timestamp: clock };
}

let calls = 0;
function assistantMessage(callsTool) {
  pass(10_000);
  const content = [];
  if (dice.chance(0.4)) content.push({ type: "thinking", thinking: words(8 + dice.below(8)) });
  if (dice.chance(0.9)) {
    let text = words(4 + dice.below(30));
    if (dice.chance(0.15)) text += ` ${oddText()}`;
    content.push({ type: "text", text });
  }
  let call;
  if (callsTool) {
    calls += 1;
    call = { type: "toolCall", id: `call_${SEED}_${calls}`, name: dice.pick(["read", "bash", "edit", "write"]), arguments: { path: `src/${dice.pick(VOCABULARY)}.rs` } };
    content.push(call);
  }
  const stopReason = callsTool ? "toolUse" : dice.pick(["stop", "stop", "stop", "stop", "length", "error", "aborted"]);
  const message = { role: "assistant", content, api: model.api, provider: model.provider, model: model.model, usage: usage(), stopReason, timestamp: clock };
  if (stopReason === "error") message.errorMessage = dice.pick(["overloaded", "rate limited: try again in 20 s"]);
  return { message, call };
}

function toolResult(call) {
  pass(2_000);
  const long = dice.chance(0.1);
  const lines = Array.from({ length: 1 + dice.below(long ? 400 : 20) }, (_, i) => {
    const odd = dice.chance(0.05) ? ` ${oddText()}` : "";
    return `${i + 1}: ${words(8)}${odd}`;
  });
  return { role: "toolResult", toolCallId: call.id, toolName: call.name, content: [{ type: "text", text: lines.join("\n") }], isError: dice.chance(0.1), timestamp: clock };
}

/** A user's prompt, then the model's replies and tool runs until it stops. */
function turn(sm) {
  sm.appendMessage(userMessage());
  for (let tools = dice.below(4); ; tools--) {
    const { message, call } = assistantMessage(tools > 0);
    sm.appendMessage(message);
    if (!call) return;
    sm.appendMessage(toolResult(call));
  }
}

/** One step of a session besides a plain turn, by its share of the steps. */
const STEPS = [
  [0.1, (sm, all) => all.length > 2 && (sm.branch(dice.pick(all).id), true)],
  [
    0.05,
    (sm, all) =>
      all.length > 2 &&
      (sm.branchWithSummary(dice.pick(all).id, `Branch summary: ${words(12)}`, { readFiles: ["src/a.rs"], modifiedFiles: [] }, dice.chance(0.2), usage()), true),
  ],
  [0.02, (sm, all) => all.length > 2 && (sm.resetLeaf(), true)],
  [0.08, (sm, all) => all.length > 1 && (sm.appendLabelChange(dice.pick(all).id, dice.chance(0.8) ? `label ${dice.pick(VOCABULARY)}` : undefined), true)],
  [
    0.05,
    (sm) => {
      const path = sm.getBranch();
      if (path.length <= 3) return false;
      // Now and then nothing is kept (the compaction keeps itself).
      const kept = dice.chance(0.15) ? undefined : dice.pick(path.slice(Math.floor(path.length / 2))).id;
      const summary = `## Goal\n${words(15)}\n## Progress\n${words(20)}`;
      sm.appendCompaction(summary, kept, 10_000 + dice.below(150_000), { readFiles: [], modifiedFiles: ["src/x.rs"] }, dice.chance(0.2), usage());
      return true;
    },
  ],
  [0.04, (sm) => (sm.appendSessionInfo(dice.chance(0.85) ? `${dice.pick(VOCABULARY)} ${dice.pick(VOCABULARY)} ${oddText().slice(0, 12)}` : ""), true)],
  [
    0.03,
    (sm) => {
      model = MODELS[(MODELS.indexOf(model) + 1) % MODELS.length];
      sm.appendModelChange(model.provider, model.model);
      return true;
    },
  ],
  [0.02, (sm) => (sm.appendThinkingLevelChange(dice.pick(["off", "minimal", "low", "medium", "high", "xhigh"])), true)],
  [0.03, (sm) => (sm.appendCustomEntry(dice.pick(["my-ext", "pi.virtual-model-state"]), { count: dice.below(100) }), true)],
  [
    0.03,
    (sm) => {
      const content = dice.chance(0.5) ? `injected ${words(6)}` : [{ type: "text", text: words(6) }];
      sm.appendCustomMessageEntry("notes-ext", content, dice.chance(0.7), { k: 1 });
      return true;
    },
  ],
  [
    0.03,
    (sm) => {
      const editable = sm
        .getBranch()
        .filter((e) => e.type === "custom_message" || (e.type === "message" && ["user", "assistant", "toolResult"].includes(e.message.role)));
      if (editable.length === 0) return false;
      sm.appendContextEdit(dice.pick(editable).id, dice.chance(0.5) ? null : { content: `edited ${words(4)}` });
      return true;
    },
  ],
  [0.02, (sm) => (sm.appendUsage("cache_warm", model.provider, model.model, usage()), true)],
  [
    0.02,
    (sm) => {
      pass(5_000);
      const run = { role: "bashExecution", command: `cargo ${dice.pick(["test", "build", "clippy"])}`, output: words(20), exitCode: dice.pick([0, 0, 1, undefined]), cancelled: dice.chance(0.1), truncated: false, timestamp: clock };
      if (dice.chance(0.3)) run.excludeFromContext = true;
      sm.appendMessage(run);
      return true;
    },
  ],
];

function step(sm) {
  pass(1_000);
  let roll = dice.next();
  for (const [share, act] of STEPS) {
    roll -= share;
    if (roll < 0) {
      if (!act(sm, sm.getEntries())) turn(sm);
      return;
    }
  }
  turn(sm);
}

function encodeCwd(cwd) {
  return `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
}

const fileSize = (sm) => {
  const f = sm.getSessionFile();
  return f && existsSync(f) ? statSync(f).size : 0;
};

/** One session: a start like pi's (system prompt, model, thinking level), then steps. */
function session(cwd, grow) {
  const sm = SessionManager.create(cwd, join(OUT, "sessions", encodeCwd(cwd)));
  if (dice.chance(0.3)) {
    pass(100);
    sm.appendMessage({ role: "system", content: "", sections: { preamble: "You are an expert coding assistant." }, toolsAdded: [{ name: "read", description: "read a file", parameters: {} }], timestamp: clock });
  }
  if (dice.chance(0.5)) sm.appendModelChange(model.provider, model.model);
  if (dice.chance(0.5)) sm.appendThinkingLevelChange(dice.pick(["off", "low", "medium", "high"]));
  const steps = 1 + dice.below(TURNS);
  for (let i = 0; i < steps; i++) step(sm);
  if (grow) {
    // Whole turns until the file reaches the size, checked every 50 turns
    // (a stat per turn would cost more than the turn).
    for (let n = 1; n % 50 !== 0 || fileSize(sm) < BIG_MB * 1e6; n++) {
      turn(sm);
      if (dice.chance(0.02)) sm.branch(dice.pick(sm.getEntries()).id);
    }
  }
  return sm;
}

mkdirSync(join(OUT, "sessions"), { recursive: true });
let written = 0;
for (let i = 0; i < SESSIONS; i++) {
  // Sessions of a corpus are hours apart, so it covers several days.
  pass(3 * 3_600_000);
  const sm = session(dice.pick(PROJECTS), i === 0 && BIG_MB > 0);
  if (fileSize(sm) > 0) written++;
  // pi's /fork: one branch of the session into a file of its own.
  if (dice.chance(0.1) && sm.getEntries().length > 0) {
    pass(1_000);
    const fork = sm.createBranchedSession(dice.pick(sm.getEntries()).id);
    if (fork && existsSync(fork)) written++;
  }
}
console.log(JSON.stringify({ out: OUT, files: written }));
