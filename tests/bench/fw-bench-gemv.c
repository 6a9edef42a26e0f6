/* fw-bench-gemv: the few-rows product kernel (core/codegen/host/fw-host-gemv.c) against oneDNN's matmul on
 * the same descriptor, on the classifier heads of the real models (batch 1: mobilenet_v3_small's 576x1024
 * and 1024x1000, resnet18's 512x1000, vit_b_16's 768x1000, resnet50's 2048x1000) and on two rows.
 * Each sample first streams a buffer larger than the last-level cache through, as a whole model's other
 * layers do between two runs of its classifier, so the weights come from memory; FW_BENCH_WARM=1 leaves
 * them in cache. Samples alternate between the two kernels; the figure is the median of the per-pair
 * ratios oneDNN / ours (above 1: ours faster), the median times beside it. Prints, never fails. Skips (77)
 * without oneDNN or without AVX2 and FMA.
 *
 *   build/tests/bench/fw-bench-gemv [THREADS]     (default 2) */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "codegen/host/fw-host-dnnl.h"
#include "codegen/host/fw-host-gemv.h"
#include "fw-bench-stats.h"

#define SAMPLES 21
#define FLUSH_FLOATS (64 << 20 >> 2)

static float *flush;

static double
sample (FwDnnlPrim *p, const float *src, float *dst, int threads, gboolean warm)
{
  double t0;

  if (!warm)
    for (gint64 i = 0; i < FLUSH_FLOATS; i += 16)
      flush[i] += 1.0f;
  t0 = fw_bench_now ();
  if (fw_dnnl_prim_run (p, src, NULL, dst, NULL, 0, threads) != 0)
    {
      fprintf (stderr, "fw-bench-gemv: a run failed\n");
      exit (1);
    }
  return fw_bench_now () - t0;
}

int
main (int argc, char **argv)
{
  static const int shapes[][3] = { { 1, 576, 1024 }, { 1, 1024, 1000 }, { 1, 512, 1000 }, { 1, 768, 1000 },
                                   { 1, 2048, 1000 }, { 2, 768, 1000 } };
  int threads = argc > 1 ? atoi (argv[1]) : 2;
  gboolean warm = g_strcmp0 (g_getenv ("FW_BENCH_WARM"), "1") == 0;

  if (fw_dnnl_library () == NULL)
    {
      printf ("SKIP: built without oneDNN\n");
      return 77;
    }
  flush = g_new0 (float, FLUSH_FLOATS);
  printf ("weights from %s, %d threads\n", warm ? "cache" : "memory", threads);
  printf ("%-18s %12s %12s %10s\n", "M x K x N", "onednn_us", "gemv_us", "ratio");
  for (guint s = 0; s < G_N_ELEMENTS (shapes); s++)
    {
      gint64 M = shapes[s][0], K = shapes[s][1], N = shapes[s][2], wd[2] = { K, N }, bd[1] = { N };
      g_autofree float *wv = g_new (float, K * N), *bv = g_new (float, N);
      g_autofree float *src = g_new (float, M * K), *dst = g_new (float, M * N);
      g_autoptr(FwTensor) w = NULL, b = NULL;
      double a[SAMPLES], g[SAMPLES], r[SAMPLES];
      FwDnnlPrim *p[2];
      FwDnnlDesc d = { .post = FW_DNNL_POST_HARD_SWISH };

      for (gint64 i = 0; i < K * N; i++)
        wv[i] = (float) (i % 7) * 0.01f - 0.03f;
      for (gint64 i = 0; i < N; i++)
        bv[i] = (float) (i % 3) * 0.1f;
      for (gint64 i = 0; i < M * K; i++)
        src[i] = (float) (i % 5) * 0.1f;
      w = fw_tensor_new_float (2, wd, wv);
      b = fw_tensor_new_float (1, bd, bv);
      fw_dnnl_desc_set_product (&d, M, K, N, FALSE, FALSE, 1.0f);
      d.weights = w;
      d.bias = b;
      if (s == 0 && !fw_gemv_fits (&d))
        {
          printf ("SKIP: no AVX2 with FMA on this CPU\n");
          return 77;
        }
      for (int k = 0; k < 2; k++)
        {
          g_autofree char *why = NULL;

          g_setenv ("FW_GEMV", k == 0 ? "0" : "1", TRUE);
          p[k] = fw_dnnl_prim_new (&d, threads, &why);
          if (p[k] == NULL)
            {
              fprintf (stderr, "fw-bench-gemv: %s\n", why);
              return 1;
            }
        }
      g_unsetenv ("FW_GEMV");
      sample (p[0], src, dst, threads, warm);
      sample (p[1], src, dst, threads, warm);
      for (int i = 0; i < SAMPLES; i++)
        {
          a[i] = sample (p[0], src, dst, threads, warm);
          g[i] = sample (p[1], src, dst, threads, warm);
          r[i] = a[i] / g[i];
        }
      printf ("%4" G_GINT64_FORMAT " x %4" G_GINT64_FORMAT " x %4" G_GINT64_FORMAT "   %12.1f %12.1f %9.2fx   (%s)\n",
              M, K, N, fw_bench_median (a, SAMPLES) * 1e6, fw_bench_median (g, SAMPLES) * 1e6, fw_bench_median (r, SAMPLES),
              fw_dnnl_prim_get_impl (p[0]));
      fw_dnnl_prim_free (p[0]);
      fw_dnnl_prim_free (p[1]);
    }
  g_free (flush);
  return 0;
}
