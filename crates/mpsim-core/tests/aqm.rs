//! RED and CoDel on a bottleneck, checked against what each model implies.
//!
//! Host A — 1 Gbit/s, 1 ms — router R — 10 Mbit/s, 10 ms — host B. Packets
//! are 1250 B, so the bottleneck sends exactly one per millisecond
//! (mu = 1000 pkt/s) and A→R never queues. The AQM sits on R→B.

mod common;

use common::{ser_ns, MS, S};
use mpsim_core::config::QueueConfig;
use mpsim_core::results::QueueTraceResult;
use mpsim_core::{run, RunResults, ScenarioConfig};
use serde_json::{json, Value};

const BOTTLENECK_BPS: u64 = 10_000_000;
const PKT_BYTES: u64 = 1250;
/// Transmission time of one packet on the bottleneck: 1 ms.
const TX_NS: u64 = 1_000_000;

/// The A → R → B path with `queue` on R→B, the bottleneck's queue traced at
/// every change, and the reverse path for TCP's ACKs.
fn path(queue: Value, seed: u64, stop_ns: u64) -> ScenarioConfig {
    let text = json!({
        "seed": seed,
        "stop_time_ns": stop_ns,
        "nodes": [
            {"name": "A"},
            {"name": "R", "kind": "router"},
            {"name": "B"}
        ],
        "links": [
            {"name": "ar", "from": "A", "to": "R", "rate_bps": 1_000_000_000u64, "delay_ns": MS},
            {"name": "rb", "from": "R", "to": "B", "rate_bps": BOTTLENECK_BPS, "delay_ns": 10 * MS, "queue": queue},
            {"name": "br", "from": "B", "to": "R", "rate_bps": 1_000_000_000u64, "delay_ns": 10 * MS},
            {"name": "ra", "from": "R", "to": "A", "rate_bps": 1_000_000_000u64, "delay_ns": MS}
        ],
        "trace": {"queue_links": ["rb"]}
    })
    .to_string();
    ScenarioConfig::from_json(&text).unwrap()
}

/// CBR from A to B at `rate_bps`, as two back-to-back flows split at
/// `split_ns`: together one CBR stream (the second's first packet leaves at
/// most one period after the first's last, exactly one when the period
/// divides `split_ns`), while the second flow's delay statistics cover only
/// the time after the split.
fn cbr_split(cfg: &mut ScenarioConfig, rate_bps: u64, split_ns: u64) {
    let flows = json!([
        {"name": "first", "src": "A", "dst": "B", "packet_size_bytes": PKT_BYTES, "start_ns": 0,
         "stop_ns": split_ns, "pattern": {"type": "cbr", "rate_bps": rate_bps}},
        {"name": "second", "src": "A", "dst": "B", "packet_size_bytes": PKT_BYTES, "start_ns": split_ns,
         "pattern": {"type": "cbr", "rate_bps": rate_bps}}
    ]);
    cfg.udp_flows = serde_json::from_value(flows).unwrap();
}

/// One-way delay of a packet that never waits: serialisation and
/// propagation on both hops.
fn unqueued_delay_ns() -> u64 {
    ser_ns(PKT_BYTES, 1_000_000_000) + MS + ser_ns(PKT_BYTES, BOTTLENECK_BPS) + 10 * MS
}

/// Mean time the second flow's packets waited in R's queue, in ns.
fn second_half_queueing_delay_ns(r: &RunResults) -> f64 {
    let f = &r.udp_flows[1];
    assert_eq!(f.name, "second");
    assert!(f.received_pkts > 0);
    f.delay_mean_ns - unqueued_delay_ns() as f64
}

/// Time-average over [from, to) of a trace recorded at every change, with
/// `value` picking packets or bytes of entry i.
fn time_mean(t: &QueueTraceResult, from: u64, to: u64, value: impl Fn(usize) -> f64) -> f64 {
    let mut sum = 0.0;
    let mut current = 0.0;
    let mut since = from;
    for (i, &at) in t.time_ns.iter().enumerate() {
        if at > from {
            let upto = at.min(to);
            sum += current * (upto - since) as f64;
            since = upto;
        }
        if at >= to {
            break;
        }
        current = value(i);
    }
    sum += current * (to - since) as f64;
    sum / (to - from) as f64
}

/// Largest queue, in packets, at or after `from`.
fn max_after(t: &QueueTraceResult, from: u64) -> u32 {
    let first = t.time_ns.partition_point(|&at| at < from);
    t.queue_pkts[first.saturating_sub(1)..]
        .iter()
        .copied()
        .max()
        .unwrap_or(0)
}

