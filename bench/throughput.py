"""Batched throughput in steps per second: every implementation steps the same programs with the same policy.

A "step" is one environment's transition in a batched call; an environment whose episode ended resets
on its next step instead (Gymnasium's NEXT_STEP auto-reset, EnvPool's ``auto_reset=True``), and that
reset counts as its step, for every implementation alike.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from bench._stats import median
from bench.backends import quiet
from bench.envs import DEFAULT_MAX_TURNS, BenchEnv

if TYPE_CHECKING:
    from engine.pool import Batch

WARMUP_STEPS = 2

IMPLEMENTATIONS = ("inprocess", "gym_sync", "gym_async", "pool_process", "pool_nsjail", "pool_wasm")
"""Keys of one size's figures; ``pool_<backend>`` is EnvPool on that backend."""


class Vector(Protocol):
    def reset(self, seeds: list[int]) -> None: ...

    def step(self, actions: list[str]) -> None: ...

    def close(self) -> None: ...


class PoolVector:
    """EnvPool on one backend, auto-resetting, stepped with its synchronous batched ``step``."""

    def __init__(self, programs: Sequence[BenchEnv], backend: str) -> None:
        from engine.pool import EnvPool
        from sandbox import Limits, Outcome

        self._ok = Outcome.OK
        self.pool = EnvPool(
            [env.source for env in programs],
            backend=backend,
            limits=Limits(),
            max_turns=DEFAULT_MAX_TURNS,
            auto_reset=True,
        )
        self.failures: list[str] = []

    def reset(self, seeds: list[int]) -> None:
        self._check(self.pool.reset(seeds))

    def step(self, actions: list[str]) -> None:
        self._check(self.pool.step(actions))

    def _check(self, batch: Batch) -> None:
        for outcome, detail in zip(batch.outcomes, batch.details, strict=True):
            if outcome is not self._ok and outcome.value != "env_error":
                self.failures.append(f"{outcome.value}: {detail}")

    def close(self) -> None:
        self.pool.close()


def programs_for(envs: Sequence[BenchEnv], size: int) -> list[BenchEnv]:
    """``size`` slots filled round-robin with the measured programs (counter alone at size 1)."""
    return [envs[index % len(envs)] for index in range(size)]


def drive(vector: Vector, programs: Sequence[BenchEnv], repeats: int, seconds: float) -> list[float]:
    """Steps/s of ``repeats`` timed runs of at least ``seconds`` each, after an untimed reset and warm-up."""
    size = len(programs)
    vector.reset(list(range(size)))
    t = 0
    for _ in range(WARMUP_STEPS):
        vector.step([env.action(t, index) for index, env in enumerate(programs)])
        t += 1
    rates = []
    for _ in range(repeats):
        count = 0
        started = time.perf_counter()
        while True:
            vector.step([env.action(t, index) for index, env in enumerate(programs)])
            t += 1
            count += 1
            elapsed = time.perf_counter() - started
            if elapsed >= seconds:
                break
        rates.append(count * size / elapsed)
    return rates


def factories(programs: Sequence[BenchEnv]) -> dict[str, Callable[[], Vector]]:
    from bench.gym_baseline import GymVector, LoopVector

    return {
        "inprocess": lambda: LoopVector(programs),
        "gym_sync": lambda: GymVector(programs, asynchronous=False),
        "gym_async": lambda: GymVector(programs, asynchronous=True),
        "pool_process": lambda: PoolVector(programs, "process"),
        "pool_nsjail": lambda: PoolVector(programs, "nsjail"),
        "pool_wasm": lambda: PoolVector(programs, "wasm"),
    }


def measure(implementation: str, envs: Sequence[BenchEnv], size: int, repeats: int, seconds: float) -> float:
    """Median steps/s of one implementation at one batch size (raises what building or stepping raised)."""
    from bench.cold_start import MeasurementFailed

    programs = programs_for(envs, size)
    with quiet():
        vector = factories(programs)[implementation]()
        try:
            rates = drive(vector, programs, repeats, seconds)
            failures = getattr(vector, "failures", [])
            if failures:
                raise MeasurementFailed(f"{len(failures)} sandbox failures while stepping; first: {failures[0][:300]}")
        finally:
            vector.close()
    return round(median(rates), 1)
