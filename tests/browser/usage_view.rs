//! The usage view (F3) and the spend the sessions pane shows: snapshots of
//! the charts on the demo sessions, the view following the pane's scope
//! and search, charts built on a worker, and the cost column's own spend.

use crate::support::tui as tui_common;

use piscope::tui::event::{AppEvent, Command};
use piscope::tui::harness::Harness;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::Value;
use std::path::Path;
use tui_common::{demo_copies, demo_folder};

const WIDE: (u16, u16) = (160, 44);

fn catalog(cwd: &str, size: (u16, u16)) -> (tempfile::TempDir, Harness) {
    let (dir, folder) = demo_folder(cwd);
    let h = Harness::folder(folder, size);
    (dir, h)
}

/// A file's assistant turns, by (entry id, timestamp), with their cost,
/// read with a plain JSON walk.
fn assistant_turns(path: &Path) -> Vec<((String, String), f64)> {
    std::fs::read_to_string(path)
        .expect("read")
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["type"] == "message" && e["message"]["role"] == "assistant")
        .filter_map(|e| {
            let key = (e["id"].to_string(), e["timestamp"].to_string());
            Some((key, e["message"]["usage"]["cost"]["total"].as_f64()?))
        })
        .collect()
}

fn assistant_cost(path: &Path) -> f64 {
    assistant_turns(path).iter().map(|(_, c)| c).sum()
}

#[test]
fn usage_view_per_day_project_and_model() {
    let (_d, mut h) = catalog("/home/ada/src/web-shop", WIDE);
    h.key("f3");
    screen_snapshot!("usage_days", h);
}

#[test]
fn usage_view_per_week_in_one_column() {
    let (_d, mut h) = catalog("/home/ada/src/web-shop", (90, 50));
    h.keys(&["f3", "p"]);
    screen_snapshot!("usage_weeks_narrow", h);
}

#[test]
fn usage_view_per_month() {
    let (_d, mut h) = catalog("/home/ada/src/web-shop", WIDE);
    h.keys(&["f3", "p", "p"]);
    let screen = h.screen();
    assert!(
        screen.contains("Spend per month, last 12 months"),
        "{screen}"
    );
    assert!(screen.contains("2026-01"), "{screen}");
    // Round again to days.
    h.key("p");
    assert!(h.screen().contains("Spend per day, last 30 days"));
}

/// The view adds up what the sessions pane lets through: its scope and its
/// search.
#[test]
fn usage_view_follows_the_scope_and_the_search() {
    let (_d, mut h) = catalog("/home/ada/src/web-shop", WIDE);
    h.key("f3");
    let all = h.screen();
    assert!(all.contains("Usage · all"), "{all}");
    assert!(all.contains("in 8 sessions"), "{all}");
    h.key("esc");
    h.key("ctrl+a");
    h.key("f3");
    let here = h.screen();
    assert!(here.contains("Usage · this folder"), "{here}");
    assert!(here.contains("in 4 sessions"), "{here}");
    assert!(!here.contains("~/src/compiler"), "{here}");
    // All projects again (a fresh browser: the scope after this folder is
    // the archive, which is the data folder's, not this test's).
    let (_d, mut h) = catalog("/home/ada/src/web-shop", WIDE);
    h.type_text("cart badge");
    h.key("f3");
    let searched = h.screen();
    assert!(searched.contains("matching cart badge"), "{searched}");
    // The session and its fork match.
    let listed = h.app.picker().matching_paths().len();
    assert_eq!(listed, 2);
    assert!(searched.contains("in 2 sessions"), "{searched}");
    screen_snapshot!("usage_searched", h);
}

/// F3 answers at once: the charts are asked of a worker, and the view says
/// it is adding up until they arrive. Esc goes back to the panes.
#[test]
fn usage_view_opens_without_waiting_for_the_charts() {
    let (_d, mut h) = catalog("/home/ada/src/web-shop", WIDE);
    let cmds = h.app.update(AppEvent::Key(KeyEvent::new(
        KeyCode::F(3),
        KeyModifiers::NONE,
    )));
    assert!(
        cmds.iter().any(|c| matches!(c, Command::BuildUsage(_))),
        "{cmds:?}"
    );
    let waiting = h.screen();
    assert!(waiting.contains("Adding up the usage…"), "{waiting}");
    h.key("esc");
    let back = h.screen();
    assert!(!back.contains("Usage ·"), "{back}");
    assert!(back.contains("Sessions"), "{back}");
}

