# scripts/emucluster.sh - an emulated cluster on one machine, sourced by
# tests/cluster/run.sh and bench/coll/cluster.sh (POSIX sh, needs root).
#
# Each host is a network namespace with a veth to a bridge private to the
# run, addresses 10.213.0.0/24 (used only inside the namespaces; the
# bridge itself has none, so nothing in the root namespace can reach
# them).  Every name carries a prefix made of "mwc" and the caller's pid,
# so two runs on one machine never share a namespace, a link or a
# directory.  A host's commands run through scripts/netns-agent, which
# enters its namespace with its own UTS namespace (hostname = host name,
# so MPI libraries see distinct nodes), its own compile cache directory
# and its own TMPDIR.
#
#   ec_init             names and the run directory ($EC_DIR); after it,
#                       trap ec_down (it is idempotent)
#   ec_up N             the head (where mpirun/srun/slurmctld run) and
#                       hosts $EC_PFX"h0" .. h(N-1)
#   ec_shape PROFILE    none | 10g | 1g: tbf on both ends of every host link
#   ec_head CMD...      run CMD on the head
#   ec_host I CMD...    run CMD on host I
#   ec_down             kill what runs in the namespaces, remove them, the
#                       links, the bridge, /etc/netns entries, $EC_DIR
#
# Everything ec_up creates is written to $EC_DIR/created first, so that
# ec_down removes exactly that, also when ec_up stopped half way.

EC_NET=10.213.0
EC_AGENT=$(cd "$(dirname "${EC_SCRIPTS:-scripts}/netns-agent")" && pwd)/netns-agent

ec_init() {
	# The x ends the pid: run 123 must not take run 1234's names for its own.
	EC_PFX=mwc$$x
	EC_DIR=$(mktemp -d "${TMPDIR:-/tmp}/mpiwasm-cluster.XXXXXX") || return 1
	EC_N=0
	: > "$EC_DIR/created"
	mkdir -p "$EC_DIR/hosts"
	# The agent finds the hosts' directories here.
	MPIWASM_NETNS_ROOT=$EC_DIR
	export MPIWASM_NETNS_ROOT
}

ec_hostname() { echo "$EC_PFX"h"$1"; }
EC_HEAD_IP=$EC_NET.254

# Can this machine make namespaces, links and bridges?  Prints why not.
ec_capable() {
	[ "$(id -u)" = 0 ] || { echo "not root"; return 1; }
	for t in ip tc unshare; do
		command -v $t > /dev/null 2>&1 || { echo "no $t command"; return 1; }
	done
	probe=${EC_PFX}pr
	if ! ip netns add "$probe" 2> "$EC_DIR/probe.err"; then
		echo "ip netns add failed: $(head -1 "$EC_DIR/probe.err")"; return 1
	fi
	ok=1
	ip link add "${EC_PFX}pb" type bridge 2> "$EC_DIR/probe.err" || ok=0
	ip link del "${EC_PFX}pb" 2> /dev/null
	ip netns del "$probe"
	[ "$ok" = 1 ] || { echo "cannot create a bridge: $(head -1 "$EC_DIR/probe.err")"; return 1; }
	unshare --uts true 2> "$EC_DIR/probe.err" ||
		{ echo "unshare --uts failed: $(head -1 "$EC_DIR/probe.err")"; return 1; }
	return 0
}

# One namespace with its veth end on the bridge: ns, address, link name
ec_node() {
	ns=$1 addr=$2 link=$3
	echo "netns $ns" >> "$EC_DIR/created"
	ip netns add "$ns" || return 1
	echo "link $link" >> "$EC_DIR/created"
	ip link add "$link" type veth peer name eth0 netns "$ns" || return 1
	ip link set "$link" master "${EC_PFX}br" up || return 1
	ip -n "$ns" addr add "$addr/24" dev eth0 || return 1
	ip -n "$ns" link set eth0 up || return 1
	ip -n "$ns" link set lo up || return 1
	mkdir -p "$EC_DIR/hosts/$ns/cache" "$EC_DIR/hosts/$ns/tmp"
	chmod 700 "$EC_DIR/hosts/$ns" "$EC_DIR/hosts/$ns/cache"
	cat /proc/sys/kernel/random/uuid > "$EC_DIR/hosts/$ns/boot_id"
}

