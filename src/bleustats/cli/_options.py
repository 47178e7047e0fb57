"""The options every subcommand is made of: each defined once here, composed per command by group.

As pip's ``cmdoptions`` does, every shared option is a factory in :data:`CATALOG`
(flags, type, range, help text, shown default) and a subcommand adds the ones
it takes with :meth:`Command.add`, so one name has one meaning, one range and
one help text in every command. A :class:`Command` also records the *role* of
each of its options (``input``: a path the command reads; ``output``: a path it
writes, with its kind; ``other``), which the output writer
(:mod:`bleustats.cli._outputs`) reads to refuse an output that is an input,
without looking inside argparse. Every command gets ``-V/--version``, one-line
usage errors (:class:`bleustats.cli.main.Parser`), its everyday command lines in its ``--help``
(``EXAMPLES`` of its module) and the old names of renamed options, which still
work with a warning (:data:`RENAMED`).

The groups: inputs and references, tokenization and case, metrics and their
options, reference weights and views, outputs, randomness, parallelism.

Examples
--------
>>> from bleustats.cli.main import Parser
>>> top = Parser(prog="bleustats")
>>> cmd = Command(top.add_subparsers(dest="command"), "demo", summary="s", description="d")
>>> cmd.add("tokenize", "seed")
>>> args = top.parse_args(["demo", "-tok", "intl", "--seed", "3"])
>>> args.tokenize, args.seed, cmd.roles["seed"]
('intl', 3, 'other')
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, Callable, Sequence

from .._version import __version__
from ..engine._options import (BLEU_METRICS, CHRF_DEFAULTS, DELTA_DEFINITIONS, MAX_ORDER_LIMIT, REF_LENGTHS,
                               REF_VIEWS, SMOOTH_DEFAULTS, SMOOTH_METHODS)
from ..tokenizers import DEFAULT_TOKENIZER, OPTIONAL_TOKENIZERS, SACREBLEU_TOKENIZERS

__all__ = ["CATALOG", "CHRF_TER_OPTIONS", "Command", "GROUPS", "Given", "GivenFlag", "RENAMED", "given",
           "non_negative_int", "order", "positive_int"]

#: The shared groups, in the order a command's ``--help`` lists them.
GROUPS = {
    "inputs": "inputs and references",
    "tokenization": "tokenization and case",
    "metrics": "metrics and their options",
    "weights": "reference weights and views",
    "outputs": "outputs",
    "randomness": "randomness",
    "parallelism": "parallelism",
}

#: What a path option is to its command: read, written, or neither.
ROLES = ("input", "output", "other")
#: What an output path names: a file, a folder (written whole, renamed into place), either (``stats -o``: a
#: file, or a dataset folder), or a folder the command writes files into (``demo --write-files``).
OUTPUT_KINDS = ("file", "folder", "either", "into")


# --------------------------------------------------------------------------- value types


def _int_at_least(text: str, low: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer >= {low}; got {text!r}") from None
    if value < low:
        raise argparse.ArgumentTypeError(f"must be >= {low}; got {value}")
    return value


def non_negative_int(text: str) -> int:
    """An integer >= 0 (argparse type).

    >>> non_negative_int("0")
    0
    """
    return _int_at_least(text, 0)


def positive_int(text: str) -> int:
    """An integer >= 1 (argparse type)."""
    return _int_at_least(text, 1)


def positive_float(text: str) -> float:
    """A finite number > 0 (argparse type)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number > 0; got {text!r}") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number > 0; got {text}")
    return value


def order(text: str) -> int:
    """A largest n-gram order, 1..:data:`~bleustats.engine._options.MAX_ORDER_LIMIT` (argparse type).

    >>> order("4")
    4
    """
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer from 1 to {MAX_ORDER_LIMIT}; got {text!r}") from None
    if not 1 <= value <= MAX_ORDER_LIMIT:
        raise argparse.ArgumentTypeError(f"must be from 1 to {MAX_ORDER_LIMIT}; got {value}")
    return value


def chrf_beta(text: str) -> int | float:
    """chrF's beta: a number > 0, kept an int when whole (sacreBLEU names ``chrF2``, not ``chrF2.0``)."""
    value = positive_float(text)
    return int(value) if value.is_integer() else value


