#!/usr/bin/env bash
# The strength reference's cells of the shipped studies (optional group `skill`, issue 27 item 4) on
# a many-core machine where the project is not installed (the device machine: 16 cores, about 10
# minutes). Run from the repository root with the wheels of plotly and tomlkit in .whl/
# (benchmarks/README.md); writes to $OUT (default: /tmp/skill):
#   1. every kernel compiled (the reference's search kernels included), 4 at once;
#   2. Blast's reference cells on the trails named in $BLAST_CELLS and Ski Tour's on both courses,
#      both studies at once on every core, each stopped (Ctrl-C: finished chunks are kept) after
#      $STUDY_S seconds;
#   3. each results folder as a tar file (also every minute while the studies run). Unpacked into
#      the repository root (runs/balance, runs/skitour), the study commands with --include skill
#      play whatever is missing, the default's own cells included: the same seed gives the same
#      races whatever the machine or the number of workers.
# First used 2026-11-28 (docs/studies.md, "The strength reference on many cores"): 1,808 of Kurz's
# 3,600 reference races and 1,264 of Ski Tour Starter's 2,500 in 200 s on 16 cores, both studies at
# once. (A first try kept nothing: the runner's 500-race floor per task, meant for fast players, made
# each reference task longer than the 7 minutes it had; search players' tasks are 8 to 96 races now.)
set -u
OUT=${OUT:-/tmp/skill}
STUDY_S=${STUDY_S:-440}
BLAST_CELLS=${BLAST_CELLS:-reference-Kurz,reference-Short}
SKITOUR_CELLS=${SKITOUR_CELLS:-reference-Starter,reference-Long}
JOBS=${JOBS:-16}
mkdir -p "$OUT" runs
. benchmarks/device_env.sh

t0=$(date +%s)
$B compile --jobs 4 > "$OUT/compile.txt" 2>&1
rc=$?
echo "compile: $(( $(date +%s) - t0 )) s, rc $rc" | tee -a "$OUT/machine.txt"

# every minute, each results folder as it stands (written aside, then renamed): should the machine's
# time run out before the studies stop, the last copy still comes back
pack() {
    for s in balance skitour; do
        [ -d runs/$s ] && tar czf "$OUT/skill_$s.tgz.part" runs/$s 2>/dev/null && mv "$OUT/skill_$s.tgz.part" "$OUT/skill_$s.tgz"
    done
}
( while sleep 60; do pack; done ) &
packer=$!

t0=$(date +%s)
timeout -s INT -k 30 "$STUDY_S" $B study experiments/balance.toml --out runs/balance --jobs "$JOBS" --include skill \
    --cells "$BLAST_CELLS" --quiet > "$OUT/blast.txt" 2>&1 &
pb=$!
timeout -s INT -k 30 "$STUDY_S" $B study experiments/skitour.toml --out runs/skitour --jobs "$JOBS" --include skill \
    --cells "$SKITOUR_CELLS" --quiet > "$OUT/skitour.txt" 2>&1 &
ps=$!
wait $pb; rb=$?
echo "blast study: rc $rb at $(( $(date +%s) - t0 )) s" | tee -a "$OUT/machine.txt"
wait $ps; rs=$?
echo "skitour study: rc $rs at $(( $(date +%s) - t0 )) s" | tee -a "$OUT/machine.txt"

python3 - <<'EOF' 2>&1 | tee -a "$OUT/machine.txt"
import json, pathlib
for study in ("balance", "skitour"):
    for ledger in sorted(pathlib.Path("runs", study, "results").glob("cell=*/variant=*/_ledger.json")):
        d = json.loads(ledger.read_text())
        done = sum(int(p["end"]) - int(p["first"]) for p in d.get("parts", []))
        print(f"{study} {ledger.parent.parent.name}: {len(d.get('parts', []))} parts, "
              f"{done} of {d['identity']['races']} races")
EOF
kill $packer 2>/dev/null; wait $packer 2>/dev/null
pack
ls -la "$OUT"
