//! Reads a session file in blocks and parses its lines on all cores, handing
//! them back in file order with their byte offsets. Memory stays at a few
//! blocks however large the file; a single line may be of any length.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, mpsc};

/// Bytes per block: small enough that the workers share a file evenly and
/// keep little in flight, and that a block the kernel has just copied is
/// still in the core's cache when it is parsed (256 KB took 8 to 12% less
/// time than 1 MB on one core, 100 MB session); large enough that handing
/// over costs nothing.
const BLOCK: u64 = 1 << 18;
/// The first read past a block for the end of its last line.
const RUN_ON_FIRST: u64 = 1 << 14;
/// A read into memory whose address sits at the same place within a
/// 64-byte line as the file offset it reads from copies up to 4 times
/// faster on some processors than one 16 bytes off (100 MB session: 85 ms
/// of the kernel's copying against 20): blocks are laid out so.
pub(crate) const ALIGN: usize = 64;
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

/// Reads `file` from `offset` (line numbers from `first_number`) to the end
/// it has when the scan starts, parses each line with `parse` (in parallel)
/// and hands the results to `sink` in file order. `sink` may stop the scan
/// early. `parse` gets the bytes of each line and decodes them itself (as
/// [`line_text`] does, setting `lossy`); the line numbers it sees are not
/// the file's (only the sink gets those), so no block waits for the lines
/// before it to be counted.
pub(crate) fn scan<T: Send>(
    file: File,
    offset: u64,
    first_number: u32,
    parse: impl Fn(&[u8], &mut LineMeta) -> T + Sync,
    mut sink: impl FnMut(LineMeta, T) -> ControlFlow<()>,
) -> io::Result<ScanEnd> {
    let threads = if cfg!(any(unix, windows)) {
        std::thread::available_parallelism().map_or(1, |n| n.get().min(8))
    } else {
        1
    };
    let stream = Stream {
        start: offset,
        end: file.metadata()?.len(),
        file,
    };
    let mut end = ScanEnd {
        offset,
        next_number: first_number,
    };
    if threads <= 1 || stream.end.saturating_sub(offset) < PARALLEL_MIN {
        let (mut buf, mut ends) = (Vec::new(), Vec::new());
        for index in 0.. {
            let Some(lines) = stream.parsed(index, &mut buf, &mut ends, &parse)? else {
                break;
            };
            for (meta, result) in lines {
                if hand_out(&mut end, meta, result, &mut sink).is_break() {
                    return Ok(end);
                }
            }
        }
        return Ok(end);
    }
    scan_parallel(&stream, threads, &parse, &mut sink, &mut end)?;
    Ok(end)
}

#[inline(always)]
fn hand_out<T>(
    end: &mut ScanEnd,
    mut meta: LineMeta,
    result: T,
    sink: &mut impl FnMut(LineMeta, T) -> ControlFlow<()>,
) -> ControlFlow<()> {
    meta.number = end.next_number;
    end.offset = meta.offset + meta.len + u64::from(meta.terminated);
    end.next_number = meta.number.saturating_add(1);
    sink(meta, result)
}

/// The part of a file a scan reads, cut into blocks that any thread can
/// read on its own: block `k` holds the lines that start in its `BLOCK`
/// bytes, the last one read on to its end.
struct Stream {
    file: File,
    /// Offset of the first line.
    start: u64,
    /// The file's length when the scan began: lines appended later are
    /// read by the next scan.
    end: u64,
}

/// The lines of one block, at `buf[from..len]`; `buf[pad]` is at `offset`.
struct Block {
    offset: u64,
    pad: usize,
    from: usize,
    len: usize,
}

impl Block {
    fn text<'a>(&self, buf: &'a [u8]) -> &'a [u8] {
        &buf[self.from..self.len]
    }

    /// Finds where each line ends (its `\n`, or the end of the block), into
    /// `ends`.
    fn lines(&self, buf: &[u8], ends: &mut Vec<usize>) {
        let text = self.text(buf);
        ends.clear();
        ends.extend(memchr::memchr_iter(b'\n', text).map(|i| self.from + i));
        if text.last().is_some_and(|&b| b != b'\n') {
            ends.push(self.len);
        }
    }
}

