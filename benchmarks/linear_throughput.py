"""Throughput of the linear learners (chapters 3 and 4) against peers, all on the same streams, in one run.

Run:  python benchmarks/linear_throughput.py        (about two minutes)
      python benchmarks/linear_throughput.py --smoke (tiny sizes, no peers, no verdicts: CI's check that it runs)
The peers river and scikit-learn are optional, benchmark-only dependencies:
      pip install -r benchmarks/requirements.txt
(a peer that is not installed is skipped, and its targets are reported as SKIP).

Prints seconds, examples per second and ratios, with PASS/MISS next to each target; it
asserts nothing about time (timings are not tests). Every time is the best of N runs with
time.perf_counter, N small for the slow peers. onlinelib's time is that of the whole
``onlinelib.run(learner, X, y)`` call (its input checks and ``prepare`` included); the
river peers get their feature dicts built beforehand, untimed.

Cases and targets:
1. Perceptron, d = 20, 10^6 separable examples, margin 0.05, radius 1 (few mistakes):
   onlinelib >= 50x a plain numpy per-example loop, and >= 50% of the speed of the floor,
   a single ``X @ w`` over the whole stream (floor time / onlinelib time >= 0.5).
2. Perceptron, dense d = 1000, 20,000 separable examples, margin 0.015 (many mistakes):
   onlinelib >= the plain loop, >= 50x river's Perceptron (learn_one/predict_one),
   >= 200x scikit-learn's Perceptron fed one example at a time with partial_fit.
3. Winnow2, d = 10^4 Boolean features, 20 active per example, a 5-variable disjunction,
   on a CSR stream: onlinelib >= 5x river's Perceptron on the same examples as dicts.
4. Sparse streams at their floor, scipy's CSR ``X @ w`` (one thread, as scipy's sparse
   product is): on 20,000 x 10^4 CSR rows with 20 active (the stream of issue 26), Winnow2
   >= 0.5 of the floor, the Perceptron >= 0.5 of the floor and at least as fast as
   scikit-learn's one-epoch CSR ``partial_fit`` (which, unlike onlinelib, does not predict
   each example before learning it); on 10^7 such rows (a 2.4 GB stream), Winnow2 >= 0.5 of
   the floor. Each ratio is the median (min-max) of 3 repetitions, each side measured moments
   apart (``timing.side_by_side``).
5. Mistake counts: onlinelib's equals the plain loop's on cases 1 and 2 (it must: the
   engine is exact); river's and scikit-learn's are reported beside them.
"""

from __future__ import annotations

import time

import numpy as np

import onlinelib as ol
from timing import SMOKE, format_ratio, ratio_summary, side_by_side

try:
    from river import linear_model as river_linear_model
except ImportError:  # optional peer
    river_linear_model = None
try:
    from sklearn.linear_model import Perceptron as SklearnPerceptron
except ImportError:  # optional peer
    SklearnPerceptron = None
try:
    from threadpoolctl import threadpool_limits
except ImportError:  # comes with scikit-learn
    threadpool_limits = None

if SMOKE:  # no peers in smoke mode
    river_linear_model = SklearnPerceptron = threadpool_limits = None

SUMMARY: list[tuple[str, str, str, str, str]] = []  # (case, comparison, measured, target, verdict)


def size(full: int, smoke: int) -> int:
    return smoke if SMOKE else full


