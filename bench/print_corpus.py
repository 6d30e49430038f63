#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The printer against tcpdump on a corpus of real captures.

Every pcap and pcapng file under CORPUS is printed by `tcpdump -n -tt -r`
and by `pktsample -tt -r`; each packet's text (its line, and the lines
tcpdump continues it on, such as VXLAN's inner packet) is compared:

  equal       the same text
  consistent  pktsample's is shorter: it stops at a generic tail
              ("UDP, length N", "ip-proto-N N", a length, an unknown
              ethertype's or 802.3's line) and tcpdump's text begins with
              what came before it
  different   anything else (listed with -v, the most common first
              words counted)

Files tcpdump cannot read are left out. A pktsample that crashes (a
signal) or runs past TIMEOUT seconds counts every packet of the file as
different and the file as a crash or hang. Prints a markdown table per
link type and in all; --csv FILE writes one row per file.

The corpus used in doc/performance.md: the capture files of PcapPlusPlus
(https://github.com/seladb/PcapPlusPlus, its Tests/ and Examples/, 180
files, 31,778 packets): real traffic for its parsers' tests, not
tcpdump's own test suite.

Usage: bench/print_corpus.py [--build BUILD] [--csv FILE] [-v] CORPUS
"""
import argparse
import collections
import os
import re
import subprocess
import sys

TIMEOUT = 60
TS = re.compile(rb"^\d+\.\d{6} ")
# Where our printer stops short of tcpdump's, the line ends in one of
# these; what came before must be tcpdump's own beginning.
TAILS = [
    re.compile(r"UDP, length \d+$"),
    re.compile(r"UDP, bad length \d+ > \d+$"),
    re.compile(r" ?ip-proto-\d+ \d+$"),
    re.compile(r"length \d+$"),
    re.compile(r"(ethertype \S+ \(0x[0-9a-f]{4}\)|802\.3), length \d+: ?$"),
    re.compile(r"\[link type \d+ not decoded\], length \d+$"),
]


def packets(out):
    """A tool's output as (timestamp, text) per packet, continuation
    lines joined."""
    pkts = []
    for line in out.split(b"\n"):
        m = TS.match(line)
        if m:
            pkts.append([line[:m.end()], line[m.end():]])
        elif pkts and line:
            pkts[-1][1] += b"\n" + line
    return [(t, p.decode("utf-8", "replace")) for t, p in pkts]


def pair(ours, theirs):
    """Each of tcpdump's packets with ours of the same timestamp, in order
    (tcpdump leaves out packets of a second link type in one file)."""
    j = 0
    for ts, text in theirs:
        k = j
        while k < len(ours) and ours[k][0] != ts:
            k += 1
        if k < len(ours):
            j = k + 1
            yield text, ours[k][1]
        else:
            yield text, None


def classify(ours, theirs):
    if ours == theirs:
        return "equal"
    for t in TAILS:
        m = t.search(ours)
        if m and m.start() > 0 and theirs.startswith(ours[:m.start()]) and len(theirs) > m.start():
            return "consistent"
    return "different"


def linktype(path):
    r = subprocess.run(["capinfos", "-T", "-r", "-E", path], capture_output=True, text=True)
    f = r.stdout.strip().split("\t")
    return f[1] if len(f) > 1 else "?"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("--build", default=os.path.join(os.path.dirname(__file__), "..", "build"))
    ap.add_argument("--csv")
    ap.add_argument("-v", action="store_true")
    a = ap.parse_args()
    files = sorted(os.path.join(d, f) for d, _, fs in os.walk(a.corpus) for f in fs
                   if f.endswith((".pcap", ".pcapng", ".cap")))
    env = dict(os.environ, TZ="UTC")
    by_link = collections.defaultdict(collections.Counter)
    first_words = collections.Counter()
    rows, crashes, hangs, unread = [], [], [], 0
    for path in files:
        t = subprocess.run(["tcpdump", "-n", "-tt", "-r", path], capture_output=True, env=env)
        theirs = packets(t.stdout)
        if not theirs:
            unread += 1
            continue
        lt = linktype(path)
        try:
            p = subprocess.run([os.path.join(a.build, "pktsample"), "-tt", "-r", path],
                               capture_output=True, env=env, timeout=TIMEOUT)
            ours = packets(p.stdout)
            if p.returncode < 0:
                crashes.append(path)
                ours = []
        except subprocess.TimeoutExpired:
            hangs.append(path)
            ours = []
        count = collections.Counter()
        for i, (th, our) in enumerate(pair(ours, theirs)):
            c = classify(our, th) if our is not None else "different"
            count[c] += 1
            if c == "different" and our is not None:
                first_words[f"{lt}: " + " ".join(th.split()[:1] + th.split(": ", 1)[-1].split()[:2])] += 1
                if a.v:
                    print(f"{os.path.basename(path)}#{i + 1} ({lt})\n  tcpdump:   {th}\n  pktsample: {our}")
        by_link[lt].update(count)
        by_link["all"].update(count)
        rows.append((path, lt, len(theirs), count["equal"], count["consistent"], count["different"]))
    print("| link type | packets | equal | equal or consistent |")
    print("|---|---|---|---|")
    for lt in sorted(by_link, key=lambda k: (k == "all", -sum(by_link[k].values()))):
        c = by_link[lt]
        n = sum(c.values())
        eq = c["equal"]
        print(f"| {lt} | {n} | {eq} ({100 * eq / n:.1f} %) | {eq + c['consistent']} "
              f"({100 * (eq + c['consistent']) / n:.1f} %) |")
    print(f"\n{len(rows)} files ({unread} tcpdump could not read), {len(crashes)} crashes, "
          f"{len(hangs)} hangs")
    for f in crashes + hangs:
        print(f"  {f}")
    if a.v:
        print("\nMost common beginnings of the different ones:")
        for w, n in first_words.most_common(30):
            print(f"  {n:6d}  {w}")
    if a.csv:
        with open(a.csv, "w") as f:
            f.write("file,linktype,packets,equal,consistent,different\n")
            for r in rows:
                f.write(",".join(str(x) for x in r) + "\n")
    return 1 if crashes or hangs else 0


if __name__ == "__main__":
    sys.exit(main())
