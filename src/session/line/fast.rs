//! The one line reader's fast path: a validating pass over the bytes of a
//! line as pi writes it (with the engine's cursor), giving up on anything it
//! is not sure of (escaped keys or ids, repeated keys it reads, unusual
//! numbers, surrogate escapes, damage, headers) so that the serde fallback
//! ([`crate::session::line::fallback`]) decides those.

use crate::session::line::cursor::{Cursor, Guess, same};
use crate::session::line::facts::{
    Content, LINE_KEYS, LineFacts, Message, MessageFacts, NameField, Text, UsageParts, UsageTotals,
    Want,
};
use std::borrow::Cow;

// ---------------------------------------------------------------------------
// The fast path.

/// Sets bit `bit` in `seen`; `None` when it was set (a repeated key, whose
/// rules the fallback knows).
#[inline]
pub(crate) fn first(seen: &mut u32, bit: u32) -> Option<()> {
    let was = *seen & (1 << bit) != 0;
    *seen |= 1 << bit;
    (!was).then_some(())
}

/// [`read_fast_into`], the facts handed back (for tests).
#[cfg(test)]
pub(crate) fn read_fast(line: &[u8], want: Want) -> Option<LineFacts<'_>> {
    let mut f = LineFacts::default();
    read_fast_into(line, want, &mut f)?;
    Some(f)
}

/// Reads a line as pi writes it into `f` (a default one), or `None` when
/// not certain (then use [`read_slow`]). A line read here is valid UTF-8
/// and valid JSON. (The facts are some 500 bytes: filled where the caller
/// keeps them, not handed back by value, which copied them at each step.)
pub(crate) fn read_fast_into<'a>(line: &'a [u8], want: Want, f: &mut LineFacts<'a>) -> Option<()> {
    read_fast_into_with(line, want, f, None)
}

/// [`read_fast_into`], an assistant message's tool call ids pushed to
/// `calls` when given: the string ids of its content's blocks of type
/// `toolCall`, in their order (an id with escapes is left to the
/// fallback). After `None`, `calls` may hold some of them.
pub(crate) fn read_fast_into_with<'a>(
    line: &'a [u8],
    want: Want,
    f: &mut LineFacts<'a>,
    calls: Option<&mut Vec<&'a str>>,
) -> Option<()> {
    let mut c = Cursor::new(line);
    entry(&mut c, want, f, calls)?;
    c.at_end().then_some(())
}

/// [`read_fast_into_with`] of the line `rest` starts with, `rest` running
/// on past the line's newline: the line's length (to its newline), found
/// by the read itself. The cursor never steps over a newline (one stands
/// neither in white space nor in a string), so the line it reads is the
/// line a search for the newline would cut; `None` where that newline is
/// not in `rest`, as for any line the fast path does not read.
pub(crate) fn read_fast_line<'a>(
    rest: &'a [u8],
    want: Want,
    f: &mut LineFacts<'a>,
    calls: Option<&mut Vec<&'a str>>,
) -> Option<usize> {
    let mut c = Cursor::new(rest);
    entry(&mut c, want, f, calls)?;
    (c.peek()? == b'\n').then(|| c.pos())
}

/// An entry's object and the white space around it, into `f`, its tool
/// calls into `calls` when given.
#[inline(always)]
fn entry<'a>(
    c: &mut Cursor<'a>,
    want: Want,
    f: &mut LineFacts<'a>,
    mut calls: Option<&mut Vec<&'a str>>,
) -> Option<()> {
    c.ws();
    let mut seen = 0;
    let mut more = c.open_object()?;
    let mut keys = InOrder::new(&LINE_ORDER);
    while more {
        let (key, bytes) = keys.next(c, line_key)?;
        // The keys of pi's other entries, read here too.
        if matches!(
            key,
            LineKey::Name
                | LineKey::Target
                | LineKey::Label
                | LineKey::Provider
                | LineKey::ModelId
                | LineKey::Model
                | LineKey::Usage
        ) {
            f.other_keys = true;
        }
        match key {
            LineKey::Type => {
                first(&mut seen, 0)?;
                f.kind = c.plain_str()?;
            }
            LineKey::Id => {
                first(&mut seen, 1)?;
                f.id = c.field()?;
            }
            LineKey::Parent => {
                first(&mut seen, 2)?;
                f.parent = c.field()?;
            }
            LineKey::Time => {
                first(&mut seen, 3)?;
                f.timestamp = c.field()?;
            }
            LineKey::Message => {
                first(&mut seen, 4)?;
                match c.peek()? {
                    b'{' => {
                        f.message = Message::Object(MessageFacts::default());
                        if let Message::Object(m) = &mut f.message {
                            message(c, want, m, calls.as_deref_mut())?;
                        }
                    }
                    b'n' => f.message = c.lit(b"null").map(|_| Message::Null)?,
                    _ => f.message = c.skip_value().map(|_| Message::Other)?,
                }
            }
            LineKey::Name => {
                first(&mut seen, 5)?;
                f.name = match c.peek()? {
                    b'"' => NameField::Text(c.string()?),
                    b'n' => c.lit(b"null").map(|_| NameField::Clear)?,
                    _ => c.skip_value().map(|_| NameField::NotText)?,
                };
            }
            LineKey::Target => {
                first(&mut seen, 6)?;
                f.target = text_or_skip(c)?;
            }
            LineKey::Label => {
                first(&mut seen, 7)?;
                f.label_truthy = truthy(c)?;
            }
            LineKey::Provider => {
                first(&mut seen, 8)?;
                f.provider = text_or_skip(c)?;
            }
            LineKey::ModelId => {
                first(&mut seen, 9)?;
                f.model_id = text_or_skip(c)?;
            }
            LineKey::Model => {
                first(&mut seen, 11)?;
                f.model = text_or_skip(c)?;
            }
            LineKey::Usage => {
                first(&mut seen, 10)?;
                (f.usage, f.usage_parts) = usage_as_wanted(c, want)?;
            }
            LineKey::Other => {
                if LINE_KEYS.iter().any(|k| same(k.as_bytes(), bytes)) {
                    f.other_keys = true;
                }
                c.skip_value()?;
            }
        }
        more = c.member_end()?;
    }
    c.ws();
    // Headers (and lines without a type) are read by the fallback.
    if seen & 1 == 0 || same(f.kind.as_bytes(), b"session") {
        return None;
    }
    Some(())
}

