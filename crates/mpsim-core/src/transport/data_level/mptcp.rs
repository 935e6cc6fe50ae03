//! MPTCP's data level (RFC 8684): one data sequence space over the
//! subflows. A scheduler places each chunk on a subflow; each subflow
//! delivers its segments reliably in its own sequence space; the sender
//! learns from DATA_ACKs what the connection has delivered, and the
//! receiver reassembles by data sequence number in the shared buffer.

use std::collections::VecDeque;

use super::rcv_window::LinuxRcvWindow;
use super::{DataLevel, SubflowSet};
use crate::cc::SubflowCc;
use crate::context::Forward;
use crate::event::Event;
use crate::time::{SimDuration, SimTime};
use crate::transport::mptcp::{DataReceiver, MptcpRcvWindow, Scheduler};
use crate::transport::scheduler::{self, Schedule, Scheduling};
use crate::transport::subflow::{HeldSegment, OptionBytes, Subflow, TailSkb, Wire};
use crate::transport::tcp::config::TcpParams;
use crate::transport::tcp::sender::{Chunk, SenderState, TcpSender};
use crate::transport::tcp::timer::LazyTimer;
use crate::transport::Io;
use crate::wire::tcp::{TcpFlags, TcpHeader};

/// MPTCP option bytes on the wire (RFC 8684 §3), as Linux v0.9x sends them:
/// MP_CAPABLE on the SYN (12); DSS with a 4-byte DATA_ACK, a 4-byte data
/// sequence number mapping, subflow sequence number, length and checksum
/// on data (20); DSS with only the 4-byte DATA_ACK on an ACK (8).
const OPTIONS: OptionBytes = OptionBytes {
    syn: 12,
    data: 20,
    ack: 8,
};
/// With timestamps (12) and DSS on an ACK (8), 40 − 20 bytes remain for
/// SACK: two blocks.
const MPTCP_MAX_SACK_BLOCKS: u8 = 2;
/// What Linux's MSS option announces beyond an MPTCP data segment's
/// payload: the timestamps (12) and the DSS it puts on data (24).
const ADVMSS_BEYOND_PAYLOAD: u32 = 36;
/// The window Linux's SYN and SYN-ACK offer, `tcp_select_initial_window`:
/// 64 KiB of the default buffer rounded down to whole 1448-byte segments.
const INITIAL_WINDOW_BYTES: u64 = 65_160;

#[derive(Debug)]
pub struct MptcpLevel {
    /// Next new data sequence number.
    data_next: u64,
    /// One past the last data byte; `u64::MAX` without end.
    data_end: u64,
    /// Highest DATA_ACK received.
    data_una: u64,
    /// The connection's window from the latest ACK, bytes.
    data_wnd: u64,
    /// With Linux's window (`tcp.mptcp_rcv_window = "linux"`): the highest
    /// right edge, DATA_ACK + window, any ACK has given (`msk->wnd_end`,
    /// `ack_update_msk`), up to which the sender fills the window, a short
    /// segment at the edge.
    window_end: Option<u64>,
    /// Linux's autotuned receive buffer (`tcp.mptcp_rcv_window = "linux"`
    /// without a `rcv_buffer`).
    linux_window: Option<Box<LinuxRcvWindow>>,
    /// Chunks to send again after a subflow's timeout, with the subflow
    /// they came from.
    reinject: VecDeque<(u64, u32, usize)>,
    /// The packet scheduler.
    scheduling: Scheduling,
    /// The `linger` scheduler, which queues a chunk on a subflow beyond its
    /// window and so is not a [`Schedule`] (those only place what fits).
    linger: bool,
    /// The connection-level receiver.
    pub rx: DataReceiver,
    /// Linux's connection-level retransmission timer
    /// (`tcp.mptcp_retransmit_timer`).
    rtx: Option<Box<DataRtx>>,
}

/// `TCP_RTO_MIN`: the data-level timer's interval when no subflow has a
/// timer pending (`__mptcp_set_timeout`).
const DATA_RTO_MIN: SimDuration = SimDuration(200_000_000);
/// The data one fragment of Linux's send queue holds (`mptcp_data_frag`):
/// a 32 KiB page (`sk_page_frag`) less the fragment's 40-byte header, as
/// an application that writes large buffers fills them.
const DATA_FRAG_BYTES: u64 = 32_728;

/// Linux's connection-level retransmission timer (`mptcp_retransmit_timer`).
#[derive(Debug)]
struct DataRtx {
    timer: LazyTimer,
    /// `msk->timer_ival`: the longest time left on an active subflow's
    /// pending timer when the scheduler last ran, else [`DATA_RTO_MIN`].
    ival: SimDuration,
    /// The DATA_ACK moved since the last push.
    progress: bool,
}

impl MptcpLevel {
    /// `size_bytes` of data (or without end), a receive buffer of
    /// `rcv_buffer_bytes` (default 64 MiB; with `tcp.mptcp_rcv_window =
    /// "linux"`, none given, Linux's autotuned buffer: a buffer set by hand
    /// is fixed, as `SO_RCVBUF` stops Linux's autotuning), placed by `scheduler`.
    pub fn new(
        size_bytes: Option<u64>,
        rcv_buffer_bytes: Option<u64>,
        scheduler: Scheduler,
        params: &TcpParams,
    ) -> Self {
        let linux = params.mptcp_rcv_window == MptcpRcvWindow::Linux;
        let linux_window = (linux && rcv_buffer_bytes.is_none())
            .then(|| Box::new(LinuxRcvWindow::new(params.mss, params.mss + ADVMSS_BEYOND_PAYLOAD)));
        let rcv_buffer_bytes = rcv_buffer_bytes.unwrap_or(64 << 20);
        MptcpLevel {
            data_next: 1,
            data_end: size_bytes.map_or(u64::MAX, |n| 1 + n),
            data_una: 1,
            data_wnd: rcv_buffer_bytes,
            window_end: linux.then_some(1 + INITIAL_WINDOW_BYTES.min(rcv_buffer_bytes)),
            linux_window,
            reinject: VecDeque::new(),
            scheduling: Scheduling::new(scheduler),
            linger: scheduler == Scheduler::Linger,
            rx: DataReceiver::new(rcv_buffer_bytes),
            rtx: params.mptcp_retransmit_timer.then(|| {
                Box::new(DataRtx {
                    timer: LazyTimer::default(),
                    ival: DATA_RTO_MIN,
                    progress: false,
                })
            }),
        }
    }

