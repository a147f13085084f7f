//! Every key binding in force: the default keys (`assets/keymap.toml`),
//! user overrides, the rule that no key does two things in one place, and
//! the keys' names for the texts that mention them.

pub use crate::tui::input::actions::{ACTIONS, Action, ActionInfo, Scope};
pub use crate::tui::input::key::Key;
use ratatui::crossterm::event::{KeyCode, KeyModifiers};
use std::collections::HashMap;

/// The bindings in force.
#[derive(Debug, Clone)]
pub struct Keymap {
    by_key: HashMap<(Scope, Key), Action>,
    by_action: HashMap<(Scope, Action), Vec<Key>>,
}

/// The default bindings, as shipped.
pub const DEFAULT_KEYMAP: &str = include_str!("../../../assets/keymap.toml");

impl Keymap {
    /// The shipped bindings.
    pub fn defaults() -> Keymap {
        match Keymap::build(&[default_table()]) {
            Ok(k) => k,
            // The shipped file is checked by a unit test; never fail to start.
            Err(_) => Keymap::empty(),
        }
    }

    fn empty() -> Keymap {
        let mut map = Keymap {
            by_key: HashMap::new(),
            by_action: HashMap::new(),
        };
        let quit = Key::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        map.by_key.insert((Scope::Global, quit), Action::Quit);
        map.by_action
            .insert((Scope::Global, Action::Quit), vec![quit]);
        map
    }

    /// The defaults with a user's `[keys.<pane>]` tables laid over them.
    pub fn with_overrides(user: &toml::Table) -> Result<Keymap, Vec<String>> {
        Keymap::build(&[default_table(), user.clone()])
    }

    /// Builds from layers of `{pane: {action: keys}}` tables; a later layer
    /// replaces an action's keys.
    fn build(layers: &[toml::Table]) -> Result<Keymap, Vec<String>> {
        let mut errors = Vec::new();
        let mut chosen: HashMap<(Scope, Action), Vec<Key>> = HashMap::new();
        for layer in layers {
            for (table, value) in layer {
                let Some(scope) = Scope::ALL.iter().copied().find(|s| s.table() == table) else {
                    let known: Vec<&str> = Scope::ALL.iter().map(|s| s.table()).collect();
                    errors.push(format!(
                        "[keys.{table}]: unknown table (use {})",
                        known.join(", ")
                    ));
                    continue;
                };
                let Some(actions) = value.as_table() else {
                    errors.push(format!("[keys.{table}] must be a table"));
                    continue;
                };
                for (name, keys) in actions {
                    let Some(info) = ACTIONS.iter().find(|i| i.scope == scope && i.name == name)
                    else {
                        errors.push(format!("[keys.{table}] {name}: unknown action"));
                        continue;
                    };
                    match parse_keys(keys) {
                        Ok(keys) => {
                            chosen.insert((scope, info.action), keys);
                        }
                        Err(e) => errors.push(format!("[keys.{table}] {name}: {e}")),
                    }
                }
            }
        }
        let mut by_key = HashMap::new();
        for info in ACTIONS {
            for key in chosen.get(&(info.scope, info.action)).into_iter().flatten() {
                // pi's `/tree` keys Shift+L and Shift+T act where typing
                // searches: a capital letter may be a tree key.
                let capital = info.scope == Scope::Tree
                    && key.typed_char().is_some_and(|c| c.is_ascii_uppercase());
                if info.scope.types_text()
                    && !info.action.is_answer()
                    && key.typed_char().is_some()
                    && !capital
                {
                    errors.push(format!(
                        "[keys.{}] {}: {key} types into the text; use a key with Ctrl or Alt",
                        info.scope.table(),
                        info.name
                    ));
                }
                if let Some(other) = by_key.insert((info.scope, *key), info.action) {
                    errors.push(format!(
                        "[keys.{}]: {key} is bound to both {} and {}",
                        info.scope.table(),
                        name_of(info.scope, other),
                        info.name
                    ));
                }
            }
        }
        for ((scope, key), action) in &by_key {
            if *scope == Scope::Global {
                continue;
            }
            if let Some(global) = by_key.get(&(Scope::Global, *key)) {
                errors.push(format!(
                    "[keys.{}] {}: {key} is already the global key for {}",
                    scope.table(),
                    name_of(*scope, *action),
                    name_of(Scope::Global, *global)
                ));
            }
        }
        // A key of a scope hides the same key of the scopes beneath it.
        for upper in Scope::ALL {
            for (lower, actions) in upper.beneath() {
                for action in *actions {
                    for key in chosen.get(&(*lower, *action)).into_iter().flatten() {
                        if let Some(above) = by_key.get(&(upper, *key)) {
                            errors.push(format!(
                                "[keys.{}] {}: {key} is already the {} key for {}",
                                lower.table(),
                                name_of(*lower, *action),
                                upper.table(),
                                name_of(upper, *above)
                            ));
                        }
                    }
                }
            }
        }
        if !errors.is_empty() {
            errors.sort();
            errors.dedup();
            return Err(errors);
        }
        Ok(Keymap {
            by_key,
            by_action: chosen,
        })
    }

