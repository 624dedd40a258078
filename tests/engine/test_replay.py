"""Saved games (commerce_env.replay): record, JSON lines, rebuilt through the engine, checked;
the arena's --save-games and ``commerce replay``."""

from __future__ import annotations

import json
import pickle
import random

import pytest

from commerce_env.engine import new_game
from commerce_env.replay import load_replay, parse_replay_text, read_records, record_game, replay, write_records
from commerce_env.rules import VARIANTS, make_rules


def _random_match(variant: str, players: int = 4, seed: int = 0, **options):
    game = new_game(make_rules(variant, **options), players, rng=random.Random(seed))
    rng = random.Random(seed + 1)
    while not game.over:
        game.apply(rng.choice(game.legal_actions()))
    return game


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_recorded_match_replays_to_the_same_game(variant, tmp_path):
    game = _random_match(variant, seed=4)
    path = tmp_path / "games.jsonl"
    write_records(path, [record_game(game)])
    replayed = load_replay(path)
    rebuilt = replayed.game
    assert rebuilt.history == game.history  # every action with its actor
    assert rebuilt.packs_dealt == game.packs_dealt  # every deal's pack
    assert rebuilt.showdowns == game.showdowns  # every showdown
    assert rebuilt.returns() == game.returns()
    assert len(replayed.states) == len(game.history) + 1
    assert len(replayed.record["packs"]) == game.deals_dealt


def test_the_file_is_plain_json_lines(tmp_path):
    games = [_random_match("widow", 3, seed=s) for s in range(3)]
    path = tmp_path / "games.jsonl"
    write_records(path, [record_game(g, ["a", "b", "c"]) for g in games])
    lines = path.read_text().splitlines()
    assert len(lines) == 3
    records = [json.loads(line) for line in lines]
    assert records == read_records(path)
    assert records[0]["names"] == ["a", "b", "c"]
    assert all(isinstance(seat, int) and isinstance(text, str) for seat, text in records[1]["actions"])
    for record, game in zip(records, games, strict=True):
        assert [s["hands"] for s in record["showdowns"]] == [
            [" ".join(str(c) for c in hand) for hand in s.hands] for s in game.showdowns]


def test_a_file_is_never_overwritten(tmp_path):
    path = tmp_path / "games.jsonl"
    path.write_text("mine\n")
    with pytest.raises(FileExistsError):
        write_records(path, [record_game(_random_match("old_game"))])
    assert path.read_text() == "mine\n"


def _record(variant="trade_barter", **options):
    return json.loads(json.dumps(record_game(_random_match(variant, seed=2, **options))))


def _lines(*records) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


@pytest.mark.parametrize("spoil, message", [
    (lambda r: r.pop("packs"), "missing packs"),
    (lambda r: r.update(extra=1), "unknown keys extra"),
    (lambda r: r.update(version=99), "version 99"),
    (lambda r: r.update(variant="poker"), "unknown variant 'poker'"),
    (lambda r: r["options"].update(dealer_pays="nobody"), "dealer_pays"),
    (lambda r: r.update(names=["x"]), "names must be 4 strings"),
    (lambda r: r["actions"].__setitem__(0, [r["actions"][0][0], "exchange 2C AS"]), "action 0"),
    (lambda r: r["actions"].__setitem__(0, [(r["actions"][0][0] + 1) % 4, r["actions"][0][1]]), "is by seat"),
    (lambda r: r["actions"].__setitem__(0, "knock"), "expected [seat, text]"),
    (lambda r: r["actions"].pop(), "stop before the match is over"),
    (lambda r: r["actions"].append([0, "knock"]), "already over"),
    (lambda r: r["packs"].append(r["packs"][0]), "2 packs for 1 deal"),
    (lambda r: r["packs"].__setitem__(0, "AS AS"), "pack"),
    (lambda r: r["showdowns"][0].update(winners=[9]), "showdowns do not match"),
    (lambda r: r.update(returns=[9.0, 0.0, 0.0, 0.0]), "returns do not match"),
])
def test_a_bad_record_names_its_line_and_problem(spoil, message, tmp_path):
    good, bad = _record(), _record()
    spoil(bad)
    path = tmp_path / "games.jsonl"
    path.write_text(_lines(good, bad))
    with pytest.raises(ValueError, match="replay line 2") as error:
        read_records(path)
    assert message in str(error.value)
    load_replay(path, 1)  # the good line still loads


