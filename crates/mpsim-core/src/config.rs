//! The whole description of one run, as it crosses from Python into the core.
//!
//! Quantities carry their unit in the field name (`rate_bps`, `delay_ns`,
//! `limit_pkts`). Components refer to each other by name; [`crate::build`]
//! resolves names to arena indices and reports every unknown name with the
//! path of the field that holds it. The Python front validates first and
//! resolves unit strings; this layer validates again so that nothing invalid
//! can reach the engine whichever way a configuration arrives.

use serde::{Deserialize, Serialize};

pub use crate::cc::CcConfig;
use crate::error::ConfigError;
pub use crate::slowstart::SlowStartConfig;
pub use crate::transport::mptcp::{Initiator, MptcpJoin, MptcpRcvWindow, PathManager, Scheduler, SubflowAction};
pub use crate::transport::tcp::config::{Profile, Recovery};
// Configurations that belong to one component are defined beside it.
pub use crate::net::{LossConfig, QueueConfig, QueueLimit};
pub use crate::traffic::gaps::GapDistribution;
pub use crate::traffic::udp::{PeriodDistribution, UdpPattern};

/// One simulation run.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioConfig {
    /// Master seed; every random stream of the run is derived from it.
    #[serde(default)]
    pub seed: u64,
    /// The run stops at this simulated time (nanoseconds), or earlier when no
    /// event is left.
    pub stop_time_ns: u64,
    pub nodes: Vec<NodeConfig>,
    pub links: Vec<LinkConfig>,
    /// Network addresses. A node with no address listed here gets one named
    /// after the node, bound to no particular interface.
    #[serde(default)]
    pub addresses: Vec<AddressConfig>,
    /// Static routes that replace the computed shortest-path routes for one
    /// (node, destination address) pair.
    #[serde(default)]
    pub routes: Vec<RouteConfig>,
    /// Changes to links at given times (mobility, outages).
    #[serde(default)]
    pub link_changes: Vec<LinkChangeConfig>,
    #[serde(default)]
    pub udp_flows: Vec<UdpFlowConfig>,
    #[serde(default)]
    pub tcp_flows: Vec<TcpFlowConfig>,
    #[serde(default)]
    pub mptcp_connections: Vec<MptcpConnectionConfig>,
    #[serde(default)]
    pub trace: TraceConfig,
    /// Windowed throughput: bytes sent and delivered per flow and subflow
    /// in bins of fixed width (`crate::throughput`); none when left out.
    #[serde(default)]
    pub throughput: Option<ThroughputConfig>,
    /// Names of TCP flows (a sequence counts as a whole) and MPTCP
    /// connections: the run ends as soon as all of them have completed,
    /// even if other traffic (long-lived flows, UDP) would go on until
    /// `stop_time_ns`. Empty: run to `stop_time_ns` or until no event is left.
    #[serde(default)]
    pub stop_when_complete: Vec<String>,
    /// Bounds on the run's cost (`crate::limits`).
    #[serde(default)]
    pub limits: LimitsConfig,
}

/// Bounds on what a run may cost; a run estimated above them is refused,
/// and a run that reaches them stops with an error.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsConfig {
    /// Most events the run may process; [`crate::stop::DEFAULT_MAX_EVENTS`] unless given.
    #[serde(default)]
    pub max_events: Option<u64>,
    /// Most trace rows (queue samples and per-ACK TCP rows) the run may
    /// record; [`crate::stop::DEFAULT_MAX_TRACE_ROWS`] unless given.
    #[serde(default)]
    pub max_trace_rows: Option<u64>,
}

impl LimitsConfig {
    pub fn max_events(&self) -> u64 {
        self.max_events.unwrap_or(crate::stop::DEFAULT_MAX_EVENTS)
    }

    pub fn max_trace_rows(&self) -> u64 {
        self.max_trace_rows.unwrap_or(crate::stop::DEFAULT_MAX_TRACE_ROWS)
    }
}

