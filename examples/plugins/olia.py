"""OLIA (Khalili et al., "MPTCP is not Pareto-optimal", IEEE/ACM ToN 2013, §V) as a plug-in: the same
windows as the engine's ``cc = "olia"`` (its ``paper`` flavour), bit for bit.

Per ACK on path r: w_r += (w_r/rtt_r²)/(Σ_p w_p/rtt_p)² + α_r/w_r (per MSS acknowledged). ℓ_r is the
inter-loss distance (the larger of the bytes acknowledged between the last two losses and since the last
one); B the paths maximising ℓ_r/rtt_r², M those with the largest window, n the paths:
α_r = 1/(n·|B\\M|) for r in B\\M, -1/(n·|M|) for r in M when B\\M is not empty, else 0.
"""

from collections.abc import Sequence

from mpsim.plugins import CongestionControl, Subflow


def takes_part(sf: Subflow) -> bool:
    return sf.established and sf.srtt > 0


def window(sf: Subflow) -> int:
    return sf.ssthresh if sf.in_recovery else sf.cwnd


class Olia(CongestionControl):
    def __init__(self) -> None:
        self.carry: dict[int, float] = {}  # fraction of a byte of increase carried, per subflow
        self.losses: dict[int, tuple[int, int]] = {}  # bytes_acked at the last two losses, per subflow

    def distance(self, sf: Subflow) -> int:
        """ℓ_r: the larger of the bytes acknowledged since the last loss and between the last two."""
        loss1, loss2 = self.losses.get(sf.index, (0, 0))
        return max(max(sf.bytes_acked - loss2, 0), loss2 - loss1)

    def alpha(self, paths: Sequence[Subflow], sf: Subflow) -> float:
        max_w = max(window(p) for p in paths)
        best_l, best_rtt2 = 0, 1  # B maximises ℓ/rtt², compared exactly by cross-multiplication
        for p in paths:
            dist, rtt2 = self.distance(p), p.srtt * p.srtt
            if dist * best_rtt2 >= best_l * rtt2:
                best_l, best_rtt2 = dist, rtt2

        def in_b(p: Subflow) -> bool:
            return self.distance(p) * best_rtt2 == best_l * p.srtt * p.srtt

        m = sum(1 for p in paths if window(p) == max_w)
        b_not_m = sum(1 for p in paths if window(p) != max_w and in_b(p))
        n = len(paths)
        if b_not_m == 0:
            return 0.0
        if window(sf) < max_w and in_b(sf):
            return 1 / float(n * b_not_m)
        if window(sf) == max_w:
            return -1 / float(n * m)
        return 0.0

    def cong_avoid(self, sf: Subflow, acked: int, now: int) -> None:
        paths = [p for p in sf.connection if takes_part(p)]
        if len(paths) <= 1 or not takes_part(sf):
            return super().cong_avoid(sf, acked, now)  # one path: Reno
        den = 0.0
        for p in paths:
            den += float(window(p)) / float(p.srtt)
        w, rtt = float(sf.cwnd), float(sf.srtt)
        per_byte = (w / (rtt * rtt)) / (den * den) + self.alpha(paths, sf) / w
        increase = float(acked) * float(sf.mss) * per_byte
        carry = self.carry.get(sf.index, 0.0) + increase
        whole = float(int(carry // 1))
        self.carry[sf.index] = carry - whole
        sf.cwnd = sf.cwnd + int(whole) if whole >= 0 else max(sf.cwnd - int(-whole), sf.mss)

    def ssthresh(self, sf: Subflow, now: int) -> int:
        _loss1, loss2 = self.losses.get(sf.index, (0, 0))
        if sf.bytes_acked != loss2:
            self.losses[sf.index] = (loss2, sf.bytes_acked)
        self.carry[sf.index] = 0.0
        return super().ssthresh(sf, now)

    def on_timeout(self, sf: Subflow, now: int) -> None:
        self.carry[sf.index] = 0.0
