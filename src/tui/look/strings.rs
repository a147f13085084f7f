//! Every sentence the browser says, in one place: dialog titles, questions
//! and what Enter does, status messages and banners, what a pane says when
//! it has nothing to show. A text that names a key takes it as the user's
//! keymap binds it, so it never names a key the user rebound. The workers
//! report facts; the sentences are made here from them.

use crate::safe_text::clean_line;
use crate::tui::look::format;
use std::path::Path;

pub const ALREADY_THERE: &str = "Already at this point";
pub const LABEL_CLEARED: &str = "Label cleared";
pub const NAME_CLEARED: &str = "Name cleared";
pub const SESSION_DELETED: &str = "This session was deleted.";
pub const NOTHING_TO_DELETE: &str = "No session here to delete";
pub const NO_EMPTY_SESSIONS: &str = "No listed session is empty (every one has a user message)";
pub const NO_ENTRY: &str = "Select an entry first";
pub const FOLLOW_ON: &str = "Following the leaf as the session grows";
pub const FOLLOW_OFF: &str = "No longer following the leaf";
/// After a deep-search hit's kind: the model no longer sees the entry.
pub const COMPACTED_AWAY: &str = " (compacted away)";

pub const BRANCH_TITLE: &str = "Branch here";
pub const LABEL_TITLE: &str = "Label";
pub const RENAME_TITLE: &str = "Rename";
pub const EXPORT_TITLE: &str = "Export";
pub const DELETE_TITLE: &str = "Delete";
pub const DELETE_FOR_GOOD_TITLE: &str = "The trash failed";
pub const DELETE_EMPTY_TITLE: &str = "Delete empty sessions";
pub const RUNNING_PI_TITLE: &str = "pi may be running on this session";
pub const FOLDER_GONE_TITLE: &str = "The session's folder is gone";
pub const PI_MISSING_TITLE: &str = "pi is not installed";

/// The word a permanent delete must be confirmed with.
pub const DELETE_WORD: &str = "delete";

// What Enter does in each dialog, as its hint line says it.
pub const LABEL_YES: &str = "label";
pub const RENAME_YES: &str = "rename";
pub const BRANCH_YES: &str = "branch";
pub const EXPORT_YES: &str = "export";
pub const DELETE_YES: &str = "move to the trash";
pub const DELETE_EMPTY_YES: &str = "move them to the trash";
pub const DELETE_FOR_GOOD_YES: &str = "delete for good";
pub const PRUNE_YES: &str = "prune";
pub const WRITE_ANYWAY: &str = "write anyway";
pub const DELETE_ANYWAY: &str = "delete anyway";
pub const RESUME_HERE_YES: &str = "open pi here";
pub const CLOSE: &str = "close";

/// The first of `n` problems, and how many more there are.
pub fn first_of(first: &str, n: usize) -> String {
    match n {
        0 | 1 => first.to_string(),
        n => format!("{first} (and {} more)", n - 1),
    }
}

pub fn labelled(label: &str) -> String {
    format!("Labelled [{}]", clean_line(label))
}

pub fn renamed(name: &str) -> String {
    format!("Named \"{}\"", clean_line(name))
}

pub fn branched(leaf: Option<&str>) -> String {
    match leaf {
        Some(id) => format!("pi now resumes at {}", clean_line(id)),
        None => "pi now resumes at the start, before the first entry".to_string(),
    }
}

/// The branch dialog: `resubmit` for a user (or extension) message, where
/// pi resumes just before it, as its `/tree` does, so it can be sent again.
pub fn branch_body(entry: &str, resubmit: bool) -> Vec<String> {
    let first = if resubmit {
        vec![
            format!("pi will resume just before: {entry}"),
            "As in pi's /tree: the message is not kept on the new branch; resume in pi and send it again, edited or not.".to_string(),
        ]
    } else {
        vec![format!("pi will resume from: {entry}")]
    };
    let mut body = first;
    body.push(String::new());
    body.push(
        "A summary of the branch you leave (optional): pi adds it to the context.".to_string(),
    );
    body
}

pub fn label_body(entry: &str) -> Vec<String> {
    vec![
        format!("Entry: {entry}"),
        "An empty label removes it.".to_string(),
    ]
}

pub fn rename_body(title: &str) -> Vec<String> {
    vec![
        format!("Session: {title}"),
        "An empty name removes it.".to_string(),
    ]
}

/// The export's formats, in the order the switch key goes through them.
pub const EXPORT_CHOICES: [&str; 3] = ["Markdown", "HTML page", "HTML, every branch"];

