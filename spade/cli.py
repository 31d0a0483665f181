"""``spade``: the command line.  The only place that prints, exits or configures logging."""

from __future__ import annotations

import json
import os
import sys
import time
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


@app.command()
def bench(
    quick: Annotated[bool, typer.Option("--quick", help="A sub-minute run with fewer samples (noisier figures).")] = False,
    as_json: Json = False,
    only: Annotated[str | None, typer.Option("--only", help="Run one section: cold_start, step, throughput, validation or profile.")] = None,
    markdown: Annotated[bool, typer.Option("--markdown", help="Print Markdown tables (the README's Performance section).")] = False,
    from_json: Annotated[Path | None, typer.Option("--from", help="Render a saved --json report instead of running.")] = None,
) -> None:
    """Measure cold start, step round trip, batched throughput and validation on every backend, side by side."""
    from bench import BenchConfig, UnknownSectionError, render_markdown, render_tables, run_bench

    if from_json is not None:
        try:
            report = json.loads(from_json.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise fail(f"cannot read a report from {from_json}: {exc}") from None
    else:
        try:
            config = BenchConfig.make(quick=quick, only=only)
        except UnknownSectionError as exc:
            raise fail(str(exc)) from None
        report = _run_with_progress(run_bench, config)
    if as_json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    elif markdown:
        print(render_markdown(report), end="")
    else:
        for item in render_tables(report):
            console.print(item)


def _run_with_progress(run_bench, config):
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=errors, transient=True) as progress:
        task = progress.add_task("bench", total=None)

        def hook(label: str, done: int, total: int) -> None:
            progress.update(task, description=label, completed=done, total=total)

        return run_bench(config, hook)


def _with_action(result, text: str):
    from dataclasses import replace

    return replace(result, action=text)


def main() -> None:
    # Models ship inside packages: never wait on a hub; keep library progress bars off our terminal.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    try:
        app()
    except KeyboardInterrupt:
        errors.print("interrupted")
        sys.exit(130)


def _python_files(paths: list[Path]) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files.extend(sorted(p for p in path.rglob("*.py") if p.is_file()))
        elif path.is_file():
            files.append(path)
        else:
            raise fail(f"{path} does not exist")
    if not files:
        raise fail("no .py files found in the given paths")
    return files


@app.command()
def validate(
    paths: Annotated[list[Path], typer.Argument(help="Environment programs, or folders of them.")],
    backend: Backend = "nsjail",
    pool: Annotated[Path | None, typer.Option("--pool", help="Pool folder: admit what passes (and record every verdict).")] = None,
    quick: Annotated[bool, typer.Option("--quick", help="A small budget (for a first look).")] = False,
    as_json: Json = False,
) -> None:
    """Run the validation gates on programs; with --pool, admit those that pass."""
    from rich.progress import Progress

    from engine.store import PoolStore
    from engine.validate import Budget, Validator
    from sandbox import SpadeError

    files = _python_files(paths)
    store = PoolStore(pool) if pool is not None else None
    report = []
    try:
        with (
            warnings.catch_warnings(),
            Validator(backend=backend, budget=Budget.quick() if quick else Budget()) as validator,
            Progress(console=errors, transient=True) as progress,
        ):
            warnings.simplefilter("ignore")
            task = progress.add_task("validating", total=len(files))
            for path in files:
                progress.update(task, description=f"validating {path.name}")
                spec, verdict = validator.validate_bytes(path.read_bytes(), origin=f"file:{path.name}")
                if store is not None and spec is not None:
                    store.put(spec, verdict)
                entry = verdict.to_dict()
                entry["path"] = str(path)
                report.append(entry)
                progress.advance(task)
    except SpadeError as exc:
        raise fail(str(exc)) from None
    finally:
        if store is not None:
            store.close()
    if as_json:
        keep = ("name", "passed", "detail", "counterexample")
        print(json.dumps([{"path": e["path"], "sha256": e["sha256"], "admitted": e["admitted"],
                           "gates": [{k: g[k] for k in keep} for g in e["gates"]]} for e in report], indent=2))  # fmt: skip
        return
    table = Table(title=f"spade validate ({backend})")
    for column in ("program", "sha256", "verdict", "gate", "detail", "s"):
        table.add_column(column, overflow="fold")
    for e in report:
        last = e["gates"][-1]
        failed = e["failed_gate"]
        gate = next((g for g in e["gates"] if g["name"] == failed), last)
        verdict = "[green]admitted[/green]" if e["admitted"] else "[red]rejected[/red]"
        detail = gate["detail"] if failed else f"solvability {e['solvability']}"
        table.add_row(Path(e["path"]).name, e["sha256"][:12], verdict, failed or "all", detail, f"{e['seconds']:.2f}")
    console.print(table)
    admitted = sum(e["admitted"] for e in report)
    console.print(f"{admitted} of {len(report)} admitted" + (f"; pool: {pool}" if pool else ""))


