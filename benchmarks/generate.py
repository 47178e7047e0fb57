#!/usr/bin/env python3
"""Deterministic synthetic MT-evaluation corpus generator for the bleustats benchmarks.

Writes, for every requested size S, ``hyp.S.txt`` and ``ref0.S.txt`` ... ``ref{K-1}.S.txt``
(plain UTF-8 text, one segment per line) under ``--out``; optionally a Moses-style n-best
list (``--nbest NxM``) with its own K reference files.

Model of the data
-----------------
* A Zipf-Mandelbrot vocabulary of ``--vocab`` (default 50,000) synthetic word types made of
  random lowercase letters (frequent types are shorter), a few percent always-capitalised
  "proper nouns", numbers that exercise the 13a digit rules ("1,250", "3.5", "1990"),
  hyphenated compounds and possessives, plus punctuation tokens (, . ? ! : ; ( ) " &amp; %).
* A hidden *source* sentence per segment: lognormal length (median ~22 words, clipped to
  [1, 150]) drawn from the Zipf distribution, with commas, an occasional parenthetical or
  quotation, and sentence-final punctuation, so a segment has ~25 tokens on average.
* Every reference and the hypothesis are derived from the source independently by random
  edits: substitutions (mostly by one of 3 "synonyms" of similar frequency, so several
  references can agree with each other and with the hypothesis), deletions, insertions and
  local swaps.  The hypothesis uses higher edit rates than the references.
* Rendering is "detokenised": the first word of a line is capitalised and, independently
  for every output file, most punctuation is attached to the neighbouring word
  ("word," / "(word"), so ``tokenize='13a'`` has real work to do and scores differ from
  ``tokenize='none'``.

Determinism: every block of ``BLOCK`` (10,000) segments is generated from
``numpy.random.default_rng([seed, block, stream])``; the files for a smaller size are
therefore byte-identical prefixes of the files for a larger size (same seed and refs).
Memory is bounded by one block (a few tens of MB) regardless of size.

Usage::

    python benchmarks/generate.py --out benchmarks/data --sizes 10000 100000 1000000 --refs 4
    python benchmarks/generate.py --out benchmarks/data --sizes 10000 --nbest 2000x500
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

BLOCK = 10_000  # segments per generation block (fixed: keeps sizes prefix-consistent)
DEFAULT_SEED = 20240611

# Per-token edit rates: (substitution, deletion, insertion, local swap).
REF_RATES = (0.16, 0.05, 0.05, 0.04)
HYP_RATES = (0.24, 0.07, 0.07, 0.06)
SYNONYM_SHARE = 0.75  # fraction of substitutions that pick one of the 3 synonyms

# Punctuation tokens. attach: 'L' glues to the previous token, 'R' to the next one.
PUNCT = [",", ".", "?", "!", ":", ";", "(", ")", '"', "&amp;", "%", "-"]
PUNCT_ATTACH = {",": "L", ".": "L", "?": "L", "!": "L", ":": "L", ";": "L", ")": "L",
                "%": "L", "(": "R"}
ATTACH_PROB = 0.85  # per output file, per occurrence

# Stream ids for the per-block RNGs.
_S_SOURCE = 1
_S_OUT = 100  # + file index (0 = hypothesis, 1.. = references)
_S_NBEST = 1000


# --------------------------------------------------------------------------- vocabulary

class Vocab:
    """Token table: ids [0, P) punctuation, [P, P+W) words in Zipf rank order.

    ``blob``/``off``/``wlen`` hold the UTF-8 bytes of every id; ids >= ``n`` denote the
    sentence-initial capitalised variant of id - n.
    """

    def __init__(self, n_words: int, seed: int, zipf_s: float = 1.0, zipf_q: float = 2.7):
        rng = np.random.default_rng([seed, 0xB0CAB])
        letters = "abcdefghijklmnopqrstuvwxyz"
        # a mildly English-like letter distribution makes words look less uniform
        lp = np.array([8.2, 1.5, 2.8, 4.3, 12.7, 2.2, 2.0, 6.1, 7.0, 0.2, 0.8, 4.0, 2.4,
                       6.7, 7.5, 1.9, 0.1, 6.0, 6.3, 9.1, 2.8, 1.0, 2.4, 0.2, 2.0, 0.1])
        lp /= lp.sum()
        seen: set[str] = set(PUNCT)
        words: list[str] = []
        kinds = rng.random(n_words)
        for r in range(n_words):
            k = kinds[r]
            while True:
                if r > 200 and k < 0.010:  # numbers
                    form = rng.integers(4)
                    if form == 0:
                        w = str(int(rng.integers(1800, 2030)))
                    elif form == 1:
                        w = f"{int(rng.integers(1, 1000))},{int(rng.integers(0, 1000)):03d}"
                    elif form == 2:
                        w = f"{int(rng.integers(0, 100))}.{int(rng.integers(0, 10))}"
                    else:
                        w = str(int(rng.integers(0, 10000)))
                else:
                    mean_len = 2.0 + 1.15 * np.log10(r + 10.0)
                    ln = int(np.clip(rng.poisson(mean_len), 1, 16))
                    w = "".join(rng.choice(list(letters), size=ln, p=lp))
                    if r > 300 and k > 0.97:  # proper noun: always capitalised
                        w = w[0].upper() + w[1:]
                    elif r > 500 and 0.95 < k <= 0.965:  # hyphenated compound
                        ln2 = int(np.clip(rng.poisson(mean_len), 2, 12))
                        w = w + "-" + "".join(rng.choice(list(letters), size=ln2, p=lp))
                    elif r > 500 and 0.965 < k <= 0.97:  # possessive
                        w = w + "'s"
                if w not in seen:
                    seen.add(w)
                    words.append(w)
                    break
        self.punct = list(PUNCT)
        self.words = words
        self.P = len(PUNCT)
        self.W = n_words
        self.n = self.P + self.W
        strings = self.punct + self.words
        caps = [s[0].upper() + s[1:] if s[:1].islower() else s for s in strings]
        enc = [s.encode("utf-8") for s in strings + caps]
        self.wlen = np.array([len(b) for b in enc], dtype=np.int64)
        self.off = np.zeros(len(enc), dtype=np.int64)
        np.cumsum(self.wlen[:-1], out=self.off[1:])
        self.blob = np.frombuffer(b"".join(enc), dtype=np.uint8)
        ranks = np.arange(n_words, dtype=np.float64)
        pmf = 1.0 / (ranks + zipf_q) ** zipf_s
        self.cdf = np.cumsum(pmf / pmf.sum())
        self.cdf[-1] = 1.0
        pid = {p: i for i, p in enumerate(self.punct)}
        self.id = pid
        self.attach_left = np.zeros(2 * self.n, dtype=bool)
        self.attach_right = np.zeros(2 * self.n, dtype=bool)
        for p, side in PUNCT_ATTACH.items():
            (self.attach_left if side == "L" else self.attach_right)[pid[p]] = True

    def sample_words(self, rng: np.random.Generator, k: int) -> np.ndarray:
        return (np.searchsorted(self.cdf, rng.random(k), side="right") + self.P).astype(np.int32)

    def synonym(self, ids: np.ndarray, j: np.ndarray) -> np.ndarray:
        """One of the 3 other members of the id's synonym group {4g .. 4g+3} (word ranks)."""
        r = ids.astype(np.int64) - self.P
        s = r ^ j
        s = np.where(s >= self.W, r, s)  # the last group may be incomplete
        return (s + self.P).astype(np.int32)


