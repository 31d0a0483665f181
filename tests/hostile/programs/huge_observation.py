"""Returns an observation of 100 MB."""


class WordyEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        observation = "w" * (100 * 1000 * 1000)
        return observation, 0.0, False, False, {"length": len(observation)}
