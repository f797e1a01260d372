/* wasi.h - WASI preview1 host functions and the file-system sandbox.
 *
 * The command line (src/cli) fills a wasi_config; wasi_setup() checks it
 * (every --dir exists and is a directory, no two grants share a guest
 * path) and opens the preopened directories, before the module starts.
 * wasi_register() adds the `wasi_snapshot_preview1` host functions to the
 * registry (host.h).  One module runs per process, so the state is
 * process-wide. */
#ifndef MPIWASM_WASI_H
#define MPIWASM_WASI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct wasi_preopen {
	const char *host;      /* host directory */
	const char *guest;     /* the path the module sees */
	bool readonly;         /* --dir-ro */
} wasi_preopen;

typedef struct wasi_config {
	int argc;              /* argv[0] is the module's name as given */
	char **argv;
	int nenv;              /* "NAME=VALUE" strings the module sees */
	char **env;
	int npreopens;
	wasi_preopen *preopens;
} wasi_config;

void wasi_register(void);

/* wasi-threads (threads.c): the `wasi` `thread-spawn` import, registered
 * by wasi_threads_register().  A thread that traps or calls proc_exit ends the
 * process: the handler the command sets here reports it (thread `tid`,
 * 1 and up) and must not return. */
struct rt_instance;
struct rt_trapinfo;
typedef void wasi_thread_end(struct rt_instance *inst, const struct rt_trapinfo *t,
                             uint32_t tid);
void wasi_threads_register(void);
void wasi_threads_on_end(wasi_thread_end *fn);
/* Threads started so far by thread-spawn. */
int wasi_threads_started(void);
/* The calling thread's wasi-threads id; 0 on the thread that runs _start. */
uint32_t wasi_thread_id(void);

/* 0, or -1 with one line in err naming the bad option. */
int wasi_setup(const wasi_config *cfg, char *err, size_t errlen);

/* Closes everything wasi_setup() opened. */
void wasi_teardown(void);

/* Host-side checks for the MPI bridge (MPI_File_open, MPI_File_delete,
 * ...).  Both take a module path, choose the preopen whose guest name is
 * its longest prefix (a relative path goes to the "." grant) as
 * wasi-libc does, and resolve the rest beneath that grant as path_open
 * would (symlinks followed only while they stay inside; "..", absolute
 * targets and /proc magic links refused).  Errors: -1/NULL with errno
 * set: EACCES for a path outside every grant (or escaping one), EROFS
 * for writing below a --dir-ro grant, else the host's errno.
 *
 * wasi_sandbox_path() returns a host path string (malloc'd) naming the
 * checked file.  It is NOT race-free: between the check and the
 * library's own open the names along the path can be swapped (e.g. a
 * directory replaced by a symlink to outside the grant).  Use it only
 * where no descriptor can be handed over (messages, MPI_File_delete of
 * a name the module controls no more than the host). */
char *wasi_sandbox_path(const char *guest_path, bool write);

/* The race-free variant: opens the file beneath its grant now, with host
 * open(2) flags `oflags` (O_CREAT uses `mode`; O_CLOEXEC is added; a
 * write access mode, O_CREAT, O_TRUNC or O_APPEND count as writing), and
 * returns the new descriptor, writing into hostpath_out (len bytes, 32
 * are enough) the name "/proc/self/fd/N".  Opening that name in this
 * process opens the very file that was checked, whatever is renamed
 * afterwards.  The caller passes the name to the MPI library, keeps the
 * descriptor open until the library has opened it (e.g. until
 * MPI_File_open returns) and then closes it.  Pass the library the same
 * access mode, and drop O_EXCL / MPI_MODE_EXCL: the file exists once
 * this returns.  Needs /proc mounted (checked: ENOENT otherwise).
 * Returns -1 with errno set as above. */
int wasi_sandbox_open(const char *guest_path, int oflags, mode_t mode,
                      char *hostpath_out, size_t len);

#endif
