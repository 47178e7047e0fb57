"""``bleustats tune``: offline PRO / batch k-best MIRA on Moses n-best lists.

::

    bleustats tune run1.nbest.gz run2.nbest.gz --refs ref.0 ref.1 -tok none \\
        --algorithm pro -m nakov:bp-smoothed,pc-grounded --seed 1 --init init.opt \\
        -o weights.json --best best.txt

Several n-best files are several iterations' lists: merged per source,
duplicates removed (:func:`bleustats.tools.tune.read_tuning_list`). Prints the
1-best corpus BLEU and length ratio under the start weights, after every
iteration / epoch, and under the final weights (text or ``--json``) on stdout;
``-o`` writes the weights JSON (by feature name, Moses ``name= v1 v2`` lines,
variant, seed, signature, dev BLEU and ratio), ``--best`` the 1-best
hypothesis of every source (line ``i`` = source id ``i``). Progress and
timings go to stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from .main import COMMANDS
from ..engine._options import BLEU_METRICS as METRICS
from ..engine._options import MAX_ORDER_LIMIT, REF_LENGTHS, SENTENCE_VARIANT_NAMES
from ..errors import InputError
from ..tokenizers import DEFAULT_TOKENIZER, TOKENIZERS
from ..tools._options import ALGORITHMS
from ._progress import progress_bar

if TYPE_CHECKING:
    from ..tools.tune import TuneResult, TuningList

__all__ = ["add_parser", "run", "write_best"]


def add_parser(subparsers: Any) -> None:
    """Add the ``tune`` subcommand to an ``argparse`` subparsers object."""
    p = subparsers.add_parser(
        "tune", help=COMMANDS["tune"],
        description="Offline tuning on Moses n-best lists with dense features: PRO (Hopkins & May 2011) or "
                    "batch k-best MIRA (Cherry & Foster 2012), driven by any sentence-level variant.")
    p.add_argument("nbest", nargs="+", metavar="NBEST",
                   help="Moses n-best files (.gz too); several = several iterations' lists, merged per source")
    p.add_argument("--refs", nargs="+", required=True, metavar="REF",
                   help="reference files (line i = source i, 0-based) or one long-form references table")
    p.add_argument("--algorithm", choices=ALGORITHMS, default="pro", help="tuner (default: %(default)s)")
    p.add_argument("-m", "--variant", default="bleu+1", metavar="VARIANT",
                   help="sentence-level variant driving the tuner (default: %(default)s): "
                        + ", ".join(SENTENCE_VARIANT_NAMES) + "; or nakov: with any comma-separated fixes")
    p.add_argument("--ilr", type=float, default=None, help="ILR of nakov:...scaled (reference length times ILR)")
    p.add_argument("--seed", type=int, default=0, help="seed of pair sampling / epoch order (default: %(default)s)")
    p.add_argument("--init", metavar="FILE",
                   help="start weights: Moses init.opt, 'name= v1 v2' lines, or a weights JSON (default: zeros, "
                        "so the start 1-best is each source's first entry)")
    p.add_argument("--allow-missing-sources", action="store_true",
                   help="tune on the sources that have entries when some sources of the references have none "
                        "(default: an error, as in kbest)")
    p.add_argument("-o", "--output", metavar="JSON", help="write the weights and run summary as JSON")
    p.add_argument("--best", metavar="FILE", help="write the 1-best hypothesis under the final weights, one line "
                                                  "per source id")
    p.add_argument("-tok", "--tokenize", choices=TOKENIZERS, default=DEFAULT_TOKENIZER,
                   help="tokenizer, as sacreBLEU's (default: %(default)s; Moses' lists: none)")
    p.add_argument("-lc", "--lowercase", action="store_true", help="lowercase before tokenizing")
    p.add_argument("--max-ngram-order", type=int, default=4, metavar="N",
                   help=f"n-gram order of the variant and the BLEU, 1..{MAX_ORDER_LIMIT - 1} (default: %(default)s)")
    p.add_argument("--metric", "--statistic", choices=METRICS, default="bleu",
                   help="plain or ΔBLEU-weighted statistics (default: %(default)s)")
    p.add_argument("--ref-length", choices=REF_LENGTHS, default="closest",
                   help="reference length of the brevity penalties (default: %(default)s)")
    p.add_argument("--iterations", type=int, default=None, metavar="K",
                   help="PRO iterations (default 1) or MIRA epochs (default 60)")
    p.add_argument("--gamma", type=int, default=5000, help="PRO: pairs drawn per source (default: %(default)s)")
    p.add_argument("--alpha", type=float, default=0.05,
                   help="PRO: minimum score difference of a kept pair, 0-1 scale (default: %(default)s)")
    p.add_argument("--xi", type=int, default=50, help="PRO: pairs kept per source (default: %(default)s)")
    p.add_argument("--l2", type=float, default=1.0, help="PRO: L2 weight of the logistic regression "
                                                         "(default: %(default)s)")
    p.add_argument("--interpolate", type=float, default=None, metavar="PSI",
                   help="PRO: weight of the new weights against the previous ones, in (0, 1] (default: none)")
    p.add_argument("--c", type=float, default=0.01, help="MIRA: step cap C (default: %(default)s)")
    p.add_argument("--decay", type=float, default=0.9,
                   help="pseudo-document decay of pseudo-doc / chiang-gain (default: %(default)s)")
    p.add_argument("--no-shuffle", action="store_true", help="MIRA: visit sources in order every epoch")
    p.add_argument("--no-dedupe", action="store_true", help="keep duplicate entries (same features and statistics)")
    p.add_argument("--progress", action="store_true", help="progress bar on stderr even when it is not a terminal")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(func=run)


def write_best(data: TuningList, result: TuneResult, path: str) -> None:
    """The 1-best text of every source, line ``i`` = source id ``i`` (empty for ids without entries)."""
    from ..engine import io

    if data.text is None:
        raise InputError("--best: the list has no hypothesis texts.")
    rows = result.one_best
    texts = data.text.take(rows).to_pylist()
    ids = data.source_ids
    lines = [""] * (int(ids.max()) + 1 if len(ids) else 0)
    for sid, text in zip(ids.tolist(), texts):
        lines[sid] = text.replace("\n", " ")
    io.write_atomic(path, lambda tmp: Path(tmp).write_text("".join(t + "\n" for t in lines), encoding="utf-8"))


def _usage(err: TextIO, msg: str) -> int:
    print(f"bleustats tune: error: {msg}", file=err)
    return 2


def run(args: argparse.Namespace, *, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``bleustats tune``; returns the exit code (0 ok, 1 error, 2 usage)."""
    from ..metrics.sentence import get_variant
    from ..engine import io
    from ..tools.nbest_features import read_init_weights
    from ..tools.tune import read_tuning_list, tune

    out = stdout if stdout is not None else sys.stdout
    err = stderr if stderr is not None else sys.stderr
    if not 1 <= args.max_ngram_order < MAX_ORDER_LIMIT:
        return _usage(err, f"argument --max-ngram-order: must be from 1 to {MAX_ORDER_LIMIT - 1}; "
                           f"got {args.max_ngram_order}")
    if args.iterations is not None and args.iterations < 1:
        return _usage(err, f"argument --iterations: must be >= 1; got {args.iterations}")
    if args.seed < 0:
        return _usage(err, f"argument --seed: must be >= 0; got {args.seed}")
    bar = progress_bar(err, forced=args.progress, label="tune")
    try:
        variant = get_variant(args.variant).name
        options: dict[str, float] = {}
        if args.ilr is not None:
            if not (variant.startswith("nakov:") and "scaled" in variant.split(":", 1)[1].split(",")):
                raise InputError("--ilr: only used by nakov:...scaled variants; use e.g. -m nakov:scaled or drop "
                                 "--ilr.")
            options["ilr"] = args.ilr
        order = args.max_ngram_order + get_variant(variant).extra_orders
        data = read_tuning_list(args.nbest, args.refs if len(args.refs) > 1 else args.refs[0],
                                tokenize=args.tokenize, lowercase=args.lowercase, max_ngram_order=order,
                                dedupe=not args.no_dedupe, allow_missing_sources=args.allow_missing_sources)
        init = read_init_weights(args.init, data.layout) if args.init else None
        result = tune(data, algorithm=args.algorithm, variant=variant, variant_options=options,
                      metric=args.metric, ref_length=args.ref_length, max_ngram_order=args.max_ngram_order,
                      init=init, seed=args.seed, iterations=args.iterations, gamma=args.gamma, alpha=args.alpha,
                      xi=args.xi, l2=args.l2, interpolate=args.interpolate, c=args.c, decay=args.decay,
                      shuffle=not args.no_shuffle, progress=bar)
        if bar is not None:
            bar.close()
        payload = result.to_dict()
        payload.update(n_entries=data.n_entries, n_sources=data.n_sources, n_duplicates=data.n_duplicates,
                       nbest=[str(p) for p in args.nbest], init=args.init)
        if args.output:
            text = json.dumps(payload, ensure_ascii=False, indent=1) + "\n"
            io.write_atomic(args.output, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
        if args.best:
            write_best(data, result, args.best)
    except (ValueError, TypeError) as exc:  # InputError and SchemaError are ValueErrors
        if bar is not None:
            bar.close()
        print(f"bleustats tune: error: {exc}", file=err)
        return 1
    except OSError as exc:
        if bar is not None:
            bar.close()
        print(f"bleustats tune: error: {exc.strerror or exc}", file=err)
        return 1
    if args.json:
        print(json.dumps(payload, ensure_ascii=False, indent=1), file=out)
    else:
        print(f"{data.n_entries} entries ({data.n_duplicates} duplicates removed), {data.n_sources} sources, "
              f"{data.n_features} features; {args.algorithm} on {variant}, seed {args.seed}", file=out)
        rows = [("start", result.start.score, result.start.ratio, "")]
        for h in result.history:
            extra = f"pairs = {h['pairs']}" if "pairs" in h else f"updates = {h['updates']}"
            rows.append((f"iteration {h['iteration']}" if args.algorithm == "pro" else f"epoch {h['iteration']}",
                         h["bleu"], h["ratio"], extra))
        rows.append(("final", result.final.score, result.final.ratio, ""))
        w = max(len(r[0]) for r in rows)
        for label, score, ratio, extra in rows:
            print(f"{label:<{w}}  BLEU = {score:6.2f}  ratio = {ratio:.3f}  {extra}".rstrip(), file=out)
        for line in result.moses_lines():
            print(line, file=out)
        print(f"signature: {result.signature}", file=out)
    print("time: " + ", ".join(f"{k} {v:.2f}s" for k, v in result.timings.items() if v >= 0.005), file=err)
    for path in (args.output, args.best):
        if path:
            print(f"wrote {path}", file=err)
    return 0
