"""The standard slow start through a Python hook, for tests/test_plugins.py: the base class's ``on_ack`` (RFC
5681 with RFC 3465's limit, as the profile counts) called from Python for every ACK in slow start."""

from mpsim.plugins import SlowStart, Subflow


class PythonStandard(SlowStart):
    def on_ack(self, sf: Subflow, acked: int, now: int) -> int | None:
        return super().on_ack(sf, acked, now)
