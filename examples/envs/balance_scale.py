import random

HINT = (
    "The fake coin is always heavier: split the coins into three groups and weigh two of them; the "
    "heavier pan or the group left off holds it."
)


class BalanceScaleEnv:
    """Deduction with hidden state: find the counterfeit coin with at most three weighings."""

    max_turns = 4

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.n = rng.randint(6, 10)
        self.fake = rng.randint(1, self.n)
        self.turn = 0
        return (
            f"You have {self.n} coins numbered 1-{self.n}; exactly one is fake and weighs slightly more or "
            "less than the others. Actions: 'weigh 1 2 vs 3 4' (equal numbers of coins per pan) and "
            f"'answer <coin> heavy|light' (ends the game). You have {self.max_turns} turns in all."
        ), {}

    def _weight(self, coins):
        return sum(2 if c == self.fake else 1 for c in coins)

    def step(self, action):
        self.turn += 1
        text = str(action).strip().lower().replace(",", " ")
        words = text.split()
        if words[:1] == ["answer"]:
            numbers = [int(w) for w in words if w.isdecimal()]
            coin = numbers[0] if numbers else None
            if coin != self.fake:
                return f"Wrong coin: the fake was {self.fake}.", 0.0, True, False, {"success": False}
            if "heavy" in text:
                return f"Yes, coin {coin} is the heavy fake!", 1.0, True, False, {"success": True}
            return f"Right coin, but {coin} is heavy, not light.", 0.5, True, False, {"success": False}
        left, _, right = text.replace("weigh", "").partition("vs")
        pans = [[int(w) for w in side.split() if w.isdecimal()] for side in (left, right)]
        coins = pans[0] + pans[1]
        if (not words or words[0] != "weigh" or not pans[0] or len(pans[0]) != len(pans[1])
                or len(set(coins)) != len(coins) or not all(1 <= c <= self.n for c in coins)):
            obs = (f"Not understood: 'weigh <coins> vs <coins>' with equal, distinct coins from 1-{self.n}, "
                   "or 'answer <coin> heavy|light'.")
        else:
            a, b = self._weight(pans[0]), self._weight(pans[1])
            verdict = "the pans balance" if a == b else f"the {'left' if a > b else 'right'} pan is heavier"
            obs = f"{' '.join(map(str, pans[0]))} vs {' '.join(map(str, pans[1]))}: {verdict}."
        truncated = self.turn >= self.max_turns
        if truncated:
            obs += f" Time is up; the fake was {self.fake}."
        return obs, 0.0, False, truncated, {"success": False}

    def oracle(self):
        return f"answer {self.fake} heavy"
