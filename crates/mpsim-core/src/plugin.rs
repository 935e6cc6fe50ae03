//! Algorithms written outside the engine: a congestion control, a slow
//! start or a packet scheduler that a scenario names by a class
//! (`{type = "python", class = "file.py:Class", ...}`) and that the caller
//! supplies when it runs the scenario.
//!
//! The core knows nothing of the language they are written in. A scenario's
//! [`Plugin`] holds what the configuration says (the class, its parameters
//! and a fingerprint of its source, which key stored results) and the
//! factory the caller attaches after parsing it ([`Plugin::factory`]); the
//! algorithm's own trait is the native one (`cc::CongestionAvoidance`,
//! `slowstart::SlowStart`) or, for a scheduler, its object-safe form
//! (`transport::scheduler::ExternalSchedule`). An external algorithm that
//! fails raises the run's [`Abort`], and the event loop stops after the
//! event in progress.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::error::Problems;

/// What a scenario writes of an external algorithm.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PluginSpec {
    /// Where the class is: `path/to/file.py:Class` or `package.module:Class`.
    pub class: String,
    /// Its parameters, as validated by the caller against the class's
    /// declaration.
    #[serde(default)]
    pub params: serde_json::Map<String, serde_json::Value>,
    /// A fingerprint of the class's source (stored results are keyed by the
    /// whole configuration, so an edited plug-in runs again).
    #[serde(default)]
    pub source: String,
}

/// An external algorithm of kind `F` (a factory trait of `cc`, `slowstart`
/// or the scheduler): the scenario's [`PluginSpec`] and, once the caller has
/// attached it, the factory of its instances. Serialises as its spec alone.
pub struct Plugin<F: ?Sized> {
    pub spec: PluginSpec,
    /// Attached by the caller after parsing (one instance per connection);
    /// `None` until then, which validation reports.
    pub factory: Option<Arc<F>>,
}

impl<F: ?Sized> Plugin<F> {
    /// A problem when no factory is attached: a configuration naming an
    /// external algorithm can only run through a caller that supplies it.
    pub fn validate(&self, path: &str, problems: &mut Problems) {
        if self.spec.class.is_empty() {
            problems.out_of(
                format!("{path}.class"),
                "\"\"",
                "a class, as \"file.py:Class\" or \"module:Class\"",
            );
        } else if self.factory.is_none() {
            problems.out_of(
                format!("{path}.class"),
                format!("{:?}", self.spec.class),
                "a plug-in loaded by the caller (run the scenario through the mpsim Python package)",
            );
        }
    }
}

impl<F: ?Sized> Default for Plugin<F> {
    fn default() -> Self {
        Plugin {
            spec: PluginSpec::default(),
            factory: None,
        }
    }
}

impl<F: ?Sized> Clone for Plugin<F> {
    fn clone(&self) -> Self {
        Plugin {
            spec: self.spec.clone(),
            factory: self.factory.clone(),
        }
    }
}

impl<F: ?Sized> fmt::Debug for Plugin<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Plugin")
            .field("spec", &self.spec)
            .field("attached", &self.factory.is_some())
            .finish()
    }
}

/// Two plug-ins are the same when the scenario says the same of them.
impl<F: ?Sized> PartialEq for Plugin<F> {
    fn eq(&self, other: &Self) -> bool {
        self.spec == other.spec
    }
}

impl<F: ?Sized> serde::Serialize for Plugin<F> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.spec.serialize(s)
    }
}

impl<'de, F: ?Sized> serde::Deserialize<'de> for Plugin<F> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Plugin {
            spec: PluginSpec::deserialize(d)?,
            factory: None,
        })
    }
}

/// A run's stop signal for external algorithms: one that fails (an
/// exception, a value out of its range) raises it, and the event loop ends
/// the run after the event in progress. Clones share the signal.
#[derive(Clone, Debug, Default)]
pub struct Abort(Arc<AtomicBool>);

impl Abort {
    pub fn raise(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    #[inline]
    pub fn is_raised(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}
