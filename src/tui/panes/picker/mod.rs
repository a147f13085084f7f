//! The sessions pane: projects and their sessions, the search box with pi's
//! query language, scope / sort / named / path toggles, and deep-search hits.

mod draw;

use crate::catalog::{Query, SessionSummary, SessionsFolder, SortMode};
use crate::tui::input::keymap::Action;
use crate::tui::model::sessions::{
    self, CatalogUpdate, DeepHit, Family, ListOptions, ListScope, PickerRow, TimeSpan,
};
use crate::tui::overlays::text_input::{Edit, TextInput};
use crate::tui::work::newest::{Answer, Newest, Stamp};
pub use draw::{DrawContext, HEADER_LINES};
use ratatui::Frame;
use ratatui::layout::Rect;
use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};

/// A deep search and its hits.
#[derive(Debug, Clone, Default)]
pub struct DeepSearch {
    query: String,
    running: bool,
    hits: Vec<DeepHit>,
    /// The hits in runs of one session each (a session's hits come
    /// together): where each run starts, counted as the hits arrive, so a
    /// frame never counts the hits of hundreds of thousands again.
    runs: Vec<usize>,
    error: Option<String>,
    selected: usize,
    offset: usize,
}

impl DeepSearch {
    /// The entries found, best first.
    pub fn hits(&self) -> &[DeepHit] {
        &self.hits
    }

    /// Adds hits that follow those found so far.
    fn extend(&mut self, hits: Vec<DeepHit>) {
        for h in hits {
            if self.hits.last().is_none_or(|last| last.path != h.path) {
                self.runs.push(self.hits.len());
            }
            self.hits.push(h);
        }
    }

    /// The hits in the run of session hits that hit `i` is in.
    pub fn hits_of_session_at(&self, i: usize) -> usize {
        let run = self.runs.partition_point(|&start| start <= i);
        let start = run.checked_sub(1).map_or(0, |r| self.runs[r]);
        let end = self.runs.get(run).copied().unwrap_or(self.hits.len());
        end - start
    }
}

/// What the app should do after the picker handled a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PickerOutcome {
    Nothing,
    /// The selection moved to this session: show it in the tree.
    Show(PathBuf),
    /// The selection left the sessions (a project heading, an empty list):
    /// the tree and preview show nothing.
    Clear,
    /// Show this session with this entry selected (a deep-search hit).
    ShowEntry {
        path: PathBuf,
        entry: Option<String>,
    },
    /// Move the focus to the tree.
    FocusTree,
    /// Run a deep search for this query over the listed sessions.
    StartDeepSearch(String),
    /// A deep search was asked for without a query to search for.
    NeedQuery,
    /// The scope went to the archive (`true`) or back from it: list that
    /// folder's sessions.
    Load {
        archived: bool,
    },
}

#[derive(Debug, Clone, Default)]
pub struct PickerPane {
    sessions: Vec<SessionSummary>,
    folder: Option<SessionsFolder>,
    /// The archive, as a sessions folder, once the archived scope read it.
    archive: Option<SessionsFolder>,
    /// After the scope went to or from the archive: the folder whose load
    /// counts (`true`: the archive); updates of the other are left out.
    awaited: Option<bool>,
    demo: bool,
    /// `(done, total)` while loading.
    progress: Option<(usize, usize)>,
    loaded: bool,
    /// The sessions are a glimpse (see [`CatalogUpdate::Glimpse`]).
    glimpsed: bool,
    problems: Vec<String>,
    /// The search box, with its cursor.
    query: TextInput,
    query_error: Option<String>,
    options: ListOptions,
    show_path: bool,
    collapsed: HashSet<String>,
    rows: Vec<PickerRow>,
    selected: usize,
    offset: usize,
    height: usize,
    /// The user moved the selection; until then it follows the current folder.
    touched: bool,
    /// The time span of the list (the span key cycles it).
    span: TimeSpan,
    /// The session the selection stays on across reloads.
    selected_path: Option<PathBuf>,
    /// The sessions listed just below and just above it: the selection
    /// goes to the first still listed when its own session leaves the list.
    beside: Vec<PathBuf>,
    /// A query is in force: the list is flat, in pi's order, no headings.
    flat: bool,
    /// The project heading the selection stays on, when it is on one.
    selected_project: Option<String>,
    deep: Option<DeepSearch>,
    /// The deep searches asked for: only the newest one's hits count.
    deep_asked: Newest,
    /// Sessions marked for deleting together.
    marked: BTreeSet<PathBuf>,
    /// A session to select as soon as it is listed (a fork just written).
    want: Option<PathBuf>,
    /// Every session's usage, once read: the cost column shows own spend.
    usage: Option<std::sync::Arc<crate::catalog::usage::UsageBook>>,
    /// The own spend of the sessions in scope, for the status bar.
    scope_spend: Option<f64>,
    /// Only the sessions that touched a file (a path or a glob).
    file_filter: Option<FileFilter>,
    /// The child sessions subagents wrote (after pi's sessions in
    /// `sessions`), under their parents, folded or not.
    family: Family,
}

