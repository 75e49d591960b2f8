import numpy as np


class _VersionSpace:
    """V_t for one class: a Boolean mask while dense, sorted indices once |V| <= |C|/16."""

    SPARSE_FRACTION = 16

    def __init__(self, by_instance):
        self.by_instance = by_instance
        self.n_concepts = by_instance.shape[1]
        self.mask = np.ones(self.n_concepts, dtype=bool)
        self.index = None
        self.size = self.n_concepts

    def members(self):
        """Sorted indices of the concepts in V."""
        return self.index if self.index is not None else np.flatnonzero(self.mask)

    def positives(self, x):
        """|{c in V : c(x) = +1}|."""
        col = self.by_instance[x]
        if self.mask is not None:
            return int(np.count_nonzero(self.mask & col))
        return int(np.count_nonzero(col[self.index]))

    def restrict(self, x, y):
        """Keep the concepts with c(x) = y; return how many were removed."""
        col = self.by_instance[x]
        if self.mask is not None:
            new_mask = self.mask & (col if y == 1 else ~col)
            new_size = int(np.count_nonzero(new_mask))
        else:
            keep = col[self.index]
            new_index = self.index[keep if y == 1 else ~keep]
            new_size = len(new_index)
        removed = self.size - new_size
        self.size = new_size
        if self.mask is None:
            self.index = new_index
        elif new_size * self.SPARSE_FRACTION <= self.n_concepts:
            self.mask, self.index = None, np.flatnonzero(new_mask)
        else:
            self.mask = new_mask
        return removed


def _majority(positives, size):
    """Halving's vote: +1 iff at least half of the |V| = size concepts say +1 (ties go to +1)."""
    return 1 if 2 * positives >= size else -1


class HalvingLearner:
    def __init__(self, table):
        self.space = _VersionSpace(np.array(np.asarray(table, dtype=bool).T))

    @property
    def size(self):
        return self.space.size

    def predict(self, x):
        return _majority(self.space.positives(x), self.size)

    def update(self, x, y):
        self.space.restrict(x, y)
