#!/usr/bin/env python3
"""Runs SQL scripts on folio and on PostgreSQL side by side and compares
the answers statement by statement.

    scripts/pg_diff.py [-v] [--tables] FOLIO_BIN PG_PORT FOLIO_PORT FILE.sql [...]

For each FILE.sql the script starts a fresh `FOLIO_BIN serve` on a new
temporary data directory at 127.0.0.1:FOLIO_PORT, creates a fresh
database `pgdiff_<file>` in the PostgreSQL cluster at 127.0.0.1:PG_PORT
(user postgres, trust authentication), sends every statement of the file
to both over one simple-protocol connection each, then drops the database
and stops the server.

Statements are split at semicolons outside quotes, dollar-quoted bodies
and comments; psql meta-commands (lines starting with a backslash) are
skipped. EXPLAIN statements are sent to neither side (plans differ by
design) and counted as skipped. `--tables` first creates, on both sides,
deterministic stand-ins for the regression suite's shared tables (onek,
tenk1, int4_tbl, int8_tbl, float8_tbl, char_tbl, varchar_tbl, text_tbl):
the same columns and, for onek and tenk1, the indexes create_index.sql
makes on them, generated rather than loaded, so results are comparable
between the two servers but not with PostgreSQL's expected files. It also
creates the geometric tables (point_tbl, line_tbl, lseg_tbl, box_tbl,
path_tbl, polygon_tbl, circle_tbl) with the rows the regression files
put in them (test_setup.sql, line.sql, ...), each that the file run
names but does not create itself; one whose setup fails on folio alone is reported and
the run goes on. Before them it runs test_setup.sql's `GRANT ALL ON
SCHEMA public TO public`.

Answers are compared as: column names and rows (rows as a multiset when
the statement has no ORDER BY of its own, outside parentheses), the
command tag, or the SQLSTATE of an error. Each difference is classed:

  a  folio crashed, closed the connection or did not answer in 30 s
  b  a different answer (rows, tag, or an error where PostgreSQL had none
     that is not a missing feature, or success where PostgreSQL failed)
  c  a missing feature: folio fails with 0A000, 42601, 42883 or 42704
     where PostgreSQL succeeds
  e  both fail, with different SQLSTATEs
  d  follows from an earlier difference: folio is in a failed
     transaction block (25P02), or its error or the statement names an
     object whose CREATE failed on folio only

A statement PostgreSQL itself does not answer within 600 s is counted as
"postgres did not answer" and not compared; the run goes on over a new
connection.

It prints one summary line per file; -v also prints each difference with
both answers.
"""

import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time

TIMEOUT_S = 30
# PostgreSQL is the reference: it is given longer (a loaded machine can
# make a heavy regression statement take minutes) and, if it still does
# not answer, the statement is counted as skipped rather than ending the run.
PG_TIMEOUT_S = 600
MISSING = {"0A000", "42601", "42883", "42704"}


class Lost(Exception):
    """The server closed the connection or did not answer in time."""


class Connection:
    def __init__(self, port, database="postgres", timeout=TIMEOUT_S):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        body = struct.pack("!i", 196608)
        for key, value in (("user", "postgres"), ("database", database)):
            body += key.encode() + b"\0" + value.encode() + b"\0"
        body += b"\0"
        self.sock.sendall(struct.pack("!i", len(body) + 4) + body)
        while True:
            kind, payload = self.message()
            if kind == b"E":
                raise SystemExit("cannot connect: " + fields(payload).get("M", "?"))
            if kind == b"Z":
                return

    def read(self, n):
        data = b""
        while len(data) < n:
            try:
                chunk = self.sock.recv(n - len(data))
            except (socket.timeout, OSError) as e:
                raise Lost(f"no answer ({e})")
            if not chunk:
                raise Lost("connection closed")
            data += chunk
        return data

    def message(self):
        kind = self.read(1)
        (length,) = struct.unpack("!i", self.read(4))
        return kind, self.read(length - 4)

    def query(self, sql):
        """("rows", names, rows), ("ok", tag) or ("error", sqlstate, message)."""
        body = sql.encode() + b"\0"
        try:
            self.sock.sendall(b"Q" + struct.pack("!i", len(body) + 4) + body)
        except OSError as e:
            raise Lost(f"cannot send ({e})")
        names, rows, tag, error = None, [], None, None
        while True:
            kind, payload = self.message()
            if kind == b"T":
                names, rows = column_names(payload), []
            elif kind == b"D":
                rows.append(data_row(payload))
            elif kind == b"C":
                tag = payload.rstrip(b"\0").decode()
            elif kind == b"E" and error is None:
                f = fields(payload)
                error = ("error", f.get("C", "?"), f.get("M", "?"))
            elif kind == b"G":
                # CopyInResponse: the statement's data, then CopyDone.
                data = getattr(sql, "data", "").encode()
                try:
                    self.sock.sendall(b"d" + struct.pack("!i", len(data) + 4) + data)
                    self.sock.sendall(b"c" + struct.pack("!i", 4))
                except OSError as e:
                    raise Lost(f"cannot send ({e})")
            elif kind == b"Z":
                if error is not None:
                    return error
                if names is not None:
                    return ("rows", names, rows)
                return ("ok", tag)


