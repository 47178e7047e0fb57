"""The HTML report of a system comparison: one self-contained page, figures drawn as inline SVG.

:func:`report_html` turns a :class:`~bleustats.tools.system_compare.Comparison`
into one HTML page: the settings, then per analysis a figure (bars per
system, the 95% bootstrap interval as whiskers) and its table (value,
interval, p-value against the baseline, counts), compare-mt's n-gram tables,
the sentence examples side by side with their reference, and under each the
signature of its numbers. Nothing is loaded from anywhere: the styles are
inline, the figures are SVG elements of the page, there is no script, and the
page's Content-Security-Policy forbids every network resource.
:func:`write_report` writes it as ``DIR/index.html``, the folder whole or not
at all (:func:`bleustats.engine.io.write_folder`).

Examples
--------
>>> from bleustats.tools.system_compare import compare
>>> result = compare({"A": ["a b c d"], "B": ["a b x d"]}, [["a b c d"]], metrics=("bleu",), n_samples=0)
>>> page = report_html(result)
>>> page.startswith("<!DOCTYPE html>"), page.count("<svg") >= 5, "http://" in page.replace(_SVG_NS, "")
(True, True, False)
"""

from __future__ import annotations

import html
import math
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

if TYPE_CHECKING:
    from .system_compare import Comparison

__all__ = ["report_html", "write_report"]

#: compare-mt's bar colours, then more
COLORS = ("#7293CB", "#E1974C", "#84BA5B", "#D35E60", "#808585", "#9067A7", "#AB6857", "#CCC210",
          "#396AB1", "#DA7C30", "#3E9651", "#CC2529")
_SVG_NS = "http://www.w3.org/2000/svg"
_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
_STYLE = """
body { font-family: sans-serif; margin: 1.5em auto; max-width: 1200px; padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; } h2 { font-size: 1.3em; margin-top: 2em; border-bottom: 1px solid #ccc; }
h3 { font-size: 1.05em; }
table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 0.9em; }
th, td { border: 1px solid #bbb; padding: 3px 7px; text-align: right; vertical-align: top; }
th { background: #396AB1; color: white; } td.l, th.l { text-align: left; }
tr:nth-child(even) td { background: #f4f4f4; }
.sig { font-family: monospace; font-size: 0.78em; color: #555; word-break: break-all; }
.ci { color: #666; font-size: 0.85em; } .sig-p { font-weight: bold; }
figure { margin: 0.5em 0; } figcaption { font-size: 0.85em; color: #444; }
.ex { display: grid; grid-template-columns: 15em 1fr; gap: 2px 10px; margin: 0.6em 0 1.2em;
      border-left: 3px solid #396AB1; padding-left: 8px; font-size: 0.92em; }
.ex .k { color: #555; } nav li { margin: 0.15em 0; }
"""
_TITLES = {
    "bleu": "BLEU", "length_ratio": "Length ratio", "chrf": "chrF", "ter": "TER", "delta_bleu": "ΔBLEU",
    "word_fmeasure_by_frequency": "Word F-measure by frequency bucket",
    "word_precision_by_frequency": "Word precision by frequency bucket",
    "word_recall_by_frequency": "Word recall by frequency bucket",
    "count_by_length_difference": "Sentences by length difference, len(output) - len(reference)",
    "count_by_sentence_bleu": "Sentences by sentence BLEU", "sentence_examples": "Sentence examples",
}
_AGGREGATES = ("bleu", "length_ratio", "chrf", "ter", "delta_bleu")


def _title(analysis: str) -> str:
    if analysis in _TITLES:
        return _TITLES[analysis]
    if analysis.startswith("ngram_"):
        return f"N-gram differences ({analysis[6:]})"
    metric, _, by = analysis.partition("_by_")
    return f"{_TITLES.get(metric, metric)} by {'reference length' if by == 'length' else by}"


def _fmt(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, int):
        return str(value)
    return f"{value:.4f}"


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


# --------------------------------------------------------------------------- figures


