"""Plug-ins that fail, for tests/test_plugins.py."""

from mpsim.plugins import CongestionControl, Subflow


class Raises(CongestionControl):
    def cong_avoid(self, sf: Subflow, acked: int, now: int) -> None:
        raise ZeroDivisionError("the plug-in's own bug")


class NanWindow(CongestionControl):
    def cong_avoid(self, sf: Subflow, acked: int, now: int) -> None:
        sf.cwnd = float("nan")


class BadSsthresh(CongestionControl):
    def ssthresh(self, sf: Subflow, now: int) -> int:
        return "half"  # type: ignore[return-value]


class NeedsGain(CongestionControl):
    gain: float
    """Required: no default."""