/// The keys of an object as pi writes them, in its order: the key after
/// the last one matched is tried first, by two word compares, and names
/// its kind itself; any other key is scanned, named by the caller, and
/// found in the order (its successor is tried next).
struct InOrder<K: 'static> {
    order: &'static [Ordered<K>],
    next: usize,
}

impl<K: Copy> InOrder<K> {
    fn new(order: &'static [Ordered<K>]) -> InOrder<K> {
        InOrder { order, next: 0 }
    }

    /// The next key, as the order or `kind` names it, and its bytes.
    #[inline(always)]
    fn next<'a>(&mut self, c: &mut Cursor<'a>, kind: impl Fn(&[u8]) -> K) -> Option<(K, &'a [u8])> {
        let guess = self.order.get(self.next).map_or(&Guess::NONE, |o| &o.guess);
        let (bytes, hit) = c.key_guessed(guess)?;
        if hit {
            let k = self.order[self.next].kind;
            self.next += 1;
            return Some((k, bytes));
        }
        if let Some(at) = self.order.iter().position(|o| same(o.key, bytes)) {
            self.next = at + 1;
        }
        Some((kind(bytes), bytes))
    }
}

/// A key of an object [`walk_object`] walks, with its index among the
/// keys watched there.
type WatchedKey = Ordered<Option<usize>>;

/// A key pi writes, in its place among an object's keys (see
/// [`InOrder`]), and what it is read as.
struct Ordered<K> {
    key: &'static [u8],
    guess: Guess,
    kind: K,
}

impl<K> Ordered<K> {
    const fn new(key: &'static [u8], kind: K) -> Ordered<K> {
        Ordered {
            key,
            guess: Guess::new(key),
            kind,
        }
    }
}

/// The top-level keys the fast path reads.
#[derive(Clone, Copy, PartialEq, Debug)]
enum LineKey {
    Type,
    Id,
    Parent,
    Time,
    Message,
    Name,
    Target,
    Label,
    Provider,
    ModelId,
    Model,
    Usage,
    Other,
}

fn line_key(key: &[u8]) -> LineKey {
    match key {
        b"type" => LineKey::Type,
        b"id" => LineKey::Id,
        b"parentId" => LineKey::Parent,
        b"timestamp" => LineKey::Time,
        b"message" => LineKey::Message,
        b"name" => LineKey::Name,
        b"targetId" => LineKey::Target,
        b"label" => LineKey::Label,
        b"provider" => LineKey::Provider,
        b"modelId" => LineKey::ModelId,
        b"model" => LineKey::Model,
        b"usage" => LineKey::Usage,
        _ => LineKey::Other,
    }
}

/// How pi's entries start.
const LINE_ORDER: [Ordered<LineKey>; 5] = [
    Ordered::new(b"type", LineKey::Type),
    Ordered::new(b"id", LineKey::Id),
    Ordered::new(b"parentId", LineKey::Parent),
    Ordered::new(b"timestamp", LineKey::Time),
    Ordered::new(b"message", LineKey::Message),
];

/// The keys of a message the fast path reads, and two it only skips
/// (named for pi's order).
#[derive(Clone, Copy, PartialEq, Debug)]
enum MessageKey {
    Role,
    Content,
    Time,
    Provider,
    Model,
    Usage,
    StopReason,
    ToolCallId,
    ToolName,
    CustomType,
    IsError,
    Api,
    Details,
    Other,
}

fn message_key(key: &[u8]) -> MessageKey {
    match key {
        b"role" => MessageKey::Role,
        b"content" => MessageKey::Content,
        b"timestamp" => MessageKey::Time,
        b"provider" => MessageKey::Provider,
        b"model" => MessageKey::Model,
        b"usage" => MessageKey::Usage,
        b"stopReason" => MessageKey::StopReason,
        b"toolCallId" => MessageKey::ToolCallId,
        b"toolName" => MessageKey::ToolName,
        b"customType" => MessageKey::CustomType,
        b"isError" => MessageKey::IsError,
        b"api" => MessageKey::Api,
        b"details" => MessageKey::Details,
        _ => MessageKey::Other,
    }
}

