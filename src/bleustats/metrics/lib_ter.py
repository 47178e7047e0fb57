r"""TER of token lists and tercom's edit-trace alignment, at sacreBLEU's ``sacrebleu.metrics.lib_ter`` path.

sacreBLEU 2.6 keeps its TER search (a Python beam edit distance with
tercom's greedy shifts) in ``lib_ter``; code that computes TER on its own
token lists imports :func:`translation_edit_rate` from there. Here the same
search runs in bleustats' numba kernels
(:func:`bleustats.engine.ter_stats.ter_statistics`), with the limits sacreBLEU
applies, which this module names as sacreBLEU does (``_MAX_SHIFT_SIZE`` ...).

Examples
--------
>>> translation_edit_rate("d e f g h a b c".split(), "a b c d e f g h".split())
(1, 8)
>>> trace_to_alignment(" s d")
({0: 0, 1: 1, 2: 2, 3: 2}, [0, 1, 0, 1], [0, 1, 0])
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import InputError

__all__ = ["trace_to_alignment", "translation_edit_rate"]

# tercom's costs and search limits, as sacreBLEU 2.6 names them (the kernels use the same values)
_COST_INS = 1
_COST_DEL = 1
_COST_SUB = 1
_MAX_SHIFT_SIZE = 10
_MAX_SHIFT_DIST = 50
_BEAM_WIDTH = 25
_MAX_SHIFT_CANDIDATES = 1000

# the letters of an edit trace
_OP_INS = "i"
_OP_DEL = "d"
_OP_NOP = " "
_OP_SUB = "s"


def _check_words(words: Sequence[str], name: str) -> list[str]:
    if isinstance(words, str) or not isinstance(words, Sequence):
        raise InputError(f"{name}: expected a list of words (a tokenized segment, e.g. line.split()); got "
                         f"{type(words).__name__} {words!r:.60}.")
    for i, w in enumerate(words):
        if not isinstance(w, str) or not w or w != "".join(w.split()):
            raise InputError(f"{name}[{i}]: expected a non-empty word without whitespace (the words of "
                             f"line.split()); got {w!r:.60}.")
    return list(words)


def translation_edit_rate(words_hyp: Sequence[str], words_ref: Sequence[str]) -> tuple[int, int]:
    r"""The number of TER edits turning ``words_hyp`` into ``words_ref``, and the reference's length.

    .. math::

        \mathrm{edits} = \mathrm{shifts} + \mathrm{Levenshtein}(\mathrm{shifted}\ h, r)

    with tercom's greedy phrase shifts (Snover et al., 2006) under sacreBLEU's
    limits (phrases of at most 10 words moved at most 50 positions, a beam of
    25, at most 1000 candidate shifts). An empty reference gives
    ``(len(words_hyp), 0)``. TER is ``edits / length``.

    Parameters
    ----------
    words_hyp, words_ref : list of str
        Tokenized hypothesis and reference (already normalized and cased as
        wanted; each word non-empty, without whitespace).

    Returns
    -------
    (int, int)
        Number of edits, number of reference words.

    Examples
    --------
    >>> translation_edit_rate(["a", "b"], ["a", "c", "b"]), translation_edit_rate(["a"], [])
    ((1, 3), (1, 0))
    """
    hyp = _check_words(words_hyp, "words_hyp")
    ref = _check_words(words_ref, "words_ref")
    if not ref:
        return len(hyp), 0
    from ..engine.ter_stats import ter_statistics

    # case_sensitive, no normalization: tercom's tokenizer only re-splits on whitespace, which the
    # checked words do not contain, so the kernels see exactly these words
    stats = ter_statistics([" ".join(hyp)], [[" ".join(ref)]], case_sensitive=True)
    return int(stats[0, 0]), len(ref)


def trace_to_alignment(trace: str) -> tuple[dict[int, int], list[int], list[int]]:
    """Alignment and error flags from a trace of edit operations (rewriting the hypothesis into the reference).

    ``trace`` is one letter per operation: ``' '`` match, ``'s'`` substitution,
    ``'i'`` insertion (a hypothesis word), ``'d'`` deletion (a reference word).

    Returns
    -------
    (dict, list of int, list of int)
        Reference position -> aligned hypothesis position (-1 before the
        first hypothesis word), then a 0/1 error flag per reference word and
        per hypothesis word.

    Examples
    --------
    >>> trace_to_alignment("i ")
    ({0: 1}, [0], [1, 0])
    """
    pos_hyp = pos_ref = -1
    align: dict[int, int] = {}
    ref_err: list[int] = []
    hyp_err: list[int] = []
    for i, op in enumerate(trace):
        if op in (_OP_NOP, _OP_SUB):
            pos_hyp += 1
            pos_ref += 1
            align[pos_ref] = pos_hyp
            hyp_err.append(int(op == _OP_SUB))
            ref_err.append(int(op == _OP_SUB))
        elif op == _OP_INS:
            pos_hyp += 1
            hyp_err.append(1)
        elif op == _OP_DEL:
            pos_ref += 1
            align[pos_ref] = pos_hyp
            ref_err.append(1)
        else:
            raise InputError(f"trace[{i}]: expected one of ' ', 's', 'i', 'd' (an edit operation); got {op!r}.")
    return align, ref_err, hyp_err