def fields(payload):
    out = {}
    for part in payload.split(b"\0"):
        if part:
            out[chr(part[0])] = part[1:].decode(errors="replace")
    return out


def column_names(payload):
    (count,) = struct.unpack("!h", payload[:2])
    at, names = 2, []
    for _ in range(count):
        end = payload.index(b"\0", at)
        names.append(payload[at:end].decode())
        at = end + 1 + 18
    return names


def data_row(payload):
    (count,) = struct.unpack("!h", payload[:2])
    at, values = 2, []
    for _ in range(count):
        (length,) = struct.unpack("!i", payload[at : at + 4])
        at += 4
        if length < 0:
            values.append(None)
        else:
            values.append(payload[at : at + length].decode(errors="replace"))
            at += length
    return tuple(values)


class Copy(str):
    """A `COPY ... FROM STDIN` statement; `data`: the lines that follow
    it in the script, sent as its input."""

    def __new__(cls, sql, data):
        self = super().__new__(cls, sql)
        self.data = data
        return self


def statements(text):
    """The statements of a psql script, in order, without comments."""
    out, cur, i, n = [], [], 0, len(text)
    at_line_start = True
    # psql ends a statement at a semicolon outside parentheses only (a
    # CREATE RULE's action list holds some).
    depth = 0
    while i < n:
        c = text[i]
        if at_line_start and c == "\\" and not "".join(cur).strip():
            i = text.find("\n", i)
            i = n if i < 0 else i + 1
            continue
        at_line_start = c == "\n"
        if text.startswith("--", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
            cur.append(" ")
            continue
        if c in "'\"":
            j = i + 1
            while j < n:
                if text[j] == c and j + 1 < n and text[j + 1] == c:
                    j += 2
                elif text[j] == c:
                    break
                else:
                    j += 1
            cur.append(text[i : j + 1])
            i = j + 1
            continue
        m = re.match(r"\$[A-Za-z_]*\$", text[i:]) if c == "$" else None
        if m:
            j = text.find(m.group(0), i + len(m.group(0)))
            j = n if j < 0 else j + len(m.group(0))
            cur.append(text[i:j])
            i = j
            continue
        if c in "()":
            depth = max(depth + (1 if c == "(" else -1), 0)
        if c == ";" and depth == 0:
            sql = "".join(cur).strip()
            cur, i = [], i + 1
            if re.match(r"copy\b.*\bfrom\s+std(?:in|out)\b", sql, re.I | re.S):
                # The data follows on the next lines, up to a `\.` line.
                start = text.find("\n", i)
                start = n if start < 0 else start + 1
                end = re.compile(r"^\\\.[ \t]*$", re.M).search(text, start)
                out.append(Copy(sql, text[start : end.start() if end else n]))
                i = end.end() if end else n
                continue
            if sql:
                out.append(sql)
            continue
        cur.append(c)
        i += 1
    sql = "".join(cur).strip()
    if sql:
        out.append(sql)
    return out


def letters(k):
    """A stand-in for the regression tables' name columns: k in base 26."""
    s = ""
    for _ in range(6):
        s += chr(ord("A") + k % 26)
        k //= 26
    return s + "xxxxxxxxxx"


def regress_tables():
    """Statements creating the shared regression tables' stand-ins."""
    # test_setup.sql's first grant: every regression file runs with
    # CREATE on schema public for all (PostgreSQL 15 grants it to the
    # database owner alone), so files that create objects as other
    # roles (privileges.sql) compare what they mean to.
    yield "GRANT ALL ON SCHEMA public TO public"
    yield "CREATE TABLE int4_tbl (f1 int4)"
    yield "INSERT INTO int4_tbl VALUES (0), (123456), (-123456), (2147483647), (-2147483647)"
    yield "CREATE TABLE int8_tbl (q1 int8, q2 int8)"
    yield (
        "INSERT INTO int8_tbl VALUES (123, 456), (123, 4567890123456789), "
        "(4567890123456789, 123), (4567890123456789, 4567890123456789), "
        "(4567890123456789, -4567890123456789)"
    )
    yield "CREATE TABLE float8_tbl (f1 float8)"
    yield (
        "INSERT INTO float8_tbl VALUES (0.0), (-34.84), (-1004.30), "
        "(-1.2345678901234e+200), (-1.2345678901234e-200)"
    )
    yield "CREATE TABLE char_tbl (f1 char(4))"
    yield "INSERT INTO char_tbl VALUES ('a'), ('ab'), ('abcd'), ('abcd    ')"
    yield "CREATE TABLE varchar_tbl (f1 varchar(4))"
    yield "INSERT INTO varchar_tbl VALUES ('a'), ('ab'), ('abcd'), ('abcd    ')"
    yield "CREATE TABLE text_tbl (f1 text)"
    yield "INSERT INTO text_tbl VALUES ('doh!'), ('hi de ho neighbor')"
    string4 = ["AAAAxx", "HHHHxx", "OOOOxx", "VVVVxx"]
    for table, count, step in (("onek", 1000, 271), ("tenk1", 10000, 7919)):
        yield (
            f"CREATE TABLE {table} (unique1 int4, unique2 int4, two int4, four int4, "
            "ten int4, twenty int4, hundred int4, thousand int4, twothousand int4, "
            "fivethous int4, tenthous int4, odd int4, even int4, stringu1 text, "
            "stringu2 text, string4 text)"
        )
        rows = []
        for u2 in range(count):
            u1 = u2 * step % count
            h = u1 % 100
            rows.append(
                f"({u1},{u2},{u1 % 2},{u1 % 4},{u1 % 10},{u1 % 20},{h},{u1 % 1000},"
                f"{u1 % 2000},{u1 % 5000},{u1 % 10000},{h * 2 + 1},{h * 2},"
                f"'{letters(u1)}','{letters(u2)}','{string4[u2 % 4]}')"
            )
        for at in range(0, count, 1000):
            yield f"INSERT INTO {table} VALUES " + ",".join(rows[at : at + 1000])
        # The indexes the regression database has on them (create_index.sql),
        # so correlated lookups are index probes on both sides.
        for column in ("unique1", "unique2", "hundred"):
            yield f"CREATE INDEX {table}_{column} ON {table} ({column})"
    yield "CREATE INDEX tenk1_thous_tenthous ON tenk1 (thousand, tenthous)"
    yield "CREATE INDEX onek_stringu1 ON onek (stringu1)"


# The geometric tables of the regression suite, with the rows its files
# insert (test_setup.sql for point_tbl, line.sql for line_tbl, ...).
GEOMETRIC_TABLES = {
    "point_tbl": ("point", ["(0.0,0.0)", "(-10.0,0.0)", "(-3.0,4.0)", "(5.1, 34.5)",
                            "(-5.0,-12.0)", "(1e-300,-1e-300)", "(1e+300,Inf)", "(Inf,1e+300)",
                            " ( Nan , NaN ) ", "10.0,10.0"]),
    "line_tbl": ("line", ["{0,-1,5}", "{1,0,5}", "{0,3,0}", " (0,0), (6,6)", "10,-10 ,-5,-4",
                          "[-1e6,2e2,3e5, -4e1]", "{3,NaN,5}", "{NaN,NaN,NaN}",
                          "[(1,3),(2,3)]", "[(3,1),(3,2)]"]),
    "lseg_tbl": ("lseg", ["[(1,2),(3,4)]", "(0,0),(6,6)", "10,-10 ,-3,-4",
                          "[-1e6,2e2,3e5, -4e1]", "[(11,22),(33,44)]", "[(-10,2),(-10,3)]",
                          "[(0,-20),(30,-20)]", "[(NaN,1),(NaN,90)]"]),
    "box_tbl": ("box", ["(2.0,2.0,0.0,0.0)", "(1.0,1.0,3.0,3.0)", "((-8, 2), (-2, -10))",
                        "(2.5, 2.5, 2.5,3.5)", "(3.0, 3.0,3.0,3.0)"]),
    "path_tbl": ("path", ["[(1,2),(3,4)]", " ( ( 1 , 2 ) , ( 3 , 4 ) ) ",
                          "[ (0,0),(3,0),(4,5),(1,6) ]", "((1,2) ,(3,4 ))", "1,2 ,3,4 ",
                          " [1,2,3, 4] ", "((10,20))", "[ 11,12,13,14 ]", "( 11,12,13,14) "]),
    "polygon_tbl": ("polygon", ["(2.0,0.0),(2.0,4.0),(0.0,0.0)", "(3.0,1.0),(3.0,3.0),(1.0,0.0)",
                                "(1,2),(3,4),(5,6),(7,8)", "(7,8),(5,6),(3,4),(1,2)",
                                "(1,2),(7,8),(5,6),(3,-4)", "(0.0,0.0)", "(0.0,1.0),(0.0,1.0)"]),
    "circle_tbl": ("circle", ["<(5,1),3>", "((1,2),100)", " 1 , 3 , 5 ", " ( ( 1 , 2 ) , 3 ) ",
                              " ( 100 , 200 ) , 10 ", " < ( 100 , 1 ) , 115 > ", "<(3,5),0>",
                              "<(3,5),NaN>"]),
}


def geometric_tables(text):
    """Statements creating the geometric tables the file `text` names and
    does not create itself."""
    for table, (ty, rows) in GEOMETRIC_TABLES.items():
        if not re.search(rf"\b{table}\b", text, re.I) or re.search(
            rf"create\s+(temp\s+)?table\s+{table}\b", text, re.I
        ):
            continue
        column = "f1" if table in ("point_tbl", "box_tbl", "path_tbl", "polygon_tbl", "circle_tbl") else "s"
        yield f"CREATE TABLE {table} ({column} {ty})"
        yield f"INSERT INTO {table} VALUES " + ", ".join(f"('{r}')" for r in rows)


class Folio:
    def __init__(self, binary, port):
        self.binary, self.port = binary, port
        self.dir = tempfile.mkdtemp(prefix="pg_diff_")
        self.data = os.path.join(self.dir, "data")
        self.proc = None
        self.start()

    def start(self):
        self.stop()
        self.proc = subprocess.Popen(
            # (--max-prepared-transactions: as the reference cluster's.)
            [self.binary, "serve", self.data, "--listen", f"127.0.0.1:{self.port}",
             "--unix-socket-directories", "", "--max-prepared-transactions", "10"],
            stdout=subprocess.DEVNULL, stderr=open(os.path.join(self.dir, "server.log"), "ab"),
        )
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.05)
        self.close()
        raise SystemExit("folio did not start")

    def connect(self):
        if self.proc.poll() is not None:
            self.start()
        return Connection(self.port)

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def close(self):
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


