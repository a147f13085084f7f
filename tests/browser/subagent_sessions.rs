//! Subagent sessions in the browser, written as subagent extensions write
//! them (`tests/pi/pi-subagents.mjs`, pi's own SessionManager): folded
//! under the session that started them, shown with → and its cost counting
//! theirs; and opened from the parent's tool call that started each.

use crate::support as common;

use piscope::catalog::discover::FolderSource;
use piscope::catalog::{Layout, SessionsFolder};
use piscope::tui::harness::Harness;
use std::path::PathBuf;

const WIDE: (u16, u16) = (120, 16);

/// The screen with entry ids (eight hex digits, new on every run) masked.
fn screen(h: &mut Harness) -> String {
    h.screen()
        .split(' ')
        .map(|w| {
            if w.len() == 8 && w.bytes().all(|b| b.is_ascii_hexdigit()) {
                "########"
            } else {
                w
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn message(h: &Harness) -> String {
    h.app.message().map(|m| m.text.clone()).unwrap_or_default()
}

#[test]
fn children_fold_under_their_parent_and_open_from_its_tool_calls() {
    if !common::have_node() {
        return;
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let agent = tmp.path().join("agent");
    let (parent, children) = common::pi_subagents(&agent, "toolCallId");
    let folder = SessionsFolder {
        dir: agent.join("sessions"),
        layout: Layout::PerProject,
        source: FolderSource::Default,
        cwd: PathBuf::from("/home/ada/src/parser"),
    };
    let mut h = Harness::folder(folder, WIDE);
    // Folded: the parent marked with its six children (five outside pi's
    // list, one in it), its cost with theirs ($0.09 + $1.70); the user's
    // two forks where pi's threaded list puts them.
    let folded = h.screen();
    assert!(!folded.contains("scan the lexer"), "{folded}");
    assert!(!folded.contains("write the plan down"), "{folded}");
    assert!(folded.contains("└─ Survey the parser"), "{folded}");
    assert!(folded.contains("├─ start over"), "{folded}");
    // A child whose parent cannot be told is listed in its own project.
    assert!(folded.contains("a task of unknown origin"), "{folded}");
    insta::assert_snapshot!("subagents_folded", screen(&mut h));
    h.key("right");
    let shown = h.screen();
    for task in [
        "scan the lexer",
        "scan the grammar",
        "find the tests",
        "review the plan",
        "write the plan down",
    ] {
        assert!(
            shown.contains(&format!("↳ {task}")),
            "{task} under its parent:\n{shown}"
        );
    }
    insta::assert_snapshot!("subagents_shown", screen(&mut h));
    h.key("left");
    assert!(!h.screen().contains("scan the lexer"), "folded again");

    // From each tool call in the parent's tree (rows 2 to 6 under the
    // default filter), the session it started; back in the list, ← on the
    // child folds its parent's children and selects the parent again.
    assert_eq!(h.app.open_path(), Some(&parent));
    let calls = [
        ("toolu_nested", &children[0].0, 2),
        ("toolu_fork", &children[2].0, 1),
        ("toolu_agent_flat", &children[3].0, 1),
        ("toolu_agent_by_id", &children[4].0, 1),
        ("toolu_top", &children[5].0, 1),
    ];
    for (row, (call, want, started)) in calls.into_iter().enumerate() {
        h.key("tab");
        h.key("home");
        for _ in 0..row + 2 {
            h.key("down");
        }
        h.key("alt+s");
        assert_eq!(h.app.open_path(), Some(want), "{call}: {}", message(&h));
        let said = message(&h);
        assert!(said.starts_with("Opened the subagent session"), "{said}");
        assert_eq!(
            said.contains(&format!("1 of {started}")),
            started > 1,
            "{said}"
        );
        h.key("esc");
        if row == 0 {
            insta::assert_snapshot!("subagent_opened_from_its_call", screen(&mut h));
        }
        h.key("left");
        assert_eq!(
            h.app.open_path(),
            Some(&parent),
            "{call}: back on the parent"
        );
    }
    // On an entry that is no tool call, the key says so.
    h.key("tab");
    h.key("home");
    h.key("alt+s");
    assert_eq!(h.app.open_path(), Some(&parent));
    assert!(
        message(&h).starts_with("Not a tool call"),
        "{}",
        message(&h)
    );
    // A search finds a child as it finds any session.
    h.key("esc");
    h.type_text("plan down");
    let found = h.screen();
    assert!(found.contains("> plan down"), "{found}");
    assert!(found.contains("write the plan down"), "{found}");
}
