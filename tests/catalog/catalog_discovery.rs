//! Where the sessions are: pi's precedence of `--session-dir`, the
//! environment, project and agent settings, and the default folder; which
//! files count in each layout and scope.

use piscope::catalog::discover::{FolderSource, Surroundings, project_folder_name};
use piscope::catalog::{self, Cache, Layout, LoadOptions, Scope};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

struct World {
    _tmp: tempfile::TempDir,
    home: PathBuf,
    cwd: PathBuf,
}

impl World {
    fn new() -> World {
        let tmp = tempfile::tempdir().expect("temp dir");
        let home = tmp.path().join("home");
        let cwd = home.join("src").join("app");
        std::fs::create_dir_all(&cwd).expect("mkdir");
        World {
            home,
            cwd,
            _tmp: tmp,
        }
    }

    fn surroundings(&self, flag: Option<&str>, env: &[(&str, &str)]) -> Surroundings {
        let env: HashMap<String, String> = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Surroundings {
            session_dir_flag: flag.map(str::to_string),
            cwd: self.cwd.clone(),
            home: Some(self.home.clone()),
            env: Box::new(move |k| env.get(k).cloned()),
        }
    }

    fn write(&self, path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }
}

fn locate(s: &Surroundings) -> (catalog::SessionsFolder, Vec<String>) {
    let mut problems = Vec::new();
    let f = catalog::locate(s, &mut problems);
    (f, problems.iter().map(|p| p.to_string()).collect())
}

#[test]
fn precedence_flag_env_project_agent_default() {
    let w = World::new();
    let agent = w.home.join(".pi/agent");
    let (f, p) = locate(&w.surroundings(None, &[]));
    assert_eq!(
        (f.dir.clone(), f.layout, f.source),
        (
            agent.join("sessions"),
            Layout::PerProject,
            FolderSource::Default
        )
    );
    assert!(p.is_empty());

    // The agent folder moves with PI_CODING_AGENT_DIR (`~` expanded).
    let (f, _) = locate(&w.surroundings(None, &[("PI_CODING_AGENT_DIR", "~/agent2")]));
    assert_eq!(
        (f.dir, f.layout),
        (w.home.join("agent2/sessions"), Layout::PerProject)
    );

    w.write(
        &agent.join("settings.json"),
        r#"{"theme":"dark","sessionDir":"~/from-agent"}"#,
    );
    let (f, _) = locate(&w.surroundings(None, &[]));
    assert_eq!(
        (f.dir, f.layout, f.source),
        (
            w.home.join("from-agent"),
            Layout::Flat,
            FolderSource::AgentSettings
        )
    );

    w.write(
        &w.cwd.join(".pi/settings.json"),
        r#"{"sessionDir":"/abs/from-project"}"#,
    );
    let (f, _) = locate(&w.surroundings(None, &[]));
    assert_eq!(
        (f.dir, f.source),
        (
            PathBuf::from("/abs/from-project"),
            FolderSource::ProjectSettings
        )
    );

    let (f, _) = locate(&w.surroundings(None, &[("PI_CODING_AGENT_SESSION_DIR", "~/from-env")]));
    assert_eq!(
        (f.dir, f.source),
        (w.home.join("from-env"), FolderSource::Environment)
    );

    let (f, _) = locate(&w.surroundings(
        Some("rel/dir"),
        &[("PI_CODING_AGENT_SESSION_DIR", "~/from-env")],
    ));
    assert_eq!(
        (f.dir, f.source, f.layout),
        // A relative folder stays relative, as pi prints its paths.
        (PathBuf::from("rel/dir"), FolderSource::Flag, Layout::Flat)
    );
}

#[test]
fn bad_settings_are_reported_and_skipped() {
    let w = World::new();
    w.write(&w.cwd.join(".pi/settings.json"), "{ not json");
    w.write(
        &w.home.join(".pi/agent/settings.json"),
        r#"{"sessionDir": 42}"#,
    );
    let (f, p) = locate(&w.surroundings(None, &[]));
    assert_eq!(f.source, FolderSource::Default);
    assert_eq!(p.len(), 2, "{p:?}");
    assert!(
        p[0].contains(".pi/settings.json") && p[0].contains("line 1"),
        "{p:?}"
    );
    assert!(p[1].contains("sessionDir"), "{p:?}");
}

fn header(cwd: &str) -> String {
    format!(
        "{{\"type\":\"session\",\"version\":3,\"id\":\"{}\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"{cwd}\"}}\n",
        cwd.len()
    )
}

fn paths(f: &catalog::SessionsFolder, scope: Scope) -> (Vec<String>, Vec<String>) {
    let options = LoadOptions {
        scope,
        with_text: false,
        with_usage: true,
    };
    let cat = catalog::load(f, options, &mut Cache::disabled(), &mut |_| {});
    let mut names: Vec<String> = cat
        .sessions
        .iter()
        .map(|s| {
            s.path
                .file_name()
                .expect("name")
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    (names, cat.problems.iter().map(|p| p.to_string()).collect())
}

#[test]
fn per_project_layout_scopes_and_symlinked_folders() {
    let w = World::new();
    let root = w.home.join(".pi/agent/sessions");
    let mine = root.join(project_folder_name(&w.cwd));
    w.write(&mine.join("a.jsonl"), &header(&w.cwd.to_string_lossy()));
    // The folder name decides the project, not the header's cwd.
    w.write(&mine.join("b.jsonl"), &header("/elsewhere"));
    w.write(&mine.join("notes.txt"), "not a session\n");
    w.write(&mine.join("junk.jsonl"), "{\"type\":\"message\"}\n");
    w.write(&root.join("--other--/c.jsonl"), &header("/other"));
    let linked = w.home.join("linked");
    w.write(&linked.join("d.jsonl"), &header("/linked"));
    std::os::unix::fs::symlink(&linked, root.join("--linked--")).expect("symlink");
    std::os::unix::fs::symlink(w.home.join("missing"), root.join("--dangling--")).expect("symlink");
    let (f, _) = locate(&w.surroundings(None, &[]));
    assert_eq!(paths(&f, Scope::Current).0, ["a.jsonl", "b.jsonl"]);
    let (all, problems) = paths(&f, Scope::All);
    assert_eq!(all, ["a.jsonl", "b.jsonl", "c.jsonl", "d.jsonl"]);
    assert!(problems.is_empty(), "{problems:?}");
}

#[test]
fn flat_layout_current_scope_reads_the_header_cwd() {
    let w = World::new();
    let dir = w.home.join("flat");
    w.write(&dir.join("a.jsonl"), &header(&w.cwd.to_string_lossy()));
    // Same folder written another way: pi resolves before comparing.
    w.write(
        &dir.join("b.jsonl"),
        &header(&format!("{}/./", w.cwd.to_string_lossy())),
    );
    w.write(&dir.join("c.jsonl"), &header("/other"));
    w.write(&dir.join("d.jsonl"), &header(""));
    let (f, _) = locate(&w.surroundings(Some(&dir.to_string_lossy()), &[]));
    assert_eq!(f.layout, Layout::Flat);
    assert_eq!(paths(&f, Scope::Current).0, ["a.jsonl", "b.jsonl"]);
    assert_eq!(
        paths(&f, Scope::All).0,
        ["a.jsonl", "b.jsonl", "c.jsonl", "d.jsonl"]
    );
    // A missing custom folder is reported, not fatal.
    let (f, _) = locate(&w.surroundings(Some("/no/such/folder"), &[]));
    let (names, problems) = paths(&f, Scope::All);
    assert!(names.is_empty());
    assert!(problems[0].contains("/no/such/folder"), "{problems:?}");
}