fn red(gentle: bool) -> Value {
    // max_p = 0.1 and w_q = 0.002 are the paper's values and the defaults.
    json!({"type": "red", "limit_pkts": RED_LIMIT, "min_th_pkts": MIN_TH, "max_th_pkts": MAX_TH,
           "gentle": gentle, "mean_pkt_size_bytes": PKT_BYTES})
}

const RED_LIMIT: u32 = 1000;
const MIN_TH: f64 = 5.0;
const MAX_TH: f64 = 15.0;
const W_Q: f64 = 0.002;

/// Two times the bottleneck's rate: 1 of every 2 packets must go.
fn red_under_2x_overload(gentle: bool, seed: u64) -> RunResults {
    let mut cfg = path(red(gentle), seed, 20 * S);
    cbr_split(&mut cfg, 2 * BOTTLENECK_BPS, 10 * S);
    run(&cfg).unwrap()
}

/// The fraction of arrivals RED drops in steady state when its base
/// probability is `p_b` (Fig. 2's count rule): the gap between drops is
/// uniform, P(X >= k) = (1 - k p_b) / (1 - p_b), and 1 / E[X] is the rate.
fn red_drop_fraction(p_b: f64) -> f64 {
    let mean_gap: f64 = (1..)
        .map(|k| (1.0 - k as f64 * p_b) / (1.0 - p_b))
        .take_while(|&p| p > 0.0)
        .sum::<f64>()
        .max(1.0);
    1.0 / mean_gap
}

#[test]
fn gentle_red_drops_early_and_settles_where_its_drop_rate_matches_the_excess() {
    let r = red_under_2x_overload(true, 1);
    let l = &r.links[1];
    let t = &r.queue_traces[0];

    // The link delivers 1 packet per ms; of the 2 per ms offered, all the
    // rest is dropped early, none by the hard limit: half of all arrivals.
    assert!(l.dropped_red_pkts > 0);
    assert_eq!(l.dropped_overflow_pkts, 0);
    let fraction = l.dropped_red_pkts as f64 / l.arrived_pkts as f64;
    assert!((fraction - 0.5).abs() < 0.005, "dropped fraction {fraction}");
    assert!(l.utilisation > 0.999, "utilisation {}", l.utilisation);

    // Transient bound: while avg < 2 max_th the queue grows by at most half
    // a packet per arrival, and an EWMA of weight w_q lags such a ramp by at
    // most 0.5 (1 - w_q) / w_q; above 2 max_th every arrival is dropped, so
    // q <= 2 max_th + 0.5 (1 - w_q) / w_q + 1 = 280.5 < the 1000-packet limit.
    let bound = 2.0 * MAX_TH + 0.5 * (1.0 - W_Q) / W_Q + 1.0;
    assert!((l.max_queue_pkts as f64) <= bound, "max {}", l.max_queue_pkts);
    assert!(bound < RED_LIMIT as f64);

    // Steady state (second half): avg must sit where RED drops 1/2 of the
    // arrivals. With the count rule the drop fraction is 0.2 at max_th
    // (p_b = max_p) and 0.75 at 20 packets (p_b = 0.4), and exactly 1/2 at
    // p_b = 0.25, i.e. avg = 17.5. The time-average of q is that of avg plus
    // a sampling offset: avg samples q just before each arrival, and q is
    // one packet higher for the half millisecond after it (offset ~0.5).
    assert!(red_drop_fraction(0.1) < 0.5 && red_drop_fraction(0.4) > 0.5);
    assert!((red_drop_fraction(0.25) - 0.5).abs() < 1e-12);
    let avg_at_equilibrium = MAX_TH + MAX_TH * (0.25 - 0.1) / (1.0 - 0.1);
    assert!((avg_at_equilibrium - 17.5).abs() < 1e-12);
    let mean_q = time_mean(t, 10 * S, 20 * S, |i| t.queue_pkts[i] as f64);
    assert!(
        (avg_at_equilibrium - 0.5..avg_at_equilibrium + 1.0).contains(&mean_q),
        "mean queue {mean_q}"
    );
    // The queueing delay the second flow saw is that queue, 1 ms a packet.
    let delay_ms = second_half_queueing_delay_ns(&r) / TX_NS as f64;
    assert!((delay_ms - mean_q).abs() < 1.0, "delay {delay_ms} ms vs queue {mean_q}");
    // Once settled, the queue stays an order of magnitude below the limit.
    let settled_max = max_after(t, 10 * S);
    assert!(settled_max < 3 * MAX_TH as u32, "max after 10 s: {settled_max}");
}

