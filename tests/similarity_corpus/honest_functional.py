import numpy as np


def majority_vote(column):
    """+1 when at least half of the entries are True (a tie counts as +1)."""
    return 1 if np.mean(column) >= 0.5 else -1


def consistent_with(column, label):
    return column if label == 1 else np.logical_not(column)


class HalvingLearner:
    def __init__(self, table):
        self.concepts = np.array(table, dtype=bool)
        self.V = np.full(len(self.concepts), True)

    def predict(self, x):
        return majority_vote(self.concepts[self.V][:, x])

    def update(self, x, y):
        self.V = np.logical_and(self.V, consistent_with(self.concepts[:, x], y))

    @property
    def size(self):
        return int(np.count_nonzero(self.V))
