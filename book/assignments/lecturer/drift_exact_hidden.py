"""Hidden tests of Assignment 15, Directed Drift exactly (chapter 7, Binary weights).

Lecturer edition only: the student-edition builder removes ``book/assignments/**/lecturer/``.
Run by ``python -m booktools grade SUBMISSIONS --assignment drift_exact --out scores.csv``.

Three parts. ``drift_rates`` returns the exact rates q_d and p_d of the distance chain (the lemma
"The distance chain"); each dimension is one check, half for q and half for p, compared exactly
by ``onlinelib.certificates_drift.verify_drift_rates`` with the reference's rates.
``correct_output_probability`` returns the probabilities g_d that Algorithm D with the stopping
rule D3 outputs w* from distance d; each chain is one check, verified exactly by substitution
into the first-step equations (``verify_drift_output``: nothing is solved on the grader's side,
and no float passes unless it is the exact value). The written proof (QUESTIONS) bounds g_d by
p_1 / (p_1 + (1 - p_1) s_1), the step behind the proposition "The output of D3 is wrong with
probability tending to 1"; it is graded by hand against the rubric below.

Keyed instances: none. The dimensions and chains (each made for one condition) are written out here and are
the same under every course key, so whoever reads this file knows them: keep it in a private folder
(``--hidden-dir``) if that matters.
"""

import math
from fractions import Fraction

import onlinelib as ol
from booktools.grading import checks

