"""Hidden tests of Assignment 16, the learning curve with label noise (chapter 8, Learning curves).

Lecturer edition only: the student-edition builder removes ``book/assignments/**/lecturer/``.
Run by ``python -m booktools grade SUBMISSIONS --assignment learning_curve --out scores.csv``.

Three parts. (a) A written derivation (``QUESTIONS``, graded by hand): the overlap ODE of the
normalized perceptron (Eq. 2) when every label is flipped with probability p, on centred Gaussian
inputs, and its fixed point at a constant learning rate. (b) ``learning_curve`` (a function): the
generalization error eps_g(alpha) that the ODE gives, for the schedule eta(alpha) = eta min(1,
alpha^-z), compared at every requested alpha with the library's ODE solution
(``onlinelib.learning_curves.integrate_R`` with ``p``) on eight hidden (eta, z, p, R0). (c)
``residual_error`` (a function): the limit of eps_g at a constant eta, compared with the library's
fixed point (``fixed_point_error`` for p = 0, a root of the library's drift ``theory._rhs_d`` for
p > 0) at six hidden (eta, p). One point per case.

The tolerance, ``RTOL`` = 1e-4 relative on every returned number, sits between two measured gaps
(``tests/test_assignment_learning_curve.py`` measures both again):

* what an allowed method misses by. The notebook asks for a relative error of at most 1e-4 and
  names the methods that reach it. On the hidden cases: a hand-written RK4 with step 0.01,
  at most 4e-9; ``scipy.integrate.solve_ivp`` with rtol = 1e-10, atol = 1e-12 (RK45 or DOP853),
  at most 1e-8; even rtol = 1e-8, at most 5e-6; ``brentq``, bisection or a long integration for
  the fixed point, 1e-13 or better. The reference itself agrees with an independent DOP853
  integration (rtol 1e-13, split at the schedule's kink at alpha = 1) to 4e-10. The integrators that do not reach it fail, as the
  notebook says: ``solve_ivp`` at its default rtol = 1e-3 misses the optimal schedule's curve by
  more than half of eps_g at alpha = 200, Euler with step 1e-3 by 3e-4.
* what a derivation error costs. Each error the rubric lists, written as code (a missing factor 2
  in eta^2/(2 pi), sqrt(2/pi) for 1/sqrt(2 pi), the wrong sign of the eta^2 term, arcsin for
  arccos, the eta^2 term dropped, the -R h part of the step forgotten, (1 - p) for (1 - 2p), p left
  out of the mistake rate, the teacher's error reported instead of the noisy one) misses every curve
  it fails by at least 2.5e-2 relative, and every fixed point by at least 2.3e-3 (the smallest:
  arcsin for arccos in the mistake rate only, at eta = 1, p = 0.2), 23 times RTOL. The small-eta
  formulas of part (a) are not the fixed point: the closest hidden case is 1e-3 away (10 RTOL).

RTOL is about the geometric mean of the two gaps (5e-6 and 2.3e-3): an honest integrator at the
notebook's settings passes with a factor of 1e4 to spare (20 at the looser rtol = 1e-8), and no
derivation error comes within a factor of 20.

Every number the reference returns is computed with scalar ``math`` functions and ``scipy``'s
LSODA on a one-dimensional system, evaluated at the end of an integration (no dense-output
interpolation), so the recorded public checks are the same bits under every numpy dispatch
(``tests/test_reproducible.py``).

Keyed instances: none. The hidden (eta, z, p, R0) and (eta, p) are written out here and are the same under
every course key, so whoever reads this file knows them: keep it in a private folder (``--hidden-dir``) if
that matters.
"""

import math

from scipy import optimize

from booktools.grading import checks
from onlinelib.learning_curves import fixed_point_error, integrate_R, theory

PARTS = {"learning_curve": "function", "residual_error": "function"}
TITLE = "Assignment 16: the learning curve with label noise (chapter 8)"
RTOL = 1e-4  # relative, on every number returned (see the docstring for why)
ATOL = 1e-12
# What answers (b) and (c) directly: the overlap ODE's right-hand side (Eq. 4 with the noise p), its
# integrator (which the chapter's explorer calls, so explore_learning_curve fails too), the drift
# in d = 1 - R behind both, and the constant-eta fixed point. The small-eta formula
# small_eta_fixed_point, the Monte Carlo simulations and one_step_drift stay: none reaches RTOL
# (tests/test_assignment_learning_curve.py grades them as shortcuts and they fail).
FORBIDDEN = [
    "onlinelib.learning_curves.ode_rhs",
    "onlinelib.learning_curves.integrate_R",
    "onlinelib.learning_curves.fixed_point_error",
    "onlinelib.learning_curves.theory._rhs_d",
]

