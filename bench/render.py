"""A report as tables: rich tables for the terminal, Markdown for the README (ratios first in both)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bench._breakdown import LINES, breakdown_rows
from bench.report import COLD_START_KEYS, STEP_KEYS, get
from bench.throughput import IMPLEMENTATIONS

LABELS = {
    "inprocess": "in-process (floor, unisolated)",
    "process": "process (subprocess, unjailed), cold",
    "process_warm": "process, warm pool",
    "nsjail": "nsjail, cold",
    "nsjail_warm": "nsjail, warm pool",
    "wasm": "wasm, cold",
    "wasm_warm": "wasm, warm pool",
    "gym_sync": "Gymnasium SyncVectorEnv (unisolated)",
    "gym_async": "Gymnasium AsyncVectorEnv (unisolated)",
    "pool_process": "EnvPool on process (unjailed)",
    "pool_nsjail": "EnvPool on nsjail",
    "pool_wasm": "EnvPool on wasm",
}
STEP_LABELS = {"inprocess": "in-process env.step (floor)", "process": "process", "nsjail": "nsjail", "wasm": "wasm"}


@dataclass(frozen=True)
class Block:
    title: str
    headers: tuple[str, ...]
    rows: list[tuple[str, ...]]


def _num(value: Any, digits: int = 1, missing: str = "-") -> str:
    if not isinstance(value, (int, float)):
        return missing
    return f"{value:,.{digits}f}"


def blocks(report: dict[str, Any], missing: str = "-") -> list[Block]:
    """The report's tables in reading order: ratios, cold start, step, throughput, validation, profile, gaps."""
    out = [
        Block(
            "Ratios (this run)",
            ("ratio", "value", "meaning"),
            [
                (name, _num(value, 2, missing), report["ratio_meaning"].get(name, ""))
                for name, value in report["ratios"].items()
            ],
        ),
        Block(
            "Cold start to loaded (ms)",
            ("variant", "p50", "p99", "n"),
            [
                (
                    LABELS[key],
                    _num(get(report, ("cold_start_ms", key, "p50")), 2, missing),
                    _num(get(report, ("cold_start_ms", key, "p99")), 2, missing),
                    _num(get(report, ("cold_start_ms", key, "n")), 0, missing),
                )
                for key in COLD_START_KEYS
            ],
        ),
        Block(
            "Step round trip (us)",
            ("backend", "p50", "p99", "n"),
            [
                (
                    STEP_LABELS[key],
                    _num(get(report, ("step_us", key, "p50")), 1, missing),
                    _num(get(report, ("step_us", key, "p99")), 1, missing),
                    _num(get(report, ("step_us", key, "n")), 0, missing),
                )
                for key in STEP_KEYS
            ],
        ),
    ]
    sizes = list(report["throughput"])
    out.append(
        Block(
            "Throughput (steps/s, median of repeats)",
            ("implementation", *(f"{size} env{'s' if size != '1' else ''}" for size in sizes)),
            [
                (LABELS[name], *(_num(report["throughput"][size].get(name), 0, missing) for size in sizes))
                for name in IMPLEMENTATIONS
            ],
        )
    )
    budget = (report.get("config") or {}).get("validation_budget", "default")
    out.append(
        Block(
            "Validation throughput",
            ("backend", "programs/min", "gates' budget"),
            [(backend, _num(value, 1, missing), budget) for backend, value in report["validate_per_min"].items()],
        )
    )
    profile = report.get("step_profile") or {}
    measured = [name for name, figures in (profile.get("backends") or {}).items() if figures]
    if measured:
        columns = [dict(breakdown_rows(profile, name)) for name in measured]
        rows = [(label, *(_num(column[label], 1, missing) for column in columns)) for _, label in LINES]
        out.append(
            Block(f"Where a step round trip goes ({profile.get('env')}, us per step)", ("part", *measured), rows)
        )
    grouped: dict[str, list[str]] = {}
    for path, reason in report["unavailable"].items():
        grouped.setdefault(reason, []).append(path)
    out.append(
        Block("Not measured", ("figures", "reason"), [(", ".join(paths), reason) for reason, paths in grouped.items()])
    )
    return out


def machine_line(report: dict[str, Any]) -> str:
    machine = report.get("machine") or {}
    packages = ", ".join(f"{name} {version}" for name, version in (machine.get("packages") or {}).items() if version)
    mode = "quick" if (report.get("config") or {}).get("quick") else "full"
    return (
        f"{machine.get('cores')} cores ({machine.get('cpu_model')}), Python {machine.get('python')}, "
        f"Linux {machine.get('kernel')}; {packages}; {machine.get('date')}; {mode} run in {report.get('elapsed_s')} s; "
        f"load average {machine.get('load_average')} at start, {machine.get('load_average_end')} at end"
    )


def render_tables(report: dict[str, Any]) -> list[Any]:
    """Rich renderables: the tables, then the machine and notes."""
    from rich.table import Table
    from rich.text import Text

    items: list[Any] = []
    for block in blocks(report):
        if not block.rows:
            continue
        table = Table(title=block.title, title_justify="left")
        for index, header in enumerate(block.headers):
            table.add_column(
                header,
                justify="left" if index == 0 or header in ("meaning", "reason", "figures") else "right",
                overflow="fold",
            )
        for row in block.rows:
            table.add_row(*row)
        items.append(table)
    items.append(Text(machine_line(report), style="dim"))
    for note in report.get("notes") or []:
        items.append(Text(note, style="dim"))
    return items


def render_markdown(report: dict[str, Any]) -> str:
    """The report as Markdown tables (what the README's Performance section holds)."""
    lines: list[str] = []
    for block in blocks(report, missing="n/a"):
        if not block.rows:
            continue
        lines += [f"**{block.title}**", "", "| " + " | ".join(block.headers) + " |"]
        lines.append(
            "|"
            + "|".join(
                "---" if index == 0 or header in ("meaning", "reason", "figures") else "---:"
                for index, header in enumerate(block.headers)
            )
            + "|"
        )
        for row in block.rows:
            lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |")
        lines.append("")
    lines.append(f"Machine: {machine_line(report)}.")
    for note in report.get("notes") or []:
        lines += ["", note]
    return "\n".join(lines) + "\n"
