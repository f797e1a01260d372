/* garble.c - for tests/coll (MPICH): an LD_PRELOAD library that hands out
 * every MPIR_CVAR_*_INTRA_ALGORITHM description without its item
 * separators, as a later MPICH might word them.  tune must then refuse in
 * one line, and a run apply nothing, rather than guess the numbers. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <string.h>

int MPI_T_cvar_get_info(int i, char *name, int *nl, int *verb, MPI_Datatype *dt,
                        MPI_T_enum *en, char *desc, int *dl, int *bind, int *scope)
{
	static int (*real)(int, char *, int *, int *, MPI_Datatype *, MPI_T_enum *, char *,
	                   int *, int *, int *);
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "MPI_T_cvar_get_info");
	int rc = real(i, name, nl, verb, dt, en, desc, dl, bind, scope);
	if (rc == MPI_SUCCESS && name && desc && strstr(name, "_INTRA_ALGORITHM"))
		for (char *p = desc; (p = strstr(p, " - ")); )
			p[1] = ':';
	return rc;
}
