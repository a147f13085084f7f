// Plays a running pi: opens a session with pi's own SessionManager and
// appends messages to it, as pi does while a conversation goes on.
//
// usage: node pi-appender.mjs create DIR CWD        prints the new session's path
//        node pi-appender.mjs append FILE N [MS]    appends N messages, pausing
//                                                   up to MS ms between them
import { join } from "node:path";

const ref = process.env.PI_REF_DIR;
if (!ref) throw new Error("PI_REF_DIR is not set");
const { SessionManager } = await import(join(ref, "node_modules/@earendil-works/pi-coding-agent/dist/core/session-manager.js"));

const [cmd, target, arg, pauseArg] = process.argv.slice(2);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const message = (n) =>
  n % 2 === 0
    ? { role: "user", content: `question ${n}`, timestamp: Date.now() }
    : {
        role: "assistant",
        content: [{ type: "text", text: `answer ${n}` }],
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { total: 0.001 } },
        stopReason: "stop",
        timestamp: Date.now(),
      };

if (cmd === "create") {
  const sm = SessionManager.create(arg, target);
  sm.appendMessage(message(0));
  sm.appendMessage(message(1));
  console.log(sm.getSessionFile());
} else if (cmd === "append") {
  const sm = SessionManager.open(target);
  const n = Number(arg);
  const pause = Number(pauseArg ?? 0);
  for (let i = 0; i < n; i++) {
    sm.appendMessage(message(i));
    if (pause > 0 && Math.random() < 0.5) await sleep(Math.random() * pause);
  }
  console.log(`appended ${n}`);
} else {
  throw new Error(`unknown command ${cmd}`);
}
