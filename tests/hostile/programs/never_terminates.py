"""Never terminates and never truncates: the engine, not the program, must end the episode."""


class EndlessEnv:
    def reset(self, seed=None):
        self.turn = 0
        return "turn 0", {}

    def step(self, action):
        self.turn += 1
        return "turn %d" % self.turn, 0.0, False, False, {"turn": self.turn}
