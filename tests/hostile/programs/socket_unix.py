"""Tries Unix sockets: a new one, an abstract address on the host, a socketpair (harmless)."""

import socket


def attempt(action):
    try:
        return "ok:%r" % (action(),)
    except Exception as exc:
        return "%s(%s)" % (type(exc).__name__, getattr(exc, "errno", None))


def pair_round_trip():
    left, right = socket.socketpair()
    left.sendall(b"ping")
    return right.recv(4)


class UnixEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        report = {
            "unix stream": attempt(lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)),
            "unix dgram": attempt(lambda: socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)),
            "dbus": attempt(lambda: socket.socket(socket.AF_UNIX).connect("/run/dbus/system_bus_socket")),
            "abstract": attempt(lambda: socket.socket(socket.AF_UNIX).connect("\0spade-host")),
            "socketpair": attempt(pair_round_trip),
        }
        return "unix", 0.0, False, False, {"report": report}
