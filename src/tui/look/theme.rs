//! Every colour on screen in one place: the defaults (`assets/theme.toml`),
//! user overrides, and `NO_COLOR`, which keeps only bold, italic, underline and reverse.

use ratatui::style::{Color, Modifier, Style};

/// The default colours, as shipped.
pub const DEFAULT_THEME: &str = include_str!("../../../assets/theme.toml");

macro_rules! theme_fields {
    ($($name:ident),* $(,)?) => {
        /// The styles the panes draw with.
        #[derive(Debug, Clone, PartialEq)]
        pub struct Theme {
            $(pub $name: Style,)*
            /// Set by `NO_COLOR`: colours from files (program output) are
            /// dropped too.
            pub no_color: bool,
        }

        impl Theme {
            const NAMES: &'static [&'static str] = &[$(stringify!($name)),*];

            fn slot(&mut self, name: &str) -> Option<&mut Style> {
                match name {
                    $(stringify!($name) => Some(&mut self.$name),)*
                    _ => None,
                }
            }

            fn each(&mut self, mut f: impl FnMut(&mut Style)) {
                $(f(&mut self.$name);)*
            }
        }

        impl Default for Theme {
            fn default() -> Theme {
                Theme { $($name: Style::new(),)* no_color: false }
            }
        }
    };
}

theme_fields!(
    accent,
    muted,
    text,
    user,
    assistant,
    tool,
    error,
    label,
    custom,
    compaction,
    forgotten,
    branch_summary,
    setting,
    path_mark,
    leaf_mark,
    hit,
    selected,
    selected_unfocused,
    preview_selected,
    border,
    border_focused,
    title,
    banner,
    named,
    project,
    status,
    message,
    key,
    heading,
    link,
    inline_code,
    code_keyword,
    code_string,
    code_comment,
    code_number,
    code_function,
    code_type,
    diff_add,
    diff_del,
    diff_hunk,
    thinking,
    block_cursor,
);

impl Theme {
    /// The shipped colours (with `NO_COLOR`, their monochrome form).
    pub fn defaults(no_color: bool) -> Theme {
        let table: toml::Table = DEFAULT_THEME.parse().unwrap_or_default();
        let theme = Theme::build(&[table]).unwrap_or_default();
        theme.finish(no_color)
    }

    /// The defaults with a user's `[theme]` table laid over them.
    pub fn with_overrides(user: &toml::Table, no_color: bool) -> Result<Theme, Vec<String>> {
        let table: toml::Table = DEFAULT_THEME.parse().unwrap_or_default();
        Theme::build(&[table, user.clone()]).map(|t| t.finish(no_color))
    }

    fn build(layers: &[toml::Table]) -> Result<Theme, Vec<String>> {
        let mut theme = Theme::default();
        let mut errors = Vec::new();
        for layer in layers {
            for (name, value) in layer {
                let Some(slot) = theme.slot(name) else {
                    errors.push(format!(
                        "[theme] {name}: unknown colour name (known: {})",
                        Theme::NAMES.join(", ")
                    ));
                    continue;
                };
                match value.as_str().map(parse_style) {
                    Some(Ok(style)) => *slot = style,
                    Some(Err(e)) => errors.push(format!("[theme] {name}: {e}")),
                    None => errors.push(format!("[theme] {name}: expected a string")),
                }
            }
        }
        if errors.is_empty() {
            Ok(theme)
        } else {
            Err(errors)
        }
    }

    fn finish(mut self, no_color: bool) -> Theme {
        self.no_color = no_color;
        if no_color {
            self.each(|s| {
                *s = Style::new()
                    .add_modifier(s.add_modifier & !Modifier::DIM)
                    .remove_modifier(s.sub_modifier);
            });
            // Without colour, selection and hits must still be seen.
            self.selected = self.selected.add_modifier(Modifier::REVERSED);
            self.selected_unfocused = self.selected_unfocused.add_modifier(Modifier::UNDERLINED);
            self.hit = self.hit.add_modifier(Modifier::UNDERLINED);
            self.banner = self.banner.add_modifier(Modifier::REVERSED);
            self.border_focused = self.border_focused.add_modifier(Modifier::BOLD);
            self.forgotten = self.forgotten.add_modifier(Modifier::ITALIC);
        }
        self
    }
}

impl Theme {
    /// The selection's style: dimmer in a pane without the focus, so the
    /// eye finds the one the keys act on.
    pub fn selection(&self, focused: bool) -> Style {
        if focused {
            self.selected
        } else {
            self.selected_unfocused
        }
    }
}

