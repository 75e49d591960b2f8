# The IPython profile of the kernels that execute the chapters: the book's build sets IPYTHONDIR
# to _ext/ipython (_ext/kernel_profile.py) and so does conftest.py for nbval, so that a reader's
# own ~/.ipython (startup files, settings) cannot change a build or a test run.
# traitlets executes this file with `c`, the config object, already defined (pyproject.toml lets ruff
# accept the undefined name, F821, in this file only).
import logging


class WithoutTheTcpNotice(logging.Filter):
    """Drops one message, ipykernel 7's notice "Kernel is running over TCP without encryption".

    These kernels talk to the process that started them (myst-nb, nbval, nbclient) over the
    loopback interface (jupyter_client binds 127.0.0.1), on one machine, for the length of one
    notebook; the notice would otherwise be printed once per notebook, 15 times a build. The IPC
    transport would put socket files in each chapter's folder, shared by the two pytest workers.
    Every other kernel message is still shown.
    """

    def filter(self, record):
        return "Kernel is running over TCP without encryption" not in record.getMessage()


c.IPKernelApp.logging_config = {
    "filters": {"without_tcp_notice": {"()": WithoutTheTcpNotice}},
    "handlers": {"console": {"filters": ["without_tcp_notice"]}},
}
c.HistoryManager.enabled = False  # no history database written into the repository
