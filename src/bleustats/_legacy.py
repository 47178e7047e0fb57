"""The module paths of bleustats 0.1 and the modules merged since, kept as aliases for one release (private).

``import bleustats.stats`` (and every other path below) still works: it gives
a module that looks its names up in the modules the code moved to, and warns
once with a :class:`DeprecationWarning` naming them. Nothing is copied, so
there is one implementation of everything. The aliases go away in 0.3.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import sys
import types
import warnings
from typing import Any

#: old path -> the modules its names now live in (looked up in this order)
MOVED: dict[str, tuple[str, ...]] = {
    "bleustats.analysis": ("bleustats.tools.blind_spots", "bleustats.tools.outliers"),
    "bleustats.combine": ("bleustats.meta.combine",),
    "bleustats.correlation": ("bleustats.meta.correlation",),
    "bleustats.encode": ("bleustats.engine.encode",),
    "bleustats.io": ("bleustats.engine.io", "bleustats.errors"),
    "bleustats.kbest": ("bleustats.tools.kbest", "bleustats.tools.nbest_io"),
    "bleustats.resample": ("bleustats.meta.resample",),
    "bleustats.results": ("bleustats.metrics.results",),
    "bleustats.schemas": ("bleustats.engine.schemas", "bleustats.errors"),
    "bleustats.scoring": ("bleustats.metrics.formula", "bleustats.metrics.tables", "bleustats.engine._options"),
    "bleustats.sentence": ("bleustats.metrics.sentence",),
    "bleustats.stats": ("bleustats.engine.stats",),
    "bleustats.study": ("bleustats.meta.study", "bleustats.meta.report"),
    "bleustats.tokenize": ("bleustats.tokenizers",),
    "bleustats.trees": ("bleustats.tools.trees",),
    # merged or made private in 0.2's one-way-per-thing layout
    "bleustats.engine.partitioned_stats": ("bleustats.engine",),
    "bleustats.metrics.partitioned": ("bleustats.metrics.tables", "bleustats.metrics.sentence"),
    "bleustats.meta.paired_systems": ("bleustats.meta.paired",),
    "bleustats.meta.partitioned": ("bleustats.meta.paired", "bleustats.meta.rated_cells"),
    "bleustats.tools.kbest_partitioned": ("bleustats.tools",),
    "bleustats.tools.mbr_partitioned": ("bleustats.tools",),
}

#: old path -> {old name: "module:new name"} for names that were renamed
RENAMED: dict[str, dict[str, str]] = {
    "bleustats.sentence": {
        "SENTENCE_METRICS": "bleustats.metrics.sentence:SENTENCE_VARIANTS",
        "STATISTICS": "bleustats.metrics.formula:METRICS",
        "SentenceMetric": "bleustats.metrics.sentence:SentenceVariant",
        "get_metric": "bleustats.metrics.sentence:get_variant",
        "sentence_metric": "bleustats.metrics.sentence:score_variant",
        "sentence_metrics": "bleustats.metrics.sentence:score_variants",
    },
    "bleustats.study": {"STATISTICS": "bleustats.meta.report:CORRELATIONS"},
}


class _Alias(types.ModuleType):
    """A module whose attributes are those of the modules the code moved to."""

    def __init__(self, name: str) -> None:
        super().__init__(name, f"Moved: {name} is now {', '.join(MOVED[name])} (alias until bleustats 0.3).")
        self.__targets__ = MOVED[name]
        self.__renamed__ = RENAMED.get(name, {})

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        if attr in self.__renamed__:
            module, new = self.__renamed__[attr].split(":")
            return getattr(importlib.import_module(module), new)
        for target in self.__targets__:
            module = importlib.import_module(target)
            if hasattr(module, attr):
                return getattr(module, attr)
        raise AttributeError(f"module {self.__name__!r} (moved to {', '.join(self.__targets__)}) has no "
                             f"attribute {attr!r}")

    def __dir__(self) -> list[str]:
        names = set(self.__renamed__)
        for target in self.__targets__:
            names.update(getattr(importlib.import_module(target), "__all__", ()))
        return sorted(names)

    @property
    def __all__(self) -> list[str]:  # type: ignore[override]
        return self.__dir__()


class _Loader:  # importlib.abc's protocol; importlib.abc itself loads importlib.resources (ms per process)
    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        warnings.warn(f"{spec.name} moved to {', '.join(MOVED[spec.name])}; the old path is an alias "
                      "until bleustats 0.3.", DeprecationWarning, stacklevel=3)
        return _Alias(spec.name)

    def exec_module(self, module: types.ModuleType) -> None:
        pass


class _Finder:  # a meta path finder (importlib.abc.MetaPathFinder's protocol)
    def find_spec(self, fullname: str, path: Any = None, target: Any = None
                  ) -> importlib.machinery.ModuleSpec | None:
        if fullname in MOVED:
            return importlib.machinery.ModuleSpec(fullname, _Loader())
        return None


def install() -> None:
    """Put the alias finder on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.append(_Finder())
