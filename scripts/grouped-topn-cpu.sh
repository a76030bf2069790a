#!/bin/bash
# usage: scripts/grouped-topn-cpu.sh BINARY PORT DIR -> server CPU ms per query (10 runs each; clock
# ticks are 10 ms, so the sum of 10 runs in ticks = ms per run) of grouping queries with ORDER BY and
# LIMIT over 200k rows in 50k groups (top-N of the groups, top_n.rs), and of the same grouping whole.
BIN=$1; PORT=$2; DIR=$3
rm -rf $DIR
$BIN serve $DIR --listen 127.0.0.1:$PORT --unix-socket-directories "" > $DIR.log 2>&1 &
PID=$!
sleep 2
P="psql -X -q -h 127.0.0.1 -p $PORT -U postgres"
$P -c "create table big (i int, g int, v int)" -c "insert into big select i, (i * 7919) % 50000, (i * 31) % 1000 from generate_series(1, 200000) i" -c "vacuum big" >/dev/null
for q in "select g, count(*) from big group by g order by 2 desc, 1 limit 10" \
         "select g, sum(v) from big group by g order by 2, 1 limit 10 offset 5" \
         "select count(*) from (select g, count(*) from big group by g order by 2 desc, 1) x"; do
  $P -c "$q" >/dev/null
  t0=$(awk '{print $14+$15}' /proc/$PID/stat)
  for k in 1 2 3 4 5 6 7 8 9 10; do $P -c "$q" >/dev/null; done
  t1=$(awk '{print $14+$15}' /proc/$PID/stat)
  echo "$(( (t1 - t0) * 10 / 10 )) ms-cpu/query  $q"
done
kill -INT $PID; wait $PID 2>/dev/null; rm -rf $DIR $DIR.log