/// pi's orders of a message's keys: the role first, then by role.
const ROLE_FIRST: [Ordered<MessageKey>; 1] = [Ordered::new(b"role", MessageKey::Role)];
const TOOL_RESULT_ORDER: [Ordered<MessageKey>; 6] = [
    Ordered::new(b"toolCallId", MessageKey::ToolCallId),
    Ordered::new(b"toolName", MessageKey::ToolName),
    Ordered::new(b"content", MessageKey::Content),
    Ordered::new(b"details", MessageKey::Details),
    Ordered::new(b"isError", MessageKey::IsError),
    Ordered::new(b"timestamp", MessageKey::Time),
];
const ASSISTANT_ORDER: [Ordered<MessageKey>; 7] = [
    Ordered::new(b"content", MessageKey::Content),
    Ordered::new(b"api", MessageKey::Api),
    Ordered::new(b"provider", MessageKey::Provider),
    Ordered::new(b"model", MessageKey::Model),
    Ordered::new(b"usage", MessageKey::Usage),
    Ordered::new(b"stopReason", MessageKey::StopReason),
    Ordered::new(b"timestamp", MessageKey::Time),
];
const OTHER_ORDER: [Ordered<MessageKey>; 2] = [
    Ordered::new(b"content", MessageKey::Content),
    Ordered::new(b"timestamp", MessageKey::Time),
];

/// A message's role, as the reader tells roles apart (compared once).
#[derive(Clone, Copy)]
enum Role {
    /// No role read (yet), or one that is no string.
    None,
    User,
    Assistant,
    ToolResult,
    Other,
}

impl Role {
    fn of(role: Option<&str>) -> Role {
        let Some(r) = role.map(str::as_bytes) else {
            return Role::None;
        };
        if same(r, b"assistant") {
            Role::Assistant
        } else if same(r, b"toolResult") {
            Role::ToolResult
        } else if same(r, b"user") {
            Role::User
        } else {
            Role::Other
        }
    }
}

/// The `message` object, into `m` (a default one), an assistant's tool
/// calls into `calls` when given.
fn message<'a>(
    c: &mut Cursor<'a>,
    want: Want,
    m: &mut MessageFacts<'a>,
    mut calls: Option<&mut Vec<&'a str>>,
) -> Option<()> {
    let mut seen = 0;
    let mut more = c.open_object()?;
    let mut keys = InOrder::new(&ROLE_FIRST);
    let mut role = Role::None;
    while more {
        match keys.next(c, message_key)?.0 {
            MessageKey::Role => {
                first(&mut seen, 0)?;
                m.role = text_or_skip(c)?;
                role = Role::of(m.role);
                keys = InOrder::new(match role {
                    Role::ToolResult => &TOOL_RESULT_ORDER,
                    Role::Assistant => &ASSISTANT_ORDER,
                    _ => &OTHER_ORDER,
                });
            }
            MessageKey::Content => {
                first(&mut seen, 1)?;
                let (text, calls) = match role {
                    Role::User => (want.user_text, None),
                    Role::Assistant => (want.assistant_text, calls.as_deref_mut()),
                    Role::ToolResult | Role::Other => (false, None),
                    // The role comes later: whether the text or the calls
                    // are wanted is not known yet.
                    Role::None if want.user_text || want.assistant_text || calls.is_some() => {
                        return None;
                    }
                    Role::None => (false, None),
                };
                m.content = content(c, text, calls, &mut m.joined)?;
            }
            MessageKey::Time => {
                first(&mut seen, 2)?;
                m.time = number_or_skip(c)?;
            }
            // pi echoes a model of any type; only a string is read here.
            MessageKey::Provider => {
                first(&mut seen, 3)?;
                m.provider = Some(text_only(c)?);
            }
            MessageKey::Model => {
                first(&mut seen, 4)?;
                m.model = Some(text_only(c)?);
            }
            MessageKey::Usage => {
                first(&mut seen, 5)?;
                (m.usage, m.usage_parts) = usage_as_wanted(c, want)?;
            }
            MessageKey::StopReason => {
                first(&mut seen, 6)?;
                m.stop_reason = text_or_skip(c)?;
            }
            MessageKey::ToolCallId => {
                first(&mut seen, 7)?;
                m.tool_call_id = text_or_skip(c)?;
            }
            MessageKey::ToolName => {
                first(&mut seen, 8)?;
                m.tool_name = text_or_skip(c)?;
            }
            MessageKey::CustomType => {
                first(&mut seen, 9)?;
                m.custom_type = text_or_skip(c)?;
            }
            MessageKey::IsError => {
                first(&mut seen, 10)?;
                m.is_error = match c.peek()? {
                    b't' => c.lit(b"true").map(|_| true)?,
                    _ => c.skip_value().map(|_| false)?,
                };
            }
            MessageKey::Api | MessageKey::Details | MessageKey::Other => c.skip_value()?,
        }
        more = c.member_end()?;
    }
    Some(())
}

