//! The scripting commands: inspect a session (`tree`, `context`, `info`)
//! and edit it (`label`, `rename`, `branch`; asking first, as the browser
//! does, when pi may have it open), as text or as pi's JSON; list and
//! search all sessions (`ls`).
//!
//! Readable output (everything but `--json` and JSONL) is written through
//! [`SafeWriter`] and every message on stderr through [`warn`], so no string
//! from a session file or its path reaches the terminal raw, whichever
//! command printed it; one-line fields are also [`sanitize`]d where they are
//! formatted, so a line break in one cannot start a fake line.

mod archive;
pub mod args;
mod clean;
mod confirm;
mod ls;
mod move_project;
mod prune;
mod restore;
mod rm;
mod stats;

pub use args::{Cli, Command, ExportFormat, TreeFilter};

use crate::render;
use crate::safe_text::{SafeWriter, sanitize, sanitize_block};
use crate::secrets::Scanner;
use crate::session::line::raw_json::push_json_string;
use crate::session::tree::view::{self, Filter, TreeView};
use crate::session::{self, BranchOutcome, Detail, LeafSelector, Session};
use anyhow::{Context as _, Result};
use serde_json::Value;
use std::fmt::Display;
use std::io::{self, BufWriter, Write};
use std::path::Path;

/// The exit status of a usage error (2; 0 for `--help` and `--version`),
/// after printing it: it quotes the arguments, which may be file names.
pub fn usage_error(e: clap::Error) -> i32 {
    let plain = e.render().to_string();
    let safe = sanitize_block(&plain);
    if e.use_stderr() && safe != plain {
        eprint!("{safe}");
    } else {
        let _ = e.print();
    }
    if e.use_stderr() { 2 } else { 0 }
}

/// A command used the wrong way (exit status 2, as for clap's own errors):
/// a destructive command without `--yes` and without a terminal to ask on.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// The exit status of a finished front end (0 ok, 1 failure, 2 usage),
/// after printing its error as one safe line.
pub fn exit_status(result: Result<()>) -> i32 {
    match result {
        Ok(()) => 0,
        Err(e) if e.downcast_ref::<UsageError>().is_some() => {
            warn(&error_chain(&e));
            2
        }
        Err(e) => {
            if e.downcast_ref::<io::Error>()
                .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
            {
                return 0;
            }
            warn(&error_chain(&e));
            1
        }
    }
}

/// An error and its causes, each said once: a cause whose text the message
/// before it already holds (errors that quote their source) is not repeated.
fn error_chain(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let said = cause.to_string();
        if text.contains(&said) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&said);
    }
    text
}

/// The process ends after the command: freeing a large session entry by
/// entry would only delay the exit.
fn keep_until_exit(s: Session) {
    std::mem::forget(s);
}

/// Prints one message on stderr as one safe line: errors carry paths and
/// ids from the files, and their chains of causes may break lines.
pub(crate) fn warn(message: &dyn Display) {
    let text = message.to_string().replace(['\n', '\r'], " ");
    eprintln!("piscope: {}", sanitize(&text));
}

/// A path for a readable line.
fn shown(path: &Path) -> String {
    sanitize(&path.display().to_string())
}

/// Runs one scripting command, its output on stdout.
pub fn run(command: Command) -> Result<()> {
    let stdout = io::stdout();
    // Lists and exports run to megabytes: written 64 KB a call.
    let mut out = BufWriter::with_capacity(64 << 10, stdout.lock());
    if command.prints_exact() {
        execute(command, &mut out)?;
    } else {
        let mut safe = SafeWriter::new(&mut out);
        execute(command, &mut safe)?;
        safe.flush().context("writing the output")?;
    }
    out.flush().context("writing the output")?;
    Ok(())
}

