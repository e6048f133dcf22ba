"""The desk under load, on loopback: a burst of clients, and kept versus new connections.

    python3 benchmarks/desk_burst_bench.py                  # 200 clients x 5 requests
    python3 benchmarks/desk_burst_bench.py --clients 50 --requests 20
    python3 benchmarks/desk_burst_bench.py --attacks        # hang-ups and tricklers, then 1,000 requests

It starts ``doublecheck desk --port 0`` (127.0.0.1 only) as a child process and
stops it at the end.  Two measurements:

1. A burst: ``--clients`` threads start together, each sends ``--requests``
   short requests (``POST /api/moves`` of the start position), one connection
   per request, as the page's first clicks do.  It prints how many were
   answered 200, how many 503 ``busy`` (the desk's queue was full), how many got
   no answer, and the latency percentiles (p50, p99, max).
2. The rate of one client asking ``--rate-requests`` times over one kept
   (keep-alive) connection, and over a new connection per request, side by
   side with their ratio (1.0: a kept connection costs nothing extra).

With ``--attacks``, instead: the two attacks on the desk's workers, each
followed by ordinary requests, printing whether every request was answered
and the latency percentiles (the desk's answer to them is in docs/desk.md,
"Limits"):

1. early disconnects: ``--hangup-rounds`` rounds of ``--hangup-clients``
   clients that send a request (half of them cut off in the middle of the
   body) and close their connection after 0.05-0.5 s without reading;
2. tricklers: ``--tricklers`` connections sending a request a byte every
   0.1 s, held open while ``--ordinary`` ordinary requests (``POST
   /api/moves``, a new connection each, 16 clients at once) are answered.

Every client waits at most ``--wait`` seconds for an answer.  This is a
measurement script, not a test: nothing here asserts on time.
"""

import argparse
import http.client
import json
import os
import random
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BODY = json.dumps({"variant": "chess"}).encode()
HEADERS = {"Content-Type": "application/json"}


def start_desk(quiet: bool = False):
    """(process, port) of ``doublecheck desk`` on an ephemeral loopback port (``quiet``: its
    log of refused requests, one line per trickler turned away, is not shown)."""
    env = dict(os.environ, PYTHONUNBUFFERED="1",
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.Popen([sys.executable, "-m", "doublecheck", "desk", "--host", "127.0.0.1",
                             "--port", "0"], stdout=subprocess.PIPE, text=True, env=env,
                            stderr=subprocess.DEVNULL if quiet else None)
    first = proc.stdout.readline()          # doublecheck desk: http://127.0.0.1:PORT/   (...)
    port = int(first.split("http://127.0.0.1:")[1].split("/")[0])
    return proc, port


def ask(conn) -> int:
    conn.request("POST", "/api/moves", body=BODY, headers=HEADERS)
    response = conn.getresponse()
    response.read()
    return response.status


def burst(port: int, clients: int, requests: int, wait: float):
    """(statuses, latencies) of ``clients`` threads each asking ``requests`` times."""
    statuses, latencies, lock = [], [], threading.Lock()
    go = threading.Event()

    def client():
        go.wait()
        for _ in range(requests):
            start = time.perf_counter()
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=wait)
                status = ask(conn)
                conn.close()
            except (OSError, http.client.HTTPException):
                status = None
            with lock:
                statuses.append(status)
                latencies.append(time.perf_counter() - start)

    threads = [threading.Thread(target=client, daemon=True) for _ in range(clients)]
    for t in threads:
        t.start()
    go.set()
    for t in threads:
        t.join(timeout=wait * requests + 30)
    return statuses, sorted(latencies)


