//! Syntax highlighting of code into classed spans: the grammars (bat's set,
//! loaded on first use so start-up never pays for them), a language found
//! by fence name or file extension, and scopes mapped to [`Class`]es.
//! The grammars run on Oniguruma (syntect's `regex-onig`): on grammars as
//! heavy as TypeScript's it is about seven times faster than the pure-Rust
//! engine, which made exporting a long session take tens of seconds.

use super::document::{Class, CodeLine, LineKind, Span};
use std::path::Path;
use std::sync::OnceLock;
use syntect::parsing::{ParseState, Scope, ScopeStack, SyntaxReference, SyntaxSet};

/// Lines past this many in one block are shown plain: highlighting is the
/// slow part of rendering, and nobody reads the 5,000th line of a log in
/// colour.
pub const MAX_HIGHLIGHTED_LINES: usize = 1500;

/// A grammar's time grows with the square of a line's length on some
/// input (a long run of `[` in JSON or Markdown), so a longer line, and
/// everything after it, is shown plain.
pub const MAX_HIGHLIGHTED_LINE: usize = 4096;

/// Code past this many bytes in one block is shown plain.
pub const MAX_HIGHLIGHTED_BYTES: usize = 256 * 1024;

/// Highlighting one block stops after this long; the rest is plain.
pub const MAX_HIGHLIGHT_TIME: std::time::Duration = std::time::Duration::from_millis(250);

fn syntaxes() -> &'static SyntaxSet {
    static SET: OnceLock<SyntaxSet> = OnceLock::new();
    SET.get_or_init(two_face::syntax::extra_newlines)
}

/// Loads the grammars now (on a worker, say), so the first code block
/// drawn does not wait for them.
pub fn warm_up() {
    syntaxes();
}

/// A fence's language as the grammar set knows it (`shell` → `bash`).
fn canonical(lang: &str) -> Option<String> {
    let lang = lang.trim().to_ascii_lowercase();
    let lang = match lang.as_str() {
        "" | "text" | "txt" | "plain" | "plaintext" | "output" => return None,
        "shell" | "console" | "zsh" | "shellscript" | "sh-session" => "bash",
        "jsonl" | "jsonc" | "json5" => "json",
        "golang" => "go",
        "c++" => "cpp",
        "objc" => "objective-c",
        "patch" => "diff",
        other => other,
    };
    Some(lang.to_string())
}

/// The grammar a fence's language names (`rust`, `ts`, `sh`, `Python`, ...).
fn by_token(lang: &str) -> Option<&'static SyntaxReference> {
    syntaxes().find_syntax_by_token(&canonical(lang)?)
}

/// The grammar a file's name calls for: its extension, else its whole name
/// (`Makefile`, `Dockerfile`).
fn by_path(path: &str) -> Option<&'static SyntaxReference> {
    let p = Path::new(path);
    let set = syntaxes();
    p.extension()
        .and_then(|e| e.to_str())
        .and_then(|e| set.find_syntax_by_extension(e))
        .or_else(|| {
            p.file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| set.find_syntax_by_extension(n))
        })
}

/// What to highlight a block as.
#[derive(Debug, Clone, Copy)]
pub enum Lang<'a> {
    /// A fence's info string (its first word is the language).
    Fence(&'a str),
    /// A file's path: its extension decides.
    File(&'a str),
    None,
}

/// The language name a block is highlighted as, when there is a grammar:
/// a fence's own word (`shell` said as `bash`), else the grammar's name when
/// it is one word (`python`, `toml`), else its first extension.
pub fn language(lang: Lang<'_>) -> Option<String> {
    let syntax = grammar(lang)?;
    if let Lang::Fence(info) = lang {
        return info.split_whitespace().next().and_then(canonical);
    }
    let name = syntax.name.to_ascii_lowercase();
    if name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '#' | '-'))
    {
        return Some(name);
    }
    syntax
        .file_extensions
        .first()
        .map(|e| e.to_ascii_lowercase())
        .or(Some(name))
}

