//! `fullmesh` (the out-of-tree Linux MPTCP's `mptcp_fullmesh.c`): one
//! subflow per pair of a local and a remote address.

use super::ManagePaths;
use crate::ids::AddrId;

pub struct Fullmesh;

impl ManagePaths for Fullmesh {
    fn initial_subflows(&self, srcs: &[AddrId], dsts: &[AddrId]) -> Vec<(AddrId, AddrId)> {
        srcs.iter().flat_map(|&s| dsts.iter().map(move |&d| (s, d))).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_source_meets_every_destination_the_first_pair_first() {
        let (a, b, x, y) = (AddrId(0), AddrId(1), AddrId(2), AddrId(3));
        assert_eq!(
            Fullmesh.initial_subflows(&[a, b], &[x, y]),
            [(a, x), (a, y), (b, x), (b, y)]
        );
    }
}
