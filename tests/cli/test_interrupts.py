"""SIGINT / SIGTERM end a real ``bleustats`` process cleanly, and outputs follow the umask.

A subprocess runs ``bleustats kbest`` (or ``score``) on a generated n-best list
large enough to take a few seconds; the signal is sent once its temporary
output file exists (the run is then inside the stream: parsing on the reader
thread, numba kernels, Parquet writes). It must exit 130 (SIGINT) or 143
(SIGTERM) with exactly one line on stderr and no traceback, and leave neither
the output nor a temporary file behind: not a traceback (or numba's
``SystemError``) for SIGINT, not ``.out.parquet.XXXX.tmp`` files for SIGTERM.
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from bleustats.cli import main

# seconds-long commands stopped by a signal (a pause before it picks where it lands; a run that ends first is
# checked whole and skipped): the heavy pass of .ci/run, not the README's test command
pytestmark = [pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals"), pytest.mark.slow]

WORDS = np.array([f"w{i}" for i in range(2000)], dtype=object)


@pytest.fixture(scope="module")
def big_nbest(tmp_path_factory):
    """About 60 MB of Moses n-best text: 3,000 sources x 200 entries of ~15 tokens, and one reference file."""
    d = tmp_path_factory.mktemp("nbest")
    rng = np.random.default_rng(13)
    n_src, k = 3000, 200
    with open(d / "ref.txt", "w", encoding="utf-8") as ref, open(d / "nbest.txt", "w", encoding="utf-8") as nb:
        for i in range(n_src):
            ref.write(" ".join(WORDS[rng.integers(0, 2000, 15)]) + "\n")
            toks = WORDS[rng.integers(0, 2000, (k, 15))]
            nb.write("".join(f"{i} ||| {' '.join(t)} ||| F0= -1 ||| -{j}.5\n" for j, t in enumerate(toks)))
    return d


def _start(args, cwd, umask=None):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_DISABLE_JIT"}
    return subprocess.Popen([sys.executable, "-m", "bleustats", *map(str, args)], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=(lambda: os.umask(umask)) if umask is not None else None)


#: A cap against a hung process, not a speed budget: waits end on progress (a file appears, the process
#: exits), and a loaded machine (load average 8 on 2 cores) may take minutes to get there.
HANG_LIMIT = 1200.0


def _wait_for(pattern_dir: Path, prefix: str, proc, timeout=HANG_LIMIT) -> bool:
    """Wait until a temporary file starting with ``prefix`` exists (True), or the process ended (False)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if any(p.name.startswith(prefix) for p in pattern_dir.iterdir()):
            return True
        if proc.poll() is not None:
            return False
        time.sleep(0.01)
    return False


