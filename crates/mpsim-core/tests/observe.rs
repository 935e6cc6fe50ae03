//! The tracing hook reports what the run's results count: an observer that
//! listens to a lossy TCP flow sees as many losses detected, timeouts and
//! slow-start exits as the flow's results report, and its last window and
//! RTT are the flow's at the end.

mod common;

use common::*;
use mpsim_core::config::*;
use mpsim_core::observe::{self, DropReason, Observer, PacketEvent, SubflowRef, TransportEvent};
use mpsim_core::time::SimTime;
use mpsim_core::wire::Packet;

#[derive(Default)]
struct Listener {
    losses_detected: u64,
    last_rto_count: u64,
    slow_start_exits: Vec<(u64, u64)>,
    last_window: Option<u64>,
    last_srtt_ns: Option<u64>,
    random_losses: u64,
    tail_drops: u64,
}

impl Observer for Listener {
    fn on_packet(&mut self, _: SimTime, _: mpsim_core::ids::LinkId, _: &Packet, event: PacketEvent) {
        match event {
            PacketEvent::Drop(DropReason::RandomLoss) => self.random_losses += 1,
            PacketEvent::Drop(DropReason::TailDrop) => self.tail_drops += 1,
            _ => {}
        }
    }

    fn on_transport(&mut self, now: SimTime, _: SubflowRef, event: TransportEvent) {
        match event {
            TransportEvent::LossDetected => self.losses_detected += 1,
            TransportEvent::Rto { count } => self.last_rto_count = count,
            TransportEvent::SlowStartExit { cwnd_bytes } => self.slow_start_exits.push((now.nanos(), cwnd_bytes)),
            TransportEvent::Window { cwnd_bytes, .. } => self.last_window = Some(cwnd_bytes),
            TransportEvent::Rtt { srtt } => self.last_srtt_ns = Some(srtt.nanos()),
            _ => {}
        }
    }
}

#[test]
fn an_observer_of_a_lossy_flow_counts_what_its_results_report() {
    // 10 Mbit/s, 20 ms round trip, 1 % random loss on the data path, 30 s.
    let cfg = lossy_reno_pair(10_000_000, 10 * MS, 100, 30 * S, 0.01, TcpOptions::default());
    let mut sim = mpsim_core::build::build(&cfg).unwrap();
    sim.observe(Box::new(Listener::default()));
    sim.run();
    let seen = observe::find::<Listener>(sim.ctx.observer.as_deref().unwrap()).unwrap();
    let results = sim.results();
    let flow = &results.tcp_flows[0];
    assert!(flow.fast_recoveries > 10 && seen.random_losses > 10);
    assert_eq!(seen.losses_detected, flow.fast_recoveries);
    assert_eq!(seen.last_rto_count, flow.rto_count);
    let exit = flow.slow_start_exit_ns.zip(flow.cwnd_bytes_at_slow_start_exit);
    assert_eq!(seen.slow_start_exits, exit.into_iter().collect::<Vec<_>>());
    assert_eq!(seen.last_window, Some(flow.cwnd_bytes_at_end));
    assert_eq!(seen.last_srtt_ns, Some(flow.srtt_ns_at_end));
    // Every packet the data link dropped was seen with its reason.
    let ab = results.links.iter().find(|l| l.name == "ab").unwrap();
    assert_eq!(seen.random_losses, ab.dropped_loss_pkts);
    assert_eq!(seen.tail_drops, ab.dropped_overflow_pkts);
}
