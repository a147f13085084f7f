//! Every action a key can do: the panes and overlays (scopes) bindings
//! apply in, the actions each offers, their names in the TOML files and
//! their help. Only typing a character into a text field is not an action.

/// Where a binding applies. Global keys work in every pane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    Global,
    Picker,
    Tree,
    Preview,
    /// The tree's search line while its query is typed.
    Search,
    /// A text field: a dialog's field, and the editing keys of the
    /// sessions search box and the tree search line.
    Text,
    /// A dialog over the panes.
    Dialog,
    /// The help screen.
    Help,
    /// The usage view.
    Usage,
}

impl Scope {
    pub const ALL: [Scope; 9] = [
        Scope::Global,
        Scope::Picker,
        Scope::Tree,
        Scope::Preview,
        Scope::Search,
        Scope::Text,
        Scope::Dialog,
        Scope::Help,
        Scope::Usage,
    ];

    /// The table name in the TOML files.
    pub fn table(self) -> &'static str {
        match self {
            Scope::Global => "global",
            Scope::Picker => "picker",
            Scope::Tree => "tree",
            Scope::Preview => "preview",
            Scope::Search => "search",
            Scope::Text => "text",
            Scope::Dialog => "dialog",
            Scope::Help => "help",
            Scope::Usage => "usage",
        }
    }

    /// The heading in the help screen.
    pub fn title(self) -> &'static str {
        match self {
            Scope::Global => "Everywhere",
            Scope::Picker => "Sessions",
            Scope::Tree => "Entry tree",
            Scope::Preview => "Context preview",
            Scope::Search => "Tree search, while typing",
            Scope::Text => "Text fields",
            Scope::Dialog => "Dialogs",
            Scope::Help => "This help",
            Scope::Usage => "Usage view",
        }
    }

    /// Whether plain characters type text in this scope (in the tree they
    /// start its search, as in pi's `/tree`).
    pub fn types_text(self) -> bool {
        matches!(
            self,
            Scope::Picker | Scope::Tree | Scope::Search | Scope::Text | Scope::Dialog
        )
    }

    /// The scopes whose keys are consulted after this one's, with the
    /// actions taken from each: a key bound in this scope hides them there.
    pub fn beneath(self) -> &'static [(Scope, &'static [Action])] {
        const DELETE: &[Action] = &[Action::DeleteBack];
        // Moving the cursor by a character or to either end.
        const CURSOR: &[Action] = &[
            Action::CursorLeft,
            Action::CursorRight,
            Action::CursorStart,
            Action::CursorEnd,
        ];
        // By a word, and deleting: the sessions search box has these, the
        // keys its pane leaves free (Home, End, ←, →, Ctrl+A and Ctrl+E act
        // on the list there).
        const WORDS: &[Action] = &[
            Action::WordLeft,
            Action::WordRight,
            Action::DeleteBack,
            Action::DeleteForward,
            Action::DeleteWordBack,
            Action::DeleteWordForward,
            Action::DeleteToStart,
            Action::DeleteToEnd,
        ];
        match self {
            Scope::Tree => &[(Scope::Text, DELETE)],
            Scope::Picker => &[(Scope::Text, WORDS)],
            // The tree's search line edits with the keys the tree leaves
            // free too: its filters act while a search is typed, as in pi.
            Scope::Search | Scope::Dialog => &[(Scope::Text, CURSOR), (Scope::Text, WORDS)],
            _ => &[],
        }
    }
}