pool_app = typer.Typer(help="The content-addressed environment pool.", no_args_is_help=True)
app.add_typer(pool_app, name="pool")
PoolDir = Annotated[Path, typer.Option("--pool", help="Pool folder.")]


def _store(pool: Path):
    from engine.store import PoolStore

    if not (pool / "pool.sqlite").exists():
        raise fail(f"{pool} holds no pool (no pool.sqlite); create one with `spade validate ... --pool {pool}`")
    return PoolStore(pool)


@pool_app.command("list")
def pool_list(pool: PoolDir = Path("pool"), all_: Annotated[bool, typer.Option("--all", help="Rejected ones too.")] = False, as_json: Json = False) -> None:
    """List the pool's environments (admitted ones unless --all)."""
    with _store(pool) as store:
        entries = store.entries(admitted=None if all_ else True)
    if as_json:
        print(json.dumps([e.summary() for e in entries], indent=2))
        return
    table = Table(title=f"pool {pool}")
    for column in ("sha256", "admitted", "failed gate", "solvability", "origin", "parent"):
        table.add_column(column)
    for e in entries:
        table.add_row(e.sha256[:16], str(e.admitted), e.failed_gate or "", e.solvability or "", e.spec.origin, (e.spec.parent or "")[:12])
    console.print(table)


@pool_app.command("show")
def pool_show(sha256: Annotated[str, typer.Argument(help="A hash or an unambiguous prefix.")], pool: PoolDir = Path("pool"), as_json: Json = False) -> None:
    """Show one environment: source, hint, lineage and verdict."""
    from engine.store import PoolStoreError

    with _store(pool) as store:
        try:
            entry = store.get(sha256)
        except PoolStoreError as exc:
            raise fail(str(exc)) from None
    if as_json:
        print(json.dumps({**entry.summary(), "source": entry.spec.source, "verdict": entry.verdict}, indent=2))
        return
    console.print(entry.summary())
    console.print(entry.spec.source, markup=False, highlight=False)
    for gate in (entry.verdict or {}).get("gates", []):
        console.print(f"  {gate['name']:>16}: {gate['passed']}  {gate['detail']}", markup=False)


@pool_app.command("export")
def pool_export(target: Annotated[Path, typer.Argument(help="Folder to write <sha256>.py files and index.jsonl into.")], pool: PoolDir = Path("pool"), all_: Annotated[bool, typer.Option("--all", help="Rejected ones too.")] = False) -> None:
    """Export programs and an index.jsonl of summaries and verdicts."""
    with _store(pool) as store:
        written = store.export(target, admitted_only=not all_)
    console.print(f"wrote {len(written)} programs and index.jsonl to {target}")