#[test]
fn red_without_gentle_holds_the_average_at_max_th() {
    let r = red_under_2x_overload(false, 1);
    let l = &r.links[1];
    let t = &r.queue_traces[0];
    assert_eq!(l.dropped_overflow_pkts, 0);
    let fraction = l.dropped_red_pkts as f64 / l.arrived_pkts as f64;
    assert!((fraction - 0.5).abs() < 0.005, "dropped fraction {fraction}");
    // Below max_th RED drops at most 1/5 of arrivals (p_b <= max_p), so avg
    // climbs to max_th, where every arrival is dropped: avg rides on max_th
    // and the mean queue is max_th plus the sampling offset. Every other
    // arrival comes at the instant a transmission ends (the CBR's 0.5 ms
    // against the bottleneck's 1 ms), and is admitted before that departure:
    // RED samples those arrivals' queue one packet longer than just after
    // the departure, half a packet on average over all arrivals, so the
    // offset lies within half a packet of zero.
    let mean_q = time_mean(t, 10 * S, 20 * S, |i| t.queue_pkts[i] as f64);
    assert!((MAX_TH - 0.5..MAX_TH + 0.5).contains(&mean_q), "mean queue {mean_q}");
    // Gentle mode trades a higher mean for a softer cliff: compare.
    let g = red_under_2x_overload(true, 1);
    let tg = &g.queue_traces[0];
    assert!(time_mean(tg, 10 * S, 20 * S, |i| tg.queue_pkts[i] as f64) > mean_q + 1.0);
}

#[test]
fn red_is_reproducible_by_seed() {
    let a = red_under_2x_overload(true, 7);
    let b = red_under_2x_overload(true, 7);
    assert_eq!(a, b);
    let c = red_under_2x_overload(true, 8);
    assert_ne!(a.links[1].dropped_red_pkts, 0);
    assert_ne!(a.queue_traces, c.queue_traces);
}

fn codel(limit_pkts: u32) -> Value {
    // target 5 ms and interval 100 ms are RFC 8289's values and the defaults.
    json!({"type": "codel", "limit_pkts": limit_pkts})
}

const TARGET_NS: u64 = 5 * MS;
const INTERVAL_NS: u64 = 100 * MS;

#[test]
fn codel_holds_a_mild_unresponsive_overload_near_target() {
    // 1.05 times the link rate: an excess of d = 50 pkt/s. CoDel's drop
    // rate is sqrt(count) / interval (RFC 8289 §5.5), so it matches d at
    // count = (interval d)^2 = 25, reached after about
    // 2 interval sqrt(25) = 1 s. After that the queue cycles: below target
    // CoDel stops dropping, then must see an interval above target before
    // it drops again, while the queue grows by d interval = 5 packets
    // (5 ms). So the mean queueing delay is about target to
    // target + (rho - 1) interval = 5 .. 10 ms, inside the looser
    // [target/2, 4 target] asked of an AQM that "keeps the delay at target".
    let rate = BOTTLENECK_BPS * 105 / 100;
    let mut cfg = path(codel(10_000), 1, 20 * S);
    cbr_split(&mut cfg, rate, 10 * S);
    let r = run(&cfg).unwrap();
    let l = &r.links[1];
    assert_eq!(l.dropped_overflow_pkts, 0);
    assert_eq!(l.dropped_red_pkts, 0);
    // CoDel drops the excess: 1 - 1/1.05 of what arrives, less what the
    // first second's transient left queued.
    let fraction = l.dropped_codel_pkts as f64 / l.arrived_pkts as f64;
    assert!((fraction - 0.05 / 1.05).abs() < 0.002, "dropped fraction {fraction}");
    let codel_delay = second_half_queueing_delay_ns(&r);
    let cycle_top = TARGET_NS as f64 + 0.05 * INTERVAL_NS as f64;
    assert!(
        (TARGET_NS as f64..cycle_top).contains(&codel_delay),
        "queueing delay {} ms",
        codel_delay / 1e6
    );

    // Drop-tail with the same 10 000-packet buffer drops nothing in 20 s
    // and the queue grows by 50 packets a second: in the second half the
    // delay is 0.5 .. 1 s, two orders of magnitude above CoDel's.
    cfg.links[1].queue = QueueConfig::DropTail {
        limit: mpsim_core::config::QueueLimit {
            limit_pkts: Some(10_000),
            limit_bytes: None,
        },
    };
    let d = run(&cfg).unwrap();
    assert_eq!(d.links[1].dropped_overflow_pkts, 0);
    let droptail_delay = second_half_queueing_delay_ns(&d);
    assert!(
        (0.5e9..1.0e9).contains(&droptail_delay),
        "drop-tail delay {}",
        droptail_delay / 1e6
    );
    assert!(codel_delay * 50.0 < droptail_delay);
}

