/* fw-host-bench.h: the host's microbenchmarks, shared by the first-use probe (fw-host-probe.c) and the
 * calibration (fw-host-calibrate.c). Each returns what it timed; none decides what the numbers mean. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* STREAM's triad over arrays far larger than the caches on n_threads threads, best of a few passes, in
 * bytes/s (24 bytes an element, STREAM's convention); 0 if the memory is not there. */
double   fw_host_bench_triad        (guint n_threads);

/* The loops fw-host-calibrate.c times on one core, over n elements in the caches, repeated `repeats`
 * times: the interpreter's float loops for each class of elementwise work. */
typedef enum {
  FW_HOST_LOOP_MUL_ADD,      /* y = x·a + b */
  FW_HOST_LOOP_DIVIDE,       /* y = x / d */
  FW_HOST_LOOP_EXP,          /* y = expf (x) */
  FW_HOST_LOOP_ERF,          /* y = erff (x) */
  FW_HOST_LOOP_TANH,         /* y = tanhf (x) */
  FW_HOST_LOOP_POW,          /* y = powf (x, e), e one value, as Pow by a scalar exponent */
  FW_HOST_LOOP_LOG,          /* y = logf (x) over positive x */
  FW_HOST_LOOP_ROW_SUM,      /* one sum per row of 768, in one double accumulator */
} FwHostLoop;

/* Seconds the loop took, best of three. */
double   fw_host_bench_loop         (FwHostLoop loop,
                                     gsize      n,
                                     guint      repeats);
/* One call of a product c = a × b of row-major m×k by k×n floats; FALSE if it cannot run. */
typedef gboolean (*FwHostProductCall) (gpointer     data,
                                       guint        m,
                                       guint        n,
                                       guint        k,
                                       const float *a,
                                       const float *b,
                                       float       *c);
/* Seconds of one call on fixed operands (the same on every call, so weights call may keep), best of three
 * timings of at least 2 ms of calls after a first untimed one; 0 when a call fails. */
double   fw_host_bench_time_product (guint             m,
                                     guint             n,
                                     guint             k,
                                     FwHostProductCall call,
                                     gpointer          data);
/* Seconds of one float matrix product (m×k by k×n) through the interpreter's BLAS, best of three. */
double   fw_host_bench_sgemm        (guint m,
                                     guint n,
                                     guint k);
/* Seconds of one float product m×k by k×n, constant weights, through the producer a fused kernel's root
 * computes with, on n_threads threads (timed by fw_host_bench_time_product); 0 when it cannot. The host
 * target provides it (fw_dnnl_time_product, core/codegen/host: a layer above this one), and whoever runs
 * a calibration sets it, once, before (app/fw-main.c). */
typedef double (*FwHostProductTimer) (guint m,
                                      guint n,
                                      guint k,
                                      guint n_threads);
void     fw_host_bench_set_fused_product (FwHostProductTimer timer);
/* The timer's seconds, or fw_host_bench_sgemm's when none is set or it cannot (a build without oneDNN). */
double   fw_host_bench_fused_sgemm  (guint m,
                                     guint n,
                                     guint k,
                                     guint n_threads);
/* Seconds one empty OpenMP parallel region on n_threads takes to fork and join, and one barrier inside a
 * region, each averaged over `count`. */
double   fw_host_bench_fork_join    (guint n_threads,
                                     guint count);
double   fw_host_bench_barrier      (guint n_threads,
                                     guint count);

G_END_DECLS