def _ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    """About ``n`` round tick values covering [lo, hi]."""
    span = hi - lo or abs(hi) or 1.0
    raw = span / n
    step = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 2.5, 5, 10):
        if raw <= m * step:
            step *= m
            break
    start = math.floor(lo / step) * step
    return [start + i * step for i in range(int(math.ceil((hi - start) / step)) + 1)]


def bar_chart(groups: Sequence[str], series: Sequence[tuple[str, Sequence[float], Sequence[Any], Sequence[Any]]],
              *, ylabel: str, title: str) -> str:
    """An SVG bar chart: one bar per series in each group, whiskers from the (low, high) intervals.

    ``series`` holds ``(name, values, lows, highs)``; a missing bound is ``None``.
    """
    n_g, n_s = max(len(groups), 1), max(len(series), 1)
    bar = max(6.0, min(28.0, 300.0 / (n_g * n_s)))
    gap = bar * 0.8
    left, top, bottom, right = 64.0, 30.0, 96.0, 150.0
    plot_w = n_g * (n_s * bar + gap) + gap
    width, height = left + plot_w + right, 300.0
    plot_h = height - top - bottom
    values = [v for _, vals, lows, highs in series for v in (*vals, *lows, *highs) if v is not None]
    lo, hi = min([0.0, *values]), max([0.0, *values])
    ticks = _ticks(lo, hi)
    lo, hi = min(lo, ticks[0]), max(hi, ticks[-1])

    def y(v: float) -> float:
        return top + plot_h * (1 - (v - lo) / ((hi - lo) or 1.0))

    out = [f'<svg xmlns="{_SVG_NS}" width="{width:.0f}" height="{height:.0f}" viewBox="0 0 {width:.0f} '
           f'{height:.0f}" role="img" aria-label="{_e(title)}" class="chart">',
           f'<text x="{left:.0f}" y="18" font-size="13" font-weight="bold">{_e(title)}</text>']
    for t in ticks:
        out.append(f'<line x1="{left}" x2="{left + plot_w:.1f}" y1="{y(t):.1f}" y2="{y(t):.1f}" stroke="#e4e4e4"/>')
        out.append(f'<text x="{left - 6}" y="{y(t) + 4:.1f}" font-size="11" text-anchor="end">{t:g}</text>')
    out.append(f'<line x1="{left}" x2="{left}" y1="{top}" y2="{top + plot_h}" stroke="#333"/>')
    out.append(f'<line x1="{left}" x2="{left + plot_w:.1f}" y1="{y(0):.1f}" y2="{y(0):.1f}" stroke="#333"/>')
    out.append(f'<text transform="translate(14,{top + plot_h / 2:.0f}) rotate(-90)" font-size="12" '
               f'text-anchor="middle">{_e(ylabel)}</text>')
    for g, label in enumerate(groups):
        x0 = left + gap + g * (n_s * bar + gap)
        for s, (name, vals, lows, highs) in enumerate(series):
            v = vals[g]
            x = x0 + s * bar
            y1, y2 = sorted((y(v), y(0)))
            out.append(f'<rect x="{x:.1f}" y="{y1:.1f}" width="{bar * 0.92:.1f}" height="{max(y2 - y1, 0.5):.1f}" '
                       f'fill="{COLORS[s % len(COLORS)]}"><title>{_e(name)} {_e(label)}: {_fmt(v)}</title></rect>')
            if lows[g] is not None and highs[g] is not None:
                cx = x + bar * 0.46
                out.append(f'<path d="M{cx:.1f},{y(lows[g]):.1f}V{y(highs[g]):.1f}M{cx - 3:.1f},{y(lows[g]):.1f}'
                           f'h6M{cx - 3:.1f},{y(highs[g]):.1f}h6" stroke="#222" fill="none"/>')
        cx = x0 + n_s * bar / 2
        out.append(f'<text transform="translate({cx:.1f},{top + plot_h + 12:.1f}) rotate(-45)" font-size="11" '
                   f'text-anchor="end">{_e(label)}</text>')
    for s, (name, *_rest) in enumerate(series):
        ly = top + 6 + 18 * s
        out.append(f'<rect x="{left + plot_w + 14:.1f}" y="{ly:.1f}" width="12" height="12" '
                   f'fill="{COLORS[s % len(COLORS)]}"/>')
        out.append(f'<text x="{left + plot_w + 31:.1f}" y="{ly + 10:.1f}" font-size="12">{_e(name)}</text>')
    out.append("</svg>")
    return "".join(out)


