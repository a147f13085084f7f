//! The demo's copy of the bundled sessions, in the real terminal (tmux) with
//! a private temp folder: gone after every exit but a resume into pi, kept
//! while the resumed pi runs, and swept by a later start once stale.

use crate::support::tmux;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};
use tmux::{EXIT_MARK, Tmux, have_tmux};

const SIZE: (u16, u16) = (150, 40);

/// A temp folder for piscope (`TMPDIR`), outside its home.
fn temp_folder() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("piscope-e2e-tmp-")
        .tempdir()
        .expect("temp folder")
}

/// What is in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("read the temp folder")
        .map(|e| e.expect("entry").file_name().to_string_lossy().to_string())
        .collect();
    names.sort();
    names
}

fn demo(tmp: &Path, env: &[(&str, &str)]) -> Tmux {
    let mut vars = vec![("TMPDIR", tmp.to_str().expect("a UTF-8 path"))];
    vars.extend_from_slice(env);
    let t = Tmux::start(&["--demo"], &vars, SIZE);
    t.wait_for("the demo", |s| {
        s.contains("Demo sessions") && s.contains("8 sessions")
    });
    t
}

/// The demo's copies in `tmp`.
fn copies(tmp: &Path) -> Vec<String> {
    listing(tmp)
        .into_iter()
        .filter(|n| n.starts_with("piscope-demo-"))
        .collect()
}

#[test]
fn esc_from_the_tree_steps_out_and_removes_the_copy() {
    if !have_tmux() {
        return;
    }
    let tmp = temp_folder();
    let t = demo(tmp.path(), &[]);
    assert_eq!(copies(tmp.path()).len(), 1, "{:?}", listing(tmp.path()));
    t.keys(&["Tab"]);
    t.wait_for("the tree focused", |s| s.contains("Esc back"));
    // Esc goes back to the sessions pane, then quits.
    t.keys(&["Escape"]);
    t.wait_for("the sessions pane focused", |s| s.contains("Esc quit"));
    t.quit_with("Escape");
    assert_eq!(listing(tmp.path()), Vec::<String>::new());
}

#[test]
fn ctrl_c_removes_the_copy() {
    if !have_tmux() {
        return;
    }
    let tmp = temp_folder();
    let t = demo(tmp.path(), &[]);
    assert_eq!(copies(tmp.path()).len(), 1, "{:?}", listing(tmp.path()));
    t.quit_with("C-c");
    assert_eq!(listing(tmp.path()), Vec::<String>::new());
}

/// A stub pi: writes its arguments to `home/pi-called`, then waits until
/// `home/release` exists (or a minute passes).
fn stub_pi(home: &Path) -> PathBuf {
    let pi = home.join("stub-pi");
    std::fs::write(
        &pi,
        "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > \"$HOME/pi-called.part\"\n\
         mv \"$HOME/pi-called.part\" \"$HOME/pi-called\"\n\
         n=0; while [ ! -e \"$HOME/release\" ] && [ $n -lt 600 ]; do sleep 0.1; n=$((n+1)); done\n",
    )
    .expect("stub");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&pi, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    pi
}

