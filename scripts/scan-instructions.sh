#!/bin/bash
# usage: scripts/scan-instructions.sh BINARY PORT DIR [QUERY...]
# -> the server's user-space instructions a row of each QUERY (default:
# the aggregates below) over `t`, 1M rows of (int4, int8, text), counted
# by callgrind: deterministic where times on a shared 2-core machine are
# not. Each query runs once to warm the pool, then once measured (its
# own callgrind dump, DIR.callgrind.N, left for callgrind_annotate; the
# server's output goes to DIR.log, removed when the run succeeds).
set -e
BIN=$1; PORT=$2; DIR=$3; shift 3
ROWS=1000000
if [ $# -eq 0 ]; then
  set -- "select sum(x) from t" "select count(*) from t" "select count(x) from t" \
    "select avg(x) from t" "select min(x), max(x) from t" "select sum(y) from t" \
    "select sum(x) from t where x > 500000"
fi
command -v valgrind >/dev/null || apt-get install -y valgrind >/dev/null
rm -rf "$DIR" "$DIR".callgrind* "$DIR.log"
ready() { for _ in $(seq 600); do pg_isready -q -h 127.0.0.1 -p "$PORT" && return; sleep 0.5; done; exit 1; }
P="psql -X -q -h 127.0.0.1 -p $PORT -U postgres"
# Load with the plain server, then measure under callgrind with the
# instrumentation off but around each query.
"$BIN" serve "$DIR" --listen 127.0.0.1:"$PORT" --unix-socket-directories "" > "$DIR.log" 2>&1 &
PID=$!; ready
$P -c "create table t(x int4, y int8, z text)" \
  -c "insert into t select g, g, 'abc' from generate_series(1, $ROWS) g" \
  -c "vacuum t" -c "checkpoint" >/dev/null
kill -INT $PID; wait $PID
valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$DIR.callgrind" \
  "$BIN" serve "$DIR" --listen 127.0.0.1:"$PORT" --unix-socket-directories "" >> "$DIR.log" 2>&1 &
PID=$!; ready
N=0
for q in "$@"; do
  $P -c "$q" >/dev/null
  callgrind_control -z $PID >/dev/null 2>&1
  callgrind_control -i on $PID >/dev/null 2>&1
  $P -c "$q" >/dev/null
  callgrind_control -i off $PID >/dev/null 2>&1
  callgrind_control -d $PID >/dev/null 2>&1
  N=$((N + 1))
  FILE=$(ls -t "$DIR".callgrind.* | head -1)
  TOTAL=$(callgrind_annotate "$FILE" 2>/dev/null | grep -m1 "PROGRAM TOTALS" | awk '{gsub(/,/,"",$1); print $1}')
  echo "$(( TOTAL / ROWS )) instructions/row  $q  ($FILE)"
done
kill -INT $PID; wait $PID || true
rm -rf "$DIR" "$DIR.log"
