"""The ``commerce`` command's front door: errors list every subcommand, --version, random-deal, bench."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from commerce_env.rules import VARIANTS
from training.cli import COMMAND_HELP, main

ROOT = Path(__file__).resolve().parents[2]
ALL_COMMANDS = ["random-deal", *COMMAND_HELP]


@pytest.mark.parametrize("argv", [["foo"], []])
def test_an_unknown_or_missing_command_lists_every_subcommand(argv, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    error = capsys.readouterr().err
    assert exit_.value.code == 2
    for command in ALL_COMMANDS:
        assert command in error, (command, error)


def test_help_lists_every_subcommand(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert all(command in out for command in ALL_COMMANDS)


def test_a_bad_option_is_the_subcommands_error_with_its_usage(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["arena", "--bogus"])
    error = capsys.readouterr().err
    assert exit_.value.code == 2
    assert "commerce arena: error: unrecognized arguments: --bogus" in error and "--agents" in error


def test_version(capsys):
    from importlib.metadata import version

    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0 and capsys.readouterr().out.strip() == f"commerce {version('commerce-rl')}"


@pytest.mark.parametrize("argv, word", [
    (["--variant", "poker"], "poker"),
    (["--players", "20"], "num_players=20"),
    (["--players", "1"], "num_players=1"),
    (["--seed", "-1"], "--seed"),
    (["--seed", "many"], "--seed"),
    (["--players", "x"], "--players"),
])
def test_random_deal_bad_input_is_one_line_and_exit_2(argv, word):
    result = subprocess.run([sys.executable, "-m", "training.cli", "random-deal", *argv], capture_output=True,
                            text=True, cwd=ROOT, timeout=60)
    assert result.returncode == 2 and word in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("variant", VARIANTS)
def test_random_deal_plays_one_deal_as_its_help_says(variant, monkeypatch, capsys):
    import commerce_env

    made = []
    real_env = commerce_env.env
    monkeypatch.setattr(commerce_env, "env", lambda *a, **k: made.append(real_env(*a, **k)) or made[-1])
    assert main(["random-deal", "--variant", variant, "--players", "3", "--seed", "4"]) == 0
    game = made[0].unwrapped.game
    assert game.over and game.deals_played == 1  # R4.5: one deal, not a whole match
    assert "match over" in capsys.readouterr().out


def test_bench_without_the_bench_extra_says_which_extra_to_install():
    code = ("import sys; sys.modules['pygame'] = None\n"
            "from training.cli import main\nsys.exit(main(['bench', '--quick']))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 2, result.stderr[-2000:]
    assert 'pip install -e ".[bench]"' in result.stderr and "pygame" in result.stderr
    assert "Traceback" not in result.stderr


def test_arena_games_is_the_option_and_deals_its_hidden_older_name(capsys):
    from training.cli import build_parser

    parser = build_parser(["arena"])
    assert parser.parse_args(["arena", "--agents", "greedy,random"]).games == 1000
    assert parser.parse_args(["arena", "--agents", "greedy,random", "--deals", "12"]).games == 12
    with pytest.raises(SystemExit):
        parser.parse_args(["arena", "--help"])
    shown = capsys.readouterr().out
    assert "--games GAMES" in shown and "--deals" not in shown


def test_every_option_of_every_command_says_what_it_is():
    import argparse

    from training.cli import COMMAND_HELP, build_parser

    missing = []
    for commands in [COMMAND_HELP]:
        for command in commands:
            parser = build_parser([command])
            sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[command]
            for action in sub._actions:
                if isinstance(action, argparse._HelpAction) or action.help == argparse.SUPPRESS:
                    continue
                if not action.help or (action.dest == "variant" and set(action.choices or ()) != set(VARIANTS)):
                    missing.append((command, action.option_strings or action.dest))
    assert missing == []
