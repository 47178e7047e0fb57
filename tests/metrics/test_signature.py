"""One signature type: the same line for the same computation on every route, sacreBLEU's where it can be.

sacreBLEU 2.6 is the oracle: wherever it can make the number, bleustats signs
exactly its line (the version field names bleustats); bleustats' own fields
follow only where a setting differs from sacreBLEU's default.
"""

from __future__ import annotations

import pytest
import sacrebleu
from sacrebleu.metrics import BLEU as SacreBLEU
from sacrebleu.metrics import CHRF as SacreCHRF
from sacrebleu.metrics import TER as SacreTER

import bleustats
from bleustats.engine.references import ReferenceSet
from bleustats.engine.stats import compute_stats
from bleustats.metrics import base, bleu, chrf, results, tables, ter

HYPS = ["The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."]
REFS = [["The dog bit the man.", "It was not unexpected.", "The man bit him first."],
        ["The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."]]


def _ours(text: str) -> str:
    return text.replace(f"version:bleustats-{bleustats.__version__}", f"version:{sacrebleu.__version__}").replace(
        f"v:bleustats-{bleustats.__version__}", f"v:{sacrebleu.__version__}")


def _routes(**options) -> dict[str, str]:
    """The BLEU signature line of HYPS / REFS on every route bleustats scores them by."""
    scoring = {k: options[k] for k in ("smooth_method", "smooth_value") if k in options}
    eff = options.get("effective_order", False)
    stat_opts = {k: options[k] for k in ("tokenize", "lowercase", "max_ngram_order") if k in options}
    stats = compute_stats(HYPS, REFS, **stat_opts)
    obj = bleu.BLEU(**options)
    cached = bleu.BLEU(references=ReferenceSet(REFS), **options)  # the kernels' route (a ReferenceSet)
    return {
        "corpus_bleu": str(bleustats.corpus_bleu(HYPS, REFS, use_effective_order=eff, **stat_opts, **scoring)
                           .signature),
        "object": str(obj.corpus_score(HYPS, REFS).signature),
        "object.get_signature": str(obj.get_signature()),
        "object, cached references": str(cached.corpus_score(HYPS).signature),
        "table": str(tables.corpus_score(stats, use_effective_order=eff, **scoring).signature),
        "score_signature": str(tables.score_signature(stats, use_effective_order=eff, **scoring)),
        "groups": tables.corpus_scores(stats, by="system", use_effective_order=eff, **scoring).attrs["signature"],
    }


@pytest.mark.parametrize("options", [
    {},
    {"lowercase": True, "tokenize": "none"},
    {"smooth_method": "floor", "smooth_value": 0.2, "effective_order": True},
    {"smooth_method": "add-k"},
])
def test_every_route_signs_sacrebleus_line(options):
    theirs = SacreBLEU(**options)
    theirs.corpus_score(HYPS, REFS)
    want = theirs.get_signature().format()
    got = _routes(**options)
    assert {route: _ours(line) for route, line in got.items()} == dict.fromkeys(got, want)


def test_a_non_default_order_is_signed_on_every_route():
    lines = set(_routes(max_ngram_order=2).values())
    assert len(lines) == 1
    assert lines.pop().startswith("nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|order:2|version:")


def test_delta_bleu_signs_its_definition_and_weights_on_every_route():
    weights = [[1.0, 0.5, 1.0], [0.25, 1.0, 1.0]]
    stats = compute_stats(HYPS, REFS, ref_weights=weights)
    obj = bleu.BLEU(metric="delta_bleu")
    cached = bleu.BLEU(metric="delta_bleu", references=REFS, ref_weights=weights)
    lines = {
        str(bleustats.corpus_bleu(HYPS, REFS, ref_weights=weights).signature),
        str(tables.corpus_score(stats, metric="delta_bleu").signature),
        tables.corpus_scores(stats, metric="delta_bleu").attrs["signature"],
        str(cached.corpus_score(HYPS).signature),
    }
    assert lines == {f"nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|metric:delta_bleu|delta:paper|w:custom|"
                     f"version:bleustats-{bleustats.__version__}"}
    # BLEU of a weighted table is sacreBLEU's computation: no weight field
    assert "w:" not in str(tables.corpus_score(stats).signature)
    with pytest.raises(ValueError, match="number of references is unknown"):
        obj.get_signature()


def test_bootstrap_fields_stand_where_sacrebleu_puts_them():
    for ours, theirs in ((bleu.BLEU(), SacreBLEU()), (chrf.CHRF(word_order=2), SacreCHRF(word_order=2)),
                         (ter.TER(), SacreTER())):
        ours.corpus_score(HYPS, REFS, n_bootstrap=20)
        theirs.corpus_score(HYPS, REFS, n_bootstrap=20)
        for short in (False, True):
            assert _ours(ours.get_signature().format(short)) == theirs.get_signature().format(short)


def test_one_class_hierarchy_and_sacrebleus_update():
    for cls in (results.BLEUSignature, chrf.CHRFSignature, ter.TERSignature):
        assert issubclass(cls, base.Signature)
    assert results.Signature is base.Signature
    sig = base.Signature.from_fields(("study", "x"))
    sig.update("seed", 7)
    sig.update("ar", 100)
    sig.update("study", "y")
    assert str(sig) == f"ar:100|seed:7|study:y|version:bleustats-{bleustats.__version__}"
    # with_extra appends in order, after the metric's fields (a study's own seed stays among its fields)
    assert str(sig.with_extra(seed=0)).endswith("|study:y|seed:0|version:bleustats-" + bleustats.__version__)
    assert sig.info["seed"] == 7 and sig.info["nrefs"] is None


def test_bleu_signature_is_a_new_object_per_score():
    # made once per option set and copied: sacreBLEU's Signature.update on one score's signature
    # must not reach another's
    from bleustats.metrics.results import bleu_signature

    options = dict(tokenize="13a", lowercase=False, smooth_method="exp", smooth_value=None, effective_order=True,
                   max_ngram_order=4, ref_view="all", weight_threshold=None, weights="uniform", metric="bleu",
                   delta_definition="paper", ref_length="closest")
    first, second = bleu_signature(1, **options), bleu_signature(1, **options)
    assert first is not second and str(first) == str(second)
    first.update("test", "wmt14")
    assert "test:wmt14" in str(first) and "test" not in str(second)
    assert "nrefs:1|" in str(bleu_signature(1, **options))
    assert str(bleu_signature("1.0", **options)).startswith("nrefs:1.0|")