/// Something a key can do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    Quit,
    Help,
    /// Open the usage view (spend per day, project and model).
    Usage,
    /// The usage view: days, weeks, months.
    UsagePeriod,
    /// The usage view: the charts, or the sessions one per line.
    UsageSessions,
    /// The usage view: open the selected session in the panes.
    UsageOpen,
    FocusNext,
    FocusPrev,
    Up,
    Down,
    PageUp,
    PageDown,
    First,
    Last,
    /// Resume the session in pi (Enter on a session; on a project, fold it).
    Resume,
    Rename,
    Delete,
    Mark,
    DeleteEmpty,
    /// Remove the selected entry's branch (the tree).
    Prune,
    /// Trash the listed sessions that clean-up rules pick.
    Clean,
    /// Move the marked sessions (or the selected one) to piscope's archive
    /// (in the archived scope: back to pi's folder).
    Archive,
    /// Put back what the last delete or prune sent to the trash.
    Undo,
    PickerCollapse,
    PickerExpand,
    PickerScope,
    PickerSort,
    PickerNamed,
    PickerSpan,
    PickerPath,
    PickerDeepSearch,
    /// Keep the sessions that touched a file (typed or picked), or stop.
    PickerTouched,
    /// Esc in the sessions pane: clear the search, else quit.
    PickerClear,
    TreeFoldOrUp,
    TreeUnfoldOrDown,
    TreeFilterDefault,
    TreeFilterNoTools,
    TreeFilterUserOnly,
    TreeFilterLabeledOnly,
    TreeFilterAll,
    TreeFilterNext,
    TreeFilterPrevious,
    TreeNextHit,
    TreePreviousHit,
    TreeJumpToLeaf,
    TreeLabelTimes,
    /// List the files the session's tool calls touched.
    TreeTouchedFiles,
    /// The next (older) / previous entry that changed the file chosen.
    TreeNextTouch,
    TreePreviousTouch,
    Branch,
    Label,
    Copy,
    Fork,
    Export,
    Follow,
    /// Open the session of the subagent the selected tool call started.
    OpenSubagent,
    /// Fold or unfold the block under the preview's cursor.
    PreviewExpand,
    /// The whole branch, every block open (and back).
    PreviewExpandAll,
    PreviewNextBlock,
    PreviewPreviousBlock,
    PreviewRaw,
    PreviewSelected,
    /// Esc in the tree and the preview: drop the tree's search, else step
    /// back to the pane before, else quit.
    TreeClearSearch,
    /// The tree search line: keep the query and stop typing.
    SearchKeep,
    /// Close a dialog, or drop the query being typed.
    Cancel,
    /// A dialog's Enter.
    Confirm,
    /// A dialog's other choice (the export's format).
    Switch,
    /// The review of secrets: keep the highlighted one, or redact it again.
    Keep,
    /// Answer yes / no to a question without a text field.
    AnswerYes,
    AnswerNo,
    /// Close the help screen.
    Close,
    CursorLeft,
    CursorRight,
    CursorStart,
    CursorEnd,
    DeleteBack,
    DeleteForward,
    WordLeft,
    WordRight,
    DeleteWordBack,
    DeleteWordForward,
    DeleteToStart,
    DeleteToEnd,
}

impl Action {
    /// Where a list cursor at `selected` goes, in a list of `len` rows
    /// showing `page` at a time; `None` when this is not a move.
    pub fn moved(self, selected: usize, len: usize, page: usize) -> Option<usize> {
        let last = len.saturating_sub(1);
        Some(match self {
            Action::Up => selected.saturating_sub(1),
            Action::Down => (selected + 1).min(last),
            Action::PageUp => selected.saturating_sub(page),
            Action::PageDown => (selected + page).min(last),
            Action::First => 0,
            Action::Last => last,
            _ => return None,
        })
    }

    /// An answer key: a plain character is allowed, as a question without
    /// a text field has nothing to type into.
    pub fn is_answer(self) -> bool {
        matches!(self, Action::AnswerYes | Action::AnswerNo)
    }
}

/// One action as a pane offers it: its name in the TOML files, its line in
/// the help screen, and its word in the hint line (if it has one there).
pub struct ActionInfo {
    pub scope: Scope,
    pub name: &'static str,
    pub action: Action,
    pub help: &'static str,
    pub hint: Option<&'static str>,
}

const fn info(
    scope: Scope,
    name: &'static str,
    action: Action,
    help: &'static str,
    hint: Option<&'static str>,
) -> ActionInfo {
    ActionInfo {
        scope,
        name,
        action,
        help,
        hint,
    }
}

use Action as A;
use Scope as S;

