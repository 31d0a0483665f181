import math
import random

HINT = (
    "Every price repeats on a fixed cycle of 3 or 4 days. Each day, hold the good whose price rises most "
    "by tomorrow, or coins if every price falls."
)

GOODS = ["wheat", "silk", "spice", "salt", "tea"]


class MarketEnv:
    """A trading game with hidden price dynamics: prices follow cycles you only discover by watching."""

    max_turns = 10

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.goods = sorted(rng.sample(GOODS, 2))
        period = rng.choice([3, 4])
        self.prices = {}
        for good in self.goods:
            base = rng.randint(12, 30)
            cycle = [base + rng.randint(-6, 6) for _ in range(period)]
            cycle[rng.randrange(period)] = base + 7          # never a flat line
            self.prices[good] = [cycle[d % period] for d in range(self.max_turns + 1)]
        self.best = 1.0
        for day in range(self.max_turns):
            self.best *= max([1.0] + [self._ratio(g, day) for g in self.goods])
        self.day = 0
        self.coins, self.holding, self.units = 100.0, None, 0.0
        return (
            f"You trade {self.goods[0]} and {self.goods[1]} for {self.max_turns} days with 100 coins. Each action "
            "uses one day at that day's prices: 'buy <good>' (sell what you hold, then spend everything on it), "
            "'sell' (back to coins), 'hold'. You are scored on your wealth at the close of the last day. "
            + self._show()
        ), {}

    def _ratio(self, good, day):
        return self.prices[good][day + 1] / self.prices[good][day]

    def _wealth(self, day):
        return self.coins if self.holding is None else self.units * self.prices[self.holding][day]

    def _show(self):
        quotes = ", ".join(f"{g} {self.prices[g][self.day]}" for g in self.goods)
        held = "coins" if self.holding is None else f"{self.units:.2f} {self.holding}"
        return f"Day {self.day + 1}: prices {quotes}. You hold {held}, worth {self._wealth(self.day):.2f}."

    def step(self, action):
        text = str(action).strip().lower()
        good = next((g for g in self.goods if g in text), None)
        note = ""
        if "buy" in text and good:
            self.coins = self._wealth(self.day)
            self.holding, self.units = good, self.coins / self.prices[good][self.day]
        elif "sell" in text:
            self.coins, self.holding = self._wealth(self.day), None
        elif "hold" not in text and "wait" not in text:
            note = "Not understood ('buy <good>', 'sell', 'hold'); you held your position. "
        self.day += 1
        if self.day >= self.max_turns:
            final = self._wealth(self.day)
            score = max(-1.0, min(1.0, math.log(final / 100.0) / math.log(self.best)))
            won = score >= 0.5
            verdict = "a fine result" if won else "could be better"
            return note + f"Market closed. Final wealth {final:.2f} ({verdict}).", score, True, False, {"success": won}
        return note + self._show(), 0.0, False, False, {"success": False}

    def oracle(self):
        ratios = {g: self._ratio(g, self.day) for g in self.goods}
        good = max(self.goods, key=lambda g: ratios[g])
        return f"buy {good}" if ratios[good] > 1.0 else "sell"
