/* main.c - the mpiwasm command.
 *
 *   mpiwasm [OPTIONS] app.wasm [ARGS...]    (or `mpiwasm run ...`)
 *   mpiwasm compile [OPTIONS] app.wasm
 *   mpiwasm cache [show|clean] [--cache-dir DIR]   (options on either side)
 *   mpirun -np N mpiwasm tune [--cache-dir DIR]    (collective tuning)
 *
 * Exit status: the module's own (proc_exit, or 0 when _start returns);
 * 2 for a bad command line, a missing or malformed module, or imports
 * mpiwasm does not provide; 1 for other failures (C compiler, cache,
 * instantiation); 134 when the module traps (as an abort would). */
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdnoreturn.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "cache/cache.h"
#include "load/load.h"
#include "coll/coll.h"
#include "mpi/mpib.h"
#include "rt/rt.h"
#include "wasi/wasi.h"
#include "xlate/xlate.h"

#define MPIWASM_VERSION "0.1.0"

enum {
	EXIT_USAGE = 2,         /* bad invocation, missing/malformed module */
	EXIT_FAILURE_RT = 1,    /* compiler, cache, instantiation */
	EXIT_TRAP = 134,        /* 128 + SIGABRT: the module trapped */
};

extern char **environ;

typedef struct cli {
	bool quiet, timings, inherit_env, no_loopver, no_coll_tuning, mpi_t_unrestricted;
	int tier;                 /* enum load_tier */
	const char *cache_dir;
	wasi_preopen *pre;
	int npre;
	char **env;
	int nenv;
} cli;

static void usage(FILE *f)
{
	fputs("usage: mpiwasm [OPTIONS] app.wasm [ARGS...]   run a module (also: mpiwasm run ...)\n"
	      "       mpiwasm compile [OPTIONS] app.wasm     fill the cache ahead of a job\n"
	      "       mpiwasm cache [show|clean] [--cache-dir DIR]   (clean also removes the\n"
	      "                              collective rules of `mpiwasm tune`)\n"
	      "       mpirun -np N mpiwasm tune [--cache-dir DIR]   collective tuning for\n"
	      "                              this host and N ranks (Open MPI): a model proposes,\n"
	      "                              a rule is kept only where measured faster than\n"
	      "                              Open MPI's own choice (MPIWASM_COLL_LOG=1: figures)\n"
	      "       mpiwasm --version (-V) | --help (-h)\n"
	      "\n"
	      "Options (before the module; everything after it is the module's;\n"
	      "compile and cache also take them after the module or action):\n"
	      "  --dir HOST[:GUEST]     grant a directory (GUEST defaults to HOST)\n"
	      "  --dir-ro HOST[:GUEST]  grant a directory read-only\n"
	      "  -d DIR                 grant DIR as /DIR (MPIWasm's form)\n"
	      "  --env NAME=VALUE       give the module an environment variable\n"
	      "  --env NAME             pass NAME with mpiwasm's own value (if it is set)\n"
	      "  --inherit-env          give the module mpiwasm's whole environment\n"
	      "  --cache-dir DIR        use DIR as the compile cache\n"
	      "  -q                     no \"compiling ...\" line on the first run\n"
	      "  -t, --timings          print decode/validate/translate/compile/load/run times\n"
	      "                         (-t as MPIWasm's embedder spells it)\n"
	      "  --no-loop-versioning   translate every loop as written (no fast copies of\n"
	      "                         loops checked once for wrap-around and bounds)\n"
	      "  --tier=auto|up|0|1     tiered start of a module not yet cached (auto: when\n"
	      "                         its C is over 4 MB): run code compiled at -O0 at\n"
	      "                         once, switch to -O2 code compiled in the background;\n"
	      "                         up: whatever the size; 0: -O0 code only; 1: never\n"
	      "  --no-coll-tuning       ignore the collective rules of `mpiwasm tune`\n"
	      "  --mpi-t-unrestricted   let the module write every MPI_T control variable\n"
	      "                         and read string values (by default: only collective\n"
	      "                         algorithm choices are writable, strings read empty)\n"
	      "\n"
	      "Environment: MPIWASM_CACHE_DIR (cache location), MPIWASM_CC (C compiler),\n"
	      "MPIWASM_CACHE_LOG (append a line per compile), MPIWASM_TIER (as --tier),\n"
	      "MPIWASM_TIER0_CC (the -O0 compiler; default clang-19 or clang, else cc),\n"
	      "MPIWASM_TIER1_NICE (niceness of the background -O2 compile, default 0),\n"
	      "MPIWASM_KEEP_TEMP (keep the\n"
	      "generated C and objects of a compile in $TMPDIR; otherwise a compile works\n"
	      "in .tmp-* under the cache dir, and removes it). MPIWASM_COLL_LOG=1: say\n"
	      "whether the collective rules of `mpiwasm tune` are used.\n"
	      "Exit status: the module's; 2 bad usage or module; 1 other failure;\n"
	      "134 the module trapped.\n", f);
}

