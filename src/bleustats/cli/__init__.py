"""The ``bleustats`` command line (:func:`main`); one module per subcommand.

- :mod:`~bleustats.cli.main`: the parser, the dispatch and the error policy (exit 0 / 1 / 2).
- Subcommands: :mod:`~bleustats.cli.demo`, :mod:`~bleustats.cli.score` (with
  sacreBLEU's own flags and output in :mod:`~bleustats.cli.sacrebleu_cli`),
  :mod:`~bleustats.cli.stats`, :mod:`~bleustats.cli.kbest`, :mod:`~bleustats.cli.mbr`, :mod:`~bleustats.cli.tune`,
  :mod:`~bleustats.cli.analyze`, :mod:`~bleustats.cli.study`, :mod:`~bleustats.cli.correlate`,
  :mod:`~bleustats.cli.compare`.
- Shared parts: ``_study_inputs`` (the tables of ``study`` / ``correlate``, read and
  checked once), ``_progress`` (stderr progress and one-line errors), ``_dask``
  (the ``--dask ADDRESS`` option), ``_finish`` (whether a command's outputs are complete
  when it returns, so that the process may end without the interpreter's teardown).
"""

from .main import main

__all__ = ["main"]
