class HalvingLearner:
    """Version space as a plain list of concept numbers, updated with loops."""

    def __init__(self, table):
        self.rows = [list(map(bool, row)) for row in table]
        self.version_space = list(range(len(self.rows)))
        self.size = len(self.version_space)

    def predict(self, x):
        positive = 0
        negative = 0
        for c in self.version_space:
            if self.rows[c][x]:
                positive += 1
            else:
                negative += 1
        return 1 if positive >= negative else -1

    def update(self, x, y):
        wanted = y > 0
        survivors = []
        for c in self.version_space:
            if self.rows[c][x] == wanted:
                survivors.append(c)
        self.version_space = survivors
        self.size = len(survivors)
