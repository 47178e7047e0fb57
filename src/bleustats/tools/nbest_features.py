r"""Dense features of Moses n-best lists: parsing, Moses' FEATURES_TXT, and weight files.

A Moses n-best entry carries its dense features as labelled groups of values,
``d= 0 -7.66 0 lm= -41.3 -40.4 w= -9``: a label ending in ``=`` followed by
that feature function's values. Tuning needs them as a float matrix, one row
per entry and one column per value, with the names Moses' ``extractor`` gives
the columns (``d_0 .. d_6 lm_0 lm_1 w_0``: the label, ``_`` and the 0-based
position within the group, ``mert/Data.cpp`` ``InitFeatureMap``).

The *layout* of a list is its sequence of ``(label, count)`` pairs, e.g.
``(("d", 7), ("lm", 2), ("w", 1))``. Every entry of a list must have the same
layout (the tuners compare entries column by column); :func:`parse_features`
checks that for all lines at once and names the first line that differs.

Moses FEATURES_TXT (``mert/FeatureArray.cpp`` ``savetxt``, ``mert/FeatureStats.cpp``)
------------------------------------------------------------------------------------
Per source sentence::

    FEATURES_TXT_BEGIN_0 <source id> <number of entries> <number of features> d_0 d_1 ... w_0 
    v_1 v_2 ... v_F 
    ...
    FEATURES_TXT_END_0

The header ends with a space after the last name and every value is followed
by a space, as Moses writes them. Moses holds feature values as ``float``
(32 bits) and prints them with C++'s default stream format (``%g``, six
significant digits); :func:`format_features_txt` does the same, so its output
equals the ``extractor``'s byte for byte.

Sparse features (labels containing ``_``, one value each) are not read:
the tuners here work on dense features only.

Examples
--------
>>> vals, layout = parse_features(["d= 0 -1.5 lm= -40 w= -3", "d= 1 -2 lm= -42.25 w= -4"])
>>> vals.tolist(), layout
([[0.0, -1.5, -40.0, -3.0], [1.0, -2.0, -42.25, -4.0]], (('d', 2), ('lm', 1), ('w', 1)))
>>> feature_names(layout)
['d_0', 'd_1', 'lm_0', 'w_0']
>>> print(format_features_txt([0, 0], vals, layout), end="")
FEATURES_TXT_BEGIN_0 0 2 4 d_0 d_1 lm_0 w_0 
0 -1.5 -40 -3 
1 -2 -42.25 -4 
FEATURES_TXT_END_0
>>> moses_weight_lines([0.5, 0.25, 1.0, -0.125], layout)
['d= 0.5 0.25', 'lm= 1', 'w= -0.125']
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from numpy.typing import ArrayLike, NDArray

from ..engine import io
from ..errors import InputError

__all__ = [
    "FeatureLayout",
    "feature_names",
    "format_features_txt",
    "layout_string",
    "moses_weight_lines",
    "parse_features",
    "read_init_weights",
    "write_features_txt",
]

#: ``((label, number of values), ...)`` in n-best order, e.g. ``(("d", 7), ("lm", 2))``.
FeatureLayout = tuple[tuple[str, int], ...]


def layout_string(layout: FeatureLayout) -> str:
    """The layout as Moses writes an entry's labels: ``'d= x7 lm= x2 w= x1'``.

    Examples
    --------
    >>> layout_string((("d", 7), ("w", 1)))
    'd= x7 w= x1'
    """
    return " ".join(f"{label}= x{count}" for label, count in layout)


def feature_names(layout: FeatureLayout) -> list[str]:
    """Moses ``extractor`` names of the feature columns: ``label_i``, ``i`` from 0 within each group.

    Examples
    --------
    >>> feature_names((("tm", 2), ("w", 1)))
    ['tm_0', 'tm_1', 'w_0']
    """
    return [f"{label}_{i}" for label, count in layout for i in range(count)]


def _layout_of(tokens: list[str], what: str, line: int) -> FeatureLayout:
    """Layout of one entry's feature tokens; errors name the line and the fix."""
    tokens = [t for t in tokens if t]
    if not tokens:
        raise InputError(f"{what}: line {line}: the features field is empty; tuning needs dense features "
                            "('name= v1 v2 ...') on every entry.")
    if not tokens[0].endswith("="):
        raise InputError(f"{what}: line {line}: features must start with a label ending in '=' "
                            f"(e.g. 'lm= -41.3'); got {tokens[0]!r}.")
    layout: list[tuple[str, int]] = []
    for tok in tokens:
        if tok.endswith("="):
            label = tok[:-1]
            if "_" in label:
                raise InputError(
                    f"{what}: line {line}: {tok!r} is a sparse feature (Moses reads labels with '_' as "
                    "sparse); bleustats tunes dense features only. Drop the sparse features from the list.")
            if not label:
                raise InputError(f"{what}: line {line}: a feature label is empty ('='); labels are "
                                    "names ending in '=', e.g. 'tm='.")
            if layout and layout[-1][1] == 0:
                raise InputError(f"{what}: line {line}: label {layout[-1][0] + '='!r} has no values; "
                                    "every label needs at least one value.")
            layout.append((label, 0))
        else:
            layout[-1] = (layout[-1][0], layout[-1][1] + 1)
    if layout[-1][1] == 0:
        raise InputError(f"{what}: line {line}: label {layout[-1][0] + '='!r} has no values; every label "
                            "needs at least one value.")
    labels = [lab for lab, _ in layout]
    if len(set(labels)) != len(labels):
        dup = sorted({lab for lab in labels if labels.count(lab) > 1})
        raise InputError(f"{what}: line {line}: label(s) {', '.join(d + '=' for d in dup)} appear more than "
                            "once; each feature function must be one group of values.")
    return tuple(layout)