/// A fork holds copies of its parent's turns: its cost column shows what
/// it spent itself ($0 until it gains turns), and the status bar's total
/// counts every turn once.
#[test]
fn the_cost_column_and_the_total_count_each_turn_once() {
    let (dir, folder) = demo_folder("/home/ada/src/web-shop");
    let files = demo_copies(&folder);
    let costly = files
        .iter()
        .max_by(|a, b| assistant_cost(a).total_cmp(&assistant_cost(b)))
        .expect("demo files")
        .clone();
    let fork = piscope::session::write::fork::fork_session(&costly, None).expect("fork");
    // Each turn once, wherever its copies are (the demo has a fork too).
    let mut seen = std::collections::HashSet::new();
    let once: f64 = files
        .iter()
        .chain([&fork])
        .flat_map(|f| assistant_turns(f))
        .filter(|(k, _)| seen.insert(k.clone()))
        .map(|(_, c)| c)
        .sum();
    let mut h = Harness::folder(folder, WIDE);
    let picker = h.app.picker();
    let summary = picker
        .sessions()
        .iter()
        .find(|s| s.path == fork)
        .expect("the fork is listed");
    assert!(summary.cost > 0.0, "the fork holds its parent's turns");
    assert_eq!(picker.cost_of(summary), 0.0);
    let spent = picker.scope_spend().expect("the usage is read");
    assert!((spent - once).abs() < 1e-9, "{spent} vs {once}");
    let screen = h.screen();
    let shown = format!("${once:.2} spent");
    assert!(screen.contains(&shown), "{shown} not in\n{screen}");
    drop(dir);
}

/// `$0.13`, `$0.004`: the browser's short cost.
fn short_cost(c: f64) -> String {
    if c <= 0.0 {
        "$0".into()
    } else if c < 0.01 {
        format!("${c:.3}")
    } else {
        format!("${c:.2}")
    }
}

/// The status bar says what the branch to the selected entry cost, and on
/// an entry with children what everything below it cost.
#[test]
fn the_status_bar_tells_a_branchs_cost() {
    let path = tui_common::big_demo();
    let entries: Vec<Value> = std::fs::read_to_string(&path)
        .expect("read")
        .lines()
        .skip(1)
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let cost = |e: &Value| {
        e["message"]["usage"]["cost"]["total"]
            .as_f64()
            .or_else(|| e["usage"]["cost"]["total"].as_f64())
            .unwrap_or(0.0)
    };
    let by_id: std::collections::HashMap<&str, &Value> = entries
        .iter()
        .filter_map(|e| Some((e["id"].as_str()?, e)))
        .collect();
    // pi resumes at the last entry: its path up to the root.
    let mut at = entries.last().and_then(|e| e["id"].as_str());
    let mut on_path = 0.0;
    while let Some(id) = at {
        let e = by_id[id];
        on_path += cost(e);
        at = e["parentId"].as_str();
    }
    let mut h = Harness::file(&path, WIDE);
    let screen = h.screen();
    let want = format!("path {}", short_cost(on_path));
    assert!(screen.contains(&want), "{want} not in\n{screen}");
    // The first entry: everything else is below it.
    h.key("home");
    let root = entries.first().expect("entries");
    let below: f64 = entries.iter().skip(1).map(cost).sum();
    let screen = h.screen();
    let want = format!("path {} ", short_cost(cost(root)));
    assert!(screen.contains(&want), "{want} not in\n{screen}");
    let want = format!("below {}", short_cost(below));
    assert!(screen.contains(&want), "{want} not in\n{screen}");
}

/// Each session's own spend, read here: files in order of their header
/// time, then path; the first to hold a turn (entry id and time) owns it.
fn own_costs(files: &[std::path::PathBuf]) -> Vec<(std::path::PathBuf, f64)> {
    let created = |p: &Path| -> String {
        let text = std::fs::read_to_string(p).expect("read");
        let header: Value =
            serde_json::from_str(text.lines().next().expect("a header")).expect("json");
        header["timestamp"].as_str().unwrap_or_default().to_string()
    };
    let mut order: Vec<&std::path::PathBuf> = files.iter().collect();
    order.sort_by_key(|p| (created(p), p.to_path_buf()));
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for p in order {
        let mut own = 0.0;
        let mut any = false;
        for (key, cost) in assistant_turns(p) {
            if seen.insert(key) {
                own += cost;
                any = true;
            }
        }
        if any {
            out.push((p.clone(), own));
        }
    }
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    out
}

