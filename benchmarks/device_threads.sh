#!/usr/bin/env bash
# Device check (issue 26): the parallel branch-and-bound's thread scaling on a 16-core machine,
# in under 150 s of wall time, build included.  From the repository root, with the COMPAS rules
# file at .devdata/faircorels/compas_rules_full.csv (else ../shared/data/faircorels/) and, where
# the machine lacks them, the wheels of the build's and fairlist's dependencies in .whl/:
#
#     bash benchmarks/device_threads.sh
#
# It builds fairlist into /tmp/fl (no network), then runs benchmarks/bench_threads.py on a
# certificate of about 20 s on one core of this project's machines: the optimum among lists of
# at most 5 rules, SP <= 0.05, lambda 0.015, COMPAS (673,636 nodes at 1 thread), on 1 thread,
# 1 thread with canonical ties (row 1c), then 2, 4, 8 and 16 threads, each row with its time,
# nodes, speed-up over 1 thread, frontier-lock acquisitions per node, memory per stored node,
# and the shares of the workers' time spent holding and waiting for the frontier's lock with the
# speed-up the held time allows (bench_threads.py's last three columns).
# Every run is capped at 40 s (--time-limit) and the whole at what is left of 150 s.
set -o pipefail
export PYTHONUNBUFFERED=1
REPO=$PWD
T0=$(date +%s)
TARGET=${FL_TARGET:-/tmp/fl}  # where fairlist is built
nproc; lscpu | grep -E "Model name|^CPU\(s\)|Thread\(s\) per core|Core\(s\) per socket"
python3 --version
if compgen -G ".whl/*.whl" > /dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site .whl/*.whl || exit 1
    export PYTHONPATH=/tmp/site
fi
python3 -m pip install -q --no-index --no-build-isolation --no-deps --target "$TARGET" . \
    > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
echo "build: $(( $(date +%s) - T0 )) s"
export PYTHONPATH=$TARGET${PYTHONPATH:+:$PYTHONPATH}
D=$REPO/.devdata/faircorels/compas_rules_full.csv
[ -f "$D" ] || D=$REPO/../shared/data/faircorels/compas_rules_full.csv
cd /tmp || exit 1  # import the build, not the source tree
python3 -c "import fairlist._core, fairlist; print(fairlist.__file__)" || exit 1
LEFT=$(( 150 - ($(date +%s) - T0) ))
echo "== <= 5 rules, SP <= 0.05, lambda 0.015 (${LEFT} s left)"
timeout "$LEFT" python3 "$REPO/benchmarks/bench_threads.py" --data "$D" --max-length 5 \
    --lam 0.015 --jobs 1 2 4 8 16 --canonical --time-limit 40
echo "total: $(( $(date +%s) - T0 )) s"
