//! From a [`ScenarioConfig`] to a ready [`Simulator`]: validation (every
//! problem named by the path of its field) and resolution of names to
//! arena indices.

use std::collections::HashMap;

use crate::cc::{Cc, Cubic, Reno};
use crate::config::*;
use crate::context::SimContext;
use crate::error::ConfigError;
use crate::ids::{AddrId, EndpointId, LinkId, NodeId};
use crate::net::link::{Link, LinkCounters};
use crate::net::routing::{RoutingTable, Topology};
use crate::net::{Address, LossModel, Network, Node, Queue};
use crate::rng::{mix64, RngStream, StreamDomain};
use crate::sim::{Endpoint, LinkChange, SampledTraces, Simulator};
use crate::slowstart::hystart_linux::HyStartLinuxOption;
use crate::slowstart::{EarlyExit, HyStartConfig, HyStartLinuxConfig, SlowStartConfig};
use crate::time::{SimDuration, SimTime};
use crate::trace::QueueTrace;
use crate::traffic::udp::{Phase, UdpSink, UdpSource};
use crate::transport::mptcp::{SubflowEvent, SubflowEventOutcome};
use crate::transport::tcp::receiver::TcpReceiver;
use crate::transport::tcp::sender::TcpSender;

/// A subflow's two endpoints and its TCP state machines.
#[allow(clippy::too_many_arguments)]
fn new_subflow(
    endpoints: &mut Vec<Endpoint>,
    conn: u32,
    r: usize,
    src: AddrId,
    dst: AddrId,
    sport: u16,
    params: &TcpParams,
    trace: bool,
) -> Subflow {
    let sender_ep = EndpointId(endpoints.len() as u32);
    endpoints.push(Endpoint::TcpSender(conn, r as u16));
    let receiver_ep = EndpointId(endpoints.len() as u32);
    endpoints.push(Endpoint::TcpReceiver(conn, r as u16));
    Subflow {
        src,
        dst,
        sender_ep,
        receiver_ep,
        fwd_hash: five_tuple_hash(src, dst, sport, 5001, 6),
        rev_hash: five_tuple_hash(dst, src, 5001, sport, 6),
        sender: TcpSender::new(params),
        receiver: TcpReceiver::new(params.receiver),
        ts_to_echo: None,
        acks_sent: 0,
        bytes_received: 0,
        traced: trace,
        reported: Default::default(),
        added_at: None,
        removed_at: None,
    }
}
use crate::traffic::gaps::GapGenerator;
use crate::transport::connection::{Connection, Subflow};
use crate::transport::tcp::TcpParams;

