"""A module imported at its first use, for the compiled (numba) kernels.

Importing numba takes a good part of a second, and ``import onlinelib`` must not pay it
(``tests/test_package.py``). A module that calls compiled code therefore holds
``_kernels = LazyModule("onlinelib._kernels", globals(), "_kernels")``: the first attribute
lookup imports the module and puts it in that global's place, so later calls reach the
module directly and pay nothing.
"""

from __future__ import annotations

import importlib
from typing import Any


class LazyModule:
    """Stands for module ``module_name`` in ``namespace[global_name]`` until its first use."""

    def __init__(self, module_name: str, namespace: dict[str, Any], global_name: str):
        self._module_name = module_name
        self._namespace = namespace
        self._global_name = global_name

    def __getattr__(self, name: str) -> Any:
        module = importlib.import_module(self._module_name)
        self._namespace[self._global_name] = module
        return getattr(module, name)
