#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# What gets installed: the man page renders without a warning and names
# every option --help lists; the bash completion parses and completes;
# cmake --install puts binary, page and completion where Debian does, and
# the extcap's help link names the guide it installed; Wireshark's
# profile and Lua script show the words as columns; the .deb from
# CPack carries them with the right Depends, and lintian finds nothing.
PS_NO_ROOT=1
source "$(dirname "$0")/lib.sh"
need_tools man bash cpack dpkg-deb lintian tshark editcap
: "${BUILD_DIR:=$(dirname "$PKTSAMPLE")}"
page=$top/doc/pktsample.8
completion=$top/packaging/pktsample.bash

# The man page.
man --warnings -l "$page" >"$WORK/man.txt" 2>"$WORK/man.err" || fail "man -l failed: $(cat "$WORK/man.err")"
assert_eq "" "$(cat "$WORK/man.err")" "the man page renders without warnings"
missing=""
for opt in $("$PKTSAMPLE" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
	# roff writes each hyphen as \-
	grep -qF -- "$(sed 's/-/\\-/g' <<<"$opt")" "$page" || missing="$missing $opt"
done
assert_eq "" "$missing" "the man page names every option --help lists"
for section in SYNOPSIS HOOKS OPTIONS ANNOTATIONS "EXIT STATUS" SIGNALS FILES EXAMPLES "COMING FROM TCPDUMP"; do
	grep -q "^$section" "$WORK/man.txt" || fail "the man page has no $section section"
done
ok "the man page has every section"

# The completion.
bash -n "$completion" || fail "bash -n $completion"
ok "the completion parses"
if [ -r /usr/share/bash-completion/bash_completion ]; then
	got=$(bash -c "source /usr/share/bash-completion/bash_completion; source '$completion'
		COMP_WORDS=(pktsample --xdp-mode ''); COMP_CWORD=2; COMP_LINE='pktsample --xdp-mode '
		COMP_POINT=\${#COMP_LINE}; _pktsample pktsample '' --xdp-mode; echo \"\${COMPREPLY[*]}\"")
	assert_eq "auto native skb" "$got" "the completion offers --xdp-mode's values"
	got=$(bash -c "source /usr/share/bash-completion/bash_completion; source '$completion'
		COMP_WORDS=(pktsample --hook xdp,tc-e); COMP_CWORD=2; COMP_LINE='pktsample --hook xdp,tc-e'
		COMP_POINT=\${#COMP_LINE}; _pktsample pktsample xdp,tc-e --hook; echo \"\${COMPREPLY[*]}\"")
	assert_eq "xdp,tc-egress" "$got" "the completion completes a hook list's last item"
else
	skip "needs bash-completion"
fi

# cmake --install, where Debian puts things.
DESTDIR=$WORK/root cmake --install "$BUILD_DIR" --prefix /usr >/dev/null
for f in usr/sbin/pktsample usr/share/man/man8/pktsample.8.gz \
	usr/share/bash-completion/completions/pktsample usr/share/doc/pktsample/copyright \
	usr/lib/systemd/system/pktsample.service usr/share/doc/pktsample/examples/pktsample.conf; do
	[ -f "$WORK/root/$f" ] || fail "cmake --install did not install /$f"
done
ok "cmake --install: binary, man page, completion, copyright, the service's unit and example in Debian's places"

# Wireshark's profile and the Lua script it needs, as installed, on a
# file whose comments say what pktsample's do: the owner and the pod or
# container in columns of their own, the words as fields; another
# tool's comment left alone.
lua=$WORK/root/usr/lib/x86_64-linux-gnu/wireshark/plugins/pktsample.lua
[ -f "$lua" ] || fail "cmake --install did not put pktsample.lua in Wireshark's Lua plugin directory"
mkdir -p "$WORK/ws/profiles"
cp -r "$WORK/root/usr/share/wireshark/profiles/pktsample" "$WORK/ws/profiles/"
editcap -F pcapng -a '1:cpu=0 pid=1234 comm=ping pod=shop/cart-7d9f container=cart image=bb:1 cid=crio:0a1b netns=4026532' \
	-a '2:cpu=1 owner=unknown:socket-not-found' -a '3:a note of another tool: x=1' \
	-a '4:cpu=0 drop=NO_SOCKET at=tcp_v4_rcv pid=77 comm=nc container=shopweb cid=docker:1cd6' \
	"$top/tests/print/frames.pcap" "$WORK/words.pcapng" || fail "editcap failed"
ws() { WIRESHARK_CONFIG_DIR=$WORK/ws tshark -C pktsample -X "lua_script:$lua" -r "$WORK/words.pcapng" -c 4 "$@" 2>/dev/null; }
cols=$(ws -T fields -E separator=/t -e _ws.col.Owner -e "_ws.col.Container or pod" | tr '\t' '|')
assert_eq "ping (1234)|shop/cart-7d9f/cart
unknown:socket-not-found|
|
nc (77)|shopweb" "$cols" "tshark -C pktsample: the owner and the pod or container in their columns"
assert_eq "1234 shop/cart-7d9f cart crio:0a1b 77 shopweb docker:1cd6 NO_SOCKET tcp_v4_rcv" \
	"$(ws -Y 'pktsample.pid == 1234 || pktsample.drop' -T fields -e pktsample.pid -e pktsample.pod \
		-e pktsample.container -e pktsample.cid -e pktsample.drop -e pktsample.at | xargs)" \
	"the words are Wireshark fields: pktsample.pid, .pod, .container, .drop"
assert_eq 1 "$(ws -Y 'frame.comment && !pktsample' | wc -l)" "another tool's comment gets no pktsample fields"
assert_eq "$(sed -n 's/^\tX([A-Z]*, "\([a-z]*\)").*/\1/p' "$top/user/util/words.h" | xargs)" \
	"$(sed -n '/^local keys = {/,/}/p' "$lua" | grep -o '"[a-z]*"' | tr -d '"' | xargs)" \
	"pktsample.lua knows every word user/util/words.h spells"
help=$("$WORK/root/usr/sbin/pktsample" --extcap-interfaces | sed -n 's/^extcap .*{help=file:\/\/\([^}#]*\)[^}]*}.*/\1/p')
assert_eq "$WORK/root/usr/share/doc/pktsample/guide.md" "$help" \
	"the extcap's help link is the guide installed beside the binary"
link=$WORK/root/usr/lib/x86_64-linux-gnu/wireshark/extcap/pktsample
[ -L "$link" ] || fail "cmake --install did not link pktsample into Wireshark's extcap directory"
assert_eq "$WORK/root/usr/sbin/pktsample" "$(readlink -f "$link")" \
	"the extcap entry in Wireshark's global directory is the installed binary"

# The .deb.
(cd "$WORK" && cpack -G DEB --config "$BUILD_DIR/CPackConfig.cmake" -B "$WORK/deb" >/dev/null) ||
	fail "cpack failed"
deb=$(ls "$WORK"/deb/pktsample_*_amd64.deb 2>/dev/null | head -1)
[ -n "$deb" ] || fail "no .deb made"
assert_eq "libbpf1, libxdp1, libpcap0.8, libelf1, zlib1g, libmicrohttpd12, libyaml-0-2, libcrypt1, libjansson4, libc6" \
	"$(dpkg-deb -f "$deb" Depends)" \
	"the .deb depends on the libraries pktsample links"
contents=$(dpkg-deb -c "$deb" | awk '{print $6}')
for f in ./usr/sbin/pktsample ./usr/share/man/man8/pktsample.8.gz \
	./usr/share/bash-completion/completions/pktsample ./usr/share/doc/pktsample/guide.md \
	./usr/lib/systemd/system/pktsample.service ./usr/share/doc/pktsample/examples/pktsample.conf \
	./usr/share/wireshark/profiles/pktsample/preferences \
	./usr/lib/x86_64-linux-gnu/wireshark/plugins/pktsample.lua; do
	grep -qx -- "$f" <<<"$contents" || fail "the .deb lacks $f"
done
ok "the .deb carries the binary, the man page, the completion, the guide, the service and Wireshark's profile"
assert_match "^l.* \./usr/lib/x86_64-linux-gnu/wireshark/extcap/pktsample -> \.\./\.\./\.\./\.\./sbin/pktsample$" \
	"$(dpkg-deb -c "$deb" | grep extcap/pktsample | awk '{print $1, $6, $7, $8}')" \
	"the .deb links pktsample into Wireshark's extcap directory"
# Debian's own judge: no error, no warning, not even a pedantic note.
tags=$(lintian --pedantic --info "$deb" 2>&1 | grep -v "^N:\|running with root privileges" || true)
assert_eq "" "$tags" "lintian --pedantic finds nothing in the .deb"
