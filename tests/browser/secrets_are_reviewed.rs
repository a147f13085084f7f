//! The browser's export and copy on a session pi wrote with a secret of
//! every kind planted in it: the review lists what was found (kind, place,
//! a masked preview) before anything is written, each redacted unless
//! kept; Enter writes the export or copies the text so, and what reaches
//! the file or the clipboard holds none of the secrets not kept.

use crate::support::{self as common, age, planted};
use piscope::tui::harness::Harness;
use piscope::tui::operations::copy::{copy_job, redacted_copy};
use piscope::tui::work::jobs::{ActionOutcome, Reviewed};

const WIDE: (u16, u16) = (160, 40);

fn planted_session(dir: &std::path::Path) -> (Vec<planted::Planted>, std::path::PathBuf) {
    let secrets = planted::secrets(0xC0FFEE);
    let path = planted::session(dir, &secrets);
    age(&path);
    (secrets, path)
}

#[test]
fn the_clipboard_text_of_every_entry_holds_no_planted_secret() {
    if !common::have_node() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (secrets, path) = planted_session(dir.path());
    let h = Harness::file(&path, WIDE);
    let t = h.app.tree().loaded().unwrap().clone();
    let (mut reviewed, mut found) = (0, 0);
    for node in 0..t.session.entries.len() as u32 {
        match copy_job(t.session.clone(), node).run() {
            ActionOutcome::ReviewSecrets { findings, then } => {
                let Reviewed::Copy { text, hits } = *then else {
                    panic!("a copy's review holds the copy");
                };
                assert_eq!(findings.len(), hits.len());
                let (out, redacted, kept) = redacted_copy(&text, &hits, &[]);
                assert_eq!((redacted, kept), (hits.len(), 0));
                for p in &secrets {
                    for s in &p.secret {
                        assert!(!out.contains(s.as_str()), "a {} copied: {out}", p.kind);
                    }
                }
                reviewed += 1;
                found += hits.len();
            }
            ActionOutcome::Copied { .. } | ActionOutcome::CopyThroughTerminal { .. } => {}
            other => panic!("entry {node}: {other:?}"),
        }
    }
    let planted_n = secrets.len() * planted::PLACES;
    println!(
        "clipboard: {planted_n} planted, {found} found, {} missed",
        planted_n.saturating_sub(found)
    );
    // Each planted entry reviewed (the thinking and the bash call share
    // one assistant entry).
    assert_eq!(found, planted_n);
    assert_eq!(reviewed, secrets.len() * (planted::PLACES - 1));
}

#[test]
fn export_and_copy_show_the_review_and_write_what_it_chose() {
    if !common::have_node() {
        return;
    }
    let dir = tempfile::Builder::new()
        .prefix("piscope-test-")
        .tempdir()
        .unwrap();
    let (secrets, path) = planted_session(dir.path());
    let mut h = Harness::file(&path, WIDE);
    h.app.set_here(dir.path().to_path_buf());
    // The export: nothing is written before the review's Enter.
    h.keys(&["ctrl+e", "enter"]);
    let to = path.with_extension("md");
    assert!(!to.exists(), "written before the review");
    let r = h.app.review().expect("the review is shown");
    let n = r.findings.len();
    assert_eq!(n, secrets.len() * planted::PLACES);
    let first = r.findings[0].clone();
    assert_eq!(first.kind, "private-key");
    let screen = h.screen();
    assert!(screen.contains("Secrets in the export"), "{screen}");
    assert!(
        screen.contains(&format!("{n} found: redacted unless kept")),
        "{screen}"
    );
    assert!(screen.contains("[redacted] private-key"), "{screen}");
    assert!(screen.contains("Ctrl+Space keep / redact"), "{screen}");
    // Keep the first one (a private key in the user's prompt).
    h.keys(&["ctrl+space", "enter"]);
    let md = std::fs::read_to_string(&to).expect("the export is written");
    assert!(md.contains(&secrets[0].secret[0]), "the kept key is there");
    for p in &secrets[1..] {
        for s in &p.secret {
            assert!(!md.contains(s.as_str()), "a {} exported", p.kind);
        }
    }
    let said = h.app.message().map(|m| m.text.clone()).unwrap_or_default();
    assert!(
        said.contains(&format!("({} secrets redacted, 1 kept)", n - 1)),
        "{said}"
    );

    // Esc in the review writes nothing.
    h.keys(&["ctrl+e"]);
    h.keys(&["ctrl+u"]);
    h.type_text(&dir.path().join("other.md").to_string_lossy());
    h.keys(&["enter", "esc"]);
    assert!(h.app.review().is_none());
    assert!(!dir.path().join("other.md").exists());

    // The copy of an entry that holds one: reviewed, then copied redacted.
    h.key("up");
    h.key("ctrl+x");
    let r = h.app.review().expect("the copy's review");
    assert_eq!(r.findings.len(), 1);
    assert!(h.screen().contains("Secrets in the copy"));
    h.key("enter");
    let said = h.app.message().map(|m| m.text.clone()).unwrap_or_default();
    assert!(
        said.starts_with("Copied") && said.contains("(1 secret redacted)"),
        "{said}"
    );
}