def _selfplay_parts(config: Path | None, model: str, corpus: list[Path] | None, no_corpus: bool, no_memory: bool, frozen_designer: bool, backend: str, reward: str | None):
    """The pieces `selfplay` and `train` share: config, corpus and seed programs."""
    from dataclasses import replace

    from engine.spec import EnvSpec
    from trainer.config import ConfigError, SelfPlayConfig
    from trainer.corpus import Corpus, CorpusError
    from trainer.rewards import DesignerReward

    try:
        cfg = SelfPlayConfig.from_file(config) if config else SelfPlayConfig()
        changes: dict = {"backend": backend}
        if no_corpus:
            changes["use_corpus"] = False
        if no_memory:
            changes["use_memory"] = False
        if frozen_designer:
            changes["frozen_designer"] = True
        if reward:
            changes["designer_reward"] = DesignerReward(reward)
        cfg = replace(cfg, **changes)
        text = None if not cfg.use_corpus else (Corpus.from_paths(corpus) if corpus else Corpus.stdlib())
    except (ConfigError, CorpusError, ValueError) as exc:
        raise fail(str(exc)) from None
    examples = Path(__file__).resolve().parents[1] / "examples" / "envs"
    seeds = [EnvSpec.from_file(p, origin="example") for p in sorted(examples.glob("*.py"))] if examples.is_dir() else []
    return cfg, text, seeds


ConfigOpt = Annotated[Path | None, typer.Option("--config", help="JSON or TOML file of SelfPlayConfig keys.")]
ModelOpt = Annotated[str, typer.Option("--model", help="'default' (SmolLM2-135M-Instruct, offline), a local model folder, openai:URL#MODEL or vllm:PATH.")]
StepsOpt = Annotated[int, typer.Option("--steps", min=1, help="Steps to run (after those already in --run-dir).")]
RunDirOpt = Annotated[Path, typer.Option("--run-dir", help="Run folder (config, pool, memory, metrics, transcripts); resumable.")]
CorpusOpt = Annotated[list[Path] | None, typer.Option("--corpus", help="Text, JSONL or Parquet files or folders (default: the standard library's docs).")]
NoCorpus = Annotated[bool, typer.Option("--no-corpus", help="Ablation: no corpus grounding.")]
NoMemory = Annotated[bool, typer.Option("--no-memory", help="Ablation: no environment memory.")]
Frozen = Annotated[bool, typer.Option("--frozen-designer", help="Ablation: only the Agent learns.")]
RewardOpt = Annotated[str | None, typer.Option("--designer-reward", help="regret (default), blend or band.")]


def _step_line(result) -> str:
    m = result.metrics
    regret = "n/a" if m["regret_mean"] is None else f"{m['regret_mean']:+.3f}"
    return (f"step {m['step']}: {m['admitted']}/{m['designs']} designs admitted {m['rejected_by_gate'] or ''}, "
            f"{m['envs_played']} envs, {m['episodes']} episodes, regret {regret}, "
            f"success hint/no-hint {m['agent_success_with_hint'] or 0:.2f}/{m['agent_success_without_hint'] or 0:.2f}, "
            f"time gen {m['seconds']['generation']:.1f}s val {m['seconds']['validation']:.1f}s sandbox {m['seconds']['sandbox']:.1f}s")  # fmt: skip


@app.command()
def selfplay(
    config: ConfigOpt = None,
    model: ModelOpt = "default",
    steps: StepsOpt = 2,
    run_dir: RunDirOpt = Path("runs/selfplay"),
    corpus: CorpusOpt = None,
    no_corpus: NoCorpus = False,
    no_memory: NoMemory = False,
    frozen_designer: Frozen = False,
    designer_reward: RewardOpt = None,
    backend: Backend = "nsjail",
) -> None:
    """Run SPADE self-play (designs, validation, hinted and unhinted play, rewards) without updating the model."""
    from policies import make_policy
    from sandbox import SpadeError
    from trainer.memory import sentence_embedder
    from trainer.run import SelfPlayRun

    cfg, text, seeds = _selfplay_parts(config, model, corpus, no_corpus, no_memory, frozen_designer, backend, designer_reward)
    with console.status(f"loading model {model} ..."):
        try:
            policy = make_policy(model)
        except SpadeError as exc:
            raise fail(str(exc)) from None
        embedder = sentence_embedder()
    started = time.monotonic()
    try:
        with warnings.catch_warnings(), SelfPlayRun(run_dir, cfg, policy, corpus=text, seed_programs=seeds, embedder=embedder, meta={"model": model}) as run:
            warnings.simplefilter("ignore")
            console.print(f"run folder {run_dir} (continuing after step {run.last_step}); memory holds {len(run.selfplay.memory)} environments")
            with console.status("self-play ...") as status:
                def report(result) -> None:
                    console.print(_step_line(result))
                    status.update(f"self-play: step {result.step} done")

                run.run(steps, on_step=report)
    except SpadeError as exc:
        raise fail(str(exc)) from None
    console.print(f"done in {time.monotonic() - started:.1f}s; metrics: {run_dir / 'metrics.jsonl'}, transcripts: {run_dir / 'transcripts'}, pool: {run_dir / 'pool'}")


