//! What the layers of the tests share: the repository's paths, pi's reference
//! package (installed on first use by `tests/pi/install.sh`), how node runs
//! the harness in `tests/pi/`, helpers over pi's answers, the outside tools
//! a test needs (`tools`), a real terminal (`tmux`) and the browser's
//! set-up (`tui`).

#![allow(dead_code)]

pub mod pi_ui;
pub mod planted;
pub mod tmux;
pub mod tools;
#[macro_use]
pub mod tui;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A script of the project's pi harness, `tests/pi/NAME`.
pub fn harness(name: &str) -> PathBuf {
    repo().join("tests/pi").join(name)
}

/// A real session file pi wrote, from `tests/data/pi-mono/`.
pub fn pi_mono(name: &str) -> PathBuf {
    repo().join("tests/data/pi-mono").join(name)
}

/// The folder of pi's reference package (`PI_REF_DIR`, else
/// `target/pi-reference`), installed there by `tests/pi/install.sh` when
/// it is not yet.
pub fn pi_reference() -> PathBuf {
    // A test that got here without asking [`have_node`] still fails
    // clearly when node is missing.
    if let Some(problem) = tools::Tool::Node.problem() {
        panic!("pi's reference package cannot run: {problem}");
    }
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tools::pi_dir();
        let install = harness("install.sh");
        let status = tools::with_local_node("bash")
            .arg(&install)
            .arg(&dir)
            .status()
            .unwrap_or_else(|e| panic!("bash {}: {e}", install.display()));
        assert!(
            status.success(),
            "installing pi's reference package into {} failed (its error is above)",
            dir.display()
        );
        dir
    })
    .clone()
}

/// True when node (new enough for pi) and pi's package, or npm to install
/// it, are here; without them the test fails, or is reported skipped when
/// the run allows it (see [`tools`]).
pub fn have_node() -> bool {
    tools::have(tools::Tool::Node)
}

/// `node SCRIPT ARGS...` with the reference package available.
pub fn node(script: &Path) -> Command {
    let mut cmd = tools::node_command();
    cmd.arg(script).env("PI_REF_DIR", pi_reference());
    cmd
}

/// What pi's own code prints for `oracle.mjs ARGS...`, as JSON.
pub fn oracle(args: &[&str]) -> serde_json::Value {
    let request = serde_json::to_string(args).expect("json");
    oracle_batch_lines(&[request]).remove(0)
}

/// A corpus written by pi's own session code (`tests/pi/gen-corpus.mjs`)
/// into `out/sessions`, pi's per-project layout; a second call with the
/// same `out` adds to it.
pub fn pi_corpus(out: &Path, seed: u64, sessions: usize, turns: usize) {
    let script = harness("gen-corpus.mjs");
    let o = node(&script)
        .arg("--out")
        .arg(out)
        .args(["--seed", &seed.to_string()])
        .args(["--sessions", &sessions.to_string()])
        .args(["--turns", &turns.to_string()])
        .output()
        .expect("run pi's corpus generator");
    assert!(
        o.status.success(),
        "{}: {}",
        script.display(),
        String::from_utf8_lossy(&o.stderr)
    );
}

/// A new session written by pi's own SessionManager in `dir` for the
/// project `cwd` (two messages); returns its path.
pub fn pi_create(dir: &Path, cwd: &str) -> PathBuf {
    let out = node(&harness("pi-appender.mjs"))
        .args(["create", &dir.to_string_lossy(), cwd])
        .output()
        .expect("create a session with pi");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// A session of the flat catalog's fixtures (`tests/data/catalog-flat`).
pub fn catalog_flat(name: &str) -> PathBuf {
    repo().join("tests/data/catalog-flat").join(name)
}

/// The golden corpus: pi-written sessions in pi's per-project layout.
pub fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden/corpus/sessions")
}

/// A copy of the golden corpus (pi's per-project layout) in a temp folder:
/// the folder to drop and the sessions folder.
pub fn copy_corpus() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let root = tmp.path().join("sessions");
    copy_tree(&corpus(), &root);
    (tmp, root)
}

/// Copies the folder `from` to `to` with its files and folders.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read folder") {
        let e = e.expect("entry");
        let ty = e.file_type().expect("type");
        if ty.is_dir() {
            copy_tree(&e.path(), &to.join(e.file_name()));
        } else if ty.is_file() {
            std::fs::copy(e.path(), to.join(e.file_name())).expect("copy");
        }
    }
}

