"""Validation gates: nothing enters the training pool unless it runs, is deterministic, ends, can be
won, and gives a learning signal.

Gates run in order and stop at the first failure; each returns a :class:`GateResult` with evidence
(what ran, what was seen).  Determinism is a Hypothesis property run programmatically: seeds and
action plans are drawn, played in two fresh sandboxes, and a failure is shrunk to a minimal
counterexample that becomes part of the verdict.  Budgets are deterministic (``derandomize``), so
the same program always gets the same verdict.
"""

from __future__ import annotations

import ast
import math
import re
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from engine.spec import MAX_SOURCE_BYTES, EnvSpec
from sandbox import Limits, Sandbox, Session

VALIDATOR_VERSION = 1

ALLOWED_IMPORTS = frozenset(
    {
        "__future__", "abc", "bisect", "collections", "copy", "dataclasses", "datetime", "decimal", "enum",
        "fractions", "functools", "heapq", "itertools", "json", "math", "operator", "random", "re", "statistics",
        "string", "textwrap", "time", "typing",
    }
)  # fmt: skip
FORBIDDEN_NAMES = frozenset({"__import__", "eval", "exec", "compile", "open", "input", "breakpoint", "globals", "vars"})
WORD = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,24}")
FALLBACK_ACTIONS = ("help", "look", "1", "yes", "")


@dataclass(frozen=True)
class Budget:
    """How much evidence each gate gathers; all deterministic."""

    exec_seeds: int = 3
    """Seeds reset in the executability gate."""

    exec_steps: int = 4
    """Steps played after each of those resets."""

    determinism_examples: int = 10
    """Hypothesis examples (each is two fresh sessions playing the same plan)."""

    determinism_max_actions: int = 6
    """Longest action plan drawn."""

    solvability_seeds: int = 4
    """Seeds the oracle must win."""

    signal_episodes: int = 4
    """Extra episodes of sampled play for the learning-signal gate."""

    max_turns: int = 64
    """Turns a program without ``max_turns`` must end within."""

    reward_bound: float = 100.0
    """Largest absolute per-step reward admitted."""

    seconds: float = 60.0
    """Wall-clock budget of one program's whole validation."""

    def __post_init__(self) -> None:
        for name, value in asdict(self).items():
            if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
                raise ValueError(f"Budget.{name} must be a positive number, got {value!r}")

    @classmethod
    def quick(cls) -> Budget:
        """A small budget for fuzzing and tests."""
        return cls(exec_seeds=2, exec_steps=3, determinism_examples=3, determinism_max_actions=4,
                   solvability_seeds=2, signal_episodes=2, seconds=20.0)  # fmt: skip


@dataclass(frozen=True)
class GateResult:
    """One gate's verdict: ``passed`` is None when the gate could neither prove nor refute."""

    name: str
    passed: bool | None
    detail: str
    evidence: dict[str, Any] = field(default_factory=dict)
    counterexample: dict[str, Any] | None = None
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "passed": self.passed, "detail": self.detail, "counterexample": self.counterexample,
                "evidence": self.evidence, "seconds": round(self.seconds, 4)}  # fmt: skip


@dataclass(frozen=True)
class Verdict:
    """Every gate that ran, and whether the program is admitted."""

    sha256: str
    admitted: bool
    gates: list[GateResult]
    seconds: float

    @property
    def failed_gate(self) -> str | None:
        for gate in self.gates:
            if gate.passed is False:
                return gate.name
        return None

    @property
    def solvability(self) -> str:
        for gate in self.gates:
            if gate.name == "solvability":
                return {True: "proven", False: "failed", None: "unproven"}[gate.passed]
        return "not checked"

    def to_dict(self) -> dict[str, Any]:
        return {"sha256": self.sha256, "admitted": self.admitted, "failed_gate": self.failed_gate,
                "solvability": self.solvability, "seconds": round(self.seconds, 4),
                "gates": [gate.to_dict() for gate in self.gates]}  # fmt: skip


