"""The web app's refusals, and how they quote what a request sent.

Every request is untrusted and may be megabytes long, so an error quotes at most
:data:`QUOTE_LIMIT` characters of any value it names (:func:`quote`); a message made
elsewhere (the rules, a replay's reader) is cut the same way before it is sent
(:func:`shorten`: every quoted text, list or object in it, then the whole).
"""

from __future__ import annotations

import re
import reprlib
from typing import Any

QUOTE_LIMIT = 100
MAX_MESSAGE = 1000
# A quoted text ('...' or "...", with escapes), or a list or object with nothing nested in it.
_QUOTED = re.compile(r"""(?<!\w)'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|\[[^\[\]{}]*\]|\{[^\[\]{}]*\}""", re.S)
_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = QUOTE_LIMIT
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = _REPR.maxset = 8
_REPR.maxlevel = 3


class RequestError(ValueError):
    """A request the server refuses; the message says why (sent to the browser as JSON)."""


class BusyError(RequestError):
    """The agents are still moving: the human's action must wait for his turn."""


def quote(value: Any) -> str:
    """``repr(value)``, at most :data:`QUOTE_LIMIT` characters of it: a longer value is cut
    and its length said, so that a refusal never echoes a huge request back."""
    if isinstance(value, str):
        text = repr(value[:QUOTE_LIMIT + 1])  # an escape (\U0001f600) writes one character as ten
        if len(value) <= QUOTE_LIMIT and len(text) <= QUOTE_LIMIT:
            return text
        return f"{text[:QUOTE_LIMIT - 20]}... ({len(value):,} characters)"
    try:
        text = repr(value)  # a value the request sent: no bigger than the upload limit
    except RecursionError:
        text = ""
    if len(text) <= QUOTE_LIMIT and text:
        return text
    text = _REPR.repr(value)
    if len(text) > QUOTE_LIMIT:
        text = text[:QUOTE_LIMIT - 4] + " ..."
    if isinstance(value, (list, tuple, dict, set)) and len(value) > _REPR.maxlist:
        text += f" ({len(value):,} items)"
    return text


def shorten(message: str) -> str:
    """``message`` with every quoted text, list or object longer than :data:`QUOTE_LIMIT` cut
    (innermost first), and at most :data:`MAX_MESSAGE` characters in all."""
    while True:
        cut = _QUOTED.sub(_cut, message)
        if cut == message:
            break
        message = cut
    return message if len(message) <= MAX_MESSAGE else message[:MAX_MESSAGE - 30] + " ... (cut)"


def _cut(found: re.Match) -> str:
    text = found.group()
    if len(text) <= QUOTE_LIMIT:
        return text
    close = {"[": "]", "{": "}"}.get(text[0], text[0])
    return f"{text[:QUOTE_LIMIT - 20]}...{close} ({len(text):,} characters)"
