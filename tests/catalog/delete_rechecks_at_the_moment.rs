//! A delete is checked again at the moment it happens, against the file
//! that was confirmed: a project folder swapped for a symlink, or the file
//! swapped for another, while the question waits for its answer, is refused
//! by `piscope rm` (to the trash and for good, on the real binary with its
//! question on a real terminal) and by the browser's delete (through the
//! app's own dialogs and job), and nothing outside is touched.

use crate::support::age;
use crate::support::tui as tui_common;

use piscope::catalog::housekeeping::delete::check_deletable;
use piscope::tui::event::AppEvent;
use piscope::tui::harness::Harness;
use piscope::tui::work::jobs::ActionOutcome;
use std::io::{Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, SystemTime};

const PROMPT: &str = "Go ahead? [y/N] ";

/// A pi session (the one `rm` is asked about) and another, different one.
fn session() -> PathBuf {
    crate::support::catalog_flat("2026-02-01T10-00-00-001Z_plain.jsonl")
}

fn other_session() -> PathBuf {
    crate::support::catalog_flat("2026-02-01T10-00-00-009Z_damaged.jsonl")
}

pub(crate) struct Setup {
    _tmp: tempfile::TempDir,
    pub(crate) root: PathBuf,
    pub(crate) sessions: PathBuf,
    project: PathBuf,
    /// The session `rm` is asked to delete.
    pub(crate) file: PathBuf,
    /// A folder outside the sessions folder, with a session of the same name.
    outside: PathBuf,
    pub(crate) data: PathBuf,
}

pub(crate) fn setup() -> Setup {
    let tmp = tempfile::tempdir().expect("temp dir");
    // Resolved, so that paths compare with what piscope prints.
    let root = std::fs::canonicalize(tmp.path()).expect("resolve");
    let sessions = root.join("sessions");
    let project = sessions.join("--home-ada-dotfiles--");
    let outside = root.join("outside");
    let data = root.join("data");
    for d in [&project, &outside, &data] {
        std::fs::create_dir_all(d).expect("mkdir");
    }
    let file = project.join("s.jsonl");
    std::fs::copy(session(), &file).expect("copy");
    std::fs::copy(other_session(), outside.join("s.jsonl")).expect("copy");
    Setup {
        _tmp: tmp,
        root,
        sessions,
        project,
        file,
        outside,
        data,
    }
}

/// Everything under `dir`, with contents, to show nothing was touched.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut all = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read dir").flatten() {
            let p = e.path();
            let t = e.file_type().expect("file type");
            if t.is_dir() {
                stack.push(p);
            } else {
                let bytes = std::fs::read(&p).expect("read");
                all.push((p, bytes));
            }
        }
    }
    all.sort();
    all
}

pub(crate) fn trashed(data: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(data.join("Trash/files"))
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// A terminal: (the side the test types into, the side piscope reads).
fn pty() -> (std::fs::File, OwnedFd) {
    let mut master = -1;
    let mut slave = -1;
    // SAFETY: openpty fills in two new descriptors, which are owned below.
    let rc = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        )
    };
    assert_eq!(rc, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: both are open and owned by nothing else.
    unsafe {
        (
            std::fs::File::from(OwnedFd::from_raw_fd(master)),
            OwnedFd::from_raw_fd(slave),
        )
    }
}

pub(crate) struct Ran {
    pub(crate) code: Option<i32>,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

/// `piscope rm FILE ARGS`, its question answered "y" on a terminal once
/// `meanwhile` has run (while the question waits).
fn rm_answering_yes(s: &Setup, args: &[&str], meanwhile: impl FnOnce()) -> Ran {
    let mut all = vec![std::ffi::OsString::from("rm"), s.file.clone().into()];
    all.extend(args.iter().map(std::ffi::OsString::from));
    answering_yes(s, &all, meanwhile)
}

/// `piscope ARGS --session-dir SESSIONS`, its question answered "y" on a
/// terminal once `meanwhile` has run (while the question waits).
pub(crate) fn answering_yes(
    s: &Setup,
    args: &[std::ffi::OsString],
    meanwhile: impl FnOnce(),
) -> Ran {
    let (mut typing, tty) = pty();
    let mut child = Command::new(env!("CARGO_BIN_EXE_piscope"))
        .args(args)
        .arg("--session-dir")
        .arg(&s.sessions)
        .env("XDG_DATA_HOME", &s.data)
        .env("HOME", &s.root)
        .stdin(Stdio::from(tty))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run piscope");
    let mut stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        loop {
            match stdout.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if tx.send(buf[..n].to_vec()).is_err() {
                        break;
                    }
                }
            }
        }
    });
    let mut seen = Vec::new();
    let deadline = SystemTime::now() + Duration::from_secs(60);
    while !String::from_utf8_lossy(&seen).contains(PROMPT) {
        let left = deadline
            .duration_since(SystemTime::now())
            .unwrap_or_default();
        match rx.recv_timeout(left) {
            Ok(chunk) => seen.extend(chunk),
            Err(_) => {
                let _ = child.kill();
                let out = child.wait_with_output().expect("wait");
                panic!(
                    "no question; stdout {:?}, stderr {:?}",
                    String::from_utf8_lossy(&seen),
                    String::from_utf8_lossy(&out.stderr)
                );
            }
        }
    }
    meanwhile();
    typing.write_all(b"y\n").expect("answer");
    let out = child.wait_with_output().expect("wait");
    reader.join().expect("reader");
    seen.extend(rx.try_iter().flatten());
    Ran {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&seen).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The project folder goes away and a symlink to the outside folder,
