"""``bleustats score`` in sacreBLEU's output mode against the ``sacrebleu`` 2.6 command (the oracle).

Each case runs ``python -m sacrebleu ... --no-color`` (NO_COLOR=1) and ``bleustats score ...``
in-process on the same files; stdout must be byte-equal apart from the version field
(``2.6.0`` vs ``bleustats-<version>``). 52 command lines: -m bleu chrf ter, -f json / text / latex,
-w, -sh, -b, -lc, -l, -ci, several systems, --paired-bs / --paired-ar, -sl, tokenizer / smoothing /
chrF / TER flags, standard input, and -t / -l / --echo on a local sacreBLEU cache. All of them ask
for sacreBLEU's output with a sacreBLEU flag (-m, -f, ...): without one, ``bleustats score`` prints
its own format.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys

import pytest

import bleustats
from bleustats.cli import main

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

#: sacreBLEU reading the hypotheses from standard input (file given to stdin)
STDIN_CASES = [("R1 -m bleu", "S1"), ("R1 -m bleu chrf -f text", "S1"), ("R1 R2 -m bleu ter -b", "S2")]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("sacre")
    r = random.Random(0)
    words = "the cat sat on a mat dog ran , . ! café 3.5 (x) 日本".split()
    for name in ("R1", "R2", "S1", "S2", "S3"):
        lines = [" ".join(r.choice(words) for _ in range(r.randint(0, 12))) for _ in range(40)]
        (d / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return d


def _sacrebleu(argv, cwd, stdin=None):
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("SACREBLEU_FORMAT", None)
    out = subprocess.run([sys.executable, "-m", "sacrebleu", *argv, "--no-color"], cwd=cwd, env=env,
                         capture_output=True, text=True, stdin=stdin)
    assert out.returncode == 0, out.stderr
    return out.stdout


@pytest.mark.parametrize("case", CASES)
def test_output_is_sacrebleus(case, files, capsys, monkeypatch):
    argv = case.split()
    want = _sacrebleu(argv, files)
    monkeypatch.chdir(files)
    monkeypatch.delenv("SACREBLEU_FORMAT", raising=False)
    capsys.readouterr()
    assert main(["score", *argv]) == 0
    got = capsys.readouterr().out
    import sacrebleu

    assert got.replace(f"bleustats-{bleustats.__version__}", "V") == want.replace(sacrebleu.__version__, "V")


@pytest.mark.parametrize("case,stdin", STDIN_CASES)
def test_standard_input_as_sacrebleu(case, stdin, files, capsys, monkeypatch):
    import io

    with open(files / stdin, encoding="utf-8") as fh:
        want = _sacrebleu(case.split(), files, stdin=fh)
    monkeypatch.chdir(files)
    monkeypatch.delenv("SACREBLEU_FORMAT", raising=False)
    monkeypatch.setattr(sys, "stdin", io.StringIO((files / stdin).read_text(encoding="utf-8")))
    capsys.readouterr()
    assert main(["score", *case.split()]) == 0
    got = capsys.readouterr().out
    import sacrebleu

    assert got.replace(f"bleustats-{bleustats.__version__}", "V") == want.replace(sacrebleu.__version__, "V")


def test_paired_json_numbers(files, capsys, monkeypatch):
    """The paired JSON prints full-precision bootstrap means: equal to 1e-9 (their last bits may differ)."""
    import json

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
    (["--max-ngram-order", "2"], "--max-ngram-order"), (["--metric", "delta_bleu"], "--metric"),
    (["-eff"], "-eff/--use-effective-order"), (["--ref-length", "average"], "--ref-length"),
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


def test_sl_is_not_parsed_as_s_l_and_abbreviations_are_refused(files, capsys, monkeypatch):
    monkeypatch.chdir(files)
    assert main(["score", "R1", "-i", "S1", "-sl", "-f", "text"]) == 0
    assert capsys.readouterr().out.count("BLEU|") == 40
    assert main(["score", "R1", "-i", "S1", "--paired-b"]) == 2  # no abbreviations: sacreBLEU's names only


def test_old_input_order_still_works_and_own_output_keeps_its_width(files, capsys, monkeypatch):
    monkeypatch.chdir(files)
    assert main(["score", "-i", "S1", "R1", "R2", "-b"]) == 0  # -i HYP REF...: the files after HYP are references
    old = capsys.readouterr().out
    assert main(["score", "R1", "R2", "-i", "S1", "-b"]) == 0
    assert capsys.readouterr().out == old == _sacrebleu("R1 R2 -i S1 -b".split(), files)
    assert main(["score", "R1", "R2", "-i", "S1", "-b", "--metric", "bleu"]) == 0  # bleustats' own: 2 decimals
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


@pytest.mark.parametrize("case", TEST_SET_CASES)
def test_test_sets_of_the_local_cache_as_sacrebleu(case, files, cache, capsys, monkeypatch):
    monkeypatch.setenv("SACREBLEU", str(cache))
    argv = case.split()
    want = _sacrebleu(argv, files)
    monkeypatch.chdir(files)
    monkeypatch.delenv("SACREBLEU_FORMAT", raising=False)
    capsys.readouterr()
    assert main(["score", *argv]) == 0
    got = capsys.readouterr().out
    import sacrebleu

    assert got.replace(f"bleustats-{bleustats.__version__}", "V") == want.replace(sacrebleu.__version__, "V")


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


@pytest.mark.parametrize("ours,theirs", [
    ("refs.tsv -i one.tsv -m bleu chrf ter", "R1 R2 -i S1 -m bleu chrf ter"),
    ("-i one.tsv refs.tsv -m bleu chrf -f text -w 2", "R1 R2 -i S1 -m bleu chrf -f text -w 2"),
    ("refs.tsv -i hyps.tsv -m bleu chrf ter -f text", "R1 R2 -i S1 S2 -m bleu chrf ter -f text"),
    ("refs.tsv -i hyps.tsv -m chrf -b", "R1 R2 -i S1 S2 -m chrf -b"),
    ("refs.tsv -i hyps.tsv -m bleu --paired-bs -pbsn 100 -f text",
     "R1 R2 -i S1 S2 -m bleu --paired-bs -pbsn 100 -f text"),
    ("refs.tsv -i one.tsv -sl -m bleu", "R1 R2 -i S1 -sl -m bleu"),
    ("refs.tsv -i one.tsv -ci -cin 100 -m bleu", "R1 R2 -i S1 -ci -cin 100 -m bleu"),
])
def test_tables_are_read_as_tables_per_system(ours, theirs, tables, capsys, monkeypatch):
    # a table is never scored as lines of text: each system of the table is scored as sacreBLEU scores its file
    want = _sacrebleu(theirs.split(), tables)
    monkeypatch.chdir(tables)
    monkeypatch.delenv("SACREBLEU_FORMAT", raising=False)
    capsys.readouterr()
    assert main(["score", *ours.split()]) == 0
    got = capsys.readouterr().out
    import sacrebleu

    assert got.replace(f"bleustats-{bleustats.__version__}", "V") == want.replace(sacrebleu.__version__, "V")


@pytest.mark.parametrize("argv,message", [
    (["refs.tsv", "-i", "S1", "-m", "bleu"], "a table is always read as a table"),
    (["R1", "-i", "hyps.tsv", "-m", "bleu"], "a table is always read as a table"),
])
def test_tables_do_not_mix_with_text_files(argv, message, tables, capsys, monkeypatch):
    monkeypatch.chdir(tables)
    assert main(["score", *argv]) == 1
    assert message in capsys.readouterr().err
