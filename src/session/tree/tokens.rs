//! How big the context is, in tokens, as pi's footer tells it: the usage
//! the last assistant message reported for its whole request, plus an
//! estimate (a token for every four characters) of the messages after it.
//! After a compaction the size is unknown until an assistant answers; a
//! usage reported before the latest compaction or context edit is not
//! trusted, and the whole context is estimated instead.

use super::context::Context;
use crate::jstext::len_utf16;
use crate::session::line::entry::Kind;
use crate::session::{Session, SessionError};
use serde_json::Value;
use std::fs::File;

/// The characters an image counts for.
const IMAGE_CHARS: f64 = 4800.0;

impl Session {
    /// The context's size in tokens at `ctx`, as pi's footer computes it
    /// (`None`: unknown, after a compaction no assistant has answered yet).
    /// Only the messages after the last usage are read, unless that usage
    /// predates an edit or a compaction. `file` is the session file, open
    /// for reading.
    pub fn context_tokens(
        &self,
        ctx: &Context,
        file: &mut File,
    ) -> Result<Option<f64>, SessionError> {
        let size = self.context_tokens_within(ctx, file, &|_| false)?;
        Ok(size.flatten())
    }

    /// [`Session::context_tokens`], given up (`Ok(None)`) once `give_up`,
    /// asked with the number of messages read so far every so often, says
    /// so: a long context with no usage reported near its end is read
    /// whole.
    pub fn context_tokens_within(
        &self,
        ctx: &Context,
        file: &mut File,
        give_up: &dyn Fn(usize) -> bool,
    ) -> Result<Option<Option<f64>>, SessionError> {
        let mut read = 0usize;
        let mut enough = |n: usize| {
            read += n;
            read % 64 < n && give_up(read)
        };
        let at = |entry: u32| ctx.path.iter().position(|&e| e == entry);
        let last_of = |kinds: &[Kind]| {
            ctx.path
                .iter()
                .rposition(|&e| kinds.contains(&self.entries.kind(e as usize)))
        };
        let compaction = last_of(&[Kind::Compaction]);
        let invalidating = last_of(&[Kind::Compaction, Kind::ContextEdit]);
        let mut trailing = 0.0;
        let mut usage = None;
        'items: for item in ctx.items.iter().rev() {
            let messages = self.context_messages(item, file)?;
            if enough(messages.len()) {
                return Ok(None);
            }
            for m in messages.iter().rev() {
                let Ok(v) = serde_json::from_str::<Value>(m) else {
                    continue;
                };
                if let Some(tokens) = reported(&v) {
                    usage = Some((item.entry(), tokens));
                    break 'items;
                }
                trailing += estimate(&v);
            }
        }
        if let Some(c) = compaction {
            // Only an answer after the compaction tells the size.
            let answered = usage.and_then(|(e, _)| at(e)).is_some_and(|p| p > c);
            if !answered {
                return Ok(Some(None));
            }
        }
        if let Some((entry, tokens)) = usage {
            if at(entry) > invalidating || invalidating.is_none() {
                return Ok(Some(Some(tokens + trailing)));
            }
        }
        // Nothing to trust: the whole context estimated, its system
        // messages as the one they make together.
        // Only the system messages are kept; the others are counted as
        // they are read (each estimate is a whole number, so the sum is
        // the same in any order).
        let mut systems = Vec::new();
        let mut others = 0.0;
        for item in &ctx.items {
            let messages = self.context_messages(item, file)?;
            if enough(messages.len()) {
                return Ok(None);
            }
            for m in messages {
                if let Ok(v) = serde_json::from_str::<Value>(&m) {
                    if role(&v) == Some("system") {
                        systems.push(v);
                    } else {
                        others += estimate(&v);
                    }
                }
            }
        }
        Ok(Some(Some(
            current_system(&systems).map_or(0.0, |s| estimate(&s)) + others,
        )))
    }
}

fn role(v: &Value) -> Option<&str> {
    v.get("role").and_then(Value::as_str)
}

/// A number as JavaScript reads a field of it: missing is `NaN`.
fn num(v: &Value, key: &str) -> f64 {
    v.get(key).and_then(Value::as_f64).unwrap_or(f64::NAN)
}

/// The tokens an assistant message's usage says the request held, when it
/// is one pi trusts (not aborted, not an error, more than none).
fn reported(v: &Value) -> Option<f64> {
    if role(v) != Some("assistant") {
        return None;
    }
    let stop = v.get("stopReason").and_then(Value::as_str);
    if matches!(stop, Some("aborted" | "error")) {
        return None;
    }
    let usage = v.get("usage").filter(|u| truthy(u))?;
    let total = num(usage, "totalTokens");
    let tokens = if total.is_nan() || total == 0.0 {
        num(usage, "input")
            + num(usage, "output")
            + num(usage, "cacheRead")
            + num(usage, "cacheWrite")
    } else {
        total
    };
    (tokens > 0.0).then_some(tokens)
}

fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        _ => true,
    }
}

/// A string's length as JavaScript counts it; 0 for what is no string.
fn chars(v: Option<&Value>) -> f64 {
    v.and_then(Value::as_str)
        .map_or(0.0, |s| len_utf16(s) as f64)
}

/// `JSON.stringify(v).length`.
fn json_chars(v: &Value) -> f64 {
    serde_json::to_string(v).map_or(0.0, |s| len_utf16(&s) as f64)
}