/// The sessions pane's file filter: the pattern, and the sessions that
/// touched a file it matches.
#[derive(Debug, Clone)]
struct FileFilter {
    pattern: String,
    sessions: HashSet<PathBuf>,
}

impl PickerPane {
    /// Draws the pane into `area`.
    pub fn draw(&self, frame: &mut Frame, area: Rect, cx: DrawContext<'_>) {
        draw::draw(frame, area, self, cx);
    }

    /// Every session read so far, newest first.
    pub fn sessions(&self) -> &[SessionSummary] {
        &self.sessions
    }

    /// The sessions listed now (query, scope and folds applied), in order.
    pub fn listed_sessions(&self) -> Vec<SessionSummary> {
        self.rows
            .iter()
            .filter_map(|r| match r {
                PickerRow::Session { index, .. } => self.sessions.get(*index).cloned(),
                PickerRow::Project { .. } => None,
            })
            .collect()
    }

    /// The projects the sessions read so far belong to.
    pub fn project_count(&self) -> usize {
        let mut cwds: Vec<&str> = self.sessions.iter().map(|s| s.cwd.as_str()).collect();
        cwds.sort_unstable();
        cwds.dedup();
        cwds.len()
    }

    /// Whether a query is in force (the list is then flat, best first).
    pub fn flat(&self) -> bool {
        self.flat
    }

    /// The pane's title after its name: which sessions are listed and the
    /// key that lists the others, as pi's `/resume` title says its scope.
    /// Shortest last: the caller takes the first that fits.
    pub fn title_parts(&self, keymap: &crate::tui::input::keymap::Keymap) -> [String; 2] {
        let (now, other) = match self.options.scope {
            ListScope::All => ("all", "this folder"),
            ListScope::CurrentFolder => ("this folder", "archived"),
            ListScope::Archived => ("archived", "all"),
        };
        // The time span, when it leaves sessions out.
        let now = match self.span.label() {
            Some(span) => format!("{now} · {span}"),
            None => now.to_string(),
        };
        // The file filter, when one is in force.
        let now = match &self.file_filter {
            Some(f) => format!(
                "{now} · {}",
                crate::tui::look::strings::touched_filter(&f.pattern)
            ),
            None => now,
        };
        let key = keymap.keys_for(
            crate::tui::input::keymap::Scope::Picker,
            Action::PickerScope,
        );
        [format!("{now} ({key}: {other})"), now]
    }

    /// Every session's usage, once read.
    pub fn usage(&self) -> Option<&std::sync::Arc<crate::catalog::usage::UsageBook>> {
        self.usage.as_ref()
    }

    pub fn set_usage(&mut self, book: std::sync::Arc<crate::catalog::usage::UsageBook>) {
        self.usage = Some(book);
        self.scope_spend = self.spend_in_scope();
    }

    /// A session's cost: its own spend once the usage is read (copies a
    /// fork or clone holds count with the session they came from), with
    /// what a prune gave to the trash.
    pub fn cost_of(&self, s: &SessionSummary) -> f64 {
        self.own_cost(s) + self.subagents_cost(&s.path)
    }

    fn own_cost(&self, s: &SessionSummary) -> f64 {
        self.usage
            .as_ref()
            .and_then(|b| b.spent(&s.path))
            .map_or(s.cost, |(all, _)| all.cost)
    }

    /// The own spend of the child sessions below `path` (its subagents',
    /// theirs, ...): what the cost column adds to the session's own.
    pub fn subagents_cost(&self, path: &Path) -> f64 {
        self.family
            .below(path)
            .into_iter()
            .filter_map(|c| self.sessions.iter().find(|s| s.path == *c))
            .map(|s| self.own_cost(s))
            .sum()
    }

    /// The parent of a child session (one subagents wrote).
    pub fn parent_of(&self, path: &Path) -> Option<&Path> {
        self.family.parent_of.get(path).map(PathBuf::as_path)
    }

    /// Every session started from `path`: the child sessions subagents
    /// wrote outside pi's list, and the listed sessions whose header's
    /// `parentSession` names it.
    pub fn started_from(&self, path: &Path) -> Vec<&SessionSummary> {
        let mut out = self.children_of(path);
        let named = path.to_string_lossy();
        out.extend(self.sessions.iter().filter(|s| {
            !self.family.is_child(&s.path) && s.parent_session_path.as_deref() == Some(&*named)
        }));
        out
    }

