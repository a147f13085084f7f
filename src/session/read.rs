//! Reads a session file in blocks and parses its lines on all cores, handing
//! them back in file order with their byte offsets. Memory stays at a few
//! blocks however large the file; a single line may be of any length.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, mpsc};

/// Bytes read per block: small enough that the workers share a file evenly
/// and keep little in flight, large enough that handing over costs nothing.
const BLOCK: usize = 1 << 20;
/// Below this many bytes the file is parsed on the calling thread.
const PARALLEL_MIN: u64 = 256 << 10;
/// How many blocks the workers may run ahead of the one the sink waits for.
const AHEAD_PER_THREAD: u64 = 3;
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
    let size = file.metadata()?.len().saturating_sub(offset);
    let mut blocks = Blocks {
        file,
        carry: Vec::new(),
        offset,
        number: first_number,
        index: 0,
        eof: false,
    };
    let mut end = ScanEnd {
        offset,
        next_number: first_number,
    };
    if threads <= 1 || size < PARALLEL_MIN {
        let mut buf = Vec::new();
        while let Some(block) = blocks.next(&mut buf)? {
            for (meta, result) in parse_block(&buf, &block, &parse) {
                if hand_out(&mut end, meta, result, &mut sink).is_break() {
                    return Ok(end);
                }
            }
        }
        return Ok(end);
    }
    scan_parallel(blocks, threads, &parse, &mut sink, &mut end)?;
    Ok(end)
}

fn hand_out<T>(
    end: &mut ScanEnd,
    meta: LineMeta,
    result: T,
    sink: &mut impl FnMut(LineMeta, T) -> ControlFlow<()>,
) -> ControlFlow<()> {
    end.offset = meta.offset + meta.len + u64::from(meta.terminated);
    end.next_number = meta.number + 1;
    sink(meta, result)
}

/// The file cut into blocks of whole lines, in order.
struct Blocks {
    file: File,
    /// The start of a line read past the previous block.
    carry: Vec<u8>,
    /// File offset of `carry`'s first byte.
    offset: u64,
    /// Number of the line that starts at `offset`.
    number: u32,
    /// Index of the next block.
    index: u64,
    eof: bool,
}

/// Where a block of whole lines sits; its bytes are in the reader's buffer.
struct Block {
    index: u64,
    offset: u64,
    number: u32,
    lines: usize,
}

impl Blocks {
    /// Fills `buf` with the next block of whole lines (the last line may be
    /// unterminated at the end of the file).
    fn next(&mut self, buf: &mut Vec<u8>) -> io::Result<Option<Block>> {
        buf.clear();
        buf.append(&mut self.carry);
        // Read up to a block, then on until a line ends.
        let mut searched = 0;
        let complete = loop {
            if let Some(i) = memchr::memrchr(b'\n', &buf[searched..]) {
                if buf.len() >= BLOCK || self.eof {
                    break searched + i + 1;
                }
            }
            if self.eof {
                break buf.len();
            }
            searched = buf.len();
            let want = BLOCK.max(buf.len() / 2);
            buf.reserve(want);
            match (&mut self.file).take(want as u64).read_to_end(buf) {
                Ok(0) => self.eof = true,
                Ok(_) => {}
                Err(e) => {
                    // No further blocks: the one that failed is the last.
                    self.eof = true;
                    buf.clear();
                    return Err(e);
                }
            }
        };
        if complete == 0 {
            return Ok(None);
        }
        self.carry.extend_from_slice(&buf[complete..]);
        buf.truncate(complete);
        let lines =
            memchr::memchr_iter(b'\n', buf).count() + usize::from(buf.last() != Some(&b'\n'));
        let block = Block {
            index: self.index,
            offset: self.offset,
            number: self.number,
            lines,
        };
        self.index += 1;
        self.offset += complete as u64;
        self.number = self.number.saturating_add(lines as u32);
        Ok(Some(block))
    }
}

/// Splits a block into lines and parses each.
fn parse_block<T>(
    buf: &[u8],
    block: &Block,
    parse: &impl Fn(&str, LineMeta) -> T,
) -> Vec<(LineMeta, T)> {
    let mut out = Vec::with_capacity(block.lines);
    let mut start = 0;
    let mut number = block.number;
    while start < buf.len() {
        let (len, terminated) = match memchr::memchr(b'\n', &buf[start..]) {
            Some(i) => (i, true),
            None => (buf.len() - start, false),
        };
        let mut meta = LineMeta {
            offset: block.offset + start as u64,
            len: len as u64,
            number,
            terminated,
            lossy: false,
        };
        let (text, lossy) = line_text(&buf[start..start + len], meta.offset);
        meta.lossy = lossy;
        out.push((meta, parse(&text, meta)));
        number = number.saturating_add(1);
        start += len + usize::from(terminated);
    }
    out
}

