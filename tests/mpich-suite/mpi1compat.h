/* Forced (-include) into MPICH's dtpools library when tests/mpich-suite/run.sh
 * builds it: dtpools calls MPI_Type_hvector and MPI_Type_hindexed, removed in
 * MPI-3.0.  Open MPI 4.1's mpi.h turns them into a static assertion and
 * mpiwasm's mpi.h does not declare them; their MPI-2 replacements take the
 * same arguments in C, so both builds call those instead. */
#include <mpi.h>
#undef MPI_Type_hvector
#undef MPI_Type_hindexed
#define MPI_Type_hvector MPI_Type_create_hvector
#define MPI_Type_hindexed MPI_Type_create_hindexed
