"""The TCP options a flow may set and each profile's defaults, as the core defines them.

The core's ``TcpOptions`` (``crates/mpsim-core/src/config.rs``) is the one definition: its fields, their
kinds, a choice's values and each field's doc come from it (``mpsim._core.tcp_options_json``), and so do
the profiles' defaults (what a TCP flow of each profile runs when it sets nothing else). The scenario
model's ``tcp`` table spells some names with their unit left to the value (``min_rto = "200ms"`` for
``min_rto_ns``); ``tests/test_tcp_options.py`` holds it to the core's list both ways.

The options table of docs/scenarios.md is written from these by ``python -m mpsim.docs``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from typing import Any

from mpsim._core import tcp_options_json

__all__ = ["default_profile", "flow_mss", "options", "profile_mss", "profile_params", "profiles", "value_at"]


@cache
def _schema() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(tcp_options_json())
    return data


def options() -> list[dict[str, Any]]:
    """Every option, in the core's order: ``name``, ``kind`` (``flag``, ``integer``, ``choice``, ``table``,
    ``flag_or_table``), ``values`` (a choice's), ``param`` (where it lands in the resolved parameters) and
    ``doc``."""
    return list(_schema()["options"])


def profiles() -> list[str]:
    """The profiles, in the core's order."""
    return [str(v) for o in options() if o["name"] == "profile" for v in o["values"]]


def default_profile() -> str:
    """The profile of a flow that names none."""
    return str(_schema()["default_profile"])


def profile_params(profile: str) -> dict[str, Any]:
    """Every TCP parameter a TCP flow of ``profile`` runs with nothing else set (as ``mpsim validate
    --resolved`` prints them: durations in ns, unset as null)."""
    params: dict[str, Any] = _schema()["profiles"][profile]
    return params


def profile_mss(profile: str) -> int:
    """Payload bytes per segment of ``profile``: what sizes in packets are counted in."""
    return int(profile_params(profile)["mss"])


def flow_mss(tcp: Mapping[str, Any]) -> int:
    """Payload bytes per segment of a flow whose core ``tcp`` table is ``tcp``: its ``mss``, else its
    profile's."""
    return int(tcp.get("mss") or profile_mss(tcp.get("profile", default_profile())))


def value_at(params: dict[str, Any], path: str) -> Any:
    """The value at a dotted ``path`` of resolved parameters (``rtt.min_rto``)."""
    value: Any = params
    for key in path.split("."):
        value = value[key]
    return value
