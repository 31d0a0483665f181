"""One SPADE self-play step: designs -> validation -> hinted and unhinted play -> rewards -> memory.

The step is pure orchestration over the engine (sandbox, pool, validator) and a policy; it returns
every sample with its reward so that a trainer (``trainer.grpo``) can turn them into an update.
"""

from __future__ import annotations

import hashlib
import random
import time
from dataclasses import dataclass, field
from typing import Any

from engine.spec import EnvSpec, SpecError
from engine.store import PoolStore
from engine.validate import Validator, Verdict
from policies.base import Generation, Message, Policy, SamplingParams
from trainer.config import SelfPlayConfig
from trainer.corpus import Corpus
from trainer.episodes import AgentEpisode, PlayRequest, PlayStats, play_episodes
from trainer.memory import EnvMemory, MemoryEntry
from trainer.metrics import step_metrics
from trainer.prompts import DesignRequest, designer_messages
from trainer.rewards import Regret, designer_reward, hint_regret


@dataclass
class DesignSample:
    """One Designer completion and what became of it."""

    prompt: list[Message]
    generation: Generation
    request: DesignRequest
    request_index: int = 0
    spec: EnvSpec | None = None
    verdict: Verdict | None = None
    failed_gate: str | None = None
    detail: str = ""
    duplicate: str | None = None
    regret: Regret | None = None
    reward: float | None = None


@dataclass
class StepResult:
    step: int
    designs: list[DesignSample]
    episodes: list[AgentEpisode]
    regrets: dict[str, Regret]
    played: list[EnvSpec]
    metrics: dict[str, Any] = field(default_factory=dict)


def episode_seeds(step: int, sha256: str, count: int, base_seed: int) -> tuple[int, ...]:
    """Seeds for one environment in one step: shared by its hinted and unhinted episodes."""
    digest = hashlib.sha256(f"{base_seed}:{step}:{sha256}".encode()).digest()
    start = int.from_bytes(digest[:4], "big") % (2**31 - count)
    return tuple(start + i for i in range(count))


