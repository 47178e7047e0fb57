"""Issue 26: outputs that never destroy, compressed input with one behaviour, messages that point at the cause.

Class 1 (outputs): an output that is (or resolves to) an input is refused; a
device or FIFO is written through, never replaced (a folder output refuses
it); a symbolic link's target is written, atomically, beside the target;
ENOSPC and EACCES give one line and leave nothing half-written. Class 4: a
truncated ``.gz`` of any size is one line naming the file, on every reader.
Class 6: a lone surrogate in JSONL is named as an encoding problem;
``correlate``'s Markdown says why a value is undefined.
"""

from __future__ import annotations

import errno
import gzip
import json
import os
import stat
from pathlib import Path

import pytest

from bleustats.engine import io

from .test_trust import HYPS, REFS, one_line, run

pytestmark = pytest.mark.usefixtures("numba_one_thread")


@pytest.fixture
def d(tmp_path):
    (tmp_path / "in.tsv").write_text("seg_id\tsystem\ttext\n" + "".join(
        f"{i}\tA\t{t}\n" for i, t in enumerate(HYPS)), encoding="utf-8")
    (tmp_path / "refs.tsv").write_text("seg_id\ttext\n" + "".join(
        f"{i}\t{t}\n" for i, t in enumerate(REFS)), encoding="utf-8")
    (tmp_path / "hyp.txt").write_text("".join(t + "\n" for t in HYPS), encoding="utf-8")
    (tmp_path / "ref.txt").write_text("".join(t + "\n" for t in REFS), encoding="utf-8")
    return tmp_path


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


# --------------------------------------------------------------------------- class 1: outputs


@pytest.mark.parametrize("how", ["same", "symlink", "hardlink"])
def test_an_output_that_is_an_input_is_refused_and_the_input_kept(capsys, d, how):
    before = (d / "in.tsv").read_bytes()
    target = d / "in.tsv"
    if how == "symlink":
        target = d / "out.parquet"
        target.symlink_to(d / "in.tsv")
    elif how == "hardlink":
        target = d / "out.parquet"
        os.link(d / "in.tsv", target)
    rc, out, err = run(capsys, "stats", d / "refs.tsv", "-i", d / "in.tsv", "-o", target)
    one_line(rc, err, f"--output {target}: is an input (--input {d / 'in.tsv'})", "Choose another output path",
             code=2)
    assert (d / "in.tsv").read_bytes() == before and out == ""


@pytest.mark.parametrize("argv", [
    ["score", "{ref}", "-i", "{hyp}", "--save-stats", "{ref}"],
    ["kbest", "{in}", "{refs}", "-o", "{refs}"],
    ["tune", "{in}", "-r", "{refs}", "-o", "{in}"],
    ["correlate", "--human", "{in}", "-o", "{in}"],
    ["study", "--hypotheses", "{in}", "--references", "{refs}", "--human", "{in}", "-o", "{d}"],
])
def test_every_command_refuses_an_output_that_is_an_input(capsys, d, argv):
    names = {"hyp": d / "hyp.txt", "ref": d / "ref.txt", "in": d / "in.tsv", "refs": d / "refs.tsv", "d": d}
    before = {p: p.read_bytes() for p in d.iterdir() if p.is_file()}
    rc, _, err = run(capsys, *[a.format(**names) for a in argv])
    one_line(rc, err, "an input", code=2)
    assert {p: p.read_bytes() for p in d.iterdir() if p.is_file()} == before


def test_two_outputs_naming_one_file_are_refused(capsys, d):
    (d / "x.txt").write_text("keep")
    rc, _, err = run(capsys, "kbest", d / "in.tsv", d / "refs.tsv", "--scores-txt", d / "x.txt", "--features-txt",
                     d / "x.txt")
    one_line(rc, err, "is another output", code=2)
    assert (d / "x.txt").read_text() == "keep"


def test_a_symlink_output_writes_its_target_atomically_and_stays_a_link(capsys, d):
    (d / "real").mkdir()
    (d / "real" / "s.parquet").write_bytes(b"old")
    link = d / "link.parquet"
    link.symlink_to(d / "real" / "s.parquet")
    rc, _, err = run(capsys, "stats", d / "refs.tsv", "-i", d / "in.tsv", "-o", link)
    one_line(rc, err, f"--output {link}: exists; add --replace")  # the one rule for an existing output
    assert (d / "real" / "s.parquet").read_bytes() == b"old"
    rc, _, err = run(capsys, "stats", d / "refs.tsv", "-i", d / "in.tsv", "-o", link, "--replace")
    assert rc == 0, err
    assert link.is_symlink() and os.readlink(link) == str(d / "real" / "s.parquet")
    assert (d / "real" / "s.parquet").read_bytes()[:4] == b"PAR1"
    assert _leftovers(d / "real") == [] and _leftovers(d) == []
    # a dangling link creates its target (as sort -o does)
    (d / "real" / "s.parquet").unlink()
    rc, _, err = run(capsys, "score", d / "ref.txt", "-i", d / "hyp.txt", "--save-stats", link)
    assert rc == 0 and (d / "real" / "s.parquet").read_bytes()[:4] == b"PAR1", err


