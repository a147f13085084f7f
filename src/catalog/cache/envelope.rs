//! The frame of a cache file: one checksummed payload (magic, format,
//! length, xxh3), written to a new file beside its place and renamed over,
//! so concurrent piscopes never leave a torn file and a damaged or foreign
//! one is never believed. The catalog's summaries, the usage cache and the
//! deep-search table are all framed so.

use std::io::Write;
use std::path::Path;

/// The frame of a cache file that is one checksummed payload: its magic,
/// format (u32), the payload's length (u64) and xxh3 (u64), little-endian,
/// then the payload.
pub(crate) struct Envelope {
    pub(crate) magic: &'static [u8; 8],
    pub(crate) format: u32,
}

impl Envelope {
    pub(crate) const HEADER_LEN: usize = 8 + 4 + 8 + 8;

    /// The payload's length and hash that `header` (the first
    /// [`Self::HEADER_LEN`] bytes of a file) gives, if its magic and format
    /// are this frame's.
    pub(crate) fn read_header(&self, header: &[u8]) -> Option<(u64, u64)> {
        let (magic, rest) = header.get(..Self::HEADER_LEN)?.split_at(self.magic.len());
        let (format, rest) = rest.split_at(4);
        let (len, hash) = rest.split_at(8);
        let ok = magic == self.magic && u32::from_le_bytes(format.try_into().ok()?) == self.format;
        ok.then_some((
            u64::from_le_bytes(len.try_into().ok()?),
            u64::from_le_bytes(hash.try_into().ok()?),
        ))
    }

    /// The header of a frame around `payload`.
    pub(crate) fn header(&self, payload: &[u8]) -> [u8; Self::HEADER_LEN] {
        self.header_of(payload.len() as u64, xxhash_rust::xxh3::xxh3_64(payload))
    }

    /// The header of a frame around a payload of `len` bytes and xxh3 `hash`.
    fn header_of(&self, len: u64, hash: u64) -> [u8; Self::HEADER_LEN] {
        let mut h = [0; Self::HEADER_LEN];
        h[..8].copy_from_slice(self.magic);
        h[8..12].copy_from_slice(&self.format.to_le_bytes());
        h[12..20].copy_from_slice(&len.to_le_bytes());
        h[20..].copy_from_slice(&hash.to_le_bytes());
        h
    }

    /// The payload of `bytes` when the frame checks out: this magic and
    /// format, the whole length, the hash.
    pub(crate) fn payload<'a>(&self, bytes: &'a [u8]) -> Option<&'a [u8]> {
        let (len, hash) = self.read_header(bytes)?;
        let payload = &bytes[Self::HEADER_LEN..];
        let ok = len == payload.len() as u64 && hash == xxhash_rust::xxh3::xxh3_64(payload);
        ok.then_some(payload)
    }

    /// Writes `payload`, framed, to a new file beside `path` and renames it
    /// over: whatever was at `path` (a torn file, a FIFO) is replaced, never
    /// written through.
    pub(crate) fn write(&self, path: &Path, payload: &[u8]) -> std::io::Result<()> {
        write_replacing(path, &[&self.header(payload), payload])
    }

    /// Like [`Envelope::write`], the payload written by `fill` as it is
    /// made (a payload of tens of MB is never held whole); the header,
    /// left blank until then, is written last.
    pub(crate) fn write_streamed(
        &self,
        path: &Path,
        fill: impl FnOnce(&mut PayloadWriter<'_>) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        use std::io::{Seek, SeekFrom};
        write_replacing_with(path, |file| {
            file.write_all(&[0; Self::HEADER_LEN])?;
            let mut out = crate::hashing::Hashing::new(std::io::BufWriter::with_capacity(
                1 << 16,
                &mut *file,
            ));
            fill(&mut out)?;
            out.flush()?;
            let header = self.header_of(out.len(), out.digest());
            drop(out);
            file.seek(SeekFrom::Start(0))?;
            file.write_all(&header)
        })
    }

    /// Like [`Envelope::write_streamed`], for a file whose checked payload
    /// comes last, after a body that `fill` writes and that is checked
    /// apart, a part at a time, by its reader; `fill` returns the payload
    /// (which says where the body's parts lie). The header gives the
    /// payload's length and hash.
    pub(crate) fn write_trailed(
        &self,
        path: &Path,
        fill: impl FnOnce(&mut dyn Write) -> std::io::Result<Vec<u8>>,
    ) -> std::io::Result<()> {
        use std::io::{Seek, SeekFrom};
        write_replacing_with(path, |file| {
            file.write_all(&[0; Self::HEADER_LEN])?;
            let mut out = std::io::BufWriter::with_capacity(1 << 16, &mut *file);
            let payload = fill(&mut out)?;
            out.write_all(&payload)?;
            out.flush()?;
            drop(out);
            let header = self.header(&payload);
            file.seek(SeekFrom::Start(0))?;
            file.write_all(&header)
        })
    }

    /// The payload of a file [`Envelope::write_trailed`] wrote (`bytes`,
    /// the whole file) when its frame checks out, and where the body lies.
    pub(crate) fn trailed<'a>(
        &self,
        bytes: &'a [u8],
    ) -> Option<(&'a [u8], std::ops::Range<usize>)> {
        let (len, hash) = self.read_header(bytes)?;
        let start = bytes.len().checked_sub(usize::try_from(len).ok()?)?;
        if start < Self::HEADER_LEN {
            return None;
        }
        let payload = &bytes[start..];
        (xxhash_rust::xxh3::xxh3_64(payload) == hash).then_some((payload, Self::HEADER_LEN..start))
    }
}

/// Writes `parts`, one after the other, to a new file beside `path`,
/// synced, and renames it over: whatever was at `path` (a torn file, a
/// FIFO) is replaced, never written through.
pub(crate) fn write_replacing(path: &Path, parts: &[&[u8]]) -> std::io::Result<()> {
    write_replacing_with(path, |file| {
        parts.iter().try_for_each(|p| file.write_all(p))
    })
}

/// Like [`write_replacing`], the new file's bytes written by `fill`.
fn write_replacing_with(
    path: &Path,
    fill: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    fill(tmp.as_file_mut())?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// The writer [`Envelope::write_streamed`] hands its `fill`.
pub(crate) type PayloadWriter<'a> =
    crate::hashing::Hashing<std::io::BufWriter<&'a mut std::fs::File>>;