/// which holds a session of the same name, takes its place.
fn swap_project_for_a_symlink(s: &Setup) {
    std::fs::rename(&s.project, s.root.join("moved-away")).expect("move");
    std::os::unix::fs::symlink(&s.outside, &s.project).expect("symlink");
}

/// Another file (another inode) is renamed over the confirmed one.
fn replace_the_file(s: &Setup) {
    let new = s.project.join(".replacement");
    std::fs::copy(other_session(), &new).expect("copy");
    std::fs::rename(&new, &s.file).expect("rename");
}

fn assert_refused(s: &Setup, ran: &Ran) {
    assert_eq!(
        ran.code,
        Some(1),
        "stdout {}\nstderr {}",
        ran.stdout,
        ran.stderr
    );
    let line = format!(
        "piscope: {}: changed since it was confirmed",
        s.file.display()
    );
    assert!(ran.stderr.contains(&line), "{}", ran.stderr);
    assert!(!ran.stdout.contains("deleted "), "{}", ran.stdout);
    assert!(trashed(&s.data).is_empty(), "{:?}", trashed(&s.data));
}

#[test]
fn without_a_change_the_answer_deletes() {
    // The terminal and the answer work: what the tests below refuse is
    // refused for the change, not for the way the answer is given.
    for args in [&[][..], &["--permanent"][..]] {
        let s = setup();
        let ran = rm_answering_yes(&s, args, || {});
        assert_eq!(ran.code, Some(0), "{}", ran.stderr);
        assert!(!s.file.exists());
        assert!(
            ran.stdout
                .contains(&format!("deleted {}", s.file.display()))
        );
        let expect: &[&str] = if args.is_empty() { &["s.jsonl"] } else { &[] };
        assert_eq!(trashed(&s.data), expect);
    }
}

#[test]
fn a_project_folder_swapped_for_a_symlink_is_refused_for_the_trash() {
    let s = setup();
    let before = snapshot(&s.outside);
    let ran = rm_answering_yes(&s, &[], || swap_project_for_a_symlink(&s));
    assert_refused(&s, &ran);
    assert_eq!(
        snapshot(&s.outside),
        before,
        "the outside file is untouched"
    );
    assert!(s.root.join("moved-away/s.jsonl").exists());
}

#[test]
fn a_project_folder_swapped_for_a_symlink_is_refused_for_good() {
    let s = setup();
    let before = snapshot(&s.outside);
    let ran = rm_answering_yes(&s, &["--permanent"], || swap_project_for_a_symlink(&s));
    assert_refused(&s, &ran);
    assert_eq!(
        snapshot(&s.outside),
        before,
        "the outside file is untouched"
    );
    assert!(s.root.join("moved-away/s.jsonl").exists());
}

#[test]
fn a_file_replaced_by_another_is_refused() {
    for args in [&[][..], &["--permanent"][..]] {
        let s = setup();
        let ran = rm_answering_yes(&s, args, || replace_the_file(&s));
        assert_refused(&s, &ran);
        assert!(
            ran.stderr.contains("another file is in its place"),
            "{}",
            ran.stderr
        );
        assert_eq!(
            std::fs::read(&s.file).expect("still there"),
            std::fs::read(other_session()).expect("read"),
            "the replacement is kept"
        );
    }
}