def weight_transform(text: str) -> str:
    """A ``--weight-transform`` spec, checked when parsed (argparse type)."""
    from ._study_inputs import weight_transform_arg  # the study's inputs: loaded by the commands that take it

    return weight_transform_arg(text)


#: File extensions of ``--segment-scores``: TSV with a header, JSON lines, Parquet (bleustats.cli._records).
SEGMENT_FORMATS = (".tsv", ".jsonl", ".parquet")


def segment_scores_path(text: str) -> str:
    """A ``--segment-scores`` path: its extension picks the format (argparse type).

    >>> segment_scores_path("s.tsv")
    's.tsv'
    """
    if os.path.splitext(text)[1].lower() not in SEGMENT_FORMATS:
        raise argparse.ArgumentTypeError(f"the file's extension picks the format: {', '.join(SEGMENT_FORMATS)}; "
                                         f"got {text!r}")
    return text


def metric_names(choices: Sequence[str]) -> Callable[[str], str]:
    """An argparse type accepting one of ``choices``; ``both`` (the old ``--metric both``) says what replaced it."""
    def metric(text: str) -> str:
        if text in choices:
            return text
        if text == "both" and "delta_bleu" in choices:
            raise argparse.ArgumentTypeError("'both' is not a metric: give -m bleu delta_bleu (what --metric both "
                                             "was)")
        raise argparse.ArgumentTypeError(f"invalid metric {text!r}; choose from {', '.join(choices)}")
    metric.__name__ = "metric"
    return metric


# --------------------------------------------------------------------------- the catalog

_REF_HELP = ("reference files, one segment per line (one file per reference stream), or one long-form references "
             "table (.tsv/.jsonl/.parquet: seg_id, ref_id, weight, text)")
_EXTRAS = ", ".join(OPTIONAL_TOKENIZERS)


class Spec:
    """One shared option: its group, flags, argparse keywords, role and help template (before a command's values)."""

    __slots__ = ("group", "flags", "kwargs", "role", "template")

    def __init__(self, group: str, flags: tuple[str, ...], kwargs: dict[str, Any], role: str = "other",
                 template: str = "") -> None:
        self.group, self.flags, self.kwargs, self.role, self.template = group, flags, kwargs, role, template


#: What a command may set of a shared option: the values its work takes (a command computes some metrics),
#: the default where the old one must stay (a seed, so that every number stays), what its output holds, and
#: internal defaults that tell an option given from one left alone (``shown`` keeps the help's default).
_PER_COMMAND = ("choices", "names", "default", "shown", "what", "action", "nargs", "required")


def _spec(group: str, *flags: str, role: str = "other", **kwargs: Any) -> Callable[..., Spec]:
    """A factory of one option; a command may set only the keys of :data:`_PER_COMMAND`."""
    def make(**given: Any) -> Spec:
        kw = dict(kwargs)
        for key, value in given.items():
            if key not in _PER_COMMAND:
                raise TypeError(f"{flags[-1]}: {key!r} is defined once, in the catalog; it cannot be set per command")
            kw[key] = value
        choices, what, names = kw.pop("choices", None), kw.pop("what", None), kw.pop("names", None)
        shown = kw.pop("shown", kw.get("default"))
        if "help" in kw:
            listed = names if names is not None else ", ".join(choices or ())
            kw["help"] = kw["help"].format(choices=listed, default=shown, what=what)
        if kw.get("type") is metric_names:
            kw["type"] = metric_names(choices) if choices is not None else str
        elif choices is not None:
            kw["choices"] = choices
        return Spec(group, flags, kw, role, kwargs.get("help", ""))
    return make