/// A message's content, its text decoded when `text` is set, the ids of
/// its tool calls pushed to `calls` when given. Tool output (most of a
/// file's bytes) is only checked.
/// `joined_more` is set when the text is two or more blocks joined.
fn content<'a>(
    c: &mut Cursor<'a>,
    text: bool,
    mut calls: Option<&mut Vec<&'a str>>,
    joined_more: &mut bool,
) -> Option<Content<'a>> {
    match c.peek()? {
        b'n' => c.lit(b"null").map(|_| Content::Null),
        b'"' if text => c.string().map(Content::Text),
        b'"' => c.skip_value().map(|_| Content::Unread),
        b'[' => {
            let mut joined: Option<Text<'a>> = None;
            let mut throws = false;
            c.elements(|c| {
                match c.peek()? {
                    b'n' => {
                        c.lit(b"null")?;
                        throws = true;
                    }
                    b'{' if text || calls.is_some() => {
                        let read = block(c, text, calls.is_some())?;
                        if let (Some(ids), Some(id)) = (calls.as_deref_mut(), read.call_id) {
                            ids.push(id);
                        }
                        if let Some(t) = read.text {
                            joined = Some(match joined.take() {
                                None => t,
                                Some(before) => {
                                    *joined_more = true;
                                    let mut s = before.into_owned();
                                    s.push(' ');
                                    s.push_str(&t);
                                    Cow::Owned(s)
                                }
                            });
                        }
                    }
                    b'{' => skip_block(c)?,
                    _ => c.skip_value()?,
                }
                Some(())
            })?;
            Some(match (throws, text) {
                (true, _) => Content::Throws,
                (false, true) => Content::Text(joined.unwrap_or_default()),
                (false, false) => Content::Unread,
            })
        }
        _ => c.skip_value().map(|_| Content::Throws),
    }
}

/// What [`block`] reads of a content block.
struct Block<'a> {
    /// Its text when its type is `"text"` and the text is wanted.
    text: Option<Text<'a>>,
    /// Its id when its type is `"toolCall"`, the id is a string, and the
    /// calls are wanted.
    call_id: Option<&'a str>,
}

/// A content block, read for its text (`text`: a missing or null text
/// joins as ""; any other value is left to the fallback) and its tool
/// call's id (`calls`: an id that is not a string is no id; one with
/// escapes is left to the fallback).
fn block<'a>(c: &mut Cursor<'a>, text: bool, calls: bool) -> Option<Block<'a>> {
    let mut kind = None;
    let mut text_value = None;
    let mut id = None;
    walk_object(c, &BLOCK_KEYS, &BLOCK_ORDER, |key, c| {
        match key {
            Some(0) => {
                kind = match c.peek()? {
                    b'"' => Some(c.plain_str()?),
                    _ => c.skip_value().map(|_| None)?,
                }
            }
            Some(1) if text => {
                text_value = match c.peek()? {
                    b'"' => Some(c.string()?),
                    b'n' => c.lit(b"null").map(|_| None)?,
                    _ => return None,
                }
            }
            Some(2) if calls => id = text_or_skip(c)?,
            _ => c.skip_value()?,
        }
        Some(())
    })?;
    Some(Block {
        text: (text && kind == Some("text")).then(|| text_value.unwrap_or_default()),
        call_id: id.filter(|_| calls && kind == Some("toolCall")),
    })
}

/// Whether a value is truthy in JavaScript.
fn truthy(c: &mut Cursor<'_>) -> Option<bool> {
    let start = c.pos();
    let first = c.peek()?;
    c.skip_value()?;
    Some(match first {
        b'"' => c.pos() - start > 2,
        b'n' | b'f' => false,
        b'-' | b'0'..=b'9' => {
            let n = number_value(c.bytes(start)?)?;
            n != 0.0 && !n.is_nan()
        }
        _ => true,
    })
}

/// A number's value, or `None` for any other (valid) value.
fn number_or_skip(c: &mut Cursor<'_>) -> Option<Option<f64>> {
    // Times and token counts: read as they are skipped.
    if let Some(n) = c.small_number() {
        return Some(Some(n));
    }
    let start = c.pos();
    let is_number = matches!(c.peek()?, b'-' | b'0'..=b'9');
    c.skip_value()?;
    if !is_number {
        return Some(None);
    }
    number_value(c.bytes(start)?).map(Some)
}

/// A string without escapes, or `None` for any other (valid) value that is
/// not a string. A string with escapes is left to the fallback.
/// A string value; anything else is left to the fallback.
fn text_only<'a>(c: &mut Cursor<'a>) -> Option<&'a str> {
    if c.peek()? == b'"' {
        c.plain_str()
    } else {
        None
    }
}

fn text_or_skip<'a>(c: &mut Cursor<'a>) -> Option<Option<&'a str>> {
    if c.peek()? == b'"' {
        c.plain_str().map(Some)
    } else {
        c.skip_value().map(|_| None)
    }
}

