"""Whether the command that just ran has nothing left for the interpreter's shutdown to finish.

A command in sacreBLEU's output mode (:func:`bleustats.cli.sacrebleu_cli.run`) prints its
scores and writes no file; ``bleustats study`` writes its folder whole (every file written,
closed and renamed into place) before it returns. Once such a command has returned and both
streams are flushed, the interpreter's shutdown (freeing every module and numba's and LLVM's
objects: 0.15 to 0.2 s of CPU after a WMT-sized ``bleustats score``, a sixth of the process,
``benchmarks/results/wmt23.md``; about 0.35 s after the TED-sized study, which frees its
large arrays) has nothing left to write, so :func:`bleustats._launch.console` ends the
process after running the ``atexit`` handlers, without that teardown. Every other command
ends as Python ends.

Examples
--------
>>> reset(); outputs_complete()
False
>>> mark_outputs_complete(); outputs_complete()
True
>>> reset()
"""

from __future__ import annotations

__all__ = ["mark_outputs_complete", "outputs_complete", "reset"]

_complete = False


def mark_outputs_complete() -> None:
    """Say that the running command's outputs are complete when it returns: the standard streams (still to be
    flushed), and files it has closed and put in place itself."""
    global _complete
    _complete = True


def outputs_complete() -> bool:
    """Whether the command that ran said its outputs are complete when it returns."""
    return _complete


def reset() -> None:
    """Forget what the last command said (:func:`bleustats.cli.main.main` calls it as a command starts)."""
    global _complete
    _complete = False