    /// The child sessions whose parent is `path`, newest first.
    pub fn children_of(&self, path: &Path) -> Vec<&SessionSummary> {
        self.family
            .children_of
            .get(path)
            .into_iter()
            .flatten()
            .filter_map(|c| self.sessions.iter().find(|s| s.path == *c))
            .collect()
    }

    /// The own spend of every session in scope, once the usage is read.
    pub fn scope_spend(&self) -> Option<f64> {
        self.scope_spend
    }

    fn spend_in_scope(&self) -> Option<f64> {
        let book = self.usage.as_ref()?;
        let in_scope = |s: &&SessionSummary| match (self.options.scope, &self.folder) {
            (ListScope::CurrentFolder, Some(f)) => sessions::in_current_folder(f, s),
            _ => true,
        };
        Some(
            self.sessions
                .iter()
                .filter(in_scope)
                .filter_map(|s| book.spent(&s.path))
                .map(|(all, _)| all.cost)
                .sum(),
        )
    }

    /// The sessions the scope and the search let through, folded projects
    /// included (what the usage view adds up).
    pub fn matching_paths(&self) -> Vec<PathBuf> {
        self.matching().iter().map(|s| s.path.clone()).collect()
    }

    /// [`PickerPane::matching_paths`] with each session's title; and, when
    /// the list holds every session of its scope (no search, no time span,
    /// not only named ones), that scope, whose deleted sessions count in
    /// the usage view too.
    pub fn usage_sessions(&self) -> (Vec<(PathBuf, String)>, Option<crate::catalog::Scope>) {
        let listed = self
            .matching()
            .iter()
            .map(|s| (s.path.clone(), s.title().to_string()))
            .collect();
        let whole = self.query.text.trim().is_empty()
            && self.options.since_ms.is_none()
            && !self.options.named_only
            && self.file_filter.is_none();
        let scope = match self.options.scope {
            ListScope::CurrentFolder => Some(crate::catalog::Scope::Current),
            ListScope::All => Some(crate::catalog::Scope::All),
            // The usage book is pi's folder's: the archive's sessions count alone.
            ListScope::Archived => None,
        };
        (listed, scope.filter(|_| whole))
    }

    /// The sessions the scope, the search and the filters let through,
    /// folded projects included.
    fn matching(&self) -> Vec<&SessionSummary> {
        let unfolded;
        let rows = if self.flat || self.collapsed.is_empty() {
            &self.rows
        } else {
            let query = Query::parse(&self.query.text).unwrap_or(Query::Everything);
            unfolded = sessions::rows(
                &self.sessions,
                self.folder.as_ref(),
                &query,
                self.options,
                &HashSet::new(),
                self.file_filter.as_ref().map(|f| &f.sessions),
                &self.family,
            );
            &unfolded
        };
        rows.iter()
            .filter_map(|r| match r {
                PickerRow::Session { index, .. } => self.sessions.get(*index),
                PickerRow::Project { .. } => None,
            })
            .collect()
    }

    /// Selects the session at `path`, its project unfolded and any deep
    /// search left (the usage view's sessions open this way).
    pub fn select(&mut self, path: &Path) -> PickerOutcome {
        let Some(cwd) = self
            .sessions
            .iter()
            .find(|s| s.path == path)
            .map(|s| s.cwd.clone())
        else {
            return PickerOutcome::Nothing;
        };
        let before = self.selected_path.clone();
        // A child session: its parents' children shown, up to the top.
        let mut up = path.to_path_buf();
        let mut cwd = cwd;
        while let Some(p) = self.family.parent_of.get(&up).cloned() {
            if !self.family.unfolded.insert(p.clone()) && up == p {
                break;
            }
            if let Some(s) = self.sessions.iter().find(|s| s.path == p) {
                cwd = s.cwd.clone();
            }
            up = p;
        }
        self.collapsed.remove(&cwd);
        self.leave_deep();
        self.touched = true;
        self.selected_project = None;
        self.selected_path = Some(path.to_path_buf());
        self.rebuild();
        if self.selected_path.as_deref() != Some(path) {
            // Its heading is folded under another name: unfold them all.
            self.collapsed.clear();
            self.selected_path = Some(path.to_path_buf());
            self.rebuild();
        }
        self.moved_from(before)
    }

    /// The sessions of the list's scope (this folder or all), named only
    /// and time span applied, whatever the query: what a deep search
    /// searches, newest first, as `piscope ls --deep` does.
    pub fn sessions_in_scope(&self) -> Vec<SessionSummary> {
        self.sessions
            .iter()
            .filter(|s| {
                sessions::in_scope(s, self.folder.as_ref(), self.options)
                    && (!self.options.named_only || crate::catalog::search::query::has_name(s))
                    && self
                        .file_filter
                        .as_ref()
                        .is_none_or(|f| f.sessions.contains(&s.path))
            })
            .cloned()
            .collect()
    }