static noreturn void die(int status, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static noreturn void die(int status, const char *fmt, ...)
{
	va_list ap;
	load_tier_stop();
	fputs("mpiwasm: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(status);
}

/* Prints a (possibly multi-line) message, each line as `mpiwasm: ...`. */
static void print_lines(const char *prefix, const char *msg)
{
	while (*msg) {
		size_t n = strcspn(msg, "\n");
		if (n)
			fprintf(stderr, "mpiwasm: %s%.*s\n", prefix, (int)n, msg);
		msg += n;
		if (*msg)
			msg++;
	}
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p)
		die(EXIT_FAILURE_RT, "out of memory");
	return p;
}

static void add_preopen(cli *c, const char *host, const char *guest, bool ro)
{
	c->pre = xrealloc(c->pre, (size_t)(c->npre + 1) * sizeof *c->pre);
	c->pre[c->npre++] = (wasi_preopen){ host, guest, ro };
}

/* HOST[:GUEST]; GUEST defaults to HOST as written. */
static void add_dir(cli *c, const char *arg, bool ro)
{
	const char *colon = strchr(arg, ':');
	if (!*arg || colon == arg)
		die(EXIT_USAGE, "%s: empty host directory in '%s'", ro ? "--dir-ro" : "--dir", arg);
	if (!colon) {
		add_preopen(c, arg, arg, ro);
		return;
	}
	if (!colon[1])
		die(EXIT_USAGE, "%s: empty guest path in '%s'", ro ? "--dir-ro" : "--dir", arg);
	add_preopen(c, strndup(arg, (size_t)(colon - arg)), colon + 1, ro);
}

/* -d DIR: DIR appears as /DIR. */
static void add_d(cli *c, const char *dir)
{
	if (!*dir)
		die(EXIT_USAGE, "-d: empty directory name");
	const char *g = dir;
	while (!strncmp(g, "./", 2))
		g += 2;
	while (*g == '/')
		g++;
	char *guest = xrealloc(NULL, strlen(g) + 2);
	guest[0] = '/';
	strcpy(guest + 1, g);
	add_preopen(c, dir, guest, false);
}

static void set_env(cli *c, const char *kv)
{
	size_t k = strcspn(kv, "=");
	for (int i = 0; i < c->nenv; i++)
		if (!strncmp(c->env[i], kv, k) && c->env[i][k] == '=') {
			c->env[i] = (char *)kv;
			return;
		}
	c->env = xrealloc(c->env, (size_t)(c->nenv + 2) * sizeof *c->env);
	c->env[c->nenv++] = (char *)kv;
	c->env[c->nenv] = NULL;
}

/* Options up to the module name; returns the index of the first non-option. */
static int tier_mode(const char *v, const char *what)
{
	if (!strcmp(v, "auto"))
		return LOAD_TIER_AUTO;
	if (!strcmp(v, "up"))
		return LOAD_TIER_UP;
	if (!strcmp(v, "0"))
		return LOAD_TIER_ZERO;
	if (!strcmp(v, "1"))
		return LOAD_TIER_ONE;
	die(EXIT_USAGE, "%s '%s': expected auto, up, 0 or 1", what, v);
}

static int parse_options(int argc, char **argv, int i, cli *c)
{
	const char **envs = NULL;
	int nenvs = 0;
	for (; i < argc; i++) {
		const char *a = argv[i], *val = NULL;
		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (a[0] != '-' || !a[1])
			break;
		/* Options with a value take it as the next word or after '='. */
		static const char *with_value[] = { "--dir", "--dir-ro", "-d", "--env",
			"--cache-dir", "--tier", NULL };
		const char *name = a;
		char namebuf[32];
		const char *eq = strchr(a, '=');
		if (eq && a[1] == '-' && (size_t)(eq - a) < sizeof namebuf) {
			memcpy(namebuf, a, (size_t)(eq - a));
			namebuf[eq - a] = 0;
			name = namebuf;
		}
		bool takes = false;
		for (int k = 0; with_value[k]; k++)
			takes |= !strcmp(name, with_value[k]);
		if (takes) {
			if (name == namebuf)
				val = eq + 1;
			else if (i + 1 < argc)
				val = argv[++i];
			else
				die(EXIT_USAGE, "option %s needs a value (try --help)", a);
		} else if (name == namebuf) {
			die(EXIT_USAGE, "option %s takes no value (try --help)", name);
		}

		if (!strcmp(name, "-q") || !strcmp(name, "--quiet"))
			c->quiet = true;
		else if (!strcmp(name, "--timings") || !strcmp(name, "-t"))
			c->timings = true;
		else if (!strcmp(name, "--no-loop-versioning"))
			c->no_loopver = true;
		else if (!strcmp(name, "--no-coll-tuning"))
			c->no_coll_tuning = true;
		else if (!strcmp(name, "--inherit-env"))
			c->inherit_env = true;
		else if (!strcmp(name, "--mpi-t-unrestricted"))
			c->mpi_t_unrestricted = true;
		else if (!strcmp(name, "--cache-dir"))
			c->cache_dir = val;
		else if (!strcmp(name, "--tier"))
			c->tier = tier_mode(val, "--tier");
		else if (!strcmp(name, "--dir"))
			add_dir(c, val, false);
		else if (!strcmp(name, "--dir-ro"))
			add_dir(c, val, true);
		else if (!strcmp(name, "-d"))
			add_d(c, val);
		else if (!strcmp(name, "--env")) {
			if (!*val || *val == '=')
				die(EXIT_USAGE, "--env '%s': expected NAME=VALUE or NAME", val);
			/* NAME alone passes mpiwasm's own value, if it has one (as
			 * docker run --env NAME does); an unset NAME stays unset. */
			if (!strchr(val, '=')) {
				const char *hv = getenv(val);
				if (!hv)
					continue;
				size_t n = strlen(val) + strlen(hv) + 2;
				char *kv = xrealloc(NULL, n);
				snprintf(kv, n, "%s=%s", val, hv);
				val = kv;
			}
			envs = xrealloc(envs, (size_t)(nenvs + 1) * sizeof *envs);
			envs[nenvs++] = val;
		} else if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
			usage(stdout);
			exit(0);
		} else if (!strcmp(name, "--version") || !strcmp(name, "-V")) {
			printf("mpiwasm %s (translator %s; MPI bridge built for %s)\n",
			       MPIWASM_VERSION, XLATE_VERSION, mpib_library());
			exit(0);
		} else {
			die(EXIT_USAGE, "unknown option '%s' (try --help)", a);
		}
	}
	/* The inherited environment first, so that --env overrides it. */
	if (c->inherit_env)
		for (char **e = environ; *e; e++)
			if (strchr(*e, '='))
				set_env(c, *e);
	for (int k = 0; k < nenvs; k++)
		set_env(c, envs[k]);
	free(envs);
	return i;
}

