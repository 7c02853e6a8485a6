# SPDX-License-Identifier: BSD-3-Clause
# bash completion for dprctl (installed as
# share/bash-completion/completions/dprctl). Port names come from the
# running dpr when its socket answers.

_dprctl_ports()
{
	local sock=$1
	timeout 1 dprctl ${sock:+-s "$sock"} port list 2>/dev/null | awk 'NR > 1 {print $1}'
}

_dprctl_vrfs()
{
	local sock=$1
	timeout 1 dprctl ${sock:+-s "$sock"} vrf list 2>/dev/null | awk 'NR > 1 {print $1}'
}

_dprctl_acls()
{
	local sock=$1
	timeout 1 dprctl ${sock:+-s "$sock"} --json acl list 2>/dev/null |
		python3 -c 'import json, sys; [print(a["name"]) for a in json.load(sys.stdin)]' 2>/dev/null
}

_dprctl()
{
	local cur prev words cword
	if declare -F _init_completion >/dev/null; then
		_init_completion || return
	else
		cur=${COMP_WORDS[COMP_CWORD]}
		prev=${COMP_WORDS[COMP_CWORD - 1]}
		words=("${COMP_WORDS[@]}")
		cword=$COMP_CWORD
	fi

	# Global options come before the command.
	local i cmd= sub= sock= cmd_at=0
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		-s | --socket) sock=${words[i + 1]}; ((i++)) ;;
		-*) ;;
		*) cmd=${words[i]}; cmd_at=$i; break ;;
		esac
	done
	[ -n "$cmd" ] && ((cmd_at + 1 < cword)) && sub=${words[cmd_at + 1]}

	case $prev in
	-s | --socket)
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	dev | port)
		if [ -n "$sub" ]; then
			COMPREPLY=($(compgen -W "$(_dprctl_ports "$sock")" -- "$cur"))
			return
		fi ;;
	source)
		COMPREPLY=($(compgen -W "router config api fpm kernel" -- "$cur"))
		return ;;
	vrf)
		if [ -n "$sub" ]; then
			COMPREPLY=($(compgen -W "$(_dprctl_vrfs "$sock")" -- "$cur"))
			return
		fi ;;
	proto)
		COMPREPLY=($(compgen -W "tcp udp icmp icmpv6" -- "$cur"))
		return ;;
	--drop)
		COMPREPLY=($(compgen -W "all runt other_host unsupported_l3 unknown_vlan bad_header bad_length
			bad_checksum martian blackhole exception_full tx_full acl urpf control_plane" -- "$cur"))
		return ;;
	--exception)
		COMPREPLY=($(compgen -W "all arp local ip_options ttl_expired no_route unresolved
			mtu_exceeded beyond_scope l2_control" -- "$cur"))
		return ;;
	--port)
		COMPREPLY=($(compgen -W "$(_dprctl_ports "$sock")" -- "$cur"))
		return ;;
	-w | --write)
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	via | from | weight | sport | dport | --limit | -c | --count | --snaplen | --seconds | --max-bytes | lladdr)
		return ;;
	esac

	if [ -z "$cmd" ]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "-s --socket -j --json -6 -h --help -V --version" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "route addr neigh vrf vlan acl port stats doctor capture config rib call help" -- "$cur"))
		fi
		return
	fi
	if ((cword == cmd_at + 1)); then
		case $cmd in
		route) COMPREPLY=($(compgen -W "add replace del get list load" -- "$cur")) ;;
		addr | neigh) COMPREPLY=($(compgen -W "add del list" -- "$cur")) ;;
		port) COMPREPLY=($(compgen -W "list show" -- "$cur")) ;;
		rib) COMPREPLY=($(compgen -W "check" -- "$cur")) ;;
		vrf) COMPREPLY=($(compgen -W "list add del" -- "$cur")) ;;
		vlan) COMPREPLY=($(compgen -W "add del" -- "$cur")) ;;
		acl) COMPREPLY=($(compgen -W "set show list bind unbind del" -- "$cur")) ;;
		stats) COMPREPLY=($(compgen -W "$(_dprctl_ports "$sock")" -- "$cur")) ;;
		help) COMPREPLY=($(compgen -W "route addr neigh vrf vlan acl port stats doctor capture config rib call" -- "$cur")) ;;
		config) COMPREPLY=($(compgen -W "show save" -- "$cur")) ;;
		capture) COMPREPLY=($(compgen -W "-w --drop --exception --port -c --snaplen --seconds
			--max-bytes status stop" -- "$cur")) ;;
		call) COMPREPLY=($(compgen -W "route.add route.replace route.del route.get
			route.list route.load addr.add addr.del addr.list neigh.add neigh.del
			neigh.list port.list port.show doctor.get capture.start capture.get
			capture.stop stats.get config.get rib.check vrf.list vrf.add vrf.del
			vlan.add vlan.del acl.set acl.del acl.list acl.get acl.bind acl.unbind" -- "$cur")) ;;
		esac
		return
	fi
	case $cmd/$sub in
	route/add | route/replace)
		if ((cword == cmd_at + 2)); then
			COMPREPLY=($(compgen -W "default" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "via dev weight" -- "$cur"))
		fi ;;
	route/get)
		((cword > cmd_at + 2)) &&
			COMPREPLY=($(compgen -W "from proto sport dport" -- "$cur")) ;;
	route/list | route/show) COMPREPLY=($(compgen -W "default --limit source dev" -- "$cur")) ;;
	port/show)
		((cword == cmd_at + 2)) &&
			COMPREPLY=($(compgen -W "$(_dprctl_ports "$sock")" -- "$cur")) ;;
	capture/*)
		COMPREPLY=($(compgen -W "-w --drop --exception --port -c --snaplen --seconds
			--max-bytes" -- "$cur")) ;;
	route/load) COMPREPLY=($(compgen -f -W "--partial vrf" -- "$cur")) ;;
	vrf/del)
		((cword == cmd_at + 2)) &&
			COMPREPLY=($(compgen -W "$(_dprctl_vrfs "$sock")" -- "$cur")) ;;
	vrf/add)
		((cword > cmd_at + 2)) && COMPREPLY=($(compgen -W "table poptrie" -- "$cur")) ;;
	vlan/add)
		((cword > cmd_at + 2)) && COMPREPLY=($(compgen -W "dev outer proto id vrf mtu notap" -- "$cur")) ;;
	vlan/del)
		((cword == cmd_at + 2)) &&
			COMPREPLY=($(compgen -W "$(_dprctl_ports "$sock")" -- "$cur")) ;;
	acl/show | acl/del | acl/set)
		((cword == cmd_at + 2)) &&
			COMPREPLY=($(compgen -W "$(_dprctl_acls "$sock")" -- "$cur")) ;;
	acl/bind | acl/unbind)
		if ((cword == cmd_at + 2)); then
			COMPREPLY=($(compgen -W "$(_dprctl_acls "$sock")" -- "$cur"))
		elif ((cword == cmd_at + 3)); then
			COMPREPLY=($(compgen -W "$(_dprctl_ports "$sock")" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "in out" -- "$cur"))
		fi ;;
	config/save)
		((cword == cmd_at + 2)) && COMPREPLY=($(compgen -f -- "$cur")) ;;
	addr/add | addr/del)
		((cword == cmd_at + 3)) && COMPREPLY=($(compgen -W "dev" -- "$cur")) ;;
	addr/list | addr/show | neigh/list | neigh/show)
		((cword == cmd_at + 2)) && COMPREPLY=($(compgen -W "dev" -- "$cur")) ;;
	neigh/add)
		((cword == cmd_at + 3)) && COMPREPLY=($(compgen -W "lladdr" -- "$cur"))
		((cword == cmd_at + 5)) && COMPREPLY=($(compgen -W "dev" -- "$cur")) ;;
	neigh/del)
		((cword == cmd_at + 3)) && COMPREPLY=($(compgen -W "dev" -- "$cur")) ;;
	esac
}
complete -F _dprctl dprctl
