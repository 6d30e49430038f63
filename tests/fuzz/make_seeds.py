#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Write the fuzz targets' seed corpora into tests/fuzz/corpus/NAME/.

The translator's seeds are what libpcap compiles (tcpdump -ddd) from a list
of real expressions, each paired with a few frames; the others are small
valid inputs of each format. Run again when a format changes; the output
is kept in the tree.
"""
import os
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "corpus")

EXPRESSIONS = [
    "udp", "tcp port 443", "host 10.0.0.1", "net 10.0.0.0/8 and not port 22",
    "vlan 100 and udp", "vlan and vlan 200", "ip6 and tcp", "icmp or icmp6",
    "tcp[tcpflags] & (tcp-syn|tcp-fin) != 0", "ip[6:2] & 0x1fff != 0", "greater 100",
    "less 64", "ether host 02:00:00:00:00:0a", "arp", "udp portrange 1000-2000",
    "ip and len > 80", "tcp[((tcp[12:1] & 0xf0) >> 2):4] = 0x47455420",
    "ip6 and ip6[6] == 17", "mpls and udp", "ether[12:2] = 0x88cc",
]


def mac_ip_udp(sport, dport, payload=b"x" * 16, vlan=None):
    ip_len = 20 + 8 + len(payload)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, ip_len, 1, 0, 64, 17, 0,
                     bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
    udp = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0)
    eth = bytes.fromhex("02000000000b02000000000a")
    if vlan is not None:
        eth += struct.pack("!HH", 0x8100, vlan)
    return eth + b"\x08\x00" + ip + udp + payload


def tcp_frame():
    tcp = struct.pack("!HHIIBBHHH", 40000, 443, 1, 0, 0x50, 0x02, 1000, 0, 0)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 40, 1, 0x4000, 64, 6, 0,
                     bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
    return bytes.fromhex("02000000000b02000000000a0800") + ip + tcp


FRAMES = [mac_ip_udp(5000, 53), mac_ip_udp(1500, 6000, vlan=100), tcp_frame(),
          mac_ip_udp(22, 22, b"y" * 120)]


def write(name, i, data):
    d = os.path.join(OUT, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "seed-%03d" % i), "wb") as f:
        f.write(data)


def cbpf(expr):
    out = subprocess.run(["tcpdump", "-ddd", expr], capture_output=True, text=True)
    if out.returncode:
        return None
    lines = out.stdout.split("\n")
    n = int(lines[0])
    insns = b""
    for line in lines[1:1 + n]:
        code, jt, jf, k = (int(v) for v in line.split())
        insns += struct.pack("<HBBI", code, jt, jf, k)
    return n, insns


def btf_seed(with_paths):
    """Raw BTF: a header, the types (ids from 1), the strings."""
    strs = bytearray(b"\0")

    def name(text):
        if not text:
            return 0
        strs.extend(text.encode() + b"\0")
        return len(strs) - len(text) - 1

    def t(kind, nm, vlen, size_or_type, extra=b"", kflag=0):
        info = (kind << 24) | (kflag << 31) | vlen
        return struct.pack("<III", name(nm), info, size_or_type) + extra

    def members(*ms):
        return b"".join(struct.pack("<III", name(n), ty, off) for n, ty, off in ms)

    types = [
        t(1, "int", 0, 4, struct.pack("<I", (1 << 24) | 32)),                # 1
        t(1, "long long int", 0, 8, struct.pack("<I", (1 << 24) | 64)),      # 2
        t(8, "s64", 0, 2),                                                    # 3
        t(4, None, 1, 8, members(("counter", 3, 0))),                        # 4
        t(8, "atomic64_t", 0, 4),                                             # 5
        t(2, None, 0, 0),                                                     # 6 void *
        t(5, None, 2, 8, members(("skc_flags", 2, 0), ("skc_listener", 6, 0))),  # 7
        t(4, "sock_common" if with_paths else "other", 3, 136,
          members(("skc_family", 1, 0), ("skc_cookie", 5, 704), (None, 7, 768))),  # 8
        t(4, "ns_common", 1, 24, members(("inum", 1, 128))),                 # 9
        t(4, "net", 1, 4288, members(("ns", 9, 1216))),                      # 10
        t(4, "nsproxy", 1, 72, members(("net_ns", 6, 320))),                 # 11
        t(4, "task_struct", 1, 3264, members(("nsproxy", 6, 14720))),        # 12
    ]
    body = b"".join(types)
    hdr = struct.pack("<HBBIIIII", 0xEB9F, 1, 0, 24, 0, len(body), len(body), len(strs))
    return hdr + body + bytes(strs)


def main():
    i = 0
    for expr in EXPRESSIONS:
        prog = cbpf(expr)
        if not prog:
            print("skipped: %s" % expr, file=sys.stderr)
            continue
        n, insns = prog
        for frame in FRAMES:
            write("xlate", i, struct.pack("<HB", n - 1, 4) + insns + frame)
            i += 1

    for i, args in enumerate([
            ["-i", "eth0", "-w", "out.pcapng"], ["-i", "lo", "-c", "10", "-e", "-tt", "icmp"],
            ["-r", "in.pcap", "-w", "out.pcap", "tcp"], ["--sflow", "192.0.2.1", "--sample", "10",
                                                          "-i", "eth0"],
            ["--extcap-interfaces"], ["--capture", "--extcap-interface", "pktsample:eth0",
                                      "--fifo", "/tmp/f", "--extcap-sampling", "count"],
            ["-i", "a", "-C", "1", "-W", "3", "-w", "f", "-G", "60", "-z", "gzip"],
            ["-d", "vlan 100 and udp"], ["-i", "any", "-Q", "in", "--hook", "xdp"]]):
        write("cli", i, b"\0".join(a.encode() for a in args))

    # A perf sample: ps_meta (56 bytes, version 2) and the frame; the split
    # target's first 8 bytes are a clock offset.
    for i, (frame, flags) in enumerate([(FRAMES[0], 0), (FRAMES[2], 1), (FRAMES[3], 0)]):
        meta = struct.pack("<QQIIIIiIBBBBHHII", 1000 + i, i, 2, 0, len(frame), len(frame), 2,
                           0, 2, 0, flags, 0, 100, 0x0081, i + 1, 0)
        write("split", i, struct.pack("<q", -5) + meta + frame)
        # the ingest: [cpu][size u16][sample], then a settle record
        write("pcapng", i, struct.pack("<BH", i, len(meta) + len(frame)) + meta + frame +
              struct.pack("<BH", 0xff, 0) + struct.pack("<Q", 1 << 40))

    # A perf buffer's bytes (fuzz_perfbuf: [tail u32][data]): samples as
    # PERF_RECORD_SAMPLEs, a PERF_RECORD_LOST, a long packet's head and its
    # continuation, and the same records starting near the buffer's end so
    # that one wraps.
    def perf_sample(raw):
        raw += b"\0" * (-(8 + 4 + len(raw)) % 8)
        return struct.pack("<IHHI", 9, 0, 8 + 4 + len(raw), len(raw)) + raw

    def meta(seq, cap, flags=0, chunk_off=0, hook=0):
        # ts_ns, seq, ifindex, cpu, wire_len, cap_len, verdict, pool, version,
        # hook, flags, net_off, vlan_tci, vlan_proto, chunk_off, rx_queue, ctx
        # (PS_CTX_SKB), pad, sock_cookie, cgroup_id, pid, tid, location, pkt_id
        # (version 5: 96 bytes)
        return struct.pack("<QQIIIIiIBBBBHHIHBxQQIIQQ", 1000 + seq, seq, 5, 0, cap, cap, 2, 0,
                           5, hook, flags, 0, 0, 0, chunk_off, 0, 1, 77 + seq, 1, 4242, 4243,
                           0, 0)

    recs = b"".join(perf_sample(meta(k, len(FRAMES[k])) + FRAMES[k]) for k in range(3))
    recs += struct.pack("<IHHQQ", 2, 0, 24, 0, 3)  # PERF_RECORD_LOST: 3
    big = bytes(range(256)) * 280  # 71,680 bytes: one head, one continuation
    recs += perf_sample(meta(3, len(big)) + big[:65420])
    recs += perf_sample(meta(3, len(big), flags=4, chunk_off=65420) + big[65420:])
    write("perfbuf", 0, struct.pack("<I", 0) + recs)
    small = b"".join(perf_sample(meta(k, len(FRAMES[k])) + FRAMES[k]) for k in range(3))
    write("perfbuf", 1, struct.pack("<I", 131072 - 64) + small)

    for i, frame in enumerate(FRAMES):
        write("decode", i, bytes([i, 0, 0]) + frame)
        write("decode", 10 + i, bytes([i | 4, 8, 1]) + frame[14:])

    # A pcap, and the same frames as a pcapng of ours (SHB, IDB, EPBs).
    pcap = struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1)
    for t, frame in enumerate(FRAMES):
        pcap += struct.pack("<IIII", 1700000000, t, len(frame), len(frame)) + frame
    write("read", 0, pcap)
    shb = struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1)
    blocks = struct.pack("<II", 0x0A0D0D0A, 12 + len(shb)) + shb + struct.pack("<I", 12 + len(shb))

    def opt(code, val):
        return struct.pack("<HH", code, len(val)) + val + b"\0" * (-len(val) % 4)

    idb = struct.pack("<HHI", 1, 0, 256) + opt(2, b"veth0") + opt(3, b"xdp ingress") + \
        opt(9, b"\x09") + opt(0, b"")
    blocks += struct.pack("<II", 1, 12 + len(idb)) + idb + struct.pack("<I", 12 + len(idb))
    for t, frame in enumerate(FRAMES):
        body = struct.pack("<IIIII", 0, 0x179a, t, len(frame), len(frame)) + frame + \
            b"\0" * (-len(frame) % 4) + opt(2, struct.pack("<I", 1)) + \
            opt(1, b"hook=xdp cpu=0 queue=0") + opt(5, struct.pack("<Q", t)) + opt(0, b"")
        blocks += struct.pack("<II", 6, 12 + len(body)) + body + struct.pack("<I", 12 + len(body))
    write("read", 1, blocks)

    # context: a cgroup path as each runtime names it (its first bytes
    # also pick the owner's fields, and its last the buffer's length).
    cid = "0123456789abcdef" * 4
    pod = "6b2f8f2e_1c1e_4b9e_9d7a_0c2f4a1e9b11"
    for i, path in enumerate([
            "/system.slice/docker-%s.scope" % cid, "/docker/%s" % cid,
            "/machine.slice/libpod-%s.scope" % cid,
            "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod%s.slice/"
            "cri-containerd-%s.scope" % (pod, cid),
            "/kubepods/burstable/pod%s/%s" % (pod.replace("_", "-"), cid),
            "/system.slice/nginx.service", "/"]):
        write("context", i, path.encode())

    # ctrnames: each runtime's record as it writes it.
    for i, rec in enumerate([
            '{"Name":"/shopweb","Config":{"Image":"bb:1","Labels":{'
            '"io.kubernetes.pod.name":"cart","io.kubernetes.pod.namespace":"shop"}}}',
            '{"annotations":{"io.kubernetes.pod.name":"cart-7d9f",'
            '"io.kubernetes.pod.namespace":"shop","io.kubernetes.container.name":"cart",'
            '"io.kubernetes.cri-o.ImageName":"bb:1"}}',
            '{"annotations":{"io.kubernetes.cri.sandbox-name":"cart",'
            '"io.kubernetes.cri.sandbox-namespace":"shop","nerdctl/name":"web"}}',
            '[{"id":"1cd6e7c7d83e","names":["shopweb"],'
            '"metadata":"{\\"image-name\\":\\"localhost/bb:1\\"}"}]']):
        write("ctrnames", i, rec.encode())

    # dropnames: the address asked about (8 bytes, little endian), then
    # kallsyms text as /proc/kallsyms has it.
    syms = (b"ffffffff81000000 T _stext\nffffffff81a00000 t __udp4_lib_rcv\n"
            b"ffffffff81a00800 T udp_rcv\nffffffffc0001000 t nft_do_chain\t[nf_tables]\n"
            b"0000000000000000 T hidden\nffffffff81b00000 T tcp_v4_rcv")
    for i, addr in enumerate([0xffffffff81a004bc, 0xffffffffc00010a0, 0x1000]):
        write("dropnames", i, struct.pack("<Q", addr) + syms)

    # linkwatch: the ifindex asked about (1 byte), then rtnetlink messages:
    # RTM_NEWLINK (16) / RTM_DELLINK (17) with an ifinfomsg and attributes
    # (IFLA_IFNAME 3, IFLA_XDP 43 nesting PROG_ID 4, DRV 5, SKB 6), and an
    # NLMSG_ERROR (2).
    def rta(kind, payload):
        n = 4 + len(payload)
        return struct.pack("<HH", n, kind) + payload + b"\0" * ((-n) % 4)

    def link(kind, ifindex, flags, attrs):
        body = struct.pack("<BBHiII", 0, 0, 1, ifindex, flags, 0) + attrs
        return struct.pack("<IHHII", 16 + len(body), kind, 0, 1, 0) + body

    xdp = rta(43 | 0x8000, rta(1, b"\1") + rta(6, struct.pack("<I", 77)) + rta(5, struct.pack("<I", 42)))
    msgs = [link(16, 5, 1, rta(3, b"veth5a\0") + xdp),
            link(16, 1, 0x9, rta(3, b"lo\0")) + link(17, 6, 0, rta(3, b"c6b\0")),
            struct.pack("<IHHII", 36, 2, 0, 1, 0) + struct.pack("<i", -19) + b"\0" * 16]
    for i, m in enumerate(msgs):
        write("linkwatch", i, bytes([5]) + m)

    # config: configuration files, good and bad.
    for i, text in enumerate([
            "# agent\niface any\nsample 256\nsflow 192.0.2.10\nsflow-counters 20\n"
            "metrics 127.0.0.1:9101\nfilter not port 22\n",
            "iface veth*\niface eth0\nhook tc-ingress\nmax-rate 1000\nprint\nstats 1s\n",
            "iface lo\nsample x\n", "bogus\n", "print yes\nsflow\n"]):
        write("config", i, text.encode())

    # webcfg: exporter-toolkit's web configuration, good and bad.
    bcrypt = "$2y$10$7EqJtq98hPqEX7fNZaFWoOhi5BWX4Z3Z1ZK/1d2ZbLWKpoLVXj5Ge"
    for i, text in enumerate([
            "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
            "basic_auth_users:\n  prometheus: " + bcrypt + "\n",
            "{basic_auth_users: {a: '" + bcrypt + "', b: \"" + bcrypt + "\"}}\n",
            "---\n~\n", "tls_server_config:\n  client_auth_type: x\n",
            "basic_auth_users:\n  - a\n", "a: &x 1\nb: *x\n"]):
        write("webcfg", i, text.encode())

    # top: a byte that picks the link type (bits 0-1: Ethernet, raw IP, raw
    # IP's DLT, Linux SLL), the hook (bits 2-4) and whether the owner is
    # known (bit 7), then the frame.
    ip6_tcp = (bytes.fromhex("02000000000b02000000000a86dd") + bytes([0x60, 0, 0, 0, 0, 20, 6, 64])
               + bytes(15) + b"\x01" + bytes(15) + b"\x02" + struct.pack("!HH", 443, 5555)
               + bytes(16))
    arp = bytes.fromhex("ffffffffffff02000000000a0806") + bytes(28)
    for i, (pick, frame) in enumerate([
            (0x80 | (2 << 2), mac_ip_udp(40000, 53)),
            (0x80 | (1 << 2), mac_ip_udp(53, 40000, vlan=100)),
            (5 << 2, ip6_tcp), (0, arp),
            (1 | (6 << 2), mac_ip_udp(1, 2)[14:])]):
        write("top", i, bytes([pick]) + frame)

    # corebtf: raw BTF as /sys/kernel/btf/vmlinux has it, with the structs
    # the cut looks for (the listener in an anonymous union, the cookie
    # behind a typedef, as the kernel's), and one without them.
    for i, with_paths in enumerate([True, False]):
        write("corebtf", i, btf_seed(with_paths))


if __name__ == "__main__":
    main()
