"""Resource limits of one sandboxed session, as reviewed data."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

from sandbox.errors import InvalidLimitsError

MIB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Limits:
    """Limits enforced from outside the guest; every field can be overridden per session."""

    call_seconds: float = 5.0
    """Wall-clock seconds one call (load, reset, step, oracle) may take before the session is killed."""

    cpu_seconds: int = 30
    """CPU seconds the whole session may use (RLIMIT_CPU, or fuel in the wasm backend)."""

    session_seconds: int = 3600
    """Wall-clock lifetime of a session, including idle time between calls."""

    memory_bytes: int = 256 * MIB
    """Memory of the session: cgroup limit where the host has one, address-space limit otherwise."""

    address_space_bytes: int = 1024 * MIB
    """RLIMIT_AS of the guest (virtual memory; CPython reserves more than it touches)."""

    processes: int = 8
    """Tasks (processes and threads) the session may hold at once."""

    reply_bytes: int = 1 * MIB
    """Largest reply frame the host accepts; a larger one is an ``output_limit``."""

    output_bytes: int = 1 * MIB
    """Bytes the guest may write to its raw stdout/stderr file descriptors over the session."""

    print_bytes: int = 8192
    """Characters of ``print`` output kept per call (the rest is counted, not kept)."""

    traceback_chars: int = 8192
    """Characters of an ``env_error`` traceback kept."""

    file_bytes: int = 4 * MIB
    """Largest file the guest may write (RLIMIT_FSIZE), and the size of its ``/tmp``."""

    open_files: int = 32
    """Open file descriptors (RLIMIT_NOFILE)."""

    reward_bound: float = 1e6
    """Largest absolute reward accepted; beyond it a reply is a ``protocol_error``."""

    def __post_init__(self) -> None:
        for spec in fields(self):
            value = getattr(self, spec.name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise InvalidLimitsError(f"Limits.{spec.name} must be a number, got {value!r}")
            if not value > 0:
                raise InvalidLimitsError(f"Limits.{spec.name} must be positive, got {value!r}")
        if self.address_space_bytes < 64 * MIB:
            raise InvalidLimitsError("Limits.address_space_bytes below 64 MiB cannot start Python")
        if self.open_files < 8:
            raise InvalidLimitsError("Limits.open_files below 8 cannot run the guest runner")

    def with_overrides(self, **changes: float) -> Limits:
        """A copy with some fields changed (validated like the original)."""
        unknown = set(changes) - {spec.name for spec in fields(self)}
        if unknown:
            raise InvalidLimitsError(f"unknown limit(s): {', '.join(sorted(unknown))}")
        return replace(self, **changes)