/// Walks an object's keys: `visit(index in watched, cursor)` reads or
/// skips the value. A repeated watched key sends the line to the fallback.
/// `expected` is pi's order of the object's keys, each with its index
/// among the watched ones (see [`InOrder`]).
fn walk_object<'a>(
    c: &mut Cursor<'a>,
    watched: &[&[u8]],
    expected: &'static [WatchedKey],
    mut visit: impl FnMut(Option<usize>, &mut Cursor<'a>) -> Option<()>,
) -> Option<()> {
    if !c.open_object()? {
        return Some(());
    }
    let mut seen = 0u32;
    let mut keys = InOrder::new(expected);
    loop {
        let (key, _) = keys.next(c, |key| watched.iter().position(|w| *w == key))?;
        if let Some(k) = key {
            first(&mut seen, k as u32)?;
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

/// pi's order of a usage object's keys, and of its cost's.
const USAGE_ORDER: [WatchedKey; 6] = [
    Ordered::new(b"input", Some(1)),
    Ordered::new(b"output", Some(2)),
    Ordered::new(b"cacheRead", Some(3)),
    Ordered::new(b"cacheWrite", Some(4)),
    Ordered::new(b"totalTokens", Some(0)),
    Ordered::new(b"cost", Some(5)),
];
const COST_ORDER: [WatchedKey; 5] = [
    Ordered::new(b"input", None),
    Ordered::new(b"output", None),
    Ordered::new(b"cacheRead", None),
    Ordered::new(b"cacheWrite", None),
    Ordered::new(b"total", Some(0)),
];
/// The keys [`block`] reads.
const BLOCK_KEYS: [&[u8]; 3] = [b"type", b"text", b"id"];
/// pi's orders of the keys of its text, tool call and thinking blocks,
/// each with its index among [`BLOCK_KEYS`].
const BLOCK_ORDER: [WatchedKey; 6] = [
    Ordered::new(b"type", Some(0)),
    Ordered::new(b"text", Some(1)),
    Ordered::new(b"id", Some(2)),
    Ordered::new(b"name", None),
    Ordered::new(b"arguments", None),
    Ordered::new(b"thinking", None),
];

/// pi's orders of the keys of its text, tool call and thinking blocks.
const SKIPPED_BLOCK_ORDER: [WatchedKey; 6] = [
    Ordered::new(b"type", None),
    Ordered::new(b"text", None),
    Ordered::new(b"id", None),
    Ordered::new(b"name", None),
    Ordered::new(b"arguments", None),
    Ordered::new(b"thinking", None),
];

/// A content block checked and skipped, its keys matched by word compares
/// where they come in pi's order.
fn skip_block(c: &mut Cursor<'_>) -> Option<()> {
    walk_object(c, &[], &SKIPPED_BLOCK_ORDER, |_, c| c.skip_value())
}

/// Usage totals as [`UsageFields::totals`] makes them, when `usage` is an
/// object (read in place).
fn usage(c: &mut Cursor<'_>) -> Option<(Option<UsageTotals>, UsageParts)> {
    if c.peek()? != b'{' {
        return c.skip_value().map(|_| (None, UsageParts::default()));
    }
    let mut parts = [None; 5];
    let mut cost = None;
    walk_object(c, &USAGE_KEYS, &USAGE_ORDER, |key, c| match key {
        Some(5) if c.peek() == Some(b'{') => walk_object(c, &[b"total"], &COST_ORDER, |k, c| {
            if k == Some(0) {
                cost = number_or_skip(c)?;
                Some(())
            } else {
                c.skip_value()
            }
        }),
        Some(k) if k < 5 => {
            parts[k] = number_or_skip(c)?;
            Some(())
        }
        _ => c.skip_value(),
    })?;
    let tokens = parts[0].unwrap_or_else(|| parts[1..].iter().flatten().sum());
    let n = |k: usize| parts[k].unwrap_or(0.0);
    Some((
        Some(UsageTotals {
            tokens,
            cost: cost.unwrap_or(0.0),
        }),
        UsageParts {
            input: n(1),
            output: n(2),
            cache_read: n(3),
            cache_write: n(4),
        },
    ))
}

/// A usage value read where it is wanted, else only checked (and none).
fn usage_as_wanted(c: &mut Cursor<'_>, want: Want) -> Option<(Option<UsageTotals>, UsageParts)> {
    if want.usage {
        usage(c)
    } else {
        skip_usage(c).map(|()| (None, UsageParts::default()))
    }
}

/// A usage value checked and skipped. Its keys come in pi's order, so
/// each is matched by two word compares rather than scanned as a string.
fn skip_usage(c: &mut Cursor<'_>) -> Option<()> {
    if c.peek()? != b'{' {
        return c.skip_value();
    }
    walk_object(c, &USAGE_KEYS, &USAGE_ORDER, |key, c| match key {
        Some(5) if c.peek() == Some(b'{') => {
            walk_object(c, &[b"total"], &COST_ORDER, |_, c| c.skip_value())
        }
        _ => c.skip_value(),
    })
}

/// The value of a valid JSON number without an exponent: plain integers
/// directly, others through the standard (correctly rounded) parser.
fn number_value(text: &[u8]) -> Option<f64> {
    if text.len() <= 15 && text.iter().all(u8::is_ascii_digit) {
        return Some(text.iter().fold(0u64, |n, &d| n * 10 + u64::from(d - b'0')) as f64);
    }
    std::str::from_utf8(text).ok()?.parse::<f64>().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::line::cursor::Field;

    const ALL: Want = Want {
        user_text: true,
        assistant_text: true,
        usage: true,
    };
    const NONE: Want = Want {
        user_text: false,
        assistant_text: false,
        usage: false,
    };

    /// Each key of an order is the key its guess matches, and is read as
    /// the kind the order gives it: what naming it gives where the guess
    /// missed.
    fn order_holds<K: Copy + PartialEq + std::fmt::Debug>(
        order: &[Ordered<K>],
        kind: impl Fn(&[u8]) -> K,
    ) {
        for o in order {
            let line = [b"\"", o.key, b"\":1}", &[b' '; 16]].concat();
            let mut c = Cursor::new(&line);
            assert_eq!(c.key_guessed(&o.guess), Some((o.key, true)));
            assert_eq!(kind(o.key), o.kind, "{:?}", String::from_utf8_lossy(o.key));
        }
    }

    #[test]
    fn expected_keys_name_their_watched_index() {
        let tables: [(&[&[u8]], &[WatchedKey]); 4] = [
            (&USAGE_KEYS, &USAGE_ORDER),
            (&[b"total"], &COST_ORDER),
            (&BLOCK_KEYS, &BLOCK_ORDER),
            (&[], &SKIPPED_BLOCK_ORDER),
        ];
        for (watched, expected) in tables {
            order_holds(expected, |key| watched.iter().position(|w| *w == key));
        }
    }

    #[test]
    fn usage_reads_alike_in_any_key_order() {
        let pi = r#"{"input":1,"output":2,"cacheRead":3,"cacheWrite":4,"totalTokens":10,"cost":{"input":0.5,"output":0.25,"cacheRead":0,"cacheWrite":0,"total":0.75}}"#;
        let shuffled = r#"{"cost":{"total":0.75,"input":0.5},"totalTokens":10,"cacheWrite":4,"output":2,"cacheRead":3,"input":1}"#;
        let read = |t: &str| usage(&mut Cursor::new(t.as_bytes()));
        assert_eq!(read(pi), read(shuffled));
        let (totals, parts) = read(pi).expect("usage");
        assert_eq!(totals.map(|t| (t.tokens, t.cost)), Some((10.0, 0.75)));
        assert_eq!((parts.input, parts.cache_write), (1.0, 4.0));
        // A repeated key goes to the fallback, guessed or not.
        assert_eq!(read(r#"{"input":1,"input":2}"#), None);
        assert_eq!(read(r#"{"output":1,"input":2,"input":3}"#), None);
    }

    #[test]
    fn ordered_keys_are_their_kinds() {
        order_holds(&LINE_ORDER, line_key);
        assert!(LINE_ORDER.iter().all(|o| o.kind != LineKey::Other));
        for order in [
            &ROLE_FIRST[..],
            &TOOL_RESULT_ORDER,
            &ASSISTANT_ORDER,
            &OTHER_ORDER,
        ] {
            order_holds(order, message_key);
            assert!(order.iter().all(|o| o.kind != MessageKey::Other));
        }
    }

    /// Skipping usage and content blocks by their keys accepts what
    /// skipping any value accepts, or gives up; it never accepts more.
    #[test]
    fn skipped_usage_and_blocks_accept_no_more_than_any_value() {
        let usage = r#"{"input":1,"output":2,"cacheRead":3,"cacheWrite":4,"totalTokens":10,"cost":{"input":0.5,"output":0.25,"cacheRead":0,"cacheWrite":0,"total":0.75}}"#;
        let block = r#"{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"a.rs"}}"#;
        let mut cases = vec![usage.to_string(), block.to_string()];
        for (from, to) in [
            ("1", "1."),
            ("0.5", "-0.5"),
            ("0.5", "05"),
            ("0.25", "[]"),
            ("{\"input\":0.5", "{\"input\":0.5,"),
            (":2", ":2,"),
            ("10", "1e3"),
            ("\"cost\":{", "\"cost\":["),
            ("\"input\":1,", "\"input\":1,\"input\":1,"),
            ("read", "re\\u0061d"),
            ("read", "re\\ad"),
            ("a.rs", "a\\\"rs"),
            ("}}", "}"),
            ("\"id\"", "\"i\\u0064\""),
            ("\"type\":\"toolCall\",", ""),
        ] {
            for case in [usage, block] {
                if case.contains(from) {
                    cases.push(case.replacen(from, to, 1));
                }
            }
        }
        let whole = |s: &str, skip: fn(&mut Cursor<'_>) -> Option<()>| {
            let mut c = Cursor::new(s.as_bytes());
            skip(&mut c).is_some() && c.at_end()
        };
        let (mut accepted, mut refused) = (0, 0);
        for case in &cases {
            let any = whole(case, |c| c.skip_value());
            for skip in [skip_usage as fn(&mut Cursor<'_>) -> Option<()>, skip_block] {
                if whole(case, skip) {
                    assert!(any, "{case}");
                    accepted += 1;
                } else if !any {
                    refused += 1;
                }
            }
        }
        assert!(accepted >= 4 && refused >= 10, "{accepted} {refused}");
    }

    /// A line read from bytes that run on past it ends at its newline,
    /// as the line cut there reads; the read never crosses a newline.
    #[test]
    fn a_line_read_from_running_bytes_ends_at_its_newline() {
        let next = r#"{"type":"label","id":"z","parentId":"a1","timestamp":"t","label":"x"}"#;
        for line in [TOOL.to_string(), format!(" {TOOL} \r"), next.to_string()] {
            let rest = format!("{line}\n{next}\n");
            let mut f = LineFacts::default();
            assert_eq!(
                read_fast_line(rest.as_bytes(), ALL, &mut f, None),
                Some(line.len())
            );
            assert_eq!(Some(f), read_fast(line.as_bytes(), ALL), "{line}");
            // No newline yet: the line may go on.
            let mut f = LineFacts::default();
            assert_eq!(read_fast_line(line.as_bytes(), ALL, &mut f, None), None);
        }
        for split in [
            TOOL.replacen(",", ",\n", 1),
            TOOL.replacen(":", "\n:", 1),
            TOOL.replacen("{", "{\n", 1),
            format!("{}\n}}", &TOOL[..TOOL.len() - 1]),
            format!("{TOOL} x\n"),
        ] {
            let mut f = LineFacts::default();
            assert_eq!(
                read_fast_line(format!("{split}\n").as_bytes(), ALL, &mut f, None),
                None,
                "{split}"
            );
        }
    }

    const TOOL: &str = r#"{"type":"message","id":"a1","parentId":"p0","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"toolResult","toolCallId":"c","toolName":"bash","content":[{"type":"text","text":"x\n\"y\" \u00e9 ü"}],"details":{"n":-1.5,"ok":true,"z":null,"e":[],"o":{}},"isError":false,"timestamp":1}}"#;

    fn message<'a>(f: &LineFacts<'a>) -> MessageFacts<'a> {
        match &f.message {
            Message::Object(m) => MessageFacts {
                role: m.role,
                content: match &m.content {
                    Content::Text(t) => Content::Text(Cow::Owned(t.to_string())),
                    Content::Missing => Content::Missing,
                    Content::Null => Content::Null,
                    Content::Unread => Content::Unread,
                    Content::Throws => Content::Throws,
                },
                time: m.time,
                usage: m.usage,
                is_error: m.is_error,
                tool_name: m.tool_name,
                ..MessageFacts::default()
            },
            other => panic!("not a message object: {other:?}"),
        }
    }

    #[test]
    fn reads_tool_output_lines() {
        let f = read_fast(TOOL.as_bytes(), ALL).expect("fast");
        assert_eq!(f.kind, "message");
        assert_eq!(f.id, Field::Str("a1"));
        assert_eq!(f.parent, Field::Str("p0"));
        assert!(!f.other_keys);
        let m = message(&f);
        assert_eq!(m.role, Some("toolResult"));
        assert_eq!(m.tool_name, Some("bash"));
        assert_eq!(
            (m.content, m.time, m.is_error),
            (Content::Unread, Some(1.0), false)
        );
        let null_parent = TOOL.replace(r#""parentId":"p0""#, r#""parentId":null"#);
        let f = read_fast(null_parent.as_bytes(), NONE).expect("fast");
        assert_eq!(f.parent, Field::Null);
    }

    #[test]
    fn leaves_everything_uncertain_to_the_fallback() {
        let cases = [
            TOOL.replace(r#""isError":false"#, r#""timestamp":2"#),
            TOOL.replace(r#""isError":false"#, r#""role":"user""#),
            TOOL.replace(r#""a1""#, r#""a\u0031""#),
            TOOL.replace(r#""type":"message""#, r#""type":"mess\u0061ge""#),
            TOOL.replace(r#""type":"message""#, r#""type":"message","type":"label""#),
            // Perhaps beyond f64: the fallback reads it as JavaScript does.
            TOOL.replace("-1.5", "-1.5e+3"),
            TOOL.replace("-1.5", "1e400"),
            // Surrogate escapes, perhaps lone.
            TOOL.replace(r#"\u00e9"#, r#"\ud800"#),
            // Not valid JSON in many small ways.
            TOOL.replace("-1.5", "-01"),
            TOOL.replace("-1.5", "1."),
            TOOL.replace("true", "tru"),
            TOOL.replace(r#"\u00e9"#, r#"\u00g9"#),
            TOOL.replace(r#"\n"#, r#"\x"#),
            TOOL.replace(r#"\n"#, "\n"),
            TOOL.replace(r#""e":[]"#, r#""e":[1,]"#),
            TOOL.replace(r#""o":{}"#, r#""o":{"a":1,}"#),
            format!("{TOOL} x"),
            TOOL[..TOOL.len() - 1].to_string(),
            TOOL[..TOOL.len() / 2].to_string(),
            // Headers are the fallback's.
            r#"{"type":"session","id":"s","cwd":"/p"}"#.to_string(),
            r#"{"id":"a","parentId":null}"#.to_string(),
        ];
        for case in &cases {
            assert_eq!(read_fast(case.as_bytes(), ALL), None, "{case}");
        }
        assert!(read_fast(format!(" {TOOL}  \r").as_bytes(), ALL).is_some());
    }

    #[test]
    fn reads_texts_only_when_wanted() {
        let line = r#"{"type":"message","id":"b","parentId":"a","timestamp":"t","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"o\nk"},{"type":"image"},{"type":"text"},{"type":"text","text":"\u00e9"}],"provider":"p","model":"m","usage":{"input":3,"output":4,"cacheRead":1,"cacheWrite":0,"cost":{"input":0.1,"total":0.25}},"stopReason":"stop","timestamp":1767225600000}}"#;
        let f = read_fast(line.as_bytes(), ALL).expect("fast");
        let Message::Object(m) = &f.message else {
            panic!("{f:?}")
        };
        // pi joins the text blocks with spaces, a missing text as "".
        assert_eq!(m.content, Content::Text(Cow::Borrowed("o\nk  é")));
        assert_eq!(
            m.usage,
            Some(UsageTotals {
                tokens: 8.0,
                cost: 0.25
            })
        );
        assert_eq!((m.provider, m.model), (Some("p"), Some("m")));
        assert_eq!(m.stop_reason, Some("stop"));
        let f = read_fast(line.as_bytes(), NONE).expect("fast");
        assert_eq!(message(&f).content, Content::Unread);
        for (odd, content) in [
            (r#""content":null"#, Content::Null),
            (r#""content":5"#, Content::Throws),
            (r#""content":{"text":"x"}"#, Content::Throws),
            (
                r#""content":[{"type":"text","text":"x"},null]"#,
                Content::Throws,
            ),
            (r#""content":[]"#, Content::Text(Cow::Borrowed(""))),
            (r#""content":"a\tb""#, Content::Text(Cow::Borrowed("a\tb"))),
        ] {
            let text = line.replace(
                &line[line.find(r#""content":"#).unwrap()..line.find(r#","provider""#).unwrap()],
                odd,
            );
            let f = read_fast(text.as_bytes(), ALL).expect("fast");
            assert_eq!(message(&f).content, content, "{text}");
        }
        // A text pi would join in its own way is left to the fallback.
        let odd = line.replace(r#""text":"o\nk""#, r#""text":5"#);
        assert_eq!(read_fast(odd.as_bytes(), ALL), None);
        assert!(read_fast(odd.as_bytes(), NONE).is_some());
        // A role after the content: whether its text is wanted is not known.
        let late = r#"{"type":"message","message":{"content":"x","role":"user"}}"#;
        assert_eq!(read_fast(late.as_bytes(), ALL), None);
        assert!(read_fast(late.as_bytes(), NONE).is_some());
    }

    #[test]
    fn reads_other_entries() {
        let f = read_fast(
            br#"{"type":"label","id":"l","parentId":"a","targetId":"a","label":"x"}"#,
            NONE,
        )
        .expect("fast");
        assert_eq!(
            (f.target, f.label_truthy, f.other_keys),
            (Some("a"), true, true)
        );
        for (label, truthy) in [
            ("\"\"", false),
            ("0", false),
            ("-0.0", false),
            ("null", false),
            ("false", false),
            ("1", true),
            ("[]", true),
            ("{}", true),
            ("\"\\n\"", true),
        ] {
            let line = format!(r#"{{"type":"label","id":"l","targetId":"a","label":{label}}}"#);
            let f = read_fast(line.as_bytes(), NONE).expect("fast");
            assert_eq!(f.label_truthy, truthy, "{line}");
        }
        let name = |v: &str| {
            let line = format!(r#"{{"type":"session_info","id":"n","name":{v}}}"#);
            read_fast(line.as_bytes(), NONE).map(|f| match f.name {
                NameField::Text(t) => NameField::Text(Cow::Owned(t.into_owned())),
                NameField::Clear => NameField::Clear,
                NameField::NotText => NameField::NotText,
            })
        };
        assert_eq!(name(r#"" a\tb ""#), Some(NameField::Text(" a\tb ".into())));
        assert_eq!(name("null"), Some(NameField::Clear));
        assert_eq!(name("5"), Some(NameField::NotText));
        let usage_line =
            br#"{"type":"usage","id":"u","usage":{"totalTokens":5,"input":1,"cost":{"total":0.5}}}"#;
        let f = read_fast(usage_line, ALL).expect("fast");
        assert_eq!(
            f.usage,
            Some(UsageTotals {
                tokens: 5.0,
                cost: 0.5
            })
        );
        // Unwanted, a usage is only checked.
        let f = read_fast(usage_line, NONE).expect("fast");
        assert_eq!((f.usage, f.other_keys), (None, true));
        assert_eq!(
            read_fast(br#"{"type":"usage","id":"u","usage":{"a":1,}}"#, NONE),
            None
        );
        let twice = br#"{"type":"usage","id":"u","usage":{"totalTokens":5,"totalTokens":6}}"#;
        assert_eq!(read_fast(twice, ALL), None);
    }
}
