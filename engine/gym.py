"""Gymnasium faces of the engine: one sandboxed session as a ``gymnasium.Env``, a pool as a ``VectorEnv``.

Observations and actions are text (``gymnasium.spaces.Text``).  A sandbox failure ends the episode
with ``truncated=True`` and ``info["outcome"]``/``info["detail"]`` saying what happened.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.spaces import Text
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from engine.pool import DEFAULT_MAX_TURNS, Batch, EnvPool
from engine.spec import EnvSpec
from sandbox import Limits, Outcome

OBSERVATION_CHARSET = frozenset(string.printable) | frozenset(chr(code) for code in range(0xA0, 0x3000))
ACTION_CHARSET = frozenset(string.ascii_letters + string.digits + " -_,.:=")


def _info(batch: Batch, index: int) -> dict[str, Any]:
    info = dict(batch.infos[index])
    if batch.outcomes[index] is not Outcome.OK:
        info["outcome"] = batch.outcomes[index].value
        info["detail"] = batch.details[index]
    return info


class SandboxedEnv(gym.Env[str, str]):
    """One environment program in its own sandbox, behind Gymnasium's ``reset``/``step``."""

    metadata: dict[str, Any] = {"render_modes": []}  # noqa: RUF012 (Gymnasium's convention)

    def __init__(
        self,
        spec: EnvSpec | str,
        *,
        backend: str = "nsjail",
        limits: Limits | None = None,
        max_turns: int = DEFAULT_MAX_TURNS,
        max_observation_length: int = 65536,
    ) -> None:
        self._pool = EnvPool([spec], backend=backend, limits=limits, max_turns=max_turns)
        self.observation_space = Text(max_observation_length, min_length=0, charset=OBSERVATION_CHARSET)
        self.action_space = Text(32, min_length=0, charset=ACTION_CHARSET)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        super().reset(seed=seed)
        batch = self._pool.reset([seed])
        return batch.observations[0], _info(batch, 0)

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        batch = self._pool.step([action])
        return batch.observations[0], batch.rewards[0], batch.terminated[0], batch.truncated[0], _info(batch, 0)

    def close(self) -> None:
        self._pool.close()
        super().close()


class SandboxedVectorEnv(VectorEnv):
    """An :class:`EnvPool` as a Gymnasium vector env (auto-reset on the next step, as in Gymnasium's default)."""

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.NEXT_STEP}  # noqa: RUF012

    def __init__(
        self,
        specs: Sequence[EnvSpec | str],
        *,
        backend: str = "nsjail",
        limits: Limits | None = None,
        max_turns: int = DEFAULT_MAX_TURNS,
        max_observation_length: int = 65536,
    ) -> None:
        self.pool = EnvPool(specs, backend=backend, limits=limits, max_turns=max_turns, auto_reset=True)
        self.num_envs = self.pool.num_envs
        self.single_observation_space = Text(max_observation_length, min_length=0, charset=OBSERVATION_CHARSET)
        self.single_action_space = Text(32, min_length=0, charset=ACTION_CHARSET)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)

    def reset(
        self, *, seed: int | Sequence[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[tuple[str, ...], dict[str, Any]]:
        if seed is None:
            seeds: list[int | None] = [None] * self.num_envs
        elif isinstance(seed, int):
            seeds = [seed + index for index in range(self.num_envs)]
        else:
            seeds = list(seed)
        batch = self.pool.reset(seeds)
        return tuple(batch.observations), self._infos(batch)

    def step(self, actions: Sequence[str]) -> tuple[tuple[str, ...], np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        batch = self.pool.step(list(actions))
        return (
            tuple(batch.observations),
            np.asarray(batch.rewards, dtype=np.float64),
            np.asarray(batch.terminated, dtype=np.bool_),
            np.asarray(batch.truncated, dtype=np.bool_),
            self._infos(batch),
        )

    def _infos(self, batch: Batch) -> dict[str, Any]:
        infos: dict[str, Any] = {}
        for index in range(len(batch)):
            infos = self._add_info(infos, _info(batch, index), batch.env_ids[index])
        return infos

    def close_extras(self, **kwargs: Any) -> None:
        self.pool.close()
