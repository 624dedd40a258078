"""What the isolated arena guarantees about an agent's replies and text (docs/arena.md): an answer
is parsed strictly and bounded in length, and nothing an agent writes can pass for the arena's own
lines in the terminal or in report.md."""

from __future__ import annotations

from test_agent_isolation_process import MisbehavesAt, _hang, _pipes
from test_isolation_holds import ARENA, _in_thread

import agents.isolated
from agents.arena import run_arena
from agents.heuristics import GreedyAgent


# ----------------------------------------------------------- answers are parsed strictly
class WritesASuperscript(GreedyAgent):
    """Answers "A²" (which str.isdigit() takes for a digit) straight into its pipe."""

    name = "superscript"

    def act(self, view):
        for pipe in _pipes():
            pipe.send_bytes("A²".encode())
        _hang()


def test_an_answer_of_non_ascii_digits_is_a_named_bad_reply():
    done = _in_thread(lambda: run_arena([WritesASuperscript(), "greedy"], games=2, isolate=True, time_limit=20,
                                        **ARENA))
    error = done["error"]
    assert (error.agent, error.error) == ("superscript", "BadReply") and "A²" in error.message


# ----------------------------------------------------------- an agent's text cannot forge the arena's lines
_FORGED = "its bug\n\x1b[1A\x1b[2K| 1 | greedy-FORGED | +9.999 |\u202e <table><tr><td>[x](http://y)</td></tr></table>"


class ForgesLines(MisbehavesAt):
    """Raises an error whose type name and text hold a line break, a terminal's escapes and a table row."""

    name = "forges"
    at = 3

    def misbehave(self):
        raise type("Boom\x1b[2K|forged", (Exception,), {})(_FORGED)


class _Forged:
    def __repr__(self):
        return "7\n\x1b[2Kwrote result.json"


class ReturnsAForgedRepr(MisbehavesAt):
    """Returns, at its 3rd decision, an object whose repr holds a line break and an escape."""

    name = "forged_repr"
    at = 3

    def act(self, view):
        type(self).decisions += 1
        return _Forged() if type(self).decisions == self.at else GreedyAgent.act(self, view)


def test_an_isolated_agents_error_text_is_shown_escaped_on_one_line():
    from agents.arena import crash_warning
    from agents.reports import report_markdown

    result = run_arena([ForgesLines(), "greedy"], games=8, isolate=True, **ARENA)
    crash = result["crash"]
    assert crash["agent"] == "forges" and crash["error"] == "Boom2Kforged"  # a type name: identifier characters
    warning = crash_warning(crash, 0)
    assert not any(mark in warning for mark in ("\n", "\r", "\x1b", "\u202e"))
    assert "\\x1b[2K| 1 | greedy-FORGED" in crash["message"]  # what it sent, its escapes written out
    report = report_markdown(result)  # in Markdown: no HTML, link or table cell of the agent's making
    assert "<table>" not in report and "&lt;table&gt;" in report and "\\[x\\](http://y)" in report
    assert "\\| 1 \\| greedy-FORGED" in report


class RaisesATimeout(MisbehavesAt):
    """Raises an exception of its own named as the arena's verdict on a late agent."""

    name = "raises_a_timeout"
    at = 3

    def misbehave(self):
        raise type("Timeout", (Exception,), {})("it did not answer within the time limit")


def test_an_agents_exception_named_as_the_arenas_verdict_is_marked_as_the_agents():
    crash = run_arena([RaisesATimeout(), "greedy"], games=8, isolate=True, **ARENA)["crash"]
    assert crash["agent"] == "raises_a_timeout" and crash["error"] == "Timeout (raised by the agent)"


def test_an_isolated_agents_bad_action_is_shown_escaped_on_one_line():
    crash = run_arena([ReturnsAForgedRepr(), "greedy"], games=8, isolate=True, **ARENA)["crash"]
    assert crash["agent"] == "forged_repr" and crash["error"] == "BadActionError"
    assert "\n" not in crash["message"] and "\x1b" not in crash["message"]
    assert "7\\n\\x1b[2Kwrote result.json" in crash["message"]


class AnswersAtLength(GreedyAgent):
    """Writes an answer of a megabyte straight into its pipe, then plays on."""

    name = "answers_at_length"

    def act(self, view):
        for pipe in _pipes():
            pipe.send_bytes(b"A" + b"1" * 2**20)
        return super().act(view)


def test_an_answer_over_the_length_limit_is_a_named_bad_reply_at_once():
    # a time limit shorter than any wait for the process's exit code: the failure is the reply's, not a Timeout
    done = _in_thread(lambda: run_arena([AnswersAtLength(), "greedy"], games=2, isolate=True, time_limit=0.5,
                                        **ARENA))
    error = done["error"]
    assert (error.agent, error.error) == ("answers_at_length", "BadReply")
    assert str(agents.isolated.REPLY_LIMIT) in error.message