/// pi's answers to many oracle requests (each an argument list), in order,
/// from the test binary's one oracle; an answer pi could not give fails
/// the test.
pub fn oracle_batch(requests: &[Vec<String>]) -> Vec<serde_json::Value> {
    let lines: Vec<String> = requests
        .iter()
        .map(|r| serde_json::to_string(r).expect("json"))
        .collect();
    oracle_batch_lines(&lines)
}

/// [`oracle_batch`] for requests already written as JSON lines.
pub fn oracle_batch_lines(requests: &[String]) -> Vec<serde_json::Value> {
    requests
        .iter()
        .map(|r| {
            let a = shared_oracle::ask(r);
            assert!(a.get("error").is_none(), "oracle {r}: {a}");
            a["ok"].clone()
        })
        .collect()
}

/// pi's oracle started once for the whole test binary and asked request
/// by request (`oracle.mjs batch` answers each line as it reads it):
/// loading pi's code is most of an answer's cost, some 0.8 s of CPU a
/// start, and the tests ask it hundreds of times. It ends with the test
/// binary, whose exit closes its input.
mod shared_oracle {
    use std::io::{BufRead, Write};
    use std::process::{Child, ChildStdin, Stdio};
    use std::sync::Mutex;
    use std::sync::mpsc::{Receiver, RecvTimeoutError};
    use std::time::Duration;

    struct Running {
        child: Child,
        input: ChildStdin,
        answers: Receiver<String>,
    }

    static RUNNING: Mutex<Option<Running>> = Mutex::new(None);

    /// How long one answer may take: pi answers the tests' sessions in
    /// milliseconds, so this long means it is stuck (on a loop in the
    /// file, say), and the test fails instead of hanging.
    const PATIENCE: Duration = Duration::from_secs(120);

    fn start() -> Running {
        let mut child = super::node(&super::harness("oracle.mjs"))
            .arg("batch")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("run the oracle");
        let input = child.stdin.take().expect("stdin");
        let output = child.stdout.take().expect("stdout");
        let (send, answers) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(output).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        Running {
            child,
            input,
            answers,
        }
    }

    /// pi's answer line to one request (a JSON array of `oracle.mjs`
    /// arguments): `{"ok": ...}` or `{"error": ...}`.
    pub fn ask(request: &str) -> serde_json::Value {
        // A test that failed while asking leaves the oracle as it was.
        let mut slot = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
        let running = slot.get_or_insert_with(start);
        let asked = writeln!(running.input, "{request}").and_then(|()| running.input.flush());
        let answer = match asked {
            Ok(()) => running.answers.recv_timeout(PATIENCE),
            Err(_) => Err(RecvTimeoutError::Disconnected),
        };
        match answer {
            Ok(line) => serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("oracle {request}: {e} in its answer {line:?}")),
            Err(why) => {
                // The next request starts a new oracle.
                let mut gone = slot.take().expect("running");
                let _ = gone.child.kill();
                let _ = gone.child.wait();
                panic!("oracle {request}: no answer ({why:?}; its error is above)")
            }
        }
    }
}

/// What pi reads of a session: its tree, the context at every entry and at
/// the leaf, and its info without the header (which names its folder).
pub fn pi_reading(file: &Path) -> serde_json::Value {
    let f = file.to_string_lossy().to_string();
    let first = oracle_batch(&[
        vec!["tree".into(), f.clone()],
        vec!["info".into(), f.clone()],
    ]);
    let ids: Vec<String> = first[0]
        .as_array()
        .expect("tree")
        .iter()
        .map(|n| n["id"].as_str().expect("id").to_string())
        .collect();
    let mut requests: Vec<Vec<String>> = ids
        .iter()
        .map(|id| vec!["context".into(), f.clone(), "--leaf".into(), id.clone()])
        .collect();
    requests.push(vec!["context".into(), f.clone()]);
    let contexts = oracle_batch(&requests);
    let mut info = first[1].clone();
    info["header"] = serde_json::Value::Null;
    serde_json::json!({
        "tree": first[0],
        "info": info,
        "contexts": ids.iter().cloned().zip(contexts.iter().cloned()).collect::<serde_json::Map<_, _>>(),
        "leaf": contexts.last().cloned(),
    })
}

/// The kill trials of a SIGKILL test: at least `min` kills, each after a
/// random wait within the window; then more (up to ten times as many), the
/// window widened or narrowed, while every kill landed on one side of the
/// change (a run's time varies with the machine's load, and a test that
/// never saw both sides proved nothing).
pub struct KillWindow {
    span: u64,
    widest: u64,
    min: usize,
    trial: usize,
    seed: u64,
}

