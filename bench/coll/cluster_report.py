#!/usr/bin/env python3
"""bench/coll/cluster_report.py - the report of bench/coll/cluster.sh.

Reads the raw data cluster.sh left in --out (raw.txt: "profile variant
repeat op alg bytes round us"; model.PROFILE.txt from collmodel; the tune
logs; app.txt; load.txt) and writes the markdown report (--report) and one
gnuplot PNG per profile (--pngdir/cluster-PROFILE.png; cluster-HOSTSxPPN-PROFILE.png
for other layouts than 4 hosts x 1 rank).  Figures are
medians over every round of every job of a kind (default / tuned); the
noise is the relative half interquartile range of those timings, and the
job-to-job difference of the medians of the repeated default jobs.
"""
import argparse
import os
import statistics
import subprocess
import time

NAMES = {
    "allreduce": ["default", "basic_linear", "nonoverlapping", "recursive_doubling", "ring",
                  "segmented_ring", "rabenseifner"],
    "bcast": ["default", "basic_linear", "chain", "pipeline", "split_binary_tree", "binary_tree",
              "binomial", "knomial", "scatter_allgather", "scatter_allgather_ring"],
    "allgather": ["default", "linear", "bruck", "recursive_doubling", "ring", "neighbor",
                  "two_proc"],
    "alltoall": ["default", "linear", "pairwise", "modified_bruck", "linear_sync", "two_proc"],
    "reduce": ["default", "linear", "chain", "pipeline", "binary", "binomial", "in-order_binary",
               "rabenseifner"],
    "reduce_scatter": ["default", "non-overlapping", "recursive_halving", "ring", "butterfly"],
    "barrier": ["default", "linear", "double_ring", "recursive_doubling", "bruck", "two_proc",
                "tree"],
}
MISSELECT = 1.2     # default over 1.2 x the best forced algorithm
GOAL_GAIN = 0.8     # tuned at least 20% faster than default there
GOAL_LOSS = 1.03    # nowhere tuned over 3% slower than default beyond noise
GOAL_MODEL = 0.25   # predictions within 25% for the chosen algorithms


def name(op, alg):
    n = NAMES.get(op, [])
    return n[alg] if 0 <= alg < len(n) else str(alg)


def quartiles(v):
    v = sorted(v)
    if len(v) < 2:
        return v[0], v[0], v[0]
    q = statistics.quantiles(v, n=4, method="inclusive")
    return q[0], q[1], q[2]


def spread(v):
    q1, med, q3 = quartiles(v)
    return (q3 - q1) / 2 / med if med > 0 else 0


def fmt(us):
    return "%.1f" % us if us >= 10 else "%.2f" % us


