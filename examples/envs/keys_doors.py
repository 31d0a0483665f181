import random
from collections import deque

HINT = (
    "Route: key a, door A, key b, door B, exit. Each key lies in the room just before its door; doors "
    "open when you walk into them holding the key."
)

MOVES = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}
ALIASES = {"north": "up", "south": "down", "west": "left", "east": "right", "n": "up", "s": "down",
           "w": "left", "e": "right", "u": "up", "d": "down", "l": "left", "r": "right"}


class KeysDoorsEnv:
    """Path-finding with keys and doors on a fully visible grid: plan the order of pickups."""

    max_turns = 60

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.w, self.h = 11, 6
        while True:
            walls = sorted(rng.sample(range(2, self.w - 2), 2))
            if walls[1] - walls[0] < 3:
                continue
            grid = [["." for _ in range(self.w)] for _ in range(self.h)]
            for x, door in zip(walls, "AB"):
                for y in range(self.h):
                    grid[y][x] = "#"
                grid[rng.randrange(self.h)][x] = door
            free = lambda lo, hi: [(x, y) for x in range(lo, hi) for y in range(self.h) if grid[y][x] == "."]
            for cell in rng.sample(free(0, self.w), 8):
                grid[cell[1]][cell[0]] = "#"
            (sx, sy), (ax, ay) = rng.sample(free(0, walls[0]), 2)
            bx, by = rng.choice(free(walls[0] + 1, walls[1]))
            ex, ey = rng.choice(free(walls[1] + 1, self.w))
            grid[ay][ax], grid[by][bx], grid[ey][ex] = "a", "b", "E"
            self.grid, self.pos, self.keys = grid, (sx, sy), ""
            if self._route() is not None:
                break
        self.turn = 0
        self.rewarded = set()
        return ("Grid (you are @; # wall; a/b keys; A/B doors; E exit): " + self._show()
                + " Actions: up, down, left, right. Reach E.", {})

    def _show(self):
        rows = ["".join("@" if (x, y) == self.pos else c for x, c in enumerate(row)) for y, row in enumerate(self.grid)]
        return " / ".join(rows) + f" (keys held: {self.keys or 'none'})"

    def _passable(self, cell, keys):
        x, y = cell
        if not (0 <= x < self.w and 0 <= y < self.h) or self.grid[y][x] == "#":
            return False
        return not self.grid[y][x].isupper() or self.grid[y][x] == "E" or self.grid[y][x].lower() in keys

    def _route(self):
        start = (self.pos, self.keys)
        queue, first = deque([start]), {start: None}
        while queue:
            pos, keys = queue.popleft()
            if self.grid[pos[1]][pos[0]] == "E":
                return first[(pos, keys)]
            for move, (dx, dy) in MOVES.items():
                nxt = (pos[0] + dx, pos[1] + dy)
                if self._passable(nxt, keys):
                    tile = self.grid[nxt[1]][nxt[0]]
                    state = (nxt, "".join(sorted(set(keys + tile))) if tile in "ab" else keys)
                    if state not in first:
                        first[state] = first[(pos, keys)] or move
                        queue.append(state)
        return None

    def step(self, action):
        self.turn += 1
        word = (str(action).strip().lower().split() or [""])[-1]
        word = ALIASES.get(word, word)
        reward = 0.0
        if word not in MOVES:
            obs = "Not understood: up, down, left or right."
        else:
            nxt = (self.pos[0] + MOVES[word][0], self.pos[1] + MOVES[word][1])
            if not self._passable(nxt, self.keys):
                obs = "Blocked." + (" The door is locked." if 0 <= nxt[0] < self.w and 0 <= nxt[1] < self.h
                                    and self.grid[nxt[1]][nxt[0]] in "AB" else "")
            else:
                self.pos = nxt
                tile = self.grid[nxt[1]][nxt[0]]
                if tile == "E":
                    speed = 0.2 * (self.max_turns - self.turn) / self.max_turns          # the faster, the better
                    return "You reach the exit!", 1.0 + speed, True, False, {"success": True}
                if tile in "abAB" and tile not in self.rewarded:
                    self.rewarded.add(tile)
                    reward = 0.1
                if tile in "ab" and tile not in self.keys:
                    self.keys = "".join(sorted(self.keys + tile))
                obs = f"You move {word}."
        truncated = self.turn >= self.max_turns
        return obs + " " + self._show(), reward, False, truncated, {"success": False}

    def oracle(self):
        return self._route()
