//! What the coupled congestion-avoidance algorithms (EWTCP, COUPLED,
//! SEMI-COUPLED, LIA, OLIA, BALIA) share: which subflows take part in the
//! coupled sums, which window and RTT they contribute, how a fractional
//! increase in bytes reaches an integer window, and the Linux kernel's
//! per-ACK-event Reno counter. docs/algorithms.md, "Coupled congestion
//! avoidance", gives the readings.

use super::{AckInfo, CongestionAvoidance, Reno, RenoConfig, SubflowCc};
use crate::time::SimTime;

/// Which version of a coupled algorithm runs.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Flavour {
    /// The published formulas: increases counted in acknowledged bytes,
    /// computed in floating point from the current windows.
    #[default]
    Paper,
    /// What the out-of-tree Linux MPTCP kernel v0.9x does: one counter step
    /// per ACK event, windows in whole packets, its fixed-point arithmetic and
    /// integer divisions (reference-semantics.md §2.1–2.3).
    Linux,
}

/// RFC 6356 §3 / kernel `mptcp_sk_can_send && srtt_us`: a subflow takes part
/// in the coupled sums when it can send and has an RTT sample.
#[inline]
pub(crate) fn counts(sf: &SubflowCc) -> bool {
    sf.established && sf.srtt.0 > 0
}

/// Number of subflows that take part in the coupled sums.
#[inline]
pub(crate) fn counted(s: &[SubflowCc]) -> usize {
    s.iter().filter(|sf| counts(sf)).count()
}

/// RFC 6356 §3: subflow `r` behaves as single-path TCP (the connection's
/// Reno) when at most one subflow takes part in the coupled sums, or when
/// `r` itself does not (no RTT sample yet): every coupled formula then
/// reduces to Reno's.
#[inline]
pub(crate) fn single_path(s: &[SubflowCc], r: usize) -> bool {
    counted(s) <= 1 || !counts(&s[r])
}

/// Number of established subflows (the kernel's `cnt_established`, which
/// does not ask for an RTT sample).
#[inline]
pub(crate) fn established(s: &[SubflowCc]) -> usize {
    s.iter().filter(|sf| sf.established).count()
}

/// The window, in bytes, a subflow contributes to the paper flavour's sums:
/// ssthresh while it is in fast recovery (the window the fluid models assume
/// right after the halving; cwnd is inflated or follows PRR there), else cwnd.
#[inline]
pub(crate) fn paper_window(sf: &SubflowCc) -> f64 {
    paper_window_bytes(sf) as f64
}

/// [`paper_window`] as an integer number of bytes.
#[inline]
pub(crate) fn paper_window_bytes(sf: &SubflowCc) -> u64 {
    if sf.in_recovery {
        sf.ssthresh
    } else {
        sf.cwnd
    }
}

/// cwnd_total, bytes: Σ [`paper_window`] over the subflows taking part.
#[inline]
pub(crate) fn paper_total(s: &[SubflowCc]) -> f64 {
    s.iter().filter(|sf| counts(sf)).map(paper_window).sum()
}

/// Smoothed RTT in nanoseconds, as f64.
#[inline]
pub(crate) fn rtt_ns(sf: &SubflowCc) -> f64 {
    sf.srtt.0 as f64
}

/// The kernel's `srtt_us`: eight times the smoothed RTT in microseconds
/// (at least 1 so that it can divide).
#[inline]
pub(crate) fn srtt_us8(sf: &SubflowCc) -> u64 {
    (sf.srtt.0 * 8 / 1000).max(1)
}

/// cwnd in whole packets (the kernel's `snd_cwnd`), at least 1.
#[inline]
pub(crate) fn cwnd_pkts(sf: &SubflowCc) -> u64 {
    (sf.cwnd / sf.mss as u64).max(1)
}

