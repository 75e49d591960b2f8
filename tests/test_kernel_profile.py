"""The chapters' kernels run with the book's IPython profile, _ext/ipython (issue 17).

Its kernel config drops ipykernel's per-notebook notice "Kernel is running over TCP without
encryption" (the kernels listen on 127.0.0.1 only) and keeps every other kernel message. The
control run, with an empty profile, shows that the notice is there to drop.
"""

import os
from pathlib import Path

from jupyter_client.manager import KernelManager

ROOT = Path(__file__).resolve().parents[1]
PROFILE = ROOT / "_ext" / "ipython"
NOTICE = "Kernel is running over TCP without encryption"


def _kernel_log(ipythondir: Path, tmp_path: Path) -> str:
    """What a python3 kernel prints on stderr while it logs one warning of its own."""
    log_path = tmp_path / f"kernel-{ipythondir.name}.log"
    with open(log_path, "w") as log:
        km = KernelManager(kernel_name="python3")
        km.start_kernel(stderr=log, env={**os.environ, "IPYTHONDIR": str(ipythondir)})
        kc = km.client()
        try:
            kc.start_channels()
            kc.wait_for_ready(timeout=60)
            kc.execute_interactive(
                "from ipykernel.kernelapp import IPKernelApp\n"
                "IPKernelApp.instance().log.warning('a kernel warning that stays')",
                timeout=60,
            )
        finally:
            kc.stop_channels()
            km.shutdown_kernel(now=True)
    return log_path.read_text()


def test_the_profile_drops_the_tcp_notice_and_keeps_other_warnings(tmp_path):
    empty = tmp_path / "empty-profile"
    empty.mkdir()
    control = _kernel_log(empty, tmp_path)
    assert NOTICE in control and "a kernel warning that stays" in control
    book = _kernel_log(PROFILE, tmp_path)
    assert NOTICE not in book
    assert "a kernel warning that stays" in book


def test_the_build_and_nbval_start_kernels_with_the_profile():
    """conftest.py sets it for this process (nbval's kernels inherit it); the build's extension too."""
    assert os.environ["IPYTHONDIR"] == str(PROFILE)
    assert "kernel_profile: _ext" in (ROOT / "_config.yml").read_text(encoding="utf-8")
