"""The hostile suite: broken and malicious environment programs against every isolated backend.

Each program in ``programs/`` is one attack that follows the environment contract far enough to be
loaded.  The table below says, per program, the exact outcome of the call the attack lands in, and
what else must hold: the program's own report of what it tried (so a test cannot pass because the
attack did nothing), or usage that proves which limit fired.  Every case also checks that the host
is unharmed: no secret or host file in any reply, a canary file untouched, a listening socket never
reached, every reply valid Unicode, and no process of the session left after ``close()``.

The rule for a case: the calls (load, reset, then one step per action) all succeed except at most
one, whose outcome is the expected one; a fatal outcome ends the session, an ``env_error`` leaves it
serving the steps that follow.  Backends differ where a capability is absent (the WASI build of
CPython has no ``fork``, ``ctypes`` or sockets): ``lacks`` names it, and the case then expects the
program to fail to even express the attack (an ``env_error`` naming the missing piece); ``on`` gives
another typed outcome where a backend contains the attack differently (fuel runs out before memory);
``xfail`` records a known gap of a backend, strictly (a fix turns it into a failure to update the
table), and never excuses the host checks, which run first.
"""

from __future__ import annotations

import contextlib
import errno
import glob
import json
import os
import secrets
import shutil
import socket
import tempfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import psutil
import pytest

from sandbox import CallResult, Outcome, Session
from sandbox._runtime import runtime_root

PROGRAMS = Path(__file__).with_name("programs")
MIB = 1024 * 1024
SECRET = f"spade-host-secret-{secrets.token_hex(8)}"
CANARY_TEXT = f"spade-canary-{secrets.token_hex(8)}\n"

# Limits, tightened so that the suite stays fast; each case picks one.
QUICK = {"call_seconds": 5.0, "cpu_seconds": 2, "memory_bytes": 64 * MIB}
CPU = {"call_seconds": 30.0, "cpu_seconds": 1, "memory_bytes": 64 * MIB}  # the wall clock only as a backstop
WALL = {"call_seconds": 1.0, "cpu_seconds": 30, "memory_bytes": 64 * MIB}
ROOMY = {"call_seconds": 30.0, "cpu_seconds": 30, "memory_bytes": 768 * MIB, "address_space_bytes": 2048 * MIB}


# ----------------------------------------------------------------------------- the host's side


@dataclass
class Host:
    """What the host holds that no sandbox may touch: a canary file and a listening socket."""

    canary: Path
    canary_stat: os.stat_result
    listener: socket.socket

    @property
    def port(self) -> int:
        return self.listener.getsockname()[1]

    def assert_unharmed(self, texts: str) -> None:
        assert SECRET not in texts, "the host's secret environment variable reached the sandbox"
        assert CANARY_TEXT.strip() not in texts, "the host's canary file was read from the sandbox"
        assert self.canary.read_text() == CANARY_TEXT
        now = self.canary.stat()
        assert (now.st_mtime_ns, now.st_size, now.st_nlink, now.st_mode) == (
            self.canary_stat.st_mtime_ns,
            self.canary_stat.st_size,
            self.canary_stat.st_nlink,
            self.canary_stat.st_mode,
        )
        assert sorted(os.listdir(self.canary.parent)) == [self.canary.name]
        try:
            connection, peer = self.listener.accept()
        except BlockingIOError:
            return  # nobody ever connected
        connection.close()
        pytest.fail(f"a sandbox connected to the host's listener from {peer}")


@pytest.fixture
def host(monkeypatch: pytest.MonkeyPatch) -> Iterator[Host]:
    monkeypatch.setenv("SPADE_TEST_SECRET", SECRET)
    # Readable (and the file writable) by everyone: only isolation, not permissions, keeps the jail away.
    folder = Path(tempfile.mkdtemp(prefix="spade-canary-", dir="/tmp"))
    folder.chmod(0o755)
    canary = folder / "canary.txt"
    canary.write_text(CANARY_TEXT)
    canary.chmod(0o666)
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.setblocking(False)
    try:
        yield Host(canary=canary, canary_stat=canary.stat(), listener=listener)
    finally:
        listener.close()
        shutil.rmtree(folder, ignore_errors=True)


