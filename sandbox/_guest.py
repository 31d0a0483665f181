"""A started sandbox process and the host's end of its channel.

Backends differ only in the command they start; everything after the start (framing, the per-call
watchdog, the output cap, telling how a guest died, reaping) is here, once.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from sandbox._cgroup import SessionCgroup
from sandbox.limits import Limits
from sandbox.outcome import CallResult, ErrorInfo, Outcome, Usage
from sandbox.protocol import (
    ChannelClosed,
    ChannelTimeout,
    FrameReader,
    FrameTooLarge,
    MalformedReply,
    encode_frame,
    parse_reply,
    validate_error,
    validate_result,
)

READY_SECONDS = 20.0
USAGE_SAMPLE_SECONDS = 0.005
DIAGNOSTIC_BYTES = 4096
_TICKS = os.sysconf("SC_CLK_TCK")


class Channel:
    """The host's pipe ends: requests go out on ``request_fd``, replies come in on ``reply_fd``."""

    def __init__(self) -> None:
        self.guest_in, self.request_fd = os.pipe()
        self.reply_fd, self.guest_out = os.pipe()
        os.set_blocking(self.request_fd, False)
        self.output_r, self.output_w = os.pipe()

    @property
    def guest_fds(self) -> tuple[int, int]:
        return self.guest_in, self.guest_out

    def close_guest_ends(self) -> None:
        for fd in (self.guest_in, self.guest_out, self.output_w):
            with contextlib.suppress(OSError):
                os.close(fd)

    def close_host_ends(self) -> None:
        for fd in (self.request_fd, self.reply_fd):
            with contextlib.suppress(OSError):
                os.close(fd)


