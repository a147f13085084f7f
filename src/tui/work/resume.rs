//! Handing a session over to pi: the pi command (config file or
//! `PISCOPE_PI_COMMAND`), split into words without a shell, found on `PATH`,
//! and run in the session's folder in place of piscope.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Overrides the config file's `[pi] command`.
pub const PI_COMMAND_ENV: &str = "PISCOPE_PI_COMMAND";
/// What runs pi when nothing else is configured.
pub const DEFAULT_PI_COMMAND: &str = "pi";
/// Stands for the session file in a configured command; without it the
/// file goes last, after `--session`.
pub const SESSION_PLACEHOLDER: &str = "{session}";

/// The configured pi command, as words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PiCommand {
    words: Vec<String>,
}

impl Default for PiCommand {
    fn default() -> PiCommand {
        PiCommand {
            words: vec![DEFAULT_PI_COMMAND.to_string()],
        }
    }
}

impl PiCommand {
    /// Parses a command line such as `pi --model x` or
    /// `npx pi --session {session}`: words split at white space, with
    /// '…' and "…" quoting and backslash escapes, as a shell would split
    /// them, but never run by one.
    pub fn parse(text: &str) -> Result<PiCommand, String> {
        let words = split_words(text)?;
        if words.is_empty() {
            return Err("the pi command is empty".to_string());
        }
        Ok(PiCommand { words })
    }

    /// The words for resuming `session`: program first.
    pub fn argv(&self, session: &Path) -> Vec<OsString> {
        let mut out: Vec<OsString> = Vec::with_capacity(self.words.len() + 2);
        let mut placed = false;
        for w in &self.words {
            if w.contains(SESSION_PLACEHOLDER) {
                placed = true;
                // The path is its own argument (or part of one), never text
                // a shell would read.
                let mut arg = OsString::new();
                let mut parts = w.split(SESSION_PLACEHOLDER).peekable();
                while let Some(part) = parts.next() {
                    arg.push(part);
                    if parts.peek().is_some() {
                        arg.push(session.as_os_str());
                    }
                }
                out.push(arg);
            } else {
                out.push(OsString::from(w));
            }
        }
        if !placed {
            out.push("--session".into());
            out.push(session.as_os_str().to_owned());
        }
        out
    }
}

/// A resume, ready to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resume {
    /// Program first, then its arguments.
    pub argv: Vec<OsString>,
    /// The folder pi starts in.
    pub cwd: PathBuf,
}

impl Resume {
    /// The command a person would type to do the same, quoted for a POSIX
    /// shell (for showing only: it is never run by one).
    pub fn by_hand(&self) -> String {
        let words: Vec<String> = self
            .argv
            .iter()
            .map(|w| shell_quote(&w.to_string_lossy()))
            .collect();
        format!(
            "cd {} && {}",
            shell_quote(&self.cwd.to_string_lossy()),
            words.join(" ")
        )
    }

    /// Replaces this process with pi (Unix); elsewhere runs pi and exits
    /// with its status. Returns only when pi could not be started.
    pub fn run(self) -> std::io::Error {
        let Some((program, args)) = self.argv.split_first() else {
            return std::io::Error::other("no pi command");
        };
        let mut cmd = std::process::Command::new(program);
        cmd.args(args).current_dir(&self.cwd);
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            cmd.exec()
        }
        #[cfg(not(unix))]
        {
            match cmd.status() {
                Ok(status) => std::process::exit(status.code().unwrap_or(1)),
                Err(e) => e,
            }
        }
    }
}

/// Where `program` would be found: itself when it names a path, else the
/// first executable of that name on `PATH`.
pub fn find_program(program: &std::ffi::OsStr) -> Option<PathBuf> {
    let p = Path::new(program);
    if p.components().count() > 1 {
        return is_executable(p).then(|| p.to_path_buf());
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(p))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(p: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(p) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        meta.is_file()
    }
}

/// Splits a command line into words as a POSIX shell does for plain words
/// and quotes (no variables, globs or operators: they stay literal).
pub fn split_words(text: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err("a ' quote is not closed".to_string()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err("a \" quote is not closed".to_string()),
                        },
                        Some(c) => word.push(c),
                        None => return Err("a \" quote is not closed".to_string()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(c) = chars.next() {
                    word.push(c);
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

/// Quotes a word for a POSIX shell when it needs it.
pub fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_like_a_shell_without_one() {
        assert_eq!(
            split_words(r#"npx  'pi agent' "a \"b\"" c\ d $HOME;rm"#).unwrap(),
            vec!["npx", "pi agent", "a \"b\"", "c d", "$HOME;rm"]
        );
        assert_eq!(split_words("''").unwrap(), vec![""]);
        assert!(split_words("'open").is_err());
        assert!(PiCommand::parse("   ").is_err());
    }

    #[test]
    fn the_session_goes_last_or_where_the_placeholder_is() {
        let file = Path::new("/s/it's $(x).jsonl");
        let default = PiCommand::default().argv(file);
        assert_eq!(
            default,
            vec![
                OsString::from("pi"),
                "--session".into(),
                file.as_os_str().into()
            ]
        );
        let custom = PiCommand::parse("my-pi --resume={session} --fast").unwrap();
        assert_eq!(
            custom.argv(file),
            vec![
                OsString::from("my-pi"),
                OsString::from("--resume=/s/it's $(x).jsonl"),
                "--fast".into()
            ]
        );
    }

    #[test]
    fn the_by_hand_command_is_quoted() {
        let r = Resume {
            argv: PiCommand::default().argv(Path::new("/s/it's $(x).jsonl")),
            cwd: PathBuf::from("/home/a b"),
        };
        assert_eq!(
            r.by_hand(),
            r"cd '/home/a b' && pi --session '/s/it'\''s $(x).jsonl'"
        );
    }

    #[test]
    fn programs_are_found_on_the_path_or_by_path() {
        assert!(find_program(std::ffi::OsStr::new("sh")).is_some());
        assert!(find_program(std::ffi::OsStr::new("no-such-program-here")).is_none());
        assert!(find_program(std::ffi::OsStr::new("/no/such/pi")).is_none());
    }
}
