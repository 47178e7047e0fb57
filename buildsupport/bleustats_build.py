"""bleustats' build backend: setuptools', plus what a wheel build needs to compile the kernels.

A wheel build (``pip install .``, ``pip wheel .``, ``python -m build``) runs
``python -m bleustats._warm`` on the freshly built package (``setup.py``) and so
needs the runtime dependencies in its build environment; an editable or sdist
build compiles nothing and needs only setuptools.
"""

from __future__ import annotations

import sys

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F401,F403 - the PEP 517 / 660 hooks not changed here

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - build requirement on 3.10
    import tomli as tomllib


def _runtime_dependencies() -> list[str]:
    with open("pyproject.toml", "rb") as f:
        return list(tomllib.load(f)["project"]["dependencies"])


def get_requires_for_build_wheel(config_settings=None):
    return _setuptools.get_requires_for_build_wheel(config_settings) + _runtime_dependencies()