# --------------------------------------------------------------------------- sentences

def _starts(lens: np.ndarray) -> np.ndarray:
    st = np.zeros(len(lens), dtype=np.int64)
    np.cumsum(lens[:-1], out=st[1:])
    return st


def make_sources(vocab: Vocab, rng: np.random.Generator, n: int):
    """Hidden source sentences: flattened token ids and per-sentence lengths."""
    nw = np.clip(np.rint(rng.lognormal(np.log(22.0), 0.5, n)), 1, 150).astype(np.int64)
    toks = vocab.sample_words(rng, int(nw.sum()))
    sid = np.repeat(np.arange(n), nw)
    # commas after ~6% of non-final words
    st = _starts(nw)
    last = np.zeros(len(toks), dtype=bool)
    last[st + nw - 1] = True
    comma = (rng.random(len(toks)) < 0.06) & ~last
    # parenthetical / quotation around a single word, rare
    paren = (rng.random(len(toks)) < 0.006) & ~last
    quote = (rng.random(len(toks)) < 0.006) & ~last & ~paren
    pid = vocab.id
    # build via per-token "before" and "after" insertion counts
    before = paren.astype(np.int64) + quote
    after = comma.astype(np.int64) + paren + quote
    final_r = rng.random(n)
    final = np.where(final_r < 0.88, pid["."], np.where(final_r < 0.94, pid["?"],
                     np.where(final_r < 0.97, pid["!"], -1)))
    after_final = np.zeros(len(toks), dtype=np.int64)
    after_final[st + nw - 1] = (final >= 0)
    per_tok = 1 + before + after + after_final
    out = np.empty(int(per_tok.sum()), dtype=np.int32)
    pos = _starts(per_tok)
    # before-tokens
    out[pos[paren]] = pid["("]
    out[pos[quote]] = pid['"']
    wpos = pos + before
    out[wpos] = toks
    a = wpos + 1
    out[a[paren]] = pid[")"]
    out[a[quote]] = pid['"']
    a = a + paren + quote
    out[a[comma]] = pid[","]
    a = a + comma
    fm = after_final.astype(bool)
    out[a[fm]] = final[sid[fm]]
    lens = np.bincount(sid, weights=per_tok, minlength=n).astype(np.int64)
    return out, lens


