//! Which sessions touched a file: the files each tool call of a session
//! read, edited, wrote or listed, and those its bash commands name, each
//! resolved against the session's cwd as pi's tools resolve a path; and
//! the patterns (a path or a glob, resolved the same way) that pick them.
//!
//! What a call counts as:
//! - `read`, `edit`, `write`: the file of their `path` (or the older
//!   `file_path`) argument;
//! - `grep`, `find`, `ls`: the folder or file of their `path`, when given;
//! - `bash`: every word of the command that looks like a path (it holds a
//!   `/` or a `.`, and is not `.`, `..` or a URL), resolved against the
//!   session's cwd. The command may have changed folder first, or named a
//!   file it never opened, so such a touch is weaker evidence and says so.
//!
//! A call whose result was an error is kept, marked as failed: it names
//! the file all the same, and a failed edit is worth seeing too.

use serde::{Deserialize, Serialize};

/// Tool calls one entry may name before the rest are ignored.
pub(crate) const CALLS_PER_ENTRY: usize = 256;
/// Paths one bash command may name before the rest are ignored.
const WORDS_PER_COMMAND: usize = 64;
/// The longest command read for paths, in bytes; the rest is ignored.
const COMMAND_BYTES: usize = 64 << 10;
/// The longest path kept, in bytes; a longer one is ignored.
const PATH_BYTES: usize = 4096;
/// The longest pattern taken, in bytes.
pub const PATTERN_BYTES: usize = 4096;

/// What a tool call did with a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tool {
    Edit,
    Write,
    Read,
    Grep,
    Find,
    Ls,
    /// Named by a bash command: weaker evidence.
    Bash,
}

impl Tool {
    /// The tool's name, as pi names it.
    pub fn name(self) -> &'static str {
        match self {
            Tool::Edit => "edit",
            Tool::Write => "write",
            Tool::Read => "read",
            Tool::Grep => "grep",
            Tool::Find => "find",
            Tool::Ls => "ls",
            Tool::Bash => "bash",
        }
    }

    fn of(name: &str) -> Option<Tool> {
        Some(match name {
            "edit" => Tool::Edit,
            "write" => Tool::Write,
            "read" => Tool::Read,
            "grep" => Tool::Grep,
            "find" => Tool::Find,
            "ls" => Tool::Ls,
            "bash" => Tool::Bash,
            _ => return None,
        })
    }

    /// Whether the call changed the file (an edit or a write).
    pub fn changes(self) -> bool {
        matches!(self, Tool::Edit | Tool::Write)
    }

    /// Whether the file is only named in a command, not handed to a tool.
    pub fn weak(self) -> bool {
        self == Tool::Bash
    }
}

/// One file one tool call touched, as a line of a session gives it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct LineTouch {
    pub tool: Tool,
    /// The file, resolved against the session's cwd.
    pub file: String,
    pub call_id: Option<String>,
}

/// What one line of a session says about touched files.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct LineFacts {
    /// The header's cwd, for a header.
    pub cwd: Option<String>,
    pub entry_id: Option<String>,
    pub time_ms: Option<i64>,
    pub touches: Vec<LineTouch>,
    /// For a tool result: the call it answers, and whether it is an error.
    pub result: Option<(String, bool)>,
}

/// Whether a line may say anything about touched files: a header, a tool
/// call or a tool result (a cheap look before it is read as JSON).
pub(crate) fn may_touch(line: &[u8]) -> bool {
    use memchr::memmem::Finder;
    use std::sync::LazyLock;
    static WORDS: LazyLock<[Finder<'static>; 3]> = LazyLock::new(|| {
        [
            Finder::new(b"\"toolCall\""),
            Finder::new(b"\"toolResult\""),
            Finder::new(b"\"session\""),
        ]
    });
    WORDS.iter().any(|w| w.find(line).is_some())
}

