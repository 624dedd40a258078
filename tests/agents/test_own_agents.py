"""A user's own agent, ``module:attribute``, plays wherever the command line names it (arena,
play, serve, isolated), as a class, an instance or a factory; text that is not typed by the user
(a config without ``--allow-module``, a web request, a plain string) never imports its module."""

from __future__ import annotations

import io
import json
import os
import pickle
import sys
import textwrap
import time
from pathlib import Path

import pytest
import yaml

from agents.module_agents import ModuleSpec, allow_modules, is_module_text
from agents.specs import check_spec, make_agent
from training.cli import main

AGENT_MODULE = textwrap.dedent('''
    """A user's agents: each act is noted as a file named after the process that played it."""
    import os
    from pathlib import Path

    from agents import Agent

    HERE = Path(__file__).resolve().parent
    (HERE / "imported").write_text("yes")


    class FirstLegal(Agent):
        name = "first_legal"

        def __init__(self, index=0):
            self.index = index

        def act(self, view):
            (HERE / f"acted.{os.getpid()}").touch()
            legal = view.legal_actions
            return legal[min(self.index, len(legal) - 1)]


    instance = FirstLegal(1)


    def factory(index=2):
        return FirstLegal(index)


    class NotAnAgent:
        pass
''')
FORMS = {"class": "FirstLegal", "instance": "instance", "factory": "factory"}


class Own:
    """The user's module in a folder of its own (the current folder, as a user runs `commerce`)."""

    def __init__(self, folder: Path, name: str):
        self.folder, self.name = folder, name

    def spec(self, attribute: str = "FirstLegal") -> str:
        return f"{self.name}:{attribute}"

    @property
    def imported(self) -> bool:
        return (self.folder / "imported").exists()

    def acting_processes(self) -> set[int]:
        return {int(p.name.split(".")[1]) for p in self.folder.glob("acted.*")}


@pytest.fixture
def own(tmp_path, monkeypatch, request):
    """The module ``own_<test>`` in ``tmp_path``, the current folder, which is not on the path (as for
    the console script); the path and the imported modules are restored afterwards."""
    name = "own_" + "".join(c if c.isalnum() else "_" for c in request.node.name)[:60]
    (tmp_path / f"{name}.py").write_text(AGENT_MODULE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path), os.getcwd())])
    yield Own(tmp_path, name)
    sys.modules.pop(name, None)


def arena(own: Own, *agents: str, extra: tuple[str, ...] = ()) -> dict:
    out = own.folder / "arena"
    code = main(["arena", "--agents", ",".join(agents), "--games", "12", "--no-progress", "--out", str(out),
                 "--force", *extra])
    assert code == 0
    return json.loads((out / "result.json").read_text())


@pytest.mark.parametrize("form", FORMS)
def test_the_arena_plays_a_module_agent_in_each_form(own, form, capsys):
    result = arena(own, own.spec(FORMS[form]), "greedy")
    assert result["lineup"] == [own.spec(FORMS[form]), "greedy"]
    assert own.acting_processes() == {os.getpid()}


def test_the_arena_gives_a_module_agent_its_arguments(own, capsys):
    spec = f"{own.spec('factory')}(index=0)"
    result = arena(own, spec, own.spec("FirstLegal"), "greedy")
    assert result["lineup"][0] == spec
    first, zeroth = (result["agents"][name]["mean"] for name in result["lineup"][:2])
    assert first == zeroth  # index 0 both: the same play, the same reward


def test_the_isolated_arena_plays_a_module_agent_in_another_process(own, capsys):
    arena(own, own.spec(), "greedy", extra=("--isolate",))
    assert own.acting_processes() and os.getpid() not in own.acting_processes()


