"""The default game and table are declared once (commerce_env.options.DEFAULT_VARIANT, DEFAULT_PLAYERS):
no installed module writes the default variant's name or a default player count of its own."""

from __future__ import annotations

import ast
from pathlib import Path

from commerce_env.options import DEFAULT_PLAYERS, DEFAULT_VARIANT

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("commerce_env", "agents", "training", "commerce_web")  # benchmarks name what they measure
# The default variant's own record names it, and so does the one declaration of the default.
OWNERS = {"commerce_env/engine/trade_barter.py", "commerce_env/options.py"}
PLAYER_NAMES = {"num_players", "players"}


def _docstrings(tree: ast.AST) -> set[int]:
    kinds = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    return {id(node.body[0].value) for node in ast.walk(tree) if isinstance(node, kinds) and node.body
            and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}


def _defaults(node: ast.AST) -> list[tuple[str, ast.expr]]:
    """(name, default) pairs: a function's parameters, a dataclass field, an argparse flag, ``.get(key, x)``."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        args = node.args
        positional = args.posonlyargs + args.args
        pairs = list(zip([a.arg for a in positional[len(positional) - len(args.defaults):]], args.defaults,
                         strict=True))
        return pairs + [(a.arg, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is not None]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
        value = node.value
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "option" \
                and value.args:  # a config section's field: option(default, check)
            value = value.args[0]
        return [(node.target.id, value)]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args \
            and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
        key = node.args[0].value.lstrip("-").replace("-", "_")
        if node.func.attr == "add_argument":
            return [(key, k.value) for k in node.keywords if k.arg == "default"]
        if node.func.attr in ("get", "pop") and len(node.args) == 2:
            return [(key, node.args[1])]
    if isinstance(node, ast.Dict):
        return [(k.value, v) for k, v in zip(node.keys, node.values, strict=True)
                if isinstance(k, ast.Constant) and isinstance(k.value, str)]
    return []


def written_again(source: str, path: str) -> list[str]:
    """Where ``source`` writes the default variant's name or a default player count itself."""
    tree = ast.parse(source)
    found, skip = [], _docstrings(tree)
    if path not in OWNERS:
        found += [f"{path}:{n.lineno}: {DEFAULT_VARIANT!r}" for n in ast.walk(tree)
                  if isinstance(n, ast.Constant) and n.value == DEFAULT_VARIANT and id(n) not in skip]
    for node in ast.walk(tree):
        for name, value in _defaults(node):
            if name in PLAYER_NAMES and isinstance(value, ast.Constant) and value.value == DEFAULT_PLAYERS \
                    and not isinstance(value.value, bool):
                found.append(f"{path}:{value.lineno}: {name}={DEFAULT_PLAYERS}")
    return found


def test_no_installed_module_writes_the_defaults_again():
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            found += written_again(path.read_text(), str(path.relative_to(ROOT)))
    assert found == []


def test_the_guard_sees_each_way_of_writing_them_again():
    # the self-test: every form the guard knows, written with the literals
    source = '''
def play(variant: str = "trade_barter", num_players: int = 4):
    """Plays trade_barter."""
    return config.get("players", 4), {"players": 4}, rules.pop("variant", "trade_barter")

class Settings:
    players: int = 4
    num_players: int = option(4, whole(2, 12))

parser.add_argument("--players", type=int, default=4)
'''
    found = written_again(source, "agents/example.py")
    assert len([f for f in found if "trade_barter" in f]) == 2  # the parameter and pop's fallback, not the docstring
    assert len([f for f in found if "=4" in f]) == 6
    assert written_again("x = {'players': 3}\nlabel = 'widow'\n", "agents/example.py") == []
