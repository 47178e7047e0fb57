"""Every exception bleustats raises on bad input, in one place.

The input errors are :class:`ValueError` subclasses, so ``except ValueError``
keeps working; a missing optional package is a :class:`MissingExtraError`.
Messages name the parameter (or file and line), what was expected, the repr
of what arrived, and how to fix it.

Examples
--------
>>> from bleustats.errors import InputError, SchemaError, UsageError
>>> issubclass(SchemaError, InputError), issubclass(InputError, ValueError), issubclass(UsageError, InputError)
(True, True, True)
"""

from __future__ import annotations

__all__ = ["ClusterError", "InputError", "MissingExtraError", "SchemaError", "UsageError"]


class InputError(ValueError):
    """Bad user input; the message names the input, the row and the fix."""


class SchemaError(InputError):
    """A table does not match its declared schema; the message lists every problem."""


class MissingExtraError(ImportError, RuntimeError):
    """An optional feature needs a package that is not installed; the message names the extra.

    Both an :class:`ImportError` and a :class:`RuntimeError` (what sacreBLEU
    raises for its MeCab tokenizers), so either ``except`` catches it.
    """


class ClusterError(OSError):
    """A Dask cluster failed the run: its scheduler is unreachable, or it lost workers more often than it retries.

    An :class:`OSError`, like the other failures of the machine rather than
    of the input; the message says what was (not) written.
    """


class UsageError(InputError):
    """Options that cannot go together, or one that cannot apply; the command line exits 2 on it."""