def session_processes(session: Session) -> list[psutil.Process]:
    """The session's processes now: the sandbox process, its descendants, and its cgroups' members."""
    guest = session._guest
    found: dict[int, psutil.Process] = {}
    if guest.process.returncode is None:  # not reaped yet, so the pid is still ours
        with contextlib.suppress(psutil.NoSuchProcess):
            root = psutil.Process(guest.process.pid)
            for proc in [root, *root.children(recursive=True)]:
                found[proc.pid] = proc
    if guest.cgroup is not None:
        for folder in (guest.cgroup.memory_dir, guest.cgroup.pids_dir):
            with contextlib.suppress(OSError):
                for pid in (folder / "cgroup.procs").read_text().split():
                    with contextlib.suppress(psutil.NoSuchProcess):
                        found.setdefault(int(pid), psutil.Process(int(pid)))
    return list(found.values())


def describe(proc: psutil.Process) -> str:
    with contextlib.suppress(psutil.Error):
        return f"{proc.pid} {proc.name()} ({proc.status()})"
    return f"{proc.pid} (gone while looked at)"


def close_and_assert_nothing_left(session: Session, seen: list[psutil.Process]) -> None:
    """Close the session; then none of its processes may exist, not even as a zombie."""
    seen = seen + session_processes(session)
    cgroup = session._guest.cgroup
    session.close()
    left = [describe(proc) for proc in seen if proc.is_running()]
    assert not left, f"processes outlived the session: {left}"
    if cgroup is not None:
        assert not cgroup.memory_dir.exists() and not cgroup.pids_dir.exists(), "the session's cgroups were left behind"


# ----------------------------------------------------------------------------- running a case


@dataclass
class Run:
    backend: str
    session: Session
    results: list[CallResult]
    limits: Mapping[str, float]

    @property
    def failures(self) -> list[CallResult]:
        return [result for result in self.results if not result.ok]

    @property
    def attack(self) -> CallResult:
        """The call the attack landed in: the one that failed, else the last one."""
        return self.failures[0] if self.failures else self.results[-1]

    @property
    def report(self) -> dict[str, object]:
        return self.attack.info["report"]

    def steps(self) -> list[CallResult]:
        return [result for result in self.results if result.op == "step"]


@dataclass(frozen=True)
class Case:
    id: str
    program: str
    expect: Outcome
    actions: tuple[str, ...] = ("go",)
    limits: Mapping[str, float] = field(default_factory=lambda: QUICK)
    check: Callable[[Run], None] | None = None
    on: Mapping[str, Outcome] = field(default_factory=dict)
    """Backends on which the same attack ends in another (still typed, still contained) outcome."""
    lacks: Mapping[str, str] = field(default_factory=dict)
    """Backends without the capability the attack needs: the env_error must name this."""
    xfail: Mapping[str, str] = field(default_factory=dict)
    edit: Callable[[str], str] | None = None


def source_of(case: Case, host: Host) -> str:
    text = (PROGRAMS / f"{case.program}.py").read_text()
    text = text.replace("__CANARY__", str(host.canary)).replace("__PORT__", str(host.port))
    return case.edit(text) if case.edit else text


def play(session: Session, actions: tuple[str, ...]) -> list[CallResult]:
    results = [session.loaded]
    if not session.loaded.ok:
        return results
    results.append(session.reset(seed=0))
    for action in actions:
        if not session.alive:
            break
        results.append(session.step(action))
    return results


# ----------------------------------------------------------------------------- checks


def refused(value: object) -> bool:
    """A report entry that says the attempt failed (anything but ``ok:...``)."""
    return isinstance(value, str) and not value.startswith("ok")


def all_refused(values: object) -> None:
    entries = values.items() if isinstance(values, dict) else enumerate(values)
    allowed = [
        f"{key}: {value}"
        for key, value in entries
        if not (all(map(refused, value)) if isinstance(value, list) else refused(value))
    ]
    assert not allowed, f"allowed: {allowed}"


def cpu_limit_fired(run: Run) -> None:
    usage = run.attack.usage
    if run.backend == "nsjail":
        # RLIMIT_CPU fired.  The kernel counts the limit in ticks; rusage can read up to a third less on a
        # loaded VM (steal time), so only ask that it really burned CPU (a sleeper does not).
        assert usage.cpu_seconds >= 0.5 * run.limits["cpu_seconds"], usage
        assert "CPU seconds" in run.attack.detail
    else:
        assert "fuel" in run.attack.detail


def wall_clock_fired(run: Run) -> None:
    usage = run.attack.usage
    assert run.limits["call_seconds"] <= usage.wall_seconds < run.limits["call_seconds"] + 5
    assert "wall clock" in run.attack.detail


def blocked_on_read(run: Run) -> None:
    assert run.results[1].observation == "(b'', '')"  # stdin is empty (/dev/null), never the host's
    assert run.attack.op == "step"
    sleeping_timeout(run)


