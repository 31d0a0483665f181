"""The wasm backend's per-session host helper: runs the guest runner in CPython-for-WASI under wasmtime.

One helper process serves one session.  The main process starts it as a plain script
(``python -I -S -B _wasm_host.py ...``) through :class:`sandbox._guest.GuestProcess`, which keeps
its watchdog, output cap and reaping.  Here the helper:

* moves the session's channel pipes onto fds 0 and 1, so that inside WASI the guest runner speaks
  its frames on stdin/stdout (``--in 0 --out 1``); fd 2 stays the output pipe the host caps;
* builds one wasmtime Engine, loads the precompiled module from the on-disk cache (about 1 ms),
  and instantiates it in a Store with a linear-memory limit and a fuel budget;
* gives the guest nothing but the runner's folder (read-only, at ``/spade``), the environment
  variable ``PYTHONHASHSEED=0``, and a keyed ``random_get`` (so that the same program
  burns the same fuel on every run);
* turns how the guest ended into an exit code (``EXIT_*`` below) and one bounded JSON status line
  on a dedicated status pipe, which only this helper (never the guest) can write.

This file imports only the standard library at module level (``sandbox.wasm`` imports its
constants), and wasmtime inside :func:`main`.  It must not import the ``sandbox`` package: it runs
isolated (``-I -S``) with only wasmtime's folder on ``sys.path``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import threading

# Exit codes of the helper.  A guest's own exit status (the runner's os._exit) is passed through
# clamped to 0..GUEST_EXIT_MAX, so a guest can never claim one of these.
GUEST_EXIT_MAX = 79
EXIT_HOST_ERROR = 80
EXIT_OUT_OF_FUEL = 81
EXIT_MEMORY = 82
EXIT_TRAP = 83
EXIT_SESSION_TIME = 84

STATUS_MAX_BYTES = 2048
GUEST_RUNNER_DIR = "/spade"
GUEST_RUNNER = GUEST_RUNNER_DIR + "/spade_guest.py"
GUEST_ENV = (("PYTHONHASHSEED", "0"),)

# Everything that changes the compiled code goes here: it is part of the cache key, and the same
# settings must be used to compile and to deserialize (wasmtime refuses a mismatch).
ENGINE_SETTINGS = {"consume_fuel": True, "cranelift_opt_level": "speed", "max_wasm_stack": 1 << 20}

# A trap within this many bytes of the memory limit is blamed on the limit (CPython aborts with
# "unreachable" when a small allocation fails where it cannot raise MemoryError).
MEMORY_SLACK_BYTES = 4 << 20


def engine_key() -> str:
    """The engine settings as a stable string (part of the compiled-module cache key)."""
    return json.dumps(ENGINE_SETTINGS, sort_keys=True)


def make_engine():  # -> wasmtime.Engine
    import wasmtime

    config = wasmtime.Config()
    config.consume_fuel = ENGINE_SETTINGS["consume_fuel"]
    config.cranelift_opt_level = ENGINE_SETTINGS["cranelift_opt_level"]
    config.max_wasm_stack = ENGINE_SETTINGS["max_wasm_stack"]
    return wasmtime.Engine(config)


def compile_module(source: str, target: str) -> None:
    """Compile ``source`` (.wasm) and write the serialized module to ``target`` atomically."""
    import wasmtime

    engine = make_engine()
    module = wasmtime.Module.from_file(engine, source)
    data = module.serialize()
    staging = f"{target}.{os.getpid()}.tmp"
    fd = os.open(staging, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        with open(f"{target}.sha256.{os.getpid()}.tmp", "w") as digest:
            digest.write(hashlib.sha256(data).hexdigest())
        # Load it once more: a module this wasmtime cannot deserialize must never be cached.
        wasmtime.Module.deserialize_file(engine, staging)
        os.replace(f"{target}.sha256.{os.getpid()}.tmp", f"{target}.sha256")
        os.replace(staging, target)
    finally:
        for leftover in (staging, f"{target}.sha256.{os.getpid()}.tmp"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(leftover)


class _KeyedRandom:
    """``random_get`` for the guest: a SHA-256 counter stream under a per-session key from the host.

    The host draws a fresh key for every session, so unseeded randomness differs between sessions
    (and the validator's determinism gate sees it), while a session started with a given key is
    reproducible instruction for instruction (fuel metering stays exact).
    """

    def __init__(self, key: bytes) -> None:
        self.key = key
        self.counter = 0

    def take(self, size: int) -> bytes:
        out = bytearray()
        while len(out) < size:
            out += hashlib.sha256(self.key + b"/%d" % self.counter).digest()
            self.counter += 1
        return bytes(out[:size])


def _arguments(argv: list[str]) -> dict[str, str]:
    values: dict[str, str] = {}
    rest = list(argv)
    while rest and rest[0] != "--":
        flag = rest.pop(0)
        if not flag.startswith("--") or not rest:
            raise ValueError(f"bad helper argument {flag!r}")
        values[flag[2:]] = rest.pop(0)
    values["runner_args"] = json.dumps(rest[1:])
    return values


class _Status:
    """The one status line the host reads after the helper exits."""

    def __init__(self, fd: int | None) -> None:
        self.fd = fd
        self.written = False

    def write(self, outcome: str, detail: str, **extra: object) -> None:
        if self.fd is None or self.written:
            return
        self.written = True
        line = json.dumps({"outcome": outcome, "detail": detail[:1000], **extra}).encode()[:STATUS_MAX_BYTES]
        with contextlib.suppress(OSError):
            os.write(self.fd, line + b"\n")


def _frame(trap: object) -> str:
    frames = getattr(trap, "frames", None) or []
    if not frames:
        return "?"
    top = frames[0]
    name = top.func_name or f"func{top.func_index}"
    return f"{name}+{top.func_offset:#x}"


def serve(options: dict[str, str], status: _Status) -> int:
    """Run the guest runner to its end; returns the helper's exit code."""
    import wasmtime

    fuel_budget = int(options["fuel"])
    memory_bytes = int(options["memory"])
    engine = make_engine()
    module = wasmtime.Module.deserialize_file(engine, options["module"])
    linker = wasmtime.Linker(engine)
    linker.allow_shadowing = True
    linker.define_wasi()
    entropy = _KeyedRandom(bytes.fromhex(options.get("entropy", "")))
    i32 = wasmtime.ValType.i32()

    def random_get(caller, buf: int, size: int) -> int:
        memory = caller["memory"]
        if size < 0 or buf < 0 or buf + size > memory.data_len(caller):
            return 21  # errno EFAULT in WASI numbering
        memory.write(caller, entropy.take(size), buf)
        return 0

    linker.define_func("wasi_snapshot_preview1", "random_get", wasmtime.FuncType([i32, i32], [i32]), random_get, access_caller=True)

    store = wasmtime.Store(engine)
    wasi = wasmtime.WasiConfig()
    wasi.argv = ["python", "-S", "-B", GUEST_RUNNER, *json.loads(options["runner_args"])]
    wasi.env = [list(pair) for pair in GUEST_ENV]
    wasi.inherit_stdin()
    wasi.inherit_stdout()
    wasi.inherit_stderr()
    wasi.preopen_dir(options["runner-dir"], GUEST_RUNNER_DIR, False)
    store.set_wasi(wasi)
    store.set_limits(memory_size=memory_bytes, instances=1, memories=1, tables=4, table_elements=1 << 16)
    store.set_fuel(fuel_budget)
    instance = linker.instantiate(store, module)
    memory = instance.exports(store)["memory"]
    start = instance.exports(store)["_start"]

    def fuel_used() -> int:
        try:
            return fuel_budget - store.get_fuel()
        except wasmtime.WasmtimeError:
            return -1

    try:
        start(store)
    except wasmtime.ExitTrap as exc:
        code = min(max(int(exc.code), 0), GUEST_EXIT_MAX)
        status.write("exit", f"the guest exited with status {exc.code}", code=int(exc.code), fuel_consumed=fuel_used())
        return code
    except wasmtime.Trap as exc:
        used, where = fuel_used(), _frame(exc)
        size = memory.data_len(store)
        if exc.trap_code == wasmtime.TrapCode.OUT_OF_FUEL:
            status.write("cpu_limit", f"out of fuel: {used} of {fuel_budget} consumed, stopped in {where}", fuel_consumed=used, fuel_budget=fuel_budget, where=where)
            return EXIT_OUT_OF_FUEL
        if size + MEMORY_SLACK_BYTES >= memory_bytes:
            status.write("memory_limit", f"wasm trap at the memory limit ({size} of {memory_bytes} bytes): {exc.message.splitlines()[0]}", fuel_consumed=used, where=where)
            return EXIT_MEMORY
        status.write("crashed", f"wasm trap ({exc.trap_code.name if exc.trap_code else 'unknown'}) in {where}: {exc.message.splitlines()[0]}", fuel_consumed=used, where=where)
        return EXIT_TRAP
    except wasmtime.WasmtimeError as exc:  # any other error while the guest ran is the guest's crash
        status.write("crashed", f"wasm error: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}", fuel_consumed=fuel_used())
        return EXIT_TRAP
    status.write("exit", "the guest returned from _start", code=0, fuel_consumed=fuel_used())
    return 0


def _session_timer(seconds: float, status: _Status) -> None:
    def expire() -> None:
        status.write("timeout", f"the session passed its lifetime of {seconds:g} s")
        os._exit(EXIT_SESSION_TIME)

    timer = threading.Timer(seconds, expire)
    timer.daemon = True
    timer.start()


def main(argv: list[str]) -> int:
    status = _Status(None)
    try:
        options = _arguments(argv)
        sys.path.insert(0, options["site"])
        if "compile" in options:
            compile_module(options["compile"], options["target"])
            return 0
        status = _Status(int(options["status"]))
        # The channel becomes the guest's stdin/stdout; fd 2 stays the host-capped output pipe.
        given = {int(options["in"]), int(options["out"])}
        request, reply = os.dup(int(options["in"])), os.dup(int(options["out"]))  # safe even if given is 0 or 1
        os.dup2(request, 0)
        os.dup2(reply, 1)
        for fd in (given | {request, reply}) - {0, 1, 2}:
            os.close(fd)
        sys.stdout = sys.stderr
        _session_timer(float(options["session-seconds"]), status)
        return serve(options, status)
    except BaseException as exc:  # the helper's own failure: the host reports sandbox_error
        status.write("sandbox_error", f"wasm host failed: {type(exc).__name__}: {exc}")
        with contextlib.suppress(Exception):
            print(f"spade wasm host: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_HOST_ERROR


if __name__ == "__main__":
    _code = main(sys.argv[1:])
    with contextlib.suppress(Exception):
        sys.stderr.flush()
    os._exit(_code)
