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

    bleustats stats --dask local:2 -i HYPS_DIR REFS.parquet -o STATS_DIR

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
from .main import COMMANDS
from ..engine._options import DEFAULT_BATCH_ROWS
from ..errors import InputError, UsageError
from ._dask import add_dask_option, executor_for
from .sacrebleu_cli import METRIC_NAMES, add_chrf_ter_options
from .score import add_input_options, compute_from_args, statistics_options

if TYPE_CHECKING:
    from ..engine.dataset import StatsDataset

__all__ = ["add_parser", "run"]


def add_parser(subparsers: Any) -> None:
    """Add the ``stats`` subcommand."""
    p = subparsers.add_parser("stats", help=COMMANDS["stats"],
                              description="Compute per-hypothesis sufficient statistics and save them "
                                          "to Parquet for later rescoring: one file or a partitioned dataset "
                                          "folder (-o DIR/), streamed with bounded memory.")
    add_input_options(p)
    p.add_argument("-m", "--metrics", dest="stat_metrics", choices=METRIC_NAMES, nargs="+", default=None,
                   help="metrics whose statistics the table holds, as sacreBLEU's -m (default: bleu; BLEU's are "
                        "always there): 'bleustats score --from-stats' then scores each, per system")
    add_chrf_ter_options(p.add_argument_group("chrF / TER options (saved with the table; with -m chrf / ter)"))
    p.add_argument("-o", "--output", required=True, metavar="PATH",
                   help="output: a Parquet file, or a dataset folder (one Parquet part per partition): a path "
                        "ending in '/', an existing dataset, or any non-.parquet path with -i DIR or --dask")
    p.add_argument("--batch-rows", type=int, default=DEFAULT_BATCH_ROWS, metavar="N",
                   help="hypotheses computed per step when streaming (bounds memory; default: %(default)s)")
    add_dask_option(p)
    p.set_defaults(func=run)


def _split_inputs(args: argparse.Namespace) -> None:
    """``-i HYP REF...`` with no REF before ``-i``: the files after HYP are references (as ``score``)."""
    if isinstance(args.input, list):
        if not args.refs and len(args.input) > 1:
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


def run(args: argparse.Namespace) -> int:
    """Run ``bleustats stats``; errors propagate to :func:`bleustats.cli.main`."""
    from ..engine.dataset import DatasetWriter, save_as_file, write_part

    _split_inputs(args)
    if args.batch_rows < 1:
        raise UsageError(f"--batch-rows: must be a positive number of rows; got {args.batch_rows}.")
    out = Path(args.output)
    dask = getattr(args, "dask", None)
    input_dir = bool(args.input and Path(args.input).is_dir())
    as_file = not _dataset_output(args.output, dask=bool(dask), input_dir=input_dir)
    if as_file and not dask and not input_dir:
        # one file: the whole table in memory, as before (plain-text inputs are still read chunk by chunk)
        stats = compute_from_args(args)
        stats.save(out)
        print(f"wrote {len(stats)} rows × {stats.table.num_columns} columns to {out}", file=sys.stderr)
        return 0
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
            print(f"wrote {len(ds)} rows × {len(ds.schema)} columns to {where}", file=sys.stderr)
        finally:
            if scratch is not None:
                with deferred():
                    shutil.rmtree(scratch, ignore_errors=True)
    return 0
