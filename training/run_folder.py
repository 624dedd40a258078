"""A run's output folder: locked while a run uses it, and a manifest of every file the runs wrote there.

Nothing a run does deletes or overwrites a file that no run wrote:

* a new run needs an empty (or absent) folder; ``force=True`` first removes
  the files a previous run recorded in the manifest, and only those;
* a folder holding files that no run wrote is refused, with or without
  ``force``, naming some of them;
* ``--resume`` continues a run that the manifest records.

Two runs on one folder are kept apart by an exclusive ``fcntl.flock`` on
:data:`LOCK` (released by the kernel when the process dies, so a killed run
leaves no stale lock); the second is refused naming the first one's pid.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

from commerce_env.files import OutputError, atomic_write, temporary_name_pattern, writing_to

MANIFEST = ".commerce-run.json"
LOCK = ".commerce-run.lock"
OWN = (MANIFEST, LOCK)


class RunFolder:
    """The output folder of a training run (see the module docstring)."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path).absolute()  # so that `run.path / name` and a name relative to it are one file
        self._files: set[str] = set()

    # ---------------------------------------------------------- the lock
    @contextmanager
    def locked(self) -> Iterator[RunFolder]:
        """Hold the folder's lock for the ``with`` block; a ``ValueError`` if another run holds it."""
        import fcntl

        if self.path.exists() and not self.path.is_dir():
            raise ValueError(f"output {self.path} is a file, not a folder; choose a folder for the run")
        made_folder = not self.path.exists()
        lock = self.path / LOCK
        made_lock = not lock.exists()
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o666)
        except OSError as error:  # read-only, no permission, under a file: one line naming the folder
            if made_folder and self.path.is_dir() and not any(self.path.iterdir()):
                self.path.rmdir()
            name = f" ({os.fsdecode(error.filename)})" if error.filename else ""
            raise OutputError(f"cannot write to {self.path}: {error.strerror or type(error).__name__}{name}; "
                              "choose another output folder") from None
        holding = False
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                other = os.pread(fd, 32, 0).decode(errors="replace").strip() or "unknown"
                raise ValueError(f"{self.path} is in use by another commerce run (pid {other}); wait for it to "
                                 "finish or choose another output folder") from None
            holding = True
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
            self._files = set(self._read_manifest())
            with writing_to(self.path):  # a full or read-only folder: one line naming it, not a traceback
                yield self
        except BaseException:
            # A run refused or failed: leave the folder as we found it (no lock file, no empty folder of ours).
            if holding and made_lock:
                lock.unlink(missing_ok=True)
            if made_folder and self.path.is_dir() and not any(self.path.iterdir()):
                self.path.rmdir()
            raise
        finally:
            os.close(fd)  # closing releases the flock

    # ------------------------------------------------------- the manifest
    def _read_manifest(self) -> list[str]:
        path = self.path / MANIFEST
        if not path.exists():
            return []
        try:
            files = json.loads(path.read_text())["files"]
            assert isinstance(files, list) and all(isinstance(f, str) for f in files)
        except (OSError, ValueError, KeyError, TypeError, AssertionError):
            raise ValueError(f"{path} is not a run manifest this project wrote; move it away or choose "
                             "another output folder") from None
        for entry in files:
            self._check_inside(entry, path)
        return files

    def _check_inside(self, entry: str, manifest: Path) -> None:
        """Refuse a manifest entry that could name a file outside the folder: absolute, with ``..``, or
        under a folder that resolves elsewhere (a symbolic link).  The manifest is only a file on disk:
        whoever can write it must not be able to make ``--force`` delete anything else."""
        parts = PurePosixPath(entry).parts
        inside = (bool(entry) and not PurePosixPath(entry).is_absolute() and not Path(entry).is_absolute()
                  and ".." not in parts and "\\" not in entry and entry not in OWN)
        if inside:
            parent = (self.path / entry).parent.resolve()
            inside = parent == self.path.resolve() or self.path.resolve() in parent.parents
        if not inside:
            raise ValueError(f"{manifest} lists {entry!r}, which is not a file inside {self.path}; nothing was "
                             "removed: this is not a manifest this project wrote, move it away or choose another "
                             "output folder")

    def record(self, paths: Iterable[str | os.PathLike]) -> None:
        """Add files (absolute, or relative to the folder) to the manifest."""
        root = self.path.resolve()
        for path in paths:
            full = self.path / path  # an absolute `path` stays itself
            relative = full.resolve().relative_to(root).as_posix()
            self._files.add(relative)
        atomic_write(self.path / MANIFEST, json.dumps({"files": sorted(self._files)}, indent=1) + "\n")

    def record_tree(self, folder: str) -> None:
        """Record every file under ``folder`` (one the run made, filled by a library, e.g. TensorBoard's)."""
        base = self.path / folder
        if base.is_dir():
            self.record(p for p in base.rglob("*") if p.is_file() and not p.is_symlink())

    def write(self, relative: str, data: bytes | str) -> Path:
        """Write a file of the run atomically and record it."""
        path = self.path / relative
        self._refuse_foreign(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, data)
        self.record([path])
        return path

    def _refuse_foreign(self, path: Path) -> None:
        if path.exists() and path.relative_to(self.path).as_posix() not in self._files:
            raise ValueError(f"{path} was not written by a commerce run; it is kept: move it away or choose "
                             "another output folder")

    # ------------------------------------------------- starting a new run
    def foreign_files(self) -> list[str]:
        """Files in the folder that no run recorded (the manifest and the lock aside)."""
        found = []
        for path in sorted(self.path.rglob("*")):
            relative = path.relative_to(self.path).as_posix()
            if (path.is_file() or path.is_symlink()) and relative not in OWN and relative not in self._files:
                found.append(relative)
        return found

    def prepare_new_run(self, force: bool = False) -> None:
        """Make the folder ready for a fresh run, or refuse saying what to do (call while locked)."""
        foreign = self.foreign_files()
        if foreign:
            shown = ", ".join(foreign[:3]) + (f" and {len(foreign) - 3} more" if len(foreign) > 3 else "")
            raise ValueError(f"{self.path} holds files that no commerce run wrote ({shown}); they are kept: "
                             "choose another output folder, or move them away")
        ours = [f for f in self._files if (self.path / f).exists() or (self.path / f).is_symlink()]
        if ours and not force:
            raise ValueError(f"{self.path} already holds a run; use --resume to continue it, --force to replace "
                             "it (removes only the files that run wrote), or choose another output folder")
        self.remove_recorded()

    def remove_recorded(self) -> None:
        """Delete the files the manifest lists, then the folders that left empty; nothing else."""
        folders = set()
        for relative in self._files:  # all checked before anything is removed
            self._check_inside(relative, self.path / MANIFEST)
        for relative in sorted(self._files):
            path = self.path / relative
            if path.is_file() or path.is_symlink():
                path.unlink()
            for parent in Path(relative).parents:
                if parent != Path("."):
                    folders.add(self.path / parent)
        for folder in sorted(folders, key=lambda p: len(p.parts), reverse=True):
            if folder.is_dir() and not any(folder.iterdir()):
                folder.rmdir()
        self._files = set()
        atomic_write(self.path / MANIFEST, json.dumps({"files": []}) + "\n")

    def remove_stale_temporaries(self, relative: str) -> None:
        """Temporary files an atomic write of ``relative`` left when a run was killed (call while locked)."""
        target = self.path / relative
        if target.parent.is_dir():
            for stale in target.parent.glob(temporary_name_pattern(target)):
                stale.unlink()
