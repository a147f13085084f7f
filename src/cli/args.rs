//! The command line's arguments (clap definitions only): what `main` parses
//! before it picks the front end, the browser or one scripting command.

use crate::catalog::SortMode;
use crate::catalog::search::span::{Bound, Span};
use crate::catalog::search::touched::FilePattern;
use crate::catalog::usage::{DateRange, Zone};
use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::sync::LazyLock;

/// What `--version` prints after the name: piscope's version and the pi
/// release whose session rules it follows.
static VERSION: LazyLock<String> = LazyLock::new(|| {
    format!(
        "{} (follows pi {})",
        env!("CARGO_PKG_VERSION"),
        crate::session::PI_VERSION
    )
});

#[derive(Parser, Debug)]
#[command(
    name = "piscope",
    version = VERSION.as_str(),
    about = "Browse, search and edit pi coding-agent sessions",
    long_about = "Browse, search and edit pi coding-agent sessions.\n\n\
        Without a command, piscope opens the terminal browser on your sessions \
        (or on FILE); with one, it runs that scripting command.",
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Open the browser on this one session file.
    pub file: Option<PathBuf>,
    /// Open the browser on copies of the bundled demo sessions.
    #[arg(long, conflicts_with = "file")]
    pub demo: bool,
    /// The sessions folder (else pi's: PI_CODING_AGENT_SESSION_DIR, settings, ~/.pi/agent/sessions).
    #[arg(long, value_name = "DIR")]
    pub session_dir: Option<String>,
    /// Neither read nor write the catalog cache.
    #[arg(long)]
    pub no_cache: bool,
    /// Enter prints the chosen session's path and exits, for
    /// `pi --session "$(piscope --print)"`.
    #[arg(long)]
    pub print: bool,
    /// Notice changes to session files by polling (for network file systems).
    #[arg(long)]
    pub poll: bool,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// List the sessions (current folder's, or --all), search them (--query).
    Ls(ListArgs),
    /// Move sessions to the trash (--permanent: delete for good).
    Rm(RemoveArgs),
    /// Tokens and cost per day, week, month, project, model or session
    /// (current folder's, or --all); copies in forks and clones count once.
    Stats(StatsArgs),
    /// Remove the branch an entry starts (the entry and all below it); the original to the trash.
    Prune(PruneArgs),
    /// Move the sessions every given rule matches to the trash (rules combine: all must hold).
    Clean(CleanArgs),
    /// Put sessions piscope moved to the trash back where they were.
    Restore(RestoreArgs),
    /// Move sessions out of pi's folder into piscope's archive (pi no longer
    /// lists them; `ls --archived` does), or one branch into an archive file.
    Archive(ArchiveArgs),
    /// Put archived sessions, or an archived branch, back as they were.
    Unarchive(UnarchiveArgs),
    /// Follow a project folder that moved: its sessions' cwd rewritten, files moved to pi's folder for NEW.
    MoveProject(MoveProjectArgs),
    /// Print a shell completion script (install: see the README).
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print piscope's man page (roff).
    Man,
    /// Write one branch into a new session file beside this one (as pi's fork).
    Fork {
        file: PathBuf,
        /// The branch's last entry (default: the current leaf).
        #[arg(long)]
        leaf: Option<String>,
    },
    /// Print one branch as Markdown, as one HTML page, or as a session file of its own.
    Export {
        file: PathBuf,
        /// The branch's last entry (default: the current leaf).
        #[arg(long)]
        leaf: Option<String>,
        #[arg(long, value_enum, default_value = "md")]
        format: ExportFormat,
        /// Every branch, navigable (HTML only).
        #[arg(long, conflicts_with = "leaf")]
        all_branches: bool,
        /// Write to this new file instead of printing (an existing file is never replaced).
        #[arg(short = 'o', long = "output", value_name = "OUT")]
        output: Option<PathBuf>,
        /// Keep the secrets found (API keys, tokens, private keys, passwords) instead of
        /// redacting them; they are still listed on stderr. JSONL is never redacted, only listed.
        #[arg(long)]
        no_redact: bool,
    },
    /// Print the entry tree as pi's /tree shows it (--json as pi's getTree()).
    Tree {
        file: PathBuf,
        #[arg(long)]
        json: bool,
        /// Which entries to show, as pi's /tree filters do.
        #[arg(long, value_enum, default_value = "default", conflicts_with = "json")]
        filter: TreeFilter,
    },
    /// Print what the model sees at a leaf (--json as pi's buildSessionContext()).
    Context {
        file: PathBuf,
        /// Entry id to build the context at, or `null` for before the first entry.
        #[arg(long)]
        leaf: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Print header, leaf, name, labels, active branch and problems.
    Info {
        file: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Set or clear the label of an entry.
    Label {
        file: PathBuf,
        entry: String,
        /// The label text.
        #[arg(required_unless_present = "clear", conflicts_with = "clear")]
        text: Option<String>,
        /// Remove the entry's label.
        #[arg(long)]
        clear: bool,
        /// Do not ask when pi may have the session open.
        #[arg(long, short)]
        yes: bool,
    },
    /// Name the session (an empty name clears it).
    Rename {
        file: PathBuf,
        name: String,
        /// Do not ask when pi may have the session open.
        #[arg(long, short)]
        yes: bool,
    },
    /// Make pi resume at an entry (pi's /tree rule), optionally summarising the branch left.
    Branch {
        file: PathBuf,
        entry: String,
        #[arg(long)]
        summary: Option<String>,
        /// Do not ask when pi may have the session open.
        #[arg(long, short)]
        yes: bool,
    },
}

impl Command {
    /// Output for programs (pi's JSON, a session file's lines), kept byte
    /// for byte; all other output is for reading in a terminal.
    pub fn prints_exact(&self) -> bool {
        match self {
            Command::Ls(args) => args.json(),
            Command::Stats(args) => args.json,
            Command::Export { format, .. } => {
                matches!(format, ExportFormat::Jsonl | ExportFormat::Html)
            }
            Command::Tree { json, .. }
            | Command::Context { json, .. }
            | Command::Info { json, .. } => *json,
            Command::Clean(args) => args.json,
            Command::Restore(args) => args.json,
            Command::Unarchive(args) => args.json,
            Command::Completions { .. } | Command::Man => true,
            _ => false,
        }
    }
}

/// pi's `/tree` filters.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TreeFilter {
    /// Everything but settings (model, thinking level, labels, titles, custom entries).
    Default,
    /// The default without tool results.
    NoTools,
    /// User messages only.
    User,
    /// Labelled entries only.
    Labeled,
    /// Every entry (but usage records).
    All,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum ExportFormat {
    Md,
    /// One self-contained page: no script, no network.
    Html,
    Jsonl,
}

#[derive(clap::Args, Debug)]
pub struct ListArgs {
    /// Every project's sessions, not only the current folder's.
    #[arg(long)]
    pub all: bool,
    /// Print pi's session-list JSON (flat: threaded falls back to newest first).
    #[arg(long)]
    pub json: bool,
    /// Search with pi's /resume language: words, "phrases", re:PATTERN.
    #[arg(long, short)]
    pub query: Option<String>,
    /// Order of the list.
    #[arg(long, value_enum)]
    pub sort: Option<ListSort>,
    /// Only sessions with a name.
    #[arg(long)]
    pub named: bool,
    /// Also search tool output, bash output, summaries and custom messages;
    /// prints each matching entry.
    #[arg(long, requires = "query")]
    pub deep: bool,
    /// Only sessions whose tool calls read, edited or wrote PATH (a path or a
    /// quoted glob, resolved against each session's cwd; bash commands that
    /// name it count as weaker evidence); prints each such entry, newest first.
    #[arg(long, value_name = "PATH", conflicts_with = "deep", value_parser = FilePattern::new)]
    pub touched: Option<FilePattern>,
    /// Only sessions last active since then: a day (YYYY-MM-DD, in --tz,
    /// from its start) or an age back from now (2d, 3w, 12h).
    #[arg(long, value_name = "WHEN", value_parser = Bound::parse)]
    pub since: Option<Bound>,
    /// Only sessions last active until then: a day (YYYY-MM-DD, in --tz, to
    /// its end) or an age back from now (2d, 3w, 12h).
    #[arg(long, value_name = "WHEN", value_parser = Bound::parse)]
    pub until: Option<Bound>,
    /// The time zone of --since and --until days: an IANA name, UTC (the
    /// default) or local.
    #[arg(long, value_name = "ZONE", default_value = "UTC", value_parser = Zone::named)]
    pub tz: Zone,
    /// Neither read nor write the cache.
    #[arg(long)]
    pub no_cache: bool,
    /// The sessions piscope archived (`piscope archive`) instead of pi's.
    #[arg(long)]
    pub archived: bool,
    /// The sessions folder (else pi's: PI_CODING_AGENT_SESSION_DIR, settings, ~/.pi/agent/sessions).
    #[arg(long, value_name = "DIR", conflicts_with = "archived")]
    pub session_dir: Option<String>,
}

/// `--sort`: the order of the list, as the catalog's [`SortMode`] names it.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListSort {
    /// Forks under the session they came from, newest activity first.
    Threaded,
    /// Newest first.
    Recent,
    /// Best match first (name, then text, then fuzzy), ties newest first.
    Relevance,
}

