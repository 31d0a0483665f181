"""The one interface every language-model backend implements."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

Message = dict[str, str]


@dataclass(frozen=True)
class SamplingParams:
    """How to sample: ``n`` completions per prompt, temperature, length cap, optional seed."""

    n: int = 1
    temperature: float = 1.0
    max_tokens: int = 256
    top_p: float = 1.0
    seed: int | None = None

    def __post_init__(self) -> None:
        if self.n < 1:
            raise ValueError(f"n must be >= 1, got {self.n}")
        if self.temperature < 0:
            raise ValueError(f"temperature must be >= 0, got {self.temperature}")
        if self.max_tokens < 1:
            raise ValueError(f"max_tokens must be >= 1, got {self.max_tokens}")
        if not 0 < self.top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1], got {self.top_p}")


@dataclass(frozen=True)
class Generation:
    """One completion; token ids and log-probabilities where the backend can give them."""

    text: str
    prompt_ids: tuple[int, ...] | None = None
    token_ids: tuple[int, ...] | None = None
    logprobs: tuple[float, ...] | None = None
    finish_reason: str = "stop"


@runtime_checkable
class Policy(Protocol):
    """Chat messages in; ``n`` generations per prompt out (in prompt order)."""

    name: str

    def generate(self, prompts: Sequence[Sequence[Message]], params: SamplingParams) -> list[list[Generation]]: ...
