"""Typed errors for misuse of the engine's batched API."""

from __future__ import annotations

from sandbox.errors import SpadeError


class BatchSizeError(SpadeError, ValueError):
    """A batch argument has the wrong length."""


class UnknownEnvIdError(SpadeError, KeyError):
    """An env id that the pool does not hold."""

    def __init__(self, env_id: object, num_envs: int) -> None:
        super().__init__(f"unknown env id {env_id!r}; this pool holds ids 0..{num_envs - 1}")
        self.env_id = env_id


class PoolStateError(SpadeError, RuntimeError):
    """A verb was used in a state that does not allow it (for example step before reset)."""


class PoolClosedError(SpadeError, RuntimeError):
    """The pool was closed."""

    def __init__(self) -> None:
        super().__init__("the pool is closed; create a new EnvPool")