/// The TCP parameters of a flow: its profile's, with the flow's overrides.
pub fn resolve_tcp(path: &str, f: &TcpOptions, cc: &Option<CcConfig>, mptcp: bool) -> Res<(TcpParams, Cc)> {
    let mut t = f.profile.params();
    let p = &format!("{path}.tcp");
    if let Some(mss) = f.mss {
        // RFC 9293 §3.2: the MSS option carries 16 bits.
        if !(64..=65_535).contains(&mss) {
            return err(format!("{p}.mss"), format!("must be 64 to 65535 bytes, got {mss}"));
        }
        t.mss = mss;
    }
    t.receiver.mss = t.mss;
    if let Some(b) = f.framing_bytes {
        if b > 1_000 {
            return err(
                format!("{p}.framing_bytes"),
                format!("must be at most 1000 bytes, got {b}"),
            );
        }
        t.framing_bytes = b;
    }
    if let Some(iw) = f.initial_cwnd_segments {
        if iw == 0 {
            return err(
                format!("{p}.initial_cwnd_segments"),
                "must be at least 1 segment, got 0",
            );
        }
        t.initial_cwnd_segments = iw;
    }
    if let Some(s) = f.initial_ssthresh_bytes {
        if s < 2 * t.mss as u64 {
            return err(
                format!("{p}.initial_ssthresh_bytes"),
                format!("must be at least 2 MSS ({} bytes), got {s}", 2 * t.mss),
            );
        }
        t.initial_ssthresh_bytes = Some(s);
    }
    if let Some(r) = f.recovery {
        t.recovery = r;
    }
    if let Some(s) = f.sack {
        t.sack = s;
    }
    if matches!(
        t.recovery,
        crate::transport::tcp::Recovery::Sack | crate::transport::tcp::Recovery::Prr
    ) && !t.sack
        && !f.emulate_sack.unwrap_or(t.emulate_sack)
    {
        t.recovery = crate::transport::tcp::Recovery::NewReno;
    }
    if let Some(ts) = f.timestamps {
        t.timestamps = ts;
    }
    if let Some(l) = f.limited_transmit {
        t.limited_transmit = l;
    }
    // RFC 6582 §4 recommends the Impatient timer for NewReno; RFC 6298
    // restarts it on every ACK of new data otherwise.
    if f.profile == crate::transport::tcp::Profile::Rfc && t.recovery == crate::transport::tcp::Recovery::NewReno {
        t.partial_ack_rto = crate::transport::tcp::config::PartialAckRto::Impatient;
    }
    if let Some(r) = f.partial_ack_rto {
        t.partial_ack_rto = r;
    }
    if let Some(v) = f.partial_ack_retransmit {
        t.partial_ack_retransmit = v;
    }
    if let Some(v) = f.emulate_sack {
        t.emulate_sack = v;
    }
    if let Some(v) = f.dupack_rule {
        t.dupack_rule = v;
    }
    if let Some(v) = f.prr_variant {
        t.prr_variant = v;
    }
    if let Some(v) = f.loss_flight {
        t.loss_flight = v;
    }
    if let Some(r) = f.sack_rule3 {
        t.sack_rule3 = r;
    }
    if let Some(r) = f.sack_rescue {
        t.sack_rescue = r;
    }
    if let Some(r) = f.rack {
        t.rack = r;
    }
    if let Some(r) = f.tlp {
        t.tlp = r;
    }
    if let Some(d) = f.delayed_ack {
        t.receiver.delayed_ack = d;
    }
    if let Some(n) = f.delack_segments {
        if n == 0 {
            return err(format!("{p}.delack_segments"), "must be at least 1, got 0");
        }
        t.receiver.delack_segments = n;
    }
    if let Some(ns) = f.delack_timeout_ns {
        if ns == 0 {
            return err(format!("{p}.delack_timeout_ns"), "must be positive, got 0");
        }
        t.receiver.delack_timeout = SimDuration(ns);
    }
    if let Some(n) = f.quickack_segments {
        t.receiver.quickack_segments = n;
    }
    if let Some(ns) = f.min_rto_ns {
        if ns == 0 {
            return err(format!("{p}.min_rto_ns"), "must be positive, got 0");
        }
        t.rtt.min_rto = SimDuration(ns);
    }
    if let Some(ns) = f.initial_rto_ns {
        if ns == 0 {
            return err(format!("{p}.initial_rto_ns"), "must be positive, got 0");
        }
        t.rtt.initial_rto = SimDuration(ns);
    }
    if let Some(b) = f.rwnd_bytes {
        if b < t.mss as u64 {
            return err(
                format!("{p}.rwnd_bytes"),
                format!("must be at least one MSS ({} bytes), got {b}", t.mss),
            );
        }
        t.receiver.rwnd_bytes = b;
    }
    if let Some(c) = f.ack_counting {
        t.slow_start.counting = c;
        t.reno.counting = c;
    }
    if let Some(h) = f.hystart {
        check_hystart(&format!("{p}.hystart"), &h)?;
        t.hystart = Some(h);
    }
    let default_cc = if mptcp {
        CcConfig::Lia {
            config: Default::default(),
        }
    } else if f.profile == crate::transport::tcp::Profile::Rfc {
        CcConfig::Reno { counting: None }
    } else {
        CcConfig::Cubic {
            cubic: Default::default(),
        }
    };
    let cc = match cc.as_ref().unwrap_or(&default_cc) {
        CcConfig::Reno { counting } => {
            let mut rc = t.reno;
            if let Some(c) = counting {
                rc.counting = *c;
            }
            Cc::Reno(Reno::new(rc))
        }
        CcConfig::Uncoupled => Cc::Reno(Reno::new(t.reno)),
        CcConfig::Cubic { cubic } => {
            check_cubic(path, cubic.c, cubic.beta)?;
            if f.profile == crate::transport::tcp::Profile::Ns3 {
                // ns-3 `TcpCubic`: slow start counts the segments an ACK
                // acknowledges, and the window grows only while cwnd-limited.
                if f.ack_counting.is_none() {
                    t.slow_start.counting = crate::cc::AckCounting::Bytes;
                    t.slow_start.abc_limit_mss = None;
                }
                t.cwnd_validation = true;
            }
            Cc::Cubic(Cubic::new(*cubic))
        }
        CcConfig::Ewtcp { config } => {
            if let Some(a) = config.a {
                if !(a.is_finite() && a > 0.0) {
                    return err(format!("{path}.cc.a"), format!("must be a positive number, got {a}"));
                }
            }
            Cc::Ewtcp(crate::cc::Ewtcp::new(*config).with_reno(t.reno))
        }
        CcConfig::Coupled { config } => Cc::Coupled(crate::cc::Coupled::new(*config).with_reno(t.reno)),
        CcConfig::Semicoupled { config } => {
            if !(config.a.is_finite() && config.a > 0.0) {
                return err(
                    format!("{path}.cc.a"),
                    format!("must be a positive number, got {}", config.a),
                );
            }
            Cc::SemiCoupled(crate::cc::SemiCoupled::new(*config).with_reno(t.reno))
        }
        CcConfig::Lia { config } => Cc::Lia(crate::cc::Lia::new(*config).with_reno(t.reno)),
        CcConfig::Olia { config } => Cc::Olia(crate::cc::Olia::new(*config).with_reno(t.reno)),
        CcConfig::Balia { config } => Cc::Balia(crate::cc::Balia::new(*config).with_reno(t.reno)),
        CcConfig::Mpcubic { config } => {
            check_cubic(path, config.c, config.beta)?;
            if !(config.k >= 0.0 && config.k <= 4.0) {
                return err(
                    format!("{path}.cc.k"),
                    format!("must be in [0, 4] (MPCubic Sec. III), got {}", config.k),
                );
            }
            Cc::MpCubic(crate::cc::MpCubic::new(*config))
        }
        CcConfig::Unmpcubic { config } => {
            check_cubic(path, config.c, config.beta)?;
            if let Some(s) = config.scale {
                if !(s > 0.0 && s <= 1.0) {
                    return err(format!("{path}.cc.scale"), format!("must be in (0, 1], got {s}"));
                }
            }
            Cc::UnMpCubic(crate::cc::UnMpCubic::new(*config))
        }
    };
    t.hystart_linux = resolve_hystart_linux(p, f, &cc)?;
    Ok((t, cc))
}

