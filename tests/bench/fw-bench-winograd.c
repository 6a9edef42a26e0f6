/* fw-bench-winograd: the F(2x2, 3x3) kernel (core/codegen/host/fw-host-winograd.c) against oneDNN's direct
 * convolution on the same descriptor, on resnet18's four 3x3 stride-1 shapes (batch 1, bias and Relu),
 * activations in nChw8c as the fused executor keeps them on AVX2 and plain as --measure feeds a kernel on
 * its own. Samples alternate between the two kernels; the figure is the median of the per-pair ratios
 * direct / Winograd (above 1: Winograd faster), the median times beside it. Prints, never fails: a shared
 * machine's timings say what they say. Skips (77) without oneDNN or without AVX2 and FMA.
 *
 *   build/tests/bench/fw-bench-winograd [THREADS]     (default 2) */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "codegen/host/fw-host-dnnl.h"
#include "codegen/host/fw-host-winograd.h"
#include "fw-bench-stats.h"

#define SAMPLES 15
#define CALLS   5

static double
sample (FwDnnlPrim *p, const float *src, float *dst, int layout, int threads)
{
  double t0 = fw_bench_now ();

  for (int i = 0; i < CALLS; i++)
    if (fw_dnnl_prim_run (p, src, NULL, dst, NULL, layout, threads) != 0)
      {
        fprintf (stderr, "fw-bench-winograd: a run failed\n");
        exit (1);
      }
  return (fw_bench_now () - t0) / CALLS;
}

int
main (int argc, char **argv)
{
  static const int shapes[4][2] = { { 64, 56 }, { 128, 28 }, { 256, 14 }, { 512, 7 } };
  int threads = argc > 1 ? atoi (argv[1]) : 2;

  if (fw_dnnl_library () == NULL)
    {
      printf ("SKIP: built without oneDNN\n");
      return 77;
    }
  printf ("%-22s %-7s %12s %12s %10s\n", "shape (C, HxW)", "layout", "direct_ms", "winograd_ms", "ratio");
  for (int s = 0; s < 4; s++)
    {
      gint64 C = shapes[s][0], H = shapes[s][1], wd[4] = { C, C, 3, 3 }, bd[1] = { C };
      g_autofree float *wv = g_new (float, C * C * 9), *bv = g_new (float, C);
      g_autofree float *src = g_new (float, C * H * H), *dst = g_new (float, C * H * H);
      g_autoptr(FwTensor) w = NULL, b = NULL;
      FwDnnlPrim *p[2];
      FwDnnlDesc d = { .kind = FW_DNNL_CONV, .n = 1, .c = C, .h = H, .w = H, .m = C, .oh = H, .ow = H, .kh = 3,
                       .kw = 3, .groups = 1, .sh = 1, .sw = 1, .dh = 1, .dw = 1, .pt = 1, .pl = 1, .pb = 1,
                       .pr = 1, .block = 8, .post = FW_DNNL_POST_RELU };

      for (gint64 i = 0; i < C * C * 9; i++)
        wv[i] = (float) (i % 7) * 0.01f - 0.03f;
      for (gint64 i = 0; i < C; i++)
        bv[i] = (float) (i % 3) * 0.1f;
      for (gint64 i = 0; i < C * H * H; i++)
        src[i] = (float) (i % 5) * 0.1f;
      w = fw_tensor_new_float (4, wd, wv);
      b = fw_tensor_new_float (1, bd, bv);
      d.weights = w;
      d.bias = b;
      if (s == 0 && !fw_winograd_fits (&d))
        {
          printf ("SKIP: no AVX2 with FMA on this CPU\n");
          return 77;
        }
      for (int k = 0; k < 2; k++)
        {
          g_autofree char *why = NULL;

          g_setenv ("FW_WINOGRAD", k == 0 ? "0" : "1", TRUE);
          p[k] = fw_dnnl_prim_new (&d, threads, &why);
          if (p[k] == NULL)
            {
              fprintf (stderr, "fw-bench-winograd: %s\n", why);
              return 1;
            }
        }
      g_unsetenv ("FW_WINOGRAD");
      for (int blocked = 1; blocked >= 0; blocked--)
        {
          int layout = blocked ? FW_DNNL_SRC_NHWC | FW_DNNL_DST_NHWC : 0;
          double a[SAMPLES], b2[SAMPLES], r[SAMPLES];

          sample (p[0], src, dst, layout, threads);
          sample (p[1], src, dst, layout, threads);
          for (int i = 0; i < SAMPLES; i++)
            {
              a[i] = sample (p[0], src, dst, layout, threads);
              b2[i] = sample (p[1], src, dst, layout, threads);
              r[i] = a[i] / b2[i];
            }
          printf ("%4" G_GINT64_FORMAT ", %3" G_GINT64_FORMAT "x%-3" G_GINT64_FORMAT " %-14s %-7s %12.3f %12.3f %9.2fx\n",
                  C, H, H, fw_dnnl_prim_get_impl (p[1]), blocked ? "nChw8c" : "plain",
                  fw_bench_median (a, SAMPLES) * 1e3, fw_bench_median (b2, SAMPLES) * 1e3,
                  fw_bench_median (r, SAMPLES));
        }
      fw_dnnl_prim_free (p[0]);
      fw_dnnl_prim_free (p[1]);
    }
  return 0;
}
