"""``doublecheck desk``: the rules desk's HTTP server (standard library only).

Routes (docs/desk.md has the fields):

- ``GET /``: the page; ``GET /static/NAME``: its script, style sheet and icon;
- ``GET /rules``: the rule catalogue as one HTML page (``/rules#ID`` is one rule);
- ``GET /api/hello``: the protocol's hello, plus what the page needs;
- ``POST /api/OP``: one operation of ``doublecheck.desk.ops`` (the protocol's
  moves, turns, play, status, fen; the desk's position, explain, replay, pgn)
  with a JSON object as the body.

Every answer from ``/api/`` is JSON: ``{"ok": true, ...}`` with status 200, or
``{"ok": false, "error": {"code", "message"}}`` with a 4xx status for bad
input (400; 404 unknown path or operation; 405 wrong method; 411 no length;
413 too large; 415 not JSON; 403 a foreign Host or Origin) and 500 for a
fault of the desk itself.  The server never stops for a bad request.

Limits and checks, all before any work is done on a request: a body of at
most ``MAX_BODY`` bytes (the Content-Length is checked before the body is
read; a body without one is refused), a JSON object as the body, at most
``ops.MAX_MOVES`` moves in a line, a read timeout of ``READ_TIMEOUT``
seconds per connection.  Bound to a loopback address, the server answers
only requests whose Host (and Origin, when sent) names a loopback address,
which shuts out pages elsewhere that rebind their name to this machine.
"""

from __future__ import annotations

import ipaddress
import json
import signal
import socket
import sys
import threading
import traceback
from html import escape
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from urllib.parse import urlsplit

from doublecheck import __version__
from doublecheck.desk import ops
from doublecheck.oracle.errors import (CANNOT_LISTEN, CASES_NOT_FOUND, FORBIDDEN, INTERNAL_ERROR,
                                       INVALID_REQUEST, LENGTH_REQUIRED, METHOD_NOT_ALLOWED, NOT_FOUND,
                                       SCHEMA_UNUSABLE, TOO_LARGE, UNSUPPORTED, UNSUPPORTED_MEDIA_TYPE,
                                       FIGURES_NOT_FOUND,
                                       RulesError)

from doublecheck.defaults import DESK_MAX_BODY as MAX_BODY  # noqa: E402 (bytes in one request body)
READ_TIMEOUT = 30           # seconds a connection may take to send its request
LINGER_SECONDS, LINGER_BYTES = 2, 4 * 1024 * 1024   # draining a refused body before closing
from doublecheck.defaults import DESK_PORT as DEFAULT_PORT  # noqa: E402
LOOPBACK_NAMES = ("localhost",)
CONTENT_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
                 ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml"}
# The page loads only its own files; the inline board is SVG markup, not an image.
PAGE_POLICY = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
               "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
HTTP_STATUS = {UNSUPPORTED: 404, NOT_FOUND: 404, METHOD_NOT_ALLOWED: 405,
               LENGTH_REQUIRED: 411, TOO_LARGE: 413, UNSUPPORTED_MEDIA_TYPE: 415,
               FORBIDDEN: 403, INTERNAL_ERROR: 500,
               CASES_NOT_FOUND: 500, SCHEMA_UNUSABLE: 500,   # a damaged install
               FIGURES_NOT_FOUND: 500}


class DeskError(Exception):
    """A request the server refuses before any operation runs (``HTTP_STATUS`` maps its code)."""

    def __init__(self, code: str, message: str):
        super().__init__(f"{code}: {message}")
        self.code, self.message = code, message


def static_files() -> dict:
    """The page's files, by name, read once from the installed package."""
    folder = resources.files("doublecheck.desk") / "static"
    return {f.name: f.read_bytes() for f in folder.iterdir()
            if f.is_file() and any(f.name.endswith(ext) for ext in CONTENT_TYPES)}


