"""A new idea in about 30 lines: LIA whose coupled increase backs off as a subflow's queue grows.

Each subflow's LIA increase (RFC 6356 §3) is scaled by target/(target + queueing delay), the queueing
delay being srtt - min_rtt: a subflow whose bottleneck queue fills takes less of the connection's
increase, so a path with a deep buffer (LTE) stops bloating it while the other takes the traffic.
"""

from typing import Annotated

from pydantic import Field

from mpsim.plugins import CongestionControl, Subflow


class DelayLia(CongestionControl):
    target_ms: Annotated[float, Field(gt=0)] = 10.0
    """Queueing delay at which a subflow's increase is halved, ms."""

    def __init__(self) -> None:
        self.carry: dict[int, float] = {}

    def cong_avoid(self, sf: Subflow, acked: int, now: int) -> None:
        part = [s for s in sf.connection if s.established and s.srtt > 0]
        if len(part) <= 1 or sf.srtt == 0:
            return super().cong_avoid(sf, acked, now)
        windows = [float(s.ssthresh if s.in_recovery else s.cwnd) for s in part]
        total = sum(windows)
        best = max(w / (s.srtt * s.srtt) for w, s in zip(windows, part, strict=True))
        den = sum(w / s.srtt for w, s in zip(windows, part, strict=True))
        num = float(acked) * sf.mss
        lia = min(total * best / (den * den) * num / total, num / sf.cwnd)
        queueing_ms = (sf.srtt - sf.min_rtt) / 1e6
        carry = self.carry.get(sf.index, 0.0) + lia * self.target_ms / (self.target_ms + queueing_ms)
        self.carry[sf.index] = carry % 1.0
        sf.cwnd += int(carry)

    def ssthresh(self, sf: Subflow, now: int) -> int:
        self.carry[sf.index] = 0.0
        return super().ssthresh(sf, now)
