//! Images in the context preview, from a pi-written session
//! (`tests/data/render/images.jsonl`, made by `make-images.mjs` beside it):
//! placeholders with their type and size where the terminal draws no
//! pictures, pictures fitted into rows kept for them where it does, a
//! reason instead of a picture for data that is broken, too large or of
//! another type, each picture decoded once; and, on a real pseudo-terminal,
//! the start-up question that never hangs and the graphics protocols'
//! bytes, which carry nothing from the file.

use piscope::tui::config::Config;
use piscope::tui::event::{AppEvent, Command};
use piscope::tui::harness::{DEMO_NOW_MS, Harness};
use piscope::tui::look::images::Protocol;
use piscope::tui::look::layout::Pane;
use piscope::tui::model::preview_images::{self, Graphics};
use piscope::tui::state::{App, Start};
use piscope::tui::work::workers::JobContext;
use ratatui::style::Color;
use std::path::{Path, PathBuf};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/render/images.jsonl")
}

const SIZE: (u16, u16) = (160, 40);
const RED: Color = Color::Rgb(255, 0, 0);
const BLUE: Color = Color::Rgb(0, 0, 255);
const GREEN: Color = Color::Rgb(0, 255, 0);

/// The session open at the entry whose text starts with `text` (found by
/// the tree's search), pictures drawn by `graphics`.
fn at(file: &Path, text: &str, graphics: Option<Graphics>) -> Harness {
    let mut h = Harness::file(file, SIZE);
    h.app.set_graphics(graphics);
    h.type_text(text);
    h.key("enter");
    h
}

fn halfblocks() -> Option<Graphics> {
    Some(Graphics::new(Protocol::Halfblocks, (10, 20)))
}

/// The preview pane's text inside its border.
fn preview_pane(h: &mut Harness) -> String {
    pane_text(h, false)
}

/// The same, each cell of a picture drawn as `█`.
fn preview_with_pictures(h: &mut Harness) -> String {
    pane_text(h, true)
}

fn pane_text(h: &mut Harness, pictures: bool) -> String {
    let rect = h.app.layout().rect(Pane::Preview).expect("a preview pane");
    let shade = piscope::tui::look::theme::Theme::defaults(false)
        .preview_selected
        .bg;
    let buf = h.frame();
    let mut out = String::new();
    for y in rect.y + 1..rect.y + rect.height - 1 {
        let mut row = String::new();
        for x in rect.x + 1..rect.x + rect.width - 1 {
            let cell = &buf[(x, y)];
            if pictures && matches!(cell.bg, Color::Rgb(..)) && Some(cell.bg) != shade {
                row.push('█');
            } else {
                row.push_str(cell.symbol());
            }
        }
        out.push_str(row.trim_end());
        out.push('\n');
    }
    out
}

/// The preview's cells drawn from a picture (true colour that is not the
/// theme's), row by row: each row's colours, left to right.
fn picture_rows(h: &mut Harness) -> Vec<Vec<Color>> {
    let rect = h.app.layout().rect(Pane::Preview).expect("a preview pane");
    let shade = piscope::tui::look::theme::Theme::defaults(false)
        .preview_selected
        .bg;
    let buf = h.frame();
    let mut rows = Vec::new();
    for y in rect.y + 1..rect.y + rect.height - 1 {
        let row: Vec<Color> = (rect.x + 1..rect.x + rect.width - 1)
            .map(|x| buf[(x, y)].bg)
            .filter(|&c| matches!(c, Color::Rgb(..)) && Some(c) != shade)
            .collect();
        if !row.is_empty() {
            rows.push(row);
        }
    }
    rows
}

/// The picture colours of the preview, in the order they first appear.
fn picture_colours(h: &mut Harness) -> Vec<Color> {
    let mut seen = Vec::new();
    for c in picture_rows(h).into_iter().flatten() {
        if !seen.contains(&c) {
            seen.push(c);
        }
    }
    seen
}

#[test]
fn without_pictures_an_image_is_its_placeholder_line() {
    let mut h = at(&fixture(), "The screenshot", None);
    let pane = preview_pane(&mut h);
    assert!(pane.contains("[image png 443 B]"), "{pane}");
    assert!(picture_colours(&mut h).is_empty(), "{pane}");
    insta::assert_snapshot!("image_placeholder_block", pane);
}

