"""Prints 16 MB through print(): the guest keeps a capped prefix and counts the rest."""


class ChattyEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        line = "spam " * 199 + "\n"
        written = 0
        for _ in range(16000):
            print(line, end="")
            written += len(line)
        return "printed=%d" % written, 0.0, False, False, {"printed": written}
