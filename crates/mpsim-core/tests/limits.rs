//! Bounded runs: the estimate of a run's cost, the limits it is held to
//! while it runs, and interrupts that stop it without changing what came
//! before.

mod common;

use common::*;
use mpsim_core::build::build;
use mpsim_core::config::*;
use mpsim_core::limits::{estimate, Stop, CHECK_EVERY_EVENTS};
use mpsim_core::time::SimTime;
use mpsim_core::Error;

const S: u64 = 1_000_000_000;

/// A 1 Mbit/s CBR flow of 1000-byte packets over one 10 Mbit/s link for 10 s:
/// 1250 packets.
fn cbr_run(max_events: Option<u64>) -> ScenarioConfig {
    let mut cfg = one_link(10_000_000, 1_000_000, droptail(100));
    cfg.udp_flows.push(cbr("u", "A", "B", 1_000_000, 1000, 0, None));
    cfg.limits.max_events = max_events;
    cfg
}

#[test]
fn a_cbr_flow_is_estimated_at_one_wake_up_and_one_link_event_per_packet() {
    let cfg = cbr_run(None);
    let sim = build(&cfg).unwrap();
    let est = estimate(&cfg, &sim.net);
    assert_eq!(est.source_events, 1250.0);
    assert_eq!(est.link_events, 1250.0);
    assert_eq!(est.trace_rows, 0.0);
    let res = mpsim_core::run(&cfg).unwrap();
    // The estimate is what happens here: wake-up and arrival per packet (the
    // source's last wake-up finds the stop time).
    assert!(res.events_processed as f64 <= est.events() + 1.0);
    assert!(res.events_processed >= 2 * 1250);
}

#[test]
fn a_link_that_is_not_lazy_costs_two_events_a_packet() {
    // CoDel decides at dequeue: its transmissions end by events of their own.
    let mut cfg = cbr_run(None);
    cfg.links[0].queue = QueueConfig::Codel {
        target_ns: 5_000_000,
        interval_ns: 100_000_000,
        limit_pkts: 100,
    };
    let sim = build(&cfg).unwrap();
    assert!(!sim.net.links[0].lazy);
    let est = estimate(&cfg, &sim.net);
    assert_eq!(est.link_events, 2.0 * 1250.0);
    let res = mpsim_core::run(&cfg).unwrap();
    assert!(res.events_processed as f64 <= est.events() + 1.0);
    assert!(res.events_processed >= 3 * 1250);
}

#[test]
fn a_link_carries_no_more_than_its_capacity_in_the_estimate() {
    // 100 Mbit/s offered into the 10 Mbit/s link: its packets are granted a tenth.
    let mut cfg = one_link(10_000_000, 1_000_000, droptail(100));
    cfg.udp_flows.push(cbr("u", "A", "B", 100_000_000, 1000, 0, None));
    let sim = build(&cfg).unwrap();
    let est = estimate(&cfg, &sim.net);
    assert_eq!(est.source_events, 12_500.0);
    assert_eq!(est.link_events, 12_500.0);
}

#[test]
fn a_run_estimated_above_its_limit_is_refused_naming_the_limit() {
    let e = build(&cbr_run(Some(1000))).unwrap_err();
    assert_eq!(e[0].path, "limits.max_events");
    assert!(
        e[0].message
            .starts_with("the run is estimated at 2500 events (1250 on links, 1250 at sources"),
        "{}",
        e[0].message
    );
}

#[test]
fn a_run_stopped_at_its_event_limit_did_exactly_what_an_unbounded_run_did_until_then() {
    // The estimate is below the limit; the limit is then lowered on the
    // built simulator to stop the run midway.
    let cfg = cbr_run(None);
    let mut bounded = build(&cfg).unwrap();
    bounded.max_events = 2000;
    let stopped = bounded.run_bounded(&mut mpsim_core::limits::Never).unwrap_err();
    assert_eq!(stopped.why, Stop::EventLimit { limit: 2000 });
    assert_eq!(stopped.events_processed, 2000);
    assert_eq!(bounded.events_processed, 2000);

    let mut reference = build(&cfg).unwrap();
    while reference.events_processed < 2000 {
        let next = reference.ctx.events.peek_time().unwrap();
        reference.run_until(next);
    }
    assert_eq!(reference.events_processed, 2000, "no two events share a time here");
    assert_eq!(bounded.ctx.now, reference.ctx.now);
    assert_eq!(bounded.udp_sources[0].sent_pkts, reference.udp_sources[0].sent_pkts);
    assert_eq!(
        bounded.net.links[0].counters.delivered_pkts,
        reference.net.links[0].counters.delivered_pkts
    );
    assert!(stopped
        .to_string()
        .starts_with("limits.max_events: the run reached its limit of 2000 events at "));
}