SQRT_2PI = math.sqrt(2.0 * math.pi)

DERIVATION_MODEL = r"""
**Setting.** $W, W_0$ are unit vectors, $R = W\cdot W_0$, $S \sim \mathcal N(0, I_N)$,
$h = W\cdot S$, $h_0 = W_0\cdot S$: standard normals with correlation $R$. The label is
$\sigma = \tau\sigma_0$ with $\sigma_0 = \operatorname{sgn} h_0$ and $\tau = -1$ with probability
$p$, independent of $S$ and of the past. The student errs, $\epsilon = 1$, iff
$\operatorname{sgn} h \ne \sigma$. Write $d = 1\{\operatorname{sgn} h \ne \operatorname{sgn} h_0\}$
(student and teacher disagree) and $g = h_0 - R h$.

**1. One step to order $1/N$.** With $c = \eta\epsilon\sigma/N$, $W' = W + cS$ has
$W'\cdot W_0 = R + c h_0$ and $|W'|^2 = 1 + 2ch + c^2|S|^2$, so

$$
R' = (R + c h_0)\Big(1 - ch - \tfrac12 c^2|S|^2 + \tfrac32 c^2h^2 + \dots\Big)
   = R + c\,(h_0 - R h) - \tfrac12 R\,c^2|S|^2 + O(N^{-2}) .
$$

Here $h, h_0 = O(1)$, so $c^2 h^2$ and $c^2 h h_0$ are $O(N^{-2})$, while $c^2|S|^2 =
\eta^2\epsilon|S|^2/N^2 = \eta^2\epsilon/N + O(N^{-3/2})$ because $\epsilon^2 = \epsilon$,
$\sigma^2 = 1$ and $|S|^2 = N + O(\sqrt N)$ (given $h, h_0$, the rest of $|S|^2$ is a
$\chi^2_{N-2}$ variable, independent of $\epsilon$). Taking expectations,

$$
N\,\mathbb E[R' - R \mid R] = \eta\,\mathbb E[\epsilon\sigma g] - \frac{\eta^2}{2}\,R\,\mathbb E[\epsilon] + O(1/N) .
$$

By rotational symmetry the law of $(h, h_0)$, hence of $R' - R$, depends on $W$ only through $R$;
as in the chapter, over $N\,d\alpha$ examples the mean change is $F(R)\,d\alpha$ with fluctuations
$O(\sqrt{d\alpha/N})$, so $dR/d\alpha = F(R)$, the right-hand side above, as $N \to \infty$.

**2. The noise.** On an unflipped example ($\tau = 1$, probability $1 - p$) $\epsilon = d$ and
$\sigma = \sigma_0$; on a flipped one ($\tau = -1$) the student errs exactly when it *agrees* with
the teacher, $\epsilon = 1 - d$ (ties have probability 0), and $\sigma = -\sigma_0$. Because
$\tau$ is independent of $S$,

$$
\mathbb E[\epsilon\sigma g] = (1-p)\,\mathbb E[d\sigma_0 g] - p\,\mathbb E[(1-d)\sigma_0 g]
 = D - pA, \qquad D = \mathbb E[d\sigma_0 g],\ A = \mathbb E[\sigma_0 g] .
$$

**3. The Gaussian integrals.** Write $h = R h_0 + \sqrt{1-R^2}\,z$ with $z$ independent of $h_0$.
Then $\mathbb E[\sigma_0 h_0] = \mathbb E|h_0| = \sqrt{2/\pi}$ and
$\mathbb E[\sigma_0 h] = R\sqrt{2/\pi}$, so $A = \sqrt{2/\pi}\,(1 - R^2)$. On a disagreement
$\sigma_0 h_0 = |h_0|$ and $\sigma_0 h = -|h|$, so $D = \mathbb E[d|h_0|] + R\,\mathbb E[d|h|]$.
With $a = \mathbb E[h_0 1\{h_0>0, h>0\}]$ and $b = \mathbb E[h_0 1\{h_0>0, h<0\}]$:
$a + b = \mathbb E[h_0 1\{h_0 > 0\}] = 1/\sqrt{2\pi}$ and, by the symmetry
$(h, h_0) \to (-h, -h_0)$, $a - b = \mathbb E[h_0 1\{h>0\}] = R\,\mathbb E[h 1\{h > 0\}] =
R/\sqrt{2\pi}$. Hence $\mathbb E[d|h_0|] = 2b = (1-R)/\sqrt{2\pi}$, the same for $|h|$ by
symmetry, and $D = (1-R)(1+R)/\sqrt{2\pi}$. Since $\sqrt{2/\pi} = 2/\sqrt{2\pi}$,

$$
\mathbb E[\epsilon\sigma g] = D - pA = (1 - 2p)\,\frac{1 - R^2}{\sqrt{2\pi}} .
$$

**4. The mistake rate and the ODE.** $\mathbb E[d] = \arccos(R)/\pi$ (the chapter's Eq. 3), so
$\mathbb E[\epsilon] = (1-p)\arccos(R)/\pi + p\,(1 - \arccos(R)/\pi) = p + (1-2p)\arccos(R)/\pi$,
which is also the generalization error $\epsilon_g$ measured against the (noisy) labels. Hence

$$
\frac{dR}{d\alpha} = (1-2p)\,\frac{\eta}{\sqrt{2\pi}}\,(1 - R^2)
  - \frac{\eta^2}{2}\,R\,\Big(p + (1-2p)\,\frac{\arccos R}{\pi}\Big) .
$$

Checks: $p = 0$ gives the chapter's Eq. 4. At $p = 1/2$ the labels carry no information: the
learning term vanishes, $\epsilon_g = 1/2$ whatever $R$, and $dR/d\alpha = -\eta^2 R/4$.

**5. The fixed point at constant $\eta > 0$.** For $R \in [-1, 0]$ both terms are $\ge 0$ and
not both zero, so $F > 0$: the student always leaves the anti-aligned half. At $R = 1$,
$F(1) = -\eta^2 p/2 < 0$ if $p > 0$; if $p = 0$, $F(1) = 0$, but with $R = \cos\theta$,
$F \approx \eta\theta^2/\sqrt{2\pi} - \eta^2\theta/(2\pi) < 0$ for small $\theta > 0$, so $R = 1$
repels from below and is never reached from $R_0 < 1$. For $\theta \in (0, \pi/2)$, $F = 0$ iff

$$
Q(\theta) := \frac{\sin^2\theta}{\cos\theta\,(p + c\theta)} = \frac{\eta\sqrt{2\pi}}{2(1-2p)},
\qquad c = \frac{1 - 2p}{\pi} ,
$$

and $(\log Q)' = \frac{1 + \cos^2\theta}{\sin\theta\cos\theta} - \frac{c}{p + c\theta} >
\frac{1}{\theta} - \frac{1}{\theta} = 0$ (as $\sin\theta\cos\theta < \theta$ and
$c/(p + c\theta) \le 1/\theta$). $Q$ increases from $0$ to $\infty$, so there is exactly one
root $\theta^* \in (0, \pi/2)$, $R^* = \cos\theta^*$, with $F > 0$ below it and $F < 0$ between
it and $1$: every start $R_0 \in [-1, 1)$ converges to it, and
$\epsilon_\infty = p + (1-2p)\,\theta^*/\pi$.

Small $\eta$: $\theta^* \to 0$, and with $\sin\theta \approx \theta$, $\cos\theta \approx 1$ the
fixed-point equation becomes $(1-2p)\theta^2/\sqrt{2\pi} = \frac{\eta}{2}(p + (1-2p)\theta/\pi)$.
For $p = 0$: $\theta^* \approx \eta/\sqrt{2\pi}$, $\epsilon_\infty \approx \eta/\sqrt{2\pi^3}$
(Eq. 5). For fixed $p > 0$ and $\eta \to 0$ the constant $p$ dominates $\theta/\pi$:
$\theta^{*2} \approx \eta p\sqrt{\pi/2}/(1-2p)$ and

$$
\epsilon_\infty - p \approx \frac{1}{\pi}\sqrt{p\,(1-2p)\,\eta\,\sqrt{\pi/2}} \;\propto\; \sqrt\eta .
$$

Why the law changes: without noise the renormalisation term carries the mistake rate, which
vanishes at $W = W_0$, so the equilibrium balances $\eta\theta^2$ against $\eta^2\theta$. With
noise the student keeps erring at rate $p$ even at $W = W_0$, every mistake kicks $W$ in a random
direction, and $\eta\theta^2$ balances $\eta^2 p$: $\theta \propto \sqrt\eta$. A constant rate
therefore costs much more with noise, and only a decreasing schedule reaches $\epsilon_g \to p$.
"""

