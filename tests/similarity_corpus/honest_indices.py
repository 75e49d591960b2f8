import numpy as np


class HalvingLearner:
    """Keeps the indices of the consistent concepts in a numpy array."""

    def __init__(self, table):
        self.T = np.asarray(table).astype(bool)
        self.idx = np.arange(self.T.shape[0])

    @property
    def size(self):
        return self.idx.size

    def predict(self, x):
        labels = self.T[self.idx, x]
        n_pos = labels.sum()
        n_neg = len(labels) - n_pos
        return int(np.where(n_pos >= n_neg, 1, -1))

    def update(self, x, y):
        keep = self.T[self.idx, x] == bool(y == 1)
        self.idx = self.idx[keep]
