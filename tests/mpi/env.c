/* Environment and info objects: init/finalize queries, thread levels,
 * version, processor name, timers, predefined attributes, MPI_Info. */
#include "tmpi.h"

int main(int argc, char **argv)
{
	int flag = -1, provided = -1, level = -1, ver, sub, len, rank, size, i;
	char name[MPI_MAX_PROCESSOR_NAME], lib[MPI_MAX_LIBRARY_VERSION_STRING];
	char key[MPI_MAX_INFO_KEY + 1], val[64];
	void *attr;
	MPI_Info info, dup;
	double t0, t1;

	MPI_Initialized(&flag);
	int before = flag;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	rank = tm_rank();
	size = tm_size();
	CHECK(before == 0);
	MPI_Initialized(&flag);
	CHECK(flag == 1);
	MPI_Finalized(&flag);
	CHECK(flag == 0);
	CHECK(provided >= MPI_THREAD_SINGLE && provided <= MPI_THREAD_MULTIPLE);
	OK(MPI_Query_thread(&level));
	CHECK(level == provided);
	OK(MPI_Is_thread_main(&flag));
	CHECK(flag == 1);
	CHECK(MPI_THREAD_SINGLE < MPI_THREAD_FUNNELED && MPI_THREAD_FUNNELED <
	      MPI_THREAD_SERIALIZED && MPI_THREAD_SERIALIZED < MPI_THREAD_MULTIPLE);

	OK(MPI_Get_version(&ver, &sub));
	CHECK(ver >= 3 && sub >= 0);
	OK(MPI_Get_library_version(lib, &len));
	CHECK(len > 0 && len <= MPI_MAX_LIBRARY_VERSION_STRING && (int)strlen(lib) >= len - 1);
	OK(MPI_Get_processor_name(name, &len));
	CHECK(len > 0 && len < MPI_MAX_PROCESSOR_NAME && (int)strlen(name) == len);

	t0 = MPI_Wtime();
	CHECK(MPI_Wtick() > 0.0 && MPI_Wtick() < 1.0);
	t1 = MPI_Wtime();
	CHECK(t1 >= t0);

	OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &attr, &flag));
	CHECK(flag && *(int *)attr >= 32767);
	OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &attr, &flag));
	CHECK(!flag || *(int *)attr == 0 || *(int *)attr == 1);
	OK(MPI_Pcontrol(0));

	OK(MPI_Info_create(&info));
	OK(MPI_Info_set(info, "alpha", "1"));
	OK(MPI_Info_set(info, "beta", "two"));
	OK(MPI_Info_set(info, "alpha", "one"));  /* replaces */
	OK(MPI_Info_get_nkeys(info, &len));
	CHECK(len == 2);
	for (i = 0; i < len; i++) {
		int vlen;
		OK(MPI_Info_get_nthkey(info, i, key));
		OK(MPI_Info_get_valuelen(info, key, &vlen, &flag));
		CHECK(flag);
		OK(MPI_Info_get(info, key, (int)sizeof val - 1, val, &flag));
		CHECK(flag && (int)strlen(val) == vlen);
		if (rank == 0)
			tm_out("info %s=%s", key, val);
	}
	OK(MPI_Info_dup(info, &dup));
	OK(MPI_Info_delete(dup, "alpha"));
	OK(MPI_Info_get_nkeys(dup, &len));
	CHECK(len == 1);
	OK(MPI_Info_get(dup, "alpha", (int)sizeof val - 1, val, &flag));
	CHECK(flag == 0);
	OK(MPI_Info_get(info, "alpha", (int)sizeof val - 1, val, &flag));
	CHECK(flag == 1 && strcmp(val, "one") == 0);
	OK(MPI_Info_free(&dup));
	CHECK(dup == MPI_INFO_NULL);
	OK(MPI_Info_free(&info));
	CHECK(info == MPI_INFO_NULL);

	tm_out("rank %d of %d", rank, size);
	int rc = tm_finish("env");
	MPI_Finalize();
	MPI_Finalized(&flag);
	if (rank == 0)
		printf("finalized %d\n", flag);
	return rc;
}
