import random

HINT = "Each answer halves the range: always guess the middle."  # café


class GuessEnv:
    """Broken (static gate): the file is Latin-1, not UTF-8 (byte 0xE9 in a comment)."""

    max_turns = 8

    def reset(self, seed=None):
        self.secret = random.Random(seed).randint(1, 100)
        self.turn = 0
        return "Guess my number from 1 to 100. Action: 'guess <n>'; I say higher or lower.", {}

    def step(self, action):
        self.turn += 1
        digits = [int(t) for t in action.split() if t.isdecimal()]
        if digits and digits[0] == self.secret:
            return "Correct!", 1.0 + 0.1 * (self.max_turns - self.turn), True, False, {"success": True}
        if not digits:
            observation = "Say 'guess <n>'."
        else:
            observation = f"{digits[0]}: {'higher' if digits[0] < self.secret else 'lower'}."
        return observation, 0.0, False, self.turn >= self.max_turns, {"success": False}

    def oracle(self):
        return f"guess {self.secret}"
