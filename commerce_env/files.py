"""Writing a file so that a reader never sees half of it: the project's one atomic write.

The data goes to a temporary file made by :func:`tempfile.mkstemp` in the
target's folder (a name no other process can be using, on the same file
system), is flushed to disk, gets the mode any other new file would get
(``0o666`` less the umask, not mkstemp's private ``0o600``: models and reports
are meant to be shared) and is renamed over the target with :func:`os.replace`.  A kill at any moment leaves the old
file or the new one, and at worst a stray ``.<name>.*.tmp`` beside it.

Here in ``commerce_env`` (which imports nothing of ``agents`` or ``training``)
so that every part of the project can use it.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

Writer = Callable[[BinaryIO], object]


def default_file_mode() -> int:
    """The mode ``open(path, "w")`` gives a new file: ``0o666`` less the process's umask."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def temporary_name_pattern(path: str | os.PathLike) -> str:
    """The glob of the temporary files :func:`atomic_write` makes for ``path`` (in its folder)."""
    return f".{Path(path).name}.*.tmp"


def atomic_write(path: str | os.PathLike, data: bytes | str | Writer) -> Path:
    """Write ``data`` (bytes, text as UTF-8, or a function writing to a binary file) to ``path`` atomically."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            if isinstance(data, str):
                handle.write(data.encode("utf-8"))
            elif isinstance(data, (bytes, bytearray, memoryview)):
                handle.write(data)
            else:
                data(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, default_file_mode())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)  # our own temporary file, never the target
        raise
    return path
