"""Which segments each system covers: systems scored side by side must cover the same ones.

A corpus score sums a system's segments; two systems scored on different
segment sets are not comparable (one may lack its hardest segments), and
sacreBLEU refuses streams of different lengths. :func:`corpus_scores` per
system (:func:`bleustats.metrics.bleu.corpus_scores`, and its partitioned
twin) therefore refuses systems whose segment sets differ, naming each system
and how many of the segments it lacks, unless ``allow_partial=True``: then
each system is scored on the segments it has, and the coverage is recorded in
the result (a ``segments`` column, ``attrs["coverage"]``, and
``coverage:partial`` in the signature).

The segments are the union of every system's ``seg_id`` values; a system
covers a segment when it has at least one row for it.

Examples
--------
>>> from bleustats.engine.stats import compute_stats
>>> import pandas as pd
>>> hyps = pd.DataFrame({"seg_id": [0, 1, 2, 0, 1], "system": ["A", "A", "A", "B", "B"], "text": ["a"] * 5})
>>> cov = system_coverage(compute_stats(hyps, pd.DataFrame({"seg_id": [0, 1, 2], "text": ["a"] * 3})))
>>> cov.n_segments, cov.covered, cov.complete
(3, {'A': 3, 'B': 2}, False)
>>> cov.describe()
'B lacks 1 of the 3 segments'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from ..engine.dataset import StatsDataset
from ..engine.stats import StatsTable
from ..errors import InputError

__all__ = ["Coverage", "check_coverage", "record_coverage", "system_coverage"]


@dataclass(frozen=True)
class Coverage:
    """Segments covered per system.

    Attributes
    ----------
    covered : dict of str to int
        Distinct segments each system has rows for.
    n_segments : int
        Distinct segments over all systems (their union).
    """

    covered: dict[str, int]
    n_segments: int

    @property
    def complete(self) -> bool:
        """Every system covers every segment."""
        return all(n == self.n_segments for n in self.covered.values())

    def describe(self, limit: int = 10) -> str:
        """'B lacks 1 of the 3 segments, C lacks 2 ...' for the systems that lack some."""
        short = [(s, self.n_segments - n) for s, n in self.covered.items() if n < self.n_segments]
        words = [f"{s} lacks {k} of the {self.n_segments} segments" for s, k in short[:limit]]
        return ", ".join(words) + (f" and {len(short) - limit} more systems lack some" if len(short) > limit else "")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"segments": N, "systems": {name: covered}, "complete": bool}``."""
        return {"segments": self.n_segments, "systems": dict(self.covered), "complete": self.complete}


def _pairs(table: pa.Table) -> pa.Table:
    """The distinct (system, seg_id) pairs of a table."""
    return table.select(["system", "seg_id"]).group_by(["system", "seg_id"]).aggregate([])


def _pairs_task(path: str, **_: Any) -> pa.Table:
    import pyarrow.parquet as pq

    try:
        return _pairs(pq.read_table(path, columns=["system", "seg_id"]))
    except (OSError, pa.ArrowException) as exc:
        raise InputError(f"{path}: cannot be read as a Parquet statistics part ({exc}).") from None


def system_coverage(stats: StatsTable | StatsDataset) -> Coverage:
    """The segments each system of ``stats`` covers (a dataset: its parts' pairs, merged; memory: one per pair)."""
    if isinstance(stats, StatsDataset):
        parts = list(stats.run(_pairs_task))
        pairs = _pairs(pa.concat_tables(parts)) if parts else pa.table({"system": [], "seg_id": []})
    else:
        pairs = _pairs(stats.table)
    if pairs.num_rows == 0:
        return Coverage({}, 0)
    counts = pairs.group_by("system").aggregate([("seg_id", "count")])
    names, counted = counts.column("system").to_pylist(), counts.column("seg_id_count").to_pylist()
    covered = {str(name): int(k) for name, k in zip(names, counted)}
    n_segments = len(np.unique(np.asarray(pairs.column("seg_id"))))
    return Coverage(dict(sorted(covered.items())), n_segments)


def check_coverage(stats: StatsTable | StatsDataset, *, allow_partial: bool) -> Coverage:
    """The coverage of ``stats``'s systems; raises when they differ and ``allow_partial`` is false.

    Raises
    ------
    InputError
        Naming each system that lacks segments and how many (the first ten),
        and the option that scores them anyway.
    """
    cov = system_coverage(stats)
    if not cov.complete and not allow_partial:
        raise InputError(
            f"the systems cover different segments: {cov.describe()}. Their scores would not be comparable "
            "(sacreBLEU refuses streams of different lengths); give every system every segment, or score each on "
            "the segments it has with allow_partial=True (command line: --allow-partial), which records the "
            "coverage in the result.")
    return cov


def record_coverage(frame: Any, cov: Coverage, by: str) -> Any:
    """``frame`` (one row per system) with a ``segments`` column, ``attrs['coverage']`` and, when partial,
    ``coverage:partial`` in ``attrs['signature']``."""
    frame["segments"] = [cov.covered.get(k, 0) for k in frame[by].tolist()]
    frame.attrs["coverage"] = cov.to_dict()
    if not cov.complete and "signature" in frame.attrs:
        frame.attrs["signature"] = f"{frame.attrs['signature']}|coverage:partial"
    return frame
