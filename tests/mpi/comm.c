/* Groups and communicators: group algebra, create/split/dup/compare,
 * Comm_split_type, names, intercommunicators (create, merge, remote
 * queries, an intercommunicator collective). */
#include "tmpi.h"

static int rank, size;

static void groups(void)
{
	MPI_Group world, evens, odds, u, in, diff, rng, ex;
	int i, n, r, res, ranks[16], tr[16], ne = (size + 1) / 2;

	OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
	OK(MPI_Group_size(world, &n));
	OK(MPI_Group_rank(world, &r));
	CHECK(n == size && r == rank);
	for (i = 0; i < ne; i++) ranks[i] = 2 * i;
	OK(MPI_Group_incl(world, ne, ranks, &evens));
	OK(MPI_Group_excl(world, ne, ranks, &odds));
	OK(MPI_Group_size(odds, &n));
	CHECK(n == size - ne);
	OK(MPI_Group_rank(evens, &r));
	CHECK(r == (rank % 2 ? MPI_UNDEFINED : rank / 2));
	OK(MPI_Group_union(odds, evens, &u));
	OK(MPI_Group_compare(u, world, &res));
	CHECK(res == (size > 2 ? MPI_SIMILAR : size == 2 ? MPI_SIMILAR : MPI_IDENT));
	OK(MPI_Group_intersection(evens, world, &in));
	OK(MPI_Group_compare(in, evens, &res));
	CHECK(res == MPI_IDENT);
	OK(MPI_Group_difference(world, evens, &diff));
	OK(MPI_Group_compare(diff, odds, &res));
	CHECK(res == MPI_IDENT);
	OK(MPI_Group_compare(evens, odds, &res));
	CHECK(res == MPI_UNEQUAL);
	int range[1][3] = {{size - 1, 0, -1}};  /* reversed world */
	OK(MPI_Group_range_incl(world, 1, range, &rng));
	for (i = 0; i < size; i++) ranks[i] = i;
	OK(MPI_Group_translate_ranks(rng, size, ranks, world, tr));
	CHECK(tr[0] == size - 1 && tr[size - 1] == 0);
	int range2[1][3] = {{0, size - 1, 2}};
	OK(MPI_Group_range_excl(world, 1, range2, &ex));
	OK(MPI_Group_compare(ex, odds, &res));
	CHECK(res == MPI_IDENT);
	OK(MPI_Group_translate_ranks(evens, 1, ranks, odds, tr));
	CHECK(tr[0] == MPI_UNDEFINED);
	tm_out("groups: evens %d odds %d", ne, size - ne);

	/* Comm_create from the evens group: odd ranks get MPI_COMM_NULL. */
	MPI_Comm ce;
	OK(MPI_Comm_create(MPI_COMM_WORLD, evens, &ce));
	if (rank % 2 == 0) {
		int s, x = 1;
		CHECK(ce != MPI_COMM_NULL);
		MPI_Comm_size(ce, &s);
		OK(MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, ce));
		CHECK(s == ne && x == ne);
		OK(MPI_Comm_free(&ce));
		CHECK(ce == MPI_COMM_NULL);
	} else {
		CHECK(ce == MPI_COMM_NULL);
	}
	MPI_Group *all[] = {&world, &evens, &odds, &u, &in, &diff, &rng, &ex};
	for (i = 0; i < 8; i++) { OK(MPI_Group_free(all[i])); CHECK(*all[i] == MPI_GROUP_NULL); }
	CHECK(MPI_GROUP_EMPTY != MPI_GROUP_NULL);
	OK(MPI_Group_size(MPI_GROUP_EMPTY, &n));
	CHECK(n == 0);
}

