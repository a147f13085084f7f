//! A writer that counts and hashes (xxh3) what goes through it: files
//! written as they are made still record their length and hash.

use std::io::Write;

pub(crate) struct Hashing<W> {
    inner: W,
    len: u64,
    hash: xxhash_rust::xxh3::Xxh3,
}

impl<W> Hashing<W> {
    pub(crate) fn new(inner: W) -> Hashing<W> {
        Hashing {
            inner,
            len: 0,
            hash: xxhash_rust::xxh3::Xxh3::new(),
        }
    }

    /// The bytes written so far.
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// Their xxh3.
    pub(crate) fn digest(&self) -> u64 {
        self.hash.digest()
    }
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hash.update(&buf[..n]);
        self.len += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What passes through is written whole, counted and hashed as the
    /// bytes are, however it is split.
    #[test]
    fn counts_and_hashes_what_it_writes() {
        let text = b"{\"type\":\"session\"}\n{\"id\":\"a\"}\n".repeat(100);
        let mut out = Hashing::new(Vec::new());
        for part in text.chunks(7) {
            out.write_all(part).expect("write");
        }
        assert_eq!(out.len(), text.len() as u64);
        assert_eq!(out.digest(), xxhash_rust::xxh3::xxh3_64(&text));
        assert_eq!(out.inner, text);
    }
}
