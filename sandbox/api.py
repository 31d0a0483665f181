"""The public face of the sandbox: pick a backend, open sessions."""

from __future__ import annotations

import atexit
import threading
from types import TracebackType

from sandbox.errors import UnknownBackendError
from sandbox.limits import Limits
from sandbox.outcome import CallResult, Outcome
from sandbox.session import Session
from sandbox.warm import Backend, WarmPool

DEFAULT_BACKEND = "nsjail"


def _nsjail() -> Backend:
    from sandbox.nsjail import NsjailBackend

    return NsjailBackend()


def _process() -> Backend:
    from sandbox.process import ProcessBackend

    return ProcessBackend()


def _wasm() -> Backend:
    from sandbox.wasm import WasmBackend

    return WasmBackend()


BACKENDS = {"nsjail": _nsjail, "process": _process, "wasm": _wasm}


def get_backend(name: str) -> Backend:
    """Build a backend by name; raises UnknownBackendError or BackendUnavailableError."""
    factory = BACKENDS.get(name)
    if factory is None:
        raise UnknownBackendError(name, list(BACKENDS))
    return factory()


class Sandbox:
    """A backend with fixed limits and a warm pool; opens one fresh sandbox per session."""

    def __init__(self, backend: str = DEFAULT_BACKEND, limits: Limits | None = None, warm: int = 2) -> None:
        self.limits = limits or Limits()
        self.backend = get_backend(backend)
        self._pool = WarmPool(self.backend, self.limits, warm)

    @property
    def backend_name(self) -> str:
        return self.backend.name

    def open(self, source: str, filename: str = "<environment>") -> Session:
        """A session with ``source`` loaded; check ``session.loaded`` for the program's verdict."""
        guest = self._pool.take()
        return Session(guest, source, filename)

    def open_many(self, sources: list[tuple[str, str]]) -> list[Session]:
        """Sessions for several ``(source, filename)`` pairs; their sandboxes start in parallel."""
        guests = self._pool.take_many(len(sources))
        return [Session(guest, source, filename) for guest, (source, filename) in zip(guests, sources, strict=True)]

    def close(self) -> None:
        self._pool.close()

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


_shared: dict[tuple[str, Limits], Sandbox] = {}
_shared_lock = threading.Lock()


def shared_sandbox(backend: str = DEFAULT_BACKEND, limits: Limits | None = None) -> Sandbox:
    """A process-wide Sandbox per (backend, limits), closed at exit."""
    key = (backend, limits or Limits())
    with _shared_lock:
        if key not in _shared:
            _shared[key] = Sandbox(backend, key[1], warm=2)
        return _shared[key]


def open_session(source: str, *, backend: str = DEFAULT_BACKEND, limits: Limits | None = None, filename: str = "<environment>") -> Session:
    """Open one sandboxed session for ``source`` (see :class:`Session`)."""
    return shared_sandbox(backend, limits).open(source, filename)


@atexit.register
def _close_shared() -> None:
    for sandbox in list(_shared.values()):
        sandbox.close()
    _shared.clear()


__all__ = ["BACKENDS", "DEFAULT_BACKEND", "CallResult", "Outcome", "Sandbox", "get_backend", "open_session", "shared_sandbox"]
