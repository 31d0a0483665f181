"""Returns a reward of 1e300 (the engine accepts only finite, bounded rewards)."""


class RewardHugeEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        if action == "fine":
            return "fine", 1.0, False, False, {}
        return "reward=1e300", 1e300, False, False, {}