/// Every action of every pane, in help-screen order.
pub const ACTIONS: &[ActionInfo] = &[
    info(S::Global, "quit", A::Quit, "Quit", Some("quit")),
    info(S::Global, "help", A::Help, "Show this help", Some("help")),
    info(
        S::Global,
        "usage",
        A::Usage,
        "Usage: spend per day, project and model",
        Some("usage"),
    ),
    info(
        S::Global,
        "focus_next",
        A::FocusNext,
        "Next pane",
        Some("pane"),
    ),
    info(S::Global, "focus_prev", A::FocusPrev, "Previous pane", None),
    info(
        S::Global,
        "undo",
        A::Undo,
        "Undo the last delete or prune (back from the trash)",
        None,
    ),
    info(S::Picker, "up", A::Up, "Previous session", None),
    info(S::Picker, "down", A::Down, "Next session", None),
    info(S::Picker, "page_up", A::PageUp, "Page up", None),
    info(S::Picker, "page_down", A::PageDown, "Page down", None),
    info(S::Picker, "first", A::First, "First session", None),
    info(S::Picker, "last", A::Last, "Last session", None),
    info(
        S::Picker,
        "resume",
        A::Resume,
        "Resume the session in pi (on a project: fold it)",
        Some("resume"),
    ),
    info(
        S::Picker,
        "collapse",
        A::PickerCollapse,
        "Collapse the project",
        None,
    ),
    info(
        S::Picker,
        "expand",
        A::PickerExpand,
        "Expand the project",
        None,
    ),
    info(
        S::Picker,
        "scope",
        A::PickerScope,
        "All projects / current folder / archived sessions",
        Some("scope"),
    ),
    info(
        S::Picker,
        "sort",
        A::PickerSort,
        "Sort: threaded / recent / relevance",
        Some("sort"),
    ),
    info(
        S::Picker,
        "named",
        A::PickerNamed,
        "Only named sessions",
        Some("named"),
    ),
    info(
        S::Picker,
        "span",
        A::PickerSpan,
        "Time span: any time / today / 7 days / 30 days (last activity)",
        Some("span"),
    ),
    info(
        S::Picker,
        "path",
        A::PickerPath,
        "Show file paths",
        Some("path"),
    ),
    info(
        S::Picker,
        "deep_search",
        A::PickerDeepSearch,
        "Search inside every entry",
        Some("deep"),
    ),
    info(
        S::Picker,
        "touched",
        A::PickerTouched,
        "Only sessions that touched a file (type a path or a glob, or pick one); again: all",
        None,
    ),
    info(
        S::Picker,
        "back",
        A::PickerClear,
        "Back: clear the search (or leave the deep search), else quit",
        None,
    ),
    info(
        S::Picker,
        "rename",
        A::Rename,
        "Rename the session",
        Some("rename"),
    ),
    info(
        S::Picker,
        "mark",
        A::Mark,
        "Mark the session (for deleting several)",
        None,
    ),
    info(
        S::Picker,
        "delete",
        A::Delete,
        "Delete the marked sessions, or this one (to the trash)",
        Some("delete"),
    ),
    info(
        S::Picker,
        "delete_empty",
        A::DeleteEmpty,
        "Delete the listed sessions without a user message",
        None,
    ),
    info(
        S::Picker,
        "clean",
        A::Clean,
        "Clean up: the listed sessions every rule picks, to the trash",
        None,
    ),
    info(
        S::Picker,
        "archive",
        A::Archive,
        "Archive the marked sessions, or this one (out of pi's list, kept); archived: put back",
        None,
    ),
    info(S::Tree, "up", A::Up, "Previous entry", None),
    info(S::Tree, "down", A::Down, "Next entry", None),
    info(S::Tree, "page_up", A::PageUp, "Page up", None),
    info(S::Tree, "page_down", A::PageDown, "Page down", None),
    info(S::Tree, "first", A::First, "First entry", None),
    info(S::Tree, "last", A::Last, "Last entry", None),
    info(
        S::Tree,
        "fold_or_up",
        A::TreeFoldOrUp,
        "Fold the branch, or go up to its start",
        Some("fold"),
    ),
    info(
        S::Tree,
        "unfold_or_down",
        A::TreeUnfoldOrDown,
        "Unfold the branch, or go down to the next branch point",
        None,
    ),
    info(
        S::Tree,
        "filter_default",
        A::TreeFilterDefault,
        "Filter: default view",
        Some("filters"),
    ),
    info(
        S::Tree,
        "filter_no_tools",
        A::TreeFilterNoTools,
        "Filter: hide tool results",
        None,
    ),
    info(
        S::Tree,
        "filter_user_only",
        A::TreeFilterUserOnly,
        "Filter: user messages only",
        None,
    ),
    info(
        S::Tree,
        "filter_labeled_only",
        A::TreeFilterLabeledOnly,
        "Filter: labelled entries only",
        None,
    ),
    info(
        S::Tree,
        "filter_all",
        A::TreeFilterAll,
        "Filter: every entry",
        None,
    ),
    info(
        S::Tree,
        "filter_next",
        A::TreeFilterNext,
        "Next filter",
        None,
    ),
    info(
        S::Tree,
        "filter_previous",
        A::TreeFilterPrevious,
        "Previous filter",
        None,
    ),
    info(S::Tree, "next_hit", A::TreeNextHit, "Next search hit", None),
    info(
        S::Tree,
        "previous_hit",
        A::TreePreviousHit,
        "Previous search hit",
        None,
    ),
    info(
        S::Tree,
        "jump_to_leaf",
        A::TreeJumpToLeaf,
        "Jump to where pi resumes (◉, the leaf)",
        Some("leaf"),
    ),
    info(
        S::Tree,
        "label_times",
        A::TreeLabelTimes,
        "Show label times",
        Some("label time"),
    ),
    info(
        S::Tree,
        "touched_files",
        A::TreeTouchedFiles,
        "Files the session touched: pick one to step through the entries that changed it",
        None,
    ),
    info(
        S::Tree,
        "next_touch",
        A::TreeNextTouch,
        "Next entry that changed the file picked (older)",
        None,
    ),
    info(
        S::Tree,
        "previous_touch",
        A::TreePreviousTouch,
        "Previous entry that changed the file picked (newer)",
        None,
    ),
    info(
        S::Tree,
        "branch",
        A::Branch,
        "Branch here: pi resumes from this entry (before it, for a user message, to edit and send it again)",
        Some("branch"),
    ),
    info(
        S::Tree,
        "resume",
        A::Resume,
        "Resume the session in pi where it ends (its leaf)",
        None,
    ),
    info(S::Tree, "label", A::Label, "Label the entry", Some("label")),
    info(
        S::Tree,
        "copy",
        A::Copy,
        "Copy the entry's full text",
        Some("copy"),
    ),
    info(
        S::Tree,
        "fork",
        A::Fork,
        "Fork: the branch up to this entry into a new session",
        Some("fork"),
    ),
    info(
        S::Tree,
        "export",
        A::Export,
        "Export the branch up to this entry as Markdown",
        Some("export"),
    ),
    info(S::Tree, "rename", A::Rename, "Rename the session", None),
    info(
        S::Tree,
        "follow",
        A::Follow,
        "Follow the leaf as the session grows",
        None,
    ),
    info(
        S::Tree,
        "open_subagent",
        A::OpenSubagent,
        "Open the subagent session this tool call started",
        None,
    ),
    info(
        S::Tree,
        "prune",
        A::Prune,
        "Prune: remove this entry and everything below it (the original to the trash)",
        None,
    ),
    info(
        S::Tree,
        "back",
        A::TreeClearSearch,
        "Back: drop the search, else go to the sessions pane, else quit",
        None,
    ),
    info(S::Preview, "help", A::Help, "Show this help", None),
    info(S::Preview, "up", A::Up, "Scroll up", None),
    info(S::Preview, "down", A::Down, "Scroll down", None),
    info(S::Preview, "page_up", A::PageUp, "Page up", None),
    info(S::Preview, "page_down", A::PageDown, "Page down", None),
    info(S::Preview, "first", A::First, "Top", None),
    info(S::Preview, "last", A::Last, "Bottom", None),
    info(
        S::Preview,
        "next_block",
        A::PreviewNextBlock,
        "Next block (the marked one is what the fold key acts on)",
        None,
    ),
    info(
        S::Preview,
        "previous_block",
        A::PreviewPreviousBlock,
        "Previous block",
        None,
    ),
    info(
        S::Preview,
        "expand",
        A::PreviewExpand,
        "Fold or unfold the marked block (thinking, tool output, what a compaction replaced)",
        Some("fold"),
    ),
    info(
        S::Preview,
        "expand_all",
        A::PreviewExpandAll,
        "The whole branch with every block open, and back",
        None,
    ),
    info(
        S::Preview,
        "raw_json",
        A::PreviewRaw,
        "Raw JSON of the entry",
        Some("raw"),
    ),
    info(
        S::Preview,
        "selected",
        A::PreviewSelected,
        "Scroll to the selected entry",
        Some("selected"),
    ),
    info(
        S::Preview,
        "copy",
        A::Copy,
        "Copy the selected entry's full text",
        Some("copy"),
    ),
    info(
        S::Preview,
        "back",
        A::TreeClearSearch,
        "Back: drop the tree's search, else go to the tree",
        None,
    ),
    info(
        S::Search,
        "keep",
        A::SearchKeep,
        "Keep the query for the hit keys",
        None,
    ),
    info(S::Search, "cancel", A::Cancel, "Drop the query", None),
    info(S::Search, "next_hit", A::TreeNextHit, "Next hit", None),
    info(
        S::Search,
        "previous_hit",
        A::TreePreviousHit,
        "Previous hit",
        None,
    ),
    info(S::Text, "left", A::CursorLeft, "Cursor left", None),
    info(S::Text, "right", A::CursorRight, "Cursor right", None),
    info(S::Text, "home", A::CursorStart, "Cursor to the start", None),
    info(S::Text, "end", A::CursorEnd, "Cursor to the end", None),
    info(
        S::Text,
        "word_left",
        A::WordLeft,
        "Cursor to the start of the word",
        None,
    ),
    info(
        S::Text,
        "word_right",
        A::WordRight,
        "Cursor past the end of the word",
        None,
    ),
    info(
        S::Text,
        "backspace",
        A::DeleteBack,
        "Delete the character before the cursor",
        None,
    ),
    info(
        S::Text,
        "delete",
        A::DeleteForward,
        "Delete the character at the cursor",
        None,
    ),
    info(
        S::Text,
        "delete_word_back",
        A::DeleteWordBack,
        "Delete the word before the cursor",
        None,
    ),
    info(
        S::Text,
        "delete_word_forward",
        A::DeleteWordForward,
        "Delete the word after the cursor",
        None,
    ),
    info(
        S::Text,
        "delete_to_start",
        A::DeleteToStart,
        "Delete to the start of the field",
        None,
    ),
    info(
        S::Text,
        "delete_to_end",
        A::DeleteToEnd,
        "Delete to the end of the field",
        None,
    ),
    info(S::Dialog, "confirm", A::Confirm, "Go ahead", None),
    info(S::Dialog, "cancel", A::Cancel, "Cancel", None),
    info(
        S::Dialog,
        "switch",
        A::Switch,
        "Another choice (the export's format)",
        None,
    ),
    info(
        S::Dialog,
        "keep",
        A::Keep,
        "Keep the secret highlighted, or redact it again (the review before an export or a copy)",
        None,
    ),
    info(
        S::Dialog,
        "yes",
        A::AnswerYes,
        "Yes (a question without a field)",
        None,
    ),
    info(
        S::Dialog,
        "no",
        A::AnswerNo,
        "No (a question without a field)",
        None,
    ),
    info(S::Dialog, "up", A::Up, "Scroll up", None),
    info(S::Dialog, "down", A::Down, "Scroll down", None),
    info(S::Dialog, "page_up", A::PageUp, "Page up", None),
    info(S::Dialog, "page_down", A::PageDown, "Page down", None),
    info(S::Help, "up", A::Up, "Scroll up", None),
    info(S::Help, "down", A::Down, "Scroll down", None),
    info(S::Help, "page_up", A::PageUp, "Page up", None),
    info(S::Help, "page_down", A::PageDown, "Page down", None),
    info(S::Help, "first", A::First, "To the top", None),
    info(S::Help, "last", A::Last, "To the end", None),
    info(
        S::Help,
        "close",
        A::Close,
        "Close (so does any key not bound here)",
        None,
    ),
    info(S::Usage, "up", A::Up, "Scroll up", None),
    info(S::Usage, "down", A::Down, "Scroll down", None),
    info(S::Usage, "page_up", A::PageUp, "Page up", None),
    info(S::Usage, "page_down", A::PageDown, "Page down", None),
    info(S::Usage, "first", A::First, "To the top", None),
    info(S::Usage, "last", A::Last, "To the end", None),
    info(
        S::Usage,
        "period",
        A::UsagePeriod,
        "Spend per day, week or month",
        None,
    ),
    info(
        S::Usage,
        "sessions",
        A::UsageSessions,
        "The sessions by what they spent, or the charts",
        None,
    ),
    info(
        S::Usage,
        "open",
        A::UsageOpen,
        "Open the selected session",
        None,
    ),
    info(S::Usage, "close", A::Close, "Back to the panes", None),
];
