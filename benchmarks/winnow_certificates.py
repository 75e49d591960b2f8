"""Chapter 4's stored counterexamples to the notes' Winnow bound: replay time against search time.

Run:  .venv/bin/python benchmarks/winnow_certificates.py          (about 40 s: repeats every search)
      .venv/bin/python benchmarks/winnow_certificates.py --smoke  (N <= 384 only)

The chapter replays the streams of ``onlinelib.chapters.winnow.NOTES_COUNTEREXAMPLES`` (found
offline by ``beam_adversary``) instead of searching while the page builds. For each stored
stream this prints the seconds of the exact replay (``replay_notes_counterexample``: rebuild
from the text, exact replay under both tie conventions, one floating-point run) and of the
search (``refind_notes_counterexample``), and whether the search finds the stored text again.
Asserts nothing about time.
"""

from __future__ import annotations

import sys
import time

from onlinelib.chapters import winnow as chapter


def main(smoke: bool) -> None:
    print(" alpha      N | mistakes  notes' bound | replay s | search s | same text")
    for alpha, n in chapter.NOTES_COUNTEREXAMPLES:
        if smoke and n > 384:
            continue
        start = time.perf_counter()
        replayed = chapter.replay_notes_counterexample(alpha, n)
        replay = time.perf_counter() - start
        start = time.perf_counter()
        text = chapter.refind_notes_counterexample(alpha, n)
        search = time.perf_counter() - start
        same = text == chapter.NOTES_COUNTEREXAMPLES[alpha, n][1]
        print(
            f"{alpha:6.2f} {n:6d} | {replayed.mistakes:8d} {replayed.notes_bound:13.2f} | {replay:8.2f} | "
            f"{search:8.2f} | {same}"
        )


if __name__ == "__main__":
    main("--smoke" in sys.argv[1:])
