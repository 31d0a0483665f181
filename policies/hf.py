"""A policy on any transformers causal LM, run in this process (CPU or CUDA).

The same class serves the self-play loop (a model loaded from a folder) and the GRPO trainer (TRL's live
``trainer.model`` and ``trainer.processing_class``): it only holds references, never copies the model.

Sampling is a small loop of its own instead of ``model.generate``, for three reasons: the log-probability
of every chosen token comes out as it is sampled (``generate`` would keep the logits of every step, which
is gigabytes for a long batch), a ``seed`` drives a private ``torch.Generator`` so that a call is
reproducible without touching the global RNG, and the model's ``generation_config`` (repetition
penalties and the like) cannot silently change the sampling distribution.

Log-probabilities are ``log_softmax`` of the model's raw logits (float32), i.e. of the distribution at
temperature 1 before top-p: what a trainer recomputes from a forward pass, whatever temperature sampled.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from policies.base import Generation, Message, SamplingParams

if TYPE_CHECKING:
    import torch


@dataclass
class _Row:
    """One sequence to sample: which prompt, which of its ``n`` samples, and the prompt's tokens."""

    prompt_index: int
    sample_index: int
    prompt_ids: list[int]


class HFPolicy:
    """Chat prompts in, ``n`` sampled completions per prompt out, with token ids and log-probabilities.

    Prompts are rendered with the tokenizer's chat template (``add_generation_prompt=True``) and
    tokenised without extra special tokens (the template places them).  Sequences are generated in
    batches of at most ``batch_size`` (counting each of the ``n`` samples), left-padded.
    """

    def __init__(self, model: Any, tokenizer: Any, *, batch_size: int = 16, name: str | None = None) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        self.model = model
        self.tokenizer = tokenizer
        self.batch_size = batch_size
        config = getattr(model, "config", None)
        self.name = name or getattr(config, "_name_or_path", "") or type(model).__name__
        self._supports_logits_to_keep: bool | None = None
        self._cache_kwarg = _cache_kwarg(model)

    @classmethod
    def from_pretrained(
        cls,
        path_or_default: str | os.PathLike[str] = "default",
        device: str | None = None,
        *,
        batch_size: int = 16,
    ) -> HFPolicy:
        """Load a local folder, or ``"default"`` for SmolLM2-135M-Instruct (see :mod:`policies.models`).

        For inference only, so bfloat16 on CUDA (half the memory, faster), float32 on CPU.
        """
        import torch

        from policies.models import load_model

        device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        dtype = torch.bfloat16 if str(device).startswith("cuda") else torch.float32
        model, tokenizer = load_model(path_or_default, device=device, dtype=dtype)
        return cls(model, tokenizer, batch_size=batch_size, name=str(path_or_default))

    # -- tokens ---------------------------------------------------------------------------------

    @property
    def _text_tokenizer(self) -> Any:
        """The tokenizer itself, or the one inside a multimodal processor."""
        return getattr(self.tokenizer, "tokenizer", self.tokenizer)

    def encode_prompt(self, messages: Sequence[Message]) -> list[int]:
        """The prompt's token ids: chat template with the generation prompt, no added special tokens."""
        text = self.tokenizer.apply_chat_template(list(messages), add_generation_prompt=True, tokenize=False)
        return list(self._text_tokenizer(text, add_special_tokens=False)["input_ids"])

    def _eos_ids(self) -> list[int]:
        ids: set[int] = set()
        generation_config = getattr(self.model, "generation_config", None)
        for value in (getattr(generation_config, "eos_token_id", None), self._text_tokenizer.eos_token_id):
            if isinstance(value, int):
                ids.add(value)
            elif value is not None:
                ids.update(int(v) for v in value)
        return sorted(ids)

    def _pad_id(self, eos_ids: Sequence[int]) -> int:
        tokenizer = self._text_tokenizer
        if tokenizer.pad_token_id is not None:
            return int(tokenizer.pad_token_id)
        return eos_ids[0] if eos_ids else 0

    # -- generation -----------------------------------------------------------------------------

    def generate(self, prompts: Sequence[Sequence[Message]], params: SamplingParams) -> list[list[Generation]]:
        """``params.n`` generations per prompt, in prompt order; see the module docstring for log-probs.

        With ``params.seed`` the call is reproducible given the same prompts, ``batch_size``, model and
        device; without it, sampling draws from torch's global RNG (which the trainer seeds).
        """
        import torch

        rows: list[_Row] = []
        for prompt_index, messages in enumerate(prompts):
            ids = self.encode_prompt(messages)
            rows.extend(_Row(prompt_index, sample, ids) for sample in range(params.n))
        # Similar lengths share a batch (less padding); the sort is stable, so the order is deterministic.
        rows.sort(key=lambda row: len(row.prompt_ids))

        device = self._device()
        generator = None
        if params.seed is not None:
            generator = torch.Generator(device=device)
            generator.manual_seed(params.seed)

        eos_ids = self._eos_ids()
        results: list[list[Generation | None]] = [[None] * params.n for _ in prompts]
        with self._generation_mode():
            for start in range(0, len(rows), self.batch_size):
                batch = rows[start : start + self.batch_size]
                for row, generation in zip(batch, self._sample_batch(batch, params, generator, eos_ids), strict=True):
                    results[row.prompt_index][row.sample_index] = generation
        return [[g for g in per_prompt if g is not None] for per_prompt in results]

    def _device(self) -> torch.device:
        import torch

        device = getattr(self.model, "device", None)
        if isinstance(device, torch.device):
            return device
        return next(self.model.parameters()).device

    @contextlib.contextmanager
    def _generation_mode(self) -> Iterator[None]:
        """Eval mode (no dropout; gradient checkpointing would disable the KV cache) and no autograd,
        restoring the caller's mode afterwards: the trainer's model is borrowed, not owned."""
        import torch

        was_training = bool(getattr(self.model, "training", False))
        self.model.eval()
        try:
            with torch.no_grad():
                yield
        finally:
            if was_training:
                self.model.train()

    def _forward(self, **inputs: Any) -> Any:
        """One forward pass; asks for the last position's logits only when the model supports it
        (the full prefill logits of a batch are batch x length x vocab floats)."""
        if self._supports_logits_to_keep is not False:
            try:
                output = self.model(**inputs, logits_to_keep=1)
                self._supports_logits_to_keep = True
                return output
            except TypeError:
                if self._supports_logits_to_keep:
                    raise
                self._supports_logits_to_keep = False
        return self.model(**inputs)

    def _sample_batch(
        self,
        batch: Sequence[_Row],
        params: SamplingParams,
        generator: torch.Generator | None,
        eos_ids: Sequence[int],
    ) -> list[Generation]:
        import torch

        device = self._device()
        pad_id = self._pad_id(eos_ids)
        width = max(len(row.prompt_ids) for row in batch)
        input_ids = torch.full((len(batch), width), pad_id, dtype=torch.long)
        attention_mask = torch.zeros((len(batch), width), dtype=torch.long)
        for i, row in enumerate(batch):
            if row.prompt_ids:
                input_ids[i, width - len(row.prompt_ids) :] = torch.tensor(row.prompt_ids, dtype=torch.long)
                attention_mask[i, width - len(row.prompt_ids) :] = 1
        input_ids, attention_mask = input_ids.to(device), attention_mask.to(device)
        position_ids = (attention_mask.cumsum(-1) - 1).clamp(min=0)
        eos = torch.tensor(list(eos_ids), dtype=torch.long, device=device)

        finished = torch.zeros(len(batch), dtype=torch.bool, device=device)
        lengths = torch.full((len(batch),), params.max_tokens, dtype=torch.long, device=device)
        tokens: list[torch.Tensor] = []
        logprobs: list[torch.Tensor] = []
        past = None
        step_ids, step_positions = input_ids, position_ids
        for step in range(params.max_tokens):
            output = self._forward(
                input_ids=step_ids,
                attention_mask=attention_mask,
                position_ids=step_positions,
                use_cache=True,
                **{self._cache_kwarg: past},
            )
            past = output.cache if getattr(output, "cache", None) is not None else output.past_key_values
            logits = output.logits[:, -1, :].float()
            token = _choose(logits, params, generator)
            token = torch.where(finished, torch.full_like(token, pad_id), token)
            tokens.append(token)
            logprobs.append(torch.log_softmax(logits, dim=-1).gather(-1, token[:, None]).squeeze(-1))
            done_now = ~finished & torch.isin(token, eos)
            lengths = torch.where(done_now, torch.full_like(lengths, step + 1), lengths)
            finished |= done_now
            if bool(finished.all()):
                break
            step_ids = token[:, None]
            step_positions = step_positions[:, -1:] + 1
            attention_mask = torch.cat([attention_mask, attention_mask.new_ones((len(batch), 1))], dim=1)

        all_tokens = torch.stack(tokens, dim=1).cpu().tolist()
        all_logprobs = torch.stack(logprobs, dim=1).cpu().tolist()
        lengths_list, finished_list = lengths.cpu().tolist(), finished.cpu().tolist()
        generations = []
        for i, row in enumerate(batch):
            length = min(lengths_list[i], len(all_tokens[i]))
            ids = all_tokens[i][:length]
            generations.append(
                Generation(
                    text=self._text_tokenizer.decode(ids, skip_special_tokens=True),
                    prompt_ids=tuple(row.prompt_ids),
                    token_ids=tuple(ids),
                    logprobs=tuple(all_logprobs[i][:length]),
                    finish_reason="stop" if finished_list[i] else "length",
                )
            )
        return generations


