"""Shared test fixtures: where the optional real data lives, and how much of it and of random inputs a run reads.

By default (the README's test command) the real-data tests read the licensed slice vendored in
``tests/data/shared``, and the property-based tests draw half the examples they name, so the suite takes
minutes; ``--full-data`` makes them read the whole data sets of ``../shared`` beside the checkout and runs
the tests that need whole data sets, ``--full-examples`` draws every example (``.ci/run`` passes both; the
minutes-long whole-test-set oracles stay opt-in, ``-m exhaustive``). Tests in
modules that read the real data carry the marker ``data``, property-based tests hypothesis' marker
``hypothesis``, so that ``-m "slow or data or hypothesis" --full-data --full-examples`` is the heavy pass.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

import pytest

#: ../shared beside the checkout: real evaluation data and published fixtures.
SHARED = Path(__file__).resolve().parents[1].parent / "shared"
#: A slice of ../shared in its layout, vendored with its licences (tests/data/README.md).
VENDORED = Path(__file__).resolve().parent / "data" / "shared"


_FULL = {"data": False, "examples": False}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--full-data", action="store_true", default=False,
                     help="real-data tests read the whole data sets of ../shared (default: the vendored slice), and "
                          "the tests that need whole data sets run")
    parser.addoption("--full-examples", action="store_true", default=False,
                     help="property-based (hypothesis) tests draw all the examples they name (default: half, "
                          "hypothesis' default 100 becoming 50)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark ``data`` the tests of a module that reads the real data through this file's helpers, so that the
    heavy pass can select them (a test that reads it another way carries the marker itself)."""
    helpers = {id(obj) for obj in (data_path, shared_path, wmt_corpus, SHARED)}
    modules: dict[str, bool] = {}
    for item in items:
        module = getattr(item, "module", None)
        if module is None:
            continue
        if module.__name__ not in modules:
            modules[module.__name__] = any(id(v) in helpers for v in vars(module).values())
        if modules[module.__name__]:
            item.add_marker(pytest.mark.data)


def full_data() -> bool:
    """Whether this run reads the whole data sets (``--full-data``)."""
    return _FULL["data"]


def examples(n: int) -> int:
    """A property-based test's number of examples: ``n`` with ``--full-examples`` (``.ci/run``'s heavy pass), else
    half of it (the README's command: every property checked, on fewer random inputs)."""
    return n if _FULL["examples"] else max(1, n // 2)


def pytest_configure(config: pytest.Config) -> None:
    """Take the options (property-based tests without a number of examples of their own get :func:`examples` of
    hypothesis' default); refuse to run against a leftover folder instead of failing every test.

    A folder ``site-packages/bleustats`` left behind by an earlier install (e.g.
    numba cache files written there by bleustats <= 0.1, which pip does not
    remove) is imported as an empty namespace package in place of an editable
    checkout; say so once, with the fix.
    """
    _FULL["data"] = bool(config.getoption("--full-data", default=False))
    _FULL["examples"] = bool(config.getoption("--full-examples", default=False))
    from hypothesis import settings

    settings.register_profile("bleustats-half", max_examples=examples(settings.get_profile("default").max_examples))
    settings.load_profile("bleustats-half")
    import bleustats

    if getattr(bleustats, "__file__", None) is None:
        where = ", ".join(map(str, getattr(bleustats, "__path__", [])))
        raise pytest.UsageError(
            f"bleustats is imported as an empty namespace package from {where}: a folder left by an "
            "earlier install shadows this checkout. Remove that folder (rm -rf it) and reinstall "
            "(pip install -e '.[test]').")


def shared_path(*parts: str) -> Path:
    """Path under ../shared for a test that needs a whole data set; it runs with ``--full-data`` only (and skips
    with the reason when ../shared is absent)."""
    if not full_data():
        pytest.skip("needs a whole data set of ../shared: run with --full-data (.ci/run's heavy pass does)")
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} not found: this test needs ../shared/ beside the checkout "
                    "(real data and fixtures are not part of the package)")
    return path


def data_path(*parts: str) -> Path:
    """Path under the vendored slice tests/data/shared (else under ../shared), or with ``--full-data`` under
    ../shared; else skip with the reason.

    For tests that hold on any subset of the data (oracle comparisons, the
    published fixture): they run on the slice by default, so they never skip in
    a source checkout, and on the whole set with ``--full-data`` (which skips
    them, with the reason, where ../shared is absent: they ran on the slice).
    """
    if full_data():
        path = SHARED.joinpath(*parts)
        if not path.exists():
            pytest.skip(f"--full-data: {path} not found (../shared beside the checkout); without --full-data this "
                        "test runs on the vendored slice")
        return path
    for root in (VENDORED, SHARED):
        path = root.joinpath(*parts)
        if path.exists():
            return path
    pytest.skip(f"{VENDORED.joinpath(*parts)} not found, nor {SHARED.joinpath(*parts)}")


