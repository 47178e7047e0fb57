"""``bleustats tune``: offline PRO / batch k-best MIRA on Moses n-best lists.

::

    bleustats tune run1.nbest.gz run2.nbest.gz -r ref.0 ref.1 -tok none \\
        --algorithm pro -m nakov:bp-smoothed,pc-grounded --seed 1 --init init.opt \\
        -o weights.json --best best.txt

Several n-best files are several iterations' lists: merged per source,
duplicates removed (:func:`bleustats.tools.tune.read_tuning_list`). Prints the
1-best corpus BLEU and length ratio under the start weights, after every
iteration / epoch, and under the final weights (text or ``--json``) on stdout;
``-o`` writes the weights JSON (by feature name, Moses ``name= v1 v2`` lines,
variant, seed, signature, dev BLEU and ratio), ``--best`` the 1-best
hypothesis of every source (line ``i`` = source id ``i``). Progress (on a
terminal, or with ``--progress``; none with ``-q``) and timings go to stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from ..engine._options import BLEU_METRICS
from ..errors import InputError, UsageError
from ..tools._options import ALGORITHMS
from ._errors import guarded
from .main import COMMANDS
from ._options import Command, positive_int
from ._progress import close_all, note, reporter
from .kbest import VARIANTS_HELP, check_orders, references

if TYPE_CHECKING:
    from ..tools.tune import TuneResult, TuningList

__all__ = ["EXAMPLES", "add_parser", "run", "write_best"]

#: Everyday command lines (its ``--help``, the README, the kernels compiled into the wheel: bleustats._warm).
EXAMPLES = (
    "bleustats tune nbest.txt -r ref0.txt -tok none --algorithm pro -m nakov:bp-smoothed --seed 1 -o weights.json "
    "--best best.txt",
)


def add_parser(subparsers: Any) -> Command:
    """Add the ``tune`` subcommand to an ``argparse`` subparsers object."""
    cmd = Command(subparsers, "tune", summary=COMMANDS["tune"], examples=EXAMPLES,
                  description=("Offline tuning on Moses n-best lists with dense features: PRO (Hopkins & May\n"
                               "2011) or batch k-best MIRA (Cherry & Foster 2012), driven by any sentence-level\n"
                               "metric."))
    cmd.own("nbest", nargs="+", metavar="NBEST", role="input", group="inputs",
            help="Moses n-best files (.gz too); several = several iterations' lists, merged per source")
    cmd.add("references")  # required: checked in run (its old name --refs sets it too)
    cmd.renamed("--refs", "references", nargs="+", does="extend")
    cmd.own("--init", metavar="FILE", role="input", group="inputs",
            help="start weights: Moses init.opt, 'name= v1 v2' lines, or a weights JSON (default: zeros, so the "
                 "start 1-best is each source's first entry)")
    cmd.own("--allow-missing-sources", action="store_true", group="inputs",
            help="tune on the sources that have entries when some sources of the references have none (default: an "
                 "error, as in kbest)")
    cmd.add("tokenize", "lowercase")
    cmd.add("metrics", names=VARIANTS_HELP, default=None, shown="bleu+1; tune takes one")
    cmd.renamed("--variant", "metrics", does="extend", nargs="+")
    cmd.add("max_ngram_order", "statistic", "ref_length", "ilr")
    cmd.renamed("--metric", "statistic", choices=BLEU_METRICS)
    t = "tuner"
    cmd.own("--algorithm", choices=ALGORITHMS, default="pro", group=t, help="tuner (default: %(default)s)")
    cmd.own("--iterations", type=positive_int, default=None, metavar="K", group=t,
            help="PRO iterations (default 1) or MIRA epochs (default 60)")
    cmd.own("--gamma", type=int, default=5000, group=t, help="PRO: pairs drawn per source (default: %(default)s)")
    cmd.own("--alpha", type=float, default=0.05, group=t,
            help="PRO: minimum score difference of a kept pair, 0-1 scale (default: %(default)s)")
    cmd.own("--xi", type=int, default=50, group=t, help="PRO: pairs kept per source (default: %(default)s)")
    cmd.own("--l2", type=float, default=1.0, group=t,
            help="PRO: L2 weight of the logistic regression (default: %(default)s)")
    cmd.own("--interpolate", type=float, default=None, metavar="PSI", group=t,
            help="PRO: weight of the new weights against the previous ones, in (0, 1] (default: none)")
    cmd.own("--c", type=float, default=0.01, group=t, help="MIRA: step cap C (default: %(default)s)")
    cmd.own("--decay", type=float, default=0.9, group=t,
            help="pseudo-document decay of pseudo-doc / chiang-gain (default: %(default)s)")
    cmd.own("--no-shuffle", action="store_true", group=t, help="MIRA: visit sources in order every epoch")
    cmd.own("--no-dedupe", action="store_true", group=t,
            help="keep duplicate entries (same features and statistics)")
    cmd.add("output", what="the weights and run summary (JSON)")
    cmd.own("--best", metavar="FILE", role="output", group="outputs",
            help="the 1-best hypothesis under the final weights, one line per source id")
    cmd.add("replace", "json", "quiet", "progress", "seed")
    cmd.parser.set_defaults(func=run)
    return cmd


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


def run(args: argparse.Namespace, *, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``bleustats tune``; returns the exit code (0 ok, 1 error, 2 usage)."""
    return guarded("tune", _run, args, stderr, stdout=stdout, stderr=stderr)


