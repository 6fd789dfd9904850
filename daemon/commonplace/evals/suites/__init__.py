"""The registry of suites: name -> module. A module defines `SUITE`; adding a suite is a new
module and one line here.

Modules are imported only when their suite runs, so a suite whose subject has not landed (or
is broken) is reported as unavailable without taking the other suites down.
"""

from __future__ import annotations

import importlib

from commonplace.evals.suite import Suite

# name -> (module, one line for --help; the module's SUITE.about says it in full)
SUITES: dict[str, tuple[str, str]] = {
    "search": ("commonplace.evals.suites.search", "notes found per search mode (embeddings only)"),
    "tidy": (
        "commonplace.evals.suites.tidy",
        "links, to-dos and due dates of each capture's filing",
    ),
    "ask": ("commonplace.evals.suites.ask", "facts in answers, notes cited, refusals"),
    "digest": ("commonplace.evals.suites.digest", "the digest's sentences, for a person to check"),
    "assistant": (
        "commonplace.evals.suites.assistant",
        "32 requests: the right question asked, the right tool, no tool when none is needed",
    ),
}


class SuiteUnavailable(Exception):
    """The suite's code cannot be loaded; the message says why."""


def load_suite(name: str) -> Suite:
    if name not in SUITES:
        raise SuiteUnavailable(f"no suite named {name!r}; known: {', '.join(SUITES)}")
    try:
        module = importlib.import_module(SUITES[name][0])
    except ImportError as exc:
        raise SuiteUnavailable(
            f"the {name} suite is not available yet: {exc}. The part of commonplace it "
            "measures is not installed or does not import."
        ) from exc
    suite = getattr(module, "SUITE", None)
    if not isinstance(suite, Suite):
        raise SuiteUnavailable(f"{SUITES[name][0]} defines no SUITE")
    return suite
