"""``bleustats score`` against the ``sacrebleu`` 2.6 command (the oracle), command line by command line.

Every case is a sacreBLEU command line run through ``sacrebleu ... --no-color`` (NO_COLOR=1)
and through ``bleustats score ...`` (in-process) on the same small files; stdout must be
byte-equal apart from the version field (``2.6.0`` vs ``bleustats-<version>``). The cases cover
the default output (``REF -i HYP``: JSON with one decimal), -f json / text / latex, -w, -sh, -b,
-lc, -tok, -s / -sv, -l, -nr, standard input (one system and several, tab-separated), several
systems, -ci, --paired-bs / --paired-ar (also with ``$SACREBLEU_SEED``), -sl, -m bleu chrf ter
with the chrF / TER flags, and -t / -l / --echo on a local sacreBLEU cache. sacreBLEU runs all
of them in one process (:func:`_oracle`: its ``main()`` per case, stdout captured at the file
descriptor), so the comparison costs one sacreBLEU start-up, not one per line.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import pytest

import bleustats
from bleustats.cli import main

sacrebleu = pytest.importorskip("sacrebleu")  # the oracle (a test extra): absent, these comparisons skip

#: sacreBLEU command lines with sacreBLEU's metric flags, run in the files' folder
CASES = [
    "R1 R2 -i S1 -m bleu chrf ter",
    "R1 R2 -i S1 -m bleu chrf ter -f text",
    "R1 R2 -i S1 -m bleu chrf ter -f text -w 3 -sh",
    "R1 -i S1 -m chrf -cw 2 --chrf-beta 3 -f text",
    "R1 -i S1 -m chrf --chrf-whitespace --chrf-lowercase --chrf-eps-smoothing -cc 4",
    "R1 R2 -i S1 -m ter --ter-normalized --ter-case-sensitive --ter-no-punct --ter-asian-support",
    "R1 R2 -i S1 -ci -cin 200 -m bleu chrf",
    "R1 R2 -i S1 -ci -cin 200 -m bleu chrf ter -f text",
    "R1 R2 -i S1 S2 S3 -m bleu chrf ter",
    "R1 R2 -i S1 S2 S3 -m bleu chrf ter -f text -w 2",
    "R1 R2 -i S1 S2 S3 -m bleu ter --paired-ar -parn 300 -f text",
    "R1 R2 -i S1 S2 -m bleu --paired-bs -pbsn 200 -f text",
    "R1 -i S1 -sl -f text",
    "R1 -i S1 -sl -m chrf",
    "R1 -i S1 -tok intl -lc -s floor -sv 0.2 -f text",
    "R1 -i S1 -tok char -s add-k -f json -w 4",
    "R1 -i S1 -b -f text -m bleu ter",
    "R1 R2 -i S1 S2 S3 -m bleu chrf ter -f latex",
    "R1 R2 -i S1 S2 -m bleu chrf --paired-bs -pbsn 200 -f latex -w 2",
    "R1 -i S1 -m bleu chrf -f latex",
    "R1 -i S1 -m bleu -lc",
    "R1 -i S1 -m bleu -tok zh",
    "R1 -i S1 -m bleu -tok none -f text",
    "R1 -i S1 -m bleu -tok 13a -sh -f text",
    "R1 -i S1 -m bleu --short",
    "R1 -i S1 -m bleu chrf -b",
    "R1 -i S1 -m bleu -w 0 -f text",
    "R1 R2 -i S1 -m ter -b",
    "R1 -i S1 -sl -m ter",
    "R1 -i S1 -m bleu -s none -f text",
    "R1 R2 -i S1 S2 -m chrf --paired-ar -parn 100",
    "R1 -i S1 -m bleu -ci -cin 100 -f text -w 3",
    "R1 -i S1 S2 S3 -m bleu -b",
    "R1 -i S1 -l en-zh -m bleu",
    "R1 -i S1 -f text -m bleu chrf ter -sh",
    "R1 R2 -i S1 S2 S3 -m chrf ter -f latex -w 3",
    "R1 -i S1 S2 -m bleu chrf -f text -sh",
    "R1 -i S1 -m bleu --force -q -nc",
    "R1 R2 -i S1 -m bleu chrf ter -sl -m chrf",
    "R1 -i S1 -m chrf -cw 2 -b",
    "R1 -i S1 -m ter --ter-normalized -f text -w 4",
    "R1 -i S1 -m bleu -s floor -f text",
    "R1 -i S1 -m bleu -s add-k -sv 2 -f text",
]

#: everyday sacreBLEU command lines with no -m: sacreBLEU's defaults (BLEU, JSON, -w 1)
DEFAULT_CASES = [
    "R1 -i S1",
    "R1 R2 -i S1",
    "R1 -i S1 -b",
    "R1 R2 -i S1 -b -w 2",
    "R1 -i S1 -w 2",
    "R1 -i S1 -w 4 -f text",
    "R1 -i S1 --short",
    "R1 -i S1 -sh -f text",
    "R1 -i S1 -lc",
    "R1 -i S1 -lc -f text -b",
    "R1 -i S1 -tok intl",
    "R1 -i S1 -tok char -f text",
    "R1 -i S1 -tok none",
    "R1 -i S1 -tok zh -f text",
    "R1 -i S1 -tok 13a -lc -sh",
    "R1 -i S1 -s floor",
    "R1 -i S1 -s floor -sv 0.3 -f text",
    "R1 -i S1 -s add-k -sv 2",
    "R1 -i S1 -s none -f text -w 3",
    "R1 -i S1 -s exp -sv 5",  # sacreBLEU ignores -sv with exp
    "R1 -i S1 -f text",
    "R1 -i S1 -f latex",
    "R1 -i S1 -f json -w 3",
    "R1 R2 -i S1 S2 S3",
    "R1 R2 -i S1 S2 S3 -f text",
    "R1 R2 -i S1 S2 -f latex -w 2",
    "R1 -i S1 S2 -b",
    "R1 -i S1 -ci -cin 100",
    "R1 R2 -i S1 -ci -cin 100 -f text",
    "R1 -i S1 -sl -f text",
    "R1 -i S1 -sl -b",
    "R1 R2 -i S1 S2 S3 --paired-bs -pbsn 100 -f text",
    "R1 R2 -i S1 S2 --paired-ar -parn 200 -f text",
    "R1 R2 -i S1 S2 S3 --paired-ar -parn 200 -f latex",
    "R1 -i S1 -l en-de",
    "R1 -i S1 -l de-zh -f text",
    "R12 -nr 2 -i S1",
    "R12 -nr 2 -i S1 S2 -f text",
    "R1 -i S1.gz -f text",
    "R1 -i S1 -e utf-8 --force -q",
    "R1 -i S1 -tok intl -lc -s floor -sv 0.2 -w 3 -sh -f text",
]

#: sacreBLEU reading the hypotheses from standard input: (command line, file given to stdin); S123 holds three
#: systems, tab-separated
STDIN_CASES = [("R1 -m bleu", "S1"), ("R1 -m bleu chrf -f text", "S1"), ("R1 R2 -m bleu ter -b", "S2"),
               ("R1", "S1"), ("R1 R2 -b", "S1"), ("R1 -f text -lc", "S1"), ("R1 R2", "S123"),
               ("R1 R2 -f text -m bleu chrf", "S123"), ("R1 --paired-bs -pbsn 100 -f text", "S123")]

#: (command line, $SACREBLEU_SEED): the resampling tests with a seed of their own
SEEDED_CASES = [("R1 -i S1 -ci -cin 100", "7"), ("R1 R2 -i S1 -m bleu chrf -ci -cin 100 -f text", "2024"),
                ("R1 R2 -i S1 S2 S3 --paired-bs -pbsn 100 -f text", "7"),
                ("R1 R2 -i S1 S2 --paired-ar -parn 100 -m bleu ter -f text", "99")]

#: (bleustats' command line on tables, sacreBLEU's on the files holding the same texts)
TABLE_CASES = [
    ("refs.tsv -i one.tsv -m bleu chrf ter", "R1 R2 -i S1 -m bleu chrf ter"),
    ("refs.tsv -i one.tsv -m bleu chrf -f text -w 2", "R1 R2 -i S1 -m bleu chrf -f text -w 2"),
    ("refs.tsv -i hyps.tsv -m bleu chrf ter -f text", "R1 R2 -i S1 S2 -m bleu chrf ter -f text"),
    ("refs.tsv -i hyps.tsv -m chrf -b", "R1 R2 -i S1 S2 -m chrf -b"),
    ("refs.tsv -i hyps.tsv -m bleu --paired-bs -pbsn 100 -f text",
     "R1 R2 -i S1 S2 -m bleu --paired-bs -pbsn 100 -f text"),
    ("refs.tsv -i one.tsv -sl -m bleu", "R1 R2 -i S1 -sl -m bleu"),
    ("refs.tsv -i one.tsv -ci -cin 100 -m bleu", "R1 R2 -i S1 -ci -cin 100 -m bleu"),
]


#: (saved statistics table, bleustats' flags after --from-stats, sacreBLEU's command line on the same texts): the
#: tables are written by `bleustats stats ... -m chrf ter` (fixture `saved`)
SAVED_CASES = [
    ("two.parquet", "-m bleu chrf ter", "R1 R2 -i S1 S2 -m bleu chrf ter"),
    ("two.parquet", "-m bleu chrf ter -f text -w 2", "R1 R2 -i S1 S2 -m bleu chrf ter -f text -w 2"),
    ("two.parquet", "-m bleu chrf ter --paired-bs -pbsn 100 -f text",
     "R1 R2 -i S1 S2 -m bleu chrf ter --paired-bs -pbsn 100 -f text"),
    ("two.parquet", "-m bleu ter --paired-ar -parn 200", "R1 R2 -i S1 S2 -m bleu ter --paired-ar -parn 200"),
    ("two.parquet", "-m chrf -b", "R1 R2 -i S1 S2 -m chrf -b"),
    ("twods/", "-m bleu chrf ter -f text", "R1 R2 -i S1 S2 -m bleu chrf ter -f text"),  # a dataset folder
    ("two.parquet", "-f latex -s floor", "R1 R2 -i S1 S2 -f latex -s floor"),
    ("one.parquet", "-m bleu chrf ter", "R1 R2 -i S1 -m bleu chrf ter"),
    ("one.parquet", "-m bleu chrf ter -ci -cin 100 -f text", "R1 R2 -i S1 -m bleu chrf ter -ci -cin 100 -f text"),
    ("one.parquet", "-sl -m chrf", "R1 R2 -i S1 -sl -m chrf"),
    ("one.parquet", "-sl -f text", "R1 R2 -i S1 -sl -f text"),
    ("one.parquet", "-m ter -sh -f text", "R1 R2 -i S1 -m ter -sh -f text"),
    ("plus.parquet", "-m chrf ter -f text", "R1 R2 -i S1 S2 -m chrf ter -cw 2 --ter-normalized -f text"),
    ("plus.parquet", "-m chrf ter -cw 2 --ter-normalized --paired-bs -pbsn 100 -f text",
     "R1 R2 -i S1 S2 -m chrf ter -cw 2 --ter-normalized --paired-bs -pbsn 100 -f text"),
]


def test_the_comparison_covers_forty_command_lines_and_more():
    lines = CASES + DEFAULT_CASES + [c for c, _ in STDIN_CASES + SEEDED_CASES + TABLE_CASES]
    assert len(set(lines)) >= 100 and len(DEFAULT_CASES) >= 40, len(set(lines))


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("sacre")
    r = random.Random(0)
    words = "the cat sat on a mat dog ran , . ! café 3.5 (x) 日本".split()
    for name in ("R1", "R2", "S1", "S2", "S3"):
        lines = [" ".join(r.choice(words) for _ in range(r.randint(0, 12))) for _ in range(40)]
        (d / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    read = {n: (d / n).read_text(encoding="utf-8").split("\n")[:-1] for n in ("R1", "R2", "S1", "S2", "S3")}
    # -nr 2's tab-separated references and three systems, tab-separated, for standard input (no empty last
    # field: sacreBLEU strips the line, then counts the fields)
    rows = {"R12": zip(read["R1"], read["R2"]), "S123": zip(read["S1"], read["S2"], read["S3"])}
    for name, fields in rows.items():
        (d / name).write_text("".join("\t".join(f[:-1] + (f[-1] or ".",)) + "\n" for f in fields), encoding="utf-8")
    import gzip

    (d / "S1.gz").write_bytes(gzip.compress((d / "S1").read_bytes()))
    return d


#: sacreBLEU's main() once per case in one process; each case's stdout captured at file descriptor 1 (main()
#: reopens sys.stdout on it), its stdin a file on descriptor 0, both descriptors restored after it (main()'s file
#: objects kept, so that none closes them later); the outputs written as JSON to argv[2]
_ORACLE = r"""
import json, os, sys, tempfile
from sacrebleu.sacrebleu import main
keep, results = [], []
out_fd, in_fd = os.dup(1), os.dup(0)
todo, done = sys.argv[1:3]
with open(todo, encoding="utf-8") as fh:
    cases = json.load(fh)
