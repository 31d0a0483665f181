import random

HINT = "The secret is never above 5."


class GuessEnv:
    """Broken (executability gate): step returns the old four-tuple (obs, reward, done, info)."""

    max_turns = 5

    def reset(self, seed=None):
        self.secret = random.Random(seed).randint(1, 10)
        self.turn = 0
        return "Guess a number from 1 to 10. Action: 'guess <n>'.", {}

    def step(self, action):
        self.turn += 1
        digits = [int(t) for t in action.split() if t.isdecimal()]
        won = bool(digits) and digits[0] == self.secret
        done = won or self.turn >= self.max_turns
        observation = "Correct!" if won else "Wrong, guess again."
        return observation, float(won), done, {"success": won}                # four values, not five

    def oracle(self):
        return f"guess {self.secret}"
