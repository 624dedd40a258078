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

import errno
import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

Writer = Callable[[BinaryIO], object]

# The reasons a folder cannot take a file: full, read-only, not ours to write.
NOT_WRITABLE = {errno.ENOSPC, errno.EROFS, errno.EACCES, errno.EPERM, errno.EDQUOT, errno.EFBIG}


class OutputError(ValueError):
    """A file the project writes could not be written (a full or read-only folder).  A ``ValueError`` so
    that every command reports it as it reports any other bad argument: one line naming the folder."""


@contextmanager
def writing_to(folder: str | os.PathLike) -> Iterator[None]:
    """Turn an ``OSError`` of writing under ``folder`` (full, read-only, no permission, or naming a file
    there) into an :class:`OutputError` naming the folder and the system's reason."""
    try:
        yield
    except FileExistsError:
        raise  # the caller's refusal to replace a file, not a folder that cannot be written
    except OSError as error:
        folder = Path(folder)
        name = getattr(error, "filename", None)
        under = isinstance(name, (str, bytes, os.PathLike)) and _is_under(Path(os.fsdecode(name)), folder)
        if error.errno not in NOT_WRITABLE and not under:
            raise
        reason = error.strerror or type(error).__name__
        raise OutputError(f"cannot write to {folder}: {reason}" + (f" ({os.fsdecode(name)})" if name else "")
                          + "; free some space or choose another folder") from None


def _is_under(path: Path, folder: Path) -> bool:
    try:
        path.absolute().relative_to(folder.absolute())
    except ValueError:
        return False
    return True


def default_file_mode() -> int:
    """The mode ``open(path, "w")`` gives a new file: ``0o666`` less the process's umask."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def temporary_name_pattern(path: str | os.PathLike) -> str:
    """The glob of the temporary files :func:`atomic_write` makes for ``path`` (in its folder)."""
    return f".{Path(path).name}.*.tmp"


def atomic_write(path: str | os.PathLike, data: bytes | str | Writer, overwrite: bool = True) -> Path:
    """Write ``data`` (bytes, text as UTF-8, or a function writing to a binary file) to ``path`` atomically.
    ``overwrite=False``: a new file only (``FileExistsError`` if ``path`` appears meanwhile), linked into
    place, so that no reader ever sees a half-written file and nothing is replaced."""
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
        if overwrite:
            os.replace(tmp, path)
        else:
            os.link(tmp, path)  # fails if path exists: never replaces it
    finally:
        Path(tmp).unlink(missing_ok=True)  # our own temporary file (gone once replaced), never the target
    return path
