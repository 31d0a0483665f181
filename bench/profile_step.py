"""Where a step round trip's time goes: host framing and JSON, the guest runner, the program, the pipes.

The protocol costs are measured with ``timeit`` (best of 5) on the real functions (``sandbox/protocol.py`` on the
host side; the guest runner's own code, loaded here, on the guest side); the round trips are measured on
live sessions, once with an echo program (a trivial env: the pipe round trip) and once with the real
program (p50).  What the parts do not explain is the transport: pipe writes and reads, ``select``, process
wake-ups, and the remaining Python on both sides (including what a part costs beyond its best-of-5 in a
tight loop).  An ablation, the same session stepped again with the host's per-call usage accounting
stubbed out, shows that part's cost in context.

Run it alone with ``python -m bench.profile_step [--quick]``.
"""

from __future__ import annotations

import contextlib
import importlib.util
import statistics
import sys
import time
import timeit
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import TYPE_CHECKING, Any

from bench._breakdown import breakdown_rows
from bench.backends import quiet
from bench.cold_start import MeasurementFailed
from bench.envs import BenchEnv

if TYPE_CHECKING:
    from sandbox import Session

ECHO = BenchEnv(
    name="echo",
    source=(
        "class EchoEnv:\n"
        "    def reset(self, seed=None):\n"
        "        return '', {}\n\n"
        "    def step(self, action):\n"
        "        return action, 0.0, False, False, {}\n"
    ),
    origin="builtin",
    actions=("echo",),
    max_turns=None,
)


def _per_call_us(function: Callable[[], object], number: int, repeat: int = 5) -> float:
    """Time per call in microseconds, best of ``repeat`` timeit runs (timeit's own advice: the minimum is
    the cost; higher runs measure other work on the machine)."""
    runs = timeit.Timer(function).repeat(repeat=repeat, number=number)
    return round(min(runs) / number * 1e6, 3)


