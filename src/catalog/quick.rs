//! A fast path for the lines that are most of a session's bytes, message
//! lines as pi writes them: tool output counts only as a message with an id
//! and a parent, an assistant turn adds its time, model and usage. Checking
//! that such a line is valid JSON needs no decoding, so it is done here at
//! memory speed (with the engine's validating cursor) instead of through
//! serde; anything unusual goes to serde.

use super::summary::{EntryFacts, NameField};
use crate::session::cursor::Cursor;
use crate::session::entry::UsageTotals;

/// What a summary needs of a message line.
#[derive(Debug, PartialEq, Default)]
pub(crate) struct QuickMessage<'a> {
    pub id: &'a [u8],
    /// `None` for `"parentId":null`.
    pub parent: Option<&'a [u8]>,
    /// The entry's timestamp text (ASCII when it is a date).
    pub timestamp: &'a [u8],
    /// Set for a user or assistant turn.
    pub chat: Option<ChatFacts<'a>>,
}

/// Which turns the fast path may read: their text is not read, so only
/// when no text is needed from them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ChatTurns {
    pub user: bool,
    pub assistant: bool,
}

/// The fields of a user or assistant message a summary reads (not its text).
#[derive(Debug, PartialEq, Default)]
pub(crate) struct ChatFacts<'a> {
    pub user: bool,
    pub has_content: bool,
    /// `message.timestamp` when it is a number.
    pub time: Option<f64>,
    pub provider: Option<&'a str>,
    pub model: Option<&'a str>,
    /// (tokens, cost) when `usage` is an object.
    pub usage: Option<(f64, f64)>,
}

/// Recognises `{"type":"message","id":"…","parentId":"…"|null,
/// "timestamp":"…","message":{"role":"R",…}}` (a user or assistant turn
/// only as `turns` allows), no other top-level key and no repeated key
/// that matters, and checks the whole line is valid JSON.
/// `None` means: not certain, use the full parser.
pub(crate) fn quick_message(b: &[u8], turns: ChatTurns) -> Option<QuickMessage<'_>> {
    let mut c = Cursor::new(b);
    c.lit(b"{\"type\":\"message\",")?;
    let (id, parent) = id_and_parent(&mut c)?;
    c.lit(b",\"timestamp\":")?;
    let timestamp = c.plain_bytes()?;
    c.lit(b",\"message\":{\"role\":")?;
    let mut facts = match c.plain_bytes()? {
        b"user" if turns.user => Some(ChatFacts {
            user: true,
            ..ChatFacts::default()
        }),
        b"assistant" if turns.assistant => Some(ChatFacts::default()),
        b"user" | b"assistant" => return None,
        _ => None,
    };
    let mut seen = 0u8;
    while c.member_end()? {
        let key = c.key()?;
        if key == b"role" {
            return None;
        }
        let Some(f) = facts.as_mut() else {
            c.skip_value()?;
            continue;
        };
        let bit = match key {
            b"content" => 1,
            b"timestamp" => 2,
            b"provider" => 4,
            b"model" => 8,
            b"usage" => 16,
            _ => 0,
        };
        if seen & bit != 0 {
            return None;
        }
        seen |= bit;
        match key {
            b"content" => {
                f.has_content = true;
                content_shape_ok(&mut c)?;
            }
            b"timestamp" => f.time = number_or_skip(&mut c, b)?,
            b"provider" => f.provider = text_or_skip(&mut c)?,
            b"model" => f.model = text_or_skip(&mut c)?,
            b"usage" => f.usage = usage(&mut c, b)?,
            _ => c.skip_value()?,
        }
    }
    c.ws();
    c.eat(b'}')?;
    c.ws();
    c.at_end().then_some(QuickMessage {
        id,
        parent,
        timestamp,
        chat: facts,
    })
}