def best_of(fn, repeat: int):
    """(best wall time over ``repeat`` calls of ``fn``, the last call's result); one call in smoke mode."""
    best = float("inf")
    result = None
    for _ in range(1 if SMOKE else repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def rate(n_examples: int, seconds: float) -> str:
    per_second = n_examples / seconds
    for scale, unit in ((1e6, "M"), (1e3, "k")):
        if per_second >= scale:
            return f"{per_second / scale:7.2f} {unit} ex/s"
    return f"{per_second:7.1f}   ex/s"


def line(name: str, seconds: float, n_examples: int, note: str = "") -> None:
    print(f"    {name:44s} {seconds:9.4f} s  {rate(n_examples, seconds)}  {note}")


def target(case: str, comparison: str, ratio: float | None, goal: float, unit: str = "x") -> None:
    """Print a measured ratio next to its target (ratio >= goal), and keep it for the summary."""
    goal_text = f">= {goal:g}{unit}"
    if ratio is None:
        measured, verdict = "n/a", "SKIP"
    elif SMOKE:
        measured, verdict = f"{ratio:.2f}{unit}", "smoke"
    else:
        measured, verdict = f"{ratio:.2f}{unit}", ("PASS" if ratio >= goal else "MISS")
    print(f"    -> {comparison}: {measured}   target {goal_text}   {verdict}")
    SUMMARY.append((case, comparison, measured, goal_text, verdict))


# -- the peers ------------------------------------------------------------------------


def plain_perceptron(X: np.ndarray, y: np.ndarray):
    """The Perceptron as a plain numpy loop, with onlinelib's conventions.

    Predicts +1 iff w.x >= 0; updates w += y x iff y (w.x) <= 0.
    Returns (mistakes, updates, w).
    """
    w = np.zeros(X.shape[1])
    mistakes = updates = 0
    for x, label in zip(X, y.tolist(), strict=True):
        s = x @ w
        if (1 if s >= 0 else -1) != label:
            mistakes += 1
        if label * s <= 0:
            w += label * x
            updates += 1
    return mistakes, updates, w


def river_perceptron(rows: list[dict], labels: list[bool]) -> int:
    """river's Perceptron, predict_one then learn_one on every example; returns its mistakes."""
    model = river_linear_model.Perceptron()
    mistakes = 0
    for x, label in zip(rows, labels, strict=True):
        if model.predict_one(x) != label:
            mistakes += 1
        model.learn_one(x, label)
    return mistakes


def sklearn_perceptron(X: np.ndarray, y: np.ndarray) -> int:
    """scikit-learn's Perceptron, predict then partial_fit one example at a time; returns its mistakes.

    ``fit_intercept=False`` (no bias, as ``onlinelib.Perceptron(d)``); with no penalty and
    eta0 = 1 its update is w += y x iff y (w.x) <= 0, as here. It predicts +1 iff w.x > 0,
    and cannot predict before its first partial_fit: that first prediction is counted as
    -1, what its rule gives for w = 0.
    """
    model = SklearnPerceptron(fit_intercept=False)
    classes = np.array([-1, 1])
    mistakes = 0
    for t in range(len(y)):
        xt, yt = X[t : t + 1], y[t : t + 1]
        prediction = model.predict(xt)[0] if t else -1
        if prediction != yt[0]:
            mistakes += 1
        model.partial_fit(xt, yt, classes=classes)
    return mistakes


def run_onlinelib(make, X, y):
    learner = make()
    trace = ol.run(learner, X, y)
    return learner, trace


# -- the cases ------------------------------------------------------------------------


def warm_up() -> None:
    rng = np.random.default_rng(0)
    start = time.perf_counter()
    X, y, _ = ol.separable_stream(8, 200, 0.1, rng)
    ol.run(ol.Perceptron(8), X, y)
    Xs, ys, _ = ol.disjunction_stream(64, 2, 200, rng, active=5, sparse=True)
    ol.run(ol.Winnow2(64), Xs, ys)
    print(
        f"numba warm-up: compiled (or loaded from numba's cache) the dense and sparse kernels "
        f"in {time.perf_counter() - start:.2f} s, before and outside every timing below.\n"
    )


def case_small_dense() -> dict:
    d, n, margin = 20, size(1_000_000, 2_000), 0.05
    X, y, _ = ol.separable_stream(d, n, margin, np.random.default_rng(1), radius=1.0)
    print(f"1. Perceptron, small d, rare mistakes: d = {d}, {n:,} separable examples, margin {margin}, radius 1")
    # onlinelib and the floor take milliseconds here, so many repeats are cheap and steady the minimum
    t_ol, (learner, trace) = best_of(lambda: run_onlinelib(lambda: ol.Perceptron(d), X, y), 20)
    t_plain, (m_plain, u_plain, w_plain) = best_of(lambda: plain_perceptron(X, y), 2)
    w = learner.weights.copy()
    t_floor, _ = best_of(lambda: X @ w, 20)
    line(f"onlinelib run(Perceptron({d}), X, y)", t_ol, n, "(best of 20)")
    line("plain numpy per-example loop", t_plain, n, "(best of 2)")
    line("floor: one X @ w over the whole stream", t_floor, n, "(best of 20, numpy's BLAS, its default threads)")
    if threadpool_limits is not None:
        with threadpool_limits(limits=1):
            t_floor1, _ = best_of(lambda: X @ w, 20)
        line(
            "floor, BLAS limited to 1 thread",
            t_floor1,
            n,
            f"(information only: floor(1 thread) / onlinelib = {t_floor1 / t_ol:.2f}x; onlinelib's kernel is 1 thread)",
        )
    print(
        f"    mistakes: onlinelib {trace.n_mistakes} (updates {learner.n_updates}), "
        f"plain loop {m_plain} (updates {u_plain}); final weights identical: {np.array_equal(w, w_plain)}"
    )
    target("1", "onlinelib vs plain loop (plain / onlinelib)", t_plain / t_ol, 50)
    target("1", "onlinelib vs floor (floor / onlinelib)", t_floor / t_ol, 0.5)
    print()
    return {"onlinelib": trace.n_mistakes, "plain": m_plain}


def case_large_dense() -> dict:
    d, n, margin = size(1000, 50), size(20_000, 500), 0.015
    X, y, _ = ol.separable_stream(d, n, margin, np.random.default_rng(2), radius=1.0)
    print(f"2. Perceptron, dense d = {d}, {n:,} separable examples, margin {margin}, radius 1")
    t_ol, (learner, trace) = best_of(lambda: run_onlinelib(lambda: ol.Perceptron(d), X, y), 5)
    t_plain, (m_plain, u_plain, w_plain) = best_of(lambda: plain_perceptron(X, y), 3)
    line(f"onlinelib run(Perceptron({d}), X, y)", t_ol, n, "(best of 5)")
    line("plain numpy per-example loop", t_plain, n, "(best of 3)")
    counts = {"onlinelib": trace.n_mistakes, "plain": m_plain}
    print(
        f"    mistakes: onlinelib {trace.n_mistakes} ({trace.n_mistakes / n:.1%} of the rounds; "
        f"updates {learner.n_updates}), plain loop {m_plain} (updates {u_plain}); final weights identical: "
        f"{np.array_equal(learner.weights, w_plain)}"
    )

    t_river = None
    if river_linear_model is not None:
        rows = [dict(enumerate(r)) for r in X.tolist()]  # river's input format; built untimed
        labels = (y > 0).tolist()
        t_river, counts["river"] = best_of(lambda: river_perceptron(rows, labels), 2)
        line("river linear_model.Perceptron, dict features", t_river, n, "(best of 2, full stream)")
    else:
        print("    river: not installed, skipped (pip install -r benchmarks/requirements.txt)")

    t_sk = None
    if SklearnPerceptron is not None:
        n_sk = 2_000
        t_prefix, counts["sklearn"] = best_of(lambda: sklearn_perceptron(X[:n_sk], y[:n_sk]), 1)
        t_sk = t_prefix / n_sk * n  # the cost per example barely changes along the stream
        counts["sklearn_prefix"] = n_sk
        counts["onlinelib_prefix"] = int(trace.cumulative[n_sk - 1])
        counts["plain_prefix"] = plain_perceptron(X[:n_sk], y[:n_sk])[0]
        line(
            "scikit-learn Perceptron, partial_fit 1 by 1",
            t_sk,
            n,
            f"(EXTRAPOLATED to {n:,} from the first {n_sk:,} examples, {t_prefix:.2f} s, 1 run)",
        )
    else:
        print("    scikit-learn: not installed, skipped (pip install -r benchmarks/requirements.txt)")

    target("2", "onlinelib vs plain loop (plain / onlinelib)", t_plain / t_ol, 1)
    target("2", "onlinelib vs river (river / onlinelib)", None if t_river is None else t_river / t_ol, 50)
    target("2", "onlinelib vs scikit-learn 1-at-a-time (extrap.)", None if t_sk is None else t_sk / t_ol, 200)
    print()
    return counts


def case_sparse_winnow() -> None:
    d, k, a, n = 10_000, 5, 20, size(100_000, 1_000)
    X, y, relevant = ol.disjunction_stream(d, k, n, np.random.default_rng(3), active=a, sparse=True)
    print(
        f"3. Winnow2, sparse: d = {d:,}, {a} active bits per example, k = {k} relevant, {n:,} examples "
        f"(CSR; {np.mean(y > 0):.1%} positive)"
    )
    t_ol, (learner, trace) = best_of(lambda: run_onlinelib(lambda: ol.Winnow2(d), X, y), 5)
    line(f"onlinelib run(Winnow2({d}), X, y)", t_ol, n, f"(best of 5; {trace.n_mistakes} mistakes)")
    t_river = None
    if river_linear_model is not None:
        rows = [dict.fromkeys(X.indices[X.indptr[t] : X.indptr[t + 1]].tolist(), 1.0) for t in range(n)]
        labels = (y > 0).tolist()
        t_river, m_river = best_of(lambda: river_perceptron(rows, labels), 2)
        line("river linear_model.Perceptron, dict of 20", t_river, n, f"(best of 2; {m_river} mistakes)")
    else:
        print("    river: not installed, skipped (pip install -r benchmarks/requirements.txt)")
    target("3", "onlinelib Winnow2 vs river (river / onlinelib)", None if t_river is None else t_river / t_ol, 5)
    print()


def sklearn_one_epoch(X, y) -> None:
    """scikit-learn's Perceptron, one pass of partial_fit over the whole CSR stream (no bias, eta0 = 1)."""
    SklearnPerceptron(fit_intercept=False, shuffle=False).partial_fit(X, y, classes=np.array([-1, 1]))


def case_sparse_floor() -> None:
    d, k, a = 10_000, 5, 20
    print(f"4. Sparse streams at their floor: d = {d:,}, {a} active bits per example, a {k}-variable disjunction")
    for n in (size(20_000, 500), size(10_000_000, 2_000)):
        X, y, _ = ol.disjunction_stream(d, k, n, np.random.default_rng(4), active=a, sparse=True)
        w = np.ones(d)
        fns = {
            "floor": lambda X=X, w=w: X @ w,
            "winnow2": lambda X=X, y=y: ol.run(ol.Winnow2(d), X, y),
            "perceptron": lambda X=X, y=y: ol.run(ol.Perceptron(d), X, y),
        }
        if SklearnPerceptron is not None and n <= 100_000:
            fns["sklearn"] = lambda X=X, y=y: sklearn_one_epoch(X, y)
        inner = 10 if n <= 100_000 else 1  # the best of 10 calls steadies the millisecond cases
        times = side_by_side(fns, repeat=3, inner=inner)
        mistakes = {name: ol.run(make(d), X, y).n_mistakes for name, make in (("W", ol.Winnow2), ("P", ol.Perceptron))}
        print(
            f"   {n:,} CSR rows ({X.nnz:,} stored entries): Winnow2 {mistakes['W']} mistakes, "
            f"Perceptron {mistakes['P']} updates-or-mistakes"
        )
        for name, ts in times.items():
            print(f"    {name:44s} {min(ts):9.4f} s  (best of {inner} per repetition, {len(ts)} repetitions)")
        label = f"{n:,} rows"
        for learner in ("winnow2", "perceptron") if n <= 100_000 else ("winnow2",):
            ratio = format_ratio(times["floor"], times[learner])
            print(f"    -> {learner}: floor / onlinelib = {ratio}  (median (min-max) of the repetitions)")
            target(
                f"4 {label}",
                f"{learner} vs scipy CSR X @ w (floor / onlinelib)",
                ratio_summary(times["floor"], times[learner])[0],
                0.5,
            )
        if "sklearn" in times:
            print(
                f"    -> scikit-learn one-epoch partial_fit / onlinelib Perceptron = {format_ratio(times['sklearn'], times['perceptron'])}"
            )
            target(
                f"4 {label}",
                "perceptron vs scikit-learn CSR partial_fit",
                ratio_summary(times["sklearn"], times["perceptron"])[0],
                1,
            )
        del X, y
    print()


def mistake_counts(c1: dict, c2: dict) -> None:
    print("5. Mistake counts on the same streams (onlinelib must equal the plain loop: same rule, exact engine)")
    print("   onlinelib and the plain loop: +1 iff w.x >= 0, update iff y w.x <= 0, no bias.")
    print("   river: same update (iff y score <= 0) but it also learns an intercept (rate 1), and predicts")
    print("   +1 iff score > 0; scikit-learn (fit_intercept=False): the same update, +1 iff w.x > 0.")
    for case, counts in (("1", c1), ("2", c2)):
        verdict = "EQUAL" if counts["onlinelib"] == counts["plain"] else "DIFFERENT"
        extra = []
        if case == "1":
            extra.append("river, scikit-learn: not run on case 1")
        else:
            extra.append(f"river {counts['river']}" if "river" in counts else "river: skipped")
            if "sklearn" in counts:
                p = counts["sklearn_prefix"]
                extra.append(
                    f"scikit-learn {counts['sklearn']} on the first {p:,} examples "
                    f"(onlinelib {counts['onlinelib_prefix']}, plain loop {counts['plain_prefix']} there)"
                )
            else:
                extra.append("scikit-learn: skipped")
        print(
            f"   case {case}: onlinelib {counts['onlinelib']}, plain loop {counts['plain']}: {verdict};  "
            + "; ".join(extra)
        )
        SUMMARY.append(
            (case, "mistakes: onlinelib == plain loop", f"{counts['onlinelib']} vs {counts['plain']}", "equal", verdict)
        )
    print()


def main() -> None:
    start = time.perf_counter()
    print(f"onlinelib {ol.__version__}, numpy {np.__version__}", end="")
    if river_linear_model is not None:
        import river

        print(f", river {river.__version__}", end="")
    if SklearnPerceptron is not None:
        import sklearn

        print(f", scikit-learn {sklearn.__version__}", end="")
    print("\n")
    warm_up()
    c1 = case_small_dense()
    c2 = case_large_dense()
    case_sparse_winnow()
    case_sparse_floor()
    mistake_counts(c1, c2)

    print("Summary (ratios are speed-ups of onlinelib: peer time / onlinelib time; no assertion on time)")
    print(f"  {'case':17s}  {'comparison':56s} {'measured':>14s}  {'target':>8s}  verdict")
    for case, comparison, measured, goal, verdict in SUMMARY:
        print(f"  {case:17s}  {comparison:56s} {measured:>14s}  {goal:>8s}  {verdict}")
    print(f"\ntotal benchmark time {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
