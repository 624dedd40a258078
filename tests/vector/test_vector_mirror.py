"""The batched engine mirrors the readable one, file by file (docs/architecture.md).

What the lockstep tests (test_vector_engine.py) cannot see: where each rule and each name is
written.  The state row is declared once; each variant's kernel module pairs with its engine
module; action and phase numbers, observation offsets and hand categories come from the readable
modules that define them; agents reach the batched engine through its public API only.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from commerce_env.engine import phases
from commerce_env.observation import layout
from commerce_env.rules import VARIANTS, variant_info

pytest.importorskip("numba")

ROOT = Path(__file__).resolve().parents[2]
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


def test_no_file_of_the_installed_packages_is_over_500_lines():
    too_long = {str(p.relative_to(ROOT)): lines for package in INSTALLED for p in _modules(ROOT / package)
                if (lines := len(p.read_text().splitlines())) > 500}
    assert too_long == {}


def test_action_phase_and_observation_numbers_are_not_declared_again_in_the_batched_engine():
    # engine/actions.py and engine/phases.py name the actions and phases; observation.layout() places
    # the sections: the kernels import or derive them, never write the numbers down again.
    again = {}
    for path in _modules(VECTOR):
        names = _assigned_literals(ast.parse(path.read_text()))
        clash = sorted(n for n in names if n in ACTION_NAMES or n in PHASE_NAMES or n.startswith("O_"))
        if clash:
            again[str(path.relative_to(ROOT))] = clash
    assert again == {}


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


def test_the_observation_encoder_places_each_section_where_the_layout_says():
    from commerce_env.vector import observation as encoder

    for name, start, _ in layout(4):
        assert getattr(encoder, f"O_{name.upper()}") == start, name


def test_the_row_is_declared_once_and_its_sections_tile_it():
    from commerce_env.vector import row

    for prefix, names in (("G_", [n for n, _ in row.GAME_FIELDS]), ("S_", [n for n, _ in row.SEAT_FIELDS]),
                          ("B_", row.MEMORY_SETS), ("P_", row.PARAMS)):
        for index, name in enumerate(names):
            assert getattr(row, prefix + name.upper()) == index, name
    for n, decks in ((2, 0), (4, 3), (12, 1)):
        offsets = row.layout_params(n, decks)
        widths = row.section_widths(n, decks)
        at = row.NUM_GS
        for name, _, _ in row.SECTIONS:
            assert offsets[getattr(row, f"P_{name.upper()}_AT")] == at, name
            at += widths[name]
        assert offsets[row.P_WIDTH] == at


@pytest.mark.parametrize("name", VARIANTS)
def test_each_variant_has_its_kernel_module_beside_its_engine_module(name):
    # commerce_env/engine/<name>.py and commerce_env/vector/variants/<name>.py: the same variant.
    kernel = importlib.import_module(f"commerce_env.vector.variants.{name}")
    assert kernel.VARIANT is variant_info(name)


# The readable payments whose batched twins are named otherwise (the batched ones say what they return).
PAYMENT_TWINS = {"winners": "winner", "worst": "worst_hand"}


def test_the_payments_pair_module_for_module():
    # engine/settlement.py's Payments and vector/settlement.py: the same payments and ends (R3-R4.5),
    # and the readable showdown's module (engine/settling.py) holds none of them itself.
    from commerce_env.engine import settlement, settling

    batched = importlib.import_module("commerce_env.vector.settlement")
    readable = {name for name, value in vars(settlement.Payments).items() if callable(value)}
    assert readable
    twins = {PAYMENT_TWINS.get(name, name.lstrip("_")) for name in readable}
    assert twins <= {name for name, value in vars(batched).items() if callable(value)}
    assert not readable & set(vars(settling.Settling))


def test_agents_use_only_the_public_api_of_the_batched_engine():
    # BatchEngine's state and kernels are private: agents use its methods, kernel_state() and
    # commerce_env.vector.access inside compiled loops.
    private = {"_st", "_masks", "_field", "_section", "params"}
    found = []
    for path in _modules(ROOT / "agents"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in private:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: .{node.attr}")
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("commerce_env.vector"):
                found += [f"{path.relative_to(ROOT)}:{node.lineno}: {node.module}.{a.name}" for a in node.names
                          if not _public(node.module, a.name)]
    assert found == []


PUBLIC_VECTOR = {("commerce_env.vector", "BatchEngine"), ("commerce_env.vector", "access"),
                 ("commerce_env.vector", "UniformRandom"),
                 # the compiled determinizer, for compiled loops that draw worlds themselves (search best response)
                 ("commerce_env.vector.determinize", "sample_places"),
                 ("commerce_env.vector.determinize", "chosen_positions"),
                 ("commerce_env.vector.determinize", "compiles"),
                 ("commerce_env.vector.python_random", "shuffled_copies"),
                 ("commerce_env.vector.features", "batch_feature_builders"),
                 ("commerce_env.vector.features", "with_features"),
                 # how every kernel is compiled and cached (agents' compiled loops too)
                 ("commerce_env.vector.compiled", "kernel"), ("commerce_env.vector.compiled", "inlined")}


def _public(module: str, name: str) -> bool:
    """Whether ``from module import name`` takes a public name of the batched engine."""
    return module == "commerce_env.vector.access" or (module, name) in PUBLIC_VECTOR


def test_a_private_read_of_the_batched_engine_would_be_found():
    tree = ast.parse("x = engine._st[0]\nfrom commerce_env.vector import kernels as K\n")
    attributes = [n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)]
    imports = [(n.module, a.name) for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names]
    assert "_st" in attributes and not _public(*imports[0])


def test_compiled_loops_read_phases_as_the_engine_numbers_them():
    # The phase column holds an index into engine/phases.py's PHASES; access names each one.
    from commerce_env.vector import access

    assert [getattr(access, phase.upper()) for phase in phases.PHASES] == list(range(len(phases.PHASES)))


def missed_hooks(switches: str, variants: dict[str, set[str]]) -> list[str]:
    """``variant.hook`` for each hook function a variant's kernel module defines that the hook switch
    of the same name (in ``switches``, vector/variants/__init__.py's source) never calls."""
    calls: dict[str, set[str]] = {}
    for node in ast.parse(switches).body:
        if isinstance(node, ast.FunctionDef):
            calls[node.name] = {f"{n.value.id}.{n.attr}" for n in ast.walk(node)
                                if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)}
    return sorted(f"{variant}.{hook}" for variant, defined in variants.items() for hook in defined & set(calls)
                  if f"{variant}.{hook}" not in calls[hook])


def _kernel_functions() -> dict[str, set[str]]:
    return {name: {n.name for n in ast.parse((VECTOR / "variants" / f"{name}.py").read_text()).body
                   if isinstance(n, ast.FunctionDef)} for name in VARIANTS}


def test_every_hook_switch_reaches_every_variant_that_defines_the_hook():
    # A registered variant's kernel module defines `legal`, `step`, ...: the switch of that name calls it.
    switches = (VECTOR / "variants" / "__init__.py").read_text()
    assert missed_hooks(switches, _kernel_functions()) == []
    # the self-test: a switch without the widow's line misses it
    broken = switches.replace("        widow.legal(st, g, p, masks)\n", "        pass\n")
    assert broken != switches and missed_hooks(broken, _kernel_functions()) == ["widow.legal"]
