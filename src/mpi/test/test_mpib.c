/* test_mpib.c - calls the bridge's host functions as a module would (module
 * addresses into the stub memory) under mpirun -np 2. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <mpi.h>
#include "rt/host.h"
#include "mpi/mpib.h"
#include "mpi/abi.h"
#include "mpi/mpib_int.h"
typedef uint32_t u32;
static void *F(const char *n) { const rt_hostfn *h = rt_host_find("env", n); if (!h) { printf("missing %s\n", n); return 0; } return h->fn; }
static int pass, fail;
#define CHECK(c) do { if (c) pass++; else { fail++; printf("FAIL line %d: %s\n", __LINE__, #c); } } while (0)
int main(void) {
	mpib_register();
	uint8_t *m = rt_mem(0, 0, 0);
	u32 (*init)(void*,u32,u32) = F("MPI_Init");
	CHECK(init(0,0,0) == 0);
	u32 (*rank)(void*,u32,u32) = F("MPI_Comm_rank"), (*size)(void*,u32,u32) = F("MPI_Comm_size");
	CHECK(rank(0, MW_COMM_WORLD, 1024) == 0 && size(0, MW_COMM_WORLD, 1028) == 0);
	int me = *(int*)(m+1024), np = *(int*)(m+1028);
	CHECK(np == 2);
	/* send/recv of MPI_LONG (4 bytes in the module) with a status */
	u32 (*send)(void*,u32,u32,u32,u32,u32,u32) = F("MPI_Send");
	u32 (*recv)(void*,u32,u32,u32,u32,u32,u32,u32) = F("MPI_Recv");
	int32_t *buf = (int32_t*)(m+4096);
	if (me == 0) { for (int i=0;i<10;i++) buf[i]=i*7; CHECK(send(0,4096,10,MW_LONG,1,5,MW_COMM_WORLD)==0); }
	else { CHECK(recv(0,4096,10,MW_LONG,(u32)MW_ANY_SOURCE,(u32)MW_ANY_TAG,MW_COMM_WORLD,2048)==0);
	       int32_t *st=(int32_t*)(m+2048); CHECK(st[0]==0 && st[1]==5 && *(int64_t*)(m+2048+16)==40 && buf[9]==63);
	       u32 (*gc)(void*,u32,u32,u32)=F("MPI_Get_count"); CHECK(gc(0,2048,MW_INT,1100)==0 && *(int*)(m+1100)==10); }
	/* allreduce of DOUBLE_INT with MAXLOC: {double;int} 16 bytes */
	u32 (*allred)(void*,u32,u32,u32,u32,u32,u32) = F("MPI_Allreduce");
	*(double*)(m+8192) = me*1.5; *(int*)(m+8200) = me;
	CHECK(allred(0,8192,8208,1,MW_DOUBLE_INT,MW_MAXLOC,MW_COMM_WORLD)==0);
	CHECK(*(double*)(m+8208)==1.5 && *(int*)(m+8216)==1);
	/* in place sum */
	*(int*)(m+8300) = me+1;
	CHECK(allred(0,1,8300,1,MW_INT,MW_SUM,MW_COMM_WORLD)==0 && *(int*)(m+8300)==3);
	/* out-of-bounds buffer fails with MPI_ERR_BUFFER under ERRORS_RETURN and writes nothing */
	u32 (*seteh)(void*,u32,u32) = F("MPI_Comm_set_errhandler");
	CHECK(seteh(0,MW_COMM_WORLD,MW_ERRORS_RETURN)==0);
	CHECK(send(0,(1<<20)-8,4,MW_INT,(u32)MW_PROC_NULL,0,MW_COMM_WORLD)==MW_ERR_BUFFER);
	CHECK(send(0,(1<<20)-8,2,MW_INT,(u32)MW_PROC_NULL,0,MW_COMM_WORLD)==0);
	CHECK(send(0,0,1,99,(u32)MW_PROC_NULL,0,MW_COMM_WORLD)==MW_ERR_TYPE);
	CHECK(send(0,0,1,MW_INT,(u32)MW_PROC_NULL,0,77)==MW_ERR_COMM);
	/* PROC_NULL receive status */
	CHECK(recv(0,4096,1,MW_INT,(u32)MW_PROC_NULL,0,MW_COMM_WORLD,2048)==0 && *(int*)(m+2048)==MW_PROC_NULL);
	/* isend/irecv/waitall */
	u32 (*isend)(void*,u32,u32,u32,u32,u32,u32,u32)=F("MPI_Isend"), (*irecv)(void*,u32,u32,u32,u32,u32,u32,u32)=F("MPI_Irecv");
	u32 (*waitall)(void*,u32,u32,u32)=F("MPI_Waitall");
	*(int*)(m+12000)=100+me;
	CHECK(irecv(0,12004,1,MW_INT,1-me,9,MW_COMM_WORLD,12100)==0);
	CHECK(isend(0,12000,1,MW_INT,1-me,9,MW_COMM_WORLD,12104)==0);
	CHECK(waitall(0,2,12100,12200)==0);
	CHECK(*(int*)(m+12004)==101-me && *(int*)(m+12100)==MW_REQUEST_NULL && *(int*)(m+12104)==MW_REQUEST_NULL);
	CHECK(*(int*)(m+12200)==1-me && *(int64_t*)(m+12200+16)==4);
	/* comm split + dup + free; new comm inherits ERRORS_RETURN */
	u32 (*split)(void*,u32,u32,u32,u32)=F("MPI_Comm_split"), (*cfree)(void*,u32)=F("MPI_Comm_free");
	CHECK(split(0,MW_COMM_WORLD,me,0,13000)==0);
	u32 nc=*(u32*)(m+13000); CHECK(nc>=3);
	CHECK(size(0,nc,1028)==0 && *(int*)(m+1028)==1);
	CHECK(send(0,(1<<20)-8,4,MW_INT,(u32)MW_PROC_NULL,0,nc)==MW_ERR_BUFFER);
	CHECK(cfree(0,13000)==0 && *(u32*)(m+13000)==MW_COMM_NULL);
	/* vector type: extent check across the whole span */
	u32 (*vec)(void*,u32,u32,u32,u32,u32)=F("MPI_Type_vector"), (*commit)(void*,u32)=F("MPI_Type_commit");
	CHECK(vec(0,3,1,1000,MW_INT,14000)==0); CHECK(commit(0,14000)==0);
	u32 vt=*(u32*)(m+14000);
	CHECK(send(0,(1<<20)-8000,1,vt,(u32)MW_PROC_NULL,0,MW_COMM_WORLD)==MW_ERR_BUFFER);
	CHECK(send(0,(1<<20)-8004,1,vt,(u32)MW_PROC_NULL,0,MW_COMM_WORLD)==0);
	u32 (*ext)(void*,u32,u32,u32)=F("MPI_Type_get_extent");
	CHECK(ext(0,MW_LONG,15000,15004)==0 && *(int*)(m+15004)==4);
	CHECK(ext(0,MW_DOUBLE_INT,15000,15004)==0 && *(int*)(m+15004)==16);
	CHECK(ext(0,MW_LONG_INT,15000,15004)==0 && *(int*)(m+15004)==8);
	/* gatherv at root 0 */
	u32 (*gatherv)(void*,u32,u32,u32,u32,u32,u32,u32,u32,u32)=F("MPI_Gatherv");
	*(int*)(m+16000)=me*10; int *cnt=(int*)(m+16100), *dsp=(int*)(m+16200); cnt[0]=cnt[1]=1; dsp[0]=1; dsp[1]=0;
	CHECK(gatherv(0,16000,1,MW_INT,16300,16100,16200,MW_INT,0,MW_COMM_WORLD)==0);
	if (me==0) CHECK(*(int*)(m+16300)==10 && *(int*)(m+16304)==0);
	/* mpib_library names the host library and its version, as the host does */
	{ char lv[MPI_MAX_LIBRARY_VERSION_STRING]; int ln = 0; const char *lib = mpib_library();
	  const char *ver = strchr(lib, ' '); while (ver && strchr(ver + 1, ' ')) ver = strchr(ver + 1, ' ');
	  MPI_Get_library_version(lv, &ln);
	  CHECK((!strncmp(lib, "Open MPI ", 9) || !strncmp(lib, "MPICH ", 6)) && ver && strstr(lv, ver + 1)); }
	/* MPI-4 large counts: the type of n elements made of chunks (Open MPI
	 * 4.1 has no MPI_Type_contiguous_c) lays data out as contiguous(n):
	 * same size, bounds, true bounds and packed bytes, for small chunks
	 * (so real data can be packed) and odd old types (a negative lower
	 * bound; a strided vector). */
	{ MPI_Datatype olds[3], lbneg, vec;
	  int bl = 1; MPI_Aint d0 = 4;
	  MPI_Type_create_hindexed(1, &bl, &d0, MPI_INT, &lbneg);
	  MPI_Type_create_resized(lbneg, -4, 12, &olds[1]); MPI_Type_free(&lbneg);
	  MPI_Type_vector(2, 1, 3, MPI_SHORT, &vec); olds[2] = vec; olds[0] = MPI_INT;
	  static int32_t src[1024]; static char pa[4096], pb[4096];
	  for (int i = 0; i < 1024; i++) src[i] = i * 2654435761u;
	  const MPI_Count ns[] = { 0, 1, 6, 7, 8, 14, 23, 49 };
	  int same = 1, packed = 1;
	  for (int o = 0; o < 3; o++) for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
		MPI_Datatype a, b; MPI_Count sa, sb, la, lb, ea, eb, tla, tlb, tea, teb;
		CHECK(mw_bigc_split(ns[k], 7, olds[o], &a) == MPI_SUCCESS);
		MPI_Type_contiguous((int)ns[k], olds[o], &b);
		MPI_Type_commit(&a); MPI_Type_commit(&b);
		MPI_Type_size_x(a, &sa); MPI_Type_size_x(b, &sb);
		MPI_Type_get_extent_x(a, &la, &ea); MPI_Type_get_extent_x(b, &lb, &eb);
		MPI_Type_get_true_extent_x(a, &tla, &tea); MPI_Type_get_true_extent_x(b, &tlb, &teb);
		same &= sa == sb && la == lb && ea == eb && tla == tlb && tea == teb;
		int pa_n = 0, pb_n = 0; char *base = (char *)src + 64;
		MPI_Pack(base, 1, a, pa, sizeof pa, &pa_n, MPI_COMM_SELF);
		MPI_Pack(base, 1, b, pb, sizeof pb, &pb_n, MPI_COMM_SELF);
		packed &= pa_n == pb_n && !memcmp(pa, pb, (size_t)pa_n);
		MPI_Type_free(&a); MPI_Type_free(&b); }
	  CHECK(same); CHECK(packed);
	  MPI_Type_free(&olds[1]); MPI_Type_free(&vec);
	  /* Above INT_MAX: chunks of 2^30 (or the host's own _c procedure). */
	  MPI_Datatype big; MPI_Count s = 0, l = -1, e = 0;
	  CHECK(mw_bigc_contig(3000000005LL, MPI_BYTE, &big) == MPI_SUCCESS);
	  MPI_Type_size_x(big, &s); MPI_Type_get_extent_x(big, &l, &e);
	  CHECK(s == 3000000005LL && l == 0 && e == 3000000005LL); MPI_Type_free(&big);
	  CHECK(mw_bigc_split(3000000005LL, (MPI_Count)1 << 30, MPI_DOUBLE, &big) == MPI_SUCCESS);
	  MPI_Type_size_x(big, &s); MPI_Type_get_extent_x(big, &l, &e);
	  CHECK(s == 24000000040LL && l == 0 && e == 24000000040LL); MPI_Type_free(&big);
	  CHECK(mw_bigc_split(-1, 7, MPI_INT, &big) == MPI_ERR_COUNT); }
	/* The large-count host functions forward counts that fit; a larger
	 * count's buffer is checked against linear memory like any other
	 * (2^31 bytes at 17100 run past it: MPI_ERR_BUFFER, ERRORS_RETURN on
	 * COMM_WORLD), before any chunk or host call. */
	{ u32 (*tsz)(void*,u32,u32)=F("MPI_Type_size_c");
	  u32 (*ared)(void*,u32,u32,uint64_t,u32,u32,u32)=F("MPI_Allreduce_c");
	  u32 (*sendc)(void*,u32,uint64_t,u32,u32,u32,u32)=F("MPI_Send_c");
	  CHECK(tsz(0,MW_DOUBLE_INT,17000)==0 && *(int64_t*)(m+17000)==12);
	  CHECK(tsz(0,MW_INT,(1<<20)-4)==MW_ERR_ARG);
	  *(int*)(m+17100) = 1;
	  CHECK(ared(0,1,17100,1,MW_INT,MW_SUM,MW_COMM_WORLD)==0 && *(int*)(m+17100)==2);
	  CHECK(ared(0,1,17100,(uint64_t)1<<31,MW_BYTE,MW_BOR,MW_COMM_WORLD)==MW_ERR_BUFFER);
	  CHECK(sendc(0,17200,(uint64_t)1<<31,MW_BYTE,(u32)MW_PROC_NULL,0,MW_COMM_WORLD)==MW_ERR_BUFFER);
	  CHECK(sendc(0,17200,4,MW_BYTE,(u32)MW_PROC_NULL,0,MW_COMM_WORLD)==0); }
	u32 (*fin)(void*) = F("MPI_Finalize");
	CHECK(fin(0)==0);
	printf("rank %d: bridge-native: %d passed, %d failed\n", me, pass, fail);
	return fail != 0;
}
