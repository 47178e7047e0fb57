r"""Numba kernels: the Collins & Duffy (2002) subset-tree kernel over flat tree arrays.

Private module; only :mod:`bleustats.tools.trees` calls it. A batch of trees is held
as flat arrays (built by ``bleustats.tools.trees``):

``prod``
    int64, one entry per *internal* node: the id of the node's production
    (its label followed by the labels of all its children, leaves included).
    Two nodes have the same id if and only if their productions are equal.
``child_ptr``, ``child_idx``
    CSR lists of each node's *internal* children, in left-to-right order
    (global node indices). Leaves (words) are not nodes here: equal
    productions already imply equal leaves at the same positions, and a leaf
    contributes the factor :math:`1 + 0 = 1` to the recursion below.
``tree_ptr``
    Offsets of each tree's nodes. Inside a tree, nodes are in post-order, so a
    child's index is always below its parent's.

For nodes :math:`n_1, n_2` the number of common fragments rooted at both,
each weighted by :math:`\lambda^{\text{size}}`, is

.. math::

    \Delta(n_1, n_2) = \begin{cases}
        0 & \text{productions differ} \\
        \lambda \prod_{j} \big(1 + \Delta(c_j(n_1), c_j(n_2))\big) & \text{otherwise}
    \end{cases}

(a pre-terminal has no internal children: :math:`\Delta = \lambda`), and
:math:`K(a, b) = \sum_{n_1 \in a} \sum_{n_2 \in b} \Delta(n_1, n_2)`.
Post-order makes one pass over the node pairs enough. ``tests/twins/trees.py``
is the plain-Python twin.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True, nogil=True)
def _kernel_pair(prod, child_ptr, child_idx, a0, a1, b0, b1, lam):
    """K(a, b) of the trees whose nodes are a0:a1 and b0:b1 (post-order)."""
    na = a1 - a0
    nb = b1 - b0
    delta = np.zeros((na, nb))
    total = 0.0
    for i in range(na):
        pi = prod[a0 + i]
        ci0 = child_ptr[a0 + i]
        nc = child_ptr[a0 + i + 1] - ci0
        for j in range(nb):
            if prod[b0 + j] != pi:
                continue
            cj0 = child_ptr[b0 + j]
            d = lam
            for k in range(nc):
                d *= 1.0 + delta[child_idx[ci0 + k] - a0, child_idx[cj0 + k] - b0]
            delta[i, j] = d
            total += d
    return total


@njit(cache=True, nogil=True)
def kernel_pairs_serial(prod, child_ptr, child_idx, tree_ptr, left, right, lam):
    """K(left[p], right[p]) for every pair p, on the calling thread."""
    out = np.empty(left.shape[0])
    for p in range(left.shape[0]):
        a, b = left[p], right[p]
        out[p] = _kernel_pair(prod, child_ptr, child_idx, tree_ptr[a], tree_ptr[a + 1],
                              tree_ptr[b], tree_ptr[b + 1], lam)
    return out


@njit(cache=True, nogil=True, parallel=True)
def kernel_pairs(prod, child_ptr, child_idx, tree_ptr, left, right, lam):
    """K(left[p], right[p]) for every pair p; each iteration writes only out[p]."""
    out = np.empty(left.shape[0])
    for p in prange(left.shape[0]):
        a, b = left[p], right[p]
        out[p] = _kernel_pair(prod, child_ptr, child_idx, tree_ptr[a], tree_ptr[a + 1],
                              tree_ptr[b], tree_ptr[b + 1], lam)
    return out