    /// What `key` does in `scope` (the pane's own keys, then the global ones).
    pub fn action(&self, scope: Scope, key: Key) -> Option<Action> {
        self.by_key
            .get(&(scope, key))
            .or_else(|| self.by_key.get(&(Scope::Global, key)))
            .copied()
    }

    /// What `key` does in `scope` itself, global keys left out (the
    /// overlays take only quit from those).
    pub fn own_action(&self, scope: Scope, key: Key) -> Option<Action> {
        self.by_key.get(&(scope, key)).copied()
    }

    /// The keys bound to an action in a scope.
    pub fn keys(&self, scope: Scope, action: Action) -> &[Key] {
        self.by_action
            .get(&(scope, action))
            .map_or(&[], Vec::as_slice)
    }

    /// All keys of an action, joined for display (`↑/k`).
    pub fn label(&self, scope: Scope, action: Action) -> String {
        self.keys(scope, action)
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("/")
    }

    /// The first key of an action in a pane or globally, for hints.
    pub fn first_key(&self, scope: Scope, action: Action) -> Option<Key> {
        self.keys(scope, action)
            .first()
            .or_else(|| self.keys(Scope::Global, action).first())
            .copied()
    }
}

impl Keymap {
    /// The key a text names for an action: its first key in `scope` (or
    /// the global one), as the user bound it; `Ctrl+F` for the default.
    pub fn keys_for(&self, scope: Scope, action: Action) -> String {
        match self.first_key(scope, action) {
            Some(k) => k.to_string(),
            None => format!("(no key for {}.{})", scope.table(), name_of(scope, action)),
        }
    }

    /// Two actions' first keys, joined: `n/N`.
    pub fn keys_pair(&self, scope: Scope, a: Action, b: Action) -> String {
        format!("{}/{}", self.keys_for(scope, a), self.keys_for(scope, b))
    }

    /// The first keys of an up and a down action run together: `↑↓`.
    pub fn up_down(&self, scope: Scope) -> Option<String> {
        let up = self.first_key(scope, Action::Up)?;
        let down = self.first_key(scope, Action::Down)?;
        Some(format!("{up}{down}"))
    }
}

fn name_of(scope: Scope, action: Action) -> &'static str {
    ACTIONS
        .iter()
        .find(|i| i.scope == scope && i.action == action)
        .map_or("?", |i| i.name)
}

fn parse_keys(value: &toml::Value) -> Result<Vec<Key>, String> {
    match value {
        toml::Value::String(s) => Ok(vec![Key::parse(s)?]),
        toml::Value::Array(items) => items
            .iter()
            .map(|v| match v {
                toml::Value::String(s) => Key::parse(s),
                _ => Err("keys must be strings".to_string()),
            })
            .collect(),
        _ => Err("expected a key or a list of keys".to_string()),
    }
}

