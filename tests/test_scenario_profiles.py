"""The ``linux_3_14`` profile and the loss-recovery options added with it, as the scenario model passes them."""

from __future__ import annotations

import pytest

from mpsim import ScenarioError
from mpsim.scenario import TcpOptions


def test_the_options_pass_to_the_core_by_name() -> None:
    opts = TcpOptions(
        profile="linux_3_14",
        frto=False,
        early_retransmit=True,
        early_retransmit_delay=False,
        fack=True,
        tlp_pto="linux3",
        cwnd_in_segments=False,
        min_rto_bounds_variation=False,
    )
    assert opts.to_core() == {
        "profile": "linux_3_14",
        "frto": False,
        "early_retransmit": True,
        "early_retransmit_delay": False,
        "fack": True,
        "tlp_pto": "linux3",
        "cwnd_in_segments": False,
        "min_rto_bounds_variation": False,
    }


def test_an_unknown_profile_names_the_allowed_ones() -> None:
    with pytest.raises(ScenarioError) as info:
        TcpOptions(profile="linux_2_6")  # type: ignore[arg-type]
    assert str(info.value) == (
        "profile: 'linux_2_6' is not allowed; did you mean 'linux_3_14'? (allowed: linux, linux_3_14, ns3, rfc, ns2)"
    )
