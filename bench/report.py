"""The report: one JSON object with stable keys, ratios computed from it, and a reason for every null."""

from __future__ import annotations

from typing import Any

from bench.backends import BACKENDS
from bench.config import BenchConfig
from bench.throughput import IMPLEMENTATIONS

SCHEMA = 1
COLD_START_KEYS = ("inprocess", "process", "process_warm", "nsjail", "nsjail_warm", "wasm", "wasm_warm")
STEP_KEYS = ("inprocess", "process", "nsjail", "wasm")
FIGURE_SECTIONS = ("cold_start_ms", "step_us", "throughput", "validate_per_min", "step_profile")

Path = tuple[str, ...]

RATIOS: dict[str, tuple[Path, Path, str]] = {
    "pool_nsjail_vs_gym_async_8": (
        ("throughput", "8", "pool_nsjail"),
        ("throughput", "8", "gym_async"),
        "steps/s at 8 envs: EnvPool on nsjail / Gymnasium AsyncVectorEnv (unisolated); >1 is faster",
    ),
    "pool_nsjail_vs_gym_async_64": (
        ("throughput", "64", "pool_nsjail"),
        ("throughput", "64", "gym_async"),
        "steps/s at 64 envs: EnvPool on nsjail / AsyncVectorEnv; >1 is faster",
    ),
    "pool_nsjail_vs_gym_sync_8": (
        ("throughput", "8", "pool_nsjail"),
        ("throughput", "8", "gym_sync"),
        "steps/s at 8 envs: EnvPool on nsjail / SyncVectorEnv (unisolated, in-process)",
    ),
    "pool_nsjail_vs_inprocess_8": (
        ("throughput", "8", "pool_nsjail"),
        ("throughput", "8", "inprocess"),
        "steps/s at 8 envs: EnvPool on nsjail / a plain in-process loop (the floor)",
    ),
    "pool_nsjail_vs_pool_process_8": (
        ("throughput", "8", "pool_nsjail"),
        ("throughput", "8", "pool_process"),
        "steps/s at 8 envs: the jail's cost in a pool (nsjail / unjailed subprocess)",
    ),
    "pool_nsjail_vs_pool_process_64": (
        ("throughput", "64", "pool_nsjail"),
        ("throughput", "64", "pool_process"),
        "steps/s at 64 envs: nsjail / unjailed subprocess",
    ),
    "pool_wasm_vs_pool_nsjail_8": (
        ("throughput", "8", "pool_wasm"),
        ("throughput", "8", "pool_nsjail"),
        "steps/s at 8 envs: EnvPool on wasm / on nsjail",
    ),
    "nsjail_warm_vs_process_cold_start": (
        ("cold_start_ms", "nsjail_warm", "p50"),
        ("cold_start_ms", "process", "p50"),
        "p50 cold start: nsjail from a warm pool / unjailed subprocess started cold; <1 is faster",
    ),
    "nsjail_cold_vs_warm_cold_start": (
        ("cold_start_ms", "nsjail", "p50"),
        ("cold_start_ms", "nsjail_warm", "p50"),
        "p50 cold start: nsjail cold / nsjail warm (the warm pool's speed-up)",
    ),
    "nsjail_vs_process_cold_start": (
        ("cold_start_ms", "nsjail", "p50"),
        ("cold_start_ms", "process", "p50"),
        "p50 cold start, both cold: nsjail / unjailed subprocess (the jail's set-up cost)",
    ),
    "wasm_warm_vs_nsjail_warm_cold_start": (
        ("cold_start_ms", "wasm_warm", "p50"),
        ("cold_start_ms", "nsjail_warm", "p50"),
        "p50 cold start from warm pools: wasm / nsjail",
    ),
    "nsjail_vs_process_step": (
        ("step_us", "nsjail", "p50"),
        ("step_us", "process", "p50"),
        "p50 step round trip: nsjail / unjailed subprocess (the jail's per-step cost)",
    ),
    "nsjail_vs_inprocess_step": (
        ("step_us", "nsjail", "p50"),
        ("step_us", "inprocess", "p50"),
        "p50 step: nsjail round trip / the program's own step in-process",
    ),
    "validate_wasm_vs_nsjail": (
        ("validate_per_min", "wasm"),
        ("validate_per_min", "nsjail"),
        "programs validated per minute: wasm / nsjail",
    ),
    "wasm_vs_nsjail_step": (
        ("step_us", "wasm", "p50"),
        ("step_us", "nsjail", "p50"),
        "p50 step round trip: wasm / nsjail",
    ),
}


