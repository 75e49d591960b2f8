"""Fingerprints of every recorded or seeded float array, for ``tests/test_reproducible.py`` (issue 34).

Run as ``PYTHONPATH=. python tests/reproducible_fingerprint.py`` from the repository's root: prints a JSON object
``{name: sha256}`` of

* every assignment's public-checks file as ``booktools grade --write-public-checks`` writes it;
* every hidden file's cases, streams and certificates (their arguments, as the grader builds them);
* every stream generator of ``onlinelib.streams`` at the sizes the chapters use, from fixed seeds,
  and the beam search for chapter 4's Winnow counterexamples (``onlinelib.adversaries.beam_adversary``);
* two controls, which differ between CPUs: ``control:old_separable_stream``, the generator as it
  was before issue 34 (``np.linalg.norm``, ``u ** (1/d)`` on an array and ``@``), and
  ``control:weighted_majority_engine``, Assignment 3's public stream through the compiled
  Weighted Majority engine (what its reference recorded before). The test requires each to change
  under a restricted dispatch on a machine that has X86_V4, to show the check sees a difference.

The test runs this script with numpy's CPU dispatch (``NPY_DISABLE_CPU_FEATURES``) and OpenBLAS's
kernel (``OPENBLAS_CORETYPE``) restricted, and requires the same digests.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sys
from collections.abc import Mapping
from fractions import Fraction

import numpy as np

import onlinelib as ol
from booktools.grading.hidden import HIDDEN_DIR, load_hidden, public_checks_text


def _feed(value, h, depth: int = 0) -> None:
    """Feed a canonical byte form of ``value`` to ``h``: arrays by dtype, shape and bytes, floats exactly."""
    if depth > 40:
        raise ValueError("nested too deeply")
    import scipy.sparse as sp

    if isinstance(value, np.ndarray):
        if value.dtype == object:
            h.update(b"O%d(" % value.ndim)
            for item in value.ravel().tolist():
                _feed(item, h, depth + 1)
            h.update(b")")
        else:
            h.update(f"A{value.dtype.str}{value.shape}".encode())
            h.update(np.ascontiguousarray(value).tobytes())
    elif sp.issparse(value):
        csr = sp.csr_matrix(value)
        h.update(f"S{csr.shape}".encode())
        for part in (csr.data, csr.indices, csr.indptr):
            _feed(np.asarray(part), h, depth + 1)
    elif isinstance(value, bool | int | str | Fraction | type(None)):
        h.update(f"{type(value).__name__}:{value!r};".encode())
    elif isinstance(value, float | np.floating):
        h.update(f"f:{float(value).hex()};".encode())
    elif isinstance(value, np.integer | np.bool_):
        h.update(f"i:{value.item()!r};".encode())
    elif dataclasses.is_dataclass(value):
        h.update(f"D{type(value).__name__}(".encode())
        for field in dataclasses.fields(value):
            h.update(field.name.encode())
            _feed(getattr(value, field.name), h, depth + 1)
        h.update(b")")
    elif isinstance(value, Mapping):
        h.update(b"{")
        for key in sorted(value, key=repr):
            _feed(key, h, depth + 1)
            _feed(value[key], h, depth + 1)
        h.update(b"}")
    elif isinstance(value, list | tuple):
        h.update(b"[")
        for item in value:
            _feed(item, h, depth + 1)
        h.update(b"]")
    elif callable(value):
        h.update(f"callable:{getattr(value, '__qualname__', type(value).__name__)};".encode())
    else:  # an object such as a ConceptClass: its attributes (no addresses)
        h.update(f"o:{type(value).__qualname__}(".encode())
        _feed({k: v for k, v in vars(value).items() if not k.startswith("__")}, h, depth + 1)
        h.update(b")")


def digest(value) -> str:
    h = hashlib.sha256()
    _feed(value, h)
    return h.hexdigest()


def old_separable_stream(d: int, length: int, margin: float, rng: np.random.Generator):
    """The generator before issue 34, kept only as the control (its floats depend on the CPU)."""
    w = rng.standard_normal(d)
    w /= np.linalg.norm(w)
    kept, n_kept = [], 0
    while n_kept < length:
        batch = max(1024, 2 * (length - n_kept))
        directions = rng.standard_normal((batch, d))
        directions /= np.linalg.norm(directions, axis=1, keepdims=True)
        points = directions * (rng.random(batch) ** (1.0 / d))[:, None]
        points = points[np.abs(points @ w) >= margin]
        kept.append(points)
        n_kept += len(points)
    X = np.concatenate(kept)[:length]
    return X, np.where(X @ w > 0, 1, -1).astype(np.int8), w


def streams() -> dict:
    """Every generator of ``onlinelib.streams`` at chapter-sized settings, each from its own seed."""

    def rng(seed):
        return np.random.default_rng(seed)

    out = {}
    for d, T, margin in ((2, 300, 0.15), (5, 20_000, 0.05), (10, 3000, 0.1), (30, 1500, 0.05), (200, 400, 0.02)):
        out[f"separable_stream({d}, {T}, {margin})"] = ol.separable_stream(d, T, margin, rng(d))
    out["separable_stream radius 5"] = ol.separable_stream(3, 200, 0.05, rng(1), radius=5.0)
    out["perceptron_lower_bound_stream"] = ol.perceptron_lower_bound_stream(0.25, 1.0)
    out["random_stream"] = ol.random_stream(ol.all_concepts(3), 5, 200, rng(2))
    out["disjunction_stream"] = ol.disjunction_stream(100, 5, 500, rng(3))
    out["disjunction_stream active sparse"] = ol.disjunction_stream(10_000, 10, 300, rng(4), active=20, sparse=True)
    out["iid_experts"] = ol.iid_experts(500, np.linspace(0.3, 0.9, 8), rng(5))
    out["planted_best_expert"] = ol.planted_best_expert(300, 10, 20, rng(6))
    out["monotone_dnf_stream"] = ol.monotone_dnf_stream(10, [[0, 1], [2, 3, 4]], 400, rng(7))
    out["positive_halfcube"] = ol.positive_halfcube(np.array([1, -1, 1, 1, -1, 1]), 300, rng(8))
    out["ones_halfcube odd"] = ol.streams.ones_halfcube(101, 200, rng(9))
    out["halfcube_vote_sums"] = ol.streams.halfcube_vote_sums(100, 20, 30, rng(10))
    for n, alpha in ((48, 1.5), (192, 1.6)):  # chapter 4's Winnow counterexamples (winnow.md, the errata)
        found = ol.adversaries.beam_adversary(n, alpha, rng=rng(n))
        out[f"beam_adversary({n}, {alpha})"] = (found.X, found.y, found.states)
    return {f"stream:{name}": digest(value) for name, value in out.items()}


def recorded() -> dict:
    """Every public-checks file's text, and every hidden file's inputs."""
    out = {}
    for path in sorted(HIDDEN_DIR.glob("*_hidden.py")):
        hidden = load_hidden(path)
        name = path.name[: -len("_hidden.py")]
        if hasattr(hidden, "public_checks"):
            out[f"public:{name}"] = hashlib.sha256(public_checks_text(hidden).encode()).hexdigest()
        for part in ("cases", "streams", "certificates"):
            if callable(getattr(hidden, part, None)):
                out[f"hidden:{name}.{part}"] = digest(getattr(hidden, part)())
    return out


def main() -> None:
    fingerprints = {**recorded(), **streams()}
    fingerprints["control:old_separable_stream"] = digest(
        [old_separable_stream(d, 2000, 0.05, np.random.default_rng(d)) for d in (3, 5, 8, 30)]
    )
    # Assignment 3's public stream through the library's compiled engine, whose F_t sums are
    # reassociated for the CPU's vector width (the reference now computes F_t exactly instead).
    rng = np.random.default_rng(3)
    P, y = ol.iid_experts(50, [0.9, 0.7, 0.5, 0.3], rng)
    fingerprints["control:weighted_majority_engine"] = digest(ol.weighted_majority_run(P, y, 0.1).wrong_fraction)
    json.dump(fingerprints, sys.stdout, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
