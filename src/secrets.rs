//! Secrets in text: the rule set in `assets/secret-rules.toml` (known token
//! formats, private keys, JWTs, passwords in URLs, and values of high
//! entropy assigned to a secret's name), compiled once into one set so a
//! text is read in one pass; where each secret is, what kind it is, a
//! masked preview that shows only a few of its characters, and the marker
//! that replaces it (`[redacted: aws-access-key]`).
//!
//! Every export and every copy goes through here before it is written (see
//! `render::redact` for a document, the browser's copy for an entry's
//! text). No crate with a kept rule set scans a string in process (those
//! there are file and repository scanners, or need a newer Rust), so the
//! rules are data in the repository, each with the documentation of its
//! format.

use regex::bytes::{Regex, RegexBuilder, RegexSet, RegexSetBuilder};
use std::sync::OnceLock;

/// The rule file, as shipped.
const RULES: &str = include_str!("../assets/secret-rules.toml");

/// One rule of the file.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleText {
    kind: String,
    what: String,
    source: String,
    pattern: String,
    #[serde(default)]
    allow: Option<String>,
    #[serde(default)]
    entropy: Option<f64>,
    #[serde(default)]
    mixed: bool,
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleFile {
    rule: Vec<RuleText>,
}

/// A rule, compiled.
#[derive(Debug)]
pub struct Rule {
    /// The name the marker shows (`aws-access-key`).
    pub kind: String,
    /// What it finds, for a reader.
    pub what: String,
    /// Where its format is documented.
    pub source: String,
    find: Regex,
    /// Whether the pattern marks the secret with a group named `secret`.
    group: bool,
    allow: Option<Regex>,
    entropy: Option<f64>,
    mixed: bool,
}

/// The compiled rule set.
#[derive(Debug)]
pub struct Scanner {
    set: RegexSet,
    rules: Vec<Rule>,
}

/// A secret found: its byte range in the text scanned, and its rule (an
/// index into [`Scanner::rules`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hit {
    pub start: usize,
    pub end: usize,
    pub rule: usize,
}

/// The rule file does not read: a defect of the build, named with the rule.
#[derive(Debug, thiserror::Error)]
pub enum RulesError {
    #[error("secret-rules.toml: {0}")]
    File(String),
    #[error("secret-rules.toml, rule {kind}: {why}")]
    Rule { kind: String, why: String },
}

fn compile(pattern: &str) -> Result<Regex, regex::Error> {
    RegexBuilder::new(pattern)
        .unicode(false)
        .size_limit(1 << 24)
        .build()
}

