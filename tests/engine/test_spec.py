"""EnvSpec: hashing of normalised source, and parsing a model's raw answer."""

from __future__ import annotations

import pytest

from engine.spec import EnvSpec, SpecError

PROGRAM = "class GridEnv:\n    def reset(self, seed=None):\n        return 'o', {}\n    def step(self, a):\n        return 'o', 0.0, True, False, {}\n"


def test_hash_ignores_line_endings_and_trailing_space():
    a = EnvSpec.from_source(PROGRAM)
    b = EnvSpec.from_source(PROGRAM.replace("\n", "  \r\n"))
    assert a.sha256 == b.sha256 and len(a.sha256) == 64
    assert EnvSpec.from_source(PROGRAM + "x = 1\n").sha256 != a.sha256


def test_answer_with_draft_and_final_block_takes_the_last_program():
    answer = f"Draft:\n```python\nclass DraftEnv: pass\n```\nFinal:\n```python\nHINT = 'go'\n{PROGRAM}```\n"
    spec = EnvSpec.from_answer(answer)
    assert "GridEnv" in spec.source and spec.hint == "go" and spec.origin == "model"


def test_hint_line_outside_code():
    spec = EnvSpec.from_answer(f"**Hint:** try the corners\n```\n{PROGRAM}```")
    assert spec.hint == "try the corners"


def test_unterminated_fence_still_parses():
    assert "GridEnv" in EnvSpec.from_answer(f"```python\n{PROGRAM}").source


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ("I cannot write that.", "no fenced code block"),
        ("```python\nprint('hello')\n```", "ends in 'Env'"),
        ("```js\nclass FooEnv {}\n```", "no fenced code block"),
        (42, "must be a str"),
    ],
)
def test_answers_without_a_program_are_clear_errors(answer, message):
    with pytest.raises(SpecError, match=message):
        EnvSpec.from_answer(answer)


def test_files_that_are_not_programs(tmp_path):
    binary = tmp_path / "bad.py"
    binary.write_bytes(b"\xff\xfe")
    with pytest.raises(SpecError, match="not UTF-8"):
        EnvSpec.from_file(binary)
    with pytest.raises(SpecError, match="cannot read"):
        EnvSpec.from_file(tmp_path / "missing.py")
