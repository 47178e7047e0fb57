"""Plain-Python twin of the subset-tree kernel (``bleustats._tree_kernels``).

Written for clarity, not speed: trees are nested ``(label, children)`` tuples,
leaves are ``str``, and Δ is the recursion of Collins & Duffy (2002) written
exactly as in the paper, with memoization only:

* ``production(n)`` = the label of ``n`` followed by the labels of its
  children (a leaf's label is the leaf itself, marked as a leaf);
* ``Δ(n1, n2) = 0`` if the productions differ;
* otherwise ``Δ(n1, n2) = λ · Π_j (1 + Δ(child_j(n1), child_j(n2)))``, where
  Δ of two leaves is 0 (so a pre-terminal gives λ);
* ``K(a, b) = Σ_{n1 ∈ a} Σ_{n2 ∈ b} Δ(n1, n2)`` over internal nodes.

``count_common_fragments`` enumerates fragments explicitly (every connected
sub-graph that takes all or none of each node's children) for tiny trees: a
third, independent check that K with λ = 1 is the number of common fragments.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from itertools import product
from typing import Union

Node = Union[str, tuple]  # a leaf, or (label, (child, ...))


def to_tuple(tree) -> Node:
    """bleustats.trees.Tree (or nested tuples) → hashable nested tuples."""
    if isinstance(tree, str):
        return tree
    label, children = tree[0], tree[1]
    return (label, tuple(to_tuple(c) for c in children))


def internal_nodes(tree: Node) -> list:
    if isinstance(tree, str):
        return []
    out = [tree]
    for c in tree[1]:
        out.extend(internal_nodes(c))
    return out


def production(node: Node) -> tuple:
    label, children = node
    return (label,) + tuple(("leaf", c) if isinstance(c, str) else ("node", c[0]) for c in children)


def reference_tree_kernel(a, b, lam: float) -> float:
    """K(a, b), unnormalized."""
    a, b = to_tuple(a), to_tuple(b)

    @lru_cache(maxsize=None)
    def delta(n1: Node, n2: Node) -> float:
        if isinstance(n1, str) or isinstance(n2, str):
            return 0.0
        if production(n1) != production(n2):
            return 0.0
        out = lam
        for c1, c2 in zip(n1[1], n2[1]):
            out *= 1.0 + delta(c1, c2)
        return out

    return sum(delta(n1, n2) for n1 in internal_nodes(a) for n2 in internal_nodes(b))


def reference_normalized_kernel(a, b, lam: float) -> float:
    k = reference_tree_kernel(a, b, lam)
    return k / (reference_tree_kernel(a, a, lam) * reference_tree_kernel(b, b, lam)) ** 0.5


def fragments_at(node: Node) -> list:
    """Every fragment rooted at ``node``: keep all children, each child cut or expanded."""
    label, children = node
    options = []
    for c in children:
        if isinstance(c, str):
            options.append([c])
        else:
            options.append([("cut", c[0])] + fragments_at(c))
    return [(label, tuple(choice)) for choice in product(*options)]


def count_common_fragments(a, b) -> int:
    """Σ over fragment types of count_a · count_b (= K with λ = 1), by enumeration."""
    a, b = to_tuple(a), to_tuple(b)
    fa = Counter(f for n in internal_nodes(a) for f in fragments_at(n))
    fb = Counter(f for n in internal_nodes(b) for f in fragments_at(n))
    return sum(c * fb[f] for f, c in fa.items())
