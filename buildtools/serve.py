"""Serving the repository, or the deployable site, on this machine (``build.py serve``)."""

from __future__ import annotations

import datetime
import email.utils
import functools
import gzip
import http.server
import io
import os
import re
import socket
import sys
import urllib.parse
from pathlib import Path
from typing import Dict, Optional

from .common import BuildError, ROOT, VENDOR
from .vendor import build
from .compress import COMPRESSIBLE, COPY_SUFFIXES, GZIP_RATIO, MIN_COMPRESS
from .dist import DIST, write_dist

#: ``build.py serve`` gzips (level 6) the text files (:data:`COMPRESSIBLE` but wasm and zip) that
#: have no fresh copy, up to this size, as it sends them; the others go as they are.
LIVE_GZIP_MAX = 1_000_000

MIME_TYPES = {
    "": "application/octet-stream",
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".map": "application/json",
    ".wasm": "application/wasm",
    ".zip": "application/zip",
    ".toml": "application/toml",
    ".py": "text/x-python; charset=utf-8",
    ".txt": "text/plain; charset=utf-8",
    ".md": "text/markdown; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".mp3": "audio/mpeg",
    ".webmanifest": "application/manifest+json",
}


class Handler(http.server.SimpleHTTPRequestHandler):
    """Static file handler with the MIME types the page needs, compressed responses
    (:meth:`send_head`) and no caching.

    Request logging is silent; only error responses (>= 400) are reported.
    """

    extensions_map = MIME_TYPES

    #: Set by :meth:`send_head` when the response depends on the request's Accept-Encoding.
    vary = False

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-cache")
        if self.vary:
            self.send_header("Vary", "Accept-Encoding")
        page = urllib.parse.urlsplit(self.path).path
        if page.endswith(("/", ".html")):
            policy = csp_header(Path(self.directory))
            if policy:
                self.send_header("Content-Security-Policy", policy)
        super().end_headers()

    def log_message(self, format: str, *args) -> None:  # noqa: A002 (stdlib name)
        pass

    def accepted_codings(self) -> set:
        """The content codings the request's Accept-Encoding allows (q > 0), lower case; ``*``
        stands for the codings it does not name."""
        weights: Dict[str, float] = {}
        for part in (self.headers.get("Accept-Encoding") or "").split(","):
            coding, _, params = part.partition(";")
            match = re.search(r"\bq\s*=\s*([0-9.]+)", params)
            try:
                weight = float(match.group(1)) if match else 1.0
            except ValueError:
                weight = 0.0
            if coding.strip():
                weights[coding.strip().lower()] = weight
        star = weights.get("*", 0.0)
        return {c for c in COPY_SUFFIXES if weights.get(c, star) > 0}

    def send_head(self):
        """Send a file's pre-compressed copy (``<file>.br``, else ``<file>.gz``: written by
        ``build.py dist``, and by ``build.py build`` for assets/vendor/) when the request accepts
        its coding and the copy is not older than the file.  Other text files of the page
        (:data:`COMPRESSIBLE` but wasm and zip, up to :data:`LIVE_GZIP_MAX`) are gzipped as they
        are sent to browsers that accept gzip, so the repository's page, edited as it is served,
        goes compressed too.  Anything else goes as it is."""
        path = self.translate_path(self.path)
        if os.path.isdir(path) and self.path.split("?", 1)[0].endswith("/"):
            path = os.path.join(path, "index.html")
        self.vary = False
        if not os.path.isfile(path):
            return super().send_head()
        try:
            mtime = os.stat(path).st_mtime_ns
        except OSError:
            return super().send_head()
        compressible = path.endswith(COMPRESSIBLE)
        accepted = self.accepted_codings()
        for coding, suffix in COPY_SUFFIXES.items():
            try:
                fresh = os.stat(path + suffix).st_mtime_ns >= mtime
            except OSError:
                continue
            self.vary = True
            if coding in accepted and fresh:
                try:
                    return self._send_encoded(path, coding, open(path + suffix, "rb"))
                except OSError:
                    continue
        if (compressible and not path.endswith((".wasm", ".zip")) and "gzip" in accepted
                and MIN_COMPRESS <= os.path.getsize(path) <= LIVE_GZIP_MAX):
            try:
                with open(path, "rb") as source:
                    data = source.read()
            except OSError:
                return super().send_head()
            packed = gzip.compress(data, compresslevel=6, mtime=0)
            if len(packed) <= GZIP_RATIO * len(data):
                return self._send_encoded(path, "gzip", io.BytesIO(packed))
        self.vary = self.vary or compressible
        return super().send_head()

    def _send_encoded(self, path: str, coding: str, body):
        """The headers of ``path``'s content in ``coding`` (``body``, a binary file), or 304."""
        self.vary = True
        modified = os.path.getmtime(path)
        since = self.headers.get("If-Modified-Since")
        if since and "If-None-Match" not in self.headers:
            try:
                when = email.utils.parsedate_to_datetime(since)
            except (TypeError, IndexError, OverflowError, ValueError):
                when = None
            if when is not None:
                if when.tzinfo is None:
                    when = when.replace(tzinfo=datetime.timezone.utc)
                if int(modified) <= when.timestamp():
                    body.close()
                    self.send_response(304)
                    self.end_headers()
                    return None
        body.seek(0, io.SEEK_END)
        size = body.tell()
        body.seek(0)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Content-Encoding", coding)
        self.send_header("Content-Length", str(size))
        self.send_header("Last-Modified", self.date_time_string(modified))
        self.end_headers()
        return body

    def log_request(self, code="-", size="-") -> None:
        if isinstance(code, int) and code >= 400:
            sys.stderr.write(f"serve: {int(code)} {self.command} {self.path}\n")


