"""Host side of the guest protocol: frames, deadlines, and validation of every reply.

A frame is a 4-byte big-endian length and that many bytes of UTF-8 JSON.  The host reads only
bounded, validated JSON from a guest; anything else is a ``protocol_error`` (or ``output_limit``
for an oversized frame).
"""

from __future__ import annotations

import json
import math
import os
import re
import select
import time
from typing import Any

from sandbox.outcome import ErrorInfo, Outcome

HEADER_BYTES = 4
GUEST_REPORTABLE = {
    Outcome.ENV_ERROR,
    Outcome.PROTOCOL_ERROR,
    Outcome.MEMORY_LIMIT,
    Outcome.OUTPUT_LIMIT,
}


class ChannelClosed(Exception):
    """The guest's end of the channel closed (the guest died or closed it)."""


class ChannelTimeout(Exception):
    """No complete frame arrived before the deadline."""


class FrameTooLarge(Exception):
    """The guest announced a frame larger than the host accepts."""

    def __init__(self, size: int, limit: int) -> None:
        super().__init__(f"reply frame of {size} bytes exceeds the limit of {limit}")
        self.size = size
        self.limit = limit


class MalformedReply(Exception):
    """The reply is not what the protocol allows; the message says what was wrong."""


def encode_frame(message: dict[str, Any]) -> bytes:
    payload = _ENCODER.encode(message).encode("utf-8")
    return len(payload).to_bytes(HEADER_BYTES, "big") + payload


def write_all(fd: int, data: bytes, deadline: float) -> None:
    """Write ``data`` to a non-blocking pipe, giving up at ``deadline`` (a guest that stops reading
    would otherwise block the host).  The common case is one ``write``; poll only when the pipe is full."""
    view = memoryview(data)
    poller: select.poll | None = None
    while view:
        try:
            written = os.write(fd, view)
        except BrokenPipeError as exc:
            raise ChannelClosed("guest closed its request channel") from exc
        except BlockingIOError:
            if poller is None:
                poller = select.poll()
                poller.register(fd, select.POLLOUT)
            _wait(poller, deadline, "guest stopped reading requests")
            continue
        view = view[written:]


def _wait(poller: select.poll, deadline: float, what: str) -> None:
    """Block until the poller's fd is ready or ``deadline`` passes (poll: no fd-number limit)."""
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise ChannelTimeout(what)
        if poller.poll(max(1, int(remaining * 1000) + 1)):
            return


class FrameReader:
    """Reads frames from one pipe with as few system calls as it can: a small reply that is already
    waiting costs one ``read``.  Bytes past the frame stay buffered for the next one."""

    def __init__(self, fd: int, max_bytes: int) -> None:
        self.fd = fd
        self.max_bytes = max_bytes
        self._buffer = bytearray()
        self._poller = select.poll()
        self._poller.register(fd, select.POLLIN)

    def read(self, deadline: float, known_readable: bool = False) -> bytes:
        """One frame's payload; raises ChannelTimeout, ChannelClosed or FrameTooLarge."""
        buffer = self._buffer
        while True:
            if len(buffer) >= HEADER_BYTES:
                size = int.from_bytes(buffer[:HEADER_BYTES], "big")
                if size > self.max_bytes:
                    raise FrameTooLarge(size, self.max_bytes)
                end = HEADER_BYTES + size
                if len(buffer) >= end:
                    payload = bytes(buffer[HEADER_BYTES:end])
                    del buffer[:end]
                    return payload
                wanted = end - len(buffer)
            else:
                wanted = HEADER_BYTES - len(buffer)
            if not known_readable:
                _wait(self._poller, deadline, "no complete reply before the deadline")
            known_readable = False
            chunk = os.read(self.fd, max(wanted, 65536))
            if not chunk:
                raise ChannelClosed("guest closed its reply channel")
            buffer += chunk


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _reject_constant(name: str) -> float:
    raise MalformedReply(f"reply holds the non-finite number {name}")


_DECODER = json.JSONDecoder(parse_constant=_reject_constant)  # made once: building one costs per call
_ENCODER = json.JSONEncoder(ensure_ascii=False, allow_nan=False)


