"""The study's paired metric comparison: identical metrics, calibration under nulls, power, errors.

Calibration: small synthetic studies of two metrics whose noise is exchangeable between
them (so H0: equal correlations holds), one study per seed; the p-values of many seeds are
compared with the uniform distribution by a Kolmogorov–Smirnov test. The seeds are fixed, so
each test is deterministic; the thresholds (KS p > 0.01, rejection rates) were chosen before
looking at the outcomes, which are printed with ``-s``.
"""

from __future__ import annotations

import threading

import numpy as np
import pandas as pd
import pytest
import scipy.stats

from bleustats.errors import InputError
from bleustats.meta import rank_stats
from bleustats.meta.study import correlation_study, mean_metric
from bleustats.meta.study_compare import Stopped, paired_difference, protocol_bootstrap
from bleustats.meta.units import study_cells


def _null_study(seed: int, *, n_systems: int = 6, n_segments: int = 30, system_noise: float = 0.0,
                gap: float = 0.0):
    """Two metrics = true quality + independent noise of one law (+ a per-system offset of sd system_noise).

    ``gap`` > 0 gives metric B more noise (a real difference).
    """
    rng = np.random.default_rng(seed)
    quality = (rng.normal(size=(n_systems, 1)) + rng.normal(size=(1, n_segments))
               + rng.normal(size=(n_systems, n_segments)))
    human = quality + rng.normal(size=quality.shape)

    def metric(extra: float):
        return (quality + rng.normal(0.0, 1.0 + extra, quality.shape)
                + rng.normal(0.0, system_noise, (n_systems, 1)))

    a, b = metric(0.0), metric(gap)
    system = np.repeat([f"s{i}" for i in range(n_systems)], n_segments)
    seg = np.tile(np.arange(n_segments), n_systems)
    frame = pd.DataFrame({"system": system, "seg_id": seg, "score": human.ravel()})
    return [mean_metric(system, seg, a.ravel(), metric="A"), mean_metric(system, seg, b.ravel(), metric="B")], frame


def _p_values(n_seeds: int, *, unit_size: int, resampling: str, n_boot: int, **kwargs) -> dict[str, np.ndarray]:
    out: dict[str, list[float]] = {"rho": [], "tau": []}
    for seed in range(n_seeds):
        metrics, human = _null_study(seed, **kwargs)
        res = correlation_study(metrics, human, unit_size=unit_size, n_assignments=20, n_bootstrap=0, seed=seed,
                                compare=[("A [all]", "B [all]")], n_compare_bootstrap=n_boot,
                                compare_resampling=resampling)
        for _, row in res.comparisons.iterrows():
            out[row["correlation"]].append(row["p_value"])
    return {k: np.array(v) for k, v in out.items()}


def _report(name: str, ps: dict[str, np.ndarray]) -> dict[str, float]:
    ks = {k: scipy.stats.kstest(v, "uniform").pvalue for k, v in ps.items()}
    for k, v in ps.items():
        print(f"{name} {k}: KS p = {ks[k]:.3f}, P(p < 0.05) = {(v < 0.05).mean():.3f}, mean p = {v.mean():.3f}")
    return ks


@pytest.mark.parametrize("unit_size", [1, 3])
def test_identical_metrics_give_p_one(numba_one_thread, unit_size):
    metrics, human = _null_study(0)
    twin = mean_metric(metrics[0].system, metrics[0].seg_id, metrics[0].values[:, 0], metric="A2")
    res = correlation_study([metrics[0], twin], human, unit_size=unit_size, n_assignments=10, n_bootstrap=0,
                            compare=[("A [all]", "A2 [all]")], n_compare_bootstrap=50)
    for _, row in res.comparisons.iterrows():
        assert row["difference"] == 0.0 and row["se"] == 0.0 and row["p_value"] == 1.0
        assert row["low"] == row["high"] == 0.0