def _as_string_array(features: Any) -> pa.Array:
    if isinstance(features, pa.ChunkedArray):
        features = features.combine_chunks()
    if isinstance(features, pa.Array):
        if not (pa.types.is_string(features.type) or pa.types.is_large_string(features.type)):
            raise TypeError(f"features must hold strings; got an Arrow array of {features.type}.")
        if features.null_count:
            i = int(np.flatnonzero(features.is_null().to_numpy(zero_copy_only=False))[0])
            raise InputError(f"features: entry {i} has no features (null); every entry needs dense features.")
        return features
    if isinstance(features, str):
        raise TypeError("features must be a sequence of strings (one per entry), not one str; wrap it in a list.")
    values = list(features)
    bad = [v for v in values if not isinstance(v, str)]
    if bad:
        raise TypeError(f"features must be strings ('name= v1 v2 ...'); got {type(bad[0]).__name__} {bad[0]!r}.")
    return pa.array(values, pa.string())


def parse_features(
    features: Sequence[str] | pa.Array | pa.ChunkedArray,
    *,
    layout: FeatureLayout | None = None,
    what: str = "nbest",
    first_line: int = 1,
) -> tuple[NDArray[np.float64], FeatureLayout]:
    r"""Dense Moses features of many entries as a float64 matrix, all lines parsed at once.

    Parameters
    ----------
    features : sequence of str or Arrow string array
        The third field of each n-best line, e.g. ``'d= 0 -7.66 lm= -41.3 w= -9'``.
    layout : FeatureLayout, optional
        The layout every line must have (e.g. that of an earlier file or
        chunk of the same list); default: the first line's.
    what, first_line
        Name of the input and line number of ``features[0]`` for messages.

    Returns
    -------
    values : ndarray, shape (n, F), float64, C-contiguous
        :math:`F = \sum_g \mathrm{count}_g` values per entry, in n-best order.
    layout : FeatureLayout

    Raises
    ------
    bleustats.errors.InputError
        A line whose labels, label order or value counts differ from the
        layout (the message shows both), a value that is not a finite number,
        a sparse feature, or an empty features field.

    Examples
    --------
    >>> parse_features(["a= 1 2 b= 3", "a= 4 5 b= 6"])[0].tolist()
    [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    >>> parse_features(["a= 1 2 b= 3", "a= 4 b= 5 6"], what="list.txt")
    Traceback (most recent call last):
    ...
    bleustats.errors.InputError: list.txt: line 2: features 'a= 4 b= 5 6' have layout a= x1 b= x2;
    the list's entries have a= x2 b= x1. Every entry needs the same dense features
    (labels, order and number of values).
    """
    arr = _as_string_array(features)
    n = len(arr)
    if n == 0:
        if layout is None:
            raise InputError(f"{what}: no entries, so no features; the list is empty.")
        return np.zeros((0, sum(c for _, c in layout)), np.float64), layout
    tokens = pc.utf8_split_whitespace(pc.utf8_trim_whitespace(arr))  # an empty field gives one empty token
    if layout is None:
        layout = _layout_of(tokens[0].as_py(), what, first_line)
    width = sum(c for _, c in layout) + len(layout)  # tokens per entry: labels and values
    n_tok = pc.list_value_length(tokens).to_numpy(zero_copy_only=False)
    label_pos = np.cumsum([0] + [c + 1 for _, c in layout])[:-1]
    is_label = np.zeros(width, bool)
    is_label[label_pos] = True

    def mismatch(i: int) -> InputError:
        text = arr[i].as_py()
        try:
            got = layout_string(_layout_of(text.split(), what, first_line + i))
        except InputError as exc:
            return exc
        return InputError(
            f"{what}: line {first_line + i}: features {text.strip()!r:.200} have layout {got}; the list's entries "
            f"have {layout_string(layout)}. Every entry needs the same dense features (labels, order and "
            "number of values).")

    wrong_len = np.flatnonzero(n_tok != width)
    bad_rows = [int(wrong_len[0])] if len(wrong_len) else []
    flat = pc.list_flatten(tokens)
    if not bad_rows:
        offsets = np.arange(n, dtype=np.int64) * width
        for pos, (label, _) in zip(label_pos.tolist(), layout):
            col = pc.take(flat, pa.array(offsets + pos))
            ok = pc.equal(col, label + "=").to_numpy(zero_copy_only=False)
            if not ok.all():
                bad_rows.append(int(np.flatnonzero(~ok)[0]))
    if bad_rows:
        raise mismatch(min(bad_rows))
    value_idx = (np.arange(n, dtype=np.int64)[:, None] * width + np.flatnonzero(~is_label)[None, :]).ravel()
    strings = pc.take(flat, pa.array(value_idx))
    try:
        values = pc.cast(strings, pa.float64()).to_numpy(zero_copy_only=False)
    except pa.ArrowInvalid:
        values = None
    if values is None or not np.isfinite(values).all():
        n_val = width - len(layout)
        for k, s in enumerate(strings.to_pylist()):
            try:
                ok = np.isfinite(float(s))
            except ValueError:
                ok = False
            if not ok:
                i, j = divmod(k, n_val)
                name = feature_names(layout)[j]
                raise InputError(f"{what}: line {first_line + i}: feature {name} must be a finite number; "
                                    f"got {s!r:.40}.")
    return np.ascontiguousarray(values.reshape(n, width - len(layout))), tuple(layout)


