//! The user's config file (key bindings, colours, the pi command, images):
//! where it lives, how it is read, and the fall-back to the defaults,
//! reported, when it is broken.

use crate::tui::input::keymap::{Action, Keymap, Scope};
use crate::tui::look::images::{IMAGES_ENV, ImageMode};
use crate::tui::look::theme::Theme;
use crate::tui::work::resume::{PI_COMMAND_ENV, PiCommand};
use std::path::PathBuf;

/// Names the config file explicitly (tests, or a second setup).
pub const CONFIG_ENV: &str = "PISCOPE_CONFIG";

/// Key bindings and colours in force, and what was wrong with the file.
#[derive(Debug, Clone)]
pub struct Config {
    pub keymap: Keymap,
    pub theme: Theme,
    /// How pi is started to resume a session.
    pub pi_command: PiCommand,
    /// Whether the preview draws images as pictures (`[preview] images`).
    pub images: ImageMode,
    /// Where the config file is looked for.
    pub path: Option<PathBuf>,
    /// Problems found in the file; each part that had one uses its defaults.
    pub problems: Vec<String>,
}

impl Config {
    /// The shipped defaults.
    pub fn defaults(no_color: bool) -> Config {
        Config {
            keymap: Keymap::defaults(),
            theme: Theme::defaults(no_color),
            pi_command: PiCommand::default(),
            images: ImageMode::default(),
            path: None,
            problems: Vec::new(),
        }
    }

    /// Reads the user's config file; a missing file means the defaults.
    pub fn load(no_color: bool) -> Config {
        let path = config_path();
        let mut config = match &path {
            None => Config::defaults(no_color),
            Some(p) => match crate::session::read::file::read_regular_to_string(p) {
                Ok(text) => Config::from_text(&text, no_color),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Config::defaults(no_color),
                Err(e) => {
                    let mut c = Config::defaults(no_color);
                    c.problems.push(format!("cannot read it: {e}"));
                    c
                }
            },
        };
        config.path = path;
        if let Some(text) = std::env::var_os(PI_COMMAND_ENV).filter(|v| !v.is_empty()) {
            match PiCommand::parse(&text.to_string_lossy()) {
                Ok(c) => config.pi_command = c,
                Err(e) => config.problems.push(format!("{PI_COMMAND_ENV}: {e}")),
            }
        }
        if let Some(text) = std::env::var_os(IMAGES_ENV).filter(|v| !v.is_empty()) {
            match ImageMode::parse(&text.to_string_lossy()) {
                Ok(m) => config.images = m,
                Err(e) => config.problems.push(format!("{IMAGES_ENV}: {e}")),
            }
        }
        config
    }

    /// Reads a config file's text.
    pub fn from_text(text: &str, no_color: bool) -> Config {
        let mut config = Config::defaults(no_color);
        let table: toml::Table = match text.parse() {
            Ok(t) => t,
            Err(e) => {
                let msg = e.to_string();
                config
                    .problems
                    .push(msg.lines().next().unwrap_or("not valid TOML").to_string());
                return config;
            }
        };
        for (key, value) in &table {
            match (key.as_str(), value.as_table()) {
                ("keys", Some(keys)) => match Keymap::with_overrides(keys) {
                    Ok(k) => config.keymap = k,
                    Err(e) => config.problems.extend(e),
                },
                ("theme", Some(theme)) => match Theme::with_overrides(theme, no_color) {
                    Ok(t) => config.theme = t,
                    Err(e) => config.problems.extend(e),
                },
                ("pi", Some(pi)) => config.read_pi(pi),
                ("preview", Some(preview)) => config.read_preview(preview),
                ("keys" | "theme" | "pi" | "preview", None) => {
                    config.problems.push(format!("{key} must be a table"))
                }
                _ => config.problems.push(format!(
                    "{key}: unknown setting (known: [keys.*], [theme], [pi], [preview])"
                )),
            }
        }
        config
    }

    /// The `[pi]` table: `command = "pi"`, the words that start pi (the
    /// session goes last after `--session`, or where `{session}` stands).
    fn read_pi(&mut self, table: &toml::Table) {
        for (key, value) in table {
            match (key.as_str(), value.as_str()) {
                ("command", Some(text)) => match PiCommand::parse(text) {
                    Ok(c) => self.pi_command = c,
                    Err(e) => self.problems.push(format!("[pi] command: {e}")),
                },
                ("command", None) => self
                    .problems
                    .push("[pi] command must be a string".to_string()),
                _ => self
                    .problems
                    .push(format!("[pi] {key}: unknown setting (known: command)")),
            }
        }
    }

