/* omp.h - the OpenMP API that libmpiwasm-omp implements (mpiwasm-cc
 * -fopenmp); see toolchain/README.md, "Threads: OpenMP".  A routine not
 * declared here is not provided: using it fails to compile or to link. */
#ifndef MPIWASM_OMP_H
#define MPIWASM_OMP_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum omp_sched_t {
	omp_sched_static = 1,
	omp_sched_dynamic = 2,
	omp_sched_guided = 3,
	omp_sched_auto = 4,
	omp_sched_monotonic = (int)0x80000000u
} omp_sched_t;

typedef struct omp_lock_t { int _lock; } omp_lock_t;
typedef struct omp_nest_lock_t { int _lock, _owner, _depth; } omp_nest_lock_t;

int omp_get_thread_num(void);
int omp_get_num_threads(void);
int omp_get_max_threads(void);
void omp_set_num_threads(int n);
int omp_in_parallel(void);
int omp_get_level(void);
int omp_get_active_level(void);
int omp_get_num_procs(void);
int omp_get_thread_limit(void);
int omp_get_dynamic(void);
void omp_set_dynamic(int on);
int omp_get_nested(void);
void omp_set_nested(int on);
int omp_get_max_active_levels(void);
void omp_set_max_active_levels(int n);
void omp_set_schedule(omp_sched_t kind, int chunk);
void omp_get_schedule(omp_sched_t *kind, int *chunk);
double omp_get_wtime(void);
double omp_get_wtick(void);

void omp_init_lock(omp_lock_t *l);
void omp_destroy_lock(omp_lock_t *l);
void omp_set_lock(omp_lock_t *l);
void omp_unset_lock(omp_lock_t *l);
int omp_test_lock(omp_lock_t *l);
void omp_init_nest_lock(omp_nest_lock_t *l);
void omp_destroy_nest_lock(omp_nest_lock_t *l);
void omp_set_nest_lock(omp_nest_lock_t *l);
void omp_unset_nest_lock(omp_nest_lock_t *l);
int omp_test_nest_lock(omp_nest_lock_t *l);

#ifdef __cplusplus
}
#endif
#endif
