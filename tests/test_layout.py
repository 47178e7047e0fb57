"""The package's shape: floors that import only downward, no reach-ins, small files, a light import.

The floors, from the bottom: shared basics (``errors``, ``_validate``,
``_version``, the shipped data) → ``tokenizers`` → ``engine`` → ``metrics`` →
``meta`` → ``tools`` → ``cli``; the top-level facades (``__init__``,
``compat``, ``significance``, ``sacrebleu_shim``) gather names from below. A module may import
from its own floor or any floor below, never above; the import graph has no
cycle; no module reads another module's private (``_``) names; no module is
over ~700 lines of code. Every import counts, also those inside functions.
"""

from __future__ import annotations

import ast
import functools
import re
import subprocess
import sys
from pathlib import Path

import pytest

import bleustats

PACKAGE = Path(bleustats.__file__).resolve().parent

#: floor of each top-level name under bleustats (lower imports nothing higher)
FLOORS = {
    "_version": 0, "errors": 0, "_validate": 0, "_kernel_cache": 0, "_interrupts": 0, "_lazy": 0,
    "data_schemas": 0, "sample_data": 0,
    "tokenizers": 1, "engine": 2, "metrics": 3, "meta": 4, "tools": 5, "distributed": 5, "cli": 6,
    "_legacy": 7, "__init__": 7, "__main__": 7, "_launch": 7, "_warm": 7, "compat": 7, "significance": 7,
    "sacrebleu_shim": 7,
}
MAX_CODE_LINES = 700


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(["bleustats", *parts])] = path
    return out


MODULES = _modules()


def _floor(module: str) -> int:
    return FLOORS[module.split(".")[1] if "." in module else "__init__"]  # "bleustats" is the __init__


def _resolve(module: str, path: Path, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    base = package.split(".")
    if node.level > 1:
        base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _imports(module: str, path: Path) -> list[tuple[str, list[str], int]]:
    """(imported bleustats module, names taken from it, line) for every import in the file."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(a.name, [], node.lineno) for a in node.names if a.name.split(".")[0] == "bleustats"]
        elif isinstance(node, ast.ImportFrom):
            target = _resolve(module, path, node)
            if target.split(".")[0] != "bleustats":
                continue
            for alias in node.names:  # `from .x import y` may name a submodule y
                sub = f"{target}.{alias.name}"
                if sub in MODULES:
                    found.append((sub, [], node.lineno))
                else:
                    found.append((target, [alias.name], node.lineno))
    return found


@functools.cache
def graph() -> dict[str, list[tuple[str, list[str], int]]]:
    """Every module's imports of bleustats modules (parsed once, by the worker that runs these tests)."""
    return {m: _imports(m, p) for m, p in MODULES.items()}


def test_floors_import_only_downward() -> None:
    bad = [f"{m}:{line} imports {target} (floor {_floor(target)} > {_floor(m)})"
           for m, edges in graph().items() for target, _, line in edges
           if target in MODULES and _floor(target) > _floor(m)]
    assert not bad, "\n".join(bad)


def test_import_graph_has_no_cycle() -> None:
    edges = {m: {t for t, _, _ in graph()[m] if t in MODULES and t != m} for m in MODULES}
    # a package's __init__ importing its own submodules is not a cycle of code: drop parent -> child edges
    edges = {m: {t for t in ts if not t.startswith(m + ".")} for m, ts in edges.items()}
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        path.append(m)
        for t in sorted(edges[m]):
            if state.get(t) == 1:
                raise AssertionError("import cycle: " + " -> ".join(path[path.index(t):] + [t]))
            if t not in state:
                visit(t)
        path.pop()
        state[m] = 2

    for m in sorted(edges):
        if m not in state:
            visit(m)


def test_no_module_reads_another_modules_private_names() -> None:
    bad = []
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        aliases = {}  # local name -> bleustats module it refers to
        for target, names, line in graph()[module]:
            for name in names:
                if name.startswith("_") and name != "__version__":
                    bad.append(f"{module}:{line} imports the private name {name} from {target}")
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                target = _resolve(module, path, node)
                for a in node.names:
                    if f"{target}.{a.name}" in MODULES:
                        aliases[a.asname or a.name] = f"{target}.{a.name}"
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.name in MODULES and a.asname:
                        aliases[a.asname] = a.name
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in aliases and node.attr.startswith("_") and not node.attr.startswith("__")):
                bad.append(f"{module}:{node.lineno} reads {aliases[node.value.id]}.{node.attr}")
    assert not bad, "\n".join(bad)