def apply_edits(vocab: Vocab, rng: np.random.Generator, toks: np.ndarray, lens: np.ndarray,
                rates) -> tuple[np.ndarray, np.ndarray]:
    """Random substitutions, local swaps, deletions and insertions (vectorised)."""
    p_sub, p_del, p_ins, p_swap = rates
    n = len(lens)
    toks = toks.copy()
    sid = np.repeat(np.arange(n), lens)
    m = len(toks)
    is_word = toks >= vocab.P
    # substitutions (words only)
    sub = (rng.random(m) < p_sub) & is_word
    k = int(sub.sum())
    syn = rng.random(k) < SYNONYM_SHARE
    new = vocab.sample_words(rng, k)
    j = rng.integers(1, 4, size=k)
    new = np.where(syn, vocab.synonym(toks[sub], j), new)
    toks[sub] = new
    # local swaps with the right neighbour inside the same sentence
    cand = np.flatnonzero((rng.random(m - 1) < p_swap) & (sid[:-1] == sid[1:])) if m > 1 else \
        np.zeros(0, dtype=np.int64)
    if len(cand):
        keep = np.ones(len(cand), dtype=bool)
        keep[1:] = np.diff(cand) > 1  # no overlapping swaps
        cand = cand[keep]
        tmp = toks[cand].copy()
        toks[cand] = toks[cand + 1]
        toks[cand + 1] = tmp
    # deletions (never empty a sentence: keep the first token then)
    keep = rng.random(m) >= p_del
    kept = np.bincount(sid, weights=keep, minlength=n)
    empty = np.flatnonzero(kept == 0)
    if len(empty):
        keep[_starts(lens)[empty]] = True
    # insertions after kept tokens
    ins = (rng.random(m) < p_ins) & keep
    reps = keep.astype(np.int64) + ins
    out = np.repeat(toks, reps)
    osid = np.repeat(sid, reps)
    # the inserted copy is the second of each pair
    ipos = _starts(reps)[ins] + 1
    out[ipos] = vocab.sample_words(rng, len(ipos))
    new_lens = np.bincount(osid, minlength=n).astype(np.int64)
    return out, new_lens


