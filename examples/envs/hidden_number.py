import random
import re

HINT = "The secret is always a multiple of 7: binary-search over multiples of 7 only."


class HiddenNumberEnv:
    """Search with feedback: find a hidden number from higher/lower answers within a tight guess budget."""

    max_turns = 9

    def reset(self, seed=None):
        self.top = random.randint(600, 1000)           # the engine seeds `random` from the seed
        self.secret = 7 * random.randint(1, self.top // 7)
        self.low, self.high = 1, self.top
        self.closest = None
        self.turn = 0
        return (
            f"I am thinking of a whole number from 1 to {self.top}. Action: 'guess <number>'. I answer "
            f"'higher' or 'lower'. You have {self.max_turns} guesses; a near miss earns a little credit."
        ), {}

    def step(self, action):
        self.turn += 1
        found = re.search(r"-?\d+", str(action))
        reward = 0.0
        if not found:
            obs = f"Not understood: say 'guess <number>' (1 to {self.top})."
        else:
            guess = int(found.group())
            if self.closest is None or abs(guess - self.secret) < abs(self.closest - self.secret):
                self.closest = guess
            if guess == self.secret:
                return f"{guess} is right!", 1.0, True, False, {"success": True}
            obs = f"{guess}: {'higher' if guess < self.secret else 'lower'}."
        obs += f" {self.max_turns - self.turn} guesses left."
        truncated = self.turn >= self.max_turns
        if truncated:
            if self.closest is not None:
                reward = 0.3 * max(0.0, 1.0 - abs(self.closest - self.secret) / self.top)
            obs += f" The number was {self.secret}."
        return obs, reward, False, truncated, {"success": False}

    def oracle(self):
        return f"guess {self.secret}"