static void comms(void)
{
	MPI_Comm dup, split, shared, c3;
	int res, r, s, len;
	char name[MPI_MAX_OBJECT_NAME];

	OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
	OK(MPI_Comm_compare(dup, MPI_COMM_WORLD, &res));
	CHECK(res == MPI_CONGRUENT);
	OK(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &res));
	CHECK(res == MPI_IDENT);
	OK(MPI_Comm_set_name(dup, "my dup"));
	OK(MPI_Comm_get_name(dup, name, &len));
	CHECK(strcmp(name, "my dup") == 0 && len == 6);
	OK(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
	CHECK(strcmp(name, "MPI_COMM_WORLD") == 0);
	OK(MPI_Comm_get_name(MPI_COMM_SELF, name, &len));
	CHECK(strcmp(name, "MPI_COMM_SELF") == 0);

	/* split by parity, key reverses the order */
	OK(MPI_Comm_split(dup, rank % 2, -rank, &split));
	MPI_Comm_rank(split, &r);
	MPI_Comm_size(split, &s);
	CHECK(s == (rank % 2 ? size / 2 : (size + 1) / 2));
	tm_out("split color %d rank %d of %d", rank % 2, r, s);
	OK(MPI_Comm_compare(split, dup, &res));
	CHECK(res == (size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL));
	/* MPI_UNDEFINED color */
	OK(MPI_Comm_split(dup, rank == 0 ? MPI_UNDEFINED : 1, 0, &c3));
	CHECK((rank == 0) == (c3 == MPI_COMM_NULL));
	if (c3 != MPI_COMM_NULL) OK(MPI_Comm_free(&c3));

	/* all ranks of a test job share one node */
	OK(MPI_Comm_split_type(dup, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shared));
	MPI_Comm_size(shared, &s);
	CHECK(s == size);
	OK(MPI_Comm_split_type(dup, MPI_UNDEFINED, rank, MPI_INFO_NULL, &c3));
	CHECK(c3 == MPI_COMM_NULL);

	int inter = -1;
	OK(MPI_Comm_test_inter(dup, &inter));
	CHECK(inter == 0);
	OK(MPI_Comm_free(&shared));
	OK(MPI_Comm_free(&split));
	OK(MPI_Comm_free(&dup));
	CHECK(dup == MPI_COMM_NULL);
}

static void intercomms(void)
{
	MPI_Comm local, inter, merged;
	MPI_Group rg;
	int color = rank % 2, lr, rs, flag, r, s, gs, v;

	if (size < 2)
		return;
	OK(MPI_Comm_split(MPI_COMM_WORLD, color, rank, &local));
	MPI_Comm_rank(local, &lr);
	/* leaders: world rank 0 (evens) and 1 (odds) */
	OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - color, 77, &inter));
	OK(MPI_Comm_test_inter(inter, &flag));
	CHECK(flag == 1);
	OK(MPI_Comm_remote_size(inter, &rs));
	CHECK(rs == (color ? (size + 1) / 2 : size / 2));
	OK(MPI_Comm_remote_group(inter, &rg));
	OK(MPI_Group_size(rg, &gs));
	CHECK(gs == rs);
	MPI_Group_free(&rg);

	/* intercommunicator bcast: evens' rank 0 is the root */
	v = color == 0 && lr == 0 ? 4242 : -1;
	if (color == 0)
		OK(MPI_Bcast(&v, 1, MPI_INT, lr == 0 ? MPI_ROOT : MPI_PROC_NULL, inter));
	else
		OK(MPI_Bcast(&v, 1, MPI_INT, 0, inter));
	CHECK(color == 0 ? (lr == 0 ? v == 4242 : v == -1) : v == 4242);

	/* point-to-point across: local rank i talks to remote rank i */
	if (lr < rs && lr < (color ? size / 2 : (size + 1) / 2)) {
		int out = rank, in = -1;
		OK(MPI_Sendrecv(&out, 1, MPI_INT, lr, 5, &in, 1, MPI_INT, lr, 5, inter, MPI_STATUS_IGNORE));
		CHECK(in == (color ? 2 * lr : 2 * lr + 1));
	}

	/* merge: odds high, so evens come first */
	OK(MPI_Intercomm_merge(inter, color, &merged));
	MPI_Comm_rank(merged, &r);
	MPI_Comm_size(merged, &s);
	CHECK(s == size);
	CHECK(r == (color ? (size + 1) / 2 + lr : lr));
	tm_out("merged rank %d", r);
	OK(MPI_Comm_free(&merged));
	OK(MPI_Comm_free(&inter));
	OK(MPI_Comm_free(&local));
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	rank = tm_rank();
	size = tm_size();
	groups();
	comms();
	intercomms();
	int rc = tm_finish("comm");
	MPI_Finalize();
	return rc;
}
