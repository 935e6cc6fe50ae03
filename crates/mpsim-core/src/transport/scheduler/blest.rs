//! BLEST, the blocking-estimation scheduler: S. Ferlin, Ö. Alay, O. Mehani,
//! R. Boreli, "BLEST: Blocking Estimation-based MPTCP Scheduler for
//! Heterogeneous Networks", IFIP Networking 2016.
//!
//! When the fastest subflow x_f has no room and the minimum-RTT choice is a
//! slower subflow x_s, a segment sent on x_s holds space in the
//! connection's send window for one RTT of x_s. BLEST estimates what x_f
//! could send in that time and, if the window would then be too small for
//! it, sends nothing now and waits for x_f (§III, Eqs. 1–2).
//!
//! The paper adapts the scaling factor λ at run time from the
//! retransmissions that head-of-line blocking causes; here λ is fixed.

use super::{fastest, Chunk, MinRtt, Schedule, Subflows};

#[derive(Clone, Copy, Debug)]
pub struct Blest {
    /// λ of Eq. 2: the margin on x_f's estimated sending.
    pub lambda: f64,
}

impl Default for Blest {
    fn default() -> Self {
        Blest { lambda: 1.0 }
    }
}

impl Blest {
    /// Whether to wait for the fastest subflow `f` rather than send on `s`.
    fn wait_for_fastest(&self, subflows: &impl Subflows, f: usize, s: usize, chunk: &Chunk) -> bool {
        let (fast, slow) = (subflows.state(f), subflows.state(s));
        if fast.srtt.nanos() == 0 {
            return false;
        }
        // Eq. 1: over rtt_s / rtt_f rounds in congestion avoidance (one MSS
        // more per round), x_f sends
        // X = MSS_f · (CWND_f + (rtt_s/rtt_f − 1) / 2) · rtt_s/rtt_f.
        let rounds = slow.srtt.nanos() as f64 / fast.srtt.nanos() as f64;
        let cwnd_f_segments = fast.cwnd_bytes as f64 / fast.mss as f64;
        let x = fast.mss as f64 * (cwnd_f_segments + (rounds - 1.0) / 2.0) * rounds;
        // Eq. 2: wait if X · λ > |W| − MSS_s · (inflight_s + 1), in bytes:
        // the window less x_s's bytes in flight and this chunk.
        let held_by_slow = slow.in_flight_bytes + chunk.len as u64;
        x * self.lambda > chunk.window_bytes.saturating_sub(held_by_slow) as f64
    }
}

impl Schedule for Blest {
    fn pick(&mut self, subflows: &mut impl Subflows, chunk: &Chunk) -> Option<usize> {
        let chosen = MinRtt.pick(subflows, chunk)?;
        match fastest(subflows) {
            Some(f) if f != chosen && self.wait_for_fastest(subflows, f, chosen, chunk) => None,
            _ => Some(chosen),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;

    #[test]
    fn waits_for_the_fast_subflow_when_the_window_would_block_it() {
        // x_f: 10 ms, 10 segments, full; x_s: 100 ms, room, 5 segments out.
        let mut s = Fixed::new(&[(10, 10, false), (100, 10, true)]);
        s.states[1].in_flight_bytes = 5 * MSS as u64;
        // Eq. 1: rtt_s/rtt_f = 10, X = 1000 · (10 + 4.5) · 10 = 145 000 bytes.
        // Eq. 2: with a window of 150 000, 150 000 − 6000 = 144 000 < X: wait.
        assert_eq!(Blest::default().pick(&mut s, &chunk(0, 150_000)), None);
        // A window of 151 000 leaves 145 000, not less than X: send on x_s.
        assert_eq!(Blest::default().pick(&mut s, &chunk(0, 151_000)), Some(1));
        // λ = 1.1 asks for 159 500.
        let mut blest = Blest { lambda: 1.1 };
        assert_eq!(blest.pick(&mut s, &chunk(0, 151_000)), None);
        assert_eq!(blest.pick(&mut s, &chunk(0, 165_500)), Some(1));
    }

    #[test]
    fn is_the_minimum_rtt_scheduler_while_the_fastest_has_room() {
        let mut s = Fixed::new(&[(10, 10, true), (100, 10, true)]);
        assert_eq!(Blest::default().pick(&mut s, &chunk(0, 1)), Some(0));
    }
}
