"""The one output writer of the command line: every path a command writes is checked here before any work.

:func:`check` runs before the command's work (:func:`bleustats.cli.main.main`),
on every option whose role is ``output`` (:class:`bleustats.cli._options.Command`
records the roles), and refuses, each in one line:

* an output that is one of the command's inputs: the same path, a symbolic or
  hard link to it, the same device or FIFO (compared by device and inode), a
  folder output that holds an input, an output inside an input folder
  (exit 2: the command line contradicts itself; written anyway, the output
  would replace the input before or while it is read);
* two outputs naming one file (exit 2);
* an input that does not exist (exit 1);
* **an existing output without** ``--replace`` (exit 1). This is the one rule for
  an existing target, in every subcommand: a file or folder already at an
  output path is replaced only when the command line says ``--replace``, and
  then whole and atomically (the new content is written beside it and renamed
  over it, so it is never half-written). A device, a FIFO or a socket is not
  replaced but written through (``-o /dev/stdout``, a named pipe), with or
  without ``--replace``; a symbolic link is followed and its target replaced,
  the link staying a link;
* an output of the wrong kind (a folder where a file is written, a file, device
  or FIFO where a folder is), and an output whose folder does not exist or
  cannot be written (exit 1).

Files are then written by :func:`bleustats.engine.io.write_atomic` (whole or not
at all); a folder output by :func:`write_folder` (every file into a new hidden
folder beside the target, renamed into place) or :func:`folder_in_place` (the
same, for a folder a library function fills).

Examples
--------
>>> import os, tempfile
>>> d = tempfile.mkdtemp()
>>> write_folder(os.path.join(d, "out"), {"a.txt": lambda p: p.write_text("x")}, replace=False)
>>> sorted(os.listdir(os.path.join(d, "out")))
['a.txt']
"""

from __future__ import annotations

import argparse
import os
import stat
from pathlib import Path
from typing import Any, Callable

from ..errors import InputError, UsageError

__all__ = ["check", "folder_in_place", "write_folder"]


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def _inside(path: str, folder: str) -> bool:
    """Is ``path`` (resolved) inside the folder ``folder`` (resolved)?"""
    if not os.path.isdir(folder):
        return False
    inner, outer = os.path.realpath(path), os.path.realpath(folder)
    return inner != outer and inner.startswith(outer.rstrip(os.sep) + os.sep)


def _kind_of(mode: int) -> str:
    return ("a folder" if stat.S_ISDIR(mode) else "a regular file" if stat.S_ISREG(mode)
            else "a character device" if stat.S_ISCHR(mode) else "a block device" if stat.S_ISBLK(mode)
            else "a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a special file")


def check(args: argparse.Namespace, command: Any) -> None:
    """Refuse, before any work, every input and output path of ``args`` that the rules above refuse.

    ``command`` is the subcommand's :class:`~bleustats.cli._options.Command`
    (its roles, flags and output kinds).
    """
    inputs = command.input_paths(args)  # each one exists: Command.check asked before calling this
    outputs = []
    for dest in command.outputs:
        value = getattr(args, dest, None)
        if isinstance(value, (str, os.PathLike)) and os.fspath(value) != "-":
            outputs.append((dest, os.fspath(value)))
    seen: list[tuple[str, str]] = []
    targets = []
    for dest, value in outputs:  # first what the command line contradicts (usage errors), then the file system
        flag, kind = command.flags[dest], command.kinds[dest]
        if kind == "either" and value.endswith(("/", os.sep)):
            kind = "folder"
        path = value.rstrip("/" + os.sep) or value  # 'DIR/' names a folder output
        _check_against(flag, path, inputs, "an input")
        _check_against(flag, path, seen, "another output")
        seen.append((flag, path))
        targets.append((flag, path, kind))
    for flag, path, kind in targets:
        _check_target(flag, path, kind, replace=bool(getattr(args, "replace", False)))


