//! Congestion avoidance: how a subflow's window grows between losses and how
//! far it falls at a loss.
//!
//! One trait, one file per algorithm, one enum to dispatch (the smoltcp and
//! quinn layout). An algorithm sees **every** subflow of its connection —
//! coupled algorithms (LIA, OLIA, BALIA, ...) need the totals — and changes
//! only the subflow `r` it is called for. Single-path TCP is a connection
//! with one subflow.
//!
//! Slow start is not here: it is a separate strategy
//! ([`crate::slowstart`]) that runs first and hands the acknowledged bytes it
//! did not use to [`CongestionAvoidance::on_ack`].

pub mod coupling;
pub mod cubic_ns3;
pub mod rate;
pub mod win_minmax;

use crate::error::Problems;
use crate::time::{SimDuration, SimTime};

/// A congestion-avoidance algorithm's configuration as a scenario writes
/// it (its `Default` holds the paper's values), and the factory of the
/// algorithm (quinn-proto's config-as-factory).
pub trait CcFactory: Default + serde::Serialize {
    type Algorithm: CongestionAvoidance;

    /// Every problem of the parameters; `path` is the `cc` table's.
    fn validate(&self, _path: &str, _problems: &mut Problems) {}

    /// The algorithm for a flow with the TCP settings in `setup`. Runs
    /// after validation only.
    fn build(&self, setup: &CcSetup) -> Self::Algorithm;
}

/// What an algorithm reads of its flow's TCP settings when it is built
/// (filled by `build::resolve_tcp`; the congestion controls sit below TCP
/// and do not see its parameter types).
#[derive(Copy, Clone, Debug, Default)]
pub struct CcSetup {
    /// The profile's Reno (counting and halving), which the coupled
    /// algorithms run with one subflow.
    pub reno: RenoConfig,
    /// The flow runs ns-3.44's stack (the `ns3` profile): CUBIC is
    /// ns-3's `TcpCubic`.
    pub ns3: bool,
    /// The flow runs Linux 6.x (the `linux` profile): CUBIC grows at least
    /// 5 % per RTT until its first congestion event (`bictcp_update`).
    pub linux: bool,
}