/// What one line (its bytes) says about touched files; `cwd` is the
/// session's, paths are resolved against it. `None` for a line that is not
/// a JSON object. Work is bounded: at most [`CALLS_PER_ENTRY`] calls, each
/// path and command cut as the constants above say.
pub(crate) fn line_facts(line: &[u8], cwd: Option<&str>, home: Option<&str>) -> Option<LineFacts> {
    let text = match simdutf8::basic::from_utf8(line) {
        Ok(t) => std::borrow::Cow::Borrowed(t),
        Err(_) => String::from_utf8_lossy(line),
    };
    // Only an object is an entry (the fast reading would take an array's
    // items for its fields, in order).
    if !text.trim_start().starts_with('{') {
        return None;
    }
    let fields = match serde_json::from_str::<fast::Line<'_>>(&text)
        .ok()
        .and_then(fast::Line::fields)
    {
        Some(f) => f,
        // Not a plain pi line (a duplicate key, say): read as JSON.parse
        // would, the last of a duplicate key winning.
        None => Fields::of_value(serde_json::from_str(&text).ok()?)?,
    };
    Some(fields.facts(cwd, home))
}

/// The fields of a line that say what it touched.
#[derive(Debug, Default)]
struct Fields {
    kind: Option<String>,
    cwd: Option<String>,
    id: Option<String>,
    timestamp: Option<String>,
    role: Option<String>,
    tool_call_id: Option<String>,
    is_error: Option<bool>,
    /// The content's `toolCall` blocks, at most [`CALLS_PER_ENTRY`].
    calls: Vec<Call>,
}

#[derive(Debug, Default)]
struct Call {
    name: Option<String>,
    id: Option<String>,
    path: Option<String>,
    file_path: Option<String>,
    command: Option<String>,
}

impl Fields {
    /// The fields of a line read whole as JSON; `None` for one that is no
    /// object.
    fn of_value(value: serde_json::Value) -> Option<Fields> {
        use serde_json::Value;
        let Value::Object(entry) = value else {
            return None;
        };
        let str_of = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
        let message = entry.get("message").and_then(Value::as_object);
        let field = |name: &str| message.and_then(|m| m.get(name));
        let calls = field("content")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_object)
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("toolCall"))
            .take(CALLS_PER_ENTRY)
            .map(|call| {
                let args = call.get("arguments").and_then(Value::as_object);
                let arg = |name: &str| str_of(args.and_then(|a| a.get(name)));
                Call {
                    name: str_of(call.get("name")),
                    id: str_of(call.get("id")),
                    path: arg("path"),
                    file_path: arg("file_path"),
                    command: arg("command"),
                }
            })
            .collect();
        Some(Fields {
            kind: str_of(entry.get("type")),
            cwd: str_of(entry.get("cwd")),
            id: str_of(entry.get("id")),
            timestamp: str_of(entry.get("timestamp")),
            role: str_of(field("role")),
            tool_call_id: str_of(field("toolCallId")),
            is_error: field("isError").and_then(Value::as_bool),
            calls,
        })
    }

    fn facts(self, cwd: Option<&str>, home: Option<&str>) -> LineFacts {
        let mut facts = LineFacts::default();
        match self.kind.as_deref() {
            Some("session") => {
                facts.cwd = self.cwd;
                return facts;
            }
            Some("message") => {}
            _ => return facts,
        }
        facts.entry_id = self.id;
        facts.time_ms = self
            .timestamp
            .as_deref()
            .and_then(crate::jstext::date::parse_ms);
        match self.role.as_deref() {
            Some("toolResult") => {
                let failed = self.is_error == Some(true);
                facts.result = self.tool_call_id.map(|c| (c, failed));
            }
            Some("assistant") => {
                for call in self.calls {
                    let Some(tool) = call.name.as_deref().and_then(Tool::of) else {
                        continue;
                    };
                    let call_id = call.id;
                    let mut push = |file: String| {
                        if !facts
                            .touches
                            .iter()
                            .any(|t| t.tool == tool && t.file == file && t.call_id == call_id)
                        {
                            facts.touches.push(LineTouch {
                                tool,
                                file,
                                call_id: call_id.clone(),
                            });
                        }
                    };
                    if tool == Tool::Bash {
                        if let Some(command) = &call.command {
                            for word in command_paths(command) {
                                if let Some(file) = resolve_word(word, cwd, home) {
                                    push(file);
                                }
                            }
                        }
                    } else if let Some(p) = call.path.or(call.file_path) {
                        if let Some(file) = resolve_tool_path(&p, cwd, home) {
                            push(file);
                        }
                    }
                }
            }
            _ => {}
        }
        facts
    }
}

