"""The web server's trust boundary (commerce_web): every request is untrusted.

Opponents come from an allow-list only (built-in agents with bounded arguments, and the
models of the server's models folder by name), so no request can name a file of the
server; a foreign ``Host`` header is refused (DNS rebinding); no response carries
exception text or a server path.
"""

from __future__ import annotations

import base64
import json
import pickle
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("flask")
from commerce_web.app import create_app  # noqa: E402
from commerce_web.errors import QUOTE_LIMIT  # noqa: E402
from commerce_web.opponents import MAX_SEARCH_WORLDS, MAX_SPEC_LENGTH  # noqa: E402


class _CreateFile:
    """A pickle whose loading creates ``path``: what a crafted model file would run."""

    def __init__(self, path: Path):
        self.path = str(path)

    def __reduce__(self):
        return open, (self.path, "w")


def _crafted_sb3_zip(folder: Path, marker: Path) -> Path:
    """A zip laid out as stable-baselines3 saves a model, recording commerce rules (so that loading
    gets as far as unpickling) and whose pickled field would create ``marker``."""
    payload = base64.b64encode(pickle.dumps(_CreateFile(marker))).decode()
    data = {"commerce_rules": {"variant": "trade_barter", "rules": {}},
            "policy_class": {":type:": "<class 'type'>", ":serialized:": payload}}
    path = folder / "evil.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("data", json.dumps(data))
    return path


def _new(client, **fields):
    body = {"variant": "trade_barter", "players": 3, "seat": 0, "opponents": ["random"], "seed": 1, **fields}
    return client.post("/api/matches", json=body)


@pytest.fixture
def models(tmp_path, tiny_model):
    """A models folder holding one model, ``trade_barter3`` (3 players)."""
    root = tmp_path / "served_models"
    tiny_model("trade_barter", 3, root / "trade_barter3")
    return root


@pytest.fixture
def client(models):
    app = create_app(models_root=models)
    app.testing = True
    return app.test_client()


def test_a_crafted_model_file_named_by_a_request_runs_nothing(client, tmp_path):
    marker = tmp_path / "marker"
    path = _crafted_sb3_zip(tmp_path, marker)
    for spec in (f"model:{path}(trust_sb3_zip=true)", f"model:{path}", str(path),
                 f"model:{tmp_path}(trust_sb3_zip=true)", "model:trade_barter3(trust_sb3_zip=true)"):
        reply = _new(client, opponents=[spec])
        assert reply.status_code == 400, spec
        assert spec[:40] in reply.get_json()["error"]  # named (a long temporary path is quoted cut short)
        assert not marker.exists(), spec


def test_the_allow_list_stands_on_its_own(client, models, tmp_path, monkeypatch):
    # Even with a model loader that trusted every zip, no path a request names reaches it.
    import agents.learned as learned

    real, reached = learned.load_agent, []

    def trusting(path, **kwargs):
        reached.append(Path(path))
        return real(path, **{**kwargs, "trust_sb3_zip": True})

    monkeypatch.setattr(learned, "load_agent", trusting)
    marker = tmp_path / "marker"
    path = _crafted_sb3_zip(tmp_path, marker)
    for spec in (f"model:{path}", str(path), f"{path}.json", f"model:{tmp_path}"):
        reply = _new(client, opponents=[spec])
        assert reply.status_code == 400 and spec in reply.get_json()["error"]
    assert not marker.exists()
    assert _new(client, opponents=["model:trade_barter3"]).status_code == 200
    assert reached and all(p.resolve().is_relative_to(models.resolve()) for p in reached)


def test_a_model_is_chosen_by_its_name_in_the_models_folder(client):
    info = client.get("/api/variants").get_json()
    assert [m["name"] for m in info["models"]] == ["model:trade_barter3"]
    assert info["models"][0]["variant"] == "trade_barter" and info["models"][0]["num_players"] == 3
    reply = _new(client, opponents=["model:trade_barter3", "greedy"])
    assert reply.status_code == 200, reply.get_json()
    assert reply.get_json()["state"]["names"][1] == "model trade_barter3 (1)"
    wrong = _new(client, players=4, opponents=["model:trade_barter3"])
    assert wrong.status_code == 400 and "model:trade_barter3" in wrong.get_json()["error"]


@pytest.mark.parametrize("spec", [
    "random", "greedy", "expected_value", "search", "greedy(quantile=0.7, barter=true)",
    "expected_value(knock_threshold=0.5)", f"search(worlds={MAX_SEARCH_WORLDS})", "search(worlds=4, margin=2)",
    "search(ms=50, candidates=null, prior=false)",
])
def test_built_in_agents_with_bounded_arguments_are_allowed(client, spec):
    reply = _new(client, opponents=[spec])
    assert reply.status_code == 200, reply.get_json()


