import numpy as np


class HalvingLearner:
    """Concepts as rows of +1/-1 labels; V is the matrix of the rows still consistent."""

    def __init__(self, table):
        signs = np.where(np.asarray(table, dtype=bool), 1, -1)
        self.V = signs

    @property
    def size(self):
        return self.V.shape[0]

    def predict(self, x):
        total = self.V[:, x].sum()  # (#plus) - (#minus)
        return 1 if total >= 0 else -1

    def update(self, x, y):
        self.V = self.V[self.V[:, x] == y]