class GateFailed(Exception):
    """Raised inside a gate to stop it with a verdict."""

    def __init__(self, detail: str, evidence: dict[str, Any] | None = None, counterexample: dict[str, Any] | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        self.evidence = evidence or {}
        self.counterexample = counterexample


class BudgetExceeded(GateFailed):
    """The program used up its wall-clock budget."""


# ---------------------------------------------------------------------------------------------- episodes


@dataclass
class Episode:
    seed: int
    actions: list[str] = field(default_factory=list)
    observations: list[str] = field(default_factory=list)
    rewards: list[float] = field(default_factory=list)
    outcomes: list[str] = field(default_factory=list)
    ended: bool = False
    success: bool | None = None

    @property
    def episode_return(self) -> float:
        return float(sum(self.rewards))

    def key(self) -> tuple:
        return (self.actions, self.observations, self.rewards, self.outcomes, self.ended)


Policy = Callable[[Session, str, int], str]


def oracle_policy(session: Session, observation: str, turn: int) -> str:
    result = session.oracle()
    if not result.ok:
        raise GateFailed(f"oracle() failed: {result.outcome.value}: {result.detail}", {"turn": turn})
    return result.action or ""


def words_policy(seed: int) -> Policy:
    """Actions picked deterministically from words in the observation and a few fallbacks."""

    def policy(session: Session, observation: str, turn: int) -> str:
        words = WORD.findall(observation) + list(FALLBACK_ACTIONS)
        return words[(seed * 7919 + turn * 104729) % len(words)]

    return policy


def play(session: Session, seed: int, policy: Policy, turns: int) -> Episode:
    """One episode in ``session`` (reset on ``seed``), at most ``turns`` steps; stops at the first failure."""
    episode = Episode(seed=seed)
    first = session.reset(seed=seed)
    episode.outcomes.append(first.outcome.value)
    episode.observations.append(first.observation or first.detail)
    if not first.ok:
        return episode
    observation = first.observation or ""
    for turn in range(turns):
        action = policy(session, observation, turn)
        result = session.step(action)
        episode.actions.append(action)
        episode.outcomes.append(result.outcome.value)
        episode.observations.append(result.observation if result.ok else result.detail)
        if not result.ok:
            return episode
        episode.rewards.append(float(result.reward or 0.0))
        observation = result.observation or ""
        if result.terminated or result.truncated:
            episode.ended = True
            success = result.info.get("success")
            episode.success = success if isinstance(success, bool) else episode.episode_return > 0
            break
    return episode


# ---------------------------------------------------------------------------------------------- static gate


def check_static(spec: EnvSpec) -> dict[str, Any]:
    """Size, encoding, parse, one ``*Env`` class with reset and step, allowed imports, HINT type."""
    source = spec.source
    size = len(source.encode("utf-8", "surrogatepass"))
    if size > MAX_SOURCE_BYTES:
        raise GateFailed(f"the program is {size} bytes; the cap is {MAX_SOURCE_BYTES}")
    try:
        source.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise GateFailed(f"the program is not valid UTF-8 (character {exc.start})") from None
    if "\x00" in source:
        raise GateFailed(f"the program holds a NUL byte at offset {source.index(chr(0))}")
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise GateFailed(f"syntax error at line {exc.lineno}: {exc.msg}") from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise GateFailed(f"the program cannot be parsed: {type(exc).__name__}") from None
    classes = [node for node in tree.body if isinstance(node, ast.ClassDef) and node.name.endswith("Env")]
    if len(classes) != 1:
        raise GateFailed(f"expected exactly one class whose name ends in 'Env', found {len(classes)}: {[c.name for c in classes]}")
    methods = {node.name for node in classes[0].body if isinstance(node, ast.FunctionDef)}
    missing = sorted({"reset", "step"} - methods)
    if missing:
        raise GateFailed(f"class {classes[0].name} lacks {', '.join(missing)}")
    imports: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imports.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                raise GateFailed("relative imports are not allowed")
            imports.add((node.module or "").split(".")[0])
        elif isinstance(node, ast.Name) and node.id in FORBIDDEN_NAMES:
            raise GateFailed(f"the program uses {node.id!r}, which environments may not use (line {node.lineno})")
    forbidden = sorted(imports - ALLOWED_IMPORTS)
    if forbidden:
        raise GateFailed(f"imports outside the allowlist: {', '.join(forbidden)}", {"allowed": sorted(ALLOWED_IMPORTS)})
    for node in tree.body:
        names_hint = isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "HINT" for t in node.targets)
        if names_hint and not (isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)):
            raise GateFailed("HINT must be a string literal")
    return {"bytes": size, "env_class": classes[0].name, "imports": sorted(imports), "has_oracle": "oracle" in methods}