@app.command()
def train(
    config: ConfigOpt = None,
    model: ModelOpt = "default",
    steps: StepsOpt = 1,
    run_dir: RunDirOpt = Path("runs/train"),
    corpus: CorpusOpt = None,
    no_corpus: NoCorpus = False,
    no_memory: NoMemory = False,
    frozen_designer: Frozen = False,
    designer_reward: RewardOpt = None,
    backend: Backend = "nsjail",
    num_generations: Annotated[int, typer.Option(help="GRPO group size (designs per prompt, episodes per condition).")] = 4,
    agent_envs: Annotated[int, typer.Option(help="Environments whose hinted and unhinted groups are trained per step.")] = 1,
    learning_rate: Annotated[float, typer.Option(help="AdamW learning rate.")] = 1e-6,
    lora: Annotated[bool, typer.Option("--lora", help="Train LoRA adapters (peft) instead of all weights.")] = False,
    vllm: Annotated[str | None, typer.Option("--vllm", help="Generate with vLLM: colocate or server (GPU machines).")] = None,
) -> None:
    """Train both roles with GRPO (TRL): each step is one self-play step and one update of the same weights."""
    from policies.models import load_model
    from sandbox import SpadeError
    from trainer.grpo import GRPOSettings, build_trainer
    from trainer.memory import sentence_embedder
    from trainer.run import SelfPlayRun

    cfg, text, seeds = _selfplay_parts(config, model, corpus, no_corpus, no_memory, frozen_designer, backend, designer_reward)
    try:
        settings = GRPOSettings(num_generations=num_generations, agent_envs=agent_envs, learning_rate=learning_rate, lora=lora,
                                use_vllm=vllm is not None, vllm_mode=vllm or "colocate")  # fmt: skip
    except SpadeError as exc:
        raise fail(str(exc)) from None
    with console.status(f"loading model {model} ..."):
        try:
            lm, tokenizer = load_model(model)
        except SpadeError as exc:
            raise fail(str(exc)) from None
        embedder = sentence_embedder()
    started = time.monotonic()
    with warnings.catch_warnings(), SelfPlayRun(run_dir, cfg, designer=None, corpus=text, seed_programs=seeds, embedder=embedder, meta={"model": model, "mode": "train"}) as run:  # type: ignore[arg-type]
        warnings.simplefilter("ignore")
        first = run.last_step + 1
        checkpoints = sorted((run_dir / "checkpoints").glob("checkpoint-*"))
        trainer, _ = build_trainer(lm, tokenizer, run.selfplay, settings, run_dir, max_steps=run.last_step + steps, first_step=first,
                                   on_result=lambda result: (run.record(result, metrics=False), console.print(_step_line(result))))  # fmt: skip
        console.print(f"run folder {run_dir}: training steps {first}..{run.last_step + steps}" + (f", resuming from {checkpoints[-1].name}" if checkpoints else ""))
        trainer.train(resume_from_checkpoint=str(checkpoints[-1]) if checkpoints else None)
        trainer.save_model(str(run_dir / "model"))
    console.print(f"done in {time.monotonic() - started:.1f}s; model: {run_dir / 'model'}; metrics: {run_dir / 'metrics.jsonl'}")
