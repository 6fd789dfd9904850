"""One chat call at a time for the whole daemon, a person's before background work.

The chat model runs on one GPU (or the CPU): two calls at once are not faster, and a burst of
questions from the API would starve the daemon's own work, or pile up inside Ollama where
nothing can be refused or counted. So every chat call of an `LLM`, whoever makes it (tidy, Ask
notes, the digest, the phone page's questions, the assistant, any caller added later), waits
here for its turn. The daemon makes one `LLM` and hands it to every part, so this is the one
queue.

A call made while serving an API request (`for_a_person()`; the rate-limited handlers enter it)
goes before waiting background work; within each kind, calls keep their order. A person waits
at most `wait_s` and then gets ModelBusy (the API's 503 `model_busy`); background work waits as
long as it takes. While a person waits, `on_wait` (if set for the request) is told once, so a
streamed answer can say so at once. Embeddings do not come here: they are short, use another
model, and search must stay fast while the chat model works.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

from commonplace.llm.errors import LLMError

OnWait = Callable[[str], Awaitable[None]]

_FOR_A_PERSON: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "commonplace_model_for_a_person", default=False
)
_ON_WAIT: contextvars.ContextVar[OnWait | None] = contextvars.ContextVar(
    "commonplace_model_on_wait", default=None
)
PERSON = "a question from the page"
BACKGROUND = "the daemon's own work (tidying, Ask notes, the digest)"


class ModelBusy(LLMError):
    retryable = False

    def __init__(self, waited_s: float, holder: str) -> None:
        super().__init__(
            f"The model is busy with {holder or 'other work'} and did not come free within "
            f"{waited_s:g} s; try again in a minute."
        )
        self.waited_s = waited_s


@contextlib.contextmanager
def for_a_person(on_wait: OnWait | None = None) -> Iterator[None]:
    """Model calls made inside this block (and tasks started from it) are a person's: they go
    first, and wait at most the gate's `person_wait_s`."""
    person = _FOR_A_PERSON.set(True)
    waiting = _ON_WAIT.set(on_wait)
    try:
        yield
    finally:
        _ON_WAIT.reset(waiting)
        _FOR_A_PERSON.reset(person)


def is_for_a_person() -> bool:
    """Whether the model call being made now is a person's (inside `for_a_person()`)."""
    return _FOR_A_PERSON.get()


class ModelGate:
    def __init__(self, person_wait_s: float = 120.0) -> None:
        self.person_wait_s = person_wait_s
        self._taken = False
        self._holder = ""
        self._waiting: dict[bool, deque[asyncio.Future[None]]] = {True: deque(), False: deque()}

    @property
    def busy(self) -> bool:
        return self._taken

    def status(self) -> dict[str, Any]:
        """For /api/state: who has the model now, and how many calls wait behind it."""
        return {
            "busy": self._holder or None,
            "waiting": sum(1 for q in self._waiting.values() for f in q if not f.done()),
            "waiting_people": sum(1 for f in self._waiting[True] if not f.done()),
        }

    @contextlib.asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        """Hold the model for one call (one attempt: a retry queues again)."""
        person = _FOR_A_PERSON.get()
        await self._acquire(person)
        self._holder = PERSON if person else BACKGROUND
        try:
            yield
        finally:
            self._release()

    async def _acquire(self, person: bool) -> None:
        if not self._taken and not any(self._waiting.values()):
            self._taken = True
            return
        on_wait = _ON_WAIT.get() if person else None
        if on_wait is not None:
            await on_wait(self._holder)
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        queue = self._waiting[person]
        queue.append(future)
        holder = self._holder
        try:
            async with asyncio.timeout(self.person_wait_s if person else None):
                await future
        except BaseException as exc:
            if future.done() and not future.cancelled():
                self._release()  # the turn came just as this caller gave up: pass it on
            else:
                future.cancel()
                with contextlib.suppress(ValueError):
                    queue.remove(future)
            if isinstance(exc, TimeoutError):
                raise ModelBusy(self.person_wait_s, holder) from None
            raise

    def _release(self) -> None:
        """Hand the model to the next caller (people first), or free it."""
        for person in (True, False):
            queue = self._waiting[person]
            while queue:
                future = queue.popleft()
                if not future.done():
                    future.set_result(None)  # _taken stays True: handed over, no barging in
                    return
        self._taken = False
        self._holder = ""
