"""A full or read-only output folder is one clear error naming the folder, never a traceback, and
leaves no half-written file behind (every file the project writes is written atomically)."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest

from commerce_env import files
from commerce_env.files import OutputError, atomic_write

CONFIGS = Path(__file__).resolve().parents[2] / "configs" / "train"


@pytest.fixture
def full_disk(monkeypatch):
    """Every atomic write fails as on a full disk, after its temporary file has data in it."""
    def no_space(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(files.os, "fsync", no_space)


def leftovers(folder) -> list[str]:
    return sorted(p.name for p in folder.rglob("*")) if folder.exists() else []


def test_a_failed_write_leaves_no_file_and_no_temporary(tmp_path, full_disk):
    with pytest.raises(OSError):
        atomic_write(tmp_path / "a.json", "{}")
    assert leftovers(tmp_path) == []


def test_a_new_file_only_write_never_replaces_a_file(tmp_path):
    (tmp_path / "games.jsonl").write_text("mine")
    with pytest.raises(FileExistsError):
        atomic_write(tmp_path / "games.jsonl", "ours", overwrite=False)
    assert (tmp_path / "games.jsonl").read_text() == "mine" and leftovers(tmp_path) == ["games.jsonl"]


def test_commerce_train_on_a_full_folder_names_it(tmp_path, capsys, full_disk):
    pytest.importorskip("sb3_contrib")
    from training.cli import main

    out = tmp_path / "run"
    assert main(["demo", "--output", str(out), "--minutes", "0.05"]) == 2
    error = capsys.readouterr().err
    assert str(out) in error and os.strerror(errno.ENOSPC) in error and "Traceback" not in error


def test_arena_out_on_a_full_folder_names_it(tmp_path, capsys, full_disk):
    from training.cli import main

    out = tmp_path / "arena"
    code = main(["arena", "--agents", "random,greedy", "--players", "3", "--games", "6", "--no-progress",
                 "--out", str(out)])
    error = capsys.readouterr().err
    assert code == 2 and str(out) in error and os.strerror(errno.ENOSPC) in error
    assert not list(out.glob("*.json"))


def test_save_model_on_a_full_folder_names_it_and_leaves_no_model(tmp_path, full_disk):
    from agents.model_files import save_model

    with pytest.raises(OutputError, match=str(tmp_path / "model")):
        save_model(tmp_path / "model", {"w": [[0.0]]}, {"variant": "trade_barter"})
    assert not (tmp_path / "model" / "model.json").exists()


def test_saved_games_on_a_full_folder_leave_no_truncated_file_and_a_retry_works(tmp_path, monkeypatch, capsys):
    from training.cli import main

    path = tmp_path / "games.jsonl"
    arguments = ["arena", "--agents", "random,greedy", "--players", "3", "--games", "6", "--no-progress",
                 "--save-games", "3", str(path)]
    with monkeypatch.context() as patch:
        def no_space(fd):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        patch.setattr(files.os, "fsync", no_space)
        assert main(arguments) == 2
    assert str(tmp_path) in capsys.readouterr().err
    assert leftovers(tmp_path) == []  # nothing truncated, nothing temporary
    assert main(arguments) == 0  # so the same command, run again, is not refused
    assert len([json.loads(line) for line in path.read_text().splitlines()]) == 3


def _train(out) -> int:
    from training.cli import main

    return main(["train", "--config", str(CONFIGS / "demo.yaml"), "--output", str(out), "--steps", "64",
                 "--no-progress"])


def test_commerce_train_under_a_file_names_the_folder(tmp_path, capsys):
    # A folder that cannot be made (root or not): one line naming it, exit 2, nothing left behind.
    pytest.importorskip("sb3_contrib")
    (tmp_path / "a_file").write_text("mine")
    out = tmp_path / "a_file" / "run"
    assert _train(out) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and str(out) in error and "Traceback" not in error
    assert (tmp_path / "a_file").read_text() == "mine"


def test_commerce_train_on_a_read_only_file_system_names_the_folder(tmp_path, capsys, monkeypatch):
    # OSError: [Errno 30] Read-only file system, where the run takes its folder's lock: simulated, as
    # a real read-only mount needs privileges a test does not have (and chmod does not stop root).
    pytest.importorskip("sb3_contrib")
    out = tmp_path / "run"
    out.mkdir()
    real_open = os.open

    def read_only(path, flags, *args, **kwargs):
        if str(path).startswith(str(out)) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))
        return real_open(path, flags, *args, **kwargs)
    monkeypatch.setattr(os, "open", read_only)
    assert _train(out) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and str(out) in error and os.strerror(errno.EROFS) in error
    assert leftovers(out) == []


def test_commerce_train_in_a_folder_without_write_permission_names_it(tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    out = tmp_path / "run"
    out.mkdir()
    out.chmod(0o500)
    try:
        if os.access(out, os.W_OK):  # root writes anyway: the two tests above stand for this one
            pytest.skip("this user may write to a folder without write permission (root)")
        assert _train(out) == 2
        error = capsys.readouterr().err
        assert error.count("\n") == 1 and str(out) in error and "Traceback" not in error
    finally:
        out.chmod(0o700)