@pytest.mark.parametrize("sig, code, word", [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")])
@pytest.mark.parametrize("delay", [0.0, 0.6])
def test_kbest_interrupted_mid_run_exits_cleanly_and_leaves_nothing(big_nbest, tmp_path, sig, code, word, delay):
    out = tmp_path / "out.parquet"
    proc = _start(["kbest", big_nbest / "nbest.txt", big_nbest / "ref.txt", "-tok", "none", "-o", out,
                   "--scores-txt", tmp_path / "scores.txt", "--chunk-mb", "1"], cwd=tmp_path)
    try:
        started = _wait_for(tmp_path, ".out.parquet.", proc)
        assert started, f"kbest ended before writing: rc={proc.poll()} {proc.communicate()[1][-2000:]}"
        time.sleep(delay)  # 0: while the first chunk is read; 0.6 s: inside the stream
        proc.send_signal(sig)
        stdout, stderr = proc.communicate(timeout=HANG_LIMIT)
    finally:
        if proc.poll() is None:
            proc.kill()
    if proc.returncode == 0:  # finished before the signal could stop it (a fast machine): whole output
        assert out.exists() and "Traceback" not in stderr
        pytest.skip("the run ended before the signal")
    assert proc.returncode == code, stderr
    assert stderr == f"bleustats: {word}\n"
    assert stdout == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == [], "an output or a temporary file was left behind"


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_score_interrupted_while_saving_statistics(big_nbest, tmp_path, sig, code):
    # one long text file against itself (1.2M lines, several seconds of work even on a quiet machine): the
    # signal lands while reading, in numba or in the Parquet write
    hyp = tmp_path / "hyp.txt"
    with open(big_nbest / "nbest.txt", encoding="utf-8") as fh:
        lines = "".join(line.split(" ||| ")[1] + "\n" for line in fh)
    hyp.write_text(lines + lines, encoding="utf-8")
    work = tmp_path / "work"
    work.mkdir()
    proc = _start(["stats", hyp, "-i", hyp, "-tok", "13a", "-o", work / "stats.parquet"], cwd=work)
    try:
        time.sleep(2.5)
        proc.send_signal(sig)
        stdout, stderr = proc.communicate(timeout=HANG_LIMIT)
    finally:
        if proc.poll() is None:
            proc.kill()
    if proc.returncode == 0:  # finished before the signal could stop it (a fast machine): whole output
        assert (work / "stats.parquet").exists() and "Traceback" not in stderr
        pytest.skip("the run ended before the signal")
    assert proc.returncode == code, stderr
    assert stderr.count("\n") == 1 and stderr.startswith("bleustats: ") and "Traceback" not in stderr
    assert sorted(p.name for p in work.iterdir()) == []


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_outputs_follow_the_umask(tmp_path, umask, capsys):
    # mkstemp / mkdtemp alone would make 0600 files and 0700 folders whatever the umask; outputs get the umask's
    from bleustats import sample_data

    paths = sample_data.paths()
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("the cat sat\nhello world\n", encoding="utf-8")
    ref.write_text("the cat sat down\nhello there world\n", encoding="utf-8")
    nbest = tmp_path / "nbest.txt"
    nbest.write_text("0 ||| the cat ||| F0= 1 ||| 1\n1 ||| hello ||| F0= 1 ||| 1\n", encoding="utf-8")
    old = os.umask(umask)
    try:
        assert main(["stats", str(ref), "-i", str(hyp), "-o", str(tmp_path / "s.parquet")]) == 0
        assert main(["kbest", str(nbest), str(ref), "-o", str(tmp_path / "k.parquet"), "--scores-txt",
                     str(tmp_path / "k.txt")]) == 0
        for name in ("s.parquet", "k.parquet", "k.txt"):
            assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o666 & ~umask, name
        assert main(["study", "--hypotheses", str(paths["hypotheses"]), "--references", str(paths["references"]),
                     "--human", str(paths["human_scores"]), "--human-column", "mqm", "--undefined", "exclude",
                     "-m", "bleu", "--assignments", "5", "--bootstrap", "0", "-o", str(tmp_path / "study")]) == 0
    finally:
        os.umask(old)
    capsys.readouterr()
    for name in ("study/table2.md", "study/study.json"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o666 & ~umask, name
    assert stat.S_IMODE((tmp_path / "study").stat().st_mode) == 0o777 & ~umask


def test_the_interrupt_is_raised_only_where_it_propagates():
    # a signal that lands in a C extension's callback (numba's cache loader calls llvmlite through
    # ctypes, which prints and drops an exception) is delivered again until it lands in our code
    import importlib
    import types

    cli_main = importlib.import_module("bleustats.cli.main")
    package = Path(cli_main.__file__).resolve().parents[1]

    def frame(path):
        return types.SimpleNamespace(f_code=types.SimpleNamespace(co_filename=str(path)))

    delivered = []
    old = signal.signal(signal.SIGINT, lambda s, f: delivered.append(s))  # stands in for the real handler
    try:
        state = cli_main._SignalState()
        state.handler(signal.SIGINT, frame("/site-packages/llvmlite/binding/executionengine.py"))  # no raise
        time.sleep(0.2)
        assert delivered and set(delivered) == {signal.SIGINT}, "the signal was not delivered again"
        with pytest.raises(KeyboardInterrupt):
            state.handler(signal.SIGINT, frame(package / "engine" / "stats.py"))
        time.sleep(0.1)
        n = len(delivered)
        time.sleep(0.1)
        assert len(delivered) == n, "delivered again after the interrupt was raised"
        state.handler(signal.SIGINT, frame(package / "engine" / "io.py"))  # unwinding: ignored
    finally:
        state.raised = True
        signal.signal(signal.SIGINT, old)