PARTS = {"drift_rates": "certificate", "correct_output_probability": "certificate"}
TITLE = "Assignment 15: Directed Drift, exactly (chapter 7)"
# The exact chain (its rates, expected mistakes and D3 probabilities), the helpers that compute its
# rates, and the chapter's enumeration of the half-cube that checks them.
FORBIDDEN = [
    "onlinelib.DirectedDriftChain",
    "onlinelib.directed_drift._exact_rates",
    "onlinelib.directed_drift._log_rates",
    "onlinelib.chapters.directed_drift.enumerate_rates",
]
QUESTIONS = [
    {
        "id": "wrong_output",
        "title": "Stopping rule D3: P(output w*) <= p_1 / (p_1 + (1 - p_1) s_1), with p_1 = 2/(n+1) or 2/(n+2)",
        "items": [
            {
                "id": "reduction",
                "points": 1,
                "text": "From any start d_0 >= 1, P(output w*) <= r, the probability of outputting w* from the "
                "start of a sojourn at distance 1.",
                "full": "Says that the distance changes by one at each mistake and never otherwise, so a run from "
                "d_0 >= 1 that outputs w* must start a sojourn at distance 1 and leave it by a mistake with a good "
                "flip; and that from the start of the first such sojourn the run succeeds with probability r "
                "whatever happened before, because the later examples are fresh and the counter of D3 restarts "
                "at 0 after every mistake (the Markov property of the distance at the starts of sojourns).",
                "half": "The reduction is stated but one of its two reasons is missing: no argument that a "
                "successful run must pass through a sojourn at distance 1 (steps of one), or no argument why "
                "the success probability from that sojourn does not depend on the past (fresh examples, the "
                "counter restarted).",
                "zero": "No reduction to distance 1 (e.g. only the start d_0 = 1 is treated, with no word on the "
                "others), or a false one (e.g. that the run reaches distance 1 with probability 1 and the "
                "bound uses it as an equality).",
                "errors": [
                    "Lets the counter T carry over from one sojourn to the next (it restarts at 0 after every "
                    "mistake): the sojourns at distance 1 are then not alike; at most half.",
                    "Assumes the distance only decreases (no bad flips), so that the run meets distance 1 once: "
                    "the point of the argument is that it may come back many times; zero.",
                    "Conditions on the whole future (e.g. 'given that the run reaches w*') and so on an event "
                    "that depends on the examples of the sojourn itself: at most half.",
                ],
            },
            {
                "id": "first_step",
                "points": 1,
                "text": "r <= (1 - s_1)(p_1 + (1 - p_1) r), where s_1 = (1 - q_1)^T is the probability that a "
                "sojourn at distance 1 stops the run.",
                "full": "The sojourn stops the run exactly when its first T examples are all classified "
                "correctly, which has probability (1 - q_1)^T = s_1 (independent examples, each a mistake with "
                "probability q_1), and it then outputs a wrong w; otherwise it ends with a mistake, whose flip is "
                "good with probability p_1 (w = w*, which D3 then outputs) or bad (distance 2), after which the "
                "run must first start a new sojourn at distance 1 (probability at most 1) and then succeed from "
                "it (probability r). Says why it is an inequality and not an equation.",
                "half": "The right inequality with one step not justified: s_1 without the T correct predictions "
                "in a row or without independence; or the branch through distance 2 bounded by r without the "
                "return to distance 1; or written as an equation without comment.",
                "zero": "No analysis of the first sojourn at distance 1, s_1 taken as a different probability, or "
                "an inequality in the wrong direction.",
                "errors": [
                    "Uses 1 - (1 - q_1)^T (the probability of at least one mistake) or q_1^T for the probability "
                    "that the sojourn stops the run: zero.",
                    "Writes r = (1 - s_1)(p_1 + (1 - p_1) r) as an equation: the return from distance 2 to "
                    "distance 1 can fail (D3 may stop first), so the equation is false; half unless the text "
                    "only needs the upper bound and says so.",
                    "Counts the good flip at distance 1 as a success without noting that at w* no mistake can "
                    "occur, so D3 then outputs w* for sure: half only if this is the only gap (a minor one).",
                ],
            },
            {
                "id": "solve",
                "points": 1,
                "text": "Solving for r: r <= (1 - s_1) p_1 / (1 - (1 - s_1)(1 - p_1)) <= p_1 / (p_1 + (1 - p_1) s_1).",
                "full": "Collects r on one side, divides by 1 - (1 - s_1)(1 - p_1) and says why it is positive "
                "(p_1 > 0 and s_1 <= 1, so (1 - s_1)(1 - p_1) < 1), expands it as p_1 + (1 - p_1) s_1, bounds "
                "the numerator by p_1 (since 1 - s_1 <= 1), and concludes for every d_0 >= 1 with the reduction.",
                "half": "The right bound, but the division is not justified (the sign of the denominator is not "
                "discussed), or the numerator's factor 1 - s_1 is dropped without a word.",
                "zero": "No algebra, or a division by a quantity that may be zero or negative leading to a "
                "different bound.",
                "errors": [
                    "Divides by 1 - (1 - s_1)(1 - p_1) without noting that it is positive: half.",
                    "Stops at the weaker p_1 / s_1 and presents it as the bound asked for: half.",
                    "Expands 1 - (1 - s_1)(1 - p_1) wrongly (e.g. as s_1 + p_1): zero for the item unless the "
                    "final inequality is still correct and proved.",
                ],
            },
            {
                "id": "p1",
                "points": 1,
                "text": "p_1 = 2/(n + 1) for odd n and p_1 = 2/(n + 2) for even n.",
                "full": "At distance 1 with wrong coordinate i, <w*, u> - <w, u> = 2 w*_i u_i <= 2, so a "
                "mistake (<w, u> < 0 <= <w*, u>) has u_i = w*_i and <w, u> = -1 for odd n, <w, u> = -2 and "
                "<w*, u> = 0 (a tie, which is positive) for even n. Then |J| = (n - <w, u>)/2 is (n + 1)/2 or "
                "(n + 2)/2, i is in J and no other wrong coordinate exists, and the flip is uniform on J: every "
                "mistake at distance 1 gives a good flip with probability 1/|J|, hence so does a mistake.",
                "half": "The right values with one gap: |J| asserted without <w, u> = n - 2|J|, only one parity "
                "proved, or no reason why every mistake at distance 1 has the same |J|.",
                "zero": "Wrong values (e.g. 1/n, 2/n or 1/2) or none.",
                "errors": [
                    "Takes |J| to be the number of wrong coordinates, or n/2: zero.",
                    "For even n, treats the tie <w*, u> = 0 as a negative example (then no mistake at distance 1 "
                    "seems possible): at most half.",
                    "Computes |J| for one example u without saying that every mistake at distance 1 has the same "
                    "|J|: half.",
                ],
            },
        ],
        "model": r"""Fix $n$, the threshold $T$ of D3, and write $q_d$, $p_d$ for the rates of the distance chain.
Between two mistakes the hypothesis is fixed; call such a stretch a *sojourn*. The counter of D3 is
0 at the start of every sojourn, and the examples of a sojourn are independent of everything before.

**Reduction.** The distance changes only at mistakes, by exactly one. Start at $d_0 \ge 1$. If the
run outputs $w^*$, the distance reached 0, so at some mistake it went from 1 to 0: that mistake ended
a sojourn at distance 1 with a good flip. Let $r$ be the probability of outputting $w^*$ from the
start of a sojourn at distance 1. Given the history up to the start of the first sojourn at distance
1, the rest of the run is a run from the start of a sojourn at distance 1 (fresh examples, counter
at 0), so it succeeds with probability $r$; if there is no such sojourn the run cannot succeed. Hence
$P(\text{output } w^* \mid d_0) \le r$.

**First step.** In a sojourn at distance 1 each example is a mistake with probability $q_1$,
independently. The sojourn stops the run at the wrong $w$ iff its first $T$ examples are all correct:
probability $s_1 = (1 - q_1)^T$. Otherwise it ends with a mistake. With probability $p_1$ the flip is
good: $w = w^*$, no mistake can occur any more, and D3 outputs $w^*$. With probability $1 - p_1$ the
distance becomes 2; to succeed, the run must start a new sojourn at distance 1 (probability at most
1) and succeed from there (probability $r$, as above). So

$$
r \le (1 - s_1)\bigl(p_1 + (1 - p_1)\, r\bigr).
$$

It is an inequality because the return to distance 1 can fail: D3 may stop at a distance $\ge 2$.

**Solving.** Since $p_1 > 0$ and $s_1 \le 1$, $(1 - s_1)(1 - p_1) < 1$, and

$$
r \le \frac{(1 - s_1)\, p_1}{1 - (1 - s_1)(1 - p_1)} = \frac{(1 - s_1)\, p_1}{p_1 + (1 - p_1) s_1} \le \frac{p_1}{p_1 + (1 - p_1)\, s_1},
$$

and with the reduction, $P(\text{output } w^* \mid d_0) \le r$ gives the bound for every $d_0 \ge 1$.

**The value of $p_1$.** Let $i$ be the wrong coordinate: $w_i = -w^*_i$ and $w_j = w^*_j$ otherwise.
Then $\langle w^*, u\rangle - \langle w, u\rangle = 2 w^*_i u_i \le 2$. A mistake has
$\langle w, u\rangle < 0 \le \langle w^*, u\rangle$, so $u_i = w^*_i$ and $\langle w, u\rangle \ge -2$.
For odd $n$ the inner products are odd: $\langle w, u\rangle = -1$. For even $n$ they are even:
$\langle w, u\rangle = -2$ and $\langle w^*, u\rangle = 0$, a tie, which is a positive example. The
set $J$ of coordinates where $u$ and $w$ differ has $\langle w, u\rangle = n - 2|J|$, so
$|J| = (n+1)/2$ (odd $n$) or $(n+2)/2$ (even $n$). It contains $i$ (as $u_i = w^*_i \ne w_i$), the only
wrong coordinate. The flip is uniform on $J$, so on every mistake at distance 1 it is good with
probability $1/|J|$, and $p_1 = 2/(n+1)$ for odd $n$, $2/(n+2)$ for even $n$.""",
    }
]


