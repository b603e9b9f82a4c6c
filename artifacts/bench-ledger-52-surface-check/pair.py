#!/usr/bin/env python3
"""Paired medians (python3 pair.py [real_time|cpu_time]) of the surface check: for each row, new/old time per operation in each round
(the two builds alternate, one process each), and the median over the rounds."""
import json, statistics, sys, pathlib
d = pathlib.Path(__file__).parent
# real_time (the default) or cpu_time (this process's CPU: the client's side of a PostgreSQL read,
# without the server's work or the host's I/O stalls)
field = sys.argv[1] if len(sys.argv) > 1 else "real_time"
rows = {}
for kind in ("ledger", "guardian"):
    for r in range(1, 13):
        pair = {}
        for which in ("old", "new"):
            f = d / f"{which}-{kind}-{r}.json"
            if not f.exists():
                continue
            for b in json.load(open(f))["benchmarks"]:
                if b.get("run_type") == "aggregate":
                    continue
                pair.setdefault(f"{kind}: {b['name']}", {})[which] = b[field]
        for name, t in pair.items():
            if "old" in t and "new" in t:
                rows.setdefault(name, []).append((t["old"], t["new"]))
print(f"{'row':86} {'old':>10} {'new':>10} {'new/old':>8}  per round")
for name, pairs in sorted(rows.items()):
    ratios = [n / o for o, n in pairs]
    print(f"{name:86} {statistics.median(o for o, _ in pairs):10.1f} "
          f"{statistics.median(n for _, n in pairs):10.1f} {statistics.median(ratios):8.3f}  "
          + " ".join(f"{x:.3f}" for x in ratios))