impl From<ListSort> for SortMode {
    fn from(s: ListSort) -> SortMode {
        match s {
            ListSort::Threaded => SortMode::Threaded,
            ListSort::Recent => SortMode::Recent,
            ListSort::Relevance => SortMode::Relevance,
        }
    }
}

impl ListArgs {
    /// Prints pi's JSON rather than a table.
    pub fn json(&self) -> bool {
        self.json
    }

    /// The time span of --since and --until, from `now_ms`.
    pub fn span(&self, now_ms: i64) -> Span {
        Span {
            since: self.since,
            until: self.until,
            zone: self.tz.clone(),
            now_ms,
        }
    }
}

#[derive(clap::Args, Debug)]
pub struct StatsArgs {
    /// Every project's sessions, not only the current folder's.
    #[arg(long)]
    pub all: bool,
    /// What to sum per line.
    #[arg(long, value_enum, default_value = "day")]
    pub by: StatsBy,
    /// The first day counted (YYYY-MM-DD, in --tz).
    #[arg(long, value_name = "DATE", value_parser = DateRange::parse_day)]
    pub since: Option<i64>,
    /// The last day counted (YYYY-MM-DD, in --tz).
    #[arg(long, value_name = "DATE", value_parser = DateRange::parse_day)]
    pub until: Option<i64>,
    /// The time zone of days: an IANA name, UTC (the default) or local.
    #[arg(long, value_name = "ZONE", default_value = "UTC", value_parser = Zone::named)]
    pub tz: Zone,
    /// Leave out the turns a delete, clean-up or prune gave to the trash
    /// (counted, marked as removed, while the trash holds them).
    #[arg(long)]
    pub exclude_removed: bool,
    /// Print JSON (see the README for its fields).
    #[arg(long)]
    pub json: bool,
    /// Neither read nor write the cache.
    #[arg(long)]
    pub no_cache: bool,
    /// The sessions folder (else pi's: PI_CODING_AGENT_SESSION_DIR, settings, ~/.pi/agent/sessions).
    #[arg(long, value_name = "DIR")]
    pub session_dir: Option<String>,
}

