import itertools
import random

HINT = (
    "Each switch toggles its own lamp plus exactly one other lamp; pressing a switch twice undoes it, so "
    "press each at most once."
)


class LightSwitchEnv:
    """A state-machine puzzle: switches toggle hidden sets of lamps; turn every lamp on."""

    max_turns = 12
    lamps = 5

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.masks = []
        for i in range(self.lamps):
            other = rng.choice([j for j in range(self.lamps) if j != i])
            self.masks.append((1 << i) | (1 << other))
        self.state = (1 << self.lamps) - 1
        while self.state == (1 << self.lamps) - 1:
            for i in rng.sample(range(self.lamps), rng.randint(1, 3)):
                self.state ^= self.masks[i]
        self.turn = 0
        return (
            f"{self._show()} Switches 1-{self.lamps} each toggle a hidden set of lamps. Action: 'press <n>'. "
            f"Turn every lamp on within {self.max_turns} presses; each lamp you gain earns a little."
        ), {}

    def _show(self):
        lamps = " ".join(f"{i + 1}:{'on' if self.state >> i & 1 else 'off'}" for i in range(self.lamps))
        return f"Lamps: {lamps}."

    def _lit(self):
        return bin(self.state).count("1")

    def step(self, action):
        self.turn += 1
        digits = [int(t) for t in str(action).replace(",", " ").split() if t.isdecimal()]
        reward = 0.0
        if not digits or not 1 <= digits[0] <= self.lamps:
            obs = f"Not understood: 'press <1-{self.lamps}>'. {self._show()}"
        else:
            before = self._lit()
            self.state ^= self.masks[digits[0] - 1]
            reward = 0.1 * (self._lit() - before)
            obs = f"Click. {self._show()}"
            if self.state == (1 << self.lamps) - 1:
                return obs + " All lamps are on!", reward + 1.0, True, False, {"success": True}
        truncated = self.turn >= self.max_turns
        return obs, reward, False, truncated, {"success": False}

    def oracle(self):
        off = ((1 << self.lamps) - 1) ^ self.state
        for size in range(1, self.lamps + 1):
            for combo in itertools.combinations(range(self.lamps), size):
                mask = 0
                for i in combo:
                    mask ^= self.masks[i]
                if mask == off:
                    return f"press {combo[0] + 1}"
        return "press 1"
