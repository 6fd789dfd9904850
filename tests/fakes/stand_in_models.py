"""Stand-in "models" for the fake Ollama: known-bad chat handlers the evals' graders must fail.

A grader that cannot fail is no grader. Each stand-in here answers every chat request the same
bad way, so what the eval scores with it is known before it runs:

- `claims_changes` says it made a change ("Done! I've added it and moved the event for you.")
  and never calls a tool: the program corrects every reply, so the assistant suite must score
  0 of 32 (a request is right only if the program did not have to correct the reply);
- `tells_jokes` tells a joke whatever it is asked and never calls a tool: right only for the 4
  requests that need no tool and no fact (a joke, a thank-you, two general questions), so the
  assistant suite must score 4 of 32.

They answer a JSON request (tidy, ask's JSON mode, the digest) with the same words wrapped in
the field the schema asks for, so the other suites can be fed them too. Run by hand with
`python -m tests.fakes.ollama --port 11555 --stand-in claims-changes`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

CLAIM = "Done! I've added it and moved the event for you."
JOKE = "Why did the scarecrow win an award? Because he was outstanding in his field."


def _say(text: str) -> Callable[[dict[str, Any]], str]:
    def model(body: dict[str, Any]) -> str:
        fmt = body.get("format")
        if isinstance(fmt, dict):
            props = fmt.get("properties") or {}
            if props:  # the first string field gets the words; the rest stays empty
                return json.dumps({k: text if i == 0 else _empty(v) for i, (k, v) in
                                   enumerate(props.items())})  # fmt: skip
        return text

    return model


def _empty(schema: Any) -> Any:
    kind = schema.get("type") if isinstance(schema, dict) else None
    return [] if kind == "array" else ""


claims_changes = _say(CLAIM)
tells_jokes = _say(JOKE)

STAND_INS: dict[str, Callable[[dict[str, Any]], str]] = {
    "claims-changes": claims_changes,
    "tells-jokes": tells_jokes,
}
