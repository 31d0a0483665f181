import random

HINT = "The prize is behind the door whose number is shown in red."


class DoorsEnv:
    """Broken (solvability gate): the oracle has an off-by-one and always opens the wrong door."""

    max_turns = 3

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.doors = rng.randint(3, 6)
        self.prize = rng.randint(1, self.doors)
        self.turn = 0
        return f"{self.doors} doors. Action: 'open <n>' (one try).", {}

    def step(self, action):
        self.turn += 1
        digits = [int(t) for t in action.split() if t.isdecimal()]
        if not digits or not 1 <= digits[0] <= self.doors:
            return f"Say 'open <1-{self.doors}>'.", 0.0, False, self.turn >= self.max_turns, {"success": False}
        won = digits[0] == self.prize
        return ("The prize!" if won else "Empty."), float(won), True, False, {"success": won}

    def oracle(self):
        return f"open {self.prize % self.doors + 1}"         # off by one: the next door, never the prize
