#!/usr/bin/env bash
# First-compile CPU seconds of every kernel under several numba settings, side by side on a
# many-core machine (each compile is single-threaded, each in its own empty cache), then one-core
# races per second of the race kernels compiled each way. Prints one summary; run from the repo root
# (the project need not be installed: numba, numpy, pandas, pyarrow, scipy must be there).
#   bash benchmarks/device_compile.sh            # output in $OUT (default /tmp/dc)
# Used on 2026-11-27 (issue 32: which settings cut the compile wait, docs/studies.md).
set -u
OUT=${OUT:-/tmp/dc}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD
PY=${PY:-python3}
$PY -c "import numba, llvmlite, sys; print('python', sys.version.split()[0], 'numba', numba.__version__, 'llvmlite', llvmlite.__version__)"
echo "cores: $(nproc)"
declare -A VARIANT=(
  [ci]="NUMBA_BOUNDSCHECK=1"
  [o1]="NUMBA_BOUNDSCHECK=1 NUMBA_OPT=1"

  [novec]="NUMBA_BOUNDSCHECK=1 NUMBA_LOOP_VECTORIZE=0 NUMBA_SLP_VECTORIZE=0"
  [report]="NUMBA_BOUNDSCHECK=0"
)
PARTS="blast:race blast:look skitour: mania:"
for v in "${!VARIANT[@]}"; do
  for part in $PARTS; do
    game=${part%%:*}; label=${part#*:}
    ( env ${VARIANT[$v]} XDG_CACHE_HOME=/tmp/c_$v timeout 470 $PY benchmarks/compile_time.py $game $label \
        > "$OUT/$v-$game-$label.txt" 2>&1 ) &
  done
done
wait
for v in ci o1 novec report; do
  for part in $PARTS; do
    game=${part%%:*}; label=${part#*:}
    f="$OUT/$v-$game-$label.txt"
    echo "== $v ${VARIANT[$v]} | $game $label"
    grep -E "wall .* cpu|^LLVM|Error|error" "$f" | head -4
  done
done
# races per second on one core, each variant's own cached kernels (run one at a time)
for v in ci o1 novec report; do
  echo "== speed $v"
  env ${VARIANT[$v]} XDG_CACHE_HOME=/tmp/c_$v timeout 45 $PY -m sim.cli bench --trail Kurz --racers 4 --races 20000 2>&1 | grep -E "^ *Kurz|compile or cache" | head -2
  env ${VARIANT[$v]} XDG_CACHE_HOME=/tmp/c_$v timeout 45 $PY -m sim.cli --game skitour bench --racers 4 --races 10000 --course Starter 2>&1 | grep -E "^ *Starter" | head -1
done