/// The text of a line (BOM removed at the start of the file), and whether it
/// had to be decoded lossily.
fn line_text(mut bytes: &[u8], offset: u64) -> (std::borrow::Cow<'_, str>, bool) {
    if offset == 0 && bytes.starts_with(BOM) {
        bytes = &bytes[BOM.len()..];
    }
    match std::str::from_utf8(bytes) {
        Ok(s) => (std::borrow::Cow::Borrowed(s), false),
        Err(_) => (String::from_utf8_lossy(bytes), true),
    }
}

/// What the workers share: the file, and how far the sink has got.
struct Shared {
    blocks: Blocks,
    /// Index of the block the sink waits for.
    sunk: u64,
}

type Parsed<T> = (u64, io::Result<Vec<(LineMeta, T)>>);

/// Workers each take the next block, read it and parse it; the calling
/// thread puts the blocks back in order and runs the sink.
fn scan_parallel<T: Send>(
    blocks: Blocks,
    threads: usize,
    parse: &(impl Fn(&str, LineMeta) -> T + Sync),
    sink: &mut impl FnMut(LineMeta, T) -> ControlFlow<()>,
    end: &mut ScanEnd,
) -> io::Result<()> {
    let shared = Mutex::new(Shared { blocks, sunk: 0 });
    let moved = Condvar::new();
    let stop = AtomicBool::new(false);
    let ahead = AHEAD_PER_THREAD * threads as u64;
    std::thread::scope(|s| {
        let (tx, rx) = mpsc::channel::<Parsed<T>>();
        for _ in 0..threads {
            let tx = tx.clone();
            let (shared, moved, stop) = (&shared, &moved, &stop);
            s.spawn(move || {
                let mut buf = Vec::new();
                loop {
                    let block = {
                        let Ok(mut sh) = shared.lock() else { return };
                        while !stop.load(Ordering::Relaxed) && sh.blocks.index >= sh.sunk + ahead {
                            sh = match moved.wait(sh) {
                                Ok(sh) => sh,
                                Err(_) => return,
                            };
                        }
                        if stop.load(Ordering::Relaxed) {
                            return;
                        }
                        sh.blocks.next(&mut buf)
                    };
                    let sent = match block {
                        Ok(None) => return,
                        Ok(Some(block)) => {
                            tx.send((block.index, Ok(parse_block(&buf, &block, parse))))
                        }
                        Err(e) => {
                            // Blocks does not advance past a failed read, so
                            // this is the index the sink waits for last.
                            let index = shared.lock().map_or(0, |sh| sh.blocks.index);
                            let _ = tx.send((index, Err(e)));
                            return;
                        }
                    };
                    if sent.is_err() {
                        return;
                    }
                }
            });
        }
        drop(tx);
        let halt = || {
            stop.store(true, Ordering::Relaxed);
            moved.notify_all();
        };
        let mut pending = BTreeMap::new();
        let mut next = 0;
        for (index, parsed) in rx.iter() {
            pending.insert(index, parsed);
            while let Some(parsed) = pending.remove(&next) {
                let lines = match parsed {
                    Ok(lines) => lines,
                    Err(e) => {
                        halt();
                        return Err(e);
                    }
                };
                for (meta, result) in lines {
                    if hand_out(end, meta, result, sink).is_break() {
                        halt();
                        return Ok(());
                    }
                }
                next += 1;
                if let Ok(mut sh) = shared.lock() {
                    sh.sunk = next;
                }
                moved.notify_all();
            }
        }
        Ok(())
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

    /// Lines of every length from 0 to past a block, with and without
    /// `\r`, over many blocks: each comes back whole, in order, in place.
    #[test]
    fn many_blocks_match_a_plain_split() {
        let mut data = Vec::new();
        let mut x: u64 = 7;
        for i in 0..4000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let len = match i % 97 {
                0 => BLOCK + (x >> 40) as usize % 5000,
                1 => 0,
                _ => (x >> 33) as usize % 3000,
            };
            data.extend(std::iter::repeat_n(b'a' + (i % 26) as u8, len));
            if i % 5 == 0 {
                data.push(b'\r');
            }
            data.push(b'\n');
        }
        data.extend_from_slice(b"unterminated");
        let got = lines(&data);
        let want: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
        assert_eq!(got.len(), want.len());
        let mut offset = 0;
        for (k, ((text, meta), line)) in got.iter().zip(&want).enumerate() {
            assert_eq!(text.as_bytes(), *line);
            assert_eq!((meta.offset, meta.number), (offset, k as u32 + 1));
            assert_eq!(meta.terminated, k + 1 < want.len());
            offset += line.len() as u64 + 1;
        }
    }

    #[test]
    fn a_sink_can_stop_the_scan() {
        let mut data = Vec::new();
        for i in 0..200_000 {
            writeln!(data, "line {i}").unwrap();
        }
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(&data).unwrap();
        let mut seen = 0;
        let end = scan(
            f,
            0,
            1,
            |t, _| t.len(),
            |m, _| {
                seen += 1;
                if m.number == 150_000 {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            },
        )
        .unwrap();
        assert_eq!(seen, 150_000);
        assert_eq!(end.next_number, 150_001);
        let want: usize = (0..150_000).map(|i| format!("line {i}\n").len()).sum();
        assert_eq!(end.offset, want as u64);
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
