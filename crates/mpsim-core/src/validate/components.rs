//! Checks of the network's components and the traces: loss models,
//! queue disciplines, UDP patterns, the windowed throughput.

use super::*;

fn check_probability(path: &str, x: f64, p: &mut Problems) {
    if !x.is_finite() || !(0.0..=1.0).contains(&x) {
        p.out_of(path, x, "a probability in [0, 1]");
    }
}

/// A delivery-opportunity trace: some opportunities, in time order, over a
/// positive period, each letting at least one byte leave.
pub(super) fn check_trace(path: &str, t: &DeliveryTraceConfig, p: &mut Problems) {
    let times = &t.opportunities_ms;
    match times.last() {
        None => p.say(
            format!("{path}.opportunities_ms"),
            "[]",
            "at least one opportunity",
            "a delivery trace needs at least one opportunity",
        ),
        Some(0) => p.out_of(
            format!("{path}.opportunities_ms[{}]", times.len() - 1),
            0,
            "a positive last time (the trace's period, in ms)",
        ),
        Some(&last) if last > crate::net::link::MAX_TRACE_MS => p.out_of(
            format!("{path}.opportunities_ms[{}]", times.len() - 1),
            last,
            format!("at most {} ms", crate::net::link::MAX_TRACE_MS),
        ),
        Some(_) => {}
    }
    if let Some(k) = times.windows(2).position(|w| w[1] < w[0]) {
        p.say(
            format!("{path}.opportunities_ms[{}]", k + 1),
            times[k + 1],
            format!("at least {} (the times never decrease)", times[k]),
            format!(
                "delivery opportunities must be in time order: {} ms follows {} ms",
                times[k + 1],
                times[k]
            ),
        );
    }
    if t.bytes_per_opportunity == 0 {
        p.out_of(format!("{path}.bytes_per_opportunity"), 0, "at least 1 byte");
    }
}

pub(super) fn check_positive_rate(path: &str, rate: u64, p: &mut Problems) {
    if rate == 0 {
        p.out_of(path, 0, "a positive rate in bit/s");
    }
}

pub(crate) fn check_loss(path: &str, loss: &LossConfig, p: &mut Problems) {
    match *loss {
        LossConfig::None => {}
        LossConfig::Bernoulli { p: x } => check_probability(&format!("{path}.p"), x, p),
        LossConfig::GilbertElliott {
            p_gb,
            p_bg,
            loss_good,
            loss_bad,
        } => {
            check_probability(&format!("{path}.p_gb"), p_gb, p);
            check_probability(&format!("{path}.p_bg"), p_bg, p);
            check_probability(&format!("{path}.loss_good"), loss_good, p);
            check_probability(&format!("{path}.loss_bad"), loss_bad, p);
        }
    }
}

pub(super) fn check_queue(path: &str, q: &QueueConfig, p: &mut Problems) {
    match *q {
        QueueConfig::DropTail { limit } => {
            if limit.limit_pkts == Some(0) {
                p.out_of(format!("{path}.limit_pkts"), 0, "at least 1 packet");
            }
            if limit.limit_bytes == Some(0) {
                p.out_of(format!("{path}.limit_bytes"), 0, "at least 1 byte");
            }
        }
        QueueConfig::Red {
            limit_pkts,
            min_th_pkts,
            max_th_pkts,
            max_p,
            weight,
            mean_pkt_size_bytes,
            ..
        } => {
            let thresholds = (Some(min_th_pkts), Some(max_th_pkts));
            check_red(
                path,
                limit_pkts,
                thresholds,
                max_p,
                Some(weight),
                mean_pkt_size_bytes,
                p,
            );
        }
        QueueConfig::AdaptiveRed {
            limit_pkts,
            target_delay_ns,
            interval_ns,
            max_p,
            mean_pkt_size_bytes,
            min_th_pkts,
            max_th_pkts,
            weight,
            ..
        } => {
            check_red(
                path,
                limit_pkts,
                (min_th_pkts, max_th_pkts),
                max_p,
                weight,
                mean_pkt_size_bytes,
                p,
            );
            if target_delay_ns == 0 {
                p.out_of(format!("{path}.target_delay_ns"), 0, "positive");
            }
            if interval_ns == 0 {
                p.out_of(format!("{path}.interval_ns"), 0, "positive");
            }
        }
        QueueConfig::Codel {
            target_ns,
            interval_ns,
            limit_pkts,
        } => {
            if target_ns == 0 {
                p.out_of(format!("{path}.target_ns"), 0, "positive");
            }
            if interval_ns == 0 {
                p.out_of(format!("{path}.interval_ns"), 0, "positive");
            }
            if limit_pkts == 0 {
                p.out_of(format!("{path}.limit_pkts"), 0, "at least 1 packet");
            }
        }
    }
}

