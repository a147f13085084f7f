//! The rendered context, block by block, on a session pi wrote (every kind
//! of block the renderer draws, from `tests/pi/pi-rendering.mjs`):
//! markdown, code, diffs, bash, images, thinking, compactions and custom
//! messages laid out for a width, with each span's class shown; and every
//! pi-written session rendered without a control character or a row too
//! wide.

use crate::support as common;

use piscope::render::document::{Node, line_text};
use piscope::render::{self, Block, BlockKind, Line};
use piscope::session::{LeafSelector, Session};
use std::path::{Path, PathBuf};

const WIDTH: usize = 72;

fn fixture() -> PathBuf {
    common::repo().join("tests/data/render/every-block.jsonl")
}

/// Rows with each span's class (and emphasis) shown: plain text as it is,
/// anything else as `«class text»`.
fn show(rows: &[Line]) -> String {
    let mut out = String::new();
    for row in rows {
        for s in row {
            let st = &s.style;
            let mut tag = st.class.css().to_string();
            for (on, name) in [
                (st.bold, "+b"),
                (st.italic, "+i"),
                (st.dim, "+dim"),
                (st.strike, "+s"),
            ] {
                if on {
                    tag.push_str(name);
                }
            }
            if let Some(c) = st.fg {
                tag.push_str(&format!("+fg{c}"));
            }
            if let Some(link) = &s.link {
                tag.push_str(&format!("->{link}"));
            }
            if tag == "text" {
                out.push_str(s.text());
            } else {
                out.push_str(&format!("«{tag} {}»", s.text()));
            }
        }
        out.push('\n');
    }
    out
}

/// Every block, those inside compactions too, in order.
fn all_blocks(blocks: &[Block]) -> Vec<&Block> {
    let mut out = Vec::new();
    for b in blocks {
        out.push(b);
        out.extend(all_blocks(&b.children));
    }
    out
}

fn document() -> render::Document {
    let s = Session::open(fixture()).expect("the fixture opens");
    render::context_document(&s, &LeafSelector::Last).expect("renders")
}

/// The first block the test asks for, laid out open, drawn as if it were
/// not compacted away (that mark has its own snapshot).
fn snapshot_of(doc: &render::Document, what: &str, pick: impl Fn(&Block) -> bool) -> String {
    let b = all_blocks(&doc.blocks)
        .into_iter()
        .find(|b| pick(b))
        .unwrap_or_else(|| panic!("no {what} block"));
    let mut b = b.clone();
    b.hidden = false;
    show(&render::layout_block(&b, WIDTH, true))
}

fn title(b: &Block) -> String {
    line_text(&b.title)
}

fn has_node(b: &Block, f: impl Fn(&Node) -> bool) -> bool {
    b.body.iter().any(f)
}

#[test]
fn markdown() {
    let doc = document();
    insta::assert_snapshot!(snapshot_of(&doc, "markdown", |b| b.kind == BlockKind::User
        && has_node(b, |n| matches!(n, Node::Table { .. }))));
}

