//! Kathleen Nichols' windowed max tracker, as Linux's `lib/win_minmax.c`
//! (`minmax_running_max`, `minmax_subwin_update`, `minmax_reset`): the
//! largest value seen over the last `win` time units in constant space,
//! keeping the best, second and third best samples spread over the window.
//! Time and values are `u32` and time differences wrap as the kernel's, so
//! that the filter answers what the kernel's answers for the same inputs.

/// One sample: `t` in the caller's time units (BBR: round trips), `v` its value.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Sample {
    pub t: u32,
    pub v: u32,
}

/// `struct minmax`: the best, second-best and third-best samples, the
/// times non-decreasing from `s[0]` to `s[2]`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct WindowedMax {
    pub s: [Sample; 3],
}

impl WindowedMax {
    /// `minmax_get`: the windowed maximum.
    #[inline]
    pub fn get(&self) -> u32 {
        self.s[0].v
    }

    /// `minmax_reset`: forget everything; `v` at `t` is all there is.
    pub fn reset(&mut self, t: u32, v: u32) -> u32 {
        self.s = [Sample { t, v }; 3];
        v
    }

    /// `minmax_running_max`: takes in `v` measured at `t`; returns the
    /// maximum over the `win` units before `t`.
    pub fn update(&mut self, win: u32, t: u32, v: u32) -> u32 {
        let val = Sample { t, v };
        // A new maximum, or nothing left in the window: start afresh.
        if v >= self.s[0].v || t.wrapping_sub(self.s[2].t) > win {
            return self.reset(t, v);
        }
        if v >= self.s[1].v {
            self.s[1] = val;
            self.s[2] = val;
        } else if v >= self.s[2].v {
            self.s[2] = val;
        }
        self.subwindow_update(win, val)
    }

    /// `minmax_subwin_update`: as time passes, promote the second and third
    /// choices, and take fresh ones from the second quarter and the second
    /// half of the window so that the three stay spread out.
    fn subwindow_update(&mut self, win: u32, val: Sample) -> u32 {
        let dt = val.t.wrapping_sub(self.s[0].t);
        if dt > win {
            // The best left the window: the second becomes the best; the
            // second may be out of the window too (the third was in).
            self.s = [self.s[1], self.s[2], val];
            if val.t.wrapping_sub(self.s[0].t) > win {
                self.s = [self.s[1], self.s[2], val];
            }
        } else if self.s[1].t == self.s[0].t && dt > win / 4 {
            self.s[1] = val;
            self.s[2] = val;
        } else if self.s[2].t == self.s[1].t && dt > win / 2 {
            self.s[2] = val;
        }
        self.s[0].v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A window of 10: a maximum of 50 at t = 0 holds until t = 10 and
    /// leaves at t = 11, when the best later sample takes over.
    #[test]
    fn the_maximum_expires_after_the_window() {
        let mut m = WindowedMax::default();
        m.reset(0, 0);
        assert_eq!(m.update(10, 0, 50), 50);
        // t = 3 (> win/4 = 2) with s[1] = s[0]: 30 is the second choice.
        assert_eq!(m.update(10, 3, 30), 50);
        assert_eq!(m.s[1], Sample { t: 3, v: 30 });
        // t = 6 (> win/2 = 5) with s[2] = s[1]: 20 is the third choice.
        assert_eq!(m.update(10, 6, 20), 50);
        assert_eq!(m.s[2], Sample { t: 6, v: 20 });
        assert_eq!(m.update(10, 10, 10), 50);
        // t = 11: dt = 11 > 10, the best expires; the second (30 at 3) is in.
        assert_eq!(m.update(10, 11, 10), 30);
        assert_eq!(
            m.s,
            [Sample { t: 3, v: 30 }, Sample { t: 6, v: 20 }, Sample { t: 11, v: 10 }]
        );
        // t = 14: 30 at 3 is 11 old; 20 at 6 takes over.
        assert_eq!(m.update(10, 14, 5), 20);
        // t = 30: even the third choice (11) is out of the window: reset.
        assert_eq!(m.update(10, 30, 1), 1);
        assert_eq!(m.s, [Sample { t: 30, v: 1 }; 3]);
    }

    /// An equal or larger value resets; a value between the choices
    /// replaces the ones it beats.
    #[test]
    fn a_new_maximum_forgets_the_rest() {
        let mut m = WindowedMax::default();
        m.reset(5, 40);
        m.update(10, 6, 40);
        assert_eq!(m.s, [Sample { t: 6, v: 40 }; 3]);
        // Past a quarter of the window (dt 3 > 2) 10 becomes the second choice…
        m.update(10, 9, 10);
        assert_eq!(m.s[1..], [Sample { t: 9, v: 10 }; 2]);
        // …and 20 beats it (not the best, 40).
        m.update(10, 10, 20);
        assert_eq!(
            m.s,
            [Sample { t: 6, v: 40 }, Sample { t: 10, v: 20 }, Sample { t: 10, v: 20 }]
        );
        // Time wraps as u32: t = 2 after u32::MAX − 1 is 4 units later.
        let mut m = WindowedMax::default();
        m.reset(u32::MAX - 1, 7);
        assert_eq!(m.update(10, 2, 3), 7);
    }
}
