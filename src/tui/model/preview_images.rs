//! The preview's pictures: how the terminal draws them ([`Graphics`]),
//! which image of which block at which size ([`ImageKey`]), what a worker
//! is asked to decode, and the decoding: base64 → pixels (within limits) →
//! the protocol's bytes, which the graphics crate makes from the pixels
//! alone, so nothing from the file's bytes reaches the terminal as they are.

use crate::render::{ImageRoom, ImageSpot, Node};
use crate::tui::look::images::Protocol;
use crate::tui::model::preview_doc::{BlockId, PreviewBlock};
use base64::Engine as _;
use ratatui::layout::Size;
use ratatui_image::picker::{Picker, ProtocolType};
use ratatui_image::sliced::SlicedProtocol;
use ratatui_image::{FontSize, Resize};
use std::cell::Cell;
use std::sync::Arc;

/// Rows kept for a picture under its image's placeholder line at most
/// (fewer for a picture its header says is smaller), whether the picture
/// has arrived or not, so that scrolling positions never move.
pub const IMAGE_ROWS: usize = 12;
/// Images larger than this (decoded bytes) are not decoded at all.
pub const MAX_IMAGE_BYTES: usize = 16 * 1024 * 1024;
/// Pixels wide or high past which a picture is not decoded (a small file
/// can claim a huge picture).
const MAX_SIDE: u32 = 12_000;
/// Memory the decoder may take for one picture.
const MAX_DECODE_ALLOC: u64 = 256 * 1024 * 1024;

/// How this terminal draws pictures: the protocol and the size of a cell
/// in pixels (to fit a picture in the rows kept for it).
#[derive(Debug, Clone)]
pub struct Graphics {
    protocol: Protocol,
    picker: Picker,
}

impl Graphics {
    /// Pictures drawn with `protocol`, cells of `cell` (width, height) pixels.
    pub fn new(protocol: Protocol, cell: (u16, u16)) -> Graphics {
        let cell = FontSize::new(cell.0.max(1), cell.1.max(1));
        // The only constructor that takes a known cell size; it also notices
        // tmux (whose passthrough the protocols then use).
        #[allow(deprecated)]
        let mut picker = Picker::from_fontsize(cell);
        picker.set_protocol_type(match protocol {
            Protocol::Kitty => ProtocolType::Kitty,
            Protocol::Sixel => ProtocolType::Sixel,
            Protocol::Iterm2 => ProtocolType::Iterm2,
            Protocol::Halfblocks => ProtocolType::Halfblocks,
        });
        Graphics { protocol, picker }
    }

    pub fn protocol(&self) -> Protocol {
        self.protocol
    }

    /// The cell size in pixels.
    pub fn cell(&self) -> (u16, u16) {
        let f = self.picker.font_size();
        (f.width, f.height)
    }

    /// The room the layout keeps for each picture.
    pub fn room(&self) -> ImageRoom {
        ImageRoom {
            rows: IMAGE_ROWS,
            max_bytes: MAX_IMAGE_BYTES,
            cell: self.cell(),
        }
    }
}

/// One picture's name: which image (by its block, as it is, and its place
/// in the block's body) at which size in cells.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ImageKey {
    pub block: BlockId,
    pub revision: u64,
    pub node: usize,
    pub cols: u16,
    pub rows: u16,
}

impl ImageKey {
    /// About how many bytes its picture holds: its pixels at the size
    /// drawn, as the terminal is sent them.
    pub fn picture_bytes(&self, cell: (u16, u16)) -> usize {
        let px = |cells: u16, size: u16| usize::from(cells) * usize::from(size.max(1));
        px(self.cols, cell.0) * px(self.rows, cell.1) * 4
    }

    pub fn of(b: &PreviewBlock, spot: &ImageSpot) -> ImageKey {
        ImageKey {
            block: b.id.clone(),
            revision: b.revision,
            node: spot.node,
            cols: u16::try_from(spot.cols).unwrap_or(u16::MAX),
            rows: u16::try_from(spot.rows).unwrap_or(u16::MAX),
        }
    }
}

