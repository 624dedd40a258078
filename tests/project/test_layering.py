"""The layering the README promises, checked over the import graph.

Every import statement of every project module counts, function-level ones
included (they hide a dependency as well as a top-level one does; only
``if TYPE_CHECKING:`` imports, which never run, are left out):
``commerce_env`` imports nothing from ``agents``, ``training``,
``benchmarks`` or the web app; no two project modules import each other in a
circle; and the engine loads neither Gymnasium, PettingZoo nor torch.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from test_dependencies_declared import imports_of  # the one reader of a file's third-party imports

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("commerce_env", "agents", "training", "benchmarks", "commerce_web")
ABOVE_THE_LIBRARY = ("agents", "training", "benchmarks", "commerce_web")


def _modules() -> dict[str, Path]:
    modules = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    """The project modules that ``name`` imports anywhere in its source."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    tree = ast.parse(path.read_text(), str(path))
    typing_only = {id(n) for block in ast.walk(tree) if isinstance(block, ast.If)
                   and ast.unparse(block.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")
                   for n in ast.walk(block)}  # imports for type checkers only: never run
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            # `from pkg import name`: the submodule pkg.name if there is one, else pkg itself
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in MODULES:  # `import a.b.c` of a module inside a package
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def test_the_graph_is_read():  # the checks below would pass on an empty graph
    assert "commerce_env.engine.determinize" in GRAPH["commerce_env.view"]
    assert "commerce_env.view" in GRAPH["agents.play"]
    assert "agents.specs" in GRAPH["agents"]


def test_the_library_imports_nothing_above_it():
    bad = [(name, target) for name, targets in GRAPH.items() if name.split(".")[0] == "commerce_env"
           for target in targets if target.split(".")[0] in ABOVE_THE_LIBRARY]
    assert bad == []


TRAINING_FRAMEWORKS = ("stable_baselines3", "sb3_contrib", "torch", "ray", "tianshou", "torchrl")


def test_the_library_imports_no_training_framework_at_any_level():
    # The env is the library every trainer uses: none of them is its dependency (the SB3 adapter
    # of the batched env lives in training/, the Gymnasium vector env in commerce_env.vector).
    found = {name: sorted(imports_of(path) & set(TRAINING_FRAMEWORKS))
             for name, path in MODULES.items() if name.split(".")[0] == "commerce_env"}
    assert {name: frameworks for name, frameworks in found.items() if frameworks} == {}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on_stack, found, counter = {}, {}, [], set(), [], [0]

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * len(graph)))
    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycles():
    assert _cycles(GRAPH) == []


def test_a_cycle_would_be_found():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


@pytest.mark.parametrize("module", ["commerce_env.engine", "commerce_env.view", "commerce_env.hands"])
def test_the_engine_and_the_view_load_no_env_or_learning_library(module):
    code = (f"import sys, {module}; bad = [m for m in ('gymnasium', 'pettingzoo', 'torch') if m in sys.modules]; "
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_gymnasium_finds_the_env_whichever_is_imported_first():
    for first, second in (("commerce_env", "gymnasium"), ("gymnasium", "commerce_env")):
        code = (f"import {first}, {second}; import gymnasium; "
                "e = gymnasium.make('commerce/Commerce-v0', variant='old_game', num_players=3); e.reset(seed=1)")
        subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_no_env_writes_the_engines_state():  # envs drive the engine through its methods (abandon, apply ...)
    for name in ("commerce_env.aec_env", "commerce_env.single_agent"):
        tree = ast.parse(MODULES[name].read_text())
        writes = [ast.unparse(t) for node in ast.walk(tree) if isinstance(node, (ast.Assign, ast.AugAssign))
                  for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
                  if isinstance(t, ast.Attribute) and "game" in ast.unparse(t.value)]
        assert writes == [], name


def _dict_uses(tree: ast.AST) -> list[str]:
    """Every use of an object's ``__dict__`` (read or written) in ``tree``."""
    return [ast.unparse(node) for node in ast.walk(tree) if isinstance(node, ast.Attribute) and node.attr == "__dict__"]


def test_only_the_engine_reaches_into_a_games_dict():  # a game is built by its constructor, clone() or restore()
    for name, path in MODULES.items():
        if not name.startswith("commerce_env.engine"):
            assert _dict_uses(ast.parse(path.read_text())) == [], name


def test_a_write_to_a_dict_would_be_found():
    assert _dict_uses(ast.parse("world = object.__new__(Game)\nworld.__dict__ = state")) == ["world.__dict__"]


# Variant behaviour lives in the variant's engine class (commerce_env/engine) or in rules.py's
# tables of options; the batched engine's variant modules are that engine again, and its hooks
# switch on the variant's code there (commerce_env/vector/variants).
VARIANT_HOMES = ("commerce_env.engine", "commerce_env.rules", "commerce_env.vector.variants")
KERNEL_CODES = frozenset({"V_TRADE_BARTER", "V_WIDOW", "V_SHIP", "V_OLD", "V_POOL"})


def _names_a_variant(node: ast.AST) -> bool:
    from commerce_env.rules import VARIANTS

    if isinstance(node, ast.Constant):
        return node.value in VARIANTS
    if isinstance(node, (ast.Name, ast.Attribute)):
        return (node.id if isinstance(node, ast.Name) else node.attr) in KERNEL_CODES
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_names_a_variant(element) for element in node.elts)
    return False


def _variant_switches(tree: ast.AST) -> list[str]:
    """Comparisons (==, !=, in, not in) of anything with a variant's name or kernel code."""
    return [f"line {node.lineno}: {ast.unparse(node)}" for node in ast.walk(tree)
            if isinstance(node, ast.Compare) and any(isinstance(op, (ast.Eq, ast.NotEq, ast.In, ast.NotIn))
                                                     for op in node.ops)
            and any(_names_a_variant(side) for side in (node.left, *node.comparators))]


def test_no_switch_on_a_variant_name_outside_the_engine():
    found = {name: switches for name, path in MODULES.items()
             if not name.startswith(VARIANT_HOMES) and (switches := _variant_switches(ast.parse(path.read_text())))}
    assert found == {}


def test_a_switch_on_a_variant_name_would_be_found():
    for code in ('if rules.variant == "pool": pass', 'x = variant in ("widow", "old_game")',
                 'ship = variant == K.V_SHIP', 'y = "my_ship_sails" != game.variant'):
        assert len(_variant_switches(ast.parse(code))) == 1, code
    for code in ('x = TITLES["widow"]', 'if variant in VARIANTS_WITH_LIVES: pass', 'z = name == "greedy"'):
        assert _variant_switches(ast.parse(code)) == [], code


def test_the_commerce_command_finds_its_subcommands_without_naming_other_packages():
    # Each package registers its subcommands as entry points (pyproject.toml); the dispatcher in
    # training/ names none of the packages beside or above it, not even as a string for importlib.
    text = (ROOT / "training" / "cli.py").read_text()
    assert not [name for name in ("benchmarks", "commerce_web", "importlib.import_module") if name in text]
