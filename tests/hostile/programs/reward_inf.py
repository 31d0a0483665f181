"""Returns a reward of float('-inf') (the engine accepts only finite, bounded rewards)."""


class RewardInfEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        if action == "fine":
            return "fine", 1.0, False, False, {}
        return "reward=float('-inf')", float('-inf'), False, False, {}
