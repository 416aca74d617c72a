#!/usr/bin/env bash
# First-compile CPU seconds, speed and tables of the kernels of two trees side by side on a
# many-core machine: .base/ (an older commit's kernels and sim: `mkdir .base && git archive REV
# kernels sim | tar -x -C .base`) against the working tree, and the working tree under other numba
# settings. Each compile is single-threaded in its own empty cache. Run from the repo root (the
# project need not be installed). Used on 2026-11-27 (issue 32, docs/studies.md "Compile time").
set -u
OUT=${OUT:-/tmp/dc}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
R=$PWD
PY=${PY:-python3}
T=${T:-380}
$PY -c "import numba, llvmlite, sys; print('python', sys.version.split()[0], 'numba', numba.__version__, 'llvmlite', llvmlite.__version__)"
job() {   # name tree env game label races
  local name=$1 tree=$2 envs=$3 game=$4 label=$5 races=$6
  ( cd $tree && env $envs NUMBA_BOUNDSCHECK=1 PYTHONPATH=$tree XDG_CACHE_HOME=/tmp/c_$name-$game \
      timeout $T $PY $R/benchmarks/compile_time.py $game $label --races=$races > "$OUT/$name-$game-$label.txt" 2>&1 ) &
}
for v in base new; do
  tree=$R; [ $v = base ] && tree=$R/.base
  job $v $tree "X=1" blast race 20000
  job $v $tree "X=1" blast look 60
  job $v $tree "X=1" skitour "" 3000
  job $v $tree "X=1" mania "" 20000
done
job nolazy $R "BIATHLON_NUMBA_LAZY=0" blast look 60
job nolazy $R "BIATHLON_NUMBA_LAZY=0" skitour "" 3000
job o1 $R "NUMBA_OPT=1" blast race 20000
job o1 $R "NUMBA_OPT=1" blast look 60
job o1 $R "NUMBA_OPT=1" skitour "" 3000
wait
for f in "$OUT"/*.txt; do
  echo "== $(basename $f .txt)"
  grep -E "wall .* cpu|^LLVM|races/s|Error|error" "$f" | grep -v Warning | head -5
done