def _format_g(values: NDArray[np.float64]) -> NDArray[np.object_]:
    """C++ ``ostream << float``: the value as a 32-bit float, ``%g`` with six significant digits."""
    v32 = np.asarray(values, np.float64).astype(np.float32).ravel()
    uniq, inverse = np.unique(v32, return_inverse=True)  # repeated values (0, word counts) format once
    text = np.array([f"{float(u):g}" for u in uniq.tolist()], dtype=object)
    # -0.0 and 0.0 are one unique value; Moses prints the sign it holds
    out = text[inverse]
    neg_zero = (v32 == 0) & np.signbit(v32)
    if neg_zero.any():
        out[neg_zero] = "-0"
        out[(v32 == 0) & ~np.signbit(v32)] = "0"
    return out.reshape(np.shape(values))


def format_features_txt(seg_id: ArrayLike, values: ArrayLike, layout: FeatureLayout) -> str:
    """Moses FEATURES_TXT blocks for entries whose sources are consecutive rows (see the module docstring).

    Examples
    --------
    >>> print(format_features_txt([3], [[0.1234567, -2e-7]], (("x", 2),)), end="")
    FEATURES_TXT_BEGIN_0 3 1 2 x_0 x_1 
    0.123457 -2e-07 
    FEATURES_TXT_END_0
    """
    seg = np.asarray(seg_id)
    vals = np.asarray(values, np.float64)
    names = feature_names(layout)
    if vals.ndim != 2 or vals.shape != (len(seg), len(names)):
        raise ValueError(f"values must have shape (len(seg_id), {len(names)}) for layout {layout_string(layout)}; "
                         f"got {vals.shape} with {len(seg)} seg_id.")
    if len(seg) == 0:
        return ""
    text = _format_g(vals)
    lines = [" ".join(row) + " " for row in text.tolist()]
    starts = np.flatnonzero(np.r_[True, seg[1:] != seg[:-1]])
    ends = np.r_[starts[1:], len(seg)]
    header_names = " ".join(names) + " "
    parts = []
    for a, b in zip(starts.tolist(), ends.tolist()):
        parts.append(f"FEATURES_TXT_BEGIN_0 {seg[a]} {b - a} {len(names)} {header_names}\n")
        parts.append("\n".join(lines[a:b]))
        parts.append("\nFEATURES_TXT_END_0\n")
    return "".join(parts)


