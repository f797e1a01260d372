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

/* 0, or -1 with one line in err naming the bad option. */
int wasi_setup(const wasi_config *cfg, char *err, size_t errlen);

/* Closes everything wasi_setup() opened. */
void wasi_teardown(void);

/* Host-side check for the MPI bridge (MPI_File_open ...): resolves a
 * module path under the preopens as path_open would, and returns a new
 * host path string to open (malloc'd) or NULL with errno set. */
char *wasi_sandbox_path(const char *guest_path, bool write);

#endif
