import random
from collections import deque

HINT = (
    "The exit is always in the corner diagonally opposite the one you start in; head that way and "
    "backtrack from dead ends."
)

MOVES = {"north": (0, -1), "south": (0, 1), "east": (1, 0), "west": (-1, 0)}
ALIASES = {"n": "north", "s": "south", "e": "east", "w": "west", "up": "north", "down": "south",
           "right": "east", "left": "west"}


class FogMazeEnv:
    """Exploration under partial observability: the maze's layout is revealed only by moving through it."""

    max_turns = 40

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.w, self.h = rng.choice([(5, 5), (6, 4), (4, 6), (6, 5)])
        self.open = {(x, y): set() for x in range(self.w) for y in range(self.h)}
        start = (rng.randrange(self.w), rng.randrange(self.h))
        stack, seen = [start], {start}
        while stack:  # randomised depth-first search carves a perfect maze
            x, y = stack[-1]
            options = [(d, (x + dx, y + dy)) for d, (dx, dy) in MOVES.items()
                       if (x + dx, y + dy) in self.open and (x + dx, y + dy) not in seen]
            if not options:
                stack.pop()
                continue
            d, nxt = rng.choice(options)
            back = {"north": "south", "south": "north", "east": "west", "west": "east"}[d]
            self.open[(x, y)].add(d)
            self.open[nxt].add(back)
            seen.add(nxt)
            stack.append(nxt)
        corners = [(0, 0), (self.w - 1, 0), (0, self.h - 1), (self.w - 1, self.h - 1)]
        self.pos = rng.choice(corners)
        self.exit = (self.w - 1 - self.pos[0], self.h - 1 - self.pos[1])
        self.visited = {self.pos}
        self.turn = 0
        intro = (f"You are lost in a foggy {self.w}x{self.h} maze (x grows east, y grows south) and must find "
                 "the exit. Actions: north, south, east, west (or n/s/e/w). New cells earn a little reward.")
        return intro + " " + self._look(), {}

    def _look(self):
        ways = ", ".join(d for d in MOVES if d in self.open[self.pos])
        return f"You are at {self.pos}. Open passages: {ways}."

    def step(self, action):
        self.turn += 1
        word = str(action).strip().lower().split()
        word = word[-1] if word else ""
        word = ALIASES.get(word, word)
        reward = 0.0
        if word not in MOVES:
            obs = "Not understood: move north, south, east or west. " + self._look()
        elif word not in self.open[self.pos]:
            obs = f"A wall blocks the way {word}. " + self._look()
        else:
            dx, dy = MOVES[word]
            self.pos = (self.pos[0] + dx, self.pos[1] + dy)
            if self.pos not in self.visited:
                self.visited.add(self.pos)
                reward = 0.02
            if self.pos == self.exit:
                return f"You step out of the fog at {self.pos}: the exit!", reward + 1.0, True, False, {"success": True}
            obs = self._look()
        truncated = self.turn >= self.max_turns
        if truncated:
            obs += " You are exhausted; the fog wins."
        return obs, reward, False, truncated, {"success": False}

    def oracle(self):
        queue, first = deque([self.pos]), {self.pos: None}
        while queue:
            cell = queue.popleft()
            if cell == self.exit:
                break
            for d, (dx, dy) in MOVES.items():
                nxt = (cell[0] + dx, cell[1] + dy)
                if d in self.open[cell] and nxt not in first:
                    first[nxt] = first[cell] or d
                    queue.append(nxt)
        return first[self.exit]