def _code_lines(path: Path) -> int:
    source = path.read_text(encoding="utf-8")
    docs = set()
    for node in ast.walk(ast.parse(source)):
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            docs.update(range(body[0].lineno, body[0].end_lineno + 1))
    return sum(1 for i, line in enumerate(source.splitlines(), 1)
               if line.strip() and not line.strip().startswith("#") and i not in docs)


def test_no_module_is_over_700_lines_of_code() -> None:
    big = {m: n for m, p in MODULES.items() if (n := _code_lines(p)) > MAX_CODE_LINES}
    assert not big, big


def test_numba_only_in_private_kernel_modules() -> None:
    users = sorted(m for m, p in MODULES.items()
                   if "numba" in {a.split(".")[0] for n in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
                                  if isinstance(n, (ast.Import, ast.ImportFrom))
                                  for a in ([x.name for x in n.names] if isinstance(n, ast.Import)
                                            else [n.module or ""])})
    # the kernel modules, and the one module that asks numba for its thread count
    allowed = {m for m in MODULES if m.rsplit(".", 1)[-1].endswith("_kernels")}
    wrappers = {"bleustats.engine._threads",  # numba's thread count, or 1 on a thread running kernels serially
                "bleustats._kernel_cache"}  # numba's compile events and cache locators (a broken cache set aside)
    assert set(users) <= allowed | wrappers, sorted(set(users) - allowed - wrappers)
    jitted = sorted(m for m, p in MODULES.items() if "@njit" in p.read_text(encoding="utf-8"))
    assert set(jitted) <= allowed, jitted