/// TCP settings of a flow or of an MPTCP connection's subflows. Every field
/// left out takes the profile's value.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TcpOptions {
    /// The stack whose defaults the flow takes: `linux` (6.x), `linux_3_14`
    /// (the kernel of MPTCP v0.89), `ns3` (ns-3.44), `rfc`, or `ns2` (ns-2.35's
    /// `Sack1`); docs/algorithms.md compares them.
    #[serde(default)]
    pub profile: Profile,
    /// Payload bytes per full segment.
    #[serde(default)]
    pub mss: Option<u32>,
    /// Link-layer bytes counted per packet on the wire (ns-3's PPP: 2;
    /// Ethernet: 14, as a veth or NIC frames a 1500-byte IP packet in 1514).
    #[serde(default)]
    pub framing_bytes: Option<u32>,
    /// TCP options NOP-aligned one by one (`aligned`, Linux) or packed and
    /// padded once (`packed`, ns-3): the size of SYNs and SACK-carrying ACKs.
    #[serde(default)]
    pub option_layout: Option<crate::transport::tcp::config::OptionLayout>,
    /// Initial window, segments (RFC 6928).
    #[serde(default)]
    pub initial_cwnd_segments: Option<u32>,
    /// Initial ssthresh in bytes (e.g. 65535 as in the CSS paper's ns-3 runs).
    #[serde(default)]
    pub initial_ssthresh_bytes: Option<u64>,
    /// Loss recovery: `reno` (RFC 5681), `new_reno` (RFC 6582), `sack`
    /// (RFC 6675) or `prr` (RFC 6937); `sack` and `prr` without SACK are
    /// `new_reno` unless `emulate_sack`.
    #[serde(default)]
    pub recovery: Option<Recovery>,
    /// RFC 2018 selective acknowledgements.
    #[serde(default)]
    pub sack: Option<bool>,
    /// RFC 7323 timestamps: 12 more header bytes per segment, and an RTT
    /// sample from every ACK of new data.
    #[serde(default)]
    pub timestamps: Option<bool>,
    /// RFC 3042 limited transmit.
    #[serde(default)]
    pub limited_transmit: Option<bool>,
    /// NewReno: restart the retransmission timer on the first partial ACK
    /// of an episode only (`impatient`, RFC 6582 §4) or on every one.
    #[serde(default)]
    pub partial_ack_rto: Option<crate::transport::tcp::config::PartialAckRto>,
    /// SACK recovery: RFC 6675 NextSeg rule 3.
    #[serde(default)]
    pub sack_rule3: Option<bool>,
    /// SACK recovery: RFC 6675 NextSeg rule 4 (the rescue retransmission).
    #[serde(default)]
    pub sack_rescue: Option<bool>,
    /// RFC 8985 RACK loss detection (with SACK).
    #[serde(default)]
    pub rack: Option<bool>,
    /// RFC 8985 tail loss probe (with SACK).
    #[serde(default)]
    pub tlp: Option<bool>,
    /// The loss probe's timeout: `linux6` (RFC 8985) or `linux3`.
    #[serde(default)]
    pub tlp_pto: Option<crate::transport::tcp::config::TlpPto>,
    /// RFC 5682 F-RTO: undo a spurious retransmission timeout.
    #[serde(default)]
    pub frto: Option<bool>,
    /// RFC 5827 early retransmit.
    #[serde(default)]
    pub early_retransmit: Option<bool>,
    /// Early retransmit held back max(SRTT/4, 2 ms) (RFC 5827 §6 A.3, Linux 3.x).
    #[serde(default)]
    pub early_retransmit_delay: Option<bool>,
    /// RTO = SRTT + max(4·RTTVAR, min RTO), as Linux (`tcp_set_rto`).
    #[serde(default)]
    pub min_rto_bounds_variation: Option<bool>,
    /// The window and the flight are counted in segments, a short one as a
    /// whole one (Linux `tcp_cwnd_test`, `tcp_packets_in_flight`).
    #[serde(default)]
    pub cwnd_in_segments: Option<bool>,
    /// Forward acknowledgement loss detection with SACK (Linux until 4.15).
    #[serde(default)]
    pub fack: Option<bool>,
    /// SACK and PRR recovery: a partial ACK resends the next segment (ns-3).
    #[serde(default)]
    pub partial_ack_retransmit: Option<bool>,
    /// Without SACK, run SACK/PRR recovery on marks made by duplicate ACKs (ns-3).
    #[serde(default)]
    pub emulate_sack: Option<bool>,
    /// Which ACKs count as duplicate with SACK: RFC 6675's (`rfc6675`) or
    /// any that SACKs new data (`new_sack`, ns-3).
    #[serde(default)]
    pub dupack_rule: Option<crate::transport::tcp::config::DupAckRule>,
    /// PRR's accounting: RFC 6937's, ns-3.44's `TcpPrrRecovery` (`ns3`) or
    /// Linux 6.x's `tcp_cwnd_reduction` (`linux`).
    #[serde(default)]
    pub prr_variant: Option<crate::transport::tcp::config::PrrVariant>,
    /// What a loss halves into ssthresh: `flight_size`, `capped_flight_size`,
    /// `pipe` or `cwnd`.
    #[serde(default)]
    pub loss_flight: Option<crate::transport::tcp::config::LossFlight>,
    /// The receiver delays its ACKs (RFC 5681 §4.2); off, it acknowledges
    /// every segment at once.
    #[serde(default)]
    pub delayed_ack: Option<bool>,
    /// A delayed ACK goes out once this many segments wait for it.
    #[serde(default)]
    pub delack_segments: Option<u32>,
    /// The delayed-ACK timer, nanoseconds.
    #[serde(default)]
    pub delack_timeout_ns: Option<u64>,
    /// Segments acknowledged one by one at the start of a connection
    /// (Linux's quick-ACK mode).
    #[serde(default)]
    pub quickack_segments: Option<u32>,
    /// Each data segment acknowledged at once while the receiver's
    /// `rcv_ssthresh` grows (Linux `tcp_grow_window`): for TCP up to its
    /// autotuned buffer's window (`tcp_rcv_space_adjust`) and for 16
    /// segments after (Linux's quick-ACK count), for an MPTCP subflow up to
    /// the window of a 6 MiB buffer (docs/algorithms.md).
    #[serde(default)]
    pub quickack_window_growth: Option<bool>,
    /// While data waits out of order, duplicate ACKs after the first three
    /// wait up to min(1 ms, RTT/20), up to 44 of them (Linux's SACK
    /// compression, `tcp_comp_sack_delay_ns`); off: each at once.
    #[serde(default)]
    pub sack_compression: Option<bool>,
    /// The retransmission timeout's lower bound, nanoseconds (RFC 6298 §2.4).
    #[serde(default)]
    pub min_rto_ns: Option<u64>,
    /// The retransmission timeout before the first RTT sample, nanoseconds
    /// (RFC 6298 §2.1).
    #[serde(default)]
    pub initial_rto_ns: Option<u64>,
    /// Receive buffer of a TCP flow, the window advertised, bytes.
    #[serde(default)]
    pub rwnd_bytes: Option<u64>,
    /// The window advertised is the receive buffer less the out-of-order
    /// data held (`false`: the whole buffer, as ns-3).
    #[serde(default)]
    pub ooo_shrinks_window: Option<bool>,
    /// Sending socket buffer, bytes: unacknowledged data never exceeds it
    /// (whole segments); `0` for no limit.
    #[serde(default)]
    pub send_buffer_bytes: Option<u64>,
    /// A constant receive window, bytes, advertised on the TCP flow or on
    /// each subflow of the MPTCP connection: the sender keeps at most this
    /// much unacknowledged on it. At most 65 535 without window scaling
    /// (RFC 7323 §2.2), 65 535·2^14 with it.
    #[serde(default)]
    pub receive_window_bytes: Option<u64>,
    /// A SACKed retransmission stays in pipe until cumulatively
    /// acknowledged (ns-3's count).
    #[serde(default)]
    pub sacked_retransmissions_in_pipe: Option<bool>,
    /// The ACK that ends fast recovery also grows the window (ns-3).
    #[serde(default)]
    pub grow_on_recovery_exit: Option<bool>,
    /// The ACK that ends timeout recovery grows the window only by what it
    /// acknowledges above the recovery point (ns-3).
    #[serde(default)]
    pub rto_exit_growth_above_recover: Option<bool>,
    /// Slow start and congestion avoidance per byte acknowledged or per ACK.
    #[serde(default)]
    pub ack_counting: Option<crate::cc::AckCounting>,
    /// HyStart++ (RFC 9406) in the initial slow start of the flow or of
    /// each of the connection's subflows: `{}` for the RFC's constants,
    /// left out (the default) for none. Only with the standard slow start.
    #[serde(default)]
    pub hystart: Option<crate::slowstart::HyStartConfig>,
    /// Linux CUBIC's HyStart in slow start: `true` for the kernel's
    /// constants, a table to override some, `false` for none. Left out, the
    /// `linux` profile has it with CUBIC and the other profiles do not. Not
    /// with `hystart`, and only with the standard slow start.
    #[serde(default)]
    pub hystart_linux: Option<crate::slowstart::hystart_linux::HyStartLinuxOption>,
    /// MPTCP: when the subflows beyond the first join, and when a joined
    /// subflow may send: `established` (at the first subflow's SYN-ACK; data
    /// from the join's SYN-ACK) or `linux` (at the full establishment; data
    /// after the fourth packet of MP_JOIN).
    #[serde(default)]
    pub mptcp_join: Option<MptcpJoin>,
    /// MPTCP: the connection's receive window: `fixed` (the connection's
    /// `rcv_buffer`) or `linux` (Linux 6.18's autotuned buffer, and the
    /// sender's short segments at the window's edge held by Nagle's rule).
    #[serde(default)]
    pub mptcp_rcv_window: Option<MptcpRcvWindow>,
    /// MPTCP: Linux's connection-level retransmission timer: after the
    /// longest pending subflow timer (at least 200 ms) without a new
    /// DATA_ACK, the first unacknowledged data fragment (up to 32 728 bytes)
    /// is sent again on the first subflow with nothing outstanding
    /// (`mptcp_retransmit_timer`, `__mptcp_retrans`).
    #[serde(default)]
    pub mptcp_retransmit_timer: Option<bool>,
    /// MPTCP: the path manager opens the connection's other initial
    /// subflows this long after the event that prompts it (the connection's
    /// full establishment under `mptcp_join = "linux"`, else the first
    /// subflow's), nanoseconds; Linux's runs in a worker, after the packets
    /// being processed then (`mptcp_worker`). Subflow events (`add`) keep
    /// their own times.
    #[serde(default)]
    pub mptcp_pm_delay_ns: Option<u64>,
}