    /// The file filter's pattern, when one is in force.
    pub fn file_filter(&self) -> Option<&str> {
        self.file_filter.as_ref().map(|f| f.pattern.as_str())
    }

    /// Lists only `sessions` (those that touched a file `pattern` matches).
    pub fn set_file_filter(
        &mut self,
        pattern: String,
        sessions: HashSet<PathBuf>,
    ) -> PickerOutcome {
        let before = self.selected_path.clone();
        self.file_filter = Some(FileFilter { pattern, sessions });
        self.rebuild();
        self.moved_from(before)
    }

    /// Lists every session again, whatever it touched.
    pub fn clear_file_filter(&mut self) -> PickerOutcome {
        let before = self.selected_path.clone();
        self.file_filter = None;
        self.rebuild();
        self.moved_from(before)
    }

    /// The sessions folder being listed, once reading it started.
    pub fn folder(&self) -> Option<&SessionsFolder> {
        self.folder.as_ref()
    }

    /// Whether the archived sessions are listed (the archived scope).
    pub fn is_archived(&self) -> bool {
        self.options.scope == ListScope::Archived
    }

    /// Whether the demo sessions are listed.
    pub fn is_demo(&self) -> bool {
        self.demo
    }

    /// Why some files were not listed, one line each.
    pub fn problems(&self) -> &[String] {
        &self.problems
    }

    /// The search box's text.
    pub fn query(&self) -> &str {
        &self.query.text
    }

    /// The deep search shown instead of the list, if any.
    pub fn deep_search(&self) -> Option<&DeepSearch> {
        self.deep.as_ref()
    }

    /// Sessions marked for deleting together.
    pub fn marked(&self) -> &BTreeSet<PathBuf> {
        &self.marked
    }

    /// Drops every mark (the marked sessions are being deleted).
    pub fn clear_marks(&mut self) {
        self.marked.clear();
    }

    /// Selects `path` as soon as it is listed (a fork just written).
    pub fn select_when_listed(&mut self, path: PathBuf) {
        self.want = Some(path);
    }

    /// Whether a catalog update is of the folder listed now: after the
    /// scope went to or from the archive, what a load of the folder it
    /// left still sent is left out.
    pub fn counts(&self, update: &CatalogUpdate) -> bool {
        match (update, self.awaited) {
            (_, None) => true,
            (
                CatalogUpdate::Started { archived, .. } | CatalogUpdate::Done { archived, .. },
                Some(awaited),
            ) => *archived == awaited,
            (CatalogUpdate::Glimpse { .. } | CatalogUpdate::Batch { .. }, Some(_)) => false,
        }
    }

    /// Takes a catalog update; says what to show when the selection landed
    /// on another session or left the sessions.
    pub fn on_catalog(&mut self, update: CatalogUpdate) -> PickerOutcome {
        if !self.counts(&update) {
            return PickerOutcome::Nothing;
        }
        self.awaited = None;
        match update {
            CatalogUpdate::Started {
                folder,
                total,
                demo,
                archived,
            } => {
                if archived {
                    self.archive = Some(folder);
                } else {
                    self.folder = Some(folder);
                }
                self.demo = demo;
                self.progress = Some((0, total));
                self.loaded = false;
                self.glimpsed = false;
                self.sessions.clear();
            }
            CatalogUpdate::Glimpse { sessions } => {
                self.sessions = sessions;
                self.glimpsed = true;
                crate::catalog::sort_newest_first(&mut self.sessions);
            }
            CatalogUpdate::Batch {
                done,
                total,
                sessions,
            } => {
                self.progress = Some((done, total));
                if std::mem::take(&mut self.glimpsed) {
                    self.sessions.clear();
                }
                self.sessions.extend(sessions);
                crate::catalog::sort_newest_first(&mut self.sessions);
            }
            CatalogUpdate::Done {
                sessions,
                children,
                problems,
                demo,
                ..
            } => {
                let unfolded = std::mem::take(&mut self.family.unfolded);
                self.family = Family::of(&children, &sessions);
                self.family.unfolded = unfolded;
                // The batches' summaries held the texts as read; the final
                // ones read them from the cache's texts file.
                drop(std::mem::replace(&mut self.sessions, sessions));
                self.glimpsed = false;
                sessions::release_freed_memory();
                self.problems = problems;
                self.demo = demo;
                self.progress = None;
                self.loaded = true;
            }
        }
        let before = self.selected_path.clone();
        self.rebuild();
        self.moved_from(before)
    }

