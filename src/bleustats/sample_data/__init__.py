"""Sample data shipped with bleustats: WMT21 en-de, MQM-rated segments (see README.md).

>>> from bleustats import sample_data
>>> sorted(p.name for p in sample_data.paths().values())
['human_scores.tsv', 'hypotheses.tsv', 'references.tsv']
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

__all__ = ["paths"]


def paths() -> dict[str, Path]:
    """Paths of the sample's ``hypotheses``, ``references`` and ``human_scores`` tables."""
    root = resources.files(__name__)
    return {name: Path(str(root.joinpath(f"{name}.tsv"))) for name in ("hypotheses", "references", "human_scores")}