/// `tcp.hystart_linux`: the flow's choice; left out, on in the `linux`
/// profile when the congestion control is CUBIC (Linux has HyStart in
/// `tcp_cubic.c` only; mpsim's coupled and multipath CUBICs are not Linux's)
/// unless the flow asked for HyStart++ instead.
fn resolve_hystart_linux(p: &str, f: &TcpOptions, cc: &Cc) -> Res<Option<HyStartLinuxConfig>> {
    match f.hystart_linux {
        Some(HyStartLinuxOption::On(h)) => {
            let path = format!("{p}.hystart_linux");
            if f.hystart.is_some() {
                return err(
                    path,
                    "Linux HyStart (hystart_linux) and HyStart++ (hystart) both end slow start early: \
                     turn one of them off",
                );
            }
            check_range(
                &path,
                ("delay_thresh_min_us", h.delay_thresh_min_us),
                ("delay_thresh_max_us", h.delay_thresh_max_us),
            )?;
            Ok(Some(h))
        }
        Some(HyStartLinuxOption::Off) => Ok(None),
        None => {
            let linux_cubic = f.profile == crate::transport::tcp::Profile::Linux && matches!(cc, Cc::Cubic(_));
            Ok((linux_cubic && f.hystart.is_none()).then(HyStartLinuxConfig::default))
        }
    }
}

type Res<T> = Result<T, ConfigError>;

/// CUBIC's C and β_cubic (RFC 9438 §4.2, §4.6), shared by its multipath variants.
fn check_cubic(path: &str, c: f64, beta: f64) -> Res<()> {
    if !(beta > 0.0 && beta < 1.0) {
        return err(format!("{path}.cc.beta"), format!("must be in (0, 1), got {beta}"));
    }
    if !(c.is_finite() && c > 0.0) {
        return err(format!("{path}.cc.c"), format!("must be a positive number, got {c}"));
    }
    Ok(())
}

fn err<T>(path: impl Into<String>, msg: impl Into<String>) -> Res<T> {
    Err(ConfigError::new(path, msg))
}

/// Hash of a flow's 5-tuple, the key ECMP hashes on.
pub fn five_tuple_hash(src: AddrId, dst: AddrId, src_port: u16, dst_port: u16, protocol: u8) -> u64 {
    let ports = ((src_port as u64) << 16) | dst_port as u64 | ((protocol as u64) << 32);
    mix64(mix64(mix64(src.0 as u64) ^ ((dst.0 as u64) << 20)) ^ ports)
}

fn check_probability(path: &str, p: f64) -> Res<()> {
    if !p.is_finite() || !(0.0..=1.0).contains(&p) {
        return err(path, format!("must be a probability in [0, 1], got {p}"));
    }
    Ok(())
}

fn check_positive_rate(path: &str, rate: u64) -> Res<()> {
    if rate == 0 {
        return err(path, "must be a positive rate in bit/s, got 0");
    }
    Ok(())
}

pub fn check_loss(path: &str, loss: &LossConfig) -> Res<()> {
    match *loss {
        LossConfig::None => Ok(()),
        LossConfig::Bernoulli { p } => check_probability(&format!("{path}.p"), p),
        LossConfig::GilbertElliott {
            p_gb,
            p_bg,
            loss_good,
            loss_bad,
        } => {
            check_probability(&format!("{path}.p_gb"), p_gb)?;
            check_probability(&format!("{path}.p_bg"), p_bg)?;
            check_probability(&format!("{path}.loss_good"), loss_good)?;
            check_probability(&format!("{path}.loss_bad"), loss_bad)
        }
    }
}

fn check_queue(path: &str, q: &QueueConfig) -> Res<()> {
    match *q {
        QueueConfig::DropTail { limit } => {
            if limit.limit_pkts == Some(0) {
                return err(format!("{path}.limit_pkts"), "must be at least 1 packet, got 0");
            }
            if limit.limit_bytes == Some(0) {
                return err(format!("{path}.limit_bytes"), "must be at least 1 byte, got 0");
            }
            Ok(())
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
            if limit_pkts == 0 {
                return err(format!("{path}.limit_pkts"), "must be at least 1 packet, got 0");
            }
            if !min_th_pkts.is_finite() || min_th_pkts < 0.0 {
                return err(
                    format!("{path}.min_th_pkts"),
                    format!("must be a finite number >= 0, got {min_th_pkts}"),
                );
            }
            if !max_th_pkts.is_finite() || max_th_pkts <= min_th_pkts {
                return err(
                    format!("{path}.max_th_pkts"),
                    format!("must be finite and greater than min_th_pkts ({min_th_pkts}), got {max_th_pkts}"),
                );
            }
            if !max_p.is_finite() || max_p <= 0.0 || max_p > 1.0 {
                return err(format!("{path}.max_p"), format!("must be in (0, 1], got {max_p}"));
            }
            if !weight.is_finite() || weight <= 0.0 || weight > 1.0 {
                return err(format!("{path}.weight"), format!("must be in (0, 1], got {weight}"));
            }
            if mean_pkt_size_bytes == 0 {
                return err(format!("{path}.mean_pkt_size_bytes"), "must be at least 1 byte, got 0");
            }
            Ok(())
        }
        QueueConfig::Codel {
            target_ns,
            interval_ns,
            limit_pkts,
        } => {
            if target_ns == 0 {
                return err(format!("{path}.target_ns"), "must be positive, got 0");
            }
            if interval_ns == 0 {
                return err(format!("{path}.interval_ns"), "must be positive, got 0");
            }
            if limit_pkts == 0 {
                return err(format!("{path}.limit_pkts"), "must be at least 1 packet, got 0");
            }
            Ok(())
        }
    }
}