impl Scanner {
    /// The rule set shipped with piscope, compiled on first use.
    pub fn builtin() -> &'static Scanner {
        static SCANNER: OnceLock<Scanner> = OnceLock::new();
        // The file is part of the binary and a test compiles it: it reads.
        SCANNER.get_or_init(|| Scanner::from_toml(RULES).expect("the shipped secret rules compile"))
    }

    /// A rule set from the text of a rule file.
    pub fn from_toml(text: &str) -> Result<Scanner, RulesError> {
        let file: RuleFile = toml::from_str(text).map_err(|e| RulesError::File(e.to_string()))?;
        let mut rules = Vec::with_capacity(file.rule.len());
        for r in file.rule {
            let bad = |why: String| RulesError::Rule {
                kind: r.kind.clone(),
                why,
            };
            let find = compile(&r.pattern).map_err(|e| bad(e.to_string()))?;
            let group = find.capture_names().any(|n| n == Some("secret"));
            let allow = match &r.allow {
                Some(a) => Some(compile(a).map_err(|e| bad(e.to_string()))?),
                None => None,
            };
            if r.kind.is_empty()
                || !r
                    .kind
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            {
                return Err(bad("a kind is lower-case letters, digits and '-'".into()));
            }
            rules.push(Rule {
                kind: r.kind,
                what: r.what,
                source: r.source,
                find,
                group,
                allow,
                entropy: r.entropy,
                mixed: r.mixed,
            });
        }
        let set = RegexSetBuilder::new(rules.iter().map(|r| r.find.as_str()))
            .unicode(false)
            .size_limit(1 << 26)
            .build()
            .map_err(|e| RulesError::File(e.to_string()))?;
        Ok(Scanner { set, rules })
    }

    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// The kind of a hit's rule.
    pub fn kind(&self, hit: &Hit) -> &str {
        &self.rules[hit.rule].kind
    }

    /// The secrets in `text`, in order, none overlapping (where two
    /// overlap, the earlier rule's is kept, then the earlier one's).
    pub fn find(&self, text: &str) -> Vec<Hit> {
        let bytes = text.as_bytes();
        // Most texts hold none: one pass that keeps nothing says so.
        if !self.set.is_match(bytes) {
            return Vec::new();
        }
        let matched = self.set.matches(bytes);
        let mut hits = Vec::new();
        for k in matched.iter() {
            let rule = &self.rules[k];
            let mut pos = 0;
            while pos <= bytes.len() {
                let Some(caps) = rule.find.captures_at(bytes, pos) else {
                    break;
                };
                let Some(all) = caps.get(0) else { break };
                let secret = if rule.group {
                    caps.name("secret")
                } else {
                    Some(all)
                };
                let (start, end) = secret.map_or((0, 0), |m| char_bounds(text, m.start(), m.end()));
                if start < end && rule.takes(&bytes[start..end]) {
                    hits.push(Hit {
                        start,
                        end,
                        rule: k,
                    });
                    pos = all.end().max(all.start() + 1);
                } else {
                    // Not a secret; its value may be the start of one (a
                    // name matched with the next name as its value).
                    pos = secret.map_or(all.end(), |m| m.start()).max(all.start() + 1);
                }
            }
        }
        hits.sort_by_key(|h| (h.rule, h.start));
        let mut kept: Vec<Hit> = Vec::with_capacity(hits.len());
        for h in hits {
            if !kept.iter().any(|o| h.start < o.end && o.start < h.end) {
                kept.push(h);
            }
        }
        kept.sort_by_key(|h| h.start);
        kept
    }
}

impl Rule {
    /// Whether a match's secret is one: not a placeholder the rule allows,
    /// random enough where the rule asks.
    fn takes(&self, secret: &[u8]) -> bool {
        if self.allow.as_ref().is_some_and(|a| a.is_match(secret)) {
            return false;
        }
        if self.mixed
            && !(secret.iter().any(u8::is_ascii_alphabetic)
                && secret.iter().any(u8::is_ascii_digit))
        {
            return false;
        }
        self.entropy.is_none_or(|least| entropy(secret) >= least)
    }
}

/// A byte range widened to whole characters (the rules read bytes).
fn char_bounds(text: &str, mut start: usize, mut end: usize) -> (usize, usize) {
    while start > 0 && !text.is_char_boundary(start) {
        start -= 1;
    }
    while end < text.len() && !text.is_char_boundary(end) {
        end += 1;
    }
    (start, end)
}

/// Shannon entropy of `bytes`, in bits per byte.
pub fn entropy(bytes: &[u8]) -> f64 {
    if bytes.is_empty() {
        return 0.0;
    }
    let mut counts = [0u32; 256];
    for &b in bytes {
        counts[usize::from(b)] += 1;
    }
    let n = bytes.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / n;
            -p * p.log2()
        })
        .sum()
}

/// What replaces a secret of `kind` in what is written.
pub fn marker(kind: &str) -> String {
    format!("[redacted: {kind}]")
}

/// A secret shown so it can be told apart but not used: a few characters
/// at each end (at most a sixth of it each), the rest as `…`
/// (`sk-…Xy7`); line breaks shown as `⏎`.
pub fn mask(secret: &str) -> String {
    let chars: Vec<char> = secret
        .chars()
        .map(|c| if c == '\n' { '⏎' } else { c })
        .filter(|c| !c.is_control())
        .collect();
    let each = (chars.len() / 6).min(3);
    let head: String = chars[..each].iter().collect();
    let tail: String = chars[chars.len() - each..].iter().collect();
    format!("{head}…{tail}")
}

