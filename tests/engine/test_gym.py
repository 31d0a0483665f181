"""Gymnasium faces: check_env passes on a sandboxed env; the vector env auto-resets like Gymnasium's."""

from __future__ import annotations

import numpy as np
from gymnasium.utils.env_checker import check_env

from engine.gym import SandboxedEnv, SandboxedVectorEnv


def test_sandboxed_env_passes_gymnasium_check_env(backend, counter):
    env = SandboxedEnv(counter, backend=backend)
    try:
        check_env(env, skip_render_check=True)
        observation, info = env.reset(seed=5)
        assert observation.startswith("n=0") and info == {"seed": 5}
        assert env.step("inc")[:4] == ("n=1", 0.1, False, False)
    finally:
        env.close()
    env.close()


def test_vector_env_steps_and_autoresets(backend, counter):
    env = SandboxedVectorEnv([counter, counter], backend=backend)
    try:
        observations, _ = env.reset(seed=1)
        assert len(observations) == 2
        for _ in range(3):
            observations, rewards, terminated, _truncated, infos = env.step(["inc", "noop"])
        assert isinstance(rewards, np.ndarray) and rewards.tolist() == [1.0, 0.1]
        assert terminated.tolist() == [True, False] and infos["success"].tolist() == [True, False]
        observations, rewards, terminated, _, _ = env.step(["inc", "inc"])
        assert observations[0].startswith("n=0") and observations[1] == "n=1"
        assert rewards.tolist() == [0.0, 0.1]
    finally:
        env.close()
