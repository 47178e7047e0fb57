"""The fast engine against the plain-Python twin (tests/twins/engine.py), row by row.

Random corpora (hypothesis) and hand-picked edge cases are scored by
``bleustats.compute_stats`` and by ``reference_segment_stats``; every integer
column must agree exactly and every float column to 1e-9 (relative).
"""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bleustats

from ..twins.engine import DEFINITIONS, reference_segment_stats
from ..conftest import examples

# the kernels themselves: small inputs would otherwise take the plain-Python path
pytestmark = pytest.mark.usefixtures("kernel_path")

# Tokens never contain whitespace; the unicode ones check that nothing assumes
# ASCII or one byte per character.
VOCAB = ["a", "b", "c", "d", "e", "f", "é", "中文", "ß", "🙂", "ﬁ", "x.y", "Ω", "naïve"]
UNICODE = ["é", "中文", "ß", "🙂", "ﬁ", "Ω", "naïve", "الْ", "ㄱ", "\u0301a"]

INT_COLUMNS = ("hyp_len", "ref_len_closest", "ref_len_shortest", "n_refs")
FLOAT_COLUMNS = ("ref_len_average", "ref_weight_max")

SETTINGS = settings(
    max_examples=examples(20),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# --------------------------------------------------------------------------
# Running both sides
# --------------------------------------------------------------------------


def engine_rows(hyps, refs, weights, max_order, definition, **view):
    """Score token-list corpora with the engine; one dict per hypothesis row."""
    table = bleustats.compute_stats(
        [" ".join(h) for h in hyps],
        [[" ".join(r) for r in seg_refs] for seg_refs in refs],
        ref_weights=[list(map(float, w)) for w in weights],
        references_layout="segments",
        tokenize="none",
        max_ngram_order=max_order,
        delta_definition=definition,
        **view,
    )
    arrow = table.table
    assert arrow.num_rows == len(hyps)
    return arrow, arrow.to_pylist()


def view_filter(seg_refs, seg_weights, ref_view="all", weight_threshold=None):
    """The references (and weights) of one segment that a reference view keeps."""
    if ref_view == "all":
        return seg_refs, seg_weights
    if ref_view == "first":
        return seg_refs[:1], seg_weights[:1]
    if ref_view == "threshold":
        kept = [(r, w) for r, w in zip(seg_refs, seg_weights) if w >= weight_threshold]
        return [r for r, _ in kept], [w for _, w in kept]
    raise ValueError(ref_view)


def close(a, b):
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def assert_row_equal(row, twin, max_order, where):
    """Integers exactly, floats to 1e-9 relative."""
    for col in INT_COLUMNS + tuple(
        f"{kind}_{n}" for n in range(1, max_order + 1) for kind in ("match", "total")
    ):
        assert row[col] == twin[col], f"{col} at {where}: engine {row[col]} twin {twin[col]}"
    for col in FLOAT_COLUMNS + tuple(
        f"{kind}_{n}" for n in range(1, max_order + 1) for kind in ("wmatch", "wtotal")
    ):
        assert close(row[col], twin[col]), f"{col} at {where}: engine {row[col]!r} twin {twin[col]!r}"


def assert_same(hyps, refs, weights, max_order, definition="paper", **view):
    arrow, rows = engine_rows(hyps, refs, weights, max_order, definition, **view)
    names = set(arrow.column_names)
    expected_cols = set(INT_COLUMNS) | set(FLOAT_COLUMNS) | {"seg_id", "system"}
    for n in range(1, max_order + 1):
        expected_cols |= {f"match_{n}", f"total_{n}", f"wmatch_{n}", f"wtotal_{n}"}
    assert expected_cols <= names, f"missing columns {sorted(expected_cols - names)}"
    assert f"match_{max_order + 1}" not in names

    for i, (hyp, seg_refs, seg_w, row) in enumerate(zip(hyps, refs, weights, rows)):
        kept_refs, kept_w = view_filter(seg_refs, seg_w, **view)
        twin = reference_segment_stats(hyp, kept_refs, kept_w, max_order, definition)
        assert_row_equal(row, twin, max_order, f"segment {i} (N={max_order}, {definition}, view={view})")
    return arrow, rows


# --------------------------------------------------------------------------
# Strategies
# --------------------------------------------------------------------------

WEIGHTS = st.one_of(
    st.floats(min_value=-1.0, max_value=1.0, allow_nan=False),
    st.sampled_from([-1.0, -0.5, 0.0, 0.25, 0.5, 1.0]),
)


@st.composite
def segment_weights(draw, n_refs):
    """n_refs weights in [-1, 1] with at least one strictly positive."""
    w = [draw(WEIGHTS) for _ in range(n_refs)]
    if max(w) <= 0:
        w[draw(st.integers(0, n_refs - 1))] = draw(
            st.floats(min_value=1e-3, max_value=1.0) | st.just(1.0)
        )
    return w


@st.composite
def corpora(draw, max_segments=6, max_refs=5, lengths=(0, 1, 2, 3, 5, 8, 13), vocab=VOCAB):
    """(hyps, refs, weights) of token lists; every segment has >= 1 reference."""
    size = draw(st.sampled_from([1, 2, 3, len(vocab)]))
    seg_vocab = draw(st.permutations(vocab))[:size]
    max_len = draw(st.sampled_from(lengths))
    tokens = st.lists(st.sampled_from(seg_vocab), max_size=max_len)
    n_seg = draw(st.integers(1, max_segments))
    hyps, refs, weights = [], [], []
    for _ in range(n_seg):
        hyps.append(draw(tokens))
        n_refs = draw(st.integers(1, max_refs))
        refs.append([draw(tokens) for _ in range(n_refs)])
        weights.append(draw(segment_weights(n_refs)))
    return hyps, refs, weights


ORDERS = st.integers(min_value=1, max_value=9)


# --------------------------------------------------------------------------
# Random corpora
# --------------------------------------------------------------------------


@SETTINGS
@given(data=corpora(), max_order=ORDERS, definition=st.sampled_from(DEFINITIONS))
def test_random_corpora_all_references(data, max_order, definition):
    hyps, refs, weights = data
    assert_same(hyps, refs, weights, max_order, definition)


@SETTINGS
@given(data=corpora(vocab=["a", "b"], lengths=(4, 10, 30)), max_order=ORDERS)
def test_heavily_repeated_ngrams(data, max_order):
    hyps, refs, weights = data
    for definition in DEFINITIONS:
        assert_same(hyps, refs, weights, max_order, definition)


@SETTINGS
@given(data=corpora(vocab=UNICODE), max_order=ORDERS, definition=st.sampled_from(DEFINITIONS))
def test_unicode_tokens(data, max_order, definition):
    hyps, refs, weights = data
    assert_same(hyps, refs, weights, max_order, definition)


@settings(max_examples=examples(8), deadline=None, suppress_health_check=list(HealthCheck))
@given(
    data=corpora(max_segments=3, max_refs=3, lengths=(200,), vocab=["a", "b", "c"]),
    max_order=ORDERS,
    definition=st.sampled_from(DEFINITIONS),
)
def test_long_lines(data, max_order, definition):
    hyps, refs, weights = data
    assert_same(hyps, refs, weights, max_order, definition)


@SETTINGS
@given(
    data=corpora(),
    max_order=ORDERS,
    definition=st.sampled_from(DEFINITIONS),
    frac=st.floats(min_value=0.0, max_value=1.0),
    low=st.floats(min_value=-1.0, max_value=0.0),
)
def test_threshold_view(data, max_order, definition, frac, low):
    hyps, refs, weights = data
    # θ between -1 and the smallest per-segment max weight, so that every
    # segment keeps at least one reference (its best one); sometimes exactly
    # equal to a weight, to check that the comparison is w >= θ.
    top = min(max(w) for w in weights)
    theta = low + frac * (top - low)
    if frac > 0.8:
        theta = top
    assert_same(
        hyps, refs, weights, max_order, definition, ref_view="threshold", weight_threshold=theta
    )


@SETTINGS
@given(data=corpora(), max_order=ORDERS, definition=st.sampled_from(DEFINITIONS))
def test_first_view(data, max_order, definition):
    hyps, refs, weights = data
    # The first reference alone must have a positive weight for ΔBLEU to be
    # defined; make it so.
    weights = [[abs(w[0]) or 0.5] + w[1:] for w in weights]
    assert_same(hyps, refs, weights, max_order, definition, ref_view="first")


@settings(max_examples=examples(5), deadline=None, suppress_health_check=list(HealthCheck))
@given(
    data=corpora(max_segments=2, max_refs=60, lengths=(0, 3, 8)),
    max_order=ORDERS,
    definition=st.sampled_from(DEFINITIONS),
)
def test_many_references_random(data, max_order, definition):
    hyps, refs, weights = data
    assert_same(hyps, refs, weights, max_order, definition)


# --------------------------------------------------------------------------
# Hand-picked edge cases
# --------------------------------------------------------------------------


@pytest.mark.parametrize("definition", DEFINITIONS)
def test_one_thousand_references(definition):
    rng = random.Random(1234)
    vocab = ["a", "b", "c", "d", "🙂"]
    refs = [[rng.choice(vocab) for _ in range(rng.randint(0, 12))] for _ in range(1000)]
    weights = [rng.uniform(-1, 1) for _ in range(1000)]
    weights[rng.randrange(1000)] = 1.0
    hyps = [[rng.choice(vocab) for _ in range(10)], ["a", "b", "a", "b", "a"], []]
    refs_by_seg = [refs, refs[::-1], refs[:500]]
    weights_by_seg = [weights, weights[::-1], weights[:499] + [0.9]]
    _, rows = assert_same(hyps, refs_by_seg, weights_by_seg, 4, definition)
    assert [r["n_refs"] for r in rows] == [1000, 1000, 500]
    assert_same(
        hyps, refs_by_seg, weights_by_seg, 9, definition, ref_view="threshold", weight_threshold=0.5
    )


@pytest.mark.parametrize("max_order", [1, 4, 9])
@pytest.mark.parametrize("definition", DEFINITIONS)
def test_one_token_and_repeated_lines(max_order, definition):
    hyps = [["a"], ["a"], ["b"], ["a", "a"], ["a"] * 12, ["🙂"], ["a", "b"] * 6]
    refs = [
        [["a"]],
        [["b"], ["a"], ["a", "b", "c"]],
        [["a"]],  # no overlap at all
        [["a"], ["a", "a"]],
        [["a"] * 3, ["a"] * 20],
        [["🙂"] * 2, ["🙂", "a"]],
        [["a", "b"] * 2, ["b", "a"] * 9],
    ]
    weights = [[0.4], [0.0, 0.5, 1.0], [0.3], [1.0, -0.5], [-1.0, 0.2], [0.1, 0.6], [0.5, 0.5]]
    _, rows = assert_same(hyps, refs, weights, max_order, definition)
    assert rows[1]["ref_len_closest"] == 1 and rows[1]["ref_len_shortest"] == 1
    assert rows[3]["wmatch_1"] == (1.0 if definition == "paper" else 2.0)
    assert rows[4]["match_1"] == 12 and rows[4]["wmatch_1"] == pytest.approx(12 * 0.2)


@pytest.mark.parametrize("max_order", [1, 4, 9])
@pytest.mark.parametrize("definition", DEFINITIONS)
def test_empty_lines_and_tiny_lines(max_order, definition):
    hyps = [[], ["a"], [], ["a"], ["a", "a"], ["b"], ["a"] * 12]
    refs = [
        [["a", "b"]],
        [["a"]],
        [[]],  # empty hypothesis against an empty reference
        [[], ["a"], []],  # empty references next to a one-token one
        [["a"], ["a", "a"]],
        [["a"]],  # no overlap at all
        [["a"] * 3, ["a"] * 20],
    ]
    weights = [[1.0], [0.4], [1.0], [0.0, 0.5, 1.0], [1.0, -0.5], [0.3], [-1.0, 0.2]]
    _, rows = assert_same(hyps, refs, weights, max_order, definition)
    assert rows[0]["hyp_len"] == 0 and rows[0]["total_1"] == 0
    assert rows[3]["ref_len_closest"] == 1 and rows[3]["ref_len_shortest"] == 0
    assert rows[4]["wmatch_1"] == (1.0 if definition == "paper" else 2.0)


@pytest.mark.parametrize("definition", DEFINITIONS)
def test_empty_lines_all_hypotheses(definition):
    hyps = [[], [], []]
    refs = [[["a"]], [[], ["b", "c"]], [["🙂"] * 5]]
    weights = [[1.0], [0.5, -1.0], [0.1]]
    assert_same(hyps, refs, weights, 4, definition)
    assert_same(hyps, refs, weights, 4, definition, ref_view="first")


def test_prefix_shared_but_ngram_absent():
    """Hypothesis n-grams whose (n-1)-prefix is in a reference but which are not."""
    hyps = [["a", "b", "c", "d"], ["a", "b", "x", "a", "b", "c"]]
    refs = [[["a", "b", "d"], ["b", "c", "a"]], [["a", "b", "c"], ["x", "a", "b", "y"]]]
    weights = [[1.0, 0.5], [0.7, -0.2]]
    for definition in DEFINITIONS:
        assert_same(hyps, refs, weights, 5, definition)


def test_definitions_differ_case():
    hyps = [["a", "a"]]
    refs = [[["a"], ["a", "a"]]]
    weights = [[1.0, -0.5]]
    _, paper = assert_same(hyps, refs, weights, 1, "paper")
    _, g19 = assert_same(hyps, refs, weights, 1, "galley2019")
    assert paper[0]["wmatch_1"] == 1.0 and g19[0]["wmatch_1"] == 2.0
    assert paper[0]["wtotal_1"] == g19[0]["wtotal_1"] == 2.0


@pytest.mark.parametrize("max_order", range(1, 10))
def test_every_order_uniform_weights(max_order):
    rng = random.Random(max_order)
    vocab = ["a", "b", "c"]
    hyps = [[rng.choice(vocab) for _ in range(rng.randint(0, 15))] for _ in range(6)]
    refs = [
        [[rng.choice(vocab) for _ in range(rng.randint(0, 15))] for _ in range(rng.randint(1, 4))]
        for _ in range(6)
    ]
    weights = [[1.0] * len(r) for r in refs]
    _, rows = assert_same(hyps, refs, weights, max_order, "paper")
    for row in rows:  # weights 1 => ΔBLEU statistics are the BLEU statistics
        for n in range(1, max_order + 1):
            assert row[f"wmatch_{n}"] == row[f"match_{n}"]
            assert row[f"wtotal_{n}"] == row[f"total_{n}"]


def test_column_types():
    arrow, _ = assert_same([["a", "b"]], [[["a", "b"], ["b"]]], [[1.0, 0.5]], 3, "paper")
    import pyarrow as pa

    schema = arrow.schema
    for col in INT_COLUMNS + ("match_1", "total_3"):
        assert schema.field(col).type == pa.int64(), col
    for col in FLOAT_COLUMNS + ("wmatch_2", "wtotal_3"):
        assert schema.field(col).type == pa.float64(), col


# --------------------------------------------------------------------------
# Raw strings, chunking, long-form tables
# --------------------------------------------------------------------------

WHITESPACE = [" ", "  ", "\t", "\n", "\xa0", "\u3000", "\u2028", "\x1c", "\u2009"]


@SETTINGS
@given(
    data=corpora(max_segments=4, max_refs=3, lengths=(0, 1, 3, 6)),
    seps=st.lists(st.sampled_from(WHITESPACE), min_size=1, max_size=4),
    pad=st.sampled_from(["", " ", "\t ", "\u3000"]),
    max_order=st.integers(1, 4),
)
def test_raw_whitespace_strings(data, seps, pad, max_order):
    """Any run of (Unicode) whitespace separates tokens, leading/trailing is ignored,
    as ``str.split()`` (and so sacreBLEU's 'none' tokenizer) does."""
    hyps, refs, weights = data

    def messy(tokens):
        return pad + "".join(t + seps[i % len(seps)] for i, t in enumerate(tokens)) + pad

    hyp_text = [messy(h) for h in hyps]
    ref_text = [[messy(r) for r in seg] for seg in refs]
    rows = bleustats.compute_stats(
        hyp_text, ref_text, ref_weights=weights, references_layout="segments",
        tokenize="none", max_ngram_order=max_order,
    ).table.to_pylist()
    for h, seg, w, row in zip(hyp_text, ref_text, weights, rows):
        twin = reference_segment_stats(h.split(), [r.split() for r in seg], w, max_order)
        assert_row_equal(row, twin, max_order, f"{h!r} vs {seg!r}")


@SETTINGS
@given(
    data=corpora(max_segments=7),
    chunk=st.integers(1, 3),
    max_order=st.integers(1, 5),
    definition=st.sampled_from(DEFINITIONS),
)
def test_chunk_boundaries(data, chunk, max_order, definition):
    hyps, refs, weights = data
    table = bleustats.compute_stats(
        [" ".join(h) for h in hyps],
        [[" ".join(r) for r in seg] for seg in refs],
        ref_weights=weights, references_layout="segments", tokenize="none",
        max_ngram_order=max_order, delta_definition=definition, chunk_segments=chunk,
    )
    for h, seg, w, row in zip(hyps, refs, weights, table.table.to_pylist()):
        twin = reference_segment_stats(h, seg, w, max_order, definition)
        assert_row_equal(row, twin, max_order, f"chunk_segments={chunk}")


@st.composite
def long_form(draw):
    """Long-form hypotheses (several systems, shuffled rows) and references
    (rows of different segments interleaved), as pandas DataFrames."""
    import pandas as pd

    hyps, refs, weights = draw(corpora(max_segments=4, max_refs=4))
    n_seg = len(refs)
    seg_ids = draw(st.permutations([10 * k + 3 for k in range(n_seg)]))  # arbitrary ids
    systems = ["sysA", "sysB", "sysC"][: draw(st.integers(1, 3))]
    vocab = sorted({t for seg in refs for r in seg for t in r} | {"zz"})
    hyp_rows = []
    for k in range(n_seg):
        for s_i, system in enumerate(systems):
            toks = hyps[k] if s_i == 0 else draw(st.lists(st.sampled_from(vocab), max_size=8))
            hyp_rows.append((seg_ids[k], system, toks))
    hyp_rows = draw(st.permutations(hyp_rows))
    # Interleave the references of different segments, keeping each segment's order.
    queues = [[(seg_ids[k], j, refs[k][j], weights[k][j]) for j in range(len(refs[k]))]
              for k in range(n_seg)]
    ref_rows = []
    while any(queues):
        k = draw(st.sampled_from([i for i, q in enumerate(queues) if q]))
        ref_rows.append(queues[k].pop(0))
    hyp_df = pd.DataFrame(
        {"seg_id": [r[0] for r in hyp_rows], "system": [r[1] for r in hyp_rows],
         "text": [" ".join(r[2]) for r in hyp_rows]}
    )
    ref_df = pd.DataFrame(
        {"seg_id": [r[0] for r in ref_rows], "ref_id": [f"ref{r[1]}" for r in ref_rows],
         "weight": [r[3] for r in ref_rows], "text": [" ".join(r[2]) for r in ref_rows]}
    )
    by_seg = {seg_ids[k]: (refs[k], weights[k]) for k in range(n_seg)}
    return hyp_df, ref_df, by_seg


@SETTINGS
@given(
    data=long_form(),
    max_order=st.integers(1, 6),
    definition=st.sampled_from(DEFINITIONS),
    view=st.sampled_from(["all", "first", "threshold"]),
)
def test_long_form_tables(data, max_order, definition, view):
    hyp_df, ref_df, by_seg = data
    kwargs = {}
    if view == "threshold":
        kwargs["weight_threshold"] = min(max(w) for _, w in by_seg.values())
    if view == "first":  # the first reference must carry a positive weight
        for _r, w in by_seg.values():
            if w[0] <= 0:
                return
    table = bleustats.compute_stats(
        hyp_df, ref_df, tokenize="none", max_ngram_order=max_order,
        delta_definition=definition, ref_view=view, **kwargs,
    )
    rows = table.table.to_pylist()
    assert len(rows) == len(hyp_df)
    for (_, hyp), row in zip(hyp_df.iterrows(), rows):
        # Rows come back in the order of the input hypotheses.
        assert row["seg_id"] == hyp["seg_id"] and row["system"] == hyp["system"]
        seg_refs, seg_w = view_filter(*by_seg[hyp["seg_id"]], ref_view=view, **kwargs)
        twin = reference_segment_stats(hyp["text"].split(), seg_refs, seg_w, max_order, definition)
        assert_row_equal(row, twin, max_order, f"seg {hyp['seg_id']} system {hyp['system']}")


@pytest.mark.parametrize("definition", DEFINITIONS)
def test_two_hundred_token_lines(definition):
    rng = random.Random(200)
    hyps = [[rng.choice("ab") for _ in range(200)], ["a"] * 200, ["a", "b"] * 100]
    refs = [
        [[rng.choice("ab") for _ in range(200)], [rng.choice("ab") for _ in range(190)]],
        [["a"] * 199, ["a"] * 201, ["b"] * 150],
        [["b", "a"] * 100, ["a", "b"] * 50, [rng.choice("abc") for _ in range(200)]],
    ]
    weights = [[0.3, 0.9], [-0.2, 0.1, 1.0], [1.0, -1.0, 0.4]]
    for max_order in (1, 4, 9):
        _, rows = assert_same(hyps, refs, weights, max_order, definition)
        assert [r["hyp_len"] for r in rows] == [200, 200, 200]
        assert rows[1]["ref_len_closest"] == 199  # 199 and 201 tie: the shorter wins


def test_threshold_leaving_no_reference_is_an_error():
    with pytest.raises(ValueError):
        bleustats.compute_stats(
            ["a b"], [["a", "b"]], ref_weights=[[0.2, 0.4]], references_layout="segments",
            tokenize="none", ref_view="threshold", weight_threshold=0.5,
        )


def test_to_pandas_matches_arrow():
    table = bleustats.compute_stats(
        ["a b a", ""], [["a b", "a"], ["b"]], ref_weights=[[0.5, -0.5], [1.0]],
        references_layout="segments", tokenize="none", max_ngram_order=2,
    )
    df = table.to_pandas()
    assert list(df.columns) == table.table.column_names
    assert df.to_dict("records") == table.table.to_pylist()


# --------------------------------------------------------------------------
# Long lines with a hub token: a token followed by many distinct tokens makes
# the trie's child lists long (a trie would make one long line quadratic), so a
# hypothesis over TRIE_MAX_TOKENS (256) tokens takes the reference-indexed
# path; both sides of that edge must give the twin's counts.
# --------------------------------------------------------------------------


@st.composite
def hub_lines(draw, length):
    """A line where 'the' is followed by many distinct tokens (natural text's shape, at length)."""
    n_words = draw(st.integers(2, length))
    words = [f"w{i}" for i in range(n_words)]
    out = []
    while len(out) < length:
        if draw(st.booleans()):
            out.append("the")
        out.append(draw(st.sampled_from(words)))
    return out[:length]


@settings(max_examples=examples(6), deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data(), max_order=st.sampled_from([1, 2, 4, 6]), definition=st.sampled_from(DEFINITIONS),
       n_hyps=st.sampled_from([1, 2]), length=st.sampled_from([256, 257, 600]))
def test_long_lines_with_a_hub_token(data, max_order, definition, n_hyps, length):
    # one hypothesis of 256 tokens takes the trie path; 257 or two hypotheses the reference-indexed one
    hyps = [data.draw(hub_lines(length)) for _ in range(n_hyps)]
    refs = [[data.draw(hub_lines(600)), data.draw(hub_lines(300))] for _ in range(n_hyps)]
    weights = [data.draw(segment_weights(2)) for _ in range(n_hyps)]
    assert_same(hyps, refs, weights, max_order, definition)


@pytest.mark.big
@pytest.mark.parametrize("definition", DEFINITIONS)
def test_one_long_line_of_natural_shape(definition):
    # 30,000 tokens, Zipf-distributed over 3,000 words: every frequent word has a large fan-out
    rng = random.Random(13)
    words = [f"w{i}" for i in range(3000)]
    cum = [1.0 / (i + 1) for i in range(len(words))]

    def line(n):
        return rng.choices(words, weights=cum, k=n)

    hyps = [line(30_000)]
    refs = [[line(30_000), line(20_000)]]
    assert_same(hyps, refs, [[1.0, 0.5]], 4, definition)