fn execute(command: Command, out: &mut dyn Write) -> Result<()> {
    match command {
        Command::Ls(args) => ls::run(args, out)?,
        Command::Rm(args) => rm::run(args, out)?,
        Command::Stats(args) => stats::run(args, out)?,
        Command::Prune(args) => prune::run(args, out)?,
        Command::Clean(args) => clean::run(args, out)?,
        Command::Restore(args) => restore::run(args, out)?,
        Command::Archive(args) => archive::run(args, out)?,
        Command::Unarchive(args) => archive::unarchive(args, out)?,
        Command::MoveProject(args) => move_project::run(args, out)?,
        Command::Completions { shell } => {
            let mut cmd = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(shell, &mut cmd, "piscope", out);
        }
        Command::Man => {
            let cmd = <Cli as clap::CommandFactory>::command();
            clap_mangen::Man::new(cmd).render(out)?;
        }
        Command::Fork { file, leaf } => {
            let new = session::write::fork::fork_session(&file, leaf.as_deref())?;
            writeln!(out, "{}", shown(&new))?;
        }
        Command::Export {
            file,
            leaf,
            format,
            all_branches,
            output,
            no_redact,
        } => {
            if all_branches && !matches!(format, ExportFormat::Html) {
                anyhow::bail!("--all-branches needs --format html");
            }
            if let ExportFormat::Jsonl = format {
                return export_jsonl(&file, leaf.as_deref(), output.as_deref(), out);
            }
            // One branch is written as it is read, each message from the
            // file (a leaf named by id is found by a scan: see
            // `open_once`); every branch is rendered whole.
            let mut s = match all_branches {
                false => Session::open_once(&file, Detail::Outline)?,
                true => Session::open(&file)?,
            };
            let at = match leaf.as_deref() {
                Some(id) => Some(
                    s.find(id)
                        .ok_or_else(|| session::SessionError::NoSuchEntry {
                            path: file.clone(),
                            id: id.to_string(),
                        })?,
                ),
                None => None,
            };
            if !all_branches {
                let write: render::WriteExport = match format {
                    ExportFormat::Html => render::write_html,
                    // (jsonl was written above)
                    ExportFormat::Md | ExportFormat::Jsonl => render::write_markdown,
                };
                // The branch's path is walked, then the tree's links let
                // go before its context is built.
                let ctx = s.context_once(at.or(s.tree.last()));
                export_streamed(&s, &ctx, !no_redact, write, output.as_deref(), out)?;
                keep_until_exit(s);
                return Ok(());
            }
            let shape = render::Shape::HtmlAllBranches;
            let mut export = render::Export::new(std::sync::Arc::new(s), at, shape)?;
            let findings = export.redact(Scanner::builtin(), &|_| !no_redact);
            report_findings(&findings);
            // Read in a terminal too: it passes the SafeWriter.
            let text = export.write();
            match output {
                None => out.write_all(text.as_bytes())?,
                Some(to) => {
                    write_new_file(&to, text.as_bytes())?;
                    writeln!(out, "{}", shown(&to))?;
                }
            }
        }
        Command::Tree { file, json, filter } => {
            // The texts are read from the file row by row; a legacy file
            // (whose messages migrate) is read whole instead.
            let mut s = Session::open_once(&file, Detail::Outline)?;
            if !json && s.detail != Detail::Outline {
                s = Session::open_once(&file, Detail::Full)?;
            }
            if json {
                write_tree_json(&s, out)?;
            } else {
                write_tree_text(&mut s, filter, out)?;
            }
            keep_until_exit(s);
        }
        Command::Context { file, leaf, json } => {
            let selector = match leaf.as_deref() {
                None => LeafSelector::Last,
                Some("null") => LeafSelector::Null,
                Some(id) => LeafSelector::Id(id.to_string()),
            };
            // A leaf named by id is found by a scan (see `open_once`).
            let mut s = Session::open_once(&file, Detail::Outline)?;
            let ctx = s.context_once(s.leaf_at(&selector));
            if json {
                s.write_context_json(&ctx, out)?;
                writeln!(out)?;
            } else {
                write_context_text(&s, &ctx, out)?;
            }
            keep_until_exit(s);
        }
        Command::Info { file, json } => {
            // Nothing info shows needs a message's fields, nor an id looked up.
            let s = Session::open_once(&file, Detail::Outline)?;
            if json {
                write_info_json(&s, out)?;
                writeln!(out)?;
            } else {
                write_info_text(&s, out)?;
            }
        }
        Command::Label {
            file,
            entry,
            text,
            clear,
            yes,
        } => {
            if !confirm::go_ahead_next_to_pi(out, &file, yes)? {
                writeln!(out, "nothing changed")?;
                return Ok(());
            }
            let label = if clear { None } else { text.as_deref() };
            let id = session::append_label(&file, &entry, label)?;
            let what = label.map_or("cleared the label".to_string(), |l| {
                format!("labelled it \"{}\"", sanitize(l))
            });
            writeln!(
                out,
                "{}: {what} on {} (entry {})",
                shown(&file),
                sanitize(&entry),
                sanitize(&id)
            )?;
        }
        Command::Rename { file, name, yes } => {
            if !confirm::go_ahead_next_to_pi(out, &file, yes)? {
                writeln!(out, "nothing changed")?;
                return Ok(());
            }
            let id = session::append_name(&file, &name)?;
            let id = sanitize(&id);
            match session::read_name(&file)? {
                Some(n) => writeln!(
                    out,
                    "{}: named \"{}\" (entry {id})",
                    shown(&file),
                    sanitize(&n)
                )?,
                None => writeln!(out, "{}: name cleared (entry {id})", shown(&file))?,
            }
        }
        Command::Branch {
            file,
            entry,
            summary,
            yes,
        } => {
            if !confirm::go_ahead_next_to_pi(out, &file, yes)? {
                writeln!(out, "nothing changed")?;
                return Ok(());
            }
            match session::branch_to(&file, &entry, summary.as_deref())? {
                BranchOutcome::AlreadyThere => {
                    writeln!(out, "{}: already at this point", shown(&file))?
                }
                BranchOutcome::Moved { leaf, appended } => writeln!(
                    out,
                    "{}: pi now resumes at {} (entry {})",
                    shown(&file),
                    sanitize(
                        leaf.as_deref()
                            .unwrap_or("the start, before the first entry")
                    ),
                    sanitize(&appended)
                )?,
            }
        }
    }
    Ok(())
}

