//! The context's size in tokens, as the preview's header gives it, equals
//! what pi's footer computes (`getContextUsage()` without the model's
//! window): the last trusted usage plus pi's estimate of what follows, or
//! unknown after a compaction no assistant has answered, at leaves all over
//! pi's real sessions, the golden corpus and a generated one with
//! compactions, branches and context edits.

use crate::support as common;
use piscope::session::line::entry::Kind;
use piscope::session::{LeafSelector, Session};

/// Leaves worth asking about: the last entry, each entry next to a
/// compaction or a context edit, and every 23rd.
/// (A legacy file gets new ids on every read, in pi: only its last entry
/// can be named.)
fn leaves(s: &Session) -> Vec<Option<String>> {
    let n = s.entries.len() as u32;
    let mut out = vec![None];
    if s.is_legacy() {
        return out;
    }
    for i in 0..n {
        let near = (i.saturating_sub(1)..=(i + 1).min(n - 1))
            .any(|k| matches!(s.entry(k).kind(), Kind::Compaction | Kind::ContextEdit));
        if near || i % 23 == 0 {
            if let Some(id) = s.entry(i).id_str() {
                out.push(Some(id.to_string()));
            }
        }
    }
    out
}

#[test]
fn the_context_size_is_pis() {
    let generated = tempfile::tempdir().expect("dir");
    common::pi_corpus(generated.path(), 4242, 12, 30);
    let mut all = common::session_files(std::path::Path::new("tests/data/pi-mono"));
    all.extend(common::session_files(std::path::Path::new(
        "tests/data/golden/corpus",
    )));
    all.extend(common::session_files(generated.path()));
    let mut requests = Vec::new();
    let mut ours = Vec::new();
    for file in &all {
        let Ok(s) = Session::open(file) else {
            continue;
        };
        for leaf in leaves(&s) {
            let selector = leaf.clone().map_or(LeafSelector::Last, LeafSelector::Id);
            let mut handle = s.open_file().expect("open");
            let tokens = s
                .context_tokens(&s.context(&selector), &mut handle)
                .expect("tokens");
            let mut r = vec!["context-tokens".to_string(), file.display().to_string()];
            if let Some(id) = &leaf {
                r.extend(["--leaf".to_string(), id.clone()]);
            }
            requests.push(r);
            ours.push((file.clone(), leaf, tokens));
        }
    }
    let theirs = common::oracle_batch(&requests);
    let (mut known, mut unknown) = (0, 0);
    for ((file, leaf, ours), pi) in ours.iter().zip(&theirs) {
        let pi = pi["tokens"].as_f64();
        assert_eq!(*ours, pi, "{} at {leaf:?}", file.display());
        if pi.is_some() {
            known += 1;
        } else {
            unknown += 1;
        }
    }
    assert!(known > 50, "{known} sizes compared");
    assert!(unknown > 0, "no leaf right after a compaction");
    eprintln!(
        "{} files, {known} sizes and {unknown} unknown after a compaction, as pi's",
        all.len()
    );
}