def sleeping_timeout(run: Run) -> None:
    wall_clock_fired(run)
    if run.backend == "nsjail":  # it slept: the wall clock fired, not the CPU limit
        assert run.attack.usage.cpu_seconds < 0.5


def kernel_memory_limit(run: Run) -> None:
    usage = run.attack.usage
    if run.backend == "nsjail":
        assert "kernel killed the session at its memory limit" in run.attack.detail
        assert usage.peak_memory_bytes <= run.limits["memory_bytes"]
        assert usage.peak_memory_bytes >= 0.9 * run.limits["memory_bytes"]


def memory_error_reported(run: Run) -> None:
    if run.attack.outcome is Outcome.MEMORY_LIMIT:
        assert run.attack.error.type == "MemoryError"
    else:  # wasm32: a terabyte does not even fit in an index
        assert run.attack.error.type == "OverflowError"


def killed_by(signame: str) -> Callable[[Run], None]:
    def check(run: Run) -> None:
        if run.backend == "nsjail":
            assert run.attack.detail == f"the guest was killed by {signame}"

    return check


def exit_without_reply(status: int) -> Callable[[Run], None]:
    def check(run: Run) -> None:
        assert run.attack.detail == f"the guest exited with status {status} without replying"

    return check


def detail_has(*needles: str) -> Callable[[Run], None]:
    def check(run: Run) -> None:
        for needle in needles:
            assert needle in run.attack.detail

    return check


def raised(kind: str, *, then: str | None = None, traceback: bool = True) -> Callable[[Run], None]:
    """An env_error of type ``kind`` (with a traceback unless said); ``then``: the next step's observation."""

    def check(run: Run) -> None:
        assert run.attack.error.type == kind
        assert bool(run.attack.error.traceback) is traceback
        if then is not None:
            assert run.results[-1].ok and run.results[-1].observation == then

    return check


def many_processes_allocating(run: Run) -> None:
    fates = run.attack.info["children"]
    assert "killed by SIGKILL" in fates, fates  # the kernel's OOM killer picked children
    assert run.attack.usage.peak_memory_bytes <= run.limits["memory_bytes"]
    cgroup = run.session._guest.cgroup
    if cgroup is not None:
        assert cgroup.oom_kills() >= 1


def fork_bomb(run: Run) -> None:
    info = run.attack.info
    assert info["refusal"] == f"BlockingIOError({errno.EAGAIN})"
    assert 1 <= info["born"] < 8
    alive = session_processes(run.session)
    assert len(alive) >= 3, "the forked children should still be spinning until close()"


def daemon_planted(run: Run) -> None:
    info = run.attack.info
    assert info["daemon_sid"] != 1 and info["daemon_pid"] > 1  # it did setsid, in the jail's pid space
    names = [proc.name() for proc in session_processes(run.session)]
    assert names.count("python3.12") >= 2, names  # the guest and the daemon


def thread_pool(run: Run) -> None:
    info = run.attack.info
    assert info["refusal"] == "RuntimeError: can't start new thread"
    assert 1 <= info["started"] < 64
    assert info["total"] == sum(i * i for i in range(info["started"]))


def print_capped(run: Run) -> None:
    assert run.attack.info["printed"] == 16000 * 996
    assert len(run.attack.printed) == 8192 and run.attack.printed.startswith("spam spam")


def invalid_text_replaced(run: Run) -> None:
    assert run.attack.observation == "obs ?? end"
    assert run.attack.info == {"k?": "v?", "raw_bytes_written": 19}
    assert "lone surrogate: ? ?" in run.attack.printed


def huge_traceback(run: Run) -> None:
    error = run.attack.error
    assert error.type == "ValueError" and error.message.startswith("boom xxxx")
    assert len(error.message) <= 8192 and len(error.traceback) <= 8192
    assert run.results[-1].observation == "calm:after"


def system_dirs_unwritable(run: Run) -> None:
    all_refused(run.report)
    if run.backend == "nsjail":
        codes = {value for value in run.report.values()}
        assert codes <= {"OSError(30)", "FileNotFoundError(2)", "PermissionError(13)"}, codes
    for path in ("/spade_pwned", "/etc/spade_pwned", "/usr/spade_pwned", "/lib/spade_pwned", "/dev/spade_pwned"):
        assert not os.path.exists(path)
    assert "pwned" not in Path("/etc/passwd").read_text()
    root = runtime_root()
    assert not glob.glob(str(root / "**" / "spade_pwned*"), recursive=True)
    for runner in glob.glob(str(root / "*" / "spade_guest.py")):
        assert "pwned" not in Path(runner).read_text()
    for target in run.attack.info["targets"]:
        assert not (os.path.exists(target) and "pwned" in Path(target).read_text(errors="replace"))


