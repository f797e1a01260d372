/* fam_io.c - MPI-IO: every MPI_File_* procedure of MPI-3.1 but
 * MPI_Register_datarep.  Files live in fam_io.d/, a relative directory that
 * tests/mpi/run.sh creates and grants to the module (--dir fam_io.d), and
 * the native run uses from the same working directory. */
#include "tmpi.h"

#define N 8
static const char *blocks = "fam_io.d/blocks.dat";
static const char *shared = "fam_io.d/shared.dat";

static int handler_calls, handler_code;
static void on_error(MPI_File *f, int *code, ...)
{
	(void)f;
	handler_calls++;
	handler_code = *code;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* MPI_DISPLACEMENT_CURRENT on a sequential file: the new view starts where
 * the shared file pointer is, and the pointer restarts there. */
static void setview_current(int rank, int size)
{
	static const char *seq = "fam_io.d/seq.dat";
	MPI_File fh;
	MPI_Offset disp = -1;
	MPI_Datatype et, ft;
	MPI_Request req;
	char rep[MPI_MAX_DATAREP_STRING];
	int v[2] = { rank, rank }, i, bad = 0, *all;

	if (rank == 0)
		MPI_File_delete(seq, MPI_INFO_NULL);
	MPI_Barrier(MPI_COMM_WORLD);
	OK(MPI_File_open(MPI_COMM_WORLD, seq, MPI_MODE_CREATE | MPI_MODE_WRONLY |
	                 MPI_MODE_SEQUENTIAL, MPI_INFO_NULL, &fh));
	/* the default view (bytes): ROMIO takes no other displacement than
	 * MPI_DISPLACEMENT_CURRENT on a sequential file */
	OK(MPI_File_write_ordered(fh, v, 2, MPI_INT, MPI_STATUS_IGNORE));
	v[0] = 50 + rank;
	OK(MPI_File_iwrite_shared(fh, v, 1, MPI_INT, &req));
	OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
	MPI_Barrier(MPI_COMM_WORLD);
	OK(MPI_File_set_view(fh, MPI_DISPLACEMENT_CURRENT, MPI_INT, MPI_INT, "native",
	                     MPI_INFO_NULL));
	OK(MPI_File_get_view(fh, &disp, &et, &ft, rep));
	tm_out("set_view(MPI_DISPLACEMENT_CURRENT) after 3 ints a rank: displacement %s",
	       disp == (MPI_Offset)(12 * size) ? "12 bytes a rank" : "WRONG");
	v[0] = 100 + rank;
	OK(MPI_File_write_ordered(fh, v, 1, MPI_INT, MPI_STATUS_IGNORE));
	OK(MPI_File_close(&fh));
	all = malloc(sizeof(int) * 4 * (size_t)size);
	OK(MPI_File_open(MPI_COMM_WORLD, seq, MPI_MODE_RDONLY | MPI_MODE_DELETE_ON_CLOSE,
	                 MPI_INFO_NULL, &fh));
	OK(MPI_File_read_at_all(fh, 0, all, 4 * size, MPI_INT, MPI_STATUS_IGNORE));
	for (i = 0; i < size; i++)
		bad += all[2 * i] != i || all[2 * i + 1] != i || all[3 * size + i] != 100 + i;
	CHECK(bad == 0);
	tm_out("after the new view, the data went %s", bad ? "to the WRONG place" : "after the old");
	free(all);
	OK(MPI_File_close(&fh));
}

/* The status of a file access carries its count; MPI_SOURCE, MPI_TAG and
 * MPI_ERROR stay as the program left them (both libraries natively; the
 * bridge once wrote the host status's stack bytes there, an address of
 * the host among them).  The split collectives' _end: the count only
 * (Open MPI leaves stack bytes in the others natively). */
static void status_fields(int rank, int size)
{
	static const char *name = "fam_io.d/status.dat";
	MPI_File fh;
	MPI_Status st;
	int v[4] = { rank, rank, rank, rank }, got[4], n, bad = 0;
#define FILL(s) ((s).MPI_SOURCE = -77, (s).MPI_TAG = -88, (s).MPI_ERROR = -99)
#define KEPT(s, want) do { MPI_Get_count(&(s), MPI_INT, &n); \
	bad += (s).MPI_SOURCE != -77 || (s).MPI_TAG != -88 || (s).MPI_ERROR != -99 || n != (want); } while (0)
	OK(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR |
	                 MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
	FILL(st); OK(MPI_File_write_at(fh, (MPI_Offset)rank * 16, v, 4, MPI_INT, &st)); KEPT(st, 4);
	FILL(st); OK(MPI_File_write_at_all(fh, (MPI_Offset)rank * 16, v, 4, MPI_INT, &st)); KEPT(st, 4);
	MPI_File_sync(fh); MPI_Barrier(MPI_COMM_WORLD); MPI_File_sync(fh);   /* all written */
	FILL(st); OK(MPI_File_read_at(fh, (MPI_Offset)rank * 16, got, 4, MPI_INT, &st)); KEPT(st, 4);
	FILL(st); OK(MPI_File_read_at_all(fh, (MPI_Offset)rank * 16, got, 4, MPI_INT, &st)); KEPT(st, 4);
	/* a short read at the end of the file */
	FILL(st); OK(MPI_File_read_at(fh, (MPI_Offset)size * 16 - 8, got, 4, MPI_INT, &st)); KEPT(st, 2);
	OK(MPI_File_seek(fh, (MPI_Offset)rank * 16, MPI_SEEK_SET));
	FILL(st); OK(MPI_File_read(fh, got, 2, MPI_INT, &st)); KEPT(st, 2);
	FILL(st); OK(MPI_File_read_all(fh, got, 2, MPI_INT, &st)); KEPT(st, 2);
	OK(MPI_File_seek(fh, (MPI_Offset)rank * 16, MPI_SEEK_SET));
	FILL(st); OK(MPI_File_write(fh, v, 2, MPI_INT, &st)); KEPT(st, 2);
	FILL(st); OK(MPI_File_write_all(fh, v, 2, MPI_INT, &st)); KEPT(st, 2);
	FILL(st); OK(MPI_File_read_ordered(fh, got, 1, MPI_INT, &st)); KEPT(st, 1);
	FILL(st); OK(MPI_File_write_ordered(fh, v, 1, MPI_INT, &st)); KEPT(st, 1);
	FILL(st); OK(MPI_File_read_shared(fh, got, 1, MPI_INT, &st)); KEPT(st, 1);
	MPI_Barrier(MPI_COMM_WORLD);
	FILL(st); OK(MPI_File_write_shared(fh, v, 1, MPI_INT, &st)); KEPT(st, 1);
	MPI_Barrier(MPI_COMM_WORLD);
	OK(MPI_File_read_at_all_begin(fh, (MPI_Offset)rank * 16, got, 3, MPI_INT));
	OK(MPI_File_read_at_all_end(fh, got, &st));
	MPI_Get_count(&st, MPI_INT, &n);
	bad += n != 3;
	OK(MPI_File_close(&fh));
	CHECK(bad == 0);
	tm_out("statuses of file accesses: %s", bad ? "source, tag or error CHANGED" :
	       "count set, source, tag and error as the program left them");
#undef FILL
#undef KEPT
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank = tm_rank(), size = tm_size(), i, n;
	int buf[4 * N], got[4 * N], amode, flag;
	MPI_File fh, fh2;
	MPI_Status st;
	MPI_Request req;
	MPI_Offset off, sz;
	MPI_Errhandler eh;

	OK(MPI_File_get_errhandler(MPI_FILE_NULL, &eh));
	CHECK(eh == MPI_ERRORS_RETURN);
	if (rank == 0) {
		MPI_File_delete(blocks, MPI_INFO_NULL);   /* left over: fine if absent */
		MPI_File_delete(shared, MPI_INFO_NULL);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	/* A missing file without MPI_MODE_CREATE fails on every rank. */
	CHECK(MPI_File_open(MPI_COMM_WORLD, blocks, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) != MPI_SUCCESS);

	OK(MPI_File_open(MPI_COMM_WORLD, blocks, MPI_MODE_CREATE | MPI_MODE_RDWR,
	                 MPI_INFO_NULL, &fh));
	OK(MPI_File_get_amode(fh, &amode));
	CHECK(amode == (MPI_MODE_CREATE | MPI_MODE_RDWR));
	{
		MPI_Group g, w;
		int cmp = -1;
		OK(MPI_File_get_group(fh, &g));
		MPI_Comm_group(MPI_COMM_WORLD, &w);
		MPI_Group_compare(g, w, &cmp);
		CHECK(cmp == MPI_IDENT);
		MPI_Group_free(&g);
		MPI_Group_free(&w);
		MPI_Info info, used;
		MPI_Info_create(&info);
		MPI_Info_set(info, "access_style", "read_mostly");
		OK(MPI_File_set_info(fh, info));
		MPI_Info_free(&info);
		OK(MPI_File_get_info(fh, &used));
		CHECK(used != MPI_INFO_NULL);
		MPI_Info_free(&used);
	}
	OK(MPI_File_get_atomicity(fh, &flag));
	CHECK(flag == 0);
	OK(MPI_File_set_atomicity(fh, 1));
	OK(MPI_File_get_atomicity(fh, &flag));
	CHECK(flag == 1);
	OK(MPI_File_set_atomicity(fh, 0));
	CHECK(MPI_File_f2c(MPI_File_c2f(fh)) == fh);

	/* Each rank writes its block, collectively. */
	for (i = 0; i < N; i++)
		buf[i] = rank * 100 + i;
	OK(MPI_File_write_at_all(fh, (MPI_Offset)rank * N * 4, buf, N, MPI_INT, &st));
	MPI_Get_count(&st, MPI_INT, &n);
	CHECK(n == N);
	OK(MPI_File_sync(fh));
	MPI_Barrier(MPI_COMM_WORLD);
	OK(MPI_File_sync(fh));
	OK(MPI_File_get_size(fh, &sz));
	CHECK(sz == (MPI_Offset)size * N * 4);
	tm_out("file size %lld", (long long)sz);

	/* A cyclic view: rank r sees ints r, r+size, r+2*size, ... */
	{
		MPI_Datatype vec, ftype, et, ft;
		MPI_Offset disp;
		MPI_Aint lb, ext, fext;
		char rep[MPI_MAX_DATAREP_STRING];
		MPI_Type_vector(1, 1, 1, MPI_INT, &vec);
		MPI_Type_create_resized(vec, 0, (MPI_Aint)size * 4, &ftype);
		MPI_Type_commit(&ftype);
		MPI_Type_free(&vec);
		OK(MPI_File_set_view(fh, (MPI_Offset)rank * 4, MPI_INT, ftype, "native", MPI_INFO_NULL));
		OK(MPI_File_get_view(fh, &disp, &et, &ft, rep));
		CHECK(disp == (MPI_Offset)rank * 4);
		CHECK(et == MPI_INT);
		CHECK(strcmp(rep, "native") == 0);
		MPI_Type_get_extent(ft, &lb, &ext);
		CHECK(ext == (MPI_Aint)size * 4);
		MPI_Type_free(&ft);
		OK(MPI_File_get_type_extent(fh, MPI_INT, &fext));
		CHECK(fext == 4);
		OK(MPI_File_get_byte_offset(fh, 2, &off));
		CHECK(off == (MPI_Offset)rank * 4 + 2 * size * 4);
		memset(got, 0, sizeof got);
		OK(MPI_File_read_all(fh, got, N, MPI_INT, &st));
		MPI_Get_count(&st, MPI_INT, &n);
		CHECK(n == N);
		int bad = 0;
		for (i = 0; i < N; i++) {
			int k = rank + i * size;
			bad += got[i] != (k / N) * 100 + k % N;
		}
		CHECK(bad == 0);
		tm_out("view read: %d %d ... %d", got[0], got[1], got[N - 1]);
		OK(MPI_File_get_position(fh, &off));
		CHECK(off == N);
		OK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
		OK(MPI_File_read(fh, got, 2, MPI_INT, &st));
		CHECK(got[1] == ((rank + size) / N) * 100 + (rank + size) % N);
		OK(MPI_File_seek(fh, -1, MPI_SEEK_CUR));
		OK(MPI_File_get_position(fh, &off));
		CHECK(off == 1);
		MPI_Type_free(&ftype);
	}
	/* Back to bytes: nonblocking explicit offsets past the blocks. */
	OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
	OK(MPI_File_seek(fh, 0, MPI_SEEK_END));
	OK(MPI_File_get_position(fh, &off));
	CHECK(off == (MPI_Offset)size * N * 4);
	MPI_Barrier(MPI_COMM_WORLD);   /* before anyone makes the file longer */
	MPI_Offset base = (MPI_Offset)size * N * 4;
	for (i = 0; i < N; i++)
		buf[i] = 1000 + rank * 10 + i;
	OK(MPI_File_iwrite_at(fh, base + rank * N * 4, buf, N, MPI_INT, &req));
	OK(MPI_Wait(&req, &st));
	MPI_Get_count(&st, MPI_INT, &n);
	CHECK(n == N);
	MPI_File_sync(fh); MPI_Barrier(MPI_COMM_WORLD); MPI_File_sync(fh);
	int peer = (rank + 1) % size;
	OK(MPI_File_iread_at(fh, base + peer * N * 4, got, N, MPI_INT, &req));
	OK(MPI_Wait(&req, &st));
	CHECK(got[0] == 1000 + peer * 10 && got[N - 1] == 1000 + peer * 10 + N - 1);
	/* Nonblocking collectives, explicit offset and individual pointer. */
	base += (MPI_Offset)size * N * 4;
	for (i = 0; i < N; i++)
		buf[i] = 2000 + rank * 10 + i;
	OK(MPI_File_iwrite_at_all(fh, base + rank * N * 4, buf, N, MPI_INT, &req));
	OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
	MPI_File_sync(fh); MPI_Barrier(MPI_COMM_WORLD); MPI_File_sync(fh);
	OK(MPI_File_iread_at_all(fh, base + peer * N * 4, got, N, MPI_INT, &req));
	OK(MPI_Wait(&req, &st));
	CHECK(got[3] == 2000 + peer * 10 + 3);
	base += (MPI_Offset)size * N * 4;
	for (i = 0; i < N; i++)
		buf[i] = 3000 + rank * 10 + i;
	OK(MPI_File_seek(fh, base + rank * N * 4, MPI_SEEK_SET));
	OK(MPI_File_iwrite(fh, buf, N / 2, MPI_INT, &req));
	OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
	OK(MPI_File_iwrite_all(fh, buf + N / 2, N / 2, MPI_INT, &req));
	OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
	OK(MPI_File_get_position(fh, &off));
	CHECK(off == base + (rank + 1) * N * 4);
	MPI_File_sync(fh); MPI_Barrier(MPI_COMM_WORLD); MPI_File_sync(fh);
	OK(MPI_File_seek(fh, base + peer * N * 4, MPI_SEEK_SET));
	OK(MPI_File_iread(fh, got, N / 2, MPI_INT, &req));
	OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
	OK(MPI_File_iread_all(fh, got + N / 2, N / 2, MPI_INT, &req));
	OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
	CHECK(got[0] == 3000 + peer * 10 && got[N - 1] == 3000 + peer * 10 + N - 1);
	/* Blocking individual and explicit-offset forms. */
	base += (MPI_Offset)size * N * 4;
	OK(MPI_File_seek(fh, base + rank * 8, MPI_SEEK_SET));
	OK(MPI_File_write(fh, &rank, 1, MPI_INT, MPI_STATUS_IGNORE));
	OK(MPI_File_write_at(fh, base + rank * 8 + 4, &peer, 1, MPI_INT, MPI_STATUS_IGNORE));
	MPI_File_sync(fh); MPI_Barrier(MPI_COMM_WORLD); MPI_File_sync(fh);
	OK(MPI_File_read_at(fh, base + peer * 8, got, 2, MPI_INT, &st));
	CHECK(got[0] == peer && got[1] == (peer + 1) % size);
	OK(MPI_File_read_at_all(fh, base + peer * 8, got, 1, MPI_INT, &st));
	CHECK(got[0] == peer);
	OK(MPI_File_seek(fh, base + peer * 8, MPI_SEEK_SET));
	OK(MPI_File_read(fh, got, 1, MPI_INT, &st));
	CHECK(got[0] == peer);
	/* Split collectives. */
	base += (MPI_Offset)size * 8;
	for (i = 0; i < N; i++)
		buf[i] = 4000 + rank * 10 + i;
	OK(MPI_File_write_at_all_begin(fh, base + rank * N * 4, buf, N, MPI_INT));
	OK(MPI_File_write_at_all_end(fh, buf, &st));
	MPI_Get_count(&st, MPI_INT, &n);
	CHECK(n == N);
	MPI_File_sync(fh); MPI_Barrier(MPI_COMM_WORLD); MPI_File_sync(fh);
	OK(MPI_File_read_at_all_begin(fh, base + peer * N * 4, got, N, MPI_INT));
	OK(MPI_File_read_at_all_end(fh, got, &st));
	CHECK(got[5] == 4000 + peer * 10 + 5);
	base += (MPI_Offset)size * N * 4;
	OK(MPI_File_seek(fh, base + rank * N * 4, MPI_SEEK_SET));
	for (i = 0; i < N; i++)
		buf[i] = 5000 + rank * 10 + i;
	OK(MPI_File_write_all_begin(fh, buf, N, MPI_INT));
	OK(MPI_File_write_all_end(fh, buf, MPI_STATUS_IGNORE));
	MPI_File_sync(fh); MPI_Barrier(MPI_COMM_WORLD); MPI_File_sync(fh);
	OK(MPI_File_seek(fh, base + peer * N * 4, MPI_SEEK_SET));
	OK(MPI_File_read_all_begin(fh, got, N, MPI_INT));
	OK(MPI_File_read_all_end(fh, got, MPI_STATUS_IGNORE));
	CHECK(got[7] == 5000 + peer * 10 + 7);
	/* Sizes. */
	MPI_Barrier(MPI_COMM_WORLD);
	OK(MPI_File_set_size(fh, 100));
	OK(MPI_File_get_size(fh, &sz));
	CHECK(sz == 100);
	MPI_Barrier(MPI_COMM_WORLD);
	OK(MPI_File_preallocate(fh, 4096));
	OK(MPI_File_get_size(fh, &sz));
	CHECK(sz == 4096);
	MPI_Barrier(MPI_COMM_WORLD);
	OK(MPI_File_set_size(fh, 10));
	OK(MPI_File_get_size(fh, &sz));
	CHECK(sz == 10);
	/* Error handlers: a module function on this file, called by the
	 * program and by a failing call. */
	{
		MPI_Errhandler mine, cur;
		OK(MPI_File_create_errhandler(on_error, &mine));
		OK(MPI_File_set_errhandler(fh, mine));
		OK(MPI_File_get_errhandler(fh, &cur));
		CHECK(cur == mine);
		MPI_Errhandler_free(&cur);
		OK(MPI_File_call_errhandler(fh, MPI_ERR_OTHER));
		CHECK(handler_calls == 1 && handler_code == MPI_ERR_OTHER);
		CHECK(MPI_File_read(fh, got, 1, MPI_DATATYPE_NULL, MPI_STATUS_IGNORE) != MPI_SUCCESS);
		CHECK(handler_calls == 2);
		OK(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN));
		MPI_Errhandler_free(&mine);
	}
	OK(MPI_File_close(&fh));
	CHECK(fh == MPI_FILE_NULL);
	/* MPI_MODE_EXCL on an existing file fails everywhere. */
	CHECK(MPI_File_open(MPI_COMM_WORLD, blocks, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_WRONLY,
	                    MPI_INFO_NULL, &fh) != MPI_SUCCESS);
	/* MPI_MODE_APPEND: every pointer starts at the end. */
	OK(MPI_File_open(MPI_COMM_WORLD, blocks, MPI_MODE_APPEND | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
	OK(MPI_File_get_position(fh, &off));
	CHECK(off == 10);
	OK(MPI_File_get_position_shared(fh, &off));
	CHECK(off == 10);
	OK(MPI_File_close(&fh));
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		OK(MPI_File_delete(blocks, MPI_INFO_NULL));
	MPI_Barrier(MPI_COMM_WORLD);
	CHECK(MPI_File_open(MPI_COMM_WORLD, blocks, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) != MPI_SUCCESS);

	/* Shared file pointer, in a file deleted when closed. */
	OK(MPI_File_open(MPI_COMM_WORLD, shared, MPI_MODE_CREATE | MPI_MODE_RDWR |
	                 MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh2));
	OK(MPI_File_set_view(fh2, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
	int v = 100 + rank, all[64];
	OK(MPI_File_write_shared(fh2, &v, 1, MPI_INT, &st));
	MPI_Get_count(&st, MPI_INT, &n);
	CHECK(n == 1);
	MPI_File_sync(fh2); MPI_Barrier(MPI_COMM_WORLD); MPI_File_sync(fh2);
	OK(MPI_File_get_position_shared(fh2, &off));
	CHECK(off == size);
	MPI_Barrier(MPI_COMM_WORLD);
	OK(MPI_File_read_at(fh2, 0, all, size, MPI_INT, &st));
	qsort(all, (size_t)size, sizeof all[0], cmp_int);
	for (i = 0; i < size; i++)
		CHECK(all[i] == 100 + i);
	OK(MPI_File_seek_shared(fh2, 0, MPI_SEEK_SET));
	OK(MPI_File_read_shared(fh2, &v, 1, MPI_INT, &st));
	MPI_Allgather(&v, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
	qsort(all, (size_t)size, sizeof all[0], cmp_int);
	for (i = 0; i < size; i++)
		CHECK(all[i] == 100 + i);
	MPI_Barrier(MPI_COMM_WORLD);
	OK(MPI_File_get_position_shared(fh2, &off));
	CHECK(off == size);
	MPI_Barrier(MPI_COMM_WORLD);
	/* Ordered: rank r writes r+1 copies of r, in rank order. */
	OK(MPI_File_seek_shared(fh2, 0, MPI_SEEK_SET));
	for (i = 0; i <= rank; i++)
		buf[i] = rank;
	OK(MPI_File_write_ordered(fh2, buf, rank + 1, MPI_INT, &st));
	MPI_Get_count(&st, MPI_INT, &n);
	CHECK(n == rank + 1);
	OK(MPI_File_get_position_shared(fh2, &off));
	CHECK(off == size * (size + 1) / 2);
	MPI_File_sync(fh2); MPI_Barrier(MPI_COMM_WORLD); MPI_File_sync(fh2);
	OK(MPI_File_seek_shared(fh2, 0, MPI_SEEK_SET));
	memset(got, -1, sizeof got);
	OK(MPI_File_read_ordered(fh2, got, rank + 1, MPI_INT, &st));
	for (i = 0, n = 0; i <= rank; i++)
		n += got[i] != rank;
	CHECK(n == 0);
	OK(MPI_File_seek_shared(fh2, 1, MPI_SEEK_CUR));
	OK(MPI_File_get_position_shared(fh2, &off));
	CHECK(off == size * (size + 1) / 2 + 1);
	MPI_Barrier(MPI_COMM_WORLD);
	OK(MPI_File_seek_shared(fh2, 0, MPI_SEEK_END));
	OK(MPI_File_get_position_shared(fh2, &off));
	CHECK(off == size * (size + 1) / 2);
	MPI_Barrier(MPI_COMM_WORLD);
	/* Ordered split collectives, then nonblocking shared accesses. */
	OK(MPI_File_seek_shared(fh2, 0, MPI_SEEK_SET));
	for (i = 0; i < 2; i++)
		buf[i] = 50 + rank;
	OK(MPI_File_write_ordered_begin(fh2, buf, 2, MPI_INT));
	OK(MPI_File_write_ordered_end(fh2, buf, &st));
	MPI_File_sync(fh2); MPI_Barrier(MPI_COMM_WORLD); MPI_File_sync(fh2);
	OK(MPI_File_seek_shared(fh2, 0, MPI_SEEK_SET));
	OK(MPI_File_read_ordered_begin(fh2, got, 2, MPI_INT));
	OK(MPI_File_read_ordered_end(fh2, got, &st));
	MPI_Get_count(&st, MPI_INT, &n);
	CHECK(n == 2 && got[0] == 50 + rank && got[1] == 50 + rank);
	OK(MPI_File_seek_shared(fh2, 0, MPI_SEEK_SET));
	v = 700 + rank;
	OK(MPI_File_iwrite_shared(fh2, &v, 1, MPI_INT, &req));
	OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
	MPI_File_sync(fh2); MPI_Barrier(MPI_COMM_WORLD); MPI_File_sync(fh2);
	OK(MPI_File_seek_shared(fh2, 0, MPI_SEEK_SET));
	OK(MPI_File_iread_shared(fh2, &v, 1, MPI_INT, &req));
	OK(MPI_Wait(&req, &st));
	MPI_Allgather(&v, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
	qsort(all, (size_t)size, sizeof all[0], cmp_int);
	for (i = 0, n = 0; i < size; i++)
		n += all[i] != 700 + i;
	CHECK(n == 0);
	tm_out("shared pointer ok: %d ranks", size);
	OK(MPI_File_close(&fh2));
	MPI_Barrier(MPI_COMM_WORLD);
	/* DELETE_ON_CLOSE removed it. */
	CHECK(MPI_File_open(MPI_COMM_WORLD, shared, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh2) != MPI_SUCCESS);

	setview_current(rank, size);
	status_fields(rank, size);

	int rc = tm_finish("fam_io");
	MPI_Finalize();
	return rc;
}
