#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The processes of it_context.sh.

server:                echo on TCP 5001 and UDP 5002 (v4), until killed
client HOST OUT        one TCP exchange and one UDP exchange with HOST; the
                       local ports into OUT ("tcp PORT", "udp PORT")
pre HOST OUT GO        the same, but the sockets are made and connected
                       first, OUT written, and the exchange waits for the
                       file GO (a capture started meanwhile); then one more
                       datagram, from a third socket made first, to UDP
                       5003 where nothing listens ("lost PORT")
"""
import os
import socket
import sys
import threading
import time


def serve():
    t = socket.socket()
    t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    t.bind(("0.0.0.0", 5001))
    t.listen()

    def tcp():
        while True:
            c, _ = t.accept()
            while True:
                d = c.recv(65536)
                if not d:
                    break
                c.sendall(d)
            c.close()

    threading.Thread(target=tcp, daemon=True).start()
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.bind(("0.0.0.0", 5002))
    while True:
        d, a = u.recvfrom(65536)
        u.sendto(d, a)


def exchange(t, u, host):
    t.sendall(b"hello")
    t.recv(100)
    t.close()
    u.send(b"ping")
    u.settimeout(5)
    u.recv(100)
    u.close()


def main():
    mode = sys.argv[1]
    if mode == "server":
        serve()
        return
    host, out = sys.argv[2], sys.argv[3]
    t = socket.create_connection((host, 5001))
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.connect((host, 5002))
    lost = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    lost.bind(("0.0.0.0", 0))
    with open(out + ".tmp", "w") as f:
        f.write("tcp %d\nudp %d\nlost %d\n" % (t.getsockname()[1], u.getsockname()[1],
                                              lost.getsockname()[1]))
    os.rename(out + ".tmp", out)
    if mode == "pre":
        while not os.path.exists(sys.argv[4]):
            time.sleep(0.05)
    exchange(t, u, host)
    if mode == "pre":
        lost.sendto(b"nobody", (host, 5003))


if __name__ == "__main__":
    main()
