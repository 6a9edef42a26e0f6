/* fw-host-bench.c: the host's microbenchmarks (fw-host-bench.h). The elementwise loops are written as the
 * interpreter's (fw-kernels-elementwise.c: a contiguous "omp simd" loop over the C library's float
 * functions), so what they time is what an unfused op costs there. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "hw/fw-blas.h"
#include "hw/fw-host-bench.h"

/* Each triad array; three of them must dwarf the caches or the probe measures cache bandwidth. */
#define TRIAD_BYTES   (64u * 1024 * 1024)
#define TRIAD_REPEATS 3
#define MAX_THREADS   16
#define BEST_OF       3
#define ROW           768

typedef struct
{
  double *a, *b, *c;
  gsize   begin, end;
  gboolean init;
} TriadSlice;

static gpointer
triad_worker (gpointer data)
{
  TriadSlice *s = data;
  const double scalar = 3.0;

  if (s->init)
    {
      /* First touch from the thread that will use the pages, so they land on its NUMA node. */
      for (gsize i = s->begin; i < s->end; i++)
        {
          s->a[i] = 0.0;
          s->b[i] = 1.0;
          s->c[i] = 2.0;
        }
      return NULL;
    }
  for (gsize i = s->begin; i < s->end; i++)
    s->a[i] = s->b[i] + scalar * s->c[i];
  return NULL;
}

static gint64
triad_pass (double *a, double *b, double *c, gsize n, guint n_threads, gboolean init)
{
  TriadSlice slices[MAX_THREADS];
  GThread *threads[MAX_THREADS] = { NULL };
  gint64 start = g_get_monotonic_time ();

  for (guint i = 0; i < n_threads; i++)
    {
      slices[i] = (TriadSlice) { a, b, c, n * i / n_threads, n * (i + 1) / n_threads, init };
      if (i > 0)
        threads[i] = g_thread_try_new ("fw-probe", triad_worker, &slices[i], NULL);
    }
  triad_worker (&slices[0]);
  for (guint i = 1; i < n_threads; i++)
    {
      if (threads[i])
        g_thread_join (threads[i]);
      else
        triad_worker (&slices[i]);
    }
  return g_get_monotonic_time () - start;
}

/* STREAM's triad a = b + s·c over arrays much larger than the caches, on all CPUs, best of a few passes;
 * STREAM's convention counts 24 bytes per element (two reads, one write). 0 if the memory is not there. */
double
fw_host_bench_triad (guint n_threads)
{
  gsize n = TRIAD_BYTES / sizeof (double);
  g_autofree double *a = g_try_new (double, n);
  g_autofree double *b = g_try_new (double, n);
  g_autofree double *c = g_try_new (double, n);
  gint64 best = G_MAXINT64;
  volatile double sink;

  if (!a || !b || !c)
    return 0;
  n_threads = CLAMP (n_threads, 1, MAX_THREADS);
  triad_pass (a, b, c, n, n_threads, TRUE);
  for (guint r = 0; r < TRIAD_REPEATS; r++)
    best = MIN (best, triad_pass (a, b, c, n, n_threads, FALSE));
  /* Reading a result keeps the compiler from dropping the passes as dead stores. */
  sink = a[n / 2];
  (void) sink;
  return best <= 0 ? 0 : 3.0 * sizeof (double) * n / (best * 1e-6);
}

/* Volatile, so the compiler can neither fold the loops nor hoist them out from between the clock readings. */
static volatile float loop_scale = 0.999f;
static volatile float loop_shift = 1e-3f;
/* LayerNorm's square, the Pow every exported norm has. */
static volatile float loop_exponent = 2.0f;

static G_GNUC_NO_INLINE void
run_loop (FwHostLoop loop, const float *x, float *y, gsize n)
{
  const float a = loop_scale, b = loop_shift, d = 1.0f + loop_shift, e = loop_exponent;

  switch (loop)
    {
    case FW_HOST_LOOP_MUL_ADD:
#pragma omp simd
      for (gsize i = 0; i < n; i++)
        y[i] = x[i] * a + b;
      break;
    case FW_HOST_LOOP_DIVIDE:
#pragma omp simd
      for (gsize i = 0; i < n; i++)
        y[i] = x[i] / d;
      break;
    case FW_HOST_LOOP_EXP:
#pragma omp simd
      for (gsize i = 0; i < n; i++)
        y[i] = expf (x[i]);
      break;
    case FW_HOST_LOOP_ERF:
#pragma omp simd
      for (gsize i = 0; i < n; i++)
        y[i] = erff (x[i]);
      break;
    case FW_HOST_LOOP_TANH:
#pragma omp simd
      for (gsize i = 0; i < n; i++)
        y[i] = tanhf (x[i]);
      break;
    case FW_HOST_LOOP_POW:
#pragma omp simd
      for (gsize i = 0; i < n; i++)
        y[i] = powf (x[i], e);
      break;
    case FW_HOST_LOOP_LOG:
#pragma omp simd
      for (gsize i = 0; i < n; i++)
        y[i] = logf (x[i] + 2.5f);
      break;
    case FW_HOST_LOOP_ROW_SUM:
      /* One double accumulator a row, as the reference's reductions and a float32 SuperKernel's sum
         (fw-kernels-reduce-loops.h, fw-host-region.c): a chain of dependent adds, an add's latency an element.
         The vectorised float sum this had timed ran about five times faster, and the cost model priced
         bert_like's ReduceMeans at 13 µs where they took 40. */
      for (gsize r = 0; r < n / ROW; r++)
        {
          double s = 0;
          for (gsize i = 0; i < ROW; i++)
            s += (double) x[r * ROW + i];
          y[r] = (float) s;
        }
      break;
    default:
      g_assert_not_reached ();
    }
}

