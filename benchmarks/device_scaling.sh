#!/usr/bin/env bash
# Scaling on a many-core machine where the project is not installed (the device machine of
# 2026-11-27: 16 cores). Run from the repository root with the wheels of plotly and tomlkit in
# .whl/ (docs/studies.md, "Speed"); writes its output to $OUT (default: /tmp/scaling).
#   1. bench --scaling: whole runs (chunks, workers, Parquet tables) with 1, 2, 4, 8, 16 workers;
#   2. the balance search (balance_blast_ship.toml from its [start], 2 million races) with 16 workers
#      and with 2, timed, and their logs' evaluations compared (the same seed gives the same search
#      whatever the number of workers).
set -u
OUT=${OUT:-/tmp/scaling}
mkdir -p "$OUT"
. benchmarks/device_env.sh

$B bench --trails Kurz --racers 4 --races 50000 --scaling 1,2,4,8,16 --scaling-races 800000 --chunk 10000 --scaling-kinds run 2>&1 | tee "$OUT/bench.txt"
# the other kinds (a study, a tune generation, a balance round: docs/studies.md), 16 against 1 worker
$B bench --trails Kurz --racers 4 --races 5000 --scaling 1,16 --scaling-races 200000 --chunk 10000 --scaling-kinds study,tune,balance 2>&1 | tee "$OUT/bench_kinds.txt"

# warm-up: compiles whatever the search's players need, so neither timed run pays it
$B balance experiments/balance_blast_ship.toml --out /tmp/bw --jobs 16 --max-races 1 --check-races 100 > "$OUT/warmup.txt" 2>&1
for j in 16 2; do
    t0=$(date +%s.%N)
    $B balance experiments/balance_blast_ship.toml --out /tmp/b$j --jobs $j --max-races 2000000 --max-minutes 100 --check-races 100 > "$OUT/balance$j.txt" 2>&1
    t1=$(date +%s.%N)
    echo "jobs $j: $(python3 -c "print(f'{$t1 - $t0:.1f}')") s wall; $(grep '^stopped' "$OUT/balance$j.txt")" | tee -a "$OUT/balance_scaling.txt"
done
python3 - <<'EOF' 2>&1 | tee -a "$OUT/balance_scaling.txt"
import json
def evals(path):
    rows = [json.loads(l) for l in open(path)]
    return sorted((r["key"], json.dumps(r.get("blocks"), sort_keys=True), r.get("score"))
                  for r in rows if r.get("event") == "evaluation")
a, b = evals("/tmp/b16/log.jsonl"), evals("/tmp/b2/log.jsonl")
print(f"evaluations: {len(a)} with 16 workers, {len(b)} with 2; the same keys, blocks and scores: {a == b}")
print("changes.csv identical:", open("/tmp/b16/changes.csv").read() == open("/tmp/b2/changes.csv").read())
EOF