/// What `piscope stats` groups by.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatsBy {
    Day,
    Week,
    Month,
    Project,
    Model,
    Session,
}

#[derive(clap::Args, Debug)]
pub struct RemoveArgs {
    /// Session files to delete.
    pub files: Vec<PathBuf>,
    /// Also every session without a user message (current folder's, or --all).
    #[arg(long)]
    pub empty: bool,
    /// With --empty: look in every project.
    #[arg(long, requires = "empty")]
    pub all: bool,
    /// Show what would be deleted; change nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Do not ask.
    #[arg(long, short)]
    pub yes: bool,
    /// Delete for good instead of moving to the trash.
    #[arg(long)]
    pub permanent: bool,
    /// The sessions folder (else pi's).
    #[arg(long, value_name = "DIR")]
    pub session_dir: Option<String>,
}

#[derive(clap::Args, Debug)]
pub struct PruneArgs {
    pub file: PathBuf,
    /// The entry the branch starts at (it and everything below it go).
    pub entry: String,
    /// Show what would go; change nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Do not ask.
    #[arg(long, short)]
    pub yes: bool,
}

#[derive(clap::Args, Debug)]
pub struct CleanArgs {
    /// Sessions without a user message.
    #[arg(long)]
    pub empty: bool,
    /// Sessions without an answer from the assistant.
    #[arg(long)]
    pub no_reply: bool,
    /// Sessions whose folder (the header's cwd) no longer exists.
    #[arg(long)]
    pub folder_gone: bool,
    /// Sessions last active longer ago than this (30d, 2w, 12h, 6mo, 1y).
    #[arg(long, value_name = "DUR", value_parser = crate::catalog::housekeeping::clean::parse_age)]
    pub older_than: Option<std::time::Duration>,
    /// Sessions larger than this (500K, 10M, 1G; powers of 1024).
    #[arg(long, value_name = "SIZE", value_parser = crate::catalog::housekeeping::clean::parse_size)]
    pub larger_than: Option<u64>,
    /// Look in every project, not only the current folder's.
    #[arg(long)]
    pub all: bool,
    /// List what would go (name, project, age, size, why); change nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// With --dry-run: the list as JSON.
    #[arg(long, requires = "dry_run")]
    pub json: bool,
    /// Move them to piscope's archive instead of the trash.
    #[arg(long)]
    pub archive: bool,
    /// Do not ask.
    #[arg(long, short)]
    pub yes: bool,
    /// The sessions folder (else pi's).
    #[arg(long, value_name = "DIR")]
    pub session_dir: Option<String>,
}