fn default_table() -> toml::Table {
    DEFAULT_KEYMAP.parse().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_keymap_is_valid_and_complete() {
        let table: toml::Table = DEFAULT_KEYMAP.parse().expect("keymap.toml parses");
        let map = Keymap::build(&[table]).expect("no conflicts in the defaults");
        for info in ACTIONS {
            assert!(
                !map.keys(info.scope, info.action).is_empty(),
                "{}.{} has no default key",
                info.scope.table(),
                info.name
            );
        }
    }

    #[test]
    fn overrides_replace_and_conflicts_are_refused() {
        let user: toml::Table = "[tree]\njump_to_leaf = \"alt+g\"".parse().unwrap();
        let map = Keymap::with_overrides(&user).unwrap();
        let key = Key::parse("alt+g").unwrap();
        assert_eq!(map.action(Scope::Tree, key), Some(Action::TreeJumpToLeaf));
        assert_eq!(map.action(Scope::Tree, Key::parse("ctrl+g").unwrap()), None);

        let clash: toml::Table = "[tree]\njump_to_leaf = \"ctrl+n\"".parse().unwrap();
        let errors = Keymap::with_overrides(&clash).unwrap_err();
        assert!(errors[0].contains("bound to both"), "{errors:?}");

        // Typing in the tree searches it: a plain character is no tree key.
        let typing: toml::Table = "[tree]\njump_to_leaf = \"g\"".parse().unwrap();
        let errors = Keymap::with_overrides(&typing).unwrap_err();
        assert!(errors[0].contains("types into the text"), "{errors:?}");

        let typing: toml::Table = "[picker]\nsort = \"s\"".parse().unwrap();
        let errors = Keymap::with_overrides(&typing).unwrap_err();
        assert!(errors[0].contains("types into the text"), "{errors:?}");

        let global: toml::Table = "[preview]\nexpand = \"tab\"".parse().unwrap();
        let errors = Keymap::with_overrides(&global).unwrap_err();
        assert!(errors[0].contains("global key"), "{errors:?}");
    }

    #[test]
    fn overlay_keys_are_bindable_and_checked() {
        let user: toml::Table =
            "[dialog]\nconfirm = \"ctrl+o\"\nyes = \"j\"\n[help]\nclose = \"q\""
                .parse()
                .unwrap();
        let map = Keymap::with_overrides(&user).unwrap();
        let k = |s: &str| Key::parse(s).unwrap();
        assert_eq!(
            map.own_action(Scope::Dialog, k("ctrl+o")),
            Some(Action::Confirm)
        );
        assert_eq!(map.own_action(Scope::Dialog, k("enter")), None);
        assert_eq!(
            map.own_action(Scope::Dialog, k("j")),
            Some(Action::AnswerYes)
        );
        assert_eq!(map.own_action(Scope::Help, k("q")), Some(Action::Close));
        assert_eq!(map.keys_for(Scope::Dialog, Action::Confirm), "Ctrl+O");

        // A field's editing key may not hide under a dialog key.
        let hidden: toml::Table = "[dialog]\nup = \"left\"".parse().unwrap();
        let errors = Keymap::with_overrides(&hidden).unwrap_err();
        assert!(errors[0].contains("already the dialog key"), "{errors:?}");
        // The tree search line types: its keys need a modifier or a name.
        let typing: toml::Table = "[search]\nkeep = \"k\"".parse().unwrap();
        let errors = Keymap::with_overrides(&typing).unwrap_err();
        assert!(errors[0].contains("types into the text"), "{errors:?}");
        let unbound: toml::Table = "[tree]\nnext_hit = []".parse().unwrap();
        let map = Keymap::with_overrides(&unbound).unwrap();
        assert_eq!(
            map.keys_for(Scope::Tree, Action::TreeNextHit),
            "(no key for tree.next_hit)"
        );
    }
}
