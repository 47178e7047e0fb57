"""Shared test fixtures: where the optional real data lives."""

from __future__ import annotations

from pathlib import Path

import pytest

#: ../shared beside the checkout: real evaluation data and published fixtures.
SHARED = Path(__file__).resolve().parents[1].parent / "shared"


def pytest_configure(config: pytest.Config) -> None:
    """Refuse to run against a leftover folder instead of failing every test (issue 13).

    A folder ``site-packages/bleustats`` left behind by an earlier install (e.g.
    numba cache files written there by bleustats <= 0.1, which pip does not
    remove) is imported as an empty namespace package in place of an editable
    checkout; say so once, with the fix.
    """
    import bleustats

    if getattr(bleustats, "__file__", None) is None:
        where = ", ".join(map(str, getattr(bleustats, "__path__", [])))
        raise pytest.UsageError(
            f"bleustats is imported as an empty namespace package from {where}: a folder left by an "
            "earlier install shadows this checkout. Remove that folder (rm -rf it) and reinstall "
            "(pip install -e '.[test]').")


def shared_path(*parts: str) -> Path:
    """Path under ../shared, or skip the test with the reason when it is absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} not found: this test needs ../shared/ beside the checkout "
                    "(real data and fixtures are not part of the package)")
    return path


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
