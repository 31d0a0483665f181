"""Makes a 32-bit system call (int 0x80: socket via the i386 table) to slip past a 64-bit filter."""

import ctypes
import mmap


def int80(number, a=0, b=0, c=0):
    code = (
        b"\x53"  # push rbx
        + b"\xb8" + number.to_bytes(4, "little")  # mov eax, number
        + b"\xbb" + a.to_bytes(4, "little")  # mov ebx, a
        + b"\xb9" + b.to_bytes(4, "little")  # mov ecx, b
        + b"\xba" + c.to_bytes(4, "little")  # mov edx, c
        + b"\xcd\x80"  # int 0x80
        + b"\x5b"  # pop rbx
        + b"\xc3"  # ret
    )
    page = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    page.write(code)
    address = ctypes.addressof(ctypes.c_char.from_buffer(page))
    return ctypes.CFUNCTYPE(ctypes.c_int)(address)()


class CompatEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        fd = int80(359, 2, 1, 0)  # i386 socket(AF_INET, SOCK_STREAM, 0)
        return "socket32=%d" % fd, 0.0, False, False, {}
