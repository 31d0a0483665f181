"""OpenAIPolicy against a real OpenAI-compatible server: ``transformers serve`` on the tiny model.

The server is the one transformers ships (``transformers[serving]``, part of the train extra), started
on 127.0.0.1 and a free port, serving a local folder offline.  It ignores ``n`` and ``logprobs``, which
exercises the client's fallbacks (one request per missing sample; ``logprobs=None``).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("openai")

from policies.base import SamplingParams
from policies.errors import PolicyServerUnavailableError
from policies.openai_http import OpenAIPolicy
from sandbox.errors import SpadeError

START_SECONDS = 120
PROMPTS = [[{"role": "user", "content": "hello"}], [{"role": "user", "content": "two plus two?"}]]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def transformers_cli() -> str:
    beside = Path(sys.executable).parent / "transformers"
    found = str(beside) if beside.exists() else shutil.which("transformers")
    if not found:
        pytest.fail("the 'transformers' command is missing: pip install -e .[train] (it needs transformers[serving])")
    return found


def wait_healthy(url: str, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"transformers serve exited with {process.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    pytest.fail(f"transformers serve not healthy after {START_SECONDS} s:\n{log.read_text()[-3000:]}")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """(base_url, model name) of a running ``transformers serve``; stopped at teardown."""
    from policies.models import tiny_model

    folder = tmp_path_factory.mktemp("served-tiny")
    model, tokenizer = tiny_model(seed=0)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    port = free_port()
    command = [transformers_cli(), "serve", str(folder), "--host", "127.0.0.1", "--port", str(port), "--device", "cpu"]
    log = folder / "serve.log"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    with open(log, "wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    try:
        url = f"http://127.0.0.1:{port}"
        wait_healthy(url, process, log)
        yield f"{url}/v1", str(folder)
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_generations_come_back_per_prompt_with_n_samples(server: tuple[str, str]) -> None:
    base_url, model = server
    policy = OpenAIPolicy(base_url, model, timeout=60)
    out = policy.generate(PROMPTS, SamplingParams(n=2, temperature=0, max_tokens=8, seed=1))
    assert [len(per_prompt) for per_prompt in out] == [2, 2]
    for per_prompt in out:
        for generation in per_prompt:
            assert isinstance(generation.text, str)
            assert generation.finish_reason in {"stop", "length"}
            assert generation.token_ids is None  # the Chat Completions API carries no token ids
            assert generation.logprobs is None or len(generation.logprobs) >= 1
    # Greedy: the same request gives the same text, and both samples of a prompt agree.
    again = policy.generate(PROMPTS[:1], SamplingParams(n=1, temperature=0, max_tokens=8))
    assert again[0][0].text == out[0][0].text == out[0][1].text
    policy.close()


def test_an_unreachable_server_is_a_typed_error_after_retries() -> None:
    policy = OpenAIPolicy(f"http://127.0.0.1:{free_port()}/v1", "nothing", timeout=2, max_retries=1)
    with pytest.raises(PolicyServerUnavailableError) as info:
        policy.generate(PROMPTS[:1], SamplingParams(max_tokens=4))
    assert isinstance(info.value, SpadeError)
    assert info.value.attempts == 2
    assert "127.0.0.1" in str(info.value)
