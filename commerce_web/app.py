"""``commerce serve``: the Flask app (plain HTML, JS and CSS in ``static/``; no build step).

JSON API (every error is ``{"error": "..."}`` with a 4xx status):

* ``GET /api/variants``: variants, their options with R12 defaults, built-in agents, model folders found;
* ``POST /api/matches`` ``{"variant", "players", "seat", "opponents": [...], "options": {...}, "seed"}``:
  a new match; returns ``{"id", "state"}``;
* ``GET /api/matches/<id>``: the match's state, from the human seat's point of view only (R11);
* ``POST /api/matches/<id>/actions`` ``{"action": "offer 10H"}``: the human's action; the agents then
  play until the human's next turn; returns the state;
* ``POST /api/replays`` ``{"text": <a replay file's text>, "game": 1}``: a saved game's scenes to step through.

Matches are kept in memory under unguessable ids (``secrets.token_urlsafe``): a
browser can reach only the match whose id it was given.
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

from flask import Flask, jsonify, request, send_from_directory
from werkzeug.exceptions import HTTPException

from commerce_env.replay import parse_replay_text

from .session import Match, RequestError, variants_info

STATIC = Path(__file__).parent / "static"
MAX_MATCHES = 256  # the oldest match is dropped beyond this
MAX_UPLOAD = 8 * 1024 * 1024


class MatchStore:
    """Matches by id, the least recently used dropped first."""

    def __init__(self, limit: int = MAX_MATCHES):
        self.limit = limit
        self.matches: OrderedDict[str, Match] = OrderedDict()
        self.lock = threading.Lock()

    def add(self, match: Match) -> str:
        key = secrets.token_urlsafe(18)
        with self.lock:
            self.matches[key] = match
            while len(self.matches) > self.limit:
                self.matches.popitem(last=False)
        return key

    def get(self, key: str) -> Match:
        with self.lock:
            match = self.matches.get(key)
            if match is None:
                raise LookupError(key)
            self.matches.move_to_end(key)
            return match


def model_folders(root: Path | None = None) -> list[str]:
    """``model:`` specs of the model folders under ``./models`` (each holding a ``model.json``)."""
    root = Path("models") if root is None else root
    if not root.is_dir():
        return []
    return sorted(f"model:{p.parent.as_posix()}" for p in root.glob("*/model.json"))


def create_app(max_matches: int = MAX_MATCHES, models_root: Path | None = None) -> Flask:
    app = Flask(__name__, static_folder=None)
    app.config["MAX_CONTENT_LENGTH"] = MAX_UPLOAD
    app.json.sort_keys = False
    store = MatchStore(max_matches)
    app.extensions["commerce_matches"] = store  # for tests

    def body() -> dict[str, Any]:
        data = request.get_json(silent=True)
        if not isinstance(data, dict):
            raise RequestError("send a JSON object (Content-Type: application/json)")
        return data

    def find(key: str) -> Match:
        try:
            return store.get(key)
        except LookupError:
            raise UnknownMatchError(f"no match {key!r}: it ended long ago or never was; start a new one") from None

    @app.get("/")
    def index():
        return send_from_directory(STATIC, "index.html")

    @app.get("/static/<path:name>")
    def static_file(name: str):
        return send_from_directory(STATIC, name)

    @app.get("/api/variants")
    def variants():
        return jsonify({**variants_info(), "models": model_folders(models_root)})

    @app.post("/api/matches")
    def new_match():
        data = body()
        unknown = sorted(set(data) - {"variant", "players", "seat", "opponents", "options", "seed"})
        if unknown:
            raise RequestError(f"unknown fields {', '.join(unknown)}")
        players, seat, seed = data.get("players", 4), data.get("seat", 0), data.get("seed")
        for name, value in (("players", players), ("seat", seat)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise RequestError(f"{name} must be a whole number, got {value!r}")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise RequestError(f"seed must be a whole number or null, got {seed!r}")
        match = Match(data.get("variant", "trade_barter"), players, seat, data.get("opponents", ["greedy"]),
                      data.get("options", {}), seed)
        key = store.add(match)
        with match.lock:
            return jsonify({"id": key, "state": match.state()})

    @app.get("/api/matches/<key>")
    def get_match(key: str):
        match = find(key)
        with match.lock:
            return jsonify(match.state())

    @app.post("/api/matches/<key>/actions")
    def act(key: str):
        match = find(key)
        data = body()
        if set(data) != {"action"}:
            raise RequestError('send {"action": "<action text>"}, e.g. {"action": "knock"}')
        with match.lock:
            match.act(data["action"])
            return jsonify(match.state())

    @app.post("/api/replays")
    def replays():
        data = body()
        text, game = data.get("text"), data.get("game", 1)
        if not isinstance(text, str) or not text.strip():
            raise RequestError("send the replay file's text as \"text\"")
        if isinstance(game, bool) or not isinstance(game, int):
            raise RequestError(f"game must be a whole number from 1, got {game!r}")
        try:
            replayed = parse_replay_text(text, game)
        except ValueError as error:
            raise RequestError(str(error)) from None
        scenes = replayed.scenes(None)  # a finished game: everything is shown
        games = sum(1 for line in text.splitlines() if line.strip())
        return jsonify({"game": game, "games": games, "names": replayed.names,
                        "scenes": [s.to_dict() for s in scenes], "lines": replayed.lines()})

    @app.errorhandler(RequestError)
    def bad_request(error: RequestError):
        return jsonify({"error": str(error)}), 400

    @app.errorhandler(UnknownMatchError)
    def not_found(error: UnknownMatchError):
        return jsonify({"error": str(error)}), 404

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException):
        return jsonify({"error": f"{error.code} {error.name}: {error.description}"}), error.code

    @app.errorhandler(Exception)
    def server_error(error: Exception):  # still JSON, so the page can show it
        app.logger.exception("unexpected error")
        return jsonify({"error": f"server error: {type(error).__name__}: {error}"}), 500

    return app


class UnknownMatchError(LookupError):
    """An unknown match id."""
