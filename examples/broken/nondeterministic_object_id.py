import random

HINT = "Each answer halves the range: always guess the middle."


class GuessEnv:
    """Broken (determinism gate): mixes id(object()) (a memory address, different in every process under
    ASLR) into the seed, so the same seed gives a different secret in each fresh session."""

    max_turns = 8

    def reset(self, seed=None):
        salt = id(object()) // 16                       # "extra entropy": differs between sessions
        self.secret = random.Random((seed or 0) ^ salt).randint(1, 100)
        self.turn = 0
        return "Guess my number from 1 to 100. Action: 'guess <n>'; I say higher or lower.", {}

    def step(self, action):
        self.turn += 1
        digits = [int(t) for t in action.split() if t.isdecimal()]
        if not digits:
            return "Say 'guess <n>'.", 0.0, False, self.turn >= self.max_turns, {"success": False}
        if digits[0] == self.secret:
            return "Correct!", 1.0, True, False, {"success": True}
        direction = "higher" if digits[0] < self.secret else "lower"
        return f"{digits[0]}: {direction}.", 0.0, False, self.turn >= self.max_turns, {"success": False}

    def oracle(self):
        return f"guess {self.secret}"