def tmp_filled(run: Run) -> None:
    info = run.attack.info
    assert info["big"] == [4 * MIB, f"OSError({errno.EFBIG})"]  # RLIMIT_FSIZE
    _written, status = info["small_last"]
    assert status == f"OSError({errno.ENOSPC})" and info["small_files"] <= 5  # the 4 MiB tmpfs


def links_lead_nowhere(run: Run) -> None:
    all_refused({key: value for key, value in run.report.items() if not key.startswith("symlink")})


def paths_lead_nowhere(run: Run) -> None:
    all_refused(run.report)
    if run.backend == "nsjail":  # climbing up ends at the jail's own root
        assert run.attack.info["top"] == "ok:['dev', 'lib', 'lib64', 'root', 'spade', 'tmp', 'usr']"


def host_files_invisible(run: Run) -> None:
    all_refused(run.report)
    info = run.attack.info
    if run.backend == "nsjail":
        assert info["listing"]["/"] == "ok:['dev', 'lib', 'lib64', 'root', 'spade', 'tmp', 'usr']"
        assert info["listing"]["/dev"] == "ok:['null']"


def empty_environment(run: Run) -> None:
    info = run.attack.info
    assert info["environ"] == {"PYTHONHASHSEED": "0"}
    assert info["getenv"] is None
    assert refused(info["proc_environ"])
    if run.backend == "nsjail":
        assert info["ids"] == [65534, 65534, 65534, 65534]
        assert info["hostname"] == "spade"


def network_denied(run: Run) -> None:
    all_refused(run.report)
    if run.backend == "nsjail":  # seccomp, not the missing interface, said no
        assert run.report["tcp connect"] == "PermissionError(1)"
        assert run.report["tcp socket"] == "PermissionError(1)"


def unix_sockets_denied(run: Run) -> None:
    report = dict(run.report)
    pair = report.pop("socketpair")
    all_refused(report)
    if run.backend == "nsjail":
        assert pair == "ok:b'ping'"  # a connected pair reaches nothing outside the jail


def syscalls_denied(run: Run) -> None:
    report = run.report
    assert report["socket"] == [-1, errno.EPERM] and report["connect fd 0"] == [-1, errno.EPERM]
    assert report["x32 socket"] == [-1, errno.ENOSYS] and report["x32 connect fd 0"] == [-1, errno.ENOSYS]


def seccomp_denied(run: Run) -> None:
    report = dict(run.report)
    assert report.pop("clone3") == [-1, errno.ENOSYS]  # so that glibc falls back to an inspectable clone
    assert report.pop("os.unshare") == "PermissionError(1)"
    wrong = {name: value for name, value in report.items() if value != [-1, errno.EPERM]}
    assert not wrong, wrong


def no_leaked_fds(run: Run) -> None:
    info = run.attack.info
    assert "socket" not in info["open"].values()  # not the host's listener, nor any other socket
    if run.backend == "nsjail":  # /dev/null as stdin, the output pipe as stdout/stderr, the channel
        assert set(info["open"]) == {"0", "1", "2", *info["channel"]}, info


def fds_exhausted(run: Run) -> None:
    info = run.steps()[0].info
    assert info["refusal"].startswith("OSError(") and info["held"] >= 8
    if run.backend == "nsjail":
        assert info["refusal"] == f"OSError({errno.EMFILE})" and info["held"] < 32  # RLIMIT_NOFILE
    assert run.results[-1].observation == f"still holding {info['held']}"  # the runner still replies


def shared_memory_denied(run: Run) -> None:
    assert run.report["shm_open"] == f"FileNotFoundError({errno.ENOENT})"  # no /dev/shm
    assert run.report["memfd"] == f"wrote {4 * MIB} then OSError({errno.EFBIG})"


def forged_output_harmless(run: Run) -> None:
    step = run.attack
    assert (step.observation, step.reward, step.info) == ("genuine", 0.5, {"success": False})
    assert "FORGED" in step.printed


def std_fds_closed(run: Run) -> None:
    first = run.steps()[0]
    assert first.info["closed"] == {"0": "ok:None", "1": "ok:None", "2": "ok:None"}
    assert first.info["writes"] == {"1": f"OSError({errno.EBADF})", "2": f"OSError({errno.EBADF})"}
    assert "printed after closing the std fds" in first.printed
    assert run.results[-1].observation == "alive:after"


def first_step_served(observation: str) -> Callable[[Run], None]:
    def check(run: Run) -> None:
        assert run.steps()[0].ok and run.steps()[0].observation.startswith(observation)

    return check


