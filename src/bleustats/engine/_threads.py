"""How many threads a kernel started from this thread may use: numba's count, or 1 inside :func:`serial_kernels`.

numba launches its parallel regions from one thread at a time: its ``workqueue``
threading layer (the one used where neither OpenMP nor TBB is available) aborts on
concurrent launches. Code that spreads work over threads of its own (``bleustats
study``'s resampling schemes, a command line's metrics computed side by side) runs
each such thread inside :func:`serial_kernels`; every choice between a kernel's
serial and parallel form asks :func:`kernel_threads` (statistics, tokenizer,
encoder, chrF and TER kernels, the tree kernels of :mod:`bleustats.tools.trees`
and the rank kernels of :mod:`bleustats.meta`). The all-pairs kernels of
:mod:`bleustats.tools.pairwise` (MBR, k-best) have no serial form and are never
run on such a thread.

Examples
--------
>>> with serial_kernels():
...     kernel_threads()
1
>>> serial()
False
"""

from __future__ import annotations

import contextlib
import threading
from typing import Iterator

__all__ = ["kernel_threads", "serial", "serial_kernels"]

_LOCAL = threading.local()


@contextlib.contextmanager
def serial_kernels() -> Iterator[None]:
    """On this thread, until the block ends, every kernel takes its serial form (nesting allowed)."""
    before = serial()
    _LOCAL.serial = True
    try:
        yield
    finally:
        _LOCAL.serial = before


def serial() -> bool:
    """Whether this thread is inside :func:`serial_kernels`."""
    return getattr(_LOCAL, "serial", False)


def kernel_threads() -> int:
    """numba's thread count for a kernel started here, 1 inside :func:`serial_kernels`.

    Ask only once the job is large enough for a parallel kernel: numba's count starts
    its thread pool (~30 ms) the first time it is asked.
    """
    if serial():
        return 1
    import numba

    return numba.get_num_threads()
