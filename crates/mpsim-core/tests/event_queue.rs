//! What the event queue holds: one entry per packet admitted to a link and
//! not yet arrived at its far end (on a drop-tail link of fixed rate, a
//! packet's arrival is scheduled as it is admitted, and its transmission has
//! no event of its own; on any other link, one entry per busy transmitter and
//! one per packet propagating) and, for each timer, one entry however often
//! it is re-armed, moved later or stopped (timers are lazy: a later deadline
//! waits for the entry already pending). A delayed-ACK timer that an ACK made
//! moot used to stay queued until its deadline, one entry per ACK sent.

mod common;

use std::collections::HashMap;

use common::*;
use mpsim_core::config::*;
use mpsim_core::event::Event;
use mpsim_core::time::SimTime;
use mpsim_core::Simulator;

/// One long TCP transfer of `size` bytes from A to B over 10 Mbit/s, 10 ms
/// each way, with buffers no window fills: nothing is lost.
fn lossless_transfer(profile: Profile, size: u64) -> Simulator {
    let mut cfg = host_pair(10_000_000, 10 * MS, 10_000, 30_000 * MS);
    cfg.tcp_flows.push(TcpFlowConfig {
        name: "f".into(),
        src: "A".into(),
        dst: "B".into(),
        size_bytes: Some(size),
        tcp: TcpOptions {
            profile,
            ..TcpOptions::default()
        },
        ..TcpFlowConfig::default()
    });
    mpsim_core::build::build(&cfg).expect("a valid scenario")
}

/// The queue's entries at this moment, checked against the network and the
/// timers: returns the number of entries of each timer (kind, subflow).
fn check_entries(sim: &Simulator) -> HashMap<(&'static str, u32, u16), usize> {
    let (mut tx_done, mut arrivals) = (0, 0);
    let mut timers = HashMap::new();
    for (at, event) in sim.ctx.events.iter() {
        assert!(at >= sim.ctx.now, "{event:?} at {at:?} before now");
        match *event {
            Event::LinkTxDone(_) => tx_done += 1,
            Event::LinkArrival(_) => arrivals += 1,
            Event::TcpDelAck(c, r) => *timers.entry(("delayed ACK", c, r)).or_insert(0) += 1,
            Event::TcpRto(c, r) => *timers.entry(("retransmission", c, r)).or_insert(0) += 1,
            other => panic!("no {other:?} expected in a transfer under way"),
        }
    }
    // The host pair's links are drop-tail links of fixed rate: no
    // transmission has an event, and every packet admitted, waiting, on the
    // transmitter or propagating, has its arrival.
    assert!(sim.net.links.iter().all(|l| l.lazy));
    let on_the_way: u32 = sim.net.links.iter().map(|l| l.in_flight).sum();
    let waiting: u32 = sim.net.links.iter().map(|l| l.queue.len_pkts()).sum();
    let sending = sim.net.links.iter().filter(|l| l.in_service.is_some()).count() as u32;
    assert!(
        waiting + sending <= on_the_way,
        "{waiting} waiting, {sending} sending, {on_the_way} on the way"
    );
    assert_eq!((tx_done, arrivals), (0, on_the_way as usize));
    timers
}

/// Runs a 10 MB transfer (about 8.5 s), checking the queue every
/// millisecond: no timer ever holds more than `most_early` entries, nor more
/// than `most` once the first seconds' entries have fired (the handshake and
/// the first RTT sample move the sender's deadline earlier: the SYN's
/// timeout of 3 s, the initial RTO of 1 s, then the measured one).
fn run_and_check(profile: Profile, most_early: usize, most: usize) {
    let mut sim = lossless_transfer(profile, 10_000_000);
    let mut seen_delack = 0;
    for ms in 1..=12_000u64 {
        sim.run_until(SimTime(ms * MS));
        let bound = if ms < 4_000 { most_early } else { most };
        for (&timer, &n) in &check_entries(&sim) {
            assert!(
                n <= bound,
                "{profile:?}: {n} entries for the {timer:?} timer at {ms} ms"
            );
            seen_delack += usize::from(timer.0 == "delayed ACK");
        }
    }
    let results = sim.results();
    let flow = &results.tcp_flows[0];
    assert!(
        flow.completed_ns.is_some(),
        "{profile:?}: the transfer ends within 12 s"
    );
    assert_eq!(
        (flow.retransmits_fast, flow.retransmits_rto),
        (0, 0),
        "{profile:?}: nothing is lost"
    );
    // Thousands of delayed ACKs were armed and made moot by the next
    // segment; one was pending at most checks.
    assert!(flow.acks_sent > 3_000, "{} ACKs", flow.acks_sent);
    assert!(seen_delack > 4_000, "a delayed ACK pending at {seen_delack} checks");
    // Once every stopped timer's last entry has fired, nothing is left.
    sim.run_until(SimTime(16_000 * MS));
    assert!(
        sim.ctx.events.is_empty(),
        "{:?}",
        sim.ctx.events.iter().collect::<Vec<_>>()
    );
}

#[test]
fn an_ns3_timer_holds_one_entry_however_often_it_is_re_armed() {
    // ns-3's delayed-ACK timeout is the same for every arming and its
    // retransmission timer only ever restarts later, so a new deadline is
    // never earlier than the entry pending.
    run_and_check(Profile::Ns3, 2, 1);
}

#[test]
fn a_linux_timer_holds_at_most_two_entries() {
    // Linux's sender timer alternates between the loss probe's deadline
    // (two round trips) and the retransmission timeout after it: a probe
    // deadline earlier than the pending entry adds one.
    run_and_check(Profile::Linux, 3, 2);
}

/// The queue's mean size (`event_queue_mean` in the results) is the number
/// of events each pop found, the popped one included, averaged over pops.
#[test]
fn the_mean_size_is_what_each_pop_found() {
    use mpsim_core::event::EventQueue;
    let mut q = EventQueue::default();
    assert_eq!(q.mean_len(), 0.0);
    for i in 0..10u32 {
        q.schedule(SimTime(u64::from(i)), Event::UdpSource(i));
    }
    while q.pop().is_some() {}
    assert_eq!(q.mean_len(), 5.5);
    // Two pending, one popped (2), one more scheduled, two popped (2, 1):
    // with the ten before, (55 + 5) / 13.
    q.schedule(SimTime(20), Event::TraceSample);
    q.schedule(SimTime(21), Event::TraceSample);
    q.pop();
    q.schedule(SimTime(22), Event::TraceSample);
    q.pop();
    q.pop();
    assert_eq!(q.mean_len(), 60.0 / 13.0);
}
