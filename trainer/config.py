"""Self-play configuration: one frozen dataclass, documented once, validated in ``__post_init__``."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from sandbox.errors import SpadeError
from trainer.rewards import DesignerReward

DEFAULT_SKILLS = ("deduction", "planning", "arithmetic", "negotiation", "procedure", "search", "spatial reasoning", "memory")


class ConfigError(SpadeError, ValueError):
    """A configuration value or file is invalid."""


@dataclass(frozen=True)
class SelfPlayConfig:
    """Everything one self-play run needs besides the model."""

    designs_per_step: int = 2
    """Designer completions per step (each one environment)."""

    replay_per_step: int = 1
    """Environments replayed from memory per step (PLR-style)."""

    episodes_per_condition: int = 2
    """K: episodes with the hint and K without, on the same seeds, per environment."""

    agent_max_turns: int = 8
    """Turns per episode at most (the pool also truncates at the program's max_turns)."""

    designer_temperature: float = 1.0
    agent_temperature: float = 0.7
    designer_max_tokens: int = 768
    agent_max_tokens: int = 48

    designer_reward: DesignerReward = DesignerReward.REGRET
    """regret (hint-based regret), blend (SPADE's public 0.6 plateau + 0.4 regret/0.15) or band."""

    invalid_design_penalty: float = -1.0
    """Reward of a design that fails parsing or a validation gate."""

    duplicate_design_reward: float = 0.0
    """Reward of a design that duplicates one in memory (exactly or nearly)."""

    exemplars: int = 2
    """Memory exemplars shown to the Designer."""

    negatives: int = 1
    """Negative examples (too easy or too hard) shown to the Designer."""

    use_corpus: bool = True
    """Ablation switch: ground designs in corpus passages."""

    use_memory: bool = True
    """Ablation switch: show and replay environments from memory."""

    frozen_designer: bool = False
    """Ablation switch: only the Agent learns."""

    skills: tuple[str, ...] = DEFAULT_SKILLS
    backend: str = "nsjail"
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("designs_per_step", "episodes_per_condition", "agent_max_turns", "designer_max_tokens", "agent_max_tokens"):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be >= 1, got {getattr(self, name)}")
        for name in ("replay_per_step", "exemplars", "negatives"):
            if getattr(self, name) < 0:
                raise ConfigError(f"{name} must be >= 0, got {getattr(self, name)}")
        if not isinstance(self.designer_reward, DesignerReward):
            raise ConfigError(f"designer_reward must be one of {[r.value for r in DesignerReward]}")
        if not self.skills:
            raise ConfigError("skills must not be empty")

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["designer_reward"] = self.designer_reward.value
        data["skills"] = list(self.skills)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SelfPlayConfig:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ConfigError(f"unknown config key(s): {', '.join(unknown)}")
        values = dict(data)
        if "designer_reward" in values:
            try:
                values["designer_reward"] = DesignerReward(values["designer_reward"])
            except ValueError:
                raise ConfigError(f"designer_reward must be one of {[r.value for r in DesignerReward]}") from None
        if "skills" in values:
            values["skills"] = tuple(values["skills"])
        return cls(**values)

    @classmethod
    def from_file(cls, path: str | Path) -> SelfPlayConfig:
        path = Path(path)
        try:
            text = path.read_text()
        except OSError as exc:
            raise ConfigError(f"cannot read {path}: {exc.strerror}") from None
        if path.suffix in (".toml",):
            import tomllib

            data = tomllib.loads(text)
        else:
            try:
                data = json.loads(text)
            except json.JSONDecodeError as exc:
                raise ConfigError(f"{path} is not JSON: {exc.msg} (line {exc.lineno})") from None
        if not isinstance(data, dict):
            raise ConfigError(f"{path} must hold an object of config keys")
        return cls.from_dict(data.get("selfplay", data))
