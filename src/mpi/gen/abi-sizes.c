/* abi-sizes.c - compiled (not run) for wasm32 by `make check-mpi-h`: the
 * layout and numbers ABI.md fixes, as the module sees them. */
#include <mpi.h>

#define ABI(c) _Static_assert(c, #c)
ABI(sizeof(MPI_Status) == 24 && _Alignof(MPI_Status) == 8);
ABI(sizeof(MPI_Aint) == 4 && sizeof(MPI_Offset) == 8 && sizeof(MPI_Count) == 8);
ABI(sizeof(MPI_Comm) == 4 && sizeof(void *) == 4 && sizeof(long) == 4);
ABI(MPI_COMM_WORLD == 0 && MPI_COMM_SELF == 1 && MPI_COMM_NULL == 2);
ABI(MPI_INT8_T == 0 && MPI_INT == 3 && MPI_UINT64_T == 9 && MPI_LONG == 10);
ABI(MPI_LONG_LONG_INT == 12 && MPI_DOUBLE_INT == 15 && MPI_BYTE == 18);
ABI(MPI_DATATYPE_NULL == -1 && MPI_MAX == 0 && MPI_MINLOC == 9 && MPI_OP_NULL == 10);
ABI(MPI_INFO_NULL == 0 && MPI_ANY_SOURCE == -1 && MPI_ANY_TAG == -1);
ABI(MPI_UNDEFINED == -32766 && MPI_THREAD_MULTIPLE == 3 && MPI_UNEQUAL == 3);
ABI(MPI_MAX_PROCESSOR_NAME == 256 && MPI_MAX_OBJECT_NAME == 128);
ABI(MPI_COMM_TYPE_SHARED == 0 && MPIWASM_ABI == 1);
ABI(__builtin_offsetof(MPI_Status, _ucount) == 16);

int mpiwasm_abi_sizes(void);
int mpiwasm_abi_sizes(void) { return (int)(long)MPI_IN_PLACE; }