/* A spawned child's module (src/mpi/hand_dyn.c): the parent's private
 * copy of the file it checked beneath the grants; NULL otherwise. */
static const char *module_copy;

/* The module file, mapped read-only; exits with a one-line message if it
 * is missing or not a WebAssembly binary.  A spawned child maps the
 * parent's copy instead: not a symlink, ours, writable by nobody else. */
static const uint8_t *map_module(const char *path, size_t *size)
{
	int fd = module_copy ? open(module_copy, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
	                     : open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0)
		die(EXIT_USAGE, "cannot open %s: %s", module_copy ? module_copy : path,
		    strerror(errno));
	if (fstat(fd, &st))
		die(EXIT_USAGE, "cannot stat %s: %s", path, strerror(errno));
	if (module_copy && (!S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	                    (st.st_mode & 022)))
		die(EXIT_USAGE, "%s: the spawning parent's copy %s is not a private file of ours",
		    path, module_copy);
	if (S_ISDIR(st.st_mode))
		die(EXIT_USAGE, "%s: is a directory, not a WebAssembly module", path);
	if (st.st_size < 8)
		die(EXIT_USAGE, "%s: not a WebAssembly module (%lld bytes, too short)",
		    path, (long long)st.st_size);
	void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		die(EXIT_USAGE, "cannot read %s: %s", path, strerror(errno));
	close(fd);
	if (!memcmp(p, "\177ELF", 4))
		die(EXIT_USAGE, "%s: not a WebAssembly module: an ELF file (a native program? "
		    "compile the source with mpiwasm-cc)", path);
	if (memcmp(p, "\0asm", 4))
		die(EXIT_USAGE, "%s: not a WebAssembly module (no \\0asm header)", path);
	*size = (size_t)st.st_size;
	return p;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int load_status(int failure)
{
	return failure == LOAD_FAIL_MODULE || failure == LOAD_FAIL_IMPORTS ?
	       EXIT_USAGE : EXIT_FAILURE_RT;
}

static void load(const char *file, const cli *c, load_module *cm)
{
	static char err[8192];
	const uint8_t *bytes;
	size_t size;
	/* a trap ends this process (and the job): xlate_options.terminal_traps */
	load_options opt = { .cache = { .dir = c->cache_dir, .quiet = c->quiet,
	                                .no_loop_versioning = c->no_loopver,
	                                .terminal_traps = true },
	                     .check_host_imports = true, .tier = c->tier,
	                     .tier_verbose = c->timings };
	bytes = map_module(file, &size);
	if (load_wasm(bytes, size, file, &opt, cm, err, sizeof err)) {
		print_lines("", *err ? err : "load_wasm failed without a message");
		exit(load_status(cm->failure));
	}
}

static void print_timings(const load_module *cm, double run)
{
	fprintf(stderr, "mpiwasm: timings: decode %.3f ms, validate %.3f ms, "
	        "translate %.3f ms, compile %.3f ms, verify %.3f ms, wait %.3f ms, "
	        "load %.3f ms, run %.3f ms (cache %s",
	        cm->t.decode * 1e3, cm->t.validate * 1e3, cm->t.translate * 1e3,
	        cm->t.compile * 1e3, cm->t.verify * 1e3, cm->t.wait * 1e3, cm->t.load * 1e3,
	        run * 1e3,
	        cm->was_cached ? "hit" : "miss");
	if (!cm->was_cached && !cm->tier0_cached)
		fprintf(stderr, "; %zu of %zu units compiled before", cm->units_reused, cm->units);
	if (cm->tier0) {
		double t1 = load_tier1_active();
		fprintf(stderr, "; tier 0 %s %s -O0", cm->tier0_cached ? "cached, of" : "by",
		        cm->tier0_cc);
		if (t1 > 0)
			fprintf(stderr, ", tier 1 active after %.3f s", t1);
		else
			fputs(", tier 1 not active", stderr);
	}
	fputs(")\n", stderr);
}

/* Ends the process after the module ended; with MPI still initialized the
 * whole job is aborted, since the other ranks would wait for this one. */
static pthread_mutex_t end_lock = PTHREAD_MUTEX_INITIALIZER;

static noreturn void finish(int status, const char *why)
{
	/* The first thread to end the module ends the process; another one
	 * arriving meanwhile waits here for the exit. */
	pthread_mutex_lock(&end_lock);
	load_tier_stop();
	if (mpib_active()) {
		/* Ending without MPI_Finalize is an error even with status 0. */
		if (!status)
			status = 1;
		if (why)
			fprintf(stderr, "mpiwasm: rank %d: %s without MPI_Finalize; aborting the job\n",
			        mpib_rank(), why);
		fflush(NULL);
		mpib_abort(status);
	}
	fflush(NULL);
	/* With module threads still running, exit's atexit handlers and
	 * library destructors would run under them. */
	if (wasi_threads_started())
		_exit(status);
	exit(status);
}

static void report_trap(rt_instance *inst, const rt_trapinfo *t)
{
	char buf[512], thr[32] = "";
	rt_trap_format(inst, t, buf, sizeof buf);
	if (wasi_thread_id())
		snprintf(thr, sizeof thr, "thread %u: ", wasi_thread_id());
	if (mpib_rank() >= 0)
		fprintf(stderr, "mpiwasm: rank %d: %s%s\n", mpib_rank(), thr, buf);
	else
		fprintf(stderr, "mpiwasm: %s%s\n", thr, buf);
}

/* A module thread (wasi-threads) trapped or called proc_exit. */
static void thread_end(rt_instance *inst, const rt_trapinfo *t, uint32_t tid)
{
	(void)tid;
	if (t->kind == RT_EXIT)
		finish(t->exit_status & 0xff, "a thread of the module exited");
	pthread_mutex_lock(&end_lock);
	report_trap(inst, t);
	pthread_mutex_unlock(&end_lock);
	finish(EXIT_TRAP, NULL);
}

static int cmd_run(int argc, char **argv, int i)
{
	cli c = { 0 };
	char err[4096];
	const char *tv = getenv("MPIWASM_TIER");
	if (tv && *tv)
		c.tier = tier_mode(tv, "MPIWASM_TIER");
	i = parse_options(argc, argv, i, &c);
	if (i >= argc)
		die(EXIT_USAGE, "no module given (usage: mpiwasm [OPTIONS] app.wasm [ARGS...])");
	const char *file = argv[i];
	if ((!strcmp(file, "compile") || !strcmp(file, "cache") || !strcmp(file, "run") ||
	     !strcmp(file, "tune")) &&
	    access(file, F_OK))
		die(EXIT_USAGE, "cannot open %s: no such module (commands come first: "
		    "mpiwasm %s [OPTIONS] ...)", file, file);

	wasi_register();
	wasi_threads_register();
	mpib_register();
	/* argv[0], an optional "run", then the options up to the module */
	int o = 1 + (argc > 1 && !strcmp(argv[1], "run"));
	mpib_set_engine_options(i - o - (i > o && !strcmp(argv[i - 1], "--")), argv + o);
	mpib_set_guest_args(argc - i, argv + i);
	mpib_set_mpi_t_unrestricted(c.mpi_t_unrestricted);
	wasi_config cfg = { .argc = argc - i, .argv = argv + i, .nenv = c.nenv,
	                    .env = c.env, .npreopens = c.npre, .preopens = c.pre };
	err[0] = 0;
	if (wasi_setup(&cfg, err, sizeof err))
		die(EXIT_USAGE, "%s", *err ? err : "wasi_setup failed without a message");
	wasi_threads_on_end(thread_end);

	/* Collective rules of `mpiwasm tune`: MCA parameters in the
	 * environment, read by the host MPI_Init (which the module calls). */
	if (!c.no_coll_tuning)
		coll_apply(cache_dir(&(cache_options){ .dir = c.cache_dir }), mpib_library(),
		           c.timings);
	else if (c.timings || getenv("MPIWASM_COLL_LOG"))
		fprintf(stderr, "mpiwasm: coll tuning: not applied: --no-coll-tuning\n");

	load_module cm;
	load(file, &c, &cm);
	/* Before instantiation, which would already run the start function. */
	bool has_start = false;
	for (uint32_t k = 0; k < cm.mod.nexports; k++)
		has_start |= cm.mod.exports[k].kind == WASM_EXTERN_FUNC &&
		             !strcmp(cm.mod.exports[k].name, "_start");
	if (!has_start)
		die(EXIT_USAGE, "%s: no exported function _start (not a WASI command module)", file);
	bool threads = false;
	for (uint32_t k = 0; k < cm.mod.nimports; k++)
		threads |= cm.mod.imports[k].kind == WASM_EXTERN_FUNC &&
		           !strcmp(cm.mod.imports[k].module, "wasi") &&
		           !strcmp(cm.mod.imports[k].name, "thread-spawn");
	mpib_set_threads(threads);

	rt_instance *inst = NULL;
	rt_trapinfo trap;
	memset(&trap, 0, sizeof trap);
	if (rt_signals_install())
		die(EXIT_FAILURE_RT, "rt_signals_install: cannot install the trap handlers");
	double t0 = now();
	err[0] = 0;
	int rc = rt_instantiate(&cm.mod, cm.code, rt_resolve_host, NULL, &inst,
	                        &trap, err, sizeof err);
	if (rc < 0) {
		print_lines("", *err ? err : "rt_instantiate failed without a message");
		finish(EXIT_FAILURE_RT, NULL);
	}
	if (rc == 0) {
		rt_extern ex;
		if (rt_get_export(inst, "_start", &ex) || ex.kind != WASM_EXTERN_FUNC)
			die(EXIT_USAGE, "%s: no exported function _start (not a WASI command module)", file);
		if (ex.is_host)
			die(EXIT_USAGE, "%s: _start re-exports a host function; nothing to run", file);
		rc = rt_call_ex(inst, ex.u.func, NULL, NULL, &trap);
	}
	double run = now() - t0;
	if (c.timings)
		print_timings(&cm, run);
	if (rc == 0)
		finish(0, "the module returned");
	if (rc == RT_EXIT)
		finish(trap.exit_status & 0xff, "the module exited");
	report_trap(inst, &trap);
	finish(EXIT_TRAP, NULL);
}

static int cmd_compile(int argc, char **argv, int i)
{
	cli c = { 0 };
	i = parse_options(argc, argv, i, &c);
	if (i >= argc)
		die(EXIT_USAGE, "compile: no module given (usage: mpiwasm compile app.wasm)");
	const char *file = argv[i];
	/* The module takes no arguments here: options may follow it. */
	int extra = parse_options(argc, argv, i + 1, &c);
	if (extra < argc)
		die(EXIT_USAGE, "compile: one module at a time ('%s' is extra)", argv[extra]);
	wasi_register();
	wasi_threads_register();
	mpib_register();
	load_module cm;
	double t0 = now();
	/* One line is enough: the result below, not also "compiling ...". */
	bool quiet = c.quiet;
	c.quiet = !c.timings;
	c.tier = LOAD_TIER_ONE;   /* the cache's entry is tier 1 */
	load(file, &c, &cm);
	c.quiet = quiet;
	if (c.timings)
		print_timings(&cm, 0);
	if (!c.quiet)
		printf("mpiwasm: %s: %s %s in %s (%.2f s)\n", file,
		       cm.was_cached ? "already cached as" : "compiled and cached as",
		       cm.key, cache_dir(&(cache_options){ .dir = c.cache_dir }), now() - t0);
	load_module_free(&cm);
	return 0;
}

typedef struct shown {
	cache_entry_info *v;
	int n;
} shown;

static void collect_entry(void *ud, const cache_entry_info *e)
{
	shown *sh = ud;
	sh->v = xrealloc(sh->v, (size_t)(sh->n + 1) * sizeof *sh->v);
	sh->v[sh->n] = *e;
	sh->v[sh->n].source = strdup(e->source);   /* e->source is the callee's */
	sh->n++;
}

static int by_age(const void *a, const void *b)
{
	const cache_entry_info *x = a, *y = b;
	return (x->mtime > y->mtime) - (x->mtime < y->mtime);
}

static void show_entry(const cache_entry_info *e, time_t now_s)
{
	long long age = (long long)(now_s - e->mtime);
	char agebuf[32];
	if (age < 120)
		snprintf(agebuf, sizeof agebuf, "%llds", age);
	else if (age < 7200)
		snprintf(agebuf, sizeof agebuf, "%lldm", age / 60);
	else if (age < 172800)
		snprintf(agebuf, sizeof agebuf, "%lldh", age / 3600);
	else
		snprintf(agebuf, sizeof agebuf, "%lldd", age / 86400);
	printf("%s %10llu %6s  %s%s\n", e->key, (unsigned long long)e->size, agebuf,
	       e->source && *e->source ? e->source : "?", e->complete ? "" : " (incomplete)");
}

static int cmd_cache(int argc, char **argv, int i)
{
	cli c = { 0 };
	char err[1024];
	i = parse_options(argc, argv, i, &c);
	const char *what = i < argc ? argv[i] : "show";
	/* Options may also follow the action: cache show --cache-dir D. */
	if (i < argc && (i = parse_options(argc, argv, i + 1, &c)) < argc)
		die(EXIT_USAGE, "cache: unexpected argument '%s'", argv[i]);
	cache_options opt = { .dir = c.cache_dir };
	if (!strcmp(what, "show")) {
		unsigned long long total = 0;
		shown sh = { 0 };
		printf("cache dir: %s\n", cache_dir(&opt));
		int n = cache_list(&opt, collect_entry, &sh, err, sizeof err);
		if (n < 0)
			die(EXIT_FAILURE_RT, "%s", err);
		/* Oldest first, so the latest build is at the bottom. */
		qsort(sh.v, (size_t)sh.n, sizeof *sh.v, by_age);
		time_t t = time(NULL);
		for (int k = 0; k < sh.n; k++) {
			show_entry(&sh.v[k], t);
			total += sh.v[k].size;
			free((char *)sh.v[k].source);
		}
		free(sh.v);
		printf("%d entr%s, %llu bytes\n", n, n == 1 ? "y" : "ies", total);
		return 0;
	}
	if (!strcmp(what, "clean")) {
		int n = cache_clean(&opt, err, sizeof err);
		if (n < 0)
			die(EXIT_FAILURE_RT, "%s", err);
		printf("mpiwasm: removed %d entr%s and the collective rules of `mpiwasm tune` "
		       "from %s\n", n, n == 1 ? "y" : "ies", cache_dir(&opt));
		return 0;
	}
	die(EXIT_USAGE, "cache: unknown action '%s' (show or clean)", what);
}


/* mpirun -np N mpiwasm tune [--cache-dir DIR]: src/coll/tune.c, with the
 * bridge's measurement. */
static int cmd_tune(int argc, char **argv, int i)
{
	cli c = { 0 };
	char err[1024];
	i = parse_options(argc, argv, i, &c);
	if (i < argc)
		die(EXIT_USAGE, "tune: unexpected argument '%s' (usage: mpirun -np N mpiwasm tune "
		    "[--cache-dir DIR])", argv[i]);
	if (coll_tune(cache_dir(&(cache_options){ .dir = c.cache_dir }), mpib_library(),
	              mpib_coll_tune, c.quiet, err, sizeof err))
		die(EXIT_FAILURE_RT, "tune: %s", err);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	/* Put first by a spawning parent, before the options it passes on
	 * (which therefore never carry it further). */
	if (argc > 2 && !strncmp(argv[1], "--module-copy=", 14)) {
		module_copy = argv[1] + 14;
		argv[1] = argv[0];
		argv++;
		argc--;
		return cmd_run(argc, argv, 1);
	}
	if (!strcmp(argv[1], "run"))
		return cmd_run(argc, argv, 2);
	if (!strcmp(argv[1], "compile"))
		return cmd_compile(argc, argv, 2);
	if (!strcmp(argv[1], "cache"))
		return cmd_cache(argc, argv, 2);
	if (!strcmp(argv[1], "tune"))
		return cmd_tune(argc, argv, 2);
	return cmd_run(argc, argv, 1);
}