    /// Replaces the scheduler (an external one; never `linger`, which is
    /// not a [`Schedule`]).
    pub fn set_scheduling(&mut self, scheduling: Scheduling) {
        self.scheduling = scheduling;
        self.linger = false;
    }

    fn send_on<N: Forward>(&self, io: &mut Io<'_, N>, set: &mut SubflowSet<'_>, r: usize, chunk: Chunk) {
        let now = io.ctx.now;
        let sf = &mut set.subflows[r];
        let mut wire = Wire::new(io, set.params, OPTIONS, set.connection, r, sf);
        sf.sender.send_chunk(chunk, now, &mut wire);
        set.ccs[r].bytes_in_flight = sf.sender.pipe();
    }

    /// The next chunk of data to send, and the subflow it is reinjected
    /// from, if it is a reinjection. Respects the connection's window.
    fn next_chunk(&mut self, params: &TcpParams) -> Option<(Chunk, Option<usize>)> {
        while let Some(&(dsn, len, from)) = self.reinject.front() {
            if dsn + len as u64 <= self.data_una {
                self.reinject.pop_front();
                continue;
            }
            let data_fin = self.data_end != u64::MAX && dsn + len as u64 == self.data_end;
            return Some((
                Chunk {
                    dsn,
                    len,
                    fin: false,
                    data_fin,
                },
                Some(from),
            ));
        }
        if self.data_next >= self.data_end {
            return None;
        }
        let mut len = (self.data_end - self.data_next).min(params.mss as u64) as u32;
        if let Some(end) = self.window_end {
            // Linux `mptcp_check_allowed_size`: up to the window's edge, a
            // mapping shorter than the MSS where the edge cuts it.
            len = len.min(end.saturating_sub(self.data_next).min(u32::MAX as u64) as u32);
            if len == 0 {
                return None;
            }
        } else if self.data_next + len as u64 > self.data_una.saturating_add(self.data_wnd) {
            // RFC 8684 §3.3.4: the window is relative to the DATA_ACK (its
            // right edge saturates: a buffer of u64::MAX bytes is never full).
            return None;
        }
        Some((
            Chunk {
                dsn: self.data_next,
                len,
                fin: false,
                data_fin: self.data_end != u64::MAX && self.data_next + len as u64 == self.data_end,
            },
            None,
        ))
    }

    /// Linux `__mptcp_retransmit_pending_data`: every byte sent and not yet
    /// covered by a DATA_ACK goes to the scheduler again (away from stale
    /// subflow `from`). Returns the chunks queued.
    fn retransmit_pending(&mut self, from: usize, mss: u32) -> u64 {
        let mut queued = 0;
        let mut dsn = self.data_una;
        while dsn < self.data_next {
            let len = (self.data_next - dsn).min(mss as u64) as u32;
            if !self.reinject.iter().any(|&(d, _, _)| d == dsn) {
                self.reinject.push_back((dsn, len, from));
                queued += 1;
            }
            dsn += len as u64;
        }
        queued
    }

    fn take_chunk(&mut self, chunk: &Chunk) {
        if self.reinject.front().is_some_and(|&(d, _, _)| d == chunk.dsn) {
            self.reinject.pop_front();
        } else {
            self.data_next = chunk.dsn + chunk.len as u64;
        }
    }

    /// The subflow the scheduler gives a chunk of `len` bytes to (a
    /// reinjected chunk avoids the subflow it came from while another has
    /// room), or `None` when the chunk waits.
    fn pick(&mut self, now: SimTime, set: &mut SubflowSet<'_>, len: u32, from: Option<usize>) -> Option<usize> {
        let window_end = self.data_una.saturating_add(self.data_wnd);
        let chunk = scheduler::Chunk {
            len,
            avoid: from,
            unsent_bytes: self
                .data_end
                .min(window_end)
                .saturating_sub(self.data_next + len as u64),
            window_bytes: self.data_wnd,
        };
        let mut view = SchedulerView {
            now,
            subflows: &mut *set.subflows,
            ccs: &*set.ccs,
            params: set.params,
        };
        self.scheduling.pick(&mut view, &chunk)
    }
}

impl DataLevel for MptcpLevel {
    fn options(&self) -> OptionBytes {
        OPTIONS
    }

    fn on_established(&mut self, sf: &mut Subflow) {
        // RFC 8684 §3.3.4: the window is the connection's, relative to the DATA_ACK.
        sf.sender.ignore_peer_rwnd = true;
    }

    fn set_clock_phase(&mut self, phase_ns: u64) {
        if let Some(w) = self.linux_window.as_mut() {
            w.set_clock_phase(phase_ns);
        }
    }

    fn after_receive(&mut self, now: SimTime, sf: &mut Subflow) {
        if let Some(w) = self.linux_window.as_mut() {
            if w.read_pending(now) {
                sf.receiver.set_window_clamp(w.rcv_ssthresh_cap(sf.sport));
                sf.receiver.set_rcv_ssthresh_cap(w.rcv_ssthresh_cap(sf.sport));
            }
        }
    }

    fn on_receiver_connected(&mut self, now: SimTime, opened: bool) {
        if let Some(w) = self.linux_window.as_mut() {
            w.on_connected(now, opened);
        }
    }

    fn on_receiver_established(&mut self, sf: &mut Subflow, opened: bool) {
        if let Some(w) = self.linux_window.as_mut() {
            w.subflow_established(sf.sport);
            let (first, step) = w.first_rcv_ssthresh(opened);
            sf.receiver.start_window_ssthresh(first, step);
            sf.receiver.set_window_clamp(w.rcv_ssthresh_cap(sf.sport));
            sf.receiver.bound_rcv_ssthresh(first, w.rcv_ssthresh_cap(sf.sport));
        }
    }

    fn on_receiver_join(&mut self, sf: &Subflow) {
        if let Some(w) = self.linux_window.as_mut() {
            w.add_subflow(sf.sport);
        }
    }

    fn on_receiver_leave(&mut self, sf: &Subflow) {
        if let Some(w) = self.linux_window.as_mut() {
            w.remove_subflow(sf.sport);
        }
    }