/// What an export found, on stderr: how many secrets were redacted or
/// kept, then each with its place and masked preview.
fn report_findings(findings: &[render::Finding]) {
    if findings.is_empty() {
        return;
    }
    let redacted = findings.iter().filter(|f| f.redacted).count();
    let kept = findings.len() - redacted;
    let n = |k: usize| format!("{k} secret{}", if k == 1 { "" } else { "s" });
    let head = match (redacted, kept) {
        (r, 0) => format!("redacted {} (--no-redact keeps them):", n(r)),
        (0, k) => format!("{} left as they are (--no-redact):", n(k)),
        (r, k) => format!("redacted {}, kept {k}:", n(r)),
    };
    warn(&head);
    for f in findings {
        warn(&format!(
            "  {} {}",
            if f.redacted { "redacted" } else { "kept" },
            f.describe()
        ));
    }
}

/// `export --format jsonl`: the branch's lines, copied from the file
/// as they are (the outline finds them), streamed to `out` or to a new
/// file at `to` (removed again when the export fails part way). A copy of
/// the session's own data is never changed: the secrets in its strings
/// are listed on stderr, not redacted.
/// `export --format md`, or `html` of one branch: written as it is
/// rendered, a stretch of the context at a time; to `-o`, a new file
/// removed again if the export fails part way.
fn export_streamed(
    s: &Session,
    ctx: &session::Context,
    redact: bool,
    write: render::WriteExport,
    to: Option<&Path>,
    out: &mut dyn Write,
) -> Result<()> {
    let scanner = Scanner::builtin();
    let Some(to) = to else {
        let findings = write(s, ctx, scanner, redact, out)?;
        report_findings(&findings);
        return Ok(());
    };
    let f = new_file(to)?;
    let mut w = BufWriter::new(&f);
    let written = write(s, ctx, scanner, redact, &mut w)
        .map_err(anyhow::Error::from)
        .and_then(|findings| w.flush().map(|()| findings).map_err(anyhow::Error::from));
    drop(w);
    let done =
        written.and_then(|findings| f.sync_all().map(|()| findings).map_err(anyhow::Error::from));
    match done {
        Ok(findings) => {
            report_findings(&findings);
            writeln!(out, "{}", shown(to))?;
            Ok(())
        }
        Err(e) => {
            drop(f);
            let _ = std::fs::remove_file(to);
            Err(e.context(format!("{}: not written whole", shown(to))))
        }
    }
}

