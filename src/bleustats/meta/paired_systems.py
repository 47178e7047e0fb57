r"""sacreBLEU's ``PairedTest`` / ``Result``: paired tests of many systems against a baseline, any metric.

``PairedTest(named_systems, metrics, references, test_type='ar' | 'bs')()``
has sacreBLEU 2.6's arguments, semantics and numbers (same seed from
``$SACREBLEU_SEED``, same draws, same p-values, means and intervals) for
:class:`~bleustats.metrics.bleu.BLEU`, :class:`~bleustats.metrics.chrf.CHRF`
and :class:`~bleustats.metrics.ter.TER` objects. The work is bleustats':
each system's per-segment statistics come from the kernels once, every
bootstrap resample or randomization trial of every metric is a row of one
matrix product over them (:func:`~bleustats.meta.paired.bootstrap_comparisons`,
:func:`~bleustats.meta.paired.approximate_randomization_counts`), and the
scores of all rows are one vectorized formula. No worker processes are
needed, so ``n_jobs`` is accepted and ignored.

Bootstrap (Koehn, 2004), with :math:`\delta = |s - b|` and
:math:`\delta_i = |s_i - b_i|` on resample :math:`i`:
:math:`p = (1 + \#\{i : \delta_i - \bar\delta > \delta\}) / (1 + B)`.
Approximate randomization (Riezler & Maxwell, 2005):
:math:`p = (1 + \#\{i : |a_i - b_i| > \delta\}) / (1 + B)`.

Examples
--------
>>> from bleustats.metrics import BLEU
>>> refs = [["the cat sat on the mat", "a dog ran in the park", "it rains in paris"]]
>>> systems = [("base", ["the cat sat on the mat", "a dog ran to the park", "it rains in paris"]),
...            ("new", ["the cat sat on a mat", "a dog ran in the park", "it rained in paris"])]
>>> sigs, scores = PairedTest(systems, {"BLEU": BLEU(references=refs)}, None, test_type="bs", n_samples=100)()
>>> scores["System"], [round(r.score, 2) for r in scores["BLEU"]]
(['base', 'new'], [75.05, 67.51])
>>> str(sigs["BLEU"])
'nrefs:1|bs:100|seed:12345|case:mixed|eff:no|tok:13a|smooth:exp|version:bleustats-...'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..errors import InputError
from ..metrics.base import Metric, bootstrap_sums, estimate_ci, sacrebleu_seed
from ..metrics.base import Signature as MetricSignature
from .paired import approximate_randomization_counts, bootstrap_comparisons

__all__ = ["PairedTest", "Result"]


class Result:
    """One system's outcome of a paired test (sacreBLEU's ``significance.Result``).

    Attributes
    ----------
    score : float
        The system's corpus score.
    p_value : float or None
        Against the baseline (None for the baseline itself).
    mean, ci : float or None
        Bootstrap mean and half-width of the 95% interval, when estimated.
    """

    def __init__(self, score: float, p_value: float | None = None, mean: float | None = None,
                 ci: float | None = None) -> None:
        self.score = score
        self.p_value = p_value
        self.mean = mean
        self.ci = ci

    def __repr__(self) -> str:
        return ",".join(f"{k}={v}" for k, v in self.__dict__.items())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Result) and self.__dict__ == other.__dict__


def _matrix(stats: Any) -> np.ndarray:
    return np.asarray(stats, dtype=np.float64)


class PairedTest:
    """Paired significance tests of systems against the first one (sacreBLEU's ``PairedTest``).

    Parameters
    ----------
    named_systems : list of (name, hypotheses)
        The baseline first, then the systems to compare with it.
    metrics : mapping of name to Metric
        bleustats (or sacreBLEU-shaped) ``BLEU`` / ``CHRF`` / ``TER`` objects.
    references : list of reference streams or None
        None uses each metric's cached references (``references=`` of its constructor).
    test_type : {'ar', 'bs'}
        Approximate randomization or paired bootstrap resampling.
    n_samples : int
        Trials (``ar``) or resamples (``bs``); 0 takes sacreBLEU's default (10,000 / 1,000).
    n_ar_confidence : int
        With ``ar``, bootstrap resamples for means and intervals; -1 none, 0 the default 1,000.
    n_jobs : int
        Accepted for sacreBLEU's signature; every test already runs as a few matrix products.

    Calling the object runs the tests and returns ``(signatures, scores)``:
    ``signatures[metric name]`` (with ``seed``, ``bs`` / ``ar``) and
    ``scores['System']`` (the names) plus ``scores[metric name]``, one
    :class:`Result` per system, the baseline first.
    """

    _DEFAULT_SAMPLES = {"ar": 10000, "bs": 1000}

    def __init__(self, named_systems: Sequence[tuple[str, Sequence[str]]], metrics: Mapping[str, Metric],
                 references: Sequence[Sequence[str]] | None, test_type: str = "ar", n_samples: int = 0,
                 n_ar_confidence: int = -1, n_jobs: int = 1) -> None:
        if test_type not in self._DEFAULT_SAMPLES:
            raise InputError(f"test_type must be 'ar' (approximate randomization) or 'bs' (paired bootstrap); "
                             f"got {test_type!r}.")
        for name, value in (("n_samples", n_samples), ("n_ar_confidence", n_ar_confidence), ("n_jobs", n_jobs)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise InputError(f"{name} must be an int; got {type(value).__name__} {value!r:.40}.")
        named_systems = list(named_systems)
        if len(named_systems) < 2:
            raise InputError(f"named_systems: a paired test needs the baseline and at least one system; got "
                             f"{len(named_systems)}.")
        self.test_type = test_type
        self._seed, self._seed_label = sacrebleu_seed()
        self.n_jobs = n_jobs
        self.references = references
        self.named_systems = named_systems
        self.n_ar_confidence = n_ar_confidence if n_ar_confidence != 0 else self._DEFAULT_SAMPLES["bs"]
        self.n_samples = n_samples if n_samples > 0 else self._DEFAULT_SAMPLES[test_type]
        self.n_systems = len(named_systems) - 1
        self.metrics: dict[str, Metric] = {}
        self._baseline_info: dict[str, tuple[np.ndarray, Result]] = {}
        self._signatures: dict[str, MetricSignature] = {}
        bl_name, bl_hyps = named_systems[0]
        confidence_n = self.n_samples if test_type == "bs" else self.n_ar_confidence
        for metric in metrics.values():
            bl_stats = _matrix(metric._extract_corpus_statistics(bl_hyps, references))
            bl_score = metric._aggregate_and_compute(bl_stats)
            mean = ci = None
            if confidence_n > 0:  # a fresh generator from the seed, as sacreBLEU's _bootstrap_resample
                (sums,) = bootstrap_sums(np.random.default_rng(self._seed), confidence_n, [bl_stats])
                mean, ci = estimate_ci(metric.scores_from_sums(sums, float32=True))
            self._baseline_info[bl_score.name] = (bl_stats, Result(bl_score.score, mean=mean, ci=ci))
            self.metrics[bl_score.name] = metric
            sig = metric.get_signature()
            sig.update("seed", self._seed_label)
            sig.update(test_type, self.n_samples)
            if self.n_ar_confidence > 0:
                sig.update("bs", self.n_ar_confidence)
            self._signatures[bl_score.name] = sig

    def _test(self, hypotheses: Sequence[str]) -> dict[str, Result]:
        """One system against the baseline, every metric on the same draws."""
        seed = self._seed if self._seed else None  # sacreBLEU: seed 0 means no fixed seed for the tests
        rng = np.random.default_rng(seed)
        names = list(self.metrics)
        sys_stats, sys_scores = [], []
        for name in names:
            stats = _matrix(self.metrics[name]._extract_corpus_statistics(hypotheses, self.references))
            sys_stats.append(stats)
            sys_scores.append(self.metrics[name]._aggregate_and_compute(stats).score)
        pairs = [(self._baseline_info[n][0], s) for n, s in zip(names, sys_stats)]
        scorers = [self.metrics[n].scores_from_sums for n in names]
        scorers = [lambda sums, f32, fn=fn: fn(sums, float32=f32) for fn in scorers]
        diffs = [abs(self._baseline_info[n][1].score - s) for n, s in zip(names, sys_scores)]
        if self.test_type == "bs":
            tests = bootstrap_comparisons(rng, self.n_samples, pairs, scorers, diffs)
            return {n: Result(score, p, *sys_ci) for n, score, (p, _, sys_ci) in zip(names, sys_scores, tests)}
        counts = approximate_randomization_counts(rng, self.n_samples, pairs, scorers, diffs)
        out = {n: Result(score, (c + 1) / (self.n_samples + 1)) for n, score, c in zip(names, sys_scores, counts)}
        if self.n_ar_confidence > 0:  # drawn after the trials, from the same generator
            sums = bootstrap_sums(rng, self.n_ar_confidence, sys_stats)
            for n, s, f in zip(names, sums, scorers):
                out[n].mean, out[n].ci = estimate_ci(f(s, True))
        return out

    def __call__(self) -> tuple[dict[str, MetricSignature], dict[str, list[Any]]]:
        """Run the tests; returns (signatures, scores) as sacreBLEU's ``PairedTest.__call__``."""
        scores: dict[str, list[Any]] = {"System": [name for name, _ in self.named_systems]}
        for name, (_, result) in self._baseline_info.items():
            scores[name] = [result]
        for _, hypotheses in self.named_systems[1:]:
            for name, result in self._test(hypotheses).items():
                scores[name].append(result)
        return self._signatures, scores
