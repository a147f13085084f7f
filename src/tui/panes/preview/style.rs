//! The rendered document's classes as the theme's styles: one mapping from
//! what a span is (a heading, a keyword, an added line) to how the
//! terminal shows it; with `NO_COLOR` only emphasis is left, and program
//! output loses its own colours too.

use crate::render::{self, Class};
use crate::tui::look::theme::Theme;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

/// The theme's style for a class.
pub fn class_style(class: Class, theme: &Theme) -> Style {
    match class {
        Class::Text | Class::CodeText | Class::CodeVariable | Class::DiffContext => theme.text,
        Class::Output | Class::CodeOperator | Class::CodePunctuation => theme.text,
        Class::Dim | Class::LinkTarget | Class::Time | Class::Prompt => theme.muted,
        Class::ListMarker | Class::QuoteMarker | Class::TableBorder | Class::Rule => theme.muted,
        Class::Heading => theme.heading,
        Class::InlineCode => theme.inline_code,
        Class::Link => theme.link,
        Class::CodeKeyword | Class::CodeTag => theme.code_keyword,
        Class::CodeString => theme.code_string,
        Class::CodeComment => theme.code_comment,
        Class::CodeNumber | Class::CodeConstant => theme.code_number,
        Class::CodeFunction | Class::CodeAttribute => theme.code_function,
        Class::CodeType => theme.code_type,
        Class::DiffAdd => theme.diff_add,
        Class::DiffDel => theme.diff_del,
        Class::DiffHunk => theme.diff_hunk,
        Class::DiffHeader => theme.title,
        Class::ToolName | Class::Image => theme.accent,
        Class::Path => theme.accent.add_modifier(Modifier::BOLD),
        Class::Command => theme.title,
        Class::Error => theme.error,
        Class::Warning => theme.message,
        Class::RoleUser => theme.user,
        Class::RoleAssistant => theme.assistant,
        Class::RoleTool => theme.tool,
        Class::RoleSystem | Class::RoleCustom => theme.custom,
        Class::RoleSummary => theme.branch_summary,
        Class::Thinking => theme.thinking,
        Class::Compaction => theme.compaction,
        Class::Label => theme.label,
    }
}

/// A span's full style: its class's, its emphasis, and (program output)
/// the colours its own escape sequences chose, unless `NO_COLOR`.
pub fn span_style(s: &render::Style, theme: &Theme) -> Style {
    let mut st = class_style(s.class, theme);
    if !theme.no_color {
        if let Some(c) = s.fg {
            st = st.fg(Color::Indexed(c));
        }
        if let Some(c) = s.bg {
            st = st.bg(Color::Indexed(c));
        }
    }
    for (on, m) in [
        (s.bold, Modifier::BOLD),
        (s.italic, Modifier::ITALIC),
        (s.underline, Modifier::UNDERLINED),
        (s.strike, Modifier::CROSSED_OUT),
        (s.dim && !theme.no_color, Modifier::DIM),
        (s.inverse, Modifier::REVERSED),
    ] {
        if on {
            st = st.add_modifier(m);
        }
    }
    st
}

/// A laid-out row as a terminal line (its text was sanitised when the
/// document was made).
pub fn row(line: &render::Line, theme: &Theme) -> Vec<Span<'static>> {
    line.iter()
        .map(|s| Span::styled(s.text().to_string(), span_style(&s.style, theme)))
        .collect()
}

/// A row for tests: the line ratatui draws.
pub fn line(line: &render::Line, theme: &Theme) -> Line<'static> {
    Line::from(row(line, theme))
}
