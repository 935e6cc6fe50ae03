//! The default scheduler of the Linux MPTCP implementation: the subflow
//! with the lowest smoothed RTT among those with room in their window.

use super::{Chunk, Schedule, Subflows};

#[derive(Clone, Copy, Debug, Default)]
pub struct MinRtt;

impl Schedule for MinRtt {
    fn pick(&mut self, subflows: &mut impl Subflows, chunk: &Chunk) -> Option<usize> {
        let mut best: Option<usize> = None;
        let mut fallback = None;
        for r in 0..subflows.count() {
            if !subflows.has_room(r, chunk.len) {
                continue;
            }
            if Some(r) == chunk.avoid {
                fallback = Some(r);
                continue;
            }
            if best.is_none_or(|b| subflows.srtt(r) < subflows.srtt(b)) {
                best = Some(r);
            }
        }
        best.or(fallback)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;

    #[test]
    fn picks_the_lowest_rtt_with_room_and_avoids_the_reinjection_source() {
        let mut s = Fixed::new(&[(30, 10, true), (10, 10, false), (20, 10, true), (20, 10, true)]);
        // Subflow 1 is fastest but full; 2 and 3 tie, the first wins.
        assert_eq!(MinRtt.pick(&mut s, &chunk(0, u64::MAX)), Some(2));
        // Every subflow is asked (each one without room is noted as limited).
        assert_eq!(s.asked, vec![0, 1, 2, 3]);
        let reinjected = Chunk {
            avoid: Some(2),
            ..chunk(0, u64::MAX)
        };
        assert_eq!(MinRtt.pick(&mut s, &reinjected), Some(3));
        let only = Fixed::new(&[(10, 10, true)]);
        let reinjected = Chunk {
            avoid: Some(0),
            ..chunk(0, u64::MAX)
        };
        // With no other subflow, the source takes it again.
        assert_eq!(MinRtt.pick(&mut { only }, &reinjected), Some(0));
    }
}