def orders_rows(sql):
    """Whether the statement's own result is ordered: an ORDER BY outside
    parentheses and quotes (one in a window's OVER clause or a subquery
    orders nothing the client sees)."""
    depth = 0
    top = []
    for part in re.split(r"('(?:[^']|'')*'|\"(?:[^\"]|\"\")*\")", sql):
        if part.startswith(("'", '"')):
            continue
        for ch in part:
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth = max(depth - 1, 0)
            elif depth == 0:
                top.append(ch)
            else:
                top.append(" ")
        top.append(" ")
    return re.search(r"\border\s+by\b", "".join(top), re.I) is not None


def same(sql, pg, fo):
    if pg[0] != fo[0]:
        return False
    if pg[0] == "error":
        return pg[1] == fo[1]
    if pg[0] == "ok":
        return pg[1] == fo[1]
    if pg[1] != fo[1]:
        return False
    if pg[2] == fo[2]:
        return True
    if orders_rows(sql):
        return False
    key = lambda row: tuple("\0" if v is None else v for v in row)  # noqa: E731
    return sorted(pg[2], key=key) == sorted(fo[2], key=key)


CREATED = re.compile(
    r"create\s+(?:or\s+replace\s+)?(?:(?:temp|temporary|unique|materialized)\s+)*"
    r"(?:table|view|sequence|function|index|type|domain)\s+(?:if\s+not\s+exists\s+)?"
    r'"?([\w.]+)',
    re.I,
)