def test_a_line_that_is_not_json_or_not_an_object(tmp_path):
    path = tmp_path / "games.jsonl"
    path.write_bytes(pickle.dumps({"format": "commerce-replay"}))  # never unpickled
    with pytest.raises(ValueError, match="replay line 1: not JSON"):
        read_records(path)
    with pytest.raises(ValueError, match="replay line 1: a record is a JSON object, got list"):
        parse_replay_text("[1, 2]\n")


def test_too_few_packs_for_the_deals_played():
    record = _record("widow")
    assert len(record["packs"]) > 1
    record["packs"] = record["packs"][:1]
    with pytest.raises(ValueError, match="only 1 pack"):
        replay(record)


def test_asking_for_a_game_the_file_lacks(tmp_path):
    path = tmp_path / "games.jsonl"
    path.write_text(_lines(_record()))
    with pytest.raises(ValueError, match="game 2 asked for, but the file has 1 game"):
        load_replay(path, 2)
    with pytest.raises(ValueError, match="game must be a number from 1"):
        load_replay(path, 0)


def test_scenes_show_each_showdown_then_the_next_deal():
    replayed = replay(_record("widow"))
    scenes = replayed.scenes()
    showdowns = [s for s in scenes if s.showdown]
    assert len(showdowns) == len(replayed.record["showdowns"])
    assert len(scenes) == len(replayed.states) + len(showdowns) - 1  # the last showdown ends the match
    assert scenes[-1].over and scenes[-1].match_result.startswith("Match over")


def test_replay_to_gif(tmp_path):
    pytest.importorskip("PIL")
    from PIL import Image

    from commerce_env.frames import save_animation

    replayed = replay(_record("old_game"))
    out = tmp_path / "game.gif"
    save_animation(replayed.scenes(), str(out))
    with Image.open(out) as gif:
        assert gif.n_frames == len(replayed.scenes())
    with pytest.raises(FileExistsError):
        save_animation(replayed.scenes(), str(out))


def test_arena_saved_games_are_the_arena_games(tmp_path):
    # The saved games are the arena's own: their returns add up to the arena's totals.
    from agents.arena import run_arena
    from agents.saved_games import arena_games

    lineup, kwargs = ["greedy", "random"], {"variant": "widow", "num_players": 3, "seed": 5}
    result = run_arena(lineup, deals=6, progress=False, **kwargs)
    records = arena_games(lineup, result["games"], **kwargs)
    assert len(records) == result["games"]
    for name in lineup:
        total = sum(r for record in records for seat, r in enumerate(record["returns"])
                    if record["names"][seat] == name)
        agent = result["agents"][name]
        assert total == pytest.approx(agent["mean_per_game"] * agent["games"])
    for record in records:
        replay(record)


def test_commerce_arena_save_games_and_commerce_replay(tmp_path, capsys):
    pytest.importorskip("PIL")
    from training.cli import main

    path = tmp_path / "games.jsonl"
    args = ["arena", "--agents", "greedy,random", "--variant", "old_game", "--players", "3", "--games", "3",
            "--no-progress", "--save-games", "2", str(path)]
    assert main(args) == 0
    assert len(read_records(path)) == 2
    assert main(args) == 2  # the file exists: refused before the arena runs
    assert "exists" in capsys.readouterr().err
    assert main(["arena", "--save-games", "none", str(tmp_path / "x.jsonl")]) == 2
    assert "N must be a whole number" in capsys.readouterr().err
    gif = tmp_path / "game.gif"
    assert main(["replay", str(path), "--game", "2", "--out", str(gif)]) == 0
    assert gif.stat().st_size > 0
    assert main(["replay", str(path), "--game", "3", "--out", str(tmp_path / "y.gif")]) == 2
    assert "has 2 game(s)" in capsys.readouterr().err
    assert main(["replay", str(path), "--seat", "7", "--out", str(tmp_path / "z.gif")]) == 2
    capsys.readouterr()
    for name in ("game.png", "game", "game.gif.txt"):  # a picture's kind follows its name: GIF data is no PNG
        assert main(["replay", str(path), "--out", str(tmp_path / name)]) == 2
        assert name in capsys.readouterr().err and not (tmp_path / name).exists()


