// Writes, with pi's own SessionManager, a session whose every string pi lets
// a caller choose holds the hostile text in $HOSTILE: the project folder
// (and so the header's cwd and the sessions folder's name), messages of every
// role, tool names and arguments, thinking, provider and model, custom types,
// a label, a name, a compaction and a branch summary.
//
// usage: HOSTILE=... node pi-hostile.mjs CWD    prints the new session's path
//        (the sessions folder is pi's default, under $PI_CODING_AGENT_DIR)
import { sessionModule } from "./reference.mjs";

const h = process.env.HOSTILE;
if (!h) throw new Error("HOSTILE is not set");
const { SessionManager } = await sessionModule();

const [cwd] = process.argv.slice(2);
const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { total: 0.001 } };
const sm = SessionManager.create(cwd);
sm.appendModelChange(`provider ${h}`, `model ${h}`);
sm.appendThinkingLevelChange(`high ${h}`);
const question = sm.appendMessage({ role: "user", content: `question ${h}`, timestamp: Date.now() });
sm.appendMessage({
  role: "assistant",
  content: [
    { type: "thinking", thinking: `thinking ${h}` },
    { type: "text", text: `answer ${h}` },
    { type: "toolCall", id: `call ${h}`, name: `tool ${h}`, arguments: { command: `ls ${h}`, [`key ${h}`]: h } },
  ],
  provider: `provider ${h}`,
  model: `model ${h}`,
  usage,
  stopReason: "toolUse",
  timestamp: Date.now(),
});
sm.appendMessage({
  role: "toolResult",
  toolCallId: `call ${h}`,
  toolName: `tool ${h}`,
  content: [{ type: "text", text: `output ${h}` }],
  isError: false,
  timestamp: Date.now(),
});
sm.appendMessage({
  role: "bashExecution",
  command: `echo ${h}`,
  output: `bash output ${h}`,
  exitCode: 0,
  cancelled: false,
  truncated: false,
  timestamp: Date.now(),
});
sm.appendCustomEntry(`custom type ${h}`, { note: h });
sm.appendCustomMessageEntry(`custom message type ${h}`, `custom message ${h}`, true);
sm.appendLabelChange(question, `label ${h}`);
sm.appendSessionInfo(`name ${h}`);
sm.appendCompaction(`compaction summary ${h}`, question, 1000);
sm.appendMessage({ role: "user", content: `after compaction ${h}`, timestamp: Date.now() });
sm.branchWithSummary(question, `branch summary ${h}`);
sm.appendMessage({ role: "user", content: `on the new branch ${h}`, timestamp: Date.now() });
console.log(sm.getSessionFile());
