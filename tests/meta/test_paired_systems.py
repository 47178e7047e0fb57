"""sacreBLEU 2.6's ``significance.PairedTest`` is the oracle for bleustats' PairedTest over BLEU, chrF++ and TER.

Expected numbers come from sacrebleu 2.6.0 run in the same test on the same texts and seed: p-values
exactly equal (same draws, same counts), scores, means and intervals within 1e-9, signatures equal
apart from the version.
"""

from __future__ import annotations

import random

import pytest
import sacrebleu
import sacrebleu.metrics as sm
from sacrebleu.significance import PairedTest as SacrePairedTest

import bleustats
import bleustats.metrics as bm
from bleustats.errors import InputError
from bleustats.significance import PairedTest, Result


def _systems(seed: int = 1, n: int = 120):
    r = random.Random(seed)
    vocab = [f"w{i}" for i in range(40)]
    refs = [[" ".join(r.choice(vocab) for _ in range(r.randint(2, 20))) for _ in range(n)] for _ in range(2)]

    def pert(s, rate):
        return " ".join(w if r.random() > rate else r.choice(vocab) for w in s.split()) or "w1"

    systems = [("base", [pert(s, .3) for s in refs[0]]), ("a", [pert(s, .32) for s in refs[0]]),
               ("b", [pert(s, .5) for s in refs[0]])]
    return systems, refs


def _metrics(module, refs):
    return {"BLEU": module.BLEU(references=refs), "chrF": module.CHRF(word_order=2, references=refs),
            "TER": module.TER(references=refs)}


@pytest.mark.parametrize("test_type,n_conf", [("bs", -1), ("ar", -1), ("ar", 60)])
@pytest.mark.parametrize("seed", ["12345", "3"])
def test_paired_test_equals_sacrebleu(test_type, n_conf, seed, monkeypatch):
    monkeypatch.setenv("SACREBLEU_SEED", seed)
    systems, refs = _systems()
    want_sigs, want = SacrePairedTest(systems, _metrics(sm, refs), None, test_type=test_type, n_samples=150,
                                      n_ar_confidence=n_conf)()
    got_sigs, got = PairedTest(systems, _metrics(bm, refs), None, test_type=test_type, n_samples=150,
                               n_ar_confidence=n_conf)()
    assert list(got) == list(want) == ["System", "BLEU", "chrF2++", "TER"]
    assert got["System"] == want["System"]
    for name in ("BLEU", "chrF2++", "TER"):
        for a, b in zip(got[name], want[name]):
            assert isinstance(a, Result)
            assert a.p_value == b.p_value
            for field in ("score", "mean", "ci"):
                x, y = getattr(a, field), getattr(b, field)
                assert (x is None) == (y is None)
                if x is not None:
                    assert x == pytest.approx(y, abs=1e-9, rel=0), (name, field)
        assert str(got_sigs[name]).replace(f"bleustats-{bleustats.__version__}", "V") == str(
            want_sigs[name]).replace(sacrebleu.__version__, "V")


def test_paired_test_with_references_per_call_and_errors():
    systems, refs = _systems(n=30)
    _, got = PairedTest(systems[:2], {"BLEU": bm.BLEU()}, refs, test_type="bs", n_samples=50)()
    _, want = SacrePairedTest(systems[:2], {"BLEU": sm.BLEU()}, refs, test_type="bs", n_samples=50)()
    assert got["BLEU"][1].p_value == want["BLEU"][1].p_value
    assert repr(Result(1.5, 0.25)) == "score=1.5,p_value=0.25,mean=None,ci=None"
    with pytest.raises(InputError, match="test_type must be 'ar'"):
        PairedTest(systems, {"BLEU": bm.BLEU()}, refs, test_type="xx")
    with pytest.raises(InputError, match="at least one system"):
        PairedTest(systems[:1], {"BLEU": bm.BLEU()}, refs)
