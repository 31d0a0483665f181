"""VLLMPolicy: runs only where vLLM is installed (GPU machines); elsewhere a typed install hint."""

from __future__ import annotations

import importlib

import pytest

from policies.base import SamplingParams
from policies.errors import BackendNotInstalledError

SKIP_REASON = "vllm not installed (GPU machines: pip install -e .[vllm])"


def vllm_importable() -> bool:
    try:
        importlib.import_module("vllm")
    except ImportError:
        return False
    return True


def test_missing_vllm_is_a_typed_error_with_the_install_hint() -> None:
    if vllm_importable():
        pytest.skip("vllm is installed here")
    from policies.vllm_offline import VLLMPolicy

    with pytest.raises(BackendNotInstalledError, match=r"pip install -e \.\[vllm\]"):
        VLLMPolicy("/nonexistent")


@pytest.mark.gpu
@pytest.mark.slow
def test_vllm_generates_ids_and_chosen_token_logprobs() -> None:
    if not vllm_importable():
        pytest.skip(SKIP_REASON)
    from policies.models import default_model_dir
    from policies.vllm_offline import VLLMPolicy

    policy = VLLMPolicy(default_model_dir(), gpu_memory_utilization=0.3, max_model_len=2048, enforce_eager=True)
    prompts = [[{"role": "user", "content": "What is the capital of France?"}], [{"role": "user", "content": "Hi"}]]
    out = policy.generate(prompts, SamplingParams(n=2, temperature=1.0, max_tokens=16, seed=0))
    assert [len(per_prompt) for per_prompt in out] == [2, 2]
    for messages, per_prompt in zip(prompts, out, strict=True):
        for generation in per_prompt:
            assert list(generation.prompt_ids) == policy.encode_prompt(messages)
            assert len(generation.logprobs) == len(generation.token_ids) >= 1
            assert all(lp <= 0 for lp in generation.logprobs)
            assert generation.finish_reason in {"stop", "length"}
    greedy = policy.generate(prompts[:1], SamplingParams(temperature=0, max_tokens=16))
    assert "Paris" in greedy[0][0].text
