import random

HINT = "The prize is behind the door whose number is shown in red."


class DoorsEnv:
    """Broken (learning-signal gate): the win is recorded in info, but the reward is never paid, so every
    episode returns 0.0 whatever the agent does."""

    max_turns = 3

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.doors = rng.randint(3, 6)
        self.prize = rng.randint(1, self.doors)
        self.turn = 0
        self.reward = 0.0
        return f"{self.doors} doors. Action: 'open <n>' (one try).", {}

    def step(self, action):
        self.turn += 1
        digits = [int(t) for t in action.split() if t.isdecimal()]
        if not digits or not 1 <= digits[0] <= self.doors:
            return f"Say 'open <1-{self.doors}>'.", self.reward, False, self.turn >= self.max_turns, {"success": False}
        won = digits[0] == self.prize
        reward = 1.0 if won else 0.0                         # computed, then never used
        return ("The prize!" if won else "Empty."), self.reward, True, False, {"success": won}

    def oracle(self):
        return f"open {self.prize}"