QUESTIONS = [
    {
        "id": "noisy-ode",
        "title": "The overlap ODE with label noise, and its fixed point",
        "items": [
            {
                "id": "expansion",
                "points": 1,
                "text": "One step to order 1/N: N E[dR] = eta E[eps sigma (h0 - R h)] - (eta^2/2) R E[eps] + O(1/N)",
                "full": "Writes R' = (R + c h0)/|W + cS| with c = eta eps sigma/N and |W + cS|^2 = 1 + 2ch + "
                "c^2|S|^2, expands the inverse square root to second order, keeps c^2|S|^2 = eta^2 eps/N "
                "(saying why: eps^2 = eps, sigma^2 = 1, |S|^2 close to N) and drops c^2 h^2, c^2 h h0 as "
                "O(1/N^2) (h, h0 are O(1)); reaches both terms with their signs and the factor 1/2, with the "
                "noisy label sigma in the update, and says that the expectation depends on W only through R.",
                "half": "Both terms with the right signs and factors, but one justification missing: the sizes "
                "of the dropped terms not argued, |S|^2 = N used without comment on its fluctuation, or the "
                "reduction to R (rotational symmetry, or the law of (h, h0)) not stated; or the derivation "
                "done for the teacher's label sigma0 with no word on why the noisy sigma enters the same way.",
                "zero": "No expansion; or one that loses the second-order term, keeps a term of order 1, or "
                "gets a first-order term other than c (h0 - R h).",
                "errors": [
                    "Forgets the 1/2 of (1 + x)^(-1/2) = 1 - x/2 + ...: eta^2 R E[eps] instead of "
                    "(eta^2/2) R E[eps] (the missing factor 2; the ODE then has eta^2/pi for eta^2/(2 pi)). "
                    "At most half.",
                    "Drops the second-order term because c = O(1/N): but c^2|S|^2 is O(1/N) too, since "
                    "|S|^2 is about N. Zero.",
                    "Counts c^2 h^2 or c^2 h h0 as order 1/N (they are O(1/N^2)). Half, if the result is "
                    "otherwise right.",
                    "Gives the renormalisation term a + sign (it shrinks W's component along W0, pulling R "
                    "towards 0). At most half.",
                    "Updates with the teacher's label sigma0 instead of the label the student receives. Half "
                    "for this item (and the noise item cannot then be earned in full).",
                ],
            },
            {
                "id": "noise",
                "points": 1,
                "text": "Conditioning on the flip: E[eps sigma g] = (1-p) D - p (A - D) = D - p A, "
                "D = E[d sigma0 g], A = E[sigma0 g], g = h0 - R h, d = 1{student and teacher disagree}",
                "full": "Splits on the flip: unflipped (probability 1 - p) eps = d and sigma = sigma0; flipped "
                "(probability p) the student errs exactly when it agrees with the teacher, eps = 1 - d, and "
                "sigma = -sigma0; uses that the flip is independent of S (and of W) to factor the "
                "probabilities out; reaches D - pA.",
                "half": "The split is right and D - pA (or an equivalent) is reached, but independence is used "
                "without being stated; or one sign slips and is visibly corrected later; or the result is "
                "written only for a particular R.",
                "zero": "No conditioning on the flip; or flipped examples treated as unflipped; or a result "
                "other than D - pA that is not repaired.",
                "errors": [
                    "Lets flipped examples contribute nothing ('the student cannot learn from a wrong label'): "
                    "(1 - p) D, which after item 3 gives (1 - p) in place of (1 - 2p). At most half.",
                    "On a flipped example takes eps = d (the student's disagreement with the teacher) instead "
                    "of 1 - d. Zero.",
                    "Forgets the sign sigma = -sigma0 on flipped examples: (1 - p) D + p (A - D). At most half.",
                    "Uses the independence of the flip and S without saying so. At most half.",
                ],
            },
            {
                "id": "gaussian",
                "points": 1,
                "text": "The Gaussian integrals: A = sqrt(2/pi)(1 - R^2), D = (1 - R^2)/sqrt(2 pi), so the "
                "learning term is (1 - 2p)(1 - R^2)/sqrt(2 pi)",
                "full": "Computes A from E|h0| = sqrt(2/pi) and E[sgn(h0) h] = R sqrt(2/pi) (e.g. h = R h0 + "
                "sqrt(1 - R^2) z); computes D from sigma0 h0 = |h0|, sigma0 h = -|h| on a disagreement and "
                "E[d|h0|] = E[d|h|] = (1 - R)/sqrt(2 pi), derived (e.g. the split a + b, a - b of the "
                "chapter's proof, or polar coordinates) or cited precisely from the chapter's proof of the "
                "noise-free ODE; combines with sqrt(2/pi) = 2/sqrt(2 pi) into (1 - 2p)(1 - R^2)/sqrt(2 pi).",
                "half": "One of A and D right and justified, the other right but asserted without any "
                "argument or citation; or both right and the combination into (1 - 2p) slips.",
                "zero": "A or D wrong and the error carried into the ODE; or neither computed.",
                "errors": [
                    "E|h0| = 1/sqrt(2 pi) (the half-line integral of h phi(h), without doubling it): A = D and "
                    "a learning term (1 - p)(1 - R^2)/sqrt(2 pi). At most half.",
                    "sqrt(2/pi) and 1/sqrt(2 pi) swapped in D: the learning term doubles. Zero.",
                    "Takes sigma0 h = +|h| on a disagreement: D = (1 - R)^2/sqrt(2 pi). Zero.",
                    "Forgets the -R h part of g (the first-order part of the renormalisation): D = (1 - R)/"
                    "sqrt(2 pi), A = sqrt(2/pi), a learning term (1 - R - 2p)/sqrt(2 pi). Zero.",
                    "Quotes D from the chapter for the noisy rule without noting that it is the noise-free "
                    "expectation E[d sigma0 g] (the chapter's eps is d). At most half.",
                ],
            },
            {
                "id": "mistake-rate",
                "points": 1,
                "text": "E[eps] = p + (1 - 2p) arccos(R)/pi (= eps_g against the noisy labels); the ODE "
                "dR/dalpha = (1-2p)(eta/sqrt(2 pi))(1 - R^2) - (eta^2/2) R (p + (1-2p) arccos(R)/pi), "
                "checked at p = 0",
                "full": "Derives E[eps] = (1 - p) arccos(R)/pi + p (1 - arccos(R)/pi) from the chapter's "
                "E[d] = arccos(R)/pi and the same split on the flip; states that eps_g is this expression; "
                "assembles the ODE with every sign and factor right; checks that p = 0 gives Eq. 4 (and, "
                "ideally, that p = 1/2 gives dR/dalpha = -eta^2 R/4, eps_g = 1/2).",
                "half": "The ODE right but E[eps] asserted without the split, or the check of p = 0 missing, "
                "or eps_g stated inconsistently with E[eps].",
                "zero": "E[eps] wrong in the ODE (for instance arccos(R)/pi, the teacher's disagreement, or "
                "arcsin), or no assembled ODE.",
                "errors": [
                    "E[eps] = arccos(R)/pi, the teacher's disagreement, in the eta^2 term: the noise then "
                    "never keeps R below 1 when eta -> 0 slowly. Zero.",
                    "E[eps] = p + (1 - p) arccos(R)/pi (on a flipped example the student errs when it agrees "
                    "with the teacher, probability 1 - arccos(R)/pi, not always). Zero.",
                    "arcsin(R)/pi for arccos(R)/pi (the angle between W and W0 is arccos R; arcsin R is its "
                    "complement). Zero.",
                    "Reports eps_g as the teacher's disagreement arccos(R)/pi while the question defines it "
                    "against the labels the student sees. Half.",
                    "No check against Eq. 4 at p = 0. At most half.",
                ],
            },
            {
                "id": "fixed-point",
                "points": 1,
                "text": "Constant eta: one stable fixed point R* in (0, 1) (R = 1 is a root only for p = 0, "
                "and repels from below); eps_inf ~ eta/sqrt(2 pi^3) for p = 0 and eps_inf - p ~ "
                "(1/pi) sqrt(p (1-2p) eta sqrt(pi/2)), proportional to sqrt(eta), for fixed p > 0",
                "full": "Shows F > 0 on [-1, 0] and F < 0 near 1 (F(1) = -eta^2 p/2 for p > 0; for p = 0 the "
                "sign of F just below 1, so R = 1 is not reached from R0 < 1), hence a root in (0, 1); "
                "argues uniqueness (e.g. a monotone ratio in theta = arccos R, or a stated numerical check "
                "over a grid of eta and p), hence stability and convergence from every start; derives both "
                "small-eta laws from the small-angle equation, with the constant, and explains why noise "
                "turns eta into sqrt(eta) (the eta^2 term no longer vanishes at R = 1).",
                "half": "Both small-eta laws right, but existence or uniqueness not argued; or the fixed point "
                "located and its stability argued, but one small-eta law wrong or without its constant; or "
                "no explanation of the sqrt(eta) law.",
                "zero": "R = 1 taken as the limit for p = 0; or no fixed point located; or both small-eta laws wrong.",
                "errors": [
                    "Takes R = 1 as the fixed point for p = 0 because it is a root of F: F < 0 just below it, "
                    "so it repels and the student never gets there from R0 < 1. Zero.",
                    "Keeps theta/pi against p (or drops p) as eta -> 0 for p > 0, so that eps_inf - p comes "
                    "out proportional to eta. At most half.",
                    "Forgets the factor (1 - 2p) when turning theta* into eps_inf = p + (1 - 2p) theta*/pi. "
                    "At most half.",
                    "Asserts that the root is unique without any argument or check. At most half.",
                    "Linearises in R - R* around a wrong point (R = 1 when p > 0, where F(1) != 0). At most half.",
                ],
            },
        ],
        "model": DERIVATION_MODEL,
    }
]