    /// RFC 8684 §3.3.6 / Linux `mptcp_reinject_data`: the data outstanding
    /// on the subflow is queued to be sent on the others too.
    fn on_subflow_failed(&mut self, r: usize, sf: &Subflow) -> u64 {
        let mut queued = 0;
        // What the `linger` scheduler queued on it but never sent.
        for c in &sf.queued {
            self.reinject.push_back((c.dsn, c.len, r));
            queued += 1;
        }
        for (dsn, len) in sf.sender.outstanding_data() {
            if dsn + len as u64 <= self.data_una || self.reinject.iter().any(|&(d, _, _)| d == dsn) {
                continue;
            }
            self.reinject.push_back((dsn, len, r));
            queued += 1;
        }
        queued
    }

    fn on_ack(&mut self, hdr: &TcpHeader, _subflows: &[Subflow]) -> bool {
        if !hdr.flags.has(TcpFlags::ACK) || hdr.flags.has(TcpFlags::SYN) {
            return false;
        }
        if hdr.data_ack > self.data_una {
            self.data_una = hdr.data_ack;
            if let Some(t) = self.rtx.as_mut() {
                t.progress = true;
            }
        }
        self.data_wnd = hdr.rwnd;
        if let Some(end) = self.window_end.as_mut() {
            // `ack_update_msk`: the edge only moves right.
            *end = (*end).max(hdr.data_ack.min(self.data_next).saturating_add(hdr.rwnd));
        }
        // The DATA_FIN takes one data sequence number.
        self.data_end != u64::MAX && self.data_una > self.data_end
    }

    /// Linux `__mptcp_retrans`: the first fragment of unacknowledged data,
    /// as much of it as was sent, goes again on the first subflow with
    /// nothing outstanding (`mptcp_subflow_get_retrans`); a subflow with data
    /// outstanding that has received nothing over more than four expiries
    /// becomes stale while another is not, and all the unacknowledged data
    /// is sent again by the scheduler on the others
    /// (`mptcp_pm_subflow_chk_stale`, `__mptcp_retransmit_pending_data`).
    /// Then the timer waits another interval.
    fn on_retransmit_timer<N: Forward>(&mut self, io: &mut Io<'_, N>, set: SubflowSet<'_>) -> u64 {
        let now = io.ctx.now;
        let Some(t) = self.rtx.as_mut() else { return 0 };
        let (expired, again) = t.timer.on_event(now);
        if let Some(at) = again {
            io.ctx.events.schedule(at, Event::DataRtx(set.connection));
        }
        if !expired {
            return 0;
        }
        let mut queued = 0;
        if self.data_next > self.data_una {
            let mut idle = None;
            for k in 0..set.subflows.len() {
                let sf = &set.subflows[k];
                if sf.sender.state != SenderState::Established || !sf.can_send() {
                    continue;
                }
                if sf.sender.snd_una != sf.sender.snd_nxt || !sf.queued.is_empty() {
                    if check_stale(set.subflows, k) {
                        queued += self.retransmit_pending(k, set.params.mss);
                    }
                    continue;
                }
                idle = idle.or(Some(k));
            }
            let end = self.data_next.min(first_frag_end(self.data_una));
            if let Some(k) = idle.filter(|_| end > self.data_una) {
                let sf = &mut set.subflows[k];
                let mut dsn = self.data_una;
                while dsn < end {
                    let len = (end - dsn).min(set.params.mss as u64) as u32;
                    let data_fin = self.data_end != u64::MAX && dsn + len as u64 == self.data_end;
                    let chunk = Chunk {
                        dsn,
                        len,
                        fin: false,
                        data_fin,
                    };
                    queue_chunk(&mut sf.queued, &mut sf.queued_bytes, chunk, set.params.mss, 0);
                    queued += 1;
                    dsn += len as u64;
                }
                // `__mptcp_retrans` maps the data again in skbs of its own.
                sf.tail_skb = TailSkb::default();
            }
        }
        if self.data_una < self.data_end {
            // `mptcp_reset_rtx_timer`: another interval.
            let t = self.rtx.as_mut().expect("checked above");
            if let Some(at) = t.timer.set(now + t.ival) {
                io.ctx.events.schedule(at, Event::DataRtx(set.connection));
            }
        }
        queued
    }

