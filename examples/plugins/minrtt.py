"""The minimum-RTT scheduler (the out-of-tree Linux MPTCP's default) as a plug-in: the same choices as the
engine's ``scheduler = "minrtt"``. Every subflow is asked whether it has room, in order; of those that do,
the lowest smoothed RTT wins (the first of equals), and a reinjected segment goes back to the subflow it
came from only when no other has room."""

from collections.abc import Sequence

from mpsim.plugins import Scheduler, SchedulerSubflow, Segment


class MinRtt(Scheduler):
    def get_subflow(self, subflows: Sequence[SchedulerSubflow], segment: Segment) -> int | None:
        best: SchedulerSubflow | None = None
        fallback: int | None = None
        for sf in subflows:
            if not sf.has_room():
                continue
            if sf.index == segment.reinjected_from:
                fallback = sf.index
            elif best is None or sf.srtt < best.srtt:
                best = sf
        return best.index if best is not None else fallback
