"""The batched engine mirrors the readable one, file by file (docs/architecture.md).

What the lockstep tests (test_vector_engine.py) cannot see: where each rule and each name is
written.  The state row is declared once; each variant's kernel module pairs with its engine
module; action and phase numbers, observation offsets and hand categories come from the readable
modules that define them; agents reach the batched engine through its public API only.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from commerce_env.engine import phases

pytest.importorskip("numba")

ROOT = Path(__file__).resolve().parent.parent
INSTALLED = ("commerce_env", "agents", "training", "benchmarks", "commerce_web")  # pyproject's packages
VECTOR = ROOT / "commerce_env" / "vector"
ACTION_NAMES = {"KNOCK", "STAND", "CONTINUE", "PASS", "DECLINE", "TAKE_WIDOW", "KEEP_HAND", "BUY_HORSE",
                "NO_HORSE", "READY_MONEY", "OFFER", "GIVE", "EXCHANGE", "NUM_ACTIONS"}
PHASE_NAMES = {name.upper() for name in phases.PHASES}


def _modules(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def _assigned_literals(tree: ast.AST) -> dict[str, int]:
    """Module-level names bound to an int literal or a ``range`` (``A, B = range(2)`` included)."""
    found = {}
    for node in tree.body:
        if not isinstance(node, ast.Assign):
            continue
        literal = isinstance(node.value, ast.Constant) and isinstance(node.value.value, int) or (
            isinstance(node.value, ast.Call) and getattr(node.value.func, "id", "") == "range") or (
            isinstance(node.value, ast.Tuple) and all(isinstance(e, ast.Constant) for e in node.value.elts))
        if literal:
            for target in node.targets:
                for name in (target.elts if isinstance(target, ast.Tuple) else [target]):
                    if isinstance(name, ast.Name):
                        found[name.id] = node.lineno
    return found


def test_no_hand_category_is_read_from_the_number_of_a_key():
    # R2's categories are hands.CATEGORIES, read from a key by hands.category_index alone: a rule on
    # categories (R5.8) asks that function in both engines instead of relying on the order of CATEGORIES.
    found = []
    for package in ("commerce_env", "agents"):
        for path in _modules(ROOT / package):
            if path == ROOT / "commerce_env" / "hands.py":
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                if (isinstance(node, ast.BinOp) and isinstance(node.op, ast.FloorDiv)
                        and isinstance(node.right, ast.Constant) and node.right.value == 1000):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert found == []