def rules_page() -> bytes:
    """The rule catalogue as HTML, one section per rule with its id as anchor."""
    parts = ["<!doctype html>", '<html lang="en"><head><meta charset="utf-8">',
             "<title>doublecheck: the rule catalogue</title>",
             '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">',
             '<link rel="stylesheet" href="/static/desk.css"></head>',
             '<body class="catalogue"><header><h1>The rule catalogue</h1>',
             ('<p><a href="/">back to the desk</a> · the same text as <code>doublecheck rules ID'
              '</code></p></header><main>')]
    for rule_id, rule in ops.catalogue().items():
        rid = escape(rule_id)
        parts.append(f'<section class="rule" id="{rid}"><h2><a href="#{rid}">{rid}</a> '
                     f'{escape(rule.get("title", ""))}</h2>'
                     f'<p>{escape(rule.get("statement", ""))}</p>'
                     f'<p class="source">Source: {escape(rule.get("source", ""))} · variants: '
                     f'{escape(", ".join(rule.get("variants", [])))}</p></section>')
    parts.append("</main></body></html>")
    return "\n".join(parts).encode("utf-8")


def is_loopback(host: str) -> bool:
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def host_name(header: str) -> str:
    """The host part of a Host header value (``127.0.0.1:8765``, ``[::1]:8765``)."""
    if header.startswith("["):
        return header[1:].split("]")[0]
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


