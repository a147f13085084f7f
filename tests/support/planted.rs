//! A session with secrets planted in it: for every kind the scanner knows,
//! one or more secrets made at random in that kind's documented format
//! (none is stored in the repository), each in a snippet as it would be
//! pasted or printed (`KEY=value`, a URL, a header), planted by pi's own
//! `SessionManager` (`tests/pi/pi-secrets.mjs`) in a user prompt, an
//! assistant's thinking, a bash call's command, a bash call's output and a
//! file read's result.

use std::path::{Path, PathBuf};

/// The places each snippet is planted in (one entry each).
pub const PLACES: usize = 5;

/// One planted secret.
#[derive(Debug, Clone)]
pub struct Planted {
    pub kind: &'static str,
    /// The text planted, holding the secret.
    pub snippet: String,
    /// The parts of the snippet that are secret: none may be left in a
    /// redacted export (a private key's lines, a URL's password).
    pub secret: Vec<String>,
}

/// splitmix64: the same secrets for the same seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// `n` characters from `set`, with at least one letter and one digit
    /// when the set has both (as a real key has, all but always).
    fn of(&mut self, set: &str, n: usize) -> String {
        let chars: Vec<char> = set.chars().collect();
        loop {
            let s: String = (0..n)
                .map(|_| chars[(self.next() % chars.len() as u64) as usize])
                .collect();
            let mixed = !set.chars().any(|c| c.is_ascii_digit())
                || !set.chars().any(|c| c.is_ascii_alphabetic())
                || (s.chars().any(|c| c.is_ascii_digit())
                    && s.chars().any(|c| c.is_ascii_alphabetic()));
            if mixed {
                return s;
            }
        }
    }
}

const ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const URLSAFE: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";
const BASE64: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const HEX: &str = "0123456789abcdef";
const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const AWS: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const DIGITS: &str = "0123456789";
const LETTERS: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

fn whole(kind: &'static str, snippet: String) -> Planted {
    Planted {
        kind,
        secret: vec![snippet.clone()],
        snippet,
    }
}

fn part(kind: &'static str, snippet: String, secret: String) -> Planted {
    Planted {
        kind,
        snippet,
        secret: vec![secret],
    }
}

