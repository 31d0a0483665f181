import math
import random
from collections import deque

HINT = (
    "Either keep pouring the small jug into the big one (fill small when empty, empty big when full) or "
    "the reverse; one of the two loops hits the target in time."
)


class WaterJugsEnv:
    """A measuring puzzle on visible state: get an exact amount of water into one of two jugs."""

    max_turns = 14

    def reset(self, seed=None):
        rng = random.Random(seed)
        while True:
            self.cap = {"a": rng.randint(3, 7), "b": rng.randint(5, 11)}
            if self.cap["a"] == self.cap["b"] or math.gcd(self.cap["a"], self.cap["b"]) != 1:
                continue
            self.target = rng.choice([t for t in range(1, max(self.cap.values())) if t not in self.cap.values()])
            self.jugs = {"a": 0, "b": 0}
            shortest = len(self._path())
            if 3 <= shortest <= 10:
                break
        self.limit = shortest + 4                            # at most max_turns
        self.turn = 0
        return (
            f"Jug a holds up to {self.cap['a']} litres, jug b up to {self.cap['b']}; both are empty. Get exactly "
            f"{self.target} litres into either jug within {self.limit} moves. Actions: 'fill a', 'fill b', "
            "'empty a', 'empty b', 'pour a b' (a into b), 'pour b a'."
        ), {}

    def _apply(self, jugs, move):
        jugs = dict(jugs)
        verb, src, *rest = move.split()
        if verb == "fill":
            jugs[src] = self.cap[src]
        elif verb == "empty":
            jugs[src] = 0
        else:
            dst = rest[0]
            amount = min(jugs[src], self.cap[dst] - jugs[dst])
            jugs[src] -= amount
            jugs[dst] += amount
        return jugs

    def _path(self):
        moves = ["fill a", "fill b", "empty a", "empty b", "pour a b", "pour b a"]
        start = (self.jugs["a"], self.jugs["b"])
        queue, back = deque([start]), {start: None}
        while queue:
            state = queue.popleft()
            if self.target in state:
                path = []
                while back[state]:
                    state, move = back[state]
                    path.append(move)
                return path[::-1]
            for move in moves:
                nxt = self._apply({"a": state[0], "b": state[1]}, move)
                key = (nxt["a"], nxt["b"])
                if key not in back:
                    back[key] = (state, move)
                    queue.append(key)
        return []

    def _parse(self, text):
        words = [w for w in text.replace(",", " ").replace("into", " ").replace("jug", " ").split() if w != "to"]
        names = [w for w in words if w in ("a", "b")]
        if "pour" in words and len(names) == 2 and names[0] != names[1]:
            return f"pour {names[0]} {names[1]}"
        for verb in ("fill", "empty"):
            if verb in words and names:
                return f"{verb} {names[0]}"
        return None

    def step(self, action):
        self.turn += 1
        move = self._parse(str(action).strip().lower())
        if move is None:
            obs = "Not understood: 'fill a|b', 'empty a|b', 'pour a b' or 'pour b a'."
        else:
            self.jugs = self._apply(self.jugs, move)
            obs = f"{move}: a={self.jugs['a']}, b={self.jugs['b']}."
            if self.target in self.jugs.values():
                speed = 0.2 * (self.limit - self.turn) / self.limit
                return obs + f" Exactly {self.target} litres!", 1.0 + speed, True, False, {"success": True}
        truncated = self.turn >= self.limit
        reward = 0.0
        if truncated:
            gap = min(abs(v - self.target) for v in self.jugs.values())
            reward = 0.3 * max(0.0, 1.0 - gap / self.target)
            obs += " Out of moves."
        return obs, reward, False, truncated, {"success": False}

    def oracle(self):
        path = self._path()
        return path[0] if path else "fill a"
