import numpy as np


class HalvingLearner:
    """Halving as Weighted Majority with beta = 0: a wrong concept's weight drops to zero for good."""

    def __init__(self, table):
        self.labels = 2.0 * np.asarray(table, dtype=float) - 1.0
        self.weights = np.ones(self.labels.shape[0])
        self.size = int(self.weights.sum())

    def predict(self, x):
        score = float(self.weights @ self.labels[:, x])
        return -1 if score < 0 else 1

    def update(self, x, y):
        wrong = self.labels[:, x] != y
        self.weights[wrong] = 0.0
        self.size = int(np.count_nonzero(self.weights))