def _schedule(eta, z):
    """eta(alpha) = eta for alpha <= 1 and eta alpha^-z after (scalar math: the same bits everywhere)."""
    if z == 0:
        return float(eta)

    def rate(alpha):
        return eta if alpha <= 1.0 else eta * alpha ** (-z)

    return rate


def _eps_g(R, p):
    """The error against the noisy labels, p + (1 - 2p) arccos(R)/pi (MATH.md section 2.1, Eq. 3 with noise)."""
    return p + (1.0 - 2.0 * p) * math.acos(min(1.0, max(-1.0, R))) / math.pi


def reference_curve(alphas, eta, z=0.0, p=0.0, R0=0.0):
    """eps_g at each alpha: the library's ODE (``integrate_R``, Eq. 4 with the noise p) from R0 at alpha = 0.

    Each alpha is integrated from 0 on its own, so the value is the integrator's own end point, not
    a dense-output interpolation (whose small dot products round by the BLAS kernel).
    """
    alphas = [float(a) for a in alphas]
    schedule = _schedule(float(eta), float(z))
    out = []
    for alpha in alphas:
        R = R0 if alpha == 0.0 else float(integrate_R([alpha], schedule, R0, p=p)[0])
        out.append(_eps_g(R, p))
    return out


def reference_residual(eta, p=0.0):
    """The limit of eps_g at constant eta: ``fixed_point_error`` (p = 0), or the root in d = 1 - R of the
    library's drift ``theory._rhs_d`` (p > 0; it is positive at d = 0 and negative at d = 1)."""
    eta, p = float(eta), float(p)
    if p == 0.0:
        return fixed_point_error(eta)
    d = optimize.brentq(
        lambda d: theory._rhs_d(d, eta, p), 0.0, 1.0, xtol=1e-300, rtol=4 * 2.220446049250313e-16, maxiter=500
    )
    return p + (1.0 - 2.0 * p) * 2.0 * math.asin(math.sqrt(d / 2.0)) / math.pi


