import random

HINT = (
    "Add the alphabetically first reagent on your bench, then heat, stir or shake, then add the "
    "alphabetically last reagent."
)

REAGENTS = ["acid", "base", "copper", "ethanol", "salt", "sugar"]
PROCESSES = ["heat", "stir", "shake"]
COLOURS = ["pale blue", "deep violet"]


class LabProcedureEnv:
    """A three-step procedure where order matters: the recipe is learnt by trial, and a wrong step ruins the flask."""

    max_turns = 10

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.bench = sorted(rng.sample(REAGENTS, 3))
        self.recipe = ["add " + self.bench[0], rng.choice(PROCESSES), "add " + self.bench[-1]]
        self.progress = 0
        self.best = 0
        self.turn = 0
        return (
            f"Your bench holds {', '.join(self.bench)} and an empty flask. A secret 3-step procedure grows "
            "crystals. Actions: 'add <reagent>', 'heat', 'stir', 'shake'. A wrong step ruins the flask and "
            f"you start again with a fresh one. You have {self.max_turns} turns."
        ), {}

    def _parse(self, text):
        words = text.replace(",", " ").split()
        for word in words:
            if word in PROCESSES or word[:-1] in PROCESSES:
                return word if word in PROCESSES else word[:-1]
            for reagent in self.bench:
                if word == reagent or (len(word) >= 3 and reagent.startswith(word)):
                    return "add " + reagent
        return None

    def step(self, action):
        self.turn += 1
        move = self._parse(str(action).strip().lower())
        reward = 0.0
        if move is None:
            obs = (f"Not understood: 'add <reagent>' ({', '.join(self.bench)}), 'heat', 'stir' or 'shake'. "
                   f"Flask has {self.progress} good step(s).")
        elif move == self.recipe[self.progress]:
            self.progress += 1
            if self.progress > self.best:
                reward = 0.1
                self.best = self.progress
            if self.progress == 3:
                speed = 0.2 * (self.max_turns - self.turn) / self.max_turns
                return f"{move}: crystals bloom in the flask. Success!", 1.0 + speed, True, False, {"success": True}
            obs = f"{move}: the mixture turns {COLOURS[self.progress - 1]}. So far so good."
        else:
            self.progress = 0
            obs = f"{move}: the mixture fizzles grey and is ruined. You take a fresh flask."
        truncated = self.turn >= self.max_turns
        if truncated:
            obs += " The lab closes for the day."
        return obs, reward, False, truncated, {"success": False}

    def oracle(self):
        return self.recipe[self.progress]