/// The export dialog's body, choice `chosen` of [`EXPORT_CHOICES`] marked.
pub fn export_body(entry: &str, chosen: usize, switch: &str) -> Vec<String> {
    export_body_after(format!("The branch up to: {entry}"), chosen, switch)
}

/// The export dialog's body after its first line (`head`, the entry).
pub fn export_body_after(head: String, chosen: usize, switch: &str) -> Vec<String> {
    let shown: Vec<String> = EXPORT_CHOICES
        .iter()
        .enumerate()
        .map(|(i, name)| {
            if i == chosen {
                format!("[{name}]")
            } else {
                name.to_string()
            }
        })
        .collect();
    vec![
        head,
        format!("As: {}  ({switch} switches)", shown.join(" · ")),
        "Into this new file (an existing file is never replaced):".to_string(),
    ]
}

/// A question followed by the sessions it concerns, one per line.
pub fn with_sessions(question: String, sessions: &[String]) -> Vec<String> {
    let mut body = vec![question];
    body.extend(sessions.iter().map(|s| format!("  • {s}")));
    body
}

pub fn delete_question(n: usize) -> String {
    format!(
        "Move {} to the trash?",
        format::count(n, "session", "sessions")
    )
}

pub fn delete_empty_question(n: usize) -> String {
    format!(
        "{} without a user message will go to the trash:",
        format::count(n, "session", "sessions")
    )
}

pub fn delete_for_good_body(failures: &[(String, String)]) -> Vec<String> {
    let mut body = vec![format!(
        "{} could not be moved to the trash:",
        format::count(failures.len(), "session", "sessions")
    )];
    for (name, why) in failures {
        body.push(format!("  • {name}: {why}"));
    }
    body.push(String::new());
    body.push(format!(
        "Delete them for good instead? This cannot be undone. Type \"{DELETE_WORD}\" to confirm."
    ));
    body
}

/// What a delete did; the key that takes a delete to the trash back, when
/// one is bound.
pub fn deleted(n: usize, for_good: bool, undo: Option<&str>) -> String {
    let what = format::count(n, "session", "sessions");
    match (for_good, undo) {
        (true, _) => format!("Deleted {what} for good"),
        (false, Some(key)) => format!("Moved {what} to the trash ({key} undoes)"),
        (false, None) => format!("Moved {what} to the trash"),
    }
}

pub fn running_pi_body(seconds: u64) -> Vec<String> {
    vec![
        format!("This session's file changed {seconds} s ago: pi may have it open."),
        "A running pi will not see this change until the session is reopened (/resume), and may go on from where it was.".to_string(),
        String::new(),
        "Write anyway?".to_string(),
    ]
}

pub fn running_pi_delete_body(seconds: u64) -> Vec<String> {
    vec![
        format!("A session's file changed {seconds} s ago: pi may have it open."),
        "A running pi goes on writing to it, and would start the file anew with only its next entries.".to_string(),
        String::new(),
        "Delete anyway?".to_string(),
    ]
}

pub fn folder_gone_body(cwd: &str, here: &Path) -> Vec<String> {
    vec![
        format!("{} no longer exists.", clean_line(cwd)),
        format!(
            "Open pi in the current folder, {}?",
            clean_line(&here.display().to_string())
        ),
    ]
}

pub fn pi_missing_body(program: &str, by_hand: &str) -> Vec<String> {
    vec![
        format!("{} was not found on PATH.", clean_line(program)),
        "Install pi, or set the command in piscope's config ([pi] command) or PISCOPE_PI_COMMAND. To resume by hand:".to_string(),
        String::new(),
        clean_line(by_hand),
    ]
}

/// The open-subagent key on an entry that is no tool call.
pub const NOT_A_TOOL_CALL: &str =
    "Not a tool call: select the call that started a subagent, or its result";
/// No session names the open one as where it started.
pub const NO_SUBAGENTS: &str = "No subagent sessions were started from this session";
/// The call started none of the sessions started from this one.
pub const NO_SUBAGENT_OF_CALL: &str =
    "This tool call started none of this session's subagent sessions";

/// A subagent's session opened from its tool call (of `of` it started).
pub fn opened_subagent(path: &Path, of: usize) -> String {
    let name = clean_line(&file_name(path));
    match of {
        1 => format!("Opened the subagent session {name}"),
        n => format!(
            "Opened the subagent session {name}, 1 of {n} this call started (the others are beside it in the sessions list)"
        ),
    }
}

pub fn forked(to: &Path) -> String {
    format!("Forked into {}", clean_line(&file_name(to)))
}

