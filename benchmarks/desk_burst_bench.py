"""The desk under load, on loopback: a burst of clients, and kept versus new connections.

    python3 benchmarks/desk_burst_bench.py                  # 200 clients x 5 requests
    python3 benchmarks/desk_burst_bench.py --clients 50 --requests 20

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

Every client waits at most ``--wait`` seconds for an answer.  This is a
measurement script, not a test: nothing here asserts on time.
"""

import argparse
import http.client
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BODY = json.dumps({"variant": "chess"}).encode()
HEADERS = {"Content-Type": "application/json"}


def start_desk():
    """(process, port) of ``doublecheck desk`` on an ephemeral loopback port."""
    env = dict(os.environ, PYTHONUNBUFFERED="1",
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.Popen([sys.executable, "-m", "doublecheck", "desk", "--host", "127.0.0.1",
                             "--port", "0"], stdout=subprocess.PIPE, text=True, env=env)
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


def percentile(values, p: float) -> float:
    return values[min(len(values) - 1, int(p / 100 * len(values)))] if values else float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--requests", type=int, default=5, help="requests per client")
    parser.add_argument("--rate-requests", type=int, default=300)
    parser.add_argument("--wait", type=float, default=30.0, help="seconds a client waits for an answer")
    args = parser.parse_args()
    proc, port = start_desk()
    try:
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
