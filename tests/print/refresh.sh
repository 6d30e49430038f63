#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Remake the printer's golden files with the installed tcpdump: frames.pcap
# from unit_decode's fixtures and the other link types' pcaps
# (make_links.py), then every TESTLIST entry's NAME.out; then
# unit_decode checks pktsample's printer against them. Review the diff.
#   tests/print/refresh.sh [BUILD_DIR]      (default: build)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$top/build}
command -v tcpdump >/dev/null || { echo "refresh.sh: needs tcpdump" >&2; exit 2; }
echo "tcpdump: $(tcpdump --version 2>&1 | head -1)"
python3 "$top/tests/print/make_links.py" "$top/tests/print"
PS_PRINT_REFRESH=1 "$build/tests/test_decode"
git -C "$top" status --short -- tests/print