fn grammar(lang: Lang<'_>) -> Option<&'static SyntaxReference> {
    match lang {
        Lang::Fence(info) => info.split_whitespace().next().and_then(by_token),
        Lang::File(path) => by_path(path),
        Lang::None => None,
    }
}

/// Clean lines (see [`crate::safe_text::clean_block`]) as highlighted code
/// lines; plain when there is no grammar.
pub fn highlight(lines: &[String], lang: Lang<'_>) -> Vec<CodeLine> {
    highlight_within(lines, lang).0
}

/// Why highlighting stopped before `line` (0-based), as the note a reader
/// sees.
fn gave_up(line: usize, why: &str) -> String {
    format!(
        "highlighting stopped at line {}: {why}; the rest is plain text",
        line + 1
    )
}

/// Clean lines as highlighted code lines, within the budget of a block
/// (bytes, time, line length): past it the rest is plain, and the note
/// says where and why.
pub fn highlight_within(lines: &[String], lang: Lang<'_>) -> (Vec<CodeLine>, Option<String>) {
    let plain = |l: &String| CodeLine {
        kind: LineKind::Plain,
        spans: vec![Span::clean(l.clone(), Class::CodeText)],
    };
    let Some(syntax) = grammar(lang) else {
        return (lines.iter().map(plain).collect(), None);
    };
    let set = syntaxes();
    let mut state = ParseState::new(syntax);
    let mut stack = ScopeStack::new();
    let mut out = Vec::with_capacity(lines.len());
    let mut failed = false;
    let mut note = None;
    let mut bytes = 0;
    let started = std::time::Instant::now();
    for (n, line) in lines.iter().enumerate() {
        if failed || n >= MAX_HIGHLIGHTED_LINES {
            out.push(plain(line));
            continue;
        }
        bytes += line.len() + 1;
        let over = if line.len() > MAX_HIGHLIGHTED_LINE {
            Some(format!(
                "a line longer than {} KB",
                MAX_HIGHLIGHTED_LINE / 1024
            ))
        } else if bytes > MAX_HIGHLIGHTED_BYTES {
            Some(format!(
                "more than {} KB of code",
                MAX_HIGHLIGHTED_BYTES / 1024
            ))
        } else if started.elapsed() > MAX_HIGHLIGHT_TIME {
            Some(format!(
                "it took longer than {} ms",
                MAX_HIGHLIGHT_TIME.as_millis()
            ))
        } else {
            None
        };
        if let Some(why) = over {
            note = Some(gave_up(n, &why));
            failed = true;
            out.push(plain(line));
            continue;
        }
        match highlight_line(line, &mut state, &mut stack, set) {
            Some(spans) => out.push(CodeLine {
                kind: LineKind::Plain,
                spans,
            }),
            None => {
                // A grammar the regex engine cannot run: the rest is plain.
                failed = true;
                out.push(plain(line));
            }
        }
    }
    (out, note)
}

fn highlight_line(
    line: &str,
    state: &mut ParseState,
    stack: &mut ScopeStack,
    set: &SyntaxSet,
) -> Option<Vec<Span>> {
    let with_newline = format!("{line}\n");
    let ops = state.parse_line(&with_newline, set).ok()?;
    let mut spans: Vec<Span> = Vec::new();
    let push = |spans: &mut Vec<Span>, text: &str, class: Class| {
        if text.is_empty() {
            return;
        }
        match spans.last_mut() {
            Some(last) if last.style.class == class => last.push_clean(text),
            _ => spans.push(Span::clean(text.to_string(), class)),
        }
    };
    let mut at = 0;
    for (pos, op) in ops {
        let pos = pos.min(line.len());
        if pos > at {
            if let Some(text) = line.get(at..pos) {
                push(&mut spans, text, class_of(stack));
            }
            at = pos;
        }
        stack.apply(&op).ok()?;
    }
    if at < line.len() {
        if let Some(text) = line.get(at..) {
            push(&mut spans, text, class_of(stack));
        }
    }
    if spans.is_empty() {
        spans.push(Span::clean(String::new(), Class::CodeText));
    }
    Some(spans)
}

struct Scopes {
    /// Scopes that colour everything inside them.
    containers: Vec<(Scope, Class)>,
    /// The innermost scope that matches one of these decides.
    leaves: Vec<(Scope, Class)>,
}

fn scopes() -> &'static Scopes {
    static TABLE: OnceLock<Scopes> = OnceLock::new();
    TABLE.get_or_init(|| {
        let table = |pairs: &[(&str, Class)]| {
            pairs
                .iter()
                .filter_map(|(name, class)| Scope::new(name).ok().map(|s| (s, *class)))
                .collect()
        };
        Scopes {
            containers: table(&[
                ("comment", Class::CodeComment),
                ("string", Class::CodeString),
                ("markup.inserted", Class::DiffAdd),
                ("markup.deleted", Class::DiffDel),
                ("meta.diff.range", Class::DiffHunk),
                ("meta.diff.header", Class::DiffHeader),
            ]),
            leaves: table(&[
                ("constant.numeric", Class::CodeNumber),
                ("constant.character.escape", Class::CodeString),
                ("constant", Class::CodeConstant),
                ("keyword.operator", Class::CodeOperator),
                ("keyword", Class::CodeKeyword),
                ("storage.type", Class::CodeKeyword),
                ("storage.modifier", Class::CodeKeyword),
                ("storage", Class::CodeKeyword),
                ("entity.name.function", Class::CodeFunction),
                ("support.function", Class::CodeFunction),
                ("variable.function", Class::CodeFunction),
                ("meta.function-call", Class::CodeFunction),
                ("entity.name.tag", Class::CodeTag),
                ("entity.other.attribute-name", Class::CodeAttribute),
                ("entity.name", Class::CodeType),
                ("support.type", Class::CodeType),
                ("support.class", Class::CodeType),
                ("variable.language", Class::CodeConstant),
                ("variable.parameter", Class::CodeVariable),
                ("variable", Class::CodeVariable),
                ("punctuation", Class::CodePunctuation),
            ]),
        }
    })
}

