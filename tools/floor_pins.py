"""Print the declared floors of ``pyproject.toml`` as exact pins, for the floor run of ``.ci/run``.

The floors are written once, in ``[project] dependencies`` (``numpy>=2.0.0``);
this turns each into a pin (``numpy==2.0.0``), one a line, for ``pip install -c``.
Every runtime dependency must have a ``>=`` floor naming a release that exists,
so that CI can install it. ``--python`` prints the Python floor of
``requires-python`` instead (``3.10``).

Run from anywhere: ``python tools/floor_pins.py [--python] [--pyproject PATH]``.
It exits 1 with one line on stderr when a dependency has no floor.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # the floor Python: tomli, as the build backend uses it there
    import tomli as tomllib

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"

# A PEP 508 requirement as pyproject.toml writes them here: name, optional [extras], specifiers, optional marker.
_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*([^;]*?)\s*(?:;\s*(.+?))?\s*$")
_FLOOR = re.compile(r"^>=\s*([0-9][0-9A-Za-z.!+-]*)$")


def floor_pin(requirement: str) -> str:
    """The exact pin of a requirement's ``>=`` floor: ``'numpy>=2.0.0'`` -> ``'numpy==2.0.0'``.

    A marker is kept (``'tomli>=1.1; python_version < "3.11"'`` -> ``'tomli==1.1 ; python_version < "3.11"'``);
    extras are dropped, as a constraints file wants.

    >>> floor_pin("numpy>=2.0.0")
    'numpy==2.0.0'
    >>> floor_pin("dask[dataframe] >= 2024.8, <2027")
    'dask==2024.8'
    >>> floor_pin("tomli>=1.1; python_version < '3.11'")
    "tomli==1.1 ; python_version < '3.11'"
    >>> floor_pin("numpy")
    Traceback (most recent call last):
    ...
    ValueError: dependency 'numpy' has no '>=' floor: write the lowest release it needs, e.g. 'numpy>=1.2.3'
    """
    match = _REQUIREMENT.match(requirement)
    if match is None:
        raise ValueError(f"dependency {requirement!r} is not a requirement of the form 'name>=version'")
    name, specifiers, marker = match.groups()
    floors = [m.group(1) for s in specifiers.split(",") if (m := _FLOOR.match(s.strip()))]
    if len(floors) != 1:
        raise ValueError(f"dependency {requirement!r} has {'no' if not floors else 'more than one'} '>=' floor: "
                         f"write the lowest release it needs, e.g. '{name}>=1.2.3'")
    return f"{name}=={floors[0]}" + (f" ; {marker}" if marker else "")


def python_floor(requires_python: str) -> str:
    """The ``major.minor`` of a ``requires-python`` floor: ``'>=3.10'`` -> ``'3.10'``.

    >>> python_floor(">=3.10")
    '3.10'
    >>> python_floor(">=3.11.2, <4")
    Traceback (most recent call last):
    ...
    ValueError: requires-python '>=3.11.2, <4' is not of the form '>=3.N'
    """
    match = re.fullmatch(r"\s*>=\s*(3\.[0-9]+)\s*", requires_python)
    if match is None:
        raise ValueError(f"requires-python {requires_python!r} is not of the form '>=3.N'")
    return match.group(1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", action="store_true", help="print the Python floor (requires-python) instead")
    parser.add_argument("--pyproject", type=Path, default=PYPROJECT, help="default: the repository's")
    args = parser.parse_args(argv)
    with open(args.pyproject, "rb") as fh:
        project = tomllib.load(fh)["project"]
    try:
        if args.python:
            print(python_floor(project["requires-python"]))
        else:
            print("\n".join(floor_pin(r) for r in project["dependencies"]))
    except ValueError as err:
        print(f"{args.pyproject}: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
