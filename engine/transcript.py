"""Episode transcripts: enough to replay any episode from (environment hash, seed, actions)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class Transcript:
    """One episode as it happened: what was sent and what came back."""

    env_sha256: str
    seed: int | None
    actions: list[str] = field(default_factory=list)
    observations: list[str] = field(default_factory=list)
    rewards: list[float] = field(default_factory=list)
    outcomes: list[str] = field(default_factory=list)
    terminated: bool = False
    truncated: bool = False
    success: bool | None = None

    @property
    def episode_return(self) -> float:
        return float(sum(self.rewards))

    @property
    def done(self) -> bool:
        return self.terminated or self.truncated

    @property
    def final_outcome(self) -> str:
        return self.outcomes[-1] if self.outcomes else "ok"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Transcript:
        return cls(**data)
