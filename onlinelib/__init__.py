"""onlinelib: the algorithms, streams, bounds and proof instruments of the course book
*Online Learning: Mistake Bounds, Proofs and Code*.

Everything a chapter teaches you to call is re-exported here, so the chapters write
``import onlinelib as ol`` and ``ol.X``. The modules hold one topic each: learners
(``version_space``, ``linear``, ``pnorm``, ``experts``, ``ftrl``, ``aggregating``, ``kernels``, ``directed_drift``,
``learning_curves``), examples (``concepts``, ``streams``, ``adversaries``, ``hardness``),
theory (``bounds``, ``online_to_batch``), the protocol and its proof instruments
(``protocol``, ``observers``, ``validation``). Each chapter's experiments and figures are in
``onlinelib.chapters``, its interactive explorer in ``onlinelib.explorers``.
"""

import importlib as _importlib

from .adversaries import (
    AdaptiveRun,
    AdversaryResult,
    MarginAdversaryRun,
    adaptive_adversary,
    beam_adversary,
    elimination_adversary,
    exhaustive_adversary,
    margin_adversary,
    one_per_round_adversary,
    promotion_adversary,
    winnow1_adaptive_adversary,
    winnow1_promotion_adversary,
    wma_adversary,
)
from .aggregating import AggregatingRun, aggregating_log_loss, aggregating_square_loss
from .binary_weights import (
    clipped_hebb,
    clipped_hebb_agreement,
    clipped_hebb_overlap_limit,
    clipped_hebb_students,
    ehrenfest_mean,
    ehrenfest_return_times,
    ehrenfest_stationary,
    ehrenfest_transition,
    hebb_drift,
    kac_return_time,
    sign_disagreement,
)
from .bounds import (
    elimination_bound,
    exact_novikoff_bound,
    halving_bound,
    harmonic_number,
    hinge_losses,
    littlestone_bound,
    notes_winnow_bound,
    opt_upper_bounds,
    perceptron_bound,
    perceptron_hinge_bound,
    randomized_halving_bound,
    randomized_halving_recurrence,
    rwma_bound,
    rwma_bound_standard,
    rwma_tuned_regret_bound,
    tuned_eta,
    winnow1_bound,
    winnow2_bound,
    winnow2_margin_bound,
    wma_bound,
    wma_bound_standard,
)
from .concepts import ConceptClass, all_concepts, monotone_disjunctions, singletons, thresholds
from .directed_drift import (
    DirectedDrift,
    DirectedDriftChain,
    DriftRun,
    confidence_threshold,
    halfcube_size,
    multi_bit_batch_size,
)
from .experts import (
    ExpertsRun,
    RandomizedWeightedMajority,
    WeightedMajority,
    simulate_randomized_weighted_majority,
    weighted_majority_run,
)
from .float_vote import vote_error_bound
from .ftrl import (
    FTRLRun,
    entropic_ftrl,
    entropic_mirror_descent,
    entropic_objective,
    follow_perturbed_leader,
    follow_the_leader,
    ftpl_exponential_bound,
    small_loss_bound,
    small_loss_tuned_eta,
    small_loss_tuned_regret,
)
from .hardness import (
    MonomialWinnow,
    SetFamily,
    chernoff_upper_tail,
    clause_violation_histogram,
    constant_weight_family,
    count_2cnf,
    count_2cnf_by_threshold,
    counting_queries,
    counting_stream,
    counting_theta,
    intersection_tail,
    kwp_answer,
    lemma6_size,
    monomial_weight_exponents,
    recover_histogram,
    theorem4_condition,
    theorem4_max_size,
    theorem4_scores,
    theorem4_stream,
    threshold_instance,
)
from .kernels import (
    BooleanKernel,
    KernelPerceptron,
    all_conjunctions,
    bounded_conjunctions,
    max_margin_dual,
    monotone_bounded_conjunctions,
    monotone_monomials,
)
from .linear import Elimination, Perceptron, Winnow1, Winnow2, as_sparse_rows
from .observers import per_update, potential_observers, proof_observables
from .online_to_batch import hypothesis_errors, online_to_batch_bound
from .pnorm import PNormPerceptron, dual_exponent, pnorm_bound, pnorm_link
from .protocol import Learner, Trace, run
from .rkhs import (
    kdnf_mistake_bound,
    kernel_ridge_exact,
    online_to_batch_errors,
    online_to_batch_high_probability,
    psd_rank,
)
from .streams import (
    concept_experts,
    disjunction_stream,
    iid_experts,
    monotone_dnf_labels,
    monotone_dnf_stream,
    perceptron_lower_bound_stream,
    planted_best_expert,
    positive_halfcube,
    random_stream,
    separable_stream,
)
from .version_space import (
    SOA,
    Halving,
    RandomizedHalving,
    littlestone_dimension,
    randomized_halving_expected_mistakes,
    shatters,
    simulate_randomized_halving,
    vc_dimension,
    worst_case_mistakes,
)