/// F3's sessions page: every session the pane lists, with its own spend,
/// costliest first, titled as the list titles it; Enter opens one in the
/// panes.
#[test]
fn the_sessions_page_lists_own_spend_costliest_first_and_opens_a_session() {
    let (dir, folder) = demo_folder("/home/ada/src/web-shop");
    let want = own_costs(&demo_copies(&folder));
    let mut h = Harness::folder(folder, WIDE);
    h.keys(&["f3", "s"]);
    let view = h.app.usage_view().expect("the usage view");
    let rows = view.charts.as_ref().expect("built").by_session.clone();
    let got: Vec<&Path> = rows.iter().map(|r| r.path.as_path()).collect();
    let wanted: Vec<&Path> = want.iter().map(|(p, _)| p.as_path()).collect();
    assert_eq!(got, wanted);
    for (r, (_, cost)) in rows.iter().zip(&want) {
        assert!((r.spend.cost - cost).abs() < 1e-9, "{r:?} vs {cost}");
        let listed = h
            .app
            .picker()
            .sessions()
            .iter()
            .find(|s| s.path == r.path)
            .expect("listed");
        assert_eq!(r.title, listed.title());
        assert_eq!(r.project, listed.cwd);
        assert!(!r.deleted);
    }
    screen_snapshot!("usage_sessions", h);
    // Enter on the second opens it in the tree.
    h.keys(&["down", "enter"]);
    assert!(h.app.usage_view().is_none());
    assert_eq!(h.app.focus(), piscope::tui::look::layout::Pane::Tree);
    assert_eq!(h.app.open_path(), Some(&rows[1].path));
    let selected = h.app.picker().selected_session().expect("a session");
    assert_eq!(selected.path, rows[1].path);
    // The page follows the search: the matching sessions that spent.
    h.keys(&["esc", "esc"]);
    h.key("ctrl+a");
    h.type_text("cart badge");
    h.keys(&["f3", "s"]);
    let view = h.app.usage_view().expect("the usage view");
    let rows = &view.charts.as_ref().expect("built").by_session;
    let matching = h.app.picker().matching_paths();
    assert!(!rows.is_empty());
    assert!(rows.iter().all(|r| matching.contains(&r.path)), "{rows:?}");
    drop(dir);
}

/// A deleted session still in the trash counts in F3 while the pane lists
/// its whole scope, marked deleted; it cannot be opened, and the message
/// says how to bring it back.
#[test]
fn a_deleted_sessions_spend_stays_on_the_sessions_page() {
    use piscope::catalog::usage::{self, Removed, UsageCache};
    let (dir, folder) = demo_folder("/home/ada/src/web-shop");
    let files = demo_copies(&folder);
    let before = own_costs(&files);
    let (gone, gone_cost) = before[0].clone();
    let trash = tempfile::tempdir().expect("a trash");
    let trashed = trash.path().join("gone.jsonl");
    std::fs::rename(&gone, &trashed).expect("to the trash");
    let removed = Removed {
        file: trashed,
        original: gone.clone(),
        time_ms: 0,
        title: None,
    };
    let book = usage::load(&folder, &mut UsageCache::disabled(), &[removed]);
    let mut h = Harness::folder(folder, WIDE);
    h.send(AppEvent::UsageLoaded(std::sync::Arc::new(book)));
    h.keys(&["f3", "s"]);
    let view = h.app.usage_view().expect("the usage view");
    let charts = view.charts.as_ref().expect("built");
    let total: f64 = before.iter().map(|(_, c)| c).sum();
    assert!((charts.total.cost - total).abs() < 1e-9);
    assert!((charts.removed.cost - gone_cost).abs() < 1e-9);
    let row = &charts.by_session[0];
    assert_eq!(row.path, gone);
    assert!(row.deleted && (row.spend.cost - gone_cost).abs() < 1e-9);
    assert!(!row.title.is_empty());
    screen_snapshot!("usage_sessions_deleted", h);
    h.key("enter");
    let screen = h.screen();
    assert!(
        screen.contains("In the trash (its spend still counts): Alt+U undoes"),
        "{screen}"
    );
    assert!(h.app.usage_view().is_some());
    // A search lists only what it finds: the deleted session is not counted.
    h.keys(&["esc", "esc"]);
    h.type_text("cart badge");
    h.keys(&["f3", "s"]);
    let view = h.app.usage_view().expect("the usage view");
    let charts = view.charts.as_ref().expect("built");
    assert!(charts.by_session.iter().all(|r| !r.deleted));
    assert_eq!(charts.removed.cost, 0.0);
    drop(dir);
}
