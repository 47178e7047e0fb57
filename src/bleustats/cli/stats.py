"""``bleustats stats``: compute the per-hypothesis statistics table once and save it to Parquet.

``-o FILE.parquet`` writes one Parquet file; any other ``-o`` path is a
partitioned dataset folder (:mod:`bleustats.engine.dataset`). Inputs larger
than memory stream: line-aligned plain-text files chunk by chunk, a
hypotheses table given as a folder of Parquet parts (or one ``.parquet``
file) partition by partition with one references table
(:mod:`bleustats.engine.partitioned_stats`); memory then holds the
references and one batch. ``--dask ADDRESS`` runs the partitions on a Dask
cluster (``local:N`` for N local worker processes)::

    bleustats stats --dask local:2 -i HYPS_DIR REFS.parquet -o STATS_DIR

Other inputs (TSV / JSONL tables, standard input) are read whole.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from ..engine import io
from ..engine.dataset import DEFAULT_BATCH_ROWS, DatasetWriter, StatsDataset, save_as_file, write_part
from ..engine.partitioned_stats import compute_stats_dataset, compute_stats_files_dataset
from ..errors import InputError
from ._dask import add_dask_option, executor_for
from .score import add_input_options, compute_from_args

__all__ = ["add_parser", "run"]


def add_parser(subparsers: Any) -> None:
    """Add the ``stats`` subcommand."""
    p = subparsers.add_parser("stats", help="compute the per-hypothesis statistics table and save it",
                              description="Compute per-hypothesis sufficient statistics and save them "
                                          "to Parquet for later rescoring: one file (-o X.parquet) or a "
                                          "partitioned dataset folder (any other -o).")
    add_input_options(p)
    p.add_argument("-o", "--output", required=True, metavar="PATH",
                   help="output: a .parquet file, or a dataset folder (one Parquet part per partition)")
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
            raise InputError(f"-i: {len(args.input)} hypotheses files; stats takes one (or one hypotheses table "
                             "holding several systems).")
        args.input = args.input[0]


def _options(args: argparse.Namespace) -> dict[str, Any]:
    return dict(tokenize=args.tokenize, lowercase=args.lowercase, max_ngram_order=args.max_ngram_order,
                ref_view=args.ref_view, weight_threshold=args.weight_threshold,
                delta_definition=args.delta_definition)


def _streamed(args: argparse.Namespace, target: Path, executor: Any) -> StatsDataset | None:
    """The dataset of a streamable input written to ``target``; None for inputs read whole."""
    hyp = args.input
    if hyp is None or not args.refs:
        return None
    is_parquet = Path(hyp).is_dir() or Path(hyp).suffix.lower() == ".parquet"
    ref_table = len(args.refs) == 1 and Path(args.refs[0]).suffix.lower() in io.TABLE_SUFFIXES
    if is_parquet and ref_table:
        if args.ref_weights:
            raise InputError("--ref-weights: a references table carries its weights in its 'weight' column; "
                             "drop --ref-weights.")
        return compute_stats_dataset(hyp, args.refs[0], target, executor=executor, batch_rows=args.batch_rows,
                                     **_options(args))
    if Path(hyp).is_dir():
        raise InputError(f"-i {hyp}: a folder of Parquet hypotheses parts pairs with one references table "
                         "(.parquet / .tsv / .jsonl), not with plain-text reference files.")
    plain = Path(hyp).suffix.lower() not in io.TABLE_SUFFIXES and not any(
        Path(r).suffix.lower() in io.TABLE_SUFFIXES for r in args.refs)
    if plain:
        if getattr(args, "dask", None):
            raise InputError("--dask: plain-text files are streamed in this process; for a cluster, give the "
                             "hypotheses as a Parquet table (a folder of parts) and the references as a table.")
        return compute_stats_files_dataset(hyp, args.refs, target, ref_weight_paths=args.ref_weights,
                                           chunk_lines=args.batch_rows, **_options(args))
    return None


def run(args: argparse.Namespace) -> int:
    """Run ``bleustats stats``; errors propagate to :func:`bleustats.cli.main`."""
    _split_inputs(args)
    if args.batch_rows < 1:
        raise InputError(f"--batch-rows: must be a positive number of rows; got {args.batch_rows}.")
    out = Path(args.output)
    as_file = out.suffix.lower() == ".parquet"
    with executor_for(args) as executor:
        scratch = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent if str(out.parent) else ".")) \
            if as_file else None
        try:
            target = scratch / "dataset" if scratch is not None else out
            ds = _streamed(args, target, executor)
            if ds is None:  # read whole
                if getattr(args, "dask", None):
                    raise InputError("--dask: give the hypotheses as a Parquet table (a folder of parts or a "
                                     ".parquet file) and the references as one table.")
                stats = compute_from_args(args)
                if as_file:
                    stats.save(out)
                    print(f"wrote {len(stats)} rows × {stats.table.num_columns} columns to {out}", file=sys.stderr)
                    return 0
                with DatasetWriter(out) as writer:
                    ds = writer.commit([write_part(writer.folder, 0, [stats.table])])
            if as_file:
                save_as_file(ds, out)
            where = str(out) if as_file else f"{out} ({len(ds.parts)} part(s))"
            print(f"wrote {len(ds)} rows × {len(ds.schema)} columns to {where}", file=sys.stderr)
        finally:
            if scratch is not None:
                shutil.rmtree(scratch, ignore_errors=True)
    return 0
