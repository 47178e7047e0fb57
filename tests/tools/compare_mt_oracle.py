"""compare-mt 0.2.10 as the oracle of ``bleustats compare``: its own report functions on the same lines.

compare-mt is a test extra (``pyproject.toml``, pinned); it is run in-process through the functions its
command line calls (``compare_mt_main.generate_*``), on the lines split as its ``load_tokens`` splits a file
(``line.strip().split(' ')``), with its defaults. Its reporters print their tables; that output is dropped and
the numbers are read from the report objects.
"""

from __future__ import annotations

import contextlib
import io
import logging
from typing import Any, Sequence


VERSION = "0.2.10"


def _modules() -> Any:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    import compare_mt.compare_mt_main as cm  # the oracle, pinned in the test extra: missing, the test fails
    from compare_mt import __version__, reporters

    # compare_mt.reporters calls logging.basicConfig(level=INFO) on import: leave the root logger as it was
    root.handlers[:] = handlers
    root.setLevel(level)
    assert __version__ == VERSION, f"the oracle is pinned to compare-mt {VERSION}; got {__version__}"
    return cm, reporters


def tokens(lines: Sequence[str]) -> list[list[str]]:
    """compare-mt's ``corpus_utils.load_tokens`` of a file holding ``lines``."""
    return [line.strip().split(" ") for line in lines]


def run(ref_lines: Sequence[str], systems: Sequence[Sequence[str]]) -> dict[str, Any]:
    """compare-mt's numbers for one reference stream and the systems (sys1 is the first)."""
    cm, reporters = _modules()
    ref = tokens(ref_lines)
    outs = [tokens(s) for s in systems]
    reporters.sys_names = [f"sys{i + 1}" for i in range(len(outs))]
    out: dict[str, Any] = {}
    with contextlib.redirect_stdout(io.StringIO()):
        out["bleu"] = list(cm.generate_score_report(ref, outs, score_type="bleu").scores)
        out["length_ratio"] = list(cm.generate_score_report(ref, outs, score_type="length").scores)
        r = cm.generate_word_accuracy_report(ref, outs)
        out["word_labels"] = list(r.bucketer.bucket_strs)
        for name, i in (("word_recall_by_frequency", 3), ("word_precision_by_frequency", 4),
                        ("word_fmeasure_by_frequency", 5)):
            out[name] = [[float(m[i]) for m in s] for s in r.statistics]
        out["word_ref_counts"] = [int(m[1]) for m in r.statistics[0]]
        for name, kwargs in (("bleu_by_length", dict(bucket_type="length", statistic_type="score",
                                                     score_measure="bleu")),
                             ("count_by_length_difference", dict(bucket_type="lengthdiff")),
                             ("count_by_sentence_bleu", dict(bucket_type="score", score_measure="sentbleu"))):
            r = cm.generate_sentence_bucketed_report(ref, outs, **kwargs)
            out[name] = [list(s) for s in r.sys_stats]
            out[name + "_labels"] = list(r.bucketer.bucket_strs)
        if len(outs) > 1:
            for kind in ("match", "over", "under"):
                r = cm.generate_ngram_report(ref, outs, compare_type=kind)
                out[f"ngram_{kind}"] = [(" ".join(k), v) for k, v in r.scorelist[0]]
            r = cm.generate_sentence_examples(ref, outs)
            out["examples"] = [(i, s1, s2) for _, s1, s2, _, _, i in r.scorediff_lists[0]]
    return out