def classify(sql, pg, fo, missing):
    """The class of a difference; `missing`: names folio failed to create."""
    if fo[0] == "lost":
        return "a"
    if fo[0] == "error" and fo[1] == "25P02":
        return "d"
    words = set(re.findall(r"\w+", sql.lower()))
    if fo[0] == "error" and any(f'"{m}"' in fo[2] for m in missing):
        return "d"
    if any(m in words for m in missing) and not CREATED.match(sql):
        return "d"
    if pg[0] == "error" and fo[0] == "error":
        return "e"
    if fo[0] == "error" and fo[1] in MISSING:
        return "c"
    return "b"


def show(answer, limit=12):
    if answer[0] == "rows":
        rows = [" | ".join("NULL" if v is None else v for v in r) for r in answer[2][:limit]]
        more = f"  ... {len(answer[2])} rows" if len(answer[2]) > limit else ""
        return "\n      ".join([" | ".join(answer[1])] + rows) + more
    return " ".join(str(x) for x in answer)


def finish_prepared(port, database):
    """Rolls back the transactions a script left prepared in `database`
    on PostgreSQL (prepared_xacts.sql, or a run cut short): they would
    keep the database from being dropped and hold their locks."""
    try:
        conn = Connection(port, database, PG_TIMEOUT_S)
    except (OSError, SystemExit):
        return
    try:
        answer = conn.query("SELECT gid FROM pg_prepared_xacts WHERE database = current_database()")
        for (gid,) in answer[2] if answer[0] == "rows" else []:
            conn.query("ROLLBACK PREPARED '" + gid.replace("'", "''") + "'")
    finally:
        conn.sock.close()


