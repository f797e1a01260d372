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

/* The module's own command line as WASI gives it (argv[0] its name as
 * given), for MPI_INFO_ENV's "command" and "argv": the module sees its own
 * job, not mpiwasm's command line.  Must live as long as the process.
 * Without it both keys are absent. */
void mpib_set_guest_args(int argc, char *const *argv);

/* --mpi-t-unrestricted: every MPI_T control variable writable and every
 * string value shown, as the host library has them.  By default a module
 * writes only collective-algorithm knobs and reads no string values (see
 * hand_t.c, "What a module may see and set"). */
void mpib_set_mpi_t_unrestricted(int on);

/* Whether the module can start threads (it imports wasi thread-spawn):
 * only then does the bridge lock its shared tables.  Before the module
 * runs; never changed after. */
void mpib_set_threads(int on);

/* The host MPI library this bridge is built against, e.g. "Open MPI
 * 4.1.4" or "MPICH 4.0.2" (from its mpi.h; no MPI_Init needed). */
const char *mpib_library(void);

#endif