/// Every field of [`TcpOptions`] with its doc comment on one line, in
/// order: read from this file's source by the build script (`build.rs`).
const TCP_OPTION_FIELDS: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/tcp_option_fields.rs"));

/// How a TCP option is written, as its deserialiser accepts it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OptionKind {
    /// `true` or `false`.
    Flag,
    /// A whole number; its unit ends its name (`_bytes`, `_ns`, `_segments`).
    Integer,
    /// One of the option's `values`.
    Choice,
    /// A table of parameters, `{}` for their defaults.
    Table,
    /// `true`, `false` or a table of parameters.
    FlagOrTable,
}

/// One option of a flow's `tcp` table, as [`TcpOptions::schema`] describes it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TcpOptionSchema {
    pub name: &'static str,
    pub kind: OptionKind,
    /// A choice's values, as a scenario writes them; empty otherwise.
    pub values: Vec<String>,
    /// Where the option's value lands in the resolved TCP parameters
    /// (`TcpParams`, as `mpsim validate --resolved` prints them: `rtt.min_rto`),
    /// which is where a profile's default is read; empty for `profile`.
    pub param: String,
    /// The field's doc comment, on one line.
    pub doc: &'static str,
}

impl TcpOptions {
    /// Every option a flow may set, in the order of the struct: names and
    /// docs from its source, kinds and values from its deserialiser, so
    /// that nothing here can differ from what a configuration may hold.
    pub fn schema() -> Vec<TcpOptionSchema> {
        let params = serde_json::to_value(Profile::default().params()).unwrap_or_default();
        (TCP_OPTION_FIELDS.iter())
            .map(|&(name, doc)| {
                let (kind, values) = option_kind(name);
                TcpOptionSchema {
                    name,
                    kind,
                    values,
                    param: option_param(name, &params),
                    doc,
                }
            })
            .collect()
    }
}

