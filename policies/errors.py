"""Errors a policy backend raises on purpose: each says what is wrong and what to do about it."""

from __future__ import annotations

from sandbox.errors import SpadeError


class PolicyError(SpadeError):
    """Root of every error raised by a language-model backend."""


class InvalidPolicySpecError(PolicyError, ValueError):
    """A policy spec string (as given on the command line) cannot be parsed."""


class ModelUnavailableError(PolicyError, RuntimeError):
    """A model cannot be found locally (models are never downloaded at run time)."""


class BackendNotInstalledError(PolicyError, ImportError):
    """An optional backend's package is missing; the message says how to install it."""


class PolicyServerUnavailableError(PolicyError, ConnectionError):
    """An OpenAI-compatible server could not be reached, even after retries."""

    def __init__(self, base_url: str, attempts: int, cause: BaseException) -> None:
        super().__init__(
            f"no answer from the OpenAI-compatible server at {base_url} after {attempts} attempt(s): "
            f"{type(cause).__name__}: {cause}; is it running, and is the URL right (it usually ends in /v1)?"
        )
        self.base_url = base_url
        self.attempts = attempts


class PolicyRequestError(PolicyError, RuntimeError):
    """The server answered, but refused the request (bad model name, bad parameters, server error)."""

    def __init__(self, base_url: str, status: int | None, message: str) -> None:
        super().__init__(f"the server at {base_url} refused the request (status {status}): {message}")
        self.base_url = base_url
        self.status = status