def render(vocab: Vocab, rng: np.random.Generator, toks: np.ndarray, lens: np.ndarray) -> bytes:
    """Detokenised UTF-8 text, one line per sentence (vectorised byte gather)."""
    m = len(toks)
    st = _starts(lens)
    first = np.zeros(m, dtype=bool)
    first[st] = True
    last = np.zeros(m, dtype=bool)
    last[st + lens - 1] = True
    ids = toks.astype(np.int64)
    # capitalise the first token of every line
    ids = np.where(first & (ids >= vocab.P), ids + vocab.n, ids)
    # a space before every token except line starts and attached punctuation
    coin = rng.random(m) < ATTACH_PROB
    glue = vocab.attach_left[ids] & coin
    rglue = vocab.attach_right[ids] & coin
    glue[1:] |= rglue[:-1]
    pre = (~first & ~glue).astype(np.int64)
    wl = vocab.wlen[ids]
    tot = pre + wl + last
    ooff = _starts(tot)
    nbytes = int(tot.sum())
    buf = np.full(nbytes, 32, dtype=np.uint8)
    wtot = int(wl.sum())
    intra = np.arange(wtot, dtype=np.int64) - np.repeat(_starts(wl), wl)
    buf[np.repeat(ooff + pre, wl) + intra] = vocab.blob[np.repeat(vocab.off[ids], wl) + intra]
    buf[(ooff + pre + wl)[last]] = 10
    return buf.tobytes()


def _block_data(vocab: Vocab, seed: int, b: int, n: int, n_files: int):
    """Rendered bytes of block b (n segments) for file 0 (hypothesis) and 1.. (references)."""
    src, lens = make_sources(vocab, np.random.default_rng([seed, b, _S_SOURCE]), n)
    out = []
    for f in range(n_files):
        rng = np.random.default_rng([seed, b, _S_OUT + f])
        t, ln = apply_edits(vocab, rng, src, lens, HYP_RATES if f == 0 else REF_RATES)
        out.append(render(vocab, rng, t, ln))
    return out