# --------------------------------------------------------------------------- sections


def _value_cell(r: dict[str, Any]) -> str:
    cell = _fmt(r["value"])
    if r.get("ci_low") is not None:
        cell += f' <span class="ci">[{_fmt(r["ci_low"])}, {_fmt(r["ci_high"])}]</span>'
    if r.get("p_value") is not None:
        p = r["p_value"]
        cell += f' <span class="ci{" sig-p" if p < 0.05 else ""}">p={p:.4f}</span>'
    return cell


def _bucket_section(analysis: str, records: list[dict[str, Any]], systems: Sequence[str]) -> str:
    """A figure and a table: rows are buckets, columns systems."""
    buckets = list(dict.fromkeys(r["bucket"] for r in records))
    by = {(r["bucket"], r["system"]): r for r in records}
    labels = ["all" if b is None else str(b) for b in buckets]
    series = [(s, [by[b, s]["value"] for b in buckets], [by[b, s].get("ci_low") for b in buckets],
               [by[b, s].get("ci_high") for b in buckets]) for s in systems]
    title = _title(analysis)
    parts = [f'<figure>{bar_chart(labels, series, ylabel=title.split(" by ")[0], title=title)}'
             f'<figcaption>{_e(title)}: bars are values, whiskers the 95% bootstrap intervals.</figcaption></figure>']
    counted = analysis not in _AGGREGATES and not analysis.startswith("count_by")
    head = '<tr><th class="l">bucket</th>' + ("<th>count</th>" if counted else "")
    head += "".join(f"<th>{_e(s)}</th>" for s in systems) + "</tr>"
    rows = []
    for b, label in zip(buckets, labels):
        cells = f'<td class="l">{_e(label)}</td>'
        if counted:
            cells += f'<td>{_fmt(by[b, systems[0]].get("count"))}</td>'
        cells += "".join(f"<td>{_value_cell(by[b, s])}</td>" for s in systems)
        rows.append(f"<tr>{cells}</tr>")
    parts.append(f"<table>{head}{''.join(rows)}</table>")
    return "".join(parts)


def _ngram_section(records: list[dict[str, Any]], baseline: str) -> str:
    parts = []
    for system in dict.fromkeys(r["system"] for r in records):
        mine = [r for r in records if r["system"] == system]
        for caption, side in ((f"n-grams where {baseline} > {system}", [r for r in mine if r["value"] > 0.5]),
                              (f"n-grams where {system} > {baseline}", [r for r in mine if r["value"] <= 0.5])):
            rows = "".join(f'<tr><td class="l">{_e(r["bucket"])}</td><td>{_fmt(r["value"])}</td>'
                           f'<td>{r["baseline_count"]}</td><td>{r["count"]}</td></tr>' for r in side)
            parts.append(f"<h3>{_e(caption)}</h3><table><tr><th class='l'>n-gram</th><th>score</th>"
                         f"<th>{_e(baseline)}</th><th>{_e(system)}</th></tr>{rows}</table>")
    return "".join(parts)


