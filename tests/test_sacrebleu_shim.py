"""bleustats.sacrebleu_shim: third-party ``import sacrebleu`` gets bleustats, with sacreBLEU 2.6's names.

The shim changes how a whole process imports ``sacrebleu``, so each check runs in a fresh Python
process (this test process keeps the real sacreBLEU, the oracle of the other tests). Expected values
come from ``sacrebleu==2.6.0`` (the test extra pins it), run in its own process on the same inputs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import bleustats

#: every sacreBLEU module and name issue 25 lists as used by real code, with their sacreBLEU paths
NAMES = {
    "sacrebleu": ["SACREBLEU_DIR", "smart_open", "get_source_file", "get_reference_files", "get_available_testsets",
                  "get_langpairs_for_testset", "DATASETS", "download_test_set", "extract_word_ngrams",
                  "extract_char_ngrams", "BLEU", "CHRF", "TER", "corpus_bleu", "raw_corpus_bleu", "sentence_bleu",
                  "corpus_chrf", "sentence_chrf", "corpus_ter", "sentence_ter", "__version__"],
    "sacrebleu.metrics.helpers": ["extract_all_word_ngrams", "extract_word_ngrams", "extract_all_char_ngrams",
                                  "extract_char_ngrams"],
    "sacrebleu.utils": ["sum_of_lists", "smart_open", "get_reference_files", "get_source_file", "print_results_table",
                        "print_single_results", "sanity_check_lengths", "args_to_dict", "my_log", "SACREBLEU_DIR",
                        "get_available_testsets", "get_langpairs_for_testset", "get_files", "download_test_set"],
    "sacrebleu.dataset": ["DATASETS"],
    "sacrebleu.metrics.lib_ter": ["translation_edit_rate", "trace_to_alignment"],
    "sacrebleu.sacrebleu": ["main", "parse_args"],
    "sacrebleu.version": ["__version__", "version", "version_tuple"],
    "sacrebleu.metrics.bleu": ["_get_tokenizer", "BLEU", "MAX_NGRAM_ORDER"],
    "sacrebleu.metrics": ["BLEU", "CHRF", "TER"],
    "sacrebleu.compat": ["corpus_bleu", "corpus_chrf", "corpus_ter"],
    "sacrebleu.significance": ["_compute_p_value", "PairedTest", "Result"],
    "sacrebleu.tokenizers.tokenizer_13a": ["Tokenizer13a"],
}
METHODS = {"BLEU": ["_preprocess_segment"], "CHRF": ["_preprocess_segment", "_remove_punctuation",
                                                    "_get_match_statistics", "_compute_f_score"],
           "TER": ["_preprocess_segment"]}


def run_python(code: str, *, shim: bool, env: dict | None = None, cwd: Path | None = None) -> str:
    """stdout of ``code`` in a fresh interpreter, with the shim installed first when ``shim``."""
    prelude = "import bleustats.sacrebleu_shim as _s; _s.install()\n" if shim else ""
    proc = subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code)], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, cwd=cwd)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def test_every_listed_name_is_there_under_the_shim() -> None:
    code = f"""
        import importlib, json
        missing = []
        for module, names in {NAMES!r}.items():
            m = importlib.import_module(module)
            missing += [f"{{module}}.{{n}}" for n in names if not hasattr(m, n)]
        import sacrebleu
        for cls, methods in {METHODS!r}.items():
            missing += [f"{{cls}}.{{n}}" for n in methods if not hasattr(getattr(sacrebleu, cls), n)]
        print(json.dumps([missing, sacrebleu.__version__, getattr(sacrebleu, "BLEUSTATS_VERSION", None),
                          sacrebleu.BLEU.__module__]))
    """
    missing, version, own, module = json.loads(run_python(code, shim=True))
    assert missing == []
    assert (version, own, module) == ("2.6.0", bleustats.__version__, "bleustats.metrics.bleu")
    # the names exist in sacreBLEU 2.6 too (the list is of real names, not of ours)
    assert json.loads(run_python(code, shim=False))[0] == []


def test_sacrebleus_top_level_all_is_covered() -> None:
    code = "import sacrebleu, json; print(json.dumps(sorted(sacrebleu.__all__)))"
    theirs = json.loads(run_python(code, shim=False))
    code = f"import sacrebleu, json; print(json.dumps([n for n in {theirs!r} if not hasattr(sacrebleu, n)]))"
    assert json.loads(run_python(code, shim=True)) == []


def test_nothing_changes_without_install_and_uninstall_restores() -> None:
    code = """
        import bleustats, bleustats.metrics, sacrebleu
        a = sacrebleu.__file__
        import bleustats.sacrebleu_shim as shim
        shim.install(); import sacrebleu
        b = sacrebleu.__name__
        shim.uninstall(); import sacrebleu
        print(a.endswith("sacrebleu/__init__.py"), b, sacrebleu.__name__, shim.installed())
    """
    assert run_python(code, shim=False).split() == ["True", "bleustats.sacrebleu_shim.package", "sacrebleu", "False"]


def test_a_sacrebleu_module_without_stand_in_is_refused_by_name() -> None:
    code = """
        try:
            import sacrebleu.__main__
        except ModuleNotFoundError as e:
            print(e)
    """
    assert "bleustats' sacreBLEU shim has no sacrebleu.__main__" in run_python(code, shim=True)


def test_utils_behave_as_sacrebleus(tmp_path: Path) -> None:
    code = f"""
        import argparse, gzip, json, sacrebleu.utils as u
        p = {str(tmp_path / "x.txt.gz")!r}
        with gzip.open(p, "wt", encoding="utf-8") as f: f.write("a\\r\\nb\\n")
        with u.smart_open(p) as f: text = f.read()
        ns = argparse.Namespace(chrf_beta=2, chrf_word_order=0, chrf_chrf_x=1, ter_x=1)
        print(json.dumps([text, u.my_log(0.0), u.my_log(2.5), u.sum_of_lists([[1, 2.5], [3, 4]]),
                          u.sum_of_lists([[1.0, 2], [3, 4]]), u.sum_of_lists([[9]]), u.args_to_dict(ns, "chrf"),
                          u.args_to_dict(ns, "chrf", strip_prefix=True), u.SACREBLEU_DIR]))
    """
    env = {"SACREBLEU": str(tmp_path / "cache")}
    assert json.loads(run_python(code, shim=True, env=env)) == json.loads(run_python(code, shim=False, env=env))


def test_sanity_check_lengths_exits_1_as_sacrebleu() -> None:
    code = """
        import sacrebleu.utils as u
        u.sanity_check_lengths(["a"], [["x"]])
        try:
            u.sanity_check_lengths(["a", "b"], [["x"]])
        except SystemExit as e:
            print(e.code)
    """
    assert run_python(code, shim=True) == run_python(code, shim=False) == "1\n"


def test_printers_print_as_sacrebleu() -> None:
    code = """
        import argparse, sacrebleu.utils as u
        u.print_single_results(['{"name": "BLEU", "score": 1.0}', '{"name": "chrF2", "score": 2.0}'],
                               argparse.Namespace(format="json"))
        u.print_single_results(["BLEU|nrefs:1 = 1.0", "chrF2|nrefs:1 = 22.0"], argparse.Namespace(format="text"))
        args = argparse.Namespace(format="json", width=1, paired_bs=False, paired_ar=False)
        u.print_results_table({"System": ["a", "b"], "BLEU": ["1.0", "2.0"]}, {"BLEU": "nrefs:1"}, args)
    """
    assert run_python(code, shim=True) == run_python(code, shim=False)


def fake_cache(root: Path) -> None:
    """sacreBLEU's processed files of wmt14 de-en and wmt17 en-de, as its cache keeps them."""
    for name, pair in (("wmt14", "de-en"), ("wmt17", "en-de")):
        (root / name).mkdir(parents=True)
        for field in ("src", "ref", "docid", "genre", "origlang"):
            (root / name / f"{name}.{pair}.{field}").write_text(f"{field} 1\n{field} 2\n", encoding="utf-8")


