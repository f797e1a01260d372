#!/bin/sh
# Installs the Debian 12 packages mpiwasm needs, if any are missing.
# As root it runs apt-get; otherwise it prints the command to run.
set -e
PKGS="make gcc clang-19 lld-19 libclang-rt-19-dev libclang-rt-19-dev-wasm32 wasi-libc
 libc++-19-dev-wasm32 libc++abi-19-dev-wasm32 libopenmpi-dev openmpi-bin
 mpich libmpich-dev wabt binaryen pkg-config python3 gnuplot-nox hyperfine
 cmake llvm-19 iproute2 util-linux slurmctld slurmd slurm-client"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "mpiwasm: missing packages:$missing" >&2
	echo "mpiwasm: run as root: apt-get install -y$missing" >&2
	exit 1
fi
echo "mpiwasm: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends $missing >/dev/null
