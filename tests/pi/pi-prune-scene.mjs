// Writes, with pi's own SessionManager, a session whose side branch holds
// what a prune must carry over: the session's name and a label of an entry
// on the main branch were set while pi was on the side branch, which also
// changed the model and the thinking level; then pi went back to the main
// branch and went on there.
//
// usage: node pi-prune-scene.mjs DIR CWD
// prints {"file": PATH, "side": ID, "main": ID}: the side branch's first entry
// and an entry on the main branch
import { sessionModule } from "./reference.mjs";

const { SessionManager } = await sessionModule();

const [dir, cwd] = process.argv.slice(2);
let clock = Date.UTC(2026, 0, 5, 9, 0, 0);
const user = (text) => ({ role: "user", content: text, timestamp: (clock += 1000) });
const assistant = (text, model = "claude-sonnet-4-5") => ({
  role: "assistant",
  content: [{ type: "text", text }],
  provider: "anthropic",
  model,
  usage: { input: 10, output: 20, cacheRead: 0, cacheWrite: 0, totalTokens: 30, cost: { total: 0.01 } },
  stopReason: "stop",
  timestamp: (clock += 1000),
});

const sm = SessionManager.create(cwd, dir);
const u1 = sm.appendMessage(user("first question"));
const a1 = sm.appendMessage(assistant("first answer"));
sm.appendThinkingLevelChange("medium");
const u2 = sm.appendMessage(user("second question"));
const a2 = sm.appendMessage(assistant("second answer"));
sm.appendLabelChange(u2, "old label");
// The side branch, from the first answer.
sm.branch(a1);
const side = sm.appendMessage(user("a question on the side"));
sm.appendModelChange("openai", "gpt-5");
sm.appendThinkingLevelChange("high");
sm.appendMessage(assistant("a side answer", "gpt-5"));
sm.appendLabelChange(u1, "start");
sm.appendLabelChange(u2, "second");
sm.appendSessionInfo("Named on the side");
sm.appendLabelChange(side, "side label");
const deeper = sm.appendMessage(user("deeper on the side"));
sm.appendMessage(assistant("deeper answer", "gpt-5"));
sm.branch(deeper);
sm.appendMessage(assistant("another deeper answer", "gpt-5"));
// Back on the main branch.
sm.branch(a2);
sm.appendMessage(user("third question"));
sm.appendMessage(assistant("third answer"));
console.log(JSON.stringify({ file: sm.getSessionFile(), side, main: u2 }));
