/* tmpi.h - the MPI test programs' reporting: each rank records lines and
 * failed checks; tm_finish() gathers them so rank 0 prints them in rank
 * order.  Output therefore depends only on the program's results, and the
 * same program built natively and for mpiwasm must print the same text. */
#ifndef TMPI_H
#define TMPI_H
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char tm_buf[1 << 16];
static int tm_len, tm_fail, tm_checks;

static inline void tm_out(const char *fmt, ...)
{
	va_list ap;
	int room = (int)sizeof tm_buf - tm_len, n;
	va_start(ap, fmt);
	n = vsnprintf(tm_buf + tm_len, (size_t)room, fmt, ap);
	va_end(ap);
	if (n < 0 || n + 1 >= room) {
		fprintf(stderr, "tmpi: output buffer full\n");
		MPI_Abort(MPI_COMM_WORLD, 99);
	}
	tm_len += n;
	tm_buf[tm_len++] = '\n';
	tm_buf[tm_len] = 0;
}

#define CHECK(c) do { tm_checks++; if (!(c)) { tm_fail++; \
	tm_out("FAIL %s:%d: %s", __FILE__, __LINE__, #c); } } while (0)
/* An MPI call that must succeed (errors return on the tested comms). */
#define OK(call) do { int rc_ = (call); tm_checks++; if (rc_ != MPI_SUCCESS) { \
	tm_fail++; tm_out("FAIL %s:%d: %s returned %d", __FILE__, __LINE__, \
	#call, rc_); } } while (0)

static inline int tm_rank(void) { int r; MPI_Comm_rank(MPI_COMM_WORLD, &r); return r; }
static inline int tm_size(void) { int s; MPI_Comm_size(MPI_COMM_WORLD, &s); return s; }

/* Collective over MPI_COMM_WORLD; returns the exit status for main. */
static inline int tm_finish(const char *name)
{
	int rank = tm_rank(), size = tm_size(), i, total_fail = 0;
	int *lens = NULL, *displs = NULL;
	char *all = NULL;
	if (rank == 0) {
		lens = (int *)malloc(sizeof(int) * (size_t)size);
		displs = (int *)malloc(sizeof(int) * (size_t)size);
	}
	MPI_Gather(&tm_len, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		int tot = 0;
		for (i = 0; i < size; i++) { displs[i] = tot; tot += lens[i]; }
		all = (char *)malloc((size_t)tot + 1);
	}
	MPI_Gatherv(tm_buf, tm_len, MPI_CHAR, all, lens, displs, MPI_CHAR, 0, MPI_COMM_WORLD);
	MPI_Reduce(&tm_fail, &total_fail, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		for (i = 0; i < size; i++) {
			char *p = all + displs[i], *end = p + lens[i];
			while (p < end) {
				char *nl = (char *)memchr(p, '\n', (size_t)(end - p));
				printf("[%d] %.*s\n", i, (int)(nl - p), p);
				p = nl + 1;
			}
		}
		/* The number of checks varies with polling loops; not printed. */
		printf("%s np=%d: %d failed\n", name, size, total_fail);
		fflush(stdout);
		free(all); free(lens); free(displs);
	}
	MPI_Bcast(&total_fail, 1, MPI_INT, 0, MPI_COMM_WORLD);
	return total_fail != 0;
}

/* Error class names the tests expect, by symbol: the numbers differ
 * between MPI libraries and the wasm ABI. */
static inline const char *tm_class(int code)
{
	int c;
	if (MPI_Error_class(code, &c) != MPI_SUCCESS) return "bad-code";
#define TM_C(x) if (c == x) return #x;
	TM_C(MPI_SUCCESS) TM_C(MPI_ERR_BUFFER) TM_C(MPI_ERR_COUNT) TM_C(MPI_ERR_TYPE)
	TM_C(MPI_ERR_TAG) TM_C(MPI_ERR_COMM) TM_C(MPI_ERR_RANK) TM_C(MPI_ERR_REQUEST)
	TM_C(MPI_ERR_ROOT) TM_C(MPI_ERR_GROUP) TM_C(MPI_ERR_OP) TM_C(MPI_ERR_ARG)
	TM_C(MPI_ERR_TRUNCATE) TM_C(MPI_ERR_OTHER) TM_C(MPI_ERR_INTERN)
	TM_C(MPI_ERR_IN_STATUS) TM_C(MPI_ERR_PENDING) TM_C(MPI_ERR_INFO)
	TM_C(MPI_ERR_KEYVAL) TM_C(MPI_ERR_UNKNOWN) TM_C(MPI_ERR_TOPOLOGY) TM_C(MPI_ERR_DIMS) TM_C(MPI_ERR_PORT)
#undef TM_C
	return "other-class";
}
#endif