/// Whether `{name: value}` is a valid `TcpOptions`; serde's message if not.
fn accepts(name: &str, value: serde_json::Value) -> Result<(), String> {
    let mut document = serde_json::Map::new();
    document.insert(name.to_string(), value);
    serde_json::from_value::<TcpOptions>(document.into())
        .map(drop)
        .map_err(|e| e.to_string())
}

/// An option's kind, found by what its deserialiser accepts, and a choice's
/// values, as its deserialiser names them for a value it does not know.
fn option_kind(name: &str) -> (OptionKind, Vec<String>) {
    let flag = accepts(name, true.into()).is_ok();
    let table = accepts(name, serde_json::json!({})).is_ok();
    match (flag, table) {
        (true, true) => (OptionKind::FlagOrTable, Vec::new()),
        (true, false) => (OptionKind::Flag, Vec::new()),
        (false, true) => (OptionKind::Table, Vec::new()),
        _ if accepts(name, 1.into()).is_ok() => (OptionKind::Integer, Vec::new()),
        _ => {
            // "unknown variant ``, expected one of `a`, `b`" (or "`a` or `b`").
            let message = accepts(name, "".into()).err().unwrap_or_default();
            let expected = message.split_once("expected").map_or("", |(_, e)| e);
            let values = expected.split('`').skip(1).step_by(2).map(str::to_string).collect();
            (OptionKind::Choice, values)
        }
    }
}