def test_a_fifo_output_is_written_through_not_replaced(capsys, d):
    fifo = d / "out.fifo"
    os.mkfifo(fifo)
    # a reader already there (non-blocking: the test cannot hang), as `cat out.fifo &` would be
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        rc, _, err = run(capsys, "stats", d / "refs.tsv", "-i", d / "in.tsv", "-o", fifo)
        got = b""
        while chunk := _read_some(reader):
            got += chunk
    finally:
        os.close(reader)
    assert rc == 0, err
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert got[:4] == b"PAR1" and got[-4:] == b"PAR1"


def _read_some(fd: int) -> bytes:
    try:
        return os.read(fd, 1 << 16)
    except BlockingIOError:
        return b""


def test_a_folder_output_refuses_a_fifo_instead_of_replacing_it(capsys, d):
    from bleustats.cli._outputs import write_folder
    from bleustats.errors import InputError

    fifo = d / "out"
    os.mkfifo(fifo)
    rc, _, err = run(capsys, "stats", d / "refs.tsv", "-i", d / "in.tsv", "-o", f"{fifo}/")
    one_line(rc, err, "is a FIFO", "Choose a new path")
    with pytest.raises(InputError, match="is a FIFO"):  # study's results folder, with --replace
        write_folder(fifo, {"a.txt": lambda p: p.write_text("x")}, replace=True)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and _leftovers(d) == []


def _device_like(folder: Path, name: str, model: str) -> Path:
    """A character device node made here with the major/minor of ``model`` (never the system's own node)."""
    if not os.path.exists(model):
        pytest.skip(f"{model}: not on this system (its device numbers are copied)")
    node = folder / name
    os.mknod(node, 0o666 | stat.S_IFCHR, os.stat(model).st_rdev)
    return node


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                    reason="making a character device node (os.mknod) needs root")
def test_root_a_character_device_output_is_written_through_never_replaced(capsys, d):
    full = _device_like(d, "full", "/dev/full")  # every write: ENOSPC
    rc, out, err = run(capsys, "stats", d / "refs.tsv", "-i", d / "in.tsv", "-o", full)
    one_line(rc, err, f"cannot write {full} (a character device): No space left on device")
    assert stat.S_ISCHR(os.lstat(full).st_mode) and os.lstat(full).st_rdev == os.stat("/dev/full").st_rdev
    null = _device_like(d, "null", "/dev/null")
    for argv in (["stats", d / "refs.tsv", "-i", d / "in.tsv", "-o", null],
                 ["score", d / "ref.txt", "-i", d / "hyp.txt", "--save-stats", null],
                 ["kbest", d / "in.tsv", d / "refs.tsv", "-o", null, "--scores-txt", full]):
        rc, _, err = run(capsys, *argv)
        assert stat.S_ISCHR(os.lstat(null).st_mode) and stat.S_ISCHR(os.lstat(full).st_mode), argv
        assert rc == (1 if full in argv else 0), err
    assert _leftovers(d) == []


def test_enospc_leaves_the_old_file_whole_and_no_temporary(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old")

    def write(tmp):
        Path(tmp).write_text("half")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    with pytest.raises(OSError) as info:
        io.write_atomic(target, write)
    assert info.value.strerror == f"cannot write {target}: No space left on device; nothing was written"
    assert target.read_text() == "old" and _leftovers(tmp_path) == []


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                    reason="making a character device node (os.mknod) needs root")
def test_root_enospc_on_a_full_device_through_the_library_writer(tmp_path):
    full = _device_like(tmp_path, "full", "/dev/full")
    with pytest.raises(OSError) as info:
        io.write_atomic(full, lambda tmp: Path(tmp).write_text("x" * 100))
    assert info.value.errno == errno.ENOSPC and info.value.strerror == (
        f"cannot write {full} (a character device): No space left on device")
    assert stat.S_ISCHR(os.lstat(full).st_mode) and sorted(p.name for p in tmp_path.iterdir()) == ["full"]


def test_eacces_is_one_line_and_nothing_written(capsys, d, monkeypatch):
    locked = d / "locked"
    locked.mkdir()
    if os.geteuid() != 0:
        locked.chmod(0o500)
    else:  # root passes permission bits: the creation of the temporary file fails as it would for a user
        real = os.open

        def denied(path, flags, *a, **k):
            if str(path).startswith(str(locked)) and flags & os.O_CREAT:
                raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
            return real(path, flags, *a, **k)

        monkeypatch.setattr(os, "open", denied)
    try:
        rc, _, err = run(capsys, "stats", d / "refs.tsv", "-i", d / "in.tsv", "-o", locked / "s.parquet")
    finally:
        locked.chmod(0o700)
    one_line(rc, err, f"cannot write {locked / 's.parquet'}: Permission denied; nothing was written")
    assert list(locked.iterdir()) == []


