"""A session: one environment program alive in one sandbox for a whole episode (or several)."""

from __future__ import annotations

import time
from types import TracebackType
from typing import Any

from sandbox._guest import GuestProcess
from sandbox.errors import InvalidRequestError, SessionClosedError
from sandbox.outcome import CallResult, ErrorInfo, Outcome


class Session:
    """The verbs of one environment: ``reset``, ``step``, ``oracle``, ``close``.

    Every verb returns a :class:`CallResult`.  After a fatal outcome the sandbox is gone and further
    calls raise :class:`SessionClosedError`; an ``env_error`` leaves the session usable.
    """

    def __init__(self, guest: GuestProcess, source: str, filename: str = "<environment>") -> None:
        self._guest = guest
        self.backend = guest.backend
        self.limits = guest.limits
        self.opened_at = time.monotonic()
        if guest.death is not None:
            outcome, detail = guest.death
            self.loaded = CallResult(op="load", outcome=outcome, detail=detail)
        elif not _is_utf8_text(source):  # lone surrogates: no UTF-8 file can hold this program
            error = ErrorInfo(type="UnicodeEncodeError", message="the program is not valid UTF-8 text (it holds lone surrogates)")
            self.loaded = CallResult(op="load", outcome=Outcome.ENV_ERROR, detail=error.message, error=error)
        else:
            self.loaded = guest.call("load", {"op": "load", "source": source, "filename": filename})
        self._closed = False
        self.turns = 0

    # ---------------------------------------------------------------- what was loaded

    @property
    def env_class(self) -> str | None:
        return self.loaded.info.get("env_class")

    @property
    def hint(self) -> str | None:
        return self.loaded.info.get("hint")

    @property
    def max_turns(self) -> int | None:
        return self.loaded.info.get("max_turns")

    @property
    def has_oracle(self) -> bool:
        return bool(self.loaded.info.get("has_oracle"))

    @property
    def alive(self) -> bool:
        return not self._closed and self._guest.alive and self.loaded.ok

    @property
    def death(self) -> tuple[Outcome, str] | None:
        """The fatal outcome that ended the sandbox, if one did."""
        return self._guest.death

    # ---------------------------------------------------------------- verbs

    def reset(self, *, seed: int | None = None) -> CallResult:
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise InvalidRequestError(f"seed must be an int or None, got {type(seed).__name__}")
        self.turns = 0
        return self._call("reset", {"op": "reset", "seed": seed})

    def step(self, action: str) -> CallResult:
        if not isinstance(action, str):
            raise InvalidRequestError(f"action must be a str, got {type(action).__name__}")
        self.turns += 1
        return self._call("step", {"op": "step", "action": action})

    def oracle(self) -> CallResult:
        return self._call("oracle", {"op": "oracle"})

    def close(self) -> None:
        """End the sandbox; safe to call twice."""
        if not self._closed:
            self._closed = True
            self._guest.close()

    # ---------------------------------------------------------------- split calls (for pools)

    def begin(self, op: str, message: dict[str, Any]) -> CallResult | None:
        self._check_usable()
        if op == "step":
            self.turns += 1
        elif op == "reset":
            self.turns = 0
        return self._guest.begin(op, message)

    def finish(self, known_readable: bool = False) -> CallResult:
        return self._guest.finish(known_readable)

    @property
    def reply_fd(self) -> int:
        return self._guest.reply_fd

    @property
    def deadline(self) -> float:
        return self._guest.deadline

    # ---------------------------------------------------------------- internals

    def _check_usable(self) -> None:
        if self._closed:
            raise SessionClosedError("it was closed")
        if not self.loaded.ok:
            raise SessionClosedError(f"the program failed to load ({self.loaded.outcome.value}: {self.loaded.detail})")
        if self._guest.death is not None:
            outcome, detail = self._guest.death
            raise SessionClosedError(f"its sandbox ended with {outcome.value} ({detail})")

    def _call(self, op: str, message: dict[str, Any]) -> CallResult:
        self._check_usable()
        return self._guest.call(op, message)

    def __enter__(self) -> Session:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def __del__(self) -> None:
        if not getattr(self, "_closed", True):
            self.close()


def _is_utf8_text(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
