"""Isolation backends for untrusted environment programs, and the guest runner they share.

Imports stay light: no torch, no engine, no training.
"""

from sandbox.api import BACKENDS, DEFAULT_BACKEND, Sandbox, get_backend, open_session, shared_sandbox
from sandbox.errors import (
    BackendUnavailableError,
    InvalidLimitsError,
    InvalidRequestError,
    SessionClosedError,
    SpadeError,
    UnknownBackendError,
)
from sandbox.limits import Limits
from sandbox.outcome import CallResult, ErrorInfo, Outcome, Usage
from sandbox.session import Session

__all__ = [
    "BACKENDS",
    "DEFAULT_BACKEND",
    "BackendUnavailableError",
    "CallResult",
    "ErrorInfo",
    "InvalidLimitsError",
    "InvalidRequestError",
    "Limits",
    "Outcome",
    "Sandbox",
    "Session",
    "SessionClosedError",
    "SpadeError",
    "UnknownBackendError",
    "Usage",
    "get_backend",
    "open_session",
    "shared_sandbox",
]
