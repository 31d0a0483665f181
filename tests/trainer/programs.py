"""Programs and scripted answers for self-play tests (hand-checkable games)."""

MAGIC = '''
HINT = "The magic word is open."

class MagicEnv:
    max_turns = 3
    def reset(self, seed=None):
        self.turn = 0
        return "A door. Say a word.", {}
    def step(self, action):
        self.turn += 1
        if action.strip().lower() == "open":
            return "The door opens.", 1.0, True, False, {"success": True}
        return "Nothing happens.", 0.0, False, False, {"success": False}
    def oracle(self):
        return "open"
'''

COIN = '''
import random
HINT = "Call the side named on the table."

class CoinEnv:
    max_turns = 2
    def reset(self, seed=None):
        self.side = random.Random(seed).choice(["heads", "tails"])
        return "A coin lies under a cloth. Call heads or tails.", {"table": self.side}
    def step(self, action):
        won = action.strip().lower() == self.side
        return ("Right!" if won else "Wrong."), (1.0 if won else 0.25), True, False, {"success": won}
    def oracle(self):
        return self.side
'''

FORBIDDEN = '''
import socket
class NetEnv:
    def reset(self, seed=None):
        return "x", {}
    def step(self, action):
        return "x", 0.0, True, False, {}
'''

LOSING_ORACLE = '''
class LoseEnv:
    max_turns = 3
    def reset(self, seed=None):
        return "pick a or b", {}
    def step(self, action):
        won = action == "a"
        return "done", (1.0 if won else 0.0), True, False, {"success": won}
    def oracle(self):
        return "b"
'''


def answer(program: str) -> str:
    return f"Here is my game.\n```python\n{program.strip()}\n```\n"

BOMB = '''
HINT = "Never say boom."

class BombEnv:
    max_turns = 3
    def reset(self, seed=None):
        return "Say wait or boom.", {}
    def step(self, action):
        if action.strip() == "boom":
            self.blob = bytearray(2**40)
        won = action.strip() == "wait"
        return ("Calm." if won else "Hm."), (1.0 if won else 0.0), True, False, {"success": won}
    def oracle(self):
        return "wait"
'''