#: Every shared option, by name (its argparse ``dest``).
CATALOG: dict[str, Callable[..., Spec]] = {
    # inputs and references
    "refs": _spec("inputs", "refs", role="input", nargs="*", metavar="REF", default=[], help=_REF_HELP),
    "references": _spec("inputs", "-r", "--references", role="input", nargs="+", action="extend", metavar="REF",
                        default=None, help=_REF_HELP + "; the same as REF"),
    "input": _spec("inputs", "-i", "--input", role="input", nargs="+", metavar="HYP", default=None,
                   help="hypotheses: text files, one segment per line (several files are several systems), or a "
                        "long-form table (.tsv/.jsonl/.parquet: seg_id, system, text); default: standard input"),
    "hypotheses": _spec("inputs", "--hypotheses", role="input", metavar="TABLE",
                        help="hypotheses table (.tsv/.jsonl/.parquet: seg_id, system, text)"),
    "human": _spec("inputs", "--human", role="input", metavar="TABLE", required=True,
                   help="human scores (system, seg_id and a score column; one row per rating, raters averaged)"),
    "human_column": _spec("inputs", "--human-column", metavar="NAME", default="score",
                          help="score column of --human (and of --ref-weights-from when it has one) "
                               "(default: {default})"),
    # tokenization and case
    "tokenize": _spec("tokenization", "-tok", "--tokenize", choices=SACREBLEU_TOKENIZERS, default=DEFAULT_TOKENIZER,
                      shown=DEFAULT_TOKENIZER,
                      help="BLEU's tokenizer, as sacreBLEU's: {choices} (default: {default}; " + _EXTRAS
                           + " need their extras)"),
    "lowercase": _spec("tokenization", "-lc", "--lowercase", action="store_true", default=False,
                       help="lowercase before tokenizing (BLEU; chrF has --chrf-lowercase)"),
    # metrics and their options
    "metrics": _spec("metrics", "-m", "--metrics", nargs="+", metavar="NAME", type=metric_names, action="extend",
                     help="metrics to compute: {choices} (default: {default})"),
    "max_ngram_order": _spec("metrics", "--max-ngram-order", type=order, default=4, metavar="N", shown=4,
                             help=f"BLEU's largest n-gram order, 1..{MAX_ORDER_LIMIT} (default: {{default}})"),
    "smooth_method": _spec("metrics", "-s", "--smooth-method", choices=SMOOTH_METHODS, default="exp",
                           help="BLEU's smoothing, as sacreBLEU's: {choices} (default: {default})"),
    "smooth_value": _spec("metrics", "-sv", "--smooth-value", type=float, default=None,
                          help=f"k of -s floor (default {SMOOTH_DEFAULTS['floor']}) and -s add-k (default "
                               f"{SMOOTH_DEFAULTS['add-k']})"),
    "ref_length": _spec("metrics", "--ref-length", choices=REF_LENGTHS, default="closest",
                        help="reference length of the brevity penalty: {choices} (default: {default})"),
    "statistic": _spec("metrics", "--statistic", choices=BLEU_METRICS, default="bleu",
                       help="statistics of the sentence scores: plain (bleu) or ΔBLEU-weighted (delta_bleu) "
                            "(default: {default})"),
    "ilr": _spec("metrics", "--ilr", type=positive_float, default=None,
                 help="the length ratio of nakov:...scaled: the brevity penalty's reference length is r x ILR "
                      "(default: 1)"),
    "sentence_variant": _spec("metrics", "--sentence-variant", default="sacrebleu:exp", metavar="NAME",
                              help="sentence-level variant of sbleu (default: {default})"),
    "chrf_char_order": _spec("metrics", "-cc", "--chrf-char-order", type=non_negative_int,
                             default=CHRF_DEFAULTS["char_order"], help="chrF's character order (default: {default})"),
    "chrf_word_order": _spec("metrics", "-cw", "--chrf-word-order", type=non_negative_int,
                             default=CHRF_DEFAULTS["word_order"],
                             help="chrF's word order (default: {default}; 2: chrF++)"),
    "chrf_beta": _spec("metrics", "--chrf-beta", type=chrf_beta, default=CHRF_DEFAULTS["beta"],
                       help="chrF's beta (default: {default})"),
    "chrf_whitespace": _spec("metrics", "--chrf-whitespace", action="store_true",
                             help="chrF: keep whitespace in character n-grams"),
    "chrf_lowercase": _spec("metrics", "--chrf-lowercase", action="store_true", help="chrF: lowercase"),
    "chrf_eps_smoothing": _spec("metrics", "--chrf-eps-smoothing", action="store_true",
                                help="chrF: epsilon smoothing (chrF++.py, NLTK, Moses)"),
    "ter_case_sensitive": _spec("metrics", "--ter-case-sensitive", action="store_true", help="TER: keep case"),
    "ter_asian_support": _spec("metrics", "--ter-asian-support", action="store_true",
                               help="TER: Asian character rules"),
    "ter_no_punct": _spec("metrics", "--ter-no-punct", action="store_true", help="TER: remove punctuation"),
    "ter_normalized": _spec("metrics", "--ter-normalized", action="store_true", help="TER: tercom normalization"),
    # reference weights and views
    "ref_weights": _spec("weights", "--ref-weights", role="input", nargs="+", metavar="FILE",
                         help="ΔBLEU weights in [-1, 1]: one file per reference file, one weight per line"),
    "ref_view": _spec("weights", "--ref-view", choices=REF_VIEWS, default=None, shown="all",
                      help="references used: all, those of weight >= --weight-threshold, or the first "
                           "(default: {default})"),
    "weight_threshold": _spec("weights", "--weight-threshold", type=float, default=0.0, metavar="THETA", shown=0,
                              help="θ of the reference view 'weight >= θ' (default: {default})"),
    "delta_definition": _spec("weights", "--delta-definition", choices=DELTA_DEFINITIONS, default=None,
                              shown="paper",
                              help="ΔBLEU's weighted matches: the paper's or the 2019 implementation's "
                                   "(default: {default})"),
    "ref_weights_from": _spec("weights", "--ref-weights-from", role="input", metavar="TABLE",
                              help="human scores of the references (ref_id, seg_id, score rows, or a human table "
                                   "whose system names are reference ids) that set their ΔBLEU weights"),
    "weight_transform": _spec("weights", "--weight-transform", metavar="SPEC", type=weight_transform,
                              help="scores -> weights in [-1, 1]: linear:SCALE, rank or constant-linear:SCALE"),
    "single_ref": _spec("weights", "--single-ref", metavar="REF_ID",
                        help="the reference of the single-reference view (default: each segment's first)"),
    "undefined": _spec("weights", "--undefined", default="error", choices=("error", "exclude"),
                       help="segments where ΔBLEU has no positively weighted reference: error, or exclude them for "
                            "every metric (counted) (default: {default})"),
    # outputs
    "output": _spec("outputs", "-o", "--output", role="output", metavar="PATH", default=None, help="{what}"),
    "replace": _spec("outputs", "--replace", action="store_true",
                     help="replace an existing output (whole, atomically); without it an existing output is refused "
                          "before any work"),
    "segment_scores": _spec("outputs", "--segment-scores", role="output", metavar="FILE", default=None,
                            type=segment_scores_path,
                            help="also write every system's score of every segment under every metric (system, "
                                 "seg_id, one column per metric): .tsv, .jsonl or .parquet by the file's extension"),
    "json": _spec("outputs", "--json", action="store_true", help="print the results as JSON"),
    "quiet": _spec("outputs", "-q", "--quiet", action="store_true", help="no progress and no notes on stderr"),
    "progress": _spec("outputs", "--progress", action="store_true",
                      help="progress on stderr even when it is not a terminal"),
    # randomness
    "seed": _spec("randomness", "--seed", type=non_negative_int, default=0, metavar="N",
                  help="seed of every random draw (default: {default})"),
    # parallelism
    "dask": _spec("parallelism", "--dask", metavar="ADDRESS", default=None,
                  help="run the partitioned work on a Dask cluster: a scheduler address (tcp://HOST:PORT) or local:N "
                       "(N local worker processes for this run); needs bleustats[dask]"),
}

