"""Calls socket/connect through libc's syscall(), and through the x32 syscall numbers."""

import ctypes
import struct

PORT = int("__PORT__")
SYS_SOCKET, SYS_CONNECT, X32 = 41, 42, 0x40000000


class SyscallEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        report = {}
        for name, number in (("socket", SYS_SOCKET), ("x32 socket", X32 | SYS_SOCKET)):
            ctypes.set_errno(0)
            result = libc.syscall(number, 2, 1, 0)
            report[name] = [result, ctypes.get_errno()]
        address = struct.pack("=H", 2) + struct.pack("!H4s8x", PORT, bytes([127, 0, 0, 1]))
        for name, number in (("connect fd 0", SYS_CONNECT), ("x32 connect fd 0", X32 | SYS_CONNECT)):
            ctypes.set_errno(0)
            result = libc.syscall(number, 0, address, len(address))
            report[name] = [result, ctypes.get_errno()]
        return "syscalled", 0.0, False, False, {"report": report}
