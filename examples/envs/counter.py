HINT = "Say 'inc' three times."


class CounterEnv:
    """The floor: count to three."""

    max_turns = 6

    def reset(self, seed=None):
        self.count = 0
        return "count=0. Actions: inc, dec.", {}

    def step(self, action):
        action = action.strip().lower()
        if action == "inc":
            self.count += 1
        elif action == "dec":
            self.count -= 1
        won = self.count >= 3
        return f"count={self.count}", 1.0 if won else 0.0, won, False, {"success": won}

    def oracle(self):
        return "inc"