/// Where option `name` lands in the serialised TCP parameters `params`: the
/// field of that name (less a `_ns` suffix: durations are serialised in
/// nanoseconds under their plain name), at the top or in `rtt` or `receiver`.
fn option_param(name: &str, params: &serde_json::Value) -> String {
    match name {
        "profile" => String::new(),
        // One counting for slow start and congestion avoidance alike.
        "ack_counting" => "slow_start.counting".to_string(),
        _ => {
            let key = name.strip_suffix("_ns").unwrap_or(name);
            let found = ["", "rtt", "receiver"].into_iter().find(|table| {
                let table = if table.is_empty() { params } else { &params[*table] };
                table.get(key).is_some()
            });
            match found {
                Some("") => key.to_string(),
                Some(table) => format!("{table}.{key}"),
                None => String::new(),
            }
        }
    }
}

/// A single-path TCP flow.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TcpFlowConfig {
    pub name: String,
    /// Source address (the data sender).
    pub src: String,
    /// Destination address (the data receiver).
    pub dst: String,
    /// Bytes to transfer; `None` for a flow that never ends.
    #[serde(default)]
    pub size_bytes: Option<u64>,
    /// When the first SYN is sent.
    #[serde(default)]
    pub start_ns: u64,
    /// Which end opens the connection (sends the SYN): the data sender
    /// (the default) or the receiver, as a client downloading from a server.
    #[serde(default)]
    pub initiator: Initiator,
    /// Congestion avoidance; the profile's default (Reno for `rfc`, CUBIC
    /// for `linux` and `ns3`) unless given.
    #[serde(default)]
    pub cc: Option<CcConfig>,
    #[serde(default)]
    pub tcp: TcpOptions,
    /// Record cwnd, ssthresh, srtt and bytes in flight at every ACK, and
    /// the time of every retransmission timeout.
    #[serde(default)]
    pub trace: bool,
    /// Repeat the flow: each repetition starts a random gap after the
    /// previous one completed. Results have one row per repetition, named
    /// `name#k`.
    #[serde(default)]
    pub sequence: Option<SequenceConfig>,
    /// Network coding under the flow's TCP (TCP/NC), if given.
    #[serde(default)]
    pub coding: Option<crate::transport::coding::CodingConfig>,
}

/// Flows one after another with random gaps between them.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SequenceConfig {
    /// Number of flows in the sequence.
    pub count: u32,
    /// Mean gap between a flow's completion and the next one's first SYN.
    pub gap_mean_ns: u64,
    #[serde(default)]
    pub gap_distribution: GapDistribution,
}

/// An MPTCP connection (RFC 8684).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MptcpConnectionConfig {
    pub name: String,
    /// Addresses of the data sender; the first subflow uses the first.
    pub src_addrs: Vec<String>,
    /// Addresses of the data receiver; the first subflow uses the first.
    pub dst_addrs: Vec<String>,
    /// Bytes to transfer; `None` for a connection that never ends.
    #[serde(default)]
    pub size_bytes: Option<u64>,
    /// When the first SYN is sent.
    #[serde(default)]
    pub start_ns: u64,
    /// Which end opens the connection and runs the path manager: the data
    /// sender (the default) or the receiver (a download).
    #[serde(default)]
    pub initiator: Initiator,
    #[serde(default)]
    pub path_manager: PathManager,
    /// Extra delay between the first subflow's establishment (or, with
    /// `tcp.mptcp_join = "linux"`, the connection's full establishment)
    /// and the joins.
    #[serde(default)]
    pub join_delay_ns: u64,
    /// The packet scheduler; the profile's when left out (`linger`,
    /// upstream Linux's, under `linux`; `minrtt` under the others).
    #[serde(default)]
    pub scheduler: Option<Scheduler>,
    /// A packet scheduler supplied by the caller, in place of `scheduler`
    /// (`crate::plugin`; a scenario writes `scheduler = {type = "python", ...}`).
    #[serde(default)]
    pub scheduler_plugin: Option<crate::transport::scheduler::PluginSchedulerConfig>,
    /// The connection-level receive buffer (the window advertised relative
    /// to DATA_ACK), bytes; default 64 MiB.
    #[serde(default)]
    pub rcv_buffer_bytes: Option<u64>,
    /// Coupled congestion avoidance; LIA unless given.
    #[serde(default)]
    pub cc: Option<CcConfig>,
    /// Slow start of the subflows; standard (uncoupled) unless given.
    #[serde(default)]
    pub slow_start: crate::slowstart::SlowStartConfig,
    #[serde(default)]
    pub tcp: TcpOptions,
    /// Record every subflow's cwnd, ssthresh, srtt and bytes in flight,
    /// and the time of each of its retransmission timeouts.
    #[serde(default)]
    pub trace: bool,
    /// Subflows opened or closed at given times, beyond those the path
    /// manager opens (RFC 8684 §3.4 ADD_ADDR / REMOVE_ADDR, §3.3.8).
    #[serde(default)]
    pub subflow_events: Vec<SubflowEventConfig>,
    /// Network coding under the TCP of the subflows from each source
    /// address named (MPTCP/NC: Couple+ paper §II-B).
    #[serde(default)]
    pub coding: std::collections::BTreeMap<String, crate::transport::coding::CodingConfig>,
}

