// Writes a dispatching session and its subagent sessions with pi's own
// SessionManager, placed and headed in each of the layouts subagent
// extensions use:
//
// - nested: a folder beside the parent's file, named as that file without
//   `.jsonl`, holding one folder per dispatch (named by its run id) with a
//   `run-<n>/session.jsonl` per task (pi opened on that path), and a
//   `forks/` folder of sessions branched from the parent (pi's
//   createBranchedSession, so headed with `parentSession`);
// - agent folder: `subagent-sessions/` in the agent folder, either flat
//   (pi's own file names, header `parentSession` naming the parent) or in a
//   folder named by the parent session's id (no header link);
// - top level: in the project's own folder, header `parentSession`;
// and one child in the agent folder that names no parent at all. Then two
// forks the user made between turns, headed as a top-level child is:
// a branch (pi's createBranchedSession) and a fresh start from the first
// message (pi's newSession with `parentSession`), both layout "fork".
//
// Each child is started from a tool call of the parent: the call is
// appended first, the child written, then the call's result, whose details
// name the run id and (for some) the child's file.
//
// usage: node pi-subagents.mjs AGENT_DIR CWD
// prints {"parent": FILE, "children": [{"path", "layout", "toolCallId"}]}
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { sessionModule } from "./reference.mjs";

const { SessionManager } = await sessionModule();
const [agentDir, cwd] = process.argv.slice(2);
process.env.PI_CODING_AGENT_DIR = agentDir;
const projectDir = join(agentDir, "sessions", `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`);

let clock = Date.now();
const now = () => (clock += 1000);
const usage = (cost) => ({
  input: 100,
  output: 20,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 120,
  cost: { input: cost / 2, output: cost / 2, cacheRead: 0, cacheWrite: 0, total: cost },
});
const user = (text) => ({ role: "user", content: text, timestamp: now() });
const answer = (text, cost, model = "claude-haiku-4-5") => ({
  role: "assistant",
  content: [{ type: "text", text }],
  api: "anthropic-messages",
  provider: "anthropic",
  model,
  usage: usage(cost),
  stopReason: "stop",
  timestamp: now(),
});
const call = (id, name, args) => ({
  role: "assistant",
  content: [{ type: "toolCall", id, name, arguments: args }],
  api: "anthropic-messages",
  provider: "anthropic",
  model: "claude-sonnet-4-5",
  usage: usage(0.01),
  stopReason: "toolUse",
  timestamp: now(),
});
const result = (id, name, text, details) => ({
  role: "toolResult",
  toolCallId: id,
  toolName: name,
  content: [{ type: "text", text }],
  details,
  isError: false,
  timestamp: now(),
});
// A child's conversation: the task it was given, and its answer. pi
// stamps each entry with the time it is appended: each step waits a
// little, as a child's work takes time, so a call comes before the child
// it starts and its result after.
const pause = () => new Promise((r) => setTimeout(r, 15));
const work = async (sm, task, cost) => {
  await pause();
  sm.appendMessage(user(task));
  sm.appendMessage(answer(`Done: ${task}`, cost));
  await pause();
};

const parent = SessionManager.create(cwd, projectDir);
parent.appendMessage(user("Survey the parser and plan the change"));
parent.appendMessage(answer("I will send scouts.", 0.02, "claude-sonnet-4-5"));
const parentFile = parent.getSessionFile();
const stem = parentFile.slice(0, -".jsonl".length);
const children = [];

// Nested: one dispatch of two parallel tasks, each pi opened on its path.
{
  const id = "toolu_nested";
  const runId = "5f0c2a9e";
  const tasks = ["scan the lexer", "scan the grammar"];
  await pause();
  parent.appendMessage(call(id, "subagent", { tasks: tasks.map((task) => ({ agent: "scout", task })) }));
  const results = [];
  for (const [n, task] of tasks.entries()) {
    const file = join(stem, runId, `run-${n}`, "session.jsonl");
    mkdirSync(join(stem, runId, `run-${n}`), { recursive: true });
    const sm = SessionManager.open(file, join(stem, runId, `run-${n}`), cwd);
    await work(sm, task, 0.1 + n / 10);
    results.push({ agent: "scout", sessionFile: file });
    children.push({ path: file, layout: "nested", toolCallId: id });
  }
  parent.appendMessage(result(id, "subagent", "2 tasks done", { mode: "parallel", runId, results }));
}