    /// Each subflow's retransmissions, then new data by the scheduler.
    fn push<N: Forward>(&mut self, io: &mut Io<'_, N>, mut set: SubflowSet<'_>) {
        let now = io.ctx.now;
        let taken_before = self.data_next;
        if let Some(t) = self.rtx.as_mut() {
            if self.data_next < self.data_end {
                // `mptcp_subflow_get_send`, `mptcp_timeout_from_subflow`.
                let longest = set
                    .subflows
                    .iter()
                    .filter(|sf| sf.sender.state == SenderState::Established && sf.usable())
                    .map(|sf| sf.sender.retransmit_deadline())
                    .filter(|&d| d != SimTime::NEVER && d > now)
                    .map(|d| d.saturating_since(now))
                    .max();
                t.ival = longest.unwrap_or(DATA_RTO_MIN);
            }
        }
        for r in 0..set.subflows.len() {
            let sf = &mut set.subflows[r];
            let mut wire = Wire::new(io, set.params, OPTIONS, set.connection, r, sf);
            if sf
                .sender
                .send_retransmissions(now, set.params, &mut set.ccs[r], &mut wire)
            {
                // Then what `linger` queued on it, as its window lets it go;
                // with Linux's window, a short segment last in the queue waits
                // while one sent earlier is unacknowledged (`tcp_write_xmit`
                // applies `tcp_nagle_test` only to the write queue's tail).
                // Linux sends what the windows let go at once as one skb of
                // several segments, PSH on its last (`tcp_write_xmit`,
                // `__tcp_transmit_skb`).
                let batch = if set.params.push_flag {
                    (sf.sender.send_quota_segments(set.params, &set.ccs[r]) as usize).min(sf.queued.len())
                } else {
                    0
                };
                let mut sent = 0;
                while let Some(&chunk) = sf.queued.front() {
                    if !sf.sender.room_for(now, set.params, &set.ccs[r], chunk.len) {
                        break;
                    }
                    let short = self.window_end.is_some() && chunk.len < set.params.mss;
                    if short && sf.queued.len() == 1 && sf.short_unacked() {
                        break;
                    }
                    sent += 1;
                    sf.sender.push_next = batch >= 2 && sent == batch;
                    sf.queued.pop_front();
                    sf.queued_bytes -= chunk.len as u64;
                    sf.sender.send_chunk(chunk, now, &mut wire);
                    sf.tail_skb.on_sent(chunk.dsn, chunk.len);
                    if short {
                        sf.short_sent_end = sf.sender.snd_nxt;
                    }
                }
                set.ccs[r].bytes_in_flight = sf.sender.pipe();
            }
        }
        let mut burst: Option<(usize, u64)> = None;
        // The send-queue fragment the burst's last new chunk came from.
        let mut burst_frag: Option<u64> = None;
        // The subflow the push last placed data on.
        let mut pushed_to: Option<usize> = None;
        while let Some((chunk, from)) = self.next_chunk(set.params) {
            // Linux's window: a short segment waits, Nagle's rule, while one
            // sent earlier on its subflow is unacknowledged; it stays unmade
            // (the edge may move first and make it whole, as Linux extends
            // the held segment's mapping).
            let short = self.window_end.is_some() && from.is_none() && chunk.len < set.params.mss;
            if self.linger {
                // Linux `__subflow_push_pending`: the chunk joins the chosen
                // subflow's write queue whatever its window; a short one is
                // held there by Nagle's rule (below) and grows if the next
                // data goes to the same subflow (`mptcp_sendmsg_frag`
                // extends the unsent tail's mapping), so a short piece left on
                // a slow subflow can hold back the data after it.
                // With Linux's window the chosen subflow keeps the data of one
                // push up to a burst of 64 KB (`MPTCP_SEND_BURST_SIZE`,
                // `msk->snd_burst`) while it has send buffer left.
                // `__subflow_push_pending` checks the burst and the send buffer
                // only once it has placed a whole send-queue fragment: within
                // one the subflow takes the rest whatever its buffer.
                let new_frag = burst_frag != Some(frag_of(chunk.dsn));
                let kept = burst.filter(|&(k, left)| {
                    from.is_none()
                        && if new_frag {
                            left > 0 && linger_may_take(&set, k)
                        } else {
                            linger_active(&set, k)
                        }
                });
                let r = match kept {
                    Some((k, _)) => k,
                    None => {
                        let Some(r) = pick_linger(&mut set, from) else { break };
                        if from.is_none() {
                            match self.window_end {
                                // `msk->snd_burst`: up to 64 KB, at most to
                                // the peer's window edge.
                                Some(end) => {
                                    let size = SEND_BURST_BYTES.min(end.saturating_sub(self.data_next));
                                    settle_pacing_rate(&mut set, r, size);
                                    burst = Some((r, size));
                                }
                                // Without Linux's window each chunk is a pick
                                // of its own: what it places is the chunk.
                                None => settle_pacing_rate(&mut set, r, chunk.len as u64),
                            }
                        }
                        r
                    }
                };
                // Linux sends what a push placed on a subflow when the push
                // moves on to another (`mptcp_push_release` → `tcp_push` in
                // `__mptcp_push_pending`): what it sent there is split off.
                if let Some(p) = pushed_to.filter(|&p| p != r) {
                    set.subflows[p].tail_skb.settle();
                }
                pushed_to = Some(r);
                if let Some((_, left)) = burst.as_mut() {
                    *left = left.saturating_sub(chunk.len as u64);
                }
                if from.is_none() {
                    burst_frag = Some(frag_of(chunk.dsn));
                }
                self.take_chunk(&chunk);
                let sf = &mut set.subflows[r];
                // With Linux's window, new data extends the write queue's
                // tail skb while its mapping may grow (`TailSkb`).
                let extends = if self.window_end.is_some() && from.is_none() {
                    let goal = size_goal(sf.sender.max_window, set.params.mss);
                    sf.tail_skb.place(chunk.dsn, chunk.len, goal)
                } else {
                    sf.tail_skb = TailSkb::default();
                    0
                };
                let now_ok = sf.queued.is_empty()
                    && sf.sender.room_for(now, set.params, &set.ccs[r], chunk.len)
                    && !(short && sf.short_unacked());
                if now_ok {
                    self.send_on(io, &mut set, r, chunk);
                    let sf = &mut set.subflows[r];
                    sf.tail_skb.on_sent(chunk.dsn, chunk.len);
                    if short {
                        sf.short_sent_end = sf.sender.snd_nxt;
                    }
                } else {
                    queue_chunk(&mut sf.queued, &mut sf.queued_bytes, chunk, set.params.mss, extends);
                }
                continue;
            }
            let Some(r) = self.pick(now, &mut set, chunk.len, from) else {
                break;
            };
            if short && set.subflows[r].short_unacked() {
                break;
            }
            self.take_chunk(&chunk);
            self.send_on(io, &mut set, r, chunk);
            if short {
                set.subflows[r].short_sent_end = set.subflows[r].sender.snd_nxt;
            }
            if self.scheduling.duplicates() {
                for k in 0..set.subflows.len() {
                    if k != r
                        && set.subflows[k].usable()
                        && set.subflows[k].sender.room_for(now, set.params, &set.ccs[k], chunk.len)
                    {
                        self.send_on(io, &mut set, k, chunk);
                    }
                }
            }
        }
        for r in 0..set.subflows.len() {
            // RFC 6675 NextSeg rules 3 and 4 and RFC 8985's loss probe, once the
            // scheduler has placed its data.
            let sf = &mut set.subflows[r];
            sf.tail_skb.settle();
            let mut wire = Wire::new(io, set.params, OPTIONS, set.connection, r, sf);
            sf.sender.after_push(now, set.params, &mut set.ccs[r], &mut wire);
            set.ccs[r].bytes_in_flight = set.subflows[r].sender.pipe();
        }
        if let Some(t) = self.rtx.as_mut() {
            // `__mptcp_clean_una`: all the data acknowledged stops the timer,
            // a new DATA_ACK restarts it; `__mptcp_push_pending`: data handed
            // to a subflow starts it if it is not running.
            let restart = if self.data_una >= self.data_next && self.data_next >= self.data_end {
                t.timer.stop();
                false
            } else {
                t.progress || (self.data_next > taken_before && !t.timer.is_running())
            };
            t.progress = false;
            if restart {
                if let Some(at) = t.timer.set(now + t.ival) {
                    io.ctx.events.schedule(at, Event::DataRtx(set.connection));
                }
            }
        }
    }

