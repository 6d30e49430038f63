#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The end-to-end benchmark, small: every contender of bench/e2e.sh starts,
# watches a short flood and reports what a full run would; every capture
# contender gets every frame, with nothing lost; the summary pairs each
# round's rates and splits a contender's CPU where it also ran @null and
# @idle; bench/floor.sh's patch applies; bench/soak.sh and bench/paths.sh run.
# (Speed is for bench/run.sh to measure, not for a test.)
source "$(dirname "$0")/lib.sh"

n=20000
rounds=2
contenders="none xdp-pass-drv xdp-pass-skb tcpdump pktsample pktsample-drv pktsample-skb pktsample-ring pktsample-tc pktsample-tc-ring pktsample-s100 pktsample-ring-noctx pktsample-ring-noctx-B4096 pktsample-base-noctx pktsample@null pktsample@idle"
build=$(dirname "$PKTSAMPLE")
# pktsample-base-noctx is bench/floor.sh's other build; here, this one.
ROUNDS=$rounds N=$n SIZES=64 CONTENDERS=$contenders OUT=$WORK BASE_PKTSAMPLE=$PKTSAMPLE \
	"$top/bench/e2e.sh" "$build" >"$WORK/summary.md" 2>"$WORK/e2e.err" ||
	fail "bench/e2e.sh failed: $(tail -3 "$WORK/e2e.err")"
ok "bench/e2e.sh runs every contender"

csv=$WORK/e2e.csv
nc=$(echo "$contenders" | wc -w)
assert_eq "$((nc * rounds))" "$(($(wc -l <"$csv") - 1))" "one CSV row per contender and round"

# size,round,contender,sender_pps,captured,lost,cpu_s,peak_rss_kib,file_bytes
while IFS=, read -r size round c pps captured lost cpu rss bytes; do
	[ "$c" = pktsample@idle ] || [ "$pps" -gt 0 ] || fail "$c round $round: no sender rate"
	case $c in
	none | xdp-pass-*)
		[ -z "$captured$cpu$bytes" ] || fail "$c round $round: capture columns filled" ;;
	pktsample@idle)
		assert_eq ",0" "$pps,$captured" "$c round $round: no flood, nothing captured" ;;
	pktsample@null)
		[ "$captured" -ge "$n" ] || fail "$c round $round: captured $captured of $n"
		assert_eq 0 "$bytes" "$c round $round: nothing written to a file" ;;
	pktsample-s100)
		# 1 in 100 of 20000 at random: 200, sigma 14
		[ "$captured" -ge 100 ] && [ "$captured" -le 300 ] ||
			fail "$c round $round: captured $captured, expected about $((n / 100))"
		assert_eq 0 "$lost" "$c round $round: nothing lost" ;;
	*)
		# (a stray IPv6 or ARP frame may come on top)
		[ "$captured" -ge "$n" ] || fail "$c round $round: captured $captured of $n"
		assert_eq 0 "$lost" "$c round $round: nothing lost" ;;
	esac
	case $c in
	tcpdump | pktsample*)
		python3 -c "import sys; sys.exit(not (float('$cpu') > 0 and int('$rss') > 0))" ||
			fail "$c round $round: cpu '$cpu' rss '$rss'" ;;
	esac
	case $c in
	tcpdump) [ "$bytes" -gt $((captured * 80)) ] || fail "$c round $round: file of $bytes bytes" ;;
	pktsample | pktsample-*)
		# at least the smallest block a 64-byte frame can have (96)
		[ "$bytes" -gt $((captured * 96)) ] || fail "$c round $round: file of $bytes bytes" ;;
	esac
done < <(tail -n +2 "$csv")
ok "every capture contender captured all $n frames, none lost; sampling kept about 1 in 100"

# A contender ending in -BN runs with -B N: the rings' pages count in the
# RSS, so 4 MiB of them is a smaller RSS by most of the default's (at least
# 32 MiB on any number of CPUs).
python3 - "$csv" <<'PY' || fail "pktsample-ring-noctx-B4096 did not run with -B 4096"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
rss = {(r["contender"], r["round"]): int(r["peak_rss_kib"]) for r in rows if r["peak_rss_kib"]}
for (c, rnd), kib in rss.items():
    if c == "pktsample-ring-noctx-B4096" and not kib < rss[("pktsample-ring-noctx", rnd)] - 16384:
        sys.exit(f"round {rnd}: RSS {kib} KiB against {rss[('pktsample-ring-noctx', rnd)]}")
PY
ok "a contender's -BN suffix gives it -B N (4 MiB of rings: a smaller RSS)"

for c in $contenders; do
	grep -q "^| 64 | $c | " "$WORK/summary.md" || fail "no summary row for $c"
