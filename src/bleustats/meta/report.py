"""Reports of a correlation study: the ΔBLEU paper's Table 2, Markdown, JSON records, Figure 2.

Formatting only: everything here reads a study's summary table (or a result
object with ``summary``, ``table2`` and settings attributes) and computes
nothing new. :mod:`bleustats.meta.study` runs the protocol.

Examples
--------
>>> import pandas as pd
>>> s = pd.DataFrame({"metric": ["BLEU"], "refs": ["all"], "rho": [0.4844],
...                   "rho_fisher_low": [0.415], "rho_fisher_high": [0.546]})
>>> print(markdown_table(table2(s)))
| metric | all |
|---|---|
| BLEU | 0.484 (0.415, 0.546) |
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from .._validate import check_choice, renamed_keywords
from ..engine.io import write_atomic
from ..errors import InputError

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "CORRELATIONS",
    "INTERVALS",
    "comparisons_markdown",
    "markdown_table",
    "plot_sweeps",
    "records",
    "study_panels",
    "table2",
    "to_markdown",
    "undefined_notes",
]

#: Reported coefficients: Spearman's ρ and Kendall's τ.
CORRELATIONS = ("rho", "tau")
#: Interval kinds: Fisher z on N, percentiles over assignments, bootstrap over observations.
INTERVALS = ("fisher", "percentile", "bootstrap")


def records(frame: "pd.DataFrame") -> list[dict[str, Any]]:
    """Rows as plain-Python dicts, floats at full precision, NaN as None (valid JSON)."""
    def plain(v: Any) -> Any:
        if isinstance(v, (float, np.floating)):
            return float(v) if math.isfinite(v) else None
        return v.item() if isinstance(v, np.generic) else v

    return [{k: plain(v) for k, v in row.items()} for row in frame.to_dict(orient="records")]


@renamed_keywords(statistic="correlation")
def table2(summary: "pd.DataFrame", *, correlation: str = "rho", interval: str = "fisher",
           digits: int = 3) -> "pd.DataFrame":
    """Pivot a study summary into the ΔBLEU paper's Table 2 (rows metric, columns reference view).

    Cells are ``value (low, high)`` with the chosen interval; a metric absent
    from a view is an empty cell.

    Examples
    --------
    >>> import pandas as pd
    >>> s = pd.DataFrame({"metric": ["BLEU"], "refs": ["all"], "rho": [0.4844],
    ...                   "rho_fisher_low": [0.415], "rho_fisher_high": [0.546]})
    >>> table2(s).to_dict()
    {'all': {'BLEU': '0.484 (0.415, 0.546)'}}
    """
    import pandas as pd

    check_choice("correlation", correlation, CORRELATIONS)
    check_choice("interval", interval, INTERVALS)
    rows = list(dict.fromkeys(summary["metric"]))
    cols = list(dict.fromkeys(summary["refs"]))
    out = pd.DataFrame("", index=pd.Index(rows, name="metric"), columns=cols)

    def f(v: float) -> str:
        return "nan" if not np.isfinite(v) else f"{v:.{digits}f}"

    for _, r in summary.iterrows():
        lo, hi = r[f"{correlation}_{interval}_low"], r[f"{correlation}_{interval}_high"]
        out.loc[r["metric"], r["refs"]] = f"{f(r[correlation])} ({f(lo)}, {f(hi)})"
    return out


def markdown_table(frame: "pd.DataFrame", index: bool = True) -> str:
    """A DataFrame as a Markdown table (its index as the first column unless ``index=False``)."""
    cols = ([frame.index.name or ""] if index else []) + [str(c) for c in frame.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for key, row in frame.iterrows():
        cells = ([str(key)] if index else []) + [str(v) for v in row.tolist()]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def undefined_notes(summary: "pd.DataFrame") -> list[str]:
    """One line per distinct reason why some metrics' ρ / τ are undefined, naming those metrics.

    Examples
    --------
    >>> import pandas as pd
    >>> undefined_notes(pd.DataFrame({"label": ["BLEU [all]", "ΔBLEU [all]"], "note": ["constant", "constant"]}))
    ['every metric (BLEU [all], ΔBLEU [all]): constant']
    """
    if "note" not in summary:
        return []
    labels: dict[str, list[str]] = {}
    for label, note in zip(summary["label"], summary["note"]):
        if note:
            labels.setdefault(str(note), []).append(str(label))
    out = []
    for note, names in labels.items():
        who = "every metric" if len(names) == len(summary) and len(names) > 1 else "metric" + (
            "s" if len(names) > 1 else "")
        out.append(f"{who} ({', '.join(names)}): {note}")
    return out


def to_markdown(result: Any, *, interval: str = "fisher", digits: int = 3) -> str:
    """Table 2 for ρ and τ (with ``interval``) and the study's settings, as Markdown.

    Examples
    --------
    >>> import pandas as pd
    >>> from bleustats.engine.stats import compute_stats
    >>> from bleustats.meta.study import corpus_metric, correlation_study
    >>> hyps = pd.DataFrame({"seg_id": [0, 0, 1, 1, 2, 2], "system": ["A", "B"] * 3,
    ...                      "text": ["a b", "a c", "d e", "d e", "f g", "h i"]})
    >>> st = compute_stats(hyps, pd.DataFrame({"seg_id": [0, 1, 2], "text": ["a b", "d e", "f g"]}),
    ...                    tokenize="none", max_ngram_order=1)
    >>> human = hyps[["system", "seg_id"]].assign(score=[3.0, 1.0, 2.0, 2.0, 4.0, 0.0])
    >>> print(to_markdown(correlation_study([corpus_metric(st)], human, unit_size=1)).splitlines()[2])
    | metric | all |
    """
    parts = [f"Unit size M = {result.unit_size}; {result.n_observations} observations per assignment; "
             f"{result.n_distinct_assignments} distinct assignment(s) of {result.n_assignments}; "
             f"{int(result.confidence * 100)}% intervals ({interval}).", ""]
    names = {"rho": "Spearman ρ", "tau": f"Kendall τ-{result.kendall_variant}"}
    for corr in CORRELATIONS:
        parts += [markdown_table(table2(result.summary, correlation=corr, interval=interval, digits=digits)), "",
                  f"({names[corr]})", ""]
    for note in undefined_notes(result.summary):  # why a cell is nan (nan, nan): constant human scores, ...
        parts += [f"Note: {note}.", ""]
    parts.append(f"Signature: `{result.signature}`")
    return "\n".join(parts)


def comparisons_markdown(comparisons: "pd.DataFrame", *, confidence: float = 0.95, digits: int = 3) -> str:
    """A study's paired comparisons as a Markdown table: estimates, difference (interval), p-value.

    Examples
    --------
    >>> import pandas as pd
    >>> c = pd.DataFrame({"metric_a": ["ΔBLEU [all]"], "metric_b": ["BLEU [all]"], "correlation": ["rho"],
    ...                   "estimate_a": [0.52], "estimate_b": [0.50], "difference": [0.02], "low": [-0.01],
    ...                   "high": [0.05], "p_value": [0.2]})
    >>> print(comparisons_markdown(c))
    | A − B | coefficient | A | B | A − B (95% interval) | p |
    |---|---|---|---|---|---|
    | ΔBLEU [all] − BLEU [all] | ρ | 0.520 | 0.500 | +0.020 (-0.010, +0.050) | 0.200 |
    """
    import pandas as pd

    names = {"rho": "ρ", "tau": "τ"}
    rows = []
    for _, r in comparisons.iterrows():
        p = r["p_value"]
        rows.append({"A − B": f"{r['metric_a']} − {r['metric_b']}", "coefficient": names.get(r["correlation"],
                                                                                               r["correlation"]),
                     "A": f"{r['estimate_a']:.{digits}f}", "B": f"{r['estimate_b']:.{digits}f}",
                     f"A − B ({confidence:.0%} interval)": f"{r['difference']:+.{digits}f} ({r['low']:+.{digits}f}, "
                                                           f"{r['high']:+.{digits}f})",
                     "p": "nan" if not np.isfinite(p) else (f"{p:.{digits}f}" if p >= 10 ** -digits else f"{p:.1e}")})
    return markdown_table(pd.DataFrame(rows), index=False)


def study_panels(summary: "pd.DataFrame", sweeps: Mapping[str, "pd.DataFrame"], *, unit_size: int
                 ) -> dict[str, "pd.DataFrame"]:
    """The Figure 2-style panels of one unit size: Table 2 by reference view, then the sweeps.

    The first panel (``'refs'``) draws the study's Table 2: each metric's
    coefficient over the reference views. Sweep frames with a ``unit_size``
    column contribute their rows of ``unit_size`` (θ and N swept at this M); a
    ``'unit_size'`` frame is drawn whole.

    Examples
    --------
    >>> import pandas as pd
    >>> s = pd.DataFrame({"metric": ["BLEU", "BLEU"], "refs": ["single", "all"], "label": ["BLEU [single]",
    ...                   "BLEU [all]"], "rho": [0.1, 0.2]})
    >>> list(study_panels(s, {}, unit_size=1))
    ['refs']
    """
    panels = {"refs": summary.assign(parameter="refs", value=summary["refs"], label=summary["metric"])}
    for param in ("threshold", "unit_size", "max_ngram_order"):
        frame = sweeps.get(param)
        if frame is None:
            continue
        if "unit_size" in frame.columns and param != "unit_size":
            frame = frame[frame["unit_size"] == unit_size]
        if len(frame):
            panels[param] = frame
    return panels


@renamed_keywords(statistic="correlation")
def plot_sweeps(
    sweeps: Mapping[str, "pd.DataFrame"],
    path: str | None = None,
    *,
    correlation: str = "rho",
    interval: str = "fisher",
    title: str | None = None,
):
    """Plot sweep panels side by side (the paper's Figure 2); PNG written atomically to ``path``.

    Each panel shows the mean coefficient against the swept value, one line per
    metric (``label``), with its interval as a band; text values (reference
    views) are placed in their order of appearance. Needs matplotlib (the
    ``plot`` extra); no pyplot state is touched.

    Returns
    -------
    matplotlib.figure.Figure
    """
    check_choice("correlation", correlation, CORRELATIONS)
    check_choice("interval", interval, INTERVALS)
    if not sweeps:
        raise InputError("sweeps: give at least one panel (parameter → sweep() frame).")
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError("plot_sweeps: drawing needs matplotlib, which is not installed; install it with "
                          "pip install 'bleustats[plot]' (or pip install matplotlib).") from None
    titles = {"threshold": "(A) reference weight threshold θ", "unit_size": "(B) unit size M",
              "max_ngram_order": "(C) max n-gram order N", "refs": "Table 2: reference view"}
    fig = Figure(figsize=(5 * len(sweeps), 4))
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, len(sweeps), squeeze=False)
    for ax, (param, frame) in zip(axes[0], sweeps.items()):
        categorical = not np.issubdtype(np.asarray(frame["value"]).dtype, np.number)
        levels = list(dict.fromkeys(frame["value"])) if categorical else []
        for label, g in frame.groupby("label", sort=False):
            if categorical:
                xv = np.array([levels.index(v) for v in g["value"]], dtype=float)
            else:
                g = g.sort_values("value")
                xv = g["value"].to_numpy(dtype=float)
            line, = ax.plot(xv, g[correlation], marker="o", label=label)
            ax.fill_between(xv, g[f"{correlation}_{interval}_low"], g[f"{correlation}_{interval}_high"],
                            color=line.get_color(), alpha=0.15)
        if categorical:
            ax.set_xticks(range(len(levels)))
            ax.set_xticklabels([str(v) for v in levels])
        if param == "unit_size":
            ax.set_xscale("log")
        ax.set_title(titles.get(param, param))
        ax.set_xlabel(param)
        ax.set_ylabel("Spearman ρ" if correlation == "rho" else "Kendall τ")
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=7)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    if path is not None:
        write_atomic(path, lambda tmp: fig.savefig(tmp, format="png", dpi=120))
    return fig