impl KillWindow {
    /// `full_run`: how long one whole run took; the window starts a little
    /// past it (`extra` of it more).
    pub fn new(full_run: std::time::Duration, extra: f64, min: usize, seed: u64) -> KillWindow {
        let run = full_run.as_micros() as u64 + 1;
        KillWindow {
            span: run + (run as f64 * extra) as u64,
            widest: run * 20,
            min,
            trial: 0,
            seed,
        }
    }

    /// The next trial's number, given how many kills so far landed before
    /// and after the change; `None` when enough have been seen.
    pub fn next_trial(&mut self, before: usize, after: usize) -> Option<usize> {
        let lopsided = before == 0 || after == 0;
        if self.trial >= self.min {
            if !lopsided || self.trial >= self.min * 10 {
                return None;
            }
            self.span = if after == 0 {
                (self.span * 3 / 2).min(self.widest)
            } else {
                self.span * 2 / 3 + 1
            };
        }
        self.trial += 1;
        Some(self.trial - 1)
    }

    /// A random wait within the window.
    pub fn wait(&mut self) -> std::time::Duration {
        self.seed = self
            .seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        std::time::Duration::from_micros((self.seed >> 33) % self.span)
    }
}

/// The `.jsonl` files of a sessions folder, in it or in its folders
/// (pi's layout, one folder a project, or a flat one), sorted.
pub fn session_files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).expect("sessions folder") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Runs `cmd`, failing the test with its stderr unless it succeeds, and
/// returns what it printed.
pub fn run_ok(cmd: &mut Command) -> std::process::Output {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{cmd:?} did not run: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// [`run_ok`]'s standard output, as UTF-8.
pub fn stdout_ok(cmd: &mut Command) -> String {
    String::from_utf8(run_ok(cmd).stdout).expect("UTF-8 output")
}

/// `piscope ls --all --json --no-cache ARGS`'s answer, for the sessions of
/// the agent folder `agent` (a list, or deep-search hits with `--deep`).
pub fn ls_json(agent: &Path, args: &[&str]) -> serde_json::Value {
    let out = stdout_ok(
        Command::new(env!("CARGO_BIN_EXE_piscope"))
            .args(["ls", "--all", "--json", "--no-cache"])
            .args(args)
            .env("PI_CODING_AGENT_DIR", agent),
    );
    serde_json::from_str(&out).expect("ls --json")
}

/// xorshift64*: small, seedable, good enough to pick test cases.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// Below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % (n as u64).max(1)) as usize
    }
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    /// Log-uniform in 1..=max: small sizes often, the largest now and then.
    pub fn size(&mut self, max: usize) -> usize {
        let bits = (usize::BITS - max.max(1).leading_zeros()) as usize;
        let top = 1usize << self.below(bits + 1);
        (1 + self.below(top)).min(max)
    }
}

/// A property test's seed: `PISCOPE_SEED` when set (to replay a run),
/// else a fresh one each run.
pub fn seed() -> u64 {
    if let Some(s) = std::env::var("PISCOPE_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        return s;
    }
    let mut b = [0u8; 8];
    getrandom::fill(&mut b).expect("random seed");
    u64::from_le_bytes(b) | 1
}

/// Makes a file look untouched for two hours: no pi is writing to it, so
/// piscope writes without asking first.
pub fn age(path: &Path) {
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .expect("open");
    f.set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(7200))
        .expect("set the time");
}

/// A parent session and its subagent children, written into the agent
/// folder `agent` by pi's own code in every layout
/// (`tests/pi/pi-subagents.mjs`): the parent's file, and each child's path
/// with the generator's `field` of it (`layout`, `toolCallId`).
pub fn pi_subagents(
    agent: &std::path::Path,
    field: &str,
) -> (std::path::PathBuf, Vec<(std::path::PathBuf, String)>) {
    let o = node(&harness("pi-subagents.mjs"))
        .arg(agent)
        .arg("/home/ada/src/parser")
        .output()
        .expect("run the subagent generator");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("generator JSON");
    let children = v["children"]
        .as_array()
        .expect("children")
        .iter()
        .map(|c| {
            let path = std::path::PathBuf::from(c["path"].as_str().expect("path"));
            (path, c[field].as_str().unwrap_or_default().to_string())
        })
        .collect();
    let parent = v["parent"].as_str().expect("parent");
    (std::path::PathBuf::from(parent), children)
}
