#!/usr/bin/env python3
"""Writes a sqllogictest file whose expected results are PostgreSQL's.

    scripts/slt_from_pg.py PORT OUT.slt "header line" -- FILE.q [...]

Each FILE.q holds records separated by blank lines: a record is one
statement (it may span lines) or a `#` comment line, copied as is. Each
statement is sent with the simple query protocol, in order, over one
connection to PostgreSQL on 127.0.0.1:PORT (user postgres, trust
authentication) and a database of the run's own, created empty first and
dropped at the end. What it returns decides the record:

- rows (a RowDescription) -> `query <letters>` and the rows, `I` for
  integer columns, `R` for float and numeric ones, `T` for the rest;
  NULL as `NULL`, the empty string as `(empty)`;
- no rows -> `statement ok`;
- an error -> `statement error <PostgreSQL's message>` (a regular
  expression: its metacharacters escaped).

A statement written `ok: ...` or `err: ...` is forced to a statement
record (a DML statement with RETURNING, say), and the script fails if
PostgreSQL does not agree.
"""

import os

import socket
import struct
import sys

INTEGER = {20, 21, 23}
REAL = {700, 701, 1700}


def pattern(message):
    """`message` as a regular expression that matches it (the runner
    reads a `statement error` line as one)."""
    return "".join("\\" + c if c in "\\.+*?()|[]{}^$" else c for c in message)


class Connection:
    def __init__(self, port, user="postgres", database="postgres"):
        self.sock = socket.create_connection(("127.0.0.1", port))
        body = struct.pack("!i", 196608)
        for key, value in (("user", user), ("database", database)):
            body += key.encode() + b"\0" + value.encode() + b"\0"
        body += b"\0"
        self.sock.sendall(struct.pack("!i", len(body) + 4) + body)
        while True:
            kind, payload = self.message()
            if kind == b"R" and struct.unpack("!i", payload[:4])[0] != 0:
                raise SystemExit("the server asks for a password: use trust")
            if kind == b"E":
                raise SystemExit("cannot connect: " + fields(payload).get("M", "?"))
            if kind == b"Z":
                return

    def read(self, n):
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise SystemExit("the server closed the connection")
            data += chunk
        return data

    def message(self):
        kind = self.read(1)
        (length,) = struct.unpack("!i", self.read(4))
        return kind, self.read(length - 4)

    def query(self, sql):
        """(types, rows) for rows, None for no rows, or the error text."""
        body = sql.encode() + b"\0"
        self.sock.sendall(b"Q" + struct.pack("!i", len(body) + 4) + body)
        types, rows, error = None, [], None
        while True:
            kind, payload = self.message()
            if kind == b"T":
                types = row_types(payload)
            elif kind == b"D":
                rows.append(data_row(payload))
            elif kind == b"E" and error is None:
                error = fields(payload).get("M", "?")
            elif kind == b"Z":
                if error is not None:
                    return error
                return None if types is None else (types, rows)


def fields(payload):
    out = {}
    for part in payload.split(b"\0"):
        if part:
            out[chr(part[0])] = part[1:].decode()
    return out


def row_types(payload):
    (count,) = struct.unpack("!h", payload[:2])
    at, types = 2, []
    for _ in range(count):
        at = payload.index(b"\0", at) + 1
        type_oid = struct.unpack("!i", payload[at + 6 : at + 10])[0]
        types.append(type_oid)
        at += 18
    return types


def data_row(payload):
    (count,) = struct.unpack("!h", payload[:2])
    at, values = 2, []
    for _ in range(count):
        (length,) = struct.unpack("!i", payload[at : at + 4])
        at += 4
        if length < 0:
            values.append("NULL")
        else:
            text = payload[at : at + length].decode()
            values.append(text if text else "(empty)")
            at += length
    return values


def letter(type_oid):
    if type_oid in INTEGER:
        return "I"
    if type_oid in REAL:
        return "R"
    return "T"


def records(path):
    with open(path) as f:
        chunk = []
        for line in f.read().splitlines() + [""]:
            if line.strip():
                chunk.append(line)
            elif chunk:
                yield chunk
                chunk = []


def main():
    if len(sys.argv) < 5 or sys.argv[4] != "--":
        raise SystemExit(__doc__)
    port, out, header = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    # A database of the run's own: runs beside each other, or an earlier
    # run's leftovers, cannot change what this one records.
    database = f"slt_from_pg_{os.getpid()}"
    admin = Connection(port)
    admin.query(f"drop database if exists {database}")
    failed = admin.query(f"create database {database}")
    if isinstance(failed, str):
        raise SystemExit(f"cannot create {database}: {failed}")
    try:
        write(Connection(port, database=database), out, header)
    finally:
        admin.query(f"drop database if exists {database} with (force)")


def write(conn, out, header):
    """Records every statement of the files named after `--` in `out`."""
    lines = [f"# {header}", "# Generated from PostgreSQL 15 by scripts/slt_from_pg.py.", ""]
    for path in sys.argv[5:]:
        for chunk in records(path):
            comments = [line for line in chunk if line.startswith("#")]
            lines.extend(comments)
            sql = "\n".join(line for line in chunk if not line.startswith("#"))
            if not sql:
                lines.append("")
                continue
            forced = None
            for prefix in ("ok:", "err:"):
                if sql.startswith(prefix):
                    forced, sql = prefix, sql[len(prefix) :].lstrip()
            result = conn.query(sql)
            if isinstance(result, str):
                if forced == "ok:":
                    raise SystemExit(f"expected ok, PostgreSQL said {result!r}: {sql}")
                lines.append("statement error " + pattern(result.splitlines()[0]))
            elif result is None or forced:
                if forced == "err:":
                    raise SystemExit(f"expected an error, PostgreSQL had none: {sql}")
                lines.append("statement ok")
            else:
                types, rows = result
                lines.append("query " + "".join(letter(t) for t in types))
                lines.append(sql)
                lines.append("----")
                lines.extend(" ".join(row) for row in rows)
                lines.append("")
                continue
            lines.append(sql)
            lines.append("")
    with open(out, "w") as f:
        f.write("\n".join(lines).rstrip("\n") + "\n")


if __name__ == "__main__":
    main()
