"""``doublecheck desk``: the rules desk's HTTP server (standard library only).

Routes (docs/desk.md has the fields):

- ``GET /``: the page; ``GET /static/NAME``: its script, style sheet and icon;
- ``GET /rules``: the rule catalogue as one HTML page (``/rules#ID`` is one rule);
- ``GET /api/hello``: the protocol's hello, plus what the page needs;
- ``GET /api/health``: the workers: how many are busy, for how long, and which
  are stuck (busy past the time limit of an operation; also said on stderr);
- ``POST /api/OP``: one operation of ``doublecheck.desk.ops`` (the protocol's
  moves, turns, play, status, fen; the desk's position, explain, replay, pgn)
  with a JSON object as the body.

Every answer from ``/api/`` is JSON: ``{"ok": true, ...}`` with status 200, or
``{"ok": false, "error": {"code", "message"}}`` with a 4xx status for bad
input (400; 404 unknown path or operation; 405 wrong method; 408 too slow to
arrive; 411 no length; 413 too large; 415 not JSON; 403 a foreign Host or
Origin), 503 when the desk is busy or an operation ran out of time, and 500
for a fault of the desk itself.  The server never stops for a bad request.

Limits and checks, all before any work is done on a request: a body of at
most ``MAX_BODY`` bytes (one Content-Length of digits, checked before the
body is read; a body without one is refused), a JSON object as the body, at
most ``ops.MAX_MOVES`` moves in a line, and ``READ_TIMEOUT`` seconds for the
whole request, headers and body (``RequestReader``).  Bound to a loopback
address, the server answers only requests with exactly one Host, naming a
loopback address (and an Origin, when sent, of such an address), which shuts
out pages elsewhere that rebind their name to this machine.

Bounded work: ``WORKERS`` threads serve the connections, which wait their turn
in a queue of ``QUEUE`` (a listen backlog of ``BACKLOG`` holds a burst before
that); a connection that finds the queue full is answered 503 ``busy`` with
a Retry-After at once.  An idle keep-alive connection gives its worker up
when others wait, and so does a connection whose request has been arriving
for more than ``HURRY`` seconds (a slow or trickling client: answered 408),
so slow clients cannot hold every worker.  Each operation runs under the time
limit of ``doublecheck serve`` (``REQUEST_SECONDS``; ``harness.deadline``),
and is stopped as soon as its client goes away.

Nothing can wedge a worker: every first-use set-up (plugins, rules objects,
the catalogue, the modules the operations import) is done before the first
connection is accepted (``ops.warm_up``), so no request imports anything, and
a stop never lands inside an import or a limit's own clean-up (``deadline``).
A watchdog (``Watch``) says on stderr when a worker has been busy on one
request for ``STUCK_MARGIN`` seconds past the operation time limit, and
``/api/health`` shows it.
"""

from __future__ import annotations

import collections
import io
import ipaddress
import json
import queue
import re
import select
import signal
import socket
import sys
import threading
import time
import traceback
from html import escape
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, HTTPServer
from importlib import resources
from urllib.parse import urlsplit

from doublecheck import __version__
from doublecheck.defaults import DESK_MAX_BODY as MAX_BODY   # bytes in one request body
from doublecheck.defaults import DESK_PORT as DEFAULT_PORT   # the name it always had
from doublecheck.desk import ops
from doublecheck.harness.deadline import TimeLimitExceeded, time_limit_unless_gone
from doublecheck.oracle.errors import (BUDGET_EXCEEDED, BUSY, CANNOT_LISTEN, CASES_NOT_FOUND,
                                       FIGURES_NOT_FOUND, FORBIDDEN, INTERNAL_ERROR, INVALID_REQUEST,
                                       LENGTH_REQUIRED, METHOD_NOT_ALLOWED, NOT_FOUND, REQUEST_TIMEOUT,
                                       SCHEMA_UNUSABLE, TOO_LARGE, UNSUPPORTED, UNSUPPORTED_MEDIA_TYPE,
                                       RulesError, quote)

