//! Slow-start strategies: how a subflow's window grows from its initial
//! window until it reaches ssthresh (or leaves slow start on a loss).
//!
//! A strategy is a component held beside the congestion-avoidance algorithm
//! (as s2n-quic's `hybrid_slow_start` is held by its CUBIC), so any slow
//! start combines with any congestion avoidance. The subflow calls slow start
//! first; the acknowledged bytes it does not use go on to congestion
//! avoidance. Coupled strategies (LISA, CSS, GSAM) see every subflow of the
//! connection, like coupled congestion avoidance does. HyStart++ (RFC 9406)
//! is an option of the standard slow start: each subflow on its own leaves
//! slow start when its round-trip time rises. Linux CUBIC's HyStart
//! (`hystart_linux`) is another such option: it ends slow start on a long
//! ACK train or an RTT rise over the flow's minimum.

pub mod css;
pub mod gsam;
pub mod hystart;
pub mod hystart_linux;
pub mod lisa;
pub mod standard;

use crate::cc::SubflowCc;
use crate::time::SimTime;

pub use css::{Css, CssConfig};
pub use gsam::{Gsam, GsamConfig};
pub use hystart::{HyStart, HyStartConfig};
pub use hystart_linux::{HyStartLinux, HyStartLinuxConfig};
pub use lisa::{Lisa, LisaConfig};
pub use standard::{Standard, StandardConfig};

/// A slow-start strategy.
pub trait SlowStart {
    /// Grows `subflows[r].cwnd` for an ACK of `acked_bytes` new bytes while
    /// the subflow is in slow start. Returns the acknowledged bytes left over
    /// for congestion avoidance (non-zero when cwnd reached ssthresh).
    fn on_ack(&mut self, subflows: &mut [SubflowCc], r: usize, acked_bytes: u64, now: SimTime) -> u64;

    /// An ACK of new data reached subflow `r` in slow start while the window
    /// did not limit the sender, so the window does not grow (RFC 7661).
    /// Strategies that measure every ACK (HyStart++'s rounds and RTT
    /// samples) see it here; they may end slow start by setting ssthresh.
    fn on_ack_without_growth(&mut self, _subflows: &mut [SubflowCc], _r: usize, _now: SimTime) {}

    /// Subflow `r` is about to send its first data (LISA acts here).
    fn on_subflow_start(&mut self, _subflows: &mut [SubflowCc], _r: usize, _now: SimTime) {}

    /// Subflow `r` left slow start (loss or ssthresh reached).
    fn on_exit(&mut self, _subflows: &mut [SubflowCc], _r: usize, _now: SimTime) {}

    /// A subflow joined or left the connection: per-subflow state grows to
    /// `subflows.len()` here (never per ACK).
    fn on_subflows_changed(&mut self, _subflows: &[SubflowCc]) {}
}

/// The slow-start strategies, dispatched by enum.
#[derive(Clone, Debug)]
pub enum Ss {
    Standard(Standard),
    Lisa(Lisa),
    Css(Css),
    Gsam(Gsam),
    /// The standard slow start with HyStart++ (RFC 9406) on every subflow.
    HyStart(HyStart),
    /// The standard slow start with Linux CUBIC's HyStart on every subflow.
    HyStartLinux(HyStartLinux),
}

macro_rules! each_ss {
    ($self:ident, $x:ident => $e:expr) => {
        match $self {
            Ss::Standard($x) => $e,
            Ss::Lisa($x) => $e,
            Ss::Css($x) => $e,
            Ss::Gsam($x) => $e,
            Ss::HyStart($x) => $e,
            Ss::HyStartLinux($x) => $e,
        }
    };
}

impl SlowStart for Ss {
    #[inline]
    fn on_ack(&mut self, s: &mut [SubflowCc], r: usize, acked: u64, now: SimTime) -> u64 {
        each_ss!(self, x => x.on_ack(s, r, acked, now))
    }
    #[inline]
    fn on_ack_without_growth(&mut self, s: &mut [SubflowCc], r: usize, now: SimTime) {
        each_ss!(self, x => x.on_ack_without_growth(s, r, now))
    }
    fn on_subflow_start(&mut self, s: &mut [SubflowCc], r: usize, now: SimTime) {
        each_ss!(self, x => x.on_subflow_start(s, r, now))
    }
    fn on_exit(&mut self, s: &mut [SubflowCc], r: usize, now: SimTime) {
        each_ss!(self, x => x.on_exit(s, r, now))
    }
    fn on_subflows_changed(&mut self, s: &[SubflowCc]) {
        each_ss!(self, x => x.on_subflows_changed(s))
    }
}

/// What may end the standard slow start before a loss.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EarlyExit {
    None,
    /// RFC 9406 HyStart++.
    HyStartPlusPlus(HyStartConfig),
    /// Linux CUBIC's HyStart.
    Linux(HyStartLinuxConfig),
}

