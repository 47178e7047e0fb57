"""Moses dense features (bleustats.tools.nbest_features), FEATURES_TXT, and SCORES_TXT's average reference length.

Expected strings come from Moses' C++ sources: mert/Data.cpp (feature names ``label_i``),
mert/FeatureArray.cpp and mert/FeatureStats.cpp (FEATURES_TXT layout, values held as
``float`` and printed with ``std::ostream << float``), and mert/Reference.h (``CalcAverage``
returns ``static_cast<int>`` of the average). The value strings below were printed by g++
(``std::cout << static_cast<float>(atof(s))``); the same program, extended to the whole
layout, wrote byte-identical FEATURES_TXT for all 15 lists in ../shared/data/moses_nbest.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from bleustats import cli
from bleustats.errors import InputError
from bleustats.engine.stats import compute_stats
from bleustats.tools import kbest, nbest_io
from bleustats.tools import nbest_features as nf

pytestmark = pytest.mark.usefixtures("numba_one_thread")


def test_parse_layout_values_and_names():
    vals, layout = nf.parse_features(["d= 0 -7.66174 lm= -41.3435 w= -9", "d= 1e-3 2 lm= 0.5 w= -3"])
    assert layout == (("d", 2), ("lm", 1), ("w", 1))
    assert vals.dtype == np.float64 and vals.flags.c_contiguous
    assert vals.tolist() == [[0.0, -7.66174, -41.3435, -9.0], [0.001, 2.0, 0.5, -3.0]]
    assert nf.feature_names(layout) == ["d_0", "d_1", "lm_0", "w_0"]
    assert nf.layout_string(layout) == "d= x2 lm= x1 w= x1"
    # a given layout is enforced (another chunk or file of the same list)
    assert nf.parse_features(["d= 1 2 lm= 3 w= 4"], layout=layout)[0].tolist() == [[1.0, 2.0, 3.0, 4.0]]
    # extra whitespace is fine
    assert nf.parse_features(["  a=  1\t2 "])[0].tolist() == [[1.0, 2.0]]


@pytest.mark.parametrize("lines,message", [
    (["a= 1 2 b= 3", "a= 1 b= 2 3"], (r"nb: line 2: features 'a= 1 b= 2 3' have layout a= x1 b= x2; the list's "
                                     r"entries have a= x2 b= x1")),
    (["a= 1 2 b= 3", "b= 3 a= 1 2"], r"line 2: .* have layout b= x1 a= x2"),
    (["a= 1 2 b= 3", "a= 1 2 c= 3"], r"line 2: .* have layout a= x2 c= x1"),
    (["a= 1 2 b= 3", "a= 1 2 b= 3 4"], r"line 2: .* have layout a= x2 b= x2"),
    (["a= 1 2", "a= 1 x"], r"nb: line 2: feature a_1 must be a finite number; got 'x'"),
    (["a= 1 nan"], r"line 1: feature a_1 must be a finite number; got 'nan'"),
    (["a= 1 tm_x= 2"], r"line 1: 'tm_x=' is a sparse feature .* bleustats tunes dense features only"),
    (["1 a= 2"], r"line 1: features must start with a label ending in '='"),
    ([""], r"line 1: the features field is empty"),
    (["a= b= 1"], r"line 1: label 'a=' has no values"),
    (["a= 1 a= 2"], r"line 1: label\(s\) a= appear more than once"),
])
def test_parse_errors_name_the_line_and_layout(lines, message):
    with pytest.raises(InputError, match=message):
        nf.parse_features(lines, what="nb")


def test_parse_errors_count_lines_from_first_line():
    with pytest.raises(InputError, match=r"f.txt: line 12: .* have layout a= x1"):
        nf.parse_features(["a= 1 2", "a= 1"], what="f.txt", first_line=11)


def test_features_txt_layout_and_float_format():
    layout = (("x", 3),)
    values = [[0.1234567, 1e-7, 123456789.0], [-0.0, 2.5, 100000.5], [1000000.0, 999999.5, 0.00001],
              [-7.66174, 1e30, 0.0001]]
    text = nf.format_features_txt([4, 4, 7, 7], values, layout)
    # value strings as g++ prints the float: std::cout << static_cast<float>(v)
    assert text == ("FEATURES_TXT_BEGIN_0 4 2 3 x_0 x_1 x_2 \n"
                    "0.123457 1e-07 1.23457e+08 \n"
                    "-0 2.5 100000 \n"
                    "FEATURES_TXT_END_0\n"
                    "FEATURES_TXT_BEGIN_0 7 2 3 x_0 x_1 x_2 \n"
                    "1e+06 1e+06 1e-05 \n"
                    "-7.66174 1e+30 0.0001 \n"
                    "FEATURES_TXT_END_0\n")
    assert nf.format_features_txt([], np.zeros((0, 3)), layout) == ""
    with pytest.raises(ValueError, match=r"values must have shape \(len\(seg_id\), 3\)"):
        nf.format_features_txt([0], [[1.0, 2.0]], layout)


def test_kbest_features_txt_equals_the_parsed_features(tmp_path):
    nb = tmp_path / "nb.txt"
    lines = [f"{i // 3} ||| w{i} x ||| d= {i * 0.37:.5f} -1 lm= {-i * 3.1:.4f} w= -2 ||| 0" for i in range(9)]
    nb.write_text("\n".join(lines) + "\n", encoding="utf-8")
    ref = tmp_path / "ref.txt"
    ref.write_text("w1 x\nw4 x\nw7 x\n", encoding="utf-8")
    out = tmp_path / "features.dat"
    for chunk_bytes in (40, 1 << 20):  # several chunks: one layout, line numbers continue
        kbest.score_nbest(nb, ref, tokenize="none", features_txt=out, chunk_bytes=chunk_bytes)
        vals, layout = nf.parse_features([ln.split(" ||| ")[2] for ln in lines])
        assert out.read_text() == nf.format_features_txt([i // 3 for i in range(9)], vals, layout)
    bad = tmp_path / "bad.txt"
    bad.write_text("\n".join(lines[:7] + ["2 ||| a ||| d= 1 lm= 2 w= 3 ||| 0"]) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"bad.txt: line 8: features 'd= 1 lm= 2 w= 3' have layout d= x1"):
        kbest.score_nbest(bad, ref, tokenize="none", features_txt=tmp_path / "f2.dat", chunk_bytes=40)
    assert not (tmp_path / "f2.dat").exists()  # written whole or not at all
    import pandas as pd

    table = pd.DataFrame({"seg_id": [0], "text": ["a"]})
    with pytest.raises(InputError, match="features_txt: the input has no features"):
        kbest.score_nbest(table, ref, tokenize="none", features_txt=tmp_path / "f3.dat")


def test_cli_kbest_features_txt(tmp_path, capsys):
    nb = tmp_path / "nb.txt"
    nb.write_text("0 ||| a b ||| lm= -1.5 w= -2 ||| 0\n0 ||| a ||| lm= -1 w= -1 ||| 0\n", encoding="utf-8")
    ref = tmp_path / "ref.txt"
    ref.write_text("a b\n", encoding="utf-8")
    out = tmp_path / "f.dat"
    assert cli.main(["kbest", str(nb), str(ref), "-tok", "none", "--features-txt", str(out)]) == 0
    assert out.read_text() == ("FEATURES_TXT_BEGIN_0 0 2 2 lm_0 w_0 \n-1.5 -2 \n-1 -1 \nFEATURES_TXT_END_0\n")
    assert f"wrote {out}" in capsys.readouterr().err


def test_scores_txt_average_reference_length_is_truncated_like_moses(tmp_path):
    # mert/Reference.h CalcAverage: static_cast<int>(float(total) / n): lengths 3, 4 -> 3; 2, 2, 3 -> 2
    hyps = compute_stats(["a b c", "x y"], [["a b c", "x y"], ["a b c d", "x y"], ["a b", "x y z"]],
                         tokenize="none")
    p = tmp_path / "scores.dat"
    nbest_io.write_scores_txt(hyps, p, ref_length="average")
    body = [ln for ln in p.read_text().splitlines() if not ln.startswith("SCORES_TXT")]
    assert [ln.split()[-1] for ln in body] == ["3", "2"]  # averages 3.0 and 2.333...
    two = compute_stats(["a b c"], [["a b c"], ["a b c d"]], tokenize="none")
    nbest_io.write_scores_txt(two, p, ref_length="average")
    assert p.read_text().splitlines()[1].split()[-1] == "3"  # average 3.5
    assert p.read_text().splitlines()[1].endswith(" ")  # every value followed by a space, as Moses


def test_moses_weight_lines_round_trip(tmp_path):
    layout = (("d", 2), ("lm", 1), ("w", 1))
    w = np.array([0.1, -0.25, 1.0 / 3.0, -1.0])
    lines = nf.moses_weight_lines(w, layout)
    assert lines == ["d= 0.1 -0.25", "lm= 0.3333333333333333", "w= -1"]
    p = tmp_path / "weights.ini"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert np.array_equal(nf.read_init_weights(p, layout), w)
    j = tmp_path / "w.json"
    j.write_text(json.dumps({"weights": dict(zip(nf.feature_names(layout), w.tolist()))}), encoding="utf-8")
    assert np.array_equal(nf.read_init_weights(j, layout), w)
    opt = tmp_path / "init.opt"
    opt.write_text("0.1 -0.25 0.3333333333333333 -1\n0 0 0 0\n1 1 1 1\n", encoding="utf-8")
    assert np.array_equal(nf.read_init_weights(opt, layout), w)


@pytest.mark.parametrize("name,text,message", [
    ("init.opt", "1 2 3\n", (r"line 1 has 3 weights; the n-best list has 4 features \(d= x2 lm= x1 w= x1: "
                            r"d_0 d_1 lm_0 w_0\)")),
    ("init.opt", "1 2 x 4\n", r"line 1: weights must be finite numbers; got 'x'"),
    ("w.ini", "d= 1 2\nlm= 3\n", r"the weights do not match the n-best features \(d= x2 lm= x1 w= x1\): w= missing"),
    ("w.ini", "d= 1\nlm= 3\nw= 1\n", r"d= has 1 values, the list has 2"),
    ("w.ini", "d= 1 2\nlm= 3\nw= 1\ntm= 2\n", r"tm= is not a feature of the list"),
    ("w.json", '{"weights": {"d_0": 1, "d_1": 2, "lm_0": 3}}', r"missing w_0"),
    ("w.json", '{"weights": {"d_0": 1, "d_1": 2, "lm_0": 3, "w_0": 1, "x_0": 2}}', r"not features of the list: x_0"),
    ("w.json", '[1, 2]', r"expected a JSON object with a 'weights' object"),
    ("empty.opt", "\n", r"the file is empty"),
])
def test_init_weights_errors(tmp_path, name, text, message):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=message):
        nf.read_init_weights(p, (("d", 2), ("lm", 1), ("w", 1)))


def test_init_weights_missing_file(tmp_path):
    with pytest.raises(InputError, match=r"init: .*nope.opt: no such file"):
        nf.read_init_weights(tmp_path / "nope.opt", (("w", 1),))
