//! `scheduler = {type = "python", class = "file.py:Class", ...}`: a packet
//! scheduler supplied by the caller (`crate::plugin`), after Linux's
//! `mptcp_sched_ops`: for each chunk, new or reinjected, the subflow to
//! send it on, or none to wait for the next ACK.

use super::{Chunk, Schedule, Subflows};
use crate::error::Problems;
use crate::plugin::Plugin;

/// [`Schedule`] in a form that can be held as a trait object: the subflows
/// are seen through `dyn Subflows`.
pub trait ExternalSchedule {
    /// The subflow to send `chunk` on, or `None` to wait.
    fn pick(&mut self, subflows: &mut dyn Subflows, chunk: &Chunk) -> Option<usize>;
}

/// `dyn Subflows` as a sized [`Subflows`], so that an external scheduler
/// can hand a choice to a native one ([`Schedule::pick`]).
pub struct DynSubflows<'a>(pub &'a mut dyn Subflows);

impl Subflows for DynSubflows<'_> {
    fn count(&self) -> usize {
        self.0.count()
    }
    fn has_room(&mut self, r: usize, len: u32) -> bool {
        self.0.has_room(r, len)
    }
    fn state(&self, r: usize) -> super::SubflowState {
        self.0.state(r)
    }
    fn srtt(&self, r: usize) -> crate::time::SimDuration {
        self.0.srtt(r)
    }
}

/// Makes the instances of an external scheduler.
pub trait SchedulerPluginFactory: Send + Sync {
    /// A new instance for one connection.
    fn instance(&self) -> Box<dyn ExternalSchedule>;
}

/// The configuration of an external scheduler.
pub type PluginSchedulerConfig = Plugin<dyn SchedulerPluginFactory>;

impl PluginSchedulerConfig {
    /// Every problem of the configuration; `path` is the `scheduler` table's.
    pub fn check(&self, path: &str, problems: &mut Problems) {
        self.validate(path, problems);
    }

    /// The scheduler of one connection, once validated.
    pub fn build(&self) -> PluginScheduler {
        let factory = self.factory.clone().expect("validated: a factory is attached");
        PluginScheduler {
            inner: factory.instance(),
            factory: self.clone(),
        }
    }
}

/// One connection's instance of an external scheduler.
pub struct PluginScheduler {
    inner: Box<dyn ExternalSchedule>,
    /// What made it: a clone is a new instance, not yet started.
    factory: PluginSchedulerConfig,
}

impl Clone for PluginScheduler {
    fn clone(&self) -> Self {
        self.factory.build()
    }
}

impl std::fmt::Debug for PluginScheduler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PluginScheduler")
            .field("class", &self.factory.spec.class)
            .finish()
    }
}

impl Schedule for PluginScheduler {
    fn pick(&mut self, subflows: &mut impl Subflows, chunk: &Chunk) -> Option<usize> {
        let picked = self.inner.pick(subflows, chunk)?;
        // The caller's index is checked here, so the data level never
        // sees a subflow that is not there.
        (picked < subflows.count()).then_some(picked)
    }
}
