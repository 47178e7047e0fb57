"""Build the slice of ``../shared`` vendored under ``tests/data/shared`` (see its README.md).

The tests read ``../shared`` when it is beside the checkout and this slice
otherwise (``tests/conftest.py``: ``data_path``), so the ΔBLEU published
fixture and one real-data oracle test per metric run everywhere. The slice
keeps ``../shared``'s layout, file names and TSV format (header, TAB, no
quoting), cut to a few segments:

- ``fixtures/deltableu_galley2019.json``: the published ΔBLEU toy case, whole.
- ``data/wmt21_news/en-de``: segments 1-60, every reference (ref-A, C, D and
  the unverified ref-B) and the 8 systems.
- ``data/wmt21_news/zh-en``: segments 491-550 (Online-W's empty hypothesis 515
  is among them), ref-A and the unverified ref-B, and the systems Borderline,
  DIDI-NLP (the first two by name) and Online-W.

Run from the repository root: ``python tools/make_test_data.py [--shared PATH]``.
"""

from __future__ import annotations

import argparse
import csv
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "data" / "shared"
SLICES = {
    "en-de": (range(1, 61), None),
    "zh-en": (range(491, 551), {"Borderline", "DIDI-NLP", "Online-W"}),
}


def copy_rows(src: Path, dst: Path, keep) -> int:
    """Copy the header and the rows ``keep(row)`` accepts; returns the number of rows kept."""
    with open(src, encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
    kept = [r for r in rows if keep(r)]
    dst.parent.mkdir(parents=True, exist_ok=True)
    with open(src, encoding="utf-8", newline="") as fh:
        header = fh.readline()
    with open(dst, "w", encoding="utf-8", newline="") as fh:
        fh.write(header)
        names = header.rstrip("\n").split("\t")
        for r in kept:
            fh.write("\t".join(r[n] for n in names) + "\n")
    return len(kept)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    shared = parser.parse_args().shared
    (OUT / "fixtures").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(shared / "fixtures" / "deltableu_galley2019.json", OUT / "fixtures" / "deltableu_galley2019.json")
    for pair, (segs, systems) in SLICES.items():
        src = shared / "data" / "wmt21_news" / pair
        dst = OUT / "data" / "wmt21_news" / pair
        wanted = {str(s) for s in segs}
        for name in ("references.tsv", "references_unverified.tsv"):
            n = copy_rows(src / name, dst / name, lambda r, wanted=wanted: r["seg_id"] in wanted)
            print(f"{pair}/{name}: {n} rows")
        n = copy_rows(src / "system_outputs.tsv", dst / "system_outputs.tsv",
                      lambda r, wanted=wanted, systems=systems:
                      r["seg_id"] in wanted and (systems is None or r["system"] in systems))
        print(f"{pair}/system_outputs.tsv: {n} rows")
    licences = OUT / "licenses"
    licences.mkdir(exist_ok=True)
    shutil.copyfile(shared / "data" / "licenses" / "Apache-2.0.txt", licences / "Apache-2.0.txt")


if __name__ == "__main__":
    main()
