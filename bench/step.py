"""Step round trip: one session, many steps, resetting (untimed) when an episode ends."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from bench._stats import latency
from bench.backends import quiet
from bench.cold_start import MeasurementFailed
from bench.envs import BenchEnv, LocalEnv, load_env_class

if TYPE_CHECKING:
    from sandbox import Session

WARMUP_STEPS = 20


def inprocess(env: BenchEnv, samples: int) -> dict[str, float | int]:
    """The floor: the program's own ``step`` called in this process."""
    local = LocalEnv(load_env_class(env.source, env.name))
    local.reset(seed=0)
    durations: list[float] = []
    for t in range(WARMUP_STEPS + samples):
        action = env.action(t)
        started = time.perf_counter()
        _, _, terminated, truncated, _ = local.step(action)
        elapsed = time.perf_counter() - started
        if t >= WARMUP_STEPS:
            durations.append(elapsed)
        if terminated or truncated:
            local.reset()
    return latency(durations, 1e6)


def sandboxed(backend: str, env: BenchEnv, samples: int) -> dict[str, float | int]:
    """``Session.step`` from call to validated result, on one session of ``backend``."""
    from sandbox import Limits, Sandbox

    durations: list[float] = []
    with quiet(), Sandbox(backend, Limits(), warm=0) as sandbox:
        session = sandbox.open(env.source, env.name)
        try:
            if not session.loaded.ok:
                raise MeasurementFailed(
                    f"the program did not load: {session.loaded.outcome.value}: {session.loaded.detail}"
                )
            _reset(session, 0)
            for t in range(WARMUP_STEPS + samples):
                started = time.perf_counter()
                result = session.step(env.action(t))
                elapsed = time.perf_counter() - started
                if not result.ok and result.outcome.is_fatal:
                    raise MeasurementFailed(f"step {t} ended the session: {result.outcome.value}: {result.detail}")
                if t >= WARMUP_STEPS:
                    durations.append(elapsed)
                if result.terminated or result.truncated or not result.ok:
                    _reset(session, t + 1)
        finally:
            session.close()
    return latency(durations, 1e6)


def _reset(session: Session, seed: int) -> None:
    result = session.reset(seed=seed)
    if not result.ok:
        raise MeasurementFailed(f"reset failed: {result.outcome.value}: {result.detail}")
