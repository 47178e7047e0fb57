"""Numba kernels: sacreBLEU's BLEU preprocessing over UTF-8 bytes (private).

Only :mod:`bleustats.engine.encode` calls these.  Input is an Arrow
string array's UTF-8 buffer and line offsets; output is, for every line, the
bytes of ``tokenizer(line.lower() if lowercase else line).rstrip()`` in
sacreBLEU 2.6's sense (see :func:`bleustats.tokenizers.tokenize_lines`, the
plain-Python twin these kernels are tested against), for the tokenizers
``none``, ``13a``, ``intl``, ``char`` and ``zh``.

Per line the kernels

1. decode the UTF-8 bytes into code points (a scratch array per block of lines);
2. lowercase them as :meth:`str.lower` does, final sigma included, from the
   tables of :mod:`bleustats.engine._tokenize_tables`;
3. drop trailing :meth:`str.isspace` characters (``rstrip``; ``zh`` drops
   leading ones too);
4. for ``13a`` only, apply its plain string replacements in place, in
   sacreBLEU's order (``'<skipped>'`` and ``'-\\n'`` removed; ``&quot;``,
   ``&amp;``, ``&lt;``, ``&gt;`` unescaped, each a left-to-right
   non-overlapping replace of the previous step's result);
5. write the tokens, UTF-8 encoded, each decision made by looking at the
   classes of the characters around it (:func:`_classify`, then
   :func:`_emit_separated` for 13a, intl and zh, whose
   period/comma rule is derived in :mod:`bleustats.tokenizers._marks`), with one
   ASCII space between tokens: the result of sacreBLEU's final
   ``' '.join(line.split())``.  ``char`` writes every code point followed by
   a space (but the last); ``none`` writes the code points back.

For ``13a``, a line that is plain ASCII without '<', '&' or an inner newline
needs none of steps 1-4 and is written straight from its bytes in one pass
(:func:`_emit_13a_bytes`); any other line takes the steps above.

Input assumptions
-----------------
Arrow string arrays hold valid UTF-8, so neither invalid sequences nor
surrogate code points (which valid UTF-8 cannot encode) occur.  Given any other
bytes, the kernels still read and write only inside their arrays (a truncated
or stray byte is read as the code point of its value, anything beyond U+10FFFF
as U+FFFD), but what they write is then unspecified.

Sizes
-----
A line of ``B`` bytes has at most ``B`` code points, lowercases to at most
``1.5 B`` bytes and at most ``B`` code points (the tables check both for the
running Python), and its output holds at most one separator per code point:
at most ``2.5 B`` bytes.  Each block of lines therefore writes into its own
region of ``3 B_block`` bytes of a temporary buffer (pages never written are
never touched), and :func:`gather_blocks` packs the regions together.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ._tokenize_tables import (
    FLAG_CASE_IGNORABLE,
    FLAG_CASED,
    FLAG_CHINESE,
    FLAG_LOWER_EXPANDS,
    FLAG_NUMBER,
    FLAG_PUNCT,
    FLAG_SPACE,
    FLAG_SYMBOL,
)

#: The other sources these kernels compile in (constants and called kernels), each with the first 16 hex
#: digits of its SHA-256: numba stamps a kernel's cache with this file alone, so a change there must change
#: this file too (tests/test_kernel_cache.py checks the digests; bleustats._kernel_cache).
COMPILED_IN = {"engine/_tokenize_tables.py": "ca2a13ec59856554"}

#: Tokenizer codes (:data:`TOKENIZER_CODES` maps sacreBLEU's names to them).
TOK_NONE = 0
TOK_13A = 1
TOK_INTL = 2
TOK_CHAR = 3
TOK_ZH = 4
TOKENIZER_CODES = {"none": TOK_NONE, "13a": TOK_13A, "intl": TOK_INTL, "char": TOK_CHAR, "zh": TOK_ZH}

#: Output bytes reserved per input byte (see "Sizes" above).
OUT_BYTES_PER_BYTE = 3

# Character classes of the separating tokenizers.
C_OTHER = 0  # copied, glued to its neighbours
C_SPACE = 1  # str.split() whitespace: a token boundary
C_SEPARATE = 2  # always a token of its own (13a, zh: ASCII punctuation but ' , - . ; zh: "Chinese";
#                intl: \p{S})
C_MARK = 3  # the period/comma rule (13a, zh: . and , ; intl: \p{P})
C_DIGIT = 4  # a digit for that rule (13a, zh: 0-9 ; intl: \p{N})
C_DASH = 5  # 13a, zh: '-', a token of its own after a digit

# 13a's (and zh's) classes of the ASCII characters (everything else is C_SPACE or
# C_OTHER, or for zh also C_SEPARATE).
_ASCII_13A = np.zeros(128, np.int8)
for _c in "{|}~[\\]^_` !\"#$%&()*+:;<=>?@/":
    _ASCII_13A[ord(_c)] = C_SEPARATE
for _c in "0123456789":
    _ASCII_13A[ord(_c)] = C_DIGIT
_ASCII_13A[ord(".")] = C_MARK
_ASCII_13A[ord(",")] = C_MARK
_ASCII_13A[ord("-")] = C_DASH
for _c in range(128):
    if chr(_c).isspace():
        _ASCII_13A[_c] = C_SPACE
del _c

# The 13a fast path (:func:`_emit_13a_bytes`) reads bytes through 256-entry
# tables.  _BYTES_13A: _ASCII_13A's classes, with the marks as C_RUN and, as
# C_SLOW, every byte that needs the general path: non-ASCII (>= 0x80), and the
# first characters of 13a's replacements ('<' of '<skipped>', '&' of the
# entities, '\n' of '-\n' inside a line).  _FLAGS_13A: the same packed as the
# bits the writing loop uses, so that a common byte costs one load and no branch.
C_RUN = 8
C_SLOW = 9
_BYTES_13A = np.full(256, C_SLOW, np.int8)
_BYTES_13A[:128] = _ASCII_13A
_BYTES_13A[:128][_ASCII_13A == C_MARK] = C_RUN
for _c in "<&\n":
    _BYTES_13A[ord(_c)] = C_SLOW
del _c
_KEEP, _ALONE, _DASH, _DIGIT, _RARE = 1, 2, 4, 8, 16  # bits of _FLAGS_13A
_FLAGS_13A = ((_BYTES_13A != C_SPACE) * _KEEP + (_BYTES_13A == C_SEPARATE) * _ALONE + (_BYTES_13A == C_DASH) * _DASH
              + (_BYTES_13A == C_DIGIT) * _DIGIT + (_BYTES_13A >= C_RUN) * _RARE).astype(np.uint8)
_SAME_BYTE = np.arange(256, dtype=np.uint8)
_LOWER_BYTE = np.arange(256, dtype=np.uint8)
_LOWER_BYTE[ord("A") : ord("Z") + 1] += 32

_SIGMA = 0x3A3
_SMALL_SIGMA = 0x3C3
_FINAL_SIGMA = 0x3C2

# 13a's replacements, applied in this order (step 4 of the module docstring).
_PAT_SKIPPED = np.array([ord(c) for c in "<skipped>"], np.int32)
_PAT_DASH_NEWLINE = np.array([ord(c) for c in "-\n"], np.int32)
_PAT_QUOT = np.array([ord(c) for c in "&quot;"], np.int32)
_PAT_AMP = np.array([ord(c) for c in "&amp;"], np.int32)
_PAT_LT = np.array([ord(c) for c in "&lt;"], np.int32)
_PAT_GT = np.array([ord(c) for c in "&gt;"], np.int32)


# --------------------------------------------------------------------------- code points


@njit(cache=True, nogil=True)
def _entry_of(tables, cp):
    """The table entry ``(lower_delta << 8) | flags`` of code point ``cp``."""
    index = tables[0]
    blocks = tables[1]
    return np.int64(blocks[(np.int64(index[cp >> 8]) << 8) | (cp & 255)])


@njit(cache=True, nogil=True)
def _is_space(tables, cp):
    """Whether str.split() splits on ``cp``."""
    if cp < 128:
        return cp == 32 or (9 <= cp <= 13) or (28 <= cp <= 31)
    return (_entry_of(tables, cp) & FLAG_SPACE) != 0


@njit(cache=True, nogil=True)
def _decode_one(data, i, end):
    """``(code point, byte width)`` of the character starting at ``data[i]`` (``i < end``)."""
    b = np.int64(data[i])
    if b < 0x80:
        return b, 1
    if 0xC0 <= b < 0xE0 and i + 1 < end:
        return ((b & 0x1F) << 6) | (np.int64(data[i + 1]) & 0x3F), 2
    if 0xE0 <= b < 0xF0 and i + 2 < end:
        return (((b & 0x0F) << 12) | ((np.int64(data[i + 1]) & 0x3F) << 6)
                | (np.int64(data[i + 2]) & 0x3F)), 3
    if 0xF0 <= b < 0xF8 and i + 3 < end:
        cp = (((b & 0x07) << 18) | ((np.int64(data[i + 1]) & 0x3F) << 12)
              | ((np.int64(data[i + 2]) & 0x3F) << 6) | (np.int64(data[i + 3]) & 0x3F))
        return (cp if cp <= 0x10FFFF else 0xFFFD), 4  # beyond U+10FFFF: stay inside the tables
    return b, 1  # a stray or truncated byte: not UTF-8 (see "Input assumptions")


@njit(cache=True, nogil=True)
def _decode_utf8(data, start, end, cps):
    """Code points of ``data[start:end]`` into ``cps``; returns how many."""
    n = 0
    i = start
    while i < end:
        b = np.int64(data[i])
        if b < 0x80:  # the common case, inline
            cps[n] = b
            i += 1
        else:
            cp, width = _decode_one(data, i, end)
            cps[n] = cp
            i += width
        n += 1
    return n


@njit(cache=True, nogil=True)
def _put_utf8(out, pos, cp):
    """Write ``cp`` UTF-8 encoded at ``out[pos]``; returns the position after it."""
    if cp < 0x80:
        out[pos] = cp
        return pos + 1
    if cp < 0x800:
        out[pos] = 0xC0 | (cp >> 6)
        out[pos + 1] = 0x80 | (cp & 0x3F)
        return pos + 2
    if cp < 0x10000:
        out[pos] = 0xE0 | (cp >> 12)
        out[pos + 1] = 0x80 | ((cp >> 6) & 0x3F)
        out[pos + 2] = 0x80 | (cp & 0x3F)
        return pos + 3
    out[pos] = 0xF0 | (cp >> 18)
    out[pos + 1] = 0x80 | ((cp >> 12) & 0x3F)
    out[pos + 2] = 0x80 | ((cp >> 6) & 0x3F)
    out[pos + 3] = 0x80 | (cp & 0x3F)
    return pos + 4


# --------------------------------------------------------------------------- lowercase


@njit(cache=True, nogil=True)
def _is_final_sigma(tables, cps, n, i):
    """CPython's Final_Sigma test for the U+03A3 at ``cps[i]`` (of ``n``).

    Final iff, skipping case-ignorable characters, a cased character comes
    before it and no cased character comes after it.
    """
    entry = np.int64(0)
    j = i - 1
    while j >= 0:
        entry = _entry_of(tables, np.int64(cps[j]))
        if (entry & FLAG_CASE_IGNORABLE) == 0:
            break
        j -= 1
    if j < 0 or (entry & FLAG_CASED) == 0:
        return False
    j = i + 1
    while j < n:
        entry = _entry_of(tables, np.int64(cps[j]))
        if (entry & FLAG_CASE_IGNORABLE) == 0:
            return (entry & FLAG_CASED) == 0
        j += 1
    return True


@njit(cache=True, nogil=True)
def _lower_cps(tables, src, n, dst):
    """``str.lower`` of ``src[:n]`` into ``dst``; returns the number of code points written."""
    keys = tables[2]
    offsets = tables[3]
    expanded = tables[4]
    m = 0
    for i in range(n):
        cp = np.int64(src[i])
        if cp < 128:
            if 65 <= cp <= 90:
                cp += 32
            dst[m] = cp
            m += 1
            continue
        entry = _entry_of(tables, cp)
        if (entry & FLAG_LOWER_EXPANDS) != 0:
            k = np.searchsorted(keys, cp)
            for t in range(offsets[k], offsets[k + 1]):
                dst[m] = expanded[t]
                m += 1
            continue
        if cp == _SIGMA:
            dst[m] = _FINAL_SIGMA if _is_final_sigma(tables, src, n, i) else _SMALL_SIGMA
        else:
            dst[m] = cp + (entry >> 8)
        m += 1
    return m


# --------------------------------------------------------------------------- 13a replacements


@njit(cache=True, nogil=True)
def _replace_all(cps, n, pattern, replacement):
    """``str.replace(pattern, replacement)`` on ``cps[:n]`` in place; returns the new length.

    ``replacement`` is one code point, or -1 to remove.  It is never longer than
    ``pattern``, so writing (at ``w``) never overtakes reading (at ``r``):
    every match is looked for in the unmodified text, left to right, without
    overlaps, exactly as :meth:`str.replace` does.
    """
    k = pattern.shape[0]
    first = pattern[0]
    w = 0
    r = 0
    while r < n:
        if cps[r] == first and r + k <= n:
            t = 1
            while t < k and cps[r + t] == pattern[t]:
                t += 1
            if t == k:
                if replacement >= 0:
                    cps[w] = replacement
                    w += 1
                r += k
                continue
        cps[w] = cps[r]
        w += 1
        r += 1
    return w


@njit(cache=True, nogil=True)
def _replace_13a(cps, n):
    """13a's language-independent steps on ``cps[:n]`` in place; returns the new length.

    The ``'\\n'`` -> ``' '`` step is left out: both are whitespace, and no later
    step treats them differently.
    """
    has_lt = False
    has_nl = False
    has_amp = False
    for i in range(n):
        c = cps[i]
        has_lt |= c == 60  # '<'
        has_nl |= c == 10
        has_amp |= c == 38  # '&'
    if has_lt:
        n = _replace_all(cps, n, _PAT_SKIPPED, -1)
    if has_nl:
        n = _replace_all(cps, n, _PAT_DASH_NEWLINE, -1)
    if has_amp:
        n = _replace_all(cps, n, _PAT_QUOT, 34)  # '"'
        n = _replace_all(cps, n, _PAT_AMP, 38)  # '&'
        n = _replace_all(cps, n, _PAT_LT, 60)  # '<'
        n = _replace_all(cps, n, _PAT_GT, 62)  # '>'
    return n


# --------------------------------------------------------------------------- separating


@njit(cache=True, nogil=True)
def _resolve_run(classes, i, j, n, pad):
    """Turn the run of marks ``classes[i:j]`` into ``C_SEPARATE`` / ``C_OTHER``, in place.

    The period/comma rule (:mod:`bleustats.tokenizers._marks` derives it): in a maximal
    run of ``k`` marks, every mark is a token of its own (``C_SEPARATE``)
    except the last when the character after the run is a digit and (the
    character before the run is not a digit and ``k`` is even, or it is a
    digit and ``k`` is odd); that mark stays glued to the digit after it, and
    to whatever precedes it unless that is a separated mark (``C_OTHER``).
    13a pads the line with spaces (``pad``: the ends count as "not a digit");
    intl and zh do not, and a missing neighbour counts as a digit.  Runs are
    maximal, so their neighbours are never marks, and rewriting one run
    cannot change what another sees.
    """
    left_digit = (classes[i - 1] == C_DIGIT) if i > 0 else not pad
    right_digit = (classes[j] == C_DIGIT) if j < n else not pad
    for m in range(i, j):
        classes[m] = C_SEPARATE
    if right_digit and (left_digit == ((j - i) % 2 == 1)):
        classes[j - 1] = C_OTHER


@njit(cache=True, nogil=True)
def _classify(tables, tok, cps, n, classes):
    """The class (``C_*``) of each of ``cps[:n]`` for 13a, intl or zh into ``classes``, marks resolved.

    Every run of marks is rewritten by :func:`_resolve_run` as soon as the
    character after it is classified, so ``classes`` never holds ``C_MARK``.
    """
    index = tables[0]
    blocks = tables[1]
    pad = tok == TOK_13A
    run = -1  # start of the current run of marks, if any
    for i in range(n):
        cp = np.int64(cps[i])
        if tok != TOK_INTL:
            if cp < 128:
                cls = np.int64(_ASCII_13A[cp])
            else:
                entry = blocks[(np.int64(index[cp >> 8]) << 8) | (cp & 255)]
                if (entry & FLAG_SPACE) != 0:
                    cls = C_SPACE
                elif tok == TOK_ZH and (entry & FLAG_CHINESE) != 0:
                    cls = C_SEPARATE
                else:
                    cls = C_OTHER
        else:
            entry = blocks[(np.int64(index[cp >> 8]) << 8) | (cp & 255)]
            if (entry & FLAG_SPACE) != 0:
                cls = C_SPACE
            elif (entry & FLAG_NUMBER) != 0:
                cls = C_DIGIT
            elif (entry & FLAG_PUNCT) != 0:
                cls = C_MARK
            elif (entry & FLAG_SYMBOL) != 0:
                cls = C_SEPARATE
            else:
                cls = C_OTHER
        classes[i] = cls
        if cls == C_MARK:
            if run < 0:
                run = i
        elif run >= 0:
            _resolve_run(classes, run, i, n, pad)
            run = -1
    if run >= 0:
        _resolve_run(classes, run, n, n, pad)


@njit(cache=True, nogil=True)
def _emit_separated(cps, classes, n, out, pos):
    """Write the tokens of ``cps[:n]`` for 13a, intl or zh at ``out[pos]``; returns the end.

    ``classes`` holds each character's class with the marks resolved
    (:func:`_classify`): a space is written
    before a kept character when something precedes it on the line and
    either it is ``C_SEPARATE``, or a 13a dash after a digit, or the previous
    character was whitespace or separated; whitespace itself is dropped.  The
    result is sacreBLEU's ``' '.join(tokenized.split())``.

    No branch depends on the class (token boundaries are too irregular to
    predict): the 0/1 flags are int64 and the space is always stored, then
    kept or overwritten.  The buffer has room: see "Sizes" in the module docstring.
    """
    gap = np.int64(0)  # a token boundary is due before the next kept character
    started = np.int64(0)  # something has been written on this line
    prev_digit = np.int64(0)
    for i in range(n):
        cls = np.int64(classes[i])
        cp = np.int64(cps[i])
        keep = np.int64(cls != C_SPACE)
        alone = np.int64(cls == C_SEPARATE) | (np.int64(cls == C_DASH) & prev_digit)
        out[pos] = 32
        pos += (gap | alone) & started & keep
        if cp < 128:
            out[pos] = cp
            pos += keep
        elif keep == 1:
            pos = _put_utf8(out, pos, cp)
        started |= keep
        gap = (1 - keep) | alone
        prev_digit = np.int64(cls == C_DIGIT)
    return pos


@njit(cache=True, nogil=True)
def _emit_chars(cps, n, out, pos, spaced):
    """Write ``cps[:n]``, with a space between every two code points when ``spaced`` (char)."""
    for i in range(n):
        if spaced and i > 0:
            out[pos] = 32
            pos += 1
        pos = _put_utf8(out, pos, np.int64(cps[i]))
    return pos


@njit(cache=True, nogil=True)
def _emit_13a_bytes(data, start, end, lowercase, out, pos):
    """13a of the line ``data[start:end]`` straight from its bytes, or -1 when it needs the general path.

    The general path decodes, lowercases, strips, replaces, classifies and
    writes in five passes.  A line that is ASCII without '<', '&' or '\\n' once
    its trailing ASCII whitespace is stripped (a file line's own '\\n'
    included; most lines of English or German text) needs none of the first
    four: ASCII lowercases to ASCII (A-Z only) and none of 13a's replacements
    can match.  So the classes, the period/comma rule (each run of marks
    resolved, as by :func:`_resolve_run`, when its first mark is met) and
    :func:`_emit_separated`'s writing are done in one pass: about 1.4 times
    faster on whole lines.  At the first byte of class ``C_SLOW`` the line is
    given up (what was written is overwritten by the general path).
    """
    while end > start and data[end - 1] < 128 and _ASCII_13A[data[end - 1]] == C_SPACE:
        end -= 1  # rstrip; whitespace before a non-ASCII character is left to the general path
    case = _LOWER_BYTE if lowercase else _SAME_BYTE
    gap = np.int64(0)
    started = np.int64(0)
    prev_digit = np.int64(0)
    glued = np.int64(-1)  # the mark of the current run that stays C_OTHER, if any
    run_end = start  # marks before here belong to runs already resolved
    for i in range(start, end):
        b = data[i]
        f = np.int64(_FLAGS_13A[b])
        if f >= _RARE:
            if _BYTES_13A[b] == C_SLOW:
                return -1
            if i >= run_end:  # first mark of a run: 13a pads the line, so its ends count as "not a digit"
                j = i + 1
                while j < end and _BYTES_13A[data[j]] == C_RUN:
                    j += 1
                right_digit = j < end and _BYTES_13A[data[j]] == C_DIGIT
                glued = j - 1 if right_digit and ((prev_digit == 1) == ((j - i) % 2 == 1)) else -1
                run_end = j
            f = _KEEP if i == glued else _KEEP | _ALONE  # C_OTHER or C_SEPARATE
        keep = f & _KEEP
        alone = np.int64((f & _ALONE) != 0) | (np.int64((f & _DASH) != 0) & prev_digit)
        out[pos] = 32
        pos += (gap | alone) & started & keep
        out[pos] = case[b]
        pos += keep
        started |= keep
        gap = (1 - keep) | alone
        prev_digit = np.int64((f & _DIGIT) != 0)
    return pos


# --------------------------------------------------------------------------- lines


@njit(cache=True, nogil=True)
def _tokenize_range(data, offsets, l0, l1, tok, lowercase, tables, out, pos, out_len):
    """Preprocess lines ``l0:l1``, writing from ``out[pos]``; each line's length into ``out_len``.

    Returns the position after the last line.  Scratch arrays are sized by the
    longest line of the range.
    """
    longest = 0
    for line in range(l0, l1):
        longest = max(longest, np.int64(offsets[line + 1]) - np.int64(offsets[line]))
    src = np.empty(longest + 1, np.int32)
    dst = np.empty(longest + 1 if lowercase else 1, np.int32)
    separated = tok == TOK_13A or tok == TOK_INTL or tok == TOK_ZH
    classes = np.empty(longest + 1 if separated else 1, np.int8)
    for line in range(l0, l1):
        begin = pos
        if tok == TOK_13A:
            fast = _emit_13a_bytes(data, np.int64(offsets[line]), np.int64(offsets[line + 1]), lowercase, out, pos)
            if fast >= 0:
                pos = fast
                out_len[line] = pos - begin
                continue
        n = _decode_utf8(data, np.int64(offsets[line]), np.int64(offsets[line + 1]), src)
        cps = src
        if lowercase:
            n = _lower_cps(tables, src, n, dst)
            cps = dst
        while n > 0 and _is_space(tables, np.int64(cps[n - 1])):
            n -= 1
        if tok == TOK_ZH:  # zh strips both ends
            first = 0
            while first < n and _is_space(tables, np.int64(cps[first])):
                first += 1
            if first > 0:
                cps[: n - first] = cps[first:n]
                n -= first
        if separated:
            if tok == TOK_13A:
                n = _replace_13a(cps, n)
            _classify(tables, tok, cps, n, classes)
            pos = _emit_separated(cps, classes, n, out, pos)
        else:
            pos = _emit_chars(cps, n, out, pos, tok == TOK_CHAR)
        out_len[line] = pos - begin
    return pos


@njit(cache=True, nogil=True)
def tokenize_serial(data, offsets, tok, lowercase, tables):
    """All lines, one thread: ``(bytes, per-line lengths)``, the bytes packed."""
    n_lines = offsets.shape[0] - 1
    out = np.empty(OUT_BYTES_PER_BYTE * (np.int64(offsets[n_lines]) - np.int64(offsets[0])) + 1, np.uint8)
    out_len = np.empty(n_lines, np.int64)
    # np.int64(0), not the literal 0: the callee would compile once more for it than for tokenize_blocks' calls
    end = _tokenize_range(data, offsets, np.int64(0), n_lines, tok, lowercase, tables, out, np.int64(0), out_len)
    return out[:end].copy(), out_len


@njit(cache=True, nogil=True, parallel=True)
def tokenize_blocks(data, offsets, bounds, tok, lowercase, tables):
    """Blocks of lines ``bounds[b]:bounds[b + 1]`` in parallel: ``(temporary bytes, per-line lengths)``.

    Block ``b`` writes from ``OUT_BYTES_PER_BYTE * (offsets[bounds[b]] -
    offsets[0])`` on, inside its own region, and the lengths of its own lines.
    """
    n_lines = offsets.shape[0] - 1
    base = np.int64(offsets[0])
    out = np.empty(OUT_BYTES_PER_BYTE * (np.int64(offsets[n_lines]) - base) + 1, np.uint8)
    out_len = np.empty(n_lines, np.int64)
    for b in prange(bounds.shape[0] - 1):
        l0 = bounds[b]
        _tokenize_range(data, offsets, l0, bounds[b + 1], tok, lowercase, tables, out,
                        OUT_BYTES_PER_BYTE * (np.int64(offsets[l0]) - base), out_len)
    return out, out_len


@njit(cache=True, nogil=True, parallel=True)
def gather_blocks(tmp, offsets, bounds, out_offsets, out):
    """Pack the blocks' regions of ``tmp`` (see :func:`tokenize_blocks`) at ``out_offsets`` of ``out``."""
    base = np.int64(offsets[0])
    for b in prange(bounds.shape[0] - 1):
        l0 = bounds[b]
        src = OUT_BYTES_PER_BYTE * (np.int64(offsets[l0]) - base)
        dst = out_offsets[l0]
        size = out_offsets[bounds[b + 1]] - dst
        out[dst:dst + size] = tmp[src:src + size]