def _guest_module() -> ModuleType:
    """The guest runner's own code, loaded in this process (a data file for the host; trusted here)."""
    from sandbox._runtime import GUEST_SOURCE

    spec = importlib.util.spec_from_file_location("_spade_guest_profile", GUEST_SOURCE)
    if spec is None or spec.loader is None:
        raise MeasurementFailed(f"cannot load the guest runner from {GUEST_SOURCE}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def host_and_guest_costs(env: BenchEnv, number: int) -> dict[str, float]:
    """Per-step costs measured in this process: host protocol, guest protocol, guest runner, the program."""
    from sandbox.limits import Limits
    from sandbox.protocol import HEADER_BYTES, encode_frame, parse_reply, validate_result

    limits = Limits()
    guest = _guest_module()
    runner = guest.Runner(limits.print_bytes, limits.traceback_chars, limits.reply_bytes)
    saved = sys.modules.get("__spade_env__")
    try:
        runner.handle({"op": "load", "source": env.source, "filename": env.name})
        runner.handle({"op": "reset", "seed": 0})
        action = env.actions[0]
        request = {"op": "step", "action": action}
        frame = encode_frame(request)
        body = frame[HEADER_BYTES:]
        reply = runner.serve_one(request)
        payload = runner.encode(reply)

        def host_decode() -> object:
            message = parse_reply(payload)
            return validate_result("step", message["result"], limits.reward_bound)

        def guest_encode() -> bytes:
            data = runner.encode(reply)
            return len(data).to_bytes(HEADER_BYTES, "big") + data

        costs = {
            "host_encode_us": _per_call_us(lambda: encode_frame(request), number),
            "host_decode_us": _per_call_us(host_decode, number),
            "guest_decode_us": _per_call_us(lambda: guest.json.loads(body.decode("utf-8")), number),
            "guest_encode_us": _per_call_us(guest_encode, number),
        }
        serve = _per_call_us(lambda: runner.serve_one(request), number)
        env_step = _per_call_us(lambda: runner.env.step(action), number)
    finally:
        if saved is None:
            sys.modules.pop("__spade_env__", None)
        else:
            sys.modules["__spade_env__"] = saved
    costs["guest_runner_us"] = round(max(0.0, serve - env_step), 3)
    costs["env_step_us"] = env_step
    costs["reply_bytes"] = len(payload)
    return costs


def _steps_p50(session: Session, env: BenchEnv, steps: int, backend: str) -> float:
    """p50 of ``steps`` timed ``Session.step`` calls in us (after 20 untimed), resetting when an episode ends."""
    durations: list[float] = []
    session.reset(seed=0)
    for t in range(steps + 20):
        started = time.perf_counter()
        result = session.step(env.action(t))
        elapsed = time.perf_counter() - started
        if result.outcome.is_fatal:
            raise MeasurementFailed(f"{env.name} on {backend}: {result.outcome.value}: {result.detail}")
        if t >= 20:
            durations.append(elapsed)
        if result.terminated or result.truncated:
            session.reset(seed=t)
    return round(statistics.median(durations) * 1e6, 3)


@contextlib.contextmanager
def _without_accounting(guest: object) -> Iterator[bool]:
    """Stub out one guest object's per-call usage accounting (an ablation; restored on exit)."""
    if guest is None or not callable(getattr(type(guest), "usage", None)) or "usage" in vars(guest):
        yield False
        return
    from sandbox.outcome import Usage

    guest.usage = lambda started: Usage(wall_seconds=time.monotonic() - started)  # type: ignore[attr-defined]
    try:
        yield True
    finally:
        del guest.usage  # type: ignore[attr-defined]


def _round_trip(backend: str, env: BenchEnv, steps: int, ablate: bool = False) -> dict[str, float | None]:
    """``Session.step`` p50 in us; the host's per-call usage accounting cost and the part of it that reads
    the session cgroup's peak memory (None where not visible); with ``ablate``, the p50 again on the same
    session with that accounting stubbed out."""
    from sandbox import Limits, Sandbox

    with quiet(), Sandbox(backend, Limits(), warm=0) as sandbox, sandbox.open(env.source, env.name) as session:
        if not session.loaded.ok:
            raise MeasurementFailed(
                f"{env.name} did not load on {backend}: {session.loaded.outcome.value}: {session.loaded.detail}"
            )
        round_trip = _steps_p50(session, env, steps, backend)
        guest = getattr(session, "_guest", None)
        ablated = None
        if ablate:
            with _without_accounting(guest) as stubbed:
                ablated = _steps_p50(session, env, steps, backend) if stubbed else None
        usage = getattr(guest, "usage", None)
        accounting = _per_call_us(lambda: usage(time.monotonic()), 200) if callable(usage) else None
        cgroup = getattr(guest, "cgroup", None)
        if guest is not None and hasattr(guest, "cgroup") and cgroup is None:
            cgroup_read: float | None = 0.0  # this backend's sessions have no cgroup to read
        else:
            peak = getattr(cgroup, "peak_memory", None)
            cgroup_read = _per_call_us(peak, 200) if callable(peak) else None
    return {
        "round_trip": round_trip,
        "accounting": accounting,
        "cgroup_read": cgroup_read,
        "without_accounting": ablated,
    }


def profile_backend(
    backend: str, env: BenchEnv, local: dict[str, float], echo_local: dict[str, float], steps: int
) -> dict[str, Any]:
    """One backend's breakdown of ``env``'s round trip (and the echo program's), in us per step."""
    measured = _round_trip(backend, env, steps, ablate=True)
    round_trip, accounting = measured["round_trip"], measured["accounting"]
    echo_trip = _round_trip(backend, ECHO, steps)["round_trip"]
    host = local["host_encode_us"] + local["host_decode_us"] + (accounting or 0.0)
    guest = local["guest_decode_us"] + local["guest_encode_us"] + local["guest_runner_us"]
    echo_known = echo_local["host_encode_us"] + echo_local["host_decode_us"] + (accounting or 0.0)
    echo_known += (
        echo_local["guest_decode_us"]
        + echo_local["guest_encode_us"]
        + echo_local["guest_runner_us"]
        + echo_local["env_step_us"]
    )
    return {
        "round_trip_us": round_trip,
        "host_accounting_us": accounting,
        "host_cgroup_read_us": measured["cgroup_read"],
        "round_trip_without_accounting_us": measured["without_accounting"],
        "transport_us": round(round_trip - host - guest - local["env_step_us"], 3),
        "echo_round_trip_us": echo_trip,
        "echo_transport_us": round(echo_trip - echo_known, 3),
    }


def profile_step(env: BenchEnv, backends: list[str], steps: int = 2000, number: int = 2000) -> dict[str, Any]:
    """The breakdown for ``env`` on each backend in ``backends`` (keys: the shared local costs and ``backends``)."""
    local = host_and_guest_costs(env, number)
    echo_local = host_and_guest_costs(ECHO, number)
    return {
        "env": env.name,
        **local,
        "backends": {backend: profile_backend(backend, env, local, echo_local, steps) for backend in backends},
    }


def main(argv: list[str]) -> int:
    """Print the breakdown for the counter on every backend that starts here (the CLI way lives in ``spade bench``)."""
    from bench.backends import probe
    from bench.envs import pick_envs

    quick = "--quick" in argv
    envs, _ = pick_envs(count=1)
    usable = [name for name, reason in probe().items() if reason is None]
    profile = profile_step(envs[0], usable, steps=300 if quick else 3000, number=500 if quick else 5000)
    for backend in usable:
        print(f"{envs[0].name} on {backend}")
        for label, value in breakdown_rows(profile, backend):
            print(f"  {label:<62} {'-' if value is None else f'{value:9.1f} us'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