for argv, stdin, seed in cases:
    os.environ.pop("SACREBLEU_SEED", None)
    if seed is not None:
        os.environ["SACREBLEU_SEED"] = seed
    with tempfile.TemporaryFile() as out:
        os.dup2(out.fileno(), 1)
        if stdin is not None:
            fd = os.open(stdin, os.O_RDONLY)
            os.dup2(fd, 0)
            os.close(fd)
        sys.argv = ["sacrebleu", *argv, "--no-color"]
        sys.stdin, sys.stdout = open(0, closefd=False), open(1, "w", closefd=False)  # a case may close its stdin
        try:
            main()
            code = 0
        except SystemExit as exc:
            code = exc.code or 0
        sys.stdout.flush()
        keep += [sys.stdout, sys.stdin]  # main()'s file objects on descriptors 0 and 1: never closed by GC
        os.dup2(out_fd, 1)
        os.dup2(in_fd, 0)
        out.seek(0)
        results.append([code, out.read().decode("utf-8")])
with open(done, "w", encoding="utf-8") as fh:
    json.dump(results, fh)
os._exit(0)  # no interpreter shutdown closing the kept file objects
"""


def _oracle(cases, cwd, **env_vars):
    """sacreBLEU's stdout of each ``(command line, stdin file or None, $SACREBLEU_SEED or None)``, run in ``cwd``."""
    todo, done = cwd / "oracle_cases.json", cwd / "oracle_out.json"
    todo.write_text(json.dumps([[c.split(), i, seed] for c, i, seed in cases]), encoding="utf-8")
    env = {**os.environ, "NO_COLOR": "1", **env_vars}
    env.pop("SACREBLEU_FORMAT", None)
    run = subprocess.run([sys.executable, "-c", _ORACLE, str(todo), str(done)], cwd=cwd, env=env,
                         capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert run.returncode == 0, run.stderr
    results = json.loads(done.read_text(encoding="utf-8"))
    for (case, *_), (code, _) in zip(cases, results):
        assert code == 0, f"sacrebleu {case}: exit {code}"
    return {tuple(case): out for case, (_, out) in zip(cases, results)}


@pytest.fixture(scope="module")
def oracle(files, tables):
    cases = ([(c, None, None) for c in CASES + DEFAULT_CASES]
             + [(c, str(files / i), None) for c, i in STDIN_CASES] + [(c, None, s) for c, s in SEEDED_CASES]
             + [(theirs, None, None) for _, theirs in TABLE_CASES] + [("R1 -i S1", None, None)]
             + [(theirs, None, None) for _, _, theirs in SAVED_CASES])
    return _oracle(cases, files)


def _sacrebleu(argv, cwd, stdin=None):
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("SACREBLEU_FORMAT", None)
    out = subprocess.run([sys.executable, "-m", "sacrebleu", *argv, "--no-color"], cwd=cwd, env=env,
                         capture_output=True, text=True, stdin=stdin)
    assert out.returncode == 0, out.stderr
    return out.stdout


def _ours(argv, capsys):
    capsys.readouterr()
    assert main(["score", *argv]) == 0
    return capsys.readouterr().out


def _same(ours, theirs):
    assert ours.replace(f"bleustats-{bleustats.__version__}", "V") == theirs.replace(sacrebleu.__version__, "V")


@pytest.mark.parametrize("case", CASES + DEFAULT_CASES)
def test_output_is_sacrebleus(case, files, oracle, capsys, monkeypatch):
    monkeypatch.chdir(files)
    monkeypatch.delenv("SACREBLEU_FORMAT", raising=False)
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    theirs = oracle[(case, None, None)]
    _same(_ours(case.split(), capsys), theirs)


@pytest.mark.parametrize("case,stdin", STDIN_CASES)
def test_standard_input_as_sacrebleu(case, stdin, files, oracle, capsys, monkeypatch):
    import io

    monkeypatch.chdir(files)
    monkeypatch.delenv("SACREBLEU_FORMAT", raising=False)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO((files / stdin).read_bytes()), encoding="utf-8"))
    _same(_ours(case.split(), capsys), oracle[(case, str(files / stdin), None)])