/// A decoded picture, ready to draw, or why there is none.
#[derive(Clone)]
pub enum Picture {
    Shown(Arc<SlicedProtocol>),
    Failed(String),
}

impl std::fmt::Debug for Picture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Picture::Shown(p) => {
                let s = p.size();
                write!(f, "Shown({}x{})", s.width, s.height)
            }
            Picture::Failed(why) => write!(f, "Failed({why:?})"),
        }
    }
}

/// Pictures to decode, of the blocks of a preview.
#[derive(Clone)]
pub struct ImageRequest {
    pub blocks: Arc<Vec<PreviewBlock>>,
    /// Each picture wanted, with the index of its block.
    pub wanted: Vec<(usize, ImageKey)>,
    pub graphics: Arc<Graphics>,
}

/// One picture decoded (or not) for an [`ImageRequest`].
#[derive(Debug, Clone)]
pub struct PictureReady {
    pub key: ImageKey,
    pub picture: Picture,
}

/// Decodes the pictures asked for, handing each to `send` as it is done.
pub fn decode_wanted(req: &ImageRequest, send: &mut dyn FnMut(PictureReady)) {
    for (k, key) in &req.wanted {
        let data = req
            .blocks
            .get(*k)
            .and_then(|b| match b.block.body.get(key.node) {
                Some(Node::Image { data, .. }) => data.as_deref(),
                _ => None,
            });
        let picture = match data {
            Some(data) => picture(data, key.cols, key.rows, &req.graphics),
            None => Picture::Failed("its data is gone".to_string()),
        };
        send(PictureReady {
            key: key.clone(),
            picture,
        });
    }
}

thread_local! {
    /// Set while this thread decodes: a decoder's panic is the picture's
    /// failure, caught, not the app's (the panic hook leaves it alone).
    static DECODING: Cell<bool> = const { Cell::new(false) };
    /// Pictures decoded on this thread (tests check nothing is decoded twice).
    static DECODED: Cell<u64> = const { Cell::new(0) };
}

/// Whether this thread is inside a picture's decoder.
pub fn decoding_here() -> bool {
    DECODING.with(Cell::get)
}

/// How many pictures this thread has decoded.
pub fn decoded_here() -> u64 {
    DECODED.with(Cell::get)
}

/// The picture of an image's base64 `data`, fitted into `cols` × `rows`
/// cells, or why there is none; never a panic.
pub fn picture(data: &str, cols: u16, rows: u16, graphics: &Graphics) -> Picture {
    DECODED.with(|n| n.set(n.get() + 1));
    let was = DECODING.with(|d| d.replace(true));
    let made = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        decode(data, cols, rows, graphics)
    }));
    DECODING.with(|d| d.set(was));
    match made {
        Ok(Ok(p)) => Picture::Shown(Arc::new(p)),
        Ok(Err(why)) => Picture::Failed(why),
        Err(_) => Picture::Failed("the decoder failed on it".to_string()),
    }
}

fn decode(data: &str, cols: u16, rows: u16, graphics: &Graphics) -> Result<SlicedProtocol, String> {
    use image::ImageFormat;
    if data.len() / 4 * 3 > MAX_IMAGE_BYTES {
        return Err(too_large());
    }
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data)
        .map_err(|_| "its data is not valid base64".to_string())?;
    let mut reader = image::ImageReader::new(std::io::Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| format!("cannot read it: {e}"))?;
    match reader.format() {
        Some(ImageFormat::Png | ImageFormat::Jpeg | ImageFormat::Gif | ImageFormat::WebP) => {}
        Some(other) => {
            return Err(format!(
                "its data is {}, not PNG, JPEG, GIF or WebP",
                other.extensions_str().first().unwrap_or(&"another format")
            ));
        }
        None => return Err("its data is no image it knows".to_string()),
    }
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    limits.max_alloc = Some(MAX_DECODE_ALLOC);
    reader.limits(limits);
    let img = reader.decode().map_err(|e| match e {
        image::ImageError::Limits(_) => format!(
            "too large to decode (over {MAX_SIDE} pixels a side or {} MB)",
            MAX_DECODE_ALLOC / (1024 * 1024)
        ),
        e => format!("cannot decode it: {e}"),
    })?;
    let (cw, ch) = graphics.cell();
    let (w, h) = (
        u32::from(cols) * u32::from(cw),
        u32::from(rows) * u32::from(ch),
    );
    // Shrunk with a quick filter first: the protocol's own fit is slow on
    // a large picture.
    let img = if img.width() > w || img.height() > h {
        img.thumbnail(w.max(1), h.max(1))
    } else {
        img
    };
    SlicedProtocol::new_with_resize(
        &graphics.picker,
        img,
        Size::new(cols, rows),
        Resize::Fit(None),
    )
    .map_err(|e| format!("cannot draw it: {e}"))
}

