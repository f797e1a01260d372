# bench/mpi/launcher.sh - sourced by the bench/mpi runners: NCC (the
# native MPI compiler driver) and LAUNCH (the launcher, to be followed by
# a rank count) for MPI=openmpi|mpich.
case $MPI in
openmpi)
	NCC=mpicc.openmpi
	LAUNCH="mpirun.openmpi --oversubscribe -np"
	[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ;;
mpich)
	NCC=mpicc.mpich
	LAUNCH="mpirun.mpich -np" ;;
*)	echo "bench/mpi: MPI must be openmpi or mpich" >&2; exit 1 ;;
esac
