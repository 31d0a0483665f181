"""Agent play: many episodes in flight through one EnvPool, one batched generation per turn."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from engine.pool import EnvPool
from engine.spec import EnvSpec
from policies.base import Generation, Message, Policy, SamplingParams
from sandbox import Limits, Outcome, Sandbox
from trainer.prompts import agent_messages, extract_action


@dataclass
class AgentTurn:
    prompt: list[Message]
    generation: Generation
    action: str
    observation: str
    reward: float


@dataclass
class AgentEpisode:
    """One episode of one environment, with or without the hint."""

    env_sha256: str
    seed: int
    hinted: bool
    first_observation: str = ""
    turns: list[AgentTurn] = field(default_factory=list)
    episode_return: float = 0.0
    success: bool = False
    outcome: str = "ok"
    rewards_seen: set[float] = field(default_factory=set)


@dataclass(frozen=True)
class PlayRequest:
    spec: EnvSpec
    hint: str | None
    seeds: tuple[int, ...]


@dataclass
class PlayStats:
    generation_seconds: float = 0.0
    sandbox_seconds: float = 0.0


def play_episodes(
    requests: Sequence[PlayRequest],
    policy: Policy,
    params: SamplingParams,
    *,
    max_turns: int,
    sandbox: Sandbox | None = None,
    backend: str = "nsjail",
    limits: Limits | None = None,
    stats: PlayStats | None = None,
) -> list[AgentEpisode]:
    """For every request and seed, one episode with the hint and one without, all in flight at once."""
    stats = stats if stats is not None else PlayStats()
    layout: list[tuple[PlayRequest, int, bool]] = [
        (request, seed, hinted) for request in requests for hinted in (True, False) for seed in request.seeds
    ]
    if not layout:
        return []
    episodes = [AgentEpisode(env_sha256=r.spec.sha256, seed=seed, hinted=hinted) for r, seed, hinted in layout]
    started = time.monotonic()
    with EnvPool([r.spec for r, _, _ in layout], max_turns=max_turns, sandbox=sandbox, backend=backend, limits=limits) as pool:
        first = pool.reset(seeds=[seed for _, seed, _ in layout])
        stats.sandbox_seconds += time.monotonic() - started
        history: list[list[tuple[str, str | None]]] = []
        active: list[int] = []
        for env_id, (observation, outcome) in enumerate(zip(first.observations, first.outcomes, strict=True)):
            episodes[env_id].first_observation = observation
            history.append([(observation, None)])
            if outcome is Outcome.OK:
                active.append(env_id)
            else:
                episodes[env_id].outcome = outcome.value
        for _ in range(max_turns):
            if not active:
                break
            prompts = [agent_messages(history[i], layout[i][0].hint if layout[i][2] else None) for i in active]
            started = time.monotonic()
            generations = [group[0] for group in policy.generate(prompts, params)]
            stats.generation_seconds += time.monotonic() - started
            actions = [extract_action(g.text) for g in generations]
            started = time.monotonic()
            batch = pool.step(actions, env_ids=active)
            stats.sandbox_seconds += time.monotonic() - started
            still = []
            for index, env_id in enumerate(active):
                episode = episodes[env_id]
                observation, reward = batch.observations[index], batch.rewards[index]
                episode.turns.append(AgentTurn(prompts[index], generations[index], actions[index], observation, reward))
                episode.episode_return += reward
                episode.rewards_seen.add(round(reward, 9))
                history[env_id][-1] = (history[env_id][-1][0], generations[index].text)
                history[env_id].append((observation, None))
                if batch.outcomes[index] is not Outcome.OK:
                    episode.outcome = batch.outcomes[index].value
                if batch.terminated[index] or batch.truncated[index]:
                    success = batch.infos[index].get("success")
                    episode.success = bool(success) if isinstance(success, bool) else episode.episode_return > 0
                    if batch.outcomes[index] is not Outcome.OK:
                        episode.success = False
                else:
                    still.append(env_id)
            active = still
    return episodes
