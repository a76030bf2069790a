#!/bin/bash
# usage: scripts/plpgsql-calls.sh PORT [BINARY DIR]
# -> milliseconds per statement that calls a PL/pgSQL function once per row
# of generate_series(1, 100000) (the best of 3 runs, psql's \timing),
# for a body of one expression and one with a query (README "PL/pgSQL",
# "Plan cache"). With BINARY and DIR it starts `BINARY serve DIR` on PORT
# first (folio); without, it runs against the server on PORT (PostgreSQL).
PORT=$1; BIN=$2; DIR=$3
if [ -n "$BIN" ]; then
  rm -rf $DIR
  $BIN serve $DIR --listen 127.0.0.1:$PORT --unix-socket-directories "" > $DIR.log 2>&1 &
  PID=$!
  sleep 2
fi
P="psql -X -q -h 127.0.0.1 -p $PORT -U postgres"
$P >/dev/null 2>&1 <<'SQL'
drop table if exists bench_t;
create table bench_t (id int primary key, v int);
insert into bench_t select i, i from generate_series(1, 1000) i;
create or replace function bench_expr(x int) returns int language plpgsql as $$ begin return x + 1; end $$;
create or replace function bench_query(x int) returns int language plpgsql as $$
declare n int; begin select count(*) into n from bench_t where id = x; return n; end $$;
SQL
for q in "select sum(bench_expr(i)) from generate_series(1, 100000) i" \
         "select sum(bench_query(i)) from generate_series(1, 100000) i"; do
  best=$( (echo '\timing on'; for k in 1 2 3; do echo "$q;"; done) | $P 2>&1 |
    awk '/^Time:/ {print $2}' | sort -n | head -1)
  echo "$best ms  $q"
done
if [ -n "$BIN" ]; then kill -INT $PID; wait $PID 2>/dev/null; rm -rf $DIR $DIR.log; fi
