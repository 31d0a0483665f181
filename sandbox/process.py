"""The ``process`` backend: an unisolated subprocess with rlimits, for development only.

It isolates NOTHING: the program can read your files, use the network and signal your processes.
Use it on machines without namespaces, to develop environments you wrote yourself.
"""

from __future__ import annotations

import resource
import sys
import warnings

from sandbox import _cgroup
from sandbox._guest import Channel, GuestProcess
from sandbox._runtime import GUEST_SOURCE
from sandbox.errors import BackendUnavailableError
from sandbox.limits import Limits
from sandbox.nsjail import GUEST_PYTHON_FLAGS, _runner_flags

NAME = "process"


class UnisolatedBackendWarning(UserWarning):
    """The process backend was used: the environment program is not isolated from this host."""


class ProcessBackend:
    """Starts guests as plain subprocesses with rlimits (and cgroups where the host has them)."""

    name = NAME
    isolated = False

    def __init__(self) -> None:
        if sys.version_info[:2] != (3, 12):
            raise BackendUnavailableError(NAME, "the guest runner needs Python 3.12")
        warnings.warn(
            "the 'process' backend isolates nothing: environment programs run with your user's "
            "rights, files and network; use it only for programs you trust",
            UnisolatedBackendWarning,
            stacklevel=3,
        )
        self.cgroups = _cgroup.v1_available()

    def spawn(self, limits: Limits) -> GuestProcess:
        channel = Channel()
        guest_in, guest_out = channel.guest_fds
        group = _cgroup.SessionCgroup.create(limits.memory_bytes, limits.processes) if self.cgroups else None
        argv = [sys.executable, *GUEST_PYTHON_FLAGS, str(GUEST_SOURCE), *_runner_flags(guest_in, guest_out, limits)]

        def confine() -> None:
            if group is not None:
                group.join()
            resource.setrlimit(resource.RLIMIT_CPU, (int(limits.cpu_seconds), int(limits.cpu_seconds) + 1))
            resource.setrlimit(resource.RLIMIT_AS, (limits.address_space_bytes, limits.address_space_bytes))
            resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))
            resource.setrlimit(resource.RLIMIT_NOFILE, (limits.open_files, limits.open_files))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

        return GuestProcess(
            backend=NAME,
            argv=argv,
            env={"PYTHONHASHSEED": "0"},
            channel=channel,
            limits=limits,
            cgroup=group,
            preexec_fn=confine,
            new_session=True,
        )
