"""Cold start: from asking for a session to the program's loaded reply, as the caller sees it."""

from __future__ import annotations

import time

from bench._stats import latency
from bench.backends import quiet
from bench.envs import BenchEnv, load_env_class

WARM_WAIT_SECONDS = 30.0


class MeasurementFailed(RuntimeError):
    """A measurement could not produce figures; the message is the reason reported beside the null."""


def inprocess(env: BenchEnv, samples: int) -> dict[str, float | int]:
    """The floor: compile and exec the program here and make its env object (trusted examples only)."""
    durations = []
    for _ in range(samples):
        started = time.perf_counter()
        load_env_class(env.source, env.name)()
        durations.append(time.perf_counter() - started)
    return latency(durations, 1e3)


def _pool_full(sandbox: object) -> bool | None:
    """Whether the sandbox's warm pool holds all its guests (None where that cannot be seen)."""
    pool = getattr(sandbox, "_pool", None)
    ready, size = getattr(pool, "_ready", None), getattr(pool, "size", None)
    if ready is None or size is None:
        return None
    return len(ready) >= size


def _wait_warm(sandbox: object, pace: float) -> None:
    """Let the warm pool catch up before the next open (pace by time where its state is not visible)."""
    if _pool_full(sandbox) is None:
        time.sleep(pace)
        return
    deadline = time.monotonic() + WARM_WAIT_SECONDS
    while not _pool_full(sandbox):
        if time.monotonic() > deadline:
            raise MeasurementFailed(f"the warm pool did not refill within {WARM_WAIT_SECONDS:g} s")
        time.sleep(0.002)


def sandboxed(backend: str, env: BenchEnv, samples: int, warm: int = 0, pace: float = 0.25) -> dict[str, float | int]:
    """``Sandbox.open`` until the loaded reply, ``samples`` times; with ``warm`` > 0 each open waits
    (untimed) for the warm pool to be full again, so the figure is a warm open that the pool keeps up with."""
    from sandbox import Limits, Sandbox

    durations: list[float] = []
    failures: list[str] = []
    with quiet(), Sandbox(backend, Limits(), warm=warm) as sandbox:
        for _ in range(samples):
            if warm:
                _wait_warm(sandbox, pace)
            started = time.perf_counter()
            session = sandbox.open(env.source, env.name)
            elapsed = time.perf_counter() - started
            if session.loaded.ok:
                durations.append(elapsed)
            else:
                failures.append(f"{session.loaded.outcome.value}: {session.loaded.detail}")
            session.close()
    if not durations:
        raise MeasurementFailed(
            f"no session loaded ({len(failures)} failures; first: {failures[0][:300] if failures else '?'})"
        )
    figures = latency(durations, 1e3)
    if failures:
        figures["failures"] = len(failures)
    return figures
