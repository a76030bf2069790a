#!/bin/bash
# usage: scripts/point-query-instructions.sh BINARY PORT DIR [CHECKSUM_FLAG] [TRANSACTIONS]
# -> the server's user-space instructions per transaction of seed 000's
# prepared script (`select count(*) from pgbench_accounts where bid = 0`,
# 2 clients), counted by callgrind: deterministic where tps and task-clock
# on a shared 2-core machine are not (this VM has no hardware counters).
# CHECKSUM_FLAG: --data-checksums (default) or --no-data-checksums.
# callgrind's raw output is left in DIR.callgrind (read it with
# callgrind_annotate); the servers' output goes to DIR.log, removed when
# the run succeeds.
set -e
BIN=$1; PORT=$2; DIR=$3; FLAG=${4:---data-checksums}; N=${5:-2000}
command -v valgrind >/dev/null || apt-get install -y valgrind >/dev/null
rm -rf "$DIR" "$DIR.callgrind" "$DIR.log"
ready() { for _ in $(seq 600); do pg_isready -q -h 127.0.0.1 -p "$PORT" && return; sleep 0.5; done; exit 1; }
# Load with the plain server, then measure under callgrind with the
# instrumentation off until the warm-up is done.
"$BIN" serve "$DIR" --listen 127.0.0.1:"$PORT" --unix-socket-directories "" "$FLAG" > "$DIR.log" 2>&1 &
PID=$!; ready
pgbench -q -i -s 1 -h 127.0.0.1 -p "$PORT" -U postgres postgres >/dev/null 2>&1
psql -X -q -h 127.0.0.1 -p "$PORT" -U postgres -c "create index on pgbench_accounts (bid)"
kill -INT $PID; wait $PID
valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$DIR.callgrind" \
  "$BIN" serve "$DIR" --listen 127.0.0.1:"$PORT" --unix-socket-directories "" >> "$DIR.log" 2>&1 &
PID=$!; ready
SCRIPT=$(mktemp); echo "select count(*) from pgbench_accounts where bid = 0;" > "$SCRIPT"
run() { pgbench -n -f "$SCRIPT" -M prepared -c 2 -j 2 -t "$1" -h 127.0.0.1 -p "$PORT" -U postgres postgres >/dev/null 2>&1; }
run 200
callgrind_control -i on $PID >/dev/null 2>&1
run "$N"
callgrind_control -i off $PID >/dev/null 2>&1
kill -INT $PID; wait $PID || true
rm -f "$SCRIPT"
TOTAL=$(callgrind_annotate "$DIR.callgrind" 2>/dev/null | grep -m1 "PROGRAM TOTALS" | awk '{gsub(/,/,"",$1); print $1}')
echo "$(( TOTAL / (2 * N) )) instructions/transaction ($TOTAL over $((2 * N)) transactions, $FLAG)"
rm -rf "$DIR" "$DIR.log"