def read_tsv(path: Path) -> list[dict[str, str]]:
    """Rows of a shared-data TSV (header line, no quoting) as dicts."""
    with open(path, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))


def wmt_corpus(pair: str) -> tuple[list[int], list[list[str | None]], dict[str, dict[int, str]]]:
    """WMT21 ``pair``: segment ids, reference streams (every reference, sorted by name) and system outputs.

    The vendored slice (tests/data/README.md), or with ``--full-data`` the whole test set from ../shared.
    """
    root = data_path("data", "wmt21_news", pair)
    refs: dict[str, dict[int, str]] = defaultdict(dict)
    for name in ("references.tsv", "references_unverified.tsv"):
        for row in read_tsv(root / name):
            refs[row["ref"]][int(row["seg_id"])] = row["text"]
    systems: dict[str, dict[int, str]] = defaultdict(dict)
    for row in read_tsv(root / "system_outputs.tsv"):
        systems[row["system"]][int(row["seg_id"])] = row["text"]
    seg_ids = sorted(refs["ref-A"])
    streams = [[refs[r].get(s) for s in seg_ids] for r in sorted(refs)]
    return seg_ids, streams, systems


@pytest.fixture(scope="module")
def numba_one_thread():
    """Run a module's tiny inputs on one numba thread, then restore the count.

    Input-handling and CLI tests score corpora of a few lines hundreds of times;
    launching a parallel region for each costs far more than the work (tens of
    ms per call on a busy machine). Parallel paths are covered by the kernel tests.
    """
    import numba

    before = numba.get_num_threads()
    numba.set_num_threads(1)
    yield
    numba.set_num_threads(before)


def force_path(path: str):
    """Set bleustats.engine._small's threshold so that every input takes ``path``; returns the undo."""
    from bleustats.engine import _small as small

    before = small.PLAIN_MAX_CHARS
    small.PLAIN_MAX_CHARS = 10**15 if path == "plain" else -1

    def undo() -> None:
        small.PLAIN_MAX_CHARS = before

    return undo


@pytest.fixture(scope="module", params=["plain", "kernel"])
def either_path(request):
    """Run a module's tests twice: on the plain-Python path and on the numba kernels.

    Small inputs take the plain path by default (``bleustats.engine._small.prefer_plain``);
    oracle tests use this so that both paths are checked against sacreBLEU.
    """
    undo = force_path(request.param)
    yield request.param
    undo()


@pytest.fixture(scope="module")
def kernel_path():
    """Send every input of a module through the numba kernels (the kernel twin tests)."""
    undo = force_path("kernel")
    yield
    undo()


@pytest.fixture(scope="module")
def plain_path():
    """Send every input of a module through the plain-Python path."""
    undo = force_path("plain")
    yield
    undo()


def make_corpus(folder: Path, *, n_segments: int = 40, systems: tuple[str, ...] = ("A", "B", "C"), n_parts: int = 4,
                seed: int = 0) -> dict:
    """A small synthetic evaluation set on disk, for the partitioned and distributed tests.

    Two weighted references per segment (weights in (0, 1]: ΔBLEU's float sums
    are exercised), hypotheses of every system written as ``n_parts``
    Parquet parts of ``folder / "hyps"`` (cut across systems), the same rows as
    one file, and human scores of every (system, segment). Returns the paths
    and the in-memory frames.
    """
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    vocab = ["the", "a", "cat", "dog", "sat", "on", "mat", "ünï", "中文", "x", "y", "z", ",", "."]

    def line(lo: int = 0) -> str:
        return " ".join(rng.choice(vocab, int(rng.integers(lo, 14))))

    refs = pd.DataFrame({"seg_id": np.repeat(np.arange(n_segments), 2), "ref_id": ["r0", "r1"] * n_segments,
                         "weight": np.round(rng.uniform(0.05, 1.0, 2 * n_segments), 6),
                         "text": [line(1) for _ in range(2 * n_segments)]})
    hyps = pd.DataFrame({"seg_id": np.tile(np.arange(n_segments), len(systems)),
                         "system": np.repeat(list(systems), n_segments),
                         "text": [line() for _ in range(n_segments * len(systems))]})
    human = hyps[["system", "seg_id"]].assign(score=rng.normal(size=len(hyps)))
    folder = Path(folder)
    (folder / "hyps").mkdir(parents=True)
    cuts = np.linspace(0, len(hyps), n_parts + 1).astype(int)
    for i, (a, b) in enumerate(zip(cuts[:-1], cuts[1:])):
        hyps.iloc[a:b].to_parquet(folder / "hyps" / f"part.{i}.parquet", index=False)
    hyps.to_parquet(folder / "hyps.parquet", index=False)
    refs.to_parquet(folder / "refs.parquet", index=False)
    human.to_parquet(folder / "human.parquet", index=False)
    return {"hyps": hyps, "refs": refs, "human": human, "hyps_dir": folder / "hyps",
            "hyps_file": folder / "hyps.parquet", "refs_file": folder / "refs.parquet",
            "human_file": folder / "human.parquet"}
