"""Prompts of both roles, and how an action is read from the Agent's reply.

Action extraction (documented contract, also in the Agent's system prompt): the action is the text
after the last line that starts with ``Action:`` (case-insensitive, optional markdown bold); failing
that, the content of the last inline code span; failing that, the last non-empty line.  Whitespace is
collapsed and the action is cut at ``MAX_ACTION_CHARS``.  A reply with nothing usable yields the empty
action: a wasted turn that the environment answers like any unknown action.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from trainer.memory import MemoryEntry

Message = dict[str, str]
MAX_ACTION_CHARS = 200
ACTION_LINE = re.compile(r"^\s*(?:\*\*)?action(?:\*\*)?\s*:\s*(?:\*\*)?(?P<action>.*?)(?:\*\*)?\s*$", re.IGNORECASE | re.MULTILINE)
CODE_SPAN = re.compile(r"`([^`\n]{1,200})`")

CONTRACT = '''Write ONE Python 3.12 program, standard library only, in a single ```python code block:

HINT = "..."   # a short privileged hint that makes the game much easier for a player who knows it

class SomethingEnv:          # exactly one class whose name ends in "Env"
    max_turns = 12           # the game is cut off after this many turns
    def reset(self, seed=None):
        # use random.Random(seed) for every random choice; return (observation: str, info: dict)
    def step(self, action: str):
        # return (observation: str, reward: float, terminated: bool, truncated: bool, info: dict)
        # on the final step set info["success"] to True or False
    def oracle(self):
        # read the hidden state and return the next action that wins

Rules: the opening observation explains the available actions but must not reveal the answer; the player
must interact to discover hidden state; unknown actions waste a turn and never raise; rewards are finite
floats, with partial credit where natural. Allowed imports: random, math, string, itertools, collections,
re, json, dataclasses, functools, heapq, fractions, statistics, textwrap.'''

DESIGNER_SYSTEM = "You design small, fair, text-based games (Gym-style environments) that test reasoning."

AGENT_SYSTEM = (
    "You are playing a text game. Read the observation, think briefly, and end your reply with one line "
    "'Action: <your action>'. Only that line is sent to the game."
)


@dataclass(frozen=True)
class DesignRequest:
    """What one design prompt is built from (kept for the metrics and the memory's lineage)."""

    passage: str
    skill: str
    exemplars: tuple[MemoryEntry, ...] = ()
    negatives: tuple[MemoryEntry, ...] = ()


def designer_messages(request: DesignRequest) -> list[Message]:
    parts = [CONTRACT, f"Skill to test: {request.skill}.", f"Ground the game's theme in this passage:\n<<<\n{request.passage}\n>>>"]
    for entry in request.exemplars:
        parts.append(
            f"An earlier game that players find learnable (with hint they win {entry.win_rate_hint:.0%}, without "
            f"{entry.win_rate_no_hint:.0%}). Write a NEW game that varies it (different rules or theme, similar "
            f"difficulty):\n```python\n{entry.source.strip()}\n```"
        )
    for entry in request.negatives:
        verdict = "too easy" if entry.win_rate_no_hint > 0.5 else "too hard"
        parts.append(f"Avoid games like this one ({verdict}): {entry.summary()}")
    parts.append("Answer with the code block only.")
    return [{"role": "system", "content": DESIGNER_SYSTEM}, {"role": "user", "content": "\n\n".join(parts)}]


def agent_messages(history: Sequence[tuple[str, str | None]], hint: str | None) -> list[Message]:
    """Chat messages for the next turn; ``history`` is (observation, the Agent's full reply to it).

    The reply is kept verbatim (not just its action) so that each turn's prompt extends the previous
    one token for token: a whole episode can then be trained on as one sequence.
    """
    system = AGENT_SYSTEM if not hint else f"{AGENT_SYSTEM}\nPrivileged hint: {hint}"
    messages: list[Message] = [{"role": "system", "content": system}]
    for observation, reply in history:
        messages.append({"role": "user", "content": observation})
        if reply is not None:
            messages.append({"role": "assistant", "content": reply})
    return messages


def extract_action(reply: str) -> str:
    """The action in a reply (see the module docstring); ``""`` when there is none."""
    found = ACTION_LINE.findall(reply)
    if found:
        action = found[-1]
    else:
        spans = CODE_SPAN.findall(reply)
        if spans:
            action = spans[-1]
        else:
            lines = [line for line in reply.splitlines() if line.strip()]
            action = lines[-1] if lines else ""
    return " ".join(action.split())[:MAX_ACTION_CHARS]
