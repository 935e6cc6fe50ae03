//! Plain TCP's data level: the flow's own byte stream on its one subflow.

use super::{DataLevel, SubflowSet};
use crate::context::Forward;
use crate::transport::subflow::{OptionBytes, Subflow, Wire};
use crate::transport::tcp::sender::{SenderState, Stream};
use crate::transport::Io;
use crate::wire::TcpHeader;

#[derive(Debug)]
pub struct StreamLevel {
    /// The flow's byte stream.
    pub stream: Stream,
}

impl StreamLevel {
    /// A stream of `size_bytes` bytes, or without end.
    pub fn new(size_bytes: Option<u64>) -> Self {
        StreamLevel {
            stream: Stream::new(size_bytes),
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

    fn advertised_window(&self, sf: &Subflow) -> u64 {
        sf.receiver.config.rwnd_bytes
    }
}
