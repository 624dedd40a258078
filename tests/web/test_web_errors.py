"""A refusal of the web app quotes at most a hundred or so characters of what the request sent
(commerce_web.errors), whichever field held it and however long it was: a 5 MB action text was
once sent back whole in a 5 MB answer."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("flask")
from commerce_web.app import create_app  # noqa: E402
from commerce_web.errors import MAX_MESSAGE, QUOTE_LIMIT, quote, shorten  # noqa: E402

HUGE = 5_000_000
LONGEST_RUN = QUOTE_LIMIT  # of one character repeated: the most of the input an answer may hold
MATCH = {"variant": "old_game", "players": 2, "seat": 0, "opponents": ["random"], "seed": 1}


@pytest.fixture(scope="module")
def client():
    return create_app().test_client()


@pytest.fixture(scope="module")
def key(client):
    return client.post("/api/matches", json=MATCH).get_json()["id"]


def _longest_run(text: str, char: str) -> int:
    return max((len(run) for run in re.findall(f"{re.escape(char)}+", text)), default=0)


def _requests(big: str, key: str):
    """(method, url, JSON body, headers) with ``big`` in each place a request can put a text."""
    actions = f"/api/matches/{key}/actions"
    yield from (("POST", "/api/matches", {**MATCH, field: big}, None) for field in ("variant", "players", "seat",
                                                                                      "seed", "opponents", big))
    yield "POST", "/api/matches", {**MATCH, "opponents": [big]}, None
    yield "POST", "/api/matches", {**MATCH, "opponents": [f"search(worlds={big})"]}, None
    yield "POST", "/api/matches", {**MATCH, "opponents": [f"model:{big}"]}, None
    yield "POST", "/api/matches", {**MATCH, "options": {big: "1"}}, None
    yield "POST", "/api/matches", {**MATCH, "options": {"max_rounds": big}}, None
    yield "POST", "/api/matches", {**MATCH, "options": {"combinations": [big]}}, None
    yield "POST", "/api/matches", {**MATCH, "options": big}, None
    for action in (big, f"exchange {big}", f"offer {big}", [big]):
        yield "POST", actions, {"action": action}, None
    yield "POST", actions, {"action": "knock", big: 1}, None
    yield "GET", f"/api/matches/{big[:100_000]}", None, None  # a URL: as long as the server reads
    yield "POST", "/api/replays", {"text": big}, None
    yield "POST", "/api/replays", {"text": "{}", "game": big}, None
    record = {"format": "commerce-replay", "version": 1, "variant": big, "num_players": big, "options": {big: 1}}
    yield "POST", "/api/replays", {"text": json.dumps(record)}, None
    yield "GET", "/api/variants", None, {"Host": big[:50_000]}  # a header: as long as the server reads


def test_a_huge_input_is_never_echoed_back(client, key):
    big = "Z" * HUGE
    for method, url, body, headers in _requests(big, key):
        reply = client.open(url, method=method, json=body, headers=headers)
        text = reply.get_data(as_text=True)
        where = (url[:40], json.dumps(body)[:120] if body else headers and "Host")
        assert 400 <= reply.status_code < 500, where
        assert _longest_run(text, "Z") <= LONGEST_RUN, where
        assert len(text) < 2 * MAX_MESSAGE, where


TEXT = st.text(alphabet="abcdefghij klmnop", max_size=20) | st.text(alphabet="abcdefghij klmnop", min_size=101,
                                                                      max_size=1500)
JSON = st.recursive(st.none() | st.booleans() | st.integers() | TEXT,
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
                    max_leaves=8)


def _texts(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _texts(item)
    elif isinstance(value, dict):
        for name, item in value.items():
            yield name
            yield from _texts(item)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(field=st.sampled_from(["variant", "players", "seat", "seed", "opponents", "options", "unknown", "action"]),
       value=JSON)
def test_no_answer_quotes_more_than_a_hundred_characters_of_a_request(client, key, field, value):
    if field == "action":
        reply = client.post(f"/api/matches/{key}/actions", json={"action": value})
    else:
        reply = client.post("/api/matches", json={**MATCH, field: value})
    if reply.status_code == 200:
        return
    error = reply.get_json()["error"]
    assert len(error) <= MAX_MESSAGE
    for text in _texts(value):
        for start in range(0, len(text) - QUOTE_LIMIT):
            assert text[start:start + QUOTE_LIMIT + 1] not in error


@given(st.text(max_size=3000), st.lists(st.text(max_size=400), max_size=30))
def test_a_quote_is_short_and_says_how_long_the_value_was(text, items):
    for value in (text, items, {"k": items}):
        quoted = quote(value)
        assert len(quoted) <= QUOTE_LIMIT + 30
        if len(repr(value)) <= QUOTE_LIMIT - 20:
            assert quoted == repr(value)


@given(st.text(alphabet="ab '\"[]{},", max_size=3000))
def test_a_message_made_elsewhere_is_cut(message):
    cut = shorten(message)
    assert len(cut) <= MAX_MESSAGE
    if len(message) <= QUOTE_LIMIT:
        assert cut == message
