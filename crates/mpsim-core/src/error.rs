//! Errors the core reports to its callers. The engine never panics on bad
//! input: every configuration problem becomes a [`ConfigError`] that names the
//! field, the value and what is allowed, and validation collects all of them
//! ([`Problems`]) before it reports ([`ConfigErrors`]).

use std::fmt;

/// A problem with one field of a configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// Path to the field, e.g. `links[2].rate_bps`.
    pub path: String,
    /// The value found, as written (empty when the problem is not one value's,
    /// e.g. a missing list).
    pub value: String,
    /// What is allowed, e.g. `64 to 65535 bytes` (empty when the message says it).
    pub allowed: String,
    /// What is wrong and what is allowed, in one sentence.
    pub message: String,
}

impl ConfigError {
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        ConfigError {
            path: path.into(),
            value: String::new(),
            allowed: String::new(),
            message: message.into(),
        }
    }

    /// `value` is not among what is allowed: the message reads
    /// "must be {allowed}, got {value}".
    pub fn out_of(path: impl Into<String>, value: impl fmt::Display, allowed: impl Into<String>) -> Self {
        let (value, allowed) = (value.to_string(), allowed.into());
        ConfigError {
            path: path.into(),
            message: format!("must be {allowed}, got {value}"),
            value,
            allowed,
        }
    }

    /// A problem with its own wording, naming the value and what is allowed.
    pub fn with(
        path: impl Into<String>,
        value: impl fmt::Display,
        allowed: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        ConfigError {
            path: path.into(),
            value: value.to_string(),
            allowed: allowed.into(),
            message: message.into(),
        }
    }
}

/// Every problem validation found, in the order of the configuration.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConfigErrors(pub Vec<ConfigError>);

impl std::ops::Deref for ConfigErrors {
    type Target = [ConfigError];
    fn deref(&self) -> &[ConfigError] {
        &self.0
    }
}

impl From<ConfigError> for ConfigErrors {
    fn from(e: ConfigError) -> Self {
        ConfigErrors(vec![e])
    }
}

impl fmt::Display for ConfigErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ConfigErrors {}

/// Where validation collects problems: it goes on after each one so that a
/// configuration's every problem is reported at once.
#[derive(Debug, Default)]
pub struct Problems(Vec<ConfigError>);

impl Problems {
    pub fn push(&mut self, e: ConfigError) {
        self.0.push(e);
    }

    /// `value` at `path` is not among what is allowed.
    pub fn out_of(&mut self, path: impl Into<String>, value: impl fmt::Display, allowed: impl Into<String>) {
        self.push(ConfigError::out_of(path, value, allowed));
    }

    /// A problem with its own wording.
    pub fn say(
        &mut self,
        path: impl Into<String>,
        value: impl fmt::Display,
        allowed: impl Into<String>,
        message: impl Into<String>,
    ) {
        self.push(ConfigError::with(path, value, allowed, message));
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// `Ok` when nothing was found, else every problem.
    pub fn finish(self) -> Result<(), ConfigErrors> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(ConfigErrors(self.0))
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

impl From<ConfigError> for Error {
    fn from(e: ConfigError) -> Self {
        Error::Config(e.into())
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("invalid configuration: {0}")]
    Config(#[from] ConfigErrors),
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
