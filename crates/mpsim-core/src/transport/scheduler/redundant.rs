//! Every chunk on every subflow that has room when it is sent (the Linux
//! MPTCP implementation's `redundant` scheduler): the first copy goes where
//! the minimum-RTT scheduler would put it, the others follow.

use super::{Chunk, MinRtt, Schedule, Subflows};

#[derive(Clone, Copy, Debug, Default)]
pub struct Redundant;

impl Schedule for Redundant {
    fn pick(&mut self, subflows: &mut impl Subflows, chunk: &Chunk) -> Option<usize> {
        MinRtt.pick(subflows, chunk)
    }

    fn duplicates(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;

    #[test]
    fn first_copy_on_the_fastest_subflow_with_room_and_asks_for_copies() {
        let mut s = Fixed::new(&[(30, 10, true), (10, 10, true)]);
        assert_eq!(Redundant.pick(&mut s, &chunk(0, u64::MAX)), Some(1));
        assert!(Redundant.duplicates());
        assert!(!MinRtt.duplicates());
    }
}
