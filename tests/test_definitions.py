"""Experiments defined as data (``Definition``): the scenario of a run is the base builder's, with the
fixed parameters, the axis set to x and the variant's patches; a parameter the builder does not take, or a
patch for a variant the experiment does not run, is refused with the field, the value and what is allowed."""

from __future__ import annotations

from typing import Any

import pytest

from mpsim import Scenario
from mpsim.experiments import get
from mpsim.experiments.base import FCT, Definition, Experiment, in_bytes, kilobytes
from mpsim.scenario import CongestionControl, MptcpFlow, TcpFlow
from mpsim.topologies import Link


def base(
    experiment: str, variant: str, run: int, buffer_pkts: int, size_bytes: int = 1000, cc: str = "reno"
) -> Scenario:
    """A stand-in builder whose scenario records what it was told: the run is its seed, the experiment and the
    variant name its one flow."""
    return Scenario(
        seed=run,
        duration="1s",
        hosts=["A", "B"],
        links=[Link(from_="A", to="B", rate="1Mbps", buffer=buffer_pkts)],
        flows=[TcpFlow(name=f"{experiment}/{variant}", src="A", dst="B", size=in_bytes(size_bytes), cc=cc)],
    )


def told(scenario: Scenario) -> dict[str, Any]:
    """What :func:`base` was told, read back from its scenario."""
    (flow,) = scenario.flows
    (link,) = scenario.links
    assert isinstance(flow, TcpFlow) and flow.size is not None and flow.cc is not None and link.buffer is not None
    experiment, variant = flow.name.split("/")
    return {
        "experiment": experiment,
        "variant": variant,
        "seed": scenario.seed,
        "buffer_pkts": link.buffer.value,
        "size_bytes": flow.size.value,
        "cc": flow.cc.type,
    }


def experiment(definition: Definition, variants: tuple[str, ...] = ("tcp", "mptcp")) -> Experiment:
    return Experiment(
        name="synthetic",
        paper="none",
        figure="none",
        description="a synthetic experiment",
        x_name="buffer_pkts",
        x_label="Buffer (packets)",
        x_values=(10, 20),
        quick_x_values=(10,),
        panels=(FCT,),
        variants=variants,
        definition=definition,
    )


def test_a_run_gets_the_fixed_parameters_the_axis_and_its_variants_patch() -> None:
    e = experiment(
        Definition(base, axis="buffer_pkts", fixed={"size_bytes": 5000, "cc": "lia"}, patches={"tcp": {"cc": "cubic"}})
    )
    common = {"experiment": "synthetic", "seed": 3, "buffer_pkts": 20, "size_bytes": 5000}
    # x is converted by the axis type (int unless said): "20" and 20.0 are 20 packets.
    assert told(e.scenario("20", "tcp", 3)) == {**common, "variant": "tcp", "cc": "cubic"}
    assert told(e.scenario(20.0, "mptcp", 3)) == {**common, "variant": "mptcp", "cc": "lia"}
    # A run's core configuration is its scenario's.
    assert e.build(20, "tcp", 3) == e.scenario(20, "tcp", 3).to_core()
    assert [c[:3] for c in e.configs(quick=True, runs=2)] == [
        (10, "tcp", 1),
        (10, "tcp", 2),
        (10, "mptcp", 1),
        (10, "mptcp", 2),
    ]


def test_the_axis_type_converts_x_and_streams_names_the_random_draws_shared() -> None:
    e = experiment(Definition(base, axis="size_bytes", fixed={"buffer_pkts": 7}, axis_type=kilobytes, streams="other"))
    assert told(e.scenario(300, "mptcp", 1)) == {
        "experiment": "other",
        "variant": "mptcp",
        "seed": 1,
        "buffer_pkts": 7,
        "size_bytes": 300_000,
        "cc": "reno",
    }


def test_a_bad_parameter_names_where_it_is_and_what_the_builder_takes() -> None:
    with pytest.raises(
        ValueError,
        match=r"patches\['tcp'\]\['bufer_pkts'\]: 'bufer_pkts' is no parameter of base; "
        r"allowed: buffer_pkts, size_bytes, cc",
    ):
        Definition(base, axis="buffer_pkts", patches={"tcp": {"bufer_pkts": 5}})
    with pytest.raises(ValueError, match=r"axis: 'file_kb' is no parameter of base; allowed: buffer_pkts"):
        Definition(base, axis="file_kb")
    with pytest.raises(ValueError, match=r"fixed\['run'\]: 'run' is no parameter of base"):
        Definition(base, axis="buffer_pkts", fixed={"run": 2})


def test_a_patch_for_a_variant_the_experiment_does_not_run_is_refused() -> None:
    definition = Definition(base, axis="buffer_pkts", patches={"cubic": {"cc": "cubic"}})
    with pytest.raises(
        ValueError, match=r"synthetic: definition.patches: unknown variant 'cubic'; allowed: tcp, mptcp"
    ):
        experiment(definition)


def test_an_experiment_has_exactly_one_of_build_and_definition() -> None:
    definition = Definition(base, axis="buffer_pkts")
    with pytest.raises(ValueError, match="exactly one of scenario and definition"):
        Experiment(**{**experiment(definition).__dict__, "scenario": lambda x, v, r: base("e", v, r, 1)})
    fields = {k: v for k, v in experiment(definition).__dict__.items() if k not in ("scenario", "definition")}
    with pytest.raises(ValueError, match="exactly one of scenario and definition"):
        Experiment(**fields)


def test_lisa_motivation_is_defined_by_its_patch() -> None:
    """LISA Figs. 1–2: the TCP variant's patch makes its flow CUBIC; the MPTCP variants open x subflows."""
    e = get("lisa-motivation")
    assert e.definition is not None and e.definition.patches == {"tcp": {"cc": "cubic"}}
    (tcp,) = e.scenario(3, "tcp", 1).flows
    assert isinstance(tcp, TcpFlow) and tcp.cc == CongestionControl(type="cubic")
    (mptcp,) = e.scenario(3, "lisa", 1).flows
    assert isinstance(mptcp, MptcpFlow) and mptcp.subflows == 3 and mptcp.cc is not None and mptcp.cc.type == "lia"
    assert e.build(3, "lisa", 1)["mptcp_connections"][0]["path_manager"] == {"type": "ndiffports", "subflows": 3}
