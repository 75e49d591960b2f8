"""The fingerprints of :mod:`booktools.similarity`: copydetect's winnowed k-grams of filtered code,
taken per block and per statement so that the order of functions, methods and statements does not
matter, with docstrings and annotations blanked and a hash that is the same in every process.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import io
import re
import tokenize

import numpy as np
from copydetect.utils import filter_code, find_fingerprint_overlap, get_token_coverage, winnow

NOISE = 25  # k: copydetect's default noise threshold, in characters of filtered code
GUARANTEE = 25  # copydetect's default guarantee threshold: window = GUARANTEE - NOISE + 1 (every k-gram)


# -- fingerprints -----------------------------------------------------------------------------------


@dataclasses.dataclass
class Fingerprint:
    """What :func:`copydetect.detector.compare_files` reads of a ``CodeFingerprint``, built per block."""

    filename: str
    raw_code: str
    filtered_code: str
    offsets: np.ndarray
    hashes: set
    hash_idx: dict
    k: int
    token_coverage: float
    pieces: list = dataclasses.field(default_factory=list)  # (filtered start, end, raw start, end) per statement


_BLOCK_START = re.compile(r"^(?:[ \t]{0,8})(?:@|(?:async[ \t]+)?def\b|class\b)")


def blocks(code: str, starts: tuple[int, ...] = (0,)) -> list[tuple[int, str]]:
    """``code`` cut into (offset, text) blocks: at each of ``starts`` (the cells) and at each line that
    opens a ``def``, ``class`` or decorator indented by at most 8 columns (a class's methods), a
    decorator keeping the ``def`` under it. Text only: code with syntax errors is cut the same way."""
    cuts = set(starts)
    offset, decorated = 0, False
    for line in code.splitlines(keepends=True):
        match = _BLOCK_START.match(line)
        if match and not decorated:
            cuts.add(offset)
        if line.strip():
            decorated = bool(match) and line.lstrip().startswith("@")
        offset += len(line)
    edges = sorted(c for c in cuts if 0 <= c < len(code)) + [len(code)]
    return [(a, code[a:b]) for a, b in zip(edges, edges[1:], strict=False) if code[a:b].strip()]


def _spans_to_blank(tree: ast.AST, code: str, at) -> list[tuple[int, int]]:
    """(start, end) of every annotation (``: int``, ``-> int``) and docstring of a parsed cell."""
    spans = []
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and node.annotation is not None:
            spans.append((at(node.lineno, node.col_offset) + len(node.arg), at(*_end(node.annotation))))
        elif isinstance(node, ast.AnnAssign):
            spans.append((at(*_end(node.target)), at(*_end(node.annotation))))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.returns is not None:
            end = at(*_end(node.returns))
            spans.append((code.rfind("->", 0, at(node.returns.lineno, node.returns.col_offset)), end))
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                spans.append((at(first.lineno, first.col_offset), at(*_end(first))))
    return [(a, b) for a, b in spans if 0 <= a <= b]


def _end(node: ast.AST) -> tuple[int, int]:
    return node.end_lineno, node.end_col_offset


def unannotated(cell: str) -> str:
    """``cell`` with its type annotations and docstrings blanked out by spaces (same length, same lines).

    Copying from onlinelib, whose code is annotated and documented, a student drops both; copydetect
    would count their tokens as differences. The cell is parsed (never run); one that does not parse
    (a magic, a syntax error, nesting too deep) is left as it is.
    """
    if "\r" in cell or "\0" in cell:
        return cell  # line numbering would differ from str.split("\n"); not worth the risk
    try:
        tree = ast.parse(cell)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return cell
    lines = cell.split("\n")
    starts = np.concatenate([[0], np.cumsum([len(line) + 1 for line in lines])]).tolist()

    def at(lineno: int, col: int) -> int:  # ast counts columns in UTF-8 bytes
        line = lines[lineno - 1]
        return starts[lineno - 1] + len(line.encode("utf-8", "surrogatepass")[:col].decode("utf-8", "ignore"))

    chars = list(cell)
    for a, b in _spans_to_blank(tree, cell, at):
        for i in range(a, min(b, len(chars))):
            if chars[i] != "\n":
                chars[i] = " "
    return "".join(chars)


def kgram_hashes(text: str, k: int) -> np.ndarray:
    """The hash of every k-gram of ``text`` (signed 64 bits of BLAKE2b: the same in every process)."""
    data = [text[i : i + k].encode("utf-8", "surrogatepass") for i in range(len(text) - k + 1)]
    return np.array(
        [int.from_bytes(hashlib.blake2b(gram, digest_size=8).digest(), "little", signed=True) for gram in data],
        dtype=np.int64,
    )


def statements(text: str) -> list[tuple[int, int]]:
    """(start, end) of each logical line of ``text`` (a statement, or a ``def``/``if`` header), by
    Python's tokenizer; physical lines where it fails (a block cut out of a class, a syntax error)."""
    line_starts = [0]
    for line in text.split("\n")[:-1]:
        line_starts.append(line_starts[-1] + len(line) + 1)
    cuts, new = {0}, True
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.NEWLINE:
                new = True
            elif new and token.type not in _NOT_STATEMENTS:
                cuts.add(line_starts[token.start[0] - 1])
                new = False
    except (tokenize.TokenError, SyntaxError, RecursionError, MemoryError):
        cuts = set(line_starts)
    edges = [*sorted(cuts), len(text)]
    return [(a, b) for a, b in zip(edges, edges[1:], strict=False) if a < b]


_NOT_STATEMENTS = {tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}


def fingerprint(
    name: str, code: str, starts: tuple[int, ...] = (0,), boilerplate: frozenset = frozenset(), window: int = 1
) -> Fingerprint:
    """The fingerprint of ``code``: copydetect's filtering and winnowing on a form of it that no order
    of blocks or statements changes.

    The code is cut into blocks (:func:`blocks`: cells, and ``def``/``class`` blocks down to methods),
    each block into its statements (:func:`statements`); each statement is filtered by copydetect
    (identifiers, strings, comments and layout gone), a block's filtered statements are put in sorted
    order, and the k-grams of each block are hashed on their own, so moving blocks or swapping
    statements changes no fingerprint.

    Parameters
    ----------
    name : str
        Shown in the report.
    code : str
        Python code (never run).
    starts : tuple of int
        Offsets where a cell starts: a block never spans two cells.
    boilerplate : frozenset of int
        Hashes ignored (the hand-out's code: :func:`boilerplate_hashes`).
    window : int
        Winnowing window (1: every k-gram is a fingerprint).
    """
    parts, pieces, hash_idx = [], [], {}
    done = 0  # filtered characters so far
    edges = [*sorted(set(starts) | {0}), len(code)]
    compared = "".join(unannotated(code[a:b]) for a, b in zip(edges, edges[1:], strict=False))
    for start, text in blocks(compared, starts):
        lines = [(filter_code(text[a:b], "cell.py", "python")[0], start + a, start + b) for a, b in statements(text)]
        lines.sort(key=lambda line: line[0])
        filtered = "".join(line[0] for line in lines)
        for line, raw_start, raw_end in lines:
            pieces.append((done, done + len(line), raw_start, raw_end))
            done += len(line)
        hashes = kgram_hashes(filtered, NOISE)
        if len(hashes):
            hashes, idx = winnow(hashes, window_size=window, remove_duplicates=False)
            for value, i in zip(hashes.tolist(), idx.tolist(), strict=True):
                if value not in boilerplate:
                    hash_idx.setdefault(value, []).append(i + done - len(filtered))
        parts.append(filtered)
    filtered_code = "".join(parts)
    coverage = get_token_coverage(hash_idx, NOISE, len(filtered_code)) if filtered_code else 0
    return Fingerprint(name, code, filtered_code, np.array([]), set(hash_idx), hash_idx, NOISE, coverage, pieces)


def regions(one: Fingerprint, other: Fingerprint) -> np.ndarray:
    """The statements of ``one`` matched in ``other``, as copydetect's slices of ``one.raw_code``
    (2 x n: starts, ends): each statement of which at least half the filtered text is in a k-gram
    that ``other`` has too, runs of them merged."""
    idx, _ = find_fingerprint_overlap(one.hashes, other.hashes, one.hash_idx, other.hash_idx)
    covered = np.zeros(len(one.filtered_code) + one.k, dtype=bool)
    for i in idx.tolist():
        covered[i : i + one.k] = True
    found: list[list[int]] = []
    for f_start, f_end, raw_start, raw_end in sorted(one.pieces, key=lambda piece: piece[2]):
        if f_end > f_start and 2 * covered[f_start:f_end].sum() >= f_end - f_start:
            text = one.raw_code[raw_start:raw_end]
            start, end = raw_start + len(text) - len(text.lstrip()), raw_start + len(text.rstrip())
            if found and not one.raw_code[found[-1][1] : start].strip():
                found[-1][1] = end
            else:
                found.append([start, end])
    return np.array(found, dtype=np.int64).T.reshape(2, -1)


def boilerplate_hashes(cells: list[str]) -> frozenset:
    """Every k-gram hash of the hand-out's code cells (copydetect's boilerplate, window 1)."""
    found: set = set()
    for cell in cells:
        found |= fingerprint("template", cell).hashes
    return frozenset(found)