def generate_corpus(vocab: Vocab, out_dir: str, size: int, refs: int, seed: int) -> list[str]:
    names = [f"hyp.{size}.txt"] + [f"ref{k}.{size}.txt" for k in range(refs)]
    paths = [os.path.join(out_dir, nm) for nm in names]
    tmp = [p + ".part" for p in paths]
    fhs = [open(p, "wb") for p in tmp]
    try:
        for b in range((size + BLOCK - 1) // BLOCK):
            n = min(BLOCK, size - b * BLOCK)
            # always generate the full block so smaller sizes are exact prefixes
            data = _block_data(vocab, seed, b, BLOCK, 1 + refs)
            for fh, d in zip(fhs, data):
                if n < BLOCK:
                    cut = 0
                    for _ in range(n):
                        cut = d.index(b"\n", cut) + 1
                    d = d[:cut]
                fh.write(d)
    finally:
        for fh in fhs:
            fh.close()
    for t, p in zip(tmp, paths):
        os.replace(t, p)
    return paths


# --------------------------------------------------------------------------- n-best

def generate_nbest(vocab: Vocab, out_dir: str, n_src: int, n_best: int, refs: int,
                   seed: int) -> list[str]:
    """Moses n-best list ``id ||| hypothesis ||| F0= a F1= b ||| total`` plus references.

    Hypotheses of one source are edits of that source with per-candidate edit rates, so
    their BLEU varies; F0 is correlated with the edit rate, F1 is noise, and the total is
    0.7*F0 + 0.3*F1 (the n-best list is sorted by it, best first, within every id).
    """
    tag = f"{n_src}x{n_best}"
    nb_path = os.path.join(out_dir, f"nbest.{tag}.txt")
    ref_paths = [os.path.join(out_dir, f"nbest.{tag}.ref{k}.txt") for k in range(refs)]
    src_block = max(1, min(n_src, 200_000 // max(n_best, 1)))
    fh_nb = open(nb_path + ".part", "wb")
    fh_refs = [open(p + ".part", "wb") for p in ref_paths]
    try:
        for b0 in range(0, n_src, src_block):
            n = min(src_block, n_src - b0)
            bidx = b0 // src_block
            src, lens = make_sources(vocab, np.random.default_rng([seed, bidx, _S_NBEST]), n)
            for k in range(refs):
                rng = np.random.default_rng([seed, bidx, _S_NBEST + 1 + k])
                t, ln = apply_edits(vocab, rng, src, lens, REF_RATES)
                fh_refs[k].write(render(vocab, rng, t, ln))
            rng = np.random.default_rng([seed, bidx, _S_NBEST + 100])
            st = _starts(lens)
            # replicate every source n_best times
            rep_idx = np.repeat(np.arange(n), n_best)
            rep_lens = lens[rep_idx]
            gather = np.repeat(st[rep_idx], rep_lens) + (
                np.arange(int(rep_lens.sum())) - np.repeat(_starts(rep_lens), rep_lens))
            rep_toks = src[gather]
            # per-candidate edit strength: scale the hypothesis rates by 0.5 .. 1.8
            scale = rng.uniform(0.5, 1.8, size=len(rep_lens))
            # edits with a per-sentence rate: apply at the max rate, then undo a share
            t, ln = _edits_scaled(vocab, rng, rep_toks, rep_lens, scale)
            text = render(vocab, rng, t, ln).decode("utf-8").split("\n")[:-1]
            f0 = -2.0 * scale + rng.normal(0, 0.3, size=len(scale))
            f1 = rng.normal(0, 1.0, size=len(scale))
            total = 0.7 * f0 + 0.3 * f1
            lines = []
            for i in range(n):
                sl = slice(i * n_best, (i + 1) * n_best)
                order = np.argsort(-total[sl], kind="stable") + i * n_best
                sid = b0 + i
                for c in order:
                    lines.append(f"{sid} ||| {text[c]} ||| F0= {f0[c]:.4f} F1= {f1[c]:.4f}"
                                 f" ||| {total[c]:.4f}\n")
            fh_nb.write("".join(lines).encode("utf-8"))
    finally:
        fh_nb.close()
        for fh in fh_refs:
            fh.close()
    for p in [nb_path] + ref_paths:
        os.replace(p + ".part", p)
    return [nb_path] + ref_paths


def _edits_scaled(vocab, rng, toks, lens, scale):
    """apply_edits with a per-sentence multiplier on HYP_RATES (vectorised)."""
    sid = np.repeat(np.arange(len(lens)), lens)
    tok_scale = scale[sid]
    p_sub, p_del, p_ins, p_swap = HYP_RATES
    m = len(toks)
    toks = toks.copy()
    is_word = toks >= vocab.P
    sub = (rng.random(m) < p_sub * tok_scale) & is_word
    k = int(sub.sum())
    syn = rng.random(k) < SYNONYM_SHARE
    new = np.where(syn, vocab.synonym(toks[sub], rng.integers(1, 4, size=k)),
                   vocab.sample_words(rng, k))
    toks[sub] = new
    cand = np.flatnonzero((rng.random(m - 1) < p_swap * tok_scale[:-1]) & (sid[:-1] == sid[1:]))
    if len(cand):
        keep = np.ones(len(cand), dtype=bool)
        keep[1:] = np.diff(cand) > 1
        cand = cand[keep]
        tmp = toks[cand].copy()
        toks[cand] = toks[cand + 1]
        toks[cand + 1] = tmp
    keep = rng.random(m) >= p_del * tok_scale
    kept = np.bincount(sid, weights=keep, minlength=len(lens))
    empty = np.flatnonzero(kept == 0)
    if len(empty):
        keep[_starts(lens)[empty]] = True
    ins = (rng.random(m) < p_ins * tok_scale) & keep
    reps = keep.astype(np.int64) + ins
    out = np.repeat(toks, reps)
    osid = np.repeat(sid, reps)
    ipos = _starts(reps)[ins] + 1
    out[ipos] = vocab.sample_words(rng, len(ipos))
    return out, np.bincount(osid, minlength=len(lens)).astype(np.int64)


# --------------------------------------------------------------------------- verify

def verify(out_dir: str, size: int, refs: int) -> dict:
    """sacreBLEU corpus BLEU (none / 13a, 1 / all refs) on the generated files."""
    from sacrebleu.metrics import BLEU

    def read(p):
        with open(p, encoding="utf-8") as f:
            return f.read().split("\n")[:-1]

    hyp = read(os.path.join(out_dir, f"hyp.{size}.txt"))
    rs = [read(os.path.join(out_dir, f"ref{k}.{size}.txt")) for k in range(refs)]
    res = {}
    for tok in ("none", "13a"):
        for k in sorted({1, refs}):
            s = BLEU(tokenize=tok, force=True).corpus_score(hyp, rs[:k])
            res[f"{tok}/{k}ref"] = s
            print(f"  sacreBLEU tokenize={tok:4s} refs={k}: {s}", flush=True)
    ntok = [len(h.split()) for h in hyp]
    print(f"  mean tokens/segment (whitespace, hyp): {np.mean(ntok):.2f}; "
          f"13a/none length ratio: {res[f'13a/{refs}ref'].sys_len / res[f'none/{refs}ref'].sys_len:.3f}")
    return res


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "data"))
    ap.add_argument("--sizes", type=int, nargs="*", default=[10_000])
    ap.add_argument("--refs", type=int, default=4)
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--vocab", type=int, default=50_000)
    ap.add_argument("--nbest", default=None, metavar="NSRCxNBEST",
                    help="also write an n-best list, e.g. 2000x500")
    ap.add_argument("--no-verify", action="store_true",
                    help="skip the sacreBLEU check on the smallest size (<= 100k)")
    ap.add_argument("--force", action="store_true", help="regenerate existing files")
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)

    t0 = time.perf_counter()
    vocab = Vocab(args.vocab, args.seed)
    print(f"vocabulary: {vocab.W} words + {vocab.P} punctuation ({time.perf_counter() - t0:.2f}s)",
          flush=True)
    for size in args.sizes:
        names = [f"hyp.{size}.txt"] + [f"ref{k}.{size}.txt" for k in range(args.refs)]
        if not args.force and all(os.path.exists(os.path.join(args.out, n)) for n in names):
            print(f"size {size}: exists, skipping (use --force)")
            continue
        t = time.perf_counter()
        paths = generate_corpus(vocab, args.out, size, args.refs, args.seed)
        dt = time.perf_counter() - t
        mb = sum(os.path.getsize(p) for p in paths) / 2**20
        print(f"size {size}: wrote {len(paths)} files, {mb:.1f} MiB in {dt:.2f}s", flush=True)
    if args.nbest:
        n_src, n_best = (int(x) for x in args.nbest.lower().split("x"))
        t = time.perf_counter()
        paths = generate_nbest(vocab, args.out, n_src, n_best, args.refs, args.seed)
        mb = sum(os.path.getsize(p) for p in paths) / 2**20
        print(f"n-best {n_src}x{n_best}: wrote {len(paths)} files, {mb:.1f} MiB in "
              f"{time.perf_counter() - t:.2f}s", flush=True)
    print(f"total generation time: {time.perf_counter() - t0:.2f}s", flush=True)
    small = [s for s in args.sizes if s <= 100_000]
    if small and not args.no_verify:
        s = min(small)
        print(f"verifying BLEU on size {s}:", flush=True)
        verify(args.out, s, args.refs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
