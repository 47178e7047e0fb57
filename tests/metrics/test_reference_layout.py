"""One rule for list references at every entry point: sacreBLEU's streams, or per-hypothesis lists by name.

``[[r1], [r2]]`` for two hypotheses is sacreBLEU's layout misused (sacreBLEU itself zips the
streams with the hypotheses and silently scores only the first segment). Every entry point
(``corpus_bleu`` / ``corpus_chrf`` / ``corpus_ter``, ``compute_stats``, the metric objects with
references given to the call or to the constructor) refuses it with the same message, which
explains sacreBLEU's layout and names ``references_layout='segments'``; with that option the
lists are one list of references per hypothesis, and the scores are those of the transposed
streams (sacreBLEU 2.6 computes the expected values in the test).
"""

from __future__ import annotations

import pytest
import sacrebleu

import bleustats
from bleustats.engine.references import ReferenceSet
from bleustats.engine.stats import compute_stats
from bleustats.errors import InputError

HYPS = ["the cat sat on the mat", "a dog barked at the moon"]
PER_HYP = [["the cat is on the mat"], ["the dog barks at the moon"]]  # one list per hypothesis
RULE = (r"^references\[0\] has 1 line but there are 2 hypotheses\. sacreBLEU's layout is one list per reference "
        r"stream, each as long as the hypotheses: .*If references holds one list of references per hypothesis "
        r".*, pass references_layout='segments'")

ENTRY_POINTS = {
    "corpus_bleu": lambda refs: bleustats.corpus_bleu(HYPS, refs),
    "corpus_chrf": lambda refs: bleustats.corpus_chrf(HYPS, refs),
    "corpus_ter": lambda refs: bleustats.corpus_ter(HYPS, refs),
    "compute_stats": lambda refs: compute_stats(HYPS, refs),
    "compute_stats chrf ter": lambda refs: compute_stats(HYPS, refs, metrics=("bleu", "chrf", "ter")),
    "BLEU.corpus_score": lambda refs: bleustats.BLEU().corpus_score(HYPS, refs),
    "CHRF.corpus_score": lambda refs: bleustats.CHRF().corpus_score(HYPS, refs),
    "TER.corpus_score": lambda refs: bleustats.TER().corpus_score(HYPS, refs),
    "BLEU(references=)": lambda refs: bleustats.BLEU(references=refs).corpus_score(HYPS),
    "CHRF(references=)": lambda refs: bleustats.CHRF(references=refs).corpus_score(HYPS),
    "TER(references=)": lambda refs: bleustats.TER(references=refs).corpus_score(HYPS),
}


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_per_hypothesis_lists_are_refused_with_one_message(entry: str) -> None:
    with pytest.raises(InputError, match=RULE):
        ENTRY_POINTS[entry](PER_HYP)


def test_streams_as_long_as_the_hypotheses_are_sacrebleus_layout() -> None:
    # two references for each of 2 hypotheses, as sacreBLEU's two streams: scored as sacreBLEU does
    refs = [["the cat is on the mat", "the dog barks"], ["a cat on a mat", "a dog at the moon"]]
    assert bleustats.corpus_bleu(HYPS, refs).score == pytest.approx(sacrebleu.corpus_bleu(HYPS, refs).score,
                                                                     abs=1e-9, rel=0)
    # the same lists for three hypotheses: refused, never re-read as per-hypothesis lists
    for score in (bleustats.corpus_bleu, bleustats.corpus_chrf, bleustats.corpus_ter):
        with pytest.raises(InputError, match=r"references\[0\] has 2 lines but there are 3 hypotheses\. sacreBLEU"):
            score([*HYPS, "x"], refs)


def test_named_layout_scores_as_the_transposed_streams() -> None:
    streams = [list(r) for r in zip(*PER_HYP)]
    for ours, theirs in ((bleustats.corpus_bleu, sacrebleu.corpus_bleu), (bleustats.corpus_chrf,
                                                                         sacrebleu.corpus_chrf),
                         (bleustats.corpus_ter, sacrebleu.corpus_ter)):
        got = ours(HYPS, PER_HYP, references_layout="segments").score
        assert got == pytest.approx(theirs(HYPS, streams).score, abs=1e-9, rel=0)
    for cls, theirs_cls in ((bleustats.BLEU, sacrebleu.BLEU), (bleustats.CHRF, sacrebleu.CHRF),
                            (bleustats.TER, sacrebleu.TER)):
        got = cls(references=ReferenceSet(PER_HYP, layout="segments")).corpus_score(HYPS).score
        assert got == pytest.approx(theirs_cls().corpus_score(HYPS, streams).score, abs=1e-9, rel=0)
