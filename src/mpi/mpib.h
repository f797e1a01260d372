/* mpib.h - the MPI bridge: the module's MPI imports implemented on the
 * host's MPI library (Open MPI or MPICH), zero-copy and bounds-checked.
 * See DESIGN.md "The MPI bridge" and ABI.md. */
#ifndef MPIWASM_MPIB_H
#define MPIWASM_MPIB_H

/* Adds the `env` MPI host functions (and gethostname, __cxa_*) to the
 * registry (host.h).  Procedures that are not implemented yet are not
 * registered, so a module importing one is refused at load time. */
void mpib_register(void);

/* True between the module's MPI_Init(_thread) and MPI_Finalize. */
int mpib_active(void);

/* This process's rank in MPI_COMM_WORLD, or -1 before MPI_Init. */
int mpib_rank(void);

/* Ends the whole job after a fatal error in this rank (trap, proc_exit
 * without MPI_Finalize, C++ throw): MPI_Abort on MPI_COMM_WORLD when MPI is
 * active.  Returns only if MPI is not active. */
void mpib_abort(int status);

/* The engine's own command-line options (the n words between the program
 * name and the module: grants, environment, cache), for MPI_Comm_spawn's
 * children, which run the same engine with the same options.  The array
 * must live as long as the process (argv does).  Without it, spawn fails
 * with a message. */
void mpib_set_engine_options(int n, char *const *opts);

/* The host MPI library this bridge is built against, e.g. "Open MPI
 * 4.1.4" or "MPICH 4.0.2" (from its mpi.h; no MPI_Init needed). */
const char *mpib_library(void);

#endif
