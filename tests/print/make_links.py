#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Write the printer's fixtures for link types other than Ethernet (raw IP,
BSD loopback, Linux cooked), one pcap each, into the directory given; the
TESTLIST entries that name them hold tcpdump's text for each.
Run by tests/print/refresh.sh."""
import struct
import sys

def ip4(proto, payload, src=b"\x0a\x00\x00\x01", dst=b"\x0a\x00\x00\x02"):
    return struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), 0x1234, 0, 64, proto, 0,
                       src, dst) + payload

def ping():
    return ip4(1, struct.pack("!BBHHH", 8, 0, 0, 7, 1) + b"a" * 16)

def ip6_udp():
    udp = struct.pack("!HHHH", 1000, 2000, 16, 0) + b"u" * 8
    return struct.pack("!IHBB", 0x60000000, len(udp), 17, 64) + \
        b"\x20\x01\x0d\xb8" + b"\0" * 11 + b"\x01" + b"\x20\x01\x0d\xb8" + b"\0" * 11 + b"\x02" + udp

def write(path, linktype, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 262144, linktype))
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", 1700000000 + i, 0, len(fr), len(fr)) + fr)

def sll2(pkttype, proto, payload, ifindex=0x7ffffff0, halen=6):
    """A Linux cooked v2 header; the index names no interface, so tcpdump
    (and pktsample) print "?" wherever the test runs."""
    return struct.pack("!HHIHBB", proto, 0, ifindex, 1, pkttype, halen) + \
        bytes.fromhex("02000000000a") + b"\0\0" + payload

def sll(pkttype, proto, payload, halen=6):
    addr = bytes.fromhex("02000000000a") + b"\0\0"
    return struct.pack("!HHH", pkttype, 1, halen) + addr + struct.pack("!H", proto) + payload

out = sys.argv[1]
write(f"{out}/raw.pcap", 101, [ping(), ip6_udp(), b"\x50" + b"\0" * 19])
write(f"{out}/null.pcap", 0, [
    struct.pack("<I", 2) + ping(),             # the writer's byte order
    struct.pack(">I", 24) + ip6_udp(),         # the other one
    struct.pack("<I", 99) + b"\x01\x02\x03\x04\x05\x06",
])
write(f"{out}/sll.pcap", 113, [
    sll(0, 0x0800, ping()),
    sll(4, 0x86dd, ip6_udp()),
    sll(1, 0x88b5, b"hello, world"),
    sll(3, 0x8100, struct.pack("!HH", 0x2005, 0x0800) + ping(), halen=0),
])
write(f"{out}/sll2.pcap", 276, [
    sll2(0, 0x0800, ping()),
    sll2(4, 0x86dd, ip6_udp()),
    sll2(1, 0x88b5, b"hello, world"),
])
write(f"{out}/ppp.pcap", 9, [
    b"\xff\x03\x00\x21" + ping(),
    b"\xff\x03\x00\x57" + ip6_udp(),
    b"\xff\x03\xc0\x21\x01\x01\x00\x04",
    b"\xff\x03",
])
write(f"{out}/ppp_hdlc.pcap", 50, [
    b"\xff\x03\x00\x21" + ping(),
    b"\xff\x03\x80\x21\x01\x02\x00\x04",
    b"\x01\x03\x00\x21" + ping(),
])
