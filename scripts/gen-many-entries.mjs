// Writes one pi session with very many tiny entries, for measuring what an
// index costs per entry: a header, then alternating user/assistant messages
// of a few words each, a new branch every 50,000 entries (so the tree forks
// and the leaf is not the last message's parent chain alone), and with
// --labels N a label entry after every N messages (every fourth of them
// clearing an earlier label), and one name near the end.
//
// usage: node scripts/gen-many-entries.mjs --out FILE [--entries 1000000] [--labels N] [--seed 1]
// The lines are exactly the shape pi writes (same fields, same order);
// 1,000,000 entries make about 150 MB.
import { createWriteStream } from "node:fs";

const args = Object.fromEntries(
  process.argv.slice(2).reduce((acc, a, i, all) => (a.startsWith("--") ? [...acc, [a.slice(2), all[i + 1]]] : acc), []),
);
if (!args.out) {
  console.error("usage: node scripts/gen-many-entries.mjs --out FILE [--entries N] [--labels N] [--seed N]");
  process.exit(2);
}
const ENTRIES = Number(args.entries ?? 1_000_000);
const LABEL_EVERY = Number(args.labels ?? 0);
let seed = Number(args.seed ?? 1);

// Deterministic PRNG (mulberry32).
function rnd() {
  seed |= 0;
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const WORDS = "the parser tree label fix bug test build file pane ok yes no".split(" ");
const words = (n) => Array.from({ length: n }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(" ");

// Ids as pi makes them: 8 hex digits, unique in the file.
const used = new Set();
function newId() {
  for (;;) {
    const id = Math.floor(rnd() * 0x100000000).toString(16).padStart(8, "0");
    if (!used.has(id)) {
      used.add(id);
      return id;
    }
  }
}

let now = Date.UTC(2026, 0, 5, 9, 0, 0);
const iso = () => new Date(now).toISOString();

const out = createWriteStream(args.out);
let buf = [];
let pending = 0;
async function line(obj) {
  buf.push(JSON.stringify(obj));
  pending += 1;
  if (pending >= 4096) await flush();
}
async function flush() {
  if (buf.length === 0) return;
  const chunk = buf.join("\n") + "\n";
  buf = [];
  pending = 0;
  if (!out.write(chunk)) await new Promise((r) => out.once("drain", r));
}

const sessionId = "019c0000-0000-7000-8000-" + Math.floor(rnd() * 2 ** 48).toString(16).padStart(12, "0");
await line({ type: "session", version: 3, id: sessionId, timestamp: iso(), cwd: "/home/ada/src/many" });

let parent = null;
const messages = []; // ids of messages written, for labels and branches
let written = 0;
let labels = 0;
while (written < ENTRIES) {
  now += 1000 + Math.floor(rnd() * 4000);
  // A new branch now and then: continue from a message some way back.
  if (written > 0 && written % 50_000 === 0 && messages.length > 100) {
    parent = messages[messages.length - 1 - Math.floor(rnd() * 100)];
  }
  const id = newId();
  let entry;
  if (LABEL_EVERY > 0 && messages.length > 0 && written % (LABEL_EVERY + 1) === LABEL_EVERY) {
    labels += 1;
    const target = messages[Math.floor(rnd() * messages.length)];
    entry = { type: "label", id, parentId: parent, timestamp: iso(), targetId: target, label: labels % 4 === 0 ? undefined : words(2) };
  } else if (written === ENTRIES - 10) {
    entry = { type: "session_info", id, parentId: parent, timestamp: iso(), name: "many " + words(2) };
  } else if (messages.length % 2 === 0) {
    entry = { type: "message", id, parentId: parent, timestamp: iso(), message: { role: "user", content: words(2), timestamp: now } };
    messages.push(id);
  } else {
    entry = {
      type: "message",
      id,
      parentId: parent,
      timestamp: iso(),
      message: { role: "assistant", content: [{ type: "text", text: words(1) }], stopReason: "stop", timestamp: now },
    };
    messages.push(id);
  }
  await line(entry);
  parent = id;
  written += 1;
}
await flush();
out.end();
await new Promise((r) => out.once("finish", r));
console.error(`${args.out}: ${written} entries (${labels} labels)`);
