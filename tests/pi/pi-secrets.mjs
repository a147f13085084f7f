// Writes, with pi's own SessionManager, a session with secrets planted in
// it: each snippet of the list (a text holding one secret) in a user
// prompt, an assistant's thinking, a bash call's command, that call's
// output, and a file read's result; one entry each.
//
// usage: node pi-secrets.mjs DIR CWD SNIPPETS.json   prints the session's path
//   SNIPPETS.json: [{"kind": "...", "snippet": "..."}, ...]
import { readFileSync } from "node:fs";
import { sessionModule } from "./reference.mjs";

const { SessionManager } = await sessionModule();

const [dir, cwd, list] = process.argv.slice(2);
const snippets = JSON.parse(readFileSync(list, "utf8"));
const sm = SessionManager.create(cwd, dir);
let clock = Date.UTC(2026, 2, 4, 9, 0, 0);
const t = () => (clock += 13_000);
const assistant = (content) => ({
  role: "assistant", content, provider: "anthropic", model: "claude-sonnet-4-5",
  usage: { input: 900, output: 80, cacheRead: 0, cacheWrite: 0, totalTokens: 980, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.004 } },
  stopReason: "toolUse", timestamp: t(),
});
const result = (id, name, text) => ({
  role: "toolResult", toolCallId: id, toolName: name, content: [{ type: "text", text }], isError: false, timestamp: t(),
});

sm.appendModelChange("anthropic", "claude-sonnet-4-5");
snippets.forEach(({ kind, snippet }, k) => {
  sm.appendMessage({ role: "user", timestamp: t(), content: `Set up ${kind} with this:\n\n${snippet}\n\nthen run the tests.` });
  sm.appendMessage(assistant([
    { type: "thinking", thinking: `The user pasted a credential:\n${snippet}\nI should not echo it back.` },
    { type: "toolCall", id: `call_bash_${k}`, name: "bash", arguments: { command: `printf '%s\\n' "${snippet}" > .env.${k}` } },
  ]));
  sm.appendMessage(result(`call_bash_${k}`, "bash", `wrote .env.${k}`));
  sm.appendMessage(assistant([{ type: "toolCall", id: `call_env_${k}`, name: "bash", arguments: { command: `env | grep -i ${k}` } }]));
  sm.appendMessage(result(`call_env_${k}`, "bash", `PATH=/usr/bin:/bin\n${snippet}\nHOME=/home/ada`));
  sm.appendMessage(assistant([{ type: "toolCall", id: `call_read_${k}`, name: "read", arguments: { path: `config/${k}.env` } }]));
  sm.appendMessage(result(`call_read_${k}`, "read", `# settings\nDEBUG=false\n${snippet}\nPORT=8080\n`));
});
sm.appendMessage({ ...assistant([{ type: "text", text: "All set up." }]), stopReason: "stop" });
console.log(sm.getSessionFile());
