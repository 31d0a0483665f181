"""SPADE guest runner: serves one environment program inside a sandbox.

Standard library only; it runs on whatever CPython the sandbox provides (a jailed 3.12, or CPython
compiled to WASI).  It is a data file for the host: the host copies it into the sandbox and never
imports it.

Protocol: frames on a dedicated channel (``--in FD`` / ``--out FD``), each a 4-byte big-endian length
followed by that many bytes of UTF-8 JSON.  Requests carry ``op`` (``load``, ``reset``, ``step``,
``oracle``, ``close``); replies are ``{"ok": true, "result": ...}`` or
``{"ok": false, "outcome": ..., "error": {...}}``, and always ``printed`` (what the program wrote to
``sys.stdout``/``sys.stderr`` during the call, capped).

Nothing here is trusted by the host: the environment runs in this interpreter and can tamper with
it.  The host validates every reply.
"""

import io
import json
import linecache
import math
import os
import random
import sys
import traceback

PROTOCOL_VERSION = 1
HEADER_BYTES = 4
MAX_REQUEST_BYTES = 64 * 1024 * 1024


class CappedText(io.TextIOBase):
    """A text sink that keeps the first ``cap`` characters written and counts the rest."""

    def __init__(self, cap):
        self.cap = cap
        self.parts = []
        self.kept = 0
        self.dropped = 0

    def writable(self):
        return True

    def write(self, text):
        if not isinstance(text, str):
            raise TypeError("write() argument must be str, not " + type(text).__name__)
        room = self.cap - self.kept
        if room > 0:
            piece = text[:room]
            self.parts.append(piece)
            self.kept += len(piece)
            self.dropped += len(text) - len(piece)
        else:
            self.dropped += len(text)
        return len(text)

    def take(self):
        text = "".join(self.parts)
        dropped = self.dropped
        self.parts = []
        self.kept = 0
        self.dropped = 0
        return text, dropped


