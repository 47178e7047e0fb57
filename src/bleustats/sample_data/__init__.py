"""Sample data shipped with bleustats: WMT21 en-de, MQM-rated segments (see README.md).

>>> from bleustats import sample_data
>>> sorted(p.name for p in sample_data.paths().values())
['human_scores.tsv', 'hypotheses.tsv', 'references.tsv']
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

__all__ = ["EXAMPLE_FILES", "example_files", "paths"]

#: the files the README's command-line examples read, as :func:`example_files` writes them
EXAMPLE_FILES = ("hyps.tsv", "refs.tsv", "mqm.tsv", "hyp.txt", "sys2.txt", "ref0.txt", "ref1.txt",
                 "w0.txt", "w1.txt", "nbest.txt")


def paths() -> dict[str, Path]:
    """Paths of the sample's ``hypotheses``, ``references`` and ``human_scores`` tables."""
    root = resources.files(__name__)
    return {name: Path(str(root.joinpath(f"{name}.tsv"))) for name in ("hypotheses", "references", "human_scores")}


def example_files() -> dict[str, bytes]:
    """The README's example files, made from the sample: file name -> content (UTF-8 bytes).

    The sample's three tables as ``hyps.tsv``, ``refs.tsv`` and ``mqm.tsv``;
    one system's outputs as ``hyp.txt`` and another's as ``sys2.txt``, one
    line per segment in ``seg_id`` order; references A and C as ``ref0.txt``
    / ``ref1.txt`` with their MQM-derived weights as ``w0.txt`` / ``w1.txt``;
    and the eight systems' outputs as an 8-best list ``nbest.txt`` in Moses
    format (source ids are 0-based line numbers of ``ref0.txt``; entry ``j``
    has the feature ``F0= -j`` and the total score ``-j``).

    Examples
    --------
    >>> files = example_files()
    >>> sorted(files) == sorted(EXAMPLE_FILES)
    True
    >>> files["ref0.txt"].count(b"\\n") == files["hyp.txt"].count(b"\\n") == 527
    True
    >>> files["nbest.txt"].splitlines()[1].split(b" ||| ")[2]
    b'F0= -1'
    """
    import pandas as pd

    tables = paths()
    hyps = pd.read_csv(tables["hypotheses"], sep="\t", quoting=3, keep_default_na=False)
    refs = pd.read_csv(tables["references"], sep="\t", quoting=3, keep_default_na=False)
    segs = sorted(hyps["seg_id"].unique())
    systems = list(dict.fromkeys(hyps["system"]))

    def lines(texts) -> bytes:
        return "".join(f"{t}\n" for t in texts).encode("utf-8")

    def system_lines(name: str) -> bytes:
        return lines(hyps[hyps["system"] == name].set_index("seg_id").loc[segs, "text"])

    files = {name: tables[key].read_bytes()
             for name, key in (("hyps.tsv", "hypotheses"), ("refs.tsv", "references"), ("mqm.tsv", "human_scores"))}
    files["hyp.txt"] = system_lines(systems[0])
    files["sys2.txt"] = system_lines(sorted(set(systems) - {systems[0]})[0])
    for k, ref_id in enumerate(["ref-A", "ref-C"]):
        rows = refs[refs["ref_id"] == ref_id].set_index("seg_id").loc[segs]
        files[f"ref{k}.txt"] = lines(rows["text"])
        files[f"w{k}.txt"] = lines(repr(float(w)) for w in rows["weight"])
    index = {s: i for i, s in enumerate(segs)}
    files["nbest.txt"] = lines(
        f"{index[s]} ||| {t} ||| F0= {-j} ||| {-j}.0"
        for s, group in hyps.groupby("seg_id", sort=True) for j, t in enumerate(group["text"]))
    return files