    /// Takes a session file that changed (`Some`: its new summary) or went
    /// away (`None`); says what to show when the selection moved.
    pub fn on_session_changed(
        &mut self,
        path: PathBuf,
        summary: Option<SessionSummary>,
    ) -> PickerOutcome {
        let at = self.sessions.iter().position(|s| s.path == path);
        // A new file counts only in the folder listed now (the archive, or
        // not): a change seen before the watch moved may be the other's.
        let in_archive = self
            .archive
            .as_ref()
            .is_some_and(|a| path.starts_with(&a.dir));
        if at.is_none() && (self.awaited.is_some() || in_archive != self.is_archived()) {
            return PickerOutcome::Nothing;
        }
        match (at, summary) {
            (Some(i), Some(s)) => self.sessions[i] = s,
            (None, Some(s)) => self.sessions.push(s),
            (Some(i), None) => {
                self.sessions.remove(i);
                self.marked.remove(&path);
            }
            (None, None) => return PickerOutcome::Nothing,
        }
        crate::catalog::sort_newest_first(&mut self.sessions);
        let before = self.selected_path.clone();
        if self.want.as_ref() == Some(&path) {
            self.want = None;
            self.touched = true;
            self.leave_deep();
            self.selected_path = Some(path);
        }
        self.rebuild();
        self.moved_from(before)
    }

    /// What to show after a reload moved the selection away from `before`.
    fn moved_from(&self, before: Option<PathBuf>) -> PickerOutcome {
        let now = self.selected_session().map(|s| s.path.clone());
        match now {
            _ if now == before => PickerOutcome::Nothing,
            Some(p) => PickerOutcome::Show(p),
            // Still loading: the list may be empty only for now.
            None if !self.loaded => PickerOutcome::Nothing,
            None => PickerOutcome::Clear,
        }
    }

    /// The span key: the next time span, from `clock`'s now.
    pub fn cycle_span(&mut self, clock: crate::tui::clock::Clock) -> PickerOutcome {
        let before = self.selected_path.clone();
        self.span = self.span.next();
        self.options.since_ms = self.span.since(clock);
        self.rebuild();
        self.moved_from(before)
    }

    /// Marks or unmarks the selected session.
    pub fn toggle_mark(&mut self) {
        if let Some(p) = self.selected_session().map(|s| s.path.clone()) {
            if !self.marked.remove(&p) {
                self.marked.insert(p);
            }
        }
    }

    /// Recomputes the rows and puts the selection back on its session.
    fn rebuild(&mut self) {
        let query = match Query::parse(&self.query.text) {
            Ok(q) => {
                self.query_error = None;
                q
            }
            Err(e) => {
                self.query_error = Some(e.to_string());
                self.rows.clear();
                self.selected = 0;
                return;
            }
        };
        self.scope_spend = self.spend_in_scope();
        self.flat = !matches!(query, Query::Everything);
        self.rows = sessions::rows(
            &self.sessions,
            self.folder.as_ref(),
            &query,
            self.options,
            &self.collapsed,
            self.file_filter.as_ref().map(|f| &f.sessions),
            &self.family,
        );
        let by_path = |p: &PathBuf, rows: &[PickerRow], sessions: &[SessionSummary]| {
            rows.iter().position(|r| match r {
                PickerRow::Session { index, .. } => sessions[*index].path == *p,
                _ => false,
            })
        };
        let first_session = self
            .rows
            .iter()
            .position(|r| matches!(r, PickerRow::Session { .. }));
        let target = if self.touched {
            let heading = self.selected_project.as_ref().and_then(|cwd| {
                self.rows
                    .iter()
                    .position(|r| matches!(r, PickerRow::Project { cwd: c, .. } if c == cwd))
            });
            // A session gone from the list (deleted, or filtered out): the
            // one that was below it, else the one above.
            let neighbour = || {
                self.selected_path.as_ref()?;
                self.beside
                    .iter()
                    .find_map(|p| by_path(p, &self.rows, &self.sessions))
            };
            self.selected_path
                .as_ref()
                .and_then(|p| by_path(p, &self.rows, &self.sessions))
                .or(heading)
                .or_else(neighbour)
        } else {
            // Until the user moves, stay with the current folder's newest session.
            let current = self.folder.as_ref().and_then(|f| {
                self.rows.iter().position(|r| match r {
                    PickerRow::Session { index, .. } => {
                        sessions::in_current_folder(f, &self.sessions[*index])
                    }
                    _ => false,
                })
            });
            current.or(first_session)
        };
        self.selected = target
            .or(first_session)
            .unwrap_or(0)
            .min(self.rows.len().saturating_sub(1));
        self.note_selection();
        self.keep_visible();
    }

    /// The paths of the sessions listed just below row `at`, then just
    /// above it.
    fn sessions_beside(&self, at: usize) -> Vec<PathBuf> {
        let path = |r: &PickerRow| match r {
            PickerRow::Session { index, .. } => self.sessions.get(*index).map(|s| s.path.clone()),
            PickerRow::Project { .. } => None,
        };
        let below = self.rows.iter().skip(at + 1).find_map(path);
        let above = self.rows.iter().take(at).rev().find_map(path);
        below.into_iter().chain(above).collect()
    }