@pytest.mark.parametrize("case,seed", SEEDED_CASES)
def test_resampling_with_a_seed_as_sacrebleu(case, seed, files, oracle, capsys, monkeypatch):
    monkeypatch.chdir(files)
    monkeypatch.delenv("SACREBLEU_FORMAT", raising=False)
    monkeypatch.setenv("SACREBLEU_SEED", seed)
    ours = _ours(case.split(), capsys)
    _same(ours, oracle[(case, None, seed)])
    monkeypatch.delenv("SACREBLEU_SEED")
    assert _ours(case.split(), capsys) != ours  # the seed is used: the default seed draws other resamples


def test_the_oracle_runs_each_case_as_its_own_process_would(files, oracle):
    """One process for all cases gives what one process per case gives (no state kept from case to case)."""
    for case in ("R1 R2 -i S1 S2 S3 --paired-bs -pbsn 100 -f text", "R1 -i S1 -ci -cin 100"):
        assert _sacrebleu(case.split(), files) == oracle[(case, None, None)]


def test_sv_without_its_smoothing_is_noted_on_stderr(files, capsys, monkeypatch):
    monkeypatch.chdir(files)
    assert main(["score", "R1", "-i", "S1", "-s", "exp", "-sv", "5", "-b"]) == 0
    out, err = capsys.readouterr()
    assert err.startswith("bleustats score: note: -sv/--smooth-value is not used by -s exp")
    assert main(["score", "R1", "-i", "S1", "-b"]) == 0
    assert capsys.readouterr() == (out, "")


