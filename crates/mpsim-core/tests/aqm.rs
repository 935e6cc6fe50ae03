mod common;
use common::*;
use mpsim_core::config::*;
use mpsim_core::run;
const MS: u64 = 1_000_000;
const S: u64 = 1_000_000_000;

fn scen(q: QueueConfig, rate: u64, load: f64, size: u32, stop: u64) -> ScenarioConfig {
    let mut cfg = scenario(1, stop, vec![node("A", NodeKind::Host), node("R", NodeKind::Router), node("B", NodeKind::Host)],
        vec![link("ar", "A", "R", 1_000_000_000, MS, droptail(1000)), link("rb", "R", "B", rate, 10 * MS, q)]);
    let half = stop / 2;
    cfg.udp_flows = vec![cbr("first", "A", "B", (rate as f64 * load) as u64, size, 0, Some(half)), cbr("second", "A", "B", (rate as f64 * load) as u64, size, half, None)];
    cfg.trace.queue_links = vec!["rb".into()];
    cfg.trace.queue_sample_interval_ns = Some(MS);
    cfg
}

#[test]
fn explore() {
    for (name, q, rate, load, size) in [
        ("red gentle", QueueConfig::Red { limit_pkts: 1000, min_th_pkts: 5.0, max_th_pkts: 15.0, max_p: 0.1, weight: 0.002, gentle: true, mean_pkt_size_bytes: 1250 }, 10_000_000u64, 2.0, 1250u32),
        ("red nongentle", QueueConfig::Red { limit_pkts: 1000, min_th_pkts: 5.0, max_th_pkts: 15.0, max_p: 0.1, weight: 0.002, gentle: false, mean_pkt_size_bytes: 1250 }, 10_000_000, 2.0, 1250),
        ("codel 2x 10M", QueueConfig::Codel { target_ns: 5 * MS, interval_ns: 100 * MS, limit_pkts: 10_000 }, 10_000_000, 2.0, 1250),
        ("codel 1.5x 10M", QueueConfig::Codel { target_ns: 5 * MS, interval_ns: 100 * MS, limit_pkts: 10_000 }, 10_000_000, 1.5, 1250),
        ("codel 2x 2M", QueueConfig::Codel { target_ns: 5 * MS, interval_ns: 100 * MS, limit_pkts: 10_000 }, 2_000_000, 2.0, 1250),
        ("codel 2x 1M 125B", QueueConfig::Codel { target_ns: 5 * MS, interval_ns: 100 * MS, limit_pkts: 10_000 }, 1_000_000, 2.0, 125),
        ("codel 1.1x 10M", QueueConfig::Codel { target_ns: 5 * MS, interval_ns: 100 * MS, limit_pkts: 10_000 }, 10_000_000, 1.1, 1250),
    ] {
        let cfg = scen(q, rate, load, size, 20 * S);
        let r = run(&cfg).unwrap();
        let l = &r.links[1];
        let t = &r.queue_traces[0];
        let n = t.time_ns.len();
        let secs: Vec<f64> = (0..20).map(|s| { let v: Vec<u32> = t.time_ns.iter().zip(&t.queue_pkts).filter(|(tt, _)| **tt >= s * S && **tt < (s + 1) * S).map(|(_, q)| *q).collect(); v.iter().map(|&x| x as f64).sum::<f64>() / v.len().max(1) as f64 }).collect();
        let maxh2 = t.time_ns.iter().zip(&t.queue_pkts).filter(|(tt, _)| **tt >= 10 * S).map(|(_, q)| *q).max();
        let fixed = ser_ns(size as u64, 1_000_000_000) + MS + ser_ns(size as u64, rate) + 10 * MS;
        println!("{name}: arrived {} red {} codel {} ovf {} max {} mean {:.2} maxh2 {:?} n {n}\n  per-second mean q {:?}\n  flow delays - fixed (ms): first {:.3} second {:.3} (max {:.3}) recv {} {}",
            l.arrived_pkts, l.dropped_red_pkts, l.dropped_codel_pkts, l.dropped_overflow_pkts, l.max_queue_pkts, l.mean_queue_pkts, maxh2,
            secs.iter().map(|x| (x * 10.0).round() / 10.0).collect::<Vec<_>>(),
            (r.udp_flows[0].delay_mean_ns - fixed as f64) / 1e6, (r.udp_flows[1].delay_mean_ns - fixed as f64) / 1e6, (r.udp_flows[1].delay_max_ns - fixed) as f64 / 1e6, r.udp_flows[0].received_pkts, r.udp_flows[1].received_pkts);
    }
}
