#!/bin/sh
# check-protos.sh INCDIR - re-declares every prototype of toolchain/mpi.h
# after the host MPI's own mpi.h (in INCDIR): the compiler then rejects any
# prototype whose parameter types differ from the host library's.
set -e
inc=$1
tmp=${TMPDIR:-/tmp}/mpiwasm-protos.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
sed -n '/BEGIN GENERATED PROTOTYPES/,/END GENERATED PROTOTYPES/p' toolchain/mpi.h \
	| grep -v 'GENERATED PROTOTYPES' > "$tmp/protos.h"
{
	echo '#include <mpi.h>'
	# Some hosts define F08 status only for Fortran builds.
	echo '#ifdef OPEN_MPI'
	echo 'typedef MPI_Status MPI_F08_status;'
	echo '#endif'
	# Hosts before MPI-4 (Open MPI 4.1) have no large-count callback types.
	echo '#if MPI_VERSION < 4'
	echo 'typedef void MPI_User_function_c(void *, void *, MPI_Count *, MPI_Datatype *);'
	echo 'typedef int MPI_Datarep_conversion_function_c(void *, MPI_Datatype, MPI_Count, void *, MPI_Offset, void *);'
	echo '#endif'
	# Hosts may implement these as macros.
	grep -o 'P\{0,1\}MPI_[A-Za-z_]*_\(c2f\|f2c\|c2f08\|f082c\)(\|P\{0,1\}MPI_Aint_\(add\|diff\)(' \
		"$tmp/protos.h" | tr -d '(' | sort -u | sed 's/^/#undef /'
	echo "#include \"$tmp/protos.h\""
} > "$tmp/check.c"
n=$(grep -c ';$' "$tmp/protos.h")
if gcc -fsyntax-only -I"$inc" "$tmp/check.c" 2> "$tmp/err"; then
	echo "mpi.h prototypes vs $inc: $n checked, 0 failed"
else
	grep error "$tmp/err" | head -20
	echo "mpi.h prototypes vs $inc: $(grep -c 'conflicting types' "$tmp/err") failed"
	exit 1
fi
