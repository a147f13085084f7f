use std::io::BufRead;
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let mode = std::env::args().nth(2).unwrap();
    let t = std::time::Instant::now();
    let f = std::fs::File::open(&path).unwrap();
    let mut r = std::io::BufReader::with_capacity(1 << 20, f);
    let mut buf = Vec::new();
    let mut n = 0usize;
    loop {
        buf.clear();
        if r.read_until(b'\n', &mut buf).unwrap() == 0 {
            break;
        }
        let s = std::str::from_utf8(&buf).unwrap();
        match mode.as_str() {
            "lines" => n += s.len(),
            "ignored" => {
                let _: serde::de::IgnoredAny = serde_json::from_str(s).unwrap();
                n += 1;
            }
            "value" => {
                let _: serde_json::Value = serde_json::from_str(s).unwrap();
                n += 1;
            }
            "session" => {}
            "parse" => {
                let m = piscope::session::read::LineMeta {
                    offset: 0,
                    len: s.len() as u64,
                    number: 1,
                    terminated: true,
                    lossy: false,
                };
                let _ = piscope::session::entry::parse_line_pub(s, m);
                n += 1;
            }
            _ => {}
        }
    }
    if mode == "session" {
        let s = piscope::session::Session::open(&path).unwrap();
        n = s.entries.len();
    }
    eprintln!("{mode}: {n} in {:?}", t.elapsed());
}