impl Stream {
    /// Reads block `index` into `buf` (which keeps its length between
    /// blocks, so it is not cleared again each time); `None` past the end.
    fn block(&self, index: u64, buf: &mut Vec<u8>) -> io::Result<Option<Block>> {
        let begin = index
            .checked_mul(BLOCK)
            .and_then(|b| b.checked_add(self.start))
            .filter(|&b| b < self.end);
        let Some(begin) = begin else {
            return Ok(None);
        };
        let stop = begin.saturating_add(BLOCK).min(self.end);
        // The byte before the block tells whether a line starts at its
        // first byte.
        let offset = if index == 0 { begin } else { begin - 1 };
        let want = (stop - offset) as usize + ALIGN;
        if buf.len() < want {
            buf.resize(want, 0);
        }
        let pad = aligned_pad(buf, offset);
        let mut len = self.read(offset, stop, buf, pad)?;
        let from = if index == 0 {
            pad
        } else {
            memchr::memchr(b'\n', &buf[pad..len]).map_or(len, |i| pad + i + 1)
        };
        // The last line starting in the block runs on past it: read on in
        // growing steps (most lines end within a few KB; reading a whole
        // block on each time copied the file twice).
        if from < len && buf[len - 1] != b'\n' {
            let mut step = RUN_ON_FIRST;
            loop {
                let at = offset + (len - pad) as u64;
                if at >= self.end {
                    break;
                }
                let more = self.read(at, at.saturating_add(step).min(self.end), buf, len)?;
                step = (step * 2).min(BLOCK);
                if more == len {
                    break;
                }
                if let Some(i) = memchr::memchr(b'\n', &buf[len..more]) {
                    len += i + 1;
                    break;
                }
                len = more;
            }
        }
        Ok(Some(Block {
            offset,
            pad,
            from,
            len,
        }))
    }

    /// Block `index`, read and its lines parsed (numbered from 0: the sink
    /// numbers them); `None` past the end.
    fn parsed<T>(
        &self,
        index: u64,
        buf: &mut Vec<u8>,
        ends: &mut Vec<usize>,
        parse: &impl Fn(&[u8], &mut LineMeta) -> T,
    ) -> io::Result<Option<Vec<(LineMeta, T)>>> {
        let Some(block) = self.block(index, buf)? else {
            return Ok(None);
        };
        block.lines(buf, ends);
        Ok(Some(parse_block(buf, &block, ends, parse)))
    }

    /// Reads the bytes from `at` to `stop` into `buf` from `into` on, and
    /// returns where they end (sooner if the file shrank).
    fn read(&self, at: u64, stop: u64, buf: &mut Vec<u8>, into: usize) -> io::Result<usize> {
        let want = stop.saturating_sub(at) as usize;
        if buf.len() < into + want {
            buf.resize(into + want, 0);
        }
        let mut done = 0;
        while done < want {
            match read_at(
                &self.file,
                &mut buf[into + done..into + want],
                at + done as u64,
            ) {
                Ok(0) => break,
                Ok(n) => done += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(into + done)
    }
}

/// Where in `buf` to put the byte at file offset `at` so that it sits at
/// the same place within a 64-byte line as in the file (see [`ALIGN`]).
/// Only speed depends on it: a buffer that moves later stays correct.
pub(crate) fn aligned_pad(buf: &[u8], at: u64) -> usize {
    (at as usize).wrapping_sub(buf.as_ptr() as usize) % ALIGN
}

/// For a reader that reads on where it stopped: moves the unread rest
/// `buf[start..end]`, whose first byte is at file offset `at`, to where
/// [`aligned_pad`] puts it, first growing `buf` when the rest would leave
/// no room to read into. Returns the rest's new `(start, end)`.
pub(crate) fn keep_rest(buf: &mut Vec<u8>, start: usize, end: usize, at: u64) -> (usize, usize) {
    let rest = end - start;
    if rest + ALIGN >= buf.len() {
        buf.resize((buf.len() * 2).max(rest + 2 * ALIGN), 0);
    }
    let to = aligned_pad(buf, at);
    buf.copy_within(start..end, to);
    (to, to + rest)
}

#[cfg(unix)]
pub(crate) fn read_at(file: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, at)
}

#[cfg(windows)]
pub(crate) fn read_at(file: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(file, buf, at)
}

/// Elsewhere scans run on one thread, so the shared position is safe.
#[cfg(not(any(unix, windows)))]
pub(crate) fn read_at(mut file: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    file.seek(SeekFrom::Start(at))?;
    file.read(buf)
}

/// Parses the lines of a block (ending at `ends`).
fn parse_block<T>(
    buf: &[u8],
    block: &Block,
    ends: &[usize],
    parse: &impl Fn(&[u8], &mut LineMeta) -> T,
) -> Vec<(LineMeta, T)> {
    let mut out = Vec::with_capacity(ends.len());
    let mut start = block.from;
    for &end in ends {
        let mut meta = LineMeta {
            offset: block.offset + (start - block.pad) as u64,
            len: (end - start) as u64,
            // Counted by the sink, which alone sees the blocks in order.
            number: 0,
            terminated: end < block.len,
            lossy: false,
        };
        let parsed = parse(&buf[start..end], &mut meta);
        out.push((meta, parsed));
        start = end + 1;
    }
    out
}

/// The text of a line (BOM removed at the start of the file), and whether it
/// had to be decoded lossily.
pub(crate) fn line_text(mut bytes: &[u8], offset: u64) -> (std::borrow::Cow<'_, str>, bool) {
    if offset == 0 && bytes.starts_with(BOM) {
        bytes = &bytes[BOM.len()..];
    }
    match std::str::from_utf8(bytes) {
        Ok(s) => (std::borrow::Cow::Borrowed(s), false),
        Err(_) => (String::from_utf8_lossy(bytes), true),
    }
}

/// Runs a closure if dropped while the thread panics.
struct OnPanic<F: Fn()>(F);

impl<F: Fn()> Drop for OnPanic<F> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            (self.0)();
        }
    }
}

