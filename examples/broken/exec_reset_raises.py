import random

HINT = "The prize is always behind the lowest-numbered door you have not opened."


class DoorsEnv:
    """Broken (executability gate): reset asks random.sample for more doors than exist, so it always raises."""

    max_turns = 5

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.doors = 5
        self.order = rng.sample(range(1, self.doors + 1), self.doors + 1)   # ValueError: sample larger than population
        self.prize = self.order[0]
        self.turn = 0
        return f"{self.doors} closed doors. Action: 'open <n>'.", {}

    def step(self, action):
        self.turn += 1
        digits = [int(t) for t in action.split() if t.isdecimal()]
        won = bool(digits) and digits[0] == self.prize
        done = won or self.turn >= self.max_turns
        return ("The prize!" if won else "Empty."), float(won), won, done and not won, {"success": won}

    def oracle(self):
        return f"open {self.prize}"
