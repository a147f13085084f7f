//! Streams a session file line by line with byte offsets, never holding more
//! than one line; decodes each line as UTF-8 (lossily, as pi's reader does).

use std::borrow::Cow;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};

const READ_BUFFER: usize = 1 << 20;
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// One physical line.
pub struct RawLine<'a> {
    /// The text without its line terminator (`\n`; a `\r` before it stays,
    /// JSON treats it as whitespace).
    pub text: Cow<'a, str>,
    /// Offset of the line's first byte in the file.
    pub offset: u64,
    /// Length in bytes without the `\n`.
    pub len: u64,
    /// 1-based line number.
    pub number: u32,
    /// The line ended with `\n`.
    pub terminated: bool,
    /// Bytes that are not UTF-8 were replaced by U+FFFD.
    pub lossy: bool,
}

/// Reads lines from a file starting at a given offset.
pub struct LineReader {
    inner: BufReader<File>,
    offset: u64,
    number: u32,
    buf: Vec<u8>,
}

impl LineReader {
    /// Starts at `offset`, counting lines from `first_number`.
    pub fn new(mut file: File, offset: u64, first_number: u32) -> io::Result<LineReader> {
        file.seek(SeekFrom::Start(offset))?;
        Ok(LineReader {
            inner: BufReader::with_capacity(READ_BUFFER, file),
            offset,
            number: first_number,
            buf: Vec::new(),
        })
    }

    /// The next line, or `None` at the end of the file.
    pub fn next_line(&mut self) -> io::Result<Option<RawLine<'_>>> {
        self.buf.clear();
        let read = self.inner.read_until(b'\n', &mut self.buf)?;
        if read == 0 {
            return Ok(None);
        }
        let offset = self.offset;
        self.offset += read as u64;
        let number = self.number;
        self.number += 1;
        let terminated = self.buf.last() == Some(&b'\n');
        let mut bytes = &self.buf[..self.buf.len() - usize::from(terminated)];
        let len = bytes.len() as u64;
        if offset == 0 && bytes.starts_with(BOM) {
            bytes = &bytes[BOM.len()..];
        }
        let (text, lossy) = match std::str::from_utf8(bytes) {
            Ok(s) => (Cow::Borrowed(s), false),
            Err(_) => (String::from_utf8_lossy(bytes), true),
        };
        Ok(Some(RawLine {
            text,
            offset,
            len,
            number,
            terminated,
            lossy,
        }))
    }

    /// The offset just past the last line returned.
    pub fn offset(&self) -> u64 {
        self.offset
    }
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

    fn lines(bytes: &[u8]) -> Vec<(String, u64, u64, bool, bool)> {
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(bytes).unwrap();
        let mut r = LineReader::new(f, 0, 1).unwrap();
        let mut out = Vec::new();
        while let Some(l) = r.next_line().unwrap() {
            out.push((l.text.into_owned(), l.offset, l.len, l.terminated, l.lossy));
        }
        out
    }

    #[test]
    fn splits_lf_crlf_bom_and_unterminated() {
        let got = lines(b"\xEF\xBB\xBFa\r\nbc\n\nd");
        assert_eq!(got[0], ("a\r".into(), 0, 5, true, false));
        assert_eq!(got[1], ("bc".into(), 6, 2, true, false));
        assert_eq!(got[2], ("".into(), 9, 0, true, false));
        assert_eq!(got[3], ("d".into(), 10, 1, false, false));
    }

    #[test]
    fn decodes_bad_utf8_as_replacement() {
        let got = lines(b"a\xFFb\n");
        assert_eq!(got[0].0, "a\u{FFFD}b");
        assert!(got[0].4);
    }
}