@pytest.mark.slow
def test_calibrated_under_a_null_with_system_level_noise(numba_one_thread):
    # the default ('systems'): each metric scores each system a little too high or low, and the
    # segments' noise is independent; the p-values are uniform
    ks = _report("systems, M=1", _p_values(150, unit_size=1, resampling="systems", n_boot=150, system_noise=1.0))
    assert min(ks.values()) > 0.01


@pytest.mark.slow
def test_calibrated_at_unit_size_above_one(numba_one_thread):
    ks = _report("systems, M=4", _p_values(80, unit_size=4, resampling="systems", n_boot=80, system_noise=1.0,
                                           n_segments=24))
    assert min(ks.values()) > 0.01


@pytest.mark.slow
def test_pairs_resampling_calibrated_without_system_level_noise(numba_one_thread):
    ks = _report("pairs, M=1", _p_values(150, unit_size=1, resampling="pairs", n_boot=150))
    assert min(ks.values()) > 0.01


@pytest.mark.slow
def test_known_limits_of_each_resampling(numba_one_thread):
    # 'systems' is conservative when the noise has no system-level part; 'pairs' treats pairs that
    # share a system as independent and is too liberal when it has one (why 'systems' is the default)
    conservative = _p_values(80, unit_size=1, resampling="systems", n_boot=80)
    liberal = _p_values(80, unit_size=1, resampling="pairs", n_boot=80, system_noise=1.0)
    _report("systems without system noise", conservative)
    _report("pairs with system noise", liberal)
    for k in ("rho", "tau"):
        assert (conservative[k] < 0.05).mean() <= 0.05 and conservative[k].mean() > 0.5
        assert (liberal[k] < 0.05).mean() > 0.10


def test_a_real_difference_is_found(numba_one_thread):
    ps = _p_values(10, unit_size=1, resampling="systems", n_boot=100, gap=3.0, n_segments=60)
    assert (ps["rho"] < 0.05).mean() >= 0.8 and (ps["tau"] < 0.05).mean() >= 0.8


def test_comparison_is_seeded_and_leaves_the_study_unchanged(numba_one_thread):
    metrics, human = _null_study(1)
    plain = correlation_study(metrics, human, unit_size=2, n_assignments=15, n_bootstrap=30, seed=4)
    a = correlation_study(metrics, human, unit_size=2, n_assignments=15, n_bootstrap=30, seed=4,
                          compare=[("B [all]", "A [all]")], n_compare_bootstrap=40)
    b = correlation_study(metrics, human, unit_size=2, n_assignments=15, n_bootstrap=30, seed=4,
                          compare=[("B [all]", "A [all]")], n_compare_bootstrap=40)
    pd.testing.assert_frame_equal(plain.summary, a.summary)
    pd.testing.assert_frame_equal(a.comparisons, b.comparisons)
    row = a.comparisons.iloc[0]
    assert row["metric_a"] == "B [all]" and row["difference"] == pytest.approx(
        a.summary.loc[1, "rho"] - a.summary.loc[0, "rho"])
    assert row["low"] < row["difference"] < row["high"] and "cboot:40" in row["signature"]
    assert row["n_valid"] == 40


def test_comparison_threads_give_the_serial_numbers_and_stop_with_the_study(numba_one_thread):
    # the three resampling schemes run on threads of their own beside the study: the numbers of running them in
    # turn; an error in the study stops them (no thread left behind)
    metrics, human = _null_study(5)
    kw = dict(unit_size=2, n_assignments=10, n_bootstrap=20, seed=3, compare=[("A [all]", "B [all]")],
              n_compare_bootstrap=30)
    serial = correlation_study(metrics, human, n_threads=1, **kw)
    threaded = correlation_study(metrics, human, n_threads=3, **kw)
    pd.testing.assert_frame_equal(serial.summary, threaded.summary)
    pd.testing.assert_frame_equal(serial.comparisons, threaded.comparisons)

    def fail(done: int, total: int) -> None:
        raise RuntimeError("stopped by the caller")

    before = threading.active_count()
    with pytest.raises(RuntimeError, match="stopped by the caller"):
        correlation_study(metrics, human, n_threads=3, progress=fail, **kw)
    assert threading.active_count() == before
    assert not rank_stats._parallel(0) and rank_stats._parallel(1 << 20)  # this thread's kernels parallel again
    stop = threading.Event()
    stop.set()
    for unit_size in (1, 2):
        with pytest.raises(Stopped, match="its stop event was set"):
            protocol_bootstrap(study_cells(metrics, human), [0], unit_size=unit_size, n_bootstrap=5, stop=stop)


