#!/usr/bin/env bash
# Device check (issues 26 and 23) on a 16-core machine, in one call of at most FL_BUDGET seconds
# (default 540) of wall time, build included.  From the repository root, with the COMPAS files
# at .devdata/faircorels/compas_rules_full.csv and .devdata/compas/ (else ../shared/data/) and,
# where the machine lacks them, the wheels of the build's and fairlist's dependencies in .whl/:
#
#     bash benchmarks/device_threads.sh              # the device check; its log in $OUT/log
#     FL_DRY=1 bash benchmarks/device_threads.sh     # the same steps, small cases: try it first
#     FL_SECTIONS="A C" FL_A="--max-length 5 --lam 0.015 --jobs 1 16" bash benchmarks/device_threads.sh
#
# It builds fairlist into /tmp/fl (no network), then, each section under a timeout that leaves
# the later ones their time:
#   A. benchmarks/bench_threads.py on issue 26's <= 5-rule certificate (SP <= 0.05, lambda
#      0.005, COMPAS, best-first by lower bound) on 1, 2, 4, 8 and 16 threads: time, nodes,
#      speed-up over 1 thread, memory per stored node and its ratio to 1 thread's, the
#      frontier lock's shares (bench_threads.py's docstring says what each column is);
#   B. the default fit (`fairlist fit compas --metric SP --epsilon 0.05`: 4 M nodes or 60 s)
#      with --n-jobs -1, then with --n-jobs 1 for the same seconds (no node limit), then with
#      --n-jobs 1 as it stands: the gap at equal wall time;
#   C. benchmarks/bench_parallel.py: the 2 M-node sweep (80 fits) on 16 workers, plain and with
#      tail threads, each with its parallel efficiency;
#   D. issue 23's moonshot (at most 7 rules, SP <= 0.05, lambda 0.0001) on 16 threads for what
#      is left of the budget: the gap it reaches;
#   E. issue 36's certificates on 16 threads, what they cost in core-seconds: the <= 6-rule one
#      (SP <= 0.05, lambda 0.005, best-first), then without a cap (the default length deepening,
#      breadth-first) lambda 0.01 on 4 and 16 threads, and lambda 0.005, each with its share of what
#      is left (FL_SECTIONS=E; run alone, they take the whole budget).
set -o pipefail
export PYTHONUNBUFFERED=1
REPO=$PWD
T0=$(date +%s)
BUDGET=${FL_BUDGET:-540}
TARGET=${FL_TARGET:-/tmp/fl}  # where fairlist is built
LOG=${OUT:-/tmp}/log
left() { echo $(( BUDGET - ($(date +%s) - T0) )); }
cap() { local l; l=$(left); echo $(( $1 < l ? $1 : l )); }  # a section's timeout
exec > >(tee -a "$LOG") 2>&1
nproc; lscpu | grep -E "Model name|^CPU\(s\)|Thread\(s\) per core|Core\(s\) per socket"
python3 --version
if [ -z "$FL_DRY" ] && compgen -G ".whl/*.whl" > /dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site .whl/*.whl || exit 1
    export PYTHONPATH=/tmp/site
fi
python3 -m pip install -q --no-index --no-build-isolation --no-deps --target "$TARGET" . \
    > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
echo "build: $(( $(date +%s) - T0 )) s"
export PYTHONPATH=$TARGET${PYTHONPATH:+:$PYTHONPATH}
DATA=$REPO/.devdata
[ -f "$DATA/faircorels/compas_rules_full.csv" ] || DATA=$REPO/../shared/data
export FAIRLIST_DATA_HOME=$DATA
D=$DATA/faircorels/compas_rules_full.csv
cd /tmp || exit 1  # import the build, not the source tree
python3 -c "import fairlist._core, fairlist; print(fairlist.__file__)" || exit 1

if [ -n "$FL_DRY" ]; then  # the same steps on cases of seconds
    A="--max-length 4 --lam 0.015 --jobs 1 2 --time-limit 20"
    B=("--max-nodes" "100000"); C="--workers 2 --n-epsilons 4 --cv 2 --max-nodes 20000"
    MOON="--max-length 5 --jobs 2"
else
    A="--max-length 5 --lam 0.005 --jobs 1 2 4 8 16 --time-limit 150"
    B=(); C="--workers 16 --max-nodes 2000000"; MOON="--max-length 7 --jobs 16"
fi
A=${FL_A:-$A}
SECTIONS=${FL_SECTIONS:-A B C D}  # which sections run
on() { [[ " $SECTIONS " == *" $1 "* ]]; }

if on A; then
    echo "== A. the certificate: $A ($(left) s left)"
    # shellcheck disable=SC2086
    timeout "$(cap 300)" python3 "$REPO/benchmarks/bench_threads.py" --data "$D" $A
fi

fit() {  # one fit's status, objective, bound, gap and seconds; the seconds kept in /tmp/sec
    timeout "$(cap 75)" python3 -m fairlist fit compas --metric SP --epsilon 0.05 --json "$@" \
        2>/dev/null | python3 -c "
import json, sys
d = json.load(sys.stdin)
print(f\"  {d['status']:9} {d['stop_reason'] or '':12} objective {d['objective']:.6f} \"
      f\"bound {d['lower_bound']:.6f} gap {d['gap']:.6f} in {d['seconds']:6.2f} s\")
open('/tmp/sec', 'w').write(str(d['seconds']))"
}
if on B; then
    echo "== B. the default fit, n_jobs -1 then 1 at the same seconds ($(left) s left)"
    echo "n_jobs -1 (${B[*]:-the defaults}):"; fit --n-jobs -1 "${B[@]}"
    W=$(cat /tmp/sec 2>/dev/null || echo 10)
    echo "n_jobs 1, the same $W s, no node limit:"; fit --n-jobs 1 --time-limit "$W" --max-nodes 0
    echo "n_jobs 1 (${B[*]:-the defaults}):"; fit --n-jobs 1 "${B[@]}"
fi

if on C; then
    echo "== C. the sweep, plain and with tail threads ($(left) s left)"
    # shellcheck disable=SC2086
    timeout "$(cap 220)" python3 "$REPO/benchmarks/bench_parallel.py" --data-home "$DATA" \
        --tail-threads $C
fi

T=$(( $(left) - 15 ))
if on D && [ "$T" -ge 20 ]; then
    echo "== D. the moonshot: <= 7 rules, SP <= 0.05, lambda 0.0001, $T s"
    # shellcheck disable=SC2086
    timeout "$(( T + 10 ))" python3 "$REPO/benchmarks/bench_threads.py" --data "$D" \
        --lam 0.0001 --time-limit "$T" --lists $MOON
fi
if on E; then
    echo "== E1. <= 6 rules, SP <= 0.05, lambda 0.005, 16 threads ($(left) s left)"
    timeout "$(cap 280)" python3 "$REPO/benchmarks/bench_threads.py" --data "$D" \
        --max-length 6 --lam 0.005 --jobs 16 --time-limit "$(( $(cap 280) - 20 ))" --lists
    echo "== E2. no cap, SP <= 0.05, lambda 0.01, 4 threads then 16 ($(left) s left)"
    timeout "$(cap 90)" python3 "$REPO/benchmarks/bench_threads.py" --data "$D" \
        --max-length 0 --lam 0.01 --policy bfs --jobs 16 4 --time-limit 40
    T=$(( $(left) - 15 ))
    echo "== E3. no cap, SP <= 0.05, lambda 0.005, 16 threads, $T s"
    [ "$T" -ge 20 ] && timeout "$(( T + 10 ))" python3 "$REPO/benchmarks/bench_threads.py" \
        --data "$D" --max-length 0 --lam 0.005 --policy bfs --jobs 16 --time-limit "$T" --lists
fi
echo "total: $(( $(date +%s) - T0 )) s"
