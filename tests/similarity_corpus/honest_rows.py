from collections import Counter


class HalvingLearner:
    def __init__(self, table):
        # every concept kept as a tuple of its labels, duplicates allowed
        self.remaining = [tuple(bool(v) for v in concept) for concept in table]

    @property
    def size(self):
        return len(self.remaining)

    def predict(self, x):
        tally = Counter(concept[x] for concept in self.remaining)
        if tally[True] >= tally[False]:
            return +1
        return -1

    def update(self, x, y):
        label = True if y == 1 else False
        self.remaining = [concept for concept in self.remaining if concept[x] is label]
