"""A policy behind any OpenAI-compatible chat server (vLLM, SGLang, ``transformers serve``, llama.cpp ...).

It uses the official ``openai`` client, so retries with back-off, timeouts and error classes are the
client's own; what this module adds is the mapping to :class:`~policies.base.Generation` and typed
errors.  Servers differ in what they honour, and the class adapts instead of failing:

- ``n``: a server that returns fewer choices than asked (``transformers serve`` ignores ``n``) is asked
  again for the rest, with ``seed + k`` on the k-th extra request so that seeded samples still differ;
- ``logprobs``: requested; a server that rejects the field is asked again without it (and never again),
  and a server that ignores it yields ``logprobs=None``;
- token ids: the Chat Completions API has none.  With ``return_token_ids=True`` the request carries vLLM's
  extension of that name, and ``prompt_ids``/``token_ids`` are filled when the server answers with them;
  otherwise they are ``None``.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from policies.base import Generation, Message, SamplingParams
from policies.errors import BackendNotInstalledError, PolicyRequestError, PolicyServerUnavailableError


class OpenAIPolicy:
    """Chat completions from ``base_url`` (for example ``http://127.0.0.1:8000/v1``) with ``model``.

    Prompts are sent concurrently (up to ``concurrency`` requests in flight), since servers batch
    concurrent requests; results come back in prompt order.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str = "EMPTY",
        timeout: float = 60,
        max_retries: int = 3,
        concurrency: int = 8,
        return_token_ids: bool = False,
    ) -> None:
        try:
            import openai
        except ImportError as exc:  # pragma: no cover - openai is in the [train] extra
            raise BackendNotInstalledError(
                "the OpenAI HTTP backend needs the 'openai' package: pip install -e .[train]"
            ) from exc
        self._openai = openai
        self.base_url = base_url
        self.model = model
        self.max_retries = max_retries
        self.concurrency = max(1, concurrency)
        self.return_token_ids = return_token_ids
        self.name = f"openai:{base_url}#{model}"
        self._client = openai.OpenAI(base_url=base_url, api_key=api_key, timeout=timeout, max_retries=max_retries)
        self._logprobs_supported = True
        self._lock = threading.Lock()

    def generate(self, prompts: Sequence[Sequence[Message]], params: SamplingParams) -> list[list[Generation]]:
        """``params.n`` generations per prompt, in prompt order."""
        if not prompts:
            return []
        if len(prompts) == 1 or self.concurrency == 1:
            return [self._complete(messages, params) for messages in prompts]
        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(prompts))) as pool:
            return list(pool.map(lambda messages: self._complete(messages, params), prompts))

    def close(self) -> None:
        """Close the client's connection pool."""
        self._client.close()

    def _complete(self, messages: Sequence[Message], params: SamplingParams) -> list[Generation]:
        generations: list[Generation] = []
        request = 0
        while len(generations) < params.n:
            want = params.n - len(generations)
            seed = None if params.seed is None else params.seed + request
            response = self._create(messages, want, params, seed)
            if not response.choices:
                raise PolicyRequestError(self.base_url, None, "the response has no choices")
            prompt_ids = _extra(response, "prompt_token_ids")
            choices = sorted(response.choices, key=lambda choice: choice.index)[:want]
            generations.extend(_to_generation(choice, prompt_ids) for choice in choices)
            request += 1
        return generations

    def _create(self, messages: Sequence[Message], n: int, params: SamplingParams, seed: int | None) -> Any:
        openai = self._openai
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": [dict(message) for message in messages],
            "temperature": params.temperature,
            "max_tokens": params.max_tokens,
            "top_p": params.top_p,
        }
        if n > 1:  # some servers reject the field altogether
            kwargs["n"] = n
        if seed is not None:
            kwargs["seed"] = seed
        if self.return_token_ids:
            kwargs["extra_body"] = {"return_token_ids": True}
        with self._lock:
            ask_logprobs = self._logprobs_supported
        try:
            try:
                return self._client.chat.completions.create(**kwargs, **({"logprobs": True} if ask_logprobs else {}))
            except openai.BadRequestError as exc:
                if not ask_logprobs or "logprob" not in str(exc).lower():
                    raise
                with self._lock:
                    self._logprobs_supported = False
                return self._client.chat.completions.create(**kwargs)
        except openai.APIConnectionError as exc:  # also covers timeouts
            raise PolicyServerUnavailableError(self.base_url, self.max_retries + 1, exc) from exc
        except openai.APIStatusError as exc:
            raise PolicyRequestError(self.base_url, exc.status_code, exc.message) from exc


def _extra(obj: Any, key: str) -> Any:
    """A field outside the OpenAI schema (a server extension), or None."""
    extra = getattr(obj, "model_extra", None) or {}
    return extra.get(key)


def _to_generation(choice: Any, prompt_ids: Sequence[int] | None) -> Generation:
    logprobs = None
    content = getattr(choice.logprobs, "content", None) if choice.logprobs is not None else None
    if content:
        logprobs = tuple(float(item.logprob) for item in content)
    token_ids = _extra(choice, "token_ids")
    return Generation(
        text=choice.message.content or "",
        prompt_ids=tuple(prompt_ids) if prompt_ids is not None else None,
        token_ids=tuple(token_ids) if token_ids is not None else None,
        logprobs=logprobs,
        finish_reason=choice.finish_reason or "stop",
    )
