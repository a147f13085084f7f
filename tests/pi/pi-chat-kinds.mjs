// Writes, with pi's own SessionManager, sessions that hold every kind of
// message pi's interactive chat draws, for the chat differential
// (tests/end_to_end/chat_side_by_side_with_pi.rs): user and assistant
// text (markdown, hard line breaks, long lines to wrap), thinking, every
// built-in tool's call and result (read, edit, write, bash, grep, find,
// ls) with and without `details`, error results, an aborted turn, bash
// executions, custom messages, a skill invocation and a branch summary;
// and a second session whose context starts at a compaction.
//
// usage: node pi-chat-kinds.mjs DIR CWD
//   prints each session's name and path, one session a line: NAME<TAB>PATH
import { loadPi, sessionModule } from "./reference.mjs";

const { SessionManager } = await sessionModule();
const { generateDiffString } = await loadPi("dist/core/tools/edit-diff.js");

const [dir, cwd] = process.argv.slice(2);
let clock = Date.UTC(2026, 1, 3, 8, 0, 0);
const t = () => (clock += 47_000);
const usage = (i, o, cost) => ({
  input: i, output: o, cacheRead: 2000, cacheWrite: 0, totalTokens: i + o + 2000,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: cost },
});
const assistant = (content, stopReason = "toolUse", extra = {}) => ({
  role: "assistant", content, api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5",
  usage: usage(3400, 420, 0.0231), stopReason, timestamp: t(), ...extra,
});
const result = (id, name, text, extra = {}) => ({
  role: "toolResult", toolCallId: id, toolName: name, content: [{ type: "text", text }], isError: false, timestamp: t(), ...extra,
});
const lines = (n, f) => Array.from({ length: n }, (_, i) => f(i + 1)).join("\n");
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
let calls = 0;
/** One assistant turn calling `name` with `args`, and its result. */
function tool(sm, name, args, text, extra = {}) {
  const id = `call_${++calls}`;
  sm.appendMessage(assistant([{ type: "toolCall", id, name, arguments: args }]));
  sm.appendMessage(result(id, name, text, extra));
}