    fn on_data(&mut self, now: SimTime, hdr: &TcpHeader, sf: &mut Subflow) -> bool {
        if hdr.payload_bytes == 0 {
            return false;
        }
        let before = self.rx.rcv_nxt;
        let was_complete = self.rx.is_complete();
        let data_fin = hdr.flags.has(TcpFlags::DATA_FIN);
        let Some(w) = self.linux_window.as_mut() else {
            sf.bytes_received += hdr.payload_bytes as u64;
            self.rx.on_data(hdr.dsn, hdr.payload_bytes, data_fin);
            return false;
        };
        // Linux: a segment out of order on its subflow waits in the
        // subflow's out-of-order queue; the connection sees it (and its
        // window counts it) once the subflow's own hole is filled.
        let seg = HeldSegment {
            seq: hdr.seq,
            dsn: hdr.dsn,
            len: hdr.payload_bytes,
            data_fin,
        };
        sf.bytes_received += pass_in_subflow_order(&mut self.rx, &mut sf.held_ofo, sf.receiver.rcv_nxt, seg);
        // A subflow whose handshake's last ACK was lost is established at the
        // receiver by its first data: it answered the SYN.
        let (first, step) = w.first_rcv_ssthresh(false);
        sf.receiver.start_window_ssthresh(first, step);
        sf.receiver.bound_rcv_ssthresh(first, w.rcv_ssthresh_cap(sf.sport));
        // What arrived in order waits for the application, which reads it
        // once the segment is answered (`after_receive`).
        let cap = w.on_data(now, sf.sport, hdr.ts_ecr, hdr.payload_bytes, self.rx.rcv_nxt - before);
        // The subflow's clamp follows the connection's buffer, which a read
        // after another subflow's segment may have grown: Linux grows every
        // subflow's buffer with the connection's ("make subflows follow
        // along", `mptcp_rcv_space_adjust` → `tcp_rcvbuf_grow`).
        sf.receiver.set_window_clamp(cap);
        sf.receiver.set_rcv_ssthresh_cap(cap);
        // `mptcp_check_data_fin`: the DATA_ACK reaching the DATA_FIN is
        // acknowledged at once (`mptcp_send_ack`).
        !was_complete && self.rx.is_complete()
    }

    fn advertised_window(&self, sf: &Subflow) -> u64 {
        match &self.linux_window {
            Some(w) => self
                .rx
                .window_from(w.offer(sf.sport, self.rx.held_bytes, sf.receiver.window_ssthresh())),
            None => self.rx.window(),
        }
    }

    fn fill_ack(&mut self, hdr: &mut TcpHeader, sf: &Subflow) {
        hdr.n_sack = hdr.n_sack.min(MPTCP_MAX_SACK_BLOCKS);
        hdr.data_ack = self.rx.rcv_nxt;
        hdr.rwnd = match &self.linux_window {
            // `__tcp_select_window` for the subflow, then `mptcp_set_rwin`.
            Some(w) => self
                .rx
                .advertise_from(w.offer(sf.sport, self.rx.held_bytes, sf.receiver.window_ssthresh())),
            None => self.rx.advertise(),
        };
    }

    fn receiver(&self) -> Option<&DataReceiver> {
        Some(&self.rx)
    }
}

/// Hands a data segment that arrived on a subflow to the data level in the
/// subflow's order, as Linux's subflow passes data to the connection
/// (`tcp_data_queue` → `mptcp_data_ready`, `__mptcp_move_skbs_from_subflow`):
/// `rcv_nxt` is the subflow's next expected sequence number before `seg`;
/// a segment beyond it is held (`held`, sorted by subflow sequence number),
/// and one at or below it goes on with every held segment it makes
/// contiguous. Held data is the subflow's, charged to the subflow's buffer:
/// the connection's window does not count it (`__mptcp_space`) and its
/// DATA_ACK does not pass it; a second copy of a held segment is dropped
/// there, and what a removed subflow held never reaches the connection.
/// Returns the payload bytes handed to the data level.
fn pass_in_subflow_order(rx: &mut DataReceiver, held: &mut Vec<HeldSegment>, rcv_nxt: u64, seg: HeldSegment) -> u64 {
    if seg.seq > rcv_nxt {
        let at = held.partition_point(|h| h.seq < seg.seq);
        if held.get(at).is_none_or(|h| h.seq != seg.seq) {
            held.insert(at, seg);
        }
        return 0;
    }
    rx.on_data(seg.dsn, seg.len, seg.data_fin);
    let mut passed = seg.len as u64;
    let mut end = rcv_nxt.max(seg.seq + seg.len as u64);
    let mut released = 0;
    while let Some(h) = held.get(released).filter(|h| h.seq <= end) {
        rx.on_data(h.dsn, h.len, h.data_fin);
        passed += h.len as u64;
        end = end.max(h.seq + h.len as u64);
        released += 1;
    }
    held.drain(..released);
    passed
}

/// The most data the `linger` scheduler gives one subflow in a push with
/// Linux's window (`MPTCP_SEND_BURST_SIZE`).
const SEND_BURST_BYTES: u64 = 65_428;

/// Whether subflow `r` may take more data from `linger`: established, usable,
/// and holding less than its send buffer (Linux `sk_stream_memory_free`).
fn linger_may_take(set: &SubflowSet<'_>, r: usize) -> bool {
    let sf = &set.subflows[r];
    linger_active(set, r) && wmem_queued(sf) < send_buffer(set.params, &set.ccs[r], sndbuf_expand(&sf.sender))
}

/// Whether subflow `r` can send at all (Linux `mptcp_subflow_active`).
fn linger_active(set: &SubflowSet<'_>, r: usize) -> bool {
    let sf = &set.subflows[r];
    sf.sender.state == SenderState::Established && sf.usable() && set.ccs[r].cwnd > 0
}

/// The send-queue fragment holding data sequence number `dsn`.
fn frag_of(dsn: u64) -> u64 {
    (dsn.max(1) - 1) / DATA_FRAG_BYTES
}

/// Memory Linux's `tcp_sndbuf_expand` counts per segment of a subflow's send
/// buffer (`per_mss`: the MSS and the headers' room rounded up to a power of
/// two, and the `sk_buff`), bytes.
const SNDBUF_PER_MSS: u64 = 4_352;
/// Memory a full-size segment takes in a queue (`skb->truesize`), bytes; as
/// the connection's receive window takes it (`rcv_window.rs`).
const TRUESIZE: u64 = 2_336;

