"""Every third-party import of the shipped packages is declared in pyproject.toml, under the extra that needs it.

A fresh ``pip install -e ".[train,dev]"`` is all a user has: an import that no
dependency declares works on a developer's machine and fails on theirs (``tqdm`` in
``training/train.py`` once did).  The imports are read with ``ast``, so
imports inside functions count as much as those at the top of a module.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
from pathlib import Path

import pytest

try:
    import tomllib
except ImportError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = ROOT / "pyproject.toml"

# Which extras a module may draw on besides the core dependencies: the longest
# matching path prefix wins.  Core `commerce_env` and `agents` use the core only;
# an optional integration lives in a module of its own and gets its extra here.
# (Adding an extra for a new module: one line here, one in pyproject.toml.)
ALLOWED_EXTRAS: dict[str, tuple[str, ...]] = {
    "commerce_env": (),
    "agents": (),
    "agents/learned.py": ("train",),  # the numpy policy (imports of its format's modules below)
    "agents/model_files.py": ("train",),  # reads safetensors / torch weights
    "agents/sb3_models.py": ("train",),  # opens trusted SB3 zips
    "commerce_env/frames.py": ("render", "video"),  # rgb_array frames (Pillow); MP4 replays (imageio)
    "commerce_web": ("web",),  # the web app (`commerce serve`)
    "commerce_env/openspiel": ("openspiel",),  # the pyspiel games (a package)
    "agents/openspiel.py": ("openspiel",),  # OpenSpiel bots as agents
    "commerce_env/vector": ("vector",),  # the batched engine (numba)
    "agents/batched.py": ("vector",),  # batched opponents over the batched engine
    "agents/greedy_kernels.py": ("vector",),  # the greedy policy compiled: batched opponents, search rollouts
    "agents/batched_search.py": ("vector",),  # search's rollouts on the batched engine
    "agents/best_response_rollouts.py": ("vector",),  # the search best response on the batched engine
    "agents/arena_ray.py": ("distributed",),  # the arena's Ray backend
    "agents/ray_connect.py": ("distributed",),
    "training": ("train",),
    "training/vec_env.py": ("train", "vector"),  # the SB3 adapter over the batched engine
    "training/nfsp.py": ("train", "openspiel"),  # OpenSpiel's NFSP on the pyspiel game
    # RLlib training (backend: rllib)
    **{f"training/rllib_{part}.py": ("train", "distributed") for part in ("config", "env", "modules", "train")},
    "benchmarks": ("bench",),
    "benchmarks/train_speed.py": ("bench", "train"),
    "benchmarks/train_foster.py": ("bench", "train"),
    "benchmarks/ray_speed.py": ("bench", "train", "distributed"),
    "benchmarks/openspiel_speed.py": ("bench", "openspiel"),
    "benchmarks/openspiel_arena.py": ("bench", "openspiel"),
    "benchmarks/vector_speed.py": ("bench", "train", "vector"),
    "benchmarks/end_when_out_speed.py": ("bench", "train", "vector"),
    "benchmarks/ppo_speed.py": ("bench", "train", "vector"),  # training/ppo.py beside MaskablePPO
    "benchmarks/algorithms.py": ("bench", "train", "vector"),  # the algorithms' table: they train
    "tests": ("*",),  # the suite runs with every extra installed (Makefile)
}

# Import names whose distribution is not installed here, or is named otherwise.
IMPORT_TO_DISTRIBUTION = {
    "yaml": "PyYAML", "PIL": "pillow", "pyspiel": "open-spiel", "sb3_contrib": "sb3-contrib",
    "stable_baselines3": "stable-baselines3", "pygame": "pygame-ce", "sklearn": "scikit-learn",
    "tqdm": "tqdm", "torch": "torch", "safetensors": "safetensors", "rlcard": "rlcard", "numba": "numba",
    "ray": "ray", "imageio": "imageio", "flask": "flask", "selenium": "selenium", "tensorboard": "tensorboard",
}


def normalize(name: str) -> str:
    """PEP 503 form of a distribution name."""
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_name(requirement: str) -> tuple[str, list[str]]:
    """``"pettingzoo[classic]>=1.24"`` -> ``("pettingzoo", ["classic"])``."""
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[([^\]]*)\])?", requirement)
    assert match, f"cannot read requirement {requirement!r}"
    extras = [e.strip() for e in (match.group(2) or "").split(",") if e.strip()]
    return normalize(match.group(1)), extras


def declared(pyproject: dict) -> tuple[set[str], dict[str, set[str]]]:
    """The core distributions and, per extra, the distributions it adds (self-references expanded)."""
    project = pyproject["project"]
    own = normalize(project["name"])
    raw = {extra: list(reqs) for extra, reqs in project.get("optional-dependencies", {}).items()}

    def expand(requirements: list[str], seen: frozenset[str]) -> set[str]:
        out: set[str] = set()
        for requirement in requirements:
            name, extras = requirement_name(requirement)
            if name == own:
                for extra in extras:
                    if extra not in seen:
                        out |= expand(raw.get(extra, []), seen | {extra})
            else:
                out.add(name)
        return out

    core = expand(project.get("dependencies", []), frozenset())
    return core, {extra: expand(reqs, frozenset({extra})) for extra, reqs in raw.items()}


def shipped_packages(pyproject: dict) -> list[str]:
    """Top-level package folders matched by ``tool.setuptools.packages.find.include``."""
    patterns = pyproject["tool"]["setuptools"]["packages"]["find"]["include"]
    tops = {pattern.rstrip("*").rstrip(".") for pattern in patterns}
    return sorted(top for top in tops if (ROOT / top / "__init__.py").is_file())


def first_party(root: Path) -> set[str]:
    """Names our own code imports: the packages at the root, and tests/ modules (benchmarks.soak uses them)."""
    names = {p.parent.name for p in root.glob("*/__init__.py")}
    tests = {"tests"} | {p.stem for p in (root / "tests").rglob("*.py")}  # one test imports another's helpers
    return names | tests | {p.stem for p in root.glob("*.py")}


def imports_of(path: Path) -> set[str]:
    """Top-level names of every absolute import in the file, wherever it is (module or function level)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def distribution_of(module: str, installed: dict[str, list[str]]) -> str | None:
    if module in IMPORT_TO_DISTRIBUTION:
        return normalize(IMPORT_TO_DISTRIBUTION[module])
    if module in installed:
        return normalize(installed[module][0])
    return None


