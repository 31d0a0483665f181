"""Exceptions for misuse of SPADE's own API.

What untrusted code does wrong is never an exception: it is an :class:`~sandbox.outcome.Outcome`
in a result.  These errors are for the caller's mistakes and for a host that cannot sandbox.
"""

from __future__ import annotations


class SpadeError(Exception):
    """Root of every error SPADE raises on purpose."""


class InvalidLimitsError(SpadeError, ValueError):
    """A :class:`~sandbox.limits.Limits` value is out of range."""


class UnknownBackendError(SpadeError, ValueError):
    """The backend name is not one of the registered backends."""

    def __init__(self, name: str, known: list[str]) -> None:
        super().__init__(f"unknown backend {name!r}; choose one of {', '.join(sorted(known))}")
        self.name = name
        self.known = known


class BackendUnavailableError(SpadeError, RuntimeError):
    """The backend cannot run on this host; ``reason`` says what to fix."""

    def __init__(self, backend: str, reason: str) -> None:
        super().__init__(f"backend {backend!r} is unavailable: {reason}")
        self.backend = backend
        self.reason = reason


class SessionClosedError(SpadeError, RuntimeError):
    """A call was made on a session that was closed or whose sandbox died."""

    def __init__(self, why: str) -> None:
        super().__init__(f"session is not usable: {why}; open a new session")
        self.why = why


class InvalidRequestError(SpadeError, TypeError):
    """A request to the guest has the wrong type (for example an action that is not a str)."""
