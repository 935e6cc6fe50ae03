//! # mpsim-core
//!
//! A packet-level discrete-event simulator of TCP and multipath TCP
//! congestion control. Time is integer nanoseconds, every random stream is
//! derived from one seed, and nothing reads a clock: the same configuration
//! and seed give the same results on any machine.
//!
//! Layout, from the bottom up (docs/architecture.md; `tests/layers.rs`
//! checks that no module imports one above it): [`ids`], [`time`], [`cache`],
//! [`rng`] and [`stop`]; [`wire`] (packets and headers); [`event`] (the event
//! queue); [`observe`] (the tracing hook); [`context`] (what every component
//! receives); [`net`] (links, queues, loss, forwarding), [`traffic`] (UDP
//! sources), [`cc`], [`slowstart`], [`transport`] (TCP and MPTCP); [`sim`]
//! (the event loop); [`config`] (what a run is), [`build`] (configuration →
//! simulator), [`results`] (what a run reports).

pub mod build;
pub mod cache;
pub mod cc;
pub mod config;
pub mod context;
pub mod error;
pub mod event;
pub mod ids;
pub mod limits;
pub mod math;
pub mod net;
pub mod observe;
pub mod pcap;
pub mod plugin;
pub mod results;
pub mod rng;
pub mod sim;
pub mod slowstart;
pub mod stop;
pub mod tables;
pub mod throughput;
pub mod time;
pub mod trace;
pub mod traffic;
pub mod transport;
pub mod validate;
pub mod wire;

pub use config::ScenarioConfig;
pub use error::{ConfigError, ConfigErrors, Error};
pub use results::RunResults;
pub use sim::Simulator;

/// The engine's identity: a hash of the sources that decide what a run computes (this crate, the
/// Python bindings, the locked dependencies), derived at build time by `build.rs`. Stored results
/// carry it, so results of another engine are never reused as this one's.
pub const ENGINE_ID: &str = env!("MPSIM_ENGINE_ID");

/// Validates, builds and runs one scenario.
pub fn run(cfg: &ScenarioConfig) -> Result<RunResults, Error> {
    run_interruptible(cfg, &mut limits::Never)
}

/// [`run`], asking `interrupt` every few milliseconds whether to go on and
/// stopping at the configuration's limits (`limits.max_events`,
/// `limits.max_trace_rows`) with [`Error::Stopped`].
pub fn run_interruptible(cfg: &ScenarioConfig, interrupt: &mut dyn limits::Interrupt) -> Result<RunResults, Error> {
    let mut sim = build::build(cfg)?;
    sim.run_bounded(interrupt).map_err(Error::Stopped)?;
    Ok(sim.results())
}

/// [`run`] on a JSON configuration, returning JSON results.
pub fn run_json(config_json: &str) -> Result<String, Error> {
    let results = run(&ScenarioConfig::from_json(config_json)?)?;
    serde_json::to_string(&results).map_err(|e| Error::Internal(format!("serialising results: {e}")))
}