#[derive(clap::Args, Debug)]
pub struct ArchiveArgs {
    /// Session files to archive.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Archive only the branch this entry starts (it and everything below
    /// it), of the one FILE given, to an archive file of its own.
    #[arg(long, value_name = "ENTRY")]
    pub branch: Option<String>,
    /// Show what would move; change nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Do not ask.
    #[arg(long, short)]
    pub yes: bool,
    /// The sessions folder (else pi's).
    #[arg(long, value_name = "DIR")]
    pub session_dir: Option<String>,
}

#[derive(clap::Args, Debug)]
pub struct UnarchiveArgs {
    /// Archived sessions (in the archive, or by the path they had) or
    /// archived branch files (as `unarchive --list` shows them).
    #[arg(conflicts_with_all = ["last", "list"])]
    pub paths: Vec<PathBuf>,
    /// The sessions archived last (one command's).
    #[arg(long, conflicts_with = "list")]
    pub last: bool,
    /// List the archived branches and sessions.
    #[arg(long)]
    pub list: bool,
    /// With --list: as JSON.
    #[arg(long, requires = "list")]
    pub json: bool,
    /// The sessions folder (else pi's).
    #[arg(long, value_name = "DIR")]
    pub session_dir: Option<String>,
}

#[derive(clap::Args, Debug)]
pub struct RestoreArgs {
    /// Where the sessions lived (as `restore --list` shows them).
    #[arg(conflicts_with_all = ["last", "list"])]
    pub paths: Vec<PathBuf>,
    /// The file piscope trashed last.
    #[arg(long, conflicts_with = "list")]
    pub last: bool,
    /// List what piscope trashed that is still in the trash.
    #[arg(long)]
    pub list: bool,
    /// With --list: as JSON.
    #[arg(long, requires = "list")]
    pub json: bool,
}

#[derive(clap::Args, Debug)]
pub struct MoveProjectArgs {
    /// The folder the project was in (its sessions' header cwd, or a folder above it).
    pub old: PathBuf,
    /// The folder it is in now.
    pub new: PathBuf,
    /// Show what would change; change nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Do not ask.
    #[arg(long, short)]
    pub yes: bool,
    /// The sessions folder (else pi's).
    #[arg(long, value_name = "DIR")]
    pub session_dir: Option<String>,
}