def test_play_seats_a_module_agent(own, monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("9\nknock\nknock\n"))  # a trade for ready money, then knocks
    assert main(["play", "--opponents", own.spec("factory"), "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert own.spec("factory") in out  # the seat is named by its agent
    assert own.acting_processes() == {os.getpid()}


def test_serve_offers_the_agents_its_command_line_adds(own, monkeypatch, capsys):
    pytest.importorskip("flask")
    from flask import Flask

    served = []
    monkeypatch.setattr(Flask, "run", lambda app, **kwargs: served.append(app))
    assert main(["serve", "--agents", f"{own.spec()},{own.spec('instance')}", "--models", str(own.folder)]) == 0
    client = served[0].test_client()
    address = {"base_url": "http://127.0.0.1:8765"}  # the address the server checks requests for
    assert {own.spec(), own.spec("instance")} <= set(client.get("/api/variants", **address).get_json()["agents"])
    reply = client.post("/api/matches", json={"variant": "trade_barter", "players": 3, "seat": 0, "seed": 1,
                                              "opponents": [own.spec(), own.spec("instance")]}, **address)
    assert reply.status_code == 200, reply.get_json()
    key, state = reply.get_json()["id"], reply.get_json()["state"]
    move = next(m["text"] for m in state["legal"] if m["text"] != "knock")  # the others then move
    state = client.post(f"/api/matches/{key}/actions", json={"action": move}, **address).get_json()
    while state.get("thinking"):  # the agents move on the server's threads
        time.sleep(0.05)
        state = client.get(f"/api/matches/{key}", **address).get_json()
    assert own.acting_processes() == {os.getpid()}, state
    refused = client.post("/api/matches", json={"opponents": [own.spec("factory")]}, **address)
    assert refused.status_code == 400  # not one the command line added


def test_serve_refuses_a_bad_module_agent_before_it_starts(own, monkeypatch, capsys):
    pytest.importorskip("flask")
    from flask import Flask

    monkeypatch.setattr(Flask, "run", lambda app, **kwargs: pytest.fail("served"))
    assert main(["serve", "--agents", own.spec("NotAnAgent")]) == 2
    assert "--agents" in capsys.readouterr().err


def test_a_web_request_never_imports_a_module(own):
    pytest.importorskip("flask")
    from commerce_web.app import create_app

    client = create_app(own.folder).test_client()
    reply = client.post("/api/matches", json={"variant": "trade_barter", "players": 3, "opponents": [own.spec()]})
    assert reply.status_code == 400 and own.spec() in reply.get_json()["error"]
    assert not own.imported and own.name not in sys.modules


def config_file(own: Own, **sections) -> Path:
    data = {"name": "own", "output": str(own.folder / "run"), "env": {"num_players": 3},
            "training": {"total_timesteps": 1024, "n_envs": 2}, "ppo": {"n_steps": 64, "batch_size": 64},
            **sections}
    path = own.folder / "config.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.mark.parametrize("sections", [
    {"opponents": {"pool": ["greedy", "SPEC"]}},
    {"opponents": {"pool": [{"agent": "SPEC", "index": 1}]}},
    {"evaluation": {"baselines": ["SPEC"]}},
    {"pretrain": {"teacher": "SPEC"}},
])
def test_a_config_names_a_module_agent_only_when_the_command_line_allows_it(own, sections, capsys):
    pytest.importorskip("sb3_contrib")
    from training.config import load_config

    sections = json.loads(json.dumps(sections).replace("SPEC", own.spec()))
    path = config_file(own, **sections)
    assert main(["train", "--config", str(path)]) == 2
    assert "--allow-module" in capsys.readouterr().err
    for allowed in ([], ["other_module", own.name + "_not"]):
        with pytest.raises(ValueError, match="--allow-module"):
            load_config(path, allow_modules=allowed)
    assert not own.imported
    sys.path.append(str(own.folder))  # as commerce train --allow-module makes the current folder importable
    config = load_config(path, allow_modules=[own.name])
    named = [*config.opponents.pool, *config.evaluation.baselines, config.pretrain.teacher]
    assert any(isinstance(n.get("agent") if isinstance(n, dict) else n, ModuleSpec) for n in named)
    assert own.imported


def test_a_batched_run_says_a_module_agent_needs_the_readable_engine(own):
    pytest.importorskip("sb3_contrib")
    pytest.importorskip("numba")
    from training.config import load_config

    path = config_file(own, opponents={"pool": [own.spec()]}, training={"total_timesteps": 1024, "n_envs": 2,
                                                                         "vec_env": "batch"})
    sys.path.append(str(own.folder))
    with pytest.raises(ValueError, match="no batched form.*vec_env: dummy"):
        load_config(path, allow_modules=[own.name])


