"""HFPolicy on the tiny random model: batching, order, padding, log-probabilities, reproducibility."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from policies.base import Generation, SamplingParams  # noqa: E402
from policies.hf import HFPolicy  # noqa: E402

PROMPTS = [
    [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "A much longer question, " * 3 + "?"},
    ],
    [{"role": "user", "content": "hi"}],
    [
        {"role": "user", "content": "What next?"},
        {"role": "assistant", "content": "go"},
        {"role": "user", "content": "ok"},
    ],
]


@pytest.fixture
def policy(tiny: tuple) -> HFPolicy:
    model, tokenizer = tiny
    return HFPolicy(model, tokenizer, batch_size=4)


def recompute_logprobs(model, generation: Generation) -> list[float]:
    """Log-softmax of the raw logits over prompt + completion, unpadded, in one forward pass."""
    ids = torch.tensor([list(generation.prompt_ids) + list(generation.token_ids)])
    with torch.no_grad():
        logprobs = model(ids).logits[0].float().log_softmax(-1)
    start = len(generation.prompt_ids) - 1
    chosen = torch.tensor(generation.token_ids)[:, None]
    return logprobs[start : start + len(generation.token_ids)].gather(-1, chosen).squeeze(-1).tolist()


def test_batched_generation_has_n_per_prompt_in_prompt_order(policy: HFPolicy, tiny: tuple) -> None:
    _, tokenizer = tiny
    out = policy.generate(PROMPTS, SamplingParams(n=2, temperature=1.0, max_tokens=12, seed=7))
    assert [len(per_prompt) for per_prompt in out] == [2, 2, 2]
    for messages, per_prompt in zip(PROMPTS, out, strict=True):
        expected_prompt = policy.encode_prompt(messages)
        rendered = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
        assert tokenizer.decode(expected_prompt) == rendered
        for generation in per_prompt:
            assert list(generation.prompt_ids) == expected_prompt
            assert 1 <= len(generation.token_ids) <= 12
            assert len(generation.logprobs) == len(generation.token_ids)
            assert all(lp <= 0 for lp in generation.logprobs)
            assert generation.text == tokenizer.decode(list(generation.token_ids), skip_special_tokens=True)
            assert tokenizer.eos_token_id not in generation.token_ids[:-1]  # nothing after EOS
            ended = generation.token_ids[-1] == tokenizer.eos_token_id
            assert generation.finish_reason == ("stop" if ended else "length")
            if not ended:
                assert len(generation.token_ids) == 12


def test_logprobs_equal_a_forward_pass_on_the_unpadded_sequence(policy: HFPolicy, tiny: tuple) -> None:
    model, _ = tiny
    out = policy.generate(PROMPTS, SamplingParams(n=2, temperature=0.7, top_p=0.9, max_tokens=10, seed=3))
    for generation in (g for per_prompt in out for g in per_prompt):
        assert recompute_logprobs(model, generation) == pytest.approx(generation.logprobs, abs=1e-4)


def tokens(out: list[list[Generation]]) -> list[list[tuple[int, ...]]]:
    return [[g.token_ids for g in per_prompt] for per_prompt in out]


def test_greedy_is_deterministic_and_independent_of_batching(policy: HFPolicy, tiny: tuple) -> None:
    model, tokenizer = tiny
    params = SamplingParams(n=2, temperature=0, max_tokens=10)
    first = policy.generate(PROMPTS, params)
    assert tokens(policy.generate(PROMPTS, params)) == tokens(first)
    for per_prompt in first:
        # Log-probabilities agree to float rounding only: a row's position in the batch changes the
        # order of floating-point reductions (differences of about 1e-6 were seen).
        assert per_prompt[0].token_ids == per_prompt[1].token_ids
        assert per_prompt[0].logprobs == pytest.approx(per_prompt[1].logprobs, abs=1e-4)
    # One prompt alone (no left padding) gives the same tokens as inside the padded batch.
    alone = HFPolicy(model, tokenizer, batch_size=1).generate(PROMPTS[1:2], params)
    assert alone[0][0].token_ids == first[1][0].token_ids
    assert alone[0][0].logprobs == pytest.approx(first[1][0].logprobs, abs=1e-4)


def test_tiny_top_p_keeps_only_the_most_likely_token(policy: HFPolicy) -> None:
    greedy = policy.generate(PROMPTS, SamplingParams(temperature=0, max_tokens=8))
    nucleus = policy.generate(PROMPTS, SamplingParams(temperature=1.0, top_p=1e-6, max_tokens=8, seed=5))
    assert [g[0].token_ids for g in nucleus] == [g[0].token_ids for g in greedy]


def test_seed_makes_sampling_reproducible(policy: HFPolicy) -> None:
    params = SamplingParams(n=2, temperature=1.0, max_tokens=12, seed=11)
    first = policy.generate(PROMPTS, params)
    assert tokens(policy.generate(PROMPTS, params)) == tokens(first)
    other = policy.generate(PROMPTS, SamplingParams(n=2, temperature=1.0, max_tokens=12, seed=12))
    assert tokens(other) != tokens(first)
    ids = {g.token_ids for per_prompt in first for g in per_prompt}
    assert len(ids) > 1  # the n samples differ from one another


def test_generation_stops_at_eos_and_keeps_it() -> None:
    from policies.models import tiny_model

    model, tokenizer = tiny_model(seed=0)
    policy = HFPolicy(model, tokenizer)
    params = SamplingParams(temperature=0, max_tokens=10)
    free = policy.generate(PROMPTS[1:2], params)[0][0]
    stop_token = free.token_ids[3]
    model.generation_config.eos_token_id = [tokenizer.eos_token_id, stop_token]
    stopped = policy.generate(PROMPTS[1:2], params)[0][0]
    cut = free.token_ids.index(stop_token) + 1
    assert stopped.token_ids == free.token_ids[:cut]
    assert stopped.finish_reason == "stop"
    assert stopped.logprobs == pytest.approx(free.logprobs[:cut])


def test_a_training_model_is_borrowed_not_changed(tiny: tuple) -> None:
    from policies.models import tiny_model

    model, tokenizer = tiny_model(seed=1)
    model.train()
    before = {name: p.detach().clone() for name, p in model.named_parameters()}
    HFPolicy(model, tokenizer).generate(PROMPTS[:1], SamplingParams(max_tokens=4, seed=0))
    assert model.training
    assert all(p.grad is None for p in model.parameters())
    assert all(torch.equal(before[name], p) for name, p in model.named_parameters())


def test_saved_tiny_model_reloads_through_from_pretrained(tiny: tuple, tmp_path) -> None:
    model, tokenizer = tiny
    model.save_pretrained(tmp_path)
    tokenizer.save_pretrained(tmp_path)
    loaded = HFPolicy.from_pretrained(tmp_path, device="cpu")
    params = SamplingParams(temperature=0, max_tokens=6)
    original = HFPolicy(model, tokenizer).generate(PROMPTS[:2], params)
    reloaded = loaded.generate(PROMPTS[:2], params)
    assert tokens(reloaded) == tokens(original)
    assert reloaded[0][0].logprobs == pytest.approx(original[0][0].logprobs, abs=1e-4)
