"""The practitioner's table at scale (issue 34's targets): raw tables in, fits and predictions out.

Each case runs in its own subprocess pinned to one core, which reports its wall and CPU seconds,
its resident memory once its data is made (``base MB``) and its peak (``peak MB``: ``ru_maxrss``
of that process alone, the table included) and, for a fit, the wall seconds of each stage, read
from the phases ``fit`` reports to its progress callback: preparing (checking the table),
binarizing, building the native search (the time from the ``building`` phase to the search's
end, less the engine's search seconds) and searching. The cases:

- ``fit``: ``FairRuleListClassifier(metric="SP", epsilon=0.05, lam=0.001, max_length=3)`` with
  the default binarizer (missing values as a category), on the synthetic census-like table
  (``fairlist.synthetic.make_wide_table(--rows)``: 37 raw columns, ID-like ones among them,
  6 % positives) and on Adult's raw table (train + test, 48,842 rows, 14 columns, sex the
  sensitive attribute);
- ``default``: the default fit with only the caps (``epsilon=0.05, max_length=3``) on the
  synthetic table: is its answer the constant list?
- ``predict``: the ``fit`` model of the synthetic table, saved and loaded, predicting
  ``--predict-rows`` rows of another draw of the table (seed 1: unseen categories included).

The ``before`` rows run the same cases with the settings of fairlist before issue 34 where they
can still be written: the binarizer without an antecedent budget (:data:`OLD_BINARIZER`) and,
for ``default``, ``lam=0.01``. Both columns come from the same run, on the same machine.

    python benchmarks/bench_scale.py                       # 200,000 rows and Adult: minutes
    python benchmarks/bench_scale.py --rows 20000 --no-adult
    python benchmarks/bench_scale.py --quick               # 2,000 rows x 9 columns: seconds
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("FAIRLIST_DATA_HOME", ROOT.parent / "shared" / "data"))

#: The binarizer of fairlist before issue 34 (no antecedent budget, every column used), as far
#: as today's Binarizer can express it: parameters it no longer has are left out.
OLD_BINARIZER = {"max_antecedents": None, "handle_missing": "category"}

#: The fit of the targets: max_length=3, lam=0.001, SP <= 0.05.
FIT = {"metric": "SP", "epsilon": 0.05, "lam": 0.001, "max_length": 3}
#: The default fit: only the caps.
DEFAULT = {"epsilon": 0.05, "max_length": 3}

COLUMNS = (
    f"{'case':<10} {'table':<14} {'settings':<7} {'wall s':>7} {'CPU s':>7} {'prep s':>7} "
    f"{'bin s':>7} {'build s':>7} {'search s':>8} {'antec.':>7} {'cert.':>5} {'rules':>5} "
    f"{'accuracy':>8} {'base MB':>8} {'peak MB':>8}  note"
)


# --------------------------------------------------------------------------- the child
def _table(name: str, rows: int, seed: int = 0):
    """(X, y, sensitive) of a raw table."""
    import numpy as np
    import pandas as pd

    if name == "adult":
        names = [
            "age", "workclass", "fnlwgt", "education", "education-num", "marital-status",
            "occupation", "relationship", "race", "sex", "capital-gain", "capital-loss",
            "hours-per-week", "native-country", "income",
        ]  # fmt: skip
        parts = [
            pd.read_csv(
                DATA / "adult" / f, names=names, skiprows=skip, skipinitialspace=True,
                na_values="?",
            )
            for f, skip in (("adult.data", 0), ("adult.test", 1))
        ]  # fmt: skip
        frame = pd.concat(parts, ignore_index=True)
        y = frame.pop("income").str.rstrip(".").eq(">50K").to_numpy(np.int8)
        return frame.drop(columns=["sex"]), y, frame["sex"]
    from fairlist.synthetic import make_wide_table

    narrow = {"n_numeric": 4, "n_categorical": 4, "n_id_like": 1} if NARROW else {}
    table = make_wide_table(rows, seed=seed, **narrow)
    return table.X, table.y, table.sensitive


#: --quick: the synthetic table with 4 numeric, 4 categorical and 1 ID-like column (seconds).
NARROW = os.environ.get("BENCH_SCALE_NARROW") == "1"


def _binarizer(settings: str):
    from fairlist.binarize import Binarizer

    if settings == "after":
        return "auto"
    known = Binarizer().get_params()
    return Binarizer(**{k: v for k, v in OLD_BINARIZER.items() if k in known})


def _rss_mb() -> float:
    """This process's resident memory now (MB; Linux), 0 where /proc is absent."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        return 0.0


