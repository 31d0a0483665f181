"""Outcome types: what a call into a sandbox came to, as data."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Outcome(StrEnum):
    """How a call into a sandbox ended (DESIGN.md, "Outcomes")."""

    OK = "ok"
    ENV_ERROR = "env_error"
    TIMEOUT = "timeout"
    CPU_LIMIT = "cpu_limit"
    MEMORY_LIMIT = "memory_limit"
    OUTPUT_LIMIT = "output_limit"
    CRASHED = "crashed"
    PROTOCOL_ERROR = "protocol_error"
    SANDBOX_ERROR = "sandbox_error"

    @property
    def is_fatal(self) -> bool:
        """True when the session is dead after this outcome (everything but ok and env_error)."""
        return self not in (Outcome.OK, Outcome.ENV_ERROR)


@dataclass(frozen=True, slots=True)
class Usage:
    """What the session had used when the call ended; ``None`` where the host cannot tell."""

    wall_seconds: float
    cpu_seconds: float | None = None
    peak_memory_bytes: int | None = None


@dataclass(frozen=True, slots=True)
class ErrorInfo:
    """The program's exception (for ``env_error``) or what was malformed."""

    type: str
    message: str
    traceback: str | None = None


@dataclass(frozen=True, slots=True)
class CallResult:
    """The answer to one call: validated values when ``ok``, an outcome with detail otherwise."""

    op: str
    outcome: Outcome
    detail: str = ""
    observation: str | None = None
    reward: float | None = None
    terminated: bool | None = None
    truncated: bool | None = None
    info: dict[str, Any] = field(default_factory=dict)
    action: str | None = None
    error: ErrorInfo | None = None
    printed: str = ""
    usage: Usage = field(default_factory=lambda: Usage(wall_seconds=0.0))

    @property
    def ok(self) -> bool:
        return self.outcome is Outcome.OK

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready view, with the keys the CLI prints."""
        return {
            "call": self.op,
            "outcome": self.outcome.value,
            "observation": self.observation,
            "reward": self.reward,
            "terminated": self.terminated,
            "truncated": self.truncated,
            "info": self.info,
            "action": self.action,
            "detail": self.detail or None,
            "error": None
            if self.error is None
            else {"type": self.error.type, "message": self.error.message, "traceback": self.error.traceback},
            "printed": self.printed,
            "usage": {
                "wall_seconds": self.usage.wall_seconds,
                "cpu_seconds": self.usage.cpu_seconds,
                "peak_memory_bytes": self.usage.peak_memory_bytes,
            },
        }
