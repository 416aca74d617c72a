#!/usr/bin/env bash
# A/B timing of the balance search on a many-core machine where the project is not installed:
# an older commit's code in .base/ against the working tree's, alternating, 16 workers each, the
# same search (balance_blast_ship.toml from its [start], 1.5 million races budgeted), and the two
# logs' evaluations compared. Prepare .base/ and .whl/ (plotly and tomlkit wheels) first:
#   mkdir .base && git archive COMMIT sim kernels reports experiments benchmarks | tar -x -C .base
# Each tree runs from its own folder (python puts the working folder first on sys.path). Both warm
# up first: .base's kernels have other file times, so numba compiles them again for it.
# Output to $OUT (default /tmp/ab). Used on 2026-11-27 (docs/balance.md, "Workers").
set -u
OUT=${OUT:-/tmp/ab}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 XDG_CACHE_HOME=/tmp/cache
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
R=$PWD
cd $R && PYTHONPATH=/tmp/site:$R python3 -m sim.cli balance experiments/balance_blast_ship.toml --out /tmp/bw --jobs 16 --max-races 1 --check-races 100 > $OUT/warm.txt 2>&1; tail -1 $OUT/warm.txt
cd $R/.base && PYTHONPATH=/tmp/site:$R/.base python3 -m sim.cli balance $R/experiments/balance_blast_ship.toml --out /tmp/bw2 --jobs 16 --max-races 1 --check-races 100 > $OUT/warm2.txt 2>&1; tail -1 $OUT/warm2.txt; cd $R
for run in base new base new; do
  if [ $run = base ]; then D=$R/.base; else D=$R; fi
  rm -rf /tmp/r_$run
  t0=$(date +%s.%N)
  (cd $D && PYTHONPATH=/tmp/site:$D python3 -m sim.cli balance $R/experiments/balance_blast_ship.toml --out /tmp/r_$run --jobs 16 --max-races 1500000 --max-minutes 100 --check-races 100 > $OUT/$run.txt 2>&1)
  t1=$(date +%s.%N)
  echo "$run: $(python3 -c "print(f'{$t1 - $t0:.1f}')") s; $(grep '^stopped' $OUT/$run.txt)" | tee -a $OUT/summary.txt
done
python3 - <<'P' | tee -a $OUT/summary.txt
import json
def ev(p):
    return sorted((r["key"], json.dumps(r.get("blocks"), sort_keys=True), r.get("score")) for r in map(json.loads, open(p)) if r.get("event") == "evaluation")
a, b = ev("/tmp/r_base/log.jsonl"), ev("/tmp/r_new/log.jsonl")
print(f"evaluations base {len(a)}, new {len(b)}; same keys, blocks, scores: {a == b}")
print("changes.csv same:", open("/tmp/r_base/changes.csv").read() == open("/tmp/r_new/changes.csv").read())
P