def _child(spec: dict) -> dict:
    """Run one case here and return its figures."""
    import numpy as np

    from fairlist import FairRuleListClassifier

    cores = sorted(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cores[0]})  # one core
    if spec.get("memory_cap_gb"):  # address space: a runaway case fails alone (MemoryError)
        cap = int(spec["memory_cap_gb"] * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    warnings.simplefilter("ignore")
    out: dict = {}
    if spec["case"] == "predict":
        X, _, _ = _table(spec["table"], spec["rows"], seed=1)
        clf = FairRuleListClassifier.load(spec["model"])
        out["base_mb"] = _rss_mb()
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            clf.predict(X)
        except Exception as exc:  # noqa: BLE001 - reported in the table
            out["note"] = f"{type(exc).__name__}: {str(exc)[:70]}"
        out |= {"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu}
        out["rules"] = len(clf.rule_list_)
    else:
        X, y, s = _table(spec["table"], spec["rows"])
        params = dict(FIT if spec["case"] == "fit" else DEFAULT)
        if spec["case"] == "default" and spec["settings"] == "before":
            params["lam"] = 0.01  # the old default
        phases: dict[str, float] = {}

        def progress(info: dict) -> None:
            if "phase" in info:
                phases.setdefault(info["phase"], float(info["seconds"]))

        clf = FairRuleListClassifier(
            **params,
            binarizer=_binarizer(spec["settings"]),
            handle_missing="category",
            time_limit=spec["time_limit"],
            engine_options={"progress": progress},
        )
        out["base_mb"] = _rss_mb()  # the table made, before the fit
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            clf.fit(X, y, sensitive_features=s)
        except Exception as exc:  # noqa: BLE001 - a time limit while binarizing, say
            out["note"] = f"{type(exc).__name__}: {str(exc)[:70]}"
        out |= {"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu}
        if "binarizing" in phases:
            out["prep"] = phases["binarizing"] - phases.get("preparing", 0.0)
        if "building" in phases:
            out["bin"] = phases["building"] - phases.get("binarizing", phases["building"])
            if "prep" not in out:
                out["prep"] = phases["building"] - phases.get("preparing", 0.0)
        if hasattr(clf, "rule_list_"):
            search = float(clf.stats_.get("seconds", 0.0))
            out["search"] = search
            if "building" in phases:
                out["build"] = max(0.0, out["wall"] - phases["building"] - search)
            out |= {
                "antecedents": len(clf.rule_list_.feature_names or ()),
                "certified": str(clf.status_) == "optimal",
                "rules": len(clf.rule_list_),
                "accuracy": float(clf.accuracy_),
                "lam": float(getattr(clf, "lam_", params.get("lam", np.nan))),
            }
            if spec.get("model"):
                clf.set_params(engine_options=None)
                clf.save(spec["model"])
    out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux
    return out


# --------------------------------------------------------------------------- the parent
def _run(spec: dict, timeout: float) -> dict:
    """One case in a fresh interpreter (its peak memory is its own)."""
    try:
        done = subprocess.run(
            [sys.executable, __file__, "--child", json.dumps(spec)],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return {"note": f"killed after {timeout:.0f} s"}
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return {"note": f"exit {done.returncode}: {tail[:80]}"}
    return json.loads(lines[-1])


def _cell(value, spec: str, width: int) -> str:
    return f"{'-' if value is None else format(value, spec):>{width}}"


def _row(case: str, table: str, settings: str, r: dict) -> str:
    certified = {True: "yes", False: "no"}.get(r.get("certified"), "-")
    note = r.get("note", "")
    if case == "default" and "rules" in r:
        note = note or ("the constant list" if r["rules"] == 0 else "a fair list, not the constant")
        note += f" (lam {r['lam']:.4g})" if "lam" in r else ""
    return (
        f"{case:<10} {table:<14} {settings:<7} {_cell(r.get('wall'), '.2f', 7)} "
        f"{_cell(r.get('cpu'), '.2f', 7)} {_cell(r.get('prep'), '.2f', 7)} "
        f"{_cell(r.get('bin'), '.2f', 7)} {_cell(r.get('build'), '.2f', 7)} "
        f"{_cell(r.get('search'), '.2f', 8)} {_cell(r.get('antecedents'), ',', 7)} "
        f"{certified:>5} {_cell(r.get('rules'), 'd', 5)} {_cell(r.get('accuracy'), '.4f', 8)} "
        f"{_cell(r.get('base_mb'), ',.0f', 8)} {_cell(r.get('peak_mb'), ',.0f', 8)}  {note}"
    )


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=200_000, help="rows of the synthetic table")
    ap.add_argument("--predict-rows", type=int, default=100_000)
    ap.add_argument("--time-limit", type=float, default=60.0, help="each fit's time_limit")
    ap.add_argument("--no-adult", action="store_true", help="skip Adult (needs its files)")
    ap.add_argument(
        "--memory-cap-gb",
        type=float,
        default=8.0,
        help="address-space cap of each case's process (0: none); a case past it fails alone",
    )
    ap.add_argument("--no-before", action="store_true", help="skip the before rows")
    ap.add_argument(
        "--quick",
        action="store_true",
        help="2,000 rows of a narrow synthetic table (9 columns), 10 s limits, no Adult",
    )
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(_child(json.loads(args.child))))
        return
    if args.quick:
        args.rows = min(args.rows, 2_000)
        args.predict_rows = min(args.predict_rows, 2_000)
        args.time_limit = min(args.time_limit, 10.0)
        args.no_adult = True
        os.environ["BENCH_SCALE_NARROW"] = "1"  # the children read it too
    adult = not args.no_adult and (DATA / "adult" / "adult.data").exists()
    timeout = 4 * args.time_limit + 120  # a fit's limit covers binarizing; this catches a hang
    print(
        f"one core; synthetic table {args.rows:,} rows, predict {args.predict_rows:,} rows; "
        f"fit {FIT}, default {DEFAULT}; time limit {args.time_limit:g} s; "
        f"before: binarizer {OLD_BINARIZER}, default lam 0.01"
    )
    print(COLUMNS)
    print("-" * len(COLUMNS))
    settings = ["after"] if args.no_before else ["before", "after"]
    with tempfile.TemporaryDirectory() as tmp:
        wide = f"synthetic {args.rows // 1000}k" if args.rows >= 1000 else f"synth. {args.rows}"
        cases = [("fit", "wide", wide)] + ([("fit", "adult", "Adult 48,842")] if adult else [])
        cases.append(("default", "wide", wide))
        for case, table, label in cases:
            for setting in settings:
                spec = {"case": case, "table": table, "rows": args.rows, "settings": setting}
                spec["time_limit"] = args.time_limit
                spec["memory_cap_gb"] = args.memory_cap_gb
                if case == "fit" and table == "wide":
                    spec["model"] = str(Path(tmp) / f"model-{setting}.json")
                print(_row(case, label, setting, _run(spec, timeout)), flush=True)
        for setting in settings:
            model = Path(tmp) / f"model-{setting}.json"
            label = f"{args.predict_rows:,} rows"
            if not model.exists():
                print(_row("predict", label, setting, {"note": "no model (its fit failed)"}))
                continue
            spec = {"case": "predict", "table": "wide", "rows": args.predict_rows}
            spec |= {"settings": setting, "model": str(model), "memory_cap_gb": args.memory_cap_gb}
            print(_row("predict", label, setting, _run(spec, timeout)), flush=True)


if __name__ == "__main__":
    main()
