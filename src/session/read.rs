//! Reads a session file in large blocks and parses its lines on all cores,
//! handing them back in file order with their byte offsets. Memory stays at
//! one block however large the file; a single line may be of any length.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::ops::ControlFlow;

const BLOCK: usize = 8 << 20;
/// Below this many bytes a block is parsed on the calling thread.
const PARALLEL_MIN: usize = 256 << 10;
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Where one physical line sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineMeta {
    /// Offset of the line's first byte in the file.
    pub offset: u64,
    /// Length in bytes without the `\n` (a `\r` before it is kept: JSON
    /// reads it as white space).
    pub len: u64,
    /// 1-based line number.
    pub number: u32,
    /// The line ended with `\n`.
    pub terminated: bool,
    /// Bytes that are not UTF-8 were read as U+FFFD.
    pub lossy: bool,
}

/// Where a scan stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScanEnd {
    /// Offset just past the last line handed out.
    pub offset: u64,
    /// Number of the next line.
    pub next_number: u32,
}

/// Reads `file` from `offset` (line numbers from `first_number`), parses each
/// line with `parse` (in parallel) and hands the results to `sink` in file
/// order. `sink` may stop the scan early.
pub fn scan<T: Send>(
    mut file: File,
    offset: u64,
    first_number: u32,
    parse: impl Fn(&str, LineMeta) -> T + Sync,
    mut sink: impl FnMut(LineMeta, T) -> ControlFlow<()>,
) -> io::Result<ScanEnd> {
    file.seek(SeekFrom::Start(offset))?;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    let mut buf: Vec<u8> = Vec::with_capacity(BLOCK);
    let mut end = ScanEnd {
        offset,
        next_number: first_number,
    };
    let mut eof = false;
    while !eof {
        // Fill the buffer up to a block, or further until it holds a newline.
        loop {
            let start = buf.len();
            buf.resize(start + BLOCK.max(buf.len() / 2), 0);
            let n = read_full(&mut file, &mut buf[start..])?;
            buf.truncate(start + n);
            if n == 0 {
                eof = true;
                break;
            }
            if memchr::memrchr(b'\n', &buf[start..]).is_some() && buf.len() >= BLOCK / 2 {
                break;
            }
        }
        let complete = match memchr::memrchr(b'\n', &buf) {
            _ if eof => buf.len(),
            Some(i) => i + 1,
            None => continue,
        };
        let mut lines = split_lines(&buf[..complete], end);
        let results = parse_all(&buf, &mut lines, threads, &parse);
        for (meta, result) in lines.iter().zip(results) {
            end.offset = meta.offset + meta.len + u64::from(meta.terminated);
            end.next_number = meta.number + 1;
            if sink(*meta, result).is_break() {
                return Ok(end);
            }
        }
        buf.drain(..complete);
    }
    Ok(end)
}