def size_name(n):
    """8 B, 4 KiB, 1 MiB."""
    for unit, f in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= f and n % f == 0:
            return "%d %s" % (n // f, unit)
    return "%d B" % n


def load(args):
    raw = {}      # (prof, variant, op, alg, bytes) -> [us]
    byrep = {}    # (prof, variant, op, alg, bytes, rep) -> [us]
    with open(os.path.join(args.out, "raw.txt")) as f:
        for line in f:
            w = line.split()
            if len(w) != 8:
                continue
            prof, var, rep, op, alg, nb, _, us = w
            key = (prof, var, op, int(alg), int(nb))
            raw.setdefault(key, []).append(float(us))
            byrep.setdefault(key + (rep,), []).append(float(us))
    model, choice, rule = {}, {}, {}
    global model0
    model0 = {}   # the same model without the one-way figures (model0.PROFILE.txt)
    for prof in args.profiles.split():
        path = os.path.join(args.out, "model0.%s.txt" % prof)
        if os.path.exists(path):
            for line in open(path):
                w = line.split()
                if w and w[0] == "model":
                    model0[(prof, w[1], int(w[2]), int(w[3]))] = float(w[4])
        path = os.path.join(args.out, "model.%s.txt" % prof)
        if not os.path.exists(path):
            continue
        with open(path) as f:
            for line in f:
                w = line.split()
                if w[0] == "model":
                    model[(prof, w[1], int(w[2]), int(w[3]))] = float(w[4])
                elif w[0] == "choice":
                    choice[(prof, w[1], int(w[2]))] = (int(w[3]), int(w[4]), float(w[5]))
                elif w[0] == "rule":
                    rule[(prof, w[1], int(w[2]))] = (int(w[3]), int(w[4]))
    return raw, byrep, model, choice, rule


def rows_of(args, raw, byrep, model, choice, rule, prof, op):
    """One row per size: the figures of the report's tables."""
    sizes = sorted({k[4] for k in raw if k[0] == prof and k[2] == op})
    rows = []
    for nb in sizes:
        d = raw.get((prof, "default", op, 0, nb))
        t = raw.get((prof, "tuned", op, 0, nb))
        if not d or not t:
            continue
        forced = {k[3]: statistics.median(v) for k, v in raw.items()
                  if k[0] == prof and k[1] == "default" and k[2] == op and k[4] == nb and k[3] > 0}
        best = min(forced, key=forced.get) if forced else 0
        reps = sorted({k[5] for k in byrep if k[:5] == (prof, "default", op, 0, nb)})
        rep_meds = [statistics.median(byrep[(prof, "default", op, 0, nb, r)]) for r in reps]
        jobnoise = (max(rep_meds) - min(rep_meds)) / statistics.median(rep_meds) if len(rep_meds) > 1 else 0
        ru = rule.get((prof, op, nb), (0, 0))
        ch = choice.get((prof, op, nb))
        # the model beside the measurement: the rule's algorithm (or, where
        # the rule is Open MPI's own, the model's candidate), predicted at
        # the segment size the forced run used (Open MPI's default: 0)
        malg = ru[0] if ru[0] else (ch[0] if ch else 0)
        pred = model.get((prof, op, malg, nb))
        meas = forced.get(malg)
        rows.append(dict(
            bytes=nb, default=statistics.median(d), tuned=statistics.median(t),
            best=best, best_us=forced.get(best, 0), forced=forced,
            noise=max(spread(d), spread(t)), jobnoise=jobnoise, rule=ru, malg=malg,
            pred=pred, meas=meas, nd=len(d), nt=len(t)))
    return rows


def plot(args, prof, table, pngdir, out):
    # MPI_Barrier is one size: its table says it all
    ops = [op for op in args.ops.split() if table.get(op) and op != "barrier"]
    if not ops:
        return None
    # 4 hosts x 1 rank: cluster-PROFILE.png; other layouts name theirs
    layout = "" if args.ppn == 1 and args.hosts == 4 else "%dx%d-" % (args.hosts, args.ppn)
    png = os.path.join(pngdir, "cluster-%s%s.png" % (layout, prof))
    data = os.path.join(out, "plot.%s" % prof)
    cols = 3
    nrow = (len(ops) + cols - 1) // cols
    script = ["set terminal png noenhanced size %d,%d" % (1500, 420 * nrow), "set output '%s'" % png,
              "set multiplot layout %d,%d title 'profile %s: %d hosts x %d rank(s), us per call "
              "(median)'" % (nrow, cols, prof, args.hosts, args.ppn),
              "set key left top font ',8'", "set grid"]
    for op in ops:
        rows = table[op]
        fn = "%s.%s" % (data, op)
        with open(fn, "w") as f:
            for r in rows:
                f.write("%d %g %g %g %g\n" % (max(r["bytes"], 1), r["default"], r["tuned"],
                                              r["best_us"], r["pred"] or 0))
        script += ["set logscale xy", "set xlabel 'bytes'", "set title '%s'" % op,
                   "plot '%s' using 1:2 with linespoints title 'default', "
                   "'' using 1:3 with linespoints title 'tuned', "
                   "'' using 1:4 with lines dt 2 title 'best forced', "
                   "'' using 1:($5 > 0 ? $5 : 1/0) with lines dt 3 title 'model (rule or "
                   "candidate)'" % fn]
    script.append("unset multiplot")
    try:
        subprocess.run(["gnuplot"], input="\n".join(script), text=True, check=True,
                       stderr=subprocess.DEVNULL)
    except (OSError, subprocess.CalledProcessError):
        return None
    return os.path.basename(png)


def main():
    ap = argparse.ArgumentParser()
    for a in ("out", "report", "pngdir", "profiles", "ops", "cmd"):
        ap.add_argument("--" + a, required=True)
    for a in ("np", "hosts", "ppn", "rounds", "repeats"):
        ap.add_argument("--" + a, type=int, required=True)
    args = ap.parse_args()
    raw, byrep, model, choice, rule = load(args)
    out = []
    w = out.append

    def readf(name, default=""):
        p = os.path.join(args.out, name)
        return open(p).read().strip() if os.path.exists(p) else default

    ver = subprocess.run(["sh", "-c", "mpirun.openmpi --version | sed -n 's/.*) //p;q'"],
                         capture_output=True, text=True).stdout.strip()
    w("# Model-based collective tuning on the emulated cluster")
    w("")
    w("Generated by bench/coll/cluster.sh (%s): %d hosts x %d rank(s) (network namespaces, "
      "Open MPI %s, TCP BTL between hosts)." % (time.strftime("%Y-%m-%d", time.gmtime()),
                                                args.hosts, args.ppn, ver))
    w("Run as: `%s`; measuring took %s s." % (args.cmd, readf("seconds.txt", "?")))
    w("")
    w("How it was measured: per profile, `mpiwasm tune` first (its model proposes, its "
      "verification keeps a rule only where measured faster; seconds per profile: %s). "
      "Then for each collective, native `collsweep` jobs of Open MPI's own selection with "
      "every coll_tuned algorithm forced beside it (interleaved, %d rounds a job, the order "
      "rotating each round) alternate with jobs under the rules file tune wrote (set as "
      "`mpiwasm` sets it), %d jobs of each.  A figure is the median of all its rounds "
      "(the slowest rank's time per call, batches of >= 10 ms); every call's result is "
      "checked.  The machine has 2 cores shared with other work: load averages (1, 5, 15 "
      "min) at the end of each profile: %s." % (
          readf("tune-seconds.txt").replace("\n", ", "), args.rounds, args.repeats,
          "; ".join(readf("load.txt").splitlines())))
    w("")
    w("Columns: *tuned* is the tuned job's time, with the rule it used (the algorithm, or "
      "`own` where the rule is Open MPI's own selection); *best forced* the fastest forced "
      "algorithm; *model* the model's prediction for the rule's algorithm (where the rule is "
      "Open MPI's own: for the model's candidate, which verification rejected) beside that "
      "algorithm's measured forced time; *noise* the larger relative half-IQR of the default "
      "and tuned timings, and the difference between the repeated default jobs' medians.")
    w("")
    miss, modelrows, summary = [], [], []
    for prof in args.profiles.split():
        table = {}
        w("## Profile %s" % prof)
        w("")
        tl = readf("tune.%s.log" % prof)
        for line in tl.splitlines():
            if "alpha" in line or "two levels" in line:
                w("    " + line)
        w("")
        pts = {}
        for line in readf("pingpong.%s.txt" % prof).splitlines():
            f = line.split()
            if len(f) == 4 and f[0] == "pingpong":
                pts.setdefault(f[1], []).append((int(f[2]), float(f[3])))
        fits = {}
        path = os.path.join(args.out, "model.%s.txt" % prof)
        if os.path.exists(path):
            for line in open(path):
                f = line.split()
                if f and f[0] == "oneway":
                    fits[f[1]] = (float(f[2]), float(f[3]))
        for lv, title in (("net", "across hosts"), ("shm", "inside a host")):
            if lv not in pts:
                continue
            w("One-way ping-pong %s (bench/coll/pingfit.c, half the median round trip; "
              "the model's one-way hops use the fit): %s%s." % (
                  title, ", ".join("%s %.1f us" % (size_name(n), us) for n, us in pts[lv]),
                  "; fitted alpha %.1f us, beta %.3f ns/B (%.2f GB/s)" % (
                      fits[lv][0], fits[lv][1], 1 / fits[lv][1]) if lv in fits else ""))
            w("")
        for op in args.ops.split():
            rows = rows_of(args, raw, byrep, model, choice, rule, prof, op)
            if not rows:
                continue
            table[op] = rows
            w("### %s, profile %s" % (op, prof))
            w("")
            w("| bytes | default us | tuned us (rule) | tuned/default | best forced us (alg) | "
              "default/best | model us (alg) / measured us | noise % (jobs %) |")
            w("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
            for r in rows:
                ru = r["rule"]
                rule_s = name(op, ru[0]) if ru[0] else "own"
                if ru[1]:
                    rule_s += " %d KiB seg" % (ru[1] // 1024)
                dbest = r["default"] / r["best_us"] if r["best_us"] else 0
                tdef = r["tuned"] / r["default"]
                mark = " **misselect**" if dbest > MISSELECT else ""
                if r["pred"] and r["meas"]:
                    ms = "%s (%s) / %s" % (fmt(r["pred"]), name(op, r["malg"]), fmt(r["meas"]))
                else:
                    ms = "-"
                w("| %d | %s | %s (%s) | %.2f | %s (%s) | %.2f%s | %s | %.0f (%.0f) |" % (
                    r["bytes"], fmt(r["default"]), fmt(r["tuned"]), rule_s, tdef,
                    fmt(r["best_us"]), name(op, r["best"]), dbest, mark, ms, r["noise"] * 100,
                    r["jobnoise"] * 100))
                if dbest > MISSELECT:
                    miss.append((prof, op, r, dbest, tdef))
                if ru[0] and r["pred"] and r["meas"]:
                    modelrows.append((prof, op, r))
            w("")
        png = plot(args, prof, table, args.pngdir, args.out)
        if png:
            w("![profile %s](%s)" % (prof, png))
            w("")
        summary.append((prof, table))

    w("## Where the default misselects, and what tuning recovered")
    w("")
    w("Rows where Open MPI's default is over %.1fx the best forced algorithm. *recovered*: "
      "(default - tuned) / (default - best)." % MISSELECT)
    w("")
    w("| profile | collective | bytes | default us | best us (alg) | default/best | tuned us "
      "(rule) | tuned/default | recovered |")
    w("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    gain_ok = 0
    for prof, op, r, dbest, tdef in miss:
        rec = (r["default"] - r["tuned"]) / (r["default"] - r["best_us"])
        gain_ok += tdef <= GOAL_GAIN
        w("| %s | %s | %d | %s | %s (%s) | %.2f | %s (%s) | %.2f | %.0f%% |" % (
            prof, op, r["bytes"], fmt(r["default"]), fmt(r["best_us"]), name(op, r["best"]),
            dbest, fmt(r["tuned"]), name(op, r["rule"][0]) if r["rule"][0] else "own", tdef,
            rec * 100))
    if not miss:
        w("| (none) | | | | | | | | |")
    w("")
    # Rows whose rule is Open MPI's own selection ran the same
    # configuration in the tuned and the default jobs: their ratio is an
    # A/A measurement of the job-to-job noise.
    allrows = [(prof, op, r) for prof, t in summary for op, rows in t.items() for r in rows]
    aa = sorted(abs(r["tuned"] / r["default"] - 1) for _, _, r in allrows if not r["rule"][0])
    aa90 = aa[int(0.9 * (len(aa) - 1))] if aa else 0
    ruled = [(prof, op, r) for prof, op, r in allrows if r["rule"][0]]
    w("## Goals (issue 10)")
    w("")
    w("Where the rule for a size is Open MPI's own selection, the tuned and the default "
      "jobs ran the same configuration: their ratio measures the noise between jobs (A/A). "
      "%d such rows: median |tuned/default - 1| = %.0f%%, 90th percentile %.0f%%, largest "
      "%.0f%%.  Only the %d rows where a rule chose an algorithm can show tuning's effect; "
      "a misselection or a loss is counted only beyond the A/A 90th percentile." % (
          len(aa), statistics.median(aa) * 100 if aa else 0, aa90 * 100,
          aa[-1] * 100 if aa else 0, len(ruled)))
    w("")
    real_miss = [m for m in miss if m[3] > 1 + aa90]
    w("- Misselections: default over 1.2x the best forced algorithm in %d rows, %d of them "
      "beyond the A/A noise (default/best > %.2f).  (The best of several noisy forced "
      "algorithms is biased low: with this noise most of these rows are not real.)" % (
          len(miss), len(real_miss), 1 + aa90))
    rm_ruled = [m for m in real_miss if m[2]["rule"][0]]
    w("- Where the default misselects beyond the noise, tuned at least 20%% faster than "
      "default with a rule of its own: %d of %d rows (%d of them had a rule at all; "
      "elsewhere tune's verification found no candidate faster beyond its own noise and "
      "left Open MPI's choice)." % (sum(m[4] <= GOAL_GAIN for m in rm_ruled), len(real_miss),
                                    len(rm_ruled)))
    w("- Rows with a rule, tuned/default:")
    for prof, op, r in ruled:
        td = r["tuned"] / r["default"]
        verdict = ("faster" if td < 1 - aa90 else "slower" if td > 1 + aa90 else
                   "within the A/A noise")
        w("  - %s %s %d B, rule %s: %.2f (%s)" % (prof, op, r["bytes"], name(op, r["rule"][0]),
                                                td, verdict))
    worse = [x for x in ruled if x[2]["tuned"] / x[2]["default"] > max(GOAL_LOSS, 1 + aa90)]
    w("- Tuned more than 3%% slower than default beyond the A/A noise: %d of %d rows with a "
      "rule." % (len(worse), len(ruled)))
    within = [m for m in modelrows if abs(m[2]["pred"] / m[2]["meas"] - 1) <= GOAL_MODEL]
    w("- The model's prediction within 25%% of the measured time for the chosen algorithms "
      "(the rules' algorithms, forced, at Open MPI's default segment size): %d of %d rows." % (
          len(within), len(modelrows)))
    ratios = sorted(m[2]["pred"] / m[2]["meas"] for m in modelrows)
    if ratios:
        w("  predicted/measured: min %.2f, median %.2f, max %.2f." % (
            ratios[0], statistics.median(ratios), ratios[-1]))
    cand = [r for _, _, r in allrows if r["pred"] and r["meas"]]
    if cand:
        cr = sorted(r["pred"] / r["meas"] for r in cand)
        w("  Over every row (the rule's algorithm, or the model's candidate where the rule is "
          "Open MPI's own): %d of %d within 25%%; predicted/measured median %.2f (10th "
          "percentile %.2f, 90th %.2f)." % (
              sum(abs(x - 1) <= GOAL_MODEL for x in cr), len(cr), statistics.median(cr),
              cr[int(0.1 * (len(cr) - 1))], cr[int(0.9 * (len(cr) - 1))]))
    # every forced algorithm at every size, both models
    for label, mk in (("the one-way hops fitted to the ping-pongs (this model)", "model"),
                      ("tune's exchange-round figures alone for every hop (the model before)",
                       "model0")):
        md = model if mk == "model" else model0
        rs, per = [], {}
        for (prof, var, op, alg, nb), v in raw.items():
            pred = md.get((prof, op, alg, nb))
            if var != "default" or not alg or pred is None or not v:
                continue
            x = pred / statistics.median(v)
            rs.append(x)
            per.setdefault(op, []).append(x)
        if not rs:
            continue
        rs.sort()
        w("- Every forced algorithm at every size, predicted with %s: %d of %d within 25%%, "
          "predicted/measured median %.2f (10th percentile %.2f, 90th %.2f); per collective "
          "(within 25%%, median): %s." % (
              label, sum(abs(x - 1) <= GOAL_MODEL for x in rs), len(rs), statistics.median(rs),
              rs[int(0.1 * (len(rs) - 1))], rs[int(0.9 * (len(rs) - 1))],
              ", ".join("%s %d/%d %.2f" % (op, sum(abs(x - 1) <= GOAL_MODEL for x in v), len(v),
                                          statistics.median(v)) for op, v in sorted(per.items()))))
    if allrows:
        w("- Noise: median relative half-IQR of the timings %.0f%% (90th percentile %.0f%%); "
          "median difference between the repeated default jobs %.0f%%." % (
              statistics.median(r["noise"] for _, _, r in allrows) * 100,
              sorted(r["noise"] for _, _, r in allrows)[int(0.9 * (len(allrows) - 1))] * 100,
              statistics.median(r["jobnoise"] for _, _, r in allrows) * 100))
    w("")
    app = readf("app.txt")
    if app:
        w("## Application kernel (bench/coll/appkernel.c)")
        w("")
        w("A CG-like solver: 16384 rows x 8 right-hand sides, 30 iterations, each an "
          "MPI_Allgather of the direction (1 MiB), two MPI_Allreduce of 8 doubles and an "
          "MPI_Alltoall of 4096 keys per rank pair; default and tuned jobs alternating; "
          "seconds of the iterations (slowest rank), median and the runs.")
        w("")
        w("| profile | default s | tuned s | tuned/default | runs default | runs tuned |")
        w("| --- | ---: | ---: | ---: | --- | --- |")
        runs = {}
        for line in app.splitlines():
            x = line.split()
            runs.setdefault((x[0], x[1]), []).append(float(x[4]))
        for prof in args.profiles.split():
            d, t = runs.get((prof, "default")), runs.get((prof, "tuned"))
            if d and t:
                w("| %s | %.4f | %.4f | %.2f | %s | %s |" % (
                    prof, statistics.median(d), statistics.median(t),
                    statistics.median(t) / statistics.median(d), " ".join("%.4f" % v for v in d),
                    " ".join("%.4f" % v for v in t)))
        w("")
    with open(args.report, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