/// Adds a (possibly negative) increase of `inc_bytes` to cwnd: the whole
/// bytes go to cwnd, the fraction is carried in `frac` to the next ACK so
/// that no increase is lost to rounding. cwnd never falls below one MSS.
#[inline]
pub(crate) fn apply_increase(sf: &mut SubflowCc, frac: &mut f64, inc_bytes: f64) {
    let floor = sf.mss as u64;
    if !inc_bytes.is_finite() {
        return;
    }
    *frac += inc_bytes;
    let whole = frac.floor();
    *frac -= whole;
    if whole >= 0.0 {
        sf.cwnd = sf.cwnd.saturating_add(whole as u64);
    } else {
        sf.cwnd = sf.cwnd.saturating_sub((-whole) as u64).max(floor);
    }
}

/// Linux `tcp_reno_ssthresh`: max(cwnd/2, 2) in whole packets, as bytes.
#[inline]
pub(crate) fn linux_reno_ssthresh(sf: &SubflowCc) -> u64 {
    (cwnd_pkts(sf) / 2).max(2) * sf.mss as u64
}

/// The kernel's additive-increase counter (`mptcp_ccc_cong_avoid`,
/// `mptcp_balia_cong_avoid`): one step per ACK event; once the counter has
/// reached `threshold`, cwnd grows by one packet and the counter restarts.
/// Returns whether cwnd grew.
#[inline]
pub(crate) fn linux_counter_step(sf: &mut SubflowCc, cnt: &mut u64, threshold: u64) -> bool {
    if *cnt >= threshold {
        sf.cwnd = cwnd_pkts(sf) * sf.mss as u64 + sf.mss as u64;
        *cnt = 0;
        true
    } else {
        *cnt += 1;
        false
    }
}

/// What the byte-counting (paper) form of every coupled algorithm keeps
/// beside its formula: the connection's Reno, which runs while the subflow
/// behaves as single-path TCP ([`single_path`]) and gives most of them their
/// decrease, and per subflow the fraction of a byte of increase carried to
/// the next ACK ([`apply_increase`]), dropped at a loss or a timeout.
#[derive(Clone, Debug, Default)]
pub(crate) struct PaperIncrease {
    /// The connection's Reno (the profile's counting and halving).
    pub reno: Reno,
    /// Per subflow: fraction of a byte of increase carried to the next ACK.
    frac: Vec<f64>,
}

impl PaperIncrease {
    pub fn new(reno: RenoConfig) -> Self {
        PaperIncrease {
            reno: Reno::new(reno),
            frac: Vec::new(),
        }
    }

    /// Grows the per-subflow state to `n` subflows (only when subflows are
    /// added, never per ACK).
    #[inline]
    pub fn size(&mut self, n: usize) {
        if self.frac.len() < n {
            self.frac.resize(n, 0.0);
        }
    }

    /// Adds `inc_bytes` to subflow `r`'s cwnd with its carried fraction.
    #[inline]
    pub fn apply(&mut self, s: &mut [SubflowCc], r: usize, inc_bytes: f64) {
        self.size(r + 1);
        apply_increase(&mut s[r], &mut self.frac[r], inc_bytes);
    }

    /// A loss or a timeout on subflow `r`: its carried fraction is dropped.
    #[inline]
    pub fn reset(&mut self, r: usize) {
        if let Some(f) = self.frac.get_mut(r) {
            *f = 0.0;
        }
    }
}

/// What one coupled AIMD algorithm is (Couple+ paper Table I; htsim's
/// `inflate_window` / `deflate_window`): an increase per ACK and a decrease
/// per loss. [`CoupledAimd`] holds the rest — the connection's Reno while a
/// subflow runs alone, the carried fractions of a byte, the RFC 7661 check.
pub trait CoupledRule: Copy + std::fmt::Debug + Default {
    /// Whether the rule reduces to Reno while subflow `r` behaves as
    /// single-path TCP ([`single_path`]), so that the connection's Reno runs
    /// instead (its counting and halving by profile).
    fn reno_alone(&self) -> bool {
        true
    }