fn class_of(stack: &ScopeStack) -> Class {
    let table = scopes();
    let stack = stack.as_slice();
    for (scope, class) in &table.containers {
        if stack.iter().any(|s| scope.is_prefix_of(*s)) {
            return *class;
        }
    }
    for s in stack.iter().rev() {
        for (scope, class) in &table.leaves {
            if scope.is_prefix_of(*s) {
                return *class;
            }
        }
    }
    Class::CodeText
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classes(code: &str, lang: Lang<'_>) -> Vec<(String, Class)> {
        let lines: Vec<String> = code.lines().map(str::to_string).collect();
        highlight(&lines, lang)
            .into_iter()
            .flat_map(|l| l.spans)
            .map(|s| (s.text().to_string(), s.style.class))
            .collect()
    }

    #[test]
    fn rust_keywords_strings_and_comments() {
        let got = classes("fn main() { let s = \"hi\"; } // done", Lang::Fence("rust"));
        assert!(got.contains(&("fn".into(), Class::CodeKeyword)), "{got:?}");
        assert!(
            got.iter()
                .any(|(t, c)| t.contains("hi") && *c == Class::CodeString)
        );
        assert!(
            got.contains(&("// done".into(), Class::CodeComment)),
            "{got:?}"
        );
        assert!(
            got.iter()
                .any(|(t, c)| t == "main" && *c == Class::CodeFunction)
        );
    }

    #[test]
    fn highlighting_keeps_to_its_budget_and_says_where_it_stopped() {
        // One long line whose grammar time grows with its square, after a
        // short one; then a block too large in all.
        let cases = [
            (vec!["{}".to_string(), "[".repeat(600_000)], "a.json", 2),
            (vec!["[".repeat(200_000)], "notes.md", 1),
            (vec!["let x = 1;".repeat(30); 1000], "a.rs", 871),
        ];
        for (lines, path, stop) in cases {
            let started = std::time::Instant::now();
            let (out, note) = highlight_within(&lines, Lang::File(path));
            assert!(
                started.elapsed() < std::time::Duration::from_secs(2),
                "{path}: {:?}",
                started.elapsed()
            );
            let note = note.expect("a note");
            // Past the byte budget at the latest (sooner if past the time).
            let at: usize = note
                .split_once("line ")
                .and_then(|(_, r)| r.split(':').next()?.parse().ok())
                .expect("a line number");
            assert!(at <= stop && (at == stop || stop > 2), "{note}");
            let text: Vec<String> = out
                .iter()
                .map(|l| super::super::document::line_text(&l.spans))
                .collect();
            assert_eq!(text, lines, "the text is kept whole");
        }
        let (_, note) = highlight_within(&["fn main() {}".to_string()], Lang::File("a.rs"));
        assert_eq!(note, None);
    }

    #[test]
    fn languages_by_fence_and_by_file() {
        assert_eq!(language(Lang::Fence("ts")).as_deref(), Some("ts"));
        assert_eq!(language(Lang::Fence("shell")).as_deref(), Some("bash"));
        assert_eq!(language(Lang::File("x.sh")).as_deref(), Some("sh"));
        assert_eq!(language(Lang::File("x.ts")).as_deref(), Some("typescript"));
        assert_eq!(
            language(Lang::Fence("Python {.x}")).as_deref(),
            Some("python")
        );
        assert_eq!(language(Lang::File("src/main.rs")).as_deref(), Some("rust"));
        assert_eq!(
            language(Lang::File("a/b/Cargo.toml")).as_deref(),
            Some("toml")
        );
        assert_eq!(
            language(Lang::File("Makefile")).as_deref(),
            Some("makefile")
        );
        assert_eq!(language(Lang::Fence("no-such-language")), None);
        assert_eq!(language(Lang::File("notes")), None);
        // Without a grammar: one plain span a line, text kept.
        let got = classes("a  b", Lang::None);
        assert_eq!(got, vec![("a  b".to_string(), Class::CodeText)]);
    }

    #[test]
    fn the_text_is_kept_whole() {
        let code = "const x = `a ${b}`; /* c */\n<div class=\"x\">y</div>";
        for lang in [Lang::Fence("js"), Lang::Fence("html"), Lang::File("x.py")] {
            let lines: Vec<String> = code.lines().map(str::to_string).collect();
            let got: Vec<String> = highlight(&lines, lang)
                .iter()
                .map(|l| super::super::document::line_text(&l.spans))
                .collect();
            assert_eq!(got, lines);
        }
    }
}
