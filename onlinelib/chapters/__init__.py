"""Each chapter's experiments and static figures, one module per chapter of the book.

The modules are named like the chapters' files in ``book/``; a module without a page is a part of
one, re-exported by it:

* ``mistake_bounds``: chapter 1, mistake bounds for finite classes;
* ``winnow1``: chapter 2, disjunctions and Winnow1;
* ``perceptron``: chapter 3, the Perceptron;
* ``winnow``: chapter 4, Winnow (with ``winnow_certificates``, its stored counterexample streams);
* ``experts``: chapter 5, prediction with expert advice;
* ``kernels``: chapter 6, Boolean kernels;
* ``directed_drift``: chapter 7, binary weights: Directed Drift (with ``directed_drift_bounds``, the
  batch modes' exact recursion and the union bounds of its two batch theorems);
* ``learning_curves``: chapter 8, learning curves.

A chapter imports its module as ``from onlinelib.chapters import winnow as chapter`` and calls
``chapter.race(...)``. Each experiment (``compare_*``, ``race``, ``theorem4_experiment``,
``batch_scaling``, ...) returns plain numbers, so tests can check it and the chapter can draw
its figure without a kernel; the interactive panels that redraw the same figures are in
``onlinelib.explorers``. The library itself (learners, streams, adversaries, observers, bounds)
is ``onlinelib``.
"""
