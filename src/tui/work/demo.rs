//! The demo sessions bundled in the binary (`assets/demo/sessions`), copied
//! into a temporary sessions folder so they can be browsed and edited freely.

use std::io;
use std::path::Path;

/// Every demo file: its path under the sessions folder, and its bytes.
pub const DEMO_SESSIONS: &[(&str, &[u8])] = &[
    (
        "--home-ada-notes--/2026-01-11T17-39-09-004Z_019bae23-ee4c-715b-95c5-f4e0500bf8c1.jsonl",
        include_bytes!(
            "../../../assets/demo/sessions/--home-ada-notes--/2026-01-11T17-39-09-004Z_019bae23-ee4c-715b-95c5-f4e0500bf8c1.jsonl"
        ),
    ),
    (
        "--home-ada-notes--/2026-01-11T17-57-34-170Z_019bae34-cb5a-715b-95c5-f4e28d5e7631.jsonl",
        include_bytes!(
            "../../../assets/demo/sessions/--home-ada-notes--/2026-01-11T17-57-34-170Z_019bae34-cb5a-715b-95c5-f4e28d5e7631.jsonl"
        ),
    ),
    (
        "--home-ada-notes--/2026-01-11T18-16-13-962Z_019bae45-e18a-715b-95c5-f4e82ed849e3.jsonl",
        include_bytes!(
            "../../../assets/demo/sessions/--home-ada-notes--/2026-01-11T18-16-13-962Z_019bae45-e18a-715b-95c5-f4e82ed849e3.jsonl"
        ),
    ),
    (
        "--home-ada-src-compiler--/2026-01-11T17-57-34-170Z_019bae34-cb5a-715b-95c5-f4e577f37b3f.jsonl",
        include_bytes!(
            "../../../assets/demo/sessions/--home-ada-src-compiler--/2026-01-11T17-57-34-170Z_019bae34-cb5a-715b-95c5-f4e577f37b3f.jsonl"
        ),
    ),
    (
        "--home-ada-src-compiler--/2026-01-11T18-12-39-089Z_019bae42-9a31-715b-95c5-f4e70205176a.jsonl",
        include_bytes!(
            "../../../assets/demo/sessions/--home-ada-src-compiler--/2026-01-11T18-12-39-089Z_019bae42-9a31-715b-95c5-f4e70205176a.jsonl"
        ),
    ),
    (
        "--home-ada-src-web-shop--/2026-01-11T16-51-46-133Z_019badf8-8d55-715b-95c5-f4d8f8b72a16.jsonl",
        include_bytes!(
            "../../../assets/demo/sessions/--home-ada-src-web-shop--/2026-01-11T16-51-46-133Z_019badf8-8d55-715b-95c5-f4d8f8b72a16.jsonl"
        ),
    ),
    (
        "--home-ada-src-web-shop--/2026-01-11T16-56-55-516Z_019badfd-45dc-715b-95c5-f4dad3a6af53.jsonl",
        include_bytes!(
            "../../../assets/demo/sessions/--home-ada-src-web-shop--/2026-01-11T16-56-55-516Z_019badfd-45dc-715b-95c5-f4dad3a6af53.jsonl"
        ),
    ),
    (
        "--home-ada-src-web-shop--/2026-01-11T17-03-56-488Z_019bae03-b248-715b-95c5-f4dd930962a1.jsonl",
        include_bytes!(
            "../../../assets/demo/sessions/--home-ada-src-web-shop--/2026-01-11T17-03-56-488Z_019bae03-b248-715b-95c5-f4dd930962a1.jsonl"
        ),
    ),
    (
        "--srv-work-infra- prod--/2026-01-11T17-21-27-556Z_019bae13-bc04-715b-95c5-f4dfd2fe7521.jsonl",
        include_bytes!(
            "../../../assets/demo/sessions/--srv-work-infra- prod--/2026-01-11T17-21-27-556Z_019bae13-bc04-715b-95c5-f4dfd2fe7521.jsonl"
        ),
    ),
];

/// Writes the demo sessions into `dir` (pi's per-project layout).
pub fn write_demo_sessions(dir: &Path) -> io::Result<()> {
    for (rel, bytes) in DEMO_SESSIONS {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, bytes)?;
        // Fresh copies are not sessions a running pi is writing: dated back,
        // editing them does not ask about a running pi.
        let an_hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        std::fs::File::options()
            .write(true)
            .open(&path)?
            .set_modified(an_hour_ago)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_demo_file_is_bundled() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo/sessions");
        let mut on_disk = Vec::new();
        for project in std::fs::read_dir(&root).unwrap() {
            let project = project.unwrap();
            for file in std::fs::read_dir(project.path()).unwrap() {
                let file = file.unwrap();
                on_disk.push(format!(
                    "{}/{}",
                    project.file_name().to_string_lossy(),
                    file.file_name().to_string_lossy()
                ));
            }
        }
        on_disk.sort();
        let mut bundled: Vec<String> = DEMO_SESSIONS.iter().map(|(p, _)| p.to_string()).collect();
        bundled.sort();
        assert_eq!(bundled, on_disk);
    }
}
