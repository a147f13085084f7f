//! The context window of the models pi knows, by provider and model id,
//! from the table `context_windows.tsv` (made from pi's own model catalog
//! by `tests/pi/context-windows.mjs`): the preview's header gives the
//! context's share of it, as pi's footer does.

use std::collections::HashMap;
use std::sync::OnceLock;

const TABLE: &str = include_str!("context_windows.tsv");

struct Windows {
    by_model: HashMap<(&'static str, &'static str), u64>,
    /// By model id alone, where every provider that has it agrees.
    by_id: HashMap<&'static str, Option<u64>>,
}

fn windows() -> &'static Windows {
    static W: OnceLock<Windows> = OnceLock::new();
    W.get_or_init(|| {
        let mut w = Windows {
            by_model: HashMap::new(),
            by_id: HashMap::new(),
        };
        for line in TABLE.lines().filter(|l| !l.starts_with('#')) {
            let mut cols = line.split('\t');
            let (Some(provider), Some(id), Some(n)) = (cols.next(), cols.next(), cols.next())
            else {
                continue;
            };
            let Ok(n) = n.parse::<u64>() else { continue };
            w.by_model.insert((provider, id), n);
            w.by_id
                .entry(id)
                .and_modify(|seen| {
                    if *seen != Some(n) {
                        *seen = None;
                    }
                })
                .or_insert(Some(n));
        }
        w
    })
}

/// The context window of a model, in tokens: pi's for the provider and
/// id; for a provider pi does not list the model under, the one every
/// provider that lists the id agrees on; else unknown.
pub fn context_window(provider: Option<&str>, id: &str) -> Option<u64> {
    let w = windows();
    provider
        .and_then(|p| w.by_model.get(&(p, id)).copied())
        .or_else(|| w.by_id.get(id).copied().flatten())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_models_have_their_window() {
        assert_eq!(
            context_window(Some("anthropic"), "claude-sonnet-4-5"),
            Some(200_000)
        );
        assert_eq!(context_window(None, "claude-sonnet-4-5"), Some(200_000));
        assert_eq!(context_window(Some("anthropic"), "no-such-model"), None);
    }
}
