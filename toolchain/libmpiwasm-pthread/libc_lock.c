/* libc_lock.c - one lock around wasi-libc's stdio.
 *
 * wasi-libc is built single-threaded: musl's FILE locks compile to
 * nothing.  `mpiwasm-cc -pthread` links with wasm-ld's --wrap for the
 * functions below, so every call, from the program or from inside libc,
 * goes through one recursive lock (recursive: printf calls vfprintf,
 * both wrapped): correct, one uncontended atomic pair per call, but
 * every FILE shares it, so a thread blocked reading stdin holds up the
 * others' stdio.  The list of wrapped names is `wrapped` in
 * mpiwasm-cc.in; toolchain/README.md says what stays unsafe. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

static int word;           /* the futex lock */
static pthread_t owner;
static int depth;          /* of the owner's nested calls */

void mw_libc_lock(void)
{
	pthread_t me = pthread_self();
	if (__atomic_load_n(&owner, __ATOMIC_RELAXED) == me) {
		depth++;
		return;
	}
	mw_lock(&word);
	__atomic_store_n(&owner, me, __ATOMIC_RELAXED);
	depth = 1;
}

void mw_libc_unlock(void)
{
	if (--depth)
		return;
	__atomic_store_n(&owner, NULL, __ATOMIC_RELAXED);
	mw_unlock(&word);
}

#define LOCKED(T, name, params, args) \
	MW_LOCKED(mw_libc_lock, mw_libc_unlock, T, name, params, args)
#define LOCKED_VOID(name, params, args) \
	MW_LOCKED_VOID(mw_libc_lock, mw_libc_unlock, name, params, args)

/* ---- stdio -------------------------------------------------------------- */

LOCKED(FILE *, fopen, (const char *restrict p, const char *restrict m), (p, m))
LOCKED(FILE *, fdopen, (int fd, const char *m), (fd, m))
LOCKED(FILE *, freopen, (const char *restrict p, const char *restrict m, FILE *restrict f),
       (p, m, f))
LOCKED(int, fclose, (FILE *f), (f))
LOCKED(int, fflush, (FILE *f), (f))
LOCKED(size_t, fwrite, (const void *restrict b, size_t s, size_t n, FILE *restrict f),
       (b, s, n, f))
LOCKED(size_t, fread, (void *restrict b, size_t s, size_t n, FILE *restrict f), (b, s, n, f))
LOCKED(int, fputs, (const char *restrict s, FILE *restrict f), (s, f))
LOCKED(int, puts, (const char *s), (s))
LOCKED(int, fputc, (int c, FILE *f), (c, f))
LOCKED(int, putc, (int c, FILE *f), (c, f))
LOCKED(int, putchar, (int c), (c))
LOCKED(char *, fgets, (char *restrict s, int n, FILE *restrict f), (s, n, f))
LOCKED(int, fgetc, (FILE *f), (f))
LOCKED(int, getc, (FILE *f), (f))
LOCKED(int, getchar, (void), ())
LOCKED(int, ungetc, (int c, FILE *f), (c, f))
LOCKED(ssize_t, getline, (char **restrict l, size_t *restrict n, FILE *restrict f), (l, n, f))
LOCKED(ssize_t, getdelim, (char **restrict l, size_t *restrict n, int d, FILE *restrict f),
       (l, n, d, f))
LOCKED(int, fseek, (FILE *f, long o, int w), (f, o, w))
LOCKED(int, fseeko, (FILE *f, off_t o, int w), (f, o, w))
LOCKED(long, ftell, (FILE *f), (f))
LOCKED(off_t, ftello, (FILE *f), (f))
LOCKED_VOID(rewind, (FILE *f), (f))
LOCKED(int, setvbuf, (FILE *restrict f, char *restrict b, int m, size_t n), (f, b, m, n))
LOCKED_VOID(perror, (const char *s), (s))
LOCKED(int, vfprintf, (FILE *restrict f, const char *restrict fmt, va_list ap), (f, fmt, ap))
LOCKED(int, vfscanf, (FILE *restrict f, const char *restrict fmt, va_list ap), (f, fmt, ap))

/* The variadic ones become their v-forms, which are wrapped above. */
int __wrap_printf(const char *restrict fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = vfprintf(stdout, fmt, ap);
	va_end(ap);
	return r;
}

int __wrap_fprintf(FILE *restrict f, const char *restrict fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = vfprintf(f, fmt, ap);
	va_end(ap);
	return r;
}

int __wrap_vprintf(const char *restrict fmt, va_list ap)
{
	return vfprintf(stdout, fmt, ap);
}

int __wrap_scanf(const char *restrict fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = vfscanf(stdin, fmt, ap);
	va_end(ap);
	return r;
}

int __wrap_fscanf(FILE *restrict f, const char *restrict fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = vfscanf(f, fmt, ap);
	va_end(ap);
	return r;
}
