"""The command line, through typer's runner: JSON shapes, exit codes, clear usage errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from spade.cli import app

ROOT = Path(__file__).resolve().parents[2]
COUNTER = ROOT / "examples" / "envs" / "counter.py"
runner = CliRunner()


def _json(result):
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_doctor_says_the_default_backend_is_safe_here():
    report = _json(runner.invoke(app, ["doctor", "--json"]))
    assert report["safe"] is True
    names = {check["name"]: check["passed"] for check in report["checks"]}
    assert names["jailed session"] and names["nsjail binary"] and names["seccomp"]


@pytest.mark.parametrize("backend", ["nsjail", "wasm"])
def test_play_prints_one_transcript_object(backend):
    report = _json(runner.invoke(app, ["play", str(COUNTER), "--seed", "3", "-a", "inc", "-a", "inc", "-a", "inc", "--backend", backend, "--json"]))
    assert len(report["env"]["sha256"]) == 64 and report["seed"] == 3
    assert [s["call"] for s in report["steps"]] == ["reset", "step", "step", "step"]
    assert [s["action"] for s in report["steps"][1:]] == ["inc", "inc", "inc"]
    assert report["steps"][-1]["terminated"] is True and report["steps"][-1]["reward"] == 1.0
    assert report["outcome"] == "ok"


def test_play_reports_a_failing_program_and_still_exits_zero(tmp_path):
    program = tmp_path / "loop.py"
    program.write_text("class LoopEnv:\n    def reset(self, seed=None):\n        while True:\n            pass\n    def step(self, a):\n        pass\n")
    report = _json(runner.invoke(app, ["play", str(program), "--json"]))
    assert report["outcome"] == "timeout" and report["steps"][0]["call"] == "reset"


def test_play_usage_errors_exit_two(tmp_path):
    assert runner.invoke(app, ["play", str(tmp_path / "missing.py")]).exit_code == 2
    assert runner.invoke(app, ["play", str(COUNTER), "--backend", "docker"]).exit_code == 2


def test_validate_json_and_pool_commands(tmp_path):
    broken = ROOT / "examples" / "broken" / "static_forbidden_import.py"
    pool = tmp_path / "pool"
    report = _json(runner.invoke(app, ["validate", str(COUNTER), str(broken), "--pool", str(pool), "--json"]))
    assert [entry["admitted"] for entry in report] == [True, False]
    assert set(report[0]) == {"path", "sha256", "admitted", "gates"}
    assert set(report[0]["gates"][0]) == {"name", "passed", "detail", "counterexample"}
    assert report[1]["gates"][-1]["name"] == "static" and report[1]["gates"][-1]["passed"] is False
    listed = _json(runner.invoke(app, ["pool", "list", "--pool", str(pool), "--json"]))
    assert [e["sha256"] for e in listed] == [report[0]["sha256"]]
    everything = _json(runner.invoke(app, ["pool", "list", "--pool", str(pool), "--all", "--json"]))
    assert len(everything) == 2
    shown = _json(runner.invoke(app, ["pool", "show", report[0]["sha256"][:8], "--pool", str(pool), "--json"]))
    assert shown["source"].startswith("HINT") and shown["verdict"]["admitted"] is True
    exported = runner.invoke(app, ["pool", "export", str(tmp_path / "out"), "--pool", str(pool)])
    assert exported.exit_code == 0 and (tmp_path / "out" / f"{report[0]['sha256']}.py").exists()


def test_validate_and_pool_usage_errors(tmp_path):
    assert runner.invoke(app, ["validate", str(tmp_path / "nothing")]).exit_code == 2
    (tmp_path / "empty").mkdir()
    assert runner.invoke(app, ["validate", str(tmp_path / "empty")]).exit_code == 2
    missing = runner.invoke(app, ["pool", "list", "--pool", str(tmp_path / "nopool")])
    assert missing.exit_code == 2 and "holds no pool" in missing.output