/// A subflow's send buffer in payload bytes: the flow's `send_buffer` if it
/// sets one (as `tcp_wmem` or `SO_SNDBUF` do), else what Linux's
/// `tcp_sndbuf_expand` gives it, 2·max(cwnd, 10) segments of `per_mss`
/// bytes, counted against segments of `TRUESIZE` bytes: about 3.7 windows.
fn send_buffer(params: &TcpParams, c: &SubflowCc, expand: u64) -> u64 {
    params.send_buffer_bytes.unwrap_or_else(|| {
        let segments = (c.cwnd / c.mss as u64).max(10);
        expand * segments * SNDBUF_PER_MSS * c.mss as u64 / TRUESIZE
    })
}

/// The windows of `per_mss` bytes Linux's `tcp_sndbuf_expand` provisions:
/// the congestion control's `sndbuf_expand`, 3 for BBR
/// (`bbr_sndbuf_expand`: it "may slow-start even during recovery"), else 2.
fn sndbuf_expand(sender: &TcpSender) -> u64 {
    if sender.chose_bbr() {
        3
    } else {
        2
    }
}

/// Linux's stale loss count (`net.mptcp.stale_loss_cnt`, default 4).
const STALE_LOSS_COUNT: u8 = 4;

/// Linux `mptcp_pm_subflow_chk_stale` at an expiry of the connection's
/// timer for subflow `k`, which has data outstanding: one more expiry
/// without a packet received, or a fresh count when one arrived; past the
/// stale loss count the subflow becomes stale if another active subflow has
/// counted fewer than `STALE_LOSS_COUNT − 1` (`mptcp_pm_subflows_chk_stale`).
/// Returns whether it has just become stale.
fn check_stale(subflows: &mut [Subflow], k: usize) -> bool {
    let sf = &mut subflows[k];
    if sf.stale_count == 0 {
        sf.stale_acked_at = sf.acked_at;
        sf.stale_count = 1;
        return false;
    }
    if sf.stale_acked_at != sf.acked_at {
        sf.stale_count = 0;
        sf.stale = false;
        return false;
    }
    sf.stale_count = sf.stale_count.saturating_add(1);
    if sf.stale || sf.stale_count <= STALE_LOSS_COUNT {
        return false;
    }
    let alternative = subflows.iter().enumerate().any(|(j, o)| {
        j != k
            && o.usable()
            && o.sender.state == SenderState::Established
            && o.stale_count < (STALE_LOSS_COUNT - 1).max(1)
    });
    if alternative {
        subflows[k].stale = true;
    }
    alternative
}

/// One past the end of the send-queue fragment holding data sequence
/// number `dsn` (the data starts at 1, fragments of [`DATA_FRAG_BYTES`]).
fn first_frag_end(dsn: u64) -> u64 {
    1 + (frag_of(dsn) + 1) * DATA_FRAG_BYTES
}

/// Linux's size goal for an skb of the write queue (`tcp_send_mss`,
/// `tcp_xmit_size_goal`, `tcp_bound_to_half_wnd`): half the largest window
/// the peer offered (all of it up to 536 bytes), at most the 64 KiB a
/// segmentation offload takes less MPTCP's header room
/// (`MPTCP_MAX_GSO_SIZE`), in whole segments, at least one.
fn size_goal(max_window: u64, mss: u32) -> u64 {
    let mss = mss as u64;
    let cutoff = if max_window > 536 { max_window / 2 } else { max_window };
    let bytes = if cutoff > 0 {
        MAX_GSO_BYTES.min(cutoff)
    } else {
        MAX_GSO_BYTES
    };
    (bytes / mss).max(1) * mss
}

/// `MPTCP_MAX_GSO_SIZE`: `GSO_LEGACY_MAX_SIZE` (65 536) less
/// `MAX_TCP_HEADER` + 1 (320 bytes on x86-64).
const MAX_GSO_BYTES: u64 = 65_536 - 321;

/// Queues `chunk` on a subflow for `linger`; with Linux's window, of new
/// data whose first `merge` bytes extend the tail skb's mapping, a short
/// unsent tail it continues is filled toward the MSS with them first, as
/// Linux appends to the write queue's unsent tail skb.
fn queue_chunk(queue: &mut VecDeque<Chunk>, queued_bytes: &mut u64, mut chunk: Chunk, mss: u32, merge: u32) {
    *queued_bytes += chunk.len as u64;
    if merge > 0 {
        if let Some(tail) = queue.back_mut() {
            if tail.len < mss && tail.dsn + tail.len as u64 == chunk.dsn && !tail.data_fin {
                let add = (mss - tail.len).min(merge).min(chunk.len);
                tail.len += add;
                chunk.dsn += add as u64;
                chunk.len -= add;
                if chunk.len == 0 {
                    tail.data_fin = chunk.data_fin;
                    return;
                }
            }
        }
    }
    queue.push_back(chunk);
}

/// Linux's pacing rate (`tcp_update_pacing_rate`), bytes per second: max(cwnd,
/// packets out)/SRTT times [`crate::cc::linux_pacing_ratio_percent`].
fn pacing_rate(cwnd: u64, ssthresh: u64, packets_out: u64, srtt: SimDuration) -> u64 {
    let ratio = crate::cc::linux_pacing_ratio_percent(cwnd, ssthresh) as u128;
    let bytes = cwnd.max(packets_out) as u128;
    (bytes * ratio * 1_000_000_000 / (100 * srtt.nanos().max(1) as u128)).min(u64::MAX as u128) as u64
}

/// A subflow's pacing rate now, bytes per second: BBR's own
/// (`sk_pacing_rate`, which it sets), else the stack's.
fn subflow_pacing_rate(sf: &Subflow, c: &SubflowCc) -> u64 {
    sf.sender
        .bbr_pacing_rate()
        .unwrap_or_else(|| pacing_rate(c.cwnd, c.ssthresh, sf.sender.flight_size(), c.srtt))
}

/// What a subflow holds for Linux's scheduler (`sk_wmem_queued`, in payload
/// bytes): everything sent and not cumulatively acknowledged, SACKed or
/// not, and what waits in its queue.
fn wmem_queued(sf: &Subflow) -> u64 {
    sf.sender.flight_size() + sf.queued_bytes
}