/// The coupled slow starts' parameters.
fn check_slow_start(path: &str, ss: &SlowStartConfig) -> Res<()> {
    match *ss {
        SlowStartConfig::Standard => Ok(()),
        SlowStartConfig::Lisa { config } => {
            let (min, max) = (config.min_credit_segments, config.max_credit_segments);
            if min == 0 {
                return err(
                    format!("{path}.min_credit_segments"),
                    "must be at least 1 packet, got 0",
                );
            }
            if max < min {
                return err(
                    format!("{path}.max_credit_segments"),
                    format!("must be at least min_credit_segments ({min}), got {max}"),
                );
            }
            Ok(())
        }
        SlowStartConfig::Css { config } => {
            if config.con_ssthresh_bytes == 0 {
                return err(format!("{path}.con_ssthresh_bytes"), "must be at least 1 byte, got 0");
            }
            if !(config.alpha.is_finite() && config.alpha > 1.0) {
                return err(
                    format!("{path}.alpha"),
                    format!("must be a finite growth factor > 1, got {}", config.alpha),
                );
            }
            if config.max_increase_mss == 0 {
                return err(format!("{path}.max_increase_mss"), "must be at least 1, got 0");
            }
            Ok(())
        }
        SlowStartConfig::Gsam { config } => {
            if config.k_ns == Some(0) {
                return err(format!("{path}.k_ns"), "must be a positive time, got 0");
            }
            check_positive_rate(&format!("{path}.bottleneck_rate_bps"), config.bottleneck_rate_bps)?;
            if config.bottleneck_buffer_pkts.is_some() && config.bottleneck_buffer_bytes.is_some() {
                return err(
                    format!("{path}.bottleneck_buffer_bytes"),
                    "give the buffer in packets or in bytes, not both",
                );
            }
            if config.base_rtt_ns == Some(0) {
                return err(format!("{path}.base_rtt_ns"), "must be a positive time, got 0");
            }
            Ok(())
        }
    }
}

/// The lower and upper bound of a clamp, each (field name, value): the
/// upper may not be below the lower.
fn check_range(path: &str, (lo_name, lo): (&str, u64), (hi_name, hi): (&str, u64)) -> Res<()> {
    if hi < lo {
        return err(
            format!("{path}.{hi_name}"),
            format!("must be at least {lo_name} ({lo}), got {hi}"),
        );
    }
    Ok(())
}

/// RFC 9406 §4.3's constants.
fn check_hystart(path: &str, h: &HyStartConfig) -> Res<()> {
    if h.min_rtt_thresh_ns == 0 {
        return err(format!("{path}.min_rtt_thresh_ns"), "must be a positive time, got 0");
    }
    check_range(
        path,
        ("min_rtt_thresh_ns", h.min_rtt_thresh_ns),
        ("max_rtt_thresh_ns", h.max_rtt_thresh_ns),
    )?;
    if h.min_rtt_divisor == 0 {
        return err(format!("{path}.min_rtt_divisor"), "must be at least 1, got 0");
    }
    if h.n_rtt_sample == 0 {
        return err(format!("{path}.n_rtt_sample"), "must be at least 1 sample, got 0");
    }
    if h.css_growth_divisor < 2 {
        return err(
            format!("{path}.css_growth_divisor"),
            format!("must be at least 2 (RFC 9406 §4.3), got {}", h.css_growth_divisor),
        );
    }
    if h.css_rounds == 0 {
        return err(format!("{path}.css_rounds"), "must be at least 1 round, got 0");
    }
    if h.abc_limit_mss == Some(0) {
        return err(
            format!("{path}.abc_limit_mss"),
            "must be at least 1 MSS (null for no limit), got 0",
        );
    }
    Ok(())
}

/// Name → index for one kind of component, rejecting duplicates.
struct Names(HashMap<String, u32>);

impl Names {
    fn build<'a>(kind: &str, names: impl Iterator<Item = &'a String>) -> Res<Names> {
        let mut map = HashMap::new();
        for (i, name) in names.enumerate() {
            if name.is_empty() {
                return err(format!("{kind}[{i}].name"), "must not be empty");
            }
            if map.insert(name.clone(), i as u32).is_some() {
                return err(format!("{kind}[{i}].name"), format!("duplicate name '{name}'"));
            }
        }
        Ok(Names(map))
    }

    fn get(&self, path: &str, what: &str, name: &str) -> Res<u32> {
        match self.0.get(name) {
            Some(&i) => Ok(i),
            None => {
                let mut known: Vec<&str> = self.0.keys().map(|s| s.as_str()).collect();
                known.sort_unstable();
                let shown = known.iter().take(12).copied().collect::<Vec<_>>().join(", ");
                let more = if known.len() > 12 { ", ..." } else { "" };
                err(path, format!("unknown {what} '{name}' (known: {shown}{more})"))
            }
        }
    }
}