def rate(port: int, count: int, keep: bool, wait: float) -> float:
    """Requests per second of one client, over one kept connection or a new one each time."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=wait)
    start = time.perf_counter()
    for _ in range(count):
        if not keep:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=wait)
        assert ask(conn) == 200
        if not keep:
            conn.close()
    conn.close()
    return count / (time.perf_counter() - start)


def hang_up(port: int, after: float, whole: bool) -> None:
    head = (f"POST /api/position HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(BODY)}\r\n\r\n").encode()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(head + (BODY if whole else BODY[:len(BODY) // 2]))
            time.sleep(after)
    except OSError:
        pass


def trickle(port: int, stop: threading.Event) -> None:
    """One slow client: a request a byte every 0.1 s, again whenever the desk closes it."""
    data = (f"POST /api/moves HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(BODY)}\r\n\r\n").encode() + BODY
    while not stop.is_set():
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
                for byte in data:
                    if stop.wait(0.1):
                        return
                    s.sendall(bytes([byte]))
                s.recv(65536)
        except OSError:
            pass


def attacks(port: int, args) -> None:
    rng = random.Random(38)
    for _ in range(args.hangup_rounds):
        clients = [threading.Thread(target=hang_up, args=(port, rng.uniform(0.05, 0.5), i % 2 == 0))
                   for i in range(args.hangup_clients)]
        for c in clients:
            c.start()
        for c in clients:
            c.join(30)
    statuses, latencies = burst(port, 8, 10, args.wait)
    print(f"after {args.hangup_rounds} rounds of {args.hangup_clients} early disconnects: 80 requests, "
          f"answered 200: {statuses.count(200)}, p99 {percentile(latencies, 99) * 1000:.1f} ms")
    stop = threading.Event()
    slow = [threading.Thread(target=trickle, args=(port, stop), daemon=True) for _ in range(args.tricklers)]
    for t in slow:
        t.start()
    time.sleep(1.0)
    try:
        statuses, latencies = burst(port, 16, args.ordinary // 16, args.wait)
    finally:
        stop.set()
    total = 16 * (args.ordinary // 16)
    print(f"with {args.tricklers} tricklers: {total} ordinary requests, answered 200: {statuses.count(200)}   "
          f"503 busy: {statuses.count(503)}   no answer: {statuses.count(None) + total - len(statuses)}")
    print(f"  latency ms: p50 {percentile(latencies, 50) * 1000:.1f}   "
          f"p99 {percentile(latencies, 99) * 1000:.1f}   max {latencies[-1] * 1000:.1f}")
    for t in slow:
        t.join(5)


def percentile(values, p: float) -> float:
    return values[min(len(values) - 1, int(p / 100 * len(values)))] if values else float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--requests", type=int, default=5, help="requests per client")
    parser.add_argument("--rate-requests", type=int, default=300)
    parser.add_argument("--wait", type=float, default=30.0, help="seconds a client waits for an answer")
    parser.add_argument("--attacks", action="store_true", help="the two attacks, then ordinary requests")
    parser.add_argument("--hangup-rounds", type=int, default=3)
    parser.add_argument("--hangup-clients", type=int, default=16)
    parser.add_argument("--tricklers", type=int, default=40)
    parser.add_argument("--ordinary", type=int, default=1008, help="ordinary requests (a multiple of 16)")
    args = parser.parse_args()
    proc, port = start_desk(quiet=args.attacks)
    try:
        if args.attacks:
            return attacks(port, args)
        statuses, latencies = burst(port, args.clients, args.requests, args.wait)
        total = args.clients * args.requests
        print(f"burst: {args.clients} clients x {args.requests} requests = {total}")
        print(f"  answered 200: {statuses.count(200)}   503 busy: {statuses.count(503)}   "
              f"other: {sum(1 for s in statuses if s not in (200, 503, None))}   "
              f"no answer: {statuses.count(None) + total - len(statuses)}")
        print(f"  latency ms: p50 {percentile(latencies, 50) * 1000:.1f}   "
              f"p99 {percentile(latencies, 99) * 1000:.1f}   max {latencies[-1] * 1000:.1f}")
        kept = rate(port, args.rate_requests, True, args.wait)
        fresh = rate(port, args.rate_requests, False, args.wait)
        print(f"one client, {args.rate_requests} requests: kept connection {kept:.0f}/s   "
              f"new connection each {fresh:.0f}/s   ratio new/kept {fresh / kept:.2f}")
    finally:
        proc.terminate()
        proc.wait(timeout=30)


if __name__ == "__main__":
    main()