    /// Remembers what the selection is on, to find it again after a reload.
    fn note_selection(&mut self) {
        self.selected_path = self.selected_session().map(|s| s.path.clone());
        self.beside = self.sessions_beside(self.selected);
        self.selected_project = match self.rows.get(self.selected) {
            Some(PickerRow::Project { cwd, .. }) => Some(cwd.clone()),
            _ => None,
        };
    }

    pub fn selected_session(&self) -> Option<&SessionSummary> {
        match self.rows.get(self.selected)? {
            PickerRow::Session { index, .. } => self.sessions.get(*index),
            PickerRow::Project { .. } => None,
        }
    }

    /// A character typed into the search box, or an editing key.
    pub fn edit_query(&mut self, edit: Edit) -> PickerOutcome {
        if !self.query.apply(edit) {
            return PickerOutcome::Nothing;
        }
        if self.deep.is_some() {
            self.leave_deep();
        }
        // A new query starts from its best match, as in pi.
        self.touched = true;
        self.selected_path = None;
        self.selected_project = None;
        self.rebuild();
        self.after_move(None)
    }

    /// Applies a key's action.
    pub fn on_action(&mut self, action: Action) -> PickerOutcome {
        if self.deep.is_some() {
            return self.on_deep_action(action);
        }
        let before = self.selected_path.clone();
        let page = self.height.max(1);
        let moved = action.moved(self.selected, self.rows.len(), page);
        match action {
            _ if moved.is_some() => self.selected = moved.unwrap_or(self.selected),
            Action::PickerCollapse if self.fold_children(true) => {}
            Action::PickerExpand if self.fold_children(false) => {}
            Action::PickerCollapse => self.set_collapsed(true),
            Action::PickerExpand => self.set_collapsed(false),
            Action::Resume => match self.rows.get(self.selected) {
                Some(PickerRow::Project { collapsed, .. }) => {
                    let c = *collapsed;
                    self.set_collapsed(!c);
                }
                Some(PickerRow::Session { .. }) => return PickerOutcome::FocusTree,
                None => {}
            },
            Action::PickerScope => {
                self.options.scope = match self.options.scope {
                    ListScope::All => ListScope::CurrentFolder,
                    ListScope::CurrentFolder => ListScope::Archived,
                    ListScope::Archived => ListScope::All,
                };
                // Into the archive, or out of it back to every project.
                let archived = self.is_archived();
                if archived || self.options.scope == ListScope::All {
                    return self.switch_folder(archived);
                }
                self.rebuild();
            }
            Action::PickerSort => {
                self.options.sort = match self.options.sort {
                    SortMode::Threaded => SortMode::Recent,
                    SortMode::Recent => SortMode::Relevance,
                    SortMode::Relevance => SortMode::Threaded,
                };
                self.rebuild();
            }
            Action::PickerNamed => {
                self.options.named_only = !self.options.named_only;
                self.rebuild();
            }
            Action::PickerPath => self.show_path = !self.show_path,
            Action::PickerDeepSearch => {
                if self.query.text.trim().is_empty() {
                    return PickerOutcome::NeedQuery;
                }
                return PickerOutcome::StartDeepSearch(self.query.text.clone());
            }
            Action::PickerClear => {
                if !self.query.text.is_empty() {
                    self.query.clear();
                    self.rebuild();
                }
            }
            _ => return PickerOutcome::Nothing,
        }
        self.touched = true;
        self.after_move(before)
    }

    /// The list goes to the archive (`archived`) or back to pi's folder:
    /// emptied, marks and deep search left, until that folder's load comes.
    fn switch_folder(&mut self, archived: bool) -> PickerOutcome {
        self.awaited = Some(archived);
        self.sessions.clear();
        self.marked.clear();
        self.leave_deep();
        self.loaded = false;
        self.glimpsed = false;
        self.progress = None;
        self.problems.clear();
        self.touched = true;
        self.rebuild();
        PickerOutcome::Load { archived }
    }

    fn after_move(&mut self, before: Option<PathBuf>) -> PickerOutcome {
        self.keep_visible();
        self.note_selection();
        match &self.selected_path {
            Some(p) if Some(p) != before.as_ref() => PickerOutcome::Show(p.clone()),
            Some(_) => PickerOutcome::Nothing,
            None => PickerOutcome::Clear,
        }
    }

