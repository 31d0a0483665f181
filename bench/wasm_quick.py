"""Quick figures for the wasm backend beside nsjail and process, in one run.

    python bench/wasm_quick.py [--cold 30] [--steps 1000] [--calibrate] [--out FILE]

* cold start: ``backend.spawn(limits)`` until the guest runner's ready frame (a fresh guest, no warm
  pool), p50/p99 over ``--cold`` guests;
* step round trip: ``Session.step`` from call to validated result on one session, p50/p99 over
  ``--steps`` steps (after 20 untimed warm-up steps);
* ``--calibrate``: fuel per CPU second of CPython-for-WASI on a few workloads, the measurement
  behind ``sandbox.wasm.FUEL_PER_CPU_SECOND``.

A backend that cannot start here is reported with its reason instead of figures.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

BACKENDS = ("wasm", "nsjail", "process")
WARMUP_STEPS = 20
STEP_ENV = """
class EchoEnv:
    def reset(self, seed=None):
        self.turn = 0
        return "start", {}
    def step(self, action):
        self.turn += 1
        return f"{action}:{self.turn}", 0.0, False, False, {"turn": self.turn}
"""

WORKLOADS = {
    "int loop": "def f():\n n = 0\n for i in range(2 * 10**6): n += i\nf()",
    "strings": "def f():\n s = []\n for i in range(200000): s.append(str(i) * 3)\n return ''.join(s)\nf()",
    "dict churn": "def f():\n d = {}\n for i in range(400000): d[i % 5000] = d.get(i % 5000, 0) + i\nf()",
    "json": "import json\nx = [{'a': i, 'b': str(i), 'c': [i] * 5} for i in range(20000)]\nfor _ in range(3): json.loads(json.dumps(x))",
    "sort": "import random\nrandom.seed(1)\nx = [random.random() for _ in range(200000)]\nx.sort()",
    "startup": "pass",
}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100.0
    low, high = math.floor(rank), math.ceil(rank)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def summary(samples: list[float], scale: float) -> dict[str, float | int]:
    return {
        "p50": round(percentile(samples, 50) * scale, 3),
        "p99": round(percentile(samples, 99) * scale, 3),
        "n": len(samples),
    }


def cold_start(backend: object, samples: int) -> dict[str, float | int]:
    from sandbox import Limits

    limits = Limits()
    durations = []
    for _ in range(samples):
        started = time.perf_counter()
        guest = backend.spawn(limits)  # type: ignore[attr-defined]
        ready = guest.wait_ready()
        durations.append(time.perf_counter() - started)
        guest.close()
        if not ready.ok:
            raise RuntimeError(f"guest did not start: {ready.detail}")
    return summary(durations, 1e3)


def step_round_trip(name: str, samples: int) -> dict[str, float | int]:
    from sandbox import Limits, Sandbox

    durations = []
    with Sandbox(name, Limits(), warm=0) as sandbox, sandbox.open(STEP_ENV) as session:
        if not session.loaded.ok:
            raise RuntimeError(f"load failed: {session.loaded.detail}")
        session.reset(seed=0)
        for t in range(WARMUP_STEPS + samples):
            started = time.perf_counter()
            result = session.step(f"a{t}")
            elapsed = time.perf_counter() - started
            if not result.ok:
                raise RuntimeError(f"step failed: {result.outcome.value}: {result.detail}")
            if t >= WARMUP_STEPS:
                durations.append(elapsed)
    return summary(durations, 1e6)


def calibrate(repeats: int = 3) -> dict[str, object]:
    """Fuel per CPU second on each workload, run in-process on the cached module (trusted code only)."""
    import wasmtime

    from sandbox import _wasm_host as host
    from sandbox.wasm import FUEL_PER_CPU_SECOND, WasmBackend

    module_path = WasmBackend().runtime.module
    engine = host.make_engine()
    module = wasmtime.Module.deserialize_file(engine, str(module_path))
    rates: dict[str, object] = {}
    for name, code in WORKLOADS.items():
        runs = []
        for _ in range(repeats):
            linker = wasmtime.Linker(engine)
            linker.define_wasi()
            store = wasmtime.Store(engine)
            wasi = wasmtime.WasiConfig()
            wasi.argv = ["python", "-S", "-c", code]
            wasi.env = [["PYTHONHASHSEED", "0"]]
            store.set_wasi(wasi)
            store.set_fuel(10**15)
            instance = linker.instantiate(store, module)
            started = time.process_time()
            try:
                instance.exports(store)["_start"](store)
            except wasmtime.ExitTrap as exc:
                if exc.code != 0:
                    raise RuntimeError(f"workload {name} exited {exc.code}") from None
            cpu = time.process_time() - started
            runs.append((10**15 - store.get_fuel(), cpu))
        fuel = runs[0][0]
        best = max(f / c for f, c in runs)
        rates[name] = {
            "fuel": fuel,
            "fuel_per_cpu_second": round(best / 1e9, 3) * 1e9,
            "cpu_seconds": round(min(c for _, c in runs), 4),
        }
    values = [r["fuel_per_cpu_second"] for r in rates.values()]  # type: ignore[index]
    return {"workloads": rates, "min": min(values), "max": max(values), "constant": FUEL_PER_CPU_SECOND}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cold", type=int, default=30)
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--backends", default=",".join(BACKENDS))
    parser.add_argument("--calibrate", action="store_true")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    from sandbox import BackendUnavailableError, get_backend

    report: dict[str, object] = {
        "machine": {
            "cpus": __import__("os").cpu_count(),
            "processor": platform.processor() or platform.machine(),
            "python": sys.version.split()[0],
        }
    }
    for name in args.backends.split(","):
        entry: dict[str, object] = {}
        try:
            started = time.perf_counter()
            backend = get_backend(name)
            entry["backend_init_ms"] = round((time.perf_counter() - started) * 1e3, 1)
            entry["cold_start_ms"] = cold_start(backend, args.cold)
            entry["step_us"] = step_round_trip(name, args.steps)
        except BackendUnavailableError as exc:
            entry["unavailable"] = exc.reason
        except Exception as exc:
            entry["failed"] = f"{type(exc).__name__}: {exc}"
        report[name] = entry
        print(name, json.dumps(entry), flush=True)
    if args.calibrate:
        report["fuel_calibration"] = calibrate()
        print("fuel_calibration", json.dumps(report["fuel_calibration"]), flush=True)
    text = json.dumps(report, indent=2)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
