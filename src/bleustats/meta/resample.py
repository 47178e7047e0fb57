r"""Resampling primitives: random partitions into units, bootstrap draws, unit sums.

Every function takes ``seed`` (an int, a :class:`numpy.random.SeedSequence` or
a :class:`numpy.random.Generator`, which is then advanced), so a study that
records its seed is reproducible bit for bit. Nothing here knows about BLEU:
the functions return indices, and :func:`unit_sums` adds rows of any
statistics matrix over the units with one sparse matrix product, so resampled
corpus scores are sums over cached statistics, never a rescan of texts.

A *partition into units* of :math:`n` items with unit size :math:`M` is a
random permutation :math:`\pi` of :math:`0..n-1` cut into
:math:`U = \lfloor n / M \rfloor` consecutive blocks; the last
:math:`n - UM` items of the permutation (the remainder) are dropped:

.. math::

    u_k = \{\pi(kM), \dots, \pi(kM + M - 1)\}, \qquad k = 0..U-1.

References
----------
.. [1] Galley, M., Brockett, C., Sordoni, A., Ji, Y., Auli, M., Quirk, C.,
   Mitchell, M., Gao, J., Dolan, B. (2015). ΔBLEU: a discriminative metric for
   generation tasks with intrinsically diverse targets. ACL, section 5
   (random partitions of the rated segments into units of M segments).
.. [2] Efron, B., Tibshirani, R. (1993). An Introduction to the Bootstrap.
   Chapman & Hall.

Examples
--------
>>> units = unit_partitions(7, 3, n_assignments=2, seed=0)
>>> units.shape                      # 2 assignments, 7 // 3 = 2 units of 3 items
(2, 2, 3)
>>> sorted(units[0].ravel().tolist()) != list(range(7))   # one item left over
True
>>> unit_sums([[1.0], [2.0], [3.0], [4.0]], [[[0, 1], [2, 3]]]).tolist()
[[[3.0], [7.0]]]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Union

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validate import check_count
from ..errors import InputError

if TYPE_CHECKING:
    import scipy.sparse as sp

__all__ = [
    "SeedLike",
    "aggregation_matrix",
    "as_generator",
    "bootstrap_indices",
    "generator_and_label",
    "unit_partitions",
    "unit_sums",
]

#: What ``seed`` may be: an int, a SeedSequence or a Generator (advanced in place); None = OS entropy.
SeedLike = Union[int, np.integer, np.random.SeedSequence, np.random.Generator, None]


def as_generator(seed: SeedLike) -> np.random.Generator:
    """A :class:`numpy.random.Generator` from ``seed`` (a Generator is returned as is).

    Examples
    --------
    >>> g = as_generator(7)
    >>> as_generator(g) is g, int(as_generator(7).integers(100)) == int(g.integers(100))
    (True, True)
    """
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or isinstance(seed, np.random.SeedSequence):
        return np.random.default_rng(seed)
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InputError(
            f"seed must be a non-negative int, a numpy SeedSequence or Generator, or None; got {seed!r}. "
            "Pass e.g. seed=0."
        )
    return np.random.default_rng(int(seed))


def generator_and_label(seed: SeedLike) -> tuple[np.random.Generator, int | None | str]:
    """:func:`as_generator`, plus what a result's signature records of the seed.

    The label is the int itself, ``None`` for fresh OS entropy, or ``'generator'``
    when a Generator or SeedSequence was passed (its state is not a number to
    print). Shared by every module that reports its seed.
    """
    rng = as_generator(seed)
    if seed is None:
        return rng, None
    if isinstance(seed, (np.random.Generator, np.random.SeedSequence)):
        return rng, "generator"
    return rng, int(seed)


def unit_partitions(
    n_items: int,
    unit_size: int,
    *,
    n_assignments: int = 1,
    seed: SeedLike = None,
) -> NDArray[np.int64]:
    r"""Random partitions of ``n_items`` items into units of ``unit_size``, remainder dropped.

    Each assignment is an independent uniform random permutation :math:`\pi`
    of the items cut into :math:`U = \lfloor n / M \rfloor` blocks
    :math:`u_k = \{\pi(kM), \dots, \pi(kM + M - 1)\}`; the last
    :math:`n - UM` items of the permutation are not used.

    Parameters
    ----------
    n_items : int
        Number of items :math:`n` (e.g. the segments two systems share).
    unit_size : int
        Items per unit :math:`M`, from 1 to ``n_items``.
    n_assignments : int
        Number of independent partitions.
    seed : int, SeedSequence, Generator or None
        Randomness; a Generator is advanced (so consecutive calls with the
        same Generator draw different partitions).

    Returns
    -------
    numpy.ndarray of int64, shape (n_assignments, n_items // unit_size, unit_size)
        Item indices; within an assignment every item appears at most once.

    Raises
    ------
    InputError
        ``unit_size`` larger than ``n_items`` (no unit fits), or bad counts.

    Examples
    --------
    >>> u = unit_partitions(10, 4, n_assignments=3, seed=1)
    >>> u.shape, all(len(set(a.ravel())) == 8 for a in u)
    ((3, 2, 4), True)
    """
    n_items = check_count("n_items", n_items, minimum=0)
    unit_size = check_count("unit_size", unit_size, minimum=1)
    n_assignments = check_count("n_assignments", n_assignments, minimum=1)
    if unit_size > n_items:
        raise InputError(
            f"unit_size must be at most n_items ({n_items}) so that one unit fits; got {unit_size!r}. "
            "Use a smaller unit size or more items."
        )
    rng = as_generator(seed)
    n_units = n_items // unit_size
    perms = rng.permuted(np.tile(np.arange(n_items, dtype=np.int64), (n_assignments, 1)), axis=1)
    return np.ascontiguousarray(perms[:, : n_units * unit_size]).reshape(n_assignments, n_units, unit_size)


def bootstrap_indices(n_items: int, n_resamples: int, *, seed: SeedLike = None) -> NDArray[np.int64]:
    r"""Bootstrap draws: ``n_resamples`` rows of ``n_items`` indices drawn with replacement.

    Row :math:`b` holds :math:`i_{b,1..n} \sim \mathrm{Uniform}\{0..n-1\}`
    independently (Efron & Tibshirani, 1993).

    Parameters
    ----------
    n_items : int
        Size :math:`n` of the sample (at least 1).
    n_resamples : int
        Number of bootstrap samples.
    seed : int, SeedSequence, Generator or None

    Returns
    -------
    numpy.ndarray of int64, shape (n_resamples, n_items)

    Examples
    --------
    >>> idx = bootstrap_indices(5, 4, seed=0)
    >>> idx.shape, int(idx.min()) >= 0, int(idx.max()) < 5
    ((4, 5), True, True)
    """
    n_items = check_count("n_items", n_items, minimum=1)
    n_resamples = check_count("n_resamples", n_resamples, minimum=1)
    return as_generator(seed).integers(0, n_items, size=(n_resamples, n_items), dtype=np.int64)


def aggregation_matrix(units: ArrayLike, n_items: int) -> sp.csr_matrix:
    r"""Sparse 0/1 matrix :math:`S` with :math:`S_{k,i} = [i \in u_k]`, one row per unit.

    ``units`` of shape (..., U, M) is flattened to ``prod(...) * U`` rows;
    ``S @ X`` sums the rows of ``X`` over every unit.

    Examples
    --------
    >>> aggregation_matrix([[0, 2], [1, 3]], 4).toarray().tolist()
    [[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0]]
    """
    units = np.asarray(units)
    if units.ndim < 2 or not np.issubdtype(units.dtype, np.integer):
        raise InputError(f"units must be an integer array of shape (..., n_units, unit_size); got "
                         f"dtype {units.dtype} and shape {units.shape}.")
    m = units.shape[-1]
    flat = units.reshape(-1).astype(np.int64, copy=False)
    if flat.size and (flat.min() < 0 or flat.max() >= n_items):
        raise InputError(f"units: indices must be in [0, {n_items}); got min {flat.min()}, max {flat.max()}.")
    n_rows = flat.size // m if m else int(np.prod(units.shape[:-1]))
    indptr = np.arange(n_rows + 1, dtype=np.int64) * m
    import scipy.sparse as sp  # imported here: it costs 0.2 s, and the CLI imports this module

    return sp.csr_matrix((np.ones(flat.size), flat, indptr), shape=(n_rows, n_items))


def unit_sums(values: ArrayLike, units: ArrayLike) -> NDArray[np.float64]:
    r"""Column sums of ``values`` over every unit: :math:`T_{k,:} = \sum_{i \in u_k} X_{i,:}`.

    One sparse matrix product for all units of all assignments. Sums are in
    float64; integer statistics stay exact below :math:`2^{53}`.

    Parameters
    ----------
    values : array_like, shape (n_items, k) or (n_items,)
        Per-item statistics (rows are items).
    units : array_like of int, shape (..., U, M)
        Item indices, e.g. from :func:`unit_partitions`.

    Returns
    -------
    numpy.ndarray of float64, shape (..., U, k) (or (..., U) for 1-d values)

    Examples
    --------
    >>> unit_sums([1, 2, 3, 4, 5], [[[4, 0]], [[1, 2]]]).tolist()
    [[6.0], [5.0]]
    """
    x = np.asarray(values, dtype=np.float64)
    units = np.asarray(units)
    one_d = x.ndim == 1
    if one_d:
        x = x[:, None]
    if x.ndim != 2:
        raise InputError(f"values must have shape (n_items, k) or (n_items,); got shape {x.shape}.")
    s = aggregation_matrix(units, x.shape[0])
    out = np.asarray(s @ x)
    shape = units.shape[:-1] + (x.shape[1],)
    out = out.reshape(shape)
    return out[..., 0] if one_d else out
