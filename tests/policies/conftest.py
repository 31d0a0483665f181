"""Fixtures for the model backends: nothing may reach a model hub, and the tiny model is shared."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture(scope="session")
def tiny() -> tuple:
    """(model, tokenizer) of the tiny random Llama; tests must not change it."""
    from policies.models import tiny_model

    return tiny_model(seed=0)