/// A line read for just the fields above: every other value is skipped
/// where it lies (a tool's output, a written file's content), never copied.
/// A field of another type than pi writes fails the reading, and the line
/// is then read whole as JSON (which leaves that field out).
mod fast {
    use super::{CALLS_PER_ENTRY, Call, Fields};
    use serde::Deserialize;
    use serde_json::value::RawValue;

    #[derive(Deserialize)]
    pub(super) struct Line<'a> {
        #[serde(rename = "type")]
        kind: Option<String>,
        cwd: Option<String>,
        id: Option<String>,
        timestamp: Option<String>,
        #[serde(borrow)]
        message: Option<Message<'a>>,
    }

    #[derive(Deserialize)]
    struct Message<'a> {
        role: Option<String>,
        #[serde(rename = "toolCallId")]
        tool_call_id: Option<String>,
        #[serde(rename = "isError")]
        is_error: Option<bool>,
        /// Its blocks are read only when it is a list, each only when it
        /// is a call.
        #[serde(borrow)]
        content: Option<&'a RawValue>,
    }

    #[derive(Deserialize)]
    struct Block {
        #[serde(rename = "type")]
        kind: Option<String>,
        name: Option<String>,
        id: Option<String>,
        arguments: Option<Arguments>,
    }

    #[derive(Deserialize)]
    struct Arguments {
        path: Option<String>,
        file_path: Option<String>,
        command: Option<String>,
    }

    impl Line<'_> {
        /// The fields, or `None` when a block of the content is not one pi
        /// writes (the line is then read whole).
        pub(super) fn fields(self) -> Option<Fields> {
            let (role, tool_call_id, is_error, content) = match self.message {
                Some(m) => (m.role, m.tool_call_id, m.is_error, m.content),
                None => (None, None, None, None),
            };
            let blocks: Vec<&RawValue> = match content {
                Some(c) if c.get().starts_with('[') => serde_json::from_str(c.get()).ok()?,
                _ => Vec::new(),
            };
            let mut calls = Vec::new();
            for raw in blocks {
                // Only a call needs its fields (the rest is skipped).
                if memchr::memmem::find(raw.get().as_bytes(), b"toolCall").is_none() {
                    continue;
                }
                let b: Block = serde_json::from_str(raw.get()).ok()?;
                if b.kind.as_deref() != Some("toolCall") {
                    continue;
                }
                let (path, file_path, command) = match b.arguments {
                    Some(a) => (a.path, a.file_path, a.command),
                    None => (None, None, None),
                };
                calls.push(Call {
                    name: b.name,
                    id: b.id,
                    path,
                    file_path,
                    command,
                });
                if calls.len() == CALLS_PER_ENTRY {
                    break;
                }
            }
            Some(Fields {
                kind: self.kind,
                cwd: self.cwd,
                id: self.id,
                timestamp: self.timestamp,
                role,
                tool_call_id,
                is_error,
                calls,
            })
        }
    }
}

/// The words of a bash command that look like paths, at most
/// [`WORDS_PER_COMMAND`], from its first [`COMMAND_BYTES`] bytes: words are
/// split at white space and at the shell's `; | & < > ( )` and backquote,
/// quotes are dropped, an option's value (`--file=x`) is its word; a word
/// holding a `/` or a `.` is a path, but for `.`, `..`, URLs and words
/// made of the shell's `$` or `*`.
pub(crate) fn command_paths(command: &str) -> Vec<&str> {
    let mut end = command.len().min(COMMAND_BYTES);
    while !command.is_char_boundary(end) {
        end -= 1;
    }
    let split =
        |c: char| c.is_whitespace() || matches!(c, ';' | '|' | '&' | '<' | '>' | '(' | ')' | '`');
    let mut out = Vec::new();
    for raw in command[..end].split(split) {
        let mut word = raw.trim_matches(|c| c == '"' || c == '\'');
        if word.starts_with('-') {
            match word.split_once('=') {
                Some((_, value)) => word = value.trim_matches(|c| c == '"' || c == '\''),
                None => continue,
            }
        }
        let looks = (word.contains('/') || word.contains('.'))
            && !word.chars().all(|c| c == '.')
            && !word.contains("://")
            && !word.contains(['$', '*', '"', '\'', '{', '}']);
        if looks && !out.contains(&word) {
            out.push(word);
            if out.len() == WORDS_PER_COMMAND {
                break;
            }
        }
    }
    out
}