    /// The increase of subflow `r`'s window, bytes, for an ACK of `acked`
    /// new bytes; `None` leaves the window as it is.
    fn increase_bytes(&self, s: &[SubflowCc], r: usize, acked: u64) -> Option<f64>;

    /// The new ssthresh, bytes, after a loss on subflow `r` while it takes
    /// part with others; `None` is Reno's halving.
    fn decrease(&self, _s: &[SubflowCc], _r: usize) -> Option<u64> {
        None
    }
}

/// Coupled congestion avoidance over a [`CoupledRule`], counted in
/// acknowledged bytes (the paper flavour): EWTCP, COUPLED, SEMI-COUPLED and
/// LIA are each one rule.
#[derive(Clone, Debug, Default)]
pub struct CoupledAimd<R> {
    /// The increase and decrease rule (the algorithm's configuration).
    pub config: R,
    /// The connection's Reno and the carried fractions of the increase.
    paper: PaperIncrease,
}

impl<R: CoupledRule> CoupledAimd<R> {
    pub fn new(config: R) -> Self {
        CoupledAimd {
            config,
            paper: PaperIncrease::default(),
        }
    }

    /// The Reno that runs while a subflow is alone and gives the halving
    /// (the connection's profile: counting and halving).
    pub fn with_reno(mut self, reno: RenoConfig) -> Self {
        self.paper = PaperIncrease::new(reno);
        self
    }
}

impl<R: CoupledRule> CongestionAvoidance for CoupledAimd<R> {
    fn on_ack(&mut self, s: &mut [SubflowCc], r: usize, ack: &AckInfo) {
        // RFC 7661: a window the sender does not fill does not grow.
        if !ack.cwnd_limited || ack.acked_bytes == 0 {
            return;
        }
        self.paper.size(s.len());
        if self.config.reno_alone() && single_path(s, r) {
            return self.paper.reno.on_ack(s, r, ack);
        }
        if let Some(inc) = self.config.increase_bytes(s, r, ack.acked_bytes) {
            self.paper.apply(s, r, inc);
        }
    }

    fn ssthresh_after_loss(&mut self, s: &[SubflowCc], r: usize, now: SimTime) -> u64 {
        self.paper.reset(r);
        let coupled = if single_path(s, r) {
            None
        } else {
            self.config.decrease(s, r)
        };
        coupled.unwrap_or_else(|| self.paper.reno.ssthresh_after_loss(s, r, now))
    }

    fn on_rto(&mut self, _s: &mut [SubflowCc], r: usize, _now: SimTime) {
        self.paper.reset(r);
    }

    fn on_subflows_changed(&mut self, s: &[SubflowCc]) {
        self.paper.size(s.len());
    }
}

#[cfg(test)]
pub(crate) mod test_util {
    use super::SubflowCc;
    use crate::time::SimDuration;

    pub const MSS: u64 = 1000;

    /// An established subflow in congestion avoidance with `cwnd_pkts`
    /// packets of 1000 bytes and the given smoothed RTT.
    pub fn sf(cwnd_pkts: u64, rtt_ms: u64) -> SubflowCc {
        let mut s = SubflowCc::new(MSS as u32, cwnd_pkts * MSS, cwnd_pkts * MSS / 2);
        s.established = true;
        s.srtt = SimDuration::from_millis(rtt_ms);
        s.left_slow_start = true;
        s
    }

    pub fn ack(bytes: u64) -> crate::cc::AckInfo {
        crate::cc::AckInfo {
            now: crate::time::SimTime::ZERO,
            acked_bytes: bytes,
            cwnd_limited: true,
        }
    }

    pub fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::test_util::*;
    use super::*;