REFERENCE = {"learning_curve": reference_curve, "residual_error": reference_residual}

OPTIMAL = 2.0 * SQRT_2PI  # eta0 = 2 of Eq. 6: eta = 2 sqrt(2 pi)/alpha after alpha = 1


def curve_cases():
    """Eight (eta, z, p, R0), each with its alphas: constant rates, the chapter's schedules, noise, odd starts.

    The one-condition slips each fail only some: (1 - p) or the teacher's error only the four with
    p > 0; a schedule ignored or inverted only the four with z > 0; a start ignored only the four with R0 != 0.
    """
    return [
        checks.Case(
            "constant eta = 1, no noise, from R0 = 0 (Eq. 4)", ([0.0, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 30.0], 1.0)
        ),
        checks.Case(
            "constant eta = 2 from R0 = 0.99: too large a rate unlearns",
            ([0.0, 0.25, 1.0, 3.0, 10.0, 40.0], 2.0),
            {"R0": 0.99},
        ),
        checks.Case("constant eta = 1, p = 0.1, from R0 = 0", ([0.0, 1.0, 2.0, 5.0, 10.0, 25.0], 1.0), {"p": 0.1}),
        checks.Case(
            "constant eta = 0.3, p = 0.25, from R0 = -0.5 (an anti-aligned start)",
            ([0.0, 1.0, 4.0, 16.0, 64.0], 0.3),
            {"p": 0.25, "R0": -0.5},
        ),
        checks.Case(
            "the optimal schedule eta = 2 sqrt(2 pi) min(1, 1/alpha), no noise (Eq. 6)",
            ([0.5, 1.0, 2.0, 10.0, 50.0, 200.0], OPTIMAL),
            {"z": 1.0},
        ),
        checks.Case(
            "eta = 1.5 min(1, alpha^-1/2), p = 0.1 (adiabatic)",
            ([1.0, 3.0, 10.0, 30.0, 100.0], 1.5),
            {"z": 0.5, "p": 0.1},
        ),
        checks.Case(
            "eta = 3 min(1, alpha^-2) from R0 = 0.3: the student freezes",
            ([1.0, 2.0, 5.0, 20.0, 100.0], 3.0),
            {"z": 2.0, "R0": 0.3},
        ),
        checks.Case(
            "the optimal schedule with p = 0.05: eps_g approaches p slowly",
            ([1.0, 10.0, 100.0, 200.0], OPTIMAL),
            {"z": 1.0, "p": 0.05},
        ),
    ]


