"""Language-model backends behind one small interface (see :mod:`policies.base`).

Heavy backends (transformers, vLLM, HTTP) import their libraries when a policy is built, not when
this package is imported: it imports without torch.
:func:`make_policy` builds any of them from a short spec string, as given on the command line.
"""

from __future__ import annotations

from pathlib import Path

from policies.base import Generation, Message, Policy, SamplingParams
from policies.errors import (
    BackendNotInstalledError,
    InvalidPolicySpecError,
    ModelUnavailableError,
    PolicyError,
    PolicyRequestError,
    PolicyServerUnavailableError,
)
from policies.hf import HFPolicy
from policies.openai_http import OpenAIPolicy
from policies.scripted import ScriptedPolicy
from policies.vllm_offline import VLLMPolicy

SPEC_HELP = (
    "'default' (SmolLM2-135M-Instruct, offline), 'tiny' (random test model), a local model folder "
    "(or 'hf:FOLDER'), 'openai:http://HOST:PORT/v1#MODEL' or 'vllm:FOLDER'"
)


def make_policy(spec: str) -> Policy:
    """Build a policy from a spec: see :data:`SPEC_HELP`.

    In-process backends load their model here; the HTTP backend only builds a client (an unreachable
    server shows up on the first call as :class:`PolicyServerUnavailableError`).
    """
    spec = spec.strip()
    if spec.startswith("openai:"):
        url, sep, model = spec.removeprefix("openai:").rpartition("#")
        if not sep or not url or not model:
            raise InvalidPolicySpecError(f"expected 'openai:http://HOST:PORT/v1#MODEL', got {spec!r}")
        return OpenAIPolicy(url, model)
    if spec.startswith("vllm:"):
        path = spec.removeprefix("vllm:")
        if not path:
            raise InvalidPolicySpecError(f"expected 'vllm:FOLDER', got {spec!r}")
        return VLLMPolicy(path)
    if spec == "tiny":
        from policies.models import tiny_model

        model, tokenizer = tiny_model()
        return HFPolicy(model, tokenizer, name="tiny")
    path = spec.removeprefix("hf:")
    if path == "default" or (path and (Path(path).expanduser() / "config.json").is_file()):
        return HFPolicy.from_pretrained(path)
    raise InvalidPolicySpecError(
        f"unknown policy spec {spec!r} (not a model folder with a config.json): use {SPEC_HELP}"
    )


__all__ = [
    "SPEC_HELP",
    "BackendNotInstalledError",
    "Generation",
    "HFPolicy",
    "InvalidPolicySpecError",
    "Message",
    "ModelUnavailableError",
    "OpenAIPolicy",
    "Policy",
    "PolicyError",
    "PolicyRequestError",
    "PolicyServerUnavailableError",
    "SamplingParams",
    "ScriptedPolicy",
    "VLLMPolicy",
    "make_policy",
]