@pytest.mark.parametrize("spec", [
    "search(worlds=1000000000)", f"search(worlds={MAX_SEARCH_WORLDS + 1})", "search(worlds=0)",
    "search(worlds=true)", "search(worlds=2.5)", "search(ms=1e12)", "search(ms=1000000000)",
    "search(candidates=1000000)", "search(margin=.nan)", "search(seed=1)", "greedy(quantile=2)",
    "greedy(colour=1)", "random(x=1)", "greedy(barter=1)", "openspiel:mcts", "model:../served_models/trade_barter3",
    "model:/etc/passwd", "model:nosuchmodel", "grandmaster", "greedy((", "search(worlds=[1, 2])",
    "search(" + "worlds=1, " * 50 + "margin=1)",
])
def test_anything_else_is_refused_naming_the_spec(client, spec):
    reply = _new(client, opponents=[spec])
    assert reply.status_code == 400
    assert spec[:QUOTE_LIMIT // 2] in reply.get_json()["error"]  # a long one by its start


def test_the_search_cap_refuses_a_billion_worlds(client):
    # One request once pinned a server thread for ever with this opponent.
    reply = _new(client, opponents=["search(worlds=10**9)"])
    assert reply.status_code == 400 and "search(worlds=10**9)" in reply.get_json()["error"]
    reply = _new(client, opponents=[f"search(worlds={10**9})"])
    assert reply.status_code == 400 and "worlds" in reply.get_json()["error"]


def test_no_response_tells_whether_a_server_path_exists(client, tmp_path):
    secret = tmp_path / "secret.json"
    secret.write_text(json.dumps({"format": "launch-codes-1234", "variant": "x"}))
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "model.json").write_text(json.dumps({"format": "launch-codes-1234"}))
    answers = set()
    for path in (secret, folder, tmp_path / "missing.json", tmp_path / "missing", Path("/etc/passwd"),
                 Path("/no/such/file")):
        spec = f"model:{path}"
        reply = _new(client, opponents=[spec])
        body = reply.get_data(as_text=True)
        assert "launch-codes" not in body
        answers.add((reply.status_code, body.replace(json.dumps(spec)[1:-1], "<spec>")))
    assert len(answers) == 1, answers


def test_an_internal_error_is_a_generic_500(models, tmp_path, monkeypatch):
    import commerce_web.app as web

    def broken():
        raise RuntimeError(f"cannot read {tmp_path / 'private' / 'file.txt'}")

    monkeypatch.setattr(web, "variants_info", broken)
    client = create_app(models_root=models).test_client()
    reply = client.get("/api/variants")
    assert reply.status_code == 500
    body = reply.get_data(as_text=True)
    assert str(tmp_path) not in body and "private" not in body and "RuntimeError" not in body
    assert reply.get_json()["error"]


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8765", "127.0.0.1.evil.example:8765",
                                  "localhost:9999", "127.0.0.2:8765", ""])
def test_a_foreign_host_header_is_refused(models, host):
    # DNS rebinding: a page of evil.example whose name now points at 127.0.0.1 sends Host: evil.example.
    app = create_app(models_root=models, host="127.0.0.1", port=8765)
    client = app.test_client()
    for method, url, body in (("GET", "/", None), ("GET", "/api/variants", None),
                              ("POST", "/api/matches", {"opponents": ["random"]})):
        reply = client.open(url, method=method, json=body, headers={"Host": host})
        assert reply.status_code == 403, (host, url)
        assert "Host" in reply.get_data(as_text=True)


@pytest.mark.parametrize("host", ["127.0.0.1:8765", "localhost:8765", "LOCALHOST:8765", "[::1]:8765"])
def test_the_bound_address_and_localhost_are_served(models, host):
    client = create_app(models_root=models, host="127.0.0.1", port=8765).test_client()
    assert client.get("/api/variants", headers={"Host": host}).status_code == 200


def test_a_server_bound_to_a_name_serves_that_name(models):
    client = create_app(models_root=models, host="mybox.lan", port=80).test_client()
    assert client.get("/api/variants", headers={"Host": "mybox.lan"}).status_code == 200
    assert client.get("/api/variants", headers={"Host": "other.lan"}).status_code == 403


@pytest.mark.parametrize("origin, status", [("http://evil.example", 403), ("null", 403),
                                            ("http://127.0.0.1:9999", 403), ("http://127.0.0.1:8765", 200),
                                            ("http://localhost:8765", 200)])
def test_a_request_from_another_sites_page_is_refused(models, origin, status):
    client = create_app(models_root=models, host="127.0.0.1", port=8765).test_client()
    reply = client.post("/api/matches", json={"variant": "old_game", "players": 2, "opponents": ["random"]},
                        headers={"Host": "127.0.0.1:8765", "Origin": origin})
    assert reply.status_code == status


def _aliases(levels: int, width: int = 9) -> str:
    """A few bytes of YAML that stand for width**levels values (each level repeats the one before)."""
    items = [f"&l0 [{','.join(['1'] * width)}]"]
    items += [f"&l{k} [{','.join([f'*l{k - 1}'] * width)}]" for k in range(1, levels)]
    return f"[{','.join(items)}]"


@pytest.mark.parametrize("option", ["max_rounds", "deals", "combinations"])
def test_yaml_aliases_in_an_option_cannot_blow_up_an_answer(client, option):
    # Six levels once made a 5.8 MB error message from a 200-byte request; nine would not fit in memory.
    reply = _new(client, variant="pool", options={option: _aliases(6)})
    assert reply.status_code == 400 and option in reply.get_json()["error"]
    assert len(reply.get_data()) < 2000


def test_yaml_aliases_in_an_opponents_arguments_cannot_blow_up_an_answer(client):
    spec = f"search(worlds={_aliases(4, width=4)})"
    assert len(spec) <= MAX_SPEC_LENGTH
    reply = _new(client, opponents=[spec])
    assert reply.status_code == 400 and "worlds" in reply.get_json()["error"]
    assert len(reply.get_data()) < 2000