def _run(args: argparse.Namespace, *, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    from ..metrics.sentence import get_variant
    from ..engine import io
    from ..tools.nbest_features import read_init_weights
    from ..tools.tune import read_tuning_list, tune

    out = stdout if stdout is not None else sys.stdout
    err = stderr if stderr is not None else sys.stderr
    names = list(dict.fromkeys(args.metrics or ["bleu+1"]))
    if len(names) != 1:
        raise UsageError(f"-m {' '.join(names)}: tune is driven by one sentence-level metric; give one.")
    check_orders(names, args.max_ngram_order)
    refs = references(args)
    variant = get_variant(names[0]).name
    options: dict[str, float] = {}
    if args.ilr is not None:
        if not (variant.startswith("nakov:") and "scaled" in variant.split(":", 1)[1].split(",")):
            raise InputError("--ilr: only used by nakov:...scaled variants; use e.g. -m nakov:scaled or drop "
                             "--ilr.")
        options["ilr"] = args.ilr
    order = args.max_ngram_order + get_variant(variant).extra_orders
    with reporter(args, "tune", err) as bar:
        data = read_tuning_list(args.nbest, refs, tokenize=args.tokenize, lowercase=args.lowercase,
                                max_ngram_order=order, dedupe=not args.no_dedupe,
                                allow_missing_sources=args.allow_missing_sources)
        init = read_init_weights(args.init, data.layout) if args.init else None
        result = tune(data, algorithm=args.algorithm, variant=variant, variant_options=options,
                      metric=args.statistic, ref_length=args.ref_length, max_ngram_order=args.max_ngram_order,
                      init=init, seed=args.seed, iterations=args.iterations, gamma=args.gamma, alpha=args.alpha,
                      xi=args.xi, l2=args.l2, interpolate=args.interpolate, c=args.c, decay=args.decay,
                      shuffle=not args.no_shuffle, progress=bar.callback)
    close_all()
    payload = result.to_dict()
    payload.update(n_entries=data.n_entries, n_sources=data.n_sources, n_duplicates=data.n_duplicates,
                   nbest=[str(p) for p in args.nbest], init=args.init)
    if args.output:
        text = json.dumps(payload, ensure_ascii=False, indent=1) + "\n"
        io.write_atomic(args.output, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
    if args.best:
        write_best(data, result, args.best)
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
    note(args, "time: " + ", ".join(f"{k} {v:.2f}s" for k, v in result.timings.items() if v >= 0.005), err)
    for path in (args.output, args.best):
        if path:
            note(args, f"wrote {path}", err)
    return 0
