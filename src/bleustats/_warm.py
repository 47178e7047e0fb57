"""Compile the kernels of the everyday command lines once, into numba's cache (``python -m bleustats._warm``).

The wheel build runs this (``setup.py``'s ``build_py``) on the built package,
where numba's cache puts the compiled kernels in the ``__pycache__`` folder
beside each kernel module; the wheel ships those files, and after installing
numba's own cache lookup finds them there (:mod:`bleustats._kernel_cache`), so
that the first run after ``pip install .`` loads them instead of compiling.
What it runs is what a new user runs first: every subcommand's everyday
command lines (its ``EXAMPLES``, which its ``--help`` and the README show) on
the bundled sample. Some kernels switch to a parallel form past a size
(megabytes of text, a million tokens) that the sample does not reach, so the
``score`` and ``stats`` lines that read text files run a second time on a
scaled copy of those files (:data:`SCALE_BYTES` of hypotheses). A kernel is
cached per signature, so these must be the real command lines, not calls made
up for the purpose.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile
import time

__all__ = ["COMMAND_LINES", "SCALE_BYTES", "SCALED_COMMANDS", "scaled_command_lines", "warm"]

#: the subcommands whose kernels take a parallel form past a size (tokenizing, encoding, statistics, chrF)
SCALED_COMMANDS = ("score", "stats")
#: the example text files that the scaled copy repeats, line for line (so every command line reads them as before)
SCALED_FILES = ("hyp.txt", "sys2.txt", "ref0.txt", "ref1.txt", "w0.txt", "w1.txt")
#: bytes of hypotheses in the scaled copy: past every size at which a kernel switches to its parallel form
#: (``engine.encode.PARALLEL_MIN_BYTES``, 8 MiB; ``PARALLEL_MIN_TOKENS``, a million tokens)
SCALE_BYTES = 9 << 20


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


def scaled_command_lines() -> tuple[tuple[str, ...], ...]:
    """The lines of :data:`COMMAND_LINES` run again on the scaled copy: those of :data:`SCALED_COMMANDS` whose
    every input file is one of :data:`SCALED_FILES`."""
    from .sample_data import EXAMPLE_FILES

    others = set(EXAMPLE_FILES) - set(SCALED_FILES)
    return tuple(argv for argv in COMMAND_LINES
                 if argv[0] in SCALED_COMMANDS and not others & set(argv) and set(SCALED_FILES) & set(argv))


def _scale(folder: str, target: str) -> None:
    """Write into ``target`` the :data:`SCALED_FILES` of ``folder``, each repeated to :data:`SCALE_BYTES`."""
    from pathlib import Path

    source = Path(folder)
    times = SCALE_BYTES // max(1, (source / "hyp.txt").stat().st_size) + 1
    for name in SCALED_FILES:
        (Path(target) / name).write_bytes((source / name).read_bytes() * times)


def _run(lines: tuple[tuple[str, ...], ...], where: str, label: str, verbose: bool) -> int:
    """Run ``lines`` in the folder ``where``; returns how many failed."""
    from .cli.main import main

    failures = 0
    previous = os.getcwd()
    os.chdir(where)
    try:
        for argv in lines:
            start = time.perf_counter()
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                status = main(list(argv))
            failures += status != 0
            if verbose:
                print(f"  {label}bleustats {' '.join(argv)}: exit {status}, {time.perf_counter() - start:.1f} s"
                      + (f" ({err.getvalue().strip().splitlines()[-1]})" if status and err.getvalue().strip() else ""),
                      file=sys.stderr)
    finally:
        os.chdir(previous)
    return failures


def warm(folder: str | os.PathLike | None = None, *, verbose: bool = True) -> int:
    """Run :data:`COMMAND_LINES` on the sample in ``folder`` (a temporary one by default), then
    :func:`scaled_command_lines` on a scaled copy; returns how many failed."""
    from .cli.demo import write_files

    with contextlib.ExitStack() as stack:
        where = str(folder or stack.enter_context(tempfile.TemporaryDirectory(prefix="bleustats-warm-")))
        write_files(where)
        failures = _run(COMMAND_LINES, where, "", verbose)
        scaled = stack.enter_context(tempfile.TemporaryDirectory(prefix="bleustats-warm-scaled-"))
        _scale(where, scaled)
        failures += _run(scaled_command_lines(), scaled, "(scaled) ", verbose)
    return failures


if __name__ == "__main__":
    sys.exit(1 if warm() else 0)
