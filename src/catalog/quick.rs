//! A fast path for the lines that are most of a session's bytes, message
//! lines as pi writes them: tool output counts only as a message with an id
//! and a parent, an assistant turn adds its time, model and usage. Checking
//! that such a line is valid JSON needs no decoding, so it is done here at
//! memory speed instead of through serde; anything unusual goes to serde.

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
    let mut i = expect(b, 0, b"{\"type\":\"message\",\"id\":")?;
    let (id, j) = plain_bytes(b, i)?;
    i = expect(b, j, b",\"parentId\":")?;
    let parent = if b[i..].starts_with(b"null") {
        i += 4;
        None
    } else {
        let (p, j) = plain_bytes(b, i)?;
        i = j;
        Some(p)
    };
    i = expect(b, i, b",\"timestamp\":")?;
    let (timestamp, j) = plain_bytes(b, i)?;
    i = expect(b, j, b",\"message\":{\"role\":")?;
    let (role, j) = plain_bytes(b, i)?;
    let mut facts = match role {
        b"user" if turns.user => Some(ChatFacts {
            user: true,
            ..ChatFacts::default()
        }),
        b"assistant" if turns.assistant => Some(ChatFacts::default()),
        b"user" | b"assistant" => return None,
        _ => None,
    };
    i = j;
    let mut seen = 0u8;
    loop {
        i = skip_ws(b, i);
        match b.get(i)? {
            b'}' => break,
            b',' => {
                i = skip_ws(b, i + 1);
                let (key, j) = plain_bytes(b, i)?;
                if key == b"role" {
                    return None;
                }
                i = skip_ws(b, j);
                if b.get(i) != Some(&b':') {
                    return None;
                }
                i = skip_ws(b, i + 1);
                let Some(f) = facts.as_mut() else {
                    i = skip_value(b, i)?;
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
                i = match key {
                    b"content" => {
                        f.has_content = true;
                        content_shape_ok(b, i)?
                    }
                    b"timestamp" => {
                        let (n, j) = number_or_skip(b, i)?;
                        f.time = n;
                        j
                    }
                    b"provider" => {
                        let (v, j) = text_or_skip(b, i)?;
                        f.provider = v;
                        j
                    }
                    b"model" => {
                        let (v, j) = text_or_skip(b, i)?;
                        f.model = v;
                        j
                    }
                    b"usage" => {
                        let (u, j) = usage(b, i)?;
                        f.usage = u;
                        j
                    }
                    _ => skip_value(b, i)?,
                };
            }
            _ => return None,
        }
    }
    i = skip_ws(b, i + 1);
    if b.get(i) != Some(&b'}') {
        return None;
    }
    if skip_ws(b, i + 1) != b.len() {
        return None;
    }
    Some(QuickMessage {
        id,
        parent,
        timestamp,
        chat: facts,
    })
}

/// Content pi's reader takes: a string, or a list without `null` blocks.
fn content_shape_ok(b: &[u8], i: usize) -> Option<usize> {
    match b.get(i)? {
        b'"' => skip_string(b, i),
        b'[' => {
            let mut i = skip_ws(b, i + 1);
            if b.get(i) == Some(&b']') {
                return Some(i + 1);
            }
            loop {
                if b[i..].starts_with(b"null") {
                    return None;
                }
                i = skip_ws(b, skip_value(b, i)?);
                match b.get(i)? {
                    b',' => i = skip_ws(b, i + 1),
                    b']' => return Some(i + 1),
                    _ => return None,
                }
            }
        }
        _ => None,
    }
}

/// A number's value, or `None` for any other (valid) value.
fn number_or_skip(b: &[u8], i: usize) -> Option<(Option<f64>, usize)> {
    match b.get(i)? {
        b'-' | b'0'..=b'9' => {
            let j = skip_number(b, i)?;
            Some((Some(number_value(&b[i..j])?), j))
        }
        _ => Some((None, skip_value(b, i)?)),
    }
}

/// A string without escapes, or `None` for any other (valid) value that is
/// not a string. A string with escapes is left to the full parser.
fn text_or_skip(b: &[u8], i: usize) -> Option<(Option<&str>, usize)> {
    if b.get(i)? == &b'"' {
        let (s, j) = plain_string(b, i)?;
        Some((Some(s), j))
    } else {
        Some((None, skip_value(b, i)?))
    }
}