// Nested fork: the child starts from a branch of the parent's conversation.
{
  const id = "toolu_fork";
  await pause();
  parent.appendMessage(call(id, "subagent", { agent: "worker", task: "apply the plan", context: "fork" }));
  const forksDir = join(stem, "forks");
  mkdirSync(forksDir, { recursive: true });
  const source = SessionManager.open(parentFile, forksDir);
  const file = source.createBranchedSession(parent.getLeafId());
  const sm = SessionManager.open(file);
  await work(sm, "apply the plan", 0.5);
  children.push({ path: file, layout: "nested", toolCallId: id });
  parent.appendMessage(result(id, "subagent", "applied", { mode: "single", results: [{ agent: "worker", sessionFile: file }] }));
}

// Agent folder, flat, header-linked; the result names only an agent id.
{
  const id = "toolu_agent_flat";
  await pause();
  parent.appendMessage(call(id, "Agent", { subagent_type: "Explore", prompt: "find the tests" }));
  const dir = join(agentDir, "subagent-sessions");
  const sm = SessionManager.create(cwd, dir, { parentSession: parentFile });
  await work(sm, "find the tests", 0.3);
  children.push({ path: sm.getSessionFile(), layout: "agent-folder", toolCallId: id });
  parent.appendMessage(result(id, "Agent", "found them", { agentId: "a1", status: "completed" }));
}

// Agent folder, in a folder named by the parent's id, no header link.
{
  const id = "toolu_agent_by_id";
  await pause();
  parent.appendMessage(call(id, "subagent", { name: "reviewer", task: "review the plan" }));
  const dir = join(agentDir, "subagent-sessions", parent.getSessionId());
  const sm = SessionManager.create(cwd, dir);
  await work(sm, "review the plan", 0.2);
  children.push({ path: sm.getSessionFile(), layout: "agent-folder", toolCallId: id });
  parent.appendMessage(result(id, "subagent", "reviewed", { agentId: "r1" }));
}

// Top level, beside the parent, header-linked.
{
  const id = "toolu_top";
  await pause();
  parent.appendMessage(call(id, "Agent", { subagent_type: "Plan", prompt: "write the plan down" }));
  const sm = SessionManager.create(cwd, projectDir, { parentSession: parentFile });
  await work(sm, "write the plan down", 0.4);
  children.push({ path: sm.getSessionFile(), layout: "top-level", toolCallId: id });
  parent.appendMessage(result(id, "Agent", "written", { agentId: "p1" }));
}

parent.appendMessage(answer("All done.", 0.02, "claude-sonnet-4-5"));

// The user's forks, made with no call of the parent running: they stay
// forks, in pi's list as pi lists them.
{
  await pause();
  const source = SessionManager.open(parentFile, projectDir);
  const file = source.createBranchedSession(parent.getLeafId());
  const sm = SessionManager.open(file);
  await work(sm, "try another plan", 0.6);
  children.push({ path: file, layout: "fork", toolCallId: null });
}
{
  await pause();
  const sm = SessionManager.create(cwd, projectDir);
  sm.newSession({ parentSession: parentFile });
  await work(sm, "start over", 0.7);
  children.push({ path: sm.getSessionFile(), layout: "fork", toolCallId: null });
}

// Agent folder, flat, of another project and no header link: a child whose
// parent cannot be told.
{
  await pause();
  const sm = SessionManager.create("/home/ada/elsewhere", join(agentDir, "subagent-sessions"));
  await work(sm, "a task of unknown origin", 0.05);
  children.push({ path: sm.getSessionFile(), layout: "orphan", toolCallId: null });
}
console.log(JSON.stringify({ parent: parentFile, children }));