def test_import_bleustats_is_light() -> None:
    code = ("import sys, bleustats; heavy = sorted({m.split('.')[0] for m in sys.modules} & "
            "{'numpy', 'numba', 'pandas', 'scipy', 'pyarrow', 'matplotlib', 'regex'}); print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]", out


#: bleustats 0.1's flat modules and their public names (git show 1fba21b:src/bleustats/<module>.py)
OLD_ALL = {
    "analysis": ["FILLER", "CorpusReport", "OutlierAnalysis", "PermutationCheck", "Permutations", "ReferenceDraw",
                 "Segmentation", "check_permutations", "corpus_report", "leave_one_out_r2", "log10_factorial",
                 "permute_chunks", "plot_permutation_counts", "r_squared", "reference_draw", "reference_draws",
                 "segment_bigrams", "segment_corpus"],
    "combine": ["ENGINE_COMPONENTS", "CrossValidation", "PairwiseCombination", "break_ties", "component_scores",
                "cross_validate", "fit_pairwise", "normalize_scores", "ranking_pairs", "system_scores",
                "tie_break_epsilon", "uniform_combination"],
    "correlation": ["CORRELATION_METHODS", "GROUPINGS", "KENDALL_VARIANTS", "CorrelationResult",
                    "fisher_z_interval", "kendall_tau", "pearson", "segment_correlation", "spearman",
                    "system_correlation"],
    "encode": ["string_buffers", "token_lists"],
    "io": ["InputError", "REFERENCE_LAYOUTS", "TABLE_SUFFIXES", "as_hypotheses_table", "as_references_table",
           "iter_line_chunks", "lines_table", "read_lines", "read_table", "read_weights", "streams_table",
           "write_atomic"],
    "kbest": ["KBestResult", "oracle_rows", "one_best_rows", "read_nbest", "read_references", "score_nbest",
              "selection_bleu", "write_scores_txt"],
    "resample": ["SeedLike", "aggregation_matrix", "as_generator", "bootstrap_indices", "unit_partitions",
                 "unit_sums"],
    "results": ["BLEUScore", "Signature"],
    "schemas": ["TABLES", "SchemaError", "load_schema", "arrow_schema", "validate"],
    "scoring": ["METRICS", "REF_LENGTHS", "SMOOTH_DEFAULTS", "SMOOTH_METHODS", "bleu_from_sums", "bleu_scores",
                "corpus_score", "corpus_scores", "sentence_scores"],
    "sentence": ["CHEN_CHERRY_DEFAULTS", "NAKOV_FIXES", "SENTENCE_METRICS", "STATISTICS", "SentenceMetric",
                 "SentenceStats", "background_vector", "chiang_gain", "get_metric", "pseudo_document_bleu",
                 "required_order", "sentence_metric", "sentence_metrics", "sentence_stats", "stats_vectors",
                 "update_background"],
    "stats": ["DELTA_DEFINITIONS", "MAX_ORDER_LIMIT", "REF_VIEWS", "StatsTable", "compute_stats",
              "compute_stats_files", "load_stats"],
    "study": ["HUMAN_COLUMNS", "INTERVALS", "METRIC_KINDS", "PAPER_UNIT_SIZES", "REF_VIEW_LABELS", "STATISTICS",
              "SWEEP_PARAMETERS", "UNMATCHED", "StudyResult", "UnitMetric", "corpus_metric", "correlation_study",
              "mean_metric", "plot_sweeps", "sentence_mean_metric", "sweep", "table2", "to_markdown"],
    "tokenize": ["DEFAULT_TOKENIZER", "TOKENIZERS", "tokenize_lines", "tokenizer_signature"],
    "trees": ["DEFAULT_LAMBDA", "DISCOTK_REPRESENTATIONS", "Tree", "TreeBatch", "discotk_light",
              "discourse_kernels", "discourse_tree", "encode_trees", "format_tree", "parse_rst", "parse_tree",
              "tree_kernel", "tree_kernels"],
    "significance": ["CORRELATION_LEVELS", "CORRELATION_TESTS", "CorrelationDifferenceResult", "PairedTestResult",
                     "WilliamsResult", "correlation_difference_test", "estimate_ci",
                     "paired_approximate_randomization", "paired_bootstrap", "williams_test"],
    "compat": ["corpus_bleu", "corpus_bleu_files", "sentence_bleu"],
    # modules merged or made private since (their public names, each now in the alias's targets)
    "engine.partitioned_stats": ["compute_stats_dataset", "compute_stats_files_dataset"],
    "metrics.partitioned": ["corpus_score", "corpus_scores", "n_systems", "score_variants", "sentence_scores",
                            "table_metric_of"],
    "meta.paired_systems": ["PairedTest", "Result"],
    "meta.partitioned": ["paired_bootstrap", "paired_approximate_randomization", "corpus_metric", "rated_rows",
                         "sentence_mean_metric"],
    "tools.kbest_partitioned": ["kbest_oracles", "score_nbest_dataset"],
    "tools.mbr_partitioned": ["mbr_dataset"],
}
#: bleustats 0.1's top-level __all__
OLD_TOP = ["__version__", "BLEUScore", "Signature", "StatsTable", "StudyResult", "bleu_from_sums", "break_ties",
           "component_scores", "compute_stats", "compute_stats_files", "corpus_bleu", "corpus_bleu_files",
           "corpus_metric", "corpus_score", "corpus_scores", "correlation_difference_test", "correlation_study",
           "cross_validate", "discotk_light", "fisher_z_interval", "fit_pairwise", "kendall_tau", "load_stats",
           "mean_metric", "normalize_scores", "paired_approximate_randomization", "paired_bootstrap", "pearson",
           "segment_correlation", "sentence_bleu", "sentence_mean_metric", "sentence_scores", "spearman", "sweep",
           "system_correlation", "tree_kernel", "tree_kernels", "uniform_combination", "williams_test"]


def test_every_old_top_level_name_still_works() -> None:
    assert set(OLD_TOP) <= set(bleustats.__all__)
    for name in bleustats.__all__:
        assert getattr(bleustats, name) is not None, name


@pytest.mark.parametrize("old", sorted(OLD_ALL))
def test_old_module_paths_still_work(old: str) -> None:
    import importlib

    name = f"bleustats.{old}"
    if old in ("significance", "compat"):  # public modules of the new layout too: no warning
        module = importlib.import_module(name)
    else:
        sys.modules.pop(name, None)
        with pytest.warns(DeprecationWarning, match=f"{name} moved to bleustats\\."):
            module = importlib.import_module(name)
    for attr in OLD_ALL[old]:
        assert getattr(module, attr) is not None, f"{name}.{attr}"


def test_renamed_keywords_still_work_with_a_warning() -> None:
    st = bleustats.compute_stats(["a b c"], [["a b c"]], tokenize="none")
    from bleustats.metrics.sentence import score_variant

    with pytest.warns(DeprecationWarning, match="statistic= is now metric="):
        old = score_variant(st, "bleu+1", statistic="bleu", max_ngram_order=2)
    assert old.tolist() == score_variant(st, "bleu+1", metric="bleu", max_ngram_order=2).tolist()
    with pytest.raises(bleustats.InputError, match="pass metric= only"):
        score_variant(st, "bleu+1", statistic="bleu", metric="bleu")


def test_architecture_page_matches_the_tree() -> None:
    """docs/architecture.md (the guide's page on the package's floors) names every sub-package and module."""
    page = (PACKAGE.parents[1] / "docs" / "architecture.md")
    if not page.exists():
        pytest.skip("not running from a source checkout")
    text = page.read_text(encoding="utf-8")
    section = text[text.index("# Architecture"):]
    section = section[: section.index("\n## ", 1)]
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()} - {"data_schemas", "sample_data"}
    for name in packages:
        assert f"{name}/" in section, f"docs/architecture.md misses {name}/"
        floor_modules = {p.stem for p in (PACKAGE / name).glob("*.py") if p.stem != "__init__"}
        for stem in floor_modules:
            assert stem in section, f"docs/architecture.md misses {name}/{stem}"


