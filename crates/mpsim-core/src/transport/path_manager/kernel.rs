//! `kernel`: upstream Linux's in-kernel path manager (`net/mptcp/pm_kernel.c`,
//! 6.18), as a host configured with `ip mptcp endpoint` and `ip mptcp
//! limits` runs it. It runs on the side that opened the connection: every
//! address of that side beyond the first is a `subflow` endpoint, every
//! address of the other side beyond its first a `signal` endpoint, which
//! that side announces (ADD_ADDR).
//!
//! When the connection is fully established the opener first accepts the
//! announced addresses (`mptcp_pm_nl_add_addr_received`: one subflow from
//! its first address to each, while fewer than `add_addr_accepted` were
//! accepted), then opens one subflow from each of its own endpoints to the
//! peer's first address (`mptcp_pm_create_subflow_or_signal_addr`, not
//! `fullmesh`), every subflow within the limit of `subflows` beyond the
//! first (`limit_extra_subflows`). Linux's defaults: 2 and 0. The worker
//! handles an ADD_ADDR before the full establishment
//! (`__mptcp_pm_kernel_worker`); both arrive together, since the peer
//! announces at its own full establishment, one one-way delay before the
//! opener's.

use super::ManagePaths;
use crate::ids::AddrId;
use crate::transport::mptcp::Initiator;

pub struct Kernel {
    pub subflows: u32,
    pub add_addr_accepted: u32,
    pub initiator: Initiator,
}

impl ManagePaths for Kernel {
    fn initial_subflows(&self, srcs: &[AddrId], dsts: &[AddrId]) -> Vec<(AddrId, AddrId)> {
        let (opener, peer) = match self.initiator {
            Initiator::Sender => (srcs, dsts),
            Initiator::Receiver => (dsts, srcs),
        };
        let mut pairs = vec![(opener[0], peer[0])];
        let room = self.subflows as usize;
        let announced = peer[1..].iter().take(self.add_addr_accepted as usize);
        pairs.extend(announced.map(|&p| (opener[0], p)).take(room));
        let left = room + 1 - pairs.len();
        pairs.extend(opener[1..].iter().map(|&o| (o, peer[0])).take(left));
        // The subflows run from the data sender to the data receiver.
        if self.initiator == Initiator::Receiver {
            for p in pairs.iter_mut() {
                *p = (p.1, p.0);
            }
        }
        pairs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: AddrId = AddrId(0);
    const B: AddrId = AddrId(1);
    const C: AddrId = AddrId(2);
    const X: AddrId = AddrId(10);
    const Y: AddrId = AddrId(11);

    fn kernel(subflows: u32, add_addr_accepted: u32, initiator: Initiator) -> Kernel {
        Kernel {
            subflows,
            add_addr_accepted,
            initiator,
        }
    }

    #[test]
    fn the_opener_joins_from_each_endpoint_to_the_peers_first_address() {
        // A dual-homed client uploading to a server of two addresses, with
        // the defaults: no announced address accepted, two extra subflows.
        let k = kernel(2, 0, Initiator::Sender);
        assert_eq!(k.initial_subflows(&[A, B, C], &[X, Y]), [(A, X), (B, X), (C, X)]);
        // `subflows 1`: one join only.
        assert_eq!(
            kernel(1, 0, Initiator::Sender).initial_subflows(&[A, B, C], &[X]),
            [(A, X), (B, X)]
        );
    }

    #[test]
    fn announced_addresses_come_first_from_the_openers_first_address() {
        let k = kernel(2, 1, Initiator::Sender);
        assert_eq!(k.initial_subflows(&[A, B], &[X, Y]), [(A, X), (A, Y), (B, X)]);
        // The limit of two extra subflows leaves the second endpoint out.
        assert_eq!(k.initial_subflows(&[A, B, C], &[X, Y]), [(A, X), (A, Y), (B, X)]);
    }

    #[test]
    fn a_download_runs_the_manager_at_the_receiver() {
        // The client (the data receiver, X and Y) connected: its second
        // address is the endpoint; the server's second address B is
        // announced, and accepted only with add_addr_accepted ≥ 1.
        let k = kernel(2, 0, Initiator::Receiver);
        assert_eq!(k.initial_subflows(&[A, B], &[X, Y]), [(A, X), (A, Y)]);
        let k = kernel(2, 1, Initiator::Receiver);
        assert_eq!(k.initial_subflows(&[A, B], &[X, Y]), [(A, X), (B, X), (A, Y)]);
    }
}
