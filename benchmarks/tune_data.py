"""Synthetic k-best lists for tuning: a candidate pool per source whose features correlate with length.

Used by ``benchmarks/bench_tune.py`` (speed) and ``examples/tune_nakov.py`` (the Nakov study).

Every source has one reference of length L (log-normal, median 12 tokens, 3..60: many short
sentences, where BLEU+1's smoothing weighs most) and a difficulty ``h ~ U(0, 1)`` for each
reference word. Each candidate translation is made from the reference with its own settings:

* a drop share ``delta ~ U(0, 0.4)``: the words with ``h > 1 - delta`` (the hardest) are left
  out, plus 5 % at random; a short candidate has dropped hard words;
* a skill ``q ~ U(0.1, 0.7)``: a kept word is right with probability
  ``clip(q + 0.4 - h, 0.02, 0.98)``, else a wrong word (drawn from the vocabulary) stands in
  its place; hard words are more often wrong;
* an insertion rate ``iota ~ U(0, 0.3)``: a wrong word after a reference word;
* a swap rate ``rho ~ U(0, 0.15)``: neighbouring words exchanged (breaks longer n-grams).

So shorter candidates are more precise and longer ones cover more: the precision / length
trade-off BLEU's brevity penalty arbitrates. The dense features imitate a phrase-based
decoder's (noise scaled by ``noise``):

* ``d=``  distortion: ``-(1.0 swaps + |N(0, 1)|)``;
* ``lm=`` language model: ``-(1.0 len + 1.2 wrong + 1.5 ins + N(0, 2))``;
* ``tm=`` translation model: ``-(1.2 wrong + 0.6 ins + N(0, 1.5))``, coverage
  ``-(1.5 dropped + N(0, 1.5))`` and phrase count ``-0.5 len + N(0, 0.5)``;
* ``w=``  word penalty ``-len`` (Moses' sign).

Everything is drawn from ``numpy.random.default_rng([seed, 17])``; the same arguments give
the same list bit for bit. Texts are word ids (``w17``), so tokenize ``none``.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc


def _words(vocab_size: int) -> pa.Array:
    return pa.array([f"w{i}" for i in range(vocab_size)], pa.string())


def _join(ids: np.ndarray, lengths: np.ndarray, words: pa.Array) -> pa.Array:
    """Token ids (flat) and per-row lengths -> one space-joined string per row, vectorized."""
    offsets = np.r_[0, np.cumsum(lengths)].astype(np.int64)
    lists = pa.LargeListArray.from_arrays(pa.array(offsets), words.take(pa.array(ids)))
    return pc.binary_join(lists, " ")


def _fmt(x: np.ndarray) -> pa.Array:
    return pc.cast(pa.array(np.round(x, 4) + 0.0), pa.string())  # + 0.0: no "-0"


def make_pool(n_src: int, per_src: int, *, seed: int = 0, vocab_size: int = 20000, noise: float = 1.0,
              hard_drop: float = 1.0):
    """A pool of ``per_src`` candidates for each of ``n_src`` sources (see the module docstring).

    Returns ``(nbest, refs)``: an Arrow table ``seg_id, text, features, model_score`` (Moses
    feature strings ``d= . lm= . tm= . . . w= .``, sources grouped) and a references table
    ``seg_id, text``.
    """
    rng = np.random.default_rng([seed, 17])
    words = _words(vocab_size)
    zipf = 1.0 / (np.arange(vocab_size) + 50.0)
    zipf /= zipf.sum()
    ref_len = np.clip(np.rint(np.exp(rng.normal(np.log(12.0), 0.5, n_src))), 3, 60).astype(np.int64)
    n_ref_tok = int(ref_len.sum())
    ref_tok = rng.choice(vocab_size, size=n_ref_tok, p=zipf)
    hard = rng.random(n_ref_tok)
    ref_start = np.r_[0, np.cumsum(ref_len)[:-1]]
    refs = pa.table({"seg_id": pa.array(np.arange(n_src), pa.int64()), "text": _join(ref_tok, ref_len, words)})

    n = n_src * per_src
    seg = np.repeat(np.arange(n_src), per_src)
    delta = rng.uniform(0.0, 0.4, n)
    skill = rng.uniform(0.1, 0.7, n)
    iota = rng.uniform(0.0, 0.3, n)
    rho = rng.uniform(0.0, 0.15, n)
    cand_len = ref_len[seg]
    tot = int(cand_len.sum())
    cand = np.repeat(np.arange(n), cand_len)  # candidate of every reference-word slot
    pos = np.arange(tot) - np.repeat(np.r_[0, np.cumsum(cand_len)[:-1]], cand_len)
    src_pos = ref_start[seg[cand]] + pos
    tok = ref_tok[src_pos]
    h = hard[src_pos]
    drop_key = hard_drop * h + (1.0 - hard_drop) * rng.random(tot)
    kept = (drop_key <= 1.0 - delta[cand]) & (rng.random(tot) >= 0.05)
    right = rng.random(tot) < np.clip(skill[cand] + 0.4 - h, 0.02, 0.98)
    wrong = kept & ~right
    tok = np.where(wrong, rng.choice(vocab_size, size=tot, p=zipf), tok)
    swap = rng.random(tot) < rho[cand]
    swap[1:] &= ~swap[:-1]  # no chains
    nxt = np.r_[pos[1:] != 0, False] & swap  # a swap with the next slot of the same candidate
    i = np.flatnonzero(nxt)
    tok[i], tok[i + 1] = tok[i + 1].copy(), tok[i].copy()
    kept[i], kept[i + 1] = kept[i + 1].copy(), kept[i].copy()
    ins = rng.random(tot) < iota[cand]
    ins_tok = rng.choice(vocab_size, size=tot, p=zipf)
    slot_tok = np.stack([tok, ins_tok], axis=1).ravel()
    slot_ok = np.stack([kept, ins], axis=1).ravel()
    slot_cand = np.repeat(cand, 2)
    hyp_tok = slot_tok[slot_ok]
    hyp_len = np.bincount(slot_cand[slot_ok], minlength=n)
    n_drop = np.bincount(cand, ~kept, minlength=n)
    n_wrong = np.bincount(cand, wrong, minlength=n)
    n_ins = np.bincount(cand, ins, minlength=n)
    n_swap = np.bincount(cand, nxt, minlength=n)
    L = hyp_len.astype(np.float64)
    d = -(1.0 * n_swap + np.abs(rng.normal(0.0, 1.0 * noise, n)))
    lm = -(1.0 * L + 1.2 * n_wrong + 1.5 * n_ins + rng.normal(0.0, 2.0 * noise, n))
    tm0 = -(1.2 * n_wrong + 0.6 * n_ins + rng.normal(0.0, 1.5 * noise, n))
    tm1 = -(1.5 * n_drop + rng.normal(0.0, 1.5 * noise, n))
    tm2 = -0.5 * L + rng.normal(0.0, 0.5 * noise, n)
    w = -L
    parts = ["d=", _fmt(d), "lm=", _fmt(lm), "tm=", _fmt(tm0), _fmt(tm1), _fmt(tm2), "w=", _fmt(w)]
    arrays = [p if isinstance(p, pa.Array) else pa.array([p] * n, pa.string()) for p in parts]
    features = pc.binary_join_element_wise(*arrays, " ")
    nbest = pa.table({"seg_id": pa.array(seg, pa.int64()), "text": _join(hyp_tok, hyp_len, words),
                      "features": features, "model_score": pa.array(lm + tm0 + tm1 + tm2 + d)})
    return nbest, refs
