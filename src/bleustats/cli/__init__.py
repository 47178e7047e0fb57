"""The ``bleustats`` command line (:func:`main`); one module per subcommand.

- :mod:`~bleustats.cli.main`: the parser, the dispatch and the error policy (exit 0 / 1 / 2).
- Subcommands: :mod:`~bleustats.cli.demo`, :mod:`~bleustats.cli.score` (with
  sacreBLEU's own flags and output in :mod:`~bleustats.cli.sacrebleu_cli`),
  :mod:`~bleustats.cli.stats`, :mod:`~bleustats.cli.kbest`, :mod:`~bleustats.cli.mbr`, :mod:`~bleustats.cli.tune`,
  :mod:`~bleustats.cli.analyze`, :mod:`~bleustats.cli.study`, :mod:`~bleustats.cli.correlate`,
  :mod:`~bleustats.cli.compare`.
- The parts every subcommand is built from (docs/command-line.md): ``_options`` (the
  shared options, defined once, composed per command by group, each with its role:
  input, output, other), ``_outputs`` (the one output writer: every path checked
  before any work, one rule for an existing output, atomic writes), ``_records`` (score
  records of ``--json`` and the ``--segment-scores`` table), ``_errors`` (the one error
  path: one line, exit 2 for usage, 1 otherwise), ``_progress`` (the one progress
  reporter on stderr, a terminal only).
- Other shared parts: ``_study_inputs`` (the tables of ``study`` / ``correlate``, read and
  checked once), ``_dask`` (the ``--dask ADDRESS`` option).
"""

from .main import main

__all__ = ["main"]
