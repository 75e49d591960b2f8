import numpy as np


class HalvingLearner:
    """Halving with a Boolean mask: in_v[c] says whether concept c is still in the version space."""

    def __init__(self, table):
        self._labels = np.array(table, dtype=bool, copy=True)
        n_concepts, _n_instances = self._labels.shape
        self._in_v = np.full(n_concepts, True)

    @property
    def size(self):
        return int(np.count_nonzero(self._in_v))

    def predict(self, x):
        says_plus = self._labels[:, x] & self._in_v
        if says_plus.sum() * 2 < self.size:
            return -1
        return 1

    def update(self, x, y):
        disagree = self._labels[:, x] != (y > 0)
        self._in_v[disagree] = False
