"""Shared fixtures: real sandboxes only.  A backend that cannot run here is a skip with its reason
on a developer's machine, and a failure under CI (CI=true), where every backend must be present."""

from __future__ import annotations

import os
import textwrap
from collections.abc import Callable, Iterator

import pytest

from sandbox import BackendUnavailableError, Limits, Sandbox, Session

ISOLATED_BACKENDS = ["nsjail", "wasm"]


def _require(backend: str) -> None:
    from sandbox.api import get_backend

    try:
        get_backend(backend)
    except BackendUnavailableError as exc:
        if os.environ.get("CI"):
            pytest.fail(f"CI must provide the {backend} backend: {exc.reason}")
        pytest.skip(f"{backend} backend unavailable here: {exc.reason}")


@pytest.fixture(params=ISOLATED_BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    _require(request.param)
    return request.param


@pytest.fixture
def open_env(backend: str) -> Iterator[Callable[..., Session]]:
    """Open a session for a program in a fresh sandbox of ``backend``; limits may be tightened per call."""
    sandboxes: list[Sandbox] = []
    sessions: list[Session] = []

    def opener(source: str, **limits: float) -> Session:
        sandbox = Sandbox(backend, Limits(**limits), warm=0)
        sandboxes.append(sandbox)
        session = sandbox.open(textwrap.dedent(source))
        sessions.append(session)
        return session

    yield opener
    for session in sessions:
        session.close()
    for sandbox in sandboxes:
        sandbox.close()