/// Walks an object's keys: `visit(index in watched, value index)` returns
/// the index after the value. A repeated watched key sends the line to serde.
fn walk_object(
    b: &[u8],
    i: usize,
    watched: &[&[u8]],
    mut visit: impl FnMut(Option<usize>, usize) -> Option<usize>,
) -> Option<usize> {
    let mut i = skip_ws(b, i + 1);
    if b.get(i) == Some(&b'}') {
        return Some(i + 1);
    }
    let mut seen = 0u32;
    loop {
        let (key, j) = plain_bytes(b, i)?;
        let key = watched.iter().position(|w| *w == key);
        if let Some(k) = key {
            if seen & (1 << k) != 0 {
                return None;
            }
            seen |= 1 << k;
        }
        i = skip_ws(b, j);
        if b.get(i) != Some(&b':') {
            return None;
        }
        i = skip_ws(b, visit(key, skip_ws(b, i + 1))?);
        match b.get(i)? {
            b',' => i = skip_ws(b, i + 1),
            b'}' => return Some(i + 1),
            _ => return None,
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
fn usage(b: &[u8], i: usize) -> Option<(Option<(f64, f64)>, usize)> {
    if b.get(i)? != &b'{' {
        return Some((None, skip_value(b, i)?));
    }
    let mut parts = [None; 5];
    let mut cost = None;
    let end = walk_object(b, i, &USAGE_KEYS, |key, at| match key {
        Some(5) if b.get(at) == Some(&b'{') => walk_object(b, at, &[b"total"], |k, at| {
            if k != Some(0) {
                return skip_value(b, at);
            }
            let (n, j) = number_or_skip(b, at)?;
            cost = n;
            Some(j)
        }),
        Some(k) if k < 5 => {
            let (n, j) = number_or_skip(b, at)?;
            parts[k] = n;
            Some(j)
        }
        _ => skip_value(b, at),
    })?;
    let tokens = parts[0].unwrap_or_else(|| parts[1..].iter().flatten().sum());
    Some((Some((tokens, cost.unwrap_or(0.0))), end))
}

fn expect(b: &[u8], i: usize, lit: &[u8]) -> Option<usize> {
    b.get(i..)?.starts_with(lit).then_some(i + lit.len())
}

/// The bytes of a string without escapes at `i`, and the index after it
/// (`None` at an escape or a control character: the full parser decides).
fn plain_bytes(b: &[u8], i: usize) -> Option<(&[u8], usize)> {
    if b.get(i) != Some(&b'"') {
        return None;
    }
    let mut end = i + 1;
    while let Some(chunk) = b.get(end..end + 8) {
        let special = special_bytes(u64::from_le_bytes(chunk.try_into().ok()?));
        if special != 0 {
            end += special.trailing_zeros() as usize / 8;
            break;
        }
        end += 8;
    }
    while *b.get(end)? != b'"' {
        if b[end] == b'\\' || b[end] < 0x20 {
            return None;
        }
        end += 1;
    }
    Some((&b[i + 1..end], end + 1))
}

/// [`plain_bytes`] as text (`None` if not UTF-8: the full parser decides).
fn plain_string(b: &[u8], i: usize) -> Option<(&str, usize)> {
    let (body, end) = plain_bytes(b, i)?;
    Some((std::str::from_utf8(body).ok()?, end))
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = b.get(i) {
        i += 1;
    }
    i
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The bytes of `w` that are quotes, backslashes or control characters, as
/// high bits. Only bits above the first such byte can be false alarms, so
/// the lowest bit always marks the first special byte.
fn special_bytes(w: u64) -> u64 {
    let below = |n: u64| w.wrapping_sub(ONES * n) & !w & HIGHS;
    let zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGHS;
    below(0x20) | zero(w ^ (ONES * u64::from(b'"'))) | zero(w ^ (ONES * u64::from(b'\\')))
}

/// Skips a valid JSON string starting at `i` (a `"`); the index after it.
fn skip_string(b: &[u8], i: usize) -> Option<usize> {
    if b.get(i) != Some(&b'"') {
        return None;
    }
    let mut i = i + 1;
    loop {
        // Plain text eight bytes at a time, straight to the next special byte.
        while let Some(chunk) = b.get(i..i + 8) {
            let w = u64::from_le_bytes(chunk.try_into().ok()?);
            let special = special_bytes(w);
            if special != 0 {
                i += special.trailing_zeros() as usize / 8;
                break;
            }
            i += 8;
        }
        match *b.get(i)? {
            b'"' => return Some(i + 1),
            b'\\' => match b.get(i + 1)? {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i += 2,
                b'u' => {
                    let hex = b.get(i + 2..i + 6)?;
                    if !hex.iter().all(u8::is_ascii_hexdigit) {
                        return None;
                    }
                    i += 6;
                }
                _ => return None,
            },
            c if c < 0x20 => return None,
            _ => i += 1,
        }
    }
}

/// The value of a valid JSON number: plain integers directly, others
/// through the standard parser.
fn number_value(text: &[u8]) -> Option<f64> {
    if text.len() <= 15 && text.iter().all(u8::is_ascii_digit) {
        return Some(text.iter().fold(0u64, |n, &d| n * 10 + u64::from(d - b'0')) as f64);
    }
    std::str::from_utf8(text).ok()?.parse::<f64>().ok()
}

fn skip_digits(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    i
}

fn skip_number(b: &[u8], mut i: usize) -> Option<usize> {
    if b.get(i) == Some(&b'-') {
        i += 1;
    }
    match b.get(i)? {
        b'0' => i += 1,
        b'1'..=b'9' => i = skip_digits(b, i),
        _ => return None,
    }
    if b.get(i) == Some(&b'.') {
        let j = skip_digits(b, i + 1);
        if j == i + 1 {
            return None;
        }
        i = j;
    }
    if let Some(b'e' | b'E') = b.get(i) {
        i += 1;
        if let Some(b'+' | b'-') = b.get(i) {
            i += 1;
        }
        let j = skip_digits(b, i);
        if j == i {
            return None;
        }
        i = j;
    }
    Some(i)
}

/// Skips one valid JSON value after optional white space; the index after it.
/// Nesting is followed with an explicit stack, so depth costs no recursion.
fn skip_value(b: &[u8], i: usize) -> Option<usize> {
    // true: inside an object (keys expected), false: inside an array.
    let mut stack: Vec<bool> = Vec::new();
    let mut i = skip_ws(b, i);
    loop {
        // A value at `i`.
        match b.get(i)? {
            b'"' => i = skip_string(b, i)?,
            b'{' => {
                i = skip_ws(b, i + 1);
                if b.get(i) == Some(&b'}') {
                    i += 1;
                } else {
                    stack.push(true);
                    i = object_key(b, i)?;
                    continue;
                }
            }
            b'[' => {
                i = skip_ws(b, i + 1);
                if b.get(i) == Some(&b']') {
                    i += 1;
                } else {
                    stack.push(false);
                    continue;
                }
            }
            b't' => i = expect(b, i, b"true")?,
            b'f' => i = expect(b, i, b"false")?,
            b'n' => i = expect(b, i, b"null")?,
            _ => i = skip_number(b, i)?,
        }
        // After a value: close containers or move to the next element.
        loop {
            let Some(&in_object) = stack.last() else {
                return Some(i);
            };
            i = skip_ws(b, i);
            match (b.get(i)?, in_object) {
                (b',', true) => {
                    i = object_key(b, skip_ws(b, i + 1))?;
                    break;
                }
                (b',', false) => {
                    i = skip_ws(b, i + 1);
                    break;
                }
                (b'}', true) | (b']', false) => {
                    stack.pop();
                    i += 1;
                }
                _ => return None,
            }
        }
    }
}

/// A key and its colon; the index of the value after white space.
fn object_key(b: &[u8], i: usize) -> Option<usize> {
    let i = skip_ws(b, skip_string(b, i)?);
    if b.get(i) != Some(&b':') {
        return None;
    }
    Some(skip_ws(b, i + 1))
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

    const TOOL: &str = r#"{"type":"message","id":"a1","parentId":"p0","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"toolResult","toolCallId":"c","toolName":"bash","content":[{"type":"text","text":"x\n\"y\" \u00e9 ü"}],"details":{"n":-1.5e+3,"ok":true,"z":null,"e":[],"o":{}},"isError":false,"timestamp":1}}"#;

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
            // Not valid JSON in many small ways.
            TOOL.replace("-1.5e+3", "-01"),
            TOOL.replace("-1.5e+3", "1."),
            TOOL.replace("-1.5e+3", "1e"),
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
    fn deep_nesting_needs_no_recursion() {
        let deep = format!(
            r#"{{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{{"role":"toolResult","d":{}{}}}}}"#,
            "[".repeat(200_000),
            "]".repeat(200_000)
        );
        assert!(quick_message(deep.as_bytes(), ALL).is_some());
    }
}
