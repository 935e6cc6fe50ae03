//! A timer that is cheap to restart: moving its deadline does not schedule a
//! new event unless the deadline moves earlier than the one pending. When the
//! pending event fires early (the deadline moved later), it re-arms itself
//! once for the new deadline. A TCP sender restarts its RTO on every ACK, so
//! this keeps the event heap to one entry per timer instead of one per ACK.

use crate::time::SimTime;

#[derive(Clone, Copy, Debug)]
pub struct LazyTimer {
    /// When the timer expires; `SimTime::NEVER` when stopped.
    pub deadline: SimTime,
    /// The earliest event scheduled for this timer and not yet fired.
    pending: Option<SimTime>,
}

impl Default for LazyTimer {
    fn default() -> Self {
        LazyTimer {
            deadline: SimTime::NEVER,
            pending: None,
        }
    }
}

impl LazyTimer {
    /// Sets the deadline. Returns a time at which the caller must schedule
    /// an event for this timer, if one is needed.
    #[inline]
    #[must_use]
    pub fn set(&mut self, at: SimTime) -> Option<SimTime> {
        self.deadline = at;
        match self.pending {
            Some(p) if p <= at => None,
            _ => {
                self.pending = Some(at);
                Some(at)
            }
        }
    }

    #[inline]
    pub fn stop(&mut self) {
        self.deadline = SimTime::NEVER;
    }

    #[inline]
    pub fn is_running(&self) -> bool {
        self.deadline != SimTime::NEVER
    }

    /// An event of this timer fired at `now`. Returns `(expired, reschedule)`:
    /// whether the timer expired, and a time to schedule a new event at.
    #[inline]
    #[must_use]
    pub fn on_event(&mut self, now: SimTime) -> (bool, Option<SimTime>) {
        if self.pending == Some(now) {
            self.pending = None;
        }
        if now >= self.deadline {
            self.deadline = SimTime::NEVER;
            return (true, None);
        }
        if self.pending.is_none() && self.deadline != SimTime::NEVER {
            self.pending = Some(self.deadline);
            return (false, Some(self.deadline));
        }
        (false, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn restart_later_reuses_the_pending_event() {
        let mut t = LazyTimer::default();
        assert_eq!(t.set(SimTime(100)), Some(SimTime(100)));
        assert_eq!(t.set(SimTime(150)), None);
        assert_eq!(t.set(SimTime(180)), None);
        // The event at 100 fires early and re-arms for 180.
        assert_eq!(t.on_event(SimTime(100)), (false, Some(SimTime(180))));
        assert_eq!(t.on_event(SimTime(180)), (true, None));
        assert!(!t.is_running());
    }

    #[test]
    fn earlier_deadline_schedules_and_stale_event_is_ignored() {
        let mut t = LazyTimer::default();
        assert_eq!(t.set(SimTime(100)), Some(SimTime(100)));
        assert_eq!(t.set(SimTime(50)), Some(SimTime(50)));
        assert_eq!(t.on_event(SimTime(50)), (true, None));
        assert_eq!(t.on_event(SimTime(100)), (false, None));
    }

    #[test]
    fn stopped_timer_does_not_fire() {
        let mut t = LazyTimer::default();
        let _ = t.set(SimTime(100));
        t.stop();
        assert_eq!(t.on_event(SimTime(100)), (false, None));
    }
}