/// `"yellow bold"`, `"black on #ffcc00"`, `"reset"`.
fn parse_style(text: &str) -> Result<Style, String> {
    let mut style = Style::new();
    let mut words = text.split_whitespace();
    let mut have_fg = false;
    while let Some(word) = words.next() {
        let w = word.to_ascii_lowercase();
        let modifier = match w.as_str() {
            "bold" => Some(Modifier::BOLD),
            "italic" => Some(Modifier::ITALIC),
            "dim" => Some(Modifier::DIM),
            "underline" | "underlined" => Some(Modifier::UNDERLINED),
            "reverse" | "reversed" => Some(Modifier::REVERSED),
            _ => None,
        };
        if let Some(m) = modifier {
            style = style.add_modifier(m);
        } else if w == "on" {
            let bg = words
                .next()
                .ok_or_else(|| format!("{text:?}: a colour must follow \"on\""))?;
            style = style.bg(parse_color(bg)?);
        } else if !have_fg {
            style = style.fg(parse_color(&w)?);
            have_fg = true;
        } else {
            return Err(format!("{text:?}: {word:?} is not a colour or modifier"));
        }
    }
    Ok(style)
}

fn parse_color(text: &str) -> Result<Color, String> {
    let t = text.to_ascii_lowercase();
    if let Some(hex) = t.strip_prefix('#') {
        let ok = hex.len() == 6 && hex.chars().all(|c| c.is_ascii_hexdigit());
        let n = u32::from_str_radix(hex, 16).ok().filter(|_| ok);
        return n
            .map(|n| Color::Rgb((n >> 16) as u8, (n >> 8) as u8, n as u8))
            .ok_or_else(|| format!("{text:?} is not a #rrggbb colour"));
    }
    Ok(match t.replace(['-', '_'], "").as_str() {
        "reset" | "default" => Color::Reset,
        "black" => Color::Black,
        "red" => Color::Red,
        "green" => Color::Green,
        "yellow" => Color::Yellow,
        "blue" => Color::Blue,
        "magenta" => Color::Magenta,
        "cyan" => Color::Cyan,
        "gray" | "grey" => Color::Gray,
        "darkgray" | "darkgrey" => Color::DarkGray,
        "lightred" => Color::LightRed,
        "lightgreen" => Color::LightGreen,
        "lightyellow" => Color::LightYellow,
        "lightblue" => Color::LightBlue,
        "lightmagenta" => Color::LightMagenta,
        "lightcyan" => Color::LightCyan,
        "white" => Color::White,
        other => match other.parse::<u8>() {
            Ok(n) => Color::Indexed(n),
            Err(_) => return Err(format!("{text:?} is not a colour")),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_theme_is_valid() {
        let table: toml::Table = DEFAULT_THEME.parse().expect("theme.toml parses");
        let theme = Theme::build(std::slice::from_ref(&table)).expect("every entry is valid");
        for name in Theme::NAMES {
            assert!(table.contains_key(*name), "theme.toml lacks {name}");
        }
        assert_eq!(theme.label, Style::new().fg(Color::Yellow));
    }

    #[test]
    fn styles_parse() {
        assert_eq!(
            parse_style("black on #ffcc00 bold").unwrap(),
            Style::new()
                .fg(Color::Black)
                .bg(Color::Rgb(255, 204, 0))
                .add_modifier(Modifier::BOLD)
        );
        assert!(parse_style("blurple").is_err());
        assert!(parse_style("red on").is_err());
    }

    #[test]
    fn no_color_keeps_only_modifiers() {
        let t = Theme::defaults(true);
        assert_eq!(t.label, Style::new());
        assert_eq!(t.user, Style::new().add_modifier(Modifier::BOLD));
        assert!(t.selected.add_modifier.contains(Modifier::REVERSED));
        assert_eq!(t.selected.bg, None);
        // What the model forgot still reads apart from what it sees.
        assert_eq!(t.forgotten, Style::new().add_modifier(Modifier::ITALIC));
    }

    #[test]
    fn bad_overrides_are_reported() {
        let user: toml::Table = "nope = \"red\"\nlabel = \"#12\"".parse().unwrap();
        let errors = Theme::with_overrides(&user, false).unwrap_err();
        assert_eq!(errors.len(), 2, "{errors:?}");
    }
}
