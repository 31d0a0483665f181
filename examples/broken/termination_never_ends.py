HINT = "Say 'inc' three times."


class CounterEnv:
    """Broken (termination gate): the win test compares an int with a str, so it is never true, and the
    program never sets truncated either: play only stops when someone else cuts it off."""

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
        won = self.count == "3"                          # never true
        return f"count={self.count}", 1.0 if won else 0.0, won, False, {"success": won}

    def oracle(self):
        return "inc"