def test_a_sampled_world_keeps_no_record_of_the_true_pack():
    # R11: the packs kept for replays hold hidden cards; a determinized world records its own deal instead.
    from commerce_env.view import seat_view

    game = new_game(make_rules("trade_barter"), 4, rng=random.Random(3))
    game.apply(game.legal_actions()[-1])
    world = seat_view(game, 1).sample_world(random.Random(0))
    assert world.packs_dealt[-1] == world.deal_pack != game.deal_pack
    assert len(world.packs_dealt) == len(game.packs_dealt)


def test_replay_to_mp4_or_a_clear_error(tmp_path, monkeypatch):
    pytest.importorskip("PIL")
    import importlib.util
    import sys

    from commerce_env.frames import save_animation

    scenes = replay(_record("old_game")).scenes()
    if importlib.util.find_spec("imageio_ffmpeg") is not None:  # extra video
        save_animation(scenes, str(tmp_path / "game.mp4"))
        assert (tmp_path / "game.mp4").stat().st_size > 0
    monkeypatch.setitem(sys.modules, "imageio.v2", None)  # as if imageio were not installed
    monkeypatch.setitem(sys.modules, "imageio", None)
    with pytest.raises(ValueError, match="writing MP4 needs imageio and imageio-ffmpeg"):
        save_animation(scenes, str(tmp_path / "other.mp4"))
    assert not (tmp_path / "other.mp4").exists()


def _seat_one_record():
    """A finished two-player match dealt first by seat 1, which seat 1 wins at least one deal of."""
    for seed in range(100):
        game = new_game(make_rules("old_game"), 2, dealer=1, rng=random.Random(seed))
        rng = random.Random(seed)
        while not game.over:
            game.apply(rng.choice(game.legal_actions()))
        record = record_game(game)
        if any(s["winners"] == [1] for s in record["showdowns"]):
            return record
    raise AssertionError("no such match")


def _set_true(record, field):
    if field == "seat":
        next(a for a in record["actions"] if a[0] == 1)[0] = True
    elif field == "winners":
        next(s for s in record["showdowns"] if s["winners"] == [1])["winners"] = [True]
    else:
        assert record[field] == 1
        record[field] = True


@pytest.mark.parametrize("field", ["seat", "dealer", "version", "winners"])
def test_a_boolean_is_not_a_number_in_a_replay(field):
    # JSON true is no seat: Python reads it as 1 unless the replay asks for a real whole number.
    record = _seat_one_record()
    replay(record)
    _set_true(record, field)
    with pytest.raises(ValueError, match=field):
        replay(record)


def test_a_deeply_nested_line_is_a_clear_error():
    with pytest.raises(ValueError, match="replay line 1"):
        parse_replay_text("[" * 100_000 + "]" * 100_000 + "\n")


def test_saved_games_and_their_pictures_go_into_a_folder_not_there_yet(tmp_path, monkeypatch, capsys):
    # a fresh clone has no runs/: the commands of docs/pictures.md make it rather than fail
    pytest.importorskip("PIL")
    from training.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["arena", "--agents", "greedy,random", "--variant", "widow", "--games", "6", "--no-progress",
                 "--save-games", "1", "runs/games.jsonl"]) == 0
    suggested = capsys.readouterr().out.splitlines()[-1].split("--out ")[1]
    assert suggested.startswith("runs/")  # beside the replays, not the current folder
    assert main(["replay", "runs/games.jsonl", "--out", "runs/pictures/game.gif"]) == 0
    assert (tmp_path / "runs" / "pictures" / "game.gif").stat().st_size > 0
    game = new_game(make_rules("widow"), 4, rng=random.Random(0))
    write_records(tmp_path / "more" / "mine.jsonl", [record_game(game)])
    assert len(read_records(tmp_path / "more" / "mine.jsonl")) == 1
