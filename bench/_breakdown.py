"""The rows of a step-profile breakdown, shared by the profile script and the report's tables."""

from __future__ import annotations

from typing import Any

LINES = (
    ("round_trip_us", "round trip (Session.step, p50)"),
    ("host_encode_us", "host: encode request frame (encode_frame)"),
    ("host_decode_us", "host: decode + validate reply (parse_reply, validate_result)"),
    ("host_accounting_us", "host: usage accounting (GuestProcess.usage, every call)"),
    ("host_cgroup_read_us", "host: (of which the cgroup peak-memory file read)"),
    ("guest_decode_us", "guest: decode request JSON"),
    ("guest_runner_us", "guest: runner dispatch and contract checks"),
    ("env_step_us", "guest: the program's own step"),
    ("guest_encode_us", "guest: encode reply frame"),
    ("transport_us", "transport: pipes, select, wake-ups, rest (remainder)"),
    ("round_trip_without_accounting_us", "ablation: round trip with usage accounting stubbed (p50)"),
    ("echo_round_trip_us", "echo program round trip (p50)"),
    ("echo_transport_us", "echo transport (remainder)"),
)


def breakdown_rows(profile: dict[str, Any], backend: str) -> list[tuple[str, float | None]]:
    """(label, us) rows of one backend's breakdown, in reading order."""
    figures = {**profile, **(profile["backends"].get(backend) or {})}
    return [(label, figures.get(key)) for key, label in LINES]