impl EarlyExit {
    /// At most one of the two (the builder rejects both).
    pub fn of(hystart: Option<HyStartConfig>, hystart_linux: Option<HyStartLinuxConfig>) -> Self {
        match (hystart, hystart_linux) {
            (Some(h), _) => EarlyExit::HyStartPlusPlus(h),
            (None, Some(h)) => EarlyExit::Linux(h),
            (None, None) => EarlyExit::None,
        }
    }
}

/// Which slow start a connection's subflows use.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum SlowStartConfig {
    /// Each subflow on its own, as the profile counts ACKs.
    #[default]
    Standard,
    Lisa {
        #[serde(flatten, default)]
        config: LisaConfig,
    },
    Css {
        #[serde(flatten, default)]
        config: CssConfig,
    },
    Gsam {
        #[serde(flatten, default)]
        config: GsamConfig,
    },
}

impl SlowStartConfig {
    /// The strategy for a connection of `n_subflows` subflows (coupled
    /// strategies size their per-subflow state here, once), with the
    /// profile's standard slow start where needed. `exit` adds HyStart++ or
    /// Linux's HyStart to the standard slow start; the builder rejects them
    /// with the coupled strategies, and they are ignored with them here.
    pub fn build(&self, standard: StandardConfig, exit: EarlyExit, n_subflows: usize) -> Ss {
        match self {
            SlowStartConfig::Standard => match exit {
                EarlyExit::None => Ss::Standard(Standard::new(standard)),
                EarlyExit::HyStartPlusPlus(h) => Ss::HyStart(HyStart::new(h, standard, n_subflows)),
                EarlyExit::Linux(h) => Ss::HyStartLinux(HyStartLinux::new(h, standard, n_subflows)),
            },
            SlowStartConfig::Lisa { config } => Ss::Lisa(Lisa::new(*config, standard, n_subflows)),
            SlowStartConfig::Css { config } => Ss::Css(Css::new(*config, standard, n_subflows)),
            SlowStartConfig::Gsam { config } => Ss::Gsam(Gsam::new(*config, standard, n_subflows)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimDuration;

    const MSS: u64 = 1000;

    fn subflow(cwnd_pkts: u64, srtt_ms: u64) -> SubflowCc {
        let mut sf = SubflowCc::new(MSS as u32, cwnd_pkts * MSS, u64::MAX);
        sf.established = true;
        sf.srtt = SimDuration::from_millis(srtt_ms);
        sf.min_rtt = sf.srtt;
        sf.latest_rtt = sf.srtt;
        sf
    }

    /// Strategies built for one subflow meet a second one added mid-run
    /// (the slice grown, hooks called before `on_subflows_changed`): it
    /// starts, grows in slow start and leaves it.
    #[test]
    fn a_subflow_added_after_the_build_is_sized_and_grows() {
        let configs = [
            SlowStartConfig::Standard,
            SlowStartConfig::Lisa {
                config: LisaConfig::default(),
            },
            SlowStartConfig::Css {
                config: CssConfig::default(),
            },
            SlowStartConfig::Gsam {
                config: GsamConfig::default(),
            },
        ];
        let with_hystart = configs.iter().map(|c| (c.clone(), EarlyExit::None)).chain([
            (
                SlowStartConfig::Standard,
                EarlyExit::HyStartPlusPlus(HyStartConfig::default()),
            ),
            (
                SlowStartConfig::Standard,
                EarlyExit::Linux(HyStartLinuxConfig::default()),
            ),
        ]);
        for (config, exit) in with_hystart {
            let mut ss = config.build(StandardConfig::default(), exit, 1);
            let now = SimTime::ZERO;
            let mut s = vec![subflow(10, 40)];
            ss.on_subflow_start(&mut s, 0, now);
            for _ in 0..20 {
                ss.on_ack(&mut s, 0, MSS, now);
            }
            let first = s[0].cwnd;
            s.push(subflow(10, 40));
            s[1].established = false;
            ss.on_subflows_changed(&s);
            s.push(subflow(10, 40));
            // Subflow 2 is established and starts before any sizing hook.
            ss.on_subflow_start(&mut s, 2, now);
            let start = s[2].cwnd;
            if matches!(config, SlowStartConfig::Lisa { .. }) {
                // LISA Alg. 1 lines 5–9: subflow 0 (≥ 20 packets, in slow
                // start) gives a credit of 10 packets to the new one.
                assert_eq!((s[0].cwnd, start), (first - 10 * MSS, 10 * MSS));
            }
            ss.on_ack(&mut s, 2, MSS, now);
            assert!(s[2].cwnd > start, "{config:?}: {} ≤ {start}", s[2].cwnd);
            s[2].left_slow_start = true;
            ss.on_exit(&mut s, 2, now);
            ss.on_subflows_changed(&s);
        }
    }
}