def test_protocol_bootstrap_is_reproducible(numba_one_thread, monkeypatch):
    from bleustats.meta import study_compare

    metrics, human = _null_study(2)
    cells = study_cells(metrics, human)
    for unit_size in (1, 3):
        for scheme in ("segments", "systems", "pairs", "within", "both"):
            one = protocol_bootstrap(cells, [0, 1], unit_size=unit_size, n_bootstrap=12, seed=5, resample=scheme,
                                     n_partitions=2)
            two = protocol_bootstrap(cells, [1, 0], unit_size=unit_size, n_bootstrap=12, seed=5, resample=scheme,
                                     n_partitions=2)
            assert np.array_equal(one[0][0], two[0][0], equal_nan=True)
            assert one[0][0].shape == (12, 2 if unit_size > 1 else 1)
            if unit_size == 1 and scheme != "within":  # weight vectors: drawn whole rows at a time
                monkeypatch.setattr(study_compare, "_BLOCK", 1)
                small = protocol_bootstrap(cells, [0, 1], unit_size=1, n_bootstrap=12, seed=5, resample=scheme)
                monkeypatch.undo()
                assert np.array_equal(one[0][0], small[0][0], equal_nan=True)


def test_unit_size_one_weights_equal_expanded_observations(numba_one_thread):
    # at M = 1 a 'segments' replicate is a weight vector over the study's observations: the same
    # coefficients as the observations of the drawn segments, duplicated
    metrics, human = _null_study(3, n_systems=3, n_segments=8)
    cells = study_cells(metrics, human)
    reps = protocol_bootstrap(cells, [0], unit_size=1, n_bootstrap=3, seed=9, resample="segments")
    seg_rng = np.random.default_rng(np.random.SeedSequence(9).spawn(3)[0])
    draws = seg_rng.integers(0, 8, size=(3, 8), dtype=np.int64)
    for b in range(3):
        x, y = [], []
        for p in range(len(cells.pair_names)):
            diffs, hy = cells.unit_differences(p, np.array(draws[b]).reshape(1, 8, 1), 1, [0])
            x.append(diffs[0][0])
            y.append(hy[0])
        assert reps[0][0][b, 0] == pytest.approx(scipy.stats.spearmanr(np.concatenate(x), np.concatenate(y))[0])


def test_bad_comparisons(numba_one_thread):
    metrics, human = _null_study(0)
    with pytest.raises(InputError, match="is not a metric of the study"):
        correlation_study(metrics, human, unit_size=1, compare=[("A [all]", "C")])
    with pytest.raises(InputError, match="with itself"):
        correlation_study(metrics, human, unit_size=1, compare=[("A [all]", "A [all]")])
    with pytest.raises(InputError, match="compare_resampling must be"):
        correlation_study(metrics, human, unit_size=1, compare=[("A [all]", "B [all]")], compare_resampling="x")
    with pytest.raises(InputError, match="resample must be"):
        protocol_bootstrap(study_cells(metrics, human), [0], unit_size=1, resample="rows")
    with pytest.raises(InputError, match="one of 'systems' or 'pairs'"):
        paired_difference(0.1, 0.2, {"segments": [0.1, 0.2]}, {"segments": [0.1, 0.2]})
