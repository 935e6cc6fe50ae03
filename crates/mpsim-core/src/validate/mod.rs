//! Validation of a [`ScenarioConfig`]: one walk over the whole configuration
//! that collects every problem (path, value, what is allowed) before any
//! component is built. [`crate::build`] runs after it and has no error path.

use std::collections::HashMap;

use crate::config::*;
use crate::error::{ConfigError, ConfigErrors, Problems};
use crate::ids::AddrId;
use crate::slowstart::hystart_linux::HyStartLinuxOption;
use crate::slowstart::SsFactory;
use crate::time::SimTime;
use crate::transport::mptcp::{SubflowEvent, SubflowEventOutcome};

mod components;
mod reach;
pub(crate) use components::check_loss;
use components::{check_positive_rate, check_queue, check_throughput, check_trace, check_udp_pattern};
pub(crate) use reach::check_routes;

/// The largest window TCP can advertise: 65 535 shifted by the largest
/// window scale, 14 (RFC 7323 §2.3).
const MAX_SCALED_WINDOW_BYTES: u64 = 65_535 << 14;

/// Every problem of `cfg`, or `Ok` when it can be built.
pub fn validate(cfg: &ScenarioConfig) -> Result<(), ConfigErrors> {
    let mut p = Problems::default();
    check_scenario(cfg, &mut p);
    p.finish()
}

/// Name → index for one kind of component.
pub(crate) struct Names(HashMap<String, u32>);

impl Names {
    /// The index of each name; empty and duplicate names are problems (a
    /// duplicate keeps its first index).
    pub(crate) fn new<'a>(kind: &str, names: impl Iterator<Item = &'a String>, p: &mut Problems) -> Names {
        let mut map = HashMap::new();
        for (i, name) in names.enumerate() {
            if name.is_empty() {
                p.say(
                    format!("{kind}[{i}].name"),
                    "''",
                    "a non-empty name",
                    "must not be empty",
                );
            } else if map.contains_key(name) {
                p.say(
                    format!("{kind}[{i}].name"),
                    name,
                    "a name not used before",
                    format!("duplicate name '{name}'"),
                );
            } else {
                map.insert(name.clone(), i as u32);
            }
        }
        Names(map)
    }

    /// The index of a name validation has checked.
    pub(crate) fn id(&self, name: &str) -> u32 {
        self.0[name]
    }

    /// The index of `name`, or a problem at `path` listing the known names.
    pub(crate) fn find(&self, path: &str, what: &str, name: &str, p: &mut Problems) -> Option<u32> {
        let found = self.0.get(name).copied();
        if found.is_none() {
            let mut known: Vec<&str> = self.0.keys().map(|s| s.as_str()).collect();
            known.sort_unstable();
            let shown = known.iter().take(12).copied().collect::<Vec<_>>().join(", ");
            let more = if known.len() > 12 { ", ..." } else { "" };
            let allowed = format!("known: {shown}{more}");
            let hint = did_you_mean(name, &known);
            p.say(
                path,
                name,
                allowed.clone(),
                format!("unknown {what} '{name}'{hint} ({allowed})"),
            );
        }
        found
    }
}

/// `; did you mean 'x'?` for the known name closest to `name` (at most a
/// third of its characters edited), else nothing.
fn did_you_mean(name: &str, known: &[&str]) -> String {
    let limit = name.chars().count() / 3;
    known
        .iter()
        .map(|k| (edit_distance(name, k), *k))
        .filter(|&(d, _)| d <= limit)
        .min()
        .map_or(String::new(), |(_, k)| format!("; did you mean '{k}'?"))
}

/// Levenshtein distance in characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let next = (row[j + 1] + 1).min(row[j] + 1).min(diagonal + usize::from(ca != cb));
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// The addresses of a scenario: those listed, then one per node that has
/// none, named after the node (the builder makes the same list).
pub(crate) fn address_configs(cfg: &ScenarioConfig) -> Vec<AddressConfig> {
    let mut out = cfg.addresses.clone();
    for n in &cfg.nodes {
        if !cfg.addresses.iter().any(|a| a.node == n.name) {
            out.push(AddressConfig {
                name: n.name.clone(),
                node: n.name.clone(),
                out_link: None,
                in_link: None,
            });
        }
    }
    out
}

