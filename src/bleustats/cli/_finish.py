"""Whether the command that just ran wrote nothing but standard output and standard error.

A command in sacreBLEU's output mode (:func:`bleustats.cli.sacrebleu_cli.run`) prints its
scores and writes no file. Once it has returned and both streams are flushed, the
interpreter's shutdown (freeing every module and numba's and LLVM's objects: 0.15 to 0.2 s
of CPU, a sixth of a WMT-sized ``bleustats score`` process, ``benchmarks/results/wmt23.md``)
has nothing left to write, so :func:`bleustats._launch.console` ends such a process after
running the ``atexit`` handlers, without that teardown. Every other command ends as
Python ends.

Examples
--------
>>> reset(); only_streams_written()
False
>>> mark_streams_only(); only_streams_written()
True
>>> reset()
"""

from __future__ import annotations

__all__ = ["mark_streams_only", "only_streams_written", "reset"]

_streams_only = False


def mark_streams_only() -> None:
    """Say that the running command writes to standard output and standard error only."""
    global _streams_only
    _streams_only = True


def only_streams_written() -> bool:
    """Whether the command that ran said it wrote to standard output and standard error only."""
    return _streams_only


def reset() -> None:
    """Forget what the last command said (:func:`bleustats.cli.main.main` calls it as a command starts)."""
    global _streams_only
    _streams_only = False