fn export_jsonl(
    file: &Path,
    leaf: Option<&str>,
    to: Option<&Path>,
    out: &mut dyn Write,
) -> Result<()> {
    use session::write::fork::{resolve_leaf, write_export_jsonl};
    // A leaf named by id is found by a scan (see `open_once`).
    let mut s = Session::open_once(file, Detail::Outline)?;
    let leaf = resolve_leaf(&s, leaf)?;
    s.tree.forget_children();
    let Some(to) = to else {
        let mut scan = JsonlScan::new(out);
        write_export_jsonl(&s, leaf, &mut scan)?;
        scan.report();
        keep_until_exit(s);
        return Ok(());
    };
    let f = new_file(to)?;
    let mut w = JsonlScan::new(BufWriter::new(&f));
    let written = write_export_jsonl(&s, leaf, &mut w)
        .map_err(anyhow::Error::from)
        .and_then(|()| w.flush().map_err(anyhow::Error::from));
    let scanned = JsonlScan {
        findings: std::mem::take(&mut w.findings),
        ..JsonlScan::new(io::sink())
    };
    drop(w);
    let done = written.and_then(|()| f.sync_all().map_err(anyhow::Error::from));
    if let Err(e) = done {
        drop(f);
        let _ = std::fs::remove_file(to);
        return Err(e.context(format!("{}: not written whole", shown(to))));
    }
    scanned.report();
    writeln!(out, "{}", shown(to))?;
    keep_until_exit(s);
    Ok(())
}

/// A writer that passes JSONL on as it is and scans each line's strings
/// (decoded, so a key whose line breaks JSON escapes is found whole) for
/// secrets, to list them.
struct JsonlScan<W: Write> {
    inner: W,
    line: Vec<u8>,
    number: usize,
    findings: Vec<render::Finding>,
}

impl<W: Write> JsonlScan<W> {
    fn new(inner: W) -> JsonlScan<W> {
        JsonlScan {
            inner,
            line: Vec::new(),
            number: 0,
            findings: Vec::new(),
        }
    }

    fn scan_line(&mut self) {
        self.number += 1;
        let Ok(v) = serde_json::from_slice::<Value>(&self.line) else {
            return;
        };
        let entry = v.get("id").and_then(Value::as_str).map(sanitize);
        let role = v
            .pointer("/message/role")
            .or_else(|| v.get("type"))
            .and_then(Value::as_str)
            .map_or_else(|| "line".to_string(), sanitize);
        let scanner = Scanner::builtin();
        let mut strings = Vec::new();
        json_strings(&v, &mut strings);
        for text in strings {
            for h in scanner.find(text) {
                self.findings.push(render::Finding {
                    kind: scanner.kind(&h).to_string(),
                    entry: entry.clone(),
                    role: role.clone(),
                    line: self.number,
                    preview: crate::secrets::mask(&text[h.start..h.end]),
                    redacted: false,
                });
            }
        }
    }

    /// The secrets the lines hold, on stderr.
    fn report(&self) {
        if self.findings.is_empty() {
            return;
        }
        let n = self.findings.len();
        warn(&format!(
            "{n} secret{} in the JSONL, left as they are (a copy of the session is not redacted; \
             line is the line of the export):",
            if n == 1 { "" } else { "s" }
        ));
        for f in &self.findings {
            warn(&format!("  {}", f.describe()));
        }
    }
}

impl<W: Write> Write for JsonlScan<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        for &b in &buf[..n] {
            if b == b'\n' {
                self.scan_line();
                self.line.clear();
            } else {
                self.line.push(b);
            }
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Every string in a JSON value, its keys' too.
fn json_strings<'a>(v: &'a Value, into: &mut Vec<&'a str>) {
    match v {
        Value::String(s) => into.push(s),
        Value::Array(a) => a.iter().for_each(|x| json_strings(x, into)),
        Value::Object(o) => {
            for (k, x) in o {
                into.push(k);
                json_strings(x, into);
            }
        }
        _ => {}
    }
}

