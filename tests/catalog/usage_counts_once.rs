//! `piscope stats` on corpora pi's own code wrote (forks, clones,
//! compactions, branch summaries, usage entries), against totals this test
//! computes itself with a plain JSON walk, and against the `@ccusage/pi`
//! package's daily report (assistant turns, per day and per model).

use crate::support as common;

use common::{have_node, node, pi_reference, repo, session_files};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The package version the cross-check installs (later releases need a
/// native binary not published for every platform).
const CCUSAGE_VERSION: &str = "18.0.11";

/// A pi-written corpus in pi's per-project layout under `out/sessions`:
/// three runs of pi's generator (several days, forks by
/// `createBranchedSession`), then clones made by pi's `forkFrom`: one into
/// the same project, one into another project, and a clone of that clone.
fn pi_corpus(out: &Path) -> Vec<PathBuf> {
    for seed in [21, 22, 23] {
        crate::support::pi_corpus(out, seed, 14, 30);
    }
    let mut files = session_files(&out.join("sessions"));
    // The biggest files make the clones.
    files.sort_by_key(|f| std::cmp::Reverse(std::fs::metadata(f).map(|m| m.len()).unwrap_or(0)));
    let first = pi_clone(&files[0], "/home/ada/src/compiler", out);
    let other = pi_clone(&files[1], "/home/ada/elsewhere", out);
    pi_clone(&other, "/home/ada/elsewhere", out);
    assert!(first.exists());
    session_files(&out.join("sessions"))
}

fn pi_clone(src: &Path, cwd: &str, out: &Path) -> PathBuf {
    let dir = out.join("sessions").join(format!(
        "--{}--",
        cwd.trim_start_matches('/').replace('/', "-")
    ));
    let o = node(&repo().join("tests/pi/pi-clone.mjs"))
        .args([&src.to_string_lossy(), cwd, &dir.to_string_lossy()])
        .output()
        .expect("clone with pi");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    PathBuf::from(String::from_utf8_lossy(&o.stdout).trim())
}

/// One usage record as this test reads it.
#[derive(Debug, Clone)]
struct Rec {
    key: String,
    day: String,
    model: String,
    assistant: bool,
    parts: [f64; 4],
    cost: f64,
    entry: Option<String>,
}

#[derive(Debug)]
struct File {
    path: PathBuf,
    cwd: String,
    created: String,
    records: Vec<Rec>,
    /// The ids on the branch from the last entry to the root.
    on_branch: HashSet<String>,
}

fn num(v: &Value, k: &str) -> f64 {
    v.get(k).and_then(Value::as_f64).unwrap_or(0.0)
}

/// The walk: every line parsed as JSON; usage where pi writes it.
fn walk(path: &Path) -> File {
    let text = std::fs::read_to_string(path).expect("read");
    let mut lines = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok());
    let header = lines.next().expect("a header");
    assert_eq!(header["type"], "session");
    let mut f = File {
        path: path.to_path_buf(),
        cwd: header["cwd"].as_str().unwrap_or_default().to_string(),
        created: header["timestamp"].as_str().unwrap_or_default().to_string(),
        records: Vec::new(),
        on_branch: HashSet::new(),
    };
    let mut parent: HashMap<String, Option<String>> = HashMap::new();
    let mut last = None;
    let mut model = String::from("(unknown)");
    for e in lines {
        let id = e["id"].as_str().map(str::to_string);
        if let Some(id) = &id {
            parent.insert(id.clone(), e["parentId"].as_str().map(str::to_string));
            last = Some(id.clone());
        }
        let ts = e["timestamp"].as_str().unwrap_or_default().to_string();
        let mut push = |u: &Value, model: &str, assistant: bool| {
            let parts = [
                num(u, "input"),
                num(u, "output"),
                num(u, "cacheRead"),
                num(u, "cacheWrite"),
            ];
            let tokens = u["totalTokens"]
                .as_f64()
                .unwrap_or_else(|| parts.iter().sum());
            f.records.push(Rec {
                key: format!("{}|{ts}|{tokens}", id.as_deref().unwrap_or("")),
                day: ts.get(..10).unwrap_or("(no date)").to_string(),
                model: model.to_string(),
                assistant,
                parts,
                cost: u["cost"]["total"].as_f64().unwrap_or(0.0),
                entry: id.clone(),
            });
        };
        let kind = e["type"].as_str().unwrap_or_default();
        if kind == "model_change" {
            if let Some(m) = e["modelId"].as_str() {
                model = m.to_string();
            }
        }
        if e["usage"].is_object() {
            let m = match kind {
                "usage" => e["model"].as_str().unwrap_or("(unknown)").to_string(),
                _ => model.clone(),
            };
            push(&e["usage"], &m, false);
        }
        let m = &e["message"];
        if kind == "message" && m["role"] == "assistant" {
            if let Some(name) = m["model"].as_str() {
                model = name.to_string();
            }
            if m["usage"].is_object() {
                push(
                    &m["usage"],
                    m["model"].as_str().unwrap_or("(unknown)"),
                    true,
                );
            }
        }
    }
    let mut at = last;
    while let Some(id) = at {
        if !f.on_branch.insert(id.clone()) {
            break;
        }
        at = parent.get(&id).cloned().flatten();
    }
    f
}

