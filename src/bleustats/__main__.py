"""``python -m bleustats``: the ``bleustats`` command."""

import sys

from .cli.main import main

sys.exit(main())
