"""Argument checks shared by every floor (private).

Each check raises :class:`bleustats.errors.InputError` with the parameter's
name, what was expected and the repr of what arrived, and returns the value
in its normal form, so a public function validates in one line per argument.
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

import numpy as np

from .errors import InputError

__all__ = [
    "check_choice",
    "check_count",
    "check_number",
    "choices_text",
    "describe_ids",
    "renamed_keywords",
    "short_repr",
]

F = TypeVar("F", bound=Callable[..., Any])


def choices_text(values: Sequence[Any]) -> str:
    """``'a', 'b' or 'c'``: the allowed values of a parameter, for messages.

    Examples
    --------
    >>> choices_text(("b", "c", "wmt"))
    "'b', 'c' or 'wmt'"
    """
    quoted = [repr(v) for v in values]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]


def check_choice(name: str, value: Any, choices: Sequence[Any]) -> Any:
    """Return ``value`` if it is one of ``choices``, else raise naming ``name``.

    Examples
    --------
    >>> check_choice("ref_length", "closest", ("closest", "shortest"))
    'closest'
    >>> check_choice("ref_length", "long", ("closest", "shortest"))
    Traceback (most recent call last):
    ...
    bleustats.errors.InputError: ref_length must be one of 'closest', 'shortest'; got 'long'.
    """
    try:
        ok = value in choices
    except TypeError:  # unhashable value against a set / dict of choices
        ok = False
    if not ok:
        raise InputError(f"{name} must be one of {', '.join(map(repr, choices))}; got {value!r}.")
    return value


def check_count(name: str, value: Any, *, minimum: int) -> int:
    """Return ``value`` as an int if it is an integer >= ``minimum`` (bools are not integers here).

    Examples
    --------
    >>> check_count("n_samples", 10, minimum=1)
    10
    >>> check_count("n_samples", True, minimum=1)
    Traceback (most recent call last):
    ...
    bleustats.errors.InputError: n_samples must be an integer >= 1; got True.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise InputError(f"{name} must be an integer >= {minimum}; got {value!r}.")
    return int(value)


def check_number(name: str, value: Any, *, positive: bool = False, non_negative: bool = False,
                 unit: bool = False, maximum: float | None = None) -> float:
    """Return ``value`` as a float if it is a finite real number (not a bool) in the asked range.

    ``positive``: > 0; ``non_negative``: >= 0; ``unit``: in (0, 1]; ``maximum``: <= maximum.

    Examples
    --------
    >>> check_number("decay", 0.9, unit=True)
    0.9
    >>> check_number("o_len", float("nan"), positive=True)
    Traceback (most recent call last):
    ...
    bleustats.errors.InputError: o_len must be a finite number > 0; got nan.
    """
    ok = (not isinstance(value, (bool, np.bool_)) and isinstance(value, (int, float, np.integer, np.floating))
          and math.isfinite(value))
    if ok and positive:
        ok = value > 0
    if ok and non_negative:
        ok = value >= 0
    if ok and unit:
        ok = 0 < value <= 1
    if ok and maximum is not None:
        ok = value <= maximum
    if not ok:
        want = ("a number in (0, 1]" if unit else "a finite number > 0" if positive
                else "a finite number >= 0" if non_negative else "a finite number")
        if maximum is not None:
            want += f" and <= {maximum:g}"
        raise InputError(f"{name} must be {want}; got {value!r}.")
    return float(value)


def describe_ids(ids: Iterable[Any], limit: int = 10) -> str:
    """``1, 2, 3 and 7 more``: the first ``limit`` ids of a list, for messages.

    Examples
    --------
    >>> describe_ids(range(12), limit=3)
    '0, 1, 2 and 9 more'
    """
    ids = list(ids)
    shown = ", ".join(str(v.item() if isinstance(v, np.generic) else v) for v in ids[:limit])
    return shown + (f" and {len(ids) - limit} more" if len(ids) > limit else "")


def short_repr(obj: Any, limit: int = 80) -> str:
    """``repr(obj)`` cut to ``limit`` characters (``...`` marks a cut)."""
    text = repr(obj)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def renamed_keywords(**renames: str) -> Callable[[F], F]:
    """Accept a keyword's old name for one release, with a DeprecationWarning.

    ``@renamed_keywords(statistic="metric")`` lets callers still pass
    ``statistic=...``; passing both names is an error.

    Examples
    --------
    >>> @renamed_keywords(statistic="metric")
    ... def f(*, metric="bleu"):
    ...     return metric
    >>> import warnings
    >>> with warnings.catch_warnings(record=True):
    ...     warnings.simplefilter("always")
    ...     f(statistic="delta_bleu")
    'delta_bleu'
    """
    def decorate(func: F) -> F:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            for old, new in renames.items():
                if old in kwargs:
                    if new in kwargs:
                        raise InputError(f"{func.__name__}: pass {new}= only; {old}= is its old name.")
                    warnings.warn(f"{func.__name__}: the keyword {old}= is now {new}=; the old name "
                                  "goes away in bleustats 0.3.", DeprecationWarning, stacklevel=2)
                    kwargs[new] = kwargs.pop(old)
            return func(*args, **kwargs)
        return wrapper  # type: ignore[return-value]
    return decorate
