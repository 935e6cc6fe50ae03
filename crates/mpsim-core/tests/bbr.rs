//! BBR (`cc = "bbr"`, Linux 6.18's `tcp_bbr.c`) end to end: its phases on a
//! lossless path at the times its rules give, its pacing, the short queue it
//! keeps where CUBIC fills the buffer, each MPTCP subflow's own estimate,
//! recovery over a shallow buffer, and the configurations it refuses.

mod common;

use common::*;
use mpsim_core::build::build;
use mpsim_core::cc::bbr::Mode;
use mpsim_core::config::*;
use mpsim_core::time::SimTime;
use mpsim_core::Simulator;

fn bbr() -> CcConfig {
    CcConfig::Bbr {
        config: Default::default(),
    }
}

/// One bulk flow A → B over `rate_bps`, 25 ms one way, `buffer` packets.
fn flow(rate_bps: u64, buffer: u32, cc: CcConfig, size: Option<u64>) -> ScenarioConfig {
    let mut cfg = host_pair(rate_bps, 25 * MS, buffer, 12 * S);
    cfg.tcp_flows = vec![TcpFlowConfig {
        name: "f".into(),
        src: "A".into(),
        dst: "B".into(),
        size_bytes: size,
        tcp: linux(),
        cc: Some(cc),
        ..TcpFlowConfig::default()
    }];
    cfg
}

/// The `linux` profile's wire: a 1400-byte MSS and 52 bytes of headers;
/// an MPTCP data segment carries 20 bytes more (its DSS option).
const WIRE: u64 = 1452;
const MPTCP_WIRE: u64 = WIRE + 20;

/// The packet rate of `rate_bps` for packets of `wire` bytes in BBR's
/// unit, packets/µs << 24.
fn bw_unit(rate_bps: u64, wire: u64) -> f64 {
    rate_bps as f64 / (wire * 8) as f64 / 1e6 * (1u64 << 24) as f64
}

/// Each mode BBR enters and when (ms), over `until_ms` in steps of 1 ms.
fn modes(sim: &mut Simulator, until_ms: u64) -> Vec<(Mode, u64)> {
    let mut seen: Vec<(Mode, u64)> = Vec::new();
    for t in 1..=until_ms {
        sim.run_until(SimTime(t * MS));
        if let Some(b) = sim.connections[0].subflows[0].sender.bbr() {
            if seen.last().is_none_or(|&(m, _)| m != b.mode) {
                seen.push((b.mode, t));
            }
        }
    }
    seen
}

/// On a lossless 10 Mbit/s path of 51.2 ms: STARTUP, DRAIN, PROBE_BW, and
/// PROBE_RTT ten seconds after the minimum RTT was taken (the handshake's,
/// at 50.1 ms), for 200 ms and a round, then PROBE_BW again; the bandwidth
/// estimate is the bottleneck's packet rate and the pacing rate cycles
/// through 5/4, 3/4 and 1 of it, 1 % under. The estimate is the packet rate
/// within two packets a round trip: with every second segment acknowledged,
/// each end of a rate sample's interval can fall a segment's serialization
/// short of the delivery it counts (as for MPTCP's subflows below).
#[test]
fn the_phases_follow_on_a_lossless_path() {
    let rate = 10_000_000;
    let mut sim = build(&flow(rate, 600, bbr(), None)).unwrap();
    let seen = modes(&mut sim, 10_600);
    let order: Vec<Mode> = seen.iter().map(|s| s.0).collect();
    assert_eq!(
        order,
        [Mode::Startup, Mode::Drain, Mode::ProbeBw, Mode::ProbeRtt, Mode::ProbeBw],
        "{seen:?}"
    );
    let at = |m: Mode, k: usize| seen.iter().filter(|s| s.0 == m).nth(k).unwrap().1;
    // The handshake's RTT (a SYN and a SYN-ACK: 50.1 ms) is the minimum
    // until PROBE_RTT, which starts at the first ACK 10 s after it.
    let probe_rtt = at(Mode::ProbeRtt, 0);
    assert!(
        (10_050..=10_050 + 52).contains(&probe_rtt),
        "PROBE_RTT at {probe_rtt} ms"
    );
    // It holds 4 packets for 200 ms and at least a round trip (51.2 ms),
    // less than two once the flight has drained.
    let held = at(Mode::ProbeBw, 1) - probe_rtt;
    assert!((200..=200 + 2 * 52 + 52).contains(&held), "PROBE_RTT for {held} ms");
    // DRAIN ends once the flight is down to a BDP (about 44 packets) and
    // its quantum: the queue STARTUP built is gone.
    let drain_end = at(Mode::ProbeBw, 0);
    assert!(drain_end > at(Mode::Drain, 0));
    let b = sim.connections[0].subflows[0].sender.bbr().unwrap();
    let bw = b.max_bw() as f64;
    let bdp_packets = (rate * 2 * 25 * MS / S) as f64 / (8 * WIRE) as f64;
    assert!(
        (bw / bw_unit(rate, WIRE) - 1.0).abs() < 2.0 / bdp_packets,
        "bw {bw} against {}",
        bw_unit(rate, WIRE)
    );
    // The data path's own minimum once PROBE_RTT measured it: 51.2 ms.
    assert!((51_200..51_300).contains(&b.min_rtt_us), "min RTT {}", b.min_rtt_us);
}

