import itertools
import math
import random

HINT = (
    "Their value for each item is exactly 4 minus yours, and they accept any split worth at least half of "
    "their own total."
)

ITEMS = ["books", "hats", "balls", "pens", "mugs", "maps"]


class NegotiationEnv:
    """Negotiation with hidden preferences: split a pile of items with a partner whose values you cannot see."""

    max_turns = 6

    def reset(self, seed=None):
        rng = random.Random(seed)
        while True:
            self.items = rng.sample(ITEMS, 3)
            self.counts = {it: rng.randint(1, 3) for it in self.items}
            self.mine = {it: rng.randint(0, 4) for it in self.items}
            self.theirs = {it: 4 - v for it, v in self.mine.items()}
            self.need = math.ceil(0.5 * self._total(self.theirs, self.counts))
            deals = [keep for keep in self._splits() if self._accepts(keep)]
            self.best = max(deals, key=lambda keep: self._total(self.mine, keep))
            if self._total(self.mine, self.best) > 0 and self._total(self.theirs, self.counts) > 0:
                break
        self.turn = 0
        pile = ", ".join(f"{self.counts[it]} {it}" for it in self.items)
        values = ", ".join(f"{it}={self.mine[it]}" for it in self.items)
        example = " ".join(f"{it}=1" for it in self.items)
        return (
            f"On the table: {pile}. Your value per item: {values}. Your partner values them differently "
            f"(hidden). Propose what YOU keep, e.g. 'propose {example}' (unnamed items go to them), or "
            f"'walk away'. You get at most {self.max_turns} proposals; only an accepted deal pays."
        ), {}

    def _total(self, values, keep):
        return sum(values[it] * keep[it] for it in self.items)

    def _splits(self):
        for combo in itertools.product(*(range(self.counts[it] + 1) for it in self.items)):
            yield dict(zip(self.items, combo))

    def _accepts(self, keep):
        given = {it: self.counts[it] - keep[it] for it in self.items}
        return self._total(self.theirs, given) >= self.need

    def step(self, action):
        self.turn += 1
        text = str(action).strip().lower()
        if "walk" in text:
            return "You walk away with nothing.", 0.0, True, False, {"success": False}
        keep = {it: 0 for it in self.items}
        for part in text.replace(",", " ").split():
            name, _, number = part.partition("=")
            name = next((it for it in self.items if it.startswith(name.rstrip("s")) and name), None)
            if name and number.isdecimal():
                keep[name] = min(int(number), self.counts[name])
        if "propose" not in text and not any(keep.values()):
            obs = "Not understood: say 'propose " + " ".join(f"{it}=N" for it in self.items) + "' or 'walk away'."
        elif self._accepts(keep):
            score = self._total(self.mine, keep)
            won = score >= self._total(self.mine, self.best)
            verdict = "the best deal you could get" if won else "though you could have kept more"
            share = score / self._total(self.mine, self.counts)
            kept = ", ".join(f"{keep[it]} {it}" for it in self.items)
            return f"Deal! You keep {kept}, worth {score} to you: {verdict}.", share, True, False, {"success": won}
        else:
            wanted = max(self.items, key=lambda it: (self.theirs[it] * (keep[it] > 0), -self.items.index(it)))
            obs = f"Rejected. Your partner says: 'That is not enough for me; I want more {wanted}.'"
        truncated = self.turn >= self.max_turns
        if truncated:
            obs += " Your partner leaves the table."
        return obs, 0.0, False, truncated, {"success": False}

    def oracle(self):
        keep = self.best
        return "propose " + " ".join(f"{it}={keep[it]}" for it in self.items)