/// A word of a command as a path: `~` is the home folder, a relative one
/// is under `cwd`.
fn resolve_word(word: &str, cwd: Option<&str>, home: Option<&str>) -> Option<String> {
    if word.len() > PATH_BYTES {
        return None;
    }
    Some(join_and_normalize(expand_tilde(word, home).as_ref(), cwd))
}

/// A tool's path argument resolved against `cwd` as pi's tools resolve it:
/// Unicode spaces read as spaces, a leading `@` dropped, `~` the home
/// folder, a `file://` URL its path, then made absolute and normalised
/// (`.` and `..` taken away, no doubled or trailing `/`). `None` for an
/// empty or overlong path.
pub fn resolve_tool_path(path: &str, cwd: Option<&str>, home: Option<&str>) -> Option<String> {
    if path.is_empty() || path.len() > PATH_BYTES {
        return None;
    }
    let spaced: String = path
        .chars()
        .map(|c| if is_unicode_space(c) { ' ' } else { c })
        .collect();
    let bare = spaced.strip_prefix('@').unwrap_or(&spaced);
    let expanded = expand_tilde(bare, home);
    let from_url = file_url_path(&expanded);
    let p = from_url.as_deref().unwrap_or(&expanded);
    Some(join_and_normalize(p, cwd))
}

fn is_unicode_space(c: char) -> bool {
    matches!(
        c,
        '\u{a0}' | '\u{2000}'..='\u{200a}' | '\u{202f}' | '\u{205f}' | '\u{3000}'
    )
}

fn expand_tilde<'a>(p: &'a str, home: Option<&str>) -> std::borrow::Cow<'a, str> {
    match home {
        Some(h) if p == "~" => h.to_string().into(),
        Some(h) if p.starts_with("~/") => format!("{}/{}", h.trim_end_matches('/'), &p[2..]).into(),
        _ => p.into(),
    }
}

/// The path of a `file:///…` URL (percent escapes decoded), if it is one.
fn file_url_path(p: &str) -> Option<String> {
    let rest = p.strip_prefix("file://")?;
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    let bytes = rest.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && let (Some(h), Some(l)) = (
                bytes.get(i + 1).copied().and_then(hex),
                bytes.get(i + 2).copied().and_then(hex),
            )
        {
            out.push((h * 16 + l) as u8);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).ok()
}

/// `p` made absolute under `cwd` (when it is relative and `cwd` is given)
/// and normalised as the catalog normalises a folder
/// ([`crate::catalog::discover::normalize`]: `.` and empty parts dropped,
/// `..` taking the part before it, never past the root); nothing left is
/// the empty path.
fn join_and_normalize(p: &str, cwd: Option<&str>) -> String {
    let joined = std::path::Path::new(cwd.unwrap_or("")).join(p);
    let normal = crate::catalog::discover::normalize(&joined);
    if normal.as_os_str() == "." {
        return String::new();
    }
    // Made of `str`s, so it is UTF-8 and nothing is replaced.
    normal.to_string_lossy().into_owned()
}

/// A file to look for: a path or a glob (`*` and `?` within a part of the
/// path, `**` across parts, `[abc]`, `[a-z]`, `[!x]` for one character),
/// relative ones resolved against each session's cwd.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilePattern {
    text: String,
}

