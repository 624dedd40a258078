"""Compiled kernels cannot go stale (commerce_env.vector.compiled): their cache is a folder named by a
hash of every file they are made from, so editing a function that a kernel inlines runs the new code
with nothing cleared, where numba's own cache (checked against the kernel's file only) runs the old."""

from __future__ import annotations

import inspect
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import pytest

pytest.importorskip("numba")

from numba.core.registry import CPUDispatcher  # noqa: E402

from commerce_env.vector import compiled  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

CALLER = """
from pathlib import Path
{decorators}
from callee import step

@kernel
def total(n):
    s = 0
    for i in range(n):
        s += step(i)
    return s

print(total(3))
"""
CALLEE = """
from pathlib import Path
{decorators}

@inlined
def step(i):
    return {body}
"""
HASHED = """from commerce_env.vector.compiled import compiler, source_hash
HERE = Path(__file__).parent
FOLDER = HERE / "cache" / source_hash([HERE / "caller.py", HERE / "callee.py"])
kernel, inlined = compiler(FOLDER), compiler(FOLDER, inline="always")"""
NUMBA_ONLY = """from numba import njit
kernel, inlined = njit(cache=True), njit(cache=True, inline="always")"""


def _run(folder: Path) -> str:
    done = subprocess.run([sys.executable, str(folder / "caller.py")], capture_output=True, text=True, cwd=folder,
                          env={"PYTHONPATH": f"{folder}:{ROOT}", "PATH": "/usr/bin:/bin"}, timeout=300, check=True)
    return done.stdout.strip()


def _edit_callee(tmp_path: Path, decorators: str) -> tuple[str, str]:
    """The kernel's result before and after its inlined callee is edited, nothing cleared between."""
    (tmp_path / "caller.py").write_text(CALLER.format(decorators=decorators))
    (tmp_path / "callee.py").write_text(CALLEE.format(decorators=decorators, body="1"))
    before = _run(tmp_path)
    assert _run(tmp_path) == before  # the second process reads the cache
    (tmp_path / "callee.py").write_text(CALLEE.format(decorators=decorators, body="10"))
    return before, _run(tmp_path)


def test_editing_an_inlined_function_runs_the_new_code_with_nothing_cleared(tmp_path):
    assert _edit_callee(tmp_path, textwrap.dedent(HASHED)) == ("3", "30")


def test_numbas_own_cache_runs_the_old_code_the_trap_the_hash_avoids(tmp_path):
    # The control: the same edit under numba's cache alone leaves the caller's compiled code in use.
    assert _edit_callee(tmp_path, NUMBA_ONLY) == ("3", "3")


def _project_file(value: object) -> Path | None:
    """The project source file a module global comes from, if any."""
    module = value if isinstance(value, types.ModuleType) else sys.modules.get(getattr(value, "__module__", "") or "")
    path = getattr(module, "__file__", None)
    if path is None:
        return None
    path = Path(path).resolve()
    return path if path.is_relative_to(compiled.PACKAGES) and path.parts[-2] != "site-packages" else None


def missing_sources(modules: list[types.ModuleType], sources: list[Path]) -> set[str]:
    """Files a kernel is made from that ``sources`` lacks: the files of the modules holding kernels, of
    the functions they compile, and of every project module or object those modules import."""
    known, missing = set(sources), set()
    for module in modules:
        dispatchers = [v for v in vars(module).values() if isinstance(v, CPUDispatcher)]
        if not dispatchers:
            continue
        files = {Path(inspect.getfile(d.py_func)).resolve() for d in dispatchers}
        files |= {f for v in vars(module).values() if (f := _project_file(v)) is not None}
        missing |= {str(f.relative_to(compiled.PACKAGES)) for f in files - known}
    return missing


def _kernel_modules() -> list[types.ModuleType]:
    import agents.batched  # noqa: F401 - the modules that hold kernels
    import agents.batched_search  # noqa: F401
    import agents.best_response_rollouts  # noqa: F401
    import agents.greedy_kernels  # noqa: F401
    import commerce_env.vector.features  # noqa: F401

    return [m for name, m in sorted(sys.modules.items())
            if name.split(".")[0] in ("commerce_env", "agents") and isinstance(m, types.ModuleType)]


def test_the_hash_covers_every_file_a_kernel_is_made_from():
    modules = _kernel_modules()
    assert missing_sources(modules, compiled.source_files()) == set()
    # the self-test: without the batched engine's row declaration, its kernels' file is missed
    fewer = [p for p in compiled.source_files() if p.name != "row.py"]
    assert "commerce_env/vector/row.py" in missing_sources(modules, fewer)


def test_every_kernel_is_cached_in_the_hashed_folder():
    dispatchers = [v for m in _kernel_modules() for v in vars(m).values() if isinstance(v, CPUDispatcher)]
    assert len(dispatchers) > 20
    for dispatcher in dispatchers:
        folder = Path(dispatcher._cache._cache_path)
        assert folder.is_relative_to(compiled.KERNEL_FOLDER), dispatcher.py_func.__qualname__


def test_the_hash_changes_with_any_file(tmp_path):
    files = [tmp_path / "a.py", tmp_path / "b.py"]
    for path in files:
        path.write_text("x = 1\n")
    first = compiled.source_hash(files)
    files[1].write_text("x = 2\n")
    assert compiled.source_hash(files) != first
