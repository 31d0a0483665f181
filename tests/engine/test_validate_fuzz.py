"""Fuzz the validator: generated and AST-mutated programs always get a verdict within budget.

CI runs a few hundred programs; ``pytest -m slow`` (also in CI) runs more.  A crash is any
exception out of ``validate``; a hang is a verdict later than its budget plus the slowest call.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.mutate import MUTATIONS, mutate
from engine.validate import Budget, Validator
from sandbox import Limits

ROOT = Path(__file__).resolve().parents[2]
SEEDS = [p.read_text() for p in sorted((ROOT / "examples" / "envs").glob("*.py"))]
BUDGET = Budget(exec_seeds=2, exec_steps=3, determinism_examples=2, determinism_max_actions=3,
                solvability_seeds=1, signal_episodes=1, max_turns=24, seconds=8.0)  # fmt: skip
LIMITS = Limits(call_seconds=0.5, cpu_seconds=3)
SLACK_SECONDS = 2 * LIMITS.call_seconds + 2.0

BODY_LINES = [
    "return 'obs', {}", "return 'obs', 1.0, True, False, {}", "return 'x', float('nan'), True, False, {}",
    "return None", "raise ValueError('no')", "self.t = getattr(self, 't', 0) + 1",
    "return str(getattr(self, 't', 0)), 0.5, getattr(self, 't', 0) > 2, False, {'success': True}",
    "while True: pass", "import random; return str(random.random()), {}", "return 'a' * 10**7, {}",
    "print('hi' * 1000)", "return ('o', {'k': object()})", "import time; return str(time.time()), {}",
]  # fmt: skip


def _program(reset_lines: list[str], step_lines: list[str], oracle: bool) -> str:
    reset = "\n".join(f"        {line}" for line in reset_lines) or "        pass"
    step = "\n".join(f"        {line}" for line in step_lines) or "        pass"
    extra = "    def oracle(self):\n        return 'go'\n" if oracle else ""
    return f"class FuzzEnv:\n    max_turns = 4\n    def reset(self, seed=None):\n{reset}\n    def step(self, action):\n{step}\n{extra}"


programs = st.one_of(
    st.builds(lambda i, kind, seed: mutate(SEEDS[i], kind, seed), st.integers(0, len(SEEDS) - 1), st.sampled_from(MUTATIONS), st.integers(0, 10**6)),
    st.builds(_program, st.lists(st.sampled_from(BODY_LINES), max_size=3), st.lists(st.sampled_from(BODY_LINES), max_size=3), st.booleans()),
    st.text(max_size=200),
)


class Tally:
    def __init__(self) -> None:
        self.programs = self.crashes = self.hangs = self.admitted = 0
        self.gates: dict[str, int] = {}


def _fuzz(validator: Validator, count: int, tally: Tally) -> None:
    @settings(max_examples=count, derandomize=True, database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @given(source=programs)
    def one(source: str) -> None:
        tally.programs += 1
        started = time.monotonic()
        try:
            _, verdict = validator.validate_bytes(source.encode("utf-8", "surrogatepass"))
        except Exception:
            tally.crashes += 1
            raise
        if time.monotonic() - started > BUDGET.seconds + SLACK_SECONDS:
            tally.hangs += 1
        tally.admitted += verdict.admitted
        gate = verdict.failed_gate or "admitted"
        tally.gates[gate] = tally.gates.get(gate, 0) + 1

    one()


@pytest.fixture(scope="module")
def fuzz_validator():
    from tests.conftest import ISOLATED_BACKENDS, _require

    _require(ISOLATED_BACKENDS[0])
    with Validator(backend=ISOLATED_BACKENDS[0], budget=BUDGET, limits=LIMITS) as validator:
        yield validator


@pytest.mark.parametrize("count", [pytest.param(250, id="ci"), pytest.param(1500, id="long", marks=pytest.mark.slow)])
def test_validator_never_crashes_or_hangs(fuzz_validator, count, capsys):
    tally = Tally()
    _fuzz(fuzz_validator, count, tally)
    with capsys.disabled():
        print(f"\nfuzzed {tally.programs} programs: {tally.crashes} crashes, {tally.hangs} hangs, verdicts {tally.gates}")
    assert tally.programs >= count * 0.9
    assert tally.crashes == 0 and tally.hangs == 0
    assert len(tally.gates) >= 4, tally.gates
