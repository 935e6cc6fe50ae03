//! Plain TCP's data level: the flow's own byte stream on its one subflow.

use super::{DataLevel, SubflowSet};
use crate::context::Forward;
use crate::time::SimTime;
use crate::transport::subflow::{OptionBytes, Subflow, Wire};
use crate::transport::tcp::config::TcpParams;
use crate::transport::tcp::rcv_space::RcvSpace;
use crate::transport::tcp::sender::{SenderState, Stream};
use crate::transport::Io;
use crate::wire::TcpHeader;

#[derive(Debug)]
pub struct StreamLevel {
    /// The flow's byte stream.
    pub stream: Stream,
    /// The receiver's autotuned buffer, which bounds its `rcv_ssthresh`
    /// and so its quick ACKs (with `quickack_window_growth`, the `linux`
    /// profile's).
    rcv_space: Option<Box<RcvSpace>>,
}

impl StreamLevel {
    /// A stream of `size_bytes` bytes, or without end, under `params`.
    pub fn new(size_bytes: Option<u64>, params: &TcpParams) -> Self {
        StreamLevel {
            stream: Stream::new(size_bytes),
            rcv_space: params
                .receiver
                .quickack_window_growth
                .then(|| Box::new(RcvSpace::new(params.mss))),
        }
    }
}

impl DataLevel for StreamLevel {
    fn options(&self) -> OptionBytes {
        OptionBytes::default()
    }

    fn on_ack(&mut self, _hdr: &TcpHeader, subflows: &[Subflow]) -> bool {
        // Everything, the FIN included, is acknowledged.
        subflows[0].sender.state == SenderState::Done
    }

    fn push<N: Forward>(&mut self, io: &mut Io<'_, N>, set: SubflowSet<'_>) {
        let now = io.ctx.now;
        let sf = &mut set.subflows[0];
        let mut wire = Wire::new(io, set.params, self.options(), set.connection, 0, sf);
        sf.sender
            .transmit(now, set.params, &mut set.ccs[0], &mut self.stream, &mut wire);
    }

    fn set_clock_phase(&mut self, phase_ns: u64) {
        if let Some(s) = self.rcv_space.as_mut() {
            s.set_clock_phase(phase_ns);
        }
    }

    fn on_receiver_connected(&mut self, now: SimTime, opened: bool) {
        if let Some(s) = self.rcv_space.as_mut() {
            s.on_established(now, opened);
        }
    }

    fn on_receiver_established(&mut self, sf: &mut Subflow, opened: bool) {
        if let Some(s) = self.rcv_space.as_mut() {
            sf.receiver
                .bound_rcv_ssthresh(s.first_rcv_ssthresh(opened), s.growth_cap());
        }
    }

    fn on_data(&mut self, now: SimTime, hdr: &TcpHeader, sf: &mut Subflow) -> bool {
        if let Some(s) = self.rcv_space.as_mut() {
            if hdr.payload_bytes > 0 {
                // A receiver whose handshake's last ACK was lost is
                // established by the first data: it answered the SYN.
                sf.receiver
                    .bound_rcv_ssthresh(s.first_rcv_ssthresh(false), s.growth_cap());
                s.on_data(now, hdr.ts_ecr, hdr.payload_bytes);
                sf.receiver.set_rcv_ssthresh_cap(s.growth_cap());
            }
        }
        false
    }

    fn after_receive(&mut self, now: SimTime, sf: &mut Subflow) {
        if let Some(s) = self.rcv_space.as_mut() {
            if s.on_read(now, sf.receiver.delivered_bytes(), sf.receiver.ooo_span()) {
                sf.receiver.set_rcv_ssthresh_cap(s.growth_cap());
            }
        }
    }

    fn advertised_window(&self, sf: &Subflow) -> u64 {
        sf.receiver.config.rwnd_bytes
    }
}