impl FilePattern {
    /// The pattern as given; `Err` says why it cannot be one.
    pub fn new(text: &str) -> Result<FilePattern, String> {
        if text.trim().is_empty() {
            return Err("the file to look for is empty".to_string());
        }
        if text.len() > PATTERN_BYTES {
            return Err(format!(
                "the file to look for is longer than {PATTERN_BYTES} bytes"
            ));
        }
        Ok(FilePattern {
            text: text.to_string(),
        })
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// The pattern as it reads for a session in `cwd`.
    pub fn in_cwd(&self, cwd: Option<&str>, home: Option<&str>) -> Matcher {
        let resolved = resolve_tool_path(&self.text, cwd, home).unwrap_or_default();
        if resolved.contains(['*', '?', '[']) {
            let tokens = compile(&resolved);
            let literal = |t: &Token| match t {
                Token::Char(c) => Some(*c),
                _ => None,
            };
            let prefix: String = tokens.iter().map_while(literal).collect();
            let mut suffix: Vec<char> = tokens.iter().rev().map_while(literal).collect();
            suffix.reverse();
            Matcher::Glob(Glob {
                prefix,
                suffix: suffix.into_iter().collect(),
                tokens,
            })
        } else {
            Matcher::Exact(resolved)
        }
    }
}

/// A pattern resolved for one cwd.
#[derive(Debug, Clone)]
pub enum Matcher {
    Exact(String),
    Glob(Glob),
}

/// A glob, with the text every match starts and ends with (most files are
/// told apart by those alone).
#[derive(Debug, Clone)]
pub struct Glob {
    prefix: String,
    suffix: String,
    tokens: Vec<Token>,
}

impl Matcher {
    pub fn matches(&self, file: &str) -> bool {
        match self {
            Matcher::Exact(p) => p == file,
            Matcher::Glob(g) => {
                file.len() >= g.prefix.len().max(g.suffix.len())
                    && file.starts_with(&g.prefix)
                    && file.ends_with(&g.suffix)
                    && glob_matches(&g.tokens, file)
            }
        }
    }
}

/// One piece of a glob.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Token {
    Char(char),
    /// `?`: one character but `/`.
    One,
    /// `*`: any characters but `/`.
    Star,
    /// `**`: any characters.
    Deep,
    /// `**/`: nothing, or any folders.
    DeepDir,
    /// `[…]`: one character of the ranges (or of none, negated).
    Class(Vec<(char, char)>, bool),
}

fn compile(glob: &str) -> Vec<Token> {
    let chars: Vec<char> = glob.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '*' if chars.get(i + 1) == Some(&'*') => {
                if chars.get(i + 2) == Some(&'/') {
                    out.push(Token::DeepDir);
                    i += 3;
                } else {
                    out.push(Token::Deep);
                    i += 2;
                }
            }
            '*' => {
                out.push(Token::Star);
                i += 1;
            }
            '?' => {
                out.push(Token::One);
                i += 1;
            }
            '[' => match class(&chars[i + 1..]) {
                Some((token, used)) => {
                    out.push(token);
                    i += 1 + used;
                }
                None => {
                    out.push(Token::Char('['));
                    i += 1;
                }
            },
            c => {
                out.push(Token::Char(c));
                i += 1;
            }
        }
    }
    out
}

/// A class after its `[`: the token and the characters it used, `]`
/// included; `None` when it never closes.
fn class(chars: &[char]) -> Option<(Token, usize)> {
    let negated = matches!(chars.first(), Some('!' | '^'));
    let mut i = usize::from(negated);
    let mut ranges = Vec::new();
    let mut first = true;
    while let Some(&c) = chars.get(i) {
        if c == ']' && !first {
            return Some((Token::Class(ranges, negated), i + 1));
        }
        first = false;
        if chars.get(i + 1) == Some(&'-') && chars.get(i + 2).is_some_and(|&e| e != ']') {
            ranges.push((c, chars[i + 2]));
            i += 3;
        } else {
            ranges.push((c, c));
            i += 1;
        }
    }
    None
}

/// Whether `tokens` match all of `text`: a table of which pieces of the
/// pattern match which starts of the text, so no pattern takes more than
/// their product in steps.
fn glob_matches(tokens: &[Token], text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    let n = chars.len();
    // `can[j]`: the pattern so far matches the first `j` characters.
    let mut can = vec![false; n + 1];
    can[0] = true;
    let mut next = vec![false; n + 1];
    for t in tokens {
        next.fill(false);
        match t {
            Token::Star | Token::Deep => {
                let mut on = false;
                for j in 0..=n {
                    on = can[j] || (on && (*t == Token::Deep || chars[j - 1] != '/'));
                    next[j] = on;
                }
            }
            Token::DeepDir => {
                // Nothing, or any text that ends a folder.
                let mut on = false;
                for j in 0..=n {
                    if j > 0 && chars[j - 1] == '/' && on {
                        next[j] = true;
                    }
                    on = on || can[j];
                    next[j] = next[j] || can[j];
                }
            }
            _ => {
                for j in 0..n {
                    if can[j] && one_matches(t, chars[j]) {
                        next[j + 1] = true;
                    }
                }
            }
        }
        std::mem::swap(&mut can, &mut next);
        if !can.iter().any(|&c| c) {
            return false;
        }
    }
    can[n]
}

