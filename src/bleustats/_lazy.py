"""A package's entry points imported on first use (PEP 562), so importing the package stays light.

Examples
--------
>>> import bleustats.engine
>>> "StatsTable" in dir(bleustats.engine) and "StatsTable" in bleustats.engine.__all__
True
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any


def lazy_exports(package: str, exports: Mapping[str, str], submodules: Iterable[str] = ()
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``, whose name ``n`` is ``exports[n]``'s attribute ``n``.

    The module ``exports[n]`` (relative to ``package``) is imported when ``n``
    is first read, and the value is then kept in the package's namespace, so
    later reads skip ``__getattr__``. ``submodules`` are imported when first
    read as attributes.
    """
    subs = frozenset(submodules)

    def __getattr__(name: str) -> Any:
        if name in exports:
            value = getattr(importlib.import_module(f".{exports[name]}", package), name)
            setattr(sys.modules[package], name, value)
            return value
        if name in subs:
            return importlib.import_module(f".{name}", package)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *exports, *subs})

    return __getattr__, __dir__