#[test]
fn code() {
    let doc = document();
    let text = snapshot_of(&doc, "code", |b| {
        b.kind == BlockKind::Assistant && has_node(b, |n| matches!(n, Node::Code { .. }))
    });
    assert!(text.contains("«code-keyword fn»"), "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn read_write_and_diff() {
    let doc = document();
    let read = snapshot_of(&doc, "read", |b| title(b).starts_with("read"));
    let write = snapshot_of(&doc, "write", |b| title(b).starts_with("write"));
    let diff = snapshot_of(&doc, "edit", |b| title(b).starts_with("edit"));
    assert!(diff.contains("«diff-add +     pos: usize,»"), "{diff}");
    insta::assert_snapshot!("read", read);
    insta::assert_snapshot!("write", write);
    insta::assert_snapshot!("diff", diff);
}

#[test]
fn bash() {
    let doc = document();
    let call = snapshot_of(&doc, "bash call", |b| title(b).starts_with("$ cargo"));
    // Colours kept, the title sequence dropped.
    assert!(call.contains("+fg1"), "{call}");
    assert!(!call.contains("owned title"), "{call}");
    let run = snapshot_of(&doc, "bash execution", |b| b.kind == BlockKind::Bash);
    insta::assert_snapshot!("bash_call", call);
    insta::assert_snapshot!("bash_execution", run);
}

#[test]
fn image_placeholder() {
    let doc = document();
    let text = snapshot_of(&doc, "image", |b| {
        has_node(b, |n| matches!(n, Node::Image { .. }))
    });
    assert!(text.contains("«image [image png 70 B]»"), "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn thinking_is_folded() {
    let doc = document();
    let b = all_blocks(&doc.blocks)
        .into_iter()
        .find(|b| b.kind == BlockKind::Thinking)
        .expect("a thinking block");
    let folded = show(&render::layout_block(b, WIDTH, false));
    let open = snapshot_of(&doc, "thinking", |b| b.kind == BlockKind::Thinking);
    insta::assert_snapshot!("thinking_folded", folded);
    insta::assert_snapshot!("thinking_open", open);
}

#[test]
fn compaction_holds_what_it_replaced() {
    let doc = document();
    let b = doc
        .blocks
        .iter()
        .find(|b| b.kind == BlockKind::Compaction)
        .expect("a compaction");
    assert!(!b.children.is_empty() && b.children.iter().all(|c| c.hidden));
    insta::assert_snapshot!(
        "compaction_open",
        show(&render::layout_block(b, WIDTH, true))
    );
}

#[test]
fn custom_message() {
    let doc = document();
    insta::assert_snapshot!(snapshot_of(&doc, "custom", |b| b.kind == BlockKind::Custom));
}

#[test]
fn hostile_text_is_shown_not_obeyed() {
    let doc = document();
    let text = snapshot_of(&doc, "hostile", |b| {
        title(b).starts_with("User")
            && b.body
                .iter()
                .any(|n| matches!(n, Node::Para(ls) if ls.iter().any(|l| line_text(l).contains("Hostile"))))
    });
    assert!(text.contains("␛]0;terminal title␇"), "{text}");
    insta::assert_snapshot!(text);
}

/// Every block of every pi-written session: spans free of control
/// characters, rows no wider than asked, whatever the width.
#[test]
fn every_pi_session_renders_clean_and_fits() {
    let mut files = vec![fixture()];
    for dir in std::fs::read_dir(common::corpus()).expect("corpus") {
        for f in std::fs::read_dir(dir.expect("dir").path()).expect("project") {
            files.push(f.expect("file").path());
        }
    }
    for f in std::fs::read_dir(common::repo().join("tests/data/pi-mono")).expect("fixtures") {
        let f = f.expect("file").path();
        if f.extension().is_some_and(|e| e == "jsonl") {
            files.push(f);
        }
    }
    let mut blocks = 0;
    for f in &files {
        check_file(f, &mut blocks);
    }
    assert!(blocks > 500, "only {blocks} blocks rendered");
}

fn check_file(f: &Path, blocks: &mut usize) {
    let s = Session::open(f).expect("opens");
    let doc = render::context_document(&s, &LeafSelector::Last).expect("renders");
    for width in [20, 80] {
        for (k, row) in render::layout(&doc, width, &|_, _| true) {
            let text = line_text(&row);
            assert!(
                !text.chars().any(char::is_control),
                "{}: block {k}: {text:?}",
                f.display()
            );
            assert!(
                piscope::safe_text::width(&text) <= width,
                "{}: block {k} wider than {width}: {text:?}",
                f.display()
            );
        }
    }
    *blocks += all_blocks(&doc.blocks).len();
}

/// An edit whose result carries the tool's own diff (`details.diff`, in a
/// session pi wrote) is drawn from it, as pi draws it: the file's line
/// numbers and context, and the lines added and removed counted from it.
#[test]
fn an_edit_is_drawn_from_the_tools_own_diff() {
    let s = Session::open(common::repo().join("tests/data/pi-mono/before-compaction.jsonl"))
        .expect("opens");
    let doc = render::context_document(&s, &LeafSelector::Last).expect("renders");
    let b = all_blocks(&doc.blocks)
        .into_iter()
        .find(|b| title(b).starts_with("edit ") && title(b).contains("refactor.md"))
        .unwrap_or_else(|| panic!("no edit of refactor.md"));
    let rows: Vec<String> = render::layout_block(b, 120, true)
        .iter()
        .map(|r| line_text(r))
        .collect();
    let shown = rows.join("\n");
    // `│ -1393 - [ ] Copy main.ts…`: a sign, the file's line number, the text.
    let numbered = |sign: char| {
        rows.iter().any(|r| {
            r.trim_start()
                .strip_prefix("│ ")
                .and_then(|r| r.strip_prefix(sign))
                .is_some_and(|r| r.trim_start().starts_with(|c: char| c.is_ascii_digit()))
        })
    };
    assert!(numbered('-') && numbered('+') && numbered(' '), "{shown}");
    assert!(shown.contains("│       ..."), "{shown}");
    assert!(
        !shown.contains("--- "),
        "no diff header of its own: {shown}"
    );
}