fn read_full(file: &mut File, mut out: &mut [u8]) -> io::Result<usize> {
    let mut total = 0;
    while !out.is_empty() {
        match file.read(out) {
            Ok(0) => break,
            Ok(n) => {
                total += n;
                out = &mut out[n..];
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(total)
}

/// Line positions in `block`, which starts at `at`. `lossy` is filled later.
fn split_lines(block: &[u8], at: ScanEnd) -> Vec<LineMeta> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut number = at.next_number;
    while start < block.len() {
        let (len, terminated) = match memchr::memchr(b'\n', &block[start..]) {
            Some(i) => (i, true),
            None => (block.len() - start, false),
        };
        out.push(LineMeta {
            offset: at.offset + start as u64,
            len: len as u64,
            number,
            terminated,
            lossy: false,
        });
        number += 1;
        start += len + usize::from(terminated);
    }
    out
}

/// The text of a line (BOM removed at the start of the file), and whether it
/// had to be decoded lossily.
fn line_text<'a>(buf: &'a [u8], base: u64, meta: &LineMeta) -> (std::borrow::Cow<'a, str>, bool) {
    let start = (meta.offset - base) as usize;
    let mut bytes = &buf[start..start + meta.len as usize];
    if meta.offset == 0 && bytes.starts_with(BOM) {
        bytes = &bytes[BOM.len()..];
    }
    match std::str::from_utf8(bytes) {
        Ok(s) => (std::borrow::Cow::Borrowed(s), false),
        Err(_) => (String::from_utf8_lossy(bytes), true),
    }
}

fn parse_all<T: Send>(
    buf: &[u8],
    lines: &mut [LineMeta],
    threads: usize,
    parse: &(impl Fn(&str, LineMeta) -> T + Sync),
) -> Vec<T> {
    let base = lines.first().map_or(0, |l| l.offset);
    let run = |chunk: &mut [LineMeta]| -> Vec<T> {
        chunk
            .iter_mut()
            .map(|meta| {
                let (text, lossy) = line_text(buf, base, meta);
                meta.lossy = lossy;
                parse(&text, *meta)
            })
            .collect()
    };
    let total: u64 = lines.iter().map(|l| l.len).sum();
    if threads <= 1 || (total as usize) < PARALLEL_MIN || lines.len() < 2 {
        return run(lines);
    }
    // Contiguous chunks of about equal bytes, one per thread.
    let per = total / threads as u64 + 1;
    let mut chunks: Vec<&mut [LineMeta]> = Vec::with_capacity(threads);
    let mut rest: &mut [LineMeta] = lines;
    while !rest.is_empty() {
        let mut acc = 0;
        let mut cut = 0;
        while cut < rest.len() && (acc < per || cut == 0) {
            acc += rest[cut].len + 1;
            cut += 1;
        }
        let (head, tail) = rest.split_at_mut(cut);
        chunks.push(head);
        rest = tail;
    }
    std::thread::scope(|s| {
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|c| s.spawn(move || run(c)))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    })
}

/// Reads `len` bytes at `offset` as text (lossily), for a body read on demand.
pub fn read_span(file: &mut File, offset: u64, len: u64) -> io::Result<String> {
    file.seek(SeekFrom::Start(offset))?;
    let mut bytes = Vec::with_capacity(len as usize);
    file.by_ref().take(len).read_to_end(&mut bytes)?;
    if bytes.len() as u64 != len {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "the file is shorter than when it was read",
        ));
    }
    if offset == 0 && bytes.starts_with(BOM) {
        bytes.drain(..BOM.len());
    }
    Ok(match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn lines(bytes: &[u8]) -> Vec<(String, LineMeta)> {
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(bytes).unwrap();
        let mut out = Vec::new();
        scan(
            f,
            0,
            1,
            |t, _| t.to_string(),
            |m, t| {
                out.push((t, m));
                ControlFlow::Continue(())
            },
        )
        .unwrap();
        out
    }

    #[test]
    fn splits_lf_crlf_bom_and_unterminated() {
        let got = lines(b"\xEF\xBB\xBFa\r\nbc\n\nd");
        let texts: Vec<&str> = got.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(texts, ["a\r", "bc", "", "d"]);
        assert_eq!((got[0].1.offset, got[0].1.len), (0, 5));
        assert_eq!((got[1].1.offset, got[1].1.number), (6, 2));
        assert!(got[2].1.terminated && !got[3].1.terminated);
        assert_eq!(got[3].1.offset, 10);
    }

    #[test]
    fn decodes_bad_utf8_as_replacement() {
        let got = lines(b"a\xFFb\n");
        assert_eq!(got[0].0, "a\u{FFFD}b");
        assert!(got[0].1.lossy);
    }

    #[test]
    fn long_lines_and_many_lines_keep_their_order() {
        let mut data = Vec::new();
        for i in 0..50_000 {
            writeln!(data, "{i}").unwrap();
        }
        data.extend(std::iter::repeat_n(b'x', 3 * BLOCK));
        data.push(b'\n');
        let got = lines(&data);
        assert_eq!(got.len(), 50_001);
        assert!(
            got.iter()
                .take(50_000)
                .enumerate()
                .all(|(i, (t, m))| t == &i.to_string() && m.number == i as u32 + 1)
        );
        assert_eq!(got[50_000].1.len, 3 * BLOCK as u64);
    }
}
