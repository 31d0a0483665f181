"""A policy on vLLM's offline engine (``vllm.LLM``) in this process: the fast path on a GPU machine.

vLLM is an optional extra (``pip install -e .[vllm]``, CUDA only) and is imported when the policy is
built, never when this module is imported.  Prompts are rendered with the model's chat template and
tokenised here, exactly as :class:`~policies.hf.HFPolicy` does, and handed to vLLM as token ids, so both
backends agree on ``prompt_ids``.  ``logprobs=0`` makes vLLM return the log-probability of each sampled
token only; vLLM's default ``logprobs_mode`` ("raw_logprobs") computes it from the raw logits, before
temperature and top-p, which is the same quantity :class:`~policies.hf.HFPolicy` returns.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from policies.base import Generation, Message, SamplingParams
from policies.errors import BackendNotInstalledError

INSTALL_HINT = "vllm is not installed; on a GPU machine: pip install -e .[vllm]"


def import_vllm() -> Any:
    """The ``vllm`` module, or a :class:`BackendNotInstalledError` that says how to install it."""
    try:
        import vllm
    except ImportError as exc:
        raise BackendNotInstalledError(f"{INSTALL_HINT} ({exc})") from exc
    return vllm


class VLLMPolicy:
    """``vllm.LLM(model=model_path, **engine_kwargs)``; ``generate`` returns ids, text and log-probs."""

    def __init__(self, model_path: str | os.PathLike[str], **engine_kwargs: Any) -> None:
        self._vllm = import_vllm()
        self.model_path = str(model_path)
        self.name = f"vllm:{self.model_path}"
        self.llm = self._vllm.LLM(model=self.model_path, **engine_kwargs)
        self.tokenizer = self.llm.get_tokenizer()

    def encode_prompt(self, messages: Sequence[Message]) -> list[int]:
        """The prompt's token ids: chat template with the generation prompt, no added special tokens."""
        text = self.tokenizer.apply_chat_template(list(messages), add_generation_prompt=True, tokenize=False)
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def generate(self, prompts: Sequence[Sequence[Message]], params: SamplingParams) -> list[list[Generation]]:
        """``params.n`` generations per prompt, in prompt order."""
        if not prompts:
            return []
        sampling = self._vllm.SamplingParams(
            n=params.n,
            temperature=params.temperature,
            top_p=params.top_p,
            max_tokens=params.max_tokens,
            seed=params.seed,
            logprobs=0,
        )
        inputs = [{"prompt_token_ids": self.encode_prompt(messages)} for messages in prompts]
        outputs = self.llm.generate(inputs, sampling, use_tqdm=False)
        return [
            [_to_generation(request.prompt_token_ids, completion) for completion in request.outputs]
            for request in outputs
        ]


def _to_generation(prompt_ids: Sequence[int], completion: Any) -> Generation:
    token_ids = tuple(int(t) for t in completion.token_ids)
    logprobs = None
    if completion.logprobs is not None:
        logprobs = tuple(float(step[token].logprob) for step, token in zip(completion.logprobs, token_ids, strict=True))
    return Generation(
        text=completion.text,
        prompt_ids=tuple(int(t) for t in prompt_ids),
        token_ids=token_ids,
        logprobs=logprobs,
        finish_reason=completion.finish_reason or "stop",
    )