macro_rules! congestion_controls {
    ($($(#[$attr:meta])* $name:literal => $Variant:ident($module:ident::$Config:ident),)*) => {
        $($(#[$attr])* pub mod $module;)*

        /// Which congestion-avoidance algorithm a flow uses, with its
        /// parameters: `{type = "name", ...}`.
        #[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
        #[serde(tag = "type", deny_unknown_fields)]
        pub enum CcConfig {
            $($(#[$attr])* #[serde(rename = $name)] $Variant {
                #[serde(flatten, default)]
                config: $module::$Config,
            },)*
        }

        impl CcConfig {
            /// Every algorithm's name, in the registry's order.
            pub const NAMES: &'static [&'static str] = &[$($(#[$attr])* $name,)*];

            /// The name a scenario gives it.
            pub fn name(&self) -> &'static str {
                match self {
                    $($(#[$attr])* CcConfig::$Variant { .. } => $name,)*
                }
            }

            /// Every problem of its parameters; `path` is the `cc` table's.
            pub fn validate(&self, path: &str, problems: &mut Problems) {
                match self {
                    $($(#[$attr])* CcConfig::$Variant { config } => config.validate(path, problems),)*
                }
            }

            /// The algorithm, once validated.
            pub fn build(&self, setup: &CcSetup) -> Cc {
                match self {
                    $($(#[$attr])* CcConfig::$Variant { config } => Cc::$Variant(config.build(setup)),)*
                }
            }

            /// Each algorithm's name and parameters with their defaults.
            pub fn schema() -> Vec<(&'static str, serde_json::Value)> {
                vec![$($(#[$attr])* ($name, serde_json::to_value($module::$Config::default()).unwrap_or_default()),)*]
            }
        }

        /// The congestion-avoidance algorithms, dispatched by enum.
        #[derive(Clone, Debug)]
        pub enum Cc {
            $($(#[$attr])* $Variant(<$module::$Config as CcFactory>::Algorithm),)*
        }

        impl Cc {
            /// The name a scenario gives it, as [`CcConfig::name`].
            pub fn name(&self) -> &'static str {
                match self {
                    $($(#[$attr])* Cc::$Variant(_) => $name,)*
                }
            }
        }

        macro_rules! each_cc {
            ($self:ident, $c:ident => $e:expr) => {
                match $self {
                    $($(#[$attr])* Cc::$Variant($c) => $e,)*
                }
            };
        }
    };
}

// The registry: every congestion-avoidance algorithm, once. A line is
// `"name" => Variant(module::Config)`: the name a scenario gives in
// `cc = {type = "name", ...}`, the variant of [`CcConfig`] and of [`Cc`], and
// the algorithm's configuration, which validates itself and builds the
// algorithm ([`CcFactory`]) in the algorithm's own file `cc/module.rs`.
congestion_controls! {
        "reno" => Reno(reno::RenoCcConfig),
        "cubic" => Cubic(cubic::CubicConfig),
        "uncoupled" => Uncoupled(uncoupled::UncoupledConfig),
        "ewtcp" => Ewtcp(ewtcp::EwtcpConfig),
        "coupled" => Coupled(coupled::CoupledConfig),
        "semicoupled" => SemiCoupled(semicoupled::SemiCoupledConfig),
        "lia" => Lia(lia::LiaConfig),
        "olia" => Olia(olia::OliaConfig),
        "balia" => Balia(balia::BaliaConfig),
        "mpcubic" => MpCubic(mpcubic::MpCubicConfig),
        "unmpcubic" => UnMpCubic(unmpcubic::UnMpCubicConfig),
        "couple_plus" => CouplePlus(couple_plus::CouplePlusConfig),
        "bbr" => Bbr(bbr::BbrConfig),
        "python" => Plugin(plugin::PluginCcConfig),
        #[cfg(test)] "fixed_window" => FixedWindow(fixed_window::FixedWindowConfig),
}

pub use balia::{Balia, BaliaConfig};
pub use couple_plus::{CodingReport, CouplePlus, CouplePlusConfig};
pub use coupled::{Coupled, CoupledConfig};
pub use coupling::Flavour;
pub use cubic::{Cubic, CubicConfig};
pub use ewtcp::{Ewtcp, EwtcpConfig};
pub use lia::{Lia, LiaConfig};
pub use mpcubic::{MpCubic, MpCubicConfig};
pub use olia::{Olia, OliaConfig};
pub use plugin::{CcPluginFactory, PluginCc, PluginCcConfig};
pub use reno::{Reno, RenoConfig};
pub use semicoupled::{SemiCoupled, SemiCoupledConfig};
pub use unmpcubic::{UnMpCubic, UnMpCubicConfig};

/// How acknowledgements are turned into window growth.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AckCounting {
    /// Grow by the bytes each ACK newly acknowledges (RFC 3465 byte counting;
    /// Linux counts acknowledged segments, which is the same in MSS units).
    Bytes,
    /// Grow once per ACK received whatever it acknowledges (ns-3's
    /// `TcpNewReno`, and the out-of-tree MPTCP kernel's coupled algorithms).
    PerAck,
}

/// Linux `tcp_update_pacing_rate`'s multiplier of cwnd/SRTT, percent:
/// `net.ipv4.tcp_pacing_ss_ratio` (200) while cwnd is below half ssthresh,
/// else `tcp_pacing_ca_ratio` (120). Linux computes the pacing rate on every
/// socket, paced or not.
pub fn linux_pacing_ratio_percent(cwnd: u64, ssthresh: u64) -> u64 {
    if cwnd < ssthresh / 2 {
        200
    } else {
        120
    }
}

/// The part of a subflow's state that congestion control reads and writes.
/// Windows are in bytes.
#[derive(Clone, Debug)]
pub struct SubflowCc {
    /// Congestion window, bytes.
    pub cwnd: u64,
    /// Slow-start threshold, bytes (`u64::MAX` until the first loss unless configured).
    pub ssthresh: u64,
    /// Maximum segment size (payload bytes).
    pub mss: u32,
    /// Smoothed RTT (RFC 6298 SRTT); zero before the first sample.
    pub srtt: SimDuration,
    /// Smallest RTT sample seen; zero before the first sample.
    pub min_rtt: SimDuration,
    /// Latest RTT sample; zero before the first sample.
    pub latest_rtt: SimDuration,
    /// Bytes sent and not yet acknowledged or marked lost.
    pub bytes_in_flight: u64,
    /// Whether the subflow is in fast recovery (or in loss recovery after an RTO).
    pub in_recovery: bool,
    /// Whether the subflow can send (established and not closed); coupled
    /// algorithms take only these into their sums.
    pub established: bool,
    /// Credit towards the next increase, in bytes·bytes/cwnd units chosen by the algorithm.
    pub ca_credit: u64,
    /// Whether the subflow has ever left slow start.
    pub left_slow_start: bool,
    /// Bytes cumulatively acknowledged on this subflow since it started
    /// (OLIA measures its inter-loss distances with it).
    pub bytes_acked: u64,
    /// Losses detected on this subflow (fast recoveries and timeouts).
    pub loss_events: u64,
    /// The sender's SND.UNA (oldest unacknowledged sequence number) as of
    /// the latest ACK processed, in sequence-number bytes.
    pub snd_una: u64,
    /// The sender's SND.NXT (next new sequence number) as of the latest
    /// ACK processed, in sequence-number bytes: HyStart++ ends its rounds
    /// when the SND.NXT of a round's start is acknowledged (RFC 9406 §4.2).
    pub snd_nxt: u64,
    /// Bytes the latest ACK delivered (RFC 6937 DeliveredData: the change
    /// in SND.UNA plus the change in SACKed bytes), ns-3's
    /// `currentDelivered`: an ACK over data SACKed earlier delivers less
    /// than it acknowledges.
    pub delivered_bytes: u64,
    /// RTT samples taken on this subflow so far (the handshake's
    /// included); a strategy compares it with the count it last saw to
    /// know whether an ACK brought a new sample (`latest_rtt`).
    pub rtt_samples: u64,
    /// Linux's congestion-control RTT sample (`ack_sample.rtt_us`, from
    /// `tcp_clean_rtx_queue` and `tcp_ack_update_rtt`): the time since the
    /// newest segment the latest ACK SACKed, else the newest it acknowledged
    /// cumulatively (unless it acknowledged a retransmission), neither sent
    /// twice nor SACKed before; failing both, the echoed timestamp's. Zero
    /// before the first; the handshake gives none.
    pub ca_rtt: SimDuration,
    /// Such samples so far (a larger count: the latest ACK brought one).
    pub ca_rtt_samples: u64,
    /// What the latest ACK's network-coding header told (Couple+ §IV-A);
    /// all zero on an uncoded subflow.
    pub coding: CodingReport,
}

impl SubflowCc {
    pub fn new(mss: u32, initial_cwnd: u64, initial_ssthresh: u64) -> Self {
        SubflowCc {
            cwnd: initial_cwnd,
            ssthresh: initial_ssthresh,
            mss,
            srtt: SimDuration::ZERO,
            min_rtt: SimDuration::ZERO,
            latest_rtt: SimDuration::ZERO,
            bytes_in_flight: 0,
            in_recovery: false,
            established: false,
            ca_credit: 0,
            left_slow_start: false,
            bytes_acked: 0,
            loss_events: 0,
            snd_una: 0,
            snd_nxt: 0,
            delivered_bytes: 0,
            rtt_samples: 0,
            ca_rtt: SimDuration::ZERO,
            ca_rtt_samples: 0,
            coding: CodingReport::default(),
        }
    }

    /// RFC 5681 §3.1: slow start while cwnd < ssthresh.
    #[inline]
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }
}

/// What an acknowledgement tells congestion avoidance.
#[derive(Copy, Clone, Debug)]
pub struct AckInfo {
    pub now: SimTime,
    /// Bytes newly acknowledged by this ACK that slow start left over (all of
    /// them when the subflow is not in slow start).
    pub acked_bytes: u64,
    /// Whether the sender was limited by cwnd when the acknowledged data was
    /// sent (RFC 7661: do not grow a window that is not used).
    pub cwnd_limited: bool,
}

/// A congestion-avoidance algorithm. Hooks have defaults so each algorithm
/// writes only what it changes.
pub trait CongestionAvoidance {
    /// Grows `subflows[r].cwnd` for an ACK outside slow start and recovery.
    fn on_ack(&mut self, subflows: &mut [SubflowCc], r: usize, ack: &AckInfo);

    /// The new ssthresh (bytes) when subflow `r` detects a loss by duplicate
    /// ACKs or SACK. RFC 5681 eq. (4) for Reno.
    fn ssthresh_after_loss(&mut self, subflows: &[SubflowCc], r: usize, now: SimTime) -> u64;

    /// Subflow `r` has left recovery: the window is set to ssthresh by the
    /// caller; algorithms that keep epochs (CUBIC) reset them here.
    fn on_recovery_exit(&mut self, _subflows: &mut [SubflowCc], _r: usize, _now: SimTime) {}

    /// Subflow `r` suffered a retransmission timeout (after ssthresh was set
    /// by `ssthresh_after_loss` and cwnd collapsed to the loss window).
    fn on_rto(&mut self, _subflows: &mut [SubflowCc], _r: usize, _now: SimTime) {}

    /// A subflow joined or left the connection.
    fn on_subflows_changed(&mut self, _subflows: &[SubflowCc]) {}

    /// Coded subflow `r`'s sender has processed an ACK whose coding report
    /// is in `subflows[r].coding` (Couple+'s transient state).
    fn on_coding_report(&mut self, _subflows: &mut [SubflowCc], _r: usize, _now: SimTime) {}
}

impl CongestionAvoidance for Cc {
    #[inline]
    fn on_ack(&mut self, s: &mut [SubflowCc], r: usize, ack: &AckInfo) {
        each_cc!(self, c => c.on_ack(s, r, ack))
    }
    #[inline]
    fn ssthresh_after_loss(&mut self, s: &[SubflowCc], r: usize, now: SimTime) -> u64 {
        each_cc!(self, c => c.ssthresh_after_loss(s, r, now))
    }
    fn on_recovery_exit(&mut self, s: &mut [SubflowCc], r: usize, now: SimTime) {
        each_cc!(self, c => c.on_recovery_exit(s, r, now))
    }
    fn on_rto(&mut self, s: &mut [SubflowCc], r: usize, now: SimTime) {
        each_cc!(self, c => c.on_rto(s, r, now))
    }
    fn on_subflows_changed(&mut self, s: &[SubflowCc]) {
        each_cc!(self, c => c.on_subflows_changed(s))
    }
    fn on_coding_report(&mut self, s: &mut [SubflowCc], r: usize, now: SimTime) {
        each_cc!(self, c => c.on_coding_report(s, r, now))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::resolve_tcp;
    use crate::config::{CcConfig, Profile, TcpOptions};
    use crate::time::SimDuration;

    const MSS: u32 = 1000;

    fn subflow(cwnd_pkts: u64, srtt_ms: u64) -> SubflowCc {
        let mut sf = SubflowCc::new(MSS, cwnd_pkts * MSS as u64, 5 * MSS as u64);
        sf.established = true;
        sf.srtt = SimDuration::from_millis(srtt_ms);
        sf.min_rtt = sf.srtt;
        sf.latest_rtt = sf.srtt;
        sf.left_slow_start = true;
        sf
    }

    fn ack(now_ms: u64) -> AckInfo {
        AckInfo {
            now: SimTime::ZERO + SimDuration::from_millis(now_ms),
            acked_bytes: MSS as u64,
            cwnd_limited: true,
        }
    }

    /// Every multipath algorithm, in both flavours where it has two, under
    /// every profile.
    fn all() -> Vec<(String, Cc)> {
        let paper = Flavour::Paper;
        let linux = Flavour::Linux;
        let mut configs = vec![
            CcConfig::Uncoupled {
                config: Default::default(),
            },
            CcConfig::Ewtcp {
                config: Default::default(),
            },
            CcConfig::Coupled {
                config: Default::default(),
            },
            CcConfig::SemiCoupled {
                config: Default::default(),
            },
            CcConfig::MpCubic {
                config: Default::default(),
            },
            CcConfig::UnMpCubic {
                config: Default::default(),
            },
        ];
        for flavour in [paper, linux] {
            configs.push(CcConfig::Lia {
                config: LiaConfig { flavour },
            });
            configs.push(CcConfig::Olia {
                config: OliaConfig { flavour },
            });
            configs.push(CcConfig::Balia {
                config: BaliaConfig { flavour },
            });
        }
        let mut out = Vec::new();
        for profile in [Profile::Rfc, Profile::Linux, Profile::Ns3] {
            for c in &configs {
                let opts = TcpOptions {
                    profile,
                    ..Default::default()
                };
                let (_, cc) = resolve_tcp(&opts, &Some(c.clone()), true);
                out.push((format!("{c:?} under {profile:?}"), cc));
            }
        }
        out
    }

    /// A subflow index that appears after the algorithm has run (a subflow
    /// added mid-run, the slice grown) is sized by the hooks themselves,
    /// and a removed subflow (`established = false`) leaves the sums: the
    /// survivor then grows exactly as it would alone.
    #[test]
    fn a_subflow_appearing_later_and_one_leaving_are_handled() {
        for (what, mut cc) in all() {
            let mut s = vec![subflow(20, 50)];
            cc.on_subflows_changed(&s);
            for k in 0..30 {
                cc.on_ack(&mut s, 0, &ack(k));
            }
            // Subflow 1 appears; its hooks are called before on_subflows_changed.
            s.push(subflow(10, 80));
            let before = s[1].cwnd;
            for k in 30..60 {
                cc.on_ack(&mut s, 1, &ack(k));
                cc.on_ack(&mut s, 0, &ack(k));
            }
            assert!(s[1].cwnd >= before, "{what}: {} < {before}", s[1].cwnd);
            let ssthresh = cc.ssthresh_after_loss(&s, 1, ack(60).now);
            assert!(ssthresh >= MSS as u64 && ssthresh <= s[1].cwnd, "{what}: {ssthresh}");
            cc.on_recovery_exit(&mut s, 1, ack(61).now);
            cc.on_rto(&mut s, 1, ack(62).now);
            cc.on_subflows_changed(&s);

            // Subflow 0 is removed: compare subflow 1 with a fresh instance
            // that only ever saw it. CUBIC variants keep epochs, which a fresh
            // instance lacks, so they are only run.
            s[0].established = false;
            cc.on_subflows_changed(&s);
            s[1].cwnd = 30 * MSS as u64;
            s[1].ca_credit = 0;
            let mut alone = vec![s[1].clone()];
            let (_, mut fresh) = all().into_iter().find(|(w, _)| *w == what).expect("same list");
            fresh.on_subflows_changed(&alone);
            for k in 70..100 {
                cc.on_ack(&mut s, 1, &ack(k));
                fresh.on_ack(&mut alone, 0, &ack(k));
            }
            if !matches!(cc, Cc::MpCubic(_) | Cc::UnMpCubic(_)) {
                assert_eq!(s[1].cwnd, alone[0].cwnd, "{what}");
            }
        }
    }
}
