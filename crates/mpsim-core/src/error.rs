//! Errors the core reports to its callers. The engine never panics on bad
//! input: every configuration problem becomes a [`ConfigError`] that names the
//! field, the value and what is allowed.

use std::fmt;

/// A problem with one field of a configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// Path to the field, e.g. `links[2].rate_bps`.
    pub path: String,
    /// What is wrong and what is allowed.
    pub message: String,
}

impl ConfigError {
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        ConfigError {
            path: path.into(),
            message: message.into(),
        }
    }
}

/// Keeps one problem on one line whatever characters the input's keys and
/// values hold: control characters and Unicode line separators are written
/// as escapes (`\n`, `\x1e`, `\u2028`), as Python writes them.
fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x100 && c.is_control() => out.push_str(&format!("\\x{:02x}", c as u32)),
            '\u{2028}' | '\u{2029}' => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", one_line(&self.message))
        } else {
            write!(f, "{}: {}", one_line(&self.path), one_line(&self.message))
        }
    }
}

impl std::error::Error for ConfigError {}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("invalid configuration: {0}")]
    Config(#[from] ConfigError),
    /// A broken invariant inside the engine: a bug, reported instead of a panic.
    #[error("internal error: {0}")]
    Internal(String),
    /// The run stopped before its end: interrupted, or at one of its limits.
    #[error("{0}")]
    Stopped(crate::stop::Stopped),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_problem_is_one_line_whatever_its_key_holds() {
        let e = ConfigError::new("trace.\u{1e}", "unknown field `a\nb\u{2028}c\u{85}`");
        assert_eq!(e.to_string(), "trace.\\x1e: unknown field `a\\nb\\u2028c\\x85`");
    }
}