    /// Folds or shows the selected session's child sessions; folding on a
    /// child folds its parent's and selects the parent. False when the
    /// selected session has none and is none (the project folds instead).
    fn fold_children(&mut self, fold: bool) -> bool {
        let Some(path) = self.selected_session().map(|s| s.path.clone()) else {
            return false;
        };
        let has_children = self.family.children_of.contains_key(&path);
        let open = self.family.unfolded.contains(&path);
        let target = match self.family.parent_of.get(&path) {
            // Fold an open one, show a folded one's.
            _ if has_children && open == fold => path,
            Some(parent) if fold => parent.clone(),
            _ => return false,
        };
        if fold {
            self.family.unfolded.remove(&target);
        } else {
            self.family.unfolded.insert(target.clone());
        }
        self.selected_path = Some(target);
        self.rebuild();
        true
    }

    fn set_collapsed(&mut self, collapse: bool) {
        let cwd = self.project_of(self.selected);
        let Some(cwd) = cwd else { return };
        if collapse {
            self.collapsed.insert(cwd.clone());
        } else {
            self.collapsed.remove(&cwd);
        }
        self.rebuild();
        // The selection stays in the project: on its heading when folded
        // (and when unfolded from the heading).
        if collapse || self.selected_path.is_none() {
            if let Some(r) = self
                .rows
                .iter()
                .position(|r| matches!(r, PickerRow::Project { cwd: c, .. } if *c == cwd))
            {
                self.selected = r;
            }
        }
    }

    /// The project a row belongs to.
    fn project_of(&self, row: usize) -> Option<String> {
        self.rows[..=row.min(self.rows.len().checked_sub(1)?)]
            .iter()
            .rev()
            .find_map(|r| match r {
                PickerRow::Project { cwd, .. } => Some(cwd.clone()),
                _ => None,
            })
    }

    /// Starts showing a deep search in progress; the stamp to ask with
    /// (a search asked for before it stops, its hits dropped).
    pub fn begin_deep(&mut self, query: String) -> Stamp {
        self.deep = Some(DeepSearch {
            query,
            running: true,
            ..DeepSearch::default()
        });
        self.deep_asked.stamp()
    }

    /// Shows the list again; the deep search under way stops.
    fn leave_deep(&mut self) {
        self.deep = None;
        self.deep_asked.cancel();
    }

    /// Takes hits of a running deep search (they follow those it has);
    /// returns the first hit to show when these are the first.
    pub fn deep_found(&mut self, hits: Answer<Vec<DeepHit>>) -> PickerOutcome {
        let Some(hits) = self.deep_asked.take(hits) else {
            return PickerOutcome::Nothing;
        };
        let Some(d) = self.deep.as_mut() else {
            return PickerOutcome::Nothing;
        };
        let first = d.hits.is_empty();
        d.extend(hits);
        if first {
            self.deep_outcome()
        } else {
            PickerOutcome::Nothing
        }
    }

    /// Takes a finished deep search (the hits not sent before); returns
    /// the first hit to show, unless one is shown already.
    pub fn deep_done(&mut self, result: Answer<Result<Vec<DeepHit>, String>>) -> PickerOutcome {
        let Some(result) = self.deep_asked.take(result) else {
            return PickerOutcome::Nothing;
        };
        let Some(d) = self.deep.as_mut() else {
            return PickerOutcome::Nothing;
        };
        d.running = false;
        let first = d.hits.is_empty();
        match result {
            Ok(hits) => d.extend(hits),
            Err(e) => d.error = Some(e),
        }
        if first {
            self.deep_outcome()
        } else {
            PickerOutcome::Nothing
        }
    }

    fn deep_outcome(&self) -> PickerOutcome {
        match self.deep.as_ref().and_then(|d| d.hits.get(d.selected)) {
            Some(h) => PickerOutcome::ShowEntry {
                path: h.path.to_path_buf(),
                entry: h.entry_id.as_deref().map(str::to_string),
            },
            None => PickerOutcome::Nothing,
        }
    }

    fn on_deep_action(&mut self, action: Action) -> PickerOutcome {
        let page = self.height.max(1);
        let Some(d) = self.deep.as_mut() else {
            return PickerOutcome::Nothing;
        };
        let before = d.selected;
        let moved = action.moved(d.selected, d.hits.len(), page);
        match action {
            _ if moved.is_some() => d.selected = moved.unwrap_or(d.selected),
            Action::Resume => return PickerOutcome::FocusTree,
            Action::PickerClear => {
                self.leave_deep();
                return match &self.selected_path {
                    Some(p) => PickerOutcome::Show(p.clone()),
                    None => PickerOutcome::Nothing,
                };
            }
            _ => return PickerOutcome::Nothing,
        }
        if d.selected < d.offset {
            d.offset = d.selected;
        } else if d.selected >= d.offset + page {
            d.offset = d.selected + 1 - page;
        }
        if d.selected == before {
            return PickerOutcome::Nothing;
        }
        self.deep_outcome()
    }

