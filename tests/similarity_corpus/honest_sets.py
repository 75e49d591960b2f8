import numpy as np


class HalvingLearner:
    def __init__(self, table):
        table = np.array(table, dtype=bool)
        # for each instance, the set of concepts that call it positive
        self._positive_on = [set(np.nonzero(table[:, i])[0].tolist()) for i in range(table.shape[1])]
        self._V = set(range(table.shape[0]))

    @property
    def size(self):
        return len(self._V)

    def predict(self, x):
        ones = len(self._V & self._positive_on[x])
        zeros = len(self._V) - ones
        return -1 if zeros > ones else 1

    def update(self, x, y):
        if y == 1:
            self._V &= self._positive_on[x]
        else:
            self._V -= self._positive_on[x]