/// A subflow of an MPTCP connection opened or closed at a given time.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SubflowEventConfig {
    /// When the event happens, nanoseconds (not before the connection's `start_ns`).
    pub at_ns: u64,
    pub action: SubflowAction,
    /// The data sender's address of the subflow (an address of the node
    /// holding the connection's `src_addrs`).
    pub src: String,
    /// The data receiver's address (an address of the node holding `dst_addrs`).
    pub dst: String,
    /// For `remove`: the index of the subflow to close (its row in the
    /// results), when several subflows share the address pair (`ndiffports`).
    #[serde(default)]
    pub index: Option<u32>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    /// An end system: it never forwards packets that are not its own.
    #[default]
    Host,
    /// A router or switch: it forwards by its routing table.
    Router,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeConfig {
    pub name: String,
    #[serde(default)]
    pub kind: NodeKind,
}

/// A unidirectional link: a queue, a transmitter of `rate_bps`, then a
/// propagation delay. A loss model, if any, drops packets after serialisation
/// (they use the link's capacity but never arrive).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkConfig {
    pub name: String,
    pub from: String,
    pub to: String,
    /// Transmission rate in bit/s.
    pub rate_bps: u64,
    /// One-way propagation delay in nanoseconds.
    pub delay_ns: u64,
    #[serde(default)]
    pub queue: QueueConfig,
    #[serde(default)]
    pub loss: LossConfig,
    /// Routing cost; routes follow the least total cost, ties become ECMP sets.
    #[serde(default = "one")]
    pub weight: u32,
    /// Whether the link starts up.
    #[serde(default = "yes")]
    pub up: bool,
    /// A token-bucket shaper of this depth in bytes in place of the
    /// transmitter's pacing (Linux `tbf`'s `burst`): see
    /// [`crate::net::link::TokenBucket`]. `None`: a link.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst_bytes: Option<u32>,
    /// Mean of an exponentially distributed extra delay each packet takes
    /// after the propagation delay, in nanoseconds; packets still arrive in
    /// the order they were sent (see [`crate::net::link::Jitter`]). `None`:
    /// none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jitter_ns: Option<u64>,
    /// With `burst_bytes`: the token bucket is a rate limiter in front of a
    /// link that takes no time (Linux's `tbf` on a veth): a released packet
    /// arrives after the delay without its transmission time (see
    /// [`crate::net::link::TokenBucket`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rate_limiter: bool,
    /// Each packet is also held its transmission time at this rate after
    /// the delay, in order among the packets of its route only, as an
    /// emulator's delay line that adds it (see [`crate::net::link::TxTime`]).
    /// `None`: no such hold.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub txtime_rate_bps: Option<u64>,
    /// A delivery-opportunity trace in place of the transmitter's rate (see
    /// [`crate::net::link::DeliveryTrace`]); the link's rate is then the
    /// trace's mean, whatever `rate_bps` says (it must still be positive).
    /// `None`: a link of `rate_bps`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<DeliveryTraceConfig>,
}