#[test]
fn an_interrupt_is_asked_every_check_interval_and_its_stop_is_reported() {
    // 100 Mbit/s of 100-byte packets for 10 s: 1.25 M packets, far more
    // events than one check interval.
    let mut cfg = one_link(1_000_000_000, 1_000_000, droptail(100));
    cfg.udp_flows.push(cbr("u", "A", "B", 100_000_000, 100, 0, None));
    let mut sim = build(&cfg).unwrap();
    let mut asked = 0;
    let mut interrupt = || {
        asked += 1;
        (asked == 3).then_some(Stop::Interrupted)
    };
    let stopped = sim.run_bounded(&mut interrupt).unwrap_err();
    assert_eq!(stopped.why, Stop::Interrupted);
    assert_eq!(stopped.events_processed, 3 * CHECK_EVERY_EVENTS);
    assert!(stopped.at < SimTime(10 * S));
}

#[test]
fn the_trace_limit_stops_a_run_that_records_more_rows() {
    let mut cfg = cbr_run(None);
    cfg.trace.queue_links = vec!["ab".into()];
    cfg.trace.queue_sample_interval_ns = Some(1_000);
    // 10 s sampled every microsecond: 10^7 + 1 samples, above the default.
    let e = build(&cfg).unwrap_err();
    assert_eq!(e[0].path, "limits.max_trace_rows");
    cfg.limits.max_trace_rows = Some(20_000_000);
    cfg.limits.max_events = Some(20_000_000);
    let mut sim = build(&cfg).unwrap();
    sim.max_trace_rows = 100_000;
    let stopped = sim.run_bounded(&mut mpsim_core::limits::Never).unwrap_err();
    assert_eq!(stopped.why, Stop::TraceLimit { limit: 100_000 });
    // Checked every CHECK_EVERY_EVENTS events: it stops within one interval of the limit.
    assert!(sim.trace_rows() > 100_000 && sim.trace_rows() <= 100_000 + CHECK_EVERY_EVENTS);
}

#[test]
fn sampling_without_traced_queues_costs_no_events() {
    let plain = mpsim_core::run(&cbr_run(None)).unwrap();
    let mut cfg = cbr_run(None);
    cfg.trace.queue_sample_interval_ns = Some(1_000);
    let sampled = mpsim_core::run(&cfg).unwrap();
    assert_eq!(sampled.events_processed, plain.events_processed);
}