ec_up() {
	n=$1
	echo "link ${EC_PFX}br" >> "$EC_DIR/created"
	ip link add "${EC_PFX}br" type bridge || return 1
	ip link set "${EC_PFX}br" up || return 1
	# Hosts files first: ip netns exec bind-mounts /etc/netns/NS/hosts.
	hosts=$EC_DIR/hosts.txt
	printf '127.0.0.1 localhost\n%s %shd\n' "$EC_HEAD_IP" "$EC_PFX" > "$hosts"
	i=0
	while [ $i -lt "$n" ]; do
		echo "$EC_NET.$((i + 1)) $(ec_hostname $i)" >> "$hosts"
		i=$((i + 1))
	done
	[ -d /etc/netns ] || echo "etcroot /etc/netns" >> "$EC_DIR/created"
	for ns in "${EC_PFX}hd" $(i=0; while [ $i -lt "$n" ]; do ec_hostname $i; i=$((i + 1)); done); do
		echo "etc /etc/netns/$ns" >> "$EC_DIR/created"
		mkdir -p "/etc/netns/$ns" && cp "$hosts" "/etc/netns/$ns/hosts" || return 1
	done
	ec_node "${EC_PFX}hd" "$EC_HEAD_IP" "${EC_PFX}vhd" || return 1
	i=0
	while [ $i -lt "$n" ]; do
		ec_node "$(ec_hostname $i)" "$EC_NET.$((i + 1))" "${EC_PFX}v$i" || return 1
		i=$((i + 1))
	done
	EC_N=$n
}

# Shapes both directions of every host link (the head's too) to a rate:
# the root-side end limits what the host receives, the eth0 inside the
# namespace what it sends.  tbf needs a bucket of at least one timer tick
# of traffic and one GSO segment (64 KiB) to reach its rate.
ec_shape() {
	case $1 in
	none) rate= ;;
	10g) rate=10gbit burst=2mb ;;
	1g) rate=1gbit burst=256kb ;;
	*) echo "ec_shape: unknown profile '$1' (none, 10g, 1g)" >&2; return 1 ;;
	esac
	for ns in "${EC_PFX}hd" $(i=0; while [ $i -lt "$EC_N" ]; do ec_hostname $i; i=$((i + 1)); done); do
		case $ns in *hd) link=${EC_PFX}vhd ;; *) link=${EC_PFX}v${ns##*h} ;; esac
		tc qdisc del dev "$link" root 2> /dev/null
		ip netns exec "$ns" tc qdisc del dev eth0 root 2> /dev/null
		[ -z "$rate" ] && continue
		tc qdisc add dev "$link" root tbf rate $rate burst $burst latency 20ms || return 1
		ip netns exec "$ns" tc qdisc add dev eth0 root tbf rate $rate burst $burst latency 20ms || return 1
	done
}

ec_head() { "$EC_AGENT" --exec "${EC_PFX}hd" "$@"; }
ec_host() { h=$(ec_hostname "$1"); shift; "$EC_AGENT" --exec "$h" "$@"; }

ec_down() {
	[ -n "${EC_DIR:-}" ] && [ -f "$EC_DIR/created" ] || return 0
	# Processes first: a namespace a process still holds outlives its name.
	for ns in $(sed -n 's/^netns //p' "$EC_DIR/created"); do
		pids=$(ip netns pids "$ns" 2> /dev/null)
		[ -n "$pids" ] && kill -KILL $pids 2> /dev/null
	done
	for ns in $(sed -n 's/^netns //p' "$EC_DIR/created"); do
		n=0
		while [ -n "$(ip netns pids "$ns" 2> /dev/null)" ] && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
		ip netns del "$ns" 2> /dev/null
	done
	for l in $(sed -n 's/^link //p' "$EC_DIR/created"); do
		ip link del "$l" 2> /dev/null
	done
	for d in $(sed -n 's/^etc //p' "$EC_DIR/created"); do
		case $d in /etc/netns/mwc*) rm -rf "$d" ;; esac
	done
	# /etc/netns itself only if this run made it, and nobody put more there.
	grep -q '^etcroot ' "$EC_DIR/created" && rmdir /etc/netns 2> /dev/null
	rm -rf "$EC_DIR"
	EC_DIR=
}

# What is left of this run (namespaces, links, /etc/netns entries): empty
# after ec_down.
ec_leftovers() {
	ip netns list 2> /dev/null | grep "^$EC_PFX" | sed 's/ .*//;s/^/netns /'
	ip -o link show 2> /dev/null | sed -n "s/^[0-9]*: \($EC_PFX[^:@]*\).*/link \1/p"
	ls -d /etc/netns/"$EC_PFX"* 2> /dev/null | sed 's/^/etc /'
}
