"""Scripted policies: deterministic replies for tests and dry runs (no model)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from policies.base import Generation, Message, SamplingParams

Responder = Callable[[Sequence[Message], int], str]


class ScriptedPolicy:
    """Replies computed by ``respond(messages, sample_index)``; ``calls`` records every prompt."""

    name = "scripted"

    def __init__(self, respond: Responder) -> None:
        self.respond = respond
        self.calls: list[list[Message]] = []

    def generate(self, prompts: Sequence[Sequence[Message]], params: SamplingParams) -> list[list[Generation]]:
        out = []
        for messages in prompts:
            self.calls.append(list(messages))
            out.append([Generation(text=self.respond(messages, index)) for index in range(params.n)])
        return out

    @classmethod
    def cycling(cls, replies: Sequence[str]) -> ScriptedPolicy:
        """The i-th call (counting every sample) gets ``replies[i % len(replies)]``."""
        counter = iter(range(10**12))
        return cls(lambda messages, index: replies[next(counter) % len(replies)])

    @classmethod
    def designer(cls, answers: Sequence[str]) -> ScriptedPolicy:
        """A designer that emits the given answers in turn."""
        return cls.cycling(answers)

    @classmethod
    def agent(cls, plan: Callable[[str, bool], str]) -> ScriptedPolicy:
        """An agent whose action is ``plan(last_observation, hinted)``."""

        def respond(messages: Sequence[Message], index: int) -> str:
            hinted = "Privileged hint:" in messages[0]["content"]
            observation = next((m["content"] for m in reversed(messages) if m["role"] == "user"), "")
            return f"Action: {plan(observation, hinted)}"

        return cls(respond)