/// A link's service as a delivery-opportunity trace (Mahimahi's `mm-link`
/// format): at each listed millisecond `bytes_per_opportunity` bytes may
/// leave; the list repeats with a period of its last time.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeliveryTraceConfig {
    /// Times of the opportunities within one period, milliseconds,
    /// non-decreasing; a time listed twice is two opportunities. The last
    /// is the period and must be positive, at most
    /// [`crate::net::link::MAX_TRACE_MS`].
    pub opportunities_ms: Vec<u64>,
    /// Bytes each opportunity lets leave (Mahimahi's `PACKET_SIZE`, 1504).
    #[serde(default = "mahimahi_packet_size")]
    pub bytes_per_opportunity: u32,
}

fn mahimahi_packet_size() -> u32 {
    crate::net::link::MAHIMAHI_PACKET_BYTES
}

fn one() -> u32 {
    1
}
fn yes() -> bool {
    true
}

/// A network address held by a node. Binding it to links makes a
/// multi-homed host: traffic from the address leaves by `out_link`, traffic
/// to it arrives by `in_link`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AddressConfig {
    pub name: String,
    pub node: String,
    #[serde(default)]
    pub out_link: Option<String>,
    #[serde(default)]
    pub in_link: Option<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RouteConfig {
    pub node: String,
    /// Destination address.
    pub dst: String,
    /// Next-hop links from `node`; more than one makes an ECMP set.
    pub via: Vec<String>,
}

/// Changes one link at a given time; fields left out keep their value.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkChangeConfig {
    pub at_ns: u64,
    pub link: String,
    #[serde(default)]
    pub rate_bps: Option<u64>,
    #[serde(default)]
    pub delay_ns: Option<u64>,
    #[serde(default)]
    pub loss: Option<LossConfig>,
    #[serde(default)]
    pub up: Option<bool>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UdpFlowConfig {
    pub name: String,
    /// Source address.
    pub src: String,
    /// Destination address.
    pub dst: String,
    /// Size of each packet on the wire, headers included.
    pub packet_size_bytes: u32,
    pub start_ns: u64,
    /// The source sends nothing at or after this time.
    #[serde(default)]
    pub stop_ns: Option<u64>,
    pub pattern: UdpPattern,
}

/// What to record over time.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceConfig {
    /// Links whose queue occupancy is traced (names).
    #[serde(default)]
    pub queue_links: Vec<String>,
    /// Record every change of occupancy when `None`; otherwise one sample
    /// per interval.
    #[serde(default)]
    pub queue_sample_interval_ns: Option<u64>,
    /// TCP flows and MPTCP connections (names) whose every segment sent and
    /// every ACK received are recorded, per subflow (the `segment_traces`
    /// table); a sequence's name traces all its flows.
    #[serde(default)]
    pub segments: Vec<String>,
}

/// The bins of the windowed-throughput table: `[start, start + interval)`,
/// `[start + interval, start + 2 interval)`, … up to `end` (the last bin is
/// shorter when `end - start` is not a multiple of the interval).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThroughputConfig {
    /// Width of a bin, nanoseconds.
    pub interval_ns: u64,
    /// Start of the first bin, nanoseconds (0 unless given).
    #[serde(default)]
    pub start_ns: u64,
    /// End of the last bin, nanoseconds (the stop time unless given).
    #[serde(default)]
    pub end_ns: Option<u64>,
}

impl ScenarioConfig {
    /// Parses JSON, naming the path of the field at fault on error.
    pub fn from_json(text: &str) -> Result<Self, ConfigError> {
        let de = &mut serde_json::Deserializer::from_str(text);
        serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            // serde_json appends the position in the JSON text, which means
            // nothing to a user who wrote TOML or Python: keep the message.
            let message = e.inner().to_string();
            let message = match message.rfind(" at line ") {
                Some(i) => message[..i].to_string(),
                None => message,
            };
            let message = integer_range(&message).unwrap_or(message);
            let path = if path == "." { String::new() } else { path };
            // The field at fault is the one missing (or, at the top, an empty key), not the table holding it.
            match message
                .strip_prefix("missing field `")
                .and_then(|rest| rest.split_once('`'))
            {
                Some((name, _)) if path.is_empty() => ConfigError::new(name, "required, but missing"),
                Some((name, _)) => ConfigError::new(format!("{path}.{name}"), "required, but missing"),
                None if path.is_empty() && message.starts_with("unknown field ``") => ConfigError::new("\"\"", message),
                None => ConfigError::new(path, message),
            }
        })
    }
}