def parse_reply(payload: bytes) -> dict[str, Any]:
    """Decode a reply payload to a JSON object, rejecting NaN and infinities."""
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MalformedReply(f"reply is not UTF-8 ({exc.reason} at byte {exc.start})") from None
    try:
        message = _DECODER.decode(text)
    except MalformedReply:
        raise
    except (ValueError, RecursionError) as exc:
        raise MalformedReply(f"reply is not JSON: {exc}") from None
    if not isinstance(message, dict):
        raise MalformedReply(f"reply must be a JSON object, got {type(message).__name__}")
    if _SURROGATE_ESCAPE.search(text):
        # JSON escapes can carry lone surrogates, which no UTF-8 text holds; let none into the host.
        try:
            json.dumps(message, ensure_ascii=False).encode("utf-8")
        except (UnicodeEncodeError, RecursionError):
            raise MalformedReply("reply holds a lone surrogate (text that is not valid Unicode)") from None
    return message


def _field(result: dict[str, Any], name: str, kind: type | tuple[type, ...], op: str) -> Any:
    if name not in result:
        raise MalformedReply(f"{op} reply lacks {name!r}")
    value = result[name]
    if isinstance(value, bool) and kind in (int, float, (int, float)):
        raise MalformedReply(f"{op} reply: {name} must be a number, got bool")
    if not isinstance(value, kind):
        raise MalformedReply(f"{op} reply: {name} has type {type(value).__name__}")
    return value


def validate_result(op: str, result: Any, reward_bound: float) -> dict[str, Any]:
    """Check the ``result`` of a successful reply for ``op``; returns the checked fields."""
    if not isinstance(result, dict):
        raise MalformedReply(f"{op} reply: result must be an object")
    if op == "reset":
        return {
            "observation": _field(result, "observation", str, op),
            "info": _field(result, "info", dict, op),
        }
    if op == "step":
        try:
            reward = float(_field(result, "reward", (int, float), op))
        except OverflowError:
            raise MalformedReply("step reply: reward is too large to be a float") from None
        if not math.isfinite(reward):
            raise MalformedReply(f"step reply: reward {reward!r} is not finite")
        if abs(reward) > reward_bound:
            raise MalformedReply(f"step reply: reward {reward!r} is outside +/-{reward_bound:g}")
        return {
            "observation": _field(result, "observation", str, op),
            "reward": reward,
            "terminated": _field(result, "terminated", bool, op),
            "truncated": _field(result, "truncated", bool, op),
            "info": _field(result, "info", dict, op),
        }
    if op == "oracle":
        return {"action": _field(result, "action", str, op)}
    if op == "load":
        hint = result.get("hint")
        max_turns = result.get("max_turns")
        tools = result.get("tools")
        if hint is not None and not isinstance(hint, str):
            raise MalformedReply("load reply: hint must be a string")
        if max_turns is not None and (isinstance(max_turns, bool) or not isinstance(max_turns, int)):
            raise MalformedReply("load reply: max_turns must be an integer")
        if tools is not None and not isinstance(tools, list):
            raise MalformedReply("load reply: tools must be a list")
        return {
            "env_class": _field(result, "env_class", str, op),
            "has_oracle": _field(result, "has_oracle", bool, op),
            "hint": hint,
            "max_turns": max_turns,
            "tools": tools,
        }
    return {}


def validate_error(message: dict[str, Any], cap: int) -> tuple[Outcome, ErrorInfo]:
    """Check a guest-reported failure; only some outcomes may be claimed by the guest."""
    try:
        outcome = Outcome(message.get("outcome"))
    except ValueError:
        raise MalformedReply(f"unknown outcome {message.get('outcome')!r}") from None
    if outcome not in GUEST_REPORTABLE:
        raise MalformedReply(f"a guest may not report the outcome {outcome.value!r}")
    error = message.get("error")
    if not isinstance(error, dict):
        raise MalformedReply("error reply lacks an 'error' object")
    kind, text, trace = error.get("type", ""), error.get("message", ""), error.get("traceback")
    if not isinstance(kind, str) or not isinstance(text, str):
        raise MalformedReply("error reply: type and message must be strings")
    if trace is not None and not isinstance(trace, str):
        raise MalformedReply("error reply: traceback must be a string")
    return outcome, ErrorInfo(type=kind[:200], message=text[:cap], traceback=None if trace is None else trace[-cap:])
