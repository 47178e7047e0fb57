"""The options of the statistics and their one check, importable without numpy, Arrow or numba.

Every path that computes statistics (the numba pipeline in
:mod:`bleustats.engine.stats`, the plain-Python one in
:mod:`bleustats.engine._small`, the command line's choices) takes its option
names and limits from here, so they cannot drift apart, and checking them costs
no heavy import.

Examples
--------
>>> check_options("13a", 4, "all", None, "paper")
>>> check_options("13a", 4, "threshold", None, "paper")
Traceback (most recent call last):
...
ValueError: weight_threshold must be a finite number when ref_view='threshold'; got None.
"""

from __future__ import annotations

import math
import sys
from typing import Any

from ..tokenizers import SACREBLEU_TOKENIZERS

__all__ = [
    "BLEU_METRICS",
    "CHRF_DEFAULTS",
    "DEFAULT_BATCH_ROWS",
    "DELTA_DEFINITIONS",
    "MAX_ORDER_LIMIT",
    "REF_LENGTHS",
    "REF_VIEWS",
    "SENTENCE_VARIANT_NAMES",
    "SMOOTH_DEFAULTS",
    "SMOOTH_METHODS",
    "TABLE_SUFFIXES",
    "check_options",
    "is_integer",
    "is_real",
]

#: BLEU's smoothing methods and their default value (sacreBLEU's ``BLEU.SMOOTH_DEFAULTS``).
SMOOTH_DEFAULTS: dict[str, float | None] = {"none": None, "floor": 0.1, "add-k": 1, "exp": None}
SMOOTH_METHODS = tuple(SMOOTH_DEFAULTS)
#: File suffixes read as long-form tables (:func:`bleustats.engine.io.read_table`).
TABLE_SUFFIXES = (".tsv", ".jsonl", ".parquet")
#: The BLEU family computable from a statistics table's BLEU columns.
BLEU_METRICS = ("bleu", "delta_bleu")
#: Reference-length choices for the brevity penalty.
REF_LENGTHS = ("closest", "shortest", "average")
#: The registered sentence-level variants, by name (:data:`bleustats.metrics.sentence.SENTENCE_VARIANTS`
#: is built to these names and checks them); here so that a command's ``--help`` lists them without
#: loading the metrics.
SENTENCE_VARIANT_NAMES = (
    "bleu+1", "lin-och",
    "nakov:pc-unsmoothed", "nakov:pc-grounded", "nakov:bp-smoothed", "nakov:bp-smoothed,pc-grounded",
    "nakov:unclipped", "nakov:scaled", "nakov:unclipped,scaled",
    "pseudo-doc", "chiang-gain",
    *(f"sacrebleu:{method}" for method in SMOOTH_DEFAULTS),
    *(f"chen-cherry:{i}" for i in range(1, 8)),
)
#: Reference views (ΔBLEU paper, Table 2): all references, those with weight ≥ θ, the first only.
REF_VIEWS = ("all", "threshold", "first")
#: ΔBLEU weighted-match definitions: the paper's, or the first author's 2019 implementation.
DELTA_DEFINITIONS = ("paper", "galley2019")
#: Rows of a statistics dataset read (and computed) per step; bounds the memory of streaming. Here, not in
#: :mod:`bleustats.engine.dataset`, so that code scoring in-memory tables names it without loading Parquet.
DEFAULT_BATCH_ROWS = 1 << 18
#: Largest supported n-gram order (the kernel has no intrinsic limit; this bounds table width).
MAX_ORDER_LIMIT = 32
#: sacreBLEU 2.6's ``CHRF`` defaults (chrF2; ``word_order=2`` is chrF++); here so that a command line
#: can offer them without loading chrF's kernels (:mod:`bleustats.engine.chrf_stats` uses them).
CHRF_DEFAULTS = {
    "char_order": 6,
    "word_order": 0,
    "beta": 2,
    "lowercase": False,
    "whitespace": False,
    "eps_smoothing": False,
}


def is_integer(value: Any) -> bool:
    """True for an ``int`` or a numpy integer, never for a bool (numpy is not imported for the test)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    np = sys.modules.get("numpy")  # a numpy scalar can only exist once numpy is loaded
    return np is not None and isinstance(value, np.integer) and not isinstance(value, np.bool_)


def is_real(value: Any) -> bool:
    """True for an ``int``, ``float`` or numpy integer / floating scalar, never for a bool."""
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, float)):
        return True
    np = sys.modules.get("numpy")
    return np is not None and isinstance(value, (np.integer, np.floating)) and not isinstance(value, np.bool_)


def _is_finite(value: Any) -> bool:
    try:
        return math.isfinite(value)
    except TypeError:  # e.g. a numpy array: numpy's answer (or its error), as before
        import numpy as np

        return bool(np.isfinite(value))


def check_options(tokenize: Any, max_ngram_order: Any, ref_view: Any, weight_threshold: Any,
                  delta_definition: Any) -> None:
    """Raise ``ValueError`` naming the first option that is not valid (and what it must be)."""
    if tokenize not in SACREBLEU_TOKENIZERS:
        raise ValueError(
            f"tokenize must be one of {', '.join(map(repr, SACREBLEU_TOKENIZERS))}; got {tokenize!r}."
        )
    if not is_integer(max_ngram_order) or not 1 <= max_ngram_order <= MAX_ORDER_LIMIT:
        raise ValueError(
            f"max_ngram_order must be an integer from 1 to {MAX_ORDER_LIMIT}; got {max_ngram_order!r}."
        )
    if ref_view not in REF_VIEWS:
        raise ValueError(f"ref_view must be one of {', '.join(map(repr, REF_VIEWS))}; got {ref_view!r}.")
    if ref_view != "threshold" and weight_threshold is not None:
        raise ValueError(
            f"weight_threshold is only used with ref_view='threshold'; got weight_threshold="
            f"{weight_threshold!r} with ref_view={ref_view!r}. Pass ref_view='threshold' or drop it."
        )
    if ref_view == "threshold" and (weight_threshold is None or not _is_finite(weight_threshold)):
        raise ValueError(
            f"weight_threshold must be a finite number when ref_view='threshold'; got {weight_threshold!r}."
        )
    if delta_definition not in DELTA_DEFINITIONS:
        raise ValueError(
            "delta_definition must be one of "
            f"{', '.join(map(repr, DELTA_DEFINITIONS))}; got {delta_definition!r}."
        )
