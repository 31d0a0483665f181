"""A warm pool: guests that have started Python in their own sandbox and wait for a program.

Each guest serves exactly one session and is never reused, so warming costs no isolation; it only
moves the start-up (namespaces, cgroups, interpreter) off the caller's path.
"""

from __future__ import annotations

import contextlib
import threading
from collections import deque
from typing import Protocol

from sandbox._guest import GuestProcess
from sandbox.limits import Limits


class Backend(Protocol):
    name: str
    isolated: bool

    def spawn(self, limits: Limits) -> GuestProcess: ...


class WarmPool:
    """Keeps ``size`` started guests for one backend and one set of limits."""

    def __init__(self, backend: Backend, limits: Limits, size: int) -> None:
        if size < 0:
            raise ValueError(f"warm pool size must be >= 0, got {size}")
        self.backend = backend
        self.limits = limits
        self.size = size
        self._ready: deque[GuestProcess] = deque()
        self._wakeup = threading.Condition()
        self._closed = False
        self.failures = 0
        self._thread: threading.Thread | None = None
        if size:
            self._thread = threading.Thread(target=self._refill, name=f"spade-warm-{backend.name}", daemon=True)
            self._thread.start()

    def take(self) -> GuestProcess:
        """A ready guest: a warm one if there is one, else one started now (and waited for)."""
        with self._wakeup:
            while self._ready:
                guest = self._ready.popleft()
                self._wakeup.notify_all()
                if guest.process.poll() is None:
                    return guest
                guest.close()
        guest = self.backend.spawn(self.limits)
        guest.wait_ready()
        return guest

    def take_many(self, count: int) -> list[GuestProcess]:
        """``count`` guests: warm ones first, the rest started together and then waited for."""
        guests: list[GuestProcess] = []
        with self._wakeup:
            while self._ready and len(guests) < count:
                guest = self._ready.popleft()
                if guest.process.poll() is None:
                    guests.append(guest)
                else:
                    guest.close()
            self._wakeup.notify_all()
        fresh = [self.backend.spawn(self.limits) for _ in range(count - len(guests))]
        for guest in fresh:
            guest.wait_ready()
        return guests + fresh

    def _refill(self) -> None:
        while True:
            with self._wakeup:
                while not self._closed and len(self._ready) >= self.size:
                    self._wakeup.wait()
                if self._closed:
                    return
            try:
                guest = self.backend.spawn(self.limits)
                ready = guest.wait_ready()
            except Exception:
                self.failures += 1
                self._backoff()
                continue
            if not ready.ok:
                guest.close()
                self.failures += 1
                self._backoff()
                continue
            with self._wakeup:
                if self._closed:
                    guest.close()
                    return
                self._ready.append(guest)

    def _backoff(self) -> None:
        with self._wakeup:
            self._wakeup.wait(timeout=min(5.0, 0.05 * 2**min(self.failures, 7)))

    def close(self) -> None:
        with self._wakeup:
            self._closed = True
            self._wakeup.notify_all()
            guests = list(self._ready)
            self._ready.clear()
        for guest in guests:
            with contextlib.suppress(Exception):
                guest.close()
        if self._thread is not None:
            self._thread.join(timeout=10)