/// `mptcp_subflow_get_send`'s new `avg_pacing_rate` of the subflow chosen for
/// a burst of `burst` bytes while it holds `held`: the old average and the
/// current rate `now`, weighted by what it holds and by the burst.
fn averaged_pacing_rate(avg: u64, held: u64, now: u64, burst: u64) -> u64 {
    let (held, burst) = (held as u128, burst as u128);
    ((avg as u128 * held + now as u128 * burst) / (held + burst).max(1)).max(1) as u64
}

/// The linger time of `mptcp_subflow_get_send`: what a subflow holds over its
/// averaged pacing rate, in units of 2⁻³² s.
fn linger_time(held: u64, avg_rate: u64) -> u128 {
    ((held as u128) << 32) / avg_rate.max(1) as u128
}

/// The `linger` scheduler's subflow for the next chunk: among the
/// established subflows that hold less than their send buffer, the one whose
/// data would drain first, what it holds over its averaged pacing rate
/// (Linux `mptcp_subflow_get_send`: `sk_wmem_queued` over
/// `avg_pacing_rate`, which starts as the subflow's pacing rate the first
/// time the scheduler looks at it; and `sk_stream_memory_free`); ties go to
/// the lower index. A reinjected chunk avoids the subflow it came from while
/// another can take it. Departures: Linux checks the send buffer of the
/// subflow it picked only, and sends nothing if that one is full, where this
/// passes over a full subflow; and it starts every active subflow's average,
/// this only the ones that may take data.
fn pick_linger(set: &mut SubflowSet<'_>, from: Option<usize>) -> Option<usize> {
    let mut best: Option<(u128, usize)> = None;
    let mut fallback = None;
    for r in 0..set.subflows.len() {
        if !linger_may_take(set, r) {
            continue;
        }
        let sf = &mut set.subflows[r];
        if sf.avg_pacing_rate == 0 {
            sf.avg_pacing_rate = subflow_pacing_rate(sf, &set.ccs[r]);
        }
        if Some(r) == from {
            fallback = Some(r);
            continue;
        }
        let linger = linger_time(wmem_queued(sf), sf.avg_pacing_rate);
        if best.is_none_or(|(l, _)| linger < l) {
            best = Some((linger, r));
        }
    }
    best.map(|(_, r)| r).or(fallback)
}

/// Linux `mptcp_subflow_get_send` once it has chosen subflow `r` for a burst
/// of `burst` bytes (none when the window's edge leaves no room).
fn settle_pacing_rate(set: &mut SubflowSet<'_>, r: usize, burst: u64) {
    if burst == 0 {
        return;
    }
    let sf = &mut set.subflows[r];
    let now = subflow_pacing_rate(sf, &set.ccs[r]);
    sf.avg_pacing_rate = averaged_pacing_rate(sf.avg_pacing_rate, wmem_queued(sf), now, burst);
}

/// The subflows as the scheduler sees them.
struct SchedulerView<'a> {
    now: SimTime,
    subflows: &'a mut [Subflow],
    ccs: &'a [SubflowCc],
    params: &'a TcpParams,
}