class DeskServer(ThreadingHTTPServer):
    """One thread per connection; nothing shared between requests but read-only data."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, host: str, port: int, verbose: bool = False):
        self.address_family = socket.AF_INET6 if ":" in host else socket.AF_INET
        super().__init__((host, port), Handler)
        self.loopback_only = is_loopback(host)
        self.verbose = verbose
        self.files = static_files()
        self.catalogue_html = None
        self.lock = threading.Lock()

    def rules_html(self) -> bytes:
        with self.lock:
            if self.catalogue_html is None:
                self.catalogue_html = rules_page()
            return self.catalogue_html

    def handle_error(self, request, client_address):
        kind = sys.exc_info()[0]
        if kind is not None and issubclass(kind, (ConnectionError, TimeoutError)):
            return               # the client went away or stalled: nothing to report
        print(f"doublecheck desk: unexpected error serving {client_address[0]}:", file=sys.stderr)
        traceback.print_exc()


class Handler(BaseHTTPRequestHandler):
    server_version = f"doublecheck-desk/{__version__}"
    protocol_version = "HTTP/1.1"
    timeout = READ_TIMEOUT
    unread_body = False

    # ----------------------------------------------------------- routing

    def do_GET(self):
        self.respond_get(head=False)

    def do_HEAD(self):
        self.respond_get(head=True)

    def respond_get(self, head: bool):
        path = urlsplit(self.path).path
        try:
            self.check_host()
            if path == "/":
                return self.send(200, self.server.files["index.html"], CONTENT_TYPES[".html"], head)
            if path.startswith("/static/"):
                name = path[len("/static/"):]
                body = self.server.files.get(name)
                if body is None:
                    raise DeskError(NOT_FOUND, f"no file {name!r} in the desk's static files")
                ext = name[name.rfind("."):]
                return self.send(200, body, CONTENT_TYPES[ext], head)
            if path == "/rules":
                return self.send(200, self.server.rules_html(), CONTENT_TYPES[".html"], head)
            if path == "/api/hello":
                hello = dict(ops.hello())
                hello["desk"] = dict(hello["desk"], max_body=MAX_BODY)
                return self.send_json(200, {"ok": True, **hello}, head)
            if path.startswith("/api/"):
                raise DeskError(METHOD_NOT_ALLOWED, f"{path} takes POST with a JSON body")
            raise DeskError(NOT_FOUND, f"nothing at {path}; the desk is at /")
        except Exception as e:  # noqa: BLE001  answered, never fatal (see refuse)
            self.refuse(e, f"GET {path}", head=head)

    def do_POST(self):
        path = urlsplit(self.path).path
        rid = None
        try:
            try:
                self.check_host()
                if not path.startswith("/api/") or path == "/api/hello":
                    raise DeskError(METHOD_NOT_ALLOWED if path in ("/", "/rules", "/api/hello")
                                    else NOT_FOUND, f"POST {path}: the operations are at /api/OP")
            except DeskError:
                self.skip_body()
                raise
            request = self.read_json()
            rid = request.get("id")
            result = ops.answer(path[len("/api/"):], request)
        except Exception as e:  # noqa: BLE001  answered, never fatal (see refuse)
            return self.refuse(e, f"POST {path}", rid=rid)
        body = {"ok": True, **result}
        if isinstance(rid, (str, int)) and not isinstance(rid, bool):
            body = {"id": rid, **body}
        self.send_json(200, body)

    def refuse(self, error: Exception, what: str, head: bool = False, rid=None):
        """Answer an error: DeskError, RulesError, PgnError, DataError carry a stable code
        (a 4xx); anything else is a fault of the desk (500, logged with its traceback)."""
        code = getattr(error, "code", None)
        if isinstance(code, str) and code:
            return self.send_error_json(code, str(getattr(error, "message", error)), head, rid)
        print(f"doublecheck desk: internal error on {what}:", file=sys.stderr)
        traceback.print_exception(error)
        return self.send_error_json(INTERNAL_ERROR, f"{type(error).__name__}: {error}", head, rid)

    def refuse_method(self):
        self.skip_body()
        self.send_error_json(METHOD_NOT_ALLOWED, f"{self.command} is not used here; "
                                                   f"the desk takes GET and POST")

    do_PUT = do_DELETE = do_PATCH = do_OPTIONS = refuse_method

    # ----------------------------------------------------------- checks

    def check_host(self):
        """Bound to loopback, answer only requests addressed to a loopback name, and
        only scripts of such an origin (a page elsewhere cannot rebind its name here)."""
        if not self.server.loopback_only:
            return
        host = self.headers.get("Host")
        if host is not None and not is_loopback(host_name(host)):
            raise DeskError(FORBIDDEN, f"this desk answers requests for 127.0.0.1 or localhost, "
                                         f"not for {host!r}")
        origin = self.headers.get("Origin")
        if origin is not None and origin != "null":
            name = urlsplit(origin).hostname or ""
            if not is_loopback(name):
                raise DeskError(FORBIDDEN, f"requests from pages at {origin!r} are not answered")

    def read_json(self) -> dict:
        """The request body as a JSON object; every limit is checked before it is read."""
        if self.headers.get("Transfer-Encoding"):
            self.refuse_body()
            raise DeskError(LENGTH_REQUIRED, "send the body with a Content-Length "
                                               "(chunked bodies are not accepted)")
        length = self.headers.get("Content-Length")
        if length is None:
            self.refuse_body()
            raise DeskError(LENGTH_REQUIRED, "a request body needs a Content-Length header")
        try:
            size = int(length)
            if size < 0:
                raise ValueError
        except ValueError:
            self.refuse_body()
            raise DeskError(INVALID_REQUEST, f"Content-Length {length!r} is not a byte count") from None
        if size > MAX_BODY:
            self.refuse_body()                  # the body is never read
            raise DeskError(TOO_LARGE, f"the request body is {size} bytes; the desk takes at "
                                         f"most {MAX_BODY} bytes ({MAX_BODY // 1024} KiB)")
        body = self.rfile.read(size)
        kind = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if kind != "application/json":
            raise DeskError(UNSUPPORTED_MEDIA_TYPE, f"send the request body as application/json, "
                                                      f"not {kind or 'without a Content-Type'}")
        try:
            request = json.loads(body.decode("utf-8"))
        except UnicodeDecodeError:
            raise DeskError(INVALID_REQUEST, "the request body is not UTF-8 text") from None
        except ValueError as e:
            raise DeskError(INVALID_REQUEST, f"the request body is not JSON: {e}") from None
        except RecursionError:
            raise DeskError(INVALID_REQUEST, "the request body nests too deeply") from None
        if not isinstance(request, dict):
            raise DeskError(INVALID_REQUEST, "the request body must be a JSON object")
        return request

    def skip_body(self):
        """Read a small body we do not use (so the connection stays in step), or drop the
        connection when there is a large one."""
        try:
            size = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            size = MAX_BODY + 1
        if 0 < size <= MAX_BODY:
            self.rfile.read(size)
        elif size or self.headers.get("Transfer-Encoding"):
            self.refuse_body()

    # ---------------------------------------------------------- answers

    def send(self, status: int, body: bytes, content_type: str, head: bool = False):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Content-Security-Policy", PAGE_POLICY)
        if status == 405:
            self.send_header("Allow", "GET, HEAD" if not self.path.startswith("/api/")
                             or self.path == "/api/hello" else "POST")
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if not head:
            self.wfile.write(body)
        if self.unread_body:
            self.linger()

    def refuse_body(self):
        """The request's body will not be read: answer, then close the connection."""
        self.unread_body = self.close_connection = True

    def linger(self):
        """Before closing a connection whose body was not read, let the client finish
        sending (bounded in time and bytes): closing on unread data would reset the
        connection, and the client might never see the answer."""
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_WR)
            self.connection.settimeout(LINGER_SECONDS)
            left = LINGER_BYTES
            while left > 0:
                chunk = self.connection.recv(min(left, 65536))
                if not chunk:
                    break
                left -= len(chunk)
        except OSError:
            pass

    def send_json(self, status: int, value: dict, head: bool = False):
        body = json.dumps(value, separators=(",", ":")).encode("utf-8")
        self.send(status, body, "application/json", head)

    def send_error_json(self, code: str, message: str, head: bool = False, rid=None):
        value = {"ok": False, "error": {"code": code, "message": message}}
        if isinstance(rid, (str, int)) and not isinstance(rid, bool):
            value = {"id": rid, **value}
        self.send_json(HTTP_STATUS.get(code, 400), value, head)

    def log_message(self, format, *args):
        if self.server.verbose:
            super().log_message(format, *args)

    def log_request(self, code="-", size="-"):
        if self.server.verbose or (isinstance(code, int) and code >= 400 and code != 404):
            super().log_message('"%s" %s', self.requestline, str(code))