def reference_rates(n):
    """Assignment ``drift_exact`` (a), chapter 7: the exact rates (q_1..q_n, p_1..p_n) of the distance chain.

    With w* = (1, ..., 1) and w wrong on d coordinates, a vertex u with K plus signs on the n - d right
    coordinates and L on the d wrong ones has <w*, u> = X + Y and <w, u> = X - Y, X = 2K - (n - d),
    Y = 2L - d; C(n-d, K) C(d, L) vertices share (K, L). It is in B+ iff X + Y >= 0 and a mistake
    iff X < Y; then |J| = L + (n - d - K), of which L coordinates are wrong.
    """
    size = ol.halfcube_size(n)
    q, p = [], []
    for d in range(1, n + 1):
        mistakes, good = 0, Fraction(0)
        for K in range(n - d + 1):
            for L in range(d + 1):
                X, Y = 2 * K - (n - d), 2 * L - d
                if X + Y >= 0 and X < Y:
                    count = math.comb(n - d, K) * math.comb(d, L)
                    mistakes += count
                    good += Fraction(count * L, L + n - d - K)
        q.append(Fraction(mistakes, size))
        p.append(good / mistakes)
    return q, p


def reference_output(q, p, threshold):
    """Assignment ``drift_exact`` (b), chapter 7: [g_0, ..., g_n], g_d = P(D3 outputs w* | start at distance d).

    g_0 = 1 and g_d = (1 - s_d)(p_d g_{d-1} + (1 - p_d) g_{d+1}) with s_d = (1 - q_d)^T (p_n = 1):
    eliminated from d = 1 upwards as g_d = a_d + b_d g_{d+1}, then substituted back, in Fractions.
    """
    q, p = [Fraction(v) for v in q], [Fraction(v) for v in p]
    n = len(q)
    a, b = [Fraction(1)], [Fraction(0)]
    for d in range(1, n + 1):
        go = 1 - (1 - q[d - 1]) ** threshold
        down, up = go * p[d - 1], (go * (1 - p[d - 1]) if d < n else Fraction(0))
        pivot = 1 - down * b[d - 1]
        a.append(down * a[d - 1] / pivot)
        b.append(up / pivot)
    g = [Fraction(0)] * (n + 1)
    g[n] = a[n]
    for d in range(n - 1, -1, -1):
        g[d] = a[d] + b[d] * g[d + 1]
    return g


