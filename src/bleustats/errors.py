"""Every exception bleustats raises on bad input, in one place.

Both are :class:`ValueError` subclasses, so ``except ValueError`` keeps
working. Messages name the parameter (or file and line), what was expected,
the repr of what arrived, and how to fix it.

Examples
--------
>>> from bleustats.errors import InputError, SchemaError, UsageError
>>> issubclass(SchemaError, InputError), issubclass(InputError, ValueError), issubclass(UsageError, InputError)
(True, True, True)
"""

from __future__ import annotations

__all__ = ["InputError", "SchemaError", "UsageError"]


class InputError(ValueError):
    """Bad user input; the message names the input, the row and the fix."""


class SchemaError(InputError):
    """A table does not match its declared schema; the message lists every problem."""


class UsageError(InputError):
    """Options that cannot go together, or one that cannot apply; the command line exits 2 on it."""
