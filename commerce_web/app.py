"""``commerce serve``: the Flask app (plain HTML, JS and CSS in ``static/``; no build step).

JSON API (every error is ``{"error": "..."}`` with a 4xx or 5xx status):

* ``GET /api/variants``: variants, their options with R12 defaults, built-in agents, and the models
  of the server's models folder (``{"name": "model:widow", "variant", "num_players"}``: the page lists
  only those that fit the chosen variant and player count);
* ``POST /api/matches`` ``{"variant", "players", "seat", "opponents": [...], "options": {...}, "seed"}``:
  a new match; returns ``{"id", "state"}``.  Opponents come from an allow-list
  (:mod:`commerce_web.opponents`): built-in agents with bounded arguments, models by name;
* ``GET /api/matches/<id>``: the match's state, from the human seat's point of view only (R11);
* ``POST /api/matches/<id>/actions`` ``{"action": "offer 10H"}``: the human's action; the agents then
  play until the human's next turn; returns the state;
* ``POST /api/replays`` ``{"text": <a replay file's text>, "game": 1}``: a saved game's scenes to step through.

The agents move on worker threads (:class:`commerce_web.store.AgentTurns`): a request waits for them
at most ``turn_seconds``, then answers with ``"thinking": true``; the page asks again until the
human's turn.  Matches are kept in memory under unguessable ids (``secrets.token_urlsafe``), per
client (:class:`commerce_web.store.MatchStore`): a browser reaches only the match whose id it was
given, and no client can push out another's.  Requests whose ``Host`` (or ``Origin``) is not the
server's address or localhost are refused, so a web page cannot reach the server through DNS
rebinding.  No answer holds exception text or a server path: the server's log does.
"""

from __future__ import annotations

import ipaddress
import json
import re
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from flask import Flask, jsonify, request, send_from_directory
from werkzeug.exceptions import HTTPException

from commerce_env.checks import is_whole
from commerce_env.replay import parse_replay_text
from commerce_env.rules import DEFAULT_PLAYERS, DEFAULT_VARIANT

from .errors import BusyError, RequestError, quote, shorten
from .opponents import choose, find_models
from .session import AGENT_SECONDS, Match, variants_info
from .store import (
    FULL_WAIT_SECONDS,
    IDLE_SECONDS,
    MATCHES_PER_BLOCK,
    MATCHES_PER_CLIENT,
    MAX_MATCHES,
    TURN_SECONDS,
    AgentTurns,
    MatchStore,
    ServerFullError,
)

STATIC = Path(__file__).parent / "static"
MAX_UPLOAD = 8 * 1024 * 1024
MAX_REPLAY_ACTIONS = 10_000  # a replay's scenes are sent whole: about 1-3 KB a step
MAX_OPPONENTS = 12
LOCAL_NAMES = ("localhost", "127.0.0.1", "::1")
WILDCARDS = ("", "0.0.0.0", "::")
HOST_HEADER = re.compile(r"(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:[0-9]{1,5})?")


def host_allowed(header: str | None, bound: str | None, port: int | None) -> bool:
    """Whether a ``Host`` header (``name`` or ``name:port``) names this server: localhost, or the
    address it is bound to (any IP address when bound to all), with its port when ``port`` is known.
    A page that reaches the server through DNS rebinding sends its own domain name: refused."""
    header = (header or "").strip().lower()
    if not HOST_HEADER.fullmatch(header):
        return False
    parts = urlsplit("//" + header)
    try:
        name, given = parts.hostname or "", parts.port
    except ValueError:
        return False
    if port is not None and given != port and not (given is None and port == 80):
        return False
    bound = (bound or "").strip().lower().strip("[]")
    if name in LOCAL_NAMES or name == bound:
        return True
    if bound in WILDCARDS:
        try:
            ipaddress.ip_address(name)
        except ValueError:
            return False
        return True
    return False


def origin_host(origin: str) -> str | None:
    """An ``Origin`` header (``http://127.0.0.1:8765``) as a Host header (``127.0.0.1:8765``), or None."""
    parts = urlsplit(origin)
    try:
        name, port = parts.hostname, parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not name:
        return None
    return f"[{name}]:{port}" if ":" in name else f"{name}:{port}"