fn wait_for_file(path: &Path) -> String {
    let start = Instant::now();
    loop {
        if let Ok(text) = std::fs::read_to_string(path) {
            return text;
        }
        assert!(
            start.elapsed() < tmux::TIMEOUT,
            "{} never came",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_resume_keeps_the_copy_while_pi_runs_and_a_later_start_sweeps_it() {
    if !have_tmux() {
        return;
    }
    let tmp = temp_folder();
    let stub_home = tempfile::tempdir().expect("stub folder");
    let pi = stub_pi(stub_home.path());
    let first = demo(tmp.path(), &[("PISCOPE_PI_COMMAND", pi.to_str().unwrap())]);
    // pi's HOME is the pane's private home.
    let called = first.home().join("pi-called");
    first.keys(&["Enter"]);
    // The demo's projects are not folders here: pi starts in this one.
    first.wait_for("the question", |s| s.contains("no longer exists"));
    first.keys(&["Enter"]);
    let args = wait_for_file(&called);
    let session = PathBuf::from(args.lines().last().expect("the session argument"));
    assert!(
        session.starts_with(tmp.path()),
        "{session:?} is not in the demo's copy"
    );
    assert!(session.is_file(), "pi was given {session:?}, which is gone");
    let kept = copies(tmp.path());
    assert_eq!(kept.len(), 1);

    // Another start while that pi runs leaves its copy alone.
    let second = demo(tmp.path(), &[]);
    assert_eq!(copies(tmp.path()).len(), 2, "{:?}", listing(tmp.path()));
    second.quit_with("C-c");
    assert_eq!(copies(tmp.path()), kept);
    assert!(session.is_file());

    // pi ends; the next start sweeps the copy it used.
    std::fs::write(first.home().join("release"), "").expect("release the stub");
    assert_eq!(first.wait_for_exit(), format!("{EXIT_MARK}0"));
    let third = demo(tmp.path(), &[]);
    let now = copies(tmp.path());
    assert_eq!(now.len(), 1, "{now:?}");
    assert_ne!(now, kept, "the stale copy was not swept");
    third.quit_with("C-c");
    assert_eq!(listing(tmp.path()), Vec::<String>::new());
}

/// A process id that is no longer running.
fn dead_pid() -> u32 {
    let mut child = std::process::Command::new("true").spawn().expect("true");
    let pid = child.id();
    child.wait().expect("wait");
    pid
}

#[test]
fn stale_copies_are_swept_at_start_and_others_kept() {
    if !have_tmux() {
        return;
    }
    let tmp = temp_folder();
    let make = |name: &str| {
        let dir = tmp.path().join(name);
        std::fs::create_dir_all(dir.join("--p--")).expect("copy");
        std::fs::write(dir.join("--p--/s.jsonl"), "{}\n").expect("file");
        dir
    };
    // Left by a piscope killed outright.
    make(&format!("piscope-demo-{}-AbC123", dead_pid()));
    // From a piscope still running (this test's process stands for it).
    let alive = make(&format!("piscope-demo-{}-XyZ789", std::process::id()));
    // An older piscope's copy, named without a process id, two days old.
    let old = make("piscope-demo-Q1w2E3");
    let two_days_ago = SystemTime::now() - Duration::from_secs(2 * 86_400);
    for p in [old.join("--p--/s.jsonl"), old.join("--p--"), old.clone()] {
        std::fs::File::open(&p)
            .expect("open")
            .set_modified(two_days_ago)
            .expect("date back");
    }
    // Anything else in the temp folder is not piscope's.
    std::fs::write(tmp.path().join("piscope-demo-notes.txt"), "mine").expect("file");
    make("someone-else");

    let t = demo(tmp.path(), &[]);
    let mut want = vec![
        "piscope-demo-notes.txt".to_string(),
        alive.file_name().unwrap().to_string_lossy().to_string(),
        "someone-else".to_string(),
    ];
    let now = listing(tmp.path());
    let ours: Vec<&String> = now.iter().filter(|n| !want.contains(n)).collect();
    assert_eq!(ours.len(), 1, "stale copies left: {now:?}");
    t.quit_with("C-c");
    want.sort();
    assert_eq!(listing(tmp.path()), want);
}

#[test]
fn a_pi_that_cannot_start_leaves_no_copy() {
    if !have_tmux() {
        return;
    }
    let tmp = temp_folder();
    let stub_home = tempfile::tempdir().expect("stub folder");
    // Executable, but its interpreter is missing: starting it fails.
    let pi = stub_home.path().join("broken-pi");
    std::fs::write(&pi, "#!/no/such/interpreter\n").expect("stub");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&pi, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let t = demo(tmp.path(), &[("PISCOPE_PI_COMMAND", pi.to_str().unwrap())]);
    t.keys(&["Enter"]);
    t.wait_for("the question", |s| s.contains("no longer exists"));
    t.keys(&["Enter"]);
    assert_eq!(t.wait_for_exit(), format!("{EXIT_MARK}1"));
    assert!(t.screen().contains("could not start pi"), "{}", t.screen());
    assert_eq!(listing(tmp.path()), Vec::<String>::new());
}

#[test]
fn a_panic_in_the_browser_still_removes_the_copy() {
    use piscope::tui::work::demo::{DemoCopy, RemoveCopiesOnExit};
    let made = std::sync::Mutex::new(None);
    let result = std::panic::catch_unwind(|| {
        let _guard = RemoveCopiesOnExit::new();
        let copy = DemoCopy::create(piscope::jstext::date::now_ms()).expect("a copy");
        *made.lock().unwrap() = Some(copy.path().to_path_buf());
        // As in the browser, the copy belongs to worker threads that are
        // never joined: dropping it is not what removes it.
        std::mem::forget(copy);
        panic!("a bug in the browser");
    });
    assert!(result.is_err());
    let dir = made.lock().unwrap().clone().expect("the copy was made");
    assert!(!dir.exists(), "{} was left behind", dir.display());
}
