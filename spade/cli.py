"""``spade``: the command line.  The only place that prints, exits or configures logging."""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

app = typer.Typer(help="SPADE: train language models on environments they write, safely.", no_args_is_help=True, add_completion=False)
console = Console()
errors = Console(stderr=True)

Backend = Annotated[str, typer.Option("--backend", "-b", help="Isolation backend: nsjail, wasm, or process (no isolation).")]
Json = Annotated[bool, typer.Option("--json", help="Print one JSON object instead of tables.")]


def fail(message: str, code: int = 2) -> typer.Exit:
    errors.print(f"[red]error:[/red] {message}")
    return typer.Exit(code)


@app.command()
def doctor(as_json: Json = False) -> None:
    """Check that this host can isolate environment programs; exit 1 where the default backend is unsafe."""
    from sandbox.doctor import default_backend_safe, run_checks

    findings = run_checks()
    safe = default_backend_safe(findings)
    if as_json:
        print(json.dumps({"safe": safe, "checks": [f.to_dict() for f in findings]}, indent=2))
    else:
        table = Table(title="spade doctor")
        for column in ("check", "ok", "detail", "what to do", "needed for"):
            table.add_column(column)
        for f in findings:
            table.add_row(f.name, "[green]yes[/green]" if f.passed else "[red]no[/red]", f.detail, f.fix, f.required_for)
        console.print(table)
        console.print("[green]the default backend (nsjail) is safe to use here[/green]" if safe else "[red]the default backend (nsjail) is NOT safe here; see above[/red]")
    raise typer.Exit(0 if safe else 1)


@app.command()
def play(
    env: Annotated[Path, typer.Argument(help="An environment program (.py).")],
    seed: Annotated[int, typer.Option(help="Seed passed to reset.")] = 0,
    action: Annotated[list[str] | None, typer.Option("--action", "-a", help="An action to step with; repeat for more.")] = None,
    backend: Backend = "nsjail",
    as_json: Json = False,
) -> None:
    """Run reset and then each action in a sandbox, and print the transcript."""
    from engine.spec import EnvSpec, SpecError
    from sandbox import Limits, Sandbox, SpadeError

    try:
        spec = EnvSpec.from_file(env)
    except SpecError as exc:
        raise fail(str(exc)) from None
    steps: list[dict] = []
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore" if as_json else "default")
            with Sandbox(backend, Limits(), warm=0) as sandbox, sandbox.open(spec.source, str(env)) as session:
                results = [session.loaded]
                if session.loaded.ok:
                    results.append(session.reset(seed=seed))
                    for text in action or []:
                        if not session.alive or results[-1].terminated or results[-1].truncated:
                            break
                        results.append(session.step(text))
                        results[-1] = _with_action(results[-1], text)
    except SpadeError as exc:
        raise fail(str(exc)) from None
    for result in results:
        entry = result.to_dict()
        if result.op == "load":
            if result.ok:
                continue
            entry["call"] = "reset"
        steps.append(entry)
    transcript = {"env": {"sha256": spec.sha256, "path": str(env)}, "seed": seed, "backend": backend, "steps": steps, "outcome": steps[-1]["outcome"]}
    if as_json:
        print(json.dumps(transcript, indent=2, ensure_ascii=False))
        return
    table = Table(title=f"{env.name}  sha256 {spec.sha256[:12]}  seed {seed}  backend {backend}")
    for column in ("call", "action", "outcome", "observation", "reward", "done", "detail"):
        table.add_column(column, overflow="fold")
    for entry in steps:
        done = "terminated" if entry["terminated"] else "truncated" if entry["truncated"] else ""
        table.add_row(entry["call"], entry["action"] or "", entry["outcome"], entry["observation"] or "", "" if entry["reward"] is None else f"{entry['reward']:g}", done, entry["detail"] or "")
    console.print(table)


def _with_action(result, text: str):
    from dataclasses import replace

    return replace(result, action=text)


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        errors.print("interrupted")
        sys.exit(130)
