from __future__ import annotations

import textwrap

import pytest

COUNTER = textwrap.dedent('''
    import random
    HINT = "inc three times"
    class CounterEnv:
        max_turns = 5
        def reset(self, seed=None):
            self.n = 0
            self.salt = random.randint(0, 999)
            return f"n=0 salt={self.salt}", {"seed": seed}
        def step(self, action):
            if action == "die":
                import os
                os._exit(7)
            if action == "raise":
                raise ValueError("bad lever")
            if action == "inc":
                self.n += 1
            won = self.n >= 3
            return f"n={self.n}", 1.0 if won else 0.1, won, False, {"success": won}
        def oracle(self):
            return "inc"
''')

ENDLESS = textwrap.dedent('''
    class EndlessEnv:
        def reset(self, seed=None):
            self.t = 0
            return "t=0", {}
        def step(self, action):
            self.t += 1
            return f"t={self.t}", 0.0, False, False, {}
''')

SLOW = textwrap.dedent('''
    import time
    class SlowEnv:
        def reset(self, seed=None):
            return "ready", {}
        def step(self, action):
            time.sleep(float(action))
            return "slept " + action, 0.0, False, False, {}
''')

WALL_CLOCK = textwrap.dedent('''
    import time
    class ClockEnv:
        def reset(self, seed=None):
            return "start", {}
        def step(self, action):
            return f"t={time.time_ns()}", 0.0, False, False, {}
''')


@pytest.fixture
def counter() -> str:
    return COUNTER


@pytest.fixture
def endless() -> str:
    return ENDLESS


@pytest.fixture
def slow() -> str:
    return SLOW


@pytest.fixture
def wall_clock() -> str:
    return WALL_CLOCK
