"""Build the sample shipped in ``src/bleustats/sample_data`` from ``../shared/data``.

WMT21 news en-de, the 527 MQM-rated segments: the 8 MQM-scored system outputs
(hypotheses.tsv), the three verified references ref-A, ref-C, ref-D with ΔBLEU
weights taken from their own MQM scores (references.tsv), and the systems'
segment MQM scores (human_scores.tsv). Weight transform (linear): MQM score
s in [-25, 0] → w = 1 + 2 s / 25 in [-1, 1], so an error-free reference gets 1.

Run from the repository root: ``python tools/make_sample_data.py``.
"""

from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT.parent / "shared" / "data" / "wmt21_news" / "en-de"
OUT = ROOT / "src" / "bleustats" / "sample_data"
REFS = ["ref-A", "ref-C", "ref-D"]


def read(name: str) -> pd.DataFrame:
    return pd.read_csv(SRC / name, sep="\t", quoting=3, keep_default_na=False, dtype={"text": str})


def main() -> None:
    mqm = read("mqm_seg_scores.tsv")
    rated = sorted(mqm.loc[mqm.is_reference == 0, "seg_id"].unique())
    systems = mqm.loc[(mqm.is_reference == 0) & (mqm.text_in == "system_outputs"), ["system", "seg_id", "score"]]
    hyps = read("system_outputs.tsv")
    hyps = hyps[hyps.seg_id.isin(rated)].sort_values(["system", "seg_id"], kind="stable")
    refs = read("references.tsv").rename(columns={"ref": "ref_id"})
    refs = refs[refs.ref_id.isin(REFS) & refs.seg_id.isin(rated)]
    ref_mqm = mqm.loc[mqm.is_reference == 1, ["system", "seg_id", "score"]].rename(columns={"system": "ref_id"})
    refs = refs.merge(ref_mqm, on=["ref_id", "seg_id"], how="left", validate="one_to_one")
    assert refs.score.notna().all(), "every sampled reference has an MQM score"
    refs["weight"] = (1.0 + 2.0 * refs.score / 25.0).clip(-1.0, 1.0).round(6)
    refs = refs.sort_values(["seg_id", "ref_id"], kind="stable")[["seg_id", "ref_id", "weight", "text"]]
    human = systems.merge(hyps[["system", "seg_id"]], on=["system", "seg_id"])
    human = human.sort_values(["system", "seg_id"], kind="stable").rename(columns={"score": "mqm"})
    OUT.mkdir(parents=True, exist_ok=True)
    for name, df in [("hypotheses.tsv", hyps[["seg_id", "system", "text"]]),
                     ("references.tsv", refs), ("human_scores.tsv", human)]:
        df.to_csv(OUT / name, sep="\t", index=False, quoting=3, lineterminator="\n")
        print(name, len(df))


if __name__ == "__main__":
    main()