#: index.html's Content-Security-Policy, a <meta http-equiv> (any static host applies it).
CSP_META = re.compile(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">')
#: What a header adds to it: a <meta> cannot say who may frame the page.
CSP_HEADER_EXTRA = "frame-ancestors 'none'"


def csp_header(folder: Path = ROOT) -> Optional[str]:
    """The Content-Security-Policy header for the page in ``folder``: its index.html's <meta>
    policy plus :data:`CSP_HEADER_EXTRA`; None without one.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = (Path(d) / "index.html").write_text(
    ...         '<meta http-equiv="Content-Security-Policy" content="img-src data:">')
    ...     csp_header(Path(d))
    "img-src data:; frame-ancestors 'none'"
    """
    try:
        html = (folder / "index.html").read_text(encoding="utf-8")
    except OSError:
        return None
    match = CSP_META.search(html)
    return f"{match.group(1).rstrip('; ')}; {CSP_HEADER_EXTRA}" if match else None


class Server(http.server.ThreadingHTTPServer):
    """Threaded HTTP server that ignores clients hanging up mid-response."""

    daemon_threads = True
    #: The page asks for ~60 files at once on a cold load: a longer listen queue than
    #: socketserver's 5, so that no connection is refused while the threads start.
    request_queue_size = 128

    def handle_error(self, request, client_address) -> None:
        if not isinstance(sys.exc_info()[1], (ConnectionError, socket.timeout)):
            super().handle_error(request, client_address)


def make_server(port: int = 8000, host: str = "127.0.0.1", directory: Path = ROOT,
                handler: type = Handler) -> Server:
    """A server for ``directory`` on ``host:port`` (port 0 picks a free one).

    >>> server = make_server(0)
    >>> server.server_address[0], server.server_address[1] > 0
    ('127.0.0.1', True)
    >>> server.server_close()
    """
    return Server((host, port), functools.partial(handler, directory=str(directory)))


def serve(port: int, no_build: bool, dist: bool = False) -> int:
    """``build.py serve``: the repository (as it is edited), or with ``dist`` the deployable
    site (``build.py dist`` first), whose pre-compressed copies are sent to browsers."""
    if dist:
        write_dist()
    elif not no_build:
        build()
    elif not (VENDOR / "py.zip").is_file():
        print("serve: warning: assets/vendor/ is not built; the page will not start",
              file=sys.stderr)
    try:
        server = make_server(port, directory=DIST if dist else ROOT)
    except OSError as error:
        raise BuildError(f"cannot listen on 127.0.0.1:{port}: {error.strerror}") from None
    host, real_port = server.server_address[:2]
    print(f"serve: Hidden Chess at http://{host}:{real_port}/  (Ctrl+C to stop)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("\nserve: stopped")
    finally:
        server.server_close()
    return 0