def write_features_txt(path: str | os.PathLike, seg_id: ArrayLike, values: ArrayLike,
                       layout: FeatureLayout) -> None:
    """Write :func:`format_features_txt` to ``path``, whole or not at all.

    Examples
    --------
    >>> import tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "features.dat")
    >>> write_features_txt(p, [0], [[1.0]], (("w", 1),))
    >>> open(p).read()
    'FEATURES_TXT_BEGIN_0 0 1 1 w_0 \\n1 \\nFEATURES_TXT_END_0\\n'
    """
    text = format_features_txt(seg_id, values, layout)
    io.write_atomic(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))


def moses_weight_lines(weights: ArrayLike, layout: FeatureLayout) -> list[str]:
    """Weights in Moses' ``name= v1 v2 ...`` form (``moses.ini`` ``[weight]`` lines), one line per label.

    Values use Python's shortest round-trip repr, so reading them back gives
    the same float64 weights.

    Examples
    --------
    >>> moses_weight_lines([0.1, 0.2, -1.0], (("tm", 2), ("w", 1)))
    ['tm= 0.1 0.2', 'w= -1']
    """
    w = np.asarray(weights, np.float64)
    names = feature_names(layout)
    if w.shape != (len(names),):
        raise ValueError(f"weights must have one value per feature ({len(names)} for {layout_string(layout)}); "
                         f"got shape {w.shape}.")
    out, k = [], 0
    for label, count in layout:
        vals = " ".join(_short(v) for v in w[k:k + count].tolist())
        out.append(f"{label}= {vals}")
        k += count
    return out


def _short(v: float) -> str:
    s = repr(float(v))
    return s.removesuffix(".0")


