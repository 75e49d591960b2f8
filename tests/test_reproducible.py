"""The same seed gives the same numbers on every CPU (issue 34).

numpy picks its SIMD kernels when it starts, OpenBLAS picks a kernel for the processor, and numba
compiles for the host CPU: a reduction, a BLAS product or a vectorised sum can round differently in
the last bit on another machine. Everything the repository records (the public-checks files), every
hidden file's inputs and every seeded stream generator must not depend on that choice.
``tests/reproducible_fingerprint.py`` prints a digest of each; here it runs once as the machine
is and once per restricted dispatch, and every digest must be the same.

The restrictions, one subprocess each, go down one step at a time:

* ``NPY_DISABLE_CPU_FEATURES``: the feature groups this machine has above numpy's baseline, the
  highest first, then the two highest, and so on down to the baseline;
* ``OPENBLAS_CORETYPE`` (x86-64): the kernels of Haswell (AVX2), Sandy Bridge (AVX) and Prescott (SSE3);
* ``NUMBA_CPU_NAME`` (x86-64): haswell (AVX2: vectors half as wide as AVX-512's), compiling afresh in
  a cache folder of its own, with the last step only (a compile costs about 10 s; numba's host
  target and haswell were the pair that split the Weighted Majority engine's reassociated sums).

The controls: the generator ``separable_stream`` as it was before this issue (``np.linalg.norm``,
``u ** (1/d)`` on an array, ``@``), and the compiled Weighted Majority engine that Assignment 3's
reference used, change their bits under the same restrictions on a machine with X86_V4 (AVX-512),
as the first did on a second machine whose numpy found X86_V3 and not X86_V4.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "tests" / "reproducible_fingerprint.py"
CONTROLS = ("control:old_separable_stream", "control:weighted_majority_engine")
BLAS_CORES = ("Haswell", "Sandybridge", "Prescott")
NUMBA_CPU = "haswell"
TIMEOUT = 600  # seconds: a liveness guard (a run takes about 10 s, most of it numba compiling)


def numpy_feature_groups() -> list[str]:
    """The dispatch targets this machine runs above numpy's baseline, lowest first."""
    from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

    return [name for name in __cpu_dispatch__ if __cpu_features__.get(name)]


def restrictions() -> list[dict[str, str]]:
    """One environment per step down: numpy's groups, OpenBLAS's kernel and numba's target together."""
    groups = numpy_feature_groups()
    steps = [" ".join(groups[i:]) for i in range(len(groups) - 1, -1, -1)]
    x86 = platform.machine().lower() in ("x86_64", "amd64")
    count = max(len(steps), len(BLAS_CORES) if x86 else 0)
    out = []
    for i in range(count):
        env = {}
        if steps:
            env["NPY_DISABLE_CPU_FEATURES"] = steps[min(i, len(steps) - 1)]
        if x86:
            env["OPENBLAS_CORETYPE"] = BLAS_CORES[min(i, len(BLAS_CORES) - 1)]
            if i == count - 1:
                env["NUMBA_CPU_NAME"] = NUMBA_CPU
        out.append(env)
    return out


def fingerprints(tmp_path: Path, env: dict[str, str]) -> dict[str, str]:
    """The script's digests in a child process with ``env`` (numba's restricted target in a new cache)."""
    full = {k: v for k, v in os.environ.items() if k not in ("NPY_DISABLE_CPU_FEATURES", "NUMBA_CPU_NAME")}
    full.pop("OPENBLAS_CORETYPE", None)  # as the machine is, unless env restricts it
    full.update(env, PYTHONPATH=str(ROOT))
    if "NUMBA_CPU_NAME" in env:  # compiled afresh for that CPU, not taken from the host's cache
        full["NUMBA_CACHE_DIR"] = str(tmp_path / "numba")
    done = subprocess.run(
        [sys.executable, str(SCRIPT)], cwd=ROOT, env=full, capture_output=True, text=True, timeout=TIMEOUT
    )
    assert done.returncode == 0, f"{SCRIPT.name} failed under {env}:\n{done.stderr[-3000:]}"
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> list[tuple[dict[str, str], dict[str, str]]]:
    tmp = tmp_path_factory.mktemp("fingerprints")
    return [(env, fingerprints(tmp, env)) for env in [{}, *restrictions()]]


