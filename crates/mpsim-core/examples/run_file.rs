//! Builds and runs a scenario from a JSON configuration file (the core's own
//! configuration, as `mpsim run` hands it over) and prints the build and run
//! wall times, the events processed and the peak resident memory: the
//! benchmark scenarios without Python, for profilers.
//!
//! `cargo run --release --example run_file -- scenario.json`

use std::time::Instant;

use mpsim_core::build::build;
use mpsim_core::config::ScenarioConfig;

/// Peak resident memory of this process in MiB (Linux's `VmHWM`), if known.
fn peak_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

/// CPU time this thread has run, in nanoseconds (Linux's schedstat), if known.
fn cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

fn main() {
    let path = std::env::args().nth(1).expect("usage: run_file CONFIG.json");
    let text = std::fs::read_to_string(&path).expect("reading the configuration");
    let cfg = ScenarioConfig::from_json(&text).expect("a valid configuration");
    let t0 = Instant::now();
    let mut sim = build(&cfg).expect("a valid scenario");
    let built = t0.elapsed().as_secs_f64();
    if let Some(v) = std::env::var_os("MPSIM_PREFETCH") {
        sim.net.prefetch = v != "0";
    }
    let t1 = Instant::now();
    let c1 = cpu_ns();
    sim.run();
    let ran = t1.elapsed().as_secs_f64();
    let cpu = c1.zip(cpu_ns()).map_or(f64::NAN, |(a, b)| (b - a) as f64 / 1e9);
    let events = sim.events_processed;
    if let Some(out) = std::env::var_os("MPSIM_RESULTS") {
        let json = serde_json::to_string(&sim.results()).expect("results as JSON");
        std::fs::write(out, json).expect("writing the results");
    }
    if std::env::var_os("MPSIM_SIZES").is_some() {
        use std::mem::size_of;
        eprintln!(
            "Link {} Packet {} Connection {} Subflow {} TcpSender {} TcpReceiver {}; packets slots {} links {} conns {}",
            size_of::<mpsim_core::net::Link>(),
            size_of::<mpsim_core::wire::Packet>(),
            size_of::<mpsim_core::transport::connection::Connection>(),
            size_of::<mpsim_core::transport::subflow::Subflow>(),
            size_of::<mpsim_core::transport::tcp::sender::TcpSender>(),
            size_of::<mpsim_core::transport::tcp::receiver::TcpReceiver>(),
            sim.ctx.packets.capacity_used(),
            sim.net.links.len(),
            sim.connections.len()
        );
    }
    println!(
        "build {built:.3} s, run {ran:.3} s ({cpu:.3} s CPU), {events} events, {:.1} ns/event of CPU, \
         event queue {:.1} events on average, peak {:.0} MiB",
        cpu * 1e9 / events.max(1) as f64,
        sim.ctx.events.mean_len(),
        peak_mib().unwrap_or(f64::NAN)
    );
}

/// The allocator of the Python extension, so that the figures are those of
/// a run from Python.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