/// RED's parameters, plain or adaptive (whose thresholds and weight, when
/// left out, follow from the link).
pub(super) fn check_red(
    path: &str,
    limit_pkts: u32,
    (min_th_pkts, max_th_pkts): (Option<f64>, Option<f64>),
    max_p: f64,
    weight: Option<f64>,
    mean_pkt_size_bytes: u32,
    p: &mut Problems,
) {
    if limit_pkts == 0 {
        p.out_of(format!("{path}.limit_pkts"), 0, "at least 1 packet");
    }
    match (min_th_pkts, max_th_pkts) {
        (Some(lo), _) if !lo.is_finite() || lo < 0.0 => {
            p.out_of(format!("{path}.min_th_pkts"), lo, "a finite number >= 0");
        }
        (Some(lo), Some(hi)) if !hi.is_finite() || hi <= lo => {
            p.out_of(
                format!("{path}.max_th_pkts"),
                hi,
                format!("finite and greater than min_th_pkts ({lo})"),
            );
        }
        (Some(_), None) | (None, Some(_)) => p.say(
            format!("{path}.max_th_pkts"),
            format!("{max_th_pkts:?}"),
            "both min_th_pkts and max_th_pkts, or neither",
            "give both thresholds or let both follow from the link",
        ),
        _ => {}
    }
    if !max_p.is_finite() || max_p <= 0.0 || max_p > 1.0 {
        p.out_of(format!("{path}.max_p"), max_p, "in (0, 1]");
    }
    if let Some(w) = weight.filter(|w| !w.is_finite() || *w <= 0.0 || *w > 1.0) {
        p.out_of(format!("{path}.weight"), w, "in (0, 1]");
    }
    if mean_pkt_size_bytes == 0 {
        p.out_of(format!("{path}.mean_pkt_size_bytes"), 0, "at least 1 byte");
    }
}

pub(super) fn check_udp_pattern(path: &str, pattern: &UdpPattern, p: &mut Problems) {
    match *pattern {
        UdpPattern::Cbr { rate_bps } => check_positive_rate(&format!("{path}.rate_bps"), rate_bps, p),
        UdpPattern::OnOff {
            rate_bps,
            on_mean_ns,
            off_mean_ns,
            distribution,
        } => {
            check_positive_rate(&format!("{path}.rate_bps"), rate_bps, p);
            if on_mean_ns == 0 {
                p.out_of(format!("{path}.on_mean_ns"), 0, "positive");
            }
            if off_mean_ns == 0 {
                p.out_of(format!("{path}.off_mean_ns"), 0, "positive");
            }
            if let PeriodDistribution::Pareto { shape } = distribution {
                if !shape.is_finite() || shape <= 1.0 {
                    p.out_of(
                        format!("{path}.distribution.shape"),
                        shape,
                        "a finite number > 1 (so the mean exists)",
                    );
                }
            }
        }
    }
}

/// Most bins the windowed-throughput table may have per flow (each flow and
/// subflow holds two counters per bin from the start of the run).
pub const MAX_THROUGHPUT_BINS: u64 = 100_000;

pub(super) fn check_throughput(t: &ThroughputConfig, stop_time_ns: u64, p: &mut Problems) {
    let end_ns = t.end_ns.unwrap_or(stop_time_ns);
    if t.interval_ns == 0 {
        p.out_of("throughput.interval_ns", 0, "positive");
    }
    if t.end_ns.is_some_and(|e| e > stop_time_ns) {
        p.out_of(
            "throughput.end_ns",
            end_ns,
            format!("at most the stop time ({stop_time_ns} ns)"),
        );
    }
    if t.start_ns >= end_ns {
        p.out_of(
            "throughput.start_ns",
            t.start_ns,
            format!("before the end ({end_ns} ns)"),
        );
    } else if t.interval_ns > 0 && (end_ns - t.start_ns).div_ceil(t.interval_ns) > MAX_THROUGHPUT_BINS {
        p.say(
            "throughput.interval_ns",
            t.interval_ns,
            format!("at least (end - start) / {MAX_THROUGHPUT_BINS}"),
            format!(
                "{} bins from {} ns to {end_ns} ns; at most {MAX_THROUGHPUT_BINS} are allowed: widen the interval",
                (end_ns - t.start_ns).div_ceil(t.interval_ns),
                t.start_ns
            ),
        );
    }
}