def test_test_sets_come_from_the_local_cache_as_sacrebleu_finds_them(tmp_path: Path) -> None:
    fake_cache(tmp_path / "cache")
    code = """
        import json, sacrebleu
        d = sacrebleu.DATASETS["wmt14"]
        print(json.dumps([sacrebleu.get_source_file("wmt14", "de-en"), sacrebleu.get_reference_files("wmt17", "en-de"),
                          sacrebleu.utils.get_files("wmt14", "de-en"), d.fieldnames("de-en"),
                          list(d.source("de-en")), list(d.references("de-en")),
                          sacrebleu.download_test_set("wmt17", "en-de")]))
    """
    env = {"SACREBLEU": str(tmp_path / "cache")}
    assert json.loads(run_python(code, shim=True, env=env)) == json.loads(run_python(code, shim=False, env=env))
    listing = """
        import json, sacrebleu
        print(json.dumps([sacrebleu.get_available_testsets(), sacrebleu.get_langpairs_for_testset("wmt14"),
                          sacrebleu.get_langpairs_for_testset("nope")]))
    """
    # sacreBLEU lists every test set it knows; the shim those in the cache
    assert json.loads(run_python(listing, shim=True, env=env)) == [["wmt17", "wmt14"], ["de-en"], []]


def test_a_test_set_outside_the_cache_is_a_clear_error(tmp_path: Path) -> None:
    code = """
        import sacrebleu
        for call in (lambda: sacrebleu.get_source_file("wmt20", "de-en"),
                     lambda: sacrebleu.DATASETS["wmt14"].get_reference_files("fr-en")):
            try:
                call()
            except ValueError as e:
                print(e)
    """
    fake_cache(tmp_path)
    out = run_python(code, shim=True, env={"SACREBLEU": str(tmp_path)})
    assert f"test set 'wmt20' is not in the local sacreBLEU cache ({tmp_path}" in out
    assert "bleustats does not download" in out
    assert "language pair 'fr-en' is not in the local sacreBLEU cache" in out and "it has de-en" in out


