"""Opens TCP and UDP sockets towards a listener on the host's loopback, and a DNS lookup."""

import socket

PORT = int("__PORT__")


def attempt(action):
    try:
        return "ok:%r" % (action(),)
    except Exception as exc:
        return "%s(%s)" % (type(exc).__name__, getattr(exc, "errno", None))


class NetEnv:
    def reset(self, seed=None):
        return "ready", {}

    def step(self, action):
        report = {
            "tcp connect": attempt(lambda: socket.create_connection(("127.0.0.1", PORT), timeout=0.5).close()),
            "tcp socket": attempt(lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM)),
            "udp sendto": attempt(lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("127.0.0.1", PORT))),
            "ipv6": attempt(lambda: socket.socket(socket.AF_INET6, socket.SOCK_STREAM)),
            "raw": attempt(lambda: socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)),
            "netlink": attempt(lambda: socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)),
            "packet": attempt(lambda: socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)),
            "dns": attempt(lambda: socket.getaddrinfo("example.com", 80)),
            "interfaces": attempt(lambda: socket.if_nameindex()),
        }
        return "networked", 0.0, False, False, {"report": report}