def _cache_kwarg(model: Any) -> str:
    """``cache`` in recent transformers (``past_key_values`` is deprecated there), else ``past_key_values``.

    Wrappers such as peft's take ``**kwargs``, so the wrapped model's signature decides.
    """
    import inspect

    inner = model.get_base_model() if hasattr(model, "get_base_model") else model
    try:
        parameters = inspect.signature(inner.forward).parameters
    except (TypeError, ValueError):
        return "past_key_values"
    return "cache" if "cache" in parameters else "past_key_values"


def _choose(logits: torch.Tensor, params: SamplingParams, generator: torch.Generator | None) -> torch.Tensor:
    """The next token of each row: argmax at temperature 0, else a sample after temperature and top-p."""
    import torch

    if params.temperature == 0:
        return logits.argmax(dim=-1)
    probs = torch.softmax(logits / params.temperature, dim=-1)
    if params.top_p < 1.0:
        sorted_probs, order = probs.sort(dim=-1, descending=True)
        # Keep the smallest prefix whose mass reaches top_p (the most likely token always stays).
        outside = (sorted_probs.cumsum(dim=-1) - sorted_probs) >= params.top_p
        sorted_probs = sorted_probs.masked_fill(outside, 0.0)
        picked = torch.multinomial(sorted_probs, 1, generator=generator)
        return order.gather(-1, picked).squeeze(-1)
    return torch.multinomial(probs, 1, generator=generator).squeeze(-1)