def _examples_section(records: list[dict[str, Any]], baseline: str) -> str:
    parts = []
    for system in dict.fromkeys(r["system"] for r in records):
        for side, caption in (("baseline_better", f"{baseline} better than {system}"),
                              ("system_better", f"{system} better than {baseline}")):
            parts.append(f"<h3>{_e(caption)} (sentence BLEU)</h3>")
            for r in records:
                if r["system"] != system or r["bucket"] != side:
                    continue
                parts.append(
                    f'<div class="ex"><span class="k">segment</span><span>{r["seg_id"]}: {_e(system)} − '
                    f'{_e(baseline)} = {_fmt(r["value"] - r["baseline_value"])}</span>'
                    f'<span class="k">reference</span><span>{_e(r["reference"])}</span>'
                    f'<span class="k">{_e(baseline)} ({_fmt(r["baseline_value"])})</span>'
                    f'<span>{_e(r["baseline_hypothesis"])}</span>'
                    f'<span class="k">{_e(system)} ({_fmt(r["value"])})</span><span>{_e(r["hypothesis"])}</span></div>')
    return "".join(parts)


def report_html(comparison: Comparison, *, title: str = "bleustats compare") -> str:
    """The comparison as one self-contained HTML page (see the module docstring)."""
    systems = list(comparison.systems)
    settings = comparison.settings
    sections = []
    aggregates = [r for r in comparison.records if r["analysis"] in _AGGREGATES]
    if aggregates:
        body = "".join(
            _bucket_section(a, [r for r in aggregates if r["analysis"] == a], systems)
            + f'<p class="sig">{_e(a)}: {_e(comparison.signatures.get(a, ""))}</p>'
            for a in dict.fromkeys(r["analysis"] for r in aggregates))
        sections.append(("aggregate", "Aggregate scores", body))
    for analysis in comparison.analyses:
        if analysis in _AGGREGATES:
            continue
        records = comparison.select(analysis)
        if analysis.startswith("ngram_"):
            body = _ngram_section(records, comparison.baseline)
        elif analysis == "sentence_examples":
            body = _examples_section(records, comparison.baseline)
        else:
            body = _bucket_section(analysis, records, systems)
        body += f'<p class="sig">signature: {_e(comparison.signatures.get(analysis, ""))}</p>'
        sections.append((analysis, _title(analysis), body))
    nav = "".join(f'<li><a href="#{_e(key)}">{_e(name)}</a></li>' for key, name, _ in sections)
    info = (f"{len(systems)} systems ({', '.join(map(_e, systems))}), baseline {_e(comparison.baseline)}; "
            f"{settings.get('n_segments', '?')} segments; tokenizer {_e(settings.get('tokenize', '?'))}"
            f"{', lowercased' if settings.get('lowercase') else ''}; BLEU: {_e(settings.get('bleu_definition', '?'))}"
            f"; {settings.get('n_samples', 0)} bootstrap resamples (seed {_e(settings.get('seed'))}): intervals are "
            "95% percentile intervals, p-values paired bootstrap tests against the baseline.")
    body = "".join(f'<section id="{_e(key)}"><h2>{_e(name)}</h2>{content}</section>'
                   for key, name, content in sections)
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{_e(title)}</title><style>{_STYLE}</style></head><body>"
            f"<h1>{_e(title)}</h1><p>{info}</p><nav><ul>{nav}</ul></nav>{body}</body></html>\n")


def write_report(comparison: Comparison, directory: str | os.PathLike, *, title: str = "bleustats compare",
                 replace: bool = False) -> Path:
    """Write :func:`report_html` as ``directory/index.html``, the folder whole or not at all.

    An existing ``directory`` is refused unless ``replace`` (then replaced
    in one rename; :func:`bleustats.engine.io.write_folder`). Returns the
    folder's path.

    Examples
    --------
    >>> import os, tempfile
    >>> from bleustats.tools.system_compare import compare
    >>> result = compare({"A": ["a b"], "B": ["a c"]}, [["a b"]], metrics=("bleu",), n_samples=0)
    >>> folder = write_report(result, os.path.join(tempfile.mkdtemp(), "report"))
    >>> sorted(os.listdir(folder))
    ['index.html']
    """
    from ..engine import io

    page = report_html(comparison, title=title)
    return io.write_folder(directory, {"index.html": lambda p: p.write_text(page, encoding="utf-8")},
                           replace=replace, flag="directory", hint="replace=True")
