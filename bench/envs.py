"""The environment programs measured, picked by filename from ``examples/envs/``, and how to run them unisolated.

Only our own trusted examples are ever executed in-process (the floor of every comparison); the
sandboxed measurements run the very same sources through the backends.
"""

from __future__ import annotations

import hashlib
import random
import sys
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any

EXAMPLES_DIR = Path(__file__).resolve().parents[1] / "examples" / "envs"
PREFERRED = ("counter.py", "fog_maze.py", "hidden_number.py")
"""Picked in this order when present: the trivial floor first, then a maze and a search game."""

FALLBACK_ACTIONS = ("1", "a", "north", "yes")
"""Cycled for a program without an oracle."""

FALLBACK_COUNTER = '''\
HINT = "Say 'inc' three times."


class CounterEnv:
    """The floor: count to three (built into bench/ for when examples/envs/counter.py is missing)."""

    max_turns = 6

    def reset(self, seed=None):
        self.count = 0
        return "count=0. Actions: inc, dec.", {}

    def step(self, action):
        self.count += 1 if action.strip().lower() == "inc" else -1
        won = self.count >= 3
        return f"count={self.count}", 1.0 if won else 0.0, won, False, {"success": won}

    def oracle(self):
        return "inc"
'''

DEFAULT_MAX_TURNS = 64
"""The turn cap applied on top of a program's own ``max_turns``, as EnvPool's default does."""

_MODULE = "__spade_bench_env__"


@dataclass(frozen=True)
class BenchEnv:
    """One measured program: its source, where it came from, and the fixed action cycle played on it."""

    name: str
    source: str
    origin: str
    actions: tuple[str, ...]
    max_turns: int | None

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.source.encode("utf-8")).hexdigest()

    def action(self, t: int, env_index: int = 0) -> str:
        """The policy: the same action for the same (vector step, env index) whatever runs the program."""
        return self.actions[(t + env_index) % len(self.actions)]

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "origin": self.origin, "sha256": self.sha256[:16], "actions": list(self.actions)}


def load_env_class(source: str, filename: str = "<bench env>") -> type:
    """Exec a trusted program in a fresh module and return its one class named ``*Env`` (the guest's rule)."""
    module = types.ModuleType(_MODULE)
    sys.modules[_MODULE] = module
    try:
        exec(compile(source, filename, "exec"), module.__dict__)
    finally:
        sys.modules.pop(_MODULE, None)
    classes = [
        value
        for name, value in vars(module).items()
        if isinstance(value, type) and name.endswith("Env") and value.__module__ == _MODULE
    ]
    if len(classes) != 1:
        raise ValueError(f"{filename}: expected exactly one class named *Env, found {len(classes)}")
    return classes[0]


def turn_cap(env_class: type, limit: int = DEFAULT_MAX_TURNS) -> int:
    """EnvPool's cap: the program's ``max_turns`` if it is a positive int, bounded by ``limit``."""
    own = getattr(env_class, "max_turns", None)
    if isinstance(own, int) and not isinstance(own, bool) and own > 0:
        return min(own, limit)
    return limit


class LocalEnv:
    """A program run in this process with the engine's semantics: seeded ``random``, a turn cap, and a
    step that raises ending the episode as truncated (as a pool reports an ``env_error``)."""

    def __init__(self, env_class: type, max_turns: int = DEFAULT_MAX_TURNS) -> None:
        self.env = env_class()
        self.cap = turn_cap(env_class, max_turns)
        self.turns = 0
        self.seed: int | None = None

    def reset(self, seed: int | None = None) -> tuple[str, dict[str, Any]]:
        """Reset; with no seed, the last seed plus one (EnvPool's auto-reset rule)."""
        if seed is None and self.seed is not None:
            seed = self.seed + 1
        self.seed, self.turns = seed, 0
        if seed is not None:
            random.seed(seed)
        observation, info = self.env.reset(seed=seed)
        return observation, info

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        self.turns += 1
        try:
            observation, reward, terminated, truncated, info = self.env.step(action)
        except Exception as exc:
            return "", 0.0, False, True, {"outcome": "env_error", "detail": repr(exc)}
        truncated = bool(truncated) or (not terminated and self.turns >= self.cap)
        return observation, float(reward), bool(terminated), truncated, info


def _oracle_actions(env_class: type, limit: int = 16) -> tuple[str, ...]:
    """The oracle's actions over one seed-0 episode: a plausible fixed policy for this program."""
    local = LocalEnv(env_class)
    if not callable(getattr(local.env, "oracle", None)):
        return FALLBACK_ACTIONS
    local.reset(seed=0)
    actions: list[str] = []
    for _ in range(limit):
        action = local.env.oracle()
        if not isinstance(action, str):
            break
        actions.append(action)
        _, _, terminated, truncated, _ = local.step(action)
        if terminated or truncated:
            break
    return tuple(actions) or FALLBACK_ACTIONS


def _bench_env(name: str, source: str, origin: str) -> BenchEnv:
    env_class = load_env_class(source, name)
    state = random.getstate()
    try:
        actions = _oracle_actions(env_class)
    finally:
        random.setstate(state)
    own = getattr(env_class, "max_turns", None)
    return BenchEnv(
        name=name, source=source, origin=origin, actions=actions, max_turns=own if isinstance(own, int) else None
    )


def pick_envs(directory: Path = EXAMPLES_DIR, count: int = 3) -> tuple[list[BenchEnv], list[str]]:
    """Up to ``count`` programs, counter first; returns them and notes on what was skipped or replaced.

    Preferred filenames come first, then the rest of the directory in name order; a missing or broken
    file is skipped with a note.  If no counter is found, a built-in copy is the floor.
    """
    notes: list[str] = []
    candidates = [directory / name for name in PREFERRED]
    if directory.is_dir():
        candidates += sorted(path for path in directory.glob("*.py") if path.name not in PREFERRED)
    picked: list[BenchEnv] = []
    for path in candidates:
        if len(picked) >= count:
            break
        if not path.is_file():
            notes.append(f"{path.name}: not found in {directory}")
            continue
        try:
            picked.append(_bench_env(path.name, path.read_text(encoding="utf-8"), f"file:{path}"))
        except Exception as exc:
            notes.append(f"{path.name}: skipped ({type(exc).__name__}: {exc})")
    if not picked or picked[0].name != "counter.py":
        picked.insert(0, _bench_env("counter.py", FALLBACK_COUNTER, "builtin"))
        picked = picked[:count]
        notes.append("counter.py: using bench's built-in copy")
    return picked, notes
