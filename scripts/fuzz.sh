#!/usr/bin/env bash
# Runs the fuzz targets of crates/fuzz longer than CI does (CI: 256 cases
# per target from seed 1, inside the test suite).
#
#   scripts/fuzz.sh [--cases N] [--seed S] [--seeds K] [TARGET...]
#   scripts/fuzz.sh --sql M [--seed S] [--seeds K]
#
# --cases N   cases per target and seed (default 100000)
# --seed S    first seed (default 2; CI uses 1)
# --seeds K   how many seeds in a row, S, S+1, ... (default 1)
# TARGET      test names of crates/fuzz/tests/targets.rs to run (default: all)
# --sql M     instead: folio-sql's mutated statements (tests/mutated_statements.rs),
#             M mutants of every statement of the sqllogictest files (CI: 1, seed 1)
#
# A failure prints the seed and case count that replay it:
#   FOLIO_FUZZ_SEED=S FOLIO_FUZZ_CASES=N cargo test --release -p folio-fuzz --test targets TARGET
set -euo pipefail
cd "$(dirname "$0")/.."

cases=100000
seed=2
seeds=1
sql=0
targets=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --cases) cases="$2"; shift 2 ;;
        --seed) seed="$2"; shift 2 ;;
        --seeds) seeds="$2"; shift 2 ;;
        --sql) sql="$2"; shift 2 ;;
        -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
        -*) echo "unknown option $1" >&2; exit 2 ;;
        *) targets+=("$1"); shift ;;
    esac
done

if [[ $sql -gt 0 ]]; then
    for ((s = seed; s < seed + seeds; s++)); do
        echo "== seed $s, $sql mutants of every statement"
        FOLIO_SQL_MUTANTS_SEED="$s" FOLIO_SQL_MUTANTS="$sql" \
            cargo test -p folio-sql --test mutated_statements
    done
    exit 0
fi

cargo build --release -p folio-fuzz --tests
for ((s = seed; s < seed + seeds; s++)); do
    echo "== seed $s, $cases cases per target"
    FOLIO_FUZZ_SEED="$s" FOLIO_FUZZ_CASES="$cases" \
        cargo test --release -p folio-fuzz --test targets -- "${targets[@]}"
done