def _check_against(flag: str, out: str, others: list[tuple[str, str]], role: str) -> None:
    for other, value in others:
        if os.path.lexists(out) and (_same_file(out, value) or os.path.abspath(out) == os.path.abspath(value)):
            raise UsageError(f"{flag} {out}: is {role} ({other} {value}); writing it would destroy "
                             f"{'it' if role == 'an input' else 'the other'}. Choose another output path.")
        if os.path.abspath(out) == os.path.abspath(value):
            raise UsageError(f"{flag} {out}: is {role} ({other} {value}); choose another output path.")
        if _inside(value, out):
            raise UsageError(f"{flag} {out}: holds {role} ({other} {value}); writing the output would replace that "
                             "folder. Choose another output path.")
        if _inside(out, value):
            raise UsageError(f"{flag} {out}: is inside {role}, the folder {value} ({other}); writing it would change "
                             f"{'that input' if role == 'an input' else 'the other'}. Choose another output path.")


def _check_target(flag: str, path: str, kind: str, *, replace: bool) -> None:
    """The target of one output: its kind, the rule for an existing one, its folder."""
    target = os.path.realpath(path) if os.path.islink(path) else path  # a link: its target is written
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise InputError(f"{flag} {path}: cannot be written ({exc.strerror}). Nothing was computed.") from None
    if mode is not None:
        is_dir, is_file = stat.S_ISDIR(mode), stat.S_ISREG(mode)
        if kind == "into":
            if not is_dir:
                raise InputError(f"{flag} {path}: is {_kind_of(mode)}; files are written into a folder. Choose a "
                                 "folder. Nothing was computed.")
            return
        if kind == "folder" and not is_dir:
            raise InputError(f"{flag} {path}: is {_kind_of(mode)}; this output is a folder, renamed into place, "
                             "which would replace it. Choose a new path. Nothing was computed.")
        if (kind == "file" or (kind == "either" and not _is_dataset(target))) and is_dir:
            raise InputError(f"{flag} {path}: is a folder; this output is a file" + (
                " (or a statistics dataset folder: a path ending in '/')" if kind == "either" else "")
                + ". Give a file path. Nothing was computed.")
        if not (is_dir or is_file):  # a device, FIFO or socket: written through, never replaced
            return
        if not replace:
            raise InputError(f"{flag} {path}: exists; add --replace to replace it (whole, atomically), or choose "
                             "another path. Nothing was computed.")
    if kind == "into" and mode is None:
        return  # made, with its parents
    parent = os.path.dirname(os.path.abspath(target))
    if not os.path.isdir(parent):
        raise InputError(f"{flag} {path}: the folder {parent} does not exist; create it first. Nothing was "
                         "computed.")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InputError(f"{flag} {path}: cannot write in {parent} (permission denied). Nothing was computed.")


def _is_dataset(path: str) -> bool:
    """Whether ``path`` is a folder holding a bleustats dataset (its manifest)."""
    if not os.path.isdir(path):
        return False
    from ..engine.dataset import MANIFEST

    return os.path.isfile(os.path.join(path, MANIFEST))


def write_folder(target: str | os.PathLike, files: dict[str, Callable[[Path], Any]], *, replace: bool) -> None:
    """Write every file into a new folder beside ``target``, then rename it into place.

    ``files`` maps each file name to a function writing that file at the path
    it is given. An existing ``target`` (a folder, or a link to one) is
    replaced only with ``replace=True``; a file, device or FIFO there is refused.
    On any error or interrupt, nothing is left but what was there before
    (:func:`bleustats.engine.io.write_folder`, which the library's own folder
    outputs use too).
    """
    from ..engine import io

    io.write_folder(target, files, replace=replace, flag="--output")


def folder_in_place(target: str | os.PathLike, *, replace: bool, flag: str) -> Any:
    """A new hidden folder beside ``target``, renamed into place when the block ends without an error.

    :func:`bleustats.engine.io.folder_in_place`: the block fills the folder (a
    library function given its path writes its files there); leaving it with
    an exception removes it and leaves ``target`` as it was.
    """
    from ..engine import io

    return io.folder_in_place(target, replace=replace, flag=flag)