/// The secrets for `seed`: every kind, some kinds in more than one form.
pub fn secrets(seed: u64) -> Vec<Planted> {
    let mut r = Rng(seed);
    let pem = |r: &mut Rng, label: &str| {
        let lines: Vec<String> = (0..6).map(|_| r.of(BASE64, 64)).collect();
        Planted {
            kind: "private-key",
            snippet: format!(
                "-----BEGIN {label}-----\n{}\n-----END {label}-----",
                lines.join("\n")
            ),
            secret: lines,
        }
    };
    let mut out = vec![
        pem(&mut r, "RSA PRIVATE KEY"),
        pem(&mut r, "OPENSSH PRIVATE KEY"),
        whole("aws-access-key", format!("AKIA{}", r.of(AWS, 16))),
    ];
    let key = r.of(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/+",
        40,
    );
    out.push(part(
        "aws-secret-key",
        format!("aws_secret_access_key = {key}"),
        key,
    ));
    out.push(whole(
        "google-api-key",
        format!("AIza{}", r.of(URLSAFE, 35)),
    ));
    out.push(whole(
        "google-oauth-secret",
        format!("GOCSPX-{}", r.of(URLSAFE, 28)),
    ));
    let key = format!("{}==", r.of(BASE64, 86));
    out.push(part(
        "azure-storage-key",
        format!("DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={key};EndpointSuffix=core.windows.net"),
        key,
    ));
    out.push(whole("github-token", format!("ghp_{}", r.of(ALNUM, 36))));
    out.push(whole(
        "github-token",
        format!("github_pat_{}_{}", r.of(ALNUM, 22), r.of(ALNUM, 59)),
    ));
    out.push(whole(
        "gitlab-token",
        format!("glpat-{}", r.of(URLSAFE, 20)),
    ));
    let token = format!("npm_{}", r.of(ALNUM, 36));
    out.push(part(
        "npm-token",
        format!("//registry.npmjs.org/:_authToken={token}"),
        token,
    ));
    out.push(whole(
        "pypi-token",
        format!("pypi-AgEIcHlwaS5vcmc{}", r.of(URLSAFE, 60)),
    ));
    out.push(whole(
        "slack-token",
        format!(
            "xoxb-{}-{}-{}",
            r.of(DIGITS, 12),
            r.of(DIGITS, 13),
            r.of(ALNUM, 24)
        ),
    ));
    out.push(whole(
        "slack-webhook",
        format!(
            "https://hooks.slack.com/services/T{}/B{}/{}",
            r.of(UPPER, 8),
            r.of(UPPER, 10),
            r.of(ALNUM, 24)
        ),
    ));
    out.push(whole(
        "discord-webhook",
        format!(
            "https://discord.com/api/webhooks/{}/{}",
            r.of(DIGITS, 18),
            r.of(URLSAFE, 68)
        ),
    ));
    out.push(whole("stripe-key", format!("sk_live_{}", r.of(ALNUM, 34))));
    out.push(whole("stripe-key", format!("whsec_{}", r.of(ALNUM, 32))));
    out.push(whole(
        "anthropic-key",
        format!("sk-ant-api03-{}AA", r.of(URLSAFE, 93)),
    ));
    out.push(whole(
        "openrouter-key",
        format!("sk-or-v1-{}", r.of(HEX, 64)),
    ));
    out.push(whole(
        "openai-key",
        format!("sk-proj-{}", r.of(URLSAFE, 156)),
    ));
    out.push(whole("groq-key", format!("gsk_{}", r.of(ALNUM, 52))));
    out.push(whole("xai-key", format!("xai-{}", r.of(ALNUM, 80))));
    out.push(whole(
        "huggingface-token",
        format!("hf_{}", r.of(LETTERS, 34)),
    ));
    out.push(whole(
        "sendgrid-key",
        format!("SG.{}.{}", r.of(URLSAFE, 22), r.of(URLSAFE, 43)),
    ));
    out.push(whole(
        "digitalocean-token",
        format!("dop_v1_{}", r.of(HEX, 64)),
    ));
    out.push(whole("shopify-token", format!("shpat_{}", r.of(HEX, 32))));
    out.push(whole(
        "jwt",
        format!(
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ{}.{}",
            r.of(URLSAFE, 40),
            r.of(URLSAFE, 43)
        ),
    ));
    let password = r.of(ALNUM, 16);
    out.push(part(
        "connection-string",
        format!("DATABASE_URL=postgres://app_user:{password}@db.internal:5432/app"),
        password,
    ));
    let password = r.of(ALNUM, 20);
    out.push(part(
        "connection-string",
        format!("redis://default:{password}@cache.internal:6379/0"),
        password,
    ));
    let token = r.of(URLSAFE, 40);
    out.push(part(
        "authorization-header",
        format!("Authorization: Bearer {token}"),
        token,
    ));
    let value = r.of(ALNUM, 24);
    out.push(part(
        "secret-assignment",
        format!("DEPLOY_API_KEY={value}"),
        value,
    ));
    let value = r.of(ALNUM, 32);
    out.push(part(
        "secret-assignment",
        format!("\"client_secret\": \"{value}\""),
        value,
    ));
    out
}

/// The session pi writes with `planted` in it, in `dir`.
pub fn session(dir: &Path, planted: &[Planted]) -> PathBuf {
    let list = dir.join("snippets.json");
    let json: Vec<serde_json::Value> = planted
        .iter()
        .map(|p| serde_json::json!({ "kind": p.kind, "snippet": p.snippet }))
        .collect();
    std::fs::write(&list, serde_json::to_string(&json).expect("JSON")).expect("write the list");
    let out = super::node(&super::harness("pi-secrets.mjs"))
        .arg(dir)
        .arg("/home/ada/src/shop")
        .arg(&list)
        .output()
        .expect("run pi-secrets.mjs");
    assert!(
        out.status.success(),
        "pi-secrets.mjs: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    PathBuf::from(String::from_utf8(out.stdout).expect("UTF-8").trim())
}