# ---------------------------------------------------------------------------------------------- validator


class Validator:
    """Runs the gates for one program at a time, in sandboxes from one warm :class:`Sandbox`."""

    GATES = ("static", "executability", "determinism", "termination", "solvability", "learning_signal")

    def __init__(
        self,
        *,
        backend: str = "nsjail",
        limits: Limits | None = None,
        budget: Budget | None = None,
        sandbox: Sandbox | None = None,
    ) -> None:
        self.budget = budget or Budget()
        self.limits = limits or Limits(call_seconds=2.0, cpu_seconds=10)
        self._own_sandbox = sandbox is None
        self.sandbox = sandbox or Sandbox(backend, self.limits, warm=2)

    def close(self) -> None:
        if self._own_sandbox:
            self.sandbox.close()

    def __enter__(self) -> Validator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ public

    def validate(self, spec: EnvSpec) -> Verdict:
        started = time.monotonic()
        self._deadline = started + self.budget.seconds
        self._episodes: list[Episode] = []
        self._turns = self.budget.max_turns
        self._has_oracle = False
        self._declared_turns = False
        gates: list[GateResult] = []
        for name in self.GATES:
            gate = self._run_gate(name, spec)
            gates.append(gate)
            if gate.passed is False:
                break
        admitted = all(gate.passed is not False for gate in gates) and len(gates) == len(self.GATES)
        return Verdict(sha256=spec.sha256, admitted=admitted, gates=gates, seconds=time.monotonic() - started)

    def validate_bytes(self, data: bytes, **meta: Any) -> tuple[EnvSpec | None, Verdict]:
        """Validate a file's raw bytes; bytes that are no program get a static-gate verdict."""
        import hashlib

        from engine.spec import SpecError

        started = time.monotonic()
        try:
            spec = EnvSpec.from_source(data.decode("utf-8"), **meta)
        except UnicodeDecodeError as exc:
            detail = f"the program is not valid UTF-8 (byte {exc.start})"
        except SpecError as exc:
            detail = str(exc)
        else:
            return spec, self.validate(spec)
        gate = GateResult("static", False, detail, {"bytes": len(data)})
        sha = hashlib.sha256(data).hexdigest()
        return None, Verdict(sha256=sha, admitted=False, gates=[gate], seconds=time.monotonic() - started)

    # ------------------------------------------------------------------ plumbing

    def _run_gate(self, name: str, spec: EnvSpec) -> GateResult:
        started = time.monotonic()
        try:
            self._check_budget()
            passed, detail, evidence = getattr(self, f"_gate_{name}")(spec)
            return GateResult(name, passed, detail, evidence, None, time.monotonic() - started)
        except GateFailed as failure:
            return GateResult(name, False, failure.detail, failure.evidence, failure.counterexample, time.monotonic() - started)

    def _check_budget(self) -> None:
        if time.monotonic() > self._deadline:
            raise BudgetExceeded(f"validation budget of {self.budget.seconds:g} s exceeded")

    def _session(self, spec: EnvSpec) -> Session:
        self._check_budget()
        session = self.sandbox.open(spec.source)
        if not session.loaded.ok:
            session.close()
            raise GateFailed(f"the program does not load: {session.loaded.outcome.value}: {session.loaded.detail}")
        return session

    def _play_fresh(self, spec: EnvSpec, seed: int, policy: Policy, turns: int | None = None) -> Episode:
        with self._session(spec) as session:
            episode = play(session, seed, policy, self._turns if turns is None else turns)
        self._episodes.append(episode)
        return episode

    # ------------------------------------------------------------------ gates

    def _gate_static(self, spec: EnvSpec) -> tuple[bool, str, dict[str, Any]]:
        evidence = check_static(spec)
        self._has_oracle = evidence["has_oracle"]
        return True, f"one class {evidence['env_class']}, imports {evidence['imports'] or 'none'}", evidence

    def _gate_executability(self, spec: EnvSpec) -> tuple[bool, str, dict[str, Any]]:
        with self._session(spec) as session:
            self._declared_turns = session.max_turns is not None and session.max_turns > 0
            if session.max_turns is not None:
                self._turns = min(session.max_turns, self.budget.max_turns) if session.max_turns > 0 else self.budget.max_turns
            calls = 0
            for seed in range(self.budget.exec_seeds):
                episode = play(session, seed, words_policy(seed), self.budget.exec_steps)
                calls += len(episode.outcomes)
                bad = [(i, o) for i, o in enumerate(episode.outcomes) if o != "ok"]
                if bad:
                    turn, outcome = bad[0]
                    call = "reset" if turn == 0 else f"step({episode.actions[turn - 1]!r})"
                    raise GateFailed(
                        f"{call} on seed {seed} ended with {outcome}: {episode.observations[turn][:500]}",
                        {"seed": seed, "actions": episode.actions},
                        {"seed": seed, "actions": episode.actions[:turn]},
                    )
        return True, f"{calls} calls on {self.budget.exec_seeds} seeds, all well formed", {"calls": calls}

    def _gate_determinism(self, spec: EnvSpec) -> tuple[bool, str, dict[str, Any]]:
        from hypothesis import HealthCheck, Phase, given, settings
        from hypothesis import strategies as st
        from hypothesis.errors import Flaky

        choice = st.one_of(
            st.just(("oracle", 0)) if self._has_oracle else st.just(("word", 0)),
            st.tuples(st.just("word"), st.integers(0, 50)),
            st.tuples(st.just("text"), st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789 ", max_size=12)),
        )
        failures: list[dict[str, Any]] = []
        examples = 0

        def resolved(plan: list[tuple[str, Any]]) -> Policy:
            def policy(session: Session, observation: str, turn: int) -> str:
                kind, value = plan[turn]
                if kind == "oracle":
                    return oracle_policy(session, observation, turn)
                if kind == "word":
                    words = WORD.findall(observation) or list(FALLBACK_ACTIONS)
                    return words[value % len(words)]
                return value

            return policy

        @settings(
            max_examples=self.budget.determinism_examples,
            derandomize=True,
            database=None,
            deadline=None,
            phases=(Phase.explicit, Phase.generate, Phase.shrink),
            suppress_health_check=list(HealthCheck),
            report_multiple_bugs=False,
        )
        @given(seed=st.integers(0, 2**31 - 1), plan=st.lists(choice, max_size=self.budget.determinism_max_actions))
        def same_transcript(seed: int, plan: list[tuple[str, Any]]) -> None:
            nonlocal examples
            examples += 1
            self._check_budget()
            first = self._play_fresh(spec, seed, resolved(plan), turns=len(plan))
            replay_actions = list(first.actions)
            second = self._play_fresh(spec, seed, lambda s, o, t: replay_actions[t], turns=len(replay_actions))
            if first.key() != second.key():
                failures.append({"seed": seed, "actions": replay_actions, "first": _diff(first, second)})
                raise AssertionError("transcripts differ")

        try:
            same_transcript()
        except (AssertionError, Flaky) as exc:
            if not failures:
                raise GateFailed(f"determinism check failed: {exc}") from None
            smallest = min(failures, key=lambda f: (len(f["actions"]), f["seed"]))
            turn, what, a, b = smallest.pop("first")
            smallest["turn"] = turn
            raise GateFailed(
                f"same seed and actions gave different transcripts ({what} at turn {turn}: {a!r} vs {b!r})",
                {"examples": examples, "failing_examples": len(failures)},
                smallest,
            ) from None
        return True, f"{examples} seed/action plans replayed identically in fresh sandboxes", {"examples": examples}

    def _gate_termination(self, spec: EnvSpec) -> tuple[bool, str, dict[str, Any]]:
        policies: list[tuple[str, Policy]] = [("words", words_policy(11))]
        if self._has_oracle:
            policies.insert(0, ("oracle", oracle_policy))
        for name, policy in policies:
            episode = self._play_fresh(spec, 0, policy)
            if episode.outcomes[-1] != "ok":
                raise GateFailed(f"{name} play failed: {episode.outcomes[-1]}: {episode.observations[-1][:300]}",
                                 counterexample={"seed": 0, "actions": episode.actions})  # fmt: skip
            truncated_by_engine = self._declared_turns and len(episode.actions) >= self._turns and name != "oracle"
            if not episode.ended and not truncated_by_engine:
                raise GateFailed(
                    f"{name} play did not end within {self._turns} turns"
                    + ("" if self._declared_turns else " (the program declares no max_turns)"),
                    {"turns": self._turns},
                    {"seed": 0, "actions": episode.actions},
                )
        how = "oracle play terminates and other play is truncated" if self._declared_turns else "play terminates"
        return True, f"{how} within {self._turns} turns", {"max_turns": self._turns}

    def _gate_solvability(self, spec: EnvSpec) -> tuple[bool | None, str, dict[str, Any]]:
        if not self._has_oracle:
            return None, "unproven: the program has no oracle", {}
        wins, turns = [], []
        for seed in range(self.budget.solvability_seeds):
            episode = self._play_fresh(spec, seed, oracle_policy)
            if not (episode.ended and episode.success):
                raise GateFailed(
                    f"following the oracle did not win on seed {seed} ({'ended' if episode.ended else 'did not end'}, return {episode.episode_return:g})",
                    {"won_seeds": wins},
                    {"seed": seed, "actions": episode.actions},
                )
            wins.append(seed)
            turns.append(len(episode.actions))
        return True, f"the oracle won on seeds {wins}", {"won_seeds": wins, "oracle_turns": turns}

    def _gate_learning_signal(self, spec: EnvSpec) -> tuple[bool, str, dict[str, Any]]:
        for index in range(self.budget.signal_episodes):
            self._play_fresh(spec, 100 + index, words_policy(100 + index))
        rewards = [reward for episode in self._episodes for reward in episode.rewards]
        for reward in rewards:
            if not math.isfinite(reward) or abs(reward) > self.budget.reward_bound:
                raise GateFailed(f"reward {reward!r} is outside +/-{self.budget.reward_bound:g}")
        returns = sorted({round(episode.episode_return, 9) for episode in self._episodes if episode.outcomes[-1] == "ok"})
        if len(returns) < 2:
            raise GateFailed(
                f"every one of {len(self._episodes)} episodes returned {returns[0] if returns else 'nothing'}: no learning signal",
                {"episodes": len(self._episodes), "returns": returns},
            )
        return True, f"{len(returns)} distinct returns over {len(self._episodes)} episodes", {"returns": returns[:20]}


def _diff(a: Episode, b: Episode) -> tuple[int, str, Any, Any]:
    for turn in range(max(len(a.outcomes), len(b.outcomes))):
        for name in ("outcomes", "observations"):
            x = getattr(a, name)[turn] if turn < len(getattr(a, name)) else None
            y = getattr(b, name)[turn] if turn < len(getattr(b, name)) else None
            if x != y:
                return turn, name.rstrip("s"), x, y
        if turn >= 1:
            x = a.rewards[turn - 1] if turn - 1 < len(a.rewards) else None
            y = b.rewards[turn - 1] if turn - 1 < len(b.rewards) else None
            if x != y:
                return turn, "reward", x, y
    return -1, "end", a.ended, b.ended


def validate(spec: EnvSpec, *, backend: str = "nsjail", budget: Budget | None = None, limits: Limits | None = None) -> Verdict:
    """Validate one program in a validator of its own (use :class:`Validator` for many)."""
    with Validator(backend=backend, budget=budget, limits=limits) as validator:
        return validator.validate(spec)


__all__ = ["ALLOWED_IMPORTS", "Budget", "GateResult", "Validator", "Verdict", "check_static", "validate"]