/// `text` with each hit that `redact` says to replaced by its marker.
pub fn redact(
    scanner: &Scanner,
    text: &str,
    hits: &[Hit],
    mut redact: impl FnMut(&Hit) -> bool,
) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for h in hits {
        if !redact(h) {
            continue;
        }
        out.push_str(&text[at..h.start]);
        out.push_str(&marker(scanner.kind(h)));
        at = h.end;
    }
    out.push_str(&text[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<String> {
        let s = Scanner::builtin();
        s.find(text).iter().map(|h| s.kind(h).to_string()).collect()
    }

    #[test]
    fn the_shipped_rules_compile_and_each_says_where_its_format_is_from() {
        let s = Scanner::builtin();
        assert!(s.rules().len() >= 25);
        for r in s.rules() {
            assert!(!r.source.is_empty() && !r.what.is_empty(), "{}", r.kind);
        }
    }

    #[test]
    fn a_bad_rule_is_named() {
        let e = Scanner::from_toml(
            "[[rule]]\nkind = \"x\"\nwhat = \"x\"\nsource = \"x\"\npattern = \"(\"\n",
        )
        .expect_err("an unclosed group");
        assert!(
            e.to_string().starts_with("secret-rules.toml, rule x:"),
            "{e}"
        );
    }

    #[test]
    fn formats_names_and_placeholders() {
        assert_eq!(kinds("key AKIAQ3EGRZ4MXN7VWP2T here"), ["aws-access-key"]);
        assert!(kinds("AKIAIOSFODNN7EXAMPLE").is_empty());
        assert_eq!(
            kinds("DATABASE_URL=postgres://app:s3cr3t-Pw@db.internal:5432/app"),
            ["connection-string"]
        );
        assert!(kinds("postgres://app:${DB_PASSWORD}@db/app").is_empty());
        assert!(kinds("const token = options.apiToken;").is_empty());
        assert!(kinds("export GITHUB_TOKEN=GITHUB_TOKEN_FROM_CI").is_empty());
        assert!(kinds("password: hunterhunter").is_empty());
        assert_eq!(kinds("API_KEY=f9Kq2xLm8RtZ4vNw"), ["secret-assignment"]);
        assert!(kinds("-----BEGIN RSA PRIVATE KEY----- is the header").is_empty());
    }

    #[test]
    fn secrets_in_json_text_are_found_whole() {
        let body = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7";
        let json = format!(
            "{{\"private_key\": \"-----BEGIN PRIVATE KEY-----\\n{body}\\n{body}\\n-----END PRIVATE KEY-----\\n\"}}"
        );
        let s = Scanner::builtin();
        let hits = s.find(&json);
        assert_eq!(hits.len(), 1, "{json}");
        assert_eq!(s.kind(&hits[0]), "private-key");
        assert!(json[hits[0].start..hits[0].end].ends_with("-----END PRIVATE KEY-----"));
        assert_eq!(
            kinds(r#"{"command":"echo \"client_secret\": \"f9Kq2xLm8RtZ4vNwQ7\""}"#),
            ["secret-assignment"]
        );
    }

    #[test]
    fn a_secret_is_replaced_by_its_marker_and_masked_in_the_preview() {
        let s = Scanner::builtin();
        let text = "use sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCD now";
        let hits = s.find(text);
        assert_eq!(
            redact(s, text, &hits, |_| true),
            "use [redacted: anthropic-key] now"
        );
        assert_eq!(redact(s, text, &hits, |_| false), text);
        let secret = &text[hits[0].start..hits[0].end];
        assert_eq!(mask(secret), "sk-…BCD");
        assert_eq!(mask("hunter22"), "h…2");
    }
}
