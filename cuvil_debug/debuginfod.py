"""A debuginfod server over a symbol store (``cuvil-debug symbols serve``).

Answers the part of the debuginfod protocol debuggers use, on 127.0.0.1 only::

    GET /buildid/<hex>/debuginfo     the debug file of that build-id
    GET /buildid/<hex>/executable    the library, where the store knows it
    anything else                    404

Every file is looked up through ``SymbolStore.find`` (its build-id checked against the
key) when it is asked for. The first line on stdout is the URL to put in
``DEBUGINFOD_URLS``; it runs until SIGTERM or SIGINT (exit 0).
"""

from __future__ import annotations

import re
import shutil
import signal
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from cuvil.errors import CuvilError
from cuvil.runtime.symbols import SymbolStore

__all__ = ["serve", "make_server"]

_ROUTE = re.compile(r"^/buildid/([0-9a-fA-F]{8,128})/(debuginfo|executable)$")


class _Stop(BaseException):
    """SIGTERM/SIGINT: a BaseException like KeyboardInterrupt, because socketserver
    swallows an Exception raised while a request is being handled (the signal arrived
    then, and the server served on)."""


def _handler(store: SymbolStore) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "cuvil-debuginfod"

        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            self._answer(body=True)

        def do_HEAD(self) -> None:  # noqa: N802
            self._answer(body=False)

        def _answer(self, body: bool) -> None:
            path = self._lookup(self.path.split("?", 1)[0])
            if path is None:
                self.send_error(404, "not in the symbol store")
                return
            try:
                f = path.open("rb")
            except OSError:
                self.send_error(404, "not readable")
                return
            with f:
                size = path.stat().st_size
                self.send_response(200)
                self.send_header("Content-Type", "application/octet-stream")
                self.send_header("Content-Length", str(size))
                self.send_header("X-Debuginfod-Size", str(size))
                self.send_header("X-Debuginfod-File", path.name)
                self.end_headers()
                if body:
                    shutil.copyfileobj(f, self.wfile)

        def _lookup(self, url: str) -> Path | None:
            m = _ROUTE.match(url)
            if not m:
                return None
            key, what = m.group(1).lower(), m.group(2)
            if what == "debuginfo":
                return store.find(key)
            return store.find_executable(key)

        def log_error(self, format: str, *args) -> None:
            pass  # the request's line (with its status) is logged anyway

        def log_message(self, format: str, *args) -> None:
            sys.stderr.write(f"{self.address_string()} {format % args}\n")

    return Handler


def make_server(store: SymbolStore, port: int = 0) -> ThreadingHTTPServer:
    """A server bound to 127.0.0.1:`port` (0: a free port), not yet serving."""
    try:
        server = ThreadingHTTPServer(("127.0.0.1", port), _handler(store))
    except OSError as e:
        raise CuvilError(
            f"cannot listen on 127.0.0.1:{port}: {e.strerror}",
            hint="choose another --port (0: any free port)",
        ) from None
    server.daemon_threads = True
    return server


def serve(store: SymbolStore, port: int = 0) -> int:
    """Serve `store` until SIGTERM/SIGINT; prints the URL first."""
    server = make_server(store, port)
    host, bound = server.server_address[:2]
    print(f"http://{host}:{bound}/", flush=True)
    print(f"serving the symbol store {store.root}", file=sys.stderr, flush=True)

    def stop(signum, frame) -> None:
        raise _Stop

    previous = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        server.serve_forever(poll_interval=0.5)
    except _Stop:
        pass
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        server.server_close()
    return 0
