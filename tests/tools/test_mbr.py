"""MBR selection (bleustats.tools.mbr) against a brute-force twin over sacreBLEU matrices, and its file driver.

The twin (tests/twins/mbr.py ``select``) averages each row of a matrix of
sacreBLEU 2.6 ``sentence_score`` values (diagonal left out with
exclude_self) and takes the first best row (lowest for TER).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.metrics import BLEU, CHRF, TER  # noqa: E402

from bleustats.errors import InputError  # noqa: E402
from bleustats.tools.mbr import expected_utilities, mbr_nbest, mbr_select  # noqa: E402
from ..twins import mbr as twin  # noqa: E402
from ..conftest import examples  # noqa: E402

pytestmark = pytest.mark.usefixtures("numba_one_thread")

ORACLES = {"chrf": CHRF(), "chrf++": CHRF(word_order=2), "bleu": BLEU(effective_order=True), "ter": TER()}
ALPHABET = list("aab bc  ") + list(".,'") + ["é", "中", "🙂"]
cand_lists = st.lists(st.lists(st.text(alphabet=st.sampled_from(ALPHABET), max_size=16), min_size=1, max_size=6),
                      min_size=1, max_size=3)


def brute(cands, metric, exclude_self, refs=None):
    oracle = ORACLES[metric]
    out = []
    for s, c in enumerate(cands):
        r = c if refs is None else refs[s]
        matrix = [[oracle.sentence_score(h, [x]).score for x in r] for h in c]
        out.append(twin.select(matrix, loss=metric == "ter", exclude_self=exclude_self))
    return out


def check(result, cands, metric, exclude_self, refs=None):
    want = brute(cands, metric, exclude_self, refs)
    pos = 0
    for s, (expected, best) in enumerate(want):
        got = result.expected_utility[pos:pos + len(cands[s])]
        sign = -1.0 if metric == "ter" else 1.0
        np.testing.assert_allclose(got, sign * np.array(expected), rtol=0, atol=1e-9)
        chosen = int(result.chosen[s]) - pos
        # the twin's choice, unless two distinct utilities are closer than float noise
        best_value = sign * expected[best]
        near = [i for i, e in enumerate(expected) if not math.isnan(e) and abs(sign * e - best_value) < 1e-9]
        assert chosen == best or (chosen in near and chosen == min(near)), (chosen, best, expected)
        assert result.best_texts[s] == cands[s][chosen]
        pos += len(cands[s])


SETTINGS = settings(max_examples=examples(20), deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(cand_lists, st.sampled_from(sorted(ORACLES)), st.booleans())
def test_selection_equals_brute_force(cands, metric, exclude_self):
    check(mbr_select(cands, metric=metric, exclude_self=exclude_self), cands, metric, exclude_self)


@SETTINGS
@given(cand_lists, st.sampled_from(["chrf", "bleu", "ter"]), st.data())
def test_selection_with_separate_pseudo_references(cands, metric, data):
    refs = [data.draw(st.lists(st.text(alphabet=st.sampled_from(ALPHABET), max_size=16), min_size=1, max_size=4))
            for _ in cands]
    check(mbr_select(cands, refs, metric=metric), cands, metric, False, refs)


@pytest.mark.parametrize("metric", sorted(ORACLES))
def test_edge_lists(metric):
    cands = [["", ""], ["same text", "other", "same text"], ["one"], ["Füße 🙂", "Füsse", "中文"]]
    check(mbr_select(cands, metric=metric), cands, metric, False)
    check(mbr_select(cands, metric=metric, exclude_self=True), cands, metric, True)


def test_ties_go_to_the_first_and_identical_candidates_tie_exactly():
    cands = [["b a c", "a b c", "a b c", "b a c"]]
    r = mbr_select(cands, metric="chrf", exclude_self=True)
    assert r.expected_utility[0] == r.expected_utility[3] and r.expected_utility[1] == r.expected_utility[2]
    assert r.chosen.tolist() == [int(np.argmax(r.expected_utility))]
    r = mbr_select([["x y", "x y"]], metric="bleu")
    assert r.chosen.tolist() == [0]


def test_one_candidate_with_exclude_self_is_nan_and_chosen():
    r = mbr_select([["only"]], exclude_self=True)
    assert np.isnan(r.expected_utility[0]) and r.chosen.tolist() == [0] and r.best_texts == ["only"]


def test_ter_is_a_loss():
    r = mbr_select([["a b c", "a b c d", "a b x"]], metric="ter")
    assert r.best_texts == ["a b c"]
    assert (r.expected_utility <= 0).all()


def test_expected_utilities_sorted_sums():
    m = np.array([[1.0, 0.1, 0.2], [0.1, 1.0, 0.3], [0.2, 0.3, 1.0]])
    np.testing.assert_allclose(expected_utilities(m, exclude_self=True), [0.15, 0.2, 0.25])
    with pytest.raises(InputError, match="square"):
        expected_utilities(np.ones((2, 3)), exclude_self=True)


def test_aggregate_selection_uses_pooled_statistics():
    cands = [["the cat sat", "a cat sat", "the dog"]]
    r = mbr_select(cands, metric="chrf", aggregate=True)
    assert r.best_texts == ["the cat sat"] and r.aggregate
    with pytest.raises(InputError, match="TER has no pooled form"):
        mbr_select(cands, metric="ter", aggregate=True)


def test_aggregate_chrf_equals_fastchrf():
    fastchrf = pytest.importorskip("fastchrf")
    cands = [["the cat sat on the mat", "a cat sat on a mat", "the dog sat", "cats!"],
             ["ein Hund", "der Hund bellt", "Hund"]]
    for opts, fopts in ((dict(), dict()), (dict(beta=1, eps_smoothing=True), dict(beta=1.0, eps_smoothing=True)),
                        (dict(whitespace=True, char_order=4), dict(remove_whitespace=False, char_order=4))):
        ours = mbr_select(cands, metric="chrf", aggregate=True, **opts).expected_utility
        theirs = np.concatenate(fastchrf.aggregate_chrf(cands, cands, **fopts))
        np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-9)  # fastchrf returns float64 scores
        pair = np.concatenate([np.asarray(m).mean(axis=1) for m in fastchrf.pairwise_chrf(cands, cands, **fopts)])
        np.testing.assert_allclose(mbr_select(cands, metric="chrf", **opts).expected_utility, pair, rtol=0, atol=1e-9)


def test_errors():
    with pytest.raises(InputError, match="exclude_self"):
        mbr_select([["a"]], [["b"]], exclude_self=True)
    with pytest.raises(InputError, match=r"candidates\[0\] is empty"):
        mbr_select([[]])
    with pytest.raises(InputError, match="2 lists for 1 sources"):
        mbr_select([["a"]], [["b"], ["c"]])


# --------------------------------------------------------------------------- files

NBEST = {0: ["the cat sat on the mat", "a cat sat on a mat", "the cat", ""],
         3: ["hello world", "hello there world"],
         4: ["x"]}


def write_nbest(path, entries=NBEST):
    lines = [f"{s} ||| {h} ||| F0= {-k} ||| {-k}" for s, hs in entries.items() for k, h in enumerate(hs)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_nbest_outputs(tmp_path):
    nb = write_nbest(tmp_path / "nbest.txt")
    r = mbr_nbest(nb, metric="chrf++", output=tmp_path / "o.parquet", best=tmp_path / "best.txt",
                  matrices=tmp_path / "mat", chunk_bytes=40)
    want = mbr_select(list(NBEST.values()), metric="chrf++")
    t = pq.read_table(tmp_path / "o.parquet").to_pandas()
    assert t.columns.tolist() == ["seg_id", "entry", "expected_utility", "chosen"]
    assert t.seg_id.tolist() == [s for s, hs in NBEST.items() for _ in hs]
    assert t.entry.tolist() == [k for hs in NBEST.values() for k in range(len(hs))]
    np.testing.assert_array_equal(t.expected_utility.to_numpy(), want.expected_utility)
    assert t.chosen.sum() == 3 and np.flatnonzero(t.chosen).tolist() == want.chosen.tolist()
    assert (tmp_path / "best.txt").read_text(encoding="utf-8").splitlines() == want.best_texts
    assert sorted(p.name for p in (tmp_path / "mat").iterdir()) == ["0.npy", "3.npy", "4.npy"]
    m0 = np.load(tmp_path / "mat" / "0.npy")
    np.testing.assert_allclose(m0[1, 0], CHRF(word_order=2).sentence_score(NBEST[0][1], [NBEST[0][0]]).score,
                               rtol=0, atol=1e-9)
    assert r.sources.tolist() == [0, 3, 4]


def test_table_input_keeps_input_order_and_systems(tmp_path):
    t = pd.DataFrame({"system": ["A", "A", "B", "B", "C", "C"], "seg_id": [1, 2, 1, 2, 1, 2],
                      "text": ["the cat sat", "x y", "a cat sat", "x y z", "the cat sat down", "x"]})
    path = tmp_path / "outs.tsv"
    t.to_csv(path, sep="\t", index=False)
    r = mbr_nbest(path, metric="bleu", output=tmp_path / "o.parquet")
    o = pq.read_table(tmp_path / "o.parquet").to_pandas()
    assert o.system.tolist() == t.system.tolist() and o.seg_id.tolist() == t.seg_id.tolist()
    assert o.entry.tolist() == [0, 0, 1, 1, 2, 2]
    want = mbr_select([t.text[t.seg_id == s].tolist() for s in (1, 2)], metric="bleu")
    np.testing.assert_array_equal(o.expected_utility[o.seg_id == 1].to_numpy(), want.expected_utility[:3])
    assert r.best_texts == want.best_texts


def test_pseudo_references_file(tmp_path):
    nb = write_nbest(tmp_path / "nbest.txt")
    refs = {0: ["the cat sat on the mat"], 3: ["hello world", "hi world"], 4: ["x", "y"]}
    pr = write_nbest(tmp_path / "refs.txt", refs)
    r = mbr_nbest(nb, pseudo_references=pr, metric="ter")
    want = mbr_select(list(NBEST.values()), list(refs.values()), metric="ter")
    np.testing.assert_array_equal(r.expected_utility, want.expected_utility)
    with pytest.raises(InputError, match=r"no pseudo-reference \(id 4\)"):
        mbr_nbest(nb, pseudo_references=write_nbest(tmp_path / "r2.txt", {0: ["a"], 3: ["b"]}))
    with pytest.raises(InputError, match=r"no candidate \(id 9\)"):
        mbr_nbest(nb, pseudo_references=write_nbest(tmp_path / "r3.txt", {**refs, 9: ["z"]}))


def test_matrices_need_pairs(tmp_path):
    nb = write_nbest(tmp_path / "nbest.txt")
    with pytest.raises(InputError, match="no pairwise matrix"):
        mbr_nbest(nb, aggregate=True, matrices=tmp_path / "m")


# --------------------------------------------------------------------------- long-form tables: rank, no system


def test_table_files_without_system_are_kbest_lists(tmp_path):
    # seg_id repeats without a system column: one k-best list per source, not a key violation
    t = pd.DataFrame({"seg_id": [s for s, hs in NBEST.items() for _ in hs], "text": sum(NBEST.values(), [])})
    want = mbr_select(list(NBEST.values()), metric="chrf")
    for name, write in (("c.parquet", lambda p: t.to_parquet(p, index=False)),
                        ("c.tsv", lambda p: t.to_csv(p, sep="\t", index=False)),
                        ("c.jsonl", lambda p: t.to_json(p, orient="records", lines=True, force_ascii=False))):
        write(tmp_path / name)
        r = mbr_nbest(tmp_path / name, output=tmp_path / "o.parquet")
        np.testing.assert_array_equal(r.expected_utility, want.expected_utility)
        assert r.best_texts == want.best_texts and r.system is None
        assert pq.read_table(tmp_path / "o.parquet").column_names == ["seg_id", "entry", "expected_utility", "chosen"]


def test_rank_orders_each_sources_candidates(tmp_path):
    # source 7's rows are in reverse rank order; source 2 has two identical candidates: the lower rank wins the tie
    t = pd.DataFrame({"seg_id": [7, 2, 7, 2, 7, 2], "rank": [30, 5, 20, 1, 10, 3],
                      "text": ["the cat", "q r", "a cat sat on a mat", "x y", "the cat sat on the mat", "x y"]})
    r = mbr_nbest(t, metric="chrf++", output=tmp_path / "o.parquet")
    lists = {7: ["the cat sat on the mat", "a cat sat on a mat", "the cat"], 2: ["x y", "x y", "q r"]}
    want = mbr_select([lists[2], lists[7]], metric="chrf++")
    assert r.entry.tolist() == [2, 2, 1, 0, 0, 1]
    assert r.best_texts == want.best_texts and r.sources.tolist() == [2, 7]
    by_row = {(s, e): u for s, e, u in zip(r.seg_id, r.entry, r.expected_utility)}
    assert [by_row[(2, e)] for e in range(3)] == want.expected_utility[:3].tolist()
    assert r.chosen.tolist()[0] == 3  # row 3 (rank 1), not row 5 (rank 3, the same text)
    o = pq.read_table(tmp_path / "o.parquet")
    assert o.column_names == ["seg_id", "entry", "rank", "expected_utility", "chosen"]
    assert o.column("rank").to_pylist() == t["rank"].tolist()
    # whole-number floats are ranks too (a pandas column that once held a missing value)
    np.testing.assert_array_equal(mbr_nbest(t.assign(rank=t["rank"].astype(float)), metric="chrf++").entry, r.entry)


@pytest.mark.parametrize("rank, message", [
    ([1, 2, 1, 3], r"nbest: source 0 has rank 1 twice \(rows 0 and 2\); ranks order each source's candidates"),
    ([1, 2.5, 3, 4], r"column rank must hold integers .*; row 1 has 2\.5\."),
    (["1", "b", "3", "4"], r"column rank must hold integers .*; row 1 has 'b'\."),
    ([1, None, 3, 4], r"column rank has 1 empty value\(s\), first at row 1"),
    ([True, False, True, False], r"column rank must hold integers .*; got bool\."),
])
def test_rank_errors_are_one_line(rank, message):
    t = pd.DataFrame({"seg_id": [0, 0, 0, 1], "text": ["a", "b", "c", "d"], "rank": rank})
    with pytest.raises(InputError, match=message) as info:
        mbr_nbest(t)
    assert "\n" not in str(info.value)


def test_rank_in_a_tsv_file_and_in_pseudo_references(tmp_path):
    t = pd.DataFrame({"seg_id": [0, 0, 1], "text": ["a b c", "a b", "x"], "rank": [2, 1, 1]})
    t.to_csv(tmp_path / "c.tsv", sep="\t", index=False)
    assert mbr_nbest(tmp_path / "c.tsv").entry.tolist() == [1, 0, 0]
    t.assign(rank=[1, 1, 1]).to_csv(tmp_path / "bad.tsv", sep="\t", index=False)
    with pytest.raises(InputError, match=r"bad\.tsv: source 0 has rank 1 twice"):
        mbr_nbest(tmp_path / "c.tsv", pseudo_references=tmp_path / "bad.tsv")


# --------------------------------------------------------------------------- partitioned (mbr_partitioned)


def _parts(tmp_path, t, cuts):
    folder = tmp_path / "parts"
    folder.mkdir()
    for i, (a, b) in enumerate(zip([0, *cuts], [*cuts, len(t)])):
        t.iloc[a:b].to_parquet(folder / f"part.{i}.parquet", index=False)
    return folder


def _equal(a, b):
    for name in ("seg_id", "entry", "expected_utility", "chosen", "sources"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    assert a.best_texts == b.best_texts and a.system == b.system and a.metric == b.metric
    assert (a.rank is None and b.rank is None) or a.rank.tolist() == b.rank.tolist()


@pytest.mark.parametrize("metric, kw", [("chrf", {}), ("bleu", {"exclude_self": True}), ("chrf++", {"aggregate": True}),
                                        ("ter", {})])
def test_partitions_equal_the_whole_table(tmp_path, metric, kw):
    from bleustats.tools._mbr_partitioned import mbr_dataset

    rng = np.random.default_rng(5)
    words = ["the", "cat", "sat", "on", "a", "mat", "dog", "Füße", "中文", ""]
    rows = [(s, sys, " ".join(rng.choice(words, rng.integers(0, 7)))) for s in (3, 1, 8, 2, 5) for sys in "ABCD"]
    t = pd.DataFrame(rows, columns=["seg_id", "system", "text"])
    t["rank"] = rng.permutation(len(t))  # distinct everywhere, so within each source
    whole = mbr_nbest(t, metric=metric, output=tmp_path / "w.parquet", best=tmp_path / "w.txt", **kw)
    folder = _parts(tmp_path, t, [8, 12])  # sources 3, 1 | 8 | 2, 5
    got = mbr_dataset(folder, metric=metric, output=tmp_path / "p.parquet", best=tmp_path / "p.txt", **kw)
    _equal(got, whole)
    assert pq.read_table(tmp_path / "p.parquet").equals(pq.read_table(tmp_path / "w.parquet"), check_metadata=True)
    assert (tmp_path / "p.txt").read_bytes() == (tmp_path / "w.txt").read_bytes()
    # a single .parquet file cut at row groups, and an in-memory table cut every 4 rows
    t.to_parquet(tmp_path / "one.parquet", index=False, row_group_size=4)
    _equal(mbr_dataset(tmp_path / "one.parquet", metric=metric, partition_rows=4, **kw), whole)
    _equal(mbr_dataset(t, metric=metric, partition_rows=4, **kw), whole)
    _equal(mbr_nbest(folder, metric=metric, **kw), whole)  # the folder read whole, in-process


def test_partitions_with_matrices_and_pseudo_references(tmp_path):
    from bleustats.tools._mbr_partitioned import mbr_dataset

    t = pd.DataFrame({"seg_id": [s for s, hs in NBEST.items() for _ in hs], "text": sum(NBEST.values(), [])})
    refs = write_nbest(tmp_path / "refs.txt", {0: ["the cat sat on the mat"], 3: ["hello world", "hi"], 4: ["x"]})
    whole = mbr_nbest(t, pseudo_references=refs, metric="bleu", matrices=tmp_path / "mw")
    got = mbr_dataset(_parts(tmp_path, t, [4]), pseudo_references=refs, metric="bleu", matrices=tmp_path / "mp")
    _equal(got, whole)
    for name in ("0.npy", "3.npy", "4.npy"):
        np.testing.assert_array_equal(np.load(tmp_path / "mp" / name), np.load(tmp_path / "mw" / name))
    # pseudo-references as a folder of parts, in rank order: the matrices' columns follow it
    pr = pd.DataFrame({"seg_id": [0, 0, 3, 4], "text": ["a cat", "the cat sat", "hello", "x"], "rank": [2, 1, 1, 1]})
    (tmp_path / "pr").mkdir()
    pr.iloc[:2].to_parquet(tmp_path / "pr" / "part.0.parquet", index=False)
    pr.iloc[2:].to_parquet(tmp_path / "pr" / "part.1.parquet", index=False)
    mbr_nbest(t, pseudo_references=tmp_path / "pr", metric="bleu", matrices=tmp_path / "mr")
    want = mbr_select([NBEST[0]], [["the cat sat", "a cat"]], metric="bleu")
    m0 = np.load(tmp_path / "mr" / "0.npy")
    np.testing.assert_array_equal(m0.mean(axis=1), want.expected_utility)
    assert m0.shape == (4, 2) and m0[0, 0] > m0[0, 1]  # "the cat sat on the mat" against "the cat sat", then "a cat"


def test_a_source_in_two_partitions_is_an_error(tmp_path):
    from bleustats.tools._mbr_partitioned import mbr_dataset

    t = pd.DataFrame({"seg_id": [0, 0, 0, 1], "text": ["a", "b", "c", "d"]})
    folder = _parts(tmp_path, t, [2])
    with pytest.raises(InputError, match=r"source 0 has candidates in .*part\.0\.parquet and in .*part\.1\.parquet"):
        mbr_dataset(folder)
    t.assign(lang="de").to_parquet(folder / "part.1.parquet", index=False)
    with pytest.raises(InputError, match=r"(?s)part\.1\.parquet does not match the 'hypotheses' schema.*unknown column "
                                         r"'lang'"):
        mbr_dataset(folder)