/// In PROBE_BW the pacing rate is the estimate times 5/4, 3/4 or 1, 1 %
/// under (`bbr_rate_bytes_per_sec`), and the queue stays within the
/// quarter BDP the 5/4 phase adds and a few packets of burst.
#[test]
fn probe_bw_cycles_its_gain_and_keeps_the_queue_short() {
    let rate = 10_000_000;
    let mut sim = build(&flow(rate, 600, bbr(), None)).unwrap();
    sim.run_until(SimTime(2 * S));
    let mut rates = std::collections::BTreeSet::new();
    let mut max_queue = 0;
    for t in 2_000..9_000 {
        sim.run_until(SimTime(t * MS));
        let b = sim.connections[0].subflows[0].sender.bbr().unwrap();
        assert_eq!(b.mode, Mode::ProbeBw);
        rates.insert(b.pacing_rate);
        max_queue = max_queue.max(sim.net.links[0].queue.len_pkts());
    }
    let bw = sim.connections[0].subflows[0].sender.bbr().unwrap().max_bw() as u64;
    // bw (packets/µs << 24) · 1400 bytes · gain/256, then · 990 000 >> 24.
    let paced = |gain: u64| (((bw * 1400 * gain) >> 8) * 990_000) >> 24;
    let expected: std::collections::BTreeSet<u64> = [paced(320), paced(192), paced(256)].into();
    assert_eq!(rates, expected);
    assert!(max_queue <= 11 + 6, "queue up to {max_queue} packets");
}

/// The same path with CUBIC (and its HyStart) queues hundreds of packets
/// in the 600-packet buffer; BBR's largest queue is STARTUP's, its window of 2.89 BDP (739/256 of 44
/// packets) and 6 packets of quantum less the BDP in flight: 89 packets.
#[test]
fn bbr_keeps_the_queue_that_cubic_fills_empty() {
    let run = |cc| {
        let mut sim = build(&flow(10_000_000, 600, cc, None)).unwrap();
        sim.run_until(SimTime(10 * S));
        let c = &sim.net.links[0].counters;
        (c.max_queue_pkts, c.dropped_pkts.iter().sum::<u64>())
    };
    let (bbr_queue, bbr_drops) = run(bbr());
    let (cubic_queue, _) = run(CcConfig::Cubic {
        config: Default::default(),
    });
    assert_eq!(bbr_drops, 0);
    assert!(
        bbr_queue <= 44 * (739 - 256) / 256 + 6,
        "BBR's queue reached {bbr_queue}"
    );
    assert!(cubic_queue > 4 * bbr_queue, "CUBIC's queue reached {cubic_queue}");
}

/// STARTUP paces: after the first ten segments (which the kernel does not
/// pace), no two data segments leave closer than half a segment's time at
/// the highest pacing rate STARTUP reaches (the late-send credit is at
/// most half). Unpaced, an ACK of two segments would send two at once.
#[test]
fn startup_spaces_its_segments_at_the_pacing_rate() {
    let mut cfg = flow(100_000_000, 1000, bbr(), Some(2_000_000));
    cfg.trace.segments = vec!["f".into()];
    let mut sim = build(&cfg).unwrap();
    let mut top_rate = 0;
    for t in 1..=2_000 {
        sim.run_until(SimTime(t * MS));
        let b = sim.connections[0].subflows[0].sender.bbr();
        match b {
            Some(b) if b.mode == Mode::Startup => top_rate = top_rate.max(b.pacing_rate),
            Some(_) => break,
            None => {}
        }
    }
    sim.run();
    let res = sim.results();
    let sends: Vec<u64> = res.segment_traces[0]
        .segments
        .iter()
        .filter(|s| !s.received && s.payload_bytes > 0)
        .map(|s| s.time_ns)
        .collect();
    let exit = res.tcp_flows[0].slow_start_exit_ns.unwrap_or(u64::MAX);
    let floor = 1400 * 1_000_000_000 / top_rate / 2;
    let paced: Vec<u64> = sends[10..]
        .windows(2)
        .filter(|w| w[1] < exit)
        .map(|w| w[1] - w[0])
        .collect();
    assert!(paced.len() > 100);
    let least = *paced.iter().min().unwrap();
    assert!(least >= floor, "segments {least} ns apart, the floor {floor} ns");
    // The first ten leave together.
    assert!(sends[..10].iter().all(|&t| t == sends[0]));
}

