"""The ``bleustats`` command line (:func:`main`); one module per subcommand."""

from .main import main

__all__ = ["main"]