fn one_matches(t: &Token, c: char) -> bool {
    match t {
        Token::Char(p) => *p == c,
        Token::One => c != '/',
        Token::Class(ranges, negated) => {
            c != '/' && ranges.iter().any(|&(a, b)| a <= c && c <= b) != *negated
        }
        _ => false,
    }
}

/// The file a session's touch names, as it reads for someone in `cwd`:
/// relative to it when inside it, else as it is.
pub fn shown_path<'a>(file: &'a str, cwd: &str) -> &'a str {
    let cwd = cwd.trim_end_matches('/');
    match file.strip_prefix(cwd).and_then(|r| r.strip_prefix('/')) {
        Some(rest) if !cwd.is_empty() && !rest.is_empty() => rest,
        _ => file,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_resolve_as_pis_tools_resolve_them() {
        let r = |p: &str| resolve_tool_path(p, Some("/w/proj"), Some("/home/u"));
        assert_eq!(r("src/a.rs").as_deref(), Some("/w/proj/src/a.rs"));
        assert_eq!(r("@src/a.rs").as_deref(), Some("/w/proj/src/a.rs"));
        assert_eq!(r("./src//b/../a.rs").as_deref(), Some("/w/proj/src/a.rs"));
        assert_eq!(r("/etc/hosts/").as_deref(), Some("/etc/hosts"));
        assert_eq!(r("~/notes.md").as_deref(), Some("/home/u/notes.md"));
        assert_eq!(r("~").as_deref(), Some("/home/u"));
        assert_eq!(r("../../../../x").as_deref(), Some("/x"));
        assert_eq!(r("file:///tmp/a%20b.txt").as_deref(), Some("/tmp/a b.txt"));
        assert_eq!(r("my\u{a0}file").as_deref(), Some("/w/proj/my file"));
        assert_eq!(r(""), None);
        assert_eq!(r(&"x".repeat(PATH_BYTES + 1)), None);
    }

    #[test]
    fn commands_name_the_words_that_look_like_paths() {
        assert_eq!(
            command_paths("cat src/a.rs | grep -n foo > out.txt && ls ."),
            ["src/a.rs", "out.txt"]
        );
        assert_eq!(
            command_paths("sed -i 's/a/b/' \"src/x y.rs\"; rustfmt --config-path=cfg/rustfmt.toml"),
            ["s/a/b/", "src/x", "y.rs", "cfg/rustfmt.toml"]
        );
        assert_eq!(
            command_paths("curl https://x.io/a && echo $HOME/.x *.rs cd .."),
            Vec::<&str>::new()
        );
        let many: String = (0..200).map(|i| format!("f{i}.rs ")).collect();
        assert_eq!(command_paths(&many).len(), WORDS_PER_COMMAND);
    }

    #[test]
    fn globs_match_within_and_across_folders() {
        let m = |p: &str, f: &str| {
            FilePattern::new(p)
                .unwrap()
                .in_cwd(Some("/w"), None)
                .matches(f)
        };
        assert!(m("src/*.rs", "/w/src/a.rs"));
        assert!(!m("src/*.rs", "/w/src/x/a.rs"));
        assert!(m("src/**/*.rs", "/w/src/a.rs"));
        assert!(m("src/**/*.rs", "/w/src/x/y/a.rs"));
        assert!(m("src/**", "/w/src/x/y/a.rs"));
        assert!(m("**/a.rs", "/w/src/x/a.rs"));
        assert!(m("/w/src/a.r?", "/w/src/a.rs"));
        assert!(m("src/[ab].rs", "/w/src/b.rs"));
        assert!(!m("src/[!ab].rs", "/w/src/b.rs"));
        assert!(m("src/[a-c]*.rs", "/w/src/cat.rs"));
        assert!(m("src/[.rs", "/w/src/[.rs"));
        assert!(m("src/a.rs", "/w/src/a.rs"));
        assert!(!m("src/a.rs", "/w/src/a.rsx"));
        let long = format!("{}b", "*a".repeat(500));
        assert!(!m(&long, &format!("/w/{}", "a".repeat(3000))));
    }

    #[test]
    fn hostile_lines_give_nothing_or_bounded_facts() {
        for line in [
            &b"not json"[..],
            b"[1,2]",
            b"{\"type\":\"message\",\"message\":{\"role\":\"assistant\",\"content\":\"x\"}}",
            b"{\"type\":\"message\",\"message\":{\"role\":\"assistant\",\"content\":[1,{\"type\":\"toolCall\",\"name\":\"edit\",\"arguments\":7}]}}",
            b"\xff\xfe{",
        ] {
            let facts = line_facts(line, Some("/w"), None);
            assert!(facts.is_none_or(|f| f.touches.is_empty()), "{line:?}");
        }
        let calls: Vec<String> = (0..1000)
            .map(|i| format!("{{\"type\":\"toolCall\",\"id\":\"c{i}\",\"name\":\"read\",\"arguments\":{{\"path\":\"f{i}\"}}}}"))
            .collect();
        let line = format!(
            "{{\"type\":\"message\",\"id\":\"e\",\"message\":{{\"role\":\"assistant\",\"content\":[{}]}}}}",
            calls.join(",")
        );
        let facts = line_facts(line.as_bytes(), Some("/w"), None).unwrap();
        assert_eq!(facts.touches.len(), CALLS_PER_ENTRY);
        assert_eq!(facts.touches[0].file, "/w/f0");
    }

    /// The fast reading of a line finds what reading it whole as JSON
    /// finds, on every line of the test corpora and on odd ones.
    #[test]
    fn the_fast_reading_finds_what_the_json_reading_finds() {
        let odd = [
            r#"{"type":"message","id":7,"timestamp":["x"],"message":{"role":"assistant","content":[{"type":"toolCall","name":"read","arguments":{"path":3,"file_path":"b\u00e9.rs"}},"text",{"type":"toolCall","name":"bash","id":"c","arguments":{"command":"cat \"a b.rs\" x/y"}}]}}"#,
            r#"{"type":"message","message":{"role":"toolResult","toolCallId":"c","isError":"yes"}}"#,
            r#"{"type":"message","message":{"role":"toolResult","toolCallId":"c","isError":true,"content":[{"type":"text","text":"\n"}]}}"#,
            r#"{"type":"session","cwd":"/w","cwd":"/v"}"#,
            r#"{"type":"message","message":"assistant"}"#,
        ];
        let mut lines: Vec<String> = odd.iter().map(|l| l.to_string()).collect();
        for f in crate::session::read::file::test_session_files() {
            let Ok(text) = std::fs::read(&f) else {
                continue;
            };
            lines.extend(
                text.split(|&b| b == b'\n')
                    .take(2000)
                    .map(|l| String::from_utf8_lossy(l).into_owned()),
            );
        }
        let mut compared = 0;
        for line in &lines {
            let whole = serde_json::from_str(line)
                .ok()
                .and_then(Fields::of_value)
                .map(|f| f.facts(Some("/w"), Some("/h")));
            let fast = match serde_json::from_str::<fast::Line<'_>>(line)
                .ok()
                .and_then(fast::Line::fields)
            {
                Some(f) => Some(f.facts(Some("/w"), Some("/h"))),
                None => continue,
            };
            if whole.is_some() {
                compared += 1;
                assert_eq!(fast, whole, "{line}");
            }
        }
        assert!(compared > 1000, "{compared}");
    }

    #[test]
    fn a_line_nested_deep_is_refused_not_followed() {
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert_eq!(line_facts(deep.as_bytes(), None, None), None);
        let deep = format!(
            "{{\"type\":\"message\",\"message\":{}1{}}}",
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        assert!(line_facts(deep.as_bytes(), None, None).is_none_or(|f| f.touches.is_empty()));
    }

    #[test]
    fn shown_paths_are_relative_inside_the_cwd() {
        assert_eq!(shown_path("/w/p/src/a.rs", "/w/p"), "src/a.rs");
        assert_eq!(shown_path("/w/p/src/a.rs", "/w/p/"), "src/a.rs");
        assert_eq!(shown_path("/w/px/a.rs", "/w/p"), "/w/px/a.rs");
        assert_eq!(shown_path("/w/p", "/w/p"), "/w/p");
    }
}
