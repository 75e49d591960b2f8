"""Learning curves of the on-line perceptron (book chapter 8, "Learning curves").

Barkai, Seung and Sompolinsky, "On-line learning of dichotomies": a student
perceptron ``W`` (``|W| = 1``) learns a teacher ``W0`` (``|W0| = 1``) from
Gaussian examples ``S ~ N(U, I_N)`` with the normalized perceptron rule (Eq. 2)::

    W' = W + (eta/N) * eps(S; W) * sigma(S) * (S - T),     W <- W'/|W'|,

where ``eps = 1`` iff the student's sign differs from the label ``sigma``
(the source's OCR says the opposite; MATH.md section 2.1 erratum), ``T = 0``
for the plain rule and ``T`` = Eq. (13) for the noise-robust rule.

In the thermodynamic limit the overlap ``R = W.W0`` obeys the ODE of Eq. (4),

    dR/dalpha = (eta/sqrt(2 pi)) (1 - R^2) - (eta^2/(2 pi)) R arccos(R),

with ``alpha = t/N`` and generalization error ``eps_g = arccos(R)/pi`` (Eq. 3).
The package has seven parts; each imports only the ones listed before it, and
``__all__`` is theirs joined:

* ``theory``: ``generalization_error`` (Eq. 3), ``ode_rhs`` and ``integrate_R``
  (Eq. 4), ``fixed_point_error`` and ``small_eta_fixed_point`` (Eq. 5),
  ``schedule_asymptote`` (Eq. 6), and the learning-rate schedules
  ``constant_schedule`` and ``power_schedule``;
* ``simulation``: ``simulate_normalized_perceptron``, a Monte Carlo simulation
  of many independent runs advanced together, its one-example building block
  ``normalized_perceptron_step``, the single learner ``NormalizedPerceptron``
  and ``one_step_drift``;
* ``noise``: label noise and biased inputs (Section 3):
  ``noisy_generalization_error`` (Eq. 8), where the plain rule ends
  (``angle_drift``, ``plain_noisy_fixed_point``, Eq. 9), and the noise-robust
  rule (``robust_shift``, Eq. 13, ``NoiseRobustPerceptron`` and its theory,
  Eqs. 14-18);
* ``parabola``: the thresholded smooth function of Section 4
  (``parabola_labels``, ``parabola_error``, ``simulate_parabola``).
* ``order_parameters``: general on-line rules through ``rho = J.B/N`` and ``Q = |J|^2/N``:
  the modulation averages of Hebb, the perceptron and the AdaTron, their ODEs, large-alpha
  laws and exact reduced simulation; the greedy learning rate; the Fisher information of a
  teacher with Gaussian output noise (Cramer-Rao) and the optimal on-line drift;
* ``committee``: Saad and Solla's soft-committee ODEs with erf units (plateaus);
* ``noisy_order``: the noisy, shifted problem at finite eta: the mean step ``noisy_mean_drift``,
  Eq. (8) for arrays (``noisy_error_batch``) and the (R, q) ODE (``noisy_order_rhs``,
  ``integrate_noisy_order``).

Every public name is importable from here: ``from onlinelib.learning_curves
import integrate_R``. The equations are those reconstructed in MATH.md
sections 2.1 and 2.2.
"""

from . import committee, noise, noisy_order, order_parameters, parabola, simulation, theory
from .committee import (
    committee_covariance,
    committee_error,
    committee_rhs,
    erf_i2,
    erf_i3,
    erf_i4,
    integrate_committee,
)
from .noise import (
    NoiseRobustPerceptron,
    PlaneFixedPoint,
    angle_drift,
    integrate_robust_linear,
    noisy_generalization_error,
    plain_noise_first_order,
    plain_noisy_fixed_point,
    robust_error_near_optimum,
    robust_fixed_point,
    robust_schedule,
    robust_schedule_asymptote,
    robust_shift,
)
from .noisy_order import (
    integrate_noisy_order,
    noisy_error_batch,
    noisy_mean_drift,
    noisy_order_rhs,
)
from .order_parameters import (
    ONLINE_RULES,
    greedy_drift,
    greedy_learning_curve,
    greedy_learning_rate,
    integrate_order_parameters,
    modulation_averages,
    noisy_optimal_drift,
    noisy_teacher_fisher_information,
    order_parameter_rhs,
    rule_asymptotic_error,
    simulate_order_parameters,
)
from .parabola import (
    parabola_error,
    parabola_labels,
    simulate_parabola,
)
from .simulation import (
    NormalizedPerceptron,
    SimulationResult,
    normalized_perceptron_step,
    one_step_drift,
    simulate_normalized_perceptron,
)
from .theory import (
    ConstantSchedule,
    PowerSchedule,
    constant_schedule,
    fixed_point_error,
    generalization_error,
    integrate_R,
    ode_rhs,
    power_schedule,
    schedule_asymptote,
    small_eta_fixed_point,
)

__all__ = [
    *theory.__all__,
    *simulation.__all__,
    *noise.__all__,
    *parabola.__all__,
    *order_parameters.__all__,
    *committee.__all__,
    *noisy_order.__all__,
]