class GuestProcess:
    """One sandboxed guest runner, from start to reaping; used by one session only."""

    def __init__(
        self,
        *,
        backend: str,
        argv: Sequence[str],
        env: dict[str, str],
        channel: Channel,
        limits: Limits,
        cgroup: SessionCgroup | None = None,
        preexec_fn: Callable[[], None] | None = None,
        find_guest_pid: Callable[[int], int | None] | None = None,
        new_session: bool = False,
    ) -> None:
        self.backend = backend
        self.limits = limits
        self.cgroup = cgroup
        self._channel = channel
        self._reader = FrameReader(channel.reply_fd, limits.reply_bytes)
        self._find_guest_pid = find_guest_pid
        self._started = time.monotonic()
        self._lock = threading.Lock()
        self._timed_out = False
        self._output_exceeded = False
        self._output_seen = 0
        self._diagnostics = bytearray()
        self._status: int | None = None
        self._rusage: Any = None
        self._guest_pid: int | None = None
        self._kill_sent = False
        self._stat_fd: int | None = None
        self._usage_sample: tuple[float | None, int | None] = (None, None)
        self._usage_at = float("-inf")
        self._pending: tuple[str, float] | None = None
        self.death: tuple[Outcome, str] | None = None
        try:
            self.process = subprocess.Popen(
                list(argv),
                stdin=subprocess.DEVNULL,
                stdout=channel.output_w,
                stderr=channel.output_w,
                env=env,
                pass_fds=channel.guest_fds,
                close_fds=True,
                preexec_fn=preexec_fn,
                start_new_session=new_session,
            )
        finally:
            channel.close_guest_ends()
        self._drain = threading.Thread(target=self._drain_output, name=f"spade-{backend}-output", daemon=True)
        self._drain.start()

    # ----------------------------------------------------------------- lifecycle

    @property
    def alive(self) -> bool:
        return self.death is None

    @property
    def pid(self) -> int:
        return self.process.pid

    def wait_ready(self, seconds: float = READY_SECONDS) -> CallResult:
        """Wait for the runner's first frame; a guest that never gets there is a sandbox_error."""
        result = self._exchange("ready", None, seconds)
        if result.ok and self._find_guest_pid is not None:
            self._guest_pid = self._find_guest_pid(self.process.pid)
        elif result.ok:
            self._guest_pid = self.process.pid
        if result.outcome in (Outcome.TIMEOUT, Outcome.CRASHED, Outcome.PROTOCOL_ERROR):
            detail = f"the sandbox did not start: {result.detail}; its output: {self.diagnostics()[-1000:]!r}"
            self.death = (Outcome.SANDBOX_ERROR, detail)
            return CallResult(op="ready", outcome=Outcome.SANDBOX_ERROR, detail=detail, usage=result.usage)
        return result

    def diagnostics(self) -> str:
        return bytes(self._diagnostics).decode("utf-8", "replace")

    def kill(self) -> None:
        """Kill the guest and everything in its sandbox (idempotent).

        A jailed guest is its pid namespace's init: killing it ends every process in the jail, and
        nsjail reaps them and exits by itself.  Killing nsjail at the same time would hand the dying
        init to the host's init, leaving a zombie that nobody may reap; so nsjail is killed only if
        it is still there when this is called again (``_reap`` does so after its grace).
        """
        if self._status is not None:
            return
        first, self._kill_sent = not self._kill_sent, True
        guest = self._guest_pid
        if first and guest and guest != self.process.pid:
            try:
                os.kill(guest, signal.SIGKILL)
                return
            except (ProcessLookupError, PermissionError):
                pass
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(self.process.pid, signal.SIGKILL)
        if self.backend == "process":
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGKILL)

    def close(self) -> None:
        """End the session: ask politely, then kill; reap; free the cgroup and the pipes."""
        if self.death is None and self._status is None:
            with contextlib.suppress(Exception):
                self._send({"op": "close"}, time.monotonic() + 0.5)
                self._reader.read(time.monotonic() + 0.5)
        self.kill()
        self._reap(wait=True)
        if self.death is None:
            self.death = (Outcome.SANDBOX_ERROR, "session closed")
        self._channel.close_host_ends()
        if self._stat_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._stat_fd)
            self._stat_fd = None
        self._drain.join(timeout=2.0)
        if self.cgroup is not None:
            self.cgroup.remove()

    # ----------------------------------------------------------------- calls

    def begin(self, op: str, message: dict[str, Any]) -> CallResult | None:
        """Send a request; returns a result at once only if sending failed."""
        if self.death is not None:
            raise RuntimeError("begin() on a dead guest")
        if self._pending is not None:
            raise RuntimeError("a call is already in flight on this guest")
        started = time.monotonic()
        try:
            self._send(message, started + self.limits.call_seconds)
        except ChannelTimeout:
            return self._die(op, Outcome.TIMEOUT, f"guest did not read the request within {self.limits.call_seconds:g} s", started)
        except ChannelClosed:
            return self._die_from_exit(op, started)
        self._pending = (op, started)
        return None

    @property
    def reply_fd(self) -> int:
        return self._channel.reply_fd

    @property
    def deadline(self) -> float:
        assert self._pending is not None
        return self._pending[1] + self.limits.call_seconds

    def finish(self, known_readable: bool = False) -> CallResult:
        """Read and validate the reply of the call in flight (blocks until its deadline at most);
        ``known_readable`` when a poller has just seen the reply channel ready (saves a poll)."""
        if self._pending is None:
            raise RuntimeError("finish() with no call in flight")
        op, started = self._pending
        self._pending = None
        return self._exchange(op, None, self.limits.call_seconds, started=started, known_readable=known_readable)

    def call(self, op: str, message: dict[str, Any]) -> CallResult:
        failed = self.begin(op, message)
        return failed if failed is not None else self.finish()

    def _send(self, message: dict[str, Any], deadline: float) -> None:
        from sandbox.protocol import write_all

        write_all(self._channel.request_fd, encode_frame(message), deadline)

    def _exchange(
        self, op: str, message: dict[str, Any] | None, seconds: float, started: float | None = None, known_readable: bool = False
    ) -> CallResult:
        started = time.monotonic() if started is None else started
        deadline = started + seconds
        try:
            if message is not None:
                self._send(message, deadline)
            payload = self._reader.read(deadline, known_readable=known_readable)
        except ChannelTimeout:
            self._timed_out = True
            return self._die(op, Outcome.TIMEOUT, f"no reply within {seconds:g} s (wall clock)", started)
        except FrameTooLarge as exc:
            return self._die(op, Outcome.OUTPUT_LIMIT, str(exc), started)
        except ChannelClosed:
            return self._die_from_exit(op, started)
        try:
            reply = parse_reply(payload)
            return self._result(op, reply, started)
        except MalformedReply as exc:
            return self._die(op, Outcome.PROTOCOL_ERROR, str(exc), started)

    def _result(self, op: str, reply: dict[str, Any], started: float) -> CallResult:
        ok = reply.get("ok")
        printed = reply.get("printed", "")
        if not isinstance(printed, str):
            raise MalformedReply("printed must be a string")
        printed = printed[: self.limits.print_bytes]
        if ok is True:
            if op == "ready":
                return CallResult(op=op, outcome=Outcome.OK, usage=self.usage(started))
            values = validate_result(op, reply.get("result"), self.limits.reward_bound)
            return CallResult(op=op, outcome=Outcome.OK, printed=printed, usage=self.usage(started), **_known(values))
        if ok is not False:
            raise MalformedReply("reply lacks a boolean 'ok'")
        outcome, error = validate_error(reply, self.limits.traceback_chars)
        detail = f"{error.type}: {error.message}" if error.type else error.message
        if outcome.is_fatal:
            return self._die(op, outcome, detail, started, error=error, printed=printed)
        return CallResult(op=op, outcome=outcome, detail=detail, error=error, printed=printed, usage=self.usage(started, fresh=True))

    def _die(
        self,
        op: str,
        outcome: Outcome,
        detail: str,
        started: float,
        error: ErrorInfo | None = None,
        printed: str = "",
    ) -> CallResult:
        usage = self.usage(started, fresh=True)
        self.kill()
        self._reap(wait=True)
        if self._output_exceeded and outcome in (Outcome.TIMEOUT, Outcome.PROTOCOL_ERROR):
            outcome, detail = Outcome.OUTPUT_LIMIT, self._output_detail()
        self.death = (outcome, detail)
        return CallResult(op=op, outcome=outcome, detail=detail, error=error, printed=printed, usage=usage)

    def _die_from_exit(self, op: str, started: float) -> CallResult:
        usage = self.usage(started, fresh=True)
        self._reap(wait=True, grace=1.0)
        outcome, detail = self._classify_exit()
        self.death = (outcome, detail)
        peak = usage.peak_memory_bytes
        if self.cgroup is not None:
            peak = self.cgroup.peak_memory() or peak
        cpu = usage.cpu_seconds
        if self._rusage is not None:
            cpu = self._rusage.ru_utime + self._rusage.ru_stime
        return CallResult(op=op, outcome=outcome, detail=detail, usage=Usage(usage.wall_seconds, cpu, peak))

    # ----------------------------------------------------------------- death

    def _reap(self, wait: bool, grace: float = 5.0) -> None:
        if self._status is not None:
            return
        deadline = time.monotonic() + grace
        while True:
            try:
                pid, status, rusage = os.wait4(self.process.pid, os.WNOHANG)
            except ChildProcessError:
                self._status = self.process.returncode if self.process.returncode is not None else 0
                return
            if pid:
                self._status, self._rusage = status, rusage
                self.process.returncode = os.waitstatus_to_exitcode(status)
                return
            if not wait:
                return
            if time.monotonic() >= deadline:
                self.kill()
                deadline = time.monotonic() + grace
            time.sleep(0.002)

    def _exit_signal(self) -> int | None:
        """The signal that ended the guest, seen through nsjail's exit code where needed."""
        status = self._status
        if status is None:
            return None
        if os.WIFSIGNALED(status):
            return os.WTERMSIG(status)
        code = os.WEXITSTATUS(status)
        if self.backend == "nsjail" and 128 < code < 128 + 65:
            return code - 128
        return None

    def _classify_exit(self) -> tuple[Outcome, str]:
        if self._output_exceeded:
            return Outcome.OUTPUT_LIMIT, self._output_detail()
        sig = self._exit_signal()
        if self.cgroup is not None and (
            self.cgroup.oom_kills() > 0 or (sig == signal.SIGKILL and self.cgroup.limit_hits() > 0)
        ):
            return Outcome.MEMORY_LIMIT, f"the kernel killed the session at its memory limit ({self.limits.memory_bytes} bytes)"
        if sig == signal.SIGKILL and self.backend == "nsjail" and not self._kill_sent:
            # Nothing in a jail can SIGKILL its init and the host did not: the kernel did, at RLIMIT_CPU
            # (OOM kills are told above), or nsjail at the session's lifetime.  rusage cannot tell: the
            # kernel counts the limit in ticks, and on a loaded VM rusage reads up to a third less.
            if time.monotonic() - self._started >= self.limits.session_seconds:
                return Outcome.TIMEOUT, f"the session outlived its {self.limits.session_seconds} s lifetime"
            return Outcome.CPU_LIMIT, f"the session used its {self.limits.cpu_seconds} CPU seconds"
        cpu = None if self._rusage is None else self._rusage.ru_utime + self._rusage.ru_stime
        if sig == signal.SIGXCPU or (sig == signal.SIGKILL and cpu is not None and cpu >= self.limits.cpu_seconds - 0.5):
            return Outcome.CPU_LIMIT, f"the session used its {self.limits.cpu_seconds} CPU seconds"
        if sig == signal.SIGXFSZ:
            return Outcome.OUTPUT_LIMIT, f"a file grew past {self.limits.file_bytes} bytes"
        if sig is not None:
            return Outcome.CRASHED, f"the guest was killed by {signal.Signals(sig).name}"
        code = os.WEXITSTATUS(self._status) if self._status is not None else None
        if self.backend == "nsjail" and code == 255:
            return Outcome.SANDBOX_ERROR, f"nsjail failed: {self.diagnostics()[-500:]!r}"
        return Outcome.CRASHED, f"the guest exited with status {code} without replying"

    # ----------------------------------------------------------------- output and usage

    def _drain_output(self) -> None:
        fd = self._channel.output_r
        try:
            while True:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:
                    return
                if not chunk:
                    return
                self._output_seen += len(chunk)
                if len(self._diagnostics) < DIAGNOSTIC_BYTES:
                    self._diagnostics += chunk[: DIAGNOSTIC_BYTES - len(self._diagnostics)]
                if self._output_seen > self.limits.output_bytes and not self._output_exceeded:
                    self._output_exceeded = True
                    self.kill()
        finally:
            with contextlib.suppress(OSError):
                os.close(fd)

    def _output_detail(self) -> str:
        return f"the guest wrote more than {self.limits.output_bytes} bytes to its stdout/stderr"

    def usage(self, started: float, fresh: bool = False) -> Usage:
        """Wall time of this call, and the session's CPU and peak memory.  The last two are read from
        /proc and the cgroup at most every USAGE_SAMPLE_SECONDS (a read costs about as much as the
        rest of a round trip); ``fresh`` forces a read, as on every failure."""
        now = time.monotonic()
        if fresh or now - self._usage_at >= USAGE_SAMPLE_SECONDS:
            cpu, peak = self._proc_usage()
            if self.cgroup is not None:
                peak = self.cgroup.peak_memory() or peak
            self._usage_sample, self._usage_at = (cpu, peak), now
        cpu, peak = self._usage_sample
        return Usage(wall_seconds=now - started, cpu_seconds=cpu, peak_memory_bytes=peak)

    def _proc_usage(self) -> tuple[float | None, int | None]:
        pid = self._guest_pid
        if pid is None or self._status is not None:
            return None, None
        try:
            if self._stat_fd is None:
                self._stat_fd = os.open(f"/proc/{pid}/stat", os.O_RDONLY)
            fields = os.pread(self._stat_fd, 1024, 0).rsplit(b")", 1)[1].split()
        except OSError:
            return None, None
        cpu = sum(int(value) for value in fields[11:15]) / _TICKS
        rss_pages = int(fields[21])
        return cpu, rss_pages * os.sysconf("SC_PAGE_SIZE") if self.cgroup is None else None


def _known(values: dict[str, Any]) -> dict[str, Any]:
    keep = ("observation", "reward", "terminated", "truncated", "info", "action")
    out = {key: values[key] for key in keep if key in values}
    if "env_class" in values:
        out["info"] = {key: values[key] for key in ("env_class", "has_oracle", "hint", "max_turns", "tools")}
    return out