# -------------------------------------------------------------- command

def desk_command(args) -> int:
    """Serve the desk until Ctrl-C (or SIGTERM); exit status 0."""
    try:
        server = DeskServer(args.host, args.port, verbose=args.verbose)
    except OSError as e:
        hint = " (choose another with --port, or --port 0 for any free port)" \
            if getattr(e, "errno", None) == 98 else ""
        raise RulesError(CANNOT_LISTEN, f"{args.host}:{args.port}: {e.strerror or e}{hint}") from None
    host = args.host if ":" not in args.host else f"[{args.host}]"
    url = f"http://{host}:{server.server_address[1]}/"
    if not server.loopback_only:
        print(f"warning: listening on {args.host}, not on loopback only: anyone who can reach "
              f"this machine on port {server.server_address[1]} can use the desk (it has no "
              f"login; see: doublecheck docs desk)", file=sys.stderr)
    print(f"doublecheck desk: {url}   (Ctrl-C stops it)", flush=True)
    if args.open:
        import webbrowser
        webbrowser.open(url)

    def stop(signum, frame):
        raise KeyboardInterrupt
    previous = signal.signal(signal.SIGTERM, stop)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("doublecheck desk: stopped", flush=True)
    finally:
        signal.signal(signal.SIGTERM, previous)
        server.server_close()
    return 0
