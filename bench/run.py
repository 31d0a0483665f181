"""One benchmark run: plan the measurements, run them in order, and assemble the report."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from bench import cold_start, step, throughput
from bench._progress import ProgressHook, no_progress
from bench.backends import BACKENDS, probe, quiet
from bench.config import BenchConfig
from bench.envs import BenchEnv, pick_envs
from bench.machine import load_average, machine_facts
from bench.report import Path, compute_ratios, dotted, explain_nulls, put, skeleton
from bench.validation import measure_validation

NOISE_NOTE = (
    "Shared machines are noisy (other work may use the CPUs during a run): compare ratios within one run, "
    "not absolute figures across runs."
)


WASM_PROFILE_NOTE = (
    "Step profile: the guest-side parts are timed on native CPython; a wasm guest runs the same code on "
    "CPython compiled to WASI, so its slower interpreter shows up in the wasm column's transport remainder."
)


@dataclass(frozen=True)
class Task:
    """One measurement: where its figure goes and how to get it."""

    label: str
    path: Path
    measure: Callable[[], Any]


def plan(config: BenchConfig, envs: list[BenchEnv], usable: list[str]) -> list[Task]:
    """The measurements of ``config``'s sections, on the backends that can start here."""
    floor = envs[0]
    tasks: list[Task] = []
    if "cold_start" in config.sections:
        tasks.append(
            Task(
                "cold start: in-process",
                ("cold_start_ms", "inprocess"),
                lambda: cold_start.inprocess(floor, config.inprocess_cold_samples),
            )
        )
        for backend in usable:
            tasks.append(
                Task(
                    f"cold start: {backend}",
                    ("cold_start_ms", backend),
                    lambda b=backend: cold_start.sandboxed(b, floor, config.cold_samples),
                )
            )
            tasks.append(
                Task(
                    f"cold start: {backend}, warm pool of {config.warm}",
                    ("cold_start_ms", f"{backend}_warm"),
                    lambda b=backend: cold_start.sandboxed(b, floor, config.cold_samples, warm=config.warm),
                )
            )
    if "step" in config.sections:
        tasks.append(
            Task("step: in-process", ("step_us", "inprocess"), lambda: step.inprocess(floor, config.step_samples))
        )
        for backend in usable:
            tasks.append(
                Task(
                    f"step: {backend}",
                    ("step_us", backend),
                    lambda b=backend: step.sandboxed(b, floor, config.step_samples),
                )
            )
    if "throughput" in config.sections:
        for size in config.sizes:
            for name in throughput.IMPLEMENTATIONS:
                if name.startswith("pool_") and (
                    name.removeprefix("pool_") not in usable or size > config.max_pool_size
                ):
                    continue
                tasks.append(
                    Task(
                        f"throughput: {name} x{size}",
                        ("throughput", str(size), name),
                        lambda n=name, s=size: throughput.measure(
                            n, envs, s, config.repeats, config.seconds_per_repeat
                        ),
                    )
                )
    if "validation" in config.sections:
        for backend in BACKENDS:
            tasks.append(
                Task(
                    f"validation: {backend}",
                    ("validate_per_min", backend),
                    lambda b=backend: measure_validation(b, envs, config.validation_seconds, config.validation_budget),
                )
            )
    if "profile" in config.sections and usable:
        tasks.append(
            Task(
                "step profile",
                ("step_profile",),
                lambda: _profile(floor, usable, config),
            )
        )
    return tasks


def _profile(env: BenchEnv, backends: list[str], config: BenchConfig) -> dict[str, Any]:
    from bench.profile_step import profile_step  # also a script (python -m bench.profile_step)

    return profile_step(env, backends, config.profile_steps, config.timeit_number)


def _run(task: Task, report: dict[str, Any]) -> None:
    try:
        value = task.measure()
    except Exception as exc:
        put(report, task.path, None)
        report["unavailable"][dotted(task.path)] = f"{type(exc).__name__}: {exc}"[:500]
        return
    if task.path[0] == "validate_per_min":
        value, reason = value
        if reason:
            report["unavailable"][dotted(task.path)] = reason
    put(report, task.path, value)


def run_bench(config: BenchConfig | None = None, progress: ProgressHook = no_progress) -> dict[str, Any]:
    """Run the benchmark and return its report (a JSON-ready dict with stable keys)."""
    config = config or BenchConfig()
    started = time.monotonic()
    report = skeleton(config)
    report["machine"] = machine_facts()
    with quiet():
        status = probe()
        envs, notes = pick_envs(count=config.envs)
    for backend, reason in status.items():
        if reason is not None:
            report["unavailable"][backend] = reason
    for section, key in (
        ("cold_start", "cold_start_ms"),
        ("step", "step_us"),
        ("throughput", "throughput"),
        ("validation", "validate_per_min"),
        ("profile", "step_profile"),
    ):
        if section not in config.sections:
            report["unavailable"][key] = f"section not run (--only {','.join(config.sections)})"
    usable = [name for name in BACKENDS if status[name] is None]
    if "throughput" in config.sections:
        for size in config.sizes:
            if size > config.max_pool_size:
                for backend in usable:
                    report["unavailable"][f"throughput.{size}.pool_{backend}"] = (
                        f"skipped: this run starts at most {config.max_pool_size} sandboxes per pool (--quick); the full run measures it"
                    )
    tasks = plan(config, envs, usable)
    seconds: dict[str, float] = {}
    for index, task in enumerate(tasks):
        progress(task.label, index, len(tasks))
        begun = time.monotonic()
        _run(task, report)
        seconds[task.label] = round(time.monotonic() - begun, 2)
    progress("done", len(tasks), len(tasks))
    compute_ratios(report)
    explain_nulls(report)
    report["config"] = {**asdict(config), "envs": [env.to_dict() for env in envs], "backends": usable}
    report["notes"] = [*notes, NOISE_NOTE]
    if (report["step_profile"] or {}).get("backends", {}).get("wasm"):
        report["notes"].append(WASM_PROFILE_NOTE)
    report["machine"]["load_average_end"] = load_average()
    report["task_seconds"] = seconds
    report["elapsed_s"] = round(time.monotonic() - started, 1)
    return report
