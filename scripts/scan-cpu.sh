#!/bin/bash
# usage: scripts/scan-cpu.sh BINARY PORT DIR -> server CPU ms per query (10 runs each; clock ticks are 10 ms, so the sum of 10 runs in ticks = ms per run)
BIN=$1; PORT=$2; DIR=$3
rm -rf $DIR
$BIN serve $DIR --listen 127.0.0.1:$PORT --unix-socket-directories "" > $DIR.log 2>&1 &
PID=$!
sleep 2
P="psql -X -q -h 127.0.0.1 -p $PORT -U postgres"
$P -c "create table big (i int, g int, v int, t text, pad text)" -c "insert into big select i, i % 100, (i*7919) % 1000, 'k' || (i % 5000), repeat('x', 60) from generate_series(1, 200000) i" -c "create table dim (g int primary key, label text, pad text)" -c "insert into dim select g, 'label' || g, repeat('y', 200) from generate_series(0, 99) g" -c "vacuum big" -c "vacuum dim" >/dev/null
for q in "select count(*) from big where g = 7" \
         "select count(*) from (select distinct v, g from big) x" \
         "select count(*) from (select t, sum(v) from big group by t) x" \
         "select sum(v) from big" \
         "select * from big where i = 777" \
         "select count(*) from (select d.label, sum(b.v) from big b join dim d on d.g = b.g group by d.label) x"; do
  $P -c "$q" >/dev/null
  t0=$(awk '{print $14+$15}' /proc/$PID/stat)
  for k in 1 2 3 4 5 6 7 8 9 10; do $P -c "$q" >/dev/null; done
  t1=$(awk '{print $14+$15}' /proc/$PID/stat)
  echo "$(( (t1 - t0) * 10 / 10 )) ms-cpu/query  $q"
done
kill -INT $PID; wait $PID 2>/dev/null; rm -rf $DIR $DIR.log