#[test]
fn a_picture_is_drawn_from_the_images_pixels_in_the_rows_kept_for_it() {
    let mut h = at(&fixture(), "The screenshot", halfblocks());
    let pane = preview_pane(&mut h);
    // 160×80 pixels in cells of 10×20: 16 columns, 4 rows, left half red,
    // right half blue, under the placeholder line.
    assert!(pane.contains("[image png 443 B]"), "{pane}");
    let rows = picture_rows(&mut h);
    assert_eq!(rows.len(), 4, "{pane}");
    for row in &rows {
        assert_eq!(row.len(), 16, "{row:?}");
        assert_eq!((row[0], row[15]), (RED, BLUE), "{row:?}");
    }

    insta::assert_snapshot!("image_picture_block", preview_with_pictures(&mut h));
    // The image a tool read, further on: shown at once, as pi shows a
    // tool's images: green.
    let mut h = at(&fixture(), "plain green", halfblocks());
    assert!(
        picture_colours(&mut h).contains(&GREEN),
        "{}",
        preview_pane(&mut h)
    );
}

#[test]
fn images_that_cannot_be_shown_keep_their_placeholder_and_say_why() {
    let mut h = at(&fixture(), "The last word", halfblocks());
    // The view ends at the selected entry; page up to see them all.
    let mut seen = String::new();
    h.key("tab");
    for _ in 0..8 {
        seen.push_str(&preview_pane(&mut h));
        h.key("pageup");
    }
    for want in [
        "[image png 36 B]",
        "cannot show it: its data is no image it knows",
        "[image svg+xml 59 B] · not shown: not PNG, JPEG, GIF or WebP",
        "[image png 441 B] · not shown: its base64 is broken",
        // The type's escape sequence shown, not obeyed: no picture either.
        "[image png␛[31m 443 B] · not shown: not PNG, JPEG, GIF or WebP",
    ] {
        assert!(seen.contains(want), "no {want:?} in\n{seen}");
    }
    assert!(!seen.contains('\u{1b}'), "{seen}");
    // The broken one on its own: its line, then why, in the one row kept.
    let mut h = at(&fixture(), "This one is broken", halfblocks());
    let pane = preview_pane(&mut h);
    let at_image: Vec<&str> = pane
        .lines()
        .skip_while(|l| !l.contains("[image png 36 B]"))
        .take(3)
        .collect();
    assert_eq!(
        at_image,
        [
            "▌  [image png 36 B]",
            "▌  cannot show it: its data is no image it knows",
            "▌"
        ],
        "{pane}"
    );
    insta::assert_snapshot!("image_broken", pane);
}

