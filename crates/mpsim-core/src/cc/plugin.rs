//! `cc = {type = "python", class = "file.py:Class", ...}`: a congestion
//! control supplied by the caller (`crate::plugin`). The caller's factory
//! makes one instance per connection, which implements
//! [`CongestionAvoidance`] as the native algorithms do.

use super::{AckInfo, CcFactory, CcSetup, CongestionAvoidance, SubflowCc};
use crate::error::Problems;
use crate::plugin::Plugin;
use crate::time::SimTime;

/// Makes the instances of an external congestion control.
pub trait CcPluginFactory: Send + Sync {
    /// A new instance for one connection whose TCP settings are `setup`.
    fn instance(&self, setup: &CcSetup) -> Box<dyn CongestionAvoidance>;
}

/// The configuration of an external congestion control.
pub type PluginCcConfig = Plugin<dyn CcPluginFactory>;

impl CcFactory for PluginCcConfig {
    type Algorithm = PluginCc;

    fn validate(&self, path: &str, problems: &mut Problems) {
        Plugin::validate(self, path, problems);
    }

    fn build(&self, setup: &CcSetup) -> PluginCc {
        let factory = self.factory.clone().expect("validated: a factory is attached");
        PluginCc(Box::new(Instance {
            inner: factory.instance(setup),
            factory: self.clone(),
            setup: *setup,
        }))
    }
}

/// One connection's instance of an external congestion control, boxed
/// so that the native algorithms' enum does not grow for it.
pub struct PluginCc(Box<Instance>);

struct Instance {
    inner: Box<dyn CongestionAvoidance>,
    /// What made it: a clone is a new instance from the same factory, not
    /// yet started (connections are cloned only as they are built).
    factory: PluginCcConfig,
    setup: CcSetup,
}

impl Clone for PluginCc {
    fn clone(&self) -> Self {
        self.0.factory.build(&self.0.setup)
    }
}

impl std::fmt::Debug for PluginCc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PluginCc").field("class", &self.0.factory.spec.class).finish()
    }
}

impl CongestionAvoidance for PluginCc {
    fn on_ack(&mut self, s: &mut [SubflowCc], r: usize, ack: &AckInfo) {
        self.0.inner.on_ack(s, r, ack)
    }
    fn ssthresh_after_loss(&mut self, s: &[SubflowCc], r: usize, now: SimTime) -> u64 {
        self.0.inner.ssthresh_after_loss(s, r, now)
    }
    fn on_recovery_exit(&mut self, s: &mut [SubflowCc], r: usize, now: SimTime) {
        self.0.inner.on_recovery_exit(s, r, now)
    }
    fn on_rto(&mut self, s: &mut [SubflowCc], r: usize, now: SimTime) {
        self.0.inner.on_rto(s, r, now)
    }
    fn on_subflows_changed(&mut self, s: &[SubflowCc]) {
        self.0.inner.on_subflows_changed(s)
    }
    fn on_coding_report(&mut self, s: &mut [SubflowCc], r: usize, now: SimTime) {
        self.0.inner.on_coding_report(s, r, now)
    }
}
