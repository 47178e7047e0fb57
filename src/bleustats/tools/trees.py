r"""Tree-kernel similarity and the DiscoTK discourse-tree representations.

Trees arrive in bracketed form (``(S (NP the dog) (VP barks))``), are parsed
into :class:`Tree` tuples, and a batch of them is flattened into arrays: one
row per internal node with its production id (the node's label followed by
its children's labels, one vocabulary for the whole batch), CSR lists of
internal children, nodes in post-order. The numba kernel in
``bleustats.tools._tree_kernels`` then computes the subset-tree kernel of Collins &
Duffy (2002) for every (hypothesis, reference) pair:

.. math::

    K(a, b) = \sum_{n_1 \in a} \sum_{n_2 \in b} \Delta(n_1, n_2), \qquad
    \Delta(n_1, n_2) = \lambda \prod_j \big(1 + \Delta(c_j(n_1), c_j(n_2))\big)

when the productions at :math:`n_1` and :math:`n_2` are equal (0 otherwise),
so :math:`K` counts the tree fragments the two trees share, each weighted by
:math:`\lambda^{\#\text{productions}}`; with :math:`\lambda = 1` it is the plain
number of common fragments. The normalized kernel is
:math:`K(a, b) / \sqrt{K(a, a)\,K(b, b)} \in [0, 1]`, 1 for identical trees.

Discourse trees (RST) use this bracketed form: an internal node is
``(Relation:NUC child ...)`` where ``NUC`` has one letter per child, ``N``
(nucleus) or ``S`` (satellite), with at least one ``N``; a leaf discourse unit
is ``(EDU word word ...)``. For example ``(Elaboration:NS (EDU the cat sat)
(EDU on the mat))``. Write ``(`` and ``)`` inside words as ``-LRB-`` and
``-RRB-``. :func:`discourse_tree` builds bleustats' versions of the five
representations named by Joty et al. (2014) from one RST tree, and
:func:`discotk_light` averages their normalized kernels.

The five representations are **bleustats' own definitions, not verified
against the papers** (only their abstracts could be read; what they establish
and what they leave open is in ``docs/discotk_trees.md``). One sentence each is
in :data:`DISCOTK_REPRESENTATIONS`; the tests pin them down:

``DR-NOLEX``
    relation nodes, each child under a nuclearity node ``NUC`` or ``SAT``;
    an EDU is the bare leaf ``EDU`` (structure, relations, nuclearity; no words).
``DR-LEX1``
    DR-NOLEX with each EDU's words as the leaves of its ``EDU`` node (an EDU
    fragment matches only an EDU with the same word sequence).
``DR-LEX1.1``
    DR-LEX1 with every relation label replaced by ``REL`` (nuclearity and
    words, no relation types).
``DR-LEX2``
    DR-LEX1 with each word under its own pre-terminal ``(W word)``: EDUs of
    the same length share the fragments of the words they have at the same
    positions.
``DR-LEX2.1``
    DR-LEX2 with every relation label replaced by ``REL``.

References
----------
.. [1] Collins, M., Duffy, N. (2002). New ranking algorithms for parsing and
   tagging: kernels over discrete structures, and the voted perceptron. ACL.
.. [2] Moschitti, A. (2006). Making tree kernels practical for natural
   language learning. EACL (SVM-light-TK; its default decay is λ = 0.4).
.. [3] Joty, S., Guzmán, F., Màrquez, L., Nakov, P. (2014). DiscoTK: Using
   discourse structure for machine translation evaluation. WMT
   (arXiv:1911.12547).
.. [4] Joty, S., Guzmán, F., Màrquez, L., Nakov, P. (2017). Discourse structure
   in machine translation evaluation. Computational Linguistics 43(4),
   683-722 (arXiv:1710.01504).

Examples
--------
>>> t = "(NP (D the) (N man))"
>>> tree_kernel(t, t, lam=1.0, normalize=False)   # 6 fragments: NP->D N (x4 lexicalizations), D, N
6.0
>>> round(tree_kernel(t, "(NP (D a) (N man))", lam=1.0), 4)   # 3 common of 6 and 6
0.5
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, NamedTuple, Sequence, Union

import numpy as np
from numpy.typing import NDArray

from .._kernel_cache import guarded
from . import _tree_kernels as _tree_module
from ..engine._threads import kernel_threads
from ..errors import InputError

__all__ = [
    "DEFAULT_LAMBDA",
    "DISCOTK_REPRESENTATIONS",
    "Tree",
    "TreeBatch",
    "discotk_light",
    "discourse_kernels",
    "discourse_tree",
    "encode_trees",
    "format_tree",
    "parse_rst",
    "parse_tree",
    "tree_kernel",
    "tree_kernels",
]

_tree_kernels = guarded(_tree_module)

#: Decay λ of the subset-tree kernel by default: SVM-light-TK's default, not a value
#: taken from the DiscoTK papers (the λ they used was not verified).
DEFAULT_LAMBDA = 0.4

#: The five DiscoTK representation names (Joty et al., 2014) with bleustats' own
#: definitions of them; not verified against the papers (see the module docstring).
DISCOTK_REPRESENTATIONS: dict[str, str] = {
    "DR-NOLEX": "relations and nuclearity (NUC/SAT nodes); each EDU a bare 'EDU' leaf",
    "DR-LEX1": "DR-NOLEX with each EDU's words as leaves of its EDU node",
    "DR-LEX1.1": "DR-LEX1 with relation labels replaced by 'REL'",
    "DR-LEX2": "DR-LEX1 with each word under its own pre-terminal (W word)",
    "DR-LEX2.1": "DR-LEX2 with relation labels replaced by 'REL'",
}

#: Below this many node pairs a batch runs on the calling thread.
_PARALLEL_MIN_WORK = 200_000

_TOKEN = re.compile(r"\(|\)|[^\s()]+")
_NUCLEARITY = re.compile(r"^[NS]+$")


class Tree(NamedTuple):
    """A node: its label and its children (sub-trees, or ``str`` leaves)."""

    label: str
    children: tuple[Union["Tree", str], ...] = ()


TreeLike = Union[str, Tree]


# --------------------------------------------------------------------------- parsing


def _snippet(text: str, pos: int) -> str:
    lo = max(0, pos - 20)
    return repr(text[lo:pos + 20])


def parse_tree(text: str, *, param: str = "tree") -> Tree:
    """Parse one tree in bracketed form, ``(LABEL child ...)``.

    A child is a bracketed sub-tree or a leaf token (any run of characters
    other than whitespace and parentheses). Parsing is iterative, so deep trees
    need no recursion.

    Parameters
    ----------
    text : str
        The bracketed tree.
    param : str
        Name of the argument, used in error messages.

    Returns
    -------
    Tree

    Raises
    ------
    InputError
        Unbalanced brackets, a node without a label, text after the tree.

    Examples
    --------
    >>> parse_tree("(S (NP the dog) (VP barks))")
    Tree(label='S', children=(Tree(label='NP', children=('the', 'dog')), Tree(label='VP', children=('barks',))))
    """
    if isinstance(text, Tree):
        return text
    if not isinstance(text, str):
        raise InputError(f"{param}: expected a bracketed tree string such as '(S (NP a) (VP b))'; "
                         f"got {type(text).__name__} {text!r}.")
    tokens = [(m.group(), m.start()) for m in _TOKEN.finditer(text)]
    if not tokens or tokens[0][0] != "(":
        raise InputError(f"{param}: a tree must start with '(' followed by its label, e.g. '(S (NP a) (VP b))'; "
                         f"got {text[:60]!r}. Wrap the text in brackets with a label.")
    stack: list[tuple[str, list]] = []
    root: Tree | None = None
    i = 0
    while i < len(tokens):
        tok, pos = tokens[i]
        if root is not None and tok != ")":
            raise InputError(f"{param}: text after the end of the tree at character {pos}: {_snippet(text, pos)}. "
                             "Give one tree per string.")
        if tok == "(":
            if i + 1 >= len(tokens) or tokens[i + 1][0] in "()":
                raise InputError(f"{param}: every '(' must be followed by a label; none at character {pos}: "
                                 f"{_snippet(text, pos)}. Add the node's label.")
            stack.append((tokens[i + 1][0], []))
            i += 2
            continue
        if tok == ")":
            if not stack:
                raise InputError(f"{param}: unbalanced ')' at character {pos}: {_snippet(text, pos)}. "
                                 "Remove it or add the matching '('.")
            label, children = stack.pop()
            node = Tree(label, tuple(children))
            if stack:
                stack[-1][1].append(node)
            else:
                root = node
        else:
            if not stack:  # pragma: no cover - the first token is always '('
                raise InputError(f"{param}: leaf {tok!r} outside any node.")
            stack[-1][1].append(tok)
        i += 1
    if stack:
        raise InputError(f"{param}: {len(stack)} unclosed '(' in {text[:60]!r}"
                         f"{'...' if len(text) > 60 else ''}. Add the missing ')'.")
    if root is None:  # pragma: no cover - a tree that starts with '(' and has no open node was closed
        raise InputError(f"{param}: no complete tree in {text[:60]!r}; give one bracketed tree, e.g. '(S (NP a))'.")
    return root


def format_tree(tree: Tree) -> str:
    """The bracketed form of ``tree`` (inverse of :func:`parse_tree`).

    Examples
    --------
    >>> format_tree(parse_tree("( S (NP the  dog) (VP barks) )"))
    '(S (NP the dog) (VP barks))'
    """
    out: list[str] = []
    stack: list[object] = [tree]
    while stack:
        item = stack.pop()
        if isinstance(item, Tree):
            out.append("(" + item.label)
            stack.append(")")
            for child in reversed(item.children):
                stack.append(child)
                stack.append(" ")
        else:
            out.append(str(item))
    return "".join(out)


# --------------------------------------------------------------------------- flat arrays


@dataclass(frozen=True)
class TreeBatch:
    """Trees as flat arrays for the kernel (see ``bleustats.tools._tree_kernels``).

    Attributes
    ----------
    prod : ndarray of int64, shape (n_nodes,)
        Production id of each internal node (one vocabulary for the batch).
    label : ndarray of int64, shape (n_nodes,)
        Label id of each internal node.
    child_ptr : ndarray of int64, shape (n_nodes + 1,)
        Offsets into ``child_idx``.
    child_idx : ndarray of int64
        Global indices of each node's internal children, left to right.
    tree_ptr : ndarray of int64, shape (n_trees + 1,)
        Offsets of each tree's nodes; nodes are in post-order within a tree.
    productions : tuple of str
        The production of each id, ``'LABEL -> child child'`` (leaves quoted).
    labels : tuple of str
        The label of each label id.
    """

    prod: NDArray[np.int64]
    label: NDArray[np.int64]
    child_ptr: NDArray[np.int64]
    child_idx: NDArray[np.int64]
    tree_ptr: NDArray[np.int64]
    productions: tuple[str, ...]
    labels: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.tree_ptr) - 1


def encode_trees(trees: Iterable[TreeLike], *, param: str = "trees") -> TreeBatch:
    """Flatten trees (bracketed strings or :class:`Tree`) into one :class:`TreeBatch`.

    Examples
    --------
    >>> b = encode_trees(["(NP (D the) (N man))", "(N man)"])
    >>> b.tree_ptr.tolist(), b.prod.tolist(), b.child_idx.tolist()
    ([0, 3, 4], [0, 1, 2, 1], [0, 1])
    >>> b.productions
    ("D -> 'the'", "N -> 'man'", 'NP -> D N')
    """
    prod_ids: dict[tuple, int] = {}
    label_ids: dict[str, int] = {}
    prod: list[int] = []
    label: list[int] = []
    child_ptr: list[int] = [0]
    child_idx: list[int] = []
    tree_ptr: list[int] = [0]
    for t, item in enumerate(trees):
        tree = parse_tree(item, param=f"{param}[{t}]")
        # iterative post-order: a node is emitted after all its children
        stack: list[tuple[Tree, bool]] = [(tree, False)]
        emitted: list[list[int]] = [[]]  # internal-child indices collected per open node
        while stack:
            node, done = stack.pop()
            if not done:
                stack.append((node, True))
                emitted.append([])
                for child in reversed(node.children):
                    if isinstance(child, Tree):
                        stack.append((child, False))
                continue
            kids = emitted.pop()
            key = (node.label,) + tuple(c.label if isinstance(c, Tree) else ("", c) for c in node.children)
            pid = prod_ids.setdefault(key, len(prod_ids))
            lid = label_ids.setdefault(node.label, len(label_ids))
            idx = len(prod)
            prod.append(pid)
            label.append(lid)
            child_idx.extend(kids)
            child_ptr.append(len(child_idx))
            emitted[-1].append(idx)
        tree_ptr.append(len(prod))
    names = [""] * len(prod_ids)
    for key, pid in prod_ids.items():
        names[pid] = key[0] + " -> " + " ".join(c if isinstance(c, str) else repr(c[1]) for c in key[1:])
    # canonical ids: productions numbered in sorted order so the encoding does not
    # depend on the order trees arrive in
    order = np.argsort(np.array(names, dtype=object), kind="stable") if names else np.zeros(0, np.int64)
    remap = np.empty(len(names), np.int64)
    remap[order] = np.arange(len(names))
    lab_names = [""] * len(label_ids)
    for k, v in label_ids.items():
        lab_names[v] = k
    return TreeBatch(
        prod=remap[np.asarray(prod, np.int64)] if prod else np.zeros(0, np.int64),
        label=np.asarray(label, np.int64),
        child_ptr=np.asarray(child_ptr, np.int64),
        child_idx=np.asarray(child_idx, np.int64),
        tree_ptr=np.asarray(tree_ptr, np.int64),
        productions=tuple(names[i] for i in order),
        labels=tuple(lab_names),
    )


def _check_lambda(lam: object) -> float:
    ok = not isinstance(lam, bool) and isinstance(lam, (int, float, np.integer, np.floating)) and 0 < lam <= 1
    if not ok:
        raise InputError(f"lam: the decay must be a number in (0, 1]; got {lam!r}. "
                         f"Use {DEFAULT_LAMBDA} (SVM-light-TK's default) or 1.0 to count fragments.")
    return float(lam)


def _pair_kernels(batch: TreeBatch, left: np.ndarray, right: np.ndarray, lam: float) -> np.ndarray:
    sizes = np.diff(batch.tree_ptr)
    work = int((sizes[left] * sizes[right]).sum()) if len(left) else 0
    args = (batch.prod, batch.child_ptr, batch.child_idx, batch.tree_ptr,
            np.ascontiguousarray(left, np.int64), np.ascontiguousarray(right, np.int64), lam)
    if work < _PARALLEL_MIN_WORK or kernel_threads() == 1:  # the size first: the count starts numba's pool
        return _tree_kernels.kernel_pairs_serial(*args)
    return _tree_kernels.kernel_pairs(*args)


def tree_kernels(
    left: Sequence[TreeLike],
    right: Sequence[TreeLike],
    *,
    lam: float = DEFAULT_LAMBDA,
    normalize: bool = True,
) -> NDArray[np.float64]:
    r"""Subset-tree kernel of every pair ``(left[i], right[i])``, vectorized.

    .. math::

        \hat K(a, b) = \frac{K(a, b)}{\sqrt{K(a, a)\,K(b, b)}}, \qquad
        K(a, b) = \sum_{n_1 \in a} \sum_{n_2 \in b} \Delta(n_1, n_2)

    with Collins & Duffy's :math:`\Delta` (see the module docstring).

    Parameters
    ----------
    left, right : sequences of str or Tree
        Trees in bracketed form, the same number in each.
    lam : float
        Decay :math:`\lambda \in (0, 1]`; 1 counts common fragments.
    normalize : bool
        Divide by :math:`\sqrt{K(a,a)K(b,b)}` (default), giving values in [0, 1].

    Returns
    -------
    numpy.ndarray
        One float64 per pair.

    References
    ----------
    .. [1] Collins, M., Duffy, N. (2002). New ranking algorithms for parsing
       and tagging: kernels over discrete structures, and the voted
       perceptron. ACL.

    Examples
    --------
    >>> tree_kernels(["(S (A x) (B y))", "(S (A x) (B y))"],
    ...              ["(S (A x) (B y))", "(S (A x) (B z))"], lam=1.0, normalize=False).tolist()
    [6.0, 3.0]
    """
    left = list(left) if not isinstance(left, (str, Tree)) else [left]
    right = list(right) if not isinstance(right, (str, Tree)) else [right]
    if len(left) != len(right):
        raise InputError(f"right: need one tree per tree of left ({len(left)}); got {len(right)}. "
                         "Pass two sequences of the same length.")
    lam = _check_lambda(lam)
    n = len(left)
    batch = encode_trees([*left, *right], param="trees")
    a = np.arange(n, dtype=np.int64)
    b = a + n
    k = _pair_kernels(batch, a, b, lam)
    if not normalize:
        return k
    kaa = _pair_kernels(batch, a, a, lam)
    kbb = _pair_kernels(batch, b, b, lam)
    if not (np.isfinite(kaa).all() and np.isfinite(kbb).all()):
        raise InputError(f"lam: the kernel of a tree with itself overflows float64 at lam={lam!r} (large, "
                         "repetitive trees count astronomically many shared fragments); use a smaller lam "
                         "(e.g. 0.4) to down-weight large fragments.")
    with np.errstate(invalid="ignore", divide="ignore"):
        # divide twice: kaa * kbb can overflow where each root cannot
        out = k / np.sqrt(kaa) / np.sqrt(kbb)
    return np.where((kaa > 0) & (kbb > 0), out, 0.0)  # a tree with no production shares nothing


def tree_kernel(a: TreeLike, b: TreeLike, *, lam: float = DEFAULT_LAMBDA, normalize: bool = True) -> float:
    r"""Subset-tree kernel of two trees (see :func:`tree_kernels`).

    .. math::

        \hat K(a, b) = K(a, b) / \sqrt{K(a, a)\,K(b, b)}

    References
    ----------
    .. [1] Collins, M., Duffy, N. (2002). ACL.

    Examples
    --------
    >>> tree_kernel("(S (NP the dog) (VP barks))", "(S (NP the dog) (VP runs))", lam=1.0, normalize=False)
    3.0
    """
    return float(tree_kernels([a], [b], lam=lam, normalize=normalize)[0])


# --------------------------------------------------------------------------- discourse trees


def parse_rst(text: TreeLike, *, param: str = "rst") -> Tree:
    """Parse and check an RST discourse tree in bleustats' bracketed form.

    Internal nodes are ``(Relation:NUC child ...)`` with one nuclearity letter
    (``N`` or ``S``) per child and at least one ``N``; leaves are ``(EDU word
    ...)`` nodes whose children are words (possibly none).

    Examples
    --------
    >>> t = parse_rst("(Attribution:SN (EDU he said) (EDU it rains))")
    >>> t.label, [c.label for c in t.children]
    ('Attribution:SN', ['EDU', 'EDU'])
    """
    tree = parse_tree(text, param=param)
    stack = [tree]
    while stack:
        node = stack.pop()
        if node.label == "EDU":
            bad = [c for c in node.children if isinstance(c, Tree)]
            if bad:
                raise InputError(f"{param}: an EDU node holds words only; got a sub-tree {format_tree(bad[0])!r} "
                                 f"in {format_tree(node)[:80]!r}. Put discourse structure above EDUs.")
            continue
        rel, sep, nuc = node.label.rpartition(":")
        if not sep or not rel or not _NUCLEARITY.match(nuc) or "N" not in nuc or len(nuc) != len(node.children):
            raise InputError(
                f"{param}: relation node labels are 'Relation:NUC' with one N/S letter per child and at least "
                f"one N (e.g. 'Elaboration:NS' over two children); got {node.label!r} over "
                f"{len(node.children)} child(ren) in {format_tree(node)[:80]!r}. Fix the label or the children."
            )
        for c in node.children:
            if not isinstance(c, Tree):
                raise InputError(f"{param}: the children of a relation node are relation or EDU nodes; got the "
                                 f"word {c!r} under {node.label!r}. Wrap words in (EDU ...).")
            stack.append(c)
    return tree


def discourse_tree(rst: TreeLike, representation: str) -> Tree:
    """One DiscoTK representation of an RST tree (see :data:`DISCOTK_REPRESENTATIONS`).

    The representations carry the names used by Joty et al. (2014), but their
    structure (``NUC``/``SAT`` nodes under the relation, the ``EDU`` node, words
    as its leaves or under ``W`` pre-terminals, ``REL`` in the ``.1`` variants)
    is bleustats' definition and was not verified against the papers; see the
    module docstring for what was and was not checked.

    Examples
    --------
    >>> rst = "(Elaboration:NS (EDU the cat sat) (EDU on the mat))"
    >>> format_tree(discourse_tree(rst, "DR-NOLEX"))
    '(Elaboration (NUC EDU) (SAT EDU))'
    >>> format_tree(discourse_tree(rst, "DR-LEX1.1"))
    '(REL (NUC (EDU the cat sat)) (SAT (EDU on the mat)))'
    >>> format_tree(discourse_tree("(Joint:NN (EDU a b) (EDU c))", "DR-LEX2"))
    '(Joint (NUC (EDU (W a) (W b))) (NUC (EDU (W c))))'
    """
    if representation not in DISCOTK_REPRESENTATIONS:
        raise InputError(f"representation must be one of {', '.join(map(repr, DISCOTK_REPRESENTATIONS))}; "
                         f"got {representation!r}.")
    tree = parse_rst(rst)
    lex = representation != "DR-NOLEX"
    per_word = representation.startswith("DR-LEX2")
    relations = not representation.endswith(".1")

    def edu(node: Tree) -> Tree | str:
        if not lex:
            return "EDU"
        words = tuple(str(w) for w in node.children)
        return Tree("EDU", tuple(Tree("W", (w,)) for w in words) if per_word else words)

    # iterative post-order rebuild
    built: dict[int, Tree | str] = {}
    stack: list[tuple[Tree, bool]] = [(tree, False)]
    while stack:
        node, done = stack.pop()
        if node.label == "EDU":
            built[id(node)] = edu(node)
            continue
        if not done:
            stack.append((node, True))
            stack.extend((c, False) for c in node.children)  # type: ignore[misc]
            continue
        rel, _, nuc = node.label.rpartition(":")
        kids = tuple(Tree("NUC" if n == "N" else "SAT", (built[id(c)],)) for c, n in zip(node.children, nuc))
        built[id(node)] = Tree(rel if relations else "REL", kids)
    out = built[id(tree)]
    return out if isinstance(out, Tree) else Tree("ROOT", (out,))


def discourse_kernels(
    hypotheses: Sequence[TreeLike],
    references: Sequence[TreeLike],
    *,
    lam: float = DEFAULT_LAMBDA,
    representations: Sequence[str] | None = None,
) -> dict[str, NDArray[np.float64]]:
    r"""Normalized subset-tree kernel of each hypothesis RST tree with its reference, per representation.

    .. math::

        s_r(h, \mathit{ref}) = \frac{K(R_r(h), R_r(\mathit{ref}))}
            {\sqrt{K(R_r(h), R_r(h))\,K(R_r(\mathit{ref}), R_r(\mathit{ref}))}}

    for each representation :math:`R_r` of :data:`DISCOTK_REPRESENTATIONS`.

    Parameters
    ----------
    hypotheses, references : sequences of str or Tree
        RST trees (see :func:`parse_rst`), one reference per hypothesis.
    lam : float
        Kernel decay.
    representations : sequence of str, optional
        Subset of :data:`DISCOTK_REPRESENTATIONS` (default: all five).

    Returns
    -------
    dict
        Representation name → one score in [0, 1] per pair.

    References
    ----------
    .. [1] Joty, S., Guzmán, F., Màrquez, L., Nakov, P. (2014). DiscoTK: Using
       discourse structure for machine translation evaluation. WMT.

    Examples
    --------
    >>> h = ["(Elaboration:NS (EDU the cat sat) (EDU on a mat))"]
    >>> r = ["(Elaboration:NS (EDU the cat sat) (EDU on the mat))"]
    >>> {k: round(float(v[0]), 3) for k, v in discourse_kernels(h, r, lam=1.0).items()}
    {'DR-NOLEX': 1.0, 'DR-LEX1': 0.667, 'DR-LEX1.1': 0.667, 'DR-LEX2': 0.657, 'DR-LEX2.1': 0.657}
    """
    names = list(DISCOTK_REPRESENTATIONS) if representations is None else list(representations)
    for name in names:
        if name not in DISCOTK_REPRESENTATIONS:
            raise InputError(f"representations: each must be one of {', '.join(map(repr, DISCOTK_REPRESENTATIONS))}; "
                             f"got {name!r}.")
    hyps = [parse_rst(h, param=f"hypotheses[{i}]") for i, h in enumerate(hypotheses)]
    refs = [parse_rst(r, param=f"references[{i}]") for i, r in enumerate(references)]
    if len(hyps) != len(refs):
        raise InputError(f"references: need one reference tree per hypothesis tree ({len(hyps)}); got {len(refs)}.")
    return {name: tree_kernels([discourse_tree(h, name) for h in hyps], [discourse_tree(r, name) for r in refs],
                               lam=lam, normalize=True) for name in names}


def discotk_light(
    hypotheses: Sequence[TreeLike],
    references: Sequence[TreeLike],
    *,
    lam: float = DEFAULT_LAMBDA,
) -> NDArray[np.float64]:
    r"""DiscoTK-light: the mean of the five normalized discourse-tree kernels per pair.

    The DiscoTK abstract says the five kernel scores are combined into one
    score; that the combination is the plain mean, and the five representations
    themselves, are bleustats' choices, not verified against the paper (see the
    module docstring).

    .. math::

        \mathrm{DiscoTK_{light}}(h, \mathit{ref}) = \frac{1}{5} \sum_{r \in
            \{\text{NOLEX, LEX1, LEX1.1, LEX2, LEX2.1}\}} s_r(h, \mathit{ref})

    Parameters
    ----------
    hypotheses, references : sequences of str or Tree
        RST trees of the translations and of their references (one each).
    lam : float
        Kernel decay.

    Returns
    -------
    numpy.ndarray
        One score in [0, 1] per pair.

    References
    ----------
    .. [1] Joty, S., Guzmán, F., Màrquez, L., Nakov, P. (2014). DiscoTK: Using
       discourse structure for machine translation evaluation. WMT.

    Examples
    --------
    >>> t = "(Attribution:SN (EDU he said) (EDU it rains))"
    >>> discotk_light([t], [t]).tolist()
    [1.0]
    """
    scores = discourse_kernels(hypotheses, references, lam=lam)
    return np.mean(np.stack(list(scores.values())), axis=0) if scores else np.zeros(0)