def allowed_extras(relative: str) -> tuple[str, ...]:
    best = max((prefix for prefix in ALLOWED_EXTRAS if relative == prefix or relative.startswith(prefix + "/")),
               key=len, default=None)
    assert best is not None, f"{relative}: no entry in ALLOWED_EXTRAS; say which extras it may use"
    return ALLOWED_EXTRAS[best]


def undeclared_imports(root: Path, pyproject: dict, folders: list[str]) -> list[str]:
    """One line per import in ``folders`` that the dependencies its module may use do not declare."""
    core, extras = declared(pyproject)
    installed = importlib.metadata.packages_distributions()
    ours = first_party(root)
    problems = []
    for folder in folders:
        for path in sorted((root / folder).rglob("*.py")):
            relative = path.relative_to(root).as_posix()
            allowed = allowed_extras(relative)
            names = set(extras) if allowed == ("*",) else set(allowed)
            available = core.union(*(extras.get(extra, set()) for extra in names))
            for module in sorted(imports_of(path) - ours - set(sys.stdlib_module_names) - {"__future__"}):
                distribution = distribution_of(module, installed)
                if distribution is None:
                    problems.append(f"{relative}: import {module}: no installed distribution provides it; "
                                    "add it to IMPORT_TO_DISTRIBUTION and declare it")
                elif distribution not in available:
                    where = [extra for extra, dists in extras.items() if distribution in dists]
                    problems.append(f"{relative}: import {module} ({distribution}) is not declared in the core "
                                    f"dependencies or the extras {sorted(names) or 'none'} it may use"
                                    + (f" (it is in {where})" if where else ""))
    return problems


@pytest.fixture(scope="module")
def pyproject() -> dict:
    return tomllib.loads(PYPROJECT.read_text())


def test_every_third_party_import_is_declared_under_the_extra_that_needs_it(pyproject):
    folders = shipped_packages(pyproject)
    assert {"commerce_env", "agents", "training", "benchmarks"} <= set(folders)
    problems = undeclared_imports(ROOT, pyproject, [*folders, "tests"])
    assert not problems, "undeclared imports:\n" + "\n".join(problems)


def test_an_undeclared_import_is_found_even_inside_a_function(tmp_path):
    package = tmp_path / "training"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "train.py").write_text("import numpy\n\ndef bar():\n    from tqdm.auto import tqdm\n    return tqdm\n")
    (tmp_path / "tests").mkdir()
    project = {"project": {"name": "x", "dependencies": ["numpy>=1"], "optional-dependencies": {"train": []}}}
    problems = undeclared_imports(tmp_path, project, ["training"])
    assert len(problems) == 1 and "import tqdm" in problems[0]
    project["project"]["optional-dependencies"]["train"] = ["tqdm>=4"]
    assert undeclared_imports(tmp_path, project, ["training"]) == []


def test_an_import_declared_only_under_another_extra_is_refused(tmp_path):
    package = tmp_path / "commerce_env"
    package.mkdir()
    (package / "__init__.py").write_text("import torch\n")
    (tmp_path / "tests").mkdir()
    project = {"project": {"name": "x", "dependencies": [], "optional-dependencies": {"train": ["torch==2"]}}}
    problems = undeclared_imports(tmp_path, project, ["commerce_env"])
    assert len(problems) == 1 and "torch" in problems[0] and "'train'" in problems[0]


def test_extras_that_name_the_project_itself_are_expanded():
    project = {"project": {"name": "commerce-rl", "dependencies": ["numpy"],
                           "optional-dependencies": {"a": ["tqdm"], "all": ["commerce-rl[a]", "Flask>=3"]}}}
    core, extras = declared(project)
    assert core == {"numpy"} and extras["all"] == {"tqdm", "flask"}