type Parsed<T> = (u64, io::Result<Vec<(LineMeta, T)>>);

/// The blocks parsed ahead of the one the sink waits for, put back in
/// order as they come.
struct InOrder<T> {
    pending: BTreeMap<u64, io::Result<Vec<(LineMeta, T)>>>,
    /// The block the sink waits for.
    next: u64,
}

impl<T> InOrder<T> {
    /// Hands every block that is next in order to the sink; `Break` when
    /// the sink stops the scan.
    fn sink_ready(
        &mut self,
        end: &mut ScanEnd,
        sink: &mut impl FnMut(LineMeta, T) -> ControlFlow<()>,
    ) -> io::Result<ControlFlow<()>> {
        while let Some(parsed) = self.pending.remove(&self.next) {
            for (meta, result) in parsed? {
                if hand_out(end, meta, result, sink).is_break() {
                    return Ok(ControlFlow::Break(()));
                }
            }
            self.next += 1;
        }
        Ok(ControlFlow::Continue(()))
    }
}

/// Every thread takes the next block, reads and parses it; the calling
/// thread is one of them, and between its own blocks puts the blocks back
/// in order and runs the sink (one thread per core, none only waiting).
/// Workers stay within `AHEAD_PER_THREAD` blocks a thread of the sink.
fn scan_parallel<T: Send>(
    stream: &Stream,
    threads: usize,
    parse: &(impl Fn(&[u8], &mut LineMeta) -> T + Sync),
    sink: &mut impl FnMut(LineMeta, T) -> ControlFlow<()>,
    end: &mut ScanEnd,
) -> io::Result<()> {
    // The block the sink waits for, which the workers watch.
    let sunk = Mutex::new(0u64);
    let moved = Condvar::new();
    let stop = AtomicBool::new(false);
    let claimed = AtomicU64::new(0);
    let ahead = AHEAD_PER_THREAD * threads as u64;
    let halt = || {
        stop.store(true, Ordering::Relaxed);
        moved.notify_all();
    };
    std::thread::scope(|s| {
        let (tx, rx) = mpsc::channel::<Parsed<T>>();
        for _ in 1..threads {
            let tx = tx.clone();
            let (sunk, moved, stop, claimed) = (&sunk, &moved, &stop, &claimed);
            s.spawn(move || {
                // A worker that panicked leaves a block undelivered: stop the
                // others, so the scope ends and passes the panic on.
                let _stop_on_panic = OnPanic(halt);
                let (mut buf, mut ends) = (Vec::new(), Vec::new());
                loop {
                    let index = claimed.fetch_add(1, Ordering::Relaxed);
                    // Wait for the sink to come within reach.
                    {
                        let Ok(mut at) = sunk.lock() else { return };
                        while !stop.load(Ordering::Relaxed) && index >= *at + ahead {
                            at = match moved.wait(at) {
                                Ok(at) => at,
                                Err(_) => return,
                            };
                        }
                    }
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                    let parsed = match stream.parsed(index, &mut buf, &mut ends, parse) {
                        // Past the end: nothing more to claim.
                        Ok(None) => return,
                        Ok(Some(lines)) => Ok(lines),
                        Err(e) => Err(e),
                    };
                    let failed = parsed.is_err();
                    if tx.send((index, parsed)).is_err() || failed {
                        return;
                    }
                }
            });
        }
        drop(tx);
        crate::par::let_them_start();
        // The calling thread panicking (in `parse` or the sink) must not
        // leave workers waiting for it.
        let _stop_on_panic = OnPanic(halt);
        let mut order = InOrder {
            pending: BTreeMap::new(),
            next: 0,
        };
        let (mut buf, mut ends) = (Vec::new(), Vec::new());
        // No more blocks for this thread (past the end), and the workers
        // gone (each past the end, or failed).
        let (mut past_end, mut workers_gone) = (false, false);
        loop {
            while let Ok((index, parsed)) = rx.try_recv() {
                order.pending.insert(index, parsed);
            }
            let before = order.next;
            let flow = order.sink_ready(end, sink);
            if !matches!(flow, Ok(ControlFlow::Continue(()))) {
                halt();
                return flow.map(|_| ());
            }
            if order.next != before {
                if let Ok(mut at) = sunk.lock() {
                    *at = order.next;
                }
                moved.notify_all();
            }
            // A block of its own, claimed only within the workers' reach:
            // the blocks before it then never wait for this thread.
            let i = claimed.load(Ordering::Relaxed);
            let claim = (!past_end && i < order.next + ahead)
                .then(|| claimed.compare_exchange(i, i + 1, Ordering::Relaxed, Ordering::Relaxed))
                .and_then(Result::ok);
            if let Some(index) = claim {
                match stream.parsed(index, &mut buf, &mut ends, parse) {
                    Ok(None) => past_end = true,
                    Ok(Some(lines)) => {
                        order.pending.insert(index, Ok(lines));
                    }
                    Err(e) => {
                        order.pending.insert(index, Err(e));
                    }
                }
                continue;
            }
            if workers_gone {
                // Every block claimed was handed in (failures first), unless
                // a worker panicked: the scope then passes the panic on.
                if past_end || stop.load(Ordering::Relaxed) {
                    return Ok(());
                }
                // Without workers, nothing else claims or hands in blocks.
                return Err(io::Error::other("a block of the file was never read"));
            }
            // Nothing to do until a worker delivers.
            match rx.recv() {
                Ok((index, parsed)) => {
                    order.pending.insert(index, parsed);
                }
                Err(_) => workers_gone = true,
            }
        }
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

/// The text of bytes read at `offset`, as [`read_span`] returns it.
pub(crate) fn decode_span(bytes: &[u8], offset: u64) -> std::borrow::Cow<'_, str> {
    line_text(bytes, offset).0
}

/// Reads entries' lines from a session file in any order, buffered: most
/// readers go mostly forward, so most reads need no system call.
pub(crate) struct SpanReader {
    file: File,
    /// Where the bytes read last start in the file.
    start: u64,
    /// The bytes last read, a block of [`WINDOW`] bytes or one longer line,
    /// from `pad` on (see [`aligned_pad`]).
    window: Vec<u8>,
    pad: usize,
}

/// How much a [`SpanReader`] reads at a time.
const WINDOW: usize = 1 << 20;

impl SpanReader {
    pub(crate) fn new(file: File) -> SpanReader {
        SpanReader {
            file,
            start: 0,
            window: Vec::new(),
            pad: 0,
        }
    }

    /// The `len` bytes of the line at `offset`: from the block read last
    /// when it holds them, else from a new block read at `offset` (one
    /// positional read for the lines of a megabyte read in file order,
    /// where a seek and a small read per line cost most of a fork's time).
    pub(crate) fn bytes(&mut self, offset: u64, len: u64) -> io::Result<&[u8]> {
        let too_long = || io::Error::new(io::ErrorKind::InvalidData, "a line beyond memory");
        let want = usize::try_from(len).map_err(|_| too_long())?;
        let end = offset.checked_add(len).ok_or_else(too_long)?;
        let held = (self.window.len() - self.pad) as u64;
        let inside = offset >= self.start && end <= self.start + held;
        if !inside {
            if want <= WINDOW && self.window.capacity() > 4 * WINDOW {
                // A huge line read before: not kept for the small ones.
                self.window = Vec::new();
            }
            self.window.clear();
            self.window.resize(want.max(WINDOW) + ALIGN, 0);
            self.pad = aligned_pad(&self.window, offset);
            let mut filled = self.pad;
            while filled < self.window.len() {
                let at = offset + (filled - self.pad) as u64;
                match read_at(&self.file, &mut self.window[filled..], at) {
                    Ok(0) => break,
                    Ok(n) => filled += n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        self.window.clear();
                        self.pad = 0;
                        return Err(e);
                    }
                }
            }
            self.window.truncate(filled);
            self.start = offset;
            if filled - self.pad < want {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the file is shorter than the session read from it",
                ));
            }
        }
        let at = self.pad + (offset - self.start) as usize;
        Ok(&self.window[at..at + want])
    }

    /// The text of the `len` bytes of the line at `offset`.
    pub(crate) fn text(&mut self, offset: u64, len: u64) -> io::Result<std::borrow::Cow<'_, str>> {
        self.bytes(offset, len).map(|b| decode_span(b, offset))
    }
}

