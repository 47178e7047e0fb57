"""Compile the kernels of the everyday command lines once, into numba's cache (``python -m bleustats._warm``).

The wheel build runs this (``setup.py``'s ``build_py``) with ``NUMBA_CACHE_DIR``
pointing at a scratch folder, then ships the compiled kernels inside the
package (``bleustats/_kernel_cache/kernels-<digest>/``, see
:mod:`bleustats._numba_cache`), so that the first run after ``pip install .``
loads them instead of compiling. What it runs is what a new user runs first:
``bleustats demo`` and the README's command lines on the bundled sample, with
every built-in tokenizer and metric. A kernel is cached per signature, so
these must be the real command lines, not calls made up for the purpose.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile
import time

__all__ = ["COMMAND_LINES", "warm"]

def _command_lines() -> tuple[tuple[str, ...], ...]:
    """Every subcommand's everyday command lines: the ``EXAMPLES`` its module declares (its ``--help`` and the
    README show the same lines), in the order of :data:`bleustats.cli.main.COMMANDS`."""
    import importlib
    import shlex

    from .cli.main import COMMANDS

    lines = []
    for name in COMMANDS:
        for example in importlib.import_module(f"{__package__}.cli.{name}").EXAMPLES:
            lines.append(tuple(shlex.split(example, comments=True)[1:]))
    return tuple(lines)


#: The command lines run (in a folder holding the README's example files), in order.
COMMAND_LINES: tuple[tuple[str, ...], ...] = _command_lines()


def warm(folder: str | os.PathLike | None = None, *, verbose: bool = True) -> int:
    """Run :data:`COMMAND_LINES` on the sample in ``folder`` (a temporary one by default); returns failures."""
    from .cli.demo import write_files
    from .cli.main import main

    failures = 0
    with contextlib.ExitStack() as stack:
        where = folder or stack.enter_context(tempfile.TemporaryDirectory(prefix="bleustats-warm-"))
        write_files(str(where))
        previous = os.getcwd()
        os.chdir(where)
        stack.callback(os.chdir, previous)
        for argv in COMMAND_LINES:
            start = time.perf_counter()
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                status = main(list(argv))
            failures += status != 0
            if verbose:
                print(f"  bleustats {' '.join(argv)}: exit {status}, {time.perf_counter() - start:.1f} s"
                      + (f" ({err.getvalue().strip().splitlines()[-1]})" if status and err.getvalue().strip() else ""),
                      file=sys.stderr)
    return failures


if __name__ == "__main__":
    sys.exit(1 if warm() else 0)
