"""The ``bleustats`` executable and ``python -m bleustats``: signals are handled from the first instant.

:func:`console` installs SIGINT / SIGTERM handlers that only record the signal
*before* importing the command line (numpy, numba, pyarrow, pandas: about a
second), because a KeyboardInterrupt raised inside that import can be
swallowed by a library and the command would then run to the end. A signal
received while importing ends the process at once (nothing has been written):
one line, exit 128 + the signal. :func:`bleustats.cli.main.main` then handles
signals while the command runs, and puts these recording handlers back when it
returns; after that a signal is ignored, so one that arrives once the work is
done and said (during interpreter shutdown) does not change the exit status.

The command runs with the cyclic garbage collector's first threshold at
:data:`GC_THRESHOLD` allocations (Python's default is 700). Importing numpy,
numba and pyarrow and loading the kernels allocates a few hundred thousand
objects, nearly none of them garbage: at the default, a ``bleustats score``
command over a WMT23 pair makes about 180 collections that free a few hundred
objects and take 70-85 ms of its 0.8-1.2 s. At 50,000 it makes a few. Garbage
is still collected, in larger batches.

Once the command has returned, every object left is frozen (:func:`gc.freeze`)
before the interpreter exits: its shutdown then skips the collections over the
few hundred thousand objects that numpy, numba, LLVM and pyarrow made, which
otherwise take a sizable part of a short command
(``benchmarks/results/startup.md``). The streams are flushed and ``atexit``
handlers run as usual; only cyclic garbage left at exit is not collected,
which nothing of bleustats relies on (every file is closed when written).
"""

from __future__ import annotations

import gc
import signal
import sys

__all__ = ["GC_THRESHOLD", "console"]

#: the garbage collector's first threshold while the command runs (the other two stay as they are)
GC_THRESHOLD = 50_000

_NAMES = {signal.SIGINT: "interrupted", signal.SIGTERM: "terminated"}


def console() -> None:
    """Run the ``bleustats`` command line as a program (exits with its status)."""
    received: list[int] = []

    def record(signum: int, frame: object) -> None:
        received.append(signum)

    for sig in _NAMES:
        signal.signal(sig, record)
    gc.set_threshold(GC_THRESHOLD, *gc.get_threshold()[1:])
    from .cli.main import main

    if received:
        print(f"bleustats: {_NAMES[received[0]]}", file=sys.stderr)
        sys.exit(128 + int(received[0]))
    status = main()
    for sig in _NAMES:  # the work is done and said: a late signal must not change the exit status
        signal.signal(sig, signal.SIG_IGN)
    gc.freeze()  # the shutdown's collections skip what the command made (see the module docstring)
    sys.exit(status)