def test_sub_package_docstrings_name_every_module() -> None:
    """Each sub-package's docstring (``src/bleustats/*/__init__.py``) names every one of its modules.

    The docstring is the map a reader opens first; a module added or renamed without a line
    there is a module nobody finds.
    """
    missing = []
    for init in sorted(PACKAGE.glob("*/__init__.py")):
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
        for module in sorted(p.stem for p in init.parent.glob("*.py") if p.stem != "__init__"):
            if not re.search(rf"(?<![\w]){re.escape(module)}(?![\w])", doc):
                missing.append(f"{init.parent.name}/{module}")
    assert not missing, f"modules the sub-package docstrings do not name: {missing}"


# --------------------------------------------------------------------------- the public surface
#: a user holds the public API in their head: sacreBLEU's names plus the statistics, scoring, meta and tools
#: entry points at the top level, each package's entry points in its ``__all__``; everything else is private
MAX_TOP_LEVEL = 58
MAX_PACKAGE_ALL = 24
MAX_MODULE_ALL = 24  # sacrebleu_shim.package holds sacreBLEU's 22 top-level names
MAX_PUBLIC_MODULES = 92


def _is_public(module: str) -> bool:
    return not any(part.startswith("_") for part in module.split(".")[1:])


PUBLIC = sorted(m for m in MODULES if _is_public(m))
#: packages of code (bleustats.data_schemas, in the wheel only, holds the JSON schemas and no names)
PUBLIC_PACKAGES = sorted(m for m in PUBLIC if MODULES[m].name == "__init__.py" and m != "bleustats.data_schemas")


def _public_module(name: str):  # noqa: ANN202
    import importlib

    if name.startswith("bleustats.distributed"):
        pytest.importorskip("distributed", reason="bleustats.distributed needs the dask extra")
    return importlib.import_module(name)


def test_top_level_names_and_public_modules_are_bounded() -> None:
    assert len(bleustats.__all__) <= MAX_TOP_LEVEL, f"{len(bleustats.__all__)} top-level names: {bleustats.__all__}"
    assert len(PUBLIC) <= MAX_PUBLIC_MODULES, f"{len(PUBLIC)} public modules; make internal ones _private"


@pytest.mark.parametrize("name", PUBLIC_PACKAGES)
def test_every_public_package_lists_its_entry_points(name: str) -> None:
    package = _public_module(name)
    assert isinstance(getattr(package, "__all__", None), (list, tuple)), f"{name} has no __all__"
    bound = MAX_TOP_LEVEL if name == "bleustats" else MAX_PACKAGE_ALL
    assert 0 < len(package.__all__) <= bound, f"{name}.__all__ has {len(package.__all__)} names"
    for attr in package.__all__:
        assert getattr(package, attr) is not None, f"{name}.{attr}"


@pytest.mark.parametrize("name", PUBLIC)
def test_all_lists_are_bounded_and_export_only_their_own_floor(name: str) -> None:
    """An ``__all__`` stays short, and names an object of a private module only where that module lives.

    ``bleustats.engine`` may list what ``engine/_partitioned_stats.py`` defines (its own private
    module, and ``bleustats`` gathers entry points from every floor); ``bleustats.metrics.tables``
    may not list an object of ``bleustats.engine._small``: a private module's object is reached
    through its own package.
    """
    module = _public_module(name)
    names = getattr(module, "__all__", None)
    if names is None:
        return
    assert len(names) <= (MAX_TOP_LEVEL if name == "bleustats" else MAX_MODULE_ALL), f"{name}: {len(names)}"
    package = name if MODULES[name].name == "__init__.py" else name.rsplit(".", 1)[0]
    bad = []
    for attr in names:
        origin = getattr(getattr(module, attr), "__module__", None) or ""
        if origin.startswith("bleustats.") and not _is_public(origin) and name != "bleustats":
            owner = origin.rsplit(".", 1)[0]
            if owner != package or origin.rsplit(".", 1)[-1].startswith("__"):
                bad.append(f"{attr} (defined in {origin})")
    assert not bad, f"{name}.__all__ names objects of other floors' private modules: {bad}"