/// A new file: an export never replaces one (nor follows a link left where
/// it is to go).
fn new_file(to: &Path) -> Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(to)
        .with_context(|| format!("{}: not written", shown(to)))
}

/// Writes a new file whole (see [`new_file`]).
fn write_new_file(to: &Path, bytes: &[u8]) -> Result<()> {
    let mut f = new_file(to)?;
    f.write_all(bytes)
        .and_then(|()| f.sync_all())
        .with_context(|| format!("{}: not written whole", shown(to)))
}

/// `oracle tree`: `[{id, parentId, type, label, children}]` in pre-order.
pub fn write_tree_json(s: &Session, out: &mut dyn Write) -> Result<()> {
    use session::line::entry::{Kind, Parent};
    // Built in a buffer of our own: a hundred thousand nodes make millions
    // of small writes.
    let mut buf: Vec<u8> = Vec::with_capacity(1 << 17);
    let any_labels = !s.tree.labels().is_empty();
    buf.push(b'[');
    for (n, node) in s.tree.preorder().into_iter().enumerate() {
        let e = s.entry(node);
        if n > 0 {
            buf.push(b',');
        }
        buf.push(b'{');
        if let Some(id) = e.id_str() {
            buf.extend_from_slice(b"\"id\":");
            session::line::jskey::push_json(&mut buf, id);
            buf.push(b',');
        }
        match &e.parent {
            Parent::Null => buf.extend_from_slice(b"\"parentId\":null,"),
            Parent::Id(p) => {
                buf.extend_from_slice(b"\"parentId\":");
                session::line::jskey::push_json(&mut buf, p);
                buf.push(b',');
            }
            _ => {}
        }
        match e.kind() {
            Kind::Missing => {}
            Kind::Odd => {
                buf.extend_from_slice(b"\"type\":");
                session::line::jskey::push_json(&mut buf, e.type_str());
                buf.push(b',');
            }
            _ => {
                buf.extend_from_slice(b"\"type\":");
                push_json_string(&mut buf, e.type_str());
                buf.push(b',');
            }
        }
        buf.extend_from_slice(b"\"label\":");
        match any_labels.then(|| s.label_of(node)).flatten() {
            Some(l) => session::line::jskey::push_json(&mut buf, &l.value),
            None => buf.extend_from_slice(b"null"),
        }
        buf.extend_from_slice(b",\"children\":[");
        for (k, c) in s.tree.children(node).iter().enumerate() {
            if k > 0 {
                buf.push(b',');
            }
            match s.entry(*c).id_str() {
                Some(id) => session::line::jskey::push_json(&mut buf, id),
                None => buf.extend_from_slice(b"null"),
            }
        }
        buf.extend_from_slice(b"]}");
        if buf.len() >= 1 << 16 {
            out.write_all(&buf)?;
            buf.clear();
        }
    }
    buf.extend_from_slice(b"]\n");
    out.write_all(&buf)?;
    Ok(())
}

/// `oracle info`: `{header, leafId, name, entryCount, labels, branch}`,
/// ids written as the values pi keeps (see `session::line::jskey`).
pub fn info_json(s: &Session) -> String {
    let mut o = Vec::new();
    // Writing to memory fails only for want of it.
    let _ = write_info_json(s, &mut o);
    String::from_utf8(o).unwrap_or_default()
}