def read_exact(fd, count):
    chunks = []
    while count:
        chunk = os.read(fd, min(count, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        count -= len(chunk)
    return b"".join(chunks)


def read_request(fd):
    header = read_exact(fd, HEADER_BYTES)
    if header is None:
        return None
    size = int.from_bytes(header, "big")
    if size > MAX_REQUEST_BYTES:
        raise ValueError("request of %d bytes is too large" % size)
    body = read_exact(fd, size)
    if body is None:
        return None
    return json.loads(body.decode("utf-8"))


def write_frame(fd, payload):
    data = len(payload).to_bytes(HEADER_BYTES, "big") + payload
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


class ContractError(Exception):
    """The environment returned something the contract does not allow."""


def check_info(info, where):
    if not isinstance(info, dict):
        raise ContractError("%s: info must be a dict, got %s" % (where, type(info).__name__))
    return info


def check_observation(observation, where):
    if not isinstance(observation, str):
        raise ContractError(
            "%s: observation must be a str, got %s" % (where, type(observation).__name__)
        )
    return observation


def as_reward(value):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ContractError("step: reward must be a float, got %s" % type(value).__name__)
    try:
        reward = float(value)
    except OverflowError:
        raise ContractError("step: reward is too large to be a float") from None
    if not math.isfinite(reward):
        raise ContractError("step: reward is not finite (%r)" % reward)
    return reward


def as_flag(value, name):
    if not isinstance(value, bool):
        raise ContractError("step: %s must be a bool, got %s" % (name, type(value).__name__))
    return value


def describe(exc):
    """An exception's type name and message as plain str; the program's exceptions may be hostile
    (a ``__str__`` or a metaclass ``__name__`` that raises), and describing them must not kill the runner."""
    try:
        kind = str.__str__(type(exc).__name__)
    except BaseException:
        kind = "UnnamedException"
    try:
        message = str.__str__(str(exc))
    except BaseException:
        message = "<str() of the exception failed>"
    return kind, message


def find_env_class(namespace):
    classes = [
        value
        for name, value in namespace.items()
        if isinstance(value, type) and name.endswith("Env") and value.__module__ == "__spade_env__"
    ]
    if len(classes) != 1:
        names = sorted(cls.__name__ for cls in classes)
        raise ContractError(
            "the program must define exactly one class whose name ends in 'Env'; found %d %s"
            % (len(classes), names)
        )
    return classes[0]


class Runner:
    """Holds the loaded environment and answers one request at a time."""

    def __init__(self, print_cap, traceback_cap, max_reply_bytes):
        self.print_cap = print_cap
        self.traceback_cap = traceback_cap
        self.max_reply_bytes = max_reply_bytes
        self.env = None
        self.env_class = None
        self.sink = CappedText(print_cap)
        self.filename = "<environment>"

    def handle(self, request):
        op = request.get("op")
        handler = getattr(self, "op_" + str(op), None)
        if handler is None:
            return {"ok": False, "outcome": "protocol_error", "error": {"message": "unknown op %r" % op}}
        return {"ok": True, "result": handler(request)}

    def op_load(self, request):
        source = request["source"]
        filename = request.get("filename") or "<environment>"
        namespace = {"__name__": "__spade_env__", "__builtins__": __builtins__}
        module = type(sys)("__spade_env__")
        module.__dict__.update(namespace)
        sys.modules["__spade_env__"] = module
        random.seed(0)
        self.filename = filename
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        code = compile(source, filename, "exec")
        exec(code, module.__dict__)
        self.env_class = find_env_class(module.__dict__)
        self.env = self.env_class()
        hint = module.__dict__.get("HINT")
        max_turns = getattr(self.env_class, "max_turns", None)
        tools = getattr(self.env_class, "TOOLS", None)
        return {
            "env_class": self.env_class.__name__,
            "hint": hint if isinstance(hint, str) else None,
            "max_turns": max_turns if isinstance(max_turns, int) and not isinstance(max_turns, bool) else None,
            "has_oracle": callable(getattr(self.env, "oracle", None)),
            "tools": json.loads(json.dumps(tools)) if isinstance(tools, list) else None,
            "python": "%d.%d.%d" % sys.version_info[:3],
            "protocol": PROTOCOL_VERSION,
        }

    def op_reset(self, request):
        seed = request.get("seed")
        if seed is not None:
            random.seed(seed)
        answer = self.env.reset(seed=seed)
        if not isinstance(answer, tuple) or len(answer) != 2:
            raise ContractError("reset must return (observation, info), got %s" % type(answer).__name__)
        observation, info = answer
        return {"observation": check_observation(observation, "reset"), "info": check_info(info, "reset")}

    def op_step(self, request):
        answer = self.env.step(request["action"])
        if not isinstance(answer, tuple) or len(answer) != 5:
            raise ContractError(
                "step must return (observation, reward, terminated, truncated, info), got %s"
                % type(answer).__name__
            )
        observation, reward, terminated, truncated, info = answer
        return {
            "observation": check_observation(observation, "step"),
            "reward": as_reward(reward),
            "terminated": as_flag(terminated, "terminated"),
            "truncated": as_flag(truncated, "truncated"),
            "info": check_info(info, "step"),
        }

    def op_oracle(self, request):
        oracle = getattr(self.env, "oracle", None)
        if not callable(oracle):
            raise ContractError("the environment has no oracle")
        action = oracle()
        if not isinstance(action, str):
            raise ContractError("oracle must return a str, got %s" % type(action).__name__)
        return {"action": action}

    def op_close(self, request):
        close = getattr(self.env, "close", None)
        if callable(close):
            close()
        return {}

    def error_reply(self, outcome, exc, with_traceback):
        kind, message = describe(exc)
        error = {"type": kind, "message": message[: self.traceback_cap]}
        if with_traceback:
            try:
                tb = exc.__traceback__
                while tb is not None and tb.tb_frame.f_code.co_filename != self.filename:
                    tb = tb.tb_next
                text = "".join(traceback.format_exception(type(exc), exc, tb or exc.__traceback__))
                error["traceback"] = text[-self.traceback_cap :]
            except BaseException:  # a hostile exception: report it without its traceback
                pass
        return {"ok": False, "outcome": outcome, "error": error}

    def serve_one(self, request):
        """Answer one request; every exception becomes a reply (BaseException included)."""
        try:
            reply = self.handle(request)
        except ContractError as exc:
            reply = self.error_reply("protocol_error", exc, with_traceback=False)
        except MemoryError as exc:
            reply = self.error_reply("memory_limit", exc, with_traceback=False)
        except RecursionError as exc:
            reply = self.error_reply("env_error", exc, with_traceback=False)
        except BaseException as exc:  # SystemExit and KeyboardInterrupt are the program's errors too
            reply = self.error_reply("env_error", exc, with_traceback=True)
        text, dropped = self.sink.take()
        reply["printed"] = text
        reply["printed_dropped"] = dropped
        return reply

    def encode(self, reply):
        try:
            payload = json.dumps(reply, allow_nan=False, ensure_ascii=False).encode("utf-8", "replace")
        except BaseException as exc:  # not JSON, too deep, or a hostile info (a dict whose items() raises)
            kind, message = describe(exc)
            payload = json.dumps(
                {
                    "ok": False,
                    "outcome": "memory_limit" if isinstance(exc, MemoryError) else "protocol_error",
                    "error": {"type": kind, "message": "reply is not JSON: %s" % message[: self.traceback_cap]},
                    "printed": "",
                    "printed_dropped": 0,
                }
            ).encode("utf-8")
        if len(payload) > self.max_reply_bytes:
            payload = json.dumps(
                {
                    "ok": False,
                    "outcome": "output_limit",
                    "error": {"type": "ReplyTooLarge", "message": "reply of %d bytes exceeds %d" % (len(payload), self.max_reply_bytes)},
                    "printed": "",
                    "printed_dropped": 0,
                }
            ).encode("utf-8")
        return payload


def parse_fd(argv, flag, default):
    if flag in argv:
        return int(argv[argv.index(flag) + 1])
    return default


def main(argv):
    in_fd = parse_fd(argv, "--in", 3)
    out_fd = parse_fd(argv, "--out", 4)
    print_cap = parse_fd(argv, "--print-cap", 8192)
    traceback_cap = parse_fd(argv, "--traceback-cap", 8192)
    max_reply = parse_fd(argv, "--max-reply", 1 << 20)
    runner = Runner(print_cap, traceback_cap, max_reply)
    sys.stdout = runner.sink
    sys.stderr = runner.sink
    sys.stdin = io.StringIO("")
    write_frame(out_fd, json.dumps({"ok": True, "result": {"ready": True}}).encode("utf-8"))
    while True:
        try:
            request = read_request(in_fd)
        except BaseException:
            return 3
        if request is None:
            return 0
        reply = runner.serve_one(request)
        write_frame(out_fd, runner.encode(reply))
        if request.get("op") == "close":
            return 0


if __name__ == "__main__":
    code = main(sys.argv)
    try:
        sys.stdout.flush()
    finally:
        os._exit(code)
