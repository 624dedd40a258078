"""How kernels are compiled, and where their compiled code is kept: in a folder named by a hash of
every source file the kernels are made from, so an edit can never run old compiled code.

numba keeps a function's compiled code on disk and checks it against the function's own file
only.  A kernel that inlines or calls a function of another file, or reads another file's
constants, would go on running the old code after that file is edited.  Here the cache of every
kernel is a folder named by one hash of all the files kernels are made from
(:data:`KERNEL_SOURCES`): edit any of them and the next process compiles into a new folder.
``make clean-kernels`` removes the folders (``python -m commerce_env.vector.compiled --clean``);
``tests/vector/test_compiled_cache.py`` checks that the list holds every file a kernel reads.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import numba
from numba import njit

PACKAGES = Path(__file__).resolve().parents[2]  # the folder holding commerce_env/ and agents/
# The files kernels are compiled from: the readable engine and library (functions compiled as they
# are, constants read as compile-time values), the batched engine, and the agents' kernels.
KERNEL_SOURCES = ("commerce_env/*.py", "commerce_env/engine/**/*.py", "commerce_env/vector/**/*.py",
                  "agents/greedy_kernels.py", "agents/batched.py", "agents/batched_search.py",
                  "agents/best_response_rollouts.py", "agents/heuristics.py", "agents/belief.py", "agents/base.py",
                  "agents/odds.py")


def source_files(patterns: Iterable[str] = KERNEL_SOURCES, root: Path = PACKAGES) -> list[Path]:
    """The files ``patterns`` name under ``root``, sorted."""
    return sorted({path for pattern in patterns for path in root.glob(pattern) if path.is_file()})


def source_hash(files: Iterable[Path]) -> str:
    """One hash of the files' names and contents: it changes when any of them does."""
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def cache_root() -> Path:
    """Where the kernels' folders live: under ``NUMBA_CACHE_DIR`` if it is set, else the user's cache."""
    base = os.environ.get("NUMBA_CACHE_DIR") or os.environ.get("XDG_CACHE_HOME") or os.path.join(
        os.path.expanduser("~"), ".cache")
    return Path(base) / "commerce-rl-kernels"


@contextlib.contextmanager
def _cache_dir(folder: Path) -> Iterator[None]:
    """numba reads its cache folder when a function is decorated: point it at ``folder`` meanwhile."""
    before = numba.config.CACHE_DIR
    numba.config.CACHE_DIR = str(folder)
    try:
        yield
    finally:
        numba.config.CACHE_DIR = before


def compiler(folder: Path, **options: Any) -> Callable[[Callable], Any]:
    """``njit(cache=True, **options)`` with the compiled code kept in ``folder``."""
    def compile_into(function: Callable) -> Any:
        with _cache_dir(folder):
            return njit(cache=True, **options)(function)

    return compile_into


KERNEL_FOLDER = cache_root() / source_hash(source_files())
# Every kernel is compiled so: cached on disk in KERNEL_FOLDER (only the first process after an
# edit or an install compiles), and error_model="numpy": no division-by-zero checks on the many //
# and % (no divisor here is zero).
kernel = compiler(KERNEL_FOLDER, error_model="numpy")
# The same, inlined into each caller by numba: for the variants' hooks and their switches, the short
# steps that sequence a deal, the reads of commerce_env.vector.access, and the small steps of a turn
# (knowledge updates, turns passed, payments): as calls they cost the engine's split into modules some
# 15-20% of its speed, and each call counts a reference (an atomic add) on every array it is given,
# which for these was a third of a search rollout's time.  Not for the big functions (settling a deal,
# dealing one): inlined at every call site, they multiply the first compile's time.
inlined = compiler(KERNEL_FOLDER, error_model="numpy", inline="always")


def main(argv: list[str] | None = None) -> int:
    """``--clean``: remove every kernels' folder (the cache root is this project's alone)."""
    args = sys.argv[1:] if argv is None else argv
    root = cache_root()
    if args == ["--clean"]:
        if root.is_dir():
            shutil.rmtree(root)
        print(f"removed {root}")
        return 0
    print(f"kernels compile into {KERNEL_FOLDER}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