#[test]
fn a_given_path_that_now_resolves_elsewhere_is_refused() {
    // The path given goes through a symlink inside the sessions folder;
    // pointed at another project folder, it resolves elsewhere.
    let s = setup();
    let other = s.sessions.join("--home-ada-other--");
    std::fs::create_dir_all(&other).expect("mkdir");
    std::fs::copy(other_session(), other.join("s.jsonl")).expect("copy");
    let link = s.sessions.join("--link--");
    std::os::unix::fs::symlink(&s.project, &link).expect("symlink");
    let folder = piscope::catalog::SessionsFolder::at(
        s.sessions.clone(),
        piscope::catalog::Layout::PerProject,
        s.root.clone(),
    );
    let checked = check_deletable(&folder, &link.join("s.jsonl")).expect("a session");
    std::fs::remove_file(&link).expect("unlink");
    std::os::unix::fs::symlink(&other, &link).expect("symlink");
    let err = piscope::catalog::housekeeping::delete::delete_checked(
        &checked,
        piscope::catalog::housekeeping::delete::DeleteMode::Permanent,
    )
    .expect_err("refused");
    assert!(
        err.to_string()
            .contains("changed since it was confirmed (it now leads to"),
        "{err}"
    );
    assert!(other.join("s.jsonl").exists() && s.file.exists());
}

// The browser, through the app's dialogs and its job.

/// A trash of the test's own for this process (the browser's job runs
/// here, not in a child).
pub(crate) fn own_trash() -> &'static Path {
    static DATA: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DATA.get_or_init(|| {
        let dir = tempfile::tempdir().expect("temp dir").keep();
        // SAFETY: set once, before any browser job reads it; the other tests
        // here only start processes, with their own environment.
        unsafe { std::env::set_var("XDG_DATA_HOME", &dir) };
        dir
    })
}

const WIDE: (u16, u16) = (150, 40);

fn message(h: &Harness) -> String {
    h.app.message().map(|m| m.text.clone()).unwrap_or_default()
}

#[test]
fn the_browser_refuses_a_project_folder_swapped_after_its_dialog() {
    let data = own_trash();
    let (_d, folder) = tui_common::demo_folder("/home/ada/dotfiles");
    let mut h = Harness::folder(folder.clone(), WIDE);
    let chosen = h
        .app
        .picker()
        .selected_session()
        .expect("a session")
        .path
        .clone();
    let project = chosen.parent().expect("project").to_path_buf();
    let name = chosen.file_name().expect("name").to_owned();
    h.key("ctrl+d");
    assert!(h.app.dialog().is_some(), "asked first");
    // While the dialog waits: the project folder becomes a symlink to
    // another project folder holding a session of the same name.
    let decoy_dir = folder.dir.join("--home-ada-elsewhere--");
    std::fs::create_dir_all(&decoy_dir).expect("mkdir");
    let decoy = decoy_dir.join(&name);
    std::fs::copy(other_session(), &decoy).expect("copy");
    age(&decoy);
    let moved = folder.dir.join("--moved-away--");
    std::fs::rename(&project, &moved).expect("move");
    std::os::unix::fs::symlink(&decoy_dir, &project).expect("symlink");
    let trash_before = trashed(data);
    h.key("enter");
    assert!(
        h.app.dialog().is_none(),
        "{:?}",
        h.app.dialog().map(|d| &d.body)
    );
    let said = message(&h);
    assert!(said.contains("changed since it was confirmed"), "{said}");
    assert!(
        said.contains(&name.to_string_lossy().into_owned()),
        "{said}"
    );
    assert!(decoy.exists(), "the session the symlink leads to is kept");
    assert!(moved.join(&name).exists(), "the confirmed one too");
    assert_eq!(trashed(data), trash_before, "nothing went to the trash");
}

#[test]
fn the_browser_refuses_a_file_replaced_before_it_deletes_for_good() {
    let _ = own_trash();
    let (_d, folder) = tui_common::demo_folder("/home/ada/dotfiles");
    let mut h = Harness::folder(folder.clone(), WIDE);
    let chosen = h
        .app
        .picker()
        .selected_session()
        .expect("a session")
        .path
        .clone();
    // The trash failed for it (as the job reports): the for-good question.
    let checked = check_deletable(&folder, &chosen).expect("a session");
    h.send(AppEvent::ActionDone(ActionOutcome::Deleted {
        paths: Vec::new(),
        to_trash: true,
        trash_failed: vec![(checked, "no trash folder on this device".to_string())],
        errors: Vec::new(),
    }));
    assert!(h.app.dialog().is_some(), "asked first");
    // While it waits, another file takes the session's name.
    let new = chosen.with_extension("new");
    std::fs::copy(other_session(), &new).expect("copy");
    age(&new);
    std::fs::rename(&new, &chosen).expect("rename");
    h.type_text("delete");
    h.key("enter");
    let said = message(&h);
    assert!(
        said.contains("changed since it was confirmed (another file is in its place)"),
        "{said}"
    );
    assert_eq!(
        std::fs::read(&chosen).expect("kept"),
        std::fs::read(other_session()).expect("read")
    );
}
