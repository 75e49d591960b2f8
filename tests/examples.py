"""Small concept classes shared by several test modules."""

# Littlestone dimension 2, but an adversary forces Halving to 3 = floor(lg 8) mistakes,
# so Halving is not optimal on it (found by the search in chapter 1).
EIGHT = [
    [0, 1, 0, 1, 1],
    [1, 0, 0, 0, 1],
    [1, 0, 0, 1, 1],
    [1, 0, 1, 1, 0],
    [1, 0, 1, 1, 1],
    [1, 1, 0, 0, 0],
    [1, 1, 0, 1, 0],
    [1, 1, 1, 1, 0],
]