pub fn exported(to: &Path, redacted: usize, kept: usize) -> String {
    format!(
        "Exported to {}{}",
        clean_line(&to.display().to_string()),
        secrets_said(redacted, kept)
    )
}

pub fn copied(chars: usize, terminal: bool, redacted: usize, kept: usize) -> String {
    let what = format::count(chars, "character", "characters");
    let secrets = secrets_said(redacted, kept);
    if terminal {
        format!("Copied {what}{secrets} through the terminal (OSC 52; no system clipboard here)")
    } else {
        format!("Copied {what}{secrets}")
    }
}

/// What was done with the secrets found, after what was written.
fn secrets_said(redacted: usize, kept: usize) -> String {
    match (redacted, kept) {
        (0, 0) => String::new(),
        (r, 0) => format!(" ({} redacted)", format::count(r, "secret", "secrets")),
        (0, k) => format!(
            " ({} kept as they are)",
            format::count(k, "secret", "secrets")
        ),
        (r, k) => format!(
            " ({} redacted, {k} kept)",
            format::count(r, "secret", "secrets")
        ),
    }
}

/// The review of the secrets an export would write.
pub const REVIEW_EXPORT_TITLE: &str = "Secrets in the export";
/// The review of the secrets a copy would carry.
pub const REVIEW_COPY_TITLE: &str = "Secrets in the copy";
pub const REVIEW_COPY_YES: &str = "copy";
pub const REVIEW_CANCELLED: &str = "Nothing written: the secrets stay where they are";

pub fn polling(reason: &str) -> String {
    format!("Watching for changes by polling: {}", clean_line(reason))
}

/// How the demo's copies are watched, by the system's events or by polling.
pub fn watching_demo(dir: &Path, polling: Option<&str>) -> String {
    let dir = clean_line(&dir.display().to_string());
    match polling {
        Some(reason) => format!(
            "Watching the demo copies in {dir} by polling: {}",
            clean_line(reason)
        ),
        None => format!("Watching the demo copies in {dir} for changes"),
    }
}

/// The status line after a read: lines pi skips too.
pub fn damaged_lines(n: usize) -> String {
    format!(
        "{n} damaged line{} skipped, as pi skips them",
        if n == 1 { "" } else { "s" }
    )
}

/// A deep-search hit (or an entry to select) that the session lacks.
pub fn entry_not_in_session(id: &str) -> String {
    format!("Entry {id} is not in this session")
}

/// Over the panes while the demo sessions are shown.
pub fn demo_banner(dir: &Path) -> String {
    format!(
        "Demo sessions: copies in {}, yours to edit. Your own sessions appear once pi has written some.",
        dir.display()
    )
}

/// The catalog's problem when the demo sessions cannot be copied.
pub fn demo_copy_failed(why: &str) -> String {
    format!("cannot copy the demo sessions: {why}")
}

/// The catalog's problem when there is no sessions folder at all.
pub const NO_SESSIONS_FOLDER: &str = "no sessions folder";

/// No data folder, so no archive to list.
pub const NO_ARCHIVE_FOLDER: &str = "piscope has no data folder (no home folder), so no archive";

/// The usage view asked for with one session file open.
pub const USAGE_NEEDS_LIST: &str =
    "The usage view adds up the sessions list: start piscope without a file";

/// The session chosen in the usage view is no longer listed.
pub const USAGE_SESSION_GONE: &str = "That session is no longer in the sessions list";

/// The session chosen in the usage view is in the trash.
pub fn usage_session_deleted(undo: &str) -> String {
    format!("In the trash (its spend still counts): {undo} undoes the last delete")
}

/// The usage view's scope when the sessions pane has a search.
pub fn usage_scope_matching(scope: &str, query: &str) -> String {
    format!("{scope} · matching {query}")
}

/// A session as a dialog names it (both parts made safe already).
pub fn session_named(title: &str, file: &str) -> String {
    format!("{title} ({file})")
}

/// A file that could not be written, and why.
pub fn file_failed(path: &Path, why: &dyn std::fmt::Display) -> String {
    format!("{}: {why}", path.display())
}

// What a pane says when it has nothing to show.

pub const TREE_NO_SESSION: &str = "Choose a session to see its entries.";
pub const TREE_ONLY_HEADER: &str = "No entries yet: this session has only its header.";

/// Said in the tree pane while a long session's rows are laid out.
pub fn laying_out_rows(entries: usize) -> String {
    format!(
        "Laying out {} entries…",
        crate::render::message::thousands(entries as u64)
    )
}

