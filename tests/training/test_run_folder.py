"""Nothing a run does deletes or overwrites what it did not write; two runs on one folder are kept apart."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from commerce_env.files import atomic_write
from training.run_folder import LOCK, MANIFEST, RunFolder

ROOT = Path(__file__).resolve().parents[2]


def test_demo_refuses_a_folder_with_a_users_files_and_keeps_them(tmp_path, capsys):
    from training.cli import main

    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "config.yaml").write_text("my own config\n")
    (folder / "thesis.tex").write_text("years of work\n")
    for force in ([], ["--force"]):
        assert main(["demo", "--output", str(folder), "--minutes", "0.05", *force]) == 2
        error = capsys.readouterr().err
        assert "no commerce run wrote" in error and "thesis.tex" in error and "another output folder" in error
        assert (folder / "thesis.tex").read_text() == "years of work\n"
        assert (folder / "config.yaml").read_text() == "my own config\n"


def test_force_removes_only_the_files_the_manifest_lists(tmp_path):
    folder = tmp_path / "run"
    with RunFolder(folder).locked() as run:
        run.prepare_new_run()
        run.write("config.yaml", "a: 1\n")
        run.write("checkpoints/state.json", "{}")
    with RunFolder(folder).locked() as run:
        with pytest.raises(ValueError, match="--resume .*--force"):
            run.prepare_new_run()
        assert (folder / "config.yaml").exists()
        run.prepare_new_run(force=True)
        assert not (folder / "config.yaml").exists() and not (folder / "checkpoints").exists()
    (folder / "notes.txt").write_text("mine")
    with RunFolder(folder).locked() as run, pytest.raises(ValueError, match="notes.txt"):
        run.prepare_new_run(force=True)
    assert (folder / "notes.txt").read_text() == "mine"


def test_a_run_never_overwrites_a_file_it_did_not_write(tmp_path):
    with RunFolder(tmp_path).locked() as run:
        (tmp_path / "report.txt").write_text("mine")
        with pytest.raises(ValueError, match="not written by a commerce run"):
            run.write("report.txt", "ours")
    assert (tmp_path / "report.txt").read_text() == "mine"


def test_a_second_run_on_a_locked_folder_is_refused_naming_the_folder_and_the_pid(tmp_path):
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import sys, time
        from training.run_folder import RunFolder
        with RunFolder({str(tmp_path)!r}).locked():
            print("locked", flush=True)
            time.sleep(60)
        """)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(ValueError) as error:
            with RunFolder(tmp_path).locked():
                pass
        assert str(tmp_path) in str(error.value) and f"pid {holder.pid}" in str(error.value)
    finally:
        holder.kill()
        holder.wait()
    deadline = time.monotonic() + 10
    while True:  # the kernel drops a dead process's lock: no stale lock to clean by hand
        try:
            with RunFolder(tmp_path).locked():
                break
        except ValueError:
            assert time.monotonic() < deadline
            time.sleep(0.1)
    assert (tmp_path / LOCK).exists()


def test_atomic_writes_of_one_file_use_temporary_names_that_cannot_collide(tmp_path):
    target = tmp_path / "last.zip"

    def slow_writer(handle):  # another write of the same file starts while this one is half done
        handle.write(b"first half ")
        atomic_write(target, b"the other run")
        handle.write(b"second half")

    atomic_write(target, slow_writer)
    assert target.read_bytes() == b"first half second half"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["last.zip"]


def test_a_failed_atomic_write_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "state.json"
    target.write_text("old")

    def failing(handle):
        handle.write(b"half")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        atomic_write(target, failing)
    assert target.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["state.json"]


def test_save_model_refuses_a_folder_with_other_files(tmp_path):
    from agents.learned import save_model

    (tmp_path / "data.csv").write_text("1,2\n")
    with pytest.raises(ValueError, match="data.csv"):
        save_model(tmp_path, {}, {})
    (tmp_path / "data.csv").unlink()
    (tmp_path / "model.json").write_text('{"what": "my own json"}')
    with pytest.raises(ValueError, match="not a commerce-rl-policy model"):
        save_model(tmp_path, {}, {})
    assert (tmp_path / "model.json").read_text() == '{"what": "my own json"}'


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_written_files_get_the_umasks_usual_mode_not_mkstemps_private_one(tmp_path, umask):
    import os

    import numpy as np

    from agents.learned import save_model

    old = os.umask(umask)
    try:
        folder = save_model(tmp_path / "model", {"w": np.zeros(2)}, {"format": "x"}, use_safetensors=False)
        atomic_write(tmp_path / "report.txt", "text")
    finally:
        os.umask(old)
    for path in [*folder.iterdir(), tmp_path / "report.txt"]:
        assert path.stat().st_mode & 0o777 == 0o666 & ~umask, path