#: chrF's and TER's options, in the catalog's order: what a command that computes both takes.
CHRF_TER_OPTIONS = tuple(name for name in CATALOG if name.startswith(("chrf_", "ter_")))

#: Options renamed so that one name means one thing everywhere: (command, old flag) -> (new flag, old meaning).
#: The old flag still works and says it is deprecated (:class:`Renamed`). ``score --metric`` and ``score -eff``
#: are not here: sacreBLEU's parser reads them as ``--metrics`` and ``-e ff``, which they now are.
RENAMED = {
    ("kbest", "--variant"): "-m/--metrics",
    ("kbest", "--metric"): "--statistic",
    ("tune", "--variant"): "-m/--metrics",
    ("tune", "--metric"): "--statistic",
    ("tune", "--refs"): "-r/--references",
    ("mbr", "--metric"): "-m/--metrics",
    ("study", "--metric"): "-m/--metrics",
    ("study", "--threshold"): "--weight-threshold",
    ("study", "--overwrite"): "--replace",
    ("correlate", "--metric"): "-m/--metrics",
    ("correlate", "--threshold"): "--weight-threshold",
    ("correlate", "--variant"): "--kendall-variant",
}


def _note_given(namespace: argparse.Namespace, dest: str) -> None:
    given = getattr(namespace, "given_options", None)
    if given is None:
        given = set()
        namespace.given_options = given
    given.add(dest)