/// Said in the tree pane while a session is read; how far, once a long
/// read says.
pub fn tree_reading(file: &str, percent: Option<u64>) -> String {
    format!("Reading {file}…{}", read_so_far(percent))
}

/// The status bar's word while a session is read.
pub fn status_reading(file: &str, percent: Option<u64>) -> String {
    format!("reading {file}{}", read_so_far(percent))
}

/// How much of a long read is done (" 42%"), after what is read.
fn read_so_far(percent: Option<u64>) -> String {
    percent.map_or(String::new(), |p| format!(" {p}%"))
}

pub fn tree_cannot_show(file: &str) -> String {
    format!("Cannot show {file}")
}

pub const PICKER_LOOKING: &str = "Looking for sessions…";
pub const PICKER_PATTERN_INVALID: &str = "Nothing is listed until the pattern is valid.";
pub const PICKER_CREATE_ONE: &str = "Run pi in a project to create one, or try piscope --demo.";
pub const DEEP_NO_HITS: &str = "No entry holds it.";

pub fn picker_no_sessions(dir: &str) -> String {
    format!("No pi sessions in {dir}.")
}

pub fn picker_no_match(query: &str) -> String {
    format!("No session matches \"{query}\".")
}

pub fn file_name(p: &Path) -> String {
    p.file_name().map_or_else(
        || p.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

// Texts that name a key: the key comes from the user's keymap, so a
// rebound key is named as bound.

/// What the tree's search line starts with (pi's words).
pub const SEARCH_PROMPT: &str = "Type to search: ";

/// The tree's search line: which hit the cursor is on (`3/16`), or how
/// many there are, and the keys that step through them.
pub fn search_hits(at: Option<usize>, n: usize, next: &str, previous: &str) -> String {
    let count = match at {
        Some(i) => format!("{}/{n}", i + 1),
        None => format::count(n, "hit", "hits"),
    };
    format!("  {count} ({next} / {previous})")
}

pub fn no_filter_match(default_view: &str) -> String {
    format!("No entries match this filter ({default_view} shows the default view).")
}

pub fn need_query(deep_search: &str) -> String {
    format!("Type a query first; {deep_search} then searches inside every entry")
}

pub fn no_session_matches_hint(clear: &str, deep_search: &str) -> String {
    format!("{clear} clears the search; {deep_search} searches inside every entry.")
}

pub fn no_named_sessions(named: &str) -> String {
    format!("No named sessions here. {named} shows all.")
}

/// The archived scope with nothing in the archive: how sessions get there.
pub fn no_archived_sessions(archive: &str, scope: &str) -> String {
    format!(
        "Nothing is archived. {archive} in the other scopes ({scope}) moves the marked or selected sessions here, out of pi's /resume."
    )
}

pub fn no_sessions_in_folder(scope: &str) -> String {
    format!("No sessions in this folder. {scope} shows the archived sessions, then every project.")
}

pub fn deep_back(clear: &str) -> String {
    format!(" ({clear} back)")
}

pub fn config_more_problems(n: usize, help: &str) -> String {
    format!(" (and {n} more, see {help})")
}

pub const PRUNE_TITLE: &str = "Prune a branch";
pub const NOTHING_TO_UNDO: &str =
    "Nothing to undo: no session piscope deleted or pruned is in the trash";

/// What pruning takes away, and what stays, for the confirmation.
pub fn prune_body(
    entry: &str,
    removed: usize,
    messages: u64,
    tokens: f64,
    carried: usize,
    pi_open: Option<&str>,
) -> Vec<String> {
    let mut body = vec![
        format!("Remove {entry} and everything below it?"),
        format!(
            "{removed} entries go: {messages} messages, {} tokens.",
            tokens.round() as u64
        ),
    ];
    if carried > 0 {
        body.push(format!(
            "{carried} kept: the session's name and labels of kept entries, set on this branch."
        ));
    }
    body.push("The original goes to the trash first.".to_string());
    if let Some(why) = pi_open {
        body.push(format!(
            "pi may have this session open ({why}): a running pi keeps what it has in memory; close it there first."
        ));
    }
    body
}

/// After a prune: how many entries went, and the key that undoes it.
pub fn pruned(removed: usize, undo_key: &str) -> String {
    format!("Pruned {removed} entries; the original is in the trash ({undo_key} undoes)")
}

pub fn restored(name: &str) -> String {
    format!("Restored {name} from the trash")
}

pub const ARCHIVE_TITLE: &str = "Archive";
pub const ARCHIVE_YES: &str = "archive";
pub const NOTHING_TO_ARCHIVE: &str = "No session here to archive";

pub fn archive_question(n: usize) -> String {
    format!(
        "Move {} to piscope's archive? pi will no longer list them; piscope keeps them (ls --archived).",
        format::count(n, "session", "sessions")
    )
}

pub const UNARCHIVE_TITLE: &str = "Put back";
pub const UNARCHIVE_YES: &str = "put back";
pub const NOTHING_TO_UNARCHIVE: &str = "No archived session here to put back";

pub fn unarchive_question(n: usize) -> String {
    format!(
        "Put {} back in pi's sessions folder? pi will list them again.",
        format::count(n, "session", "sessions")
    )
}

pub fn put_back(n: usize) -> String {
    format!(
        "Put {} back in pi's sessions folder",
        format::count(n, "session", "sessions")
    )
}

/// A writing action asked of a session in the archive.
pub fn archived_is_read_only(archive: &str) -> String {
    format!(
        "Archived sessions are not changed: {archive} puts the session back in pi's folder first"
    )
}

pub fn archived(n: usize, undo: Option<&str>) -> String {
    let what = format::count(n, "session", "sessions");
    match undo {
        Some(key) => format!("Archived {what} ({key} undoes)"),
        None => format!("Archived {what}"),
    }
}

pub fn unarchived(name: &str) -> String {
    format!("Put {name} back from the archive")
}

pub const CLEAN_TITLE: &str = "Clean up";
pub const CLEAN_RULES: &str = "--empty --older-than 30d";

pub fn clean_body() -> Vec<String> {
    vec![
        "Rules, all of which must hold: --empty, --no-reply, --folder-gone, --older-than DUR (30d, 2w, 6mo), --larger-than SIZE (10M).".to_string(),
        "Sessions changed in the last minute are never included. The listed sessions are looked at.".to_string(),
    ]
}

/// Above the clean-up dialog's live list.
pub fn clean_matches(n: usize, listed: usize) -> String {
    format!(
        "{n} of the {} match:",
        format::count(listed, "listed session", "listed sessions")
    )
}

/// A clean-up rule that does not parse (yet): why.
pub fn clean_rules_error(why: &str) -> String {
    format!("Rules: {}", clean_line(why))
}

/// What Enter does in the clean-up dialog.
pub fn clean_yes(n: usize) -> String {
    format!(
        "move {} to the trash",
        format::count(n, "session", "sessions")
    )
}

pub const CLEAN_NONE: &str = "No listed session matches these rules.";

/// One session the clean-up rules pick: its title, its project and why.
pub fn clean_picked(title: &str, project: &str, why: &str) -> String {
    format!("  • {title} · {project} · {why}")
}

/// After a compaction's row in the tree: what it replaced.
pub fn replaced_entries(n: usize) -> String {
    match n {
        1 => " · replaced 1 entry".to_string(),
        n => format!(" · replaced {n} entries"),
    }
}

// The files sessions touched: the tree's list, the sessions pane's filter.
pub const TOUCHED_FILES_TITLE: &str = "Files this session touched";
pub const TOUCHED_SCOPE_TITLE: &str =
    "Sessions that touched a file: type a path or a glob, or pick";
pub const TOUCHED_READING: &str = "Reading the tool calls…";
pub const TOUCHED_NONE: &str = "No tool call touched a file";
pub const TOUCHED_NO_WALK: &str = "Choose a file from the session's touched files first";

/// The file chosen in the tree, and the keys that step through its entries.
pub fn touched_walk(file: &str, n: usize, changed: bool, next: &str, previous: &str) -> String {
    let what = if changed { "changed" } else { "touched" };
    let entries = if n == 1 { "entry" } else { "entries" };
    format!(
        "{n} {entries} {what} {}: {next} next, {previous} previous",
        clean_line(file)
    )
}

/// Where the step through a file's entries is.
pub fn touched_step(at: usize, n: usize, file: &str) -> String {
    format!("{}/{n} of {}", at + 1, clean_line(file))
}

/// The sessions pane's title part for its file filter.
pub fn touched_filter(pattern: &str) -> String {
    format!("touched {}", clean_line(pattern))
}

pub fn touched_failed(why: &str) -> String {
    format!("Could not read the touched files: {}", clean_line(why))
}

/// How many sessions the filter keeps, and the key that clears it.
pub fn touched_filtered(n: usize, pattern: &str, clear: &str) -> String {
    let sessions = if n == 1 { "session" } else { "sessions" };
    format!(
        "{n} {sessions} touched {}; {clear} clears the filter",
        clean_line(pattern)
    )
}
