"""Turn self-play samples into the token sequences GRPO trains on.

A Designer sample is one prompt and one completion.  An Agent episode is many turns; it becomes ONE
completion: the model's tokens of every turn, with the environment's text between turns (the next
observation, as the chat template renders it) inserted as tokens that carry no loss (``env_mask``
0).  Each turn's prompt extends the previous one (the Agent's replies are kept verbatim), so the
sequence is exactly what the model saw, provided the chat template only appends; where it does not,
the observation is inserted as plain text and the mismatch is counted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from policies.base import Generation, Message
from trainer.episodes import AgentEpisode


@dataclass
class Sequence_:
    prompt_ids: list[int]
    completion_ids: list[int]
    logprobs: list[float]
    env_mask: list[int]


@dataclass
class TemplateStats:
    turns_joined: int = 0
    template_mismatches: int = 0
    notes: list[str] = field(default_factory=list)


def render(tokenizer: Any, messages: list[Message]) -> str:
    return tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)


def prompt_ids(tokenizer: Any, messages: list[Message], generation: Generation) -> list[int]:
    if generation.prompt_ids is not None:
        return list(generation.prompt_ids)
    return list(tokenizer(render(tokenizer, messages), add_special_tokens=False).input_ids)


def _model_tokens(tokenizer: Any, generation: Generation) -> tuple[list[int], list[float]]:
    if generation.token_ids is not None:
        ids = list(generation.token_ids)
    else:
        ids = list(tokenizer(generation.text, add_special_tokens=False).input_ids)
    logprobs = list(generation.logprobs) if generation.logprobs is not None else [0.0] * len(ids)
    return ids, logprobs


def design_sequence(tokenizer: Any, messages: list[Message], generation: Generation, trainable: bool = True) -> Sequence_:
    ids, logprobs = _model_tokens(tokenizer, generation)
    return Sequence_(prompt_ids(tokenizer, messages, generation), ids, logprobs, [int(trainable)] * len(ids))


def episode_sequence(tokenizer: Any, episode: AgentEpisode, stats: TemplateStats | None = None) -> Sequence_:
    stats = stats if stats is not None else TemplateStats()
    turns = episode.turns
    if not turns:
        raise ValueError("an episode without turns has no completion to train on")
    first = turns[0]
    sequence = Sequence_(prompt_ids(tokenizer, first.prompt, first.generation), [], [], [])
    eos = tokenizer.eos_token or ""
    for index, turn in enumerate(turns):
        ids, logprobs = _model_tokens(tokenizer, turn.generation)
        sequence.completion_ids += ids
        sequence.logprobs += logprobs
        sequence.env_mask += [1] * len(ids)
        if index + 1 == len(turns):
            break
        before = render(tokenizer, turn.prompt) + turn.generation.text
        after = render(tokenizer, turns[index + 1].prompt)
        if after.startswith(before):
            env_text = after[len(before):]
            if ids and ids[-1] == tokenizer.eos_token_id and eos and env_text.startswith(eos):
                env_text = env_text[len(eos):]
            stats.turns_joined += 1
        else:
            env_text = f"\n{turns[index].observation}\n"
            stats.template_mismatches += 1
        env_ids = list(tokenizer(env_text, add_special_tokens=False).input_ids)
        sequence.completion_ids += env_ids
        sequence.logprobs += [0.0] * len(env_ids)
        sequence.env_mask += [0] * len(env_ids)
    return sequence