/// Two subflows on disjoint paths of 10 and 20 Mbit/s: each runs its own
/// BBR (uncoupled, as upstream MPTCP) and finds its own path's packet
/// rate, its packets 1 472 bytes on the wire (the DSS option's 20 bytes),
/// within two packets a round trip: the receiver acknowledges every second
/// segment once its quick ACKs are spent, so each end of a rate sample's
/// interval can fall a segment's serialization short of the delivery it
/// counts.
#[test]
fn each_subflow_finds_its_paths_rate() {
    let mut cfg = two_paths([10_000_000, 20_000_000], [20 * MS, 40 * MS], 500);
    cfg.stop_time_ns = 4 * S;
    cfg.mptcp_connections = vec![MptcpConnectionConfig {
        name: "mp".into(),
        src_addrs: vec!["S1".into(), "S2".into()],
        dst_addrs: vec!["D".into()],
        cc: Some(bbr()),
        tcp: linux(),
        ..MptcpConnectionConfig::default()
    }];
    let mut sim = build(&cfg).unwrap();
    sim.run_until(SimTime(4 * S));
    for (r, rate, one_way) in [(0, 10_000_000, 20 * MS), (1, 20_000_000, 40 * MS)] {
        let b = sim.connections[0].subflows[r].sender.bbr().expect("BBR runs");
        assert_eq!(b.mode, Mode::ProbeBw, "subflow {r}");
        let ratio = b.max_bw() as f64 / bw_unit(rate, MPTCP_WIRE);
        let bdp_packets = (rate * 2 * one_way / S) as f64 / (8 * MPTCP_WIRE) as f64;
        assert!((ratio - 1.0).abs() < 2.0 / bdp_packets, "subflow {r}: {ratio}");
    }
}

/// An 8-packet buffer at 10 Mbit/s (a sixth of the BDP): BBR's STARTUP
/// overruns it, recovery and the timeouts repair every loss, the transfer
/// completes, and the same seed gives the same run.
#[test]
fn a_shallow_buffer_loses_and_recovers_the_same_way_each_time() {
    let cfg = flow(10_000_000, 8, bbr(), Some(2_000_000));
    let once = || {
        let mut sim = build(&cfg).unwrap();
        sim.run();
        sim.results().tcp_flows[0].clone()
    };
    let a = once();
    assert!(a.fct_ns.is_some());
    assert!(a.retransmits_fast + a.retransmits_rto > 0, "{a:?}");
    assert_eq!(format!("{a:?}"), format!("{:?}", once()));
}

/// BBR runs under the `linux` profile only, with no HyStart and, for
/// MPTCP, the standard slow start; each refusal names its field.
#[test]
fn bbr_outside_the_linux_profile_or_with_a_slow_start_is_refused() {
    let problems = |cfg: &ScenarioConfig| -> Vec<(String, String)> {
        match mpsim_core::validate::validate(cfg) {
            Ok(_) => vec![],
            Err(e) => e.iter().map(|p| (p.path.clone(), p.allowed.clone())).collect(),
        }
    };
    let mut cfg = flow(10_000_000, 100, bbr(), None);
    cfg.tcp_flows[0].tcp.profile = Profile::Ns3;
    assert_eq!(
        problems(&cfg),
        [("tcp_flows[0].tcp.profile".to_string(), "linux".to_string())]
    );

    let mut cfg = flow(10_000_000, 100, bbr(), None);
    cfg.tcp_flows[0].tcp.hystart_linux = Some(mpsim_core::slowstart::hystart_linux::HyStartLinuxOption::On(
        Default::default(),
    ));
    assert_eq!(
        problems(&cfg),
        [(
            "tcp_flows[0].tcp.hystart_linux".to_string(),
            "unset or off with cc 'bbr'".to_string()
        )]
    );

    let mut cfg = mptcp_pair(bbr(), Default::default(), linux());
    cfg.mptcp_connections[0].slow_start = mpsim_core::slowstart::SlowStartConfig::Lisa {
        config: Default::default(),
    };
    let found = problems(&cfg);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, "mptcp_connections[0].slow_start");
}
