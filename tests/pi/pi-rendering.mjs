// Writes, with pi's own SessionManager, a session holding every kind of
// block the renderer draws: markdown, fenced code, read / edit / write /
// bash tool calls with their results (output in colour), an image, thinking,
// a bash execution, a custom message, a compaction, a branch summary and a
// second branch; and hostile text (markup, script links, escape sequences)
// in the places a page or a terminal could be fooled by it.
//
// usage: node pi-rendering.mjs DIR CWD     prints the new session's path
import { sessionModule } from "./reference.mjs";

const { SessionManager } = await sessionModule();

const [dir, cwd] = process.argv.slice(2);
const sm = SessionManager.create(cwd, dir);
let clock = Date.UTC(2026, 0, 2, 9, 0, 0);
const t = () => (clock += 61_000);
const usage = (i, o, cost) => ({ input: i, output: o, cacheRead: 100, cacheWrite: 0, totalTokens: i + o + 100, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: cost } });
const assistant = (content, stopReason = "toolUse") => ({
  role: "assistant", content, provider: "anthropic", model: "claude-sonnet-4-5",
  usage: usage(1200, 300, 0.0125), stopReason, timestamp: t(),
});
const result = (id, name, text, extra = {}) => ({
  role: "toolResult", toolCallId: id, toolName: name, content: [{ type: "text", text }], isError: false, timestamp: t(), ...extra,
});
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

sm.appendModelChange("anthropic", "claude-sonnet-4-5");
sm.appendThinkingLevelChange("medium");
const first = sm.appendMessage({
  role: "user",
  timestamp: t(),
  content: "# Plan\n\nPlease **fix** the _parser_ in `src/lib.rs`:\n\n1. read it\n2. edit it\n   - keep the API\n\n" +
    "> quoted note\n\n| step | cost |\n|------|-----:|\n| read | 1 |\n| edit | 20 |\n\nSee [the docs](https://example.com/docs).",
});
sm.appendMessage(assistant([
  { type: "thinking", thinking: "The user wants a fix.\nStart by reading the file." },
  { type: "text", text: "I'll read it first. The usual shape is:\n\n```rust\nfn parse(s: &str) -> Option<u32> {\n    s.trim().parse().ok() // digits only\n}\n```" },
  { type: "toolCall", id: "call_read", name: "read", arguments: { path: "src/lib.rs", offset: 10, limit: 5 } },
]));
sm.appendMessage(result("call_read", "read", "pub struct Parser {\n    input: String,\n}\n\nimpl Parser {"));
sm.appendMessage(assistant([
  { type: "toolCall", id: "call_edit", name: "edit", arguments: { path: "src/lib.rs", edits: [
    { oldText: "pub struct Parser {\n    input: String,\n}", newText: "pub struct Parser {\n    input: String,\n    pos: usize,\n}" },
    { oldText: "impl Parser {", newText: "impl Parser {\n    pub fn new(input: String) -> Self { Parser { input, pos: 0 } }" },
  ] } },
]));
sm.appendMessage(result("call_edit", "edit", "Successfully replaced 2 block(s) in src/lib.rs."));
sm.appendMessage(assistant([
  { type: "toolCall", id: "call_write", name: "write", arguments: { path: "scripts/check.py", content: "import sys\n\n\ndef main() -> int:\n    print(\"ok\")  # report\n    return 0\n\n\nif __name__ == \"__main__\":\n    sys.exit(main())\n" } },
]));
sm.appendMessage(result("call_write", "write", "Successfully wrote 163 bytes to scripts/check.py"));
sm.appendMessage(assistant([
  { type: "toolCall", id: "call_bash", name: "bash", arguments: { command: "cargo test --color=always" } },
]));
sm.appendMessage(result("call_bash", "bash", "\u001b[1m\u001b[32m   Compiling\u001b[0m parser v0.1.0\n\u001b[0m\u001b[1m\u001b[31merror\u001b[0m: test failed\u001b]0;owned title\u0007\ntest result: \u001b[31mFAILED\u001b[0m. 1 passed; 1 failed", { isError: true }));
sm.appendMessage({
  role: "user", timestamp: t(),
  content: [{ type: "text", text: "Here is the screenshot:" }, { type: "image", mimeType: "image/png", data: PNG }],
});
sm.appendMessage({ role: "bashExecution", command: "git status --short", output: "\u001b[31m M\u001b[0m src/lib.rs\n\u001b[32m??\u001b[0m scripts/check.py\n", exitCode: 1, cancelled: false, truncated: false, timestamp: t() });
sm.appendCustomMessageEntry("notes-ext", "Injected by an **extension**.", false, { k: 1 });
const kept = sm.appendMessage({ role: "user", timestamp: t(), content: "Now make the test pass." });
sm.appendMessage(assistant([{ type: "text", text: "Done: the test passes now." }], "stop"));
sm.appendCompaction("## Goal\nFix the parser.\n\n## Progress\n- read `src/lib.rs`\n- added `pos`", kept, 48210, { readFiles: ["src/lib.rs"], modifiedFiles: ["src/lib.rs"] });
sm.appendMessage({
  role: "user", timestamp: t(),
  content: "Hostile: <script>window.__pwned = 1</script> <img src=x onerror=\"window.__pwned=2\"> " +
    "[click me](javascript:window.__pwned=3) [data](data:text/html,<script>1</script>) " +
    "![tracker](https://tracker.example/pixel.png) <iframe src=\"https://evil.example/\"></iframe> " +
    "\u001b]0;terminal title\u0007\u001b[2J\u009b31m end",
});
const tip = sm.appendMessage(assistant([{ type: "text", text: "<a href=\"javascript:window.__pwned=4\" onclick=\"window.__pwned=5\">link</a> and <style>body{display:none}</style>\n\n```html\n<script>window.__pwned=6</script>\n```" }], "stop"));
sm.branchWithSummary(first, "Tried another approach: **rewrite** the parser.");
sm.appendMessage({ role: "user", timestamp: t(), content: "Second branch: rewrite it from scratch." });
sm.appendMessage(assistant([{ type: "text", text: "Rewriting." }], "stop"));
// Back to the first branch, so pi resumes there.
sm.branch(tip);
sm.appendMessage({ role: "user", timestamp: t(), content: "Back on the first branch." });
console.log(sm.getSessionFile());