def hostile_objects(run: Run) -> None:
    reset, first, bomb = run.results[1], run.steps()[0], run.steps()[1]
    assert type(reset.observation) is str and reset.observation == "liar"
    assert type(first.observation) is str and first.observation == "liar:a"
    assert bomb.observation == "ticking"
    assert run.attack.detail == "the guest exited with status 0 without replying"


def unnamed_exception(run: Run) -> None:
    assert run.attack.error.type == "UnnamedException"
    assert run.attack.error.message == "<str() of the exception failed>"
    assert run.results[-1].observation == "fine:after"


def modules_poisoned(run: Run) -> None:
    poison, after_poison = run.steps()[0], run.steps()[1]
    assert poison.observation.startswith("poisoned ")
    assert after_poison.observation == "still answering:next"
    assert run.attack.error.type == "LookupError"
    assert run.results[-1].observation == "still answering:after"


def signals_contained(run: Run) -> None:
    report = run.report
    assert run.attack.observation.startswith("survived pid=")
    if run.backend == "nsjail":
        assert report["kill -1 SIGKILL"] == "ProcessLookupError(3)"  # nothing else is visible to kill
        assert report["kill -1 SIGTERM"] == "ProcessLookupError(3)"
        assert report["kill host-like pids"] == ["ProcessLookupError(3)"] * 4
        assert run.attack.observation == "survived pid=1"  # the jail's init ignores its own SIGKILL
    else:
        all_refused(report)


def nondeterminism_allowed(run: Run) -> None:
    first, second = run.steps()
    assert first.info["urandom"] != second.info["urandom"]
    assert first.info["uuid4"] != second.info["uuid4"]


def endless(run: Run) -> None:
    last = run.results[-1]
    assert (last.observation, last.terminated, last.truncated) == ("turn 200", False, False)


def bad_source(kind: str, words: str) -> Callable[[Run], None]:
    def check(run: Run) -> None:
        assert run.attack.op == "load" and run.attack.error.type == kind and words in run.attack.detail

    return check


def host_rejected(words: str) -> Callable[[Run], None]:
    """The guest was fooled (or bypassed): the host's own validation caught it."""

    def check(run: Run) -> None:
        assert run.attack.error is None
        assert words in run.attack.detail

    return check


def guest_rejected(words: str) -> Callable[[Run], None]:
    def check(run: Run) -> None:
        assert words in run.attack.detail

    return check


def replaced_utf8(text: str) -> str:
    return text.replace('"INVALID_UTF8"', '"\udcff\ud800"')


# ----------------------------------------------------------------------------- the table

STDIO_IS_CHANNEL = "wasm serves the runner's channel on fds 0/1: raw reads of fd 0 and writes to fd 1 reach it"

