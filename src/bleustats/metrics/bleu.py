r"""sacreBLEU's ``BLEU`` metric object (``sacrebleu.metrics.bleu``) over bleustats' statistics engine.

:class:`BLEU` takes sacreBLEU 2.6's arguments and gives its results; its
statistics come from the kernels (or, for a few segments, from
:mod:`bleustats.engine._small`), its scores from the one formula
(:mod:`bleustats.metrics.formula`), its signature from
:func:`~bleustats.metrics.results.bleu_signature`. The module also has the
other names code imports from ``sacrebleu.metrics.bleu`` (``BLEUScore``,
``BLEUSignature``, ``MAX_NGRAM_ORDER``, ``_get_tokenizer``).

Examples
--------
>>> bleu = BLEU(effective_order=True)
>>> round(bleu.sentence_score("the cat sat on the mat", ["the cat is on the mat"]).score, 4)
37.9918
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..engine import _small as small
from ..engine._options import SMOOTH_DEFAULTS, check_options
from ..errors import InputError
from ..tokenizers import SACREBLEU_TOKENIZERS, get_tokenizer, tokenizer_class
from .base import Metric, Signature
from .formula import bleu_from_sums, bleu_scores, check_scoring_options
from .helpers import extract_all_word_ngrams
from ._plain import plain_matrix, plain_segments, text_bytes
from .results import MAX_NGRAM_ORDER, BLEUScore, BLEUSignature, bleu_signature
from .tables import check_delta_defined, statistics_matrix

if TYPE_CHECKING:  # the statistics pipeline is imported where it runs: a sentence needs none of it
    from ..engine.references import ReferenceSet

__all__ = ["BLEU", "BLEUScore", "BLEUSignature", "MAX_NGRAM_ORDER", "Signature"]


#: sacreBLEU's ``sacrebleu.metrics.bleu._get_tokenizer``: tokenizer name -> its class
_get_tokenizer = tokenizer_class
# target language -> tokenizer, when none is named (sacreBLEU's _TOKENIZER_MAP)
_LANGUAGE_TOKENIZERS = {"zh": "zh", "ja": "ja-mecab", "ko": "ko-mecab"}


class BLEU(Metric):
    r"""sacreBLEU's ``BLEU`` metric object over bleustats' statistics engine.

    Same constructor arguments and defaults as ``sacrebleu.metrics.BLEU``
    (2.6), same results; ``references=`` are validated and tokenized once
    (a :class:`~bleustats.engine.references.ReferenceSet`) and reused by every
    ``corpus_score(hyps, None)``, so scoring many systems tokenizes the
    references once. The statistics of a call come from
    :func:`~bleustats.engine.stats.compute_stats` (numba kernels), as one
    matrix ``[hyp_len, ref_len, correct_1..N, total_1..N]`` per hypothesis.

    Parameters
    ----------
    lowercase, force, tokenize, smooth_method, smooth_value, max_ngram_order, effective_order, trg_lang, references
        As in sacreBLEU. ``force`` only silences sacreBLEU's tokenized-input
        warning, which bleustats does not print. ``tokenize=None`` picks ``zh``,
        ``ja-mecab`` or ``ko-mecab`` for those ``trg_lang`` and ``13a`` otherwise.
    ref_weights : list of lists of float, optional
        ΔBLEU weights of ``references`` (bleustats).
    metric : {'bleu', 'delta_bleu'}
        ``'delta_bleu'`` scores ΔBLEU (Galley et al., 2015) from the weights.
    ref_view, weight_threshold, delta_definition, ref_length
        As in :func:`bleustats.compute_stats` and :func:`bleustats.corpus_score`.

    Examples
    --------
    >>> hyps = ["The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."]
    >>> refs = [["The dog bit the man.", "It was not unexpected.", "The man bit him first."],
    ...         ["The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."]]
    >>> bleu = BLEU(references=refs)
    >>> print(bleu.corpus_score(hyps))
    BLEU = 48.53 82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18)
    >>> print(bleu.get_signature())
    nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:bleustats-...
    >>> BLEU.compute_bleu([9, 7, 5, 3], [10, 8, 6, 4], 11, 11).score
    83.75922397...
    """

    SMOOTH_DEFAULTS = SMOOTH_DEFAULTS
    TOKENIZERS = SACREBLEU_TOKENIZERS
    TOKENIZER_DEFAULT = "13a"

    def __init__(self, lowercase: bool = False, force: bool = False, tokenize: str | None = None,
                 smooth_method: str = "exp", smooth_value: float | None = None,
                 max_ngram_order: int = MAX_NGRAM_ORDER, effective_order: bool = False, trg_lang: str = "",
                 references: Sequence[Sequence[str]] | None = None, *,
                 ref_weights: Sequence[Sequence[float]] | None = None, metric: str = "bleu",
                 ref_view: str = "all", weight_threshold: float | None = None, delta_definition: str = "paper",
                 ref_length: str = "closest") -> None:
        super().__init__()
        check_scoring_options(metric=metric, smooth_method=smooth_method, smooth_value=smooth_value,
                              ref_length=ref_length)
        self._force = force
        self.trg_lang = trg_lang
        self.lowercase = lowercase
        self.smooth_value = smooth_value
        self.smooth_method = smooth_method
        self.max_ngram_order = max_ngram_order
        self.effective_order = effective_order
        self.metric = metric
        self.ref_view, self.weight_threshold = ref_view, weight_threshold
        self.delta_definition, self.ref_length = delta_definition, ref_length
        if tokenize is None:
            tokenize = _LANGUAGE_TOKENIZERS.get(trg_lang, self.TOKENIZER_DEFAULT)
        self.tokenize = tokenize
        self.tokenizer = get_tokenizer(tokenize)  # a clear error for a missing extra, here and not later
        self.tokenizer_signature = self.tokenizer.signature()
        # the statistics options, checked now (compute_stats checks them again per call)
        check_options("none", max_ngram_order, ref_view, weight_threshold, delta_definition)
        self._weights = "uniform"  # the last references' weights ('custom' unless all 1), for ΔBLEU's signature
        if references is not None:
            from ..engine.references import ReferenceSet

            given = isinstance(references, ReferenceSet) and ref_weights is None  # e.g. layout='segments'
            self._ref_cache = self._reference_set(references if given else ReferenceSet(references, ref_weights))
            if metric == "delta_bleu":  # the weights are signed for ΔBLEU only
                from ..engine._columns import to_numpy

                uniform = (to_numpy(self._ref_cache.table.column("weight")) == 1.0).all()
                self._weights = "uniform" if uniform else "custom"
        elif ref_weights is not None:
            raise InputError("ref_weights: give them with references= (the weights of those references).")

    def _preprocess_segment(self, sent: str) -> str:
        """``sent`` lowercased (if ``lowercase``) and tokenized, trailing whitespace dropped (sacreBLEU's method).

        >>> BLEU(lowercase=True)._preprocess_segment("Hello, World! ")
        'hello , world !'
        """
        return self.tokenizer((sent.lower() if self.lowercase else sent).rstrip())

    def _extract_reference_info(self, refs: Sequence[str]) -> dict[str, Any]:
        """``{'ref_ngrams': Counter, 'ref_lens': [int]}`` of one segment's preprocessed references.

        The counter holds each n-gram (order 1..``max_ngram_order``, word
        tuples) with its largest count over the references, the clip of
        BLEU's modified precision; ``ref_lens`` the references' word counts.
        """
        grams: Counter | None = None  # None for a segment without references, as in sacreBLEU
        lens = []
        for ref in refs:
            counts, n_words = extract_all_word_ngrams(ref, 1, self.max_ngram_order)
            lens.append(n_words)
            grams = counts if grams is None else grams | counts  # Counter union: the larger count of each
        return {"ref_ngrams": grams, "ref_lens": lens}

    def _prepare(self, refs: ReferenceSet) -> None:
        if small.prefer_plain(text_bytes(refs)):
            return  # small enough for the plain path; the kernels' path tokenizes (once) if it ever runs
        from ..engine.stats import reference_tokens

        reference_tokens(refs, self.tokenize, self.lowercase)  # tokenized once, kept in refs' cache

    # -- a few segments: counted in plain Python (bleustats.engine._small), the kernels' rows to the bit --

    def _plain_matrix(self, hypotheses: list, segments: list | None) -> np.ndarray | None:
        """:meth:`_statistics` of a few segments without the kernels (:func:`~.plain.plain_matrix`), or ``None``."""
        return plain_matrix(hypotheses, segments, tokenize=self.tokenize, lowercase=self.lowercase,
                            max_ngram_order=self.max_ngram_order, ref_view=self.ref_view,
                            weight_threshold=self.weight_threshold, delta_definition=self.delta_definition,
                            delta=self.metric == "delta_bleu", ref_length=self.ref_length)

    def _plain_corpus(self, hypotheses: Sequence[str], references: Any) -> np.ndarray | None:
        """The statistics matrix of a few segments on the plain path (and ``num_refs`` set), or ``None``."""
        hyps = list(hypotheses)
        plain = plain_segments(references, self._ref_cache, len(hyps))
        mat = None if plain is None else self._plain_matrix(hyps, plain[0])
        if mat is not None:
            self.num_refs = plain[1]
            self._weights = "uniform" if all(w == 1.0 for seg in plain[0] for _, w in seg) else "custom"
        return mat

    def _extract_corpus_statistics(self, hypotheses: Sequence[str], references: Any) -> NDArray[Any]:
        mat = self._plain_corpus(hypotheses, references)
        return super()._extract_corpus_statistics(hypotheses, references) if mat is None else mat

    def sentence_score(self, hypothesis: str, references: Sequence[str]) -> BLEUScore:
        """BLEU of one hypothesis against its references (sacreBLEU recommends ``effective_order=True``)."""
        self._check_sentence_score_args(hypothesis, references)
        mat = self._plain_matrix([hypothesis], [[(r, 1.0) for r in references if r is not None]])
        if mat is None:
            return super().sentence_score(hypothesis, references)
        self.num_refs = sum(r is not None for r in references)
        self._weights = "uniform"
        return self._aggregate_and_compute(mat)

    def _corpus_score(self, hypotheses: Sequence[str], references: Any, n_bootstrap: Any) -> BLEUScore:
        mat = self._plain_corpus(hypotheses, references) if type(n_bootstrap) is int and n_bootstrap == 1 else None
        if mat is None:
            return super()._corpus_score(hypotheses, references, n_bootstrap)
        return self._aggregate_and_compute(mat)

    def _statistics(self, hypotheses: Sequence[str], refs: ReferenceSet) -> np.ndarray:
        return self._matrix(list(hypotheses), refs)

    def _matrix(self, hypotheses: Any, refs: ReferenceSet, k_best: bool = False) -> np.ndarray:
        """The statistics matrix of ``hypotheses`` (a list, or a hypotheses table) with this object's options."""
        from ..engine.stats import compute_stats

        stats = compute_stats(hypotheses, refs, tokenize=self.tokenize, lowercase=self.lowercase,
                              max_ngram_order=self.max_ngram_order, ref_view=self.ref_view,
                              weight_threshold=self.weight_threshold, delta_definition=self.delta_definition,
                              k_best=k_best)
        if self.metric == "delta_bleu":
            check_delta_defined(stats)
        self._weights = stats.weights
        correct, total, hyp_len, ref_len = statistics_matrix(stats, metric=self.metric, ref_length=self.ref_length)
        return np.column_stack([hyp_len, ref_len, correct, total])

    def _systems_statistics(self, systems: Sequence[Sequence[str]]) -> list[NDArray[Any]] | None:
        """Every system's statistics matrix from one :func:`~bleustats.engine.stats.compute_stats` call over a
        hypotheses table of all systems (the rows each system alone gives, the references encoded once).

        ``None`` (each system is then scored on its own) where a system is not a list of str as long as the
        others (so that its own call refuses it), and where the systems' text with the references of each is
        small enough for the plain-Python path (:func:`bleustats.engine._small.prefer_plain`: a small job never
        loads numba).
        """
        if self._ref_cache is None or len(systems) < 2:
            return None
        systems = [list(system) for system in systems]
        n = len(systems[0])
        if n == 0 or any(len(system) != n or not set(map(type, system)) <= {str} for system in systems):
            return None
        # the call's text decides, as for one system: a job the plain path counts (no numba at all) stays so
        ref_chars = text_bytes(self._ref_cache)
        if small.prefer_plain(sum(sum(map(len, system)) + ref_chars for system in systems)):
            return None
        import pyarrow as pa

        from ..engine import _columns as columns

        refs = self._references(None, n)
        n_sys = len(systems)
        # segment by segment (every system's hypothesis of segment 0, then of segment 1, ...): the order the
        # engine groups rows in, so it slices the texts instead of taking rows (which imports pyarrow.compute)
        hyps = pa.table({"seg_id": columns.numeric(np.repeat(np.arange(n, dtype=np.int64), n_sys)),
                         "text": columns.strings([h for seg in zip(*systems) for h in seg], where="systems")})
        # the rows share seg_ids under one (default) system name: k_best lets them, unchecked (the key check
        # would import pyarrow.compute too); each row is computed as it is for its system alone
        rows = self._matrix(hyps, refs, k_best=True)
        return [np.ascontiguousarray(rows[k::n_sys]) for k in range(n_sys)]

    def _split(self, sums: np.ndarray) -> tuple[np.ndarray, ...]:
        n = self.max_ngram_order
        correct = sums[..., 2:2 + n]
        if self.metric == "delta_bleu":
            correct = np.maximum(correct, 0)
        return correct, sums[..., 2 + n:2 + 2 * n], sums[..., 0], sums[..., 1]

    def _compute_score_from_stats(self, stats: ArrayLike) -> BLEUScore:
        """The BLEU of one row of summed statistics ``[hyp_len, ref_len, correct_1..N, total_1..N]``."""
        sums = np.asarray(stats)
        correct, total, sys_len, ref_len = self._split(sums)
        return _bleu_score(correct, total, sys_len, ref_len, smooth_method=self.smooth_method,
                           smooth_value=self.smooth_value, effective_order=self.effective_order,
                           name="ΔBLEU" if self.metric == "delta_bleu" else "BLEU", signature=self.get_signature())

    def scores_from_sums(self, sums: ArrayLike, *, float32: bool = False) -> np.ndarray:
        """BLEU of every row of summed statistics (``float32=True``: sacreBLEU's bootstrap rounding)."""
        correct, total, sys_len, ref_len = self._split(np.asarray(sums, dtype=np.float64))
        return bleu_scores(correct, total, sys_len, ref_len, smooth_method=self.smooth_method,
                           smooth_value=self.smooth_value, use_effective_order=self.effective_order,
                           float32=float32)

    def get_signature(self) -> BLEUSignature:
        """sacreBLEU's BLEU signature (``nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:...``).

        The same line as :func:`corpus_bleu` and a table's scores sign for the same options
        (:func:`~bleustats.metrics.results.bleu_signature`).
        """
        if getattr(self, "num_refs", None) is None:
            raise ValueError("BLEU: the number of references is unknown; score something (or pass references= "
                             "to the constructor) before get_signature().")
        k = check_scoring_options(smooth_method=self.smooth_method, smooth_value=self.smooth_value)
        return bleu_signature(self.num_refs, tokenize=self.tokenizer_signature, lowercase=self.lowercase,
                              smooth_method=self.smooth_method, smooth_value=k, effective_order=self.effective_order,
                              max_ngram_order=self.max_ngram_order, ref_view=self.ref_view,
                              weight_threshold=self.weight_threshold, weights=self._weights, metric=self.metric,
                              delta_definition=self.delta_definition, ref_length=self.ref_length,
                              n_bootstrap=self.n_bootstrap, seed=self.seed)

    @staticmethod
    def compute_bleu(correct: Sequence[float], total: Sequence[float], sys_len: float, ref_len: float,
                     smooth_method: str = "none", smooth_value: float | None = None,
                     effective_order: bool = False, max_ngram_order: int = MAX_NGRAM_ORDER) -> BLEUScore:
        """BLEU from its sufficient statistics, as sacreBLEU's ``BLEU.compute_bleu`` (:func:`bleu_from_sums`).

        Only the first ``max_ngram_order`` entries of ``correct`` / ``total`` count.
        """
        if isinstance(max_ngram_order, bool) or not isinstance(max_ngram_order, (int, np.integer)) or (
                max_ngram_order < 1 or len(correct) < max_ngram_order or len(total) < max_ngram_order):
            raise InputError(f"max_ngram_order must be an int from 1 to len(correct) = len(total); got "
                             f"{max_ngram_order!r} with {len(correct)} and {len(total)} entries.")
        return _bleu_score(np.asarray(correct)[:max_ngram_order], np.asarray(total)[:max_ngram_order], sys_len,
                           ref_len, smooth_method=smooth_method, smooth_value=smooth_value,
                           effective_order=effective_order)


def _python(values: list, ints: bool) -> list:
    """``values`` (a ``tolist()``) as ints where ``ints`` and every one is whole, else as floats."""
    if ints and all(v.is_integer() for v in values):
        return [int(v) for v in values]
    return [float(v) for v in values]


def _number(x: Any) -> int | float:
    """A length (a Python or numpy number, or a 0-d array) as a Python int where it is whole, else a float."""
    x = x.item() if isinstance(x, (np.generic, np.ndarray)) else x
    return int(x) if float(x).is_integer() else x


def _bleu_score(c: np.ndarray, t: np.ndarray, sys_len: Any, ref_len: Any, *, smooth_method: str,
                smooth_value: float | None, effective_order: bool, name: str = "BLEU",
                signature: Any = None) -> BLEUScore:
    """:meth:`BLEU.compute_bleu` of ``c`` / ``t`` (N orders), named and signed (``BLEUScore`` built once)."""
    out = bleu_from_sums(c, t, sys_len, ref_len, smooth_method=smooth_method, smooth_value=smooth_value,
                         use_effective_order=effective_order)
    # numpy scalars and 0-d arrays (a row of sums sliced with ...) as Python numbers
    return BLEUScore(score=float(out["score"]), counts=_python(out["counts"].tolist(), c.dtype.kind in "iu"),
                     totals=_python(out["totals"].tolist(), t.dtype.kind in "iu"),
                     precisions=out["precisions"].tolist(), bp=float(out["bp"]), sys_len=_number(sys_len),
                     ref_len=_number(ref_len), signature=signature, name=name)
