"""Tries what the seccomp policy denies: ptrace, namespaces, mounts, bpf, keys, module loading."""

import ctypes
import os

CALLS = {
    "ptrace": (101, 0, 0, 0, 0),  # PTRACE_TRACEME
    "unshare": (272, 0x10000000),  # CLONE_NEWUSER
    "unshare netns": (272, 0x40000000),
    "setns": (308, 0, 0),
    "mount": (165, 0, 0, 0, 0, 0),
    "umount2": (166, 0, 0),
    "pivot_root": (155, 0, 0),
    "chroot": (161, 0),
    "bpf": (321, 0, 0, 0),
    "perf_event_open": (298, 0, 0, 0, 0, 0),
    "keyctl": (250, 0),
    "init_module": (175, 0, 0, 0),
    "kexec_load": (246, 0, 0, 0, 0),
    "reboot": (169, 0, 0, 0, 0),
    "userfaultfd": (323, 0),
    "io_uring_setup": (425, 1, 0),
    "process_vm_readv": (310, 1, 0, 0, 0, 0, 0),
    "pidfd_open": (434, 1, 0),
    "clone newns": (56, 0x00020000, 0, 0, 0, 0),
    "clone3": (435, 0, 0),
    "settimeofday": (164, 0, 0),
}


class EscapeEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        report = {}
        for name, (number, *args) in CALLS.items():
            ctypes.set_errno(0)
            result = libc.syscall(number, *args)
            report[name] = [result, ctypes.get_errno()]
        try:
            os.unshare(os.CLONE_NEWNS)
            report["os.unshare"] = "ok"
        except OSError as exc:
            report["os.unshare"] = "%s(%s)" % (type(exc).__name__, exc.errno)
        return "escaped?", 0.0, False, False, {"report": report}
