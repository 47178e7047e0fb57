"""Plain-Python twin of ``bleustats.engine._ter_kernels``: TER with tercom's shift search.

Written for reading, not speed: the whole edit-distance matrix as lists of
lists, every candidate shift collected in a list, the best picked with
``max``. No caching, no band storage, no early exits other than the ones that
change the result (the candidate limit). It follows the rules written in the
kernel module's docstring and is compared with the kernel on generated token
sequences (``tests/engine/test_ter_kernels.py``) and with sacreBLEU on text
(``tests/metrics/test_ter_oracle.py``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

MAX_SHIFT_SIZE = 10
MAX_SHIFT_DIST = 50
BEAM_WIDTH = 25
MAX_SHIFT_CANDIDATES = 1000
INF = 10**16


@dataclass
class Alignment:
    distance: int
    ref_to_hyp: list  # for every reference position, the hypothesis position it follows (-1: none)
    hyp_wrong: list  # hypothesis positions that are not matched
    ref_wrong: list  # reference positions that are not matched


def beam_columns(n_hyp: int, n_ref: int) -> list[range]:
    """For each matrix row, the columns the beam computes (row 0 is complete)."""
    ratio = n_ref / n_hyp if n_hyp else 1.0
    width = BEAM_WIDTH
    if ratio / 2 > BEAM_WIDTH:
        width = math.ceil(ratio / 2 + BEAM_WIDTH)
    rows = [range(n_ref + 1)]
    for i in range(1, n_hyp + 1):
        centre = math.floor(i * ratio)
        low = max(0, centre - width)
        high = n_ref + 1 if i == n_hyp else min(n_ref + 1, centre + width)
        rows.append(range(low, high))
    return rows


def align(hyp: list, ref: list) -> Alignment:
    """Beam-restricted Levenshtein distance of hyp and ref, with the alignment of its traceback."""
    n, m = len(hyp), len(ref)
    cost = [[INF] * (m + 1) for _ in range(n + 1)]
    move = [[None] * (m + 1) for _ in range(n + 1)]
    for j in range(m + 1):
        cost[0][j], move[0][j] = j, "ins"
    for i, columns in enumerate(beam_columns(n, m)):
        if i == 0:
            continue
        for j in columns:
            if j == 0:
                cost[i][j], move[i][j] = cost[i - 1][0] + 1, "del"
                continue
            same = hyp[i - 1] == ref[j - 1]
            options = [
                (cost[i - 1][j - 1] + (0 if same else 1), "match" if same else "sub"),
                (cost[i - 1][j] + 1, "del"),
                (cost[i][j - 1] + 1, "ins"),
            ]
            finite = [o for o in options if o[0] < INF]
            if finite:
                low = min(c for c, _ in finite)
                cost[i][j], move[i][j] = next(o for o in finite if o[0] == low)
    ref_to_hyp = [None] * m
    hyp_wrong = [False] * n
    ref_wrong = [False] * m
    i, j = n, m
    while (i, j) != (0, 0):
        step = move[i][j]
        if step in ("match", "sub"):
            ref_to_hyp[j - 1] = i - 1
            hyp_wrong[i - 1] = ref_wrong[j - 1] = step == "sub"
            i, j = i - 1, j - 1
        elif step == "ins":
            ref_to_hyp[j - 1] = i - 1
            ref_wrong[j - 1] = True
            j -= 1
        elif step == "del":
            hyp_wrong[i - 1] = True
            i -= 1
        else:
            raise RuntimeError(f"traceback left the beam at {(i, j)}")
    return Alignment(cost[n][m], ref_to_hyp, hyp_wrong, ref_wrong)


def shift(words: list, first: int, length: int, target: int) -> list:
    """Move words[first:first+length] as tercom does: take it out, put it back at a slot.

    The slot in the remaining words is ``target`` for a target before the
    phrase, ``target - length`` for one after it, and ``min(target, n - length)``
    for one inside it.
    """
    phrase = words[first:first + length]
    rest = words[:first] + words[first + length:]
    if target < first:
        slot = target
    elif target > first + length:
        slot = target - length
    else:
        slot = min(target, len(words) - length)
    return rest[:slot] + phrase + rest[slot:]


def matching_phrases(hyp: list, ref: list):
    """(hyp start, ref start, length) of equal phrases, in tercom's order and within its limits."""
    for sh in range(len(hyp)):
        for sr in range(len(ref)):
            if abs(sh - sr) > MAX_SHIFT_DIST:
                continue
            length = 1
            while (length <= MAX_SHIFT_SIZE and sh + length <= len(hyp) and sr + length <= len(ref)
                   and hyp[sh:sh + length] == ref[sr:sr + length]):
                yield sh, sr, length
                length += 1


def best_shift(words: list, ref: list, evaluated: int):
    """One round: the best shift of ``words`` (or None), its gain, and the updated candidate count."""
    now = align(words, ref)
    candidates = []
    for sh, sr, length in matching_phrases(words, ref):
        if not any(now.hyp_wrong[sh:sh + length]) or not any(now.ref_wrong[sr:sr + length]):
            continue
        if sh <= now.ref_to_hyp[sr] < sh + length:
            continue
        targets = []
        for k in range(-1, length):
            target = 0 if sr + k == -1 else now.ref_to_hyp[sr + k] + 1
            if not targets or targets[-1] != target:
                targets.append(target)
        for target in targets:
            moved = shift(words, sh, length, target)
            gain = now.distance - align(moved, ref).distance
            candidates.append((gain, length, sh, target, moved))
        evaluated += len(targets)
        if evaluated >= MAX_SHIFT_CANDIDATES:
            break
    if not candidates:
        return None, 0, evaluated
    best = max(candidates, key=lambda c: (c[0], c[1], -c[2], -c[3]))  # max keeps the first of ties
    return best[4], best[0], evaluated


@dataclass
class Search:
    edits: int
    shifts: int
    evaluated: int  # candidate shifts scored, over all rounds
    hit_limit: bool  # stopped by MAX_SHIFT_CANDIDATES (the last round's best shift is dropped)


def shift_search(hyp: list, ref: list) -> Search:
    """tercom's greedy search: apply the best shift while it lowers the edit distance."""
    if not ref:
        return Search(len(hyp), 0, 0, False)
    words = list(hyp)
    shifts = 0
    evaluated = 0
    while True:
        moved, gain, evaluated = best_shift(words, ref, evaluated)
        if evaluated >= MAX_SHIFT_CANDIDATES or moved is None or gain <= 0:
            break
        words = moved
        shifts += 1
    return Search(shifts + align(words, ref).distance, shifts, evaluated,
                  evaluated >= MAX_SHIFT_CANDIDATES)


def ter_edits(hyp: list, ref: list) -> int:
    """Number of edits (shifts + edit distance) turning hyp into ref, as tercom counts them."""
    return shift_search(hyp, ref).edits


def ter_segment_stats(hyp: list, refs: list) -> tuple[int, float]:
    """(fewest edits over the references, mean reference length) of one segment."""
    edits = [ter_edits(hyp, ref) for ref in refs]
    return min(edits), sum(len(r) for r in refs) / len(refs)