/// [`info_json`] written to `out` as it is made, a stretch at a time: a
/// branch of ten million entries is ten million ids, and the labels as
/// many again, never held whole.
pub fn write_info_json(s: &Session, out: &mut dyn Write) -> std::io::Result<()> {
    use session::line::jskey;
    const STRETCH: usize = 1 << 16;
    let mut o: Vec<u8> = Vec::with_capacity(STRETCH + 1024);
    let flush = |o: &mut Vec<u8>, out: &mut dyn Write| -> std::io::Result<()> {
        if o.len() >= STRETCH {
            out.write_all(o)?;
            o.clear();
        }
        Ok(())
    };
    o.extend_from_slice(b"{\"header\":");
    o.extend_from_slice(s.header_json().as_bytes());
    if let Some(leaf) = s.leaf_id() {
        o.extend_from_slice(b",\"leafId\":");
        jskey::push_json(&mut o, leaf);
    } else if s.tree.last().is_none() {
        o.extend_from_slice(b",\"leafId\":null");
    }
    let name = s.name_json().unwrap_or_else(|| "null".to_string());
    o.extend_from_slice(format!(",\"name\":{name},\"entryCount\":{}", s.live_count()).as_bytes());
    o.extend_from_slice(b",\"labels\":{");
    // pi's labels object: property names are `String(id)`, in the order
    // the entries are, a later one of the same name keeping the first's
    // place. Plain ids that no two entries share name each property once:
    // written as they come; otherwise gathered first.
    let labelled = || {
        s.live_entries()
            .filter_map(|(_, e)| e.id_str())
            .filter_map(|id| s.label_by_id(id).map(|l| (id, l)))
    };
    let shared = s
        .problems
        .iter()
        .any(|p| matches!(p.kind, session::ProblemKind::DuplicateId { .. }));
    let properties =
        || labelled().map(|(id, l)| (jskey::property_json(id), jskey::to_json(&l.value)));
    let properties: Box<dyn Iterator<Item = (String, String)>> = if s.tree.labels().is_empty() {
        Box::new(std::iter::empty())
    } else if !shared && labelled().all(|(id, _)| jskey::is_plain(id)) {
        Box::new(properties())
    } else {
        let gathered: indexmap::IndexMap<String, String> = properties().collect();
        Box::new(gathered.into_iter())
    };
    for (k, (name, value)) in properties.enumerate() {
        if k > 0 {
            o.push(b',');
        }
        o.extend_from_slice(name.as_bytes());
        o.push(b':');
        o.extend_from_slice(value.as_bytes());
        flush(&mut o, out)?;
    }
    o.extend_from_slice(b"},\"branch\":[");
    let mut first = true;
    s.branch_in_stretches(|stretch| {
        for &i in stretch {
            if !std::mem::take(&mut first) {
                o.push(b',');
            }
            match s.entry(i).id_str() {
                Some(id) => jskey::push_json(&mut o, id),
                None => o.extend_from_slice(b"null"),
            }
            flush(&mut o, out)?;
        }
        Ok::<(), std::io::Error>(())
    })?;
    o.extend_from_slice(b"]}");
    out.write_all(&o)
}

fn home() -> Option<String> {
    std::env::var("HOME").ok()
}

/// The tree as pi's `/tree` shows it (its order, filter, connectors and
/// one-line texts), each row after its entry id: `◉` marks the leaf, `•` the
/// path to it.
/// The session's tree keeps only its labels once the view is laid out.
fn write_tree_text(s: &mut Session, filter: TreeFilter, out: &mut dyn Write) -> Result<()> {
    let filter = match filter {
        TreeFilter::Default => Filter::Default,
        TreeFilter::NoTools => Filter::NoTools,
        TreeFilter::User => Filter::UserOnly,
        TreeFilter::Labeled => Filter::LabeledOnly,
        TreeFilter::All => Filter::All,
    };
    let view = TreeView::new(s);
    // A million entries: their links are not needed from here on.
    s.tree.keep_labels_only();
    let home = home();
    let folded = std::collections::HashSet::new();
    // At outline depth messages keep no texts: each row's is read from its
    // line, and what pi's filter needs of them from one pass before.
    let mut lazy = None;
    let visible = if s.detail == Detail::Outline {
        let texts = lazy.insert(session::tree::entry_line::LazyTexts::read(s)?);
        view::shown(s, |node| {
            let role = s.outline_fact(node).map(|(role, ..)| role);
            view.shows_as(s, filter, node, role, texts.bare(node), |n| s.has_label(n))
        })
    } else {
        view::shown(s, |node| view.shows(s, filter, node))
    };
    // What the filter asked of the messages, the view's order and links go
    // before and once the rows are laid out: the listing needs the marks.
    s.forget_outline_facts();
    let s: &Session = s;
    let (rows, marks) = view.into_rows(visible, &folded);
    let texts = match lazy {
        Some(_) => Vec::new(),
        None => view::texts(s, home.as_deref()),
    };
    for (row, connectors) in rows.rows.iter().zip(rows.gutter_rows(false)) {
        let node = row.node;
        let mark = marks.mark(node).text();
        let label = s
            .label_of(node)
            .map(|l| format!("[{}] ", sanitize(&l.label)))
            .unwrap_or_default();
        let text = match &mut lazy {
            Some(lazy) => std::borrow::Cow::Owned(lazy.text(s, node, home.as_deref())?),
            None => std::borrow::Cow::Borrowed(texts.get(node as usize).map_or("", String::as_str)),
        };
        writeln!(
            out,
            "{:<8}  {connectors}{mark}{label}{}",
            sanitize(s.entry(node).id_str().unwrap_or("-")),
            sanitize(&text)
        )?;
    }
    Ok(())
}