/// Checks an MPTCP connection's subflow events and resolves each to the
/// subflow it adds or removes. Added subflows are appended to `pairs` in
/// time order (ties in configuration order), so every subflow exists from
/// the build on and per-subflow state is sized once. A `remove` must name a
/// subflow that exists at its time: opened by the path manager or by an
/// earlier `add`, and not removed before.
#[allow(clippy::too_many_arguments)]
fn resolve_subflow_events(
    p: &str,
    m: &MptcpConnectionConfig,
    net: &Network,
    addr_names: &Names,
    srcs: &[AddrId],
    dsts: &[AddrId],
    pairs: &mut Vec<(AddrId, AddrId)>,
) -> Res<Vec<SubflowEvent>> {
    let node_of = |a: AddrId| net.addrs[a.idx()].node;
    let node_name = |a: AddrId| &net.nodes[node_of(a).idx()].name;
    let addr_name = |a: AddrId| &net.addrs[a.idx()].name;
    // Field checks, in configuration order.
    let mut resolved = Vec::with_capacity(m.subflow_events.len());
    for (j, e) in m.subflow_events.iter().enumerate() {
        let pe = format!("{p}.subflow_events[{j}]");
        if e.at_ns < m.start_ns {
            return err(
                format!("{pe}.at_ns"),
                format!(
                    "must not be before the connection's start_ns ({}), got {}",
                    m.start_ns, e.at_ns
                ),
            );
        }
        let src = AddrId(addr_names.get(&format!("{pe}.src"), "address", &e.src)?);
        if node_of(src) != node_of(srcs[0]) {
            return err(
                format!("{pe}.src"),
                format!(
                    "address '{}' is on node '{}', not on the connection's sending node '{}'",
                    e.src,
                    node_name(src),
                    node_name(srcs[0])
                ),
            );
        }
        let dst = AddrId(addr_names.get(&format!("{pe}.dst"), "address", &e.dst)?);
        if node_of(dst) != node_of(dsts[0]) {
            return err(
                format!("{pe}.dst"),
                format!(
                    "address '{}' is on node '{}', not on the connection's receiving node '{}'",
                    e.dst,
                    node_name(dst),
                    node_name(dsts[0])
                ),
            );
        }
        if e.action == SubflowAction::Add && e.index.is_some() {
            return err(format!("{pe}.index"), "only a remove picks a subflow by index");
        }
        resolved.push((src, dst));
    }
    // The timeline: which subflows exist at each event.
    let mut order: Vec<usize> = (0..m.subflow_events.len()).collect();
    order.sort_by_key(|&j| m.subflow_events[j].at_ns);
    let mut live = vec![true; pairs.len()];
    let mut events = Vec::with_capacity(order.len());
    for j in order {
        let e = &m.subflow_events[j];
        let pe = format!("{p}.subflow_events[{j}]");
        let (src, dst) = resolved[j];
        let subflow = match e.action {
            SubflowAction::Add => {
                pairs.push((src, dst));
                live.push(true);
                if pairs.len() > 64 {
                    return err(pe, format!("opens subflow {}; at most 64 are allowed", pairs.len()));
                }
                pairs.len() - 1
            }
            SubflowAction::Remove => {
                let existing: Vec<usize> = (0..pairs.len())
                    .filter(|&r| live[r] && pairs[r] == (src, dst))
                    .collect();
                let r = match (e.index, existing.len()) {
                    (Some(i), _) if existing.contains(&(i as usize)) => i as usize,
                    (Some(i), _) => {
                        return err(
                            format!("{pe}.index"),
                            format!(
                                "no subflow {i} from '{}' to '{}' exists at {} ns (existing: {existing:?})",
                                addr_name(src),
                                addr_name(dst),
                                e.at_ns
                            ),
                        )
                    }
                    (None, 1) => existing[0],
                    (None, 0) => {
                        return err(
                            pe,
                            format!(
                                "no subflow from '{}' to '{}' exists at {} ns to remove",
                                addr_name(src),
                                addr_name(dst),
                                e.at_ns
                            ),
                        )
                    }
                    (None, n) => {
                        return err(
                            format!("{pe}.index"),
                            format!(
                                "{n} subflows from '{}' to '{}' exist at {} ns (indices {existing:?}); give index to pick one",
                                addr_name(src),
                                addr_name(dst),
                                e.at_ns
                            ),
                        )
                    }
                };
                live[r] = false;
                r
            }
        };
        events.push(SubflowEvent {
            at: SimTime(e.at_ns),
            action: e.action,
            subflow,
            applied_at: None,
            outcome: SubflowEventOutcome::Pending,
        });
    }
    Ok(events)
}

