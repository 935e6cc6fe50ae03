//! Subflows in turn, skipping those without room (the Linux MPTCP
//! implementation's `roundrobin` scheduler).

use super::{Chunk, Schedule, Subflows};

#[derive(Clone, Copy, Debug, Default)]
pub struct RoundRobin {
    /// The subflow whose turn is next.
    next: usize,
}

impl Schedule for RoundRobin {
    fn pick(&mut self, subflows: &mut impl Subflows, chunk: &Chunk) -> Option<usize> {
        let n = subflows.count();
        let mut fallback = None;
        let mut chosen = None;
        for i in 0..n {
            let r = (self.next + i) % n;
            if !subflows.has_room(r, chunk.len) {
                continue;
            }
            if Some(r) == chunk.avoid {
                fallback = Some(r);
                continue;
            }
            chosen = Some(r);
            break;
        }
        let chosen = chosen.or(fallback);
        if let Some(r) = chosen {
            self.next = (r + 1) % n;
        }
        chosen
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;

    #[test]
    fn takes_turns_and_skips_full_subflows_without_asking_past_its_pick() {
        let mut s = Fixed::new(&[(10, 10, true), (10, 10, false), (50, 10, true)]);
        let mut rr = RoundRobin::default();
        let picks: Vec<_> = (0..4).map(|_| rr.pick(&mut s, &chunk(0, u64::MAX))).collect();
        assert_eq!(picks, vec![Some(0), Some(2), Some(0), Some(2)]);
        // The first pick stops at subflow 0; the second asks 1, then 2.
        assert_eq!(s.asked[..3], [0, 1, 2]);
    }
}