CASES = [
    # time and CPU
    Case("infinite_loop", "infinite_loop", Outcome.CPU_LIMIT, limits=CPU, check=cpu_limit_fired),
    Case("infinite_loop_wall_clock", "infinite_loop", Outcome.TIMEOUT, limits=WALL, check=wall_clock_fired),
    Case("infinite_loop_at_import", "infinite_loop_at_import", Outcome.CPU_LIMIT, limits=CPU, check=cpu_limit_fired),
    Case("sleep_forever", "sleep_forever", Outcome.TIMEOUT, limits=WALL, check=sleeping_timeout),
    Case("blocking_read", "blocking_read", Outcome.TIMEOUT, limits=WALL, check=blocked_on_read, xfail={"wasm": STDIO_IS_CHANNEL}),
    Case("giant_int", "giant_int", Outcome.CPU_LIMIT, limits=CPU, check=cpu_limit_fired),
    Case("ignore_cpu_signals", "ignore_cpu_signals", Outcome.CPU_LIMIT, limits=CPU, check=cpu_limit_fired),
    # memory
    Case("memory_bomb", "memory_bomb", Outcome.MEMORY_LIMIT, check=kernel_memory_limit),
    Case("memory_single_huge", "memory_single_huge", Outcome.MEMORY_LIMIT, check=memory_error_reported,
         on={"wasm": Outcome.ENV_ERROR}),
    Case("memory_swallowed", "memory_swallowed", Outcome.MEMORY_LIMIT, limits=CPU, check=kernel_memory_limit,
         on={"wasm": Outcome.CPU_LIMIT}),
    Case("deep_recursion", "deep_recursion", Outcome.ENV_ERROR, actions=("bounded", "after"),
         check=raised("RecursionError", then="calm:after", traceback=False)),
    Case("deep_recursion_unbounded", "deep_recursion", Outcome.MEMORY_LIMIT, actions=("unbounded",),
         check=kernel_memory_limit, on={"wasm": Outcome.CPU_LIMIT}),
    Case("shared_mmap_bomb", "shared_mmap_bomb", Outcome.MEMORY_LIMIT, check=kernel_memory_limit, lacks={"wasm": "mmap"}),
    Case("many_processes_allocating", "many_processes_allocating", Outcome.OK, check=many_processes_allocating,
         lacks={"wasm": "fork"}),
    # processes and threads
    Case("fork_bomb", "fork_bomb", Outcome.OK, check=fork_bomb, lacks={"wasm": "fork"}),
    Case("daemon_double_fork", "daemon_double_fork", Outcome.OK, check=daemon_planted, lacks={"wasm": "pipe"}),
    Case("thread_pool", "thread_pool", Outcome.OK, check=thread_pool, lacks={"wasm": "concurrent.futures"}),
    Case("signal_tricks", "signal_tricks", Outcome.OK, check=signals_contained),
    # output
    Case("print_flood", "print_flood", Outcome.OK, check=print_capped),
    Case("fd1_write_flood", "fd1_write_flood", Outcome.OUTPUT_LIMIT),
    Case("fd2_write_flood", "fd2_write_flood", Outcome.OUTPUT_LIMIT, check=detail_has("stdout/stderr")),
    Case("invalid_utf8_output", "invalid_utf8_output", Outcome.OK, check=invalid_text_replaced,
         xfail={"wasm": STDIO_IS_CHANNEL}),
    Case("huge_observation", "huge_observation", Outcome.OUTPUT_LIMIT, limits=ROOMY, check=detail_has("exceeds")),
    Case("huge_traceback", "huge_traceback", Outcome.ENV_ERROR, actions=("raise", "after"), check=huge_traceback),
    # crashes and fake success
    Case("segfault", "segfault", Outcome.CRASHED, check=killed_by("SIGSEGV"), lacks={"wasm": "ctypes"}),
    Case("abort", "abort", Outcome.CRASHED),
    Case("int80_syscall", "int80_syscall", Outcome.CRASHED, check=killed_by("SIGSYS"), lacks={"wasm": "ctypes"}),
    Case("os_exit_zero", "os_exit_zero", Outcome.CRASHED, check=exit_without_reply(0)),
    Case("sys_exit_zero", "sys_exit_zero", Outcome.ENV_ERROR, actions=("exit", "after"),
         check=raised("SystemExit", then="still here: after")),
    Case("keyboard_interrupt", "keyboard_interrupt", Outcome.ENV_ERROR, actions=("interrupt", "after"),
         check=raised("KeyboardInterrupt", then="still here: after")),
    Case("swallow_exceptions", "swallow_exceptions", Outcome.PROTOCOL_ERROR, check=guest_rejected("got NoneType")),
    # files
    Case("write_system_dirs", "write_system_dirs", Outcome.OK, check=system_dirs_unwritable),
    Case("fill_tmp", "fill_tmp", Outcome.OK, check=tmp_filled, lacks={"wasm": "/tmp"}),
    Case("planted_links", "planted_links", Outcome.OK, check=links_lead_nowhere),
    Case("dotdot_paths", "dotdot_paths", Outcome.OK, check=paths_lead_nowhere),
    Case("read_host_files", "read_host_files", Outcome.OK, check=host_files_invisible),
    Case("host_environment", "host_environment", Outcome.OK, check=empty_environment),
    Case("inherited_fds", "inherited_fds", Outcome.OK, check=no_leaked_fds),
    Case("fd_exhaustion", "fd_exhaustion", Outcome.OK, actions=("exhaust", "after"), check=fds_exhausted),
    Case("shared_memory", "shared_memory", Outcome.OK, check=shared_memory_denied, lacks={"wasm": "multiprocessing"}),
    # network and system calls
    Case("socket_inet", "socket_inet", Outcome.OK, check=network_denied),
    Case("socket_unix", "socket_unix", Outcome.OK, check=unix_sockets_denied),
    Case("socket_ctypes_syscall", "socket_ctypes_syscall", Outcome.OK, check=syscalls_denied, lacks={"wasm": "ctypes"}),
    Case("forbidden_syscalls", "forbidden_syscalls", Outcome.OK, check=seccomp_denied, lacks={"wasm": "ctypes"}),
    # the protocol channel
    Case("forged_stdout", "forged_stdout", Outcome.OK, check=forged_output_harmless, xfail={"wasm": STDIO_IS_CHANNEL}),
    Case("forged_reply_garbage", "forged_reply_garbage", Outcome.PROTOCOL_ERROR, check=host_rejected("not UTF-8")),
    Case("forged_reply_outcome", "forged_reply_outcome", Outcome.PROTOCOL_ERROR,
         check=host_rejected("may not report the outcome 'sandbox_error'")),
    Case("forged_reply_huge_int", "forged_reply_huge_int", Outcome.PROTOCOL_ERROR, check=host_rejected("too large to be a float")),
    Case("forged_reply_surrogate", "forged_reply_surrogate", Outcome.PROTOCOL_ERROR, check=host_rejected("lone surrogate")),
    Case("forged_reply_oversized", "forged_reply_oversized", Outcome.OUTPUT_LIMIT,
         check=host_rejected("reply frame of 4294967295 bytes exceeds")),
    Case("close_std_fds", "close_std_fds", Outcome.OK, actions=("close", "after"), check=std_fds_closed,
         xfail={"wasm": STDIO_IS_CHANNEL}),
    Case("close_request_fd", "close_request_fd", Outcome.CRASHED, actions=("close", "next"), check=first_step_served("closed fd ")),
    Case("close_reply_fd", "close_reply_fd", Outcome.CRASHED, check=exit_without_reply(1)),
    Case("redirect_reply_fd", "redirect_reply_fd", Outcome.TIMEOUT, limits=WALL, check=wall_clock_fired,
         lacks={"wasm": "/dev/null"}),
    # what step returns
    Case("reward_nan", "reward_nan", Outcome.PROTOCOL_ERROR, actions=("fine", "bad"), check=guest_rejected("not finite (nan)")),
    Case("reward_inf", "reward_inf", Outcome.PROTOCOL_ERROR, actions=("fine", "bad"), check=guest_rejected("not finite (-inf)")),
    Case("reward_huge", "reward_huge", Outcome.PROTOCOL_ERROR, actions=("fine", "bad"), check=host_rejected("outside +/-1e+06")),
    Case("reward_nan_tampered", "reward_nan_tampered", Outcome.PROTOCOL_ERROR, check=host_rejected("non-finite number NaN")),
    *(
        Case(f"return_non_tuple_{shape}", "return_non_tuple", Outcome.PROTOCOL_ERROR, actions=("fine", shape),
             check=guest_rejected(words))
        for shape, words in (("list", "got list"), ("none", "got NoneType"), ("short", "got tuple"), ("bytes-obs", "got bytes"))
    ),
    *(
        Case(f"info_not_json_{kind}", "info_not_json", Outcome.PROTOCOL_ERROR, actions=("fine", kind), check=guest_rejected(words))
        for kind, words in (("set", "type set"), ("cycle", "Circular reference"), ("nan", "Out of range float"), ("deep", "recursion"))
    ),
    Case("info_hostile_mapping", "info_hostile_mapping", Outcome.PROTOCOL_ERROR, actions=("fine", "trap"),
         check=guest_rejected("items() is a trap")),
    Case("hostile_exception", "hostile_exception", Outcome.ENV_ERROR, actions=("raise", "after"), check=unnamed_exception),
    Case("hostile_objects", "hostile_objects", Outcome.CRASHED, actions=("a", "bomb", "c"), check=hostile_objects),
    # tampering with the interpreter the runner shares
    Case("builtins_tampering", "builtins_tampering", Outcome.PROTOCOL_ERROR, check=host_rejected("has type list")),
    Case("sys_modules_tampering", "sys_modules_tampering", Outcome.ENV_ERROR, actions=("poison", "next", "raise", "after"),
         check=modules_poisoned),
    Case("runner_tampering", "runner_tampering", Outcome.OUTPUT_LIMIT, check=host_rejected("exceeds the limit of 1048576")),
    # allowed here, checked elsewhere
    Case("unseeded_nondeterminism", "unseeded_nondeterminism", Outcome.OK, actions=("a", "b"), check=nondeterminism_allowed),
    Case("never_terminates", "never_terminates", Outcome.OK, actions=("go",) * 200, check=endless),
    # the source itself
    Case("nul_in_source", "nul_in_source", Outcome.ENV_ERROR, actions=(), check=bad_source("SyntaxError", "null bytes")),
    Case("invalid_utf8_source", "invalid_utf8_source", Outcome.ENV_ERROR, actions=(), edit=replaced_utf8,
         check=bad_source("UnicodeEncodeError", "not valid UTF-8")),
]


