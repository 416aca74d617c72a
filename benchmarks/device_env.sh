# Sourced by the device scripts (benchmarks/device_*.sh), run from the repository root on a machine
# where the project is not installed: installs the wheels in .whl/ (plotly, tomlkit: the machine
# reaches no package index; benchmarks/README.md) and puts them and this tree on PYTHONPATH. The
# tree records its pyproject.toml's version, so its results folders extend installed runs' (sim.run).
export PYTHONUNBUFFERED=1 XDG_CACHE_HOME=${XDG_CACHE_HOME:-/tmp/cache}
if [ -d .whl ]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
    export PYTHONPATH=/tmp/site:$PWD
else
    export PYTHONPATH=$PWD
fi
B="python3 -m sim.cli"
{ date -u; nproc; python3 -c "import sys, numba, numpy, pandas, joblib; print(sys.version.split()[0], 'numba', numba.__version__, 'numpy', numpy.__version__, 'pandas', pandas.__version__, 'joblib', joblib.__version__)"; lscpu | grep -E "Model name|^CPU\(s\)"; } 2>&1 | tee "$OUT/machine.txt"