    /// Selects the row at `y` rows below the top of the list.
    pub fn click(&mut self, y: usize) -> PickerOutcome {
        let before = self.selected_path.clone();
        if let Some(d) = self.deep.as_mut() {
            let row = d.offset + y;
            if row < d.hits.len() && row != d.selected {
                d.selected = row;
                return self.deep_outcome();
            }
            return PickerOutcome::Nothing;
        }
        let row = self.offset + y;
        if row >= self.rows.len() {
            return PickerOutcome::Nothing;
        }
        if row == self.selected {
            if let Some(PickerRow::Project { .. }) = self.rows.get(row) {
                return self.on_action(Action::Resume);
            }
        }
        self.selected = row;
        self.touched = true;
        self.after_move(before)
    }

    pub fn set_height(&mut self, height: usize) {
        self.height = height;
        self.keep_visible();
    }

    fn keep_visible(&mut self) {
        self.offset = crate::tui::look::layout::offset_showing(
            self.selected,
            self.offset,
            self.height,
            self.rows.len(),
        );
    }

    /// Sessions listed (not counting project headings).
    pub fn listed(&self) -> usize {
        self.rows
            .iter()
            .filter(|r| matches!(r, PickerRow::Session { .. }))
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` hits, found by a real deep search of a session written here.
    fn hits(n: usize) -> Vec<DeepHit> {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("s.jsonl");
        let mut lines = vec![
            r#"{"type":"session","version":3,"id":"s","timestamp":"2026-02-01T10:00:00.000Z","cwd":"/p"}"#.to_string(),
        ];
        for i in 0..n {
            lines.push(format!(
                r#"{{"type":"message","id":"e{i}","parentId":null,"timestamp":"2026-02-01T10:00:00.000Z","message":{{"role":"user","content":"gadget {i}"}}}}"#
            ));
        }
        std::fs::write(&path, lines.join("\n") + "\n").expect("write");
        let s = crate::catalog::summarise_file(&path)
            .expect("read")
            .expect("a session");
        let q = Query::parse("gadget").expect("query");
        crate::catalog::search::deep::deep_search(&[s], &q).0
    }

    /// Each hit knows how many hits its session has, a session's run of
    /// hits split across batches counted whole.
    #[test]
    fn a_sessions_hits_are_counted_across_batches() {
        let all = hits(6);
        let mut moved = all.clone();
        for (h, name) in moved.iter_mut().zip(["a", "a", "b", "c", "c", "c"]) {
            h.path = PathBuf::from(name).into();
        }
        let mut p = PickerPane::default();
        let search = p.begin_deep("gadget".into());
        p.deep_found(search.answer(moved[..1].to_vec()));
        p.deep_done(search.answer(Ok(moved[1..].to_vec())));
        let d = p.deep_search().expect("done");
        let counts: Vec<usize> = (0..6).map(|i| d.hits_of_session_at(i)).collect();
        assert_eq!(counts, [2, 2, 1, 3, 3, 3]);
    }

    /// The first hits of a running deep search are shown at once (the
    /// first is selected); later ones and the end add to them, and leave
    /// the selection where the user moved it.
    #[test]
    fn deep_hits_show_as_they_come_and_the_end_adds_the_rest() {
        let all = hits(250);
        let mut p = PickerPane::default();
        let older = p.begin_deep("gadget".into());
        let search = p.begin_deep("gadget".into());
        let first = p.deep_found(search.answer(all[..100].to_vec()));
        assert_eq!(
            first,
            PickerOutcome::ShowEntry {
                path: all[0].path.to_path_buf(),
                entry: all[0].entry_id.as_deref().map(str::to_string)
            }
        );
        let d = p.deep_search().expect("running");
        assert!(d.running);
        assert_eq!(d.hits().len(), 100);
        // Hits of an older search are dropped.
        assert_eq!(
            p.deep_found(older.answer(all.clone())),
            PickerOutcome::Nothing
        );
        assert_eq!(
            p.deep_found(search.answer(all[100..200].to_vec())),
            PickerOutcome::Nothing
        );
        assert_eq!(
            p.deep_done(search.answer(Ok(all[200..].to_vec()))),
            PickerOutcome::Nothing
        );
        let d = p.deep_search().expect("done");
        assert!(!d.running);
        assert_eq!(d.hits(), &all[..]);
        // A search whose hits all come at the end shows its first one then.
        let next = p.begin_deep("gadget".into());
        assert!(matches!(
            p.deep_done(next.answer(Ok(all[..3].to_vec()))),
            PickerOutcome::ShowEntry { .. }
        ));
        // Leaving the hits stops a search still under way.
        let last = p.begin_deep("gadget".into());
        p.on_action(Action::PickerClear);
        assert!(p.deep_search().is_none());
        assert!(last.is_overtaken());
    }
}
