// Plays a running pi: opens a session with pi's own SessionManager and
// appends messages to it, as pi does while a conversation goes on.
//
// usage: node pi-appender.mjs create DIR CWD        prints the new session's path
//        node pi-appender.mjs append FILE N [MS]    appends N messages, pausing
//                                                   up to MS ms between them
//        node pi-appender.mjs fork FILE LEAF        pi's createBranchedSession(LEAF)
//                                                   on a copy's folder; prints the new file
//        node pi-appender.mjs long-texts DIR CWD    a new session whose texts are longer than
//                                                   a row: a branch summary, a custom message,
//                                                   a bash run, an error, a bash call
import { join } from "node:path";
import { sessionModule } from "./reference.mjs";

const { SessionManager } = await sessionModule();

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
} else if (cmd === "fork") {
  const sm = SessionManager.open(target);
  console.log(sm.createBranchedSession(arg));
} else if (cmd === "long-texts") {
  const words = (word) => Array.from({ length: 60 }, (_, i) => `${word}-${i}`).join(" ");
  const blank = " \n".repeat(200);
  const sm = SessionManager.create(arg, target);
  const first = sm.appendMessage(message(0));
  sm.appendMessage(message(1));
  sm.branchWithSummary(first, `The abandoned branch:\n${words("summary")}\tend.`);
  sm.appendCustomMessageEntry("note", [{ type: "text", text: words("custom") }, { type: "text", text: ` ${words("more")}` }], true);
  sm.appendMessage({ role: "bashExecution", command: `${blank}${words("echo")}`, output: "ok", exitCode: 0, cancelled: false, truncated: false, timestamp: Date.now() });
  sm.appendMessage({
    role: "assistant",
    content: [{ type: "toolCall", id: "call1", name: "bash", arguments: { command: `${blank}${words("ls")}` } }],
    provider: "anthropic", model: "claude-sonnet-4-5",
    usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { total: 0.001 } },
    stopReason: "toolUse", timestamp: Date.now(),
  });
  sm.appendMessage({ role: "toolResult", toolCallId: "call1", toolName: "bash", content: [{ type: "text", text: "ok" }], isError: false, timestamp: Date.now() });
  sm.appendMessage({
    role: "assistant", content: [], provider: "anthropic", model: "claude-sonnet-4-5",
    usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { total: 0 } },
    stopReason: "error", errorMessage: `${blank}${words("failed")}`, timestamp: Date.now(),
  });
  console.log(sm.getSessionFile());
} else {
  throw new Error(`unknown command ${cmd}`);
}