def assert_expected(case: Case, run: Run) -> None:
    """The outcome rule of the module docstring, then the case's own check."""
    expected = case.on.get(run.backend, case.expect)
    summary = [(result.op, result.outcome.value, result.detail[:200]) for result in run.results]
    if run.backend in case.lacks:
        # The backend cannot even express the attack: the program fails, naming what is missing.
        failure = run.failures[0] if run.failures else None
        assert failure is not None and failure.outcome is Outcome.ENV_ERROR, summary
        assert case.lacks[run.backend] in failure.detail, summary
        return
    if expected is Outcome.OK:
        assert not run.failures, summary
    else:
        assert len(run.failures) == 1 and run.attack.outcome is expected, summary
        if expected.is_fatal or run.attack.op == "load":
            assert run.attack is run.results[-1] and not run.session.alive, summary
        else:
            assert run.session.alive, summary  # an env_error leaves the session serving
    if case.check is not None:
        case.check(run)


@pytest.mark.parametrize("case", CASES, ids=lambda case: f"{case.id}-is-{case.expect.value}")
def test_hostile_program(
    case: Case, backend: str, open_env: Callable[..., Session], host: Host, request: pytest.FixtureRequest
) -> None:
    session = open_env(source_of(case, host), **case.limits)
    before = session_processes(session)
    run = Run(backend=backend, session=session, results=play(session, case.actions), limits=case.limits)
    failed: AssertionError | None = None
    try:
        assert_expected(case, run)
    except AssertionError as exc:
        failed = exc
    # Whatever the outcome, the host must be unharmed; a known gap of a backend never excuses this part.
    texts = json.dumps([result.to_dict() for result in run.results], ensure_ascii=False)
    texts.encode("utf-8")  # every reply is valid Unicode: no lone surrogate reached the host
    close_and_assert_nothing_left(session, before)
    host.assert_unharmed(texts)
    if backend in case.xfail:
        request.applymarker(pytest.mark.xfail(reason=case.xfail[backend], strict=True))
    if failed is not None:
        raise failed