fn too_large() -> String {
    format!("larger than {} MB", MAX_IMAGE_BYTES / (1024 * 1024))
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::engine::general_purpose::STANDARD;

    fn png(w: u32, h: u32) -> Vec<u8> {
        let img = image::RgbImage::from_fn(w, h, |x, _| {
            if x < w / 2 {
                image::Rgb([255, 0, 0])
            } else {
                image::Rgb([0, 0, 255])
            }
        });
        let mut out = std::io::Cursor::new(Vec::new());
        img.write_to(&mut out, image::ImageFormat::Png)
            .expect("png");
        out.into_inner()
    }

    fn failed(p: Picture) -> String {
        match p {
            Picture::Failed(why) => why,
            Picture::Shown(_) => panic!("a picture was made"),
        }
    }

    #[test]
    fn a_picture_fits_the_cells_it_is_given() {
        let g = Graphics::new(Protocol::Halfblocks, (10, 20));
        let data = STANDARD.encode(png(400, 100));
        let before = decoded_here();
        let Picture::Shown(p) = picture(&data, 20, 12, &g) else {
            panic!("no picture");
        };
        // 400×100 pixels shrunk to 20 columns: 200×50, so 3 rows of 20.
        assert_eq!((p.size().width, p.size().height), (20, 3));
        assert_eq!(decoded_here(), before + 1);
    }

    #[test]
    fn data_that_is_no_picture_says_what_it_is() {
        let g = Graphics::new(Protocol::Halfblocks, (10, 20));
        let text = STANDARD.encode("just some words, no picture");
        assert_eq!(
            failed(picture(&text, 20, 12, &g)),
            "its data is no image it knows"
        );
        assert_eq!(
            failed(picture("A===", 20, 12, &g)),
            "its data is not valid base64"
        );
        let bmp = STANDARD.encode(b"BM\x3a\0\0\0\0\0\0\0\x36\0\0\0");
        assert_eq!(
            failed(picture(&bmp, 20, 12, &g)),
            "its data is bmp, not PNG, JPEG, GIF or WebP"
        );
        // A PNG cut short: the decoder's error, not a panic.
        let cut = STANDARD.encode(&png(40, 40)[..60]);
        assert!(
            failed(picture(&cut, 20, 12, &g)).starts_with("cannot decode it:"),
            "a cut PNG"
        );
    }

    #[test]
    fn kitty_is_sent_the_pixels_never_the_files_bytes() {
        use ratatui::buffer::Buffer;
        use ratatui::layout::Rect;
        use ratatui::widgets::Widget as _;
        use ratatui_image::sliced::{SignedPosition, SlicedImage};
        let g = Graphics::new(Protocol::Kitty, (10, 20));
        let data = STANDARD.encode(png(40, 40));
        let Picture::Shown(p) = picture(&data, 20, 12, &g) else {
            panic!("no picture");
        };
        let area = Rect::new(0, 0, 30, 12);
        let mut buf = Buffer::empty(area);
        SlicedImage::new(&p, SignedPosition { x: 0, y: 0 }).render(area, &mut buf);
        let sent: String = buf.content().iter().map(|c| c.symbol()).collect();
        assert!(sent.contains("\x1b_G"), "no kitty transmission");
        assert!(!sent.contains(&data[..32]), "the file's bytes were sent");
    }
}
