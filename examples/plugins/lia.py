"""LIA, the Linked Increases Algorithm of RFC 6356 §3, as a plug-in: the same windows as the engine's
``cc = "lia"`` (its ``paper`` flavour), bit for bit (docs/plugins.md, "Identical to a native algorithm").

Per ACK on subflow i, cwnd_i grows by min(alpha·acked·MSS_i/cwnd_total, acked·MSS_i/cwnd_i) with
alpha = cwnd_total·max_i(cwnd_i/rtt_i²)/(Σ_i cwnd_i/rtt_i)²; a loss halves the window as Reno does, and
a subflow alone (or without an RTT sample yet) runs Reno.
"""

from mpsim.plugins import CongestionControl, Subflow


def takes_part(sf: Subflow) -> bool:
    """RFC 6356 §3: a subflow counts in the sums once it can send and has an RTT sample."""
    return sf.established and sf.srtt > 0


def window(sf: Subflow) -> int:
    """The window a subflow contributes: ssthresh during fast recovery (cwnd is inflated there)."""
    return sf.ssthresh if sf.in_recovery else sf.cwnd


class Lia(CongestionControl):
    def __init__(self) -> None:
        self.carry: dict[int, float] = {}  # per subflow, the fraction of a byte of increase not yet added

    def cong_avoid(self, sf: Subflow, acked: int, now: int) -> None:
        part = [s for s in sf.connection if takes_part(s)]
        if len(part) <= 1 or not takes_part(sf):
            return super().cong_avoid(sf, acked, now)  # Reno, as the profile counts
        total = best = den = 0.0
        for s in part:
            w, rtt = float(window(s)), float(s.srtt)
            total += w
            best = max(best, w / (rtt * rtt))
            den += w / rtt
        alpha = total * best / (den * den)  # RFC 6356 §3, windows in bytes, RTT in ns
        num = float(acked) * float(sf.mss)
        self.add(sf, min(alpha * num / total, num / float(sf.cwnd)))

    def add(self, sf: Subflow, increase: float) -> None:
        """The whole bytes of the increase go to cwnd, the fraction is carried to the next ACK."""
        carry = self.carry.get(sf.index, 0.0) + increase
        whole = float(int(carry // 1))
        self.carry[sf.index] = carry - whole
        sf.cwnd = sf.cwnd + int(whole) if whole >= 0 else max(sf.cwnd - int(-whole), sf.mss)

    def ssthresh(self, sf: Subflow, now: int) -> int:
        self.carry[sf.index] = 0.0
        return super().ssthresh(sf, now)  # "the same as in standard TCP"

    def on_timeout(self, sf: Subflow, now: int) -> None:
        self.carry[sf.index] = 0.0
