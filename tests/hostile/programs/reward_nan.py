"""Returns a reward of float('nan') (the engine accepts only finite, bounded rewards)."""


class RewardNanEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        if action == "fine":
            return "fine", 1.0, False, False, {}
        return "reward=float('nan')", float('nan'), False, False, {}
