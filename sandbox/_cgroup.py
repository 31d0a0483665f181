"""Per-session cgroups: a memory and a pids group that we own, so that limits and usage are exact.

nsjail puts each jail in a child group of the parent we name; we give that parent the session's
limits, so the kernel's verdict (an OOM kill) is counted in a group that outlives the jail.
Only cgroup v1 is implemented here; on other hosts sessions fall back to rlimits (``spade doctor``
says so).
"""

from __future__ import annotations

import contextlib
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path

V1_ROOT = Path("/sys/fs/cgroup")
PARENT = "NSJAIL"


def v1_available() -> bool:
    """True when the memory and pids v1 hierarchies exist and we can create groups in them."""
    for controller in ("memory", "pids"):
        base = V1_ROOT / controller
        if not (base / "cgroup.procs").exists():
            return False
        try:
            (base / PARENT).mkdir(exist_ok=True)
        except OSError:
            return False
    return True


def _write(path: Path, value: str) -> None:
    with open(path, "w") as handle:
        handle.write(value)


@dataclass
class SessionCgroup:
    """The memory and pids groups of one session (relative name under each controller's root)."""

    name: str
    memory_bytes: int
    processes: int
    _peak_fd: int | None = field(default=None, repr=False, compare=False)

    @classmethod
    def create(cls, memory_bytes: int, processes: int) -> SessionCgroup:
        group = cls(name=f"{PARENT}/spade-{os.getpid()}-{secrets.token_hex(6)}", memory_bytes=memory_bytes, processes=processes)
        memory, pids = group.memory_dir, group.pids_dir
        memory.mkdir()
        pids.mkdir()
        _write(memory / "memory.limit_in_bytes", str(memory_bytes))
        swap = memory / "memory.memsw.limit_in_bytes"
        if swap.exists():
            with contextlib.suppress(OSError):
                _write(swap, str(memory_bytes))
        _write(pids / "pids.max", str(processes))
        return group

    @property
    def memory_dir(self) -> Path:
        return V1_ROOT / "memory" / self.name

    @property
    def pids_dir(self) -> Path:
        return V1_ROOT / "pids" / self.name

    def join(self) -> None:
        """Move the calling process into both groups (run in the child before exec)."""
        for folder in (self.memory_dir, self.pids_dir):
            with open(folder / "cgroup.procs", "w") as handle:
                handle.write("0")

    def oom_kills(self) -> int:
        try:
            text = (self.memory_dir / "memory.oom_control").read_text()
        except OSError:
            return 0
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill":
                return int(value)
        return 0

    def limit_hits(self) -> int:
        """How often the group's memory limit was reached (v1 ``memory.failcnt``)."""
        try:
            return int((self.memory_dir / "memory.failcnt").read_text())
        except (OSError, ValueError):
            return 0

    def peak_memory(self) -> int | None:
        """Peak memory of the session; read on every call, so the file stays open (one pread)."""
        try:
            if self._peak_fd is None:
                self._peak_fd = os.open(self.memory_dir / "memory.max_usage_in_bytes", os.O_RDONLY)
            return int(os.pread(self._peak_fd, 32, 0))
        except (OSError, ValueError):
            return None

    def remove(self) -> None:
        """Remove both groups and any child group nsjail left behind."""
        if self._peak_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._peak_fd)
            self._peak_fd = None
        for base in (self.memory_dir, self.pids_dir):
            if not base.exists():
                continue
            for child in sorted(base.glob("*/"), reverse=True):
                with contextlib.suppress(OSError):
                    child.rmdir()
            with contextlib.suppress(OSError):
                base.rmdir()


def _owner_alive(name: str) -> bool:
    parts = name.split("-")
    if len(parts) < 3 or not parts[1].isdecimal():
        return True
    try:
        os.kill(int(parts[1]), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep_stale() -> int:
    """Remove session groups whose owning host process is gone (it was killed before it could
    clean up); empty groups only, so nothing running is touched.  Returns how many were removed."""
    removed = 0
    for controller in ("memory", "pids"):
        base = V1_ROOT / controller / PARENT
        if not base.is_dir():
            continue
        for group in base.glob("spade-*"):
            if _owner_alive(group.name):
                continue
            for child in sorted(group.glob("*/"), reverse=True):
                with contextlib.suppress(OSError):
                    child.rmdir()
            try:
                group.rmdir()
                removed += 1
            except OSError:
                pass
    return removed