def skeleton(config: BenchConfig) -> dict[str, Any]:
    """Every key a report has, figures null until measured."""
    return {
        "schema": SCHEMA,
        "ratios": dict.fromkeys(RATIOS),
        "cold_start_ms": dict.fromkeys(COLD_START_KEYS),
        "step_us": dict.fromkeys(STEP_KEYS),
        "throughput": {str(size): dict.fromkeys(IMPLEMENTATIONS) for size in config.sizes},
        "validate_per_min": dict.fromkeys(BACKENDS),
        "step_profile": {"env": None, "backends": dict.fromkeys(BACKENDS)},
        "unavailable": {},
        "ratio_meaning": {name: meaning for name, (_, _, meaning) in RATIOS.items()},
        "config": {},
        "machine": {},
        "notes": [],
        "task_seconds": {},
        "elapsed_s": None,
    }


def get(report: dict[str, Any], path: Path) -> Any:
    node: Any = report
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node


def put(report: dict[str, Any], path: Path, value: Any) -> None:
    node = report
    for key in path[:-1]:
        node = node.setdefault(key, {})
    node[path[-1]] = value


def dotted(path: Path) -> str:
    return ".".join(path)


def compute_ratios(report: dict[str, Any]) -> None:
    """Fill ``ratios`` from the figures; a ratio with a null side is null with that side's reason."""
    unavailable = report["unavailable"]
    for name, (top, bottom, _) in RATIOS.items():
        a, b = get(report, top), get(report, bottom)
        if isinstance(a, (int, float)) and isinstance(b, (int, float)) and b > 0:
            report["ratios"][name] = round(a / b, 3)
            continue
        report["ratios"][name] = None
        missing = top if not isinstance(a, (int, float)) else bottom
        reason = reason_for(report, missing[:-1] if missing[-1] == "p50" else missing)
        unavailable[f"ratios.{name}"] = f"{dotted(missing)} is null" + (f" ({reason})" if reason else "")


def reason_for(report: dict[str, Any], path: Path) -> str | None:
    """The recorded reason for a null at ``path``: its own, an enclosing section's, or its backend's."""
    unavailable = report["unavailable"]
    for cut in range(len(path), 0, -1):
        reason = unavailable.get(dotted(path[:cut]))
        if reason:
            return reason
    for part in reversed(path):
        for backend in BACKENDS:
            if part in (backend, f"{backend}_warm", f"pool_{backend}") and backend in unavailable:
                return f"{backend} backend unavailable: {unavailable[backend]}"
    return None


def null_paths(node: Any, prefix: Path = ()) -> list[Path]:
    """Paths of null figures (a null leaf, or a null where a figure dict belongs)."""
    if node is None:
        return [prefix]
    if isinstance(node, dict):
        found: list[Path] = []
        for key, value in node.items():
            found += null_paths(value, (*prefix, str(key)))
        return found
    return []


def explain_nulls(report: dict[str, Any]) -> None:
    """Give every null figure its own entry in ``unavailable`` (so no null is left without a reason)."""
    for section in FIGURE_SECTIONS:
        for path in null_paths(report[section], (section,)):
            key = dotted(path)
            if key not in report["unavailable"]:
                fallback = (
                    "not visible through the session's internals"
                    if section == "step_profile"
                    else "not measured (no reason recorded)"
                )
                report["unavailable"][key] = reason_for(report, path) or fallback