def test_cli_module_runs_bleustats_score(tmp_path: Path) -> None:
    (tmp_path / "ref.txt").write_text("the cat sat on the mat\n", encoding="utf-8")
    (tmp_path / "hyp.txt").write_text("the cat is on the mat\n", encoding="utf-8")
    code = """
        import sys, sacrebleu.sacrebleu as cli
        sys.argv = ["sacrebleu", "ref.txt", "-i", "hyp.txt", "-m", "bleu", "-b"]
        cli.main()
    """
    assert run_python(code, shim=True, cwd=tmp_path) == run_python(code, shim=False, cwd=tmp_path) == "38.0\n"


def test_runner_runs_scripts_modules_and_code(tmp_path: Path) -> None:
    script = tmp_path / "client.py"
    script.write_text("import sys, sacrebleu\nprint(sacrebleu.__version__, sys.argv[1:], __name__)\n",
                      encoding="utf-8")
    (tmp_path / "client_mod.py").write_text(script.read_text(encoding="utf-8"), encoding="utf-8")
    runner = [sys.executable, "-m", "bleustats.sacrebleu_shim"]

    def out(*args: str) -> str:
        proc = subprocess.run([*runner, *args], capture_output=True, text=True, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    assert out(str(script), "x") == "2.6.0 ['x'] __main__\n"
    assert out("-m", "client_mod", "y") == "2.6.0 ['y'] __main__\n"
    assert out("-c", "import sacrebleu; print(sacrebleu.CHRF.__module__)") == "bleustats.metrics.chrf\n"
    bad = subprocess.run(runner, capture_output=True, text=True)
    assert bad.returncode == 2 and "usage: python -m bleustats.sacrebleu_shim SCRIPT" in bad.stderr


def test_scores_under_the_shim_equal_sacrebleus() -> None:
    code = """
        import json, sacrebleu
        from sacrebleu.metrics import BLEU, CHRF, TER
        hyps = ["The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."]
        refs = [["The dog bit the man.", "It was not unexpected.", "The man bit him first."],
                ["The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."]]
        print(json.dumps([sacrebleu.corpus_bleu(hyps, refs).score, sacrebleu.corpus_chrf(hyps, refs).score,
                          sacrebleu.corpus_ter(hyps, refs).score, BLEU(effective_order=True).sentence_score(
                              hyps[1], [refs[0][1]]).score, CHRF(word_order=2).corpus_score(hyps, refs).score,
                          TER(normalized=True).corpus_score(hyps, refs).score]))
    """
    ours, theirs = json.loads(run_python(code, shim=True)), json.loads(run_python(code, shim=False))
    assert ours == pytest.approx(theirs, abs=1e-9, rel=0)
