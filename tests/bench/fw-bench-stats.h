/* fw-bench-stats.h: the clock and the median the kernel benchmarks (fw-bench-winograd, fw-bench-gemv)
 * print their alternating samples with. */
#pragma once

#include <stdlib.h>
#include <time.h>

static inline double
fw_bench_now (void)
{
  struct timespec t;

  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static inline int
fw_bench_compare (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* The median of n > 0 values (sorts them). */
static inline double
fw_bench_median (double *v, int n)
{
  qsort (v, n, sizeof *v, fw_bench_compare);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
