//! Short human forms of numbers the panes show: token counts, costs and
//! byte sizes, so every pane writes them the same way.

/// `950`, `12k`, `1.2M` (pi's style of rounding for thousands).
pub fn tokens(n: f64) -> String {
    if !n.is_finite() || n < 0.0 {
        return "?".into();
    }
    if n < 1000.0 {
        format!("{}", n.round() as u64)
    } else if n < 10_000.0 {
        format!("{:.1}k", n / 1000.0)
    } else if n < 1_000_000.0 {
        format!("{}k", (n / 1000.0).round() as u64)
    } else {
        format!("{:.1}M", n / 1_000_000.0)
    }
}

/// `$0.42`, `$12.30`, `$0.004`; nothing spent is `$0`.
pub fn cost(c: f64) -> String {
    if !c.is_finite() || c <= 0.0 {
        "$0".into()
    } else if c < 0.01 {
        format!("${c:.3}")
    } else {
        format!("${c:.2}")
    }
}

/// `820 B`, `12 KB`, `3.4 MB`.
pub fn bytes(n: u64) -> String {
    const KB: f64 = 1024.0;
    let f = n as f64;
    if f < KB {
        format!("{n} B")
    } else if f < KB * KB {
        format!("{} KB", (f / KB).round() as u64)
    } else if f < KB * KB * KB {
        format!("{:.1} MB", f / KB / KB)
    } else {
        format!("{:.1} GB", f / KB / KB / KB)
    }
}

/// `1 message`, `3 messages`.
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_short() {
        assert_eq!(tokens(950.0), "950");
        assert_eq!(tokens(1234.0), "1.2k");
        assert_eq!(tokens(127_400.0), "127k");
        assert_eq!(tokens(2_500_000.0), "2.5M");
        assert_eq!(cost(0.0), "$0");
        assert_eq!(cost(0.004), "$0.004");
        assert_eq!(cost(12.3), "$12.30");
        assert_eq!(bytes(820), "820 B");
        assert_eq!(bytes(12 * 1024 + 100), "12 KB");
        assert_eq!(count(1, "entry", "entries"), "1 entry");
    }
}