/// Sums per group of what each file owns: the earliest file (header time,
/// then path) holding a key owns it.
#[derive(Debug, Default, Clone, PartialEq)]
struct Sums {
    parts: [f64; 4],
    cost: f64,
    assistant: [f64; 4],
    assistant_cost: f64,
    turns: u64,
    abandoned_cost: f64,
    inherited_cost: f64,
}

fn expected(files: &[File], group: &dyn Fn(&File, &Rec) -> String) -> BTreeMap<String, Sums> {
    let mut order: Vec<&File> = files.iter().collect();
    order.sort_by(|a, b| (&a.created, &a.path).cmp(&(&b.created, &b.path)));
    let mut seen = HashSet::new();
    let mut out: BTreeMap<String, Sums> = BTreeMap::new();
    for f in order {
        for r in &f.records {
            let s = out.entry(group(f, r)).or_default();
            if !seen.insert(r.key.clone()) {
                s.inherited_cost += r.cost;
                continue;
            }
            for k in 0..4 {
                s.parts[k] += r.parts[k];
            }
            s.cost += r.cost;
            if r.assistant {
                for k in 0..4 {
                    s.assistant[k] += r.parts[k];
                }
                s.assistant_cost += r.cost;
                s.turns += 1;
            }
            if r.entry.as_ref().is_some_and(|e| !f.on_branch.contains(e)) {
                s.abandoned_cost += r.cost;
            }
        }
    }
    out.retain(|_, s| *s != Sums::default());
    out
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

fn stats(agent_dir: &Path, cache: &Path, cwd: &Path, args: &[&str]) -> Value {
    let o = Command::new(env!("CARGO_BIN_EXE_piscope"))
        .arg("stats")
        .args(args)
        .arg("--json")
        .env("PI_CODING_AGENT_DIR", agent_dir)
        .env_remove("PI_CODING_AGENT_SESSION_DIR")
        .env("XDG_CACHE_HOME", cache)
        // piscope's journal and the trash: the test's own.
        .env("XDG_DATA_HOME", cache.with_file_name("data"))
        .current_dir(cwd)
        .output()
        .expect("run piscope stats");
    assert!(
        o.status.success(),
        "stats {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).expect("stats JSON")
}

const FIVE: [&str; 4] = ["input", "output", "cacheRead", "cacheWrite"];

fn check_group(what: &str, got: &Value, want: &Sums) {
    for (k, name) in FIVE.iter().enumerate() {
        assert_eq!(
            got[name].as_f64(),
            Some(want.parts[k]),
            "{what} {name}: {got}"
        );
        assert_eq!(
            got["assistant"][name].as_f64(),
            Some(want.assistant[k]),
            "{what} assistant {name}"
        );
    }
    let cost = got["cost"].as_f64().expect("cost");
    assert!(
        close(cost, want.cost),
        "{what} cost {cost} != {}",
        want.cost
    );
    let a = got["assistant"]["cost"].as_f64().expect("cost");
    assert!(close(a, want.assistant_cost), "{what} assistant cost {a}");
    assert_eq!(
        got["records"]["assistant"].as_u64(),
        Some(want.turns),
        "{what}"
    );
    let ab = got["abandoned"]["cost"].as_f64().expect("abandoned");
    assert!(
        close(ab, want.abandoned_cost),
        "{what} abandoned {ab} != {}",
        want.abandoned_cost
    );
    let inh = got["inherited"]["cost"].as_f64().expect("inherited");
    assert!(
        close(inh, want.inherited_cost),
        "{what} inherited {inh} != {}",
        want.inherited_cost
    );
}

fn check(report: &Value, want: &BTreeMap<String, Sums>, what: &str) {
    let groups = report["groups"].as_array().expect("groups");
    let got: BTreeMap<String, &Value> = groups
        .iter()
        .map(|g| (g["key"].as_str().expect("key").to_string(), g))
        .collect();
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>(),
        "{what}: the groups"
    );
    let mut total = Sums::default();
    for (k, w) in want {
        check_group(&format!("{what} {k}"), got[k], w);
        for i in 0..4 {
            total.parts[i] += w.parts[i];
            total.assistant[i] += w.assistant[i];
        }
        total.cost += w.cost;
        total.assistant_cost += w.assistant_cost;
        total.turns += w.turns;
        total.abandoned_cost += w.abandoned_cost;
        total.inherited_cost += w.inherited_cost;
    }
    check_group(&format!("{what} total"), &report["total"], &total);
}

#[test]
fn every_total_counts_each_entry_once() {
    if !have_node() {
        return;
    }
    pi_reference();
    let tmp = tempfile::tempdir().expect("temp dir");
    let files: Vec<File> = pi_corpus(tmp.path()).iter().map(|f| walk(f)).collect();
    // The corpus has what the rule is about: copies, abandoned branches,
    // summaries with usage, several days and models.
    let naive: f64 = files.iter().flat_map(|f| &f.records).map(|r| r.cost).sum();
    let by_day = expected(&files, &|_, r| r.day.clone());
    let own: f64 = by_day.values().map(|s| s.cost).sum();
    assert!(
        naive > own + 1.0,
        "no copies in the corpus: {naive} vs {own}"
    );
    assert!(by_day.len() >= 3, "days: {:?}", by_day.keys());
    assert!(by_day.values().any(|s| s.abandoned_cost > 0.0));
    assert!(files.iter().flat_map(|f| &f.records).any(|r| !r.assistant));
    let cache = tmp.path().join("cache");
    let cwd = tmp.path();
    for round in ["cold", "warm"] {
        let by = |g: &str| stats(cwd, &cache, cwd, &["--all", "--by", g]);
        check(&by("day"), &by_day, &format!("{round} by day"));
        let by_model = expected(&files, &|_, r| r.model.clone());
        check(&by("model"), &by_model, &format!("{round} by model"));
        let by_project = expected(&files, &|f, _| f.cwd.clone());
        check(&by("project"), &by_project, &format!("{round} by project"));
        let by_session = expected(&files, &|f, _| f.path.display().to_string());
        check(&by("session"), &by_session, &format!("{round} by session"));
        let by_month = expected(&files, &|_, r| r.day[..7].to_string());
        check(&by("month"), &by_month, &format!("{round} by month"));
    }
    // A day range keeps whole days.
    let days: Vec<&String> = by_day.keys().collect();
    let (since, until) = (days[1].as_str(), days[days.len() - 2].as_str());
    let mut inside = by_day.clone();
    inside.retain(|k, _| k.as_str() >= since && k.as_str() <= until);
    let ranged = stats(
        cwd,
        &cache,
        cwd,
        &["--all", "--since", since, "--until", until],
    );
    check(&ranged, &inside, "a range");
    // The cache keeps who owned what for this set of files only: with the
    // first holder of a copied turn gone, the copy owns it.
    let mut order: Vec<usize> = (0..files.len()).collect();
    order.sort_by(|&a, &b| {
        let (a, b) = (&files[a], &files[b]);
        (&a.created, &a.path).cmp(&(&b.created, &b.path))
    });
    let copied = |f: &File| {
        files.iter().any(|o| {
            o.path != f.path
                && o.records
                    .iter()
                    .any(|r| f.records.iter().any(|m| m.key == r.key))
        })
    };
    let first = *order
        .iter()
        .find(|&&i| copied(&files[i]))
        .expect("a session whose turns were copied");
    std::fs::remove_file(&files[first].path).expect("remove the original");
    let rest: Vec<File> = files
        .into_iter()
        .enumerate()
        .filter_map(|(i, f)| (i != first).then_some(f))
        .collect();
    let by_session = expected(&rest, &|f, _| f.path.display().to_string());
    let after = stats(cwd, &cache, cwd, &["--all", "--by", "session"]);
    check(&after, &by_session, "the original gone");
    // A turn appended to one session (as pi appends it) counts at once: the
    // book kept for the files as they were is not taken for them now.
    let grown = &rest[0].path;
    let text = std::fs::read_to_string(grown).expect("read");
    let entries: Vec<Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .collect();
    let mut turn = entries
        .iter()
        .rfind(|e| e["message"]["role"] == "assistant" && e["message"]["usage"].is_object())
        .expect("an assistant turn with usage")
        .clone();
    let leaf = entries
        .iter()
        .rev()
        .find_map(|e| e["id"].as_str().map(str::to_string))
        .expect("an entry with an id");
    turn["id"] = "appended1".into();
    turn["parentId"] = leaf.into();
    turn["timestamp"] = "2027-03-04T05:06:07.000Z".into();
    turn["message"]["usage"]["cost"]["total"] = 1234.5.into();
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(grown)
        .expect("open to append");
    std::io::Write::write_all(&mut f, format!("{turn}\n").as_bytes()).expect("append");
    let rest: Vec<File> = rest.iter().map(|f| walk(&f.path)).collect();
    let by_day = expected(&rest, &|_, r| r.day.clone());
    assert!(by_day.contains_key("2027-03-04"));
    let by = |g: &str| stats(cwd, &cache, cwd, &["--all", "--by", g]);
    check(&by("day"), &by_day, "a turn appended");
    let by_session = expected(&rest, &|f, _| f.path.display().to_string());
    check(&by("session"), &by_session, "a turn appended, per session");
}

/// The current folder's stats are its sessions' own spend: a clone made
/// there from another project owns nothing until it gains entries of its own.
#[test]
fn the_current_folder_counts_its_own_spend() {
    if !have_node() {
        return;
    }
    pi_reference();
    let tmp = tempfile::tempdir().expect("temp dir");
    let files = pi_corpus(tmp.path());
    let here = tmp.path().join("here");
    std::fs::create_dir_all(&here).expect("mkdir");
    let here = here.canonicalize().expect("canonical");
    let cache = tmp.path().join("cache");
    let clone = pi_clone(&files[0], &here.to_string_lossy(), tmp.path());
    let report = stats(tmp.path(), &cache, &here, &[]);
    // Its days are listed with what it holds, but it owns none of it.
    for g in report["groups"].as_array().expect("groups") {
        assert_eq!(g["cost"].as_f64(), Some(0.0), "{report}");
        assert_eq!(g["records"]["assistant"].as_u64(), Some(0), "{report}");
    }
    assert_eq!(report["total"]["cost"].as_f64(), Some(0.0));
    assert_eq!(report["total"]["input"].as_f64(), Some(0.0));
    let inherited = report["total"]["inherited"]["cost"].as_f64().unwrap_or(0.0);
    assert!(inherited > 0.01, "{report}");
    // `piscope ls` says the same: the clone's cost column is its own spend,
    // whatever its file holds, with and without the cache.
    for cached in [true, false] {
        let mut ls = Command::new(env!("CARGO_BIN_EXE_piscope"));
        ls.arg("ls")
            .env("PI_CODING_AGENT_DIR", tmp.path())
            .env_remove("PI_CODING_AGENT_SESSION_DIR")
            .env("XDG_CACHE_HOME", &cache)
            .current_dir(&here);
        if !cached {
            ls.arg("--no-cache");
        }
        let o = ls.output().expect("run piscope ls");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let table = String::from_utf8_lossy(&o.stdout).to_string();
        let rows: Vec<&str> = table.lines().skip(1).collect();
        assert_eq!(rows.len(), 1, "{table}");
        assert!(rows[0].trim_end().ends_with("$0.00"), "{table}");
    }
    // pi appends two turns (one assistant message with usage): now it owns them.
    let o = node(&repo().join("tests/pi/pi-appender.mjs"))
        .args(["append", &clone.to_string_lossy(), "2"])
        .output()
        .expect("append with pi");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report = stats(tmp.path(), &cache, &here, &["--by", "session"]);
    let groups = report["groups"].as_array().expect("groups");
    assert_eq!(groups.len(), 1, "{report}");
    assert_eq!(groups[0]["key"].as_str(), Some(&*clone.to_string_lossy()));
    assert_eq!(groups[0]["input"].as_f64(), Some(1.0));
    assert_eq!(groups[0]["records"]["assistant"].as_u64(), Some(1));
    assert!(close(groups[0]["cost"].as_f64().unwrap_or(0.0), 0.001));
}

/// Runs a housekeeping command with the test's trash and journal.
fn housekeep(tmp: &Path, args: &[&str]) {
    let o = Command::new(env!("CARGO_BIN_EXE_piscope"))
        .args(args)
        .env("PI_CODING_AGENT_DIR", tmp)
        .env_remove("PI_CODING_AGENT_SESSION_DIR")
        .env("XDG_CACHE_HOME", tmp.join("cache"))
        .env("XDG_DATA_HOME", tmp.join("data"))
        .env("HOME", tmp)
        .current_dir(tmp)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run piscope");
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// The first entry of an abandoned branch of `f` that holds a turn only `f`
/// holds (its parent on the branch pi resumes on): what a prune removes.
fn prunable(f: &File, files: &[File]) -> Option<String> {
    let text = std::fs::read_to_string(&f.path).expect("read");
    let parent: HashMap<String, Option<String>> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|e| {
            let id = e["id"].as_str()?.to_string();
            Some((id, e["parentId"].as_str().map(str::to_string)))
        })
        .collect();
    let elsewhere = |key: &str| {
        files
            .iter()
            .any(|o| o.path != f.path && o.records.iter().any(|r| r.key == key))
    };
    let r = f.records.iter().find(|r| {
        r.cost > 0.0
            && !elsewhere(&r.key)
            && r.entry.as_ref().is_some_and(|e| !f.on_branch.contains(e))
    })?;
    let mut at = r.entry.clone()?;
    while let Some(Some(up)) = parent.get(&at) {
        if f.on_branch.contains(up) {
            return Some(at);
        }
        at = up.clone();
    }
    None
}

/// Sums per session as the rule counts them with files in the trash: the
/// files in the folder own first, then those in the trash; a file in the
/// trash is grouped under the path it lived at, its owned spend also
/// counted apart as removed.
fn expected_with_trash(live: &[File], trash: &[(File, PathBuf)]) -> BTreeMap<String, (f64, f64)> {
    let mut order: Vec<&File> = live.iter().collect();
    order.sort_by(|a, b| (&a.created, &a.path).cmp(&(&b.created, &b.path)));
    let mut seen = HashSet::new();
    let mut out: BTreeMap<String, (f64, f64)> = BTreeMap::new();
    for f in order {
        for r in &f.records {
            if seen.insert(r.key.clone()) {
                out.entry(f.path.display().to_string()).or_default().0 += r.cost;
            }
        }
    }
    for (f, lived) in trash {
        for r in &f.records {
            if seen.insert(r.key.clone()) {
                let s = out.entry(lived.display().to_string()).or_default();
                s.0 += r.cost;
                s.1 += r.cost;
            }
        }
    }
    out.retain(|_, s| s.0 != 0.0);
    out
}

/// Money spent stays spent: the turns a prune or a delete gave to the
/// trash stay counted, marked removed, while the trash holds them; undo
/// puts everything back as it was, and `--exclude-removed` leaves them out.
#[test]
fn spend_stays_after_a_prune_and_a_delete_while_the_trash_holds_them() {
    if !have_node() {
        return;
    }
    pi_reference();
    let tmp = tempfile::tempdir().expect("temp dir");
    let root = tmp.path();
    crate::support::pi_corpus(root, 41, 12, 30);
    let paths = session_files(&root.join("sessions"));
    let files: Vec<File> = paths.iter().map(|p| walk(p)).collect();
    let cache = root.join("cache");
    let by_session = |args: &[&str]| {
        let mut all = vec!["--all", "--by", "session"];
        all.extend_from_slice(args);
        stats(root, &cache, root, &all)
    };
    let before = by_session(&[]);
    let total = |r: &Value| r["total"]["cost"].as_f64().expect("total cost");
    // The sessions' titles and projects, as `ls --json` lists them.
    let listed = crate::support::ls_json(root, &[]);
    let title_of = |path: &Path| -> String {
        let s = listed
            .as_array()
            .expect("a list")
            .iter()
            .find(|s| s["path"].as_str() == Some(&*path.to_string_lossy()))
            .expect("listed");
        s["name"]
            .as_str()
            .or(s["firstMessage"].as_str())
            .expect("a title")
            .to_string()
    };
    for g in before["groups"].as_array().expect("groups") {
        let path = Path::new(g["key"].as_str().expect("key"));
        assert_eq!(g["path"], g["key"]);
        assert_eq!(g["title"].as_str(), Some(&*title_of(path)), "{g}");
        let f = files.iter().find(|f| f.path == path).expect("a file");
        assert_eq!(g["project"].as_str(), Some(&*f.cwd));
        assert_eq!(g["deleted"], false);
        assert_eq!(g["removed"]["cost"].as_f64(), Some(0.0));
    }

    // Prune an abandoned branch of one session, delete another.
    let (pruned, entry) = files
        .iter()
        .find_map(|f| prunable(f, &files).map(|e| (f, e)))
        .expect("a session with an abandoned branch of its own");
    let deleted = files
        .iter()
        .filter(|f| f.path != pruned.path && f.records.iter().any(|r| r.cost > 0.0))
        .max_by_key(|f| f.records.len())
        .expect("a session to delete");
    let deleted_title = title_of(&deleted.path);
    let prune_cost = by_session(&[])["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .find(|g| g["key"].as_str() == Some(&*pruned.path.to_string_lossy()))
        .and_then(|g| g["cost"].as_f64())
        .expect("the pruned session's cost");
    housekeep(
        root,
        &["prune", &pruned.path.to_string_lossy(), &entry, "--yes"],
    );
    housekeep(root, &["rm", &deleted.path.to_string_lossy(), "--yes"]);
    assert!(!deleted.path.exists());
    let pruned_now = walk(&pruned.path);
    assert!(pruned_now.records.len() < pruned.records.len());

    // What the trash holds, read here, under where each file lived.
    let trash_dir = root.join("data/Trash/files");
    let mut trash: Vec<(File, PathBuf)> = Vec::new();
    for item in std::fs::read_dir(&trash_dir).expect("the trash") {
        let file = item.expect("an item").path();
        let f = walk(&file);
        let lived = [pruned, deleted]
            .into_iter()
            .find(|o| o.created == f.created && o.cwd == f.cwd)
            .expect("a trashed session of the two")
            .path
            .clone();
        trash.push((f, lived));
    }
    assert_eq!(
        trash.len(),
        2,
        "the pruned original and the deleted session"
    );
    trash.sort_by(|a, b| (&a.0.created, &a.1).cmp(&(&b.0.created, &b.1)));
    let live: Vec<File> = session_files(&root.join("sessions"))
        .iter()
        .map(|p| walk(p))
        .collect();
    let want = expected_with_trash(&live, &trash);
    for round in ["cold", "warm"] {
        let after = by_session(&[]);
        assert!(
            close(total(&after), total(&before)),
            "{round}: money spent stays spent: {} then {}",
            total(&before),
            total(&after)
        );
        let groups = after["groups"].as_array().expect("groups");
        let got: BTreeMap<String, (f64, f64)> = groups
            .iter()
            .map(|g| {
                let cost = |v: &Value| v.as_f64().expect("a cost");
                let key = g["key"].as_str().expect("key").to_string();
                (key, (cost(&g["cost"]), cost(&g["removed"]["cost"])))
            })
            // A fork that owns nothing is listed for what it holds.
            .filter(|(_, (cost, _))| *cost != 0.0)
            .collect();
        assert_eq!(
            got.keys().collect::<Vec<_>>(),
            want.keys().collect::<Vec<_>>()
        );
        for (k, (cost, removed)) in &want {
            assert!(
                close(got[k].0, *cost) && close(got[k].1, *removed),
                "{round} {k}: {:?} vs {cost} {removed}",
                got[k]
            );
        }
        // The pruned session kept its spend, part of it now removed.
        let p = &got[&pruned.path.display().to_string()];
        assert!(close(p.0, prune_cost) && p.1 > 0.0, "{p:?} vs {prune_cost}");
        let d = groups
            .iter()
            .find(|g| g["key"].as_str() == Some(&*deleted.path.to_string_lossy()))
            .expect("the deleted session, still counted");
        assert_eq!(d["deleted"], true);
        assert_eq!(d["title"].as_str(), Some(&*deleted_title));
        assert_eq!(d["project"].as_str(), Some(&*deleted.cwd));
        assert!(close(
            d["removed"]["cost"].as_f64().unwrap_or(0.0),
            d["cost"].as_f64().unwrap_or(1.0)
        ));
        assert!(total(&after) > 0.0 && after["total"]["removed"]["cost"].as_f64() > Some(0.0));
        // The table says so too.
        let o = Command::new(env!("CARGO_BIN_EXE_piscope"))
            .args(["stats", "--all", "--by", "session"])
            .env("PI_CODING_AGENT_DIR", root)
            .env_remove("PI_CODING_AGENT_SESSION_DIR")
            .env("XDG_CACHE_HOME", &cache)
            .env("XDG_DATA_HOME", root.join("data"))
            .current_dir(root)
            .output()
            .expect("stats as a table");
        let table = String::from_utf8_lossy(&o.stdout);
        assert!(table.contains("(deleted) "), "{table}");
        assert!(
            table.contains("removed by deletes and prunes, still in the trash"),
            "{table}"
        );
    }
    // Left out on request: what the folder's files own, as before.
    let without = by_session(&["--exclude-removed"]);
    let live_only = expected(&live, &|f, _| f.path.display().to_string());
    let live_total: f64 = live_only.values().map(|s| s.cost).sum();
    assert!(
        close(total(&without), live_total),
        "{} vs {live_total}",
        total(&without)
    );
    assert!(total(&without) < total(&before));
    assert_eq!(without["total"]["removed"]["cost"].as_f64(), Some(0.0));

    // Undo both: everything as it was, nothing removed.
    housekeep(root, &["restore", "--last"]);
    housekeep(root, &["restore", "--last"]);
    let again = by_session(&[]);
    assert!(close(total(&again), total(&before)));
    assert_eq!(again["total"]["removed"]["cost"].as_f64(), Some(0.0));
    check(
        &again,
        &expected(&files, &|f, _| f.path.display().to_string()),
        "restored",
    );
}

/// Where `scripts/test` and this test install the package.
fn ccusage() -> PathBuf {
    let dir = repo().join("target/ccusage");
    let pkg = dir.join("node_modules/@ccusage/pi/package.json");
    let installed = std::fs::read_to_string(&pkg)
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .is_some_and(|p| p["version"] == CCUSAGE_VERSION);
    if !installed {
        let status = common::tools::npm_command()
            .unwrap_or_else(|| {
                panic!(
                    "@ccusage/pi is not in {} and npm, which installs it, is missing: \
                     run scripts/test",
                    dir.display()
                )
            })
            .args(["install", "--prefix", &dir.to_string_lossy()])
            .args(["--no-audit", "--no-fund", "--loglevel=error"])
            .arg(format!("@ccusage/pi@{CCUSAGE_VERSION}"))
            .status()
            .expect("run npm");
        assert!(
            status.success(),
            "installing @ccusage/pi@{CCUSAGE_VERSION} failed"
        );
    }
    dir.join("node_modules/@ccusage/pi/dist/index.js")
}

/// For assistant turns, per day and per model, piscope's totals are
/// ccusage's (it dedupes copies by entry time and token total; piscope by
/// id, time and token total: the same on files pi writes).
#[test]
fn assistant_totals_match_ccusage_per_day_and_model() {
    if !have_node() {
        return;
    }
    pi_reference();
    let script = ccusage();
    let tmp = tempfile::tempdir().expect("temp dir");
    pi_corpus(tmp.path());
    let o = common::tools::node_command()
        .arg(&script)
        .args(["daily", "--json", "-b", "-z", "UTC", "--piPath"])
        .arg(tmp.path().join("sessions"))
        .output()
        .expect("run ccusage");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let theirs: Value = serde_json::from_slice(&o.stdout).expect("ccusage JSON");
    let cache = tmp.path().join("cache");
    let ours_day = stats(tmp.path(), &cache, tmp.path(), &["--all", "--by", "day"]);
    let ours_model = stats(tmp.path(), &cache, tmp.path(), &["--all", "--by", "model"]);
    let fields = [
        ("inputTokens", "input"),
        ("outputTokens", "output"),
        ("cacheReadTokens", "cacheRead"),
        ("cacheCreationTokens", "cacheWrite"),
    ];
    let ours = |r: &Value| -> BTreeMap<String, Value> {
        r["groups"]
            .as_array()
            .expect("groups")
            .iter()
            .filter(|g| g["records"]["assistant"].as_u64() > Some(0))
            .map(|g| {
                (
                    g["key"].as_str().expect("key").to_string(),
                    g["assistant"].clone(),
                )
            })
            .collect()
    };
    let days = theirs["daily"].as_array().expect("daily");
    let ours_days = ours(&ours_day);
    assert_eq!(
        days.iter()
            .map(|d| d["date"].as_str().unwrap_or(""))
            .collect::<HashSet<_>>(),
        ours_days.keys().map(String::as_str).collect::<HashSet<_>>(),
        "the days"
    );
    assert!(days.len() >= 3);
    let mut models: BTreeMap<String, [f64; 5]> = BTreeMap::new();
    for d in days {
        let date = d["date"].as_str().expect("date");
        let ours = &ours_days[date];
        for (t, o) in fields {
            assert_eq!(d[t].as_f64(), ours[o].as_f64(), "{date} {t}");
        }
        let (c, oc) = (
            d["totalCost"].as_f64().expect("cost"),
            ours["cost"].as_f64().expect("cost"),
        );
        assert!(close(c, oc), "{date} cost {c} vs {oc}");
        for m in d["modelBreakdowns"].as_array().expect("breakdowns") {
            let name = m["modelName"].as_str().expect("model");
            let name = name.strip_prefix("[pi] ").unwrap_or(name).to_string();
            let sum = models.entry(name).or_default();
            for (k, (t, _)) in fields.iter().enumerate() {
                sum[k] += m[t].as_f64().unwrap_or(0.0);
            }
            sum[4] += m["cost"].as_f64().unwrap_or(0.0);
        }
    }
    let ours_models = ours(&ours_model);
    assert_eq!(
        models.keys().collect::<Vec<_>>(),
        ours_models.keys().collect::<Vec<_>>(),
        "the models"
    );
    assert!(models.len() >= 2);
    for (name, sum) in &models {
        let ours = &ours_models[name];
        for (k, (_, o)) in fields.iter().enumerate() {
            assert_eq!(Some(sum[k]), ours[o].as_f64(), "{name} {o}");
        }
        assert!(
            close(sum[4], ours["cost"].as_f64().unwrap_or(f64::NAN)),
            "{name} cost"
        );
    }
}
