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
/// values hold.
fn one_line(text: &str) -> String {
    text.replace('\r', "\\r").replace('\n', "\\n")
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
    Stopped(crate::limits::Stopped),
}