/// The characters of text and images in a message's content.
fn content_chars(content: Option<&Value>) -> f64 {
    match content {
        Some(Value::String(s)) => len_utf16(s) as f64,
        Some(Value::Array(blocks)) => blocks
            .iter()
            .map(|b| match b.get("type").and_then(Value::as_str) {
                Some("text") => chars(b.get("text")),
                Some("image") => IMAGE_CHARS,
                _ => 0.0,
            })
            .sum(),
        _ => 0.0,
    }
}

/// pi's estimate of one message: a token for every four characters.
fn estimate(v: &Value) -> f64 {
    let chars = match role(v) {
        Some("system") => {
            let sections: f64 = v
                .get("sections")
                .and_then(Value::as_object)
                .map_or(0.0, |s| s.values().map(|x| chars(Some(x))).sum());
            let tools = v
                .get("toolsAdded")
                .filter(|t| truthy(t))
                .map_or(0.0, json_chars);
            content_chars(v.get("content")) + sections + tools
        }
        Some("user" | "custom" | "toolResult") => content_chars(v.get("content")),
        Some("assistant") => v
            .get("content")
            .and_then(Value::as_array)
            .map_or(0.0, |blocks| {
                blocks
                    .iter()
                    .map(|b| match b.get("type").and_then(Value::as_str) {
                        Some("text") => chars(b.get("text")),
                        Some("thinking") => chars(b.get("thinking")),
                        Some("toolCall") => {
                            chars(b.get("name")) + b.get("arguments").map_or(0.0, json_chars)
                        }
                        _ => 0.0,
                    })
                    .sum()
            }),
        Some("bashExecution") => chars(v.get("command")) + chars(v.get("output")),
        Some("branchSummary" | "compactionSummary") => chars(v.get("summary")),
        _ => return 0.0,
    };
    (chars / 4.0).ceil()
}

/// The one system message the context's system messages make together:
/// their texts joined, their sections merged (a null one removed), their
/// tools added and removed by name; none when there is nothing to say.
fn current_system(messages: &[Value]) -> Option<Value> {
    let mut content: Vec<String> = Vec::new();
    let mut sections = serde_json::Map::new();
    let mut tools: Vec<(String, Value)> = Vec::new();
    let mut stamped = false;
    for m in messages.iter().filter(|m| role(m) == Some("system")) {
        stamped |= m.get("timestamp").is_some_and(|t| !t.is_null());
        let text = match m.get("content") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Array(blocks)) => blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .map(|b| b.get("text").and_then(Value::as_str).unwrap_or(""))
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        };
        if !text.is_empty() {
            content.push(text);
        }
        if let Some(s) = m.get("sections").and_then(Value::as_object) {
            for (name, value) in s {
                sections.shift_remove(name);
                if !value.is_null() {
                    sections.insert(name.clone(), value.clone());
                }
            }
        }
        let name_of = |t: &Value| {
            t.get("name")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        for t in m
            .get("toolsRemoved")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let name = name_of(t);
            tools.retain(|(n, _)| *n != name);
        }
        for t in m
            .get("toolsAdded")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let name = name_of(t);
            match tools.iter_mut().find(|(n, _)| *n == name) {
                Some(slot) => slot.1 = t.clone(),
                None => tools.push((name, t.clone())),
            }
        }
    }
    if !stamped && tools.is_empty() {
        return None;
    }
    let mut system = serde_json::Map::new();
    system.insert("role".into(), "system".into());
    system.insert("content".into(), content.join("\n\n").into());
    if !sections.is_empty() {
        system.insert("sections".into(), Value::Object(sections));
    }
    if !tools.is_empty() {
        system.insert(
            "toolsAdded".into(),
            Value::Array(tools.into_iter().map(|(_, t)| t).collect()),
        );
    }
    Some(Value::Object(system))
}

#[cfg(test)]
mod tests {
    use crate::session::{LeafSelector, Session};
    use std::io::Write;

    /// A session of `pairs` questions and answers, none reporting usage.
    fn unreported(pairs: usize) -> tempfile::NamedTempFile {
        let mut f = tempfile::NamedTempFile::new().expect("temp file");
        writeln!(
            f,
            r#"{{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}}"#
        )
        .expect("write");
        let mut parent = "null".to_string();
        for i in 0..pairs * 2 {
            let role = if i % 2 == 0 { "user" } else { "assistant" };
            let content = if i % 2 == 0 {
                format!(r#""question {i}""#)
            } else {
                format!(r#"[{{"type":"text","text":"answer {i}"}}]"#)
            };
            writeln!(
                f,
                r#"{{"type":"message","id":"e{i}","parentId":{parent},"timestamp":"2026-01-01T00:00:01.000Z","message":{{"role":"{role}","content":{content},"timestamp":1}}}}"#
            )
            .expect("write");
            parent = format!(r#""e{i}""#);
        }
        f
    }

    #[test]
    fn a_size_read_in_part_is_given_up_and_read_whole_is_the_same() {
        let f = unreported(200);
        let s = Session::open(f.path()).expect("a session");
        let ctx = s.context(&LeafSelector::Last);
        let mut file = std::fs::File::open(f.path()).expect("open");
        let whole = s.context_tokens(&ctx, &mut file).expect("read");
        assert!(whole.is_some_and(|t| t > 0.0), "{whole:?}");
        let given_up = s.context_tokens_within(&ctx, &mut file, &|n| n > 100);
        assert_eq!(given_up.expect("read"), None);
        let within = s.context_tokens_within(&ctx, &mut file, &|n| n > 1000);
        assert_eq!(within.expect("read"), Some(whole));
    }
}
