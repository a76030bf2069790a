#!/usr/bin/env python3
"""usage: scripts/numeric-speed.py BINARY FOLIO_PORT PG_PORT DIR [--runs N]

-> numeric arithmetic and functions timed on `folio serve` and on
PostgreSQL 15, the same statements through `psql` on each, and the ratio
folio / PostgreSQL of each statement's best time over N runs (default 3).
Short numbers (38 digits or fewer), long ones (41 digits, and results of
thousands of digits) and the functions at their default scales; each
value is computed from a column or `i * 0` so it is not folded into a
constant once. Both servers are started here, on DIR/folio and a
temporary cluster in DIR/pg (PostgreSQL 15 from /usr/lib/postgresql/15,
run as the `postgres` user when this runs as root), and stopped at the
end. The statements' results are compared too: a difference is reported
and makes the exit status 1.
"""

import os
import re
import shutil
import subprocess
import sys
import time

PG_BIN = "/usr/lib/postgresql/15/bin"

SETUP = [
    "create table long_numbers (x numeric)",
    "insert into long_numbers select (12345678901234567890123456789012345678901"
    " + i)::numeric / 10 from generate_series(1, 200000) i",
    "create table short_numbers (x numeric)",
    "insert into short_numbers select i::numeric * 1.5 from generate_series(1, 1000000) i",
]

CASES = [
    # The scans and sums alone, beside which the rows' arithmetic is timed.
    ("sum of short numbers, 1M rows", "select sum(x) from short_numbers"),
    ("sum of short products, 1M rows", "select sum(x * 2) from short_numbers"),
    ("sum of 41-digit numbers, 200k rows", "select sum(x) from long_numbers"),
    ("sum of 41-digit squares, 200k rows", "select sum(x * x) from long_numbers"),
    ("sum of 41-digit quotients, 200k rows", "select sum(x / 7) from long_numbers"),
    ("sum of 41-digit sums, 200k rows", "select sum(x + x) from long_numbers"),
    ("exp(1) x 10k", "select sum(exp((i * 0 + 1)::numeric)) from generate_series(1, 10000) i"),
    ("ln(2) x 10k", "select sum(ln((i * 0 + 2)::numeric)) from generate_series(1, 10000) i"),
    ("sqrt(2) x 10k", "select sum(sqrt((i * 0 + 2)::numeric)) from generate_series(1, 10000) i"),
    (
        "power(1.5, 0.333) x 10k",
        "select sum(power((i * 0 + 1.5)::numeric, 0.333)) from generate_series(1, 10000) i",
    ),
    ("exp(5000) x 5", "select sum(length(exp((5000 + i * 0)::numeric)::text)) from generate_series(1, 5) i"),
    (
        "2 ^ 100000 x 5",
        "select sum(length((2::numeric ^ (100000 + i * 0))::text)) from generate_series(1, 5) i",
    ),
    ("factorial(3000) x 5", "select sum(length(factorial(3000 + i * 0)::text)) from generate_series(1, 5) i"),
]


def wait_ready(port, host):
    for _ in range(600):
        ok = subprocess.run([f"{PG_BIN}/pg_isready", "-q", "-h", host, "-p", str(port)])
        if ok.returncode == 0:
            return
        time.sleep(0.5)
    sys.exit(f"no server on port {port}")


def psql(port, host, sql):
    """The statement's output and its time in ms (psql's \\timing)."""
    out = subprocess.run(
        ["psql", "-X", "-At", "-h", host, "-p", str(port), "-U", "postgres", "-d", "postgres"],
        input=f"\\timing on\n{sql};\n",
        capture_output=True,
        text=True,
    )
    if out.returncode != 0 or "ERROR" in out.stderr:
        sys.exit(f"{sql}: {out.stderr.strip()}")
    lines = out.stdout.strip().splitlines()
    times = [float(m.group(1)) for line in lines if (m := re.match(r"Time: ([0-9.]+) ms", line))]
    result = [line for line in lines if not line.startswith("Time:") and line != "Timing is on."]
    return "\n".join(result), times[-1]


def as_postgres(cmd):
    return ["su", "postgres", "-c", " ".join(cmd)] if os.geteuid() == 0 else cmd


def main():
    args = sys.argv[1:]
    runs = 3
    if "--runs" in args:
        i = args.index("--runs")
        runs = int(args[i + 1])
        del args[i : i + 2]
    if len(args) != 4:
        sys.exit(__doc__)
    binary, folio_port, pg_port, base = args[0], int(args[1]), int(args[2]), args[3]
    shutil.rmtree(base, ignore_errors=True)
    os.makedirs(f"{base}/pg")
    if os.geteuid() == 0:
        shutil.chown(f"{base}/pg", "postgres")
    subprocess.run(
        as_postgres([f"{PG_BIN}/initdb", "-D", f"{base}/pg/data", "-A", "trust", "-U", "postgres"]),
        check=True,
        capture_output=True,
    )
    pg_cmd = [f"{PG_BIN}/pg_ctl", "-D", f"{base}/pg/data", "-o", f"'-p {pg_port} -k {base}/pg'", "-l", f"{base}/pg/log"]
    subprocess.run(as_postgres(pg_cmd + ["start"]), check=True, capture_output=True)
    folio = subprocess.Popen(
        [binary, "serve", f"{base}/folio", "--listen", f"127.0.0.1:{folio_port}", "--unix-socket-directories", ""],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    status = 0
    try:
        servers = [("folio", folio_port), ("postgres", pg_port)]
        for _, port in servers:
            wait_ready(port, "127.0.0.1")
            for sql in SETUP:
                psql(port, "127.0.0.1", sql)
        print(f"{'statement':40} {'folio ms':>10} {'PG ms':>10} {'folio/PG':>9}")
        for name, sql in CASES:
            best = {}
            results = {}
            for _ in range(runs):
                for engine, port in servers:
                    result, ms = psql(port, "127.0.0.1", sql)
                    best[engine] = min(best.get(engine, ms), ms)
                    results[engine] = result
            ratio = best["folio"] / best["postgres"]
            print(f"{name:40} {best['folio']:10.1f} {best['postgres']:10.1f} {ratio:9.2f}")
            if results["folio"] != results["postgres"]:
                print(f"  results differ: folio {results['folio'][:60]!r}, PG {results['postgres'][:60]!r}")
                status = 1
    finally:
        folio.terminate()
        folio.wait()
        subprocess.run(as_postgres(pg_cmd + ["stop", "-m", "fast"]), capture_output=True)
        shutil.rmtree(base, ignore_errors=True)
    sys.exit(status)


if __name__ == "__main__":
    main()