READ_TIMEOUT = 30           # seconds a request may take to arrive, headers and body together
REQUEST_SECONDS = 10        # seconds one operation may run (the page's requests take well under 1)
WORKERS = 16                # threads serving connections
QUEUE = 256                 # accepted connections waiting for a worker; more are answered 503
BACKLOG = 1024              # connections the system holds before they are accepted
RETRY_AFTER = 1             # seconds a client turned away is asked to wait
HURRY = 1.0                 # seconds a request may take to arrive while other connections wait
STUCK_MARGIN = 5            # seconds past its operation's time limit before a busy worker counts as stuck
WATCH_EVERY = 1.0           # seconds between two looks of the watchdog
SLICE = 0.25                # seconds between two looks at the queue while a connection is idle
WRITE_BUFFER = 64 * 1024    # an answer up to this size goes out in one write
LINGER_SECONDS, LINGER_BYTES = 2, 4 * 1024 * 1024   # draining a refused body before closing
LOOPBACK_NAMES = ("localhost",)
CONTENT_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
                 ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml"}
# The page loads only its own files; the inline board is SVG markup, not an image.
PAGE_POLICY = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
               "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
HTTP_STATUS = {UNSUPPORTED: 404, NOT_FOUND: 404, METHOD_NOT_ALLOWED: 405,
               LENGTH_REQUIRED: 411, TOO_LARGE: 413, UNSUPPORTED_MEDIA_TYPE: 415,
               FORBIDDEN: 403, REQUEST_TIMEOUT: 408, INTERNAL_ERROR: 500,
               BUSY: 503, BUDGET_EXCEEDED: 503,
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


# host[:port] as RFC 9110 writes it: a bracketed IPv6 address or a name / IPv4 address
HOST = re.compile(r"(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+))(?::[0-9]{1,5})?")
ORIGIN = re.compile(r"https?://(.+)")
LENGTH = re.compile(r"[0-9]{1,12}")


def host_name(header: str) -> str | None:
    """The host of a Host header value (``127.0.0.1:8765``, ``[::1]:8765``), or None when
    the value is not exactly a host and an optional port (``[::1]evil.example``)."""
    m = HOST.fullmatch(header)
    return None if m is None else m[1] or m[2]


def origin_host(header: str) -> str | None:
    """The host of an Origin header value (``http://127.0.0.1:8765``), or None."""
    m = ORIGIN.fullmatch(header)
    return None if m is None else host_name(m[1])


class DeskServer(HTTPServer):
    """A bounded pool of worker threads serving the connections, which wait in a bounded
    queue; nothing shared between requests but read-only data."""

    allow_reuse_address = True
    request_queue_size = BACKLOG

    def __init__(self, host: str, port: int, verbose: bool = False, workers: int = WORKERS,
                 queue_size: int = QUEUE, read_timeout: float = READ_TIMEOUT,
                 request_seconds: float = REQUEST_SECONDS, hurry: float = HURRY,
                 stuck_after: float | None = None, options: dict | None = None):
        self.options = dict(options or {})   # the rule options the page starts under (--option)
        self.address_family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.read_timeout, self.request_seconds, self.hurry = read_timeout, request_seconds, hurry
        ops.warm_up()     # before any worker runs: no request ever imports or sets up anything
        super().__init__((host, port), Handler)
        self.loopback_only = is_loopback(host)
        self.verbose = verbose
        self.files = static_files()
        self.catalogue_html = None
        self.lock = threading.Lock()
        self.waiting = queue.Queue(queue_size)
        self.turned_away = collections.deque()      # (closing time, socket) of 503 answers
        self.watch = Watch(request_seconds + STUCK_MARGIN if stuck_after is None else stuck_after)
        self.workers = [threading.Thread(target=self.work, name=f"desk-worker-{i}", daemon=True)
                        for i in range(workers)]
        for worker in self.workers:
            worker.start()
        threading.Thread(target=self.watch.run, name="desk-watchdog", daemon=True).start()

    # ------------------------------------------------ the pool

    def process_request(self, request, client_address):
        """Queue an accepted connection for a worker, or answer 503 at once when the queue is full."""
        try:
            self.waiting.put_nowait((request, client_address))
        except queue.Full:
            self.turn_away(request)

    def others_waiting(self) -> bool:
        return not self.waiting.empty()

    def work(self):
        while True:
            item = self.waiting.get()
            if item is None:
                return
            request, client_address = item
            try:
                self.finish_request(request, client_address)
            except Exception:  # noqa: BLE001  one connection's fault never stops a worker
                self.handle_error(request, client_address)
            finally:
                self.watch.idle()
                self.shutdown_request(request)

    def turn_away(self, request):
        """Answer 503 without reading the request (the accept loop never waits on a client);
        the socket is closed a little later, after what the client sent is drained, so that
        it sees the answer rather than a reset."""
        body = json.dumps({"ok": False, "error": {"code": BUSY, "message": (
            f"the desk is busy: {len(self.workers)} requests are being answered and "
            f"{self.waiting.maxsize} wait; "
            f"try again in {RETRY_AFTER} s")}}, separators=(",", ":")).encode()
        head = (f"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\nRetry-After: {RETRY_AFTER}\r\n"
                f"Cache-Control: no-store\r\nConnection: close\r\n\r\n").encode()
        try:
            request.setblocking(False)
            request.send(head + body)
            request.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        if len(self.turned_away) >= self.waiting.maxsize:
            drain_and_close(self.turned_away.popleft()[1])
        self.turned_away.append((time.monotonic() + LINGER_SECONDS, request))

    def service_actions(self):
        """(Between two accepts.) Close the turned-away connections whose time has come."""
        now = time.monotonic()
        while self.turned_away and self.turned_away[0][0] <= now:
            drain_and_close(self.turned_away.popleft()[1])

    def health(self) -> dict:
        """The workers as /api/health shows them."""
        busy = self.watch.busy()
        return {"workers": len(self.workers), "busy": len(busy), "waiting": self.waiting.qsize(),
                "stuck_after": self.watch.stuck_after,
                "stuck": [b for b in busy if b["seconds"] >= self.watch.stuck_after]}

    def server_close(self):
        if hasattr(self, "watch"):              # (not when the address could not be bound)
            self.watch.stop.set()
        super().server_close()
        if not hasattr(self, "workers"):        # (the address could not be bound)
            return
        for _ in self.workers:
            try:
                self.waiting.put_nowait(None)
            except queue.Full:
                break
        while self.turned_away:
            drain_and_close(self.turned_away.popleft()[1])

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


class Watch:
    """What each worker is busy with since when; ``run`` (a thread) says on stderr, once per
    request, when a worker has been busy on one for ``stuck_after`` seconds or more."""

    def __init__(self, stuck_after: float):
        self.stuck_after = stuck_after
        self.lock = threading.Lock()
        self.doing: dict[str, tuple[float, str]] = {}    # worker name -> (since, what)
        self.told: set = set()
        self.stop = threading.Event()

    def busy_with(self, what: str) -> None:
        with self.lock:
            self.doing[threading.current_thread().name] = (time.monotonic(), what)

    def idle(self) -> None:
        with self.lock:
            self.doing.pop(threading.current_thread().name, None)

    def busy(self) -> list[dict]:
        now = time.monotonic()
        with self.lock:
            return [{"worker": name, "doing": what, "seconds": round(now - since, 3)}
                    for name, (since, what) in sorted(self.doing.items())]

    def run(self) -> None:
        while not self.stop.wait(WATCH_EVERY):
            with self.lock:
                now, doing = time.monotonic(), dict(self.doing)
            for name, (since, what) in doing.items():
                if now - since >= self.stuck_after and (name, since) not in self.told:
                    self.told.add((name, since))
                    print(f"doublecheck desk: {name} has been busy with {what} for "
                          f"{now - since:.0f} s (stuck; GET /api/health shows the workers)",
                          file=sys.stderr, flush=True)


def drain_and_close(sock):
    try:
        sock.setblocking(False)
        while sock.recv(65536):
            pass
    except OSError:
        pass
    sock.close()


class TooSlow(Exception):
    """The request did not arrive whole within its time (headers and body together)."""

    code = REQUEST_TIMEOUT

    def __init__(self, seconds: float, others: bool = False):
        self.message = (f"the request did not arrive within {seconds:g} seconds (headers "
                        f"and body together){' while other clients waited' if others else ''}; "
                        f"the connection is closed")
        super().__init__(self.message)


class ClientGone(ConnectionAbortedError):
    """The client closed its connection while its request was being answered."""


class RequestReader(io.RawIOBase):
    """What a handler reads from its connection: each read waits at most until the
    deadline of the request under way (headers and body together, ``Handler.deadline``),
    however the client spaces its bytes, in slices of ``SLICE`` seconds so that a kept
    connection with no request under way gives its worker up when others wait (a new
    connection has its whole time: its first request may be on the way), and a
    request still arriving after the server's ``hurry`` seconds gives it up too when
    others wait (a trickling client: answered 408, or dropped if it sent nothing)."""

    def __init__(self, handler):
        super().__init__()
        self.handler, self.sock = handler, handler.connection

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        handler = self.handler
        while True:
            left = handler.deadline - time.monotonic()
            if left <= 0:
                handler.close_connection = True
                raise TooSlow(handler.server.read_timeout)
            if handler.server.read_timeout - left > handler.server.hurry and handler.server.others_waiting():
                handler.close_connection = True
                if not handler.started:
                    raise ConnectionAbortedError("a silent connection gives way") from None
                raise TooSlow(handler.server.hurry, others=True)
            self.sock.settimeout(min(left, SLICE))
            try:
                count = self.sock.recv_into(buffer)
            except TimeoutError:
                if not handler.started and handler.served and handler.server.others_waiting():
                    raise ConnectionAbortedError("an idle kept connection gives way") from None
                continue
            finally:
                self.sock.settimeout(handler.server.read_timeout)   # (writes keep the plain timeout)
            handler.started = True
            return count


class Handler(BaseHTTPRequestHandler):
    server_version = f"doublecheck-desk/{__version__}"
    protocol_version = "HTTP/1.1"
    timeout = READ_TIMEOUT
    wbufsize = WRITE_BUFFER     # headers and body leave together, in one write
    # (and without Nagle's delay a longer answer's last segment does not wait for the
    # client's delayed acknowledgement: 40 ms per answer on a kept connection)
    disable_nagle_algorithm = True
    unread_body = False
    deadline, started, served = 0.0, False, 0     # (served: requests answered on the connection)
    requestline, request_version = "", "HTTP/1.1"   # until a request line is read
    default_request_version = "HTTP/1.1"   # every answer has a status line, even to "GARBAGE"

    def setup(self):
        super().setup()
        self.rfile.close()              # (the library's reader, replaced just below)
        self.rfile = io.BufferedReader(RequestReader(self))

    def handle_one_request(self):
        """One request, which must arrive whole within the server's read_timeout."""
        self.deadline, self.started = time.monotonic() + self.server.read_timeout, False
        try:
            super().handle_one_request()
            self.served += 1
        except TooSlow as e:            # in the request line or the headers
            self.close_connection = True
            if self.started:
                self.send_error_json(e.code, e.message)
                self.wfile.flush()

    def send_error(self, code, message=None, explain=None):
        """The library's own refusals (a malformed request line or headers, a line too
        long) in JSON as well, and the connection closed: it may be out of step."""
        self.close_connection = True
        self.send_error_json(INVALID_REQUEST, message or HTTPStatus(code).phrase, status=code)

    def __getattr__(self, name):
        if name.startswith("do_"):      # any other method: a JSON 405, not the library's 501 page
            return self.refuse_method
        raise AttributeError(name)

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
            if path == "/api/health":
                return self.send_json(200, {"ok": True, **self.server.health()}, head)
            if path == "/api/hello":
                hello = dict(ops.hello())
                hello["desk"] = dict(hello["desk"], max_body=MAX_BODY,
                                     start_options=self.server.options)
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
                if not path.startswith("/api/") or path in ("/api/hello", "/api/health"):
                    raise DeskError(METHOD_NOT_ALLOWED if path in ("/", "/rules", "/api/hello", "/api/health")
                                    else NOT_FOUND, f"POST {path}: the operations are at /api/OP")
            except DeskError:
                self.skip_body()
                raise
            request = self.read_json()
            rid = request.get("id")
            result = self.run(path[len("/api/"):], request)
        except ClientGone:
            self.close_connection = True        # nobody to answer
            return
        except Exception as e:  # noqa: BLE001  answered, never fatal (see refuse)
            return self.refuse(e, f"POST {path}", rid=rid)
        body = {"ok": True, **result}
        if isinstance(rid, (str, int)) and not isinstance(rid, bool):
            body = {"id": rid, **body}
        self.send_json(200, body)

    def run(self, op: str, request: dict) -> dict:
        """``ops.answer`` under the time limit of ``doublecheck serve``, stopped as soon as
        the client goes away."""
        self.server.watch.busy_with(f"POST /api/{op}")
        try:
            with time_limit_unless_gone(self.server.request_seconds, self.client_gone):
                return ops.answer(op, request)
        except TimeLimitExceeded:
            if self.client_gone():
                raise ClientGone() from None
            raise DeskError(BUDGET_EXCEEDED, f"the desk stops a request after "
                                             f"{self.server.request_seconds:g} "
                                             f"seconds, and this one needed longer; ask the "
                                             f"command line (doublecheck --help)") from None

    def client_gone(self) -> bool:
        """Has the client closed or reset its connection?  (Data it sent ahead, such as a
        next request, is left in place.)"""
        try:
            poller = select.poll()
            poller.register(self.connection, select.POLLIN)
            if not poller.poll(0):
                return False
            return self.connection.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
        except BlockingIOError:
            return False
        except (OSError, ValueError):
            return True

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
        """Bound to loopback, answer only requests addressed to a loopback name (exactly one
        Host header, exactly a host and a port), and only scripts of such an origin (a page
        elsewhere cannot rebind its name here; a sandboxed page's ``null`` is refused too)."""
        if not self.server.loopback_only:
            return
        hosts = self.headers.get_all("Host") or []
        if len(hosts) != 1:
            raise DeskError(FORBIDDEN, f"a request needs exactly one Host header, not {len(hosts)}")
        name = host_name(hosts[0].strip())
        if name is None or not is_loopback(name):
            raise DeskError(FORBIDDEN, f"this desk answers requests for 127.0.0.1 or localhost, "
                                       f"not for {quote(hosts[0], 80)}")
        origins = self.headers.get_all("Origin") or []
        if len(origins) > 1:
            raise DeskError(FORBIDDEN, "a request has at most one Origin header")
        if origins:
            name = origin_host(origins[0].strip())
            if name is None or not is_loopback(name):
                raise DeskError(FORBIDDEN, f"requests from pages at {quote(origins[0], 80)} "
                                           f"are not answered")

    def read_json(self) -> dict:
        """The request body as a JSON object; every limit is checked before it is read."""
        if self.headers.get("Transfer-Encoding"):
            self.refuse_body()
            raise DeskError(LENGTH_REQUIRED, "send the body with a Content-Length "
                                               "(chunked bodies are not accepted)")
        lengths = self.headers.get_all("Content-Length") or []
        if not lengths:
            self.refuse_body()
            raise DeskError(LENGTH_REQUIRED, "a request body needs a Content-Length header")
        size = self.body_size()
        if size is None:
            self.refuse_body()
            raise DeskError(INVALID_REQUEST, f"Content-Length must be given once, as a byte count "
                                             f"in digits, not {quote(', '.join(lengths), 60)}")
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
        size = self.body_size() if self.headers.get("Content-Length") is not None else 0
        if size is None:
            size = MAX_BODY + 1
        if 0 < size <= MAX_BODY:
            self.rfile.read(size)
        elif size or self.headers.get("Transfer-Encoding"):
            self.refuse_body()

    def body_size(self) -> int | None:
        """The one Content-Length as a number, or None unless it is exactly one header of digits."""
        lengths = self.headers.get_all("Content-Length") or []
        if len(lengths) != 1 or not LENGTH.fullmatch(lengths[0].strip()):
            return None
        return int(lengths[0])

    # ---------------------------------------------------------- answers

    def send(self, status: int, body: bytes, content_type: str, head: bool = False):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Content-Security-Policy", PAGE_POLICY)
        if self.server.others_waiting():
            self.close_connection = True        # a kept connection gives its worker up to them
        if status == 405:
            self.send_header("Allow", "GET, HEAD" if not self.path.startswith("/api/")
                             or self.path in ("/api/hello", "/api/health") else "POST")
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

    def send_error_json(self, code: str, message: str, head: bool = False, rid=None, status=None):
        value = {"ok": False, "error": {"code": code, "message": message}}
        if isinstance(rid, (str, int)) and not isinstance(rid, bool):
            value = {"id": rid, **value}
        self.send_json(status or HTTP_STATUS.get(code, 400), value, head)

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
        server = DeskServer(args.host, args.port, verbose=args.verbose,
                            options=getattr(args, "declared", None))
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