# ----------------------------------------------------------------------------- a batch under attack

COUNTER = """
class CounterEnv:
    def reset(self, seed=None):
        self.n = 0
        return "n=0", {}
    def step(self, action):
        self.n += 1
        return f"n={self.n}", float(self.n == 3), self.n == 3, False, {"success": self.n == 3}
"""

BATCH_ATTACKERS = {
    "nsjail": {
        "segfault": Outcome.CRASHED,
        "os_exit_zero": Outcome.CRASHED,
        "memory_bomb": Outcome.MEMORY_LIMIT,
        "forged_reply_garbage": Outcome.PROTOCOL_ERROR,
        "fd1_write_flood": Outcome.OUTPUT_LIMIT,
        "signal_tricks": Outcome.OK,
        "fork_bomb": Outcome.OK,
    },
    "wasm": {
        "abort": Outcome.CRASHED,
        "os_exit_zero": Outcome.CRASHED,
        "memory_bomb": Outcome.MEMORY_LIMIT,
        "forged_reply_garbage": Outcome.PROTOCOL_ERROR,
        "fd2_write_flood": Outcome.OUTPUT_LIMIT,
    },
}


def test_dying_sessions_leave_the_rest_of_the_batch_serving(backend: str, open_env: Callable[..., Session], host: Host) -> None:
    """Healthy sessions and attackers step together (split calls, as a pool does); attackers die typed,
    and the healthy ones still answer every step correctly, before and after."""
    healthy = [open_env(COUNTER, **QUICK) for _ in range(3)]
    attackers = {
        name: open_env((PROGRAMS / f"{name}.py").read_text(), **QUICK) for name in BATCH_ATTACKERS[backend]
    }
    sessions = [*healthy, *attackers.values()]
    for session in sessions:
        assert session.reset(seed=0).ok
    seen = [proc for session in sessions for proc in session_processes(session)]

    for session in sessions:
        assert session.begin("step", {"op": "step", "action": "go"}) is None
    results = [session.finish() for session in sessions]

    for result in results[: len(healthy)]:
        assert (result.outcome, result.observation) == (Outcome.OK, "n=1")
    for (name, expected), result in zip(BATCH_ATTACKERS[backend].items(), results[len(healthy) :], strict=True):
        assert result.outcome is expected, (name, result.outcome, result.detail)
    for n in (2, 3):
        for session in healthy:
            result = session.step("go")
            assert (result.outcome, result.observation, result.terminated) == (Outcome.OK, f"n={n}", n == 3)
    for session in sessions:
        close_and_assert_nothing_left(session, [])
    left = [describe(proc) for proc in seen if proc.is_running()]
    assert not left, f"processes outlived the batch: {left}"
    host.assert_unharmed(json.dumps([result.to_dict() for result in results]))