/// Recognises any other entry as pi writes it (`{"type":"T","id":"…",
/// "parentId":…`, then its own fields), reading what a summary needs: a
/// name, a label, a model, usage. Messages and headers, and anything
/// unusual (escapes, repeated keys, names or labels that are not text),
/// are left to the full parser.
pub(crate) fn quick_entry(b: &[u8]) -> Option<EntryFacts<'_>> {
    let mut c = Cursor::new(b);
    c.lit(b"{\"type\":")?;
    let kind = c.plain_bytes()?;
    if kind == b"message" || kind == b"session" {
        return None;
    }
    c.lit(b",")?;
    let (id, parent) = id_and_parent(&mut c)?;
    let mut e = EntryFacts {
        kind,
        id: Some(id),
        parent,
        name: NameField::Clear,
        target: None,
        label_truthy: false,
        provider: None,
        model_id: None,
        usage: None,
    };
    let mut seen = 0u8;
    while c.member_end()? {
        let key = c.key()?;
        let bit = match key {
            b"name" => 1,
            b"targetId" => 2,
            b"label" => 4,
            b"provider" => 8,
            b"modelId" => 16,
            b"usage" => 32,
            b"type" | b"id" | b"parentId" => return None,
            _ => 0,
        };
        if seen & bit != 0 {
            return None;
        }
        seen |= bit;
        match key {
            b"name" | b"label" => {
                let text = match c.peek()? {
                    b'"' => Some(c.plain_str()?),
                    b'n' => c.lit(b"null").map(|_| None)?,
                    _ => return None,
                };
                if key == b"name" {
                    e.name = text.map_or(NameField::Clear, NameField::Text);
                } else {
                    e.label_truthy = text.is_some_and(|t| !t.is_empty());
                }
            }
            b"targetId" => e.target = text_or_skip(&mut c)?,
            b"provider" => e.provider = text_or_skip(&mut c)?,
            b"modelId" => e.model_id = text_or_skip(&mut c)?,
            b"usage" => {
                e.usage = usage(&mut c, b)?.map(|(tokens, cost)| UsageTotals { tokens, cost });
            }
            _ => c.skip_value()?,
        }
    }
    c.ws();
    c.at_end().then_some(e)
}

/// `"id":"…","parentId":"…"|null` as pi writes them; `None` for a null parent.
fn id_and_parent<'a>(c: &mut Cursor<'a>) -> Option<(&'a [u8], Option<&'a [u8]>)> {
    c.lit(b"\"id\":")?;
    let id = c.plain_bytes()?;
    c.lit(b",\"parentId\":")?;
    let parent = if c.peek()? == b'n' {
        c.lit(b"null")?;
        None
    } else {
        Some(c.plain_bytes()?)
    };
    Some((id, parent))
}

/// Content pi's reader takes: a string, or a list without `null` blocks.
fn content_shape_ok(c: &mut Cursor<'_>) -> Option<()> {
    match c.peek()? {
        b'"' => c.skip_value(),
        b'[' => {
            c.bump()?;
            c.ws();
            if c.peek()? == b']' {
                c.bump()?;
                return Some(());
            }
            loop {
                if c.peek()? == b'n' {
                    return None;
                }
                c.skip_value()?;
                c.ws();
                match c.bump()? {
                    b',' => c.ws(),
                    b']' => return Some(()),
                    _ => return None,
                }
            }
        }
        _ => None,
    }
}

/// A number's value, or `None` for any other (valid) value.
fn number_or_skip(c: &mut Cursor<'_>, b: &[u8]) -> Option<Option<f64>> {
    let start = c.pos();
    let is_number = matches!(c.peek()?, b'-' | b'0'..=b'9');
    c.skip_value()?;
    if !is_number {
        return Some(None);
    }
    number_value(b.get(start..c.pos())?).map(Some)
}

/// A string without escapes, or `None` for any other (valid) value that is
/// not a string. A string with escapes is left to the full parser.
fn text_or_skip<'a>(c: &mut Cursor<'a>) -> Option<Option<&'a str>> {
    if c.peek()? == b'"' {
        c.plain_str().map(Some)
    } else {
        c.skip_value().map(|_| None)
    }
}

/// Walks an object's keys: `visit(index in watched, cursor)` reads or
/// skips the value. A repeated watched key sends the line to serde.
fn walk_object<'a>(
    c: &mut Cursor<'a>,
    watched: &[&[u8]],
    mut visit: impl FnMut(Option<usize>, &mut Cursor<'a>) -> Option<()>,
) -> Option<()> {
    if !c.open_object()? {
        return Some(());
    }
    let mut seen = 0u32;
    loop {
        let key = c.key()?;
        let key = watched.iter().position(|w| *w == key);
        if let Some(k) = key {
            if seen & (1 << k) != 0 {
                return None;
            }
            seen |= 1 << k;
        }
        visit(key, c)?;
        if !c.member_end()? {
            return Some(());
        }
    }
}

const USAGE_KEYS: [&[u8]; 6] = [
    b"totalTokens",
    b"input",
    b"output",
    b"cacheRead",
    b"cacheWrite",
    b"cost",
];