double
fw_host_bench_loop (FwHostLoop loop, gsize n, guint repeats)
{
  g_autofree float *x = g_new (float, n);
  g_autofree float *y = g_new0 (float, n);
  gint64 best = G_MAXINT64;
  volatile float sink;

  /* Inputs in [-2, 2): where exp, erf and tanh take their ordinary paths, as activations do. */
  for (gsize i = 0; i < n; i++)
    x[i] = (float) ((i * 7919) % 4096) / 1024.0f - 2.0f;
  run_loop (loop, x, y, n);
  for (guint b = 0; b < BEST_OF; b++)
    {
      gint64 start = g_get_monotonic_time ();
      for (guint r = 0; r < repeats; r++)
        run_loop (loop, x, y, n);
      best = MIN (best, g_get_monotonic_time () - start);
    }
  sink = y[n / 2];
  (void) sink;
  return MAX (best, 1) * 1e-6;
}

/* A product's timing lasts at least this long: a 64³ product takes microseconds, which one clock reading
 * against another cannot time to a few percent. */
#define SGEMM_MIN_SECONDS 2e-3

double
fw_host_bench_time_product (guint m, guint n, guint k, FwHostProductCall call, gpointer data)
{
  g_autofree float *a = g_new (float, (gsize) m * k);
  g_autofree float *b = g_new (float, (gsize) k * n);
  g_autofree float *c = g_new0 (float, (gsize) m * n);
  gint64 start, best = G_MAXINT64;
  guint calls;

  for (gsize i = 0; i < (gsize) m * k; i++)
    a[i] = (float) (i % 17) * 0.01f;
  for (gsize i = 0; i < (gsize) k * n; i++)
    b[i] = (float) (i % 13) * 0.01f;
  /* The first call pays for the BLAS thread pool's start, or the primitive's making and the weights'
     reorder; it is not what a model's products pay. */
  if (!call (data, m, n, k, a, b, c))
    return 0;
  start = g_get_monotonic_time ();
  call (data, m, n, k, a, b, c);
  calls = (guint) CLAMP (SGEMM_MIN_SECONDS / (MAX (g_get_monotonic_time () - start, 1) * 1e-6), 1.0, 10000.0);
  for (guint r = 0; r < BEST_OF; r++)
    {
      start = g_get_monotonic_time ();
      for (guint i = 0; i < calls; i++)
        call (data, m, n, k, a, b, c);
      best = MIN (best, g_get_monotonic_time () - start);
    }
  return MAX (best, 1) * 1e-6 / calls;
}

static gboolean
blas_product (gpointer data, guint m, guint n, guint k, const float *a, const float *b, float *c)
{
  (void) data;
  fw_blas_sgemm (FALSE, FALSE, (gint) m, (gint) n, (gint) k, 1.0f, a, (gint) k, b, (gint) n, 0.0f, c, (gint) n);
  return TRUE;
}

double
fw_host_bench_sgemm (guint m, guint n, guint k)
{
  return fw_host_bench_time_product (m, n, k, blas_product, NULL);
}

static FwHostProductTimer fused_timer;

void
fw_host_bench_set_fused_product (FwHostProductTimer timer)
{
  fused_timer = timer;
}

double
fw_host_bench_fused_sgemm (guint m, guint n, guint k, guint n_threads)
{
  double seconds = fused_timer != NULL ? fused_timer (m, n, k, n_threads) : 0;

  return seconds > 0 ? seconds : fw_host_bench_sgemm (m, n, k);
}

static volatile int region_sink;

double
fw_host_bench_fork_join (guint n_threads, guint count)
{
  gint64 start, best = G_MAXINT64;

  for (guint b = 0; b <= BEST_OF; b++)
    {
      start = g_get_monotonic_time ();
      for (guint i = 0; i < count; i++)
        {
#pragma omp parallel num_threads (n_threads)
          region_sink = 1;
        }
      /* The first round starts the OpenMP pool, which a model's run has long done. */
      if (b > 0)
        best = MIN (best, g_get_monotonic_time () - start);
    }
  return MAX (best, 1) * 1e-6 / MAX (count, 1);
}

double
fw_host_bench_barrier (guint n_threads, guint count)
{
  gint64 start, best = G_MAXINT64;

  for (guint b = 0; b <= BEST_OF; b++)
    {
      start = g_get_monotonic_time ();
#pragma omp parallel num_threads (n_threads)
      for (guint i = 0; i < count; i++)
        {
#pragma omp barrier
        }
      if (b > 0)
        best = MIN (best, g_get_monotonic_time () - start);
    }
  /* The region's own fork and join are in the total; over `count` barriers they are a small part. */
  return MAX (best, 1) * 1e-6 / MAX (count, 1);
}
