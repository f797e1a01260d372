/* io_sandbox.c - wasm only: MPI-IO stays inside the directories granted to
 * the module.  run.sh grants /rw (read-write) and /ro (read-only), puts
 * outside.txt next to them (argv[1] is its host path) and a symlink
 * /rw/link_out to it, and checks afterwards that nothing outside the
 * grants was touched.  With argument "fatal" the first escape happens
 * under MPI_ERRORS_ARE_FATAL and must end the job naming the path; with
 * "fatalbuf" a write from a buffer that runs off linear memory must end
 * it naming MPI_File_write_at. */
#include "tmpi.h"

static int cls(int rc)
{
	int c = rc;
	MPI_Error_class(rc, &c);
	return c;
}

/* An open that must fail on every rank with class want. */
static void refused_open(const char *path, int amode, int want)
{
	MPI_File fh = MPI_FILE_NULL;
	int rc = MPI_File_open(MPI_COMM_WORLD, path, amode, MPI_INFO_NULL, &fh);
	if (cls(rc) != want)
		tm_out("open %s: class %d, expected %d", path, cls(rc), want);
	CHECK(cls(rc) == want);
	CHECK(fh == MPI_FILE_NULL);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank = tm_rank(), size = tm_size(), rc;
	const char *outside = argc > 1 ? argv[1] : "/nonexistent";
	MPI_File fh;
	if (argc > 2 && !strcmp(argv[2], "fatal")) {
		MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_ARE_FATAL);
		MPI_File_open(MPI_COMM_WORLD, "/rw/../outside.txt", MPI_MODE_RDWR,
		              MPI_INFO_NULL, &fh);
		printf("survived\n");
		MPI_Finalize();
		return 0;
	}
	if (argc > 2 && !strcmp(argv[2], "fatalbuf")) {
		MPI_File_open(MPI_COMM_WORLD, "/rw/fatal.dat", MPI_MODE_CREATE | MPI_MODE_RDWR,
		              MPI_INFO_NULL, &fh);
		MPI_File_set_errhandler(fh, MPI_ERRORS_ARE_FATAL);
		char *far = (char *)(__UINTPTR_TYPE__)(__builtin_wasm_memory_size(0) * 65536 - 16);
		MPI_File_write_at(fh, 0, far, 64, MPI_INT, MPI_STATUS_IGNORE);
		printf("survived\n");
		MPI_Finalize();
		return 0;
	}
	refused_open("/rw/../outside.txt", MPI_MODE_RDWR, MPI_ERR_ACCESS);
	refused_open("/rw/../outside.txt", MPI_MODE_RDONLY, MPI_ERR_ACCESS);
	refused_open(outside, MPI_MODE_RDONLY, MPI_ERR_ACCESS);
	refused_open("/etc/passwd", MPI_MODE_RDONLY, MPI_ERR_ACCESS);
	refused_open("/rw/link_out", MPI_MODE_RDWR, MPI_ERR_ACCESS);
	refused_open("/rw/link_out", MPI_MODE_RDONLY, MPI_ERR_ACCESS);
	refused_open("/rw/../escaped_new.txt", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_ERR_ACCESS);
	refused_open("relative_new.txt", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_ERR_ACCESS);
	refused_open("/ro/ro.txt", MPI_MODE_RDWR, MPI_ERR_READ_ONLY);
	refused_open("/ro/new.txt", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_ERR_READ_ONLY);
	/* One rank's name escapes: the open fails on all, nobody hangs. */
	{
		const char *mine = rank == size - 1 ? "/rw/../outside.txt" : "/rw/mixed.dat";
		fh = MPI_FILE_NULL;
		rc = MPI_File_open(MPI_COMM_WORLD, mine, MPI_MODE_CREATE | MPI_MODE_RDWR,
		                   MPI_INFO_NULL, &fh);
		CHECK(rc != MPI_SUCCESS);
		CHECK(fh == MPI_FILE_NULL);
	}
	/* Reading below the read-only grant works. */
	{
		char text[8] = "";
		MPI_Status st;
		int n = 0;
		OK(MPI_File_open(MPI_COMM_WORLD, "/ro/ro.txt", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
		OK(MPI_File_read_at_all(fh, 0, text, 2, MPI_CHAR, &st));
		MPI_Get_count(&st, MPI_CHAR, &n);
		CHECK(n == 2 && text[0] == 'r' && text[1] == 'o');
		OK(MPI_File_close(&fh));
	}
	/* MPI_MODE_DELETE_ON_CLOSE below the read-only grant: the open is
	 * refused on every rank (the file could not be deleted) and ro.txt
	 * stays; in /rw the file is gone after the close. */
	refused_open("/ro/ro.txt", MPI_MODE_RDONLY | MPI_MODE_DELETE_ON_CLOSE, MPI_ERR_READ_ONLY);
	{
		char text[8] = "";
		OK(MPI_File_open(MPI_COMM_WORLD, "/ro/ro.txt", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
		OK(MPI_File_read_at_all(fh, 0, text, 2, MPI_CHAR, MPI_STATUS_IGNORE));
		CHECK(text[0] == 'r' && text[1] == 'o');
		OK(MPI_File_close(&fh));
		OK(MPI_File_open(MPI_COMM_WORLD, "/rw/doc.dat", MPI_MODE_CREATE | MPI_MODE_RDWR |
		                 MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
		OK(MPI_File_close(&fh));
		refused_open("/rw/doc.dat", MPI_MODE_RDONLY, MPI_ERR_NO_SUCH_FILE);
	}
	/* Deletes: outside, through the link, below the read-only grant. */
	if (rank == 0) {
		CHECK(cls(MPI_File_delete("/rw/../outside.txt", MPI_INFO_NULL)) == MPI_ERR_ACCESS);
		CHECK(cls(MPI_File_delete(outside, MPI_INFO_NULL)) == MPI_ERR_ACCESS);
		CHECK(cls(MPI_File_delete("/rw/link_out/", MPI_INFO_NULL)) != MPI_SUCCESS);
		CHECK(cls(MPI_File_delete("/ro/ro.txt", MPI_INFO_NULL)) == MPI_ERR_READ_ONLY);
	}
	/* Bounds: a buffer running off linear memory is refused, naming the
	 * procedure (the file's handler returns). */
	{
		OK(MPI_File_open(MPI_COMM_WORLD, "/rw/bounds.dat", MPI_MODE_CREATE | MPI_MODE_RDWR,
		                 MPI_INFO_NULL, &fh));
		char *far = (char *)(__UINTPTR_TYPE__)(__builtin_wasm_memory_size(0) * 65536 - 16);
		CHECK(cls(MPI_File_write_at(fh, 0, far, 64, MPI_INT, MPI_STATUS_IGNORE)) == MPI_ERR_BUFFER);
		CHECK(cls(MPI_File_read_at_all(fh, 0, far, 64, MPI_INT, MPI_STATUS_IGNORE)) == MPI_ERR_BUFFER);
		MPI_Request req;
		CHECK(cls(MPI_File_iwrite(fh, far, 64, MPI_INT, &req)) == MPI_ERR_BUFFER);
		CHECK(cls(MPI_File_get_size(fh, (MPI_Offset *)far + 8)) == MPI_ERR_ARG);
		CHECK(cls(MPI_File_get_size(12345, NULL)) == MPI_ERR_FILE);
		OK(MPI_File_close(&fh));
		MPI_Barrier(MPI_COMM_WORLD);
		if (rank == 0)
			OK(MPI_File_delete("/rw/bounds.dat", MPI_INFO_NULL));
	}
	/* A nonblocking independent read that reaches past the end of the
	 * file completes with the count it read (Open MPI 4.1's ompio alone
	 * never completes it: tests/fuzz-bridge/open/iread-eof-hang.c; the
	 * bridge reads at initiation).  A file of 3 ints per rank. */
	{
		char name[32];
		int w[3] = { 7, 8, 9 }, got[8], n = -1, flag = 0;
		MPI_Request req;
		MPI_Status st;
		snprintf(name, sizeof name, "/rw/eof%d.dat", rank);
		OK(MPI_File_open(MPI_COMM_SELF, name, MPI_MODE_CREATE | MPI_MODE_RDWR |
		                 MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
		OK(MPI_File_write_at(fh, 0, w, 3, MPI_INT, MPI_STATUS_IGNORE));
		memset(got, 0, sizeof got);
		OK(MPI_File_iread(fh, got, 8, MPI_INT, &req));
		OK(MPI_Wait(&req, &st));
		MPI_Get_count(&st, MPI_INT, &n);
		CHECK(n == 3 && got[0] == 7 && got[2] == 9 && got[3] == 0);
		CHECK(req == MPI_REQUEST_NULL);
		/* the individual pointer moved by what was read: nothing is left */
		OK(MPI_File_iread(fh, got, 8, MPI_INT, &req));
		OK(MPI_Wait(&req, &st));
		MPI_Get_count(&st, MPI_INT, &n);
		CHECK(n == 0);
		memset(got, 0, sizeof got);
		OK(MPI_File_iread_at(fh, 4, got, 8, MPI_INT, &req));
		while (!flag)
			OK(MPI_Test(&req, &flag, &st));
		MPI_Get_count(&st, MPI_INT, &n);
		CHECK(n == 2 && got[0] == 8 && got[1] == 9);
		memset(got, 0, sizeof got);
		OK(MPI_File_iread_shared(fh, got, 8, MPI_INT, &req));
		OK(MPI_Waitall(1, &req, &st));
		MPI_Get_count(&st, MPI_INT, &n);
		CHECK(n == 3 && got[0] == 7 && got[2] == 9);
		/* a read within the file: the whole count */
		OK(MPI_File_iread_at(fh, 0, got, 2, MPI_INT, &req));
		OK(MPI_Wait(&req, &st));
		MPI_Get_count(&st, MPI_INT, &n);
		CHECK(n == 2);
		int cancelled = 1;
		MPI_Test_cancelled(&st, &cancelled);
		CHECK(cancelled == 0);
		/* no host bytes in the status: source and tag MPI_UNDEFINED, as
		 * MPICH's ROMIO gives natively (Open MPI's ompio leaves stack
		 * bytes there) */
		st.MPI_SOURCE = st.MPI_TAG = -77;
		OK(MPI_File_iread_at(fh, 0, got, 2, MPI_INT, &req));
		OK(MPI_Wait(&req, &st));
		CHECK(st.MPI_SOURCE == MPI_UNDEFINED && st.MPI_TAG == MPI_UNDEFINED);
		OK(MPI_File_close(&fh));
	}
	rc = tm_finish("io_sandbox");
	MPI_Finalize();
	return rc;
}
