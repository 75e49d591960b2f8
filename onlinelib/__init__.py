"""onlinelib: the algorithms, streams, bounds and proof instruments of the course book
*Online Learning: Mistake Bounds, Proofs and Code*.

Modules are flat, one topic each; the most used names are re-exported here.
"""
from .bounds import (
    elimination_bound,
    halving_bound,
    harmonic_number,
    littlestone_bound,
    notes_winnow_bound,
    opt_upper_bounds,
    perceptron_bound,
    randomized_halving_bound,
    randomized_halving_recurrence,
    winnow1_bound,
    winnow2_bound,
)
from .concepts import ConceptClass, all_concepts, monotone_disjunctions, singletons, thresholds
from .linear import Elimination, Perceptron, Winnow1, Winnow2, as_sparse_rows
from .protocol import Learner, Trace, run
from .streams import (
    AdaptiveRun,
    adaptive_adversary,
    disjunction_stream,
    one_per_round_adversary,
    perceptron_lower_bound_stream,
    random_stream,
    separable_stream,
    winnow1_promotion_adversary,
)
from .version_space import (
    SOA,
    Halving,
    RandomizedHalving,
    littlestone_dimension,
    randomized_halving_expected_mistakes,
    simulate_randomized_halving,
    worst_case_mistakes,
)

__version__ = "0.1.0"

__all__ = [
    "adaptive_adversary",
    "AdaptiveRun",
    "all_concepts",
    "as_sparse_rows",
    "ConceptClass",
    "disjunction_stream",
    "Elimination",
    "elimination_bound",
    "Halving",
    "halving_bound",
    "harmonic_number",
    "Learner",
    "littlestone_bound",
    "littlestone_dimension",
    "monotone_disjunctions",
    "notes_winnow_bound",
    "one_per_round_adversary",
    "opt_upper_bounds",
    "Perceptron",
    "perceptron_bound",
    "perceptron_lower_bound_stream",
    "random_stream",
    "randomized_halving_bound",
    "randomized_halving_expected_mistakes",
    "randomized_halving_recurrence",
    "RandomizedHalving",
    "run",
    "separable_stream",
    "simulate_randomized_halving",
    "singletons",
    "SOA",
    "thresholds",
    "Trace",
    "Winnow1",
    "winnow1_bound",
    "winnow1_promotion_adversary",
    "Winnow2",
    "winnow2_bound",
    "worst_case_mistakes",
]
