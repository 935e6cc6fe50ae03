//! `slow_start = {type = "python", class = "file.py:Class", ...}`: a slow
//! start supplied by the caller (`crate::plugin`). The caller's factory
//! makes one instance per connection, which implements [`SlowStart`] as the
//! native strategies do.

use super::{SlowStart, SsFactory, StandardConfig};
use crate::cc::SubflowCc;
use crate::error::Problems;
use crate::plugin::Plugin;
use crate::time::SimTime;

/// Makes the instances of an external slow start.
pub trait SsPluginFactory: Send + Sync {
    /// A new instance for a connection of `n_subflows` subflows over the
    /// profile's standard slow start `standard`.
    fn instance(&self, standard: StandardConfig, n_subflows: usize) -> Box<dyn SlowStart>;
}

/// The configuration of an external slow start.
pub type PluginSsConfig = Plugin<dyn SsPluginFactory>;

impl SsFactory for PluginSsConfig {
    type Strategy = PluginSs;

    fn validate(&self, path: &str, problems: &mut Problems) {
        Plugin::validate(self, path, problems);
    }

    fn build(&self, standard: StandardConfig, n_subflows: usize) -> PluginSs {
        let factory = self.factory.clone().expect("validated: a factory is attached");
        PluginSs(Box::new(Instance {
            inner: factory.instance(standard, n_subflows),
            factory: self.clone(),
            standard,
            n_subflows,
        }))
    }
}

/// One connection's instance of an external slow start, boxed so that
/// the native strategies' enum does not grow for it.
pub struct PluginSs(Box<Instance>);

struct Instance {
    inner: Box<dyn SlowStart>,
    /// What made it: a clone is a new instance, not yet started.
    factory: PluginSsConfig,
    standard: StandardConfig,
    n_subflows: usize,
}

impl Clone for PluginSs {
    fn clone(&self) -> Self {
        self.0.factory.build(self.0.standard, self.0.n_subflows)
    }
}

impl std::fmt::Debug for PluginSs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PluginSs").field("class", &self.0.factory.spec.class).finish()
    }
}

impl SlowStart for PluginSs {
    fn on_ack(&mut self, s: &mut [SubflowCc], r: usize, acked: u64, now: SimTime) -> u64 {
        self.0.inner.on_ack(s, r, acked, now)
    }
    fn on_ack_without_growth(&mut self, s: &mut [SubflowCc], r: usize, now: SimTime) {
        self.0.inner.on_ack_without_growth(s, r, now)
    }
    fn on_subflow_start(&mut self, s: &mut [SubflowCc], r: usize, now: SimTime) {
        self.0.inner.on_subflow_start(s, r, now)
    }
    fn on_exit(&mut self, s: &mut [SubflowCc], r: usize, now: SimTime) {
        self.0.inner.on_exit(s, r, now)
    }
    fn on_subflows_changed(&mut self, s: &[SubflowCc]) {
        self.0.inner.on_subflows_changed(s)
    }
}