class SelfPlay:
    """Owns the memory, the corpus and the validator across steps; ``run_step`` does one step."""

    def __init__(
        self,
        config: SelfPlayConfig,
        designer: Policy,
        agent: Policy | None = None,
        *,
        corpus: Corpus | None = None,
        memory: EnvMemory | None = None,
        store: PoolStore | None = None,
        validator: Validator | None = None,
    ) -> None:
        self.config = config
        self.designer = designer
        self.agent = agent or designer
        self.corpus = corpus
        self.memory = memory or EnvMemory()
        self.store = store
        self._own_validator = validator is None
        self.validator = validator or Validator(backend=config.backend)

    def close(self) -> None:
        if self._own_validator:
            self.validator.close()

    def seed_memory(self, specs: list[EnvSpec], step: int = 0) -> int:
        """Add trusted programs (e.g. examples/envs) to memory; they are validated like any other."""
        added = 0
        for spec in specs:
            verdict = self.validator.validate(spec)
            if self.store is not None:
                self.store.put(spec, verdict)
            if verdict.admitted and self.memory.add(_entry(spec, step)) == "added":
                added += 1
        return added

    # ------------------------------------------------------------------ the step

    def run_step(self, step: int, *, samples_per_design: int = 1, min_envs: int = 0, episodes_per_condition: int | None = None) -> StepResult:
        """One step.  ``samples_per_design`` designer completions per design prompt (a GRPO group);
        at least ``min_envs`` environments are played (topped up from memory); K episodes per condition."""
        cfg = self.config
        episodes_k = episodes_per_condition or cfg.episodes_per_condition
        rng = random.Random(hash((cfg.seed, step)) & 0xFFFFFFFF)
        timings = {"generation": 0.0, "validation": 0.0, "sandbox": 0.0}

        requests = [self._design_request(step, index, rng) for index in range(cfg.designs_per_step)]
        prompts = [designer_messages(request) for request in requests]
        started = time.monotonic()
        params = SamplingParams(n=samples_per_design, temperature=cfg.designer_temperature, max_tokens=cfg.designer_max_tokens, seed=cfg.seed + step)
        groups = self.designer.generate(prompts, params)
        timings["generation"] += time.monotonic() - started
        designs = [
            DesignSample(prompt, generation, request, request_index=index)
            for index, (prompt, group, request) in enumerate(zip(prompts, groups, requests, strict=True))
            for generation in group
        ]

        started = time.monotonic()
        new_specs: dict[str, EnvSpec] = {}
        for sample in designs:
            self._check_design(sample, step, new_specs)
        timings["validation"] += time.monotonic() - started

        replayed = []
        if cfg.use_memory and cfg.replay_per_step:
            replayed = [e for e in self.memory.exemplars(cfg.replay_per_step, step, rng) if e.sha256 not in new_specs]
            unplayed = sorted(e.sha256 for e in self.memory.entries.values() if e.episodes == 0 and e.sha256 not in new_specs)
            # Environments never played have no win rate yet; as in PLR, unseen levels are tried first.
            for sha in rng.sample(unplayed, min(len(unplayed), cfg.replay_per_step - len(replayed))):
                replayed.append(self.memory.entries[sha])
        to_play = list(new_specs.values()) + [_spec(entry) for entry in replayed]
        if len(to_play) < min_envs:
            chosen = {spec.sha256 for spec in to_play}
            spare = sorted((e for e in self.memory.entries.values() if e.sha256 not in chosen), key=lambda e: (-e.regret, e.sha256))
            to_play += [_spec(entry) for entry in spare[: min_envs - len(to_play)]]

        stats = PlayStats()
        play = [PlayRequest(spec, spec.hint, episode_seeds(step, spec.sha256, episodes_k, cfg.seed)) for spec in to_play]
        agent_params = SamplingParams(n=1, temperature=cfg.agent_temperature, max_tokens=cfg.agent_max_tokens)
        episodes = play_episodes(play, self.agent, agent_params, max_turns=cfg.agent_max_turns, sandbox=self.validator.sandbox, stats=stats)
        timings["generation"] += stats.generation_seconds
        timings["sandbox"] += stats.sandbox_seconds

        regrets = self._regrets(episodes)
        for sample in designs:
            self._reward_design(sample, regrets)
        self._update_memory(step, to_play, regrets, new_specs)
        result = StepResult(step=step, designs=designs, episodes=episodes, regrets=regrets, played=to_play)
        result.metrics = step_metrics(result, timings, self.memory, embedder=self.memory.embedder)
        return result

    # ------------------------------------------------------------------ pieces

    def _design_request(self, step: int, index: int, rng: random.Random) -> DesignRequest:
        cfg = self.config
        passage = ""
        if cfg.use_corpus and self.corpus is not None:
            passage = self.corpus.sample(1, seed=hash((cfg.seed, step, index)) & 0xFFFFFFFF)[0]
        skill = cfg.skills[rng.randrange(len(cfg.skills))]
        exemplars: tuple[MemoryEntry, ...] = ()
        negatives: tuple[MemoryEntry, ...] = ()
        if cfg.use_memory:
            exemplars = tuple(self.memory.exemplars(cfg.exemplars, step, rng))
            negatives = tuple(self.memory.negatives(cfg.negatives))
        return DesignRequest(passage=passage, skill=skill, exemplars=exemplars, negatives=negatives)

    def _check_design(self, sample: DesignSample, step: int, new_specs: dict[str, EnvSpec]) -> None:
        parent = sample.request.exemplars[0].sha256 if sample.request.exemplars else None
        try:
            spec = EnvSpec.from_answer(sample.generation.text, origin=f"designer:step{step}", parent=parent, skills=(sample.request.skill,))
        except SpecError as exc:
            sample.failed_gate, sample.detail = "parse", str(exc)
            return
        sample.spec = spec
        duplicate, _ = self.memory.duplicate_of(spec.sha256, spec.source)
        if spec.sha256 in new_specs:
            duplicate = "exact"
        if duplicate != "new":
            sample.duplicate = duplicate
            return
        verdict = self.validator.validate(spec)
        sample.verdict = verdict
        if self.store is not None:
            self.store.put(spec, verdict)
        if not verdict.admitted:
            failed = verdict.failed_gate or "unknown"
            sample.failed_gate = failed
            sample.detail = next((g.detail for g in verdict.gates if g.name == failed), "")
            return
        new_specs[spec.sha256] = spec

    def _regrets(self, episodes: list[AgentEpisode]) -> dict[str, Regret]:
        by_env: dict[str, dict[bool, list[AgentEpisode]]] = {}
        for episode in episodes:
            by_env.setdefault(episode.env_sha256, {True: [], False: []})[episode.hinted].append(episode)
        regrets = {}
        for sha, groups in by_env.items():
            regrets[sha] = hint_regret(
                [e.episode_return for e in groups[True]],
                [e.episode_return for e in groups[False]],
                [e.success for e in groups[True]],
                [e.success for e in groups[False]],
            )
        return regrets

    def _reward_design(self, sample: DesignSample, regrets: dict[str, Regret]) -> None:
        cfg = self.config
        if sample.failed_gate is not None:
            sample.reward = cfg.invalid_design_penalty
        elif sample.duplicate is not None:
            sample.reward = cfg.duplicate_design_reward
        elif sample.spec is not None and sample.spec.sha256 in regrets:
            sample.regret = regrets[sample.spec.sha256]
            sample.reward = designer_reward(sample.regret, cfg.designer_reward)

    def _update_memory(self, step: int, played: list[EnvSpec], regrets: dict[str, Regret], new: dict[str, EnvSpec]) -> None:
        for spec in played:
            if spec.sha256 in new:
                self.memory.add(_entry(spec, step))
            regret = regrets.get(spec.sha256)
            if regret is not None and spec.sha256 in self.memory:
                self.memory.record(
                    spec.sha256, regret=regret.regret, regret_stderr=regret.stderr, win_rate_hint=regret.win_rate_with_hint,
                    win_rate_no_hint=regret.win_rate_without_hint, episodes=regret.episodes, step=step,
                )  # fmt: skip


def _entry(spec: EnvSpec, step: int) -> MemoryEntry:
    return MemoryEntry(sha256=spec.sha256, source=spec.source, hint=spec.hint, skills=list(spec.skills), parent=spec.parent,
                       origin=spec.origin, added_step=step, last_seen_step=step)  # fmt: skip


def _spec(entry: MemoryEntry) -> EnvSpec:
    return EnvSpec(source=entry.source, hint=entry.hint, origin=entry.origin, parent=entry.parent, skills=tuple(entry.skills))