fn write_info_text(s: &Session, out: &mut dyn Write) -> Result<()> {
    let h = &s.header;
    writeln!(out, "file:      {}", shown(&s.path))?;
    writeln!(out, "id:        {}", sanitize(&h.id))?;
    writeln!(
        out,
        "cwd:       {}",
        sanitize(h.cwd.as_deref().unwrap_or(""))
    )?;
    writeln!(
        out,
        "created:   {}",
        sanitize(h.timestamp.as_deref().unwrap_or(""))
    )?;
    if s.is_legacy() {
        writeln!(
            out,
            "version:   {} (read as 3; migrated on first write)",
            h.version
        )?;
    }
    if let Some(p) = &h.parent_session {
        writeln!(out, "parent:    {}", sanitize(p))?;
    }
    writeln!(
        out,
        "name:      {}",
        sanitize(&s.name().unwrap_or_else(|| "(none)".into()))
    )?;
    writeln!(out, "entries:   {}", s.live_count())?;
    writeln!(
        out,
        "leaf:      {}",
        sanitize(s.leaf_id().unwrap_or("(none)"))
    )?;
    let mut branch = 0;
    s.branch_in_stretches(|stretch| {
        branch += stretch.len();
        Ok::<(), ()>(())
    })
    .ok();
    writeln!(out, "branch:    {branch} entries")?;
    let labels = s.live_entries().filter(|&(i, _)| s.has_label(i)).count();
    writeln!(out, "labels:    {labels}")?;
    let damaged = s.damaged_lines();
    writeln!(
        out,
        "damaged:   {damaged} line{}",
        if damaged == 1 { "" } else { "s" }
    )?;
    for p in &s.problems {
        writeln!(out, "  {}", sanitize(&p.to_string()))?;
    }
    Ok(())
}

fn write_context_text(s: &Session, ctx: &session::Context, out: &mut dyn Write) -> Result<()> {
    let mut file = std::fs::File::open(&s.path).with_context(|| s.path.display().to_string())?;
    // Counted first, then read again one entry at a time: a branch of
    // millions of messages is never held whole.
    let count = s.context_message_count(ctx, &mut file)?;
    let model = ctx.model.as_ref().map_or("(none)".to_string(), |m| {
        format!(
            "{}/{}",
            m.provider
                .as_deref()
                .map_or("?".into(), session::line::jskey::display),
            m.model_id
                .as_deref()
                .map_or("?".into(), session::line::jskey::display)
        )
    });
    let size = match s.context_tokens(ctx, &mut file)? {
        Some(t) => format!("{t} tokens"),
        None => "unknown until the next answer".to_string(),
    };
    writeln!(
        out,
        "model: {} · thinking: {} · {} messages · context: {size}",
        sanitize(&model),
        sanitize(
            &ctx.thinking_level
                .as_deref()
                .map_or("(unset)".into(), session::line::jskey::display)
        ),
        count
    )?;
    for item in &ctx.items {
        for m in s.context_messages(item, &mut file)? {
            let v: Value = serde_json::from_str(&m).unwrap_or(Value::Null);
            let role = v.get("role").and_then(Value::as_str).unwrap_or("?");
            writeln!(out, "\n── {} ──", sanitize(role))?;
            // A block: the SafeWriter cleans it and keeps its line breaks.
            writeln!(out, "{}", session::content::readable_message(&v))?;
        }
    }
    Ok(())
}