def test_a_plain_string_never_imports_a_module(own):
    for spec in (own.spec(), {"agent": own.spec()}, f"{own.spec()}(index=1)"):
        for check in (make_agent, check_spec):
            with pytest.raises(ValueError, match="--allow-module"):
                check(spec)
    assert not own.imported


def test_only_the_calling_code_can_allow_a_module(own):
    """``allow_modules`` is a keyword of make_agent's caller: a spec that carries it is refused."""
    for spec in ({"agent": own.spec(), "allow_modules": [own.name]}, f"{own.spec()}(allow_modules=[{own.name}])"):
        for check in (make_agent, check_spec):
            with pytest.raises(ValueError, match="'allow_modules' cannot be given in a spec"):
                check(spec)
    with pytest.raises(ValueError, match=f"--allow-module {own.name}"):
        make_agent(own.spec(), allow_modules=["other"])
    assert not own.imported
    sys.path.append(str(own.folder))
    assert make_agent(own.spec("factory"), allow_modules=[own.name]).index == 2


def test_the_permission_survives_pickling_and_a_config_writes_it_as_text():
    spec = allow_modules("my_agents:MyAgent", ["my_agents"])
    assert type(pickle.loads(pickle.dumps(spec))) is ModuleSpec
    assert yaml.safe_load(yaml.safe_dump({"pool": [spec]})) == {"pool": ["my_agents:MyAgent"]}
    assert allow_modules("my_agents.sub:MyAgent", ["my_agents"]) == "my_agents.sub:MyAgent"
    with pytest.raises(ValueError, match="--allow-module my_agents_2"):
        allow_modules("my_agents_2:MyAgent", ["my_agents"])


@pytest.mark.parametrize("text, module_form", [
    ("my_agents:MyAgent", True), ("pkg.sub:factory", True), ("my_agents:Outer.Inner", True),
    ("model:models/widow", False), ("openspiel:mcts", False), ("greedy", False), ("C:\\models\\x", False),
    ("a:b:c", False), ("my agents:X", False), (":X", False),
])
def test_other_spec_forms_keep_their_meaning(text, module_form):
    assert is_module_text(text) is module_form
    assert (allow_modules(text, None) is not text) is module_form  # made a ModuleSpec, or left as it is


@pytest.mark.parametrize("attribute, arguments, said", [
    ("Missing", {}, "has no attribute 'Missing'"),
    ("NotAnAgent", {}, "not an agents.Agent"),
    ("instance", {"index": 2}, "takes no arguments"),
    ("FirstLegal", {"depth": 2}, "bad arguments"),
])
def test_a_module_agent_that_cannot_play_is_refused_naming_it(own, attribute, arguments, said):
    sys.path.append(str(own.folder))
    with pytest.raises(ValueError, match=said) as error:
        make_agent(ModuleSpec(own.spec(attribute)), **arguments)
    assert own.spec(attribute) in str(error.value)


def test_a_module_that_is_not_there_is_named_with_where_it_is_looked_for(own):
    with pytest.raises(ValueError, match="no module 'nowhere_to_be_found'.*PYTHONPATH"):
        make_agent(ModuleSpec("nowhere_to_be_found:Agent"))


def test_the_documented_agent_plays_from_the_command_line(tmp_path, monkeypatch, capsys):
    """docs/agents.md's first example, saved as my_agents.py, is the agent its commands name."""
    from test_doc_snippets import ROOT, runnable_blocks

    _, code = runnable_blocks((ROOT / "docs" / "agents.md").read_text())[0]
    (tmp_path / "my_agents.py").write_text(code)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path), os.getcwd())])
    monkeypatch.delitem(sys.modules, "my_agents", raising=False)
    try:
        assert main(["arena", "--agents", "my_agents:MyAgent,greedy", "--games", "12", "--no-progress"]) == 0
    finally:
        sys.modules.pop("my_agents", None)
    assert "my_agents:MyAgent" in capsys.readouterr().out