#[test]
fn limits_of_zero_are_refused() {
    let e = build(&cbr_run(Some(0))).unwrap_err();
    assert_eq!(e.to_string(), "limits.max_events: must be at least 1, got 0");
    match mpsim_core::run_json(r#"{"stop_time_ns": 1, "nodes": [], "links": [], "limits": {"max_event": 1}}"#) {
        Err(Error::Config(e)) => assert_eq!(
            e.to_string(),
            "limits.max_event: unknown field `max_event`, expected `max_events` or `max_trace_rows`"
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_run_that_ends_exactly_at_its_event_limit_is_not_stopped() {
    let cfg = cbr_run(None);
    let total = mpsim_core::run(&cfg).unwrap().events_processed;
    let mut sim = build(&cfg).unwrap();
    sim.max_events = total;
    assert_eq!(sim.run_bounded(&mut mpsim_core::limits::Never), Ok(()));
    assert_eq!(sim.events_processed, total);
    let mut sim = build(&cfg).unwrap();
    sim.max_events = total - 1;
    let stopped = sim.run_bounded(&mut mpsim_core::limits::Never).unwrap_err();
    assert_eq!(stopped.events_processed, total - 1);
}

#[test]
fn a_watched_run_ends_at_the_completion_even_when_that_is_its_event_limit() {
    let mut cfg = host_pair(10_000_000, 5_000_000, 100, 10 * S);
    cfg.tcp_flows.push(TcpFlowConfig {
        name: "f".into(),
        src: "A".into(),
        dst: "B".into(),
        size_bytes: Some(100_000),
        ..TcpFlowConfig::default()
    });
    // Traffic that goes on after the watched flow has completed.
    cfg.udp_flows.push(cbr("u", "A", "B", 1_000_000, 1000, 0, None));
    cfg.stop_when_complete = vec!["f".into()];
    let total = mpsim_core::run(&cfg).unwrap().events_processed;
    let mut sim = build(&cfg).unwrap();
    sim.max_events = total;
    assert_eq!(sim.run_bounded(&mut mpsim_core::limits::Never), Ok(()));
    assert_eq!(sim.events_processed, total);
    // Nothing more happens after the completion, however often the run is resumed.
    sim.run_until(SimTime(10 * S));
    assert_eq!(sim.events_processed, total);
}

/// Records what the run loop reports of its progress.
struct ProgressLog(Vec<(SimTime, SimTime)>);

impl mpsim_core::limits::Interrupt for ProgressLog {
    fn poll(&mut self) -> Option<Stop> {
        None
    }

    fn progress(&mut self, now: SimTime, stop_time: SimTime) {
        self.0.push((now, stop_time));
    }
}

#[test]
fn progress_is_reported_at_every_pause_and_at_the_end_in_simulated_time() {
    // 10 Mbit/s of 50-byte packets for 10 s: 250 000 packets, two events each.
    let mut cfg = one_link(10_000_000, 1_000_000, droptail(100));
    cfg.udp_flows.push(cbr("u", "A", "B", 10_000_000, 50, 0, None));
    let mut sim = build(&cfg).unwrap();
    let mut log = ProgressLog(Vec::new());
    assert_eq!(sim.run_bounded(&mut log), Ok(()));
    let pauses = sim.events_processed / CHECK_EVERY_EVENTS;
    assert!(pauses >= 5, "{} events", sim.events_processed);
    // One report per pause, one at the end.
    assert_eq!(log.0.len() as u64, pauses + 1);
    assert!(log.0.windows(2).all(|w| w[0].0 <= w[1].0));
    assert!(log.0.iter().all(|&(_, stop)| stop == SimTime(10 * S)));
    assert_eq!(log.0.last(), Some(&(SimTime(10 * S), SimTime(10 * S))));
    assert!(log.0[0].0 < SimTime(10 * S));
}

#[test]
fn every_subflow_a_connection_may_open_is_priced_for_its_build() {
    let lia = CcConfig::Lia {
        config: mpsim_core::cc::LiaConfig::default(),
    };
    let cfg = mptcp_pair(lia, mpsim_core::slowstart::SlowStartConfig::default(), linux());
    let sim = build(&cfg).unwrap();
    let est = estimate(&cfg, &sim.net);
    // Two subflows (ndiffports), 250 events each.
    assert_eq!(est.build_events, 500.0);
}

/// An on/off source of 1 Mbit/s with on and off periods of `mean_ns` each,
/// for 1 s over one 10 Mbit/s link.
fn on_off(mean_ns: u64, distribution: PeriodDistribution) -> ScenarioConfig {
    let mut cfg = one_link(10_000_000, 1_000_000, droptail(100));
    cfg.stop_time_ns = S;
    let mut flow = cbr("u", "A", "B", 1_000_000, 1000, 0, None);
    flow.pattern = UdpPattern::OnOff {
        rate_bps: 1_000_000,
        on_mean_ns: mean_ns,
        off_mean_ns: mean_ns,
        distribution,
    };
    cfg.udp_flows.push(flow);
    cfg.limits.max_events = Some(u64::MAX);
    cfg
}

#[test]
fn on_off_periods_are_counted_as_drawn_not_by_their_mean() {
    let events = |mean_ns, distribution| {
        let cfg = on_off(mean_ns, distribution);
        estimate(&cfg, &build(&cfg).unwrap().net).source_events
    };
    // Exponential periods of mean 1 ns last exp(-1/2) ns once rounded: 2 wake-ups a cycle of 2 exp(-1/2) ns.
    let exponential = events(1, PeriodDistribution::Exponential);
    assert!(
        (exponential / (1e9 / (-0.5f64).exp()) - 1.0).abs() < 1e-3,
        "{exponential}"
    );
    // Periods of 10 ms: two wake-ups per mean cycle of 20 ms (50 in 1 s) and the 62.5 packets of
    // 1 Mbit/s for half of 1 s.
    let long = events(10_000_000, PeriodDistribution::Exponential);
    assert!((long - (2.0 * 50.0 + 62.5)).abs() < 0.01, "{long}");
    // A Pareto shape near 1: most periods far below their mean, many times the exponential's cycles.
    let pareto = events(1_000, PeriodDistribution::Pareto { shape: 1.01 });
    assert!(
        pareto > 4.0 * events(1_000, PeriodDistribution::Exponential),
        "{pareto}"
    );
}