# The version comes from the git tag (setuptools-scm, pyproject.toml) and is read on first use of
# ``ol.__version__`` from the installed metadata: importing importlib.metadata costs about 23 ms,
# a fifth of `import onlinelib`, which every chapter and every graded submission pays.
_DISTRIBUTION = "onlinelib-book"
_UNKNOWN_VERSION = "0+unknown"


def _version() -> str:
    """The installed distribution's version (from the git tag it was installed at), else ``"0+unknown"``
    (a copy that was never installed, such as the grader's: the library asks no git command)."""
    import importlib.metadata

    try:
        return importlib.metadata.version(_DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return _UNKNOWN_VERSION


# Chapter 8's names are loaded on first use: onlinelib.learning_curves needs scipy.integrate and
# scipy.optimize, which would double the time of `import onlinelib` (about 0.3 s more) for every
# other chapter and every graded submission.
_LEARNING_CURVES = (
    "angle_drift",
    "committee_covariance",
    "committee_error",
    "committee_rhs",
    "erf_i2",
    "erf_i3",
    "erf_i4",
    "fixed_point_error",
    "generalization_error",
    "greedy_drift",
    "greedy_learning_curve",
    "greedy_learning_rate",
    "integrate_committee",
    "integrate_noisy_order",
    "integrate_order_parameters",
    "integrate_R",
    "integrate_robust_linear",
    "modulation_averages",
    "noisy_error_batch",
    "noisy_generalization_error",
    "noisy_mean_drift",
    "noisy_optimal_drift",
    "noisy_order_rhs",
    "noisy_teacher_fisher_information",
    "normalized_perceptron_step",
    "ode_rhs",
    "one_step_drift",
    "ONLINE_RULES",
    "order_parameter_rhs",
    "parabola_error",
    "plain_noise_first_order",
    "plain_noisy_fixed_point",
    "power_schedule",
    "PowerSchedule",
    "robust_error_near_optimum",
    "robust_fixed_point",
    "robust_schedule",
    "robust_schedule_asymptote",
    "robust_shift",
    "rule_asymptotic_error",
    "schedule_asymptote",
    "simulate_normalized_perceptron",
    "simulate_order_parameters",
    "simulate_parabola",
    "small_eta_fixed_point",
)


def __getattr__(name: str):
    """``ol.X`` for a name of ``onlinelib.learning_curves``: import that module on first use;
    ``ol.__version__``: read the version on first use."""
    if name == "__version__":
        globals()[name] = value = _version()
        return value
    if name in _LEARNING_CURVES:
        value = getattr(_importlib.import_module(".learning_curves", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LEARNING_CURVES) | {"__version__"})


__all__ = [
    # protocol
    "Learner",
    "Trace",
    "run",
    # concepts
    "ConceptClass",
    "all_concepts",
    "monotone_disjunctions",
    "singletons",
    "thresholds",
    # streams
    "concept_experts",
    "disjunction_stream",
    "iid_experts",
    "monotone_dnf_labels",
    "monotone_dnf_stream",
    "perceptron_lower_bound_stream",
    "planted_best_expert",
    "positive_halfcube",
    "random_stream",
    "separable_stream",
    # adversaries
    "AdaptiveRun",
    "AdversaryResult",
    "MarginAdversaryRun",
    "adaptive_adversary",
    "beam_adversary",
    "elimination_adversary",
    "exhaustive_adversary",
    "margin_adversary",
    "one_per_round_adversary",
    "promotion_adversary",
    "winnow1_adaptive_adversary",
    "winnow1_promotion_adversary",
    "wma_adversary",
    # observers
    "per_update",
    "potential_observers",
    "proof_observables",
    # version_space (chapter 1)
    "SOA",
    "Halving",
    "RandomizedHalving",
    "littlestone_dimension",
    "randomized_halving_expected_mistakes",
    "shatters",
    "simulate_randomized_halving",
    "vc_dimension",
    "worst_case_mistakes",
    # online_to_batch (chapter 1)
    "hypothesis_errors",
    "online_to_batch_bound",
    # linear (chapters 2-4)
    "Elimination",
    "Perceptron",
    "Winnow1",
    "Winnow2",
    "as_sparse_rows",
    # pnorm (chapter 4)
    "PNormPerceptron",
    "dual_exponent",
    "pnorm_bound",
    "pnorm_link",
    # experts (chapter 5)
    "ExpertsRun",
    "RandomizedWeightedMajority",
    "WeightedMajority",
    "simulate_randomized_weighted_majority",
    "vote_error_bound",
    "weighted_majority_run",
    # ftrl and aggregating (chapter 5: small losses, FTRL, FTPL, the aggregating algorithm)
    "FTRLRun",
    "entropic_ftrl",
    "entropic_mirror_descent",
    "entropic_objective",
    "follow_perturbed_leader",
    "follow_the_leader",
    "ftpl_exponential_bound",
    "small_loss_bound",
    "small_loss_tuned_eta",
    "small_loss_tuned_regret",
    "AggregatingRun",
    "aggregating_log_loss",
    "aggregating_square_loss",
    # kernels (chapter 6)
    "BooleanKernel",
    "KernelPerceptron",
    "max_margin_dual",
    "all_conjunctions",
    "bounded_conjunctions",
    "monotone_bounded_conjunctions",
    "monotone_monomials",
    # rkhs (chapter 6: PSD kernels, the representer theorem, k-DNF, online to batch)
    "kdnf_mistake_bound",
    "kernel_ridge_exact",
    "online_to_batch_errors",
    "online_to_batch_high_probability",
    "psd_rank",
    # hardness (chapter 6)
    "MonomialWinnow",
    "SetFamily",
    "chernoff_upper_tail",
    "clause_violation_histogram",
    "constant_weight_family",
    "count_2cnf",
    "count_2cnf_by_threshold",
    "counting_queries",
    "counting_stream",
    "counting_theta",
    "intersection_tail",
    "kwp_answer",
    "lemma6_size",
    "monomial_weight_exponents",
    "recover_histogram",
    "theorem4_condition",
    "theorem4_max_size",
    "theorem4_scores",
    "theorem4_stream",
    "threshold_instance",
    # directed_drift (chapter 7)
    "DirectedDrift",
    "DirectedDriftChain",
    "DriftRun",
    "confidence_threshold",
    "halfcube_size",
    "multi_bit_batch_size",
    # binary_weights (chapter 7: clipped Hebb rule, Ehrenfest urn)
    "hebb_drift",
    "clipped_hebb",
    "clipped_hebb_students",
    "clipped_hebb_agreement",
    "clipped_hebb_overlap_limit",
    "sign_disagreement",
    "ehrenfest_transition",
    "ehrenfest_stationary",
    "ehrenfest_return_times",
    "kac_return_time",
    "ehrenfest_mean",
    # learning_curves (chapter 8), loaded on first use
    *_LEARNING_CURVES,
    # bounds
    "elimination_bound",
    "exact_novikoff_bound",
    "halving_bound",
    "harmonic_number",
    "hinge_losses",
    "littlestone_bound",
    "notes_winnow_bound",
    "opt_upper_bounds",
    "perceptron_bound",
    "perceptron_hinge_bound",
    "randomized_halving_bound",
    "randomized_halving_recurrence",
    "rwma_bound",
    "rwma_bound_standard",
    "rwma_tuned_regret_bound",
    "tuned_eta",
    "winnow1_bound",
    "winnow2_bound",
    "winnow2_margin_bound",
    "wma_bound",
    "wma_bound_standard",
]