/// A session of the fixture's first two lines and one user message
/// holding `data` as a PNG.
fn with_image(dir: &Path, text: &str, data: &str) -> PathBuf {
    let path = dir.join(format!("{}.jsonl", text.replace(' ', "-")));
    let fixture = std::fs::read_to_string(fixture()).expect("fixture");
    let mut body: String = fixture.lines().take(2).map(|l| format!("{l}\n")).collect();
    let line = serde_json::json!({
        "type": "message",
        "id": "ffff0001",
        "parentId": "964ea963",
        "timestamp": "2026-12-01T10:03:00.000Z",
        "message": {
            "role": "user",
            "content": [
                {"type": "text", "text": text},
                {"type": "image", "data": data, "mimeType": "image/png"}
            ],
            "timestamp": 1796119380000u64
        }
    });
    body.push_str(&line.to_string());
    body.push('\n');
    std::fs::write(&path, body).expect("write");
    path
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut c = 0xffff_ffffu32;
    for &b in bytes {
        c ^= u32::from(b);
        for _ in 0..8 {
            c = if c & 1 == 1 {
                0xedb8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
    }
    !c
}

/// A PNG that claims to be `w` × `h` pixels and holds almost nothing.
fn png_claiming(w: u32, h: u32) -> Vec<u8> {
    let mut out = vec![0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a];
    let mut chunk = |kind: &[u8], data: &[u8]| {
        out.extend((data.len() as u32).to_be_bytes());
        let mut body = kind.to_vec();
        body.extend_from_slice(data);
        out.extend_from_slice(&body);
        out.extend(crc32(&body).to_be_bytes());
    };
    let mut ihdr = Vec::new();
    ihdr.extend(w.to_be_bytes());
    ihdr.extend(h.to_be_bytes());
    ihdr.extend([8, 6, 0, 0, 0]);
    chunk(b"IHDR", &ihdr);
    chunk(b"IDAT", &[0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]);
    chunk(b"IEND", &[]);
    out
}

#[test]
fn an_image_over_the_limit_is_not_decoded_and_says_so() {
    use base64::Engine as _;
    let dir = tempfile::tempdir().expect("temp dir");
    // 17 MB of (well-formed) base64.
    let big = "A".repeat(17 * 1024 * 1024 / 3 * 4);
    let file = with_image(dir.path(), "A huge one", &big);
    let before = preview_images::decoded_here();
    let mut h = at(&file, "A huge one", halfblocks());
    let pane = preview_pane(&mut h);
    assert!(
        pane.contains("[image png 17.0 MB] · not shown: larger than 16 MB"),
        "{pane}"
    );
    assert_eq!(preview_images::decoded_here(), before, "it was decoded");

    // A small file claiming a huge picture is stopped by the decoder's limits.
    let bomb = base64::engine::general_purpose::STANDARD.encode(png_claiming(60_000, 60_000));
    let file = with_image(dir.path(), "A bomb", &bomb);
    let mut h = at(&file, "A bomb", halfblocks());
    let pane = preview_pane(&mut h);
    assert!(
        pane.contains("cannot show it: too large to decode"),
        "{pane}"
    );
    insta::assert_snapshot!("image_too_large_to_decode", pane);
}

/// The app driven by hand, as the harness drives it but with a bound on
/// the rounds of work an event causes (a picture asked for again and again
/// fails the test instead of hanging it), and the pictures' jobs held back
/// while `hold` is set.
struct Driven {
    app: App,
    cx: JobContext,
    term: ratatui::Terminal<ratatui::backend::TestBackend>,
    hold: bool,
    held: Vec<Command>,
}

impl Driven {
    fn new(file: &Path, graphics: Option<Graphics>) -> Driven {
        let area = ratatui::layout::Rect::new(0, 0, SIZE.0, SIZE.1);
        let (mut app, first) = App::new(
            Start::File(file.to_path_buf()),
            Config::defaults(false),
            piscope::tui::clock::Clock::fixed(DEMO_NOW_MS, 0),
            None,
            area,
        );
        app.set_graphics(graphics);
        let term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(SIZE.0, SIZE.1))
            .expect("terminal");
        let mut d = Driven {
            app,
            cx: JobContext::new(None, None, false, PathBuf::from("/")),
            term,
            hold: false,
            held: Vec::new(),
        };
        d.run(first);
        d.send(AppEvent::Resize(SIZE.0, SIZE.1));
        d
    }

    fn run(&mut self, mut cmds: Vec<Command>) {
        let mut budget = 1000usize;
        for _ in 0..100 {
            if cmds.is_empty() {
                return;
            }
            budget = match budget.checked_sub(cmds.len()) {
                Some(left) => left,
                None => break,
            };
            let events = std::cell::RefCell::new(Vec::new());
            for cmd in cmds.drain(..) {
                if self.hold && matches!(cmd, Command::DecodePictures(_)) {
                    self.held.push(cmd);
                    continue;
                }
                self.cx.run(cmd, &|ev| events.borrow_mut().push(ev));
            }
            for ev in events.into_inner() {
                cmds.extend(self.app.update(ev));
            }
        }
        panic!("the work never settles: {cmds:?}");
    }

    fn send(&mut self, ev: AppEvent) {
        let cmds = self.app.update(ev);
        self.run(cmds);
    }

    fn key(&mut self, spec: &str) {
        self.send(key(spec));
    }

    fn type_text(&mut self, text: &str) {
        for c in text.chars() {
            self.key(&if c == ' ' {
                "space".to_string()
            } else {
                c.to_string()
            });
        }
    }

    /// Runs the pictures' jobs held back.
    fn release(&mut self) {
        self.hold = false;
        let held = std::mem::take(&mut self.held);
        self.run(held);
    }

    fn frame(&mut self) -> ratatui::buffer::Buffer {
        let app = &self.app;
        self.term
            .draw(|f| piscope::tui::draw::draw(f, app))
            .expect("draw")
            .buffer
            .clone()
    }
}

#[test]
fn each_picture_is_decoded_once_however_the_view_moves() {
    // Placeholders while the entry is found (other images on the way are
    // no business of this test), then pictures.
    let mut d = Driven::new(&fixture(), None);
    d.type_text("plain green");
    d.key("enter");
    d.key("tab");
    d.key("O");
    let before = preview_images::decoded_here();
    d.app.set_graphics(halfblocks());
    d.send(AppEvent::Resize(SIZE.0, SIZE.1));
    let red = |d: &mut Driven| d.frame().content().iter().any(|c| c.bg == RED);
    for _ in 0..4 {
        d.key("pageup");
        d.frame();
    }
    assert!(red(&mut d), "the screenshot is drawn");
    // The screenshot and the tile, once each.
    let first = preview_images::decoded_here() - before;
    assert_eq!(first, 2, "decoded {first} times");
    // Scrolling, moving the block cursor, leaving and coming back.
    for k in [
        "pagedown", "pageup", "n", "n", "p", "down", "up", "pagedown", "pageup",
    ] {
        d.key(k);
        d.frame();
    }
    d.key("tab");
    d.key("up");
    d.key("down");
    d.frame();
    assert_eq!(
        preview_images::decoded_here() - before,
        first,
        "decoded again"
    );
    // Another width is another size: decoded for it, then kept too.
    d.term.backend_mut().resize(120, 40);
    d.send(AppEvent::Resize(120, 40));
    d.frame();
    let after_resize = preview_images::decoded_here() - before;
    assert!(after_resize > first, "a new width fits the pictures anew");
    d.term.backend_mut().resize(SIZE.0, SIZE.1);
    d.send(AppEvent::Resize(SIZE.0, SIZE.1));
    d.frame();
    assert_eq!(
        preview_images::decoded_here() - before,
        after_resize,
        "the first width's pictures were kept"
    );
}

/// The row (inside the preview) of the first line that contains `text`.
fn row_of(buf: &ratatui::buffer::Buffer, rect: ratatui::layout::Rect, text: &str) -> Option<u16> {
    (rect.y..rect.y + rect.height).find(|&y| {
        let row: String = (rect.x..rect.x + rect.width)
            .map(|x| buf[(x, y)].symbol().to_string())
            .collect();
        row.contains(text)
    })
}

#[test]
fn the_rows_kept_for_a_picture_stay_whether_it_has_arrived_or_not() {
    let mut d = Driven::new(&fixture(), halfblocks());
    d.hold = true;
    d.type_text("plain green");
    d.key("enter");
    assert!(!d.held.is_empty(), "pictures were asked for");
    let rect = d.app.layout().rect(Pane::Preview).expect("preview");
    let had_picture = |buf: &ratatui::buffer::Buffer| buf.content().iter().any(|c| c.bg == RED);
    let pending = d.frame();
    assert!(!had_picture(&pending));
    let text_row = row_of(&pending, rect, "The tile is plain green");
    assert!(
        text_row.is_some(),
        "{}",
        piscope::tui::harness::buffer_text(&pending)
    );
    d.release();
    let arrived = d.frame();
    assert!(
        had_picture(&arrived),
        "{}",
        piscope::tui::harness::buffer_text(&arrived)
    );
    for text in ["The tile is plain green", "Red on the left"] {
        assert_eq!(
            row_of(&arrived, rect, text),
            row_of(&pending, rect, text),
            "{text}"
        );
    }
}

fn key(spec: &str) -> AppEvent {
    let k = piscope::tui::input::keymap::Key::parse(spec).expect("key");
    AppEvent::Key(ratatui::crossterm::event::KeyEvent {
        code: k.code,
        modifiers: k.mods,
        kind: ratatui::crossterm::event::KeyEventKind::Press,
        state: ratatui::crossterm::event::KeyEventState::NONE,
    })
}

// --- A real pseudo-terminal ------------------------------------------------

#[cfg(unix)]
mod pty {
    use super::fixture;
    use std::io::{Read, Write};
    use std::os::fd::{FromRawFd, OwnedFd};
    use std::os::unix::process::CommandExt;
    use std::process::{Child, Command, Stdio};
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, Instant};

    const BIN: &str = env!("CARGO_BIN_EXE_piscope");
    /// kitty's answers to the start-up question: its graphics protocol, a
    /// device report without sixel, cells of 10×20 pixels, the status.
    const KITTY_ANSWERS: &[u8] = b"\x1b_Gi=31;OK\x1b\\\x1b[?62;22c\x1b[6;20;10t\x1b[0n";

    /// piscope on a pseudo-terminal of 120×40 cells (1200×800 pixels when
    /// `pixels`), everything it writes kept.
    pub struct Pty {
        master: std::fs::File,
        out: Arc<Mutex<Vec<u8>>>,
        child: Child,
        _home: tempfile::TempDir,
    }

    impl Pty {
        pub fn start(file: &std::path::Path, env: &[(&str, &str)], pixels: bool) -> Pty {
            let (mut master, mut slave) = (0, 0);
            let ws = libc::winsize {
                ws_row: 40,
                ws_col: 120,
                ws_xpixel: if pixels { 1200 } else { 0 },
                ws_ypixel: if pixels { 800 } else { 0 },
            };
            // SAFETY: two out-pointers to ints and a winsize, for the call.
            let ok = unsafe {
                libc::openpty(
                    &mut master,
                    &mut slave,
                    std::ptr::null_mut(),
                    std::ptr::null(),
                    &ws,
                )
            };
            assert_eq!(ok, 0, "openpty: {}", std::io::Error::last_os_error());
            // SAFETY: both descriptors were just opened and are ours.
            let (master, slave) =
                unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
            let home = tempfile::tempdir().expect("home");
            let mut cmd = Command::new(BIN);
            cmd.arg(file)
                .env_clear()
                .env("PATH", std::env::var_os("PATH").unwrap_or_default())
                .env("HOME", home.path())
                .env("XDG_CONFIG_HOME", home.path().join("config"))
                .env("XDG_CACHE_HOME", home.path().join("cache"))
                .env("TERM", "xterm-256color")
                .envs(env.iter().copied())
                .stdin(Stdio::from(slave.try_clone().expect("dup")))
                .stdout(Stdio::from(slave.try_clone().expect("dup")))
                .stderr(Stdio::from(slave));
            // SAFETY: only async-signal-safe calls between fork and exec.
            unsafe {
                cmd.pre_exec(|| {
                    if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY, 0) < 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
            let child = cmd.spawn().expect("piscope starts");
            let master = std::fs::File::from(master);
            let out = Arc::new(Mutex::new(Vec::new()));
            let (mut reader, sink) = (master.try_clone().expect("dup"), out.clone());
            std::thread::spawn(move || {
                let mut buf = [0u8; 65536];
                while let Ok(n) = reader.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    sink.lock().expect("lock").extend_from_slice(&buf[..n]);
                }
            });
            Pty {
                master,
                out,
                child,
                _home: home,
            }
        }

        pub fn output(&self) -> Vec<u8> {
            self.out.lock().expect("lock").clone()
        }

        /// Waits until the output holds `what`; the time it took.
        pub fn wait_for(&self, what: &[u8], timeout: Duration) -> Duration {
            let started = Instant::now();
            while started.elapsed() < timeout {
                if contains(&self.output(), what) {
                    return started.elapsed();
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            panic!(
                "no {:?} after {timeout:?}; the terminal got:\n{}",
                String::from_utf8_lossy(what),
                String::from_utf8_lossy(&self.output()).escape_debug()
            );
        }

        pub fn type_bytes(&mut self, bytes: &[u8]) {
            self.master.write_all(bytes).expect("write to the terminal");
        }

        /// Quits and waits for the exit.
        pub fn quit(mut self) -> Vec<u8> {
            // Ctrl+C: quits whatever has the keys (the tree's search too).
            self.type_bytes(b"\x03");
            let started = Instant::now();
            while started.elapsed() < Duration::from_secs(10) {
                if let Ok(Some(status)) = self.child.try_wait() {
                    assert!(status.success(), "piscope exited with {status}");
                    std::thread::sleep(Duration::from_millis(50));
                    return self.output();
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = self.child.kill();
            panic!("piscope did not quit");
        }
    }

    pub fn contains(hay: &[u8], needle: &[u8]) -> bool {
        hay.windows(needle.len()).any(|w| w == needle)
    }

    /// The file's own bytes that must never reach the terminal: its escape
    /// sequences and its images' base64.
    fn assert_nothing_from_the_file(out: &[u8]) {
        for bad in [
            &b"\x1b]0;owned"[..],
            b"\x1b]52;c;",
            b"\x1b[2J\x1b]0",
            b"image/png\x1b",
        ] {
            assert!(
                !contains(out, bad),
                "{:?} reached the terminal",
                String::from_utf8_lossy(bad)
            );
        }
        let body = std::fs::read_to_string(fixture()).expect("fixture");
        for line in body.lines() {
            let v: serde_json::Value = serde_json::from_str(line).expect("json");
            let Some(content) = v["message"]["content"].as_array() else {
                continue;
            };
            for c in content {
                if let Some(data) = c["data"].as_str() {
                    // Any 40 characters of it.
                    assert!(
                        !contains(out, &data.as_bytes()[..40.min(data.len())]),
                        "an image's base64 reached the terminal"
                    );
                }
            }
        }
    }

    fn open_at_the_screenshot(t: &mut Pty) {
        t.wait_for(b"The last word", Duration::from_secs(10));
        t.type_bytes(b"The screenshot\r");
    }

    #[test]
    fn a_terminal_that_never_answers_gets_placeholders_without_a_hang() {
        let started = Instant::now();
        let mut t = Pty::start(&fixture(), &[], true);
        // The question is asked, and never answered.
        t.wait_for(b"\x1b[5n", Duration::from_secs(10));
        let took = t.wait_for(b"The last word", Duration::from_secs(10));
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "the first frame took {took:?}"
        );
        open_at_the_screenshot(&mut t);
        t.wait_for(b"[image png 443 B]", Duration::from_secs(10));
        let out = t.quit();
        assert!(!contains(&out, b"\x1b_Gq=2,"), "a kitty picture was sent");
        assert!(!contains(&out, b"\x1bPq"), "a sixel was sent");
        assert_nothing_from_the_file(&out);
    }

    #[test]
    fn a_terminal_that_answers_as_kitty_gets_kitty_pictures() {
        let mut t = Pty::start(&fixture(), &[], false);
        t.wait_for(b"\x1b[5n", Duration::from_secs(10));
        t.type_bytes(KITTY_ANSWERS);
        open_at_the_screenshot(&mut t);
        // The picture's pixels sent once, then placed by placeholders.
        t.wait_for(b"\x1b_Gq=2,", Duration::from_secs(10));
        t.wait_for("\u{10EEEE}".as_bytes(), Duration::from_secs(10));
        let out = t.quit();
        assert_nothing_from_the_file(&out);
    }

    #[test]
    fn a_protocol_named_in_the_setting_is_used_without_asking() {
        for (name, mark) in [("sixel", &b"\x1bP"[..]), ("iterm2", b"\x1b]1337;File=")] {
            let mut t = Pty::start(&fixture(), &[("PISCOPE_IMAGES", name)], true);
            open_at_the_screenshot(&mut t);
            t.wait_for(mark, Duration::from_secs(10));
            let out = t.quit();
            assert!(
                !contains(&out, b"\x1b[5n"),
                "{name}: the terminal was asked"
            );
            assert_nothing_from_the_file(&out);
        }
    }

    #[test]
    fn images_off_asks_nothing_and_draws_placeholders() {
        let mut t = Pty::start(&fixture(), &[("PISCOPE_IMAGES", "off")], true);
        open_at_the_screenshot(&mut t);
        t.wait_for(b"[image png 443 B]", Duration::from_secs(10));
        let out = t.quit();
        assert!(!contains(&out, b"\x1b[5n"), "the terminal was asked");
        assert!(!contains(&out, b"\x1b_G"), "a kitty sequence was sent");
    }
}