def test_paired_json_numbers(files, capsys, monkeypatch):
    """The paired JSON prints full-precision bootstrap means: equal to 1e-9 (their last bits may differ)."""
    argv = "R1 R2 -i S1 S2 S3 -m bleu --paired-bs -pbsn 200".split()
    want = json.loads(_sacrebleu(argv, files))
    monkeypatch.chdir(files)
    assert main(["score", *argv]) == 0
    got = json.loads(capsys.readouterr().out)
    assert [r["system"] for r in got] == [r["system"] for r in want]
    for a, b in zip(got, want):
        for k in ("score", "p_value", "mean", "ci"):
            assert (a["BLEU"][k] is None) == (b["BLEU"][k] is None)
            if a["BLEU"][k] is not None:
                assert a["BLEU"][k] == pytest.approx(b["BLEU"][k], abs=1e-9, rel=0)


@pytest.mark.parametrize("argv,message", [
    (["-t", "wmt14", "-l", "en-de"], "does not download"),
    (["R1", "-i", "S1", "--list"], "--list needs"),
    (["R1", "-i", "S1", "--echo", "src"], "--echo"),
    (["R1", "-i", "S1", "S2", "-m", "bleu", "-ci"], "use paired tests"),
    (["R1", "-i", "S1", "-sl", "-m", "bleu", "chrf"], "only one metric"),
    (["R1", "-i", "S1", "--paired-bs"], "need several systems"),
])
def test_sacrebleu_flags_are_handled_or_rejected_by_name(argv, message, files, capsys, monkeypatch):
    monkeypatch.chdir(files)
    assert main(["score", *argv]) == 1
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("extra,flag", [
    (["--save-stats", "saved.parquet"], "--save-stats"), (["--dask", "tcp://127.0.0.1:1"], "--dask"),
    (["--max-ngram-order", "2"], "--max-ngram-order"), (["--metric", "delta_bleu"], "-m delta_bleu"),
    (["--use-effective-order"], "--use-effective-order"), (["--ref-length", "average"], "--ref-length"),
    (["--by", "seg_id"], "--by"), (["--json"], "--json"), (["--ref-view", "first"], "--ref-view"),
])
def test_bleustats_options_are_refused_not_dropped_in_sacrebleu_mode(extra, flag, files, capsys, monkeypatch):
    # each refused by name: ignored, it would print plain BLEU-4 for a ΔBLEU / order-2 request, or no --save-stats file
    monkeypatch.chdir(files)
    assert main(["score", "R1", "-i", "S1", "-f", "text", *extra]) == 2
    err = capsys.readouterr().err
    assert f"{flag}: not an option of sacreBLEU's output mode" in err
    assert not (files / "saved.parquet").exists()
    assert main(["score", "R1", "-i", "S1", "-f", "text", "--ref-length", "closest"]) == 0  # the default is fine


