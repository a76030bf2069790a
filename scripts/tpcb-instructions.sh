#!/bin/bash
# usage: scripts/tpcb-instructions.sh BINARY PORT DIR [TRANSACTIONS] [INIT_STEPS] [MODE]
# -> the server's user-space instructions per transaction of pgbench's
# built-in tpcb-like script (`-M MODE`, prepared by default; simple is
# what `folio bench pgbench`'s tpcb runs), 1 client, scale 1, durable
# commits), counted by callgrind over the whole server (background work
# included, so runs differ by about 1%). INIT_STEPS: pgbench -i's -I
# (default dtgvp; dtgvpf adds the foreign keys). callgrind's raw output
# is left in DIR.callgrind-NN, one file per thread; the server's output
# goes to DIR.log, removed when the run succeeds. The figure printed is
# the files' own totals, read after the server has exited. Each thread is counted apart
# (--separate-threads): the second line splits the figure into the
# connections' threads (`Inbox::serve`), autovacuum's thread and the rest,
# by thread rather than by call tree, so a pass that began before the
# window opened is counted as autovacuum's too (by call tree it shows as
# a small `autovacuum_pass` and its vacuum's functions without a caller).
set -e
BIN=$1; PORT=$2; DIR=$3; N=${4:-1000}; STEPS=${5:-dtgvp}; MODE=${6:-prepared}
command -v valgrind >/dev/null || apt-get install -y valgrind >/dev/null
rm -rf "$DIR" "$DIR".callgrind* "$DIR.log"
ready() { for _ in $(seq 600); do pg_isready -q -h 127.0.0.1 -p "$PORT" && return; sleep 0.5; done; exit 1; }
"$BIN" serve "$DIR" --listen 127.0.0.1:"$PORT" --unix-socket-directories "" > "$DIR.log" 2>&1 &
PID=$!; ready
pgbench -q -i -I "$STEPS" -s 1 -h 127.0.0.1 -p "$PORT" -U postgres postgres >/dev/null 2>&1
kill -INT $PID; wait $PID
valgrind --tool=callgrind --instr-atstart=no --separate-threads=yes --callgrind-out-file="$DIR.callgrind" \
  "$BIN" serve "$DIR" --listen 127.0.0.1:"$PORT" --unix-socket-directories "" >> "$DIR.log" 2>&1 &
PID=$!; ready
run() { pgbench -n -M "$MODE" -c 1 -t "$1" -h 127.0.0.1 -p "$PORT" -U postgres postgres >/dev/null 2>&1; }
run 100
callgrind_control -i on $PID >/dev/null 2>&1
run "$N"
callgrind_control -i off $PID >/dev/null 2>&1
kill -INT $PID; wait $PID || true
TOTAL=0; CONN=0; AUTO=0
for f in "$DIR".callgrind-*; do
  OUT=$(callgrind_annotate --inclusive=yes "$f" 2>/dev/null || true)
  T=$(echo "$OUT" | grep -m1 "PROGRAM TOTALS" | awk '{gsub(/,/,"",$1); print $1}')
  [[ "$T" =~ ^[0-9]+$ ]] || continue
  TOTAL=$(( TOTAL + T ))
  if echo "$OUT" | grep -q "wire::Inbox::serve"; then CONN=$(( CONN + T ));
  elif echo "$OUT" | grep -q "autovacuum::"; then AUTO=$(( AUTO + T )); fi
done
echo "$(( TOTAL / N )) instructions/transaction ($TOTAL over $N transactions, -I $STEPS, -M $MODE)"
echo "threads: connections $(( CONN / N )), autovacuum $(( AUTO / N )), other $(( (TOTAL - CONN - AUTO) / N ))"
rm -rf "$DIR" "$DIR.log"