done
grep -q '^| 64 | tcpdump | .* | 1.00 (1.00-1.00) | -' "$WORK/summary.md" ||
	fail "tcpdump against itself is not 1.00: $(grep '| tcpdump |' "$WORK/summary.md")"
# The paired ratio is the median over rounds of pps / tcpdump's pps.
want=$(python3 - "$csv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
t = {r["round"]: float(r["sender_pps"]) for r in rows if r["contender"] == "tcpdump"}
print(f'{statistics.median(float(r["sender_pps"]) / t[r["round"]] for r in rows if r["contender"] == "pktsample"):.2f}')
PY
)
grep -q "^| 64 | pktsample | [0-9]* ([0-9]*-[0-9]*) | [^|]* | $want (" "$WORK/summary.md" ||
	fail "pktsample vs tcpdump is not the paired median $want: $(grep '| pktsample |' "$WORK/summary.md")"
ok "the summary has a row per contender and pairs the ratios by round"

# The split: pktsample ran @null and @idle beside the file, tcpdump did not.
# (Its reading and writing columns are differences of noisy totals: on a
# 20,000-frame flood they may come out negative. The bench runs a million.)
sed -n '/^## What the CPU is made of/,$p' "$WORK/summary.md" >"$WORK/split.md"
split=$(grep '^| 64 | pktsample | ' "$WORK/split.md")
echo "$split" | awk -F'|' '{ exit !($4 + 0 > 0 && $7 + 0 >= 96) }' ||
	fail "no split of pktsample's CPU (start-up, reading, the file's bytes): $(cat "$WORK/split.md")"
grep -q '^| 64 | tcpdump | ' "$WORK/split.md" &&
	fail "a split for tcpdump, which ran neither @null nor @idle"
ok "the summary splits the CPU of a contender that also ran @null and @idle"

# bench/floor.sh builds a copy with this patch; it must still apply.
patch --dry-run -s -d "$top" -p1 <"$top/bench/floor-bare-blocks.patch" >"$WORK/patch.out" 2>&1 ||
	fail "bench/floor-bare-blocks.patch no longer applies: $(cat "$WORK/patch.out")"
ok "bench/floor.sh's patch applies to the writer"

# bench/soak.sh, short: it runs, rotates a ring, finds every file valid,
# samples RSS and states the loss.
DURATION=3 RATE=20000 SIZE=200 INTERVAL=1 ARGS="-C 1 -W 3" OUT=$WORK \
	"$top/bench/soak.sh" "$build" >"$WORK/soak.md" 2>"$WORK/soak.err" ||
	fail "bench/soak.sh failed: $(tail -3 "$WORK/soak.err")"
grep -q '^| files left (-W), each valid | 3 of 3 |$' "$WORK/soak.md" ||
	fail "soak: not three valid files: $(cat "$WORK/soak.md")"
grep -q '^| frames sent (psgen) | 60000 |$' "$WORK/soak.md" || fail "soak: sender count missing"
grep -Eq '^\| lost in the perf buffer \| [0-9]+ \|$' "$WORK/soak.md" || fail "soak: loss not stated"
[ "$(tail -n +2 "$WORK/soak_rss.csv" | grep -c '^[0-9]*,[0-9][0-9]*,[0-9]*$')" -ge 2 ] ||
	fail "soak: RSS not sampled: $(cat "$WORK/soak_rss.csv")"
ok "bench/soak.sh runs: rotates a ring of valid files, samples RSS, states the loss"

# bench/paths.sh, short: each mode runs, its hook's time read, the flood
# captured whole (1 in 10 with --sample 10), nothing lost.
FRAMES=20000 ROUNDS=1 "$top/bench/paths.sh" "$build" >"$WORK/paths.md" 2>"$WORK/paths.err" ||
	fail "bench/paths.sh failed: $(tail -3 "$WORK/paths.err")"
python3 - "$WORK/paths.md" <<'PY' || fail "bench/paths.sh: $(cat "$WORK/paths.md")"
import sys
rows = [[c.strip() for c in l.strip().strip("|").split("|")] for l in open(sys.argv[1])
        if l.startswith("| ") and not l.startswith("| --packet-id")]
assert [r[0] for r in rows] == ["cpu", "path", "cpu --sample 10", "path --sample 10"], rows
for mode, ns, got, lost in rows:
    assert float(ns) > 0 and lost == "0", (mode, ns, lost)
    want = 20000 if "sample" not in mode else 2000
    assert want * 0.6 <= int(got) <= want * 1.4 + 10, (mode, got)
assert sum(": median " in l for l in open(sys.argv[1])) == 4
PY
ok "bench/paths.sh runs: each --packet-id mode, alone and sampled, its hook's time read"