/// serde_json's words for a number that does not fit its field's integer
/// type (``invalid value: integer `-1`, expected u32``; an integer beyond
/// 64 bits arrives as ``floating point `1.2e21` ``) in the user's terms: the
/// value and the range allowed.
fn integer_range(message: &str) -> Option<String> {
    let (head, expected) = message.rsplit_once(", expected ")?;
    let (min, max): (i128, i128) = match expected {
        "u8" => (0, u8::MAX.into()),
        "u16" => (0, u16::MAX.into()),
        "u32" => (0, u32::MAX.into()),
        "u64" => (0, u64::MAX.into()),
        "i32" => (i32::MIN.into(), i32::MAX.into()),
        "i64" => (i64::MIN.into(), i64::MAX.into()),
        _ => return None,
    };
    let found = head.split('`').nth(1)?;
    let number = head.starts_with("invalid value: integer") || head.starts_with("invalid type: floating point");
    number.then(|| format!("must be a whole number from {min} to {max}, got {found}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_integer_out_of_its_field_range_is_named_with_the_range() {
        let text = r#"{"seed": 18446744073709551616, "stop_time_ns": 1, "nodes": [], "links": []}"#;
        let e = ScenarioConfig::from_json(text).unwrap_err();
        assert_eq!(e.path, "seed");
        assert_eq!(
            e.message,
            "must be a whole number from 0 to 18446744073709551615, got 1.8446744073709552e+19"
        );
        let e = ScenarioConfig::from_json(r#"{"seed": -1}"#).unwrap_err();
        assert_eq!(
            e.message,
            "must be a whole number from 0 to 18446744073709551615, got -1"
        );
        assert_eq!(integer_range("invalid type: string \"a\", expected u32"), None);
    }

    #[test]
    fn a_missing_field_is_named_itself() {
        let e = ScenarioConfig::from_json(r#"{"seed": 1}"#).unwrap_err();
        assert_eq!(
            (e.path.as_str(), e.message.as_str()),
            ("stop_time_ns", "required, but missing")
        );
        let text = r#"{"seed": 1, "stop_time_ns": 5, "nodes": [{"kind": "host"}], "links": []}"#;
        let e = ScenarioConfig::from_json(text).unwrap_err();
        assert_eq!(
            (e.path.as_str(), e.message.as_str()),
            ("nodes[0].name", "required, but missing")
        );
        let e = ScenarioConfig::from_json(r#"{"": 1}"#).unwrap_err();
        assert_eq!(e.path, "\"\"");
    }

    /// The schema lists every field of `TcpOptions` and nothing else: the
    /// keys of a serialised `TcpOptions` are its names; each has a doc
    /// comment, a kind its deserialiser accepts and, but for `profile`, the
    /// resolved parameter it sets; a document setting every listed option is
    /// a `TcpOptions`, whose `deny_unknown_fields` refuses any other name.
    #[test]
    fn the_option_schema_is_the_struct() {
        let schema = TcpOptions::schema();
        let mut names: Vec<&str> = schema.iter().map(|o| o.name).collect();
        let serialised = serde_json::to_value(TcpOptions::default()).unwrap();
        let mut fields: Vec<&str> = serialised.as_object().unwrap().keys().map(String::as_str).collect();
        names.sort_unstable();
        fields.sort_unstable();
        assert_eq!(names, fields);
        let mut every = serde_json::Map::new();
        for o in &schema {
            assert!(!o.doc.is_empty(), "{} has no doc comment", o.name);
            assert_eq!(o.param.is_empty(), o.name == "profile", "{}: {:?}", o.name, o.param);
            let value = match o.kind {
                OptionKind::Flag | OptionKind::FlagOrTable => true.into(),
                OptionKind::Integer => 100_000.into(),
                OptionKind::Table => serde_json::json!({}),
                OptionKind::Choice => {
                    assert!(o.values.len() >= 2, "{}: {:?}", o.name, o.values);
                    for v in &o.values {
                        accepts(o.name, v.as_str().into()).unwrap();
                    }
                    o.values[0].as_str().into()
                }
            };
            every.insert(o.name.to_string(), value);
        }
        serde_json::from_value::<TcpOptions>(every.into()).unwrap();
        assert!(accepts("no_such_option", true.into()).is_err());
        let profile = schema.iter().find(|o| o.name == "profile").unwrap();
        assert_eq!(profile.values, ["linux", "linux_3_14", "ns3", "rfc", "ns2"]);
    }
}
