//! A FIFO, socket, device or folder where a session file (or the cache)
//! should be is never read: a read of a FIFO blocks for ever. The listing
//! and the browser name each one and go on; every command given one fails
//! at once with one line naming it.
#![cfg(unix)]

use piscope::catalog::discover::{FolderSource, project_folder_name};
use piscope::catalog::{Layout, SessionsFolder};
use piscope::tui::harness::Harness;
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Long enough for a debug build on a busy machine; a hang never ends.
const DEADLINE: Duration = Duration::from_secs(30);

fn corpus_file() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(
        "tests/data/golden/corpus/sessions/--home-ada-notes--/2026-01-11T06-48-34-376Z_019babd0-4f48-76fa-aaa6-a341050aac46.jsonl",
    )
}

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).expect("path");
    // SAFETY: a valid NUL-terminated path.
    let rc = unsafe { libc::mkfifo(c.as_ptr(), 0o600) };
    assert_eq!(rc, 0, "mkfifo {}", path.display());
}

/// A pi agent folder whose one project (the folder the commands run in)
/// holds a session, a FIFO, a socket and a folder, each named `*.jsonl`.
struct World {
    _tmp: tempfile::TempDir,
    home: PathBuf,
    agent: PathBuf,
    cwd: PathBuf,
    session: PathBuf,
    fifo: PathBuf,
    socket: PathBuf,
    folder: PathBuf,
    _listener: UnixListener,
}

fn world() -> World {
    let tmp = tempfile::tempdir().expect("temp dir");
    let root = tmp.path().canonicalize().expect("canonical");
    let home = root.join("home");
    let cwd = root.join("work");
    std::fs::create_dir_all(&home).expect("home");
    std::fs::create_dir_all(&cwd).expect("cwd");
    let agent = home.join(".pi/agent");
    let project = agent.join("sessions").join(project_folder_name(&cwd));
    std::fs::create_dir_all(&project).expect("project");
    let session = project.join("2026-01-11T06-48-34-376Z_session.jsonl");
    std::fs::copy(corpus_file(), &session).expect("copy");
    let fifo = project.join("2026-01-12T00-00-00-000Z_fifo.jsonl");
    mkfifo(&fifo);
    let socket = project.join("2026-01-12T00-00-00-000Z_socket.jsonl");
    let listener = UnixListener::bind(&socket).expect("bind");
    let folder = project.join("2026-01-12T00-00-00-000Z_folder.jsonl");
    std::fs::create_dir(&folder).expect("folder");
    World {
        _tmp: tmp,
        home,
        agent,
        cwd,
        session,
        fifo,
        socket,
        folder,
        _listener: listener,
    }
}