def read_init_weights(path: str | os.PathLike, layout: FeatureLayout) -> NDArray[np.float64]:
    """Start weights for a list of layout ``layout`` from a file, in feature-column order.

    Three formats are read:

    * Moses ``init.opt`` (``mert-moses.pl``): the first line holds one weight per
      feature in n-best order (lines 2 and 3, the ranges, are not used);
    * ``name= v1 v2 ...`` lines (``moses.ini`` ``[weight]``, what
      :func:`moses_weight_lines` writes): every label of the layout once, with
      its number of values;
    * a ``.json`` weights file as ``bleustats tune`` writes it (``{"weights":
      {"d_0": ..., ...}}``): every feature name exactly once.

    Raises
    ------
    bleustats.errors.InputError
        A count or a name that does not match the features of the list (the
        message lists what was expected), or a value that is not a number.

    Examples
    --------
    >>> import tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "init.opt")
    >>> _ = open(p, "w").write("1 0.5 -1\\n0 0 -1\\n1 1 1\\n")
    >>> read_init_weights(p, (("lm", 2), ("w", 1))).tolist()
    [1.0, 0.5, -1.0]
    """
    path = Path(path)
    names = feature_names(layout)
    if not path.is_file():
        raise InputError(f"init: {path}: no such file; give Moses' init.opt, 'name= v ...' lines or a "
                            "weights JSON.")
    text = path.read_text(encoding="utf-8")
    if path.suffix.lower() == ".json":
        return _init_from_json(path, text, names)
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines:
        raise InputError(f"init: {path}: the file is empty; it needs the start weights.")
    if "=" in lines[0]:
        return _init_from_labels(path, lines, layout)
    toks = lines[0].split()
    vals = _numbers(path, toks, "line 1")
    if len(vals) != len(names):
        raise InputError(
            f"init: {path}: line 1 has {len(vals)} weights; the n-best list has {len(names)} features "
            f"({layout_string(layout)}: {' '.join(names)}). Give one start weight per feature, in n-best order.")
    return vals


def _numbers(path: Path, toks: list[str], where: str) -> NDArray[np.float64]:
    out = []
    for t in toks:
        try:
            v = float(t)
        except ValueError:
            v = float("nan")
        if not np.isfinite(v):
            raise InputError(f"init: {path}: {where}: weights must be finite numbers; got {t!r:.40}.")
        out.append(v)
    return np.array(out, np.float64)


def _init_from_labels(path: Path, lines: list[str], layout: FeatureLayout) -> NDArray[np.float64]:
    got: dict[str, NDArray[np.float64]] = {}
    for k, line in enumerate(lines, 1):
        toks = line.split()
        if not toks[0].endswith("="):
            raise InputError(f"init: {path}: line {k}: expected 'name= v1 v2 ...'; got {line.strip()!r:.80}.")
        label = toks[0][:-1]
        if label in got:
            raise InputError(f"init: {path}: line {k}: label {label}= appears twice; give each label once.")
        got[label] = _numbers(path, toks[1:], f"line {k}")
    want = dict(layout)
    problems = [f"{lab}= missing" for lab in want if lab not in got]
    problems += [f"{lab}= is not a feature of the list" for lab in got if lab not in want]
    problems += [f"{lab}= has {len(got[lab])} values, the list has {want[lab]}"
                 for lab in want if lab in got and len(got[lab]) != want[lab]]
    if problems:
        raise InputError(f"init: {path}: the weights do not match the n-best features "
                            f"({layout_string(layout)}): {'; '.join(problems)}.")
    return np.concatenate([got[lab] for lab, _ in layout])


def _init_from_json(path: Path, text: str, names: list[str]) -> NDArray[np.float64]:
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise InputError(f"init: {path}: not valid JSON ({exc}).") from None
    weights = doc.get("weights") if isinstance(doc, dict) else None
    if not isinstance(weights, dict):
        raise InputError(f"init: {path}: expected a JSON object with a 'weights' object (feature name → "
                            "weight), as bleustats tune writes.")
    missing = [n for n in names if n not in weights]
    extra = [n for n in weights if n not in names]
    if missing or extra:
        raise InputError(
            f"init: {path}: the weights' names do not match the n-best features ({' '.join(names)}): "
            + "; ".join(p for p in (f"missing {', '.join(missing)}" if missing else "",
                                    f"not features of the list: {', '.join(extra)}" if extra else "") if p) + ".")
    vals = []
    for n in names:
        v = weights[n]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not np.isfinite(v):
            raise InputError(f"init: {path}: weight {n} must be a finite number; got {v!r}.")
        vals.append(float(v))
    return np.array(vals, np.float64)