def given(args: argparse.Namespace, dest: str) -> bool:
    """Whether the option stored in ``dest`` was given on the command line (also with its default value).

    Examples
    --------
    >>> ns = argparse.Namespace()
    >>> Given(["-cw"], "chrf_word_order")(None, ns, 0); given(ns, "chrf_word_order"), given(ns, "beta")
    (True, False)
    """
    return dest in (getattr(args, "given_options", None) or ())


class Given(argparse.Action):
    """argparse's ``store``, noting that the option was given (:func:`given`): a value equal to the default
    still means what the user asked for."""

    def __call__(self, parser: Any, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        setattr(namespace, self.dest, values)
        _note_given(namespace, self.dest)


class GivenFlag(argparse.Action):
    """argparse's ``store_true``, noting that the flag was given (:func:`given`)."""

    def __init__(self, option_strings: list[str], dest: str, default: Any = False, required: bool = False,
                 help: str | None = None) -> None:  # noqa: A002 - argparse's own keyword
        super().__init__(option_strings, dest, nargs=0, default=default, required=required, help=help)

    def __call__(self, parser: Any, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        setattr(namespace, self.dest, True)
        _note_given(namespace, self.dest)


def _recording(kwargs: dict[str, Any]) -> dict[str, Any]:
    """``kwargs`` of ``add_argument`` with argparse's store and store_true actions replaced by their recording
    forms (:class:`Given`, :class:`GivenFlag`); other actions as they are."""
    action = kwargs.get("action")
    if action in (None, "store"):
        return {**kwargs, "action": Given}
    if action == "store_true":
        return {**kwargs, "action": GivenFlag}
    return kwargs


class Renamed(argparse.Action):
    """An old option name: does what the new one does, and says on stderr that it is deprecated."""

    def __init__(self, option_strings: list[str], dest: str, *, new: str, does: str = "store", **kwargs: Any):
        self.new, self.does = new, does
        if does in ("store_true", "store_false"):
            kwargs["nargs"] = 0
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        print(f"{parser.prog}: warning: {option_string} is deprecated, renamed {self.new} (one name in every "
              "command); it still works", file=sys.stderr)
        if self.does == "store_true":
            values = True
        elif self.does in ("append", "extend"):
            old = list(getattr(namespace, self.dest, None) or [])
            values = old + (list(values) if self.does == "extend" else [values])
        setattr(namespace, self.dest, values)
        _note_given(namespace, self.dest)


# --------------------------------------------------------------------------- commands


class Command:
    """A subcommand's parser, built from the catalog's options and its own, with the role of each.

    ``description`` is shown as given (wrapped by its module: wrapping here would cost
    every command a ``textwrap`` import), followed by the ``examples``.

    ``roles`` maps every option's ``dest`` to ``input`` / ``output`` / ``other``;
    ``flags`` to the flag shown in messages (``-o/--output``, or the metavar of a
    positional); ``strings`` to all its option strings; ``kinds`` an output's kind
    (:data:`OUTPUT_KINDS`); ``shared`` lists the catalog options the command takes,
    ``help`` their help texts. The parsed namespace carries the command as
    ``args.command_spec``.
    """

    def __init__(self, subparsers: Any, name: str, *, summary: str, description: str,
                 examples: Sequence[str] = ()) -> None:
        self.name, self.examples = name, tuple(examples)
        self.roles: dict[str, str] = {}
        self.flags: dict[str, str] = {}
        self.kinds: dict[str, str] = {}
        self.shared: list[str] = []
        self.help: dict[str, str] = {}
        self.strings: dict[str, tuple[str, ...]] = {}
        epilog = None
        if self.examples:
            epilog = "examples (in a folder made by 'bleustats demo --write-files .'):\n" + "\n".join(
                f"  {example}" for example in self.examples)
        self.parser = subparsers.add_parser(
            name, help=summary, description=description,
            epilog=epilog, formatter_class=argparse.RawDescriptionHelpFormatter)
        self.parser.add_argument("-V", "--version", action="version", version=f"bleustats {__version__}")
        self.parser.set_defaults(command_spec=self)
        self._groups: dict[str, Any] = {}

    def group(self, key: str) -> Any:
        """The argument group ``key`` of :data:`GROUPS` (or a title of the command's own), made once."""
        if key not in self._groups:
            self._groups[key] = self.parser.add_argument_group(GROUPS.get(key, key))
        return self._groups[key]

    def add(self, *names: str, kind: str = "file", **overrides: Any) -> None:
        """Add the catalog's options ``names``, each in its group; ``overrides`` apply to every one of them."""
        for name in names:
            spec = CATALOG[name](**overrides)
            target = self.group(spec.group)
            kwargs = dict(spec.kwargs)
            if spec.flags[0].startswith("-"):
                kwargs["dest"] = name
                kwargs = _recording(kwargs)
            action = target.add_argument(*spec.flags, **kwargs)
            self._record(name, action, spec.role, kind)
            self.shared.append(name)
            self.help[name] = kwargs.get("help", "")

    def own(self, *flags: str, role: str = "other", kind: str = "file", group: str | None = None,
            **kwargs: Any) -> Any:
        """Add an option of this command alone, with its role; returns the argparse action."""
        if role not in ROLES or kind not in OUTPUT_KINDS:
            raise ValueError(f"role must be one of {ROLES} and kind one of {OUTPUT_KINDS}; got {role!r}, {kind!r}")
        target = self.group(group) if group else self.parser
        action = target.add_argument(*flags, **(_recording(kwargs) if flags[0].startswith("-") else kwargs))
        self._record(action.dest, action, role, kind)
        return action

    def renamed(self, old: str, dest: str, *, does: str = "store", **kwargs: Any) -> None:
        """The old name ``old`` of the option now stored in ``dest`` (:data:`RENAMED` says its new name)."""
        new = RENAMED[(self.name, old)]
        self.parser.add_argument(old, dest=dest, action=Renamed, new=new, does=does, help=argparse.SUPPRESS,
                                 **kwargs)

    def _record(self, dest: str, action: Any, role: str, kind: str) -> None:
        self.roles[dest] = role
        strings = list(action.option_strings)
        self.strings[dest] = tuple(strings)
        self.flags[dest] = strings[-1] if strings else str(action.metavar or dest.upper())
        if role == "output":
            self.kinds[dest] = kind

    def input_paths(self, args: argparse.Namespace) -> list[tuple[str, str]]:
        """``(flag, path)`` of every input path given (``-``, standard input, left out)."""
        out = []
        for dest in self.inputs:
            value = getattr(args, dest, None)
            for path in value if isinstance(value, (list, tuple)) else [value]:
                if isinstance(path, (str, os.PathLike)) and os.fspath(path) != "-":
                    out.append((self.flags[dest], os.fspath(path)))
        return out

    def check(self, args: argparse.Namespace) -> None:
        """Refuse, before any work, an input path that does not exist, and every output the writer refuses
        (:func:`bleustats.cli._outputs.check`, loaded only when the command line names an output)."""
        from ..errors import InputError

        for flag, path in self.input_paths(args):
            if not os.path.exists(path):
                shown = path if not flag.startswith("-") else f"{flag} {path}"
                raise InputError(f"{shown}: no such file; check the path. Nothing was computed.")
        if any(isinstance(getattr(args, dest, None), (str, os.PathLike)) for dest in self.outputs):
            from . import _outputs

            _outputs.check(args, self)

    @property
    def inputs(self) -> list[str]:
        """The ``dest`` of every option naming a path the command reads."""
        return [d for d, r in self.roles.items() if r == "input"]

    @property
    def outputs(self) -> list[str]:
        """The ``dest`` of every option naming a path the command writes."""
        return [d for d, r in self.roles.items() if r == "output"]