def create_app(models_root: Path | None = None, *, host: str | None = None, port: int | None = None,
               matches_per_client: int = MATCHES_PER_CLIENT, max_matches: int = MAX_MATCHES,
               idle_seconds: float = IDLE_SECONDS, clock: Callable[[], float] = time.monotonic,
               turn_seconds: float = TURN_SECONDS, agents: Mapping[str, Callable[[], Any]] | None = None,
               matches_per_block: int = MATCHES_PER_BLOCK, full_wait: float = FULL_WAIT_SECONDS,
               agent_seconds: float = AGENT_SECONDS) -> Flask:
    """The app; ``models_root``: the models folder (default ``models``); ``host``/``port``: the
    address the server listens on (for the Host check; ``port`` None accepts any port); ``agents``:
    more opponents by name, as ``commerce serve --agents`` gives them
    (:func:`commerce_web.opponents.command_line_agents`); the limits are
    :class:`commerce_web.store.MatchStore`'s, :class:`commerce_web.store.AgentTurns`' and
    :class:`commerce_web.session.Match`'s (``agent_seconds``; ``clock`` times the agents too)."""
    models_root = Path("models") if models_root is None else Path(models_root)
    extra = dict(agents or {})
    app = Flask(__name__, static_folder=None)
    app.config["MAX_CONTENT_LENGTH"] = MAX_UPLOAD
    app.json.sort_keys = False
    store = MatchStore(matches_per_client, max_matches, idle_seconds, clock, matches_per_block, full_wait)
    turns = AgentTurns(wait_seconds=turn_seconds)
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
            raise UnknownMatchError(f"no match {quote(key)}: it ended long ago or never was; start a new one") from None

    @app.before_request
    def check_host():
        header = request.headers.get("Host")
        origin = request.headers.get("Origin")
        if not host_allowed(header, host, port):
            where = f"http://{host or '127.0.0.1'}:{port}/" if port else "the address the server prints"
            return refused(f"Host header {quote(header)} is not this server's address; open {where}")
        if origin is not None and not host_allowed(origin_host(origin), host, port):
            return refused(f"Origin {quote(origin)} is not this server's page")
        return None

    def refused(message: str):
        return app.response_class(f"403 Forbidden: {shorten(message)}\n", status=403, mimetype="text/plain")

    @app.after_request
    def headers(response):
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["X-Frame-Options"] = "DENY"
        return response

    @app.get("/")
    def index():
        return send_from_directory(STATIC, "index.html")

    @app.get("/static/<path:name>")
    def static_file(name: str):
        return send_from_directory(STATIC, name)

    @app.get("/api/variants")
    def variants():
        models = [{"name": name, "variant": m["variant"], "num_players": m["players"]}
                  for name, m in find_models(models_root).items()]
        info = variants_info()
        return jsonify({**info, "agents": [*info["agents"], *extra], "models": models})

    @app.post("/api/matches")
    def new_match():
        data = body()
        unknown = sorted(set(data) - {"variant", "players", "seat", "opponents", "options", "seed"})
        if unknown:
            named = ", ".join(quote(name) for name in unknown[:3]) + (" and more" if len(unknown) > 3 else "")
            raise RequestError(f"unknown field {named}; send variant, players, seat, opponents, options and seed")
        players, seat, seed = data.get("players", DEFAULT_PLAYERS), data.get("seat", 0), data.get("seed")
        for name, value in (("players", players), ("seat", seat)):
            if not is_whole(value):
                raise RequestError(f"{name} must be a whole number, got {quote(value)}")
        if seed is not None and not is_whole(seed):
            raise RequestError(f"seed must be a whole number or null, got {quote(seed)}")
        specs = data.get("opponents", ["greedy"])
        if not isinstance(specs, list) or not 1 <= len(specs) <= MAX_OPPONENTS:
            raise RequestError(f"opponents must be a non-empty list of at most {MAX_OPPONENTS} agent names "
                               f"or model:<name>, got {quote(specs)}")
        models = find_models(models_root)
        opponents = [choose(spec, models, extra) for spec in specs]
        match = Match(data.get("variant", DEFAULT_VARIANT), players, seat, opponents, data.get("options", {}), seed,
                      agent_seconds=agent_seconds, clock=clock)
        key = store.add(request.remote_addr or "unknown", match)
        turns.play(match)
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
        turns.play(match)
        with match.lock:
            return jsonify(match.state())

    @app.post("/api/replays")
    def replays():
        data = body()
        text, game = data.get("text"), data.get("game", 1)
        if not isinstance(text, str) or not text.strip():
            raise RequestError("send the replay file's text as \"text\"")
        if not is_whole(game):
            raise RequestError(f"game must be a whole number from 1, got {quote(game)}")
        try:
            replayed = parse_replay_text(text, game, max_actions=MAX_REPLAY_ACTIONS)
        except ValueError as error:
            raise RequestError(str(error)) from None
        games = sum(1 for line in text.splitlines() if line.strip())
        # A finished game: everything is shown.  Each scene is written out as it is built (one game
        # stepped forward), so the work and memory follow the number of actions.
        scenes = ",".join(json.dumps(s.to_dict(), separators=(",", ":")) for s in replayed.iter_scenes(None))
        head = json.dumps({"game": game, "games": games, "names": replayed.names})[:-1]
        lines = json.dumps(replayed.lines())
        return app.response_class(f'{head}, "scenes": [{scenes}], "lines": {lines}}}', mimetype="application/json")

    def answer(message: str, status: int, headers: dict[str, str] | None = None):
        """An error answer: ``message`` cut to a few quoted characters of any input (commerce_web.errors)."""
        return jsonify({"error": shorten(message)}), status, headers or {}

    @app.errorhandler(RequestError)
    def bad_request(error: RequestError):
        return answer(str(error), 409 if isinstance(error, BusyError) else 400)

    @app.errorhandler(UnknownMatchError)
    def not_found(error: UnknownMatchError):
        return answer(str(error), 404)

    @app.errorhandler(ServerFullError)
    def full(error: ServerFullError):
        return answer(str(error), 503, {"Retry-After": str(error.retry_after)})

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException):
        return answer(f"{error.code} {error.name}: {error.description}", error.code)

    @app.errorhandler(Exception)
    def server_error(error: Exception):  # still JSON, so the page can show it; the details go to the log only
        app.logger.exception("unexpected error")
        return jsonify({"error": "server error: something went wrong on the server (its log says what)"}), 500

    return app


class UnknownMatchError(LookupError):
    """An unknown match id."""
