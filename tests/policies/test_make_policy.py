"""make_policy's spec strings, and the package's promise to import without torch."""

from __future__ import annotations

import subprocess
import sys

import pytest

from policies import InvalidPolicySpecError, PolicyError, make_policy
from sandbox.errors import SpadeError


def test_package_imports_without_torch() -> None:
    code = (
        "import sys, policies, policies.models, policies.hf, policies.openai_http, policies.vllm_offline; "
        "assert 'torch' not in sys.modules and 'transformers' not in sys.modules and 'vllm' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize(
    "spec", ["", "nonsense", "/no/such/folder", "openai:http://127.0.0.1:1/v1", "openai:#m", "vllm:"]
)
def test_bad_specs_are_typed_errors(spec: str) -> None:
    with pytest.raises(InvalidPolicySpecError) as info:
        make_policy(spec)
    assert isinstance(info.value, SpadeError) and isinstance(info.value, ValueError)


def test_openai_spec_builds_a_client_without_contacting_the_server() -> None:
    pytest.importorskip("openai")
    from policies.openai_http import OpenAIPolicy

    policy = make_policy("openai:http://127.0.0.1:9/v1#my-model")
    assert isinstance(policy, OpenAIPolicy)
    assert (policy.base_url, policy.model) == ("http://127.0.0.1:9/v1", "my-model")


def test_tiny_and_folder_specs_give_hf_policies(tmp_path) -> None:
    pytest.importorskip("torch")
    from policies.hf import HFPolicy
    from policies.models import tiny_model

    assert isinstance(make_policy("tiny"), HFPolicy)
    model, tokenizer = tiny_model()
    model.save_pretrained(tmp_path)
    tokenizer.save_pretrained(tmp_path)
    assert isinstance(make_policy(str(tmp_path)), HFPolicy)
    assert isinstance(make_policy(f"hf:{tmp_path}"), HFPolicy)


def test_errors_share_a_root() -> None:
    assert issubclass(PolicyError, SpadeError)
