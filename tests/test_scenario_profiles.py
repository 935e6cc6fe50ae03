"""The ``linux_3_14`` profile and the loss-recovery options added with it, as the scenario model passes them."""

from __future__ import annotations

import pydantic
import pytest

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
    with pytest.raises(pydantic.ValidationError) as info:
        TcpOptions(profile="linux_2_6")  # type: ignore[arg-type]
    assert "linux_3_14" in str(info.value)
