import random
from collections import deque

HINT = (
    "The target is always reachable as: times, then add, then times, then minus (exactly four operations, "
    "in that order)."
)


class BudgetArithmeticEnv:
    """Planning under a budget: reach a target number with a few arithmetic operations."""

    max_turns = 6
    budget = 4

    def reset(self, seed=None):
        rng = random.Random(seed)
        self.start = rng.randint(2, 9)
        self.mul = rng.choice([2, 3])
        self.add = rng.randint(2, 9)
        self.sub = rng.randint(1, 5)
        self.target = (self.start * self.mul + self.add) * self.mul - self.sub
        self.value = self.start
        self.used = 0
        self.turn = 0
        return (
            f"You hold the number {self.value}; reach exactly {self.target}. Operations (each uses one of "
            f"your {self.budget} moves): 'times' (x{self.mul}), 'add' (+{self.add}), 'minus' (-{self.sub}). "
            "You are scored on how close you end."
        ), {}

    def _apply(self, value, op):
        return {"times": value * self.mul, "add": value + self.add, "minus": value - self.sub}[op]

    def _closeness(self):
        return max(0.0, 1.0 - abs(self.value - self.target) / self.target)

    def step(self, action):
        self.turn += 1
        words = str(action).strip().lower().replace("*", " times ").replace("+", " add ").split()
        aliases = {"multiply": "times", "mul": "times", "x": "times", "plus": "add", "subtract": "minus",
                   "sub": "minus", "-": "minus"}
        ops = [aliases.get(w, w) for w in words if aliases.get(w, w) in ("times", "add", "minus")]
        if not ops:
            obs = f"Not understood: use 'times', 'add' or 'minus'. Value {self.value}, target {self.target}."
        else:
            self.value = self._apply(self.value, ops[0])
            self.used += 1
            obs = f"{ops[0]} -> {self.value} (target {self.target}, {self.budget - self.used} moves left)."
        if self.value == self.target:
            return obs + " Exact hit!", 1.0, True, False, {"success": True}
        if self.used >= self.budget:
            return obs + " Budget spent.", 0.5 * self._closeness(), True, False, {"success": False}
        if self.turn >= self.max_turns:
            return obs + " Out of time.", 0.5 * self._closeness(), False, True, {"success": False}
        return obs, 0.0, False, False, {"success": False}

    def oracle(self):
        left = self.budget - self.used
        queue, first = deque([(self.value, 0)]), {self.value: None}
        while queue:
            value, depth = queue.popleft()
            if value == self.target:
                return first[value]
            if depth == left:
                continue
            for op in ("times", "add", "minus"):
                nxt = self._apply(value, op)
                if nxt not in first and abs(nxt) < 100000:
                    first[nxt] = first[value] or op
                    queue.append((nxt, depth + 1))
        return "add"