/// Runs piscope with `args` in the world; fails the test (after killing
/// it) if it has not finished by the deadline.
fn piscope(w: &World, args: &[&str]) -> Output {
    let out_dir = tempfile::tempdir().expect("out dir");
    let (out, err) = (out_dir.path().join("out"), out_dir.path().join("err"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_piscope"))
        .args(args)
        .current_dir(&w.cwd)
        .env("HOME", &w.home)
        .env("XDG_CACHE_HOME", w.home.join(".cache"))
        .env("XDG_CONFIG_HOME", w.home.join(".config"))
        .env("PI_CODING_AGENT_DIR", &w.agent)
        .env_remove("PI_CODING_AGENT_SESSION_DIR")
        .env_remove("PISCOPE_CONFIG")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out).expect("out"))
        .stderr(std::fs::File::create(&err).expect("err"))
        .spawn()
        .expect("spawn piscope");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if started.elapsed() > DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            panic!("piscope {args:?} hung (killed after {DEADLINE:?})");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: std::fs::read(&out).expect("stdout"),
        stderr: std::fs::read(&err).expect("stderr"),
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn refusal(path: &Path, kind: &str) -> String {
    format!(
        "piscope: {}: not a regular file ({kind}); not read",
        path.display()
    )
}

#[test]
fn ls_finishes_and_names_each_file_that_is_not_regular() {
    let w = world();
    let runs: &[&[&str]] = &[
        &["ls"],
        &["ls", "--all"],
        &["ls", "--no-cache"],
        &["ls", "--all", "--no-cache"],
        &["ls", "--json"],
        &["ls", "--all", "--json"],
        &["ls", "--all", "--query", "the"],
        &["ls", "--all", "--deep", "--query", "the"],
        // Again, now with a cache.
        &["ls", "--all", "--json"],
    ];
    for args in runs {
        let out = piscope(&w, args);
        let stderr = text(&out.stderr);
        assert!(out.status.success(), "{args:?}: {stderr}");
        let mut lines: Vec<&str> = stderr.lines().collect();
        lines.sort();
        let mut expected = vec![
            refusal(&w.fifo, "a FIFO"),
            refusal(&w.socket, "a socket"),
            refusal(&w.folder, "a folder"),
        ];
        expected.sort();
        assert_eq!(lines, expected, "{args:?}");
        let stdout = text(&out.stdout);
        if args.contains(&"--json") {
            let list: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
            let paths: Vec<&str> = list
                .as_array()
                .expect("a list")
                .iter()
                .filter_map(|s| s["path"].as_str())
                .collect();
            assert_eq!(paths, [w.session.to_str().expect("utf-8")], "{args:?}");
        } else if !args.contains(&"--query") {
            // The table: its heading and the one session.
            assert_eq!(stdout.lines().count(), 2, "{args:?}: {stdout}");
            assert!(stdout.contains("/home/ada/notes"), "{args:?}: {stdout}");
        }
    }
}

#[test]
fn every_command_refuses_a_fifo_with_one_line() {
    let w = world();
    let fifo = w.fifo.to_str().expect("utf-8");
    let commands: &[&[&str]] = &[
        &["tree", fifo],
        &["tree", fifo, "--json"],
        &["info", fifo],
        &["info", fifo, "--json"],
        &["context", fifo],
        &["context", fifo, "--json"],
        &["context", fifo, "--leaf", "null"],
        &["export", fifo],
        &["export", fifo, "--format", "jsonl"],
        &["fork", fifo],
        &["label", fifo, "a1b2c3d4", "x"],
        &["rename", fifo, "name"],
        &["branch", fifo, "a1b2c3d4"],
        // The browser, on one file.
        &[fifo],
    ];
    for args in commands {
        let out = piscope(&w, args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert_eq!(
            text(&out.stderr),
            format!("{}\n", refusal(&w.fifo, "a FIFO")),
            "{args:?}"
        );
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    // Deleting it fails the same way, without reading it.
    let out = piscope(&w, &["rm", fifo, "--yes"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains(fifo), "{}", text(&out.stderr));
    assert!(w.fifo.exists(), "never deleted");
}

#[test]
fn sockets_devices_and_folders_are_refused_too() {
    let w = world();
    let cases = [
        (w.socket.clone(), "a socket"),
        (w.folder.clone(), "a folder"),
        (PathBuf::from("/dev/null"), "a character device"),
        (PathBuf::from("/dev/zero"), "a character device"),
    ];
    for (path, kind) in cases {
        let p = path.to_str().expect("utf-8");
        for args in [
            vec!["info", p],
            vec!["tree", p, "--json"],
            vec!["label", p, "x", "y"],
        ] {
            let out = piscope(&w, &args);
            assert_eq!(out.status.code(), Some(1), "{args:?}");
            assert_eq!(
                text(&out.stderr),
                format!("{}\n", refusal(&path, kind)),
                "{args:?}"
            );
        }
    }
}

#[test]
fn a_symlink_to_a_session_is_read_and_one_to_a_fifo_refused() {
    let w = world();
    let good = w.cwd.join("good.jsonl");
    std::os::unix::fs::symlink(&w.session, &good).expect("symlink");
    let out = piscope(&w, &["info", good.to_str().expect("utf-8"), "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let bad = w.cwd.join("bad.jsonl");
    std::os::unix::fs::symlink(&w.fifo, &bad).expect("symlink");
    let out = piscope(&w, &["info", bad.to_str().expect("utf-8")]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stderr), format!("{}\n", refusal(&bad, "a FIFO")));
}

#[test]
fn a_fifo_as_the_cache_file_is_ignored_and_replaced() {
    let w = world();
    let expected = piscope(&w, &["ls", "--all", "--json", "--no-cache"]);
    assert!(expected.status.success());
    let expected_query = piscope(
        &w,
        &["ls", "--all", "--json", "--query", "the", "--no-cache"],
    );
    let cache = w.home.join(".cache/piscope");
    std::fs::create_dir_all(&cache).expect("cache dir");
    let files = [
        cache.join("catalog-summaries.bin"),
        cache.join("catalog-texts.bin"),
    ];
    for f in &files {
        mkfifo(f);
    }
    for _ in 0..2 {
        let out = piscope(&w, &["ls", "--all", "--json"]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert_eq!(text(&out.stdout), text(&expected.stdout));
        let out = piscope(&w, &["ls", "--all", "--json", "--query", "the"]);
        assert_eq!(text(&out.stdout), text(&expected_query.stdout));
        // Only the session folder's own oddities are reported: the cache
        // is an accelerator, rebuilt in silence.
        assert!(
            !text(&out.stderr).contains(".cache"),
            "{}",
            text(&out.stderr)
        );
    }
    for f in &files {
        let meta = std::fs::symlink_metadata(f).expect("cache file");
        assert!(meta.is_file(), "{} replaced by a regular file", f.display());
    }
}

#[test]
fn a_settings_file_that_is_a_fifo_is_reported_not_read() {
    let w = world();
    let settings = w.cwd.join(".pi/settings.json");
    std::fs::create_dir_all(settings.parent().expect("parent")).expect("dir");
    mkfifo(&settings);
    let out = piscope(&w, &["ls", "--json"]);
    assert!(out.status.success());
    assert!(
        text(&out.stderr).contains(&refusal(&settings, "a FIFO")),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn the_browser_finishes_loading_and_names_the_fifo() {
    let w = world();
    // Only the FIFO beside the session: the status names the first problem.
    std::fs::remove_dir(&w.folder).expect("rmdir");
    std::fs::remove_file(&w.socket).expect("rm socket");
    let folder = SessionsFolder {
        dir: w.agent.join("sessions"),
        layout: Layout::PerProject,
        source: FolderSource::Default,
        cwd: w.cwd.clone(),
    };
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut h = Harness::folder(folder, (160, 30));
        let _ = tx.send((h.screen(), h.app.picker().problems().to_vec()));
    });
    let (screen, problems) = rx
        .recv_timeout(DEADLINE)
        .expect("the browser finished loading (a FIFO read would block for ever)");
    let want = format!(
        "{}: not a regular file (a FIFO); not read",
        w.fifo.display()
    );
    assert_eq!(problems, [want]);
    let status = screen.lines().rev().nth(1).expect("status line");
    assert!(status.contains("fifo.jsonl: not a regu"), "{screen}");
    assert!(status.contains("1 session in 1 project"), "{screen}");
    assert!(screen.contains("pane compaction summary"), "{screen}");
}