def residual_cases():
    """Six (eta, p): three without noise (where R = 1 is a root but not the limit), three with.

    The small-eta formulas of the derivation miss each by 1e-3 relative or more (10 RTOL).
    """
    return [
        checks.Case("eta = 0.2, no noise: not the root R = 1", (0.2,)),
        checks.Case("eta = 1, no noise", (1.0,)),
        checks.Case("eta = 3, no noise: far from the small-eta law", (3.0,)),
        checks.Case("eta = 0.2, p = 0.05", (0.2,), {"p": 0.05}),
        checks.Case("eta = 1, p = 0.2", (1.0,), {"p": 0.2}),
        checks.Case("eta = 0.5, p = 0.4: nearly no information", (0.5,), {"p": 0.4}),
    ]


def public_checks():
    """The notebook's public checks, one section per part (recorded into learning_curve_public.json)."""
    return {
        "learning_curve": {
            "title": "Assignment 16 (b), public checks (relative tolerance 1e-4)",
            "cases": [
                checks.Case("constant eta = 1, no noise, from R0 = 0", ([0.0, 1.0, 2.0, 5.0, 10.0], 1.0)),
                checks.Case(
                    "constant eta = 0.5, p = 0.2, from R0 = 0.5", ([0.0, 2.0, 5.0, 20.0], 0.5), {"p": 0.2, "R0": 0.5}
                ),
                checks.Case("eta = 4 min(1, 1/alpha), no noise", ([0.0, 1.0, 10.0, 100.0], 4.0), {"z": 1.0}),
            ],
        },
        "residual_error": {
            "title": "Assignment 16 (c), public checks (relative tolerance 1e-4)",
            "cases": [
                checks.Case("eta = 0.5, no noise", (0.5,)),
                checks.Case("eta = 0.3, p = 0.1", (0.3,), {"p": 0.1}),
            ],
        },
    }


def grade(student) -> checks.GradeReport:
    """(b) every eps_g(alpha) of every curve within RTOL; (c) every limit within RTOL. One point per case."""
    curve = checks.compare_functions(
        student["learning_curve"], REFERENCE["learning_curve"], curve_cases(), rtol=RTOL, atol=ATOL, title=TITLE
    )
    residual = checks.compare_functions(
        student["residual_error"], REFERENCE["residual_error"], residual_cases(), rtol=RTOL, atol=ATOL
    )
    return curve + residual
