# SPDX-License-Identifier: GPL-2.0-only
# bash completion for pktsample(8): options, interface names, hooks, modes.
_pktsample()
{
	local cur prev words cword
	_init_completion || return

	case $prev in
	-i | --iface)
		COMPREPLY=($(compgen -W "any $(ls /sys/class/net 2>/dev/null)" -- "$cur"))
		return ;;
	-w | --write | -r | --read-file | -F | --filter-file | --config)
		_filedir
		return ;;
	--hook)
		# a comma list: complete the last item
		local head=${cur%"${cur##*,}"}
		COMPREPLY=($(compgen -P "$head" -W "xdp tc-ingress tc-egress xdp-entry xdp-exit drop" -- "${cur##*,}"))
		compopt -o nospace
		return ;;
	-Q | --direction) COMPREPLY=($(compgen -W "in out inout" -- "$cur")); return ;;
	--xdp-mode) COMPREPLY=($(compgen -W "auto native skb" -- "$cur")); return ;;
	--tc-mode) COMPREPLY=($(compgen -W "auto tcx clsact" -- "$cur")); return ;;
	--tc-position) COMPREPLY=($(compgen -W "wire first last" -- "$cur")); return ;;
	--xdp-attach) COMPREPLY=($(compgen -W "link libxdp" -- "$cur")); return ;;
	--transport) COMPREPLY=($(compgen -W "auto perf ringbuf" -- "$cur")); return ;;
	--packet-id) COMPREPLY=($(compgen -W "auto path cpu" -- "$cur")); return ;;
	--sample-mode) COMPREPLY=($(compgen -W "random count" -- "$cur")); return ;;
	--context) COMPREPLY=($(compgen -W "on off" -- "$cur")); return ;;
	--pid) COMPREPLY=($(compgen -W "$(ps -e -o pid= 2>/dev/null)" -- "$cur")); return ;;
	--comm) COMPREPLY=($(compgen -W "$(ps -e -o comm= 2>/dev/null | sort -u)" -- "$cur")); return ;;
	--netns) COMPREPLY=($(compgen -W "$(ls /run/netns 2>/dev/null)" -- "$cur")); return ;;
	--cgroup | --host-root) _filedir -d; return ;;
	-Z | --relinquish-privileges) COMPREPLY=($(compgen -u -- "$cur")); return ;;
	-z | --postrotate-command) COMPREPLY=($(compgen -c -- "$cur")); return ;;
	-s | --snaplen | -c | --count | --duration | -B | --buffer-size | -j | --threads | --sample | \
	--sample-flows | --sample-interval | --max-rate | --stats | -C | --file-size | \
	-G | --rotate-seconds | -W | --file-count | --sflow | --sflow-agent | --sflow-header | \
	--sflow-counters | --sflow-burst | --container | --pod | --k8s-namespace | --metrics | --max-ifaces | --filter | \
	--flight | --flight-size | --after | --holdoff | --incidents)
		return ;;
	--trigger) COMPREPLY=($(compgen -W "drop drop:" -- "$cur")); compopt -o nospace; return ;;
	--top-group) COMPREPLY=($(compgen -W "process container flow interface drop pod namespace path" -- "$cur")); return ;;
	--top-sort) COMPREPLY=($(compgen -W "bytes packets drops name" -- "$cur")); return ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_parse_help "$1")" -- "$cur"))
	fi
} &&
	complete -F _pktsample pktsample
