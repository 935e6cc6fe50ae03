"""The experiment catalogue: named reproductions of the CSS, LISA, GSAM, MPCubic and Couple+ papers' figures.

``mpsim experiments`` lists them; ``mpsim reproduce NAME`` runs one (docs/reproduction.md compares
each with its paper).
"""

from __future__ import annotations

from mpsim.experiments import couple, css, datacenter, gsam, lisa, mpcubic
from mpsim.experiments.base import VARIANTS, Experiment, Panel, experiment_metrics

CATALOGUE: dict[str, Experiment] = {
    e.name: e
    for e in [
        *css.EXPERIMENTS,
        *lisa.EXPERIMENTS,
        *datacenter.EXPERIMENTS,
        *gsam.EXPERIMENTS,
        *mpcubic.EXPERIMENTS,
        *couple.EXPERIMENTS,
    ]
}

__all__ = ["CATALOGUE", "VARIANTS", "Experiment", "Panel", "experiment_metrics", "get"]


def get(name: str) -> Experiment:
    """The experiment called ``name``; a ``KeyError`` lists the known names."""
    try:
        return CATALOGUE[name]
    except KeyError:
        raise KeyError(f"unknown experiment '{name}'; known: {', '.join(CATALOGUE)}") from None
