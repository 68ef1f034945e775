"""Prometheus metrics of compiles and calls: ``cuvil.metrics`` (extra ``cuvil[metrics]``).

Off until ``enable()`` or ``serve(port)`` (or ``$CUVIL_METRICS_PORT`` at ``import
cuvil``): off, ``prometheus_client`` is not imported and a compiled module is a plain
``CompiledModule`` (its call is the same function object as without this module). On,
modules compiled from then on are ``MeteredModule`` s, whose call also observes its
seconds. The metrics (docs/OPERATIONS.md "Metrics") are in their own registry,
served on 127.0.0.1 only::

    cuvil_compiles_total                   counter    compiles finished
    cuvil_cache_hits_total{level}          counter    cache lookups that hit
    cuvil_cache_misses_total{level}        counter    cache lookups that missed
    cuvil_compile_seconds{stage}           histogram  lower, passes, codegen, llvm
    cuvil_call_seconds{model}              histogram  calls of compiled modules

``model`` is the model's class name; after MAX_MODELS names, others are ``other``.
"""

from __future__ import annotations

import os
import threading
import time

from .errors import CuvilError
from .runtime.compiled import CompiledModule

__all__ = [
    "PORT_ENV",
    "MAX_MODELS",
    "enable",
    "enabled",
    "serve",
    "registry",
    "ports",
    "module_class",
    "record_compile",
    "MeteredModule",
]

PORT_ENV = "CUVIL_METRICS_PORT"
MAX_MODELS = 64  # the label values of cuvil_call_seconds{model}: bounded cardinality
_STAGE_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)
_CALL_BUCKETS = (1e-6, 5e-6, 1e-5, 5e-5, 1e-4, 5e-4, 1e-3, 5e-3, 0.01, 0.05, 0.1, 1)
_lock = threading.Lock()
_state: _Metrics | None = None  # None: off


class _Metrics:
    def __init__(self, prom) -> None:
        self.registry = reg = prom.CollectorRegistry()
        self.compiles = prom.Counter(
            "cuvil_compiles", "Compiles finished", registry=reg
        )
        self.hits = prom.Counter(
            "cuvil_cache_hits",
            "Compile cache lookups that hit",
            ["level"],
            registry=reg,
        )
        self.misses = prom.Counter(
            "cuvil_cache_misses",
            "Compile cache lookups that missed",
            ["level"],
            registry=reg,
        )
        self.stage = prom.Histogram(
            "cuvil_compile_seconds",
            "Seconds of each compile stage",
            ["stage"],
            buckets=_STAGE_BUCKETS,
            registry=reg,
        )
        self.call = prom.Histogram(
            "cuvil_call_seconds",
            "Seconds of each call of a compiled module",
            ["model"],
            buckets=_CALL_BUCKETS,
            registry=reg,
        )
        self.models: set[str] = set()
        self.servers: list = []

    def call_observer(self, model: str):
        with _lock:
            if model not in self.models and len(self.models) >= MAX_MODELS:
                model = "other"
            self.models.add(model)
        return self.call.labels(model=model).observe


def _import_prometheus():
    try:
        import prometheus_client
    except ImportError:
        raise CuvilError(
            "cuvil.metrics needs the prometheus-client package, which is not installed",
            hint="pip install 'cuvil[metrics]' (or leave metrics off: unset "
            f"{PORT_ENV})",
        ) from None
    return prometheus_client


def enable() -> None:
    """Turn metrics on (idempotent); a CuvilError if prometheus-client is missing."""
    global _state
    with _lock:
        if _state is None:
            _state = _Metrics(_import_prometheus())


def enabled() -> bool:
    return _state is not None


def registry():
    """The prometheus CollectorRegistry holding Cuvil's metrics (enables them)."""
    enable()
    return _state.registry


def serve(port: int = 0) -> int:
    """Enable metrics and serve them at ``http://127.0.0.1:PORT/metrics`` from a daemon
    thread; `port` 0 takes a free one. Returns the port."""
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise CuvilError(f"metrics port {port!r} must be an int 0..65535")
    enable()
    prom = _import_prometheus()
    try:
        server, _thread = prom.start_http_server(
            port, addr="127.0.0.1", registry=_state.registry
        )
    except OSError as e:
        raise CuvilError(
            f"cannot serve metrics on 127.0.0.1:{port} ({e.strerror or e})",
            hint="choose another port (0: any free one)",
        ) from None
    _state.servers.append(server)
    return server.server_port


def ports() -> list[int]:
    """The ports metrics are served on (127.0.0.1), in the order they were started."""
    return [s.server_port for s in _state.servers] if _state is not None else []


def serve_from_env() -> int | None:
    """``$CUVIL_METRICS_PORT`` set: serve there (``import cuvil`` calls this)."""
    text = os.environ.get(PORT_ENV, "").strip()
    if not text:
        return None
    if not text.isdigit() or int(text) > 65535:
        raise CuvilError(f"{PORT_ENV}={text!r} is not a port", hint="use 0..65535")
    return serve(int(text))


def record_compile(seconds: dict[str, float], jit) -> None:
    """Count a finished compile: its stage seconds and its cache lookup."""
    state = _state
    if state is None:
        return
    state.compiles.inc()
    for stage, s in seconds.items():
        state.stage.labels(stage=stage).observe(s)
    for level, used, hit in (
        ("ir", getattr(jit, "ir_cache_used", False), getattr(jit, "ir_cache_hit", 0)),
        ("object", getattr(jit, "cache_used", False), getattr(jit, "cache_hit", 0)),
    ):
        if used:
            (state.hits if hit else state.misses).labels(level=level).inc()


class MeteredModule(CompiledModule):
    """A CompiledModule whose every call is observed in cuvil_call_seconds{model}."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._observe = _state.call_observer(self.module.name)

    def __call__(self, *inputs):
        start = time.perf_counter()
        try:
            return super().__call__(*inputs)
        finally:
            self._observe(time.perf_counter() - start)


def module_class() -> type[CompiledModule]:
    """The class a compile builds now: MeteredModule when metrics are on."""
    return CompiledModule if _state is None else MeteredModule
