//! The index pass: a whole session file read into its header, its entries
//! (each handed on in file order, kept or not) and the problems reading
//! survived, at the depth a [`Detail`] asks for. [`crate::session::Session`]
//! keeps every entry; a one-shot command keeps only what it needs.

use crate::session::error::{Problem, ProblemKind, SessionError};
use crate::session::line::entry::{self, Entry, Header, Kind, LineParse};
use crate::session::line::to_entry::{parse_line_bytes, parse_line_outline};
use crate::session::read::blocks::{self, LineMeta};
use crate::session::read::file;
use std::fs::File;
use std::ops::ControlFlow;
use std::path::Path;

/// Opens a session file for reading: a regular file (or a symlink to
/// one) only; anything else is [`SessionError::NotRegular`].
pub fn open_file(path: &Path) -> Result<File, SessionError> {
    file::open_regular(path).map_err(|e| SessionError::io(path, e))
}

/// How much of each entry an open session keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detail {
    /// Everything summaries and the preview header need: texts, tool calls,
    /// errors, usage.
    Full,
    /// Only the structure: ids, parents, types, roles, labels, names, and
    /// what the context needs. Much faster on large files; for the scripting
    /// commands, which read bodies from the file anyway.
    Structure,
    /// Like `Structure`, but message entries keep no [`entry::MessageInfo`]
    /// (their `info` is `Info::None`): the tree and the context (which keeps
    /// the little it needs of them aside) are all there is. The fastest, for
    /// one-shot commands. A legacy file (version below 3) is read at
    /// `Structure` depth instead.
    Outline,
}

impl Detail {
    /// Scans `file` with this detail's parser; each is its own instance of
    /// the reader, so the parser inlines into its loop.
    pub(crate) fn scan(
        self,
        file: File,
        offset: u64,
        first_line: u32,
        sink: impl FnMut(LineMeta, LineParse) -> ControlFlow<()>,
    ) -> std::io::Result<blocks::ScanEnd> {
        use entry::{Full, Structure};
        match self {
            Detail::Full => blocks::scan(file, offset, first_line, parse_line_bytes::<Full>, sink),
            Detail::Structure => blocks::scan(
                file,
                offset,
                first_line,
                parse_line_bytes::<Structure>,
                sink,
            ),
            Detail::Outline => blocks::scan(file, offset, first_line, parse_line_outline, sink),
        }
    }

    /// The entries of `file` from `offset` (line `first_line`) on, read
    /// with this detail, each handed to `each` until it says it has enough
    /// (false) or a line ends at or past `end`; the lines' problems are not
    /// kept (the lines were read before).
    pub(crate) fn entries_from(
        self,
        file: File,
        offset: u64,
        first_line: u32,
        end: u64,
        mut each: impl FnMut(Entry) -> bool,
    ) -> std::io::Result<()> {
        let mut problems = Vec::new();
        let mut more = true;
        self.scan(file, offset, first_line, |meta, parsed| {
            ingest_line(&mut |e, _| more = each(e), &mut problems, meta, parsed);
            if more && meta.offset + meta.len < end {
                ControlFlow::Continue(())
            } else {
                ControlFlow::Break(())
            }
        })
        .map(|_| ())
    }
}

/// What a scan of a whole session file found besides its entries.
pub(crate) struct Scanned {
    pub(crate) header: Header,
    /// The file the scan read (a file renamed over the path meanwhile is
    /// not mixed in).
    pub(crate) file: File,
    /// Problems found by reading lines (no tree problems).
    pub(crate) problems: Vec<Problem>,
    /// The end of the last complete line.
    pub(crate) read_to: u64,
    pub(crate) next_line: u32,
}

/// Reads the session file at `path` at `detail` depth and hands each entry
/// past the header to `each` in file order (with, at outline depth, what the
/// context needs of a message), keeping none of them: [`Session::open_with`]
/// keeps them all, a one-shot command only what it needs. The header's raw
/// text is not read.
pub(crate) fn scan_entries(
    path: &Path,
    detail: Detail,
    each: impl FnMut(Entry, Option<entry::Brief>),
) -> Result<Scanned, SessionError> {
    scan_entries_while(path, detail, each, |_| true)
}

