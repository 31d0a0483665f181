"""Curriculum metrics for one self-play step (a JSON-ready dict; the run writes one line per step)."""

from __future__ import annotations

import math
import re
import statistics
from collections import Counter
from typing import TYPE_CHECKING, Any

from trainer.rewards import in_band

if TYPE_CHECKING:
    from trainer.memory import Embedder, EnvMemory
    from trainer.selfplay import StepResult

FORMULA = re.compile(r"\d+\s*[-+*/x×]\s*\d+\s*=|=\s*-?\d+\s*$|\banswer is\b", re.IGNORECASE | re.MULTILINE)


def _mean(values: list[float]) -> float | None:
    return statistics.fmean(values) if values else None


def _std(values: list[float]) -> float | None:
    return statistics.pstdev(values) if len(values) > 1 else (0.0 if values else None)


def _diversity(sources: list[str], embedder: Embedder | None) -> float | None:
    """Mean pairwise cosine distance of the step's admitted programs (None without an embedder)."""
    if embedder is None or len(sources) < 2:
        return None
    vectors = embedder(sources)
    distances = []
    for i in range(len(vectors)):
        for j in range(i + 1, len(vectors)):
            a, b = vectors[i], vectors[j]
            norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
            distances.append(1.0 - (sum(x * y for x, y in zip(a, b, strict=True)) / norm if norm else 0.0))
    return statistics.fmean(distances)


def step_metrics(result: StepResult, timings: dict[str, float], memory: EnvMemory, embedder: Embedder | None = None) -> dict[str, Any]:
    designs = result.designs
    gates = Counter(sample.failed_gate for sample in designs if sample.failed_gate)
    admitted = [s for s in designs if s.failed_gate is None and s.duplicate is None and s.spec is not None]
    duplicates = sum(1 for s in designs if s.duplicate)
    regrets = [r.regret for r in result.regrets.values()]
    episodes = result.episodes
    hinted = [e for e in episodes if e.hinted]
    plain = [e for e in episodes if not e.hinted]
    levels: dict[str, set[float]] = {}
    for e in episodes:
        levels.setdefault(e.env_sha256, set()).update(e.rewards_seen)
    first_obs: dict[str, str] = {e.env_sha256: e.first_observation for e in episodes}
    reveals = sum(1 for obs in first_obs.values() if FORMULA.search(obs or ""))
    multi_step = []
    for sample in admitted:
        solvability = next((g for g in sample.verdict.gates if g.name == "solvability"), None) if sample.verdict else None
        if solvability is not None and solvability.evidence.get("oracle_turns"):
            multi_step.append(min(solvability.evidence["oracle_turns"]) > 1)
    lengths = [len(s.spec.source.splitlines()) for s in designs if s.spec is not None]
    design_rewards = [s.reward for s in designs if s.reward is not None]
    return {
        "step": result.step,
        "designs": len(designs),
        "admitted": len(admitted),
        "rejected": sum(gates.values()),
        "rejected_by_gate": dict(sorted(gates.items())),
        "duplicates": duplicates,
        "duplicate_share": duplicates / len(designs) if designs else 0.0,
        "envs_played": len(result.played),
        "regret_mean": _mean(regrets),
        "regret_std": _std(regrets),
        "learnable_band_share": _mean([float(in_band(r.win_rate_without_hint)) for r in result.regrets.values()]),
        "agent_return_with_hint": _mean([e.episode_return for e in hinted]),
        "agent_return_without_hint": _mean([e.episode_return for e in plain]),
        "agent_success_with_hint": _mean([float(e.success) for e in hinted]),
        "agent_success_without_hint": _mean([float(e.success) for e in plain]),
        "episodes": len(episodes),
        "episodes_failed": sum(1 for e in episodes if e.outcome != "ok"),
        "reward_levels_per_env": _mean([float(len(v)) for v in levels.values()]),
        "opening_reveals_share": reveals / len(first_obs) if first_obs else None,
        "multi_action_share": _mean([float(x) for x in multi_step]),
        "program_lines_mean": _mean([float(n) for n in lengths]),
        "embedding_diversity": _diversity([s.spec.source for s in admitted], embedder),
        "designer_reward_mean": _mean(design_rewards),
        "memory_size": len(memory),
        "seconds": {k: round(v, 3) for k, v in timings.items()},
    }
