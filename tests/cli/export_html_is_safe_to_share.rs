//! `piscope export --format html` writes one page to share: self-contained
//! (no script, no request, a policy that forbids both), with the same
//! rendering as the preview, every branch when asked, and nothing from the
//! session able to run; the Markdown export renders the same way. The page
//! is also opened in a real headless browser, which must show the session
//! and neither run a script nor make a request.

use crate::support as common;

use common::tools::{self, Tool};
use std::path::{Path, PathBuf};
use std::process::Command;

fn fixture() -> PathBuf {
    common::repo().join("tests/data/render/every-block.jsonl")
}

fn piscope(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_piscope"))
        .args(args)
        .output()
        .expect("run piscope")
}

fn export(args: &[&str]) -> String {
    let file = fixture();
    let mut all = vec!["export", file.to_str().expect("path")];
    all.extend_from_slice(args);
    let out = piscope(&all);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// The page's markup outside the text it shows: what a browser would obey.
fn tags(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(start) = rest.find('<') {
        let Some(end) = rest[start..].find('>') else {
            break;
        };
        out.push(rest[start..start + end + 1].to_string());
        rest = &rest[start + end + 1..];
    }
    out
}

/// The page's text: tags taken out, entities read.
fn text_of(html: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

#[test]
fn the_page_holds_no_script_and_no_way_out() {
    for args in [
        &["--format", "html"][..],
        &["--format", "html", "--all-branches"],
    ] {
        let html = export(args);
        assert!(html.starts_with("<!DOCTYPE html>"));
        assert!(html.contains(
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'sha256-"
        ));
        for tag in tags(&html) {
            let lower = tag.to_ascii_lowercase();
            assert!(!lower.starts_with("<script"), "{tag}");
            assert!(!lower.starts_with("<iframe"), "{tag}");
            assert!(!lower.starts_with("<link"), "{tag}");
            assert!(!lower.contains(" on"), "an event handler: {tag}");
            assert!(!lower.contains("javascript:"), "{tag}");
            if let Some(src) = lower.split(" src=\"").nth(1) {
                assert!(src.starts_with("data:image/png;base64,"), "{tag}");
            }
            if let Some(href) = lower.split(" href=\"").nth(1) {
                assert!(
                    href.starts_with('#') || href.starts_with("https://"),
                    "{tag}"
                );
            }
        }
        // The hostile text is there, as text.
        let text = text_of(&html);
        for shown in [
            "<script>window.__pwned = 1</script>",
            "<img src=x onerror=\"window.__pwned=2\">",
            "click me (javascript:window.__pwned=3)",
            "<a href=\"javascript:window.__pwned=4\" onclick=\"window.__pwned=5\">link</a>",
            "␛]0;terminal title␇␛[2J",
        ] {
            assert!(text.contains(shown), "not shown as text: {shown:?}");
        }
        assert!(
            !html.chars().any(|c| c.is_control() && c != '\n'),
            "no raw control characters"
        );
    }
}

#[test]
fn the_page_matches_what_pi_shows_and_more() {
    let html = export(&["--format", "html", "--all-branches"]);
    for want in [
        // pi's header: models, messages, tokens, cost.
        "anthropic/claude-sonnet-4-5",
        "<dt>Tokens</dt>",
        "<dt>Cost</dt><dd>$0.087</dd>",
        // Tool calls as pi draws them, diffs from the call itself.
        "<span class=\"c-tool-name\">edit</span>",
        "<span class=\"line add\"><span class=\"c-diff-add\">+     pos: usize,</span></span>",
        "<span class=\"c-code-keyword\">fn</span>",
        "data-lang=\"python\"",
        "<img src=\"data:image/png;base64,",
        // Folds without a script.
        "<details class=\"block k-thinking hidden\"",
        // Beyond pi: what the compaction replaced, and the branches.
        "48,210 tokens before",
        "compacted away: what the model saw before this compaction",
        "<nav class=\"branches\">",
        "href=\"#b2\"",
        "Continues from <a href=",
        "Another branch leaves here",
        "Entry tree",
    ] {
        assert!(html.contains(want), "missing {want:?}");
    }
}

#[test]
fn markdown_renders_the_same_way() {
    let md = export(&[]);
    for want in [
        "```rust\n",
        "```diff\n",
        "```python\n",
        // A command once, in its block's heading, as pi shows it.
        "$ cargo test --color=always",
        "+     pos: usize,",
        "_[image png 70 B\\]_",
    ] {
        assert!(md.contains(want), "missing {want:?}\n{md}");
    }
    assert!(
        md.contains("\\<script\\>window.\\_\\_pwned = 1\\</script\\>"),
        "{md}"
    );
    assert!(
        !md.chars().any(|c| c.is_control() && c != '\n'),
        "no raw control characters"
    );
}

#[test]
fn output_goes_to_a_new_file_only() {
    let tmp = tempfile::tempdir().expect("dir");
    let to = tmp.path().join("page.html");
    let file = fixture();
    let args = [
        "export",
        file.to_str().expect("path"),
        "--format",
        "html",
        "-o",
        to.to_str().expect("path"),
    ];
    let out = piscope(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let first = std::fs::read(&to).expect("written");
    assert!(first.starts_with(b"<!DOCTYPE html>"));
    let again = piscope(&args);
    assert_eq!(again.status.code(), Some(1));
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(err.contains("page.html: not written"), "{err}");
    assert_eq!(
        std::fs::read(&to).expect("kept"),
        first,
        "the file is kept as it was"
    );
    // --all-branches is for HTML.
    let md = piscope(&["export", file.to_str().expect("path"), "--all-branches"]);
    assert_eq!(md.status.code(), Some(1));
}

fn open_in_browser(page: &Path) -> serde_json::Value {
    let out = tools::node_command()
        .arg(common::repo().join("tests/support/check-page.mjs"))
        .arg(page)
        .env("PLAYWRIGHT_DIR", tools::playwright_dir())
        .env("CHROMIUM", tools::chromium())
        .output()
        .expect("run node");
    assert!(
        out.status.success(),
        "the browser run failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("the probe's JSON")
}

#[test]
fn a_real_browser_shows_the_session_and_runs_nothing() {
    if !tools::have(Tool::Browser) {
        return;
    }
    let tmp = tempfile::tempdir().expect("dir");
    let page = tmp.path().join("session.html");
    let file = fixture();
    let out = piscope(&[
        "export",
        file.to_str().expect("path"),
        "--format",
        "html",
        "--all-branches",
        "-o",
        page.to_str().expect("path"),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seen = open_in_browser(&page);
    let url = seen["url"].as_str().expect("url");
    let requests: Vec<&str> = seen["requests"]
        .as_array()
        .expect("requests")
        .iter()
        .filter_map(|r| r.as_str())
        .collect();
    // The page itself, and nothing else (inline images are no request).
    assert!(
        requests.iter().all(|r| *r == url || r.starts_with("data:")),
        "requests: {requests:?}"
    );
    assert!(requests.contains(&url));
    let before = &seen["before"];
    let after = &seen["after"];
    assert_eq!(
        before["pwned"],
        serde_json::Value::Null,
        "a script of the session ran"
    );
    assert_eq!(
        after["pwned"],
        serde_json::Value::Null,
        "a script ran after a click"
    );
    assert_eq!(seen["dialogs"], serde_json::json!([]));
    assert_eq!(before["scripts"], 0);
    assert_eq!(before["iframes"], 0);
    assert_eq!(before["handlers"], serde_json::json!([]));
    assert_eq!(before["unsafeLinks"], serde_json::json!([]));
    let images = before["images"].as_array().expect("images");
    assert!(
        images.iter().any(|i| i["loaded"] == true
            && i["src"]
                .as_str()
                .is_some_and(|s| s.starts_with("data:image/png"))),
        "the screenshot is shown: {images:?}"
    );
    let shown = before["text"].as_str().expect("text");
    for want in [
        "Compaction",
        "48,210 tokens before",
        "Branch 2",
        "Back on the first branch.",
        "<script>window.__pwned = 1</script>",
        "javascript:window.__pwned=3",
        "$0.087",
    ] {
        assert!(shown.contains(want), "not shown: {want:?}\n{shown}");
    }
    // Folded at first, shown once its summary is clicked: thinking, and the
    // messages the compaction replaced.
    let opened = after["text"].as_str().expect("text");
    for folded in [
        "Start by reading the file.",
        "Please fix the parser",
        "edit src/lib.rs",
        "+     pos: usize,",
    ] {
        assert!(!shown.contains(folded), "{folded:?} should start folded");
        assert!(opened.contains(folded), "{folded:?} should open");
    }
    // The policy had nothing to refuse: the page asks for nothing.
    assert_eq!(after["violations"], serde_json::json!([]));
}