impl scheduler::Subflows for SchedulerView<'_> {
    fn count(&self) -> usize {
        self.subflows.len()
    }

    #[inline]
    fn has_room(&mut self, r: usize, len: u32) -> bool {
        self.subflows[r].usable()
            && self.subflows[r]
                .sender
                .room_for(self.now, self.params, &self.ccs[r], len)
    }

    #[inline]
    fn srtt(&self, r: usize) -> SimDuration {
        self.ccs[r].srtt
    }

    fn state(&self, r: usize) -> scheduler::SubflowState {
        let (sf, c) = (&self.subflows[r], &self.ccs[r]);
        scheduler::SubflowState {
            established: c.established && sf.usable(),
            srtt: c.srtt,
            rttvar: sf.sender.rtt.rttvar,
            cwnd_bytes: c.cwnd,
            ssthresh_bytes: c.ssthresh,
            in_flight_bytes: sf.sender.pipe(),
            mss: c.mss,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(dsn: u64, len: u32, data_fin: bool) -> Chunk {
        Chunk {
            dsn,
            len,
            fin: false,
            data_fin,
        }
    }

    /// `tcp_update_pacing_rate`: 10 segments of 1 424 bytes over an SRTT of
    /// 100 ms is 142 400 B/s; twice that in slow start below half ssthresh,
    /// 1.2 times it from there on; packets out count when above cwnd.
    #[test]
    fn the_pacing_rate_is_linuxs() {
        let srtt = SimDuration::from_millis(100);
        assert_eq!(pacing_rate(14_240, u64::MAX, 0, srtt), 284_800);
        assert_eq!(pacing_rate(14_240, 28_480, 0, srtt), 170_880);
        assert_eq!(pacing_rate(14_240, u64::MAX, 28_480, srtt), 569_600);
    }

    /// `avg_pacing_rate = (avg·wmem + rate·burst)/(burst + wmem)`: a subflow
    /// holding nothing takes the current rate; one holding three bursts
    /// moves a quarter of the way.
    #[test]
    fn the_averaged_rate_weights_the_burst_against_what_is_held() {
        assert_eq!(averaged_pacing_rate(100_000, 0, 300_000, 65_428), 300_000);
        assert_eq!(averaged_pacing_rate(100_000, 3 * 65_428, 300_000, 65_428), 150_000);
        // The choice: 40 kB at 285 kB/s drains before 20 kB at 100 kB/s.
        assert!(linger_time(40_000, 284_800) < linger_time(20_000, 100_000));
        // Twice the data at twice the rate lingers as long.
        assert_eq!(linger_time(40_000, 2 * 284_800), linger_time(20_000, 284_800));
    }

    /// `tcp_xmit_size_goal`: half the largest window the peer offered, at
    /// most `MPTCP_MAX_GSO_SIZE`, in whole segments.
    #[test]
    fn the_size_goal_is_half_the_largest_window_in_whole_segments() {
        // The rig's first window, 64 512 bytes: 22 segments of 1 424.
        assert_eq!(size_goal(64_512, 1424), 22 * 1424);
        // A large window: 64 KiB less the header room, 45 segments.
        assert_eq!(size_goal(1 << 20, 1424), 45 * 1424);
        // Before any window, the offload's limit; never below one segment.
        assert_eq!(size_goal(0, 1424), 45 * 1424);
        assert_eq!(size_goal(1000, 1424), 1424);
    }

    #[test]
    fn a_short_queued_tail_is_filled_to_the_mss_by_the_data_after_it() {
        let (mut q, mut bytes) = (VecDeque::new(), 0);
        queue_chunk(&mut q, &mut bytes, chunk(1, 224, false), 1424, u32::MAX);
        queue_chunk(&mut q, &mut bytes, chunk(225, 1424, false), 1424, u32::MAX);
        // 224 + 1200 make one whole segment; the other 224 bytes wait as the new tail.
        assert_eq!(q, [chunk(1, 1424, false), chunk(1425, 224, false)]);
        assert_eq!(bytes, 224 + 1424);
        // The data's end rides on the segment that carries its last byte.
        queue_chunk(&mut q, &mut bytes, chunk(1649, 100, true), 1424, u32::MAX);
        assert_eq!(q, [chunk(1, 1424, false), chunk(1425, 324, true)]);
        assert_eq!(bytes, 224 + 1424 + 100);
    }

    /// Only the bytes that extend the tail skb fill its short piece: the
    /// rest of the chunk begins the next skb.
    #[test]
    fn a_short_tail_takes_only_the_bytes_that_extend_its_skb() {
        let (mut q, mut bytes) = (VecDeque::new(), 0);
        queue_chunk(&mut q, &mut bytes, chunk(1, 224, false), 1424, u32::MAX);
        queue_chunk(&mut q, &mut bytes, chunk(225, 1424, false), 1424, 424);
        assert_eq!(q, [chunk(1, 648, false), chunk(649, 1000, false)]);
        assert_eq!(bytes, 224 + 1424);
    }

    #[test]
    fn data_that_does_not_continue_the_tail_or_is_not_merged_queues_apart() {
        let (mut q, mut bytes) = (VecDeque::new(), 0);
        queue_chunk(&mut q, &mut bytes, chunk(1, 224, false), 1424, u32::MAX);
        queue_chunk(&mut q, &mut bytes, chunk(5000, 1424, false), 1424, u32::MAX);
        queue_chunk(&mut q, &mut bytes, chunk(6424, 1424, false), 1424, 0);
        assert_eq!(
            q,
            [chunk(1, 224, false), chunk(5000, 1424, false), chunk(6424, 1424, false)]
        );
        assert_eq!(bytes, 224 + 2 * 1424);
    }

    /// A segment of 1 000 bytes: subflow sequence number `seq`, data
    /// sequence number `dsn`.
    fn seg(seq: u64, dsn: u64) -> HeldSegment {
        HeldSegment {
            seq,
            dsn,
            len: 1000,
            data_fin: false,
        }
    }

    /// Linux's subflow keeps what arrives out of its own order (here its
    /// second segment is lost): the connection neither holds it (its window
    /// counts nothing) nor acknowledges past the hole; the retransmission
    /// hands everything up to the next hole over at once.
    #[test]
    fn data_out_of_order_on_its_subflow_stays_at_the_subflow() {
        let mut rx = DataReceiver::new(1 << 20);
        let mut held = vec![];
        // Segments 0, 2, 3 and 5 arrive (the subflow's next expected byte is
        // 1 001 after the first); 1 and 4 were lost.
        pass_in_subflow_order(&mut rx, &mut held, 1, seg(1, 1));
        for k in [2, 3, 5] {
            assert_eq!(
                pass_in_subflow_order(&mut rx, &mut held, 1001, seg(1 + 1000 * k, 1 + 1000 * k)),
                0
            );
        }
        // A second copy of a held segment stays one.
        pass_in_subflow_order(&mut rx, &mut held, 1001, seg(2001, 2001));
        assert_eq!((rx.rcv_nxt, rx.held_bytes, held.len()), (1001, 0, 3));
        // The retransmission of segment 1 releases it and the two after it;
        // segment 5 waits behind 4.
        assert_eq!(pass_in_subflow_order(&mut rx, &mut held, 1001, seg(1001, 1001)), 3000);
        assert_eq!((rx.rcv_nxt, rx.held_bytes, held.len()), (4001, 0, 1));
        pass_in_subflow_order(&mut rx, &mut held, 4001, seg(4001, 4001));
        assert_eq!((rx.rcv_nxt, rx.held_bytes, held.len()), (6001, 0, 0));
    }

    /// Data in order on its subflow but out of order at the data level
    /// (another subflow's data is missing) is the connection's to hold.
    #[test]
    fn data_in_order_on_its_subflow_but_not_at_the_data_level_is_held_by_the_connection() {
        let mut rx = DataReceiver::new(1 << 20);
        let mut held = vec![];
        // This subflow carries data sequence numbers 2 001 on; 1–2 000 went
        // on another subflow and have not arrived.
        pass_in_subflow_order(&mut rx, &mut held, 1, seg(1, 2001));
        assert_eq!((rx.rcv_nxt, rx.held_bytes), (1, 1000));
        // A duplicate of held data changes nothing.
        pass_in_subflow_order(&mut rx, &mut held, 1001, seg(1, 2001));
        assert_eq!((rx.rcv_nxt, rx.held_bytes, held.len()), (1, 1000, 0));
    }

    /// Linux provisions a subflow's send buffer for `sndbuf_expand` windows
    /// of `per_mss` bytes: two for most congestion controls, three for BBR
    /// (`bbr_sndbuf_expand`), from the socket's creation on. 20 segments of
    /// 1 424 bytes: 2·20·4 352 bytes of memory, 2 336 a segment.
    #[test]
    fn bbr_provisions_a_send_buffer_of_three_windows() {
        let params = crate::transport::tcp::Profile::Linux.params();
        let mut sender = TcpSender::new(&params);
        assert_eq!(sndbuf_expand(&sender), 2);
        sender.use_bbr(crate::rng::RngStream::derive(
            1,
            crate::rng::StreamDomain::CongestionControl,
            0,
        ));
        // Before the handshake ends, as after.
        assert_eq!(sndbuf_expand(&sender), 3);
        let c = SubflowCc::new(1424, 20 * 1424, u64::MAX);
        assert_eq!(
            send_buffer(&params, &c, sndbuf_expand(&sender)),
            3 * 20 * 4352 * 1424 / 2336
        );
        // Below ten segments the window counts as ten (`TCP_INIT_CWND`).
        let small = SubflowCc::new(1424, 4 * 1424, u64::MAX);
        assert_eq!(send_buffer(&params, &small, 2), 2 * 10 * 4352 * 1424 / 2336);
    }
}
