r"""A Dask cluster as an executor: connect (or start a local one), run per-part tasks, fail clearly.

:func:`connect` takes a scheduler address (``tcp://host:8786``; what
``dask scheduler`` prints) or ``local:N`` (start a ``LocalCluster`` of ``N``
worker processes, one thread each, for the run, and shut it down after), and
yields a :class:`DaskExecutor`. Its :meth:`DaskExecutor.map` has the
signature of :class:`bleustats.engine.dataset.LocalExecutor`'s: the partitioned
computations of bleustats (statistics, scores, k-best lists, paired tests,
study cells) call it and do not know where their tasks run.

What crosses the network: the task functions (by name) and their small
arguments (a part's path, options); shared inputs such as the references
index go to the cluster once, as the result of a task (:meth:`DaskExecutor.shared`:
rebuilt if the workers holding it die), and on to each worker that needs it;
each task reads its own partition and writes its own output part on storage
all workers and the client see at the same path; results are manifest
entries and partial sums (kilobytes per part).

Failures: a task's :class:`~bleustats.errors.InputError` is raised here as
is. A worker that dies mid-task has its tasks run again on another (Dask's
``distributed.scheduler.allowed-failures``, default 3; a part is written
under a temporary name and renamed, so a task run twice leaves one part);
beyond that, or when the scheduler cannot be reached, a
:class:`~bleustats.errors.ClusterError` says so, and the calling computation
writes nothing.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
from typing import Any, Callable, Iterable, Iterator

from ..engine._partitioned_stats import ReferenceIndex
from ..errors import ClusterError, InputError, MissingExtraError

try:
    import distributed
    from distributed import Client, LocalCluster
except ImportError as _exc:  # pragma: no cover - the extra is installed in CI
    raise MissingExtraError(
        "bleustats.distributed needs Dask: pip install 'bleustats[dask]' (dask[dataframe] and distributed)."
    ) from _exc

__all__ = ["CONNECT_TIMEOUT", "DaskExecutor", "connect", "parse_address", "worker_pids"]

_LOCAL = re.compile(r"local:(\d+)")
#: Seconds to wait for a remote scheduler, and for local workers to start.
CONNECT_TIMEOUT = 60


def parse_address(address: str) -> tuple[str, int | str]:
    """``('local', N)`` for ``local:N``, else ``('remote', address)``; errors name the accepted forms.

    Examples
    --------
    >>> parse_address("local:2"), parse_address("tcp://10.0.0.5:8786")
    (('local', 2), ('remote', 'tcp://10.0.0.5:8786'))
    """
    if not isinstance(address, str) or not address:
        raise InputError(f"--dask: give a scheduler address (tcp://HOST:PORT) or local:N; got {address!r}.")
    m = _LOCAL.fullmatch(address)
    if m:
        n = int(m.group(1))
        if n < 1:
            raise InputError(f"--dask: local:N needs N >= 1 workers; got {address!r}.")
        return "local", n
    if address.startswith("local"):
        raise InputError(f"--dask: local clusters are written local:N (N workers, e.g. local:2); got {address!r}.")
    if "://" not in address and ":" not in address:
        raise InputError(f"--dask: {address!r} is not a scheduler address; give tcp://HOST:PORT (as "
                         "'dask scheduler' prints it) or local:N.")
    return "remote", address


class DaskExecutor:
    """Runs per-part tasks on a Dask cluster, results in order (see the module docstring).

    Parameters
    ----------
    client : distributed.Client

    Examples
    --------
    >>> from distributed import Client, LocalCluster
    >>> with LocalCluster(n_workers=1, processes=False, dashboard_address=":0") as lc, Client(lc) as client:
    ...     list(DaskExecutor(client).map(round, [2.675, 1.5], ndigits=1))
    [2.7, 1.5]
    """

    name = "dask"

    def __init__(self, client: Client) -> None:
        self.client = client

    def map(self, fn: Callable[..., Any], items: Iterable[Any], **shared: Any) -> Iterator[Any]:
        """``fn(item, **shared)`` for every item on the cluster, yielded in item order.

        ``fn`` must be importable by the workers (a module-level function).

        Large shared inputs (a :class:`~bleustats.engine._partitioned_stats.ReferenceIndex`)
        are sent to every worker once; all tasks are submitted at once and
        the cluster schedules them.
        """
        items = list(items)
        if not items:
            return
        kw = {k: self.shared(v) if isinstance(v, ReferenceIndex) else v for k, v in shared.items()}
        futures = self.client.map(fn, items, pure=False, **kw)
        name = getattr(fn, "__name__", None) or getattr(getattr(fn, "func", None), "__name__", "task")
        yield from self.results(futures, name)

    def shared(self, value: Any) -> Any:
        """A future of ``value`` that the cluster can rebuild: a task returning it, not scattered data.

        Scattered data held only by workers that die is lost for good (the
        run's tasks are then cancelled); a task's result is computed again
        on a live worker, so a shared input survives any worker's death.
        """
        return self.client.submit(_identity, value, pure=False)

    def results(self, futures: list[Any], what: str) -> Iterator[Any]:
        """The futures' results in order; a lost worker becomes a :class:`ClusterError`, the rest cancelled."""
        try:
            for i, f in enumerate(futures):
                try:
                    yield f.result()
                except distributed.scheduler.KilledWorker as exc:
                    raise ClusterError(
                        f"the Dask cluster lost the worker running {what} of partition {i} more often than it "
                        f"retries (distributed.scheduler.allowed-failures; {exc}). Nothing was written; check the "
                        "workers' memory and logs, then run again.") from None
                except distributed.client.FutureCancelledError as exc:
                    raise ClusterError(f"the Dask cluster cancelled {what} of partition {i} ({exc}). Nothing was "
                                       "written; check the scheduler and the workers, then run again.") from None
        finally:
            self.client.cancel(futures)


def _identity(value: Any) -> Any:
    return value


@contextlib.contextmanager
def connect(address: str, *, threads_per_worker: int = 1) -> Iterator[DaskExecutor]:
    """A :class:`DaskExecutor` on the cluster at ``address`` (``tcp://...``) or on ``local:N`` started here.

    A local cluster's workers are processes with ``threads_per_worker``
    threads each (numba's threads inside each worker too, so ``N`` workers use
    ``N * threads_per_worker`` cores); it is shut down when the block ends.

    Examples
    --------
    >>> with connect("local:1") as ex:
    ...     list(ex.map(abs, [-3, 2]))
    [3, 2]

    Raises
    ------
    InputError
        A malformed address.
    ClusterError
        No scheduler at the address within :data:`CONNECT_TIMEOUT` seconds, or
        local workers that do not start.
    """
    kind, where = parse_address(address)
    cluster = None
    try:
        if kind == "local":
            threads = str(int(threads_per_worker))
            cluster = LocalCluster(n_workers=int(where), threads_per_worker=int(threads_per_worker), processes=True,
                                   dashboard_address=":0", silence_logs=logging.ERROR,
                                   env={"NUMBA_NUM_THREADS": threads, "OMP_NUM_THREADS": threads})
            client = Client(cluster, timeout=CONNECT_TIMEOUT)
            client.wait_for_workers(int(where), timeout=CONNECT_TIMEOUT)
        else:
            client = Client(where, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError) as exc:
        if cluster is not None:
            cluster.close()
        raise ClusterError(f"--dask {address}: cannot reach a Dask scheduler ({exc}). Start one ('dask scheduler' "
                           "and 'dask worker ADDRESS' on the machines) or use local:N.") from None
    try:
        yield DaskExecutor(client)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def worker_pids(executor: DaskExecutor) -> dict[str, int]:
    """Worker address → process id (for measurements and tests).

    Examples
    --------
    >>> with connect("local:2") as ex:
    ...     pids = worker_pids(ex)
    >>> len(pids), os.getpid() in pids.values()
    (2, False)
    """
    return executor.client.run(os.getpid)
