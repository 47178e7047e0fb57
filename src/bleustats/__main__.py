"""``python -m bleustats``: the ``bleustats`` command."""

from ._launch import console

console()