def test_a_relative_output_folder_records_its_files_once_and_force_removes_them(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # `commerce demo` writes to runs/demo, relative to where it runs
    with RunFolder("runs/demo").locked() as run:
        run.prepare_new_run()
        run.write("config.yaml", "a: 1\n")
        atomic_write(run.path / "checkpoints.zip", b"zip")
        run.record([run.path / "checkpoints.zip"])
        run.write("config.yaml", "a: 2\n")  # its own file: rewritten, not refused
    with RunFolder("runs/demo").locked() as run:
        assert run.foreign_files() == []
        run.prepare_new_run(force=True)
    assert sorted(p.name for p in (tmp_path / "runs" / "demo").iterdir()) == [".commerce-run.json", LOCK]
def test_a_relative_run_folder_records_and_rewrites_its_own_files(tmp_path, monkeypatch):
    """The shipped configs write to runs/<name>: a relative folder must recognise its files on the second write."""
    from training.run_folder import RunFolder

    monkeypatch.chdir(tmp_path)
    with RunFolder("runs/x").locked() as run:
        run.write("checkpoints/state.json", "one")
        run.write("checkpoints/state.json", "two")
        run.record([run.path / "checkpoints" / "state.json"])
        assert run.foreign_files() == []
    assert (tmp_path / "runs" / "x" / "checkpoints" / "state.json").read_text() == "two"


@pytest.mark.parametrize("entry", ["../victim.txt", "ABSOLUTE", "sub/../../victim.txt", "link/victim.txt"])
def test_force_never_deletes_outside_the_run_folder_whatever_the_manifest_says(tmp_path, entry):
    victim = tmp_path / "victim.txt"
    victim.write_text("not the run's")
    folder = tmp_path / "run"
    with RunFolder(folder).locked() as run:
        run.prepare_new_run()
        run.write("config.yaml", "a: 1\n")
    (folder / "link").symlink_to(tmp_path)  # a folder inside that resolves outside
    entry = str(victim) if entry == "ABSOLUTE" else entry
    (folder / MANIFEST).write_text(json.dumps({"files": ["config.yaml", entry]}))
    with pytest.raises(ValueError, match="not a file inside") as error, RunFolder(folder).locked() as run:
        run.prepare_new_run(force=True)
    assert repr(entry) in str(error.value)
    assert victim.read_text() == "not the run's"
    assert (folder / "config.yaml").exists()  # nothing at all was removed


def test_train_force_with_a_forged_manifest_stops_with_a_message(tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    from training.cli import main

    victim = tmp_path / "victim.txt"
    victim.write_text("not the run's")
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / MANIFEST).write_text(json.dumps({"files": ["../victim.txt", str(victim)]}))
    assert main(["demo", "--output", str(folder), "--minutes", "0.05", "--force"]) == 2
    assert "victim.txt" in capsys.readouterr().err
    assert victim.read_text() == "not the run's"


def test_a_refused_run_leaves_no_lock_and_no_folder_behind(tmp_path):
    new = tmp_path / "new"
    with pytest.raises(ValueError, match="refused"), RunFolder(new).locked():
        raise ValueError("refused")
    assert not new.exists()
    existing = tmp_path / "existing"
    existing.mkdir()
    (existing / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match="notes.txt"), RunFolder(existing).locked() as run:
        run.prepare_new_run()
    assert sorted(p.name for p in existing.iterdir()) == ["notes.txt"]


def test_a_refused_demo_leaves_a_folder_that_export_can_use(tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    from agents.model_files import save_model
    from training.cli import main

    folder = tmp_path / "out"
    folder.mkdir()
    (folder / MANIFEST).write_text("not json")
    assert main(["demo", "--output", str(folder), "--minutes", "0.05"]) == 2
    (folder / MANIFEST).unlink()
    assert not (folder / LOCK).exists()
    save_model(folder, {"w": [[0.0]]}, {"variant": "trade_barter"})  # the folder is empty again: a model fits
