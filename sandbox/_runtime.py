"""The guest's files: a Python 3.12 prefix that the jail's uid can read, and the guest runner.

nsjail drops to uid 65534 before it mounts anything, so every bind-mounted path must be readable by
that uid.  pyenv and venv interpreters often live under ``/root`` (mode 0700); in that case we copy
the interpreter, its shared library and the standard library (no site-packages) once into a
world-readable runtime folder, keyed by the interpreter and the runner's content.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import sys
import sysconfig
import tempfile
from dataclasses import dataclass
from pathlib import Path

from sandbox.errors import BackendUnavailableError

GUEST_SOURCE = Path(__file__).with_name("guest") / "spade_guest.py"
RUNTIME_ROOT_ENV = "SPADE_RUNTIME_DIR"
DEFAULT_RUNTIME_ROOT = Path("/var/cache/spade/runtime")
SKIPPED_STDLIB = {"site-packages", "test", "idlelib", "tkinter", "turtledemo", "ensurepip", "lib2to3", "config-3.12-x86_64-linux-gnu"}


@dataclass(frozen=True)
class GuestRuntime:
    """Where the jailed interpreter and runner are on the host, and where the jail sees them."""

    host_prefix: Path
    jail_prefix: str
    executable: str
    runner_dir: Path

    @property
    def runner_in_jail(self) -> str:
        return "/spade/spade_guest.py"


def runner_digest() -> str:
    return hashlib.sha256(GUEST_SOURCE.read_bytes()).hexdigest()[:16]


def _world_readable_path(path: Path) -> bool:
    """True when uid 65534 can reach ``path`` (every parent searchable, the leaf readable)."""
    current = path.resolve()
    for part in [current, *current.parents]:
        try:
            mode = part.stat().st_mode
        except OSError:
            return False
        if not mode & stat.S_IXOTH or (part == current and not mode & stat.S_IROTH):
            return False
    return True


def runtime_root() -> Path:
    return Path(os.environ.get(RUNTIME_ROOT_ENV, DEFAULT_RUNTIME_ROOT))


def _copy_prefix(source: Path, target: Path) -> None:
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=target.parent))
    (staging / "bin").mkdir()
    shutil.copy2(source / "bin" / version, staging / "bin" / version)
    libdir = Path(sysconfig.get_config_var("LIBDIR") or source / "lib")
    (staging / "lib").mkdir()
    for shared in libdir.glob("libpython3*.so*"):
        shutil.copy2(shared, staging / "lib" / shared.name, follow_symlinks=True)
    stdlib = source / "lib" / version
    shutil.copytree(
        stdlib,
        staging / "lib" / version,
        ignore=lambda folder, names: [name for name in names if Path(folder) == stdlib and name in SKIPPED_STDLIB],
    )
    for folder, _dirs, files in os.walk(staging):
        os.chmod(folder, 0o755)
        for name in files:
            path = os.path.join(folder, name)
            os.chmod(path, 0o755 if os.access(path, os.X_OK) else 0o644)
    try:
        staging.rename(target)
    except OSError:
        shutil.rmtree(staging, ignore_errors=True)
        if not target.exists():
            raise


def _install_runner(root: Path) -> Path:
    folder = root / f"guest-{runner_digest()}"
    if not (folder / "spade_guest.py").exists():
        staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=root))
        shutil.copy2(GUEST_SOURCE, staging / "spade_guest.py")
        os.chmod(staging, 0o755)
        os.chmod(staging / "spade_guest.py", 0o644)
        try:
            staging.rename(folder)
        except OSError:
            shutil.rmtree(staging, ignore_errors=True)
    return folder


def prepare_runtime() -> GuestRuntime:
    """Find or build a jail-readable Python 3.12 and runner; raises BackendUnavailableError."""
    if sys.version_info[:2] != (3, 12):
        raise BackendUnavailableError("nsjail", f"the host runs Python {sys.version.split()[0]}; SPADE's guest needs 3.12")
    prefix = Path(sys.base_prefix)
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    root = runtime_root()
    try:
        root.mkdir(parents=True, exist_ok=True)
        for part in [root, *root.parents]:
            if part.stat().st_mode & stat.S_IXOTH == 0:
                os.chmod(part, part.stat().st_mode | stat.S_IXOTH)
                if part == Path("/"):
                    break
    except OSError as exc:
        raise BackendUnavailableError("nsjail", f"cannot create the runtime folder {root}: {exc}") from exc
    if not _world_readable_path(root):
        raise BackendUnavailableError("nsjail", f"the runtime folder {root} is not readable by uid 65534; set {RUNTIME_ROOT_ENV}")
    if _world_readable_path(prefix / "lib" / version / "os.py"):
        host_prefix = prefix
    else:
        tag = hashlib.sha256(f"{prefix}|{sys.version}".encode()).hexdigest()[:12]
        host_prefix = root / f"python-{sys.version_info.major}.{sys.version_info.minor}.{sys.version_info.micro}-{tag}"
        if not (host_prefix / "lib" / version / "os.py").exists():
            _copy_prefix(prefix, host_prefix)
    runner_dir = _install_runner(root)
    return GuestRuntime(
        host_prefix=host_prefix,
        jail_prefix=str(prefix),
        executable=f"{prefix}/bin/{version}",
        runner_dir=runner_dir,
    )
