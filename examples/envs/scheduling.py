import itertools
import random

HINT = (
    "Earliest deadline first, but first pull each task's deadline forward to (its dependant's deadline "
    "minus the dependant's duration)."
)

NAMES = ["paint", "wire", "plumb", "tile", "frame", "roof", "glaze", "sand"]


class SchedulingEnv:
    """A scheduling puzzle: order jobs with durations, deadlines and prerequisites so that all finish on time."""

    max_turns = 8

    def reset(self, seed=None):
        rng = random.Random(seed)
        n = rng.choice([4, 5])
        order = rng.sample(NAMES, n)
        self.duration, self.deadline, self.needs = {}, {}, {}
        clock = 0
        for i, job in enumerate(order):
            self.duration[job] = rng.randint(1, 4)
            clock += self.duration[job]
            self.deadline[job] = clock + rng.randint(0, 2)
            self.needs[job] = sorted(rng.sample(order[:i], 1)) if i and rng.random() < 0.5 else []
        self.jobs = sorted(order)
        self.done = []
        self.clock = 0
        self.turn = 0
        lines = "; ".join(
            f"{j}: takes {self.duration[j]}, due by {self.deadline[j]}"
            + (f", after {', '.join(self.needs[j])}" if self.needs[j] else "")
            for j in self.jobs
        )
        return (
            f"One crew, time starts at 0. Jobs: {lines}. Action: 'do <job>' runs it next. "
            "Each job finished by its due time earns credit; finish all on time to win. A confused order "
            "costs an idle hour."
        ), {}

    def _on_time(self, sequence, clock):
        count = 0
        for job in sequence:
            clock += self.duration[job]
            count += clock <= self.deadline[job]
        return count

    def _allowed(self, sequence, done):
        seen = set(done)
        for job in sequence:
            if any(n not in seen for n in self.needs[job]):
                return False
            seen.add(job)
        return True

    def step(self, action):
        self.turn += 1
        text = str(action).strip().lower()
        job = next((j for j in self.jobs if j in text), None)
        reward = 0.0
        if job is None or job in self.done:
            left = [j for j in self.jobs if j not in self.done]
            self.clock += 1
            obs = (f"Not understood or already done: the crew idles until {self.clock}. "
                   f"Say 'do <job>' ({', '.join(left)}).")
        elif any(n not in self.done for n in self.needs[job]):
            self.clock += 1
            obs = f"Can't start {job} yet (it needs {', '.join(self.needs[job])}); the crew idles until {self.clock}."
        else:
            self.clock += self.duration[job]
            self.done.append(job)
            late = self.clock > self.deadline[job]
            reward = 0.0 if late else 1.0 / len(self.jobs)
            obs = f"{job} done at time {self.clock} ({'LATE' if late else 'on time'})."
            if len(self.done) == len(self.jobs):
                won = self._on_time(self.done, 0) == len(self.jobs)
                obs += " Every job on time!" if won else " Not all on time."
                return obs, reward, True, False, {"success": won}
        truncated = self.turn >= self.max_turns
        return obs, reward, False, truncated, {"success": False}

    def oracle(self):
        left = [j for j in self.jobs if j not in self.done]
        plans = [p for p in itertools.permutations(left) if self._allowed(p, self.done)]
        return "do " + max(plans, key=lambda p: self._on_time(p, self.clock))[0]