REFERENCE = {"drift_rates": reference_rates, "correct_output_probability": reference_output}


def rates_certificate(n):
    q, p = reference_rates(n)
    parity = "even n: ties" if n % 2 == 0 else "odd n"
    return checks.Certificate(
        f"the rates for n = {n} ({parity})",
        (n,),
        verifier="drift_exact",
        params={"kind": "rates", "n": n, "q": q, "p": p},
    )


def output_certificate(name, q, p, threshold):
    q, p = [Fraction(v) for v in q], [Fraction(v) for v in p]
    return checks.Certificate(
        name,
        (q, p, threshold),
        verifier="drift_exact",
        params={"kind": "correct_output", "q": q, "p": p, "threshold": threshold},
    )


def chain_output(n, delta):
    """The chapter's chain of dimension n with the source's threshold T* = ceil(sqrt(pi n / 2) ln(1/delta))."""
    q, p = reference_rates(n)
    threshold = ol.confidence_threshold(n, delta)
    return output_certificate(f"the chain of n = {n}, T = T*(n, {delta}) = {threshold}", q, p, threshold)


def rate_certificates():
    """Seven dimensions, odd and even; from n = 25 on, listing the 2^n vertices is too slow for the grader."""
    return [rates_certificate(n) for n in (1, 2, 6, 9, 16, 25, 30)]


def output_certificates():
    """Three chains of the chapter (odd and even n) and four made-up chains (n = 1, q_d = 1, T = 1, rare mistakes)."""
    return [
        chain_output(5, 0.1),
        chain_output(8, 0.05),
        chain_output(11, 0.01),
        output_certificate("n = 1, q_1 = 1/3, T = 2", [Fraction(1, 3)], [1], 2),
        output_certificate(
            "every example a mistake (q_d = 1), n = 4, T = 3",
            [1] * 4,
            [Fraction(1, 3), Fraction(1, 2), Fraction(2, 3), 1],
            3,
        ),
        output_certificate(
            "T = 1, q_d = p_d = 1/2 (p_6 = 1), n = 6", [Fraction(1, 2)] * 6, [Fraction(1, 2)] * 5 + [1], 1
        ),
        output_certificate(
            "rare mistakes q_d = 1/1000, T = 20, n = 5",
            [Fraction(1, 1000)] * 5,
            [Fraction(d, 5) for d in range(1, 6)],
            20,
        ),
    ]


def certificates():
    """Every hidden instance of both parts, in the order ``grade`` checks them."""
    return rate_certificates() + output_certificates()


def public_checks():
    """The notebook's public checks, one section per part, recorded by `python -m booktools grade --write-public-checks`."""
    return {
        "drift_rates": {
            "title": "Assignment 15 (a), public checks",
            "certificates": [rates_certificate(3), rates_certificate(4)],
        },
        "correct_output_probability": {
            "title": "Assignment 15 (b), public checks",
            "certificates": [
                chain_output(3, 0.1),
                output_certificate("q = (1/2, 1), p = (1/4, 1), T = 2", [Fraction(1, 2), 1], [Fraction(1, 4), 1], 2),
            ],
        },
    }


def grade(student) -> checks.GradeReport:
    """(a) the rates, exact, half for q and half for p per dimension; (b) the D3 probabilities, verified exactly."""
    rates = checks.verify_certificates(student["drift_rates"], rate_certificates(), title=TITLE)
    return rates + checks.verify_certificates(student["correct_output_probability"], output_certificates())