fn check_scenario(cfg: &ScenarioConfig, p: &mut Problems) {
    if cfg.nodes.is_empty() {
        p.say("nodes", "[]", "at least one node", "at least one node is needed");
    }
    let nodes = Names::new("nodes", cfg.nodes.iter().map(|n| &n.name), p);
    let links = Names::new("links", cfg.links.iter().map(|l| &l.name), p);
    // Each link's ends, where both are known.
    let mut ends: Vec<Option<(u32, u32)>> = Vec::with_capacity(cfg.links.len());
    for (i, l) in cfg.links.iter().enumerate() {
        let path = format!("links[{i}]");
        let from = nodes.find(&format!("{path}.from"), "node", &l.from, p);
        let to = nodes.find(&format!("{path}.to"), "node", &l.to, p);
        if from.is_some() && from == to {
            p.say(
                format!("{path}.to"),
                &l.to,
                "a node other than 'from'",
                format!("a link must join two different nodes, got '{}' twice", l.to),
            );
        }
        check_positive_rate(&format!("{path}.rate_bps"), l.rate_bps, p);
        if l.jitter_ns == Some(0) {
            p.out_of(format!("{path}.jitter_ns"), 0, "at least 1 ns (or none: no jitter)");
        }
        if l.txtime_rate_bps == Some(0) {
            p.out_of(
                format!("{path}.txtime_rate_bps"),
                0,
                "at least 1 bit/s (or none: no hold)",
            );
        }
        if l.rate_limiter && l.burst_bytes.is_none() {
            p.say(
                format!("{path}.rate_limiter"),
                true,
                "false on a link without a token bucket",
                "a rate limiter is a token bucket's: give the link a burst_bytes",
            );
        }
        if l.burst_bytes == Some(0) {
            p.out_of(
                format!("{path}.burst_bytes"),
                0,
                "at least 1 byte (or none: no token bucket)",
            );
        }
        if let Some(t) = &l.trace {
            check_trace(&format!("{path}.trace"), t, p);
            if let Some(b) = l.burst_bytes {
                p.say(
                    format!("{path}.burst_bytes"),
                    b,
                    "none on a link that follows a trace",
                    "a link follows either a trace or a token bucket, not both",
                );
            }
        }
        check_queue(&format!("{path}.queue"), &l.queue, p);
        check_loss(&format!("{path}.loss"), &l.loss, p);
        if l.weight == 0 {
            p.out_of(format!("{path}.weight"), 0, "at least 1");
        }
        ends.push(from.zip(to));
    }

    let addr_cfgs = address_configs(cfg);
    let addrs = Names::new("addresses", addr_cfgs.iter().map(|a| &a.name), p);
    // Each address's node, where it is known.
    let mut addr_node: Vec<Option<u32>> = Vec::with_capacity(addr_cfgs.len());
    for (i, a) in addr_cfgs.iter().enumerate() {
        let path = format!("addresses[{i}]");
        let node = nodes.find(&format!("{path}.node"), "node", &a.node, p);
        addr_node.push(node);
        for (key, name, at_start) in [("out_link", &a.out_link, true), ("in_link", &a.in_link, false)] {
            let Some(name) = name else { continue };
            let Some(l) = links.find(&format!("{path}.{key}"), "link", name, p) else {
                continue;
            };
            if let (Some(node), Some((from, to))) = (node, ends[l as usize]) {
                if (if at_start { from } else { to }) != node {
                    let side = if at_start { "start" } else { "end" };
                    p.say(
                        format!("{path}.{key}"),
                        name,
                        format!("a link that {side}s at node '{}'", a.node),
                        format!("link '{name}' does not {side} at node '{}'", a.node),
                    );
                }
            }
        }
    }
    let node_of = |a: u32| addr_node[a as usize];

    for (i, r) in cfg.routes.iter().enumerate() {
        let path = format!("routes[{i}]");
        let node = nodes.find(&format!("{path}.node"), "node", &r.node, p);
        addrs.find(&format!("{path}.dst"), "address", &r.dst, p);
        if r.via.is_empty() {
            p.say(
                format!("{path}.via"),
                "[]",
                "at least one link",
                "needs at least one next-hop link",
            );
        }
        for (j, name) in r.via.iter().enumerate() {
            let Some(l) = links.find(&format!("{path}.via[{j}]"), "link", name, p) else {
                continue;
            };
            if let (Some(node), Some((from, _))) = (node, ends[l as usize]) {
                if from != node {
                    p.say(
                        format!("{path}.via[{j}]"),
                        name,
                        format!("a link that starts at node '{}'", r.node),
                        format!("link '{name}' does not start at node '{}'", r.node),
                    );
                }
            }
        }
    }

    for (i, c) in cfg.link_changes.iter().enumerate() {
        let path = format!("link_changes[{i}]");
        let changed = links.find(&format!("{path}.link"), "link", &c.link, p);
        if let Some(r) = c.rate_bps {
            check_positive_rate(&format!("{path}.rate_bps"), r, p);
            if changed.is_some_and(|k| cfg.links[k as usize].trace.is_some()) {
                p.say(
                    format!("{path}.rate_bps"),
                    r,
                    "no rate change on a link that follows a trace",
                    format!("link '{}' follows a delivery trace: its trace sets its rate", c.link),
                );
            }
        }
        if let Some(l) = &c.loss {
            check_loss(&format!("{path}.loss"), l, p);
        }
    }

    // Source and destination of a flow: known, and on two different nodes.
    let two_ends = |path: &str, src: &str, dst: &str, p: &mut Problems| {
        let s = addrs.find(&format!("{path}.src"), "address", src, p);
        let d = addrs.find(&format!("{path}.dst"), "address", dst, p);
        if let (Some(s), Some(d)) = (s, d) {
            if node_of(s).is_some() && node_of(s) == node_of(d) {
                p.say(
                    format!("{path}.dst"),
                    dst,
                    "an address on another node than src",
                    "source and destination are on the same node",
                );
            }
        }
    };

    Names::new("udp_flows", cfg.udp_flows.iter().map(|f| &f.name), p);
    for (i, f) in cfg.udp_flows.iter().enumerate() {
        let path = format!("udp_flows[{i}]");
        two_ends(&path, &f.src, &f.dst, p);
        if f.packet_size_bytes == 0 {
            p.out_of(format!("{path}.packet_size_bytes"), 0, "at least 1 byte");
        }
        if let Some(stop) = f.stop_ns.filter(|&s| s <= f.start_ns) {
            p.say(
                format!("{path}.stop_ns"),
                stop,
                format!("later than start_ns ({})", f.start_ns),
                format!("must be later than start_ns ({})", f.start_ns),
            );
        }
        check_udp_pattern(&format!("{path}.pattern"), &f.pattern, p);
    }

    Names::new("tcp_flows", cfg.tcp_flows.iter().map(|f| &f.name), p);
    for (i, f) in cfg.tcp_flows.iter().enumerate() {
        let path = format!("tcp_flows[{i}]");
        two_ends(&path, &f.src, &f.dst, p);
        if f.size_bytes == Some(0) {
            p.say(
                format!("{path}.size_bytes"),
                0,
                "at least 1 byte",
                "must be at least 1 byte (leave it out for a flow without end)",
            );
        }
        check_tcp(&path, &f.tcp, &f.cc, p);
        if let Some(c) = &f.coding {
            c.validate(&format!("{path}.coding"), p);
        }
        if let Some(seq) = &f.sequence {
            if seq.count == 0 {
                p.out_of(format!("{path}.sequence.count"), 0, "at least 1");
            }
            if f.size_bytes.is_none() {
                p.say(
                    format!("{path}.size_bytes"),
                    "null",
                    "a finite size",
                    "a flow sequence needs flows of finite size",
                );
            }
        }
    }

    Names::new("mptcp_connections", cfg.mptcp_connections.iter().map(|f| &f.name), p);
    for (i, m) in cfg.mptcp_connections.iter().enumerate() {
        let path = format!("mptcp_connections[{i}]");
        check_mptcp(&path, m, cfg, &addrs, &addr_cfgs, &node_of, p);
    }

    for (i, name) in cfg.trace.queue_links.iter().enumerate() {
        links.find(&format!("trace.queue_links[{i}]"), "link", name, p);
    }
    if cfg.trace.queue_sample_interval_ns == Some(0) {
        p.out_of("trace.queue_sample_interval_ns", 0, "positive");
    }

    if let Some(t) = &cfg.throughput {
        check_throughput(t, cfg.stop_time_ns, p);
    }

    // A flow of a sequence is named `name#k`: `name` stands for all of them.
    let known: Vec<&str> = cfg
        .tcp_flows
        .iter()
        .map(|f| f.name.as_str())
        .chain(cfg.mptcp_connections.iter().map(|m| m.name.as_str()))
        .collect();
    let named = cfg
        .stop_when_complete
        .iter()
        .enumerate()
        .map(|(i, name)| (format!("stop_when_complete[{i}]"), name))
        .chain((cfg.trace.segments.iter().enumerate()).map(|(i, name)| (format!("trace.segments[{i}]"), name)));
    for (path, name) in named {
        if !known.contains(&name.as_str()) {
            let allowed = format!(
                "known: {}",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            );
            p.say(
                path,
                name,
                allowed.clone(),
                format!("unknown flow or connection '{name}' ({allowed})"),
            );
        }
    }
    for (key, limit) in [
        ("max_events", cfg.limits.max_events),
        ("max_trace_rows", cfg.limits.max_trace_rows),
    ] {
        if limit == Some(0) {
            p.out_of(format!("limits.{key}"), 0, "at least 1");
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn check_mptcp(
    path: &str,
    m: &MptcpConnectionConfig,
    cfg: &ScenarioConfig,
    addrs: &Names,
    addr_cfgs: &[AddressConfig],
    node_of: &dyn Fn(u32) -> Option<u32>,
    p: &mut Problems,
) {
    if cfg.tcp_flows.iter().any(|f| f.name == m.name) {
        p.say(
            format!("{path}.name"),
            &m.name,
            "a name no TCP flow has",
            format!("'{}' is also the name of a TCP flow", m.name),
        );
    }
    let resolve = |key: &str, list: &[String], p: &mut Problems| -> Option<Vec<AddrId>> {
        if list.is_empty() {
            p.say(
                format!("{path}.{key}"),
                "[]",
                "at least one address",
                "needs at least one address",
            );
        }
        let found: Vec<Option<u32>> = list
            .iter()
            .enumerate()
            .map(|(j, a)| addrs.find(&format!("{path}.{key}[{j}]"), "address", a, p))
            .collect();
        found.into_iter().map(|a| a.map(AddrId)).collect()
    };
    let srcs = resolve("src_addrs", &m.src_addrs, p);
    let dsts = resolve("dst_addrs", &m.dst_addrs, p);
    if m.size_bytes == Some(0) {
        p.say(
            format!("{path}.size_bytes"),
            0,
            "at least 1 byte",
            "must be at least 1 byte (leave it out for a connection without end)",
        );
    }
    if let PathManager::Ndiffports { subflows } = m.path_manager {
        if subflows == 0 || subflows > 64 {
            p.out_of(format!("{path}.path_manager.subflows"), subflows, "1 to 64");
        }
    }
    if let PathManager::Kernel {
        subflows,
        add_addr_accepted,
    } = m.path_manager
    {
        // `ip mptcp limits` takes 0 to MPTCP_PM_ADDR_MAX (8) for each.
        if subflows > 8 {
            p.out_of(format!("{path}.path_manager.subflows"), subflows, "0 to 8");
        }
        if add_addr_accepted > 8 {
            p.out_of(
                format!("{path}.path_manager.add_addr_accepted"),
                add_addr_accepted,
                "0 to 8",
            );
        }
    }
    check_tcp(path, &m.tcp, &m.cc, p);
    for (src, c) in &m.coding {
        if !m.src_addrs.contains(src) {
            p.out_of(
                format!("{path}.coding"),
                src,
                format!("one of src_addrs: {}", m.src_addrs.join(", ")),
            );
        }
        c.validate(&format!("{path}.coding.{src}"), p);
    }
    m.slow_start.validate(&format!("{path}.slow_start"), p);
    if let Some(plugin) = &m.scheduler_plugin {
        plugin.check(&format!("{path}.scheduler_plugin"), p);
    }
    if !m.slow_start.is_standard() && matches!(m.cc, Some(CcConfig::Bbr { .. })) {
        p.say(
            format!("{path}.slow_start"),
            m.slow_start.name(),
            "standard with cc 'bbr'",
            "BBR sets its own window from the start (STARTUP): no slow-start strategy runs with it",
        );
    }
    if !m.slow_start.is_standard() {
        let kind = m.slow_start.name();
        let mut only_standard = |field: &str, name: &str| {
            p.say(
                format!("{path}.tcp.{field}"),
                "set",
                "the standard slow start",
                format!("{name} runs with the standard slow start only, not with slow_start type '{kind}'"),
            )
        };
        if m.tcp.hystart.is_some() {
            only_standard("hystart", "HyStart++");
        }
        if matches!(m.tcp.hystart_linux, Some(HyStartLinuxOption::On(_))) {
            only_standard("hystart_linux", "Linux HyStart");
        }
    }
    let mss = m.tcp.mss.unwrap_or(m.tcp.profile.params().mss);
    if let Some(b) = m.rcv_buffer_bytes.filter(|&b| b < mss as u64) {
        p.out_of(
            format!("{path}.rcv_buffer_bytes"),
            b,
            format!("at least one MSS ({mss} bytes)"),
        );
    }
    let (Some(srcs), Some(dsts)) = (srcs, dsts) else { return };
    if srcs.is_empty() || dsts.is_empty() || m.path_manager == (PathManager::Ndiffports { subflows: 0 }) {
        return;
    }
    let mut pairs = initial_pairs(m, &srcs, &dsts);
    if pairs.len() > 64 {
        p.out_of(
            format!("{path}.src_addrs"),
            format!("{} subflows", pairs.len()),
            "at most 64 subflows",
        );
        return;
    }
    if pairs
        .iter()
        .any(|&(s, d)| node_of(s.0).is_some() && node_of(s.0) == node_of(d.0))
    {
        p.say(
            format!("{path}.dst_addrs"),
            m.dst_addrs.join(", "),
            "addresses on another node than src_addrs",
            "source and destination are on the same node",
        );
    }
    // The subflow events: each address known and on its end's node, then the timeline.
    let node_name = |a: AddrId| &addr_cfgs[a.idx()].node;
    let mut resolved = Vec::with_capacity(m.subflow_events.len());
    for (j, e) in m.subflow_events.iter().enumerate() {
        let pe = format!("{path}.subflow_events[{j}]");
        if e.at_ns < m.start_ns {
            p.say(
                format!("{pe}.at_ns"),
                e.at_ns,
                format!("at or after start_ns ({})", m.start_ns),
                format!(
                    "must not be before the connection's start_ns ({}), got {}",
                    m.start_ns, e.at_ns
                ),
            );
        }
        let end = |key: &str, name: &str, of: AddrId, side: &str, p: &mut Problems| {
            let a = AddrId(addrs.find(&format!("{pe}.{key}"), "address", name, p)?);
            if node_name(a) != node_name(of) {
                p.say(
                    format!("{pe}.{key}"),
                    name,
                    format!("an address of node '{}'", node_name(of)),
                    format!(
                        "address '{name}' is on node '{}', not on the connection's {side} node '{}'",
                        node_name(a),
                        node_name(of)
                    ),
                );
                return None;
            }
            Some(a)
        };
        let src = end("src", &e.src, srcs[0], "sending", p);
        let dst = end("dst", &e.dst, dsts[0], "receiving", p);
        if e.action == SubflowAction::Add && e.index.is_some() {
            p.say(
                format!("{pe}.index"),
                e.index.unwrap_or_default(),
                "no index with add",
                "only a remove picks a subflow by index",
            );
        }
        resolved.push(src.zip(dst));
    }
    if let Some(resolved) = resolved.into_iter().collect::<Option<Vec<_>>>() {
        let addr_name = |a: AddrId| addr_cfgs[a.idx()].name.as_str();
        if let Err(e) = subflow_timeline(path, m, &resolved, &addr_name, &mut pairs) {
            p.push(e);
        }
    }
}

/// The address pairs the path manager opens.
pub(crate) fn initial_pairs(m: &MptcpConnectionConfig, srcs: &[AddrId], dsts: &[AddrId]) -> Vec<(AddrId, AddrId)> {
    m.path_manager.subflows_of(srcs, dsts, m.initiator)
}

/// An MPTCP connection's subflow events in time order (ties in
/// configuration order), each resolved to the subflow it adds or removes.
/// Added subflows are appended to `pairs`, so every subflow exists from the
/// build on and per-subflow state is sized once. A `remove` must name a
/// subflow that exists at its time: opened by the path manager or by an
/// earlier `add`, and not removed before. `resolved` holds each event's
/// (source, destination) in configuration order.
pub(crate) fn subflow_timeline<'a>(
    path: &str,
    m: &MptcpConnectionConfig,
    resolved: &[(AddrId, AddrId)],
    addr_name: &dyn Fn(AddrId) -> &'a str,
    pairs: &mut Vec<(AddrId, AddrId)>,
) -> Result<Vec<SubflowEvent>, ConfigError> {
    let mut order: Vec<usize> = (0..m.subflow_events.len()).collect();
    order.sort_by_key(|&j| m.subflow_events[j].at_ns);
    let mut live = vec![true; pairs.len()];
    let mut events = Vec::with_capacity(order.len());
    for j in order {
        let e = &m.subflow_events[j];
        let pe = format!("{path}.subflow_events[{j}]");
        let (src, dst) = resolved[j];
        let (from, to, at) = (addr_name(src), addr_name(dst), e.at_ns);
        let subflow = match e.action {
            SubflowAction::Add => {
                pairs.push((src, dst));
                live.push(true);
                if pairs.len() > 64 {
                    return Err(ConfigError::with(
                        pe,
                        format!("subflow {}", pairs.len()),
                        "at most 64 subflows",
                        format!("opens subflow {}; at most 64 are allowed", pairs.len()),
                    ));
                }
                pairs.len() - 1
            }
            SubflowAction::Remove => {
                let existing: Vec<usize> = (0..pairs.len())
                    .filter(|&r| live[r] && pairs[r] == (src, dst))
                    .collect();
                let allowed = format!("one of the subflows {existing:?}");
                let r = match (e.index, existing.len()) {
                    (Some(i), _) if existing.contains(&(i as usize)) => i as usize,
                    (Some(i), _) => {
                        return Err(ConfigError::with(
                            format!("{pe}.index"),
                            i,
                            allowed,
                            format!("no subflow {i} from '{from}' to '{to}' exists at {at} ns (existing: {existing:?})"),
                        ))
                    }
                    (None, 1) => existing[0],
                    (None, 0) => {
                        return Err(ConfigError::with(
                            pe,
                            format!("remove at {at} ns"),
                            "a subflow that exists at that time",
                            format!("no subflow from '{from}' to '{to}' exists at {at} ns to remove"),
                        ))
                    }
                    (None, n) => {
                        return Err(ConfigError::with(
                            format!("{pe}.index"),
                            "null",
                            allowed,
                            format!(
                                "{n} subflows from '{from}' to '{to}' exist at {at} ns (indices {existing:?}); give index to pick one"
                            ),
                        ))
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

/// A flow's TCP options and congestion control.
pub(crate) fn check_tcp(flow: &str, f: &TcpOptions, cc: &Option<CcConfig>, p: &mut Problems) {
    let t = f.profile.params();
    let path = &format!("{flow}.tcp");
    if let Some(mss) = f.mss {
        // RFC 9293 §3.2: the MSS option carries 16 bits.
        if !(64..=65_535).contains(&mss) {
            p.out_of(format!("{path}.mss"), mss, "64 to 65535 bytes");
        }
    }
    let mss = f.mss.unwrap_or(t.mss);
    if let Some(b) = f.framing_bytes.filter(|&b| b > 1_000) {
        p.out_of(format!("{path}.framing_bytes"), b, "at most 1000 bytes");
    }
    if f.initial_cwnd_segments == Some(0) {
        p.out_of(format!("{path}.initial_cwnd_segments"), 0, "at least 1 segment");
    }
    if let Some(s) = f.initial_ssthresh_bytes.filter(|&s| s < 2 * mss as u64) {
        p.out_of(
            format!("{path}.initial_ssthresh_bytes"),
            s,
            format!("at least 2 MSS ({} bytes)", 2 * mss),
        );
    }
    if f.delack_segments == Some(0) {
        p.out_of(format!("{path}.delack_segments"), 0, "at least 1");
    }
    for (key, ns) in [
        ("delack_timeout_ns", f.delack_timeout_ns),
        ("min_rto_ns", f.min_rto_ns),
        ("initial_rto_ns", f.initial_rto_ns),
    ] {
        if ns == Some(0) {
            p.out_of(format!("{path}.{key}"), 0, "positive");
        }
    }
    if let Some(b) = f.rwnd_bytes.filter(|&b| b < mss as u64) {
        p.out_of(
            format!("{path}.rwnd_bytes"),
            b,
            format!("at least one MSS ({mss} bytes)"),
        );
    }
    if let Some(b) = f
        .receive_window_bytes
        .filter(|&b| b < mss as u64 || b > MAX_SCALED_WINDOW_BYTES)
    {
        p.out_of(
            format!("{path}.receive_window_bytes"),
            b,
            format!(
                "at least one MSS ({mss} bytes) and at most {MAX_SCALED_WINDOW_BYTES} \
                 (the 16-bit window scaled by 2^14, RFC 7323 §2.3)"
            ),
        );
    }
    if let Some(b) = f.send_buffer_bytes.filter(|&b| b != 0 && b < mss as u64) {
        p.out_of(
            format!("{path}.send_buffer_bytes"),
            b,
            format!("0 (no limit) or at least one MSS ({mss} bytes)"),
        );
    }
    if let Some(h) = &f.hystart {
        h.validate(&format!("{path}.hystart"), p);
    }
    if let Some(HyStartLinuxOption::On(h)) = &f.hystart_linux {
        let hpath = format!("{path}.hystart_linux");
        if f.hystart.is_some() {
            p.say(
                hpath.clone(),
                "set",
                "one of hystart_linux and hystart",
                "Linux HyStart (hystart_linux) and HyStart++ (hystart) both end slow start early: \
                 turn one of them off",
            );
        }
        h.validate(&hpath, p);
    }
    if let Some(cc) = cc {
        cc.validate(&format!("{flow}.cc"), p);
        if matches!(cc, CcConfig::Bbr { .. }) {
            check_bbr(flow, f, p);
        }
    }
}

/// BBR is Linux 6.18's (`tcp_bbr.c`): it runs under the `linux` profile
/// only, and it has no slow start for HyStart to end.
fn check_bbr(flow: &str, f: &TcpOptions, p: &mut Problems) {
    if f.profile != Profile::Linux {
        // The name a scenario gives the profile.
        let name = serde_json::to_value(f.profile)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        p.say(
            format!("{flow}.tcp.profile"),
            &name,
            "linux",
            format!("cc 'bbr' is BBR v1 as Linux 6.18 runs it, modelled under the linux profile only, not '{name}'"),
        );
    }
    let path = format!("{flow}.tcp");
    if f.hystart.is_some() {
        p.say(
            format!("{path}.hystart"),
            "set",
            "unset with cc 'bbr'",
            "BBR has no slow start for HyStart++ to end",
        );
    }
    if matches!(f.hystart_linux, Some(HyStartLinuxOption::On(_))) {
        p.say(
            format!("{path}.hystart_linux"),
            "set",
            "unset or off with cc 'bbr'",
            "BBR has no slow start for Linux HyStart to end",
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each problem's path, value and what is allowed.
    fn path_value_allowed(e: &ConfigErrors) -> Vec<(&str, &str, &str)> {
        e.iter()
            .map(|p| (p.path.as_str(), p.value.as_str(), p.allowed.as_str()))
            .collect()
    }

    /// Three problems in three places: all three come back, in the order of
    /// the configuration, each with its path, value and what is allowed.
    #[test]
    fn every_problem_is_reported_with_its_path() {
        let cfg = ScenarioConfig::from_json(
            r#"{"stop_time_ns": 1000000000,
                "nodes": [{"name": "a"}, {"name": "b"}],
                "links": [{"name": "ab", "from": "a", "to": "b", "rate_bps": 0, "delay_ns": 1000}],
                "tcp_flows": [{"name": "f", "src": "a", "dst": "c", "tcp": {"mss": 20}}]}"#,
        )
        .unwrap();
        let e = validate(&cfg).unwrap_err();
        let found = path_value_allowed(&e);
        assert_eq!(
            found,
            [
                ("links[0].rate_bps", "0", "a positive rate in bit/s"),
                ("tcp_flows[0].dst", "c", "known: a, b"),
                ("tcp_flows[0].tcp.mss", "20", "64 to 65535 bytes"),
            ]
        );
        assert_eq!(e[2].message, "must be 64 to 65535 bytes, got 20");
        assert_eq!(e[1].message, "unknown address 'c' (known: a, b)");
        assert_eq!(e.to_string().lines().count(), 3);
    }

    /// The problems of a network of two nodes and a link each way, `ab`
    /// and `ba`, with `ab` and `ba` added to their links and `rest` to the
    /// scenario.
    fn two_links_problems(ab: &str, ba: &str, rest: &str) -> ConfigErrors {
        let link = |name: &str, from: &str, to: &str, extra: &str| {
            format!(
                r#"{{"name": "{name}", "from": "{from}", "to": "{to}", "rate_bps": 1000, "delay_ns": 1000, {extra}}}"#
            )
        };
        let json = format!(
            r#"{{"stop_time_ns": 1000000000, "nodes": [{{"name": "a"}}, {{"name": "b"}}],
                "links": [{}, {}]{rest}}}"#,
            link("ab", "a", "b", ab),
            link("ba", "b", "a", ba)
        );
        validate(&ScenarioConfig::from_json(&json).unwrap()).unwrap_err()
    }

    /// A trace out of order, one with a zero period and a rate change on a
    /// link that follows a trace are each named with the field at fault.
    #[test]
    fn a_bad_delivery_trace_is_named() {
        let e = two_links_problems(
            r#""trace": {"opportunities_ms": [1, 3, 2, 4]}"#,
            r#""trace": {"opportunities_ms": [0, 0], "bytes_per_opportunity": 0}, "burst_bytes": 3000"#,
            r#", "link_changes": [{"at_ns": 5, "link": "ab", "rate_bps": 2000}]"#,
        );
        let found = path_value_allowed(&e);
        assert_eq!(
            found,
            [
                (
                    "links[0].trace.opportunities_ms[2]",
                    "2",
                    "at least 3 (the times never decrease)"
                ),
                (
                    "links[1].trace.opportunities_ms[1]",
                    "0",
                    "a positive last time (the trace's period, in ms)"
                ),
                ("links[1].trace.bytes_per_opportunity", "0", "at least 1 byte"),
                ("links[1].burst_bytes", "3000", "none on a link that follows a trace"),
                (
                    "link_changes[0].rate_bps",
                    "2000",
                    "no rate change on a link that follows a trace"
                ),
            ]
        );
        assert_eq!(
            e[0].message,
            "delivery opportunities must be in time order: 2 ms follows 3 ms"
        );
    }

    /// A delay line's hold at no rate, and a rate limiter on a link without
    /// a token bucket, are each named with the field at fault.
    #[test]
    fn a_bad_hold_or_rate_limiter_is_named() {
        let e = two_links_problems(r#""txtime_rate_bps": 0"#, r#""rate_limiter": true"#, "");
        assert_eq!(
            path_value_allowed(&e),
            [
                ("links[0].txtime_rate_bps", "0", "at least 1 bit/s (or none: no hold)"),
                (
                    "links[1].rate_limiter",
                    "true",
                    "false on a link without a token bucket"
                ),
            ]
        );
        assert!(e[1].message.contains("burst_bytes"), "{}", e[1].message);
    }

    #[test]
    fn a_near_miss_gets_a_suggestion() {
        assert_eq!(did_you_mean("R1-R3", &["R1-R2", "R2-R1"]), "; did you mean 'R1-R2'?");
        assert_eq!(did_you_mean("lnk", &["link", "other"]), "; did you mean 'link'?");
        assert_eq!(did_you_mean("zzz", &["link"]), "");
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    /// A problem that hides another (an unknown address) does not stop the
    /// walk: the other flows are still checked.
    #[test]
    fn an_unknown_name_does_not_stop_the_walk() {
        let cfg = ScenarioConfig::from_json(
            r#"{"stop_time_ns": 1000000000,
                "nodes": [{"name": "a"}, {"name": "b"}],
                "links": [],
                "mptcp_connections": [{"name": "m", "src_addrs": ["x"], "dst_addrs": ["b"],
                                       "cc": {"type": "mpcubic", "k": 9}}],
                "trace": {"queue_links": ["nowhere"]}}"#,
        )
        .unwrap();
        let e = validate(&cfg).unwrap_err();
        let paths: Vec<&str> = e.iter().map(|p| p.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "mptcp_connections[0].src_addrs[0]",
                "mptcp_connections[0].cc.k",
                "trace.queue_links[0]"
            ]
        );
    }
}
