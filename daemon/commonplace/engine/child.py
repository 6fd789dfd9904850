"""`python -m commonplace.engine.child`: llama.cpp's own HTTP server, run by the daemon.

The parent (process.py) writes one JSON line on stdin: the API key, the threads, the GPU
setting and the models with their sizes (sizing.Plan.child_config). The child then loads each
model into an `xllamacpp.Server`, llama.cpp's server code running in this process on a
loopback port of its own (one per model: a chat model and an embedding model cannot share a
server, since `embedding` switches a server to embeddings only), and prints one JSON line on
stdout when they answer: {"ready": {...}} with their addresses and facts, or {"error": code,
"message": sentence} and exit code 1.

- Only 127.0.0.1, and every route but /health needs the key the parent made, so another
  program on the computer (or a web page making requests to localhost) cannot use the model.
  The key comes on stdin, never in argv, which any local user can read.
- Everything else goes to stderr: llama.cpp's log (its stdout is pointed at stderr too, so no
  line of it can come between the parent and the JSON line); the parent logs it at debug.
- Stdin is then read to its end: EOF means the parent is gone (stopped, or killed even with
  SIGKILL, whose pipe the kernel closes), and the child exits at once. It never outlives the
  daemon, and needs no signal from it.
- Ctrl-C in a terminal reaches the whole process group; the child ignores it and ends with
  the daemon's pipe instead, so a stopping daemon is never left without its answer.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import sys
import threading
import time
import urllib.request
from typing import IO, Any

from commonplace.engine import hardware

log = logging.getLogger("commonplace.engine.child")

HOST = "127.0.0.1"
CPU_LOAD = 0  # llama_load_mode NONE: read into memory (see _params)
_servers: list[Any] = []  # the servers stop when collected: kept for the process's life


class Refused(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def main() -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    answer = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    line = sys.stdin.readline()
    if not line.strip():
        return 0  # the parent went before saying anything
    config = json.loads(line)
    threading.Thread(target=_exit_at_eof, name="engine-stdin", daemon=True).start()
    logging.basicConfig(
        stream=sys.stderr,
        level=int(config.get("log_level", logging.INFO)),
        format="%(name)s %(levelname)s %(message)s",
    )
    try:
        ready = serve(config)
    except Refused as exc:
        _say(answer, {"error": exc.code, "message": str(exc)})
        return 1
    _say(answer, {"ready": ready})
    threading.Event().wait()  # the servers answer on their own threads until stdin's EOF
    return 0


def _exit_at_eof() -> None:
    while sys.stdin.read(4096):
        pass
    os._exit(0)


def _say(answer: IO[str], message: dict[str, Any]) -> None:
    answer.write(json.dumps(message) + "\n")
    answer.flush()


def serve(config: dict[str, Any]) -> dict[str, Any]:
    """Load every model of the config and start its server; what the parent needs to know."""
    problem = hardware.cpu_problem(hardware.cpu_flags())
    if problem:  # checked by the parent too; here it keeps a SIGILL from saying it instead
        raise Refused("cpu", problem)
    import xllamacpp  # ~100 MB of code: loaded only once the checks passed

    found = [{**d, "type": int(d["type"])} for d in xllamacpp.get_device_info()]
    device = hardware.accelerator(found, config["gpu"])
    if config["gpu"] == "on" and device == "CPU":
        raise Refused(
            "no_gpu",
            "[builtin] gpu = 'on', but the installed llama.cpp build (xllamacpp) has no GPU: "
            "install xllamacpp's CUDA build (pip install xllamacpp --force-reinstall "
            "--index-url https://xorbitsai.github.io/xllamacpp/whl/cu128), or set gpu = 'auto'",
        )
    models: dict[str, Any] = {}
    for model in config["models"]:
        started = time.perf_counter()
        params = _params(xllamacpp, model, config, device)
        try:
            server = xllamacpp.Server(params)
        except (RuntimeError, ValueError) as exc:
            raise Refused(
                "load_failed",
                f"llama.cpp could not load {model['name']} ({model['path']}): the file may be "
                "damaged, or of an architecture this llama.cpp build does not know; the "
                "daemon's log at debug level has llama.cpp's own words",
            ) from exc
        _servers.append(server)
        address = str(server.listening_address)
        facts = _facts(address, config["key"])
        facts["load_s"] = round(time.perf_counter() - started, 2)
        models[model["role"]] = facts
        log.info("%s loaded in %.1f s at %s", model["alias"], facts["load_s"], address)
    return {
        "pid": os.getpid(),
        "device": device,
        "threads": config["threads"],
        "system_info": xllamacpp.get_system_info().strip(),
        "models": models,
    }


def _params(xllamacpp: Any, model: dict[str, Any], config: dict[str, Any], device: str) -> Any:
    p = xllamacpp.CommonParams()
    p.model.path = model["path"]
    p.model_alias = {model["alias"]}
    p.hostnames = [HOST]
    p.port = 0  # any free port; the parent learns it from the JSON line
    p.api_keys = [config["key"]]
    p.ui = False
    p.endpoint_slots = False  # /slots shows the prompts, words of notes: not needed here
    p.cpuparams.n_threads = config["threads"]
    p.cpuparams_batch.n_threads = config["threads"]
    p.n_ctx = model["n_ctx"]
    p.n_parallel = 1  # one slot: every call finds the previous one's KV cache (sizing.py)
    p.cache_prompt = True
    p.cache_ram_mib = model["cache_ram_mib"]
    p.cache_idle_slots = model["cache_ram_mib"] > 0  # it keeps slots in that cache only
    p.use_jinja = True  # the model's own chat template: tools work as the model was taught
    p.verbosity = 3 if config.get("log_level", logging.INFO) <= logging.DEBUG else 2
    if device == "CPU":
        p.n_gpu_layers = 0
        p.no_kv_offload = True
        # Read, not mapped: on the CPU llama.cpp repacks the weights into its own layout, and
        # a mapped file then stays resident beside the copy (measured: 2.0 GB resident for
        # Qwen2.5 1.5B mapped, 1.4 GB read), for the same load time.
        p.load_mode = xllamacpp.llama_load_mode(CPU_LOAD)
    else:
        p.n_gpu_layers = -2 if config["gpu"] == "on" else -1  # all; or as many as fit
    if model["embedding"]:
        p.embedding = True
        p.n_batch = p.n_ubatch = model["n_ctx"]  # an input is embedded in one batch
        if model["pooling"] is not None:
            p.pooling_type = xllamacpp.llama_pooling_type(model["pooling"])
    return p


def _facts(address: str, key: str) -> dict[str, Any]:
    """What llama.cpp says of the loaded model: /props and /v1/models."""
    props = _get(f"{address}/props", key)
    listed = _get(f"{address}/v1/models", key)
    meta = (listed.get("data") or [{}])[0].get("meta") or {}
    caps = props.get("chat_template_caps") or {}
    return {
        "url": f"{address}/v1",
        "alias": (listed.get("data") or [{}])[0].get("id", ""),
        "n_ctx": int(props.get("default_generation_settings", {}).get("n_ctx", 0)),
        "n_ctx_train": int(meta.get("n_ctx_train", 0)),
        "n_embd": int(meta.get("n_embd", 0)),
        "n_params": int(meta.get("n_params", 0)),
        "tools": bool(caps.get("supports_tools", False)),
    }


def _get(url: str, key: str) -> dict[str, Any]:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {key}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        data: dict[str, Any] = json.loads(response.read())
    return data


if __name__ == "__main__":
    sys.exit(main())
