"""AST mutations of environment programs, for fuzzing the validator with near-valid inputs."""

from __future__ import annotations

import ast
import random

MUTATIONS = ("delete_statement", "swap_statements", "change_constant", "infinite_loop", "raise_error",
             "bad_return", "truncate", "rename_class", "drop_import")  # fmt: skip
NASTY_CONSTANTS = ("0", "-1", "10**9", "float('nan')", "float('inf')", "''", "None", "'x' * 10**6", "[]")


def _functions(tree: ast.AST) -> list[ast.FunctionDef]:
    return [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef) and node.body]


def mutate(source: str, kind: str, seed: int) -> str:
    """One mutation of ``source``; the result may be invalid Python on purpose."""
    rng = random.Random(seed)
    if kind == "truncate":
        return source[: rng.randrange(len(source) + 1)]
    tree = ast.parse(source)
    functions = _functions(tree)
    if kind == "delete_statement" and functions:
        body = rng.choice(functions).body
        del body[rng.randrange(len(body))]
        if not body:
            body.append(ast.Pass())
    elif kind == "swap_statements" and functions:
        body = rng.choice(functions).body
        if len(body) > 1:
            i, j = rng.sample(range(len(body)), 2)
            body[i], body[j] = body[j], body[i]
    elif kind == "change_constant":
        in_fstrings = {id(n) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for n in ast.walk(node)}
        constants = [node for node in ast.walk(tree) if isinstance(node, ast.Constant) and id(node) not in in_fstrings]
        if constants:
            target = rng.choice(constants)
            replacement = ast.parse(rng.choice(NASTY_CONSTANTS), mode="eval").body
            for parent in ast.walk(tree):
                for name, value in ast.iter_fields(parent):
                    if value is target:
                        setattr(parent, name, replacement)
                    elif isinstance(value, list):
                        parent.__dict__[name] = [replacement if item is target else item for item in value]
    elif kind == "infinite_loop" and functions:
        rng.choice(functions).body.insert(0, ast.parse("while True:\n    pass").body[0])
    elif kind == "raise_error" and functions:
        rng.choice(functions).body.insert(0, ast.parse("raise RuntimeError('mutant')").body[0])
    elif kind == "bad_return" and functions:
        body = rng.choice(functions).body
        body.insert(0, ast.parse(f"return {rng.choice(NASTY_CONSTANTS)}").body[0])
    elif kind == "rename_class":
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                node.name = node.name.removesuffix("Env") + rng.choice(["Game", "Env2", "EnvX"])
    elif kind == "drop_import":
        tree.body = [node for node in tree.body if not isinstance(node, ast.Import | ast.ImportFrom)]
    try:
        return ast.unparse(ast.fix_missing_locations(tree))
    except (ValueError, TypeError, AttributeError, RecursionError):
        return source[: len(source) // 2]  # a mutant that cannot be printed becomes a truncation