/// Validates the configuration and builds the simulator.
pub fn build(cfg: &ScenarioConfig) -> Res<Simulator> {
    let seed = cfg.seed;
    if cfg.nodes.is_empty() {
        return err("nodes", "at least one node is needed");
    }
    let node_names = Names::build("nodes", cfg.nodes.iter().map(|n| &n.name))?;
    let link_names = Names::build("links", cfg.links.iter().map(|l| &l.name))?;

    let mut net = Network::default();
    for (i, n) in cfg.nodes.iter().enumerate() {
        net.nodes.push(Node {
            name: n.name.clone(),
            forwards: n.kind == NodeKind::Router,
            ecmp_salt: RngStream::derive(seed, StreamDomain::Ecmp, i as u64).next_u64(),
        });
    }

    let mut link_ends = Vec::with_capacity(cfg.links.len());
    for (i, l) in cfg.links.iter().enumerate() {
        let p = format!("links[{i}]");
        let from = NodeId(node_names.get(&format!("{p}.from"), "node", &l.from)?);
        let to = NodeId(node_names.get(&format!("{p}.to"), "node", &l.to)?);
        if from == to {
            return err(
                format!("{p}.to"),
                format!("a link must join two different nodes, got '{}' twice", l.to),
            );
        }
        check_positive_rate(&format!("{p}.rate_bps"), l.rate_bps)?;
        check_queue(&format!("{p}.queue"), &l.queue)?;
        check_loss(&format!("{p}.loss"), &l.loss)?;
        if l.weight == 0 {
            return err(format!("{p}.weight"), "must be at least 1, got 0");
        }
        link_ends.push((from, to, l.weight));
        net.links.push(Link {
            name: l.name.clone(),
            from,
            to,
            rate_bps: l.rate_bps,
            delay: SimDuration(l.delay_ns),
            up: l.up,
            weight: l.weight,
            queue: Queue::from_config(&l.queue, l.rate_bps),
            loss: LossModel::from_config(&l.loss),
            loss_rng: RngStream::derive(seed, StreamDomain::LinkLoss, i as u64),
            queue_rng: RngStream::derive(seed, StreamDomain::QueueDisc, i as u64),
            in_service: None,
            service_started: SimTime::ZERO,
            in_flight: 0,
            counters: LinkCounters::default(),
            traced_on_change: false,
        });
    }

    // Addresses: the listed ones, then one per node that has none.
    let mut addr_cfgs: Vec<AddressConfig> = cfg.addresses.clone();
    for n in &cfg.nodes {
        if !cfg.addresses.iter().any(|a| a.node == n.name) {
            addr_cfgs.push(AddressConfig {
                name: n.name.clone(),
                node: n.name.clone(),
                out_link: None,
                in_link: None,
            });
        }
    }
    let addr_names = Names::build("addresses", addr_cfgs.iter().map(|a| &a.name))?;
    for (i, a) in addr_cfgs.iter().enumerate() {
        let p = format!("addresses[{i}]");
        let node = NodeId(node_names.get(&format!("{p}.node"), "node", &a.node)?);
        let out_link = match &a.out_link {
            Some(name) => {
                let l = LinkId(link_names.get(&format!("{p}.out_link"), "link", name)?);
                if net.links[l.idx()].from != node {
                    return err(
                        format!("{p}.out_link"),
                        format!("link '{name}' does not start at node '{}'", a.node),
                    );
                }
                Some(l)
            }
            None => None,
        };
        let in_link = match &a.in_link {
            Some(name) => {
                let l = LinkId(link_names.get(&format!("{p}.in_link"), "link", name)?);
                if net.links[l.idx()].to != node {
                    return err(
                        format!("{p}.in_link"),
                        format!("link '{name}' does not end at node '{}'", a.node),
                    );
                }
                Some(l)
            }
            None => None,
        };
        net.addrs.push(Address {
            name: a.name.clone(),
            node,
            out_link,
            in_link,
        });
    }

    let forwards: Vec<bool> = net.nodes.iter().map(|n| n.forwards).collect();
    let addr_targets: Vec<_> = net.addrs.iter().map(|a| (a.node, a.in_link)).collect();
    net.routes = RoutingTable::compute(&Topology {
        forwards: &forwards,
        links: &link_ends,
        addrs: &addr_targets,
    });
    for (i, r) in cfg.routes.iter().enumerate() {
        let p = format!("routes[{i}]");
        let node = NodeId(node_names.get(&format!("{p}.node"), "node", &r.node)?);
        let dst = AddrId(addr_names.get(&format!("{p}.dst"), "address", &r.dst)?);
        if r.via.is_empty() {
            return err(format!("{p}.via"), "needs at least one next-hop link");
        }
        let mut via = Vec::with_capacity(r.via.len());
        for (j, name) in r.via.iter().enumerate() {
            let l = LinkId(link_names.get(&format!("{p}.via[{j}]"), "link", name)?);
            if net.links[l.idx()].from != node {
                return err(
                    format!("{p}.via[{j}]"),
                    format!("link '{name}' does not start at node '{}'", r.node),
                );
            }
            via.push(l);
        }
        net.routes.set(node, dst, &via);
    }

    let mut link_changes = Vec::with_capacity(cfg.link_changes.len());
    for (i, c) in cfg.link_changes.iter().enumerate() {
        let p = format!("link_changes[{i}]");
        let link = LinkId(link_names.get(&format!("{p}.link"), "link", &c.link)?);
        if let Some(r) = c.rate_bps {
            check_positive_rate(&format!("{p}.rate_bps"), r)?;
        }
        if let Some(l) = &c.loss {
            check_loss(&format!("{p}.loss"), l)?;
        }
        link_changes.push(LinkChange {
            at: SimTime(c.at_ns),
            link,
            rate_bps: c.rate_bps,
            delay: c.delay_ns.map(SimDuration),
            loss: c.loss.as_ref().map(LossModel::from_config),
            up: c.up,
        });
    }

    let mut endpoints = Vec::new();
    let mut udp_sources = Vec::new();
    let mut udp_sinks = Vec::new();
    Names::build("udp_flows", cfg.udp_flows.iter().map(|f| &f.name))?;
    for (i, f) in cfg.udp_flows.iter().enumerate() {
        let p = format!("udp_flows[{i}]");
        let src = AddrId(addr_names.get(&format!("{p}.src"), "address", &f.src)?);
        let dst = AddrId(addr_names.get(&format!("{p}.dst"), "address", &f.dst)?);
        if net.addrs[src.idx()].node == net.addrs[dst.idx()].node {
            return err(format!("{p}.dst"), "source and destination are on the same node");
        }
        if f.packet_size_bytes == 0 {
            return err(format!("{p}.packet_size_bytes"), "must be at least 1 byte, got 0");
        }
        let stop = f.stop_ns.map(SimTime).unwrap_or(SimTime::NEVER);
        if stop <= SimTime(f.start_ns) {
            return err(
                format!("{p}.stop_ns"),
                format!("must be later than start_ns ({})", f.start_ns),
            );
        }
        match f.pattern {
            UdpPattern::Cbr { rate_bps } => check_positive_rate(&format!("{p}.pattern.rate_bps"), rate_bps)?,
            UdpPattern::OnOff {
                rate_bps,
                on_mean_ns,
                off_mean_ns,
                distribution,
            } => {
                check_positive_rate(&format!("{p}.pattern.rate_bps"), rate_bps)?;
                if on_mean_ns == 0 {
                    return err(format!("{p}.pattern.on_mean_ns"), "must be positive, got 0");
                }
                if off_mean_ns == 0 {
                    return err(format!("{p}.pattern.off_mean_ns"), "must be positive, got 0");
                }
                if let PeriodDistribution::Pareto { shape } = distribution {
                    if !shape.is_finite() || shape <= 1.0 {
                        return err(
                            format!("{p}.pattern.distribution.shape"),
                            format!("must be a finite number > 1 (so the mean exists), got {shape}"),
                        );
                    }
                }
            }
        }
        let sink = EndpointId(endpoints.len() as u32);
        endpoints.push(Endpoint::UdpSink(udp_sinks.len() as u32));
        udp_sinks.push(UdpSink::default());
        let (rate_bps, on_off) = UdpSource::new_pattern(&f.pattern);
        let src_port = 10_000u16.wrapping_add(i as u16);
        udp_sources.push(UdpSource {
            name: f.name.clone(),
            src,
            dst,
            sink,
            flow_hash: five_tuple_hash(src, dst, src_port, 9, 17),
            packet_size_bytes: f.packet_size_bytes,
            rate_bps,
            start: SimTime(f.start_ns),
            stop,
            on_off,
            rng: RngStream::derive(seed, StreamDomain::TrafficSource, i as u64),
            phase: Phase::NotStarted,
            burst_start: SimTime(f.start_ns),
            burst_index: 0,
            next_seq: 0,
            sent_pkts: 0,
            sent_bytes: 0,
        });
    }

    let mut connections = Vec::new();
    Names::build("tcp_flows", cfg.tcp_flows.iter().map(|f| &f.name))?;
    for (i, f) in cfg.tcp_flows.iter().enumerate() {
        let p = format!("tcp_flows[{i}]");
        let src = AddrId(addr_names.get(&format!("{p}.src"), "address", &f.src)?);
        let dst = AddrId(addr_names.get(&format!("{p}.dst"), "address", &f.dst)?);
        if net.addrs[src.idx()].node == net.addrs[dst.idx()].node {
            return err(format!("{p}.dst"), "source and destination are on the same node");
        }
        if f.size_bytes == Some(0) {
            return err(
                format!("{p}.size_bytes"),
                "must be at least 1 byte (leave it out for a flow without end)",
            );
        }
        let (params, cc) = resolve_tcp(&p, &f.tcp, &f.cc, false)?;
        let repeats = match &f.sequence {
            None => 1,
            Some(seq) => {
                if seq.count == 0 {
                    return err(format!("{p}.sequence.count"), "must be at least 1, got 0");
                }
                if f.size_bytes.is_none() {
                    return err(format!("{p}.size_bytes"), "a flow sequence needs flows of finite size");
                }
                seq.count
            }
        };
        for k in 0..repeats {
            let index = connections.len() as u32;
            let sport = 20_000u16.wrapping_add((i as u32 * 131 + k) as u16);
            let sf = new_subflow(&mut endpoints, index, 0, src, dst, sport, &params, f.trace);
            let name = if f.sequence.is_some() {
                format!("{}#{k}", f.name)
            } else {
                f.name.clone()
            };
            let mut conn = Connection::new(
                name,
                index,
                params.clone(),
                false,
                vec![sf],
                cc.clone(),
                SlowStartConfig::Standard.build(
                    params.slow_start,
                    EarlyExit::of(params.hystart, params.hystart_linux),
                    1,
                ),
                Scheduler::Minrtt,
                if k == 0 { SimTime(f.start_ns) } else { SimTime::NEVER },
                SimDuration::ZERO,
                f.size_bytes,
                params.receiver.rwnd_bytes,
            );
            if let Some(seq) = &f.sequence {
                if k + 1 < repeats {
                    conn.successor = Some((
                        index + 1,
                        GapGenerator {
                            mean: SimDuration(seq.gap_mean_ns),
                            distribution: seq.gap_distribution,
                            rng: RngStream::derive(seed, StreamDomain::Workload, ((i as u64) << 32) | k as u64),
                        },
                    ));
                }
            }
            connections.push(conn);
        }
    }
    Names::build("mptcp_connections", cfg.mptcp_connections.iter().map(|f| &f.name))?;
    for (i, m) in cfg.mptcp_connections.iter().enumerate() {
        let p = format!("mptcp_connections[{i}]");
        if cfg.tcp_flows.iter().any(|f| f.name == m.name) {
            return err(
                format!("{p}.name"),
                format!("'{}' is also the name of a TCP flow", m.name),
            );
        }
        let mut srcs = Vec::new();
        for (j, a) in m.src_addrs.iter().enumerate() {
            srcs.push(AddrId(addr_names.get(&format!("{p}.src_addrs[{j}]"), "address", a)?));
        }
        let mut dsts = Vec::new();
        for (j, a) in m.dst_addrs.iter().enumerate() {
            dsts.push(AddrId(addr_names.get(&format!("{p}.dst_addrs[{j}]"), "address", a)?));
        }
        if srcs.is_empty() {
            return err(format!("{p}.src_addrs"), "needs at least one address");
        }
        if dsts.is_empty() {
            return err(format!("{p}.dst_addrs"), "needs at least one address");
        }
        if m.size_bytes == Some(0) {
            return err(
                format!("{p}.size_bytes"),
                "must be at least 1 byte (leave it out for a connection without end)",
            );
        }
        let pairs: Vec<(AddrId, AddrId)> = match m.path_manager {
            PathManager::Fullmesh => srcs.iter().flat_map(|&s| dsts.iter().map(move |&d| (s, d))).collect(),
            PathManager::Ndiffports { subflows } => {
                if subflows == 0 || subflows > 64 {
                    return err(
                        format!("{p}.path_manager.subflows"),
                        format!("must be 1 to 64, got {subflows}"),
                    );
                }
                vec![(srcs[0], dsts[0]); subflows as usize]
            }
        };
        if pairs.len() > 64 {
            return err(
                format!("{p}.src_addrs"),
                format!("{} subflows; at most 64 are allowed", pairs.len()),
            );
        }
        for &(s, d) in &pairs {
            if net.addrs[s.idx()].node == net.addrs[d.idx()].node {
                return err(format!("{p}.dst_addrs"), "source and destination are on the same node");
            }
        }
        let initial_subflows = pairs.len();
        let mut pairs = pairs;
        let events = resolve_subflow_events(&p, m, &net, &addr_names, &srcs, &dsts, &mut pairs)?;
        let (mut params, cc) = resolve_tcp(&p, &m.tcp, &m.cc, true)?;
        check_slow_start(&format!("{p}.slow_start"), &m.slow_start)?;
        if m.slow_start != SlowStartConfig::Standard {
            let kind = match m.slow_start {
                SlowStartConfig::Lisa { .. } => "lisa",
                SlowStartConfig::Css { .. } => "css",
                SlowStartConfig::Gsam { .. } => "gsam",
                SlowStartConfig::Standard => "standard",
            };
            let only_standard = |field: &str, name: &str| {
                err(
                    format!("{p}.tcp.{field}"),
                    format!("{name} runs with the standard slow start only, not with slow_start type '{kind}'"),
                )
            };
            if params.hystart.is_some() {
                return only_standard("hystart", "HyStart++");
            }
            if matches!(m.tcp.hystart_linux, Some(HyStartLinuxOption::On(_))) {
                return only_standard("hystart_linux", "Linux HyStart");
            }
            // The profile's HyStart (CUBIC subflows) yields to the coupled strategy.
            params.hystart_linux = None;
        }
        let rcv_buffer = m.rcv_buffer_bytes.unwrap_or(64 << 20);
        if rcv_buffer < params.mss as u64 {
            return err(
                format!("{p}.rcv_buffer_bytes"),
                format!("must be at least one MSS ({} bytes), got {rcv_buffer}", params.mss),
            );
        }
        let index = connections.len() as u32;
        let subflows: Vec<Subflow> = pairs
            .iter()
            .enumerate()
            .map(|(r, &(s, d))| {
                let sport = 30_000u16.wrapping_add((i * 64 + r) as u16);
                new_subflow(&mut endpoints, index, r, s, d, sport, &params, m.trace)
            })
            .collect();
        let mut conn = Connection::new(
            m.name.clone(),
            index,
            params.clone(),
            true,
            subflows,
            cc,
            m.slow_start.build(
                params.slow_start,
                EarlyExit::of(params.hystart, params.hystart_linux),
                pairs.len(),
            ),
            m.scheduler,
            SimTime(m.start_ns),
            SimDuration(m.join_delay_ns),
            m.size_bytes,
            rcv_buffer,
        );
        conn.set_subflow_events(initial_subflows, events);
        connections.push(conn);
    }

    let mut sampled = None;
    let mut traced = Vec::new();
    for (i, name) in cfg.trace.queue_links.iter().enumerate() {
        traced.push(LinkId(link_names.get(
            &format!("trace.queue_links[{i}]"),
            "link",
            name,
        )?));
    }
    match cfg.trace.queue_sample_interval_ns {
        Some(0) => return err("trace.queue_sample_interval_ns", "must be positive, got 0"),
        // Sampling nothing would only cost events.
        Some(_) if traced.is_empty() => {}
        Some(ns) => {
            sampled = Some(SampledTraces {
                interval: SimDuration(ns),
                traces: traced.iter().map(|&l| (l, QueueTrace::default())).collect(),
            })
        }
        None => {
            for l in traced {
                net.links[l.idx()].traced_on_change = true;
            }
        }
    }

    // A flow of a sequence is named `name#k`: watching `name` waits for all of them.
    let mut watched_remaining = 0;
    for (i, name) in cfg.stop_when_complete.iter().enumerate() {
        let mut found = false;
        for c in connections.iter_mut() {
            let base = c.name.split_once('#').map_or(c.name.as_str(), |(b, _)| b);
            if c.name == *name || base == name {
                found = true;
                if !c.watched {
                    c.watched = true;
                    watched_remaining += 1;
                }
            }
        }
        if !found {
            let known: Vec<&str> = cfg
                .tcp_flows
                .iter()
                .map(|f| f.name.as_str())
                .chain(cfg.mptcp_connections.iter().map(|m| m.name.as_str()))
                .collect();
            return err(
                format!("stop_when_complete[{i}]"),
                format!(
                    "unknown flow or connection '{name}' (known: {})",
                    if known.is_empty() {
                        "none".to_string()
                    } else {
                        known.join(", ")
                    }
                ),
            );
        }
    }

    let mut sim = Simulator {
        ctx: SimContext {
            watch: !cfg.stop_when_complete.is_empty(),
            watched_remaining,
            ..SimContext::default()
        },
        net,
        seed,
        stop_time: SimTime(cfg.stop_time_ns),
        endpoints,
        udp_sources,
        udp_sinks,
        connections,
        link_changes,
        sampled,
        events_processed: 0,
        stopped_by_limit: false,
        max_events: cfg.limits.max_events(),
        max_trace_rows: cfg.limits.max_trace_rows(),
    };
    for (key, limit) in [
        ("max_events", cfg.limits.max_events),
        ("max_trace_rows", cfg.limits.max_trace_rows),
    ] {
        if limit == Some(0) {
            return err(format!("limits.{key}"), "must be at least 1, got 0");
        }
    }
    crate::limits::check(cfg, &crate::limits::estimate(cfg, &sim))?;
    sim.prime();
    Ok(sim)
}
