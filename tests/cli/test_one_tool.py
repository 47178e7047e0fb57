"""Issue 36: one tool, not nine dialects. Every subcommand is walked here, so that a new one cannot skip a part.

Each subcommand's parser (:func:`bleustats.cli.main.command`: its options and their roles) is checked for
the shared groups, ``--version``, one-line usage errors, every tokenizer, and the output rules: an output that
is an input (the same path, a symbolic or hard link, a device, a FIFO) refused for every output option, an
existing output refused without ``--replace``, a missing output folder refused before any work. On
``score``, every spelling sacreBLEU 2.6's parser (pinned) accepts is parsed by sacreBLEU's own
``parse_args`` and by bleustats', and the values compared. The forgotten-references command line and empty
inputs are refused for every metric, as sacreBLEU refuses them (its command run beside ours). The JSON records
and ``--segment-scores`` tables are checked against their schemas in ``data_schemas/`` and against sacreBLEU's
sentence scores; the progress reporter draws only where it should; and the kernels compiled into the wheel
cover every subcommand's everyday command lines (``EXAMPLES``), which the README shows.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import sacrebleu
import sacrebleu.sacrebleu as sacrebleu_cli

import bleustats
from bleustats.cli import main
from bleustats.cli._options import CATALOG, RENAMED
from bleustats.cli.main import COMMANDS, _parser, command
from bleustats.engine import schemas
from bleustats.tokenizers import SACREBLEU_TOKENIZERS

assert sacrebleu.__version__ == "2.6.0", "the oracle is pinned; the spellings below are sacreBLEU 2.6's"

pytestmark = pytest.mark.usefixtures("numba_one_thread")

#: The subcommands that read texts (every one but demo, which reads the bundled sample).
READS_TEXTS = [name for name in COMMANDS if name != "demo"]


def run(capsys, *argv):
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def examples(name: str) -> list[list[str]]:
    """The everyday command lines of subcommand ``name`` (its module's EXAMPLES) that run it, as argv."""
    import importlib

    module = importlib.import_module(f"bleustats.cli.{name}")
    lines = [shlex.split(line, comments=True)[1:] for line in module.EXAMPLES]
    return [argv for argv in lines if argv[0] == name]


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    """A folder holding the README's example files (what `bleustats demo --write-files` writes)."""
    from bleustats.cli.demo import write_files

    folder = tmp_path_factory.mktemp("sample")
    write_files(str(folder))
    return folder


# --------------------------------------------------------------------------- the shared parts


@pytest.mark.parametrize("name", list(COMMANDS))
def test_version_on_the_command_and_every_subcommand(capsys, name):
    for argv in (["--version"], ["-V"], [name, "--version"], [name, "-V"]):
        rc, out, err = run(capsys, *argv)
        assert (rc, out, err) == (0, f"bleustats {bleustats.__version__}\n", ""), argv


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_subcommand_is_made_of_the_shared_groups(name):
    spec = command(name)
    shared = set(spec.shared)
    if name in READS_TEXTS:
        assert {"tokenize", "lowercase", "max_ngram_order", "quiet", "progress"} <= shared, shared
    if name not in ("mbr", "demo"):  # mbr's pseudo-references are its candidates; demo reads the sample
        assert "references" in shared, shared
    if name not in ("stats", "analyze"):  # stats saves statistics; analyze reports blind spots, not metrics
        assert "metrics" in shared, shared
    if spec.outputs:
        assert "replace" in shared, shared
    # an option of the command's own never takes a flag of a shared option (one name, one meaning)
    catalog_flags = {flag for make in CATALOG.values() for flag in make().flags if flag.startswith("-")}
    for dest, strings in spec.strings.items():
        if dest not in shared and dest != "version":
            assert not set(strings) & catalog_flags, (dest, strings)
    # every path option has a declared role, and every output a kind
    assert set(spec.outputs) <= set(spec.kinds)
    for dest in ("refs", "references", "input", "hypotheses", "human", "ref_weights", "ref_weights_from",
                 "from_stats", "nbest", "scores", "init", "pseudo_references"):
        if dest in spec.roles:
            assert spec.roles[dest] == "input", dest


def test_a_shared_option_has_one_help_text_everywhere():
    """Options whose help takes nothing from the command are word for word the same in every command."""
    helps: dict[str, set[str]] = {}
    for name in COMMANDS:
        spec = command(name)
        for option in spec.shared:
            helps.setdefault(option, set()).add(spec.help[option])
    fixed = [o for o in helps if "{" not in CATALOG[o]().template]
    assert len(fixed) > 20
    for option in fixed:
        assert len(helps[option]) == 1, (option, helps[option])
    # and the shown default is the catalog's wherever a command keeps an internal default of its own
    for option in ("tokenize", "max_ngram_order", "weight_threshold"):
        assert len(helps[option]) == 1, (option, helps[option])


def test_the_catalogs_choices_are_the_librarys():
    """Choices the catalog names itself (the score command loads no study code) equal the library's constants."""
    from bleustats.meta._options import UNDEFINED

    assert CATALOG["undefined"]().kwargs["choices"] == UNDEFINED


def test_undefined_exclude_on_score_as_in_study(capsys, sample, monkeypatch, tmp_path):
    # issue 36: --undefined exclude was study's and correlate's only
    monkeypatch.chdir(sample)
    (tmp_path / "w0.txt").write_text("".join("-1\n" if i < 3 else "1\n" for i in range(527)))
    argv = ["score", "ref0.txt", "-i", "hyp.txt", "--ref-weights", str(tmp_path / "w0.txt"), "--json"]
    rc, _, err = run(capsys, *argv)
    assert rc == 1 and "delta_bleu: 3 segment(s) have no reference with a positive weight" in err
    rc, out, err = run(capsys, *argv, "--undefined", "exclude")
    assert rc == 0 and "3 segment row(s) where ΔBLEU is undefined" in err, err
    hyps, refs = [(sample / n).read_text().splitlines()[3:] for n in ("hyp.txt", "ref0.txt")]
    bleu = json.loads(out)[0]
    assert bleu["metric"] == "bleu" and bleu["score"] == pytest.approx(sacrebleu.corpus_bleu(hyps, [refs]).score,
                                                                        abs=1e-9)


@pytest.mark.parametrize("name", READS_TEXTS)
def test_every_subcommand_that_reads_texts_takes_every_tokenizer(name):
    argv = examples(name)[0]
    for tok in SACREBLEU_TOKENIZERS:
        args = _parser(name).parse_args([*argv, "-tok", tok])
        assert args.tokenize == tok


@pytest.mark.parametrize("name", READS_TEXTS)
def test_max_ngram_order_has_one_range_everywhere(capsys, name):
    argv = examples(name)[0]
    assert _parser(name).parse_args([*argv, "--max-ngram-order", "32"]).max_ngram_order == 32
    for bad in ("0", "33"):
        with pytest.raises(SystemExit) as exc:
            _parser(name).parse_args([*argv, "--max-ngram-order", bad])
        assert exc.value.code == 2
        assert f"argument --max-ngram-order: must be from 1 to 32; got {bad}" in capsys.readouterr().err


@pytest.mark.parametrize("name", list(COMMANDS))
def test_usage_errors_are_one_line(capsys, name):
    argv = examples(name)[0]
    bad = [[name, "--no-such-option"], [*argv, "--no-such-option"]]
    if name in READS_TEXTS:
        bad.append([*argv, "-tok", "14a"])
    for words in bad:
        rc, out, err = run(capsys, *words)
        assert rc == 2 and out == "", (words, err)
        assert err.count("\n") == 1 and err.startswith(f"bleustats {name}: error: "), err
        assert f"(options: bleustats {name} --help)" in err
    rc, _, err = run(capsys, "score", "-m", "blue")
    assert rc == 2 and err.count("\n") == 1 and "invalid metric 'blue'; choose from bleu, chrf, ter" in err


@pytest.mark.parametrize("name", list(COMMANDS))
def test_help_shows_the_everyday_command_lines(capsys, name):
    import importlib

    rc, out, _ = run(capsys, name, "--help")
    assert rc == 0
    for line in importlib.import_module(f"bleustats.cli.{name}").EXAMPLES:
        assert line in out


def test_the_first_run_is_ready_for_every_subcommand_and_every_readme_line():
    """The kernels compiled into the wheel (bleustats._warm) come from every subcommand's EXAMPLES, which hold
    every command line of the README."""
    from bleustats._warm import COMMAND_LINES

    from .test_readme import README, readme_commands

    assert {argv[0] for argv in COMMAND_LINES} == set(COMMANDS)
    for name in COMMANDS:
        assert any(argv[0] == name for argv in COMMAND_LINES), name
    if not README.exists():
        pytest.skip("not running from a source checkout")
    warm = {tuple(argv) for argv in COMMAND_LINES}
    for line in readme_commands(README.read_text(encoding="utf-8")):
        assert tuple(shlex.split(line, comments=True)[1:]) in warm, line


def test_the_first_run_is_ready_past_the_sizes_where_kernels_go_parallel(tmp_path):
    """score and stats lines over text files run again on a copy scaled past every parallel threshold, its files
    repeated line for line (so every command line reads them as it does the sample)."""
    from bleustats import _warm
    from bleustats.cli.demo import write_files
    from bleustats.engine import encode

    scaled = _warm.scaled_command_lines()
    assert {argv[0] for argv in scaled} == set(_warm.SCALED_COMMANDS)
    assert ("score", "ref0.txt", "ref1.txt", "-i", "hyp.txt", "sys2.txt", "-m", "bleu", "chrf", "ter",
            "-f", "text") in scaled
    assert _warm.SCALE_BYTES > encode.PARALLEL_MIN_BYTES
    sample, big = tmp_path / "sample", tmp_path / "big"
    sample.mkdir()
    big.mkdir()
    write_files(str(sample))
    _warm._scale(str(sample), str(big))
    lines = {name: (big / name).read_bytes().count(b"\n") for name in _warm.SCALED_FILES}
    assert len(set(lines.values())) == 1, lines
    assert (big / "hyp.txt").stat().st_size >= _warm.SCALE_BYTES
    tokens = sum(len(line.split()) for line in (big / "hyp.txt").read_text(encoding="utf-8").splitlines())
    assert tokens >= encode.PARALLEL_MIN_TOKENS


# --------------------------------------------------------------------------- the output writer


def _cases():
    """(command, output dest) for every output option of every subcommand."""
    return [(name, dest) for name in COMMANDS for dest in command(name).outputs]


def _argv_with_output(name: str, dest: str) -> tuple[list[str], str, str]:
    """An everyday command line of ``name`` with its output option ``dest``, the flag and the old value."""
    spec = command(name)
    flag = spec.flags[dest]
    strings = spec.strings[dest]
    for argv in examples(name):
        for k, word in enumerate(argv):
            if word in strings:
                return argv, flag, argv[k + 1]
    return examples(name)[0] + [flag, "placeholder"], flag, "placeholder"


def _set(argv: list[str], flag: str, strings: tuple[str, ...], value: str) -> list[str]:
    out = list(argv)
    for k, word in enumerate(out):
        if word in strings:
            out[k + 1] = value
    if not any(word in strings for word in out):
        out += [flag, value]
    return out


def _inputs_of(name: str, argv: list[str], folder: Path) -> list[str]:
    spec = command(name)
    args = _parser(name).parse_args(argv)
    paths = []
    for dest in spec.inputs:
        value = getattr(args, dest, None)
        for path in value if isinstance(value, list) else [value]:
            if isinstance(path, str) and (folder / path).is_file():
                paths.append(path)
    return paths


@pytest.mark.parametrize("name,dest", _cases())
def test_every_output_option_refuses_an_input_and_its_links_devices_and_fifos(capsys, sample, monkeypatch, tmp_path,
                                                                              name, dest):
    spec = command(name)
    argv, flag, old = _argv_with_output(name, dest)
    monkeypatch.chdir(sample)
    inputs = _inputs_of(name, argv, sample)
    if not inputs:
        pytest.skip(f"{name} reads no input file")
    suffix = Path(old).suffix if dest == "segment_scores" else ""  # --segment-scores: the extension is the format
    chosen = next((p for p in inputs if not suffix or p.endswith(suffix)), inputs[0])
    if suffix and not chosen.endswith(suffix):
        pytest.skip("no input with the output's extension")
    before = {p.name: p.read_bytes() for p in sample.iterdir() if p.is_file()}
    (tmp_path / "hard").mkdir()
    hard = tmp_path / "hard" / f"copy{suffix}"
    os.link(sample / chosen, hard)
    link = tmp_path / f"link{suffix}"
    link.symlink_to(sample / chosen)
    fifo = tmp_path / f"fifo{suffix}"
    os.mkfifo(fifo)
    device = tmp_path / f"device{suffix}"
    device.symlink_to(os.devnull)
    strings = spec.strings[dest]
    for out_path, in_path in [(chosen, chosen), (str(link), chosen), (str(hard), chosen), (str(fifo), str(fifo)),
                              (str(device), os.devnull)]:
        words = _set(argv, flag, strings, out_path)
        if in_path != chosen:  # the FIFO or device is the input too: read by nothing, refused before any work
            words = [in_path if w == chosen else w for w in words]
        rc, out, err = run(capsys, *words)
        assert rc == 2 and out == "" and err.count("\n") == 1, (words, err)
        assert "is an input" in err and err.startswith(f"bleustats {name}: error: "), err
    assert {p.name: p.read_bytes() for p in sample.iterdir() if p.is_file()} == before


@pytest.mark.parametrize("name,dest", _cases())
def test_every_output_option_follows_the_one_rule_for_an_existing_target(capsys, sample, monkeypatch, tmp_path,
                                                                         name, dest):
    from bleustats.cli import _outputs

    spec = command(name)
    argv, flag, old = _argv_with_output(name, dest)
    monkeypatch.chdir(sample)
    kind = spec.kinds[dest]
    target = tmp_path / f"existing{Path(old).suffix}"
    if kind == "into":  # demo --write-files writes files into a folder: one with other content needs --replace
        words = _set(argv, flag, spec.strings[dest], str(tmp_path))
        (tmp_path / "hyp.txt").write_text("mine\n")
        rc, _, err = run(capsys, *words)
        assert rc == 1 and "exists with other content" in err and "--replace" in err, err
        assert (tmp_path / "hyp.txt").read_text() == "mine\n"
        return
    if kind == "folder":
        target.mkdir()
    else:
        target.write_bytes(b"old")
    words = _set(argv, flag, spec.strings[dest], str(target))
    rc, out, err = run(capsys, *words)
    assert rc == 1 and out == "" and err.count("\n") == 1, err
    assert f"{flag} {target}: exists; add --replace" in err and "Nothing was computed" in err, err
    assert target.is_dir() if kind == "folder" else target.read_bytes() == b"old"
    # with --replace the writer lets it through (the command then replaces it whole, atomically)
    args = _parser(name).parse_args([*words, "--replace"])
    _outputs.check(args, args.command_spec)
    # and an output in a folder that does not exist is said before any work
    missing = tmp_path / "no" / "such" / f"out{Path(old).suffix}"
    rc, out, err = run(capsys, *_set(argv, flag, spec.strings[dest], str(missing)))
    assert rc == 1 and "does not exist; create it first. Nothing was computed." in err, err
    assert not (tmp_path / "no").exists()


def test_mbr_cannot_write_over_its_nbest_list(capsys, sample, monkeypatch):
    # issue 36: `bleustats mbr nbest.txt -o nbest.txt` and `--best nbest.txt` replaced the input and exited 0
    monkeypatch.chdir(sample)
    before = (sample / "nbest.txt").read_bytes()
    for flag in ("-o", "--best", "--matrices"):
        rc, _, err = run(capsys, "mbr", "nbest.txt", "-m", "chrf", flag, "nbest.txt")
        assert rc == 2 and "is an input" in err, err
    assert (sample / "nbest.txt").read_bytes() == before


def test_the_study_refuses_a_compare_typo_and_a_missing_folder_before_any_work(capsys, sample, monkeypatch):
    from bleustats.cli import _study_inputs

    def no_work(*args, **kwargs):
        raise AssertionError("the inputs were read before the command line was checked")

    monkeypatch.setattr(_study_inputs, "read_study_inputs", no_work)
    monkeypatch.chdir(sample)
    base = ["--hypotheses", "hyps.tsv", "--references", "refs.tsv", "--human", "mqm.tsv", "--human-column", "mqm"]
    rc, _, err = run(capsys, "study", *base, "-o", "typo/", "--compare", "delta_blue:all,bleu:all")
    assert rc == 2 and "--compare: 'delta_blue:all' is not a metric of this command line" in err, err
    rc, _, err = run(capsys, "study", *base, "-o", "no/such/folder/", "--compare", "delta_bleu:all,bleu:all")
    assert rc == 1 and "does not exist; create it first" in err, err
    rc, _, err = run(capsys, "correlate", *base, "--compare", "bleu:al,bleu:all")
    assert rc == 2 and "'bleu:al' is not a metric of this command line" in err, err


# --------------------------------------------------------------------------- score: sacreBLEU's spellings


def _sacrebleu_option_strings(capsys, monkeypatch) -> list[list[str]]:
    """Each option of sacreBLEU 2.6's parser, as its option strings, read from its --help."""
    monkeypatch.setattr(sys, "argv", ["sacrebleu", "--help"])
    with pytest.raises(SystemExit):
        sacrebleu_cli.parse_args()
    text = capsys.readouterr().out
    options = []
    for line in text.splitlines():
        match = re.match(r"^  (-\S.*?)(?:\s{2,}|$)", line)
        if match:
            options.append([part.split()[0] for part in match.group(1).split(", ")])
    return options


#: a value sacreBLEU's parser accepts for each option that takes one
_VALUES = {"--smooth-method": "floor", "--tokenize": "intl", "--metrics": "chrf", "--format": "text",
           "--smooth-value": "0.5", "--encoding": "latin-1"}
_INTS = ("--num-refs", "--chrf-char-order", "--chrf-word-order", "--chrf-beta", "--confidence-n", "--paired-ar-n",
         "--paired-bs-n", "--paired-jobs", "--width")
#: sacreBLEU's names of the options bleustats stores under another name
_DESTS = {"bleu_smooth_method": "smooth_method", "bleu_smooth_value": "smooth_value", "bleu_tokenize": "tokenize",
          "bleu_lowercase": "lowercase", "bleu_force": "force"}


def _parse_both(monkeypatch, words):
    """(sacreBLEU's namespace or its exit code, bleustats' namespace or its exit code) of one command line."""
    out = []
    for parse in (lambda: _sacrebleu_parse(monkeypatch, words), lambda: _parser("score").parse_args(["score",
                                                                                                       *words])):
        with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
            try:
                out.append(vars(parse()))
            except SystemExit as exc:
                out.append(int(exc.code or 0))
    return out


def _sacrebleu_parse(monkeypatch, words):
    monkeypatch.setattr(sys, "argv", ["sacrebleu", *words])
    monkeypatch.delenv("SACREBLEU_FORMAT", raising=False)
    return sacrebleu_cli.parse_args()


def _same_meaning(theirs, ours, base_theirs, words):
    if isinstance(theirs, int) or isinstance(ours, int):
        assert theirs == ours, (words, theirs, ours)
        return
    changed = {k: v for k, v in theirs.items() if base_theirs.get(k) != v}
    assert changed or words[-1] in ("-nr", "--num-refs"), words
    for key, value in changed.items():
        assert ours[_DESTS.get(key, key)] == value, (words, key, value, ours[_DESTS.get(key, key)])


def test_every_spelling_sacrebleus_parser_accepts_means_the_same_on_score(capsys, monkeypatch):
    options = _sacrebleu_option_strings(capsys, monkeypatch)
    assert len(options) > 40 and ["--tokenize", "-tok"] in options
    base = ["R1", "-i", "S1"]
    base_theirs, _ = _parse_both(monkeypatch, base)
    checked = 0
    for strings in options:
        long_name = next((s for s in strings if s.startswith("--")), strings[0])
        takes = (long_name in _VALUES or long_name in _INTS
                 or long_name in ("--test-set", "--language-pair", "--origlang", "--subset", "--download", "--echo"))
        value = _VALUES.get(long_name, "3" if long_name in _INTS else "x")  # 3: no option's default
        for string in strings:
            start = 3 if string.startswith("--") else 2
            for end in range(start, len(string) + 1):
                words = [*base, string[:end], *([value] if takes else [])]
                theirs, ours = _parse_both(monkeypatch, words)
                _same_meaning(theirs, ours, base_theirs, words)
                checked += 1
            if takes:  # --name=value and -nVALUE
                joined = f"{string}={value}" if string.startswith("--") else f"{string}{value}"
                theirs, ours = _parse_both(monkeypatch, [*base, joined])
                _same_meaning(theirs, ours, base_theirs, [*base, joined])
    assert checked > 300
    # the spellings issue 36 names, and bundled or attached short forms
    for words in (["--tok", "13a"], ["--lower"], ["--metric", "chrf"], ["--chrf-word", "2"], ["--ter-case"],
                  ["--smooth-m", "floor"], ["-bq"], ["-w3"], ["-lde-en"], ["-eff"], ["--conf"], ["-to", "none"],
                  ["-m", "bleu", "-m", "ter"]):
        theirs, ours = _parse_both(monkeypatch, [*base, *words])
        _same_meaning(theirs, ours, base_theirs, [*base, *words])


def _sacrebleu(argv, cwd):
    """sacreBLEU's command line run on ``argv`` in ``cwd`` (once per argv and folder: the same output)."""
    return _sacrebleu_once(tuple(map(str, argv)), str(cwd))


@functools.lru_cache(maxsize=None)
def _sacrebleu_once(argv, cwd):
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("SACREBLEU_FORMAT", None)
    return subprocess.run([sys.executable, "-m", "sacrebleu", *argv, "--no-color"], cwd=cwd, env=env,
                          capture_output=True, text=True)


@pytest.mark.parametrize("argv", [
    "ref0.txt -i hyp.txt --tok none --lower",
    "ref0.txt -i hyp.txt --metric chrf --chrf-word 2",
    "ref0.txt -i hyp.txt --metric ter --ter-case -f text",
    "ref0.txt -i hyp.txt --smooth-m floor -b",
    "refs_nr.tsv -nr 2 -i hyp.txt -m bleu chrf -f text",  # tab-separated references, read as text as sacreBLEU does
    "ref0.tsv -nr 1 -i hyp.txt -b",  # -nr given (its default): a .tsv is still text, as sacreBLEU reads it
])
def test_sacrebleu_spellings_print_what_sacrebleu_prints(capsys, sample, monkeypatch, argv):
    ref0 = (sample / "ref0.txt").read_text(encoding="utf-8").splitlines()
    ref1 = (sample / "ref1.txt").read_text(encoding="utf-8").splitlines()
    (sample / "refs_nr.tsv").write_text("".join(f"{a}\t{b}\n" for a, b in zip(ref0, ref1)), encoding="utf-8")
    (sample / "ref0.tsv").write_text("".join(f"{a}\n" for a in ref0), encoding="utf-8")
    monkeypatch.chdir(sample)
    monkeypatch.delenv("SACREBLEU_FORMAT", raising=False)
    theirs = _sacrebleu(argv.split(), sample)
    assert theirs.returncode == 0, theirs.stderr
    rc, out, err = run(capsys, "score", *argv.split())
    assert rc == 0, err
    assert out.replace(f"bleustats-{bleustats.__version__}", sacrebleu.__version__) == theirs.stdout


@pytest.mark.parametrize("metric", [[], ["-m", "bleu"], ["-m", "chrf"], ["-m", "ter"], ["-m", "bleu", "chrf", "ter"]])
def test_forgotten_references_and_empty_inputs_are_refused_for_every_metric(capsys, sample, tmp_path, metric):
    # issue 36: `score -i hyp.txt sys2.txt` printed one system's BLEU against the other; chrF and TER of empty
    # files printed 0.0. sacreBLEU refuses both (its command run on the same files).
    forgotten = ["-i", str(sample / "hyp.txt"), str(sample / "sys2.txt"), *metric]
    rc, out, err = run(capsys, "score", *forgotten)
    assert rc == 1 and out == "" and "no references: give reference files before -i" in err, err
    assert _sacrebleu(forgotten, sample).returncode != 0
    (tmp_path / "empty.txt").write_bytes(b"")
    empty = str(tmp_path / "empty.txt")
    for words in ([empty, "-i", empty, *metric], [str(sample / "ref0.txt"), "-i", empty, *metric]):
        rc, out, err = run(capsys, "score", *words)
        assert rc == 1 and out == "" and err.count("\n") == 1, err
        assert "no segments to score" in err and "sacreBLEU refuses an empty test set" in err, err
        theirs = _sacrebleu(words, sample)
        assert theirs.returncode != 0 and "contains no sentence" in theirs.stderr


def test_renamed_options_still_work_and_say_so(capsys):
    values = {"--variant": "bleu+1", "--metric": None, "--refs": "r.txt", "--threshold": "0.5", "--overwrite": "",
              "--kendall-variant": "b"}
    new_values = {"--statistic": "delta_bleu", "-m/--metrics": "bleu"}
    for (name, old), new in RENAMED.items():
        value = values.get(old)
        if old == "--metric":
            value = new_values.get(new)
        if old == "--variant" and name == "correlate":
            value = "acc23"
        if name == "mbr" and old == "--metric":
            value = "chrf"
        if name in ("study", "correlate") and old == "--metric":
            value = "bleu"
        argv = examples(name)[0]
        words = [*argv, old] + ([value] if value else [])
        with contextlib.redirect_stderr(io.StringIO()) as err:
            args = _parser(name).parse_args(words)
        assert f"bleustats {name}: warning: {old} is deprecated, renamed {new}" in err.getvalue()
        new_flag = new.split("/")[-1]
        want = _parser(name).parse_args([*argv, new_flag] + ([value] if value else []))
        dest = {"-m/--metrics": "metrics", "--statistic": "statistic", "-r/--references": "references",
                "--weight-threshold": "weight_threshold", "--replace": "replace",
                "--kendall-variant": "kendall_variant"}[new]
        assert getattr(args, dest) == getattr(want, dest), (name, old)
    # score: what --metric and -eff were is what sacreBLEU's parser makes of them (--metrics, -e ff), said
    rc, _, err = run(capsys, "score", "-m", "both")
    assert rc == 2 and "give -m bleu delta_bleu (what --metric both was)" in err


# --------------------------------------------------------------------------- JSON records and segment scores


def _records(out: str) -> list[dict]:
    records = json.loads(out)
    order = sum(1 for key in records[0] if key.startswith("precision_"))
    schemas.validate(pa.Table.from_pylist(records), "score_records", max_ngram_order=order, check_key=False)
    return records


def test_one_record_shape_for_every_json_score(capsys, sample, monkeypatch, tmp_path):
    monkeypatch.chdir(sample)
    shapes = []
    for argv in (["score", "ref0.txt", "-i", "hyp.txt", "--json"],
                 ["score", "ref0.txt", "ref1.txt", "-i", "hyp.txt", "--ref-weights", "w0.txt", "w1.txt", "--json"],
                 ["score", "refs.tsv", "-i", "hyps.tsv", "-m", "bleu", "chrf", "ter", "--by", "system", "--json"],
                 ["score", "ref0.txt", "-i", "hyp.txt", "--by", "seg_id", "--json"],
                 ["demo", "--json"]):
        rc, out, err = run(capsys, *argv)
        assert rc == 0, err
        records = _records(out)
        shapes.append({tuple(r) for r in records} - set())
        assert all(isinstance(r["score"], float) for r in records)
    assert len({frozenset(len(k) for k in shape) for shape in shapes}) >= 1
    keys = {k for shape in shapes for key_tuple in shape for k in key_tuple if not k[-1].isdigit()}
    assert keys == {"metric", "name", "by", "group", "score", "signature", "bp", "sys_len", "ref_len", "segments",
                    "all_segments"}
    # full precision: the text output rounds to -w, the records never do
    rc, out, _ = run(capsys, "score", "ref0.txt", "-i", "hyp.txt", "--json", "-w", "1")
    want = sacrebleu.corpus_bleu((sample / "hyp.txt").read_text().splitlines(),
                                 [(sample / "ref0.txt").read_text().splitlines()]).score
    assert _records(out)[0]["score"] == pytest.approx(want, abs=1e-9) and _records(out)[0]["score"] != round(want, 1)


def _sentence(metric: str, hyp: str, refs: list[str]) -> float:
    return {"bleu": sacrebleu.sentence_bleu, "chrf": sacrebleu.sentence_chrf, "ter": sacrebleu.sentence_ter}[metric](
        hyp, refs).score


@pytest.fixture(scope="module")
def head_sample(sample, tmp_path_factory):
    """The sample's first 120 segments (sacreBLEU's TER, the oracle below, takes a tenth of a second a line)."""
    folder = tmp_path_factory.mktemp("head")
    for name in ("hyp.txt", "sys2.txt", "ref0.txt", "ref1.txt"):
        lines = (sample / name).read_text(encoding="utf-8").splitlines(keepends=True)[:120]
        (folder / name).write_text("".join(lines), encoding="utf-8")
    return folder


@pytest.mark.parametrize("suffix", [".tsv", ".jsonl", ".parquet"])
def test_segment_scores_every_metric_every_system_every_segment(capsys, head_sample, monkeypatch, tmp_path, suffix):
    sample = head_sample
    monkeypatch.chdir(sample)
    target = tmp_path / f"seg{suffix}"
    rc, out, err = run(capsys, "score", "ref0.txt", "ref1.txt", "-i", "hyp.txt", "sys2.txt", "-m", "bleu", "chrf",
                       "ter", "-f", "text", "--segment-scores", target)
    assert rc == 0, err
    theirs = _sacrebleu(["ref0.txt", "ref1.txt", "-i", "hyp.txt", "sys2.txt", "-m", "bleu", "chrf", "ter", "-f",
                         "text"], sample)
    assert out.replace(f"bleustats-{bleustats.__version__}", sacrebleu.__version__) == theirs.stdout  # unchanged
    if suffix == ".parquet":
        table = pq.read_table(target)
        signature = table.schema.metadata[b"bleustats.signature.bleu"].decode()
        assert signature.startswith("nrefs:2|case:mixed|eff:yes|tok:13a|smooth:exp|")  # -sl's BLEU: effective order
    elif suffix == ".jsonl":
        table = pa.Table.from_pylist([json.loads(line) for line in target.read_text().splitlines()])
    else:
        import pyarrow.csv as pacsv

        table = pacsv.read_csv(target, parse_options=pacsv.ParseOptions(delimiter="\t"))
    table = schemas.validate(table, "segment_scores")
    rows = table.to_pylist()
    refs = [(sample / f"ref{k}.txt").read_text().splitlines() for k in (0, 1)]
    assert [(r["system"], r["seg_id"]) for r in rows] == [(s, i) for s in ("hyp.txt", "sys2.txt")
                                                         for i in range(len(refs[0]))]
    for system in ("hyp.txt", "sys2.txt"):
        hyps = (sample / system).read_text().splitlines()
        for row in [r for r in rows if r["system"] == system][::7]:  # every 7th segment against sacreBLEU's -sl
            for metric in ("bleu", "chrf", "ter"):
                want = _sentence(metric, hyps[row["seg_id"]], [r[row["seg_id"]] for r in refs])
                assert row[metric] == pytest.approx(want, abs=1e-9), (system, row["seg_id"], metric)


def test_segment_scores_of_tables_are_a_correlate_input(capsys, sample, monkeypatch, tmp_path):
    monkeypatch.chdir(sample)
    target = tmp_path / "seg.parquet"
    rc, _, err = run(capsys, "score", "refs.tsv", "-i", "hyps.tsv", "-m", "bleu", "ter", "--by", "system",
                     "--segment-scores", target)
    assert rc == 0, err
    table = schemas.validate(pq.read_table(target), "segment_scores")
    assert table.num_rows == 8 * 527 and pq.read_table(target).column_names == ["system", "seg_id", "bleu", "ter"]
    assert b"bleustats.signature.bleu" in pq.read_table(target).schema.metadata
    rc, out, err = run(capsys, "correlate", "--human", "mqm.tsv", "--human-column", "mqm", "--scores", target,
                       "--level", "segment", "--json")
    assert rc == 0, err
    assert {r["label"] for r in json.loads(out)["correlations"]} == {"bleu [external]", "ter [external]"}


# --------------------------------------------------------------------------- progress


def test_one_progress_reporter_draws_only_where_asked(capsys, sample, monkeypatch):
    monkeypatch.chdir(sample)
    argv = ["score", "ref0.txt", "-i", "hyp.txt", "sys2.txt", "-m", "bleu", "chrf", "-f", "text"]
    rc, out, err = run(capsys, *argv)  # stderr is no terminal here (piped): nothing
    assert rc == 0 and err == ""
    rc, forced, err = run(capsys, *argv, "--progress")
    assert rc == 0 and forced == out and "bleustats score: " in err and err.endswith("\n"), err
    rc, _, err = run(capsys, *argv, "--progress", "-q")
    assert rc == 0 and err == ""
    rc, _, err = run(capsys, "kbest", "nbest.txt", "ref0.txt", "-tok", "none", "--progress", "--json")
    assert rc == 0 and "kbest [" in err and "100.0%" in err
    rc, _, err = run(capsys, "kbest", "nbest.txt", "ref0.txt", "-tok", "none", "--progress", "--json", "-q")
    assert rc == 0 and "kbest [" not in err


@pytest.mark.parametrize("argv", [
    ["kbest", "nbest.txt", "ref0.txt", "-tok", "none", "-o", "k.parquet"],
    ["mbr", "nbest.txt", "-o", "m.parquet", "--best", "best.txt"],
    ["tune", "nbest.txt", "-r", "ref0.txt", "-tok", "none", "-o", "w.json"],
    ["stats", "ref0.txt", "-i", "hyp.txt", "-o", "s.parquet"],
])
def test_quiet_means_no_notes_on_stderr(capsys, sample, monkeypatch, argv):
    """-q: no progress and no notes (timings, files written); without it the notes are there."""
    monkeypatch.chdir(sample)
    rc, _, err = run(capsys, *argv)
    assert rc == 0 and "wrote" in err, err
    rc, _, err = run(capsys, *argv, "--replace", "-q")
    assert rc == 0 and err == "", err