/// Time of CoDel's drops under an overload that keeps the sojourn time above
/// target throughout, the first at `first_ns`: the control law of RFC 8289
/// §5.5 in ns, as the queue computes it. Counts the drops due by `end_ns`.
fn control_law_drops_by(first_ns: u64, end_ns: u64) -> u64 {
    let (mut at, mut count) = (first_ns, 1u64);
    loop {
        let next = at + (INTERVAL_NS as f64 / (count as f64).sqrt()).round() as u64;
        if next > end_ns {
            return count;
        }
        at = next;
        count += 1;
    }
}

#[test]
fn codel_drop_rate_under_a_2x_unresponsive_source_grows_by_its_control_law() {
    // At twice the link rate the excess is d = 1000 pkt/s. CoDel's drop rate
    // sqrt(count) / interval reaches it only at count = (interval d)^2 =
    // 10 000 drops, after 2 interval sqrt(10 000) = 20 s: within a 10 s run
    // CoDel drops exactly on its control law and the standing queue keeps
    // growing. CoDel is built to control responsive flows; against this
    // source it bounds nothing in 10 s but the drop schedule.
    let mut cfg = path(codel(10_000), 1, 10 * S);
    cbr_split(&mut cfg, 2 * BOTTLENECK_BPS, 5 * S);
    let r = run(&cfg).unwrap();
    let l = &r.links[1];
    assert_eq!(l.dropped_overflow_pkts, 0);

    // The queue starts at ~1 ms and grows by one packet per ms, so the
    // packet dequeued at t has waited ~(t - 1 ms)/2: target is passed at
    // ~11 ms, and the first drop comes an interval later, at a dequeue
    // (one per ms): between 105 and 120 ms. Each later drop happens at the
    // first dequeue at or after its scheduled time; the schedule runs from
    // the scheduled times, so the lag never accumulates.
    let most = control_law_drops_by(105 * MS, 10 * S);
    let least = control_law_drops_by(120 * MS, 10 * S) - 1;
    assert!(
        (least..=most).contains(&l.dropped_codel_pkts),
        "{} drops, control law {least}..={most}",
        l.dropped_codel_pkts
    );
    // About (T / (2 interval))^2 = 2500 drops against 10 000 excess
    // arrivals: the rest is still queued, seconds above target.
    assert!((2400..2600).contains(&l.dropped_codel_pkts));
    assert!(l.queued_pkts_at_end > 7000, "queued {}", l.queued_pkts_at_end);
    assert!(second_half_queueing_delay_ns(&r) > 1e9);
}

#[test]
fn codel_keeps_a_tcp_flows_standing_queue_near_target() {
    // The case CoDel is built for: one long Reno flow, RTT 24 ms, 10 Mbit/s.
    // Each drop halves the window; CoDel spaces drops by interval/sqrt(count)
    // only while the standing queue stays above target, so the queue is
    // held about target (RFC 8289 §1, §3) instead of filling the buffer.
    let mut cfg = path(codel(10_000), 1, 30 * S);
    cfg.tcp_flows =
        serde_json::from_value(json!([{"name": "t", "src": "A", "dst": "B", "cc": {"type": "reno"}}])).unwrap();
    let r = run(&cfg).unwrap();
    let l = &r.links[1];
    let t = &r.queue_traces[0];
    assert!(l.dropped_codel_pkts > 0);
    assert_eq!(l.dropped_overflow_pkts, 0);
    // Queueing delay of the backlog, bytes over the link rate, over the
    // last 20 s (after slow start's overshoot has been worked off).
    let mean_bytes = time_mean(t, 10 * S, 30 * S, |i| t.queue_bytes[i] as f64);
    let delay_ns = mean_bytes * 8.0 * 1e9 / BOTTLENECK_BPS as f64;
    assert!(
        (TARGET_NS as f64 / 2.0..4.0 * TARGET_NS as f64).contains(&delay_ns),
        "standing queue {} ms",
        delay_ns / 1e6
    );
    // A queue near target still keeps the link busy most of the time.
    assert!(l.utilisation > 0.8, "utilisation {}", l.utilisation);
}
