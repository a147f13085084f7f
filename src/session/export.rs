//! Exporting one branch of a session: as Markdown for reading and sharing,
//! or as a session file of its own (the text a fork would write).

use super::content::{Block, Content, plain_text};
use super::{Kind, Session, SessionError, migrate};
use crate::jstext::date as jsdate;
use serde_json::Value;
use std::fmt::Write as _;

/// How many lines of tool output a Markdown export keeps per result.
const TOOL_OUTPUT_LINES: usize = 40;

/// The branch to `leaf` (the current leaf when `None`) as Markdown: each
/// entry under a heading with its role and time, tool calls with their
/// arguments, tool output in fenced blocks (long output cut), summaries,
/// model and thinking changes as notes, labels in brackets.
pub fn export_markdown(session: &Session, leaf: Option<u32>) -> Result<String, SessionError> {
    let Some(leaf) = leaf.or_else(|| session.leaf()) else {
        return Ok(format!("# {}\n\n(empty session)\n", title(session)));
    };
    let mut file = session.open_file()?;
    let mut out = String::new();
    let _ = writeln!(out, "# {}\n", title(session));
    let cwd = session.header.cwd.as_deref().unwrap_or("?");
    let _ = writeln!(
        out,
        "_Session `{}` in `{cwd}`, exported {}._\n",
        session.header.id,
        jsdate::format_iso(jsdate::now_ms())
    );
    for idx in session.tree.path_to(leaf) {
        let entry = session.entry(idx);
        let text = session.line_text_in(&mut file, idx)?;
        let text = if session.is_legacy() {
            migrate::migrated_line(session, idx as usize, &text)
        } else {
            text
        };
        let Ok(v) = serde_json::from_str::<Value>(&text) else {
            continue;
        };
        let label = session
            .label_of(idx)
            .map(|l| format!(" [{}]", l.label))
            .unwrap_or_default();
        let time = entry
            .time_ms
            .map(|t| format!(" · {}", jsdate::format_iso(t)))
            .unwrap_or_default();
        match entry.kind {
            Kind::Message => message(&mut out, &v["message"], &label, &time),
            Kind::Compaction => {
                let tokens = v["tokensBefore"]
                    .as_f64()
                    .map(|t| format!(", {} tokens before", t as i64))
                    .unwrap_or_default();
                let _ = writeln!(
                    out,
                    "### Compaction{tokens}{label}{time}\n\n{}\n",
                    str_of(&v["summary"])
                );
            }
            Kind::BranchSummary => {
                let _ = writeln!(
                    out,
                    "### Branch summary{label}{time}\n\n{}\n",
                    str_of(&v["summary"])
                );
            }
            Kind::CustomMessage => {
                let kind = str_of(&v["customType"]);
                let _ = writeln!(
                    out,
                    "### Custom message ({kind}){label}{time}\n\n{}\n",
                    plain_text(v.get("content"))
                );
            }
            Kind::ModelChange => {
                let _ = writeln!(
                    out,
                    "_Model: {}/{}{time}_\n",
                    str_of(&v["provider"]),
                    str_of(&v["modelId"])
                );
            }
            Kind::ThinkingLevelChange => {
                let _ = writeln!(out, "_Thinking: {}{time}_\n", str_of(&v["thinkingLevel"]));
            }
            _ => {}
        }
    }
    Ok(out)
}

/// The branch to `leaf` as a session file of its own (what a fork writes).
pub fn export_jsonl(session: &Session, leaf: Option<&str>) -> Result<String, SessionError> {
    super::fork::fork_text(session, leaf).map(|f| f.text)
}

fn title(session: &Session) -> String {
    session
        .name()
        .unwrap_or_else(|| format!("Session {}", session.header.id))
}

fn str_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn fenced(out: &mut String, text: &str, cut: Option<usize>) {
    // A fence longer than any run of backticks inside.
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let lines: Vec<&str> = text.lines().collect();
    let keep = cut.unwrap_or(lines.len()).min(lines.len());
    let _ = writeln!(out, "{fence}\n{}", lines[..keep].join("\n"));
    if keep < lines.len() {
        let _ = writeln!(out, "… {} more lines", lines.len() - keep);
    }
    let _ = writeln!(out, "{fence}\n");
}

fn message(out: &mut String, m: &Value, label: &str, time: &str) {
    let role = m["role"].as_str().unwrap_or("message");
    match role {
        "user" => {
            let _ = writeln!(
                out,
                "### User{label}{time}\n\n{}\n",
                plain_text(m.get("content"))
            );
        }
        "assistant" => {
            let model = m["model"]
                .as_str()
                .map(|s| format!(" ({s})"))
                .unwrap_or_default();
            let _ = writeln!(out, "### Assistant{model}{label}{time}\n");
            match Content::of(m.get("content")) {
                c @ Content::Blocks(_) => {
                    for b in c.blocks() {
                        match b {
                            Block::Text(t) => {
                                let _ = writeln!(out, "{t}\n");
                            }
                            Block::Thinking(t) => {
                                let quoted: Vec<String> =
                                    t.lines().map(|l| format!("> {l}")).collect();
                                let _ = writeln!(out, "> _Thinking_\n{}\n", quoted.join("\n"));
                            }
                            Block::ToolCall { name, arguments } => {
                                let _ =
                                    writeln!(out, "**Tool call** `{}`", name.unwrap_or_default());
                                let args =
                                    serde_json::to_string_pretty(arguments.unwrap_or(&Value::Null))
                                        .unwrap_or_default();
                                fenced(out, &args, None);
                            }
                            Block::Image { .. } | Block::Other(_) => {}
                        }
                    }
                }
                _ => {
                    let _ = writeln!(out, "{}\n", plain_text(m.get("content")));
                }
            }
            if let Some(err) = m["errorMessage"].as_str() {
                let _ = writeln!(out, "_Error: {err}_\n");
            }
        }
        "toolResult" => {
            let name = str_of(&m["toolName"]);
            let error = if m["isError"] == true { " (error)" } else { "" };
            let _ = writeln!(out, "### Tool result: {name}{error}{label}{time}\n");
            fenced(out, &plain_text(m.get("content")), Some(TOOL_OUTPUT_LINES));
        }
        "bashExecution" => {
            let _ = writeln!(out, "### Bash: `{}`{label}{time}\n", str_of(&m["command"]));
            fenced(out, &str_of(&m["output"]), Some(TOOL_OUTPUT_LINES));
        }
        "branchSummary" | "compactionSummary" => {
            let _ = writeln!(
                out,
                "### Summary{label}{time}\n\n{}\n",
                str_of(&m["summary"])
            );
        }
        other => {
            let _ = writeln!(
                out,
                "### {other}{label}{time}\n\n{}\n",
                plain_text(m.get("content"))
            );
        }
    }
}