/// Reads the complete lines of `file` from `from` up to `to`, numbered on
/// from `lines`, handing each (line break included) to `line`, which
/// returns false to stop. The end of the last complete line and the count
/// of lines so far; `None` when `line` stopped the reading.
pub(crate) fn read_lines(
    file: &File,
    from: u64,
    to: u64,
    lines: u64,
    line: &mut dyn FnMut(u64, &[u8]) -> bool,
) -> io::Result<Option<(u64, u64)>> {
    const READ: usize = 1 << 20;
    let mut buf: Vec<u8> = Vec::new();
    let mut at = from;
    let mut number = lines;
    let mut end = from;
    while at < to {
        let want = READ.min((to - at) as usize);
        let have = buf.len();
        buf.resize(have + want, 0);
        let n = match read_at(file, &mut buf[have..], at) {
            Ok(0) => {
                buf.truncate(have);
                break;
            }
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {
                buf.truncate(have);
                continue;
            }
            Err(e) => return Err(e),
        };
        buf.truncate(have + n);
        at += n as u64;
        let mut start = 0;
        while let Some(i) = memchr::memchr(b'\n', &buf[start..]) {
            number += 1;
            if !line(number, &buf[start..start + i + 1]) {
                return Ok(None);
            }
            start += i + 1;
        }
        end += start as u64;
        buf.drain(..start);
    }
    Ok(Some((end, number)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scan whose parser gets each line as text.
    fn scan_text<T: Send>(
        file: File,
        offset: u64,
        first_number: u32,
        parse: impl Fn(&str, LineMeta) -> T + Sync,
        sink: impl FnMut(LineMeta, T) -> ControlFlow<()>,
    ) -> io::Result<ScanEnd> {
        let parse = |line: &[u8], meta: &mut LineMeta| {
            let (text, lossy) = line_text(line, meta.offset);
            meta.lossy = lossy;
            parse(&text, *meta)
        };
        scan(file, offset, first_number, parse, sink)
    }
    use std::io::Write;

    /// Spans read in any order, across the window's end, longer than the
    /// window, and past the end of the file (an error, not short bytes).
    #[test]
    fn span_reader_reads_every_span() {
        let mut data = Vec::new();
        let mut spans = Vec::new();
        for i in 0..3000u64 {
            let line = format!("line {i} {}", "x".repeat((i as usize * 37) % 900));
            spans.push((data.len() as u64, line.len() as u64, line.clone()));
            data.extend_from_slice(line.as_bytes());
            data.push(b'\n');
        }
        let long = "y".repeat(WINDOW * 2 + 5);
        spans.push((data.len() as u64, long.len() as u64, long.clone()));
        data.extend_from_slice(long.as_bytes());
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(&data).unwrap();
        let mut r = SpanReader::new(f);
        let order: Vec<usize> = (0..spans.len())
            .chain((0..spans.len()).rev())
            .chain((0..spans.len()).step_by(7))
            .collect();
        for i in order {
            let (offset, len, want) = &spans[i];
            assert_eq!(r.text(*offset, *len).unwrap(), want.as_str(), "span {i}");
        }
        let end = data.len() as u64;
        assert!(r.bytes(end - 3, 10).is_err());
        assert_eq!(r.bytes(0, 4).unwrap(), b"line");
    }

    fn lines(bytes: &[u8]) -> Vec<(String, LineMeta)> {
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(bytes).unwrap();
        let mut out = Vec::new();
        scan_text(
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
                0 => BLOCK as usize + (x >> 40) as usize % 5000,
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

    /// A line that runs past a block ends at each edge of the growing reads
    /// past it (16 KB, then 32 more, 64 more...), and past a whole block.
    #[test]
    fn lines_running_past_a_block_end_anywhere() {
        let b = BLOCK as usize;
        let step = RUN_ON_FIRST as usize;
        let mut data = Vec::new();
        for over in [
            1,
            step - 1,
            step,
            step + 1,
            3 * step,
            3 * step + 1,
            7 * step + 2,
            b + 3,
        ] {
            // The next line ends `over` bytes past the next block edge.
            let edge = data.len().next_multiple_of(b) + b;
            data.resize(edge - 10, b'a');
            data.push(b'\n');
            data.resize(edge + over - 1, b'b');
            data.push(b'\n');
        }
        data.extend_from_slice(b"last");
        let got = lines(&data);
        let want: Vec<&[u8]> = data.split(|&c| c == b'\n').collect();
        assert_eq!(got.len(), want.len());
        for ((text, _), line) in got.iter().zip(&want) {
            assert_eq!(text.as_bytes(), *line);
        }
    }

    /// Line ends just before, at and after block edges, and scans that
    /// start at a later line (as a refresh does).
    #[test]
    fn block_edges_and_later_starts() {
        let b = BLOCK as usize;
        let mut data = vec![b'x'; 4 * b + 10];
        for edge in [b - 1, 2 * b, 3 * b + 1, 3 * b + 2, 4 * b - 1] {
            data[edge] = b'\n';
        }
        for i in (5..b / 2).step_by(777) {
            data[i] = b'\n';
        }
        let want: Vec<&[u8]> = data.split(|&c| c == b'\n').collect();
        let starts: Vec<usize> = std::iter::once(0)
            .chain(
                data.iter()
                    .enumerate()
                    .filter(|(_, c)| **c == b'\n')
                    .map(|(i, _)| i + 1),
            )
            .collect();
        let picks = (0..starts.len()).step_by(97).chain([1, starts.len() - 1]);
        for (k, start) in picks.map(|k| (k, starts[k])) {
            let mut f = tempfile::tempfile().unwrap();
            f.write_all(&data).unwrap();
            let mut got = Vec::new();
            let end = scan_text(
                f,
                start as u64,
                k as u32 + 1,
                |t, _| t.to_string(),
                |m, t| {
                    got.push((t, m));
                    ControlFlow::Continue(())
                },
            )
            .unwrap();
            assert_eq!(got.len(), want.len() - k, "from line {}", k + 1);
            for (j, (text, meta)) in got.iter().enumerate() {
                assert_eq!(text.as_bytes(), want[k + j]);
                assert_eq!(meta.offset, starts[k + j] as u64);
                assert_eq!(meta.number, (k + j) as u32 + 1);
            }
            assert_eq!(end.offset, data.len() as u64);
        }
    }

    /// A scan of two million short lines (many more blocks than the
    /// workers may run ahead) whose parser or sink panics at line 12,346.
    fn scan_that_panics(in_sink: bool) -> std::thread::Result<io::Result<ScanEnd>> {
        let mut data = Vec::new();
        for i in 0..2_000_000 {
            writeln!(data, "line {i}").unwrap();
        }
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(&data).unwrap();
        std::panic::catch_unwind(move || {
            scan_text(
                f,
                0,
                1,
                |t, _| assert!(in_sink || t != "line 12345"),
                |m, _| {
                    assert!(!in_sink || m.number != 12346);
                    ControlFlow::Continue(())
                },
            )
        })
    }

    /// A parser that panics (a bug) ends the scan with that panic, never
    /// a hang.
    #[test]
    fn a_panic_in_a_worker_is_passed_on() {
        assert!(scan_that_panics(false).is_err());
    }

    /// The sink runs on the calling thread, between its own blocks: its
    /// panic too ends the scan, without leaving a worker waiting.
    #[test]
    fn a_panic_in_the_sink_is_passed_on() {
        assert!(scan_that_panics(true).is_err());
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
        let end = scan_text(
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
        data.extend(std::iter::repeat_n(b'x', 3 * BLOCK as usize));
        data.push(b'\n');
        let got = lines(&data);
        assert_eq!(got.len(), 50_001);
        assert!(
            got.iter()
                .take(50_000)
                .enumerate()
                .all(|(i, (t, m))| t == &i.to_string() && m.number == i as u32 + 1)
        );
        assert_eq!(got[50_000].1.len, 3 * BLOCK);
    }
}
