"""Opt-in: make other people's ``import sacrebleu`` give bleustats (sacreBLEU 2.6's API, bleustats' engine).

Code written for sacreBLEU (HuggingFace ``evaluate``'s metric scripts, MBR
decoders, training loops) imports ``sacrebleu`` by name. After :func:`install`
every such import in this process resolves to bleustats:

- ``sacrebleu`` is :mod:`bleustats.sacrebleu_shim.package`: sacreBLEU 2.6's
  top-level names, with ``sacrebleu.__version__ == "2.6.0"`` (the version
  whose behaviour bleustats reproduces, so version gates pass) and
  ``sacrebleu.BLEUSTATS_VERSION`` (bleustats' own version);
- ``sacrebleu.metrics[.bleu|.chrf|.ter|.base|.helpers|.lib_ter]``,
  ``sacrebleu.tokenizers[.tokenizer_*]``, ``sacrebleu.compat`` and
  ``sacrebleu.significance`` are the bleustats modules of those names;
- ``sacrebleu.utils``, ``sacrebleu.dataset``, ``sacrebleu.version`` and
  ``sacrebleu.sacrebleu`` (the command line, module ``cli``) are the modules of this package;
  ``__main__`` is the runner below.

Nothing changes until :func:`install` runs (``import bleustats`` alone never
touches ``sacrebleu``). The same from the shell, for a script or module that
imports sacreBLEU: ``python -m bleustats.sacrebleu_shim script.py ARGS`` or
``python -m bleustats.sacrebleu_shim -m module ARGS``. docs/sacrebleu.md
shows it with ``evaluate``.

Examples
--------
>>> from bleustats import sacrebleu_shim
>>> sacrebleu_shim.install()
>>> import sacrebleu
>>> sacrebleu.__version__, sacrebleu.BLEUSTATS_VERSION == __import__("bleustats").__version__
('2.6.0', True)
>>> from sacrebleu.metrics import BLEU
>>> BLEU.__module__
'bleustats.metrics.bleu'
>>> sacrebleu_shim.uninstall()
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import sys
import types
from typing import Any

__all__ = ["SACREBLEU_VERSION", "install", "installed", "uninstall"]

#: the sacreBLEU release whose API and results bleustats reproduces (what ``sacrebleu.__version__`` says)
SACREBLEU_VERSION = "2.6.0"

#: sacreBLEU module -> the bleustats module that stands in for it
MODULES = {
    "sacrebleu": "bleustats.sacrebleu_shim.package",
    "sacrebleu.version": "bleustats.sacrebleu_shim.version",
    "sacrebleu.utils": "bleustats.sacrebleu_shim.utils",
    "sacrebleu.dataset": "bleustats.sacrebleu_shim.dataset",
    "sacrebleu.sacrebleu": "bleustats.sacrebleu_shim.cli",
    "sacrebleu.compat": "bleustats.compat",
    "sacrebleu.significance": "bleustats.significance",
}
#: sacreBLEU packages whose sub-modules are the bleustats modules of the same name
PACKAGES = {"sacrebleu.metrics": "bleustats.metrics", "sacrebleu.tokenizers": "bleustats.tokenizers"}


def target(name: str) -> str | None:
    """The bleustats module that ``import name`` gives under the shim, or ``None`` (not a sacreBLEU name).

    >>> target("sacrebleu.metrics.helpers"), target("sacrebleu.dataset.wmt_xml"), target("numpy")
    ('bleustats.metrics.helpers', None, None)
    """
    if name in MODULES:
        return MODULES[name]
    for prefix, package in PACKAGES.items():
        if name == prefix or name.startswith(prefix + "."):
            new = package + name[len(prefix):]
            return new if importlib.util.find_spec(new) is not None else None
    return None


class _Alias:  # importlib's loader protocol: the module is the bleustats one, already executed
    def __init__(self, module: str) -> None:
        self.module = module

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return importlib.import_module(self.module)

    def exec_module(self, module: types.ModuleType) -> None:
        pass


class _Finder:  # a meta path finder: sacreBLEU's module names -> bleustats modules
    def find_spec(self, fullname: str, path: Any = None, target_module: Any = None
                  ) -> importlib.machinery.ModuleSpec | None:
        if fullname != "sacrebleu" and not fullname.startswith("sacrebleu."):
            return None
        new = target(fullname)
        if new is None:
            # no stand-in: refuse here, so that an installed sacreBLEU cannot fill the gap unnoticed
            raise ModuleNotFoundError(f"No module named {fullname!r}: bleustats' sacreBLEU shim has no "
                                      f"{fullname} (docs/sacrebleu.md lists what it provides)", name=fullname)
        return importlib.machinery.ModuleSpec(fullname, _Alias(new))


def _forget_sacrebleu() -> None:
    for name in [n for n in sys.modules if n == "sacrebleu" or n.startswith("sacrebleu.")]:
        del sys.modules[name]


def installed() -> bool:
    """Whether :func:`install` is in effect in this process."""
    return any(isinstance(f, _Finder) for f in sys.meta_path)


def install() -> None:
    """From now on, ``import sacrebleu`` (and its sub-modules) gives bleustats, in this process.

    A ``sacrebleu`` already imported is forgotten (``sys.modules``), so later
    imports get bleustats; objects taken from it earlier stay what they were.
    Calling it again does nothing.
    """
    if installed():
        return
    _forget_sacrebleu()
    sys.meta_path.insert(0, _Finder())


def uninstall() -> None:
    """Undo :func:`install`: ``import sacrebleu`` finds the installed sacreBLEU (if any) again."""
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _Finder)]
    _forget_sacrebleu()