def test_sl_is_not_parsed_as_s_l_and_ambiguous_abbreviations_are_refused(files, capsys, monkeypatch):
    monkeypatch.chdir(files)
    assert main(["score", "R1", "-i", "S1", "-sl", "-f", "text"]) == 0
    assert capsys.readouterr().out.count("BLEU|") == 40
    assert main(["score", "R1", "-i", "S1", "--paired-b"]) == 2  # --paired-bs or --paired-bs-n: sacreBLEU refuses it
    assert "ambiguous option: --paired-b" in capsys.readouterr().err


def test_files_after_i_are_systems_and_a_line_without_references_is_refused(files, capsys, monkeypatch):
    # issue 36: `-i HYP SYS2` with the references forgotten printed one system's BLEU against the other
    monkeypatch.chdir(files)
    assert main(["score", "-i", "S1", "R1", "R2", "-b"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no references: give reference files before -i" in err
    env = {**os.environ, "NO_COLOR": "1"}
    theirs = subprocess.run([sys.executable, "-m", "sacrebleu", "-i", "S1", "R1", "R2", "-b"], cwd=files, env=env,
                            capture_output=True, text=True)
    assert theirs.returncode != 0 and "provide them before the -i/--input argument" in theirs.stderr


def test_own_output_keeps_its_width(files, capsys, monkeypatch):
    monkeypatch.chdir(files)
    assert main(["score", "R1", "R2", "-i", "S1", "-b"]) == 0
    old = capsys.readouterr().out
    assert old == _sacrebleu("R1 R2 -i S1 -b".split(), files)
    assert main(["score", "R1", "R2", "-i", "S1", "-b", "--max-ngram-order", "4"]) == 0  # bleustats' own: 2 decimals
    own = capsys.readouterr().out
    assert own.count(".") == 1 and len(own.strip().split(".")[1]) == 2 and float(own) == pytest.approx(float(old),
                                                                                                          abs=0.05)


#: -t/-l read the local sacreBLEU cache ($SACREBLEU); sacreBLEU reads the same files (no download when present)
TEST_SET_CASES = [
    "-t wmt14 -l de-en -i S1",
    "-t wmt14 -l de-en -i S1 S2 -m bleu chrf ter -f text",
    "-t wmt14,wmt17 -l de-en -i S12 -m bleu chrf",
    "-t wmt14 -l de-en --echo src",
    "-t wmt14 -l de-en --echo ref docid",
    "-t wmt14 -l de-en --echo all",
]


@pytest.fixture(scope="module")
def cache(files):
    """sacreBLEU's processed files of wmt14 and wmt17 de-en (40 lines each), as its cache keeps them."""
    root = files / "cache"
    lines = {name: (files / name).read_text(encoding="utf-8").splitlines() for name in ("R1", "R2", "S1", "S2")}
    for name, ref, src in (("wmt14", "R1", "S2"), ("wmt17", "R2", "S1")):
        (root / name).mkdir(parents=True)
        fields = {"src": lines[src], "ref": lines[ref], "docid": [f"doc{i // 10}" for i in range(40)],
                  "genre": ["news"] * 40, "origlang": ["de"] * 40}
        for field, values in fields.items():
            (root / name / f"{name}.de-en.{field}").write_text("\n".join(values) + "\n", encoding="utf-8")
    (files / "S12").write_text((files / "S1").read_text(encoding="utf-8") * 2, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def cache_oracle(files, cache):
    return _oracle([(c, None, None) for c in TEST_SET_CASES], files, SACREBLEU=str(cache))


@pytest.mark.parametrize("case", TEST_SET_CASES)
def test_test_sets_of_the_local_cache_as_sacrebleu(case, files, cache, cache_oracle, capsys, monkeypatch):
    monkeypatch.setenv("SACREBLEU", str(cache))
    monkeypatch.chdir(files)
    monkeypatch.delenv("SACREBLEU_FORMAT", raising=False)
    _same(_ours(case.split(), capsys), cache_oracle[(case, None, None)])


@pytest.mark.parametrize("argv,message", [
    (["-t", "wmt20", "-l", "de-en", "-i", "S1"], "test set 'wmt20' is not in the local sacreBLEU cache"),
    (["-t", "wmt14", "-l", "fr-en", "-i", "S1"], "no language pair 'fr-en' in the local sacreBLEU cache"),
    (["-t", "wmt14", "-i", "S1"], "-t needs a language pair (-l)"),
    (["R1", "-t", "wmt14", "-l", "de-en", "-i", "S1"], "either a test set (-t) or reference files"),
    (["-t", "wmt14", "-l", "de-en", "--echo", "nope"], "--echo: no field 'nope'"),
])
def test_test_set_errors_say_what_is_missing(argv, message, files, cache, capsys, monkeypatch):
    monkeypatch.setenv("SACREBLEU", str(cache))
    monkeypatch.chdir(files)
    assert main(["score", *argv]) == 1
    assert message in capsys.readouterr().err


@pytest.fixture(scope="module")
def tables(files):
    """A hypotheses table of systems S1, S2 and a references table of R1, R2: the same texts as the files."""
    read = {n: (files / n).read_text(encoding="utf-8").split("\n")[:-1] for n in ("R1", "R2", "S1", "S2")}
    hyps = ["system\tseg_id\ttext"] + [f"{s}\t{i}\t{t}" for s in ("S1", "S2") for i, t in enumerate(read[s])]
    refs = ["seg_id\tref_id\ttext"] + [f"{i}\t{r}\t{t}" for i in range(40) for r in ("R1", "R2")
                                       for t in [read[r][i]]]
    (files / "hyps.tsv").write_text("\n".join(hyps) + "\n", encoding="utf-8")
    (files / "refs.tsv").write_text("\n".join(refs) + "\n", encoding="utf-8")
    one = ["system\tseg_id\ttext"] + [f"S1\t{i}\t{t}" for i, t in enumerate(read["S1"])]
    (files / "one.tsv").write_text("\n".join(one) + "\n", encoding="utf-8")
    return files


@pytest.mark.parametrize("ours,theirs", TABLE_CASES)
def test_tables_are_read_as_tables_per_system(ours, theirs, tables, oracle, capsys, monkeypatch):
    # a table is never scored as lines of text: each system of the table is scored as sacreBLEU scores its file
    monkeypatch.chdir(tables)
    monkeypatch.delenv("SACREBLEU_FORMAT", raising=False)
    _same(_ours(ours.split(), capsys), oracle[(theirs, None, None)])


@pytest.mark.parametrize("argv,message", [
    (["refs.tsv", "-i", "S1", "-m", "bleu"], "a table is always read as a table"),
    (["R1", "-i", "hyps.tsv", "-m", "bleu"], "a table is always read as a table"),
])
def test_tables_do_not_mix_with_text_files(argv, message, tables, capsys, monkeypatch):
    monkeypatch.chdir(tables)
    assert main(["score", *argv]) == 1
    assert message in capsys.readouterr().err


@pytest.fixture(scope="module")
def saved(tables):
    """Statistics of BLEU, chrF and TER saved by bleustats stats: S1 and S2 from the tables, S1 from the files."""
    for argv in (["refs.tsv", "-i", "hyps.tsv", "-m", "chrf", "ter", "-o", "two.parquet"],
                 ["R1", "R2", "-i", "S1", "-m", "bleu", "chrf", "ter", "-o", "one.parquet"],
                 ["refs.tsv", "-i", "hyps.tsv", "-m", "chrf", "ter", "-cw", "2", "--ter-normalized", "-o",
                  "plus.parquet"],
                 ["refs.tsv", "-i", "hyps.tsv", "-m", "chrf", "ter", "-o", str(tables / "twods") + "/"]):
        assert main(["stats", *[str(tables / a) if a in ("refs.tsv", "hyps.tsv", "R1", "R2", "S1") or
                                a.endswith(".parquet") else a for a in argv]]) == 0
    return tables


@pytest.mark.parametrize("table,ours,theirs", SAVED_CASES)
def test_saved_statistics_of_several_metrics_score_as_sacrebleu(table, ours, theirs, saved, oracle, capsys,
                                                                 monkeypatch):
    # per system, from the saved rows alone: the texts' scores, paired tests, intervals and sentence scores
    monkeypatch.chdir(saved)
    monkeypatch.delenv("SACREBLEU_FORMAT", raising=False)
    _same(_ours(["--from-stats", table, *ours.split()], capsys), oracle[(theirs, None, None)])


@pytest.mark.parametrize("argv,message", [
    (["stats", "R1", "-i", "S1", "-cw", "2", "-o", "x.parquet"], "-cw/--chrf-word-order: a chrF option; add -m chrf"),
    (["stats", "R1", "-i", "S1", "--ter-normalized", "-o", "x.parquet"], "--ter-normalized: a TER option; add -m ter"),
    (["score", "--from-stats", "bleu_only.parquet", "-m", "chrf"], "holds no chrf statistics"),
    (["score", "--from-stats", "two.parquet", "-m", "chrf", "-cw", "2"], "chrF option word_order=2"),
    (["score", "--from-stats", "two.parquet", "-m", "ter", "--ter-no-punct"], "TER option no_punct"),
    (["score", "--from-stats", "two.parquet", "-m", "bleu", "-tok", "intl"], "-tok/--tokenize"),
    (["score", "--from-stats", "two.parquet", "-ci"], "-ci: use paired tests"),
    (["score", "--from-stats", "one.parquet", "--paired-bs"], "need several systems"),
    (["score", "--from-stats", "one.parquet", "-l", "en-zh"], "-l en-zh: BLEU into 'zh' uses the tokenizer 'zh'"),
    (["score", "--from-stats", "one.parquet", "-m", "bleu", "-nr", "2"], "drop -t / --echo / -nr"),
    # bleustats' own output refuses them too (it printed chrF2 / nw:0 / norm:no for what was asked otherwise)
    (["score", "--from-stats", "two.parquet", "--json", "-m", "chrf", "--chrf-beta", "1"], "chrF option beta=1"),
    (["score", "--from-stats", "two.parquet", "--by", "system", "-m", "chrf", "-cw", "2"], "chrF option word_order=2"),
    (["score", "--from-stats", "two.parquet", "--json", "-m", "ter", "--ter-normalized"], "TER option normalized"),
])
def test_saved_statistics_refuse_what_they_cannot_answer(argv, message, saved, capsys, monkeypatch):
    monkeypatch.chdir(saved)
    assert main(["stats", "R1", "-i", "S1", "-o", "bleu_only.parquet", "--replace"]) == 0
    capsys.readouterr()
    assert main(argv) in (1, 2)
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err
    assert not (saved / "x.parquet").exists()


_GC_PROBE = """
import gc, sys
class Finder:  # the collector's thresholds when the command line (and every heavy import after it) starts
    def find_spec(self, name, path=None, target=None):
        if name == "bleustats.cli.main":
            print("thresholds", gc.get_threshold(), file=sys.stderr)
sys.meta_path.insert(0, Finder())
sys.argv = ["bleustats", "--version"]
from bleustats._launch import console
console()
"""


def test_the_command_runs_with_a_higher_first_gc_threshold():
    """The executable raises the collector's first threshold before it imports the command line (start-up
    allocates ~10^5 objects, little garbage); the other two stay as they were."""
    import gc

    from bleustats._launch import GC_THRESHOLD

    out = subprocess.run([sys.executable, "-c", _GC_PROBE], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert f"thresholds {(GC_THRESHOLD, *gc.get_threshold()[1:])}" in out.stderr.splitlines(), out.stderr


_EXIT_PROBE = """
import atexit, gc, sys
atexit.register(lambda: print("frozen at exit", gc.get_freeze_count() > 0, file=sys.stderr, flush=True))
sys.argv = ["bleustats", *sys.argv[1:]]
from bleustats._launch import console
console()
"""


def test_the_command_freezes_what_it_made_and_exits_as_python_does(files):
    """After the command, the executable freezes the objects left (the shutdown's collections skip them); the
    output, the exit status and atexit handlers are Python's usual ones."""
    env = {k: v for k, v in os.environ.items() if k != "SACREBLEU_FORMAT"}
    out = subprocess.run([sys.executable, "-c", _EXIT_PROBE, "score", "R1", "-i", "S1", "S2", "-m", "bleu"],
                         cwd=files, env=env, capture_output=True, text=True)
    assert out.returncode == 0 and json.loads(out.stdout)[0]["system"] == "S1", out.stderr
    assert "frozen at exit True" in out.stderr.splitlines(), out.stderr
    refused = subprocess.run([sys.executable, "-c", _EXIT_PROBE, "score", "R1", "-i", "S1", "--width", "-1"],
                             cwd=files, env=env, capture_output=True, text=True)
    assert refused.returncode == 2 and "frozen at exit True" in refused.stderr


def test_metrics_batched_side_by_side_compute_what_each_computes_alone(monkeypatch):
    # every metric but the last runs on a thread of its own with serial kernels; the rows are those of one
    # metric at a time (the kernels' route: 3 systems x 2,000 segments, past the plain path's size)
    import numpy as np

    from bleustats.cli.sacrebleu_cli import _batched_statistics
    from bleustats.engine import _threads
    from bleustats.metrics import BLEU, CHRF

    rng = random.Random(5)
    words = [f"w{i}" for i in range(60)]
    refs = [[" ".join(rng.choices(words, k=rng.randint(10, 60))) for _ in range(2000)]]
    systems = [[" ".join(rng.choices(words, k=rng.randint(10, 60))) for _ in range(2000)] for _ in range(3)]
    seen = {}
    for cls in (BLEU, CHRF):
        original = cls._systems_statistics

        def spy(self, systems_, original=original, name=cls.__name__):
            seen[name] = _threads.serial()
            return original(self, systems_)

        monkeypatch.setattr(cls, "_systems_statistics", spy)
    metrics = [BLEU(references=refs), CHRF(references=refs)]
    together = _batched_statistics(metrics, systems)
    assert seen == {"BLEU": True, "CHRF": False}  # the first on a worker, serially; the last here
    monkeypatch.undo()
    alone = [m._systems_statistics(systems) for m in (BLEU(references=refs), CHRF(references=refs))]
    assert len(together) == 2 and all(rows is not None for rows in alone)
    for metric, rows in zip(metrics, alone):
        assert all(np.array_equal(together[id(metric)][id(s)], r) for s, r in zip(systems, rows))
    assert _batched_statistics([metrics[1]], systems).keys() == {id(metrics[1])}


def test_an_error_in_one_metric_is_raised_without_waiting_for_the_others():
    # the metric on this thread fails while the other still computes on its own: the error (or a Ctrl-C)
    # comes out at once, and the other thread is left to end by itself
    import threading

    from bleustats.cli.sacrebleu_cli import _batched_statistics
    from bleustats.errors import InputError

    release, finished = threading.Event(), []

    class Slow:
        def _systems_statistics(self, systems):
            release.wait(60)
            finished.append(True)

    class Broken:
        def _systems_statistics(self, systems):
            raise InputError("broken metric")

    try:
        with pytest.raises(InputError, match="broken metric"):
            _batched_statistics([Slow(), Broken()], [["a"], ["b"]])
        assert not finished  # raised while the other metric was still running
    finally:
        release.set()
