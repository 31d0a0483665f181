import math
import random

HINT = "The secret is never above 5."


class GuessEnv:
    """Broken (executability gate): the shaped reward is inf * 0.0 = NaN on every non-winning step."""

    max_turns = 6

    def reset(self, seed=None):
        self.secret = random.Random(seed).randint(1, 5)
        self.turn = 0
        return "Guess a number from 1 to 5. Action: 'guess <n>'.", {}

    def step(self, action):
        self.turn += 1
        digits = [int(t) for t in action.split() if t.isdecimal()]
        won = bool(digits) and digits[0] == self.secret
        if won:
            return "Correct!", 1.0, True, False, {"success": True}
        progress = 0.0                                       # meant: closeness of the guess
        reward = math.inf * progress                         # NaN
        return "Wrong.", reward, False, self.turn >= self.max_turns, {"success": False}

    def oracle(self):
        return f"guess {self.secret}"
