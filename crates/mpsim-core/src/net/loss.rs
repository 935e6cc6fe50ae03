//! Random packet loss on a link, stepped once per transmitted packet.

use serde::{Deserialize, Serialize};

use crate::observe::DropReason;
use crate::rng::RngStream;

/// Random loss applied to every packet a link transmits.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum LossConfig {
    #[default]
    None,
    /// Each packet is lost independently with probability `p`.
    Bernoulli { p: f64 },
    /// Two-state Markov chain stepped once per packet: from good to bad with
    /// `p_gb`, from bad to good with `p_bg`; a packet is lost with
    /// `loss_good` in the good state and `loss_bad` in the bad state.
    GilbertElliott {
        p_gb: f64,
        p_bg: f64,
        #[serde(default)]
        loss_good: f64,
        #[serde(default = "one_f64")]
        loss_bad: f64,
    },
}

fn one_f64() -> f64 {
    1.0
}

#[derive(Clone, Debug, PartialEq)]
pub enum LossModel {
    None,
    /// Independent loss with probability `p`.
    Bernoulli {
        p: f64,
    },
    /// Gilbert–Elliott two-state Markov chain (Gilbert 1960, Elliott 1963).
    /// Per packet, the state moves first (good→bad with `p_gb`, bad→good with
    /// `p_bg`), then the packet is lost with the new state's loss probability.
    /// The stationary probability of the bad state is p_gb / (p_gb + p_bg).
    GilbertElliott {
        p_gb: f64,
        p_bg: f64,
        loss_good: f64,
        loss_bad: f64,
        /// Current state: true while bad.
        bad: bool,
    },
}

impl LossModel {
    pub fn from_config(cfg: &LossConfig) -> Self {
        match *cfg {
            LossConfig::None => LossModel::None,
            LossConfig::Bernoulli { p } => LossModel::Bernoulli { p },
            LossConfig::GilbertElliott {
                p_gb,
                p_bg,
                loss_good,
                loss_bad,
            } => LossModel::GilbertElliott {
                p_gb,
                p_bg,
                loss_good,
                loss_bad,
                bad: false,
            },
        }
    }

    /// Whether the next packet is lost. Draws nothing when there is no loss,
    /// so a lossless link consumes no random numbers.
    #[inline]
    pub fn lose(&mut self, rng: &mut RngStream) -> bool {
        match self {
            LossModel::None => false,
            LossModel::Bernoulli { p } => rng.bernoulli(*p),
            LossModel::GilbertElliott {
                p_gb,
                p_bg,
                loss_good,
                loss_bad,
                bad,
            } => {
                let flip = if *bad { *p_bg } else { *p_gb };
                if rng.bernoulli(flip) {
                    *bad = !*bad;
                }
                rng.bernoulli(if *bad { *loss_bad } else { *loss_good })
            }
        }
    }

    /// The long-run fraction of packets lost.
    /// What a packet this model loses is reported as.
    pub fn drop_reason(&self) -> DropReason {
        match self {
            LossModel::GilbertElliott { .. } => DropReason::GilbertElliott,
            LossModel::None | LossModel::Bernoulli { .. } => DropReason::RandomLoss,
        }
    }

    pub fn stationary_loss_rate(&self) -> f64 {
        match *self {
            LossModel::None => 0.0,
            LossModel::Bernoulli { p } => p,
            LossModel::GilbertElliott {
                p_gb,
                p_bg,
                loss_good,
                loss_bad,
                ..
            } => {
                if p_gb + p_bg == 0.0 {
                    return loss_good;
                }
                let pi_bad = p_gb / (p_gb + p_bg);
                pi_bad * loss_bad + (1.0 - pi_bad) * loss_good
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::StreamDomain;

    fn measured(model: &mut LossModel, n: u32, seed: u64) -> f64 {
        let mut rng = RngStream::derive(seed, StreamDomain::LinkLoss, 0);
        (0..n).filter(|_| model.lose(&mut rng)).count() as f64 / n as f64
    }

    #[test]
    fn bernoulli_rate() {
        for &p in &[0.001, 0.01, 0.2] {
            let mut m = LossModel::Bernoulli { p };
            let n = 1_000_000;
            let rate = measured(&mut m, n, 11);
            let sd = (p * (1.0 - p) / n as f64).sqrt();
            assert!((rate - p).abs() < 5.0 * sd, "p={p} measured {rate}");
        }
    }

    #[test]
    fn gilbert_elliott_stationary_rate() {
        let cfg = LossConfig::GilbertElliott {
            p_gb: 0.01,
            p_bg: 0.2,
            loss_good: 0.001,
            loss_bad: 0.5,
        };
        let mut m = LossModel::from_config(&cfg);
        let expect = m.stationary_loss_rate();
        // pi_bad = 0.01/0.21; expected = 0.0238 * 0.5 + 0.976 * 0.001.
        assert!((expect - (0.01 / 0.21 * 0.5 + 0.2 / 0.21 * 0.001)).abs() < 1e-15);
        let rate = measured(&mut m, 2_000_000, 5);
        // Losses are bursty (mean bad sojourn 5 packets), so the variance is
        // several times the Bernoulli one; 5 % relative is ~6 sigma here.
        assert!(
            (rate - expect).abs() / expect < 0.05,
            "expected {expect}, measured {rate}"
        );
    }

    #[test]
    fn gilbert_elliott_losses_are_bursty() {
        // With loss only in the bad state, the mean run of consecutive losses
        // is the mean bad sojourn 1/p_bg when loss_bad = 1.
        let mut m = LossModel::from_config(&LossConfig::GilbertElliott {
            p_gb: 0.02,
            p_bg: 0.25,
            loss_good: 0.0,
            loss_bad: 1.0,
        });
        let mut rng = RngStream::derive(9, StreamDomain::LinkLoss, 1);
        let (mut runs, mut lost, mut prev) = (0u32, 0u32, false);
        for _ in 0..1_000_000 {
            let l = m.lose(&mut rng);
            if l {
                lost += 1;
                if !prev {
                    runs += 1;
                }
            }
            prev = l;
        }
        let mean_run = lost as f64 / runs as f64;
        assert!((mean_run - 4.0).abs() < 0.15, "mean burst {mean_run}");
    }
}
