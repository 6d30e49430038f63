#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The markdown table of an end-to-end run: bench/e2e_summary.py E2E_CSV.

Ratios are paired: in each round a contender's sender rate is divided by
the reference's rate of the same round (the contenders of one round run
back to back), and the table gives the median over rounds with min-max.
That keeps a slow stretch of the shared machine, which slows every
contender of its round, out of the ratios. Absolute columns are medians.

Where a contender ran also as C@null (writing to /dev/null) and C@idle
(started and stopped with no flood), a second table splits its CPU per
round: the start-up (C@idle), the reading and block-making per packet
(C@null less the start-up) and the file's write (C less C@null), per
packet and per byte of the file.
"""
import csv
import statistics
import sys


def med(values):
    v = [float(x) for x in values if x != ""]
    return (statistics.median(v), min(v), max(v)) if v else None


def paired(rows, base):
    """Median (min, max) over rounds of this contender's pps / base's."""
    r = [float(x["sender_pps"]) / float(base[x["round"]]["sender_pps"])
         for x in rows if x["round"] in base and x["sender_pps"]
         and base[x["round"]]["sender_pps"]]
    return (statistics.median(r), min(r), max(r)) if r else None


def main(path):
    rows = list(csv.DictReader(open(path)))
    rounds = len({r["round"] for r in rows})
    print(f"## End to end: frames flooded into a veth, sender packets/s "
          f"(median of {rounds} rounds, min-max; ratios paired by round)\n")
    print("| size | contender | sender pps | vs none | vs tcpdump | vs bare XDP (same mode) | "
          "captured | lost | CPU s | CPU s / M captured | peak RSS KiB |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for size in dict.fromkeys(r["size"] for r in rows):
        by = {}
        for r in rows:
            if r["size"] == size:
                by.setdefault(r["contender"], []).append(r)
        rounds_of = {c: {r["round"]: r for r in rs} for c, rs in by.items()}
        for c, rs in by.items():
            p = med(r["sender_pps"] for r in rs)
            cap = med(r["captured"] for r in rs)
            lost = med(r["lost"] for r in rs)
            cpu = med(r["cpu_s"] for r in rs)
            rss = med(r["peak_rss_kib"] for r in rs)

            def ratio(b):
                x = paired(rs, rounds_of[b]) if b in rounds_of else None
                return f"{x[0]:.2f} ({x[1]:.2f}-{x[2]:.2f})" if x else "-"
            # pktsample's default on veth is skb mode; -drv asks for native;
            # --hook tc-ingress runs no XDP program: no bare XDP ratio.
            bare = None
            if c.startswith("pktsample") and not c.startswith("pktsample-tc"):
                bare = "xdp-pass-drv" if c == "pktsample-drv" else "xdp-pass-skb"
            # CPU per million captured, per round, then the median.
            per_m = med(float(r["cpu_s"]) / (float(r["captured"]) / 1e6) for r in rs
                        if r["cpu_s"] and r["captured"] and float(r["captured"]))
            pps = f"{p[0]:.0f} ({p[1]:.0f}-{p[2]:.0f})" if p else "-"
            print(f"| {size} | {c} | {pps} | {ratio('none')} | "
                  f"{ratio('tcpdump')} | {ratio(bare) if bare else '-'} | "
                  f"{f'{cap[0]:.0f}' if cap else '-'} | {f'{lost[0]:.0f}' if lost else '-'} | "
                  f"{f'{cpu[0]:.3f}' if cpu else '-'} | "
                  f"{f'{per_m[0]:.3f} ({per_m[1]:.3f}-{per_m[2]:.3f})' if per_m else '-'} | "
                  f"{f'{rss[0]:.0f}' if rss else '-'} |")
    split(rows)
    print(f"\nCSV: {path}")


def split(rows):
    """What each contender's CPU is made of, where @idle and @null ran."""
    cell = {(r["size"], r["contender"], r["round"]): r for r in rows}
    out = []
    for size, c in dict.fromkeys((r["size"], r["contender"]) for r in rows):
        if "@" in c:
            continue
        start, read, write, per_byte, nbytes = [], [], [], [], []
        for (s2, c2, rnd), r in cell.items():
            idle, null = cell.get((size, c + "@idle", rnd)), cell.get((size, c + "@null", rnd))
            if s2 != size or c2 != c or not idle or not null:
                continue
            if not (r["captured"] and null["captured"] and r["file_bytes"]):
                continue
            t0 = float(idle["cpu_s"])
            start.append(t0 * 1e3)
            read.append((float(null["cpu_s"]) - t0) / float(null["captured"]) * 1e9)
            w = float(r["cpu_s"]) - float(null["cpu_s"])
            write.append(w / float(r["captured"]) * 1e9)
            per_byte.append(w / float(r["file_bytes"]) * 1e9)
            nbytes.append(float(r["file_bytes"]) / float(r["captured"]))
        if start:
            out.append((size, c, start, read, write, nbytes, per_byte))
    if not out:
        return
    print("\n## What the CPU is made of (medians over rounds, min-max)\n")
    print("| size | contender | start-up ms | reading per packet, ns | "
          "file write per packet, ns | file bytes per packet | write ns per byte |")
    print("|---|---|---|---|---|---|---|")

    def m(v, f):
        return f"{statistics.median(v):{f}} ({min(v):{f}}-{max(v):{f}})"
    for size, c, start, read, write, nbytes, per_byte in out:
        print(f"| {size} | {c} | {m(start, '.1f')} | {m(read, '.0f')} | {m(write, '.0f')} | "
              f"{statistics.median(nbytes):.0f} | {m(per_byte, '.2f')} |")


if __name__ == "__main__":
    main(sys.argv[1])
