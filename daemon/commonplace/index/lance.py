"""LanceDB, imported without the REST client it loads for remote namespaces.

`import lancedb` imports `lance_namespace`, which re-exports request and response models from
`lance_namespace_urllib3_client`, the generated client of LanceDB's REST namespace service. That
package's `__init__` also imports every API class of the service (hundreds of methods, each
wrapped by pydantic's validate_call) and urllib3. Commonplace opens a local table and never
calls them, yet they cost about 16 MB of the daemon's memory for as long as it runs and 0.8 s
of every start (measured: `python -X importtime`, /proc/self/smaps_rollup).

So the client's package `__init__` runs only when something asks the package itself for a name:
before lancedb is imported, the package is put in sys.modules as the real module object, not
yet executed. Its submodules (the models lance_namespace imports) load as usual through the
package's __path__; the first attribute asked of the package runs its `__init__` then and
answers from it. Nothing is replaced or stubbed: code that uses the client gets all of it, and
only the moment its `__init__` runs changes. tests/index/test_lance_import.py checks in a fresh
interpreter that the daemon's imports leave the API classes unloaded and that the package still
answers when asked; if lancedb starts to use the client at import, that test fails.
"""

from __future__ import annotations

import importlib.util
import sys
import threading

REST_CLIENT = "lance_namespace_urllib3_client"


def defer_package_init(name: str) -> bool:
    """Put package `name` in sys.modules with its `__init__` not run until a name is asked of
    it. False (and nothing done) if it is imported already or is not an installed package."""
    if name in sys.modules:
        return False
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        return False
    loader = spec.loader
    module = importlib.util.module_from_spec(spec)
    lock = threading.RLock()

    def __getattr__(attr: str) -> object:
        with lock:
            if module.__dict__.get("__getattr__") is __getattr__:
                del module.__dict__["__getattr__"]
                loader.exec_module(module)
        try:
            return module.__dict__[attr]
        except KeyError:
            raise AttributeError(f"module {name!r} has no attribute {attr!r}") from None

    module.__dict__["__getattr__"] = __getattr__
    sys.modules[name] = module
    return True


defer_package_init(REST_CLIENT)

import lancedb  # noqa: E402 (after the deferral, which is the point)
from lancedb.background_loop import LOOP  # noqa: E402 (the thread its sync API runs on)
from lancedb.index import IvfHnswSq  # noqa: E402

__all__ = ["LOOP", "REST_CLIENT", "IvfHnswSq", "defer_package_init", "lancedb"]
