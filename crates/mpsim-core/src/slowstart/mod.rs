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

use crate::cc::SubflowCc;
use crate::error::Problems;
use crate::time::SimTime;

pub use css::{Css, CssConfig};
pub use gsam::{Gsam, GsamConfig};
pub use hystart::{HyStart, HyStartConfig};
pub use hystart_linux::{HyStartLinux, HyStartLinuxConfig};
pub use hystart_ns3::{HyStartNs3, HyStartNs3Config};
pub use lisa::{Lisa, LisaConfig};
pub use plugin::{PluginSs, PluginSsConfig, SsPluginFactory};
pub use standard::{Standard, StandardConfig};

/// A slow start's configuration as a scenario writes it (its `Default`
/// holds the paper's values), and the factory of the strategy.
pub trait SsFactory: Default + serde::Serialize {
    type Strategy: SlowStart;

    /// Every problem of the parameters; `path` is the `slow_start` table's.
    fn validate(&self, _path: &str, _problems: &mut Problems) {}

    /// The strategy for a connection of `n_subflows` subflows (coupled
    /// strategies size their per-subflow state here, once), over the
    /// profile's standard slow start. Runs after validation only.
    fn build(&self, standard: StandardConfig, n_subflows: usize) -> Self::Strategy;
}

macro_rules! slow_starts {
    ($($(#[$attr:meta])* $name:literal => $Variant:ident($module:ident::$Config:ident),)*) => {
        $($(#[$attr])* pub mod $module;)*

        /// Which slow start a connection's subflows use, with its
        /// parameters: `{type = "name", ...}`.
        #[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
        #[serde(tag = "type", deny_unknown_fields)]
        pub enum SlowStartConfig {
            $($(#[$attr])* #[serde(rename = $name)] $Variant {
                #[serde(flatten, default)]
                config: $module::$Config,
            },)*
        }

        impl SlowStartConfig {
            /// Every slow start's name, in the registry's order.
            pub const NAMES: &'static [&'static str] = &[$($(#[$attr])* $name,)*];

            /// The name a scenario gives it.
            pub fn name(&self) -> &'static str {
                match self {
                    $($(#[$attr])* SlowStartConfig::$Variant { .. } => $name,)*
                }
            }

            /// Every problem of its parameters; `path` is the `slow_start` table's.
            pub fn validate(&self, path: &str, problems: &mut Problems) {
                match self {
                    $($(#[$attr])* SlowStartConfig::$Variant { config } => config.validate(path, problems),)*
                }
            }

            /// The strategy, once validated.
            pub fn build(&self, standard: StandardConfig, n_subflows: usize) -> Ss {
                match self {
                    $($(#[$attr])* SlowStartConfig::$Variant { config } => Ss::$Variant(config.build(standard, n_subflows)),)*
                }
            }

            /// Each slow start's name and parameters with their defaults.
            pub fn schema() -> Vec<(&'static str, serde_json::Value)> {
                vec![$($(#[$attr])* ($name, serde_json::to_value($module::$Config::default()).unwrap_or_default()),)*]
            }
        }

        /// The slow-start strategies, dispatched by enum.
        #[derive(Clone, Debug)]
        pub enum Ss {
            $($(#[$attr])* $Variant(<$module::$Config as SsFactory>::Strategy),)*
        }

        macro_rules! each_ss {
            ($self:ident, $x:ident => $e:expr) => {
                match $self {
                    $($(#[$attr])* Ss::$Variant($x) => $e,)*
                }
            };
        }
    };
}

// The registry: every slow start, once. A line is `"name" =>
// Variant(module::Config)`: the name a scenario gives in `slow_start =
// {type = "name", ...}`, the variant of [`SlowStartConfig`] and of [`Ss`],
// and the configuration, which validates itself and builds the strategy
// ([`SsFactory`]) in the strategy's own file `slowstart/module.rs`.
slow_starts! {
    "standard" => Standard(standard::StandardSsConfig),
    "lisa" => Lisa(lisa::LisaConfig),
    "css" => Css(css::CssConfig),
    "gsam" => Gsam(gsam::GsamConfig),
    "hystart" => HyStart(hystart::HyStartConfig),
    "hystart_linux" => HyStartLinux(hystart_linux::HyStartLinuxConfig),
    "hystart_ns3" => HyStartNs3(hystart_ns3::HyStartNs3Config),
    "python" => Plugin(plugin::PluginSsConfig),
}

impl Default for SlowStartConfig {
    /// Each subflow on its own, as the profile counts ACKs.
    fn default() -> Self {
        SlowStartConfig::Standard {
            config: Default::default(),
        }
    }
}

impl SlowStartConfig {
    /// The standard slow start: each subflow on its own.
    pub fn is_standard(&self) -> bool {
        matches!(self, SlowStartConfig::Standard { .. })
    }

    /// The slow start that runs: the standard one becomes HyStart++ or
    /// Linux's HyStart when a flow's TCP options ask for one of them
    /// (`tcp.hystart`, `tcp.hystart_linux`; validation refuses both at once),
    /// or ns-3's `TcpCubic` slow start under the `ns3` profile with CUBIC.
    pub fn with_early_exit(
        &self,
        hystart: Option<HyStartConfig>,
        hystart_linux: Option<HyStartLinuxConfig>,
        hystart_ns3: Option<HyStartNs3Config>,
    ) -> Self {
        match (self.is_standard(), hystart, hystart_linux, hystart_ns3) {
            (true, Some(config), _, _) => SlowStartConfig::HyStart { config },
            (true, None, Some(config), _) => SlowStartConfig::HyStartLinux { config },
            (true, None, None, Some(config)) => SlowStartConfig::HyStartNs3 { config },
            _ => self.clone(),
        }
    }
}

/// The clamp of a HyStart delay threshold (Linux's and ns-3's): its upper
/// bound, `delay_thresh_max_us`, not below its lower; `path` is the table's.
pub(crate) fn check_delay_thresh(path: &str, min_us: u64, max_us: u64, problems: &mut Problems) {
    if max_us < min_us {
        problems.out_of(
            format!("{path}.delay_thresh_max_us"),
            max_us,
            format!("at least delay_thresh_min_us ({min_us})"),
        );
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimDuration;

    const MSS: u64 = 1000;

    fn subflow(cwnd_pkts: u64, srtt_ms: u64) -> SubflowCc {
        let mut sf = SubflowCc::new(MSS as u32, cwnd_pkts * MSS, u64::MAX);
        sf.established = true;
        sf.delivered_bytes = MSS;
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
        // An external slow start needs its caller's factory: tested with the bindings.
        for (name, _) in SlowStartConfig::schema()
            .into_iter()
            .filter(|(name, _)| *name != "python")
        {
            let config: SlowStartConfig = serde_json::from_str(&format!(r#"{{"type": "{name}"}}"#)).unwrap();
            let mut ss = config.build(StandardConfig::default(), 1);
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
