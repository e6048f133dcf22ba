"""The desk under hostile clients, on 127.0.0.1 with a bounded number of connections, each
test ending by itself: clients that hang up mid-request cannot wedge it (every first-use
set-up is done before it serves, and a stop never lands inside an import), trickling
clients cannot hold every worker, and /api/health shows a stuck worker."""

import json
import os
import random
import select
import socket
import subprocess
import sys
import threading
import time
import urllib.request

import pytest
from desk_support import fetch, running_desk

from doublecheck.desk import ops

POST = (b"POST /api/position HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\n\r\n%s")


def address(base: str):
    host, port = base[len("http://"):].split(":")
    return host, int(port)


def hang_up(where, after: float, body: bytes, whole: bool) -> None:
    """One client: sends a request (whole, or cut in the middle of its body), then closes
    its connection ``after`` seconds later without reading the answer."""
    data = POST % (len(body), body)
    with socket.create_connection(where, timeout=10) as s:
        s.sendall(data if whole else data[:len(data) - len(body) // 2])
        time.sleep(after)


@pytest.fixture()
def desk_process():
    """``doublecheck desk --port 0`` in a fresh process (nothing imported before it starts)."""
    proc = subprocess.Popen([sys.executable, "-m", "doublecheck", "desk", "--host", "127.0.0.1",
                             "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 120)
        assert ready, "the desk did not start"
        first = proc.stdout.readline()
        yield f"http://127.0.0.1:{int(first.split('http://127.0.0.1:')[1].split('/')[0])}"
    finally:
        proc.terminate()
        proc.wait(30)


def test_clients_hanging_up_mid_request_never_wedge_the_desk(desk_process):
    """Three rounds of 16 clients (the worker count) closing after 0.05-0.5 s, half of them
    in the middle of the body; then the desk answers at once, and nothing is stuck."""
    where = address(desk_process)
    body = json.dumps({"variant": "double-chess", "moves": []}).encode()
    rng = random.Random(38)
    for _ in range(3):
        clients = [threading.Thread(target=hang_up, args=(where, rng.uniform(0.05, 0.5), body, i % 2 == 0))
                   for i in range(16)]
        for c in clients:
            c.start()
        for c in clients:
            c.join(30)
    for _ in range(16):
        assert fetch(f"{desk_process}/api/hello")[0] == 200
    status, _, health = fetch(f"{desk_process}/api/health")
    assert status == 200 and health["stuck"] == [] and health["workers"] == 16


def test_trickling_clients_cannot_hold_every_worker():
    """Two workers, six clients sending one byte every 0.1 s: a new request is still
    answered, and a trickler that held a worker while others waited gets 408."""
    with running_desk(workers=2, hurry=0.5, read_timeout=60) as base:
        stop, answers = threading.Event(), []

        def trickler():
            data = POST % (100, b"{" + b" " * 98 + b"}")
            with socket.create_connection(address(base), timeout=30) as s:
                for byte in data:
                    if stop.is_set():
                        return
                    ready, _, _ = select.select([s], [], [], 0.1)
                    if ready:
                        answers.append(s.recv(65536))
                        return
                    try:
                        s.sendall(bytes([byte]))
                    except OSError:
                        return

        threads = [threading.Thread(target=trickler) for _ in range(6)]
        for t in threads:
            t.start()
        try:
            time.sleep(0.3)      # the tricklers hold both workers
            assert fetch(f"{base}/api/hello")[0] == 200
        finally:
            stop.set()
            for t in threads:
                t.join(30)
        assert any(a.startswith(b"HTTP/1.1 408") and b"while other clients waited" in a for a in answers)


def test_a_silent_new_connection_gives_way_when_others_wait():
    with running_desk(workers=1, hurry=0.3, read_timeout=60) as base:
        with socket.create_connection(address(base), timeout=30) as silent:
            time.sleep(0.2)
            assert fetch(f"{base}/api/hello")[0] == 200
            silent.settimeout(30)
            assert silent.recv(1) == b""        # closed, answered nothing


def test_health_shows_a_stuck_worker_and_the_watchdog_says_so(monkeypatch, capsys):
    release = threading.Event()

    def held(request):
        release.wait(30)
        return {"held": True}

    monkeypatch.setattr(ops, "position", held)
    with running_desk(workers=2, request_seconds=60, stuck_after=0.2) as base:
        result = {}
        asker = threading.Thread(target=lambda: result.update(answer=fetch(f"{base}/api/position", {})))
        asker.start()
        try:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                health = fetch(f"{base}/api/health")[2]
                if health["stuck"]:
                    break
                time.sleep(0.1)
            assert health["busy"] == 1 and health["stuck"][0]["doing"] == "POST /api/position"
            time.sleep(1.5)            # the watchdog looks once a second
        finally:
            release.set()
            asker.join(30)
        assert result["answer"][0] == 200
        # the worker clears its record just after it has sent the answer: wait for that
        deadline = time.monotonic() + 10
        while fetch(f"{base}/api/health")[2]["stuck"] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert fetch(f"{base}/api/health")[2]["stuck"] == []
    assert "has been busy with POST /api/position" in capsys.readouterr().err


def test_health_is_get_only():
    with running_desk() as base:
        request = urllib.request.Request(f"{base}/api/health", data=b"{}", method="POST",
                                         headers={"Content-Type": "application/json"})
        try:
            urllib.request.urlopen(request, timeout=30)
            status = 200
        except urllib.error.HTTPError as e:
            status = e.code
        assert status == 405


def test_the_desk_imports_nothing_while_it_serves():
    """Every module an operation needs is imported before the first connection."""
    code = ("import sys, json\nfrom desk_support import fetch, running_desk\n"
            "with running_desk() as base:\n    before = set(sys.modules)\n"
            "    for op, body in [('position', {'variant': 'symmetric-monster'}), ('explain', "
            "{'variant': 'chess', 'move': 'e2e4'}), ('replay', {'pgn': '1. e4 *'}), ('pgn', "
            "{'moves': ['e2e4']}), ('moves', {'variant': 'marseillais'})]:\n"
            "        assert fetch(base + '/api/' + op, body)[0] == 200, op\n"
            "    fetch(base + '/rules')\n"
            "    print(json.dumps(sorted(set(sys.modules) - before)))\n")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(__file__))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == []
