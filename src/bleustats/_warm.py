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

#: The command lines run (in a folder holding the README's example files), in order.
COMMAND_LINES: tuple[tuple[str, ...], ...] = (
    ("demo",),
    ("score", "ref0.txt", "ref1.txt", "-i", "hyp.txt"),
    ("score", "ref0.txt", "ref1.txt", "-i", "hyp.txt", "sys2.txt", "-m", "bleu", "chrf", "ter"),
    ("score", "ref0.txt", "-i", "hyp.txt", "-m", "chrf", "--chrf-word-order", "2"),
    ("score", "ref0.txt", "-i", "hyp.txt", "-m", "ter", "--ter-normalized", "--ter-case-sensitive"),
    ("score", "ref0.txt", "ref1.txt", "-i", "hyp.txt", "--ref-weights", "w0.txt", "w1.txt"),
    ("score", "-i", "hyps.tsv", "refs.tsv", "--ref-view", "threshold", "--weight-threshold", "0.5"),
    *(("score", "ref0.txt", "-i", "hyp.txt", "-tok", tok) for tok in ("none", "intl", "char", "zh")),
    ("score", "ref0.txt", "-i", "hyp.txt", "-lc"),
    ("stats", "ref0.txt", "-i", "hyp.txt", "-o", "stats.parquet"),
    ("score", "--from-stats", "stats.parquet", "-s", "add-k"),
    ("stats", "-i", "hyps.tsv", "refs.tsv", "-o", "stats/"),
    ("kbest", "nbest.txt", "ref0.txt", "-tok", "none", "-m", "bleu+1", "-o", "scores.parquet"),
    ("mbr", "nbest.txt", "-m", "chrf", "--best", "best_mbr.txt", "-o", "mbr.parquet"),
    ("mbr", "nbest.txt", "-m", "bleu", "-o", "mbr_bleu.parquet"),
    ("tune", "nbest.txt", "--refs", "ref0.txt", "-tok", "none", "--algorithm", "pro", "-m", "nakov:bp-smoothed",
     "--seed", "1", "-o", "weights.json"),
    ("analyze", "ref0.txt", "-i", "hyp.txt", "--permutations", "20"),
    ("study", "--hypotheses", "hyps.tsv", "--references", "refs.tsv", "--human", "mqm.tsv", "--human-column", "mqm",
     "--undefined", "exclude", "-o", "study/", "--unit-sizes", "1,10", "--compare", "delta_bleu:all,bleu:all",
     "--assignments", "20", "--bootstrap", "20", "--compare-bootstrap", "20", "--no-plot"),
    ("correlate", "--human", "mqm.tsv", "--human-column", "mqm", "--hypotheses", "hyps.tsv", "--references",
     "refs.tsv", "--undefined", "exclude", "--level", "segment"),
    ("compare", "ref0.txt", "-i", "hyp.txt", "sys2.txt", "-o", "report/"),
)


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
