"""The unisolated baselines: the same programs in a plain loop and in Gymnasium's vector envs."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
from gymnasium.spaces import Text
from gymnasium.vector import AsyncVectorEnv, SyncVectorEnv

from bench.envs import BenchEnv, LocalEnv, load_env_class

MAX_TEXT = 65536


class TextEnv(gym.Env[str, str]):
    """A trusted program wrapped as a ``gymnasium.Env`` with Text spaces (the engine's semantics, no sandbox)."""

    metadata: dict[str, Any] = {"render_modes": []}  # noqa: RUF012 (Gymnasium's convention)

    def __init__(self, source: str, name: str) -> None:
        self.local = LocalEnv(load_env_class(source, name))
        self.observation_space = Text(MAX_TEXT, min_length=0)
        self.action_space = Text(MAX_TEXT, min_length=0)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)
        return self.local.reset(seed)

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        return self.local.step(action)


def _make(source: str, name: str) -> TextEnv:
    return TextEnv(source, name)


def env_fns(programs: Sequence[BenchEnv]) -> list[Any]:
    return [functools.partial(_make, env.source, env.name) for env in programs]


class LoopVector:
    """The floor of batched stepping: a Python loop over in-process envs, auto-resetting on the next step."""

    def __init__(self, programs: Sequence[BenchEnv]) -> None:
        self.envs = [LocalEnv(load_env_class(env.source, env.name)) for env in programs]
        self.done = [False] * len(self.envs)

    def reset(self, seeds: list[int]) -> None:
        for env, seed in zip(self.envs, seeds, strict=True):
            env.reset(seed)
        self.done = [False] * len(self.envs)

    def step(self, actions: list[str]) -> None:
        for index, (env, action) in enumerate(zip(self.envs, actions, strict=True)):
            if self.done[index]:
                env.reset()
                self.done[index] = False
            else:
                _, _, terminated, truncated, _ = env.step(action)
                self.done[index] = terminated or truncated

    def close(self) -> None:
        self.envs.clear()


class GymVector:
    """Gymnasium's SyncVectorEnv or AsyncVectorEnv (one worker per env, no shared memory: Text spaces)."""

    def __init__(self, programs: Sequence[BenchEnv], asynchronous: bool) -> None:
        fns = env_fns(programs)
        if asynchronous:
            self.vec: gym.vector.VectorEnv = AsyncVectorEnv(fns, shared_memory=False, context="fork")
        else:
            self.vec = SyncVectorEnv(fns)

    def reset(self, seeds: list[int]) -> None:
        self.vec.reset(seed=seeds)

    def step(self, actions: list[str]) -> None:
        self.vec.step(tuple(actions))

    def close(self) -> None:
        self.vec.close()
