"""``python -m bleustats.sacrebleu_shim [-m MODULE | -c CODE | SCRIPT] ARGS``: run Python code with the shim on.

The script, module or code runs as ``python`` would run it (``sys.argv`` set,
``__name__ == '__main__'``), after :func:`bleustats.sacrebleu_shim.install`,
so every ``import sacrebleu`` in it gives bleustats.
"""

from __future__ import annotations

import os
import runpy
import sys

from . import install

USAGE = ("usage: python -m bleustats.sacrebleu_shim SCRIPT [ARGS...]\n"
         "       python -m bleustats.sacrebleu_shim -m MODULE [ARGS...]\n"
         "       python -m bleustats.sacrebleu_shim -c CODE [ARGS...]\n"
         "Runs Python code with `import sacrebleu` resolved to bleustats (docs/sacrebleu.md).")


def main(argv: list[str] | None = None) -> int:
    """Install the shim and run what ``argv`` names; returns the exit status of a usage error (2)."""
    words = list(sys.argv[1:] if argv is None else argv)
    if not words or words[0] in ("-h", "--help") or (words[0] in ("-m", "-c") and len(words) < 2):
        print(USAGE, file=sys.stderr if not words or words[0] not in ("-h", "--help") else sys.stdout)
        return 0 if words and words[0] in ("-h", "--help") else 2
    install()
    if words[0] == "-m":
        sys.argv = [words[1], *words[2:]]
        runpy.run_module(words[1], run_name="__main__", alter_sys=True)
    elif words[0] == "-c":
        sys.argv = ["-c", *words[2:]]
        exec(compile(words[1], "<string>", "exec"), {"__name__": "__main__"})  # noqa: S102 (the user's own code)
    else:
        sys.argv = list(words)
        sys.path[0] = os.path.dirname(os.path.abspath(words[0]))  # as `python SCRIPT` puts the script's folder first
        runpy.run_path(words[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
