//! Whether the preview shows images as pictures, and by which terminal
//! graphics protocol: the `[preview] images` setting and `PISCOPE_IMAGES`.

/// Overrides the config file's `[preview] images` for one run.
pub const IMAGES_ENV: &str = "PISCOPE_IMAGES";

/// How images are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ImageMode {
    /// Pictures where the terminal says it can draw them (kitty's
    /// protocol, sixel, iTerm2's), placeholders elsewhere.
    #[default]
    Auto,
    /// Placeholders only; the terminal is not asked anything.
    Off,
    /// This protocol, whatever the terminal says.
    Force(Protocol),
}

/// A terminal graphics protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    Kitty,
    Sixel,
    Iterm2,
    /// Coloured half-block characters: works on any terminal with true
    /// colour, coarse; only when asked for.
    Halfblocks,
}

impl ImageMode {
    /// The words the setting takes.
    pub const CHOICES: &'static str = "auto, off, kitty, sixel, iterm2 or halfblocks";

    /// Reads a setting's value.
    pub fn parse(text: &str) -> Result<ImageMode, String> {
        Ok(match text.trim().to_ascii_lowercase().as_str() {
            "auto" => ImageMode::Auto,
            "off" | "none" | "placeholder" => ImageMode::Off,
            "kitty" => ImageMode::Force(Protocol::Kitty),
            "sixel" => ImageMode::Force(Protocol::Sixel),
            "iterm2" | "iterm" => ImageMode::Force(Protocol::Iterm2),
            "halfblocks" => ImageMode::Force(Protocol::Halfblocks),
            _ => {
                return Err(format!(
                    "{:?} is not one of {}",
                    crate::safe_text::clean_line(text),
                    ImageMode::CHOICES
                ));
            }
        })
    }
}

impl Protocol {
    pub fn name(self) -> &'static str {
        match self {
            Protocol::Kitty => "kitty",
            Protocol::Sixel => "sixel",
            Protocol::Iterm2 => "iterm2",
            Protocol::Halfblocks => "halfblocks",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_read_and_bad_ones_named() {
        assert_eq!(ImageMode::parse("auto"), Ok(ImageMode::Auto));
        assert_eq!(ImageMode::parse(" OFF "), Ok(ImageMode::Off));
        assert_eq!(
            ImageMode::parse("sixel"),
            Ok(ImageMode::Force(Protocol::Sixel))
        );
        let e = ImageMode::parse("png\x1b[2J").unwrap_err();
        assert!(e.contains("not one of auto, off"), "{e}");
        assert!(!e.contains('\x1b'), "{e:?}");
    }
}
