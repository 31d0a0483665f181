import random

HINT = (
    "The secret's digits are all different and appear in increasing order, so only a handful of codes are "
    "possible."
)


class CodeBreakerEnv:
    """Deduction with hidden state: crack a secret code from exact/partial-match feedback (Mastermind)."""

    max_turns = 8

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.length = rng.choice([3, 4])
        self.top = rng.choice([6, 7, 8, 9])
        digits = sorted(rng.sample(range(1, self.top + 1), self.length))
        self.secret = "".join(str(d) for d in digits)
        self.turn = 0
        self.best = 0
        example = "".join(str(i + 1) for i in range(self.length))
        return (
            f"A secret code of {self.length} digits, each from 1 to {self.top}, is hidden. "
            f"Action: 'guess <{self.length} digits>', e.g. 'guess {example}'. After each guess you are told "
            "how many digits are right and in the right place (exact) and how many are right but in the "
            f"wrong place (partial). You have {self.max_turns} turns."
        ), {}

    def _score(self, guess):
        exact = sum(a == b for a, b in zip(guess, self.secret))
        common = sum(min(guess.count(d), self.secret.count(d)) for d in set(guess))
        return exact, common - exact

    def step(self, action):
        self.turn += 1
        text = str(action).strip().lower()
        guess = "".join(ch for ch in text if ch.isdecimal())
        left = self.max_turns - self.turn
        reward = 0.0
        if len(guess) != self.length or any(not 1 <= int(d) <= self.top for d in guess):
            obs = (f"Not understood: say 'guess' and {self.length} digits from 1 to {self.top}. "
                   f"{left} turns left.")
        else:
            exact, partial = self._score(guess)
            if exact > self.best:
                reward += 0.1 * (exact - self.best)
                self.best = exact
            if exact == self.length:
                return f"{guess}: cracked it!", reward + 1.0, True, False, {"success": True}
            obs = f"{guess}: exact={exact} partial={partial}. {left} turns left."
        truncated = self.turn >= self.max_turns
        if truncated:
            obs += f" Out of turns; the code was {self.secret}."
        return obs, reward, False, truncated, {"success": False}

    def oracle(self):
        return "guess " + self.secret
