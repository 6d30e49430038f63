#!/usr/bin/env bash
# Install everything pktsample needs to build, test and run its demo on
# Debian 12. Idempotent; run as root.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
	build-essential cmake pkg-config clang llvm \
	libbpf-dev libxdp-dev bpftool libelf-dev zlib1g-dev libpcap-dev \
	libcmocka-dev tshark tcpdump iproute2 iputils-ping xdp-tools \
	procps python3 python3-scapy bsdextrautils util-linux time \
	man-db groff-base bash-completion libcap2-bin pmacct ethtool wireguard-tools \
	qemu-system-x86 busybox-static cpio lintian clang-format nftables \
	prometheus curl sqlite3 systemd libmicrohttpd-dev libyaml-dev libcrypt-dev libjansson-dev openssl \
	libncurses-dev tmux docker.io containerd podman runc catatonit python3-yaml \
	>/dev/null
