"""``bleustats stats``: compute the per-hypothesis statistics table once and save it to Parquet.

``-o`` is one Parquet file, or a partitioned *dataset folder*
(:mod:`bleustats.engine.dataset`: one Parquet part per partition) when it
ends with ``/``, is a dataset folder already, or (not ending in ``.parquet``)
the hypotheses are a folder of Parquet parts or the run is on Dask. A dataset
is written with bounded memory: line-aligned plain-text files chunk by
chunk (``--batch-rows`` lines), a hypotheses table given as a folder of
Parquet parts (or one ``.parquet`` file) partition by partition with one
references table (:mod:`bleustats.engine._partitioned_stats`); memory then
holds the references and one batch. ``--dask ADDRESS`` runs the partitions on
a Dask cluster (``local:N`` for N local worker processes)::

    bleustats stats --dask local:2 REFS.parquet -i HYPS_DIR -o STATS_DIR

A single ``.parquet`` output holds the whole table in memory first (except
from a folder of parts or on Dask, where a dataset is written, then copied
into the file batch by batch). A TSV / JSONL hypotheses table is read whole,
then computed partition by partition (on the cluster too); standard input is
read whole.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._interrupts import deferred
from ..engine._options import DEFAULT_BATCH_ROWS
from ..errors import InputError, UsageError
from ._errors import guarded
from .main import COMMANDS
from ._options import CHRF_TER_OPTIONS, Command, positive_int
from ._progress import note, reporter, step
from .sacrebleu_cli import METRIC_NAMES
from .score import compute_from_args, statistics_options

if TYPE_CHECKING:
    from ..engine.dataset import StatsDataset

__all__ = ["EXAMPLES", "add_parser", "run"]

#: Everyday command lines (its ``--help``, the README, the kernels compiled into the wheel: bleustats._warm).
EXAMPLES = (
    "bleustats stats ref0.txt -i hyp.txt -o stats.parquet           # compute once ...",
    "bleustats score --from-stats stats.parquet -s add-k            # ... rescore without the texts",
    "bleustats score --from-stats stats.parquet --max-ngram-order 2 # any lower order, from the same table",
    "bleustats stats refs.tsv -i hyps.tsv -m bleu chrf ter -o stats/   # a dataset folder, chrF and TER too",
    "bleustats score --from-stats stats/ -m chrf ter -f text        # per system, as sacreBLEU scores the texts",
)


def add_parser(subparsers: Any) -> Command:
    """Add the ``stats`` subcommand."""
    cmd = Command(subparsers, "stats", summary=COMMANDS["stats"], examples=EXAMPLES,
                  description=("Compute per-hypothesis sufficient statistics and save them to Parquet for later\n"
                               "rescoring (bleustats score --from-stats): one file or a partitioned dataset\n"
                               "folder (-o DIR/), streamed with bounded memory."))
    cmd.add("refs", "references", "input")
    cmd.add("tokenize", "lowercase")
    cmd.add("metrics", choices=METRIC_NAMES, default=None,
            shown="bleu; BLEU's and ΔBLEU's columns are always there, chrf and ter add theirs")
    cmd.add("max_ngram_order", *CHRF_TER_OPTIONS)
    cmd.add("ref_weights", "ref_view")
    cmd.add("weight_threshold", default=None)
    cmd.add("delta_definition")
    cmd.add("output", kind="either", required=True,
            what="a Parquet file, or a dataset folder (one Parquet part per partition): a path ending in '/', an "
                 "existing dataset, or any non-.parquet path with -i DIR or --dask")
    cmd.add("replace", "quiet", "progress")
    cmd.own("--batch-rows", type=positive_int, default=DEFAULT_BATCH_ROWS, metavar="N", group="parallelism",
            help="hypotheses computed per step when streaming (bounds memory; default: %(default)s)")
    cmd.add("dask")
    cmd.parser.set_defaults(func=run)
    return cmd


def _split_inputs(args: argparse.Namespace) -> None:
    """REF and -r as one list; ``-i HYP REF...`` (references after the hypotheses) still works, with a warning."""
    args.refs = [*(args.refs or []), *(args.references or [])]
    if isinstance(args.input, list):
        if not args.refs and len(args.input) > 1:
            if not args.quiet:
                print("bleustats stats: warning: -i HYP REF... is deprecated: -i names hypotheses only, as in every "
                      "command; give the references first (bleustats stats REF... -i HYP) or with -r/--references. "
                      "It still works.", file=sys.stderr)
            args.refs, args.input = args.input[1:], [args.input[0]]
        if len(args.input) > 1:
            raise UsageError(f"-i: {len(args.input)} hypotheses files; stats takes one (or one hypotheses table "
                             "holding several systems).")
        args.input = args.input[0]


def _streamed(args: argparse.Namespace, target: Path, executor: Any) -> StatsDataset | None:
    """The dataset of a streamable input written to ``target``; None for inputs read whole."""
    from ..engine._partitioned_stats import compute_stats_dataset, compute_stats_files_dataset
    from ..engine import io

    hyp = args.input
    if hyp is None or not args.refs:
        return None
    is_parquet = Path(hyp).is_dir() or Path(hyp).suffix.lower() == ".parquet"
    ref_table = len(args.refs) == 1 and Path(args.refs[0]).suffix.lower() in io.TABLE_SUFFIXES
    if ref_table and (is_parquet or Path(hyp).suffix.lower() in io.TABLE_SUFFIXES):
        if args.ref_weights:
            raise UsageError("--ref-weights: a references table carries its weights in its 'weight' column; "
                             "drop --ref-weights.")
        # Parquet is read partition by partition; a TSV / JSONL table is read whole, then cut into partitions
        hyps = hyp if is_parquet else io.read_table(hyp, "hypotheses")
        return compute_stats_dataset(hyps, args.refs[0], target, executor=executor, batch_rows=args.batch_rows,
                                     **statistics_options(args))
    if Path(hyp).is_dir():
        raise InputError(f"-i {hyp}: a folder of Parquet hypotheses parts pairs with one references table "
                         "(.parquet / .tsv / .jsonl), not with plain-text reference files.")
    plain = Path(hyp).suffix.lower() not in io.TABLE_SUFFIXES and not any(
        Path(r).suffix.lower() in io.TABLE_SUFFIXES for r in args.refs)
    if plain:
        if getattr(args, "dask", None):
            raise UsageError("--dask: plain-text files are streamed in this process; for a cluster, give the "
                             "hypotheses as a Parquet table (a folder of parts) and the references as a table.")
        return compute_stats_files_dataset(hyp, args.refs, target, ref_weight_paths=args.ref_weights,
                                           chunk_lines=args.batch_rows, **statistics_options(args))
    return None


def _dataset_output(output: str, *, dask: bool, input_dir: bool) -> bool:
    """Is ``-o`` a dataset folder? Yes when it ends with '/', is one already, or (not ending .parquet) the
    hypotheses are a folder of parts or the run is on Dask; else one Parquet file (as before datasets)."""
    from ..engine.dataset import MANIFEST

    if output.endswith(("/", os.sep)) or (Path(output) / MANIFEST).is_file():
        return True
    return Path(output).suffix.lower() != ".parquet" and (dask or input_dir)


def _scratch(out: Path) -> Path:
    """A hidden folder beside ``out`` for the dataset that becomes the single file ``out``."""
    from ..engine import io

    try:
        return io.make_temp_dir(out)
    except OSError as exc:
        raise OSError(exc.errno, f"cannot write {out}: {exc.strerror}; nothing was written", str(out)) from None


def run(args: argparse.Namespace, *, stdout: Any = None, stderr: Any = None) -> int:
    """Run ``bleustats stats``; returns the exit code (errors are said on ``stderr`` as one line)."""
    return guarded("stats", _run, args, stderr)


def _run(args: argparse.Namespace) -> int:
    with reporter(args, "bleustats stats"):
        return _compute(args)


def _compute(args: argparse.Namespace) -> int:
    from ..engine.dataset import DatasetWriter, save_as_file, write_part

    _split_inputs(args)
    statistics_options(args)  # every option checked before any work
    out = Path(args.output)
    dask = getattr(args, "dask", None)
    input_dir = bool(args.input and Path(args.input).is_dir())
    as_file = not _dataset_output(args.output, dask=bool(dask), input_dir=input_dir)
    if as_file and not dask and not input_dir:
        # one file: the whole table in memory, as before (plain-text inputs are still read chunk by chunk)
        stats = compute_from_args(args)
        step("saving")
        stats.save(out)
        note(args, f"wrote {len(stats)} rows × {stats.table.num_columns} columns to {out}")
        return 0
    from ._dask import executor_for  # loaded where a command runs partitioned work
    with executor_for(args) as executor:
        scratch = _scratch(out) if as_file else None
        try:
            ds = _streamed(args, scratch / "dataset" if scratch is not None else out, executor)
            if ds is None:  # an input read whole (standard input, references not in one table): one part
                if dask:
                    raise UsageError("--dask: give the hypotheses as a Parquet table (a folder of parts or a "
                                     ".parquet file) and the references as one table.")
                stats = compute_from_args(args)
                with DatasetWriter(out) as writer:
                    ds = writer.commit([write_part(writer.folder, 0, [stats.table])])
            if as_file:
                save_as_file(ds, out)
            where = str(out) if as_file else f"{out} ({len(ds.parts)} part(s))"
            note(args, f"wrote {len(ds)} rows × {len(ds.schema)} columns to {where}")
        finally:
            if scratch is not None:
                with deferred():
                    shutil.rmtree(scratch, ignore_errors=True)
    return 0
