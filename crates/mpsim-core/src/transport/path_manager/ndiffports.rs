//! `ndiffports` (the out-of-tree Linux MPTCP's `mptcp_ndiffports.c`):
//! `subflows` subflows between the first pair of addresses, each from its
//! own source port, so that ECMP may spread them over different paths.

use super::ManagePaths;
use crate::ids::AddrId;

pub struct Ndiffports {
    pub subflows: u32,
}

impl ManagePaths for Ndiffports {
    fn initial_subflows(&self, srcs: &[AddrId], dsts: &[AddrId]) -> Vec<(AddrId, AddrId)> {
        vec![(srcs[0], dsts[0]); self.subflows as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_subflows_share_the_first_pair() {
        let (a, b, x) = (AddrId(0), AddrId(1), AddrId(2));
        assert_eq!(Ndiffports { subflows: 3 }.initial_subflows(&[a, b], &[x]), [(a, x); 3]);
    }
}
