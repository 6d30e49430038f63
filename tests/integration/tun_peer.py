#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The far end of a tun device, for the device tests.

tun_peer.py NAME [--type ARPHRD]

Creates the tun device NAME (no packet information header) and serves it
until killed: an ICMP echo request gets its reply; a UDP packet to port 9
gets one fixed UDP packet back (the same bytes every time, so captures of
different runs can be compared byte for byte). --type sets the device's
hardware type (TUNSETLINK) before anything else, to make a device of a link
type pktsample cannot write.
"""
import fcntl
import os
import struct
import sys

TUNSETIFF = 0x400454CA
TUNSETLINK = 0x400454CD
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000


def checksum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def ipv4(src, dst, proto, payload, ident):
    hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), ident, 0x4000, 64,
                      proto, 0, src, dst)
    hdr = hdr[:10] + struct.pack("!H", checksum(hdr)) + hdr[12:]
    return hdr + payload


def answer(pkt):
    if len(pkt) < 20 or pkt[0] >> 4 != 4:
        return None
    ihl = (pkt[0] & 0xF) * 4
    proto, src, dst = pkt[9], pkt[12:16], pkt[16:20]
    body = pkt[ihl:]
    if proto == 1 and len(body) >= 8 and body[0] == 8:  # echo request
        icmp = b"\0\0\0\0" + body[4:]
        icmp = icmp[:2] + struct.pack("!H", checksum(icmp)) + icmp[4:]
        return ipv4(dst, src, 1, icmp, 0x1234)
    if proto == 17 and len(body) >= 8 and struct.unpack("!H", body[2:4])[0] == 9:
        data = b"pktsample-tun-reply-0123456789ab"
        udp = struct.pack("!HHHH", 9, 9, 8 + len(data), 0) + data
        return ipv4(dst, src, 17, udp, 0x4242)
    return None


def main():
    name = sys.argv[1]
    arphrd = int(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[2] == "--type" else None
    fd = os.open("/dev/net/tun", os.O_RDWR)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(), IFF_TUN | IFF_NO_PI))
    if arphrd is not None:
        fcntl.ioctl(fd, TUNSETLINK, arphrd)
    print("ready", flush=True)
    while True:
        reply = answer(os.read(fd, 65536))
        if reply:
            os.write(fd, reply)


if __name__ == "__main__":
    main()