    /// The `[preview]` table: `images = "auto"` (see [`ImageMode`]).
    fn read_preview(&mut self, table: &toml::Table) {
        for (key, value) in table {
            match (key.as_str(), value.as_str()) {
                ("images", Some(text)) => match ImageMode::parse(text) {
                    Ok(m) => self.images = m,
                    Err(e) => self.problems.push(format!("[preview] images: {e}")),
                },
                ("images", None) => self.problems.push(format!(
                    "[preview] images must be a string: {}",
                    ImageMode::CHOICES
                )),
                _ => self
                    .problems
                    .push(format!("[preview] {key}: unknown setting (known: images)")),
            }
        }
    }

    /// One line for the status bar when the file had problems.
    pub fn report(&self) -> Option<String> {
        let first = self.problems.first()?;
        let file = self
            .path
            .as_ref()
            .map_or("config".to_string(), |p| p.display().to_string());
        let more = match self.problems.len() {
            1 => String::new(),
            n => crate::tui::look::strings::config_more_problems(
                n - 1,
                &self.keymap.keys_for(Scope::Global, Action::Help),
            ),
        };
        Some(format!("{file}: {first}{more}; using the defaults"))
    }
}

/// `$PISCOPE_CONFIG`, else `config.toml` in the user's config folder.
pub fn config_path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(CONFIG_ENV).filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    directories::ProjectDirs::from("", "", "piscope").map(|d| d.config_dir().join("config.toml"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::input::keymap::Key;

    #[test]
    fn good_file_overrides_keys_and_colours() {
        let c = Config::from_text(
            "[keys.tree]\njump_to_leaf = \"alt+g\"\n[theme]\nlabel = \"red\"\n",
            false,
        );
        assert!(c.problems.is_empty(), "{:?}", c.problems);
        assert_eq!(
            c.keymap.action(Scope::Tree, Key::parse("alt+g").unwrap()),
            Some(Action::TreeJumpToLeaf)
        );
        assert_eq!(c.theme.label.fg, Some(ratatui::style::Color::Red));
    }

    #[test]
    fn the_pi_command_is_read_from_the_file() {
        let c = Config::from_text("[pi]\ncommand = \"npx pi --session {session}\"\n", false);
        assert!(c.problems.is_empty(), "{:?}", c.problems);
        let argv = c.pi_command.argv(std::path::Path::new("/s.jsonl"));
        assert_eq!(argv, ["npx", "pi", "--session", "/s.jsonl"]);
        let c = Config::from_text("[pi]\ncommand = \"'open\"\n", false);
        assert_eq!(c.problems.len(), 1);
        assert_eq!(c.pi_command, PiCommand::default());
    }

    #[test]
    fn the_image_setting_is_read_from_the_file() {
        use crate::tui::look::images::Protocol;
        let c = Config::from_text("[preview]\nimages = \"kitty\"\n", false);
        assert!(c.problems.is_empty(), "{:?}", c.problems);
        assert_eq!(c.images, ImageMode::Force(Protocol::Kitty));
        let c = Config::from_text("[preview]\nimages = \"jpeg\"\n", false);
        assert_eq!(c.problems.len(), 1, "{:?}", c.problems);
        assert!(
            c.problems[0].starts_with("[preview] images:"),
            "{:?}",
            c.problems
        );
        assert_eq!(c.images, ImageMode::Auto);
    }

    #[test]
    fn broken_file_is_reported_and_defaults_used() {
        let c = Config::from_text("[keys.tree\n", false);
        assert_eq!(c.problems.len(), 1);
        assert!(c.report().unwrap().contains("using the defaults"));

        let c = Config::from_text(
            "[keys.tree]\nnot_an_action = \"x\"\n[theme]\nlabel = \"red\"",
            false,
        );
        assert_eq!(c.problems.len(), 1, "{:?}", c.problems);
        assert_eq!(
            c.keymap.action(Scope::Tree, Key::parse("ctrl+g").unwrap()),
            Some(Action::TreeJumpToLeaf),
            "keys fell back to the defaults"
        );
        assert_eq!(c.theme.label.fg, Some(ratatui::style::Color::Red));
    }
}
