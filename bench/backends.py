"""Which sandbox backends can run here, and a quiet context for running them in a benchmark."""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator

BACKENDS = ("process", "nsjail", "wasm")
"""Measured in this order; one that cannot start here is reported as null with its reason."""


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Silence the warnings a benchmark triggers on purpose: the ``process`` backend's warning (we
    run only our own examples) and Python's fork-with-threads warning (AsyncVectorEnv forks)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*'process' backend isolates nothing")
        warnings.filterwarnings("ignore", category=DeprecationWarning, message=r".*fork\(\)")
        yield


def unavailable_reason(name: str) -> str | None:
    """None when ``name`` can start here, else why not (BackendUnavailableError's reason, or the import failure)."""
    from sandbox import BackendUnavailableError, get_backend

    try:
        with quiet():
            get_backend(name)
    except BackendUnavailableError as exc:
        return exc.reason
    except ImportError as exc:
        return f"backend module not importable ({exc})"
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def probe(names: tuple[str, ...] = BACKENDS) -> dict[str, str | None]:
    """Each backend's reason for being unavailable (None for a usable one)."""
    return {name: unavailable_reason(name) for name in names}
