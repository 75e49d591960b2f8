"""The chapters' kernels use the book's own IPython profile, ``_ext/ipython`` (issue 17).

Kernels inherit their environment from the process that starts them, so setting ``IPYTHONDIR``
here, when the build loads its extensions, gives every kernel myst-nb starts the profile in
``_ext/ipython/profile_default/ipython_kernel_config.py``: no reader's ``~/.ipython`` startup
file runs in a build, no history database is written, and ipykernel's per-notebook notice
"Kernel is running over TCP without encryption" (these kernels listen on 127.0.0.1 only) is
dropped while every other kernel message is kept. ``conftest.py`` does the same for nbval.
"""

import os
from pathlib import Path

PROFILE_DIR = Path(__file__).resolve().parent / "ipython"


def setup(app):
    os.environ["IPYTHONDIR"] = str(PROFILE_DIR)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