def run_file(path, args):
    name = re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0])
    database = f"pgdiff_{name}"
    admin = Connection(args.pg_port, timeout=PG_TIMEOUT_S)
    finish_prepared(args.pg_port, database)
    admin.query(f"DROP DATABASE IF EXISTS {database}")
    admin.query(f"CREATE DATABASE {database}")
    folio = Folio(args.folio, args.folio_port)
    try:
        pg, fo = Connection(args.pg_port, database, PG_TIMEOUT_S), folio.connect()
        with open(path) as f:
            text = f.read()
        if args.tables:
            for sql in regress_tables():
                a, b = pg.query(sql), fo.query(sql)
                if a[0] == "error" or b[0] == "error":
                    raise SystemExit(f"setup failed: {sql[:80]}: {a} / {b}")
            for sql in geometric_tables(text):
                a, b = pg.query(sql), fo.query(sql)
                if a[0] == "error":
                    raise SystemExit(f"setup failed: {sql[:80]}: {a}")
                if b[0] == "error":
                    print(f"  setup failed on folio: {sql[:60]}: {b}")
        counts = {"run": 0, "match": 0, "skip": 0, "pg": 0, "a": 0, "b": 0, "c": 0, "d": 0, "e": 0}
        missing = set()
        for sql in statements(text):
            if re.match(r"explain\b", sql, re.I):
                counts["skip"] += 1
                continue
            try:
                answer_pg = pg.query(sql)
            except Lost as e:
                counts["pg"] += 1
                if args.verbose:
                    print(f"--- [pg lost: {e}] {os.path.basename(path)}: {' '.join(sql.split())[:300]}")
                pg.sock.close()
                pg = Connection(args.pg_port, database, PG_TIMEOUT_S)
                continue
            counts["run"] += 1
            try:
                answer_fo = fo.query(sql)
            except Lost as e:
                answer_fo = ("lost", str(e))
                fo = folio.connect()
            if same(sql, answer_pg, answer_fo):
                counts["match"] += 1
                continue
            cls = classify(sql, answer_pg, answer_fo, missing)
            counts[cls] += 1
            created = CREATED.match(sql)
            if created and answer_pg[0] != "error" and answer_fo[0] == "error":
                missing.add(created.group(1).lower().split(".")[-1])
            if args.verbose:
                print(f"--- [{cls}] {os.path.basename(path)}: {' '.join(sql.split())[:300]}")
                print(f"  pg: {show(answer_pg)}")
                print(f"  fo: {show(answer_fo)}")
        print(
            f"{os.path.basename(path)}: run {counts['run']}, match {counts['match']}, "
            f"crash/hang {counts['a']}, wrong {counts['b']}, missing {counts['c']}, "
            f"other error code {counts['e']}, follow-on {counts['d']}, "
            f"explain skipped {counts['skip']}"
            + (f", postgres did not answer {counts['pg']}" if counts["pg"] else "")
        )
    finally:
        folio.close()
        try:
            pg.sock.close()
        except NameError:
            pass
        time.sleep(0.2)
        finish_prepared(args.pg_port, database)
        admin.query(f"DROP DATABASE IF EXISTS {database} WITH (FORCE)")


def main():
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-v", "--verbose", action="store_true")
    parser.add_argument("--tables", action="store_true")
    parser.add_argument("folio")
    parser.add_argument("pg_port", type=int)
    parser.add_argument("folio_port", type=int)
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    for path in args.files:
        run_file(path, args)


if __name__ == "__main__":
    main()
