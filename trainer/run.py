"""A self-play run on disk: config, pool, memory, metrics and transcripts in one folder, resumable.

Layout of ``run_dir``:
    config.json        the SelfPlayConfig (and the model) the run was started with
    state.json         the last finished step (a restart continues after it)
    memory.json        the environment memory
    pool/pool.sqlite   every design with its verdict (content-addressed)
    metrics.jsonl      one line of curriculum metrics per step
    transcripts/step-NNNNN.jsonl   every agent episode of the step
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.spec import EnvSpec
from engine.store import PoolStore
from policies.base import Policy
from trainer.config import ConfigError, SelfPlayConfig
from trainer.corpus import Corpus
from trainer.memory import Embedder, EnvMemory
from trainer.selfplay import SelfPlay, StepResult

StepCallback = Callable[[StepResult], None]


@dataclass
class RunPaths:
    root: Path

    @property
    def config(self) -> Path:
        return self.root / "config.json"

    @property
    def state(self) -> Path:
        return self.root / "state.json"

    @property
    def memory(self) -> Path:
        return self.root / "memory.json"

    @property
    def pool(self) -> Path:
        return self.root / "pool"

    @property
    def metrics(self) -> Path:
        return self.root / "metrics.jsonl"

    @property
    def transcripts(self) -> Path:
        return self.root / "transcripts"


def _episode_record(episode: Any) -> dict[str, Any]:
    return {
        "env_sha256": episode.env_sha256, "seed": episode.seed, "hinted": episode.hinted,
        "first_observation": episode.first_observation, "actions": [t.action for t in episode.turns],
        "observations": [t.observation for t in episode.turns], "rewards": [t.reward for t in episode.turns],
        "return": episode.episode_return, "success": episode.success, "outcome": episode.outcome,
    }  # fmt: skip


class SelfPlayRun:
    """Opens (or resumes) a run folder and runs steps, writing everything a step produced."""

    def __init__(
        self,
        run_dir: str | Path,
        config: SelfPlayConfig,
        designer: Policy,
        agent: Policy | None = None,
        *,
        corpus: Corpus | None = None,
        seed_programs: list[EnvSpec] | None = None,
        embedder: Embedder | None = None,
        meta: dict[str, Any] | None = None,
    ) -> None:
        self.paths = RunPaths(Path(run_dir))
        self.paths.root.mkdir(parents=True, exist_ok=True)
        self.paths.transcripts.mkdir(exist_ok=True)
        if self.paths.config.exists():
            saved = json.loads(self.paths.config.read_text())
            if saved.get("selfplay") != config.to_dict():
                raise ConfigError(f"{self.paths.root} was started with another config; use a new --run-dir or the same config")
        else:
            self.paths.config.write_text(json.dumps({"selfplay": config.to_dict(), **(meta or {})}, indent=2))
        memory = EnvMemory.load(self.paths.memory, embedder) if self.paths.memory.exists() else EnvMemory(embedder=embedder)
        self.store = PoolStore(self.paths.pool)
        self.selfplay = SelfPlay(config, designer, agent, corpus=corpus, memory=memory, store=self.store)
        self.last_step = json.loads(self.paths.state.read_text())["last_step"] if self.paths.state.exists() else 0
        if self.last_step == 0 and not len(memory) and seed_programs and config.use_memory:
            self.selfplay.seed_memory(seed_programs)
            memory.save(self.paths.memory)

    def run(self, steps: int, on_step: StepCallback | None = None) -> list[StepResult]:
        """Run ``steps`` more steps (after whatever the folder already holds)."""
        results = []
        for step in range(self.last_step + 1, self.last_step + steps + 1):
            result = self.selfplay.run_step(step)
            self._write(result)
            results.append(result)
            if on_step is not None:
                on_step(result)
        return results

    def record(self, result: StepResult, *, metrics: bool = True) -> None:
        """Write what a step produced (used by trainers that run steps themselves)."""
        self._write(result, metrics=metrics)

    def _write(self, result: StepResult, *, metrics: bool = True) -> None:
        with open(self.paths.transcripts / f"step-{result.step:05d}.jsonl", "w", encoding="utf-8") as handle:
            for episode in result.episodes:
                handle.write(json.dumps(_episode_record(episode), ensure_ascii=False) + "\n")
        if metrics:
            with open(self.paths.metrics, "a", encoding="utf-8") as handle:
                handle.write(json.dumps(result.metrics) + "\n")
        self.selfplay.memory.save(self.paths.memory)
        self.paths.state.write_text(json.dumps({"last_step": result.step}))
        self.last_step = result.step

    def close(self) -> None:
        self.selfplay.close()
        self.store.close()

    def __enter__(self) -> SelfPlayRun:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
