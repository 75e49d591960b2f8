"""onlinelib: the algorithms, streams, bounds and proof instruments of the course book
*Online Learning: Mistake Bounds, Proofs and Code*.

Modules are flat, one topic each; the most used names are re-exported here.
"""
from .bounds import (
    halving_bound,
    harmonic_number,
    littlestone_bound,
    opt_upper_bounds,
    randomized_halving_bound,
    randomized_halving_recurrence,
)
from .concepts import ConceptClass, all_concepts, monotone_disjunctions, singletons, thresholds
from .protocol import Learner, Trace, run
from .streams import AdaptiveRun, adaptive_adversary, one_per_round_adversary, random_stream
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
    "AdaptiveRun",
    "ConceptClass",
    "Halving",
    "Learner",
    "RandomizedHalving",
    "SOA",
    "Trace",
    "adaptive_adversary",
    "all_concepts",
    "halving_bound",
    "harmonic_number",
    "littlestone_bound",
    "littlestone_dimension",
    "monotone_disjunctions",
    "one_per_round_adversary",
    "opt_upper_bounds",
    "random_stream",
    "randomized_halving_bound",
    "randomized_halving_expected_mistakes",
    "randomized_halving_recurrence",
    "run",
    "simulate_randomized_halving",
    "singletons",
    "thresholds",
    "worst_case_mistakes",
]