/// pi's usage totals: `totalTokens`, else the sum of the parts; `cost.total`.
fn usage(c: &mut Cursor<'_>, b: &[u8]) -> Option<Option<(f64, f64)>> {
    if c.peek()? != b'{' {
        return c.skip_value().map(|_| None);
    }
    let mut parts = [None; 5];
    let mut cost = None;
    walk_object(c, &USAGE_KEYS, |key, c| match key {
        Some(5) if c.peek() == Some(b'{') => walk_object(c, &[b"total"], |k, c| {
            if k == Some(0) {
                cost = number_or_skip(c, b)?;
                Some(())
            } else {
                c.skip_value()
            }
        }),
        Some(k) if k < 5 => {
            parts[k] = number_or_skip(c, b)?;
            Some(())
        }
        _ => c.skip_value(),
    })?;
    let tokens = parts[0].unwrap_or_else(|| parts[1..].iter().flatten().sum());
    Some(Some((tokens, cost.unwrap_or(0.0))))
}

/// The value of a valid JSON number: plain integers directly, others
/// through the standard parser.
fn number_value(text: &[u8]) -> Option<f64> {
    if text.len() <= 15 && text.iter().all(u8::is_ascii_digit) {
        return Some(text.iter().fold(0u64, |n, &d| n * 10 + u64::from(d - b'0')) as f64);
    }
    std::str::from_utf8(text).ok()?.parse::<f64>().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: ChatTurns = ChatTurns {
        user: true,
        assistant: true,
    };
    const NONE: ChatTurns = ChatTurns {
        user: false,
        assistant: false,
    };

    const TOOL: &str = r#"{"type":"message","id":"a1","parentId":"p0","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"toolResult","toolCallId":"c","toolName":"bash","content":[{"type":"text","text":"x\n\"y\" \u00e9 ü"}],"details":{"n":-1.5,"ok":true,"z":null,"e":[],"o":{}},"isError":false,"timestamp":1}}"#;

    #[test]
    fn takes_tool_output_lines() {
        assert_eq!(
            quick_message(TOOL.as_bytes(), ALL),
            Some(QuickMessage {
                id: b"a1",
                parent: Some(b"p0"),
                timestamp: b"2026-01-01T00:00:00.000Z",
                chat: None,
            })
        );
        let null_parent = TOOL.replace(r#""parentId":"p0""#, r#""parentId":null"#);
        assert_eq!(
            quick_message(null_parent.as_bytes(), ALL).map(|q| q.parent),
            Some(None)
        );
    }

    #[test]
    fn leaves_everything_uncertain_to_the_full_parser() {
        let cases = [
            TOOL.replace(r#""isError":false"#, r#""timestamp":2"#)
                .replace("toolResult", "assistant"),
            TOOL.replace(r#""isError":false"#, r#""role":"user""#),
            format!("{},\"usage\":{{}}}}", &TOOL[..TOOL.len() - 1]),
            TOOL.replace(r#""a1""#, r#""a\u0031""#),
            // Perhaps beyond f64: serde's side reads it as JavaScript does.
            TOOL.replace("-1.5", "-1.5e+3"),
            TOOL.replace("-1.5", "1e400"),
            // Not valid JSON in many small ways.
            TOOL.replace("-1.5", "-01"),
            TOOL.replace("-1.5", "1."),
            TOOL.replace("-1.5", "1e"),
            TOOL.replace("true", "tru"),
            TOOL.replace(r#"\u00e9"#, r#"\u00g9"#),
            TOOL.replace(r#"\n"#, r#"\x"#),
            TOOL.replace(r#"\n"#, "\n"),
            TOOL.replace(r#""e":[]"#, r#""e":[1,]"#),
            TOOL.replace(r#""o":{}"#, r#""o":{"a"}"#),
            TOOL.replace(r#""o":{}"#, r#""o":{"a":1,}"#),
            format!("{TOOL} x"),
            TOOL[..TOOL.len() - 1].to_string(),
            TOOL[..TOOL.len() / 2].to_string(),
        ];
        for case in &cases {
            assert_eq!(quick_message(case.as_bytes(), ALL), None, "{case}");
        }
        // Turns only when allowed.
        let user = TOOL.replace("toolResult", "user");
        assert_eq!(quick_message(user.as_bytes(), NONE), None);
        assert!(
            quick_message(user.as_bytes(), ALL)
                .and_then(|q| q.chat)
                .is_some_and(|c| c.user)
        );
        // Whatever it accepts, serde accepts too.
        assert!(serde_json::from_str::<serde_json::Value>(TOOL).is_ok());
        assert!(quick_message(format!("{TOOL}  \r").as_bytes(), ALL).is_some());
    }

    #[test]
    fn reads_assistant_turns() {
        let line = r#"{"type":"message","id":"b","parentId":"a","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"ok"}],"provider":"p","model":"m","usage":{"input":3,"output":4,"cacheRead":1,"cacheWrite":0,"cost":{"input":0.1,"total":0.25}},"stopReason":"stop","timestamp":1767225600000}}"#;
        let q = quick_message(line.as_bytes(), ALL).expect("quick");
        assert_eq!(
            q.chat,
            Some(ChatFacts {
                user: false,
                has_content: true,
                time: Some(1_767_225_600_000.0),
                provider: Some("p"),
                model: Some("m"),
                usage: Some((8.0, 0.25)),
            })
        );
        assert_eq!(quick_message(line.as_bytes(), NONE), None);
        let total = line.replace(r#""input":3"#, r#""totalTokens":99,"input":3"#);
        let q = quick_message(total.as_bytes(), ALL).expect("quick");
        assert_eq!(q.chat.and_then(|a| a.usage), Some((99.0, 0.25)));
        for odd in [
            line.replace(r#"{"type":"text","text":"ok"}"#, "null"),
            line.replace(r#""content":["#, r#""content":5,"x":["#),
            line.replace(r#""model":"m""#, r#""model":"m","model":"n""#),
            line.replace(r#""output":4"#, r#""output":4,"output":5"#),
            line.replace(r#""model":"m""#, r#""model":"\u006d""#),
        ] {
            assert_eq!(quick_message(odd.as_bytes(), ALL), None, "{odd}");
        }
    }

    #[test]
    fn reads_other_entries_and_leaves_odd_ones() {
        let label = br#"{"type":"label","id":"l","parentId":"a","timestamp":"t","targetId":"a","label":"x"}"#;
        let e = quick_entry(label).expect("quick");
        assert_eq!(
            (e.kind, e.target, e.label_truthy),
            (&b"label"[..], Some("a"), true)
        );
        let cleared =
            quick_entry(br#"{"type":"label","id":"l","parentId":null,"targetId":"a","label":""}"#)
                .expect("quick");
        assert!(!cleared.label_truthy && cleared.parent.is_none());
        let name = quick_entry(br#"{"type":"session_info","id":"n","parentId":"a","name":" hi "}"#)
            .expect("quick");
        assert!(matches!(name.name, NameField::Text(" hi ")));
        let model = quick_entry(
            br#"{"type":"model_change","id":"m","parentId":"a","provider":"p","modelId":"x"}"#,
        )
        .expect("quick");
        assert_eq!((model.provider, model.model_id), (Some("p"), Some("x")));
        let usage = quick_entry(br#"{"type":"usage","id":"u","parentId":"a","usage":{"totalTokens":5,"cost":{"total":0.5}}}"#).expect("quick");
        assert_eq!(
            usage.usage,
            Some(UsageTotals {
                tokens: 5.0,
                cost: 0.5
            })
        );
        for odd in [
            &br#"{"type":"session_info","id":"n","parentId":"a","name":5}"#[..],
            br#"{"type":"label","id":"l","parentId":"a","targetId":"a","label":1}"#,
            br#"{"type":"label","id":"l","parentId":"a","targetId":"a","label":"x","label":""}"#,
            br#"{"type":"label","id":"l","parentId":"a","id":"k"}"#,
            br#"{"type":"label","id":"l\u0031","parentId":"a"}"#,
            br#"{"type":"message","id":"l","parentId":"a"}"#,
            br#"{"type":"session","id":"l","parentId":"a"}"#,
            br#"{"type":"label","id":"l","parentId":"a",}"#,
        ] {
            assert!(
                quick_entry(odd).is_none(),
                "{}",
                String::from_utf8_lossy(odd)
            );
        }
    }

    #[test]
    fn deep_nesting_is_left_to_the_full_parser() {
        let deep = format!(
            r#"{{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{{"role":"toolResult","d":{}{}}}}}"#,
            "[".repeat(200_000),
            "]".repeat(200_000)
        );
        // The cursor's depth limit hands it over; nothing overflows.
        assert!(quick_message(deep.as_bytes(), ALL).is_none());
        let shallow = deep
            .replace(&"[".repeat(200_000), "[[")
            .replace(&"]".repeat(200_000), "]]");
        assert!(quick_message(shallow.as_bytes(), ALL).is_some());
    }
}