// The first session: every kind but a compaction.
{
  const sm = SessionManager.create(cwd, dir);
  sm.appendModelChange("anthropic", "claude-sonnet-4-5");
  sm.appendThinkingLevelChange("high");
  sm.appendMessage({
    role: "user", timestamp: t(),
    content: "## Where we are\n\nThe loader drops lines.\nIndex 0: header\nIndex 1: comparison\n\n" +
      "Please check **why** the `parse_line` function in the loader module returns early when the input " +
      "carries a trailing carriage return, and see [the notes](https://example.com/notes/loader) first.\n\n" +
      "- keep the public API\n- add a test\n  - for CRLF\n\n> Quoted: it worked last week.\n\n" +
      "| file | lines |\n|------|------:|\n| loader.rs | 210 |\n| main.rs | 40 |",
  });
  const answer = sm.appendMessage(assistant([
    { type: "thinking", thinking: "The user reports dropped lines.\nFirst read the loader, then search for parse_line." },
    { type: "text", text: "I will read the loader first.\n\n```rust\nfn parse_line(s: &str) -> Option<&str> {\n    s.strip_suffix('\\n') // the suspect\n}\n```" },
  ], "stop"));
  sm.appendMessage({ role: "user", timestamp: t(), content: "Try the quick fix first." });
  sm.appendMessage(assistant([{ type: "text", text: "Quick fix applied, but it broke the tests." }], "stop"));
  // Back to the first question, with what the other branch tried.
  sm.branchWithSummary(answer, "Tried a **quick fix** on another branch: stripping `\\r` in `main.rs`.\nIt broke two tests.");

  const file = lines(40, (i) => `line ${i}: let value_${i} = compute(${i});`);
  // read, with and without details, and a file pi shows compact.
  tool(sm, "read", { path: "src/loader.rs" }, file);
  tool(sm, "read", { path: "src/main.rs", offset: 10, limit: 5 }, lines(5, (i) => `fn step_${i}() {}`),
    { details: { truncation: { truncated: false, totalLines: 40, outputLines: 5 } } });
  tool(sm, "read", { path: "AGENTS.md" }, "# Agents\n\nRun the tests before committing.");
  tool(sm, "read", { path: "src/missing.rs" }, "ENOENT: no such file or directory, open 'src/missing.rs'", { isError: true });
  // grep, find, ls: short and long outputs, with and without details.
  tool(sm, "grep", { pattern: "parse_line", path: "src", glob: "*.rs" },
    "src/loader.rs:12: fn parse_line(s: &str) -> Option<&str> {\nsrc/loader.rs:30:     parse_line(raw)\nsrc/main.rs:8: use loader::parse_line;");
  tool(sm, "grep", { pattern: "TODO", path: "." , limit: 30 }, lines(30, (i) => `src/mod_${i}.rs:${i}: // TODO item ${i}`),
    { details: { matchLimitReached: 30, linesTruncated: true } });
  tool(sm, "find", { pattern: "*.rs", path: "src" }, "src/loader.rs\nsrc/main.rs\nsrc/lib.rs");
  tool(sm, "find", { pattern: "**/*.json" }, lines(26, (i) => `fixtures/case_${i}.json`),
    { details: { resultLimitReached: 26 } });
  tool(sm, "ls", { path: "src" }, "lib.rs\nloader.rs\nmain.rs\ntests/");
  tool(sm, "ls", { path: "fixtures", limit: 24 }, lines(24, (i) => `case_${i}.json`),
    { details: { entryLimitReached: 24 } });
  tool(sm, "ls", { path: "nowhere" }, "Path not found: nowhere", { isError: true });
  // edit with pi's own diff in details, and without details.
  const before = lines(12, (i) => (i === 6 ? "    s.strip_suffix('\\n')" : `    // context line ${i}`));
  const after = before.replace("    s.strip_suffix('\\n')", "    s.strip_suffix('\\n')\n        .map(|l| l.strip_suffix('\\r').unwrap_or(l))");
  const { diff, firstChangedLine } = generateDiffString(before, after);
  tool(sm, "edit", { path: "src/loader.rs", edits: [{ oldText: "    s.strip_suffix('\\n')", newText: "    s.strip_suffix('\\n')\n        .map(|l| l.strip_suffix('\\r').unwrap_or(l))" }] },
    "Successfully replaced 1 block(s) in src/loader.rs.", { details: { diff, firstChangedLine } });
  tool(sm, "edit", { path: "src/main.rs", oldText: "let strict = false;", newText: "let strict = true;" },
    "Successfully replaced text in src/main.rs.");
  tool(sm, "edit", { path: "src/lib.rs", edits: [{ oldText: "nothing like this", newText: "x" }] },
    "Could not find the exact text in src/lib.rs. The old text must match exactly including all whitespace and newlines.", { isError: true });
  // write: short and long content.
  tool(sm, "write", { path: "tests/crlf.rs", content: "#[test]\nfn crlf_lines_are_kept() {\n    assert_eq!(parse_line(\"a\\r\\n\"), Some(\"a\"));\n}\n" },
    "Successfully wrote 92 bytes to tests/crlf.rs");
  tool(sm, "write", { path: "notes/plan.md", content: lines(30, (i) => `Step ${i}: check the loader on input ${i}.`) },
    "Successfully wrote 1024 bytes to notes/plan.md");
  // bash: short, long (a tail is shown), failing, with truncation details.
  tool(sm, "bash", { command: "cargo build" }, "   Compiling loader v0.1.0\n    Finished dev profile in 2.31s");
  tool(sm, "bash", { command: "cargo test 2>&1" },
    lines(30, (i) => `test case_${i} ... ok`) + "\ntest crlf_lines_are_kept ... FAILED\n\nfailures: crlf_lines_are_kept\ntest result: FAILED. 30 passed; 1 failed",
    { isError: true });
  tool(sm, "bash", { command: "seq 1 3000" }, lines(2000, (i) => `${i + 1000}`) + "\n\n[Showing lines 1001-3000 of 3000. Full output: /tmp/pi-bash-1.log]",
    { details: { truncation: { truncated: true, truncatedBy: "lines", totalLines: 3000, outputLines: 2000 }, fullOutputPath: "/tmp/pi-bash-1.log" } });
  // The user's own shell commands: in context and excluded from it.
  sm.appendMessage({ role: "bashExecution", command: "git status --short", output: " M src/loader.rs\n?? tests/crlf.rs\n", exitCode: 0, cancelled: false, truncated: false, timestamp: t() });
  sm.appendMessage({ role: "bashExecution", command: "false", output: "", exitCode: 1, cancelled: false, truncated: false, timestamp: t() });
  sm.appendMessage({ role: "bashExecution", command: "ls ~", output: "notes\nwork\n", exitCode: 0, cancelled: false, truncated: false, timestamp: t(), excludeFromContext: true });
  // Custom messages: shown, and hidden from the chat.
  sm.appendCustomMessageEntry("review-ext", "The **review** extension says:\nthe loader needs a CRLF test.", true, { score: 3 });
  sm.appendCustomMessageEntry("hidden-ext", "Not drawn in pi's chat.", false);
  // A skill invocation, and the user's words after it.
  sm.appendMessage({
    role: "user", timestamp: t(),
    content: "<skill name=\"release\" location=\"/home/u/.pi/skills/release/SKILL.md\">\n# Release\n\nTag the version, then publish.\n</skill>\n\nPlease cut the release now.",
  });
  // An aborted turn and an error turn.
  sm.appendMessage(assistant([{ type: "text", text: "Tagging v0.2.0" }], "aborted", { errorMessage: "Request was aborted" }));
  sm.appendMessage(assistant([{ type: "text", text: "" }], "error", { errorMessage: "overloaded_error: the service is busy, retry later" }));
  sm.appendMessage({ role: "user", timestamp: t(), content: [{ type: "text", text: "Go on.\nThen summarise." }, { type: "image", mimeType: "image/png", data: PNG }] });
  sm.appendMessage(assistant([
    { type: "thinking", thinking: "Summarise briefly." },
    { type: "text", text: "### Summary\n\n1. The loader now strips `\\r`.\n2. A test covers CRLF input; it passes.\n\nA very long closing sentence follows here so that it wraps at the preview's width, with words like configuration, serialisation and reproducibility that must not split." },
  ], "stop"));
  console.log(`every-kind\t${sm.getSessionFile()}`);
}

// The second session: the context starts at a compaction.
{
  const sm = SessionManager.create(cwd, dir);
  sm.appendModelChange("anthropic", "claude-sonnet-4-5");
  sm.appendMessage({ role: "user", timestamp: t(), content: "Port the loader to async." });
  sm.appendMessage(assistant([{ type: "text", text: "Started the port." }], "stop"));
  const kept = sm.appendMessage({ role: "user", timestamp: t(), content: "Now the writer too." });
  sm.appendMessage(assistant([{ type: "text", text: "The writer is async now." }], "stop"));
  sm.appendCompaction("## Goal\nPort the loader and the writer to async.\n\n## Progress\n- loader done\n- writer done\n\n## Next\nRun the benchmarks.", kept, 61234, { readFiles: ["src/loader.rs"], modifiedFiles: ["src/writer.rs"] });
  sm.appendMessage({ role: "user", timestamp: t(), content: "Run the benchmarks." });
  tool(sm, "bash", { command: "cargo bench" }, "loader  time: 1.2 ms\nwriter  time: 0.8 ms");
  sm.appendMessage(assistant([{ type: "text", text: "Both are faster than before." }], "stop"));
  console.log(`compacted\t${sm.getSessionFile()}`);
}
