"""What a training run says: the compile line before the clock starts, the table per deal, the verdict."""

from __future__ import annotations

import io
import threading
from pathlib import Path

import pytest

from training.evaluation import summary_lines, verdict
from training.warm_up import counting, warm_up

ROOT = Path(__file__).resolve().parents[2]


def report(**rows: tuple[float, float, float]) -> dict:
    """An evaluation report whose learner - opponent margins are ``(diff, low, high)``."""
    return {"variant": "trade_barter", "num_players": 4, "deals": 1000,
            "opponents": {name: {"mean_reward": 0.1, "ci95": [0.0, 0.2], "diff": d, "diff_ci95": [lo, hi],
                                 "p_value": 0.01} for name, (d, lo, hi) in rows.items()}}


def test_the_verdict_says_ahead_behind_or_level_by_the_interval():
    line = verdict(report(random=(1.2, 1.1, 1.3), greedy=(0.12, 0.05, 0.19), expected_value=(-0.15, -0.22, -0.08),
                          search=(-0.01, -0.05, 0.03)))
    assert line.startswith("Verdict: the agent beats random by +1.200 per deal [+1.100, +1.300], p=0.01; ")
    assert "beats greedy by +0.120 per deal [+0.050, +0.190]" in line
    assert "loses to expected_value: -0.150 per deal [-0.220, -0.080]" in line
    assert "is level with search: -0.010 per deal [-0.050, +0.030]" in line
    assert line.count("\n") == 0  # one line


@pytest.mark.parametrize("low, high, word", [(0.001, 0.3, "beats"), (-0.3, -0.001, "loses to"),
                                             (-0.1, 0.1, "is level with"), (0.0, 0.2, "is level with")])
def test_a_margin_counts_as_ahead_or_behind_only_when_its_interval_leaves_zero(low, high, word):
    assert f"the agent {word} greedy" in verdict(report(greedy=((low + high) / 2, low, high)))


def test_the_final_table_says_per_deal():
    header = summary_lines(report(greedy=(0.1, 0.0, 0.2)))[:2]
    assert "per deal" in header[0] and header[1].count("per deal") == 2


class Terminal(io.StringIO):
    """An output stream that tells when the counting line has been written."""

    def __init__(self, tty: bool):
        super().__init__()
        self.tty, self.written = tty, threading.Event()

    def isatty(self) -> bool:
        return self.tty

    def write(self, text: str) -> int:
        self.written.set()
        return super().write(text)


@pytest.mark.parametrize("tty", [True, False])
def test_a_slow_compile_shows_a_line_with_the_seconds_then_how_long_it_took(tty):
    out = Terminal(tty)
    with counting("Compiling the batched engine:", out, delay=0.0):
        assert out.written.wait(60)  # the line is up while the work goes on
    text = out.getvalue()
    assert text.startswith("\rCompiling" if tty else "Compiling")
    assert text.rstrip("\n").split("\r" if tty else "\n")[-1].startswith("Compiling the batched engine: done in ")


def test_a_quick_load_says_nothing():
    out = Terminal(True)
    with counting("Loading the batched engine:", out, delay=3600.0):
        pass
    assert out.getvalue() == ""


def test_the_warm_up_plays_a_small_copy_of_the_env_and_closes_it():
    pytest.importorskip("numba")
    from agents.batched import batched_agent
    from training.vec_env import make_vec_env

    made = []

    def small():
        made.append(make_vec_env("trade_barter", 4, 2, opponents=["greedy"], resolver=batched_agent))
        return made[-1]

    warm_up(small, "Loading the batched engine:", Terminal(False))
    assert len(made) == 1 and made[0].env.closed


def test_the_notice_is_shown_until_the_step_kernel_is_cached(tmp_path):
    pytest.importorskip("numba")
    from commerce_env.vector import kernels
    from commerce_env.vector.compiled import KERNEL_FOLDER
    from training.vec_env import first_compile_notice

    assert Path(kernels.step_games._cache._cache_path).is_relative_to(KERNEL_FOLDER)  # where it looks by default
    assert "numba" in first_compile_notice(tmp_path)  # nothing cached there yet
    (tmp_path / "kernels.step_games-12.py311.nbi").write_bytes(b"")
    assert first_compile_notice(tmp_path) is None


@pytest.mark.parametrize("command", ["train", "demo"])
def test_train_and_demo_end_with_the_verdict(command, tmp_path, monkeypatch, capsys):
    import training.train
    from training.cli import main

    config = tmp_path / "config.yaml"
    config.write_text((ROOT / "configs" / "train" / "demo.yaml").read_text())
    said = verdict(report(greedy=(0.12, 0.05, 0.19)))
    monkeypatch.setattr(training.train, "train", lambda config, **_: {"verdict": said})
    assert main([command, "--config", str(config), "--output", str(tmp_path / "run")]) == 0
    assert capsys.readouterr().out.rstrip("\n").splitlines()[-1] == said
