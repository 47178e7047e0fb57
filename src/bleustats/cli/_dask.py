"""``--dask ADDRESS`` of ``stats``, ``score``, ``kbest``, ``mbr`` and ``study``: where the partitioned work runs.

The option itself is defined with the other shared options (:data:`bleustats.cli._options.CATALOG`);
here is what it does.

Without ``--dask`` the work runs in this process, one partition after
another (bounded memory). With ``--dask tcp://HOST:PORT`` it runs on that Dask
scheduler's workers; ``--dask local:N`` starts a local cluster of N worker
processes for the run and shuts it down after. Dask is imported only then
(``pip install 'bleustats[dask]'``).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import Any, Iterator

from ..errors import InputError, MissingExtraError

__all__ = ["executor_for"]


@contextlib.contextmanager
def executor_for(args: argparse.Namespace) -> Iterator[Any]:
    """The executor of ``args.dask``: a :class:`LocalExecutor`, or a Dask cluster's (closed after the block)."""
    address = getattr(args, "dask", None)
    if not address:
        from ..engine.dataset import LocalExecutor  # here: scoring text files needs no Parquet

        yield LocalExecutor()
        return
    try:
        from ..distributed import connect  # imports Dask
    except MissingExtraError as exc:
        raise InputError(f"--dask: {exc}") from None

    with connect(address) as executor:
        n = len(executor.client.scheduler_info()["workers"])
        print(f"bleustats: running on Dask at {address} ({n} worker(s))", file=sys.stderr)
        yield executor
