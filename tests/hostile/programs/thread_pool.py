"""Asks a thread pool for 64 workers; the session's task limit refuses most of them."""

from concurrent.futures import ThreadPoolExecutor
import threading


class PoolEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        gate = threading.Event()
        pool = ThreadPoolExecutor(max_workers=64)
        futures, refusal = [], None
        for i in range(64):
            try:
                futures.append(pool.submit(lambda i=i: gate.wait(10) and i * i))
            except RuntimeError as exc:
                refusal = "%s: %s" % (type(exc).__name__, exc)
                break
        gate.set()
        total = sum(f.result() for f in futures)
        pool.shutdown()
        return "threads=%d" % len(futures), 0.0, False, False, {
            "started": len(futures), "refusal": refusal, "total": total,
        }