# --------------------------------------------------------------------------- class 4: compressed input


def _truncated_gz(path: Path, lines: list[str], keep: float = 0.5) -> Path:
    data = gzip.compress("".join(t + "\n" for t in lines).encode())
    path.write_bytes(data[:max(11, int(len(data) * keep))])
    return path


@pytest.mark.parametrize("n_lines", [2, 3000, 200_000], ids=["tiny", "medium", "large"])
@pytest.mark.parametrize("role", ["hyp", "ref", "sacrebleu", "stats"])
def test_a_truncated_gz_of_any_size_is_one_line_on_every_reader(capsys, tmp_path, n_lines, role):
    lines = [f"line {i} of the text" for i in range(n_lines)]
    gz = _truncated_gz(tmp_path / "t.txt.gz", lines)
    plain = tmp_path / "p.txt"
    plain.write_text("".join(t + "\n" for t in lines))
    argv = {"hyp": ["score", plain, "-i", gz], "ref": ["score", gz, "-i", plain],
            "sacrebleu": ["score", plain, "-i", gz, "-m", "bleu"],
            "stats": ["stats", plain, "-i", gz, "-o", tmp_path / "s.parquet"]}[role]
    rc, out, err = run(capsys, *argv)
    one_line(rc, err, f"{gz}: cannot be read as gzip", "truncated or damaged")
    assert out == "" and not (tmp_path / "s.parquet").exists()


@pytest.mark.parametrize("command", ["kbest", "tune"])
def test_a_truncated_gz_nbest_list_is_one_line(capsys, tmp_path, command):
    gz = _truncated_gz(tmp_path / "n.nbest.gz", [f"{i // 3} ||| w{i} x ||| F0= {i % 3} ||| {i % 3}"
                                                 for i in range(3000)])
    (tmp_path / "r.txt").write_text("".join(f"w{3 * i} x\n" for i in range(1000)))
    argv = [command, gz, tmp_path / "r.txt"] if command == "kbest" else [command, gz, "-r", tmp_path / "r.txt"]
    rc, _, err = run(capsys, *argv)
    one_line(rc, err, f"{gz}: cannot be read as gzip")


def test_a_damaged_gz_body_is_one_line(capsys, tmp_path):
    data = bytearray(gzip.compress(b"the cat\na dog\n"))
    data[12] ^= 0xFF
    (tmp_path / "c.txt.gz").write_bytes(bytes(data))
    (tmp_path / "r.txt").write_text("the cat\na dog\n")
    rc, _, err = run(capsys, "score", tmp_path / "r.txt", "-i", tmp_path / "c.txt.gz")
    one_line(rc, err, "c.txt.gz: cannot be read as gzip")


# --------------------------------------------------------------------------- class 6: messages


def test_a_lone_surrogate_in_jsonl_is_named_as_an_encoding_problem(capsys, d):
    (d / "h.jsonl").write_text('{"seg_id": 0, "text": "ok"}\n{"seg_id": 1, "text": "a \\udc80 b"}\n'
                               '{"seg_id": 2, "text": "c"}\n')
    rc, _, err = run(capsys, "score", d / "refs.tsv", "-i", d / "h.jsonl")
    one_line(rc, err, f"{d / 'h.jsonl'}: line 2 holds the JSON escape \\udc80, a lone UTF-16 surrogate",
             "no UTF-8 encoding")
    assert "one type" not in err


def test_correlate_markdown_explains_an_undefined_value(capsys, d):
    (d / "human.tsv").write_text("system\tseg_id\tscore\n" + "".join(
        f"{s}\t{i}\t{v}\n" for s, v0 in (("A", 1.0), ("B", 2.0), ("C", 3.0)) for i, v in enumerate([v0, v0 + 1])))
    (d / "flat.tsv").write_text("system\tseg_id\tflat\n" + "".join(
        f"{s}\t{i}\t0.5\n" for s in "ABC" for i in range(2)))
    rc, out, err = run(capsys, "correlate", "--human", d / "human.tsv", "--scores", d / "flat.tsv",
                       "--level", "system", "--method", "pearson")
    assert rc == 0, err
    assert "nan" not in out and "undefined*" in out
    assert "* undefined: every group was skipped" in out and "1 of 1 group(s) skipped" in out
    rc, out, _ = run(capsys, "correlate", "--human", d / "human.tsv", "--scores", d / "flat.tsv",
                     "--level", "system", "--method", "pearson", "--json")
    (row,) = json.loads(out)["correlations"]
    assert row["value"] is None and row["n_skipped"] == 1