def test_the_restrictions_cover_every_feature_group_above_the_baseline():
    groups = numpy_feature_groups()
    disabled = [set(env.get("NPY_DISABLE_CPU_FEATURES", "").split()) for env in restrictions()]
    assert all(any(name in d for d in disabled) for name in groups), (groups, disabled)
    assert not groups or set(groups) in disabled  # down to the baseline


def test_every_recorded_file_and_seeded_stream_is_the_same_under_every_dispatch(runs):
    (_, reference), *restricted = runs
    names = [name for name in reference if name not in CONTROLS]
    assert sum(name.startswith("public:") for name in names) == len(
        list((ROOT / "book" / "assignments").glob("*_public.json"))
    )
    assert any(name.startswith("stream:separable_stream") for name in names)
    for env, got in restricted:
        changed = [name for name in names if got[name] != reference[name]]
        assert not changed, f"under {env} these changed: {changed}"


@pytest.mark.parametrize("control", CONTROLS)
def test_control_the_old_paths_change_under_a_restricted_dispatch(runs, control):
    """The check can see a difference: the pre-issue paths' bits move with the kernels."""
    if "X86_V4" not in numpy_feature_groups():
        pytest.skip("shown on machines with X86_V4 (AVX-512); this one has " + ", ".join(numpy_feature_groups()))
    (_, reference), *restricted = runs
    moved = [env for env, got in restricted if got[control] != reference[control]]
    assert moved, f"{control} gave the same bits under every restriction"


def test_numpy_takes_the_restriction():
    """NPY_DISABLE_CPU_FEATURES takes effect: a child with every group disabled runs none (else the test proves nothing)."""
    groups = numpy_feature_groups()
    if not groups:
        pytest.skip("numpy runs at its baseline here: nothing to restrict")
    env = dict(os.environ, NPY_DISABLE_CPU_FEATURES=" ".join(groups))
    code = (
        "from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__;"
        "print(sum(bool(__cpu_features__.get(n)) for n in __cpu_dispatch__))"
    )
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "0", done.stderr


# -- onlinelib.reproducible ------------------------------------------------------------------


def test_fixed_order_sums_add_left_to_right():
    """Each entry is the plain left-to-right sum, which a pairwise or SIMD sum is not in general."""
    import numpy as np

    from onlinelib.reproducible import fixed_order_dot, fixed_order_squared_norms

    rng = np.random.default_rng(0)
    A, v = rng.standard_normal((50, 37)), rng.standard_normal(37)

    def left_to_right(terms):
        total = terms[0]
        for term in terms[1:]:
            total += term
        return total

    expected = [left_to_right([a * b for a, b in zip(row, v.tolist(), strict=True)]) for row in A.tolist()]
    assert fixed_order_dot(A, v).tolist() == expected
    assert fixed_order_squared_norms(A).tolist() == [left_to_right([a * a for a in row]) for row in A.tolist()]
    assert fixed_order_dot(A[3], v) == expected[3] and isinstance(fixed_order_dot(A[3], v), float)
    # a case where the order shows: 1e16 + 1 - 1e16 is 0 left to right, 2 pairwise on (1e16 - 1e16) + (1 + 1)
    assert fixed_order_dot([1e16, 1.0, -1e16, 1.0], [1.0, 1.0, 1.0, 1.0]) == 1.0


@pytest.mark.parametrize(
    ("A", "v", "message"),
    [
        ([[1.0, 2.0]], [1.0], r"v must have shape \(2,\) to match A, got \(1,\)"),
        ([], [], r"A must be a non-empty vector or a matrix with at least one column, got shape \(0,\)"),
        ([[[1.0]]], [1.0], r"got shape \(1, 1, 1\)"),
    ],
)
def test_fixed_order_dot_rejects_bad_shapes(A, v, message):
    from onlinelib.reproducible import fixed_order_dot

    with pytest.raises(ValueError, match=message):
        fixed_order_dot(A, v)