/// [`scan_entries`], asking `go_on` after each line past the header how
/// far the file is read (the end of the last whole line); when it says
/// no, the scan stops there with [`SessionError::Stopped`].
pub(crate) fn scan_entries_while(
    path: &Path,
    detail: Detail,
    mut each: impl FnMut(Entry, Option<entry::Brief>),
    mut go_on: impl FnMut(u64) -> bool,
) -> Result<Scanned, SessionError> {
    // One open file for the scan, the header and the fingerprint.
    let file = open_file(path)?;
    let scanned = file.try_clone().map_err(|e| SessionError::io(path, e))?;
    let mut header: Option<Header> = None;
    let mut not_a_session: Option<u32> = None;
    let mut problems = Vec::new();
    let mut read_to = 0;
    let mut next_line = 1;
    let mut stopped = false;
    let end = detail
        .scan(scanned, 0, 1, |meta, parsed| {
            if header.is_some() {
                if ingest_line(&mut each, &mut problems, meta, parsed) {
                    read_to = meta.offset + meta.len + u64::from(meta.terminated);
                    next_line = meta.number + 1;
                }
                if !go_on(read_to) {
                    stopped = true;
                    return ControlFlow::Break(());
                }
                return ControlFlow::Continue(());
            }
            match parsed {
                LineParse::Header(mut h, _) => {
                    h.line = meta.number;
                    if meta.lossy {
                        problems.push(Problem {
                            line: meta.number,
                            kind: ProblemKind::NotUtf8,
                        });
                    }
                    header = Some(*h);
                    read_to = meta.offset + meta.len + u64::from(meta.terminated);
                    next_line = meta.number + 1;
                }
                LineParse::Entry(_) | LineParse::Outlined(..) | LineParse::NotObject(_) => {
                    not_a_session = Some(meta.number);
                    return ControlFlow::Break(());
                }
                // Blank, skipped or damaged lines before the header: no entry.
                other => {
                    ingest_line(&mut |_, _| {}, &mut problems, meta, other);
                }
            }
            ControlFlow::Continue(())
        })
        .map_err(|e| SessionError::io(path, e))?;
    if stopped {
        return Err(SessionError::Stopped {
            path: path.to_path_buf(),
        });
    }
    let header = match (header, not_a_session) {
        (Some(h), None) => h,
        (_, Some(line)) => {
            return Err(SessionError::NotASession {
                path: path.to_path_buf(),
                reason: format!("line {line} is not a session header"),
            });
        }
        (None, None) => {
            return Err(SessionError::NotASession {
                path: path.to_path_buf(),
                reason: if end.offset == 0 {
                    "the file is empty".to_string()
                } else {
                    "no session header line".to_string()
                },
            });
        }
    };
    Ok(Scanned {
        header,
        file,
        problems,
        read_to,
        next_line,
    })
}

/// Hands one line past the header to `each` as an entry (or adds it to
/// `problems`). Returns false for an unfinished last line, which is read
/// again later.
#[inline]
pub(crate) fn ingest_line(
    each: &mut impl FnMut(Entry, Option<entry::Brief>),
    problems: &mut Vec<Problem>,
    meta: LineMeta,
    parsed: LineParse,
) -> bool {
    let problem = |kind| Problem {
        line: meta.number,
        kind,
    };
    if meta.len > Entry::LONGEST {
        // An entry could not say where such a line ends (and pi cannot
        // read a line an eighth as long).
        let reason = "a line of 4 GiB or more".to_string();
        problems.push(problem(ProblemKind::Damaged { reason }));
        return true;
    }
    let (mut e, brief) = match parsed {
        LineParse::Entry(e) | LineParse::Header(_, e) => (e, None),
        LineParse::Outlined(e, brief) => (e, Some(brief)),
        LineParse::Falsy | LineParse::Blank => return true,
        LineParse::NotObject(e) => {
            problems.push(problem(ProblemKind::NotAnObject));
            (e, None)
        }
        LineParse::Invalid(_) if !meta.terminated => {
            problems.push(problem(ProblemKind::Unfinished));
            return false;
        }
        LineParse::Invalid(reason) => {
            problems.push(problem(ProblemKind::Damaged { reason }));
            return true;
        }
    };
    // The reader numbers lines only for the sink.
    e.line = meta.number;
    if meta.lossy {
        problems.push(problem(ProblemKind::NotUtf8));
    }
    if e.kind() == Kind::Header {
        problems.push(problem(ProblemKind::ExtraHeader));
    }
    each(e, brief);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line of 4 GiB or more is damage, named by its line, and makes no
    /// entry; a line of one byte less is read. (Only the length is looked
    /// at: the line's text here is short.)
    #[test]
    fn a_line_of_4_gib_or_more_is_refused() {
        let text = br#"{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"hi"}}"#;
        let ingest = |len: u64| {
            let mut meta = LineMeta {
                offset: 10,
                len,
                number: 7,
                terminated: true,
                lossy: false,
            };
            let parsed = parse_line_outline(text, &mut meta);
            let (mut kept, mut problems) = (Vec::new(), Vec::new());
            let done = ingest_line(&mut |e, _| kept.push(e), &mut problems, meta, parsed);
            assert!(done);
            (kept, problems)
        };
        let (kept, problems) = ingest(Entry::LONGEST);
        assert!(problems.is_empty());
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].span().len, Entry::LONGEST);
        assert_eq!(kept[0].line, 7);
        let (kept, problems) = ingest(Entry::LONGEST + 1);
        assert!(kept.is_empty());
        assert_eq!(problems.len(), 1);
        assert_eq!(
            problems[0].to_string(),
            "line 7: damaged, skipped (a line of 4 GiB or more)"
        );
    }
}