    #[test]
    fn fractions_carry_over_and_negative_increases_respect_the_floor() {
        let mut s = sf(10, 10);
        let mut frac = 0.0;
        apply_increase(&mut s, &mut frac, 0.6);
        assert_eq!(s.cwnd, 10_000);
        apply_increase(&mut s, &mut frac, 0.6);
        assert_eq!(s.cwnd, 10_001);
        assert!(close(frac, 0.2));
        apply_increase(&mut s, &mut frac, -1.7);
        // 0.2 − 1.7 = −1.5: floor −2, carry 0.5.
        assert_eq!(s.cwnd, 9_999);
        assert!(close(frac, 0.5));
        apply_increase(&mut s, &mut frac, -1e9);
        assert_eq!(s.cwnd, MSS);
    }

    #[test]
    fn paper_window_is_ssthresh_in_recovery() {
        let mut s = sf(10, 10);
        s.ssthresh = 4000;
        s.cwnd = 7000;
        assert_eq!(paper_window(&s), 7000.0);
        s.in_recovery = true;
        assert_eq!(paper_window(&s), 4000.0);
    }

    #[test]
    fn kernel_counter_grows_after_threshold_plus_one_events() {
        let mut s = sf(10, 10);
        let mut cnt = 0;
        for _ in 0..10 {
            assert!(!linux_counter_step(&mut s, &mut cnt, 10));
        }
        assert!(linux_counter_step(&mut s, &mut cnt, 10));
        assert_eq!(s.cwnd, 11_000);
        assert_eq!(cnt, 0);
    }

    #[test]
    fn configurations_parse_with_defaults_and_reject_unknown_fields() {
        use crate::cc::CcConfig;
        let parse = |j: &str| serde_json::from_str::<CcConfig>(j);
        for ty in ["lia", "olia", "balia"] {
            let paper = parse(&format!(r#"{{"type":"{ty}"}}"#)).unwrap();
            let linux = parse(&format!(r#"{{"type":"{ty}","flavour":"linux"}}"#)).unwrap();
            let flavours = |c: &CcConfig| match c {
                CcConfig::Lia { config } => config.flavour,
                CcConfig::Olia { config } => config.flavour,
                CcConfig::Balia { config } => config.flavour,
                _ => unreachable!(),
            };
            assert_eq!(flavours(&paper), Flavour::Paper);
            assert_eq!(flavours(&linux), Flavour::Linux);
            assert!(parse(&format!(r#"{{"type":"{ty}","flavour":"kernel"}}"#)).is_err());
            assert!(parse(&format!(r#"{{"type":"{ty}","flavor":"linux"}}"#)).is_err());
        }
        assert_eq!(
            parse(r#"{"type":"ewtcp"}"#).unwrap(),
            CcConfig::Ewtcp {
                config: Default::default()
            }
        );
        match parse(r#"{"type":"ewtcp","a":0.5}"#).unwrap() {
            CcConfig::Ewtcp { config } => assert_eq!(config.a, Some(0.5)),
            c => panic!("{c:?}"),
        }
        match parse(r#"{"type":"semicoupled"}"#).unwrap() {
            CcConfig::SemiCoupled { config } => assert_eq!(config.a, 1.0),
            c => panic!("{c:?}"),
        }
        assert!(parse(r#"{"type":"coupled"}"#).is_ok());
        assert!(parse(r#"{"type":"coupled","a":1}"#).is_err());
    }

    #[test]
    fn a_bad_weight_names_the_field() {
        use crate::cc::CcConfig;
        let cc: CcConfig = serde_json::from_str(r#"{"type":"semicoupled","a":-1}"#).unwrap();
        let mut problems = crate::error::Problems::default();
        cc.validate("mptcp_connections[0].cc", &mut problems);
        let Err(e) = problems.finish() else {
            panic!("a negative weight was accepted");
        };
        assert_eq!(e[0].path, "mptcp_connections[0].cc.a");
        assert_eq!(
            (e[0].value.as_str(), e[0].allowed.as_str()),
            ("-1", "a positive number")
        );
    }
}
