/* test-winograd.c: the F(2x2, 3x3) convolution kernel (core/codegen/host/fw-host-winograd.c) against a
 * direct convolution summed in double, over shapes whose outputs leave half tiles, padded and unpadded
 * sources, batches, every layout of source, result and residual, a bias and a Relu; and which convolutions
 * it takes, through the oneDNN primitive it stands in for. No timing. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "codegen/host/fw-host-dnnl.h"
#include "codegen/host/fw-host-winograd.h"

typedef struct
{
  gint64   n, c, m, h, w, pad;
  gboolean bias, relu, residual;
  int      layout;  /* FwDnnlLayout */
} Case;

/* (n, c, y, x) of an NCHW tensor, in nChw8c when blocked. */
static gint64
at (gboolean blocked, gint64 C, gint64 H, gint64 W, gint64 n, gint64 c, gint64 y, gint64 x)
{
  if (!blocked)
    return ((n * C + c) * H + y) * W + x;
  return ((n * (C / 8) + c / 8) * H * W + y * W + x) * 8 + c % 8;
}

static float
value (GRand *rand)
{
  return (float) g_rand_double_range (rand, -1.0, 1.0);
}

static FwDnnlDesc
desc_of (const Case *k, FwTensor *w, FwTensor *b)
{
  FwDnnlDesc d = { .kind = FW_DNNL_CONV };

  d.n = k->n, d.c = k->c, d.h = k->h, d.w = k->w, d.m = k->m, d.kh = d.kw = 3, d.groups = 1;
  d.sh = d.sw = d.dh = d.dw = 1;
  d.pt = d.pl = d.pb = d.pr = k->pad;
  d.oh = k->h + 2 * k->pad - 2, d.ow = k->w + 2 * k->pad - 2;
  d.weights = w;
  d.bias = k->bias ? b : NULL;
  d.post = k->relu ? FW_DNNL_POST_RELU : FW_DNNL_POST_NONE;
  d.residual = k->residual;
  d.block = 8;
  return d;
}

/* The kernel's result against the direct sum, every element within the tolerance verification gives a root
 * that sums in another order (abs 1e-5 + 2·K·2⁻²⁴·max|x|·max|w|, rel 1e-4, K = 9C). */
static void
check_case (const Case *k, gboolean through_prim)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed ((guint32) (k->c * 31 + k->h + k->layout));
  gint64 wd[4] = { k->m, k->c, 3, 3 }, bd[1] = { k->m };
  gint64 oh = k->h + 2 * k->pad - 2, ow = k->w + 2 * k->pad - 2;
  gsize n_src = k->n * k->c * k->h * k->w, n_dst = k->n * k->m * oh * ow;
  g_autofree float *src = g_new (float, n_src), *wv = g_new (float, k->m * k->c * 9), *bv = g_new (float, k->m);
  g_autofree float *dst = g_new (float, n_dst), *res = g_new (float, n_dst);
  g_autoptr(FwTensor) w = NULL, b = NULL;
  gboolean sb = (k->layout & FW_DNNL_SRC_NHWC) != 0, db = (k->layout & FW_DNNL_DST_NHWC) != 0;
  gboolean rb = (k->layout & FW_DNNL_RESIDUAL_NHWC) != 0;
  gdouble bound = 2.0 * 9 * k->c * ldexp (1.0, -24), worst = 0;
  FwDnnlDesc d;

  for (gsize i = 0; i < n_src; i++)
    src[i] = value (rand);
  for (gint64 i = 0; i < k->m * k->c * 9; i++)
    wv[i] = 0.5f * value (rand);
  for (gint64 i = 0; i < k->m; i++)
    bv[i] = value (rand);
  for (gsize i = 0; i < n_dst; i++)
    res[i] = value (rand);
  w = fw_tensor_new_float (4, wd, wv);
  b = fw_tensor_new_float (1, bd, bv);
  d = desc_of (k, w, b);
  g_assert_true (fw_winograd_fits (&d));
  if (through_prim)
    {
      g_autofree char *why = NULL;
      FwDnnlPrim *p = fw_dnnl_prim_new (&d, 2, &why);

      g_assert_nonnull (p);
      g_assert_cmpstr (fw_dnnl_prim_get_impl (p), ==, FW_WINOGRAD_IMPL);
      g_assert_true (fw_dnnl_prim_channels_last (p) && fw_dnnl_prim_src_channels_last (p));
      g_assert_cmpint (fw_dnnl_prim_run (p, src, NULL, dst, k->residual ? res : NULL, k->layout, 2), ==, 0);
      fw_dnnl_prim_free (p);
    }
  else
    {
      FwWinograd *kern = fw_winograd_new (&d);

      g_assert_nonnull (kern);
      /* Twice: the second run reuses the first's buffer, and must not depend on what it left there. */
      for (gint r = 0; r < 2; r++)
        g_assert_cmpint (fw_winograd_run (kern, src, dst, k->residual ? res : NULL, k->layout, 2), ==, 0);
      fw_winograd_free (kern);
    }
  bound *= 1.0 * 0.5;  /* max|x| 1, max|w| ½ */
  for (gint64 n = 0; n < k->n; n++)
    for (gint64 m = 0; m < k->m; m++)
      for (gint64 y = 0; y < oh; y++)
        for (gint64 x = 0; x < ow; x++)
          {
            gdouble want = k->bias ? bv[m] : 0, got = dst[at (db, k->m, oh, ow, n, m, y, x)], err;

            for (gint64 c = 0; c < k->c; c++)
              for (gint64 i = 0; i < 3; i++)
                for (gint64 j = 0; j < 3; j++)
                  {
                    gint64 iy = y - k->pad + i, ix = x - k->pad + j;
                    if (iy >= 0 && iy < k->h && ix >= 0 && ix < k->w)
                      want += (gdouble) src[at (sb, k->c, k->h, k->w, n, c, iy, ix)] *
                              wv[((m * k->c + c) * 3 + i) * 3 + j];
                  }
            if (k->residual)
              want += res[at (rb, k->m, oh, ow, n, m, y, x)];
            if (k->relu)
              want = MAX (want, 0.0);
            err = fabs (got - want);
            worst = MAX (worst, err);
            if (err > 1e-5 + bound + 1e-4 * fabs (want))
              g_error ("n %" G_GINT64_FORMAT " m %" G_GINT64_FORMAT " y %" G_GINT64_FORMAT " x %" G_GINT64_FORMAT
                       ": %g, direct %g", n, m, y, x, got, want);
          }
  g_test_message ("worst error %g, bound %g", worst, 1e-5 + bound);
}

/* Whether this CPU runs the kernel (AVX2 with FMA); skips the test when not. */
static gboolean
available (void)
{
  static float one = 1;
  gint64 dims[1] = { 1 };
  g_autoptr(FwTensor) w = fw_tensor_new_float (1, dims, &one);
  FwDnnlDesc d = { .kind = FW_DNNL_CONV, .kh = 3, .kw = 3, .sh = 1, .sw = 1, .dh = 1, .dw = 1, .groups = 1, .n = 1,
                   .c = 8, .m = 16, .oh = 14, .ow = 14, .block = 8, .weights = w };

  if (fw_winograd_fits (&d))
    return TRUE;
  g_test_skip ("no AVX2 with FMA on this CPU");
  return FALSE;
}

/* 15x15 outputs (half tiles on both edges), padded, with a bias and a Relu, all plain. */
static void
test_plain (void)
{
  Case k = { 1, 8, 16, 15, 15, 1, TRUE, TRUE, FALSE, 0 };

  if (!available ())
    return;
  check_case (&k, FALSE);
}

/* Two images, unpadded (14x11 outputs), a blocked source into a plain result with a blocked residual. */
static void
test_mixed_layouts (void)
{
  Case k = { 2, 16, 32, 16, 13, 0, FALSE, FALSE, TRUE, FW_DNNL_SRC_NHWC | FW_DNNL_RESIDUAL_NHWC };

  if (!available ())
    return;
  check_case (&k, FALSE);
}

/* A ResNet block's second convolution as the fused executor runs it: everything in nChw8c, 24 input
 * channels, 14x14 with a residual and a Relu, through the primitive that stands for oneDNN's. */
static void
test_blocked_through_prim (void)
{
  Case k = { 1, 24, 16, 14, 14, 1, TRUE, TRUE, TRUE,
             FW_DNNL_SRC_NHWC | FW_DNNL_DST_NHWC | FW_DNNL_RESIDUAL_NHWC };

  if (fw_dnnl_library () == NULL)
    {
      g_test_skip ("built without oneDNN");
      return;
    }
  if (!available ())
    return;
  check_case (&k, TRUE);
}

/* Enough tiles that each thread transforms its own groups (two images of 20x20, 200 tiles, groups crossing
 * from one image into the next), nChw8c in and out with a plain residual. */
static void
test_local_groups (void)
{
  Case k = { 2, 16, 16, 20, 20, 1, TRUE, FALSE, TRUE, FW_DNNL_SRC_NHWC | FW_DNNL_DST_NHWC };

  if (!available ())
    return;
  check_case (&k, FALSE);
}

/* What it leaves to oneDNN: strides, dilations, groups, channel counts it does not block, outputs under
 * 14x14, other post-ops, weights read at each run, a graph not in nChw8c, and FW_WINOGRAD=0. */
static void
test_refuses (void)
{
  static float one = 1;
  gint64 dims[1] = { 1 };
  g_autoptr(FwTensor) w = fw_tensor_new_float (1, dims, &one);
  FwDnnlDesc ok = { .kind = FW_DNNL_CONV, .kh = 3, .kw = 3, .sh = 1, .sw = 1, .dh = 1, .dw = 1, .groups = 1, .n = 1,
                    .c = 16, .m = 32, .oh = 16, .ow = 16, .block = 8, .weights = w };
  FwDnnlDesc d;

  if (!available ())
    return;
  d = ok, d.sh = 2;
  g_assert_false (fw_winograd_fits (&d));
  d = ok, d.dw = 2;
  g_assert_false (fw_winograd_fits (&d));
  d = ok, d.groups = 2;
  g_assert_false (fw_winograd_fits (&d));
  d = ok, d.kh = d.kw = 1;
  g_assert_false (fw_winograd_fits (&d));
  d = ok, d.c = 12;
  g_assert_false (fw_winograd_fits (&d));
  d = ok, d.m = 24;
  g_assert_false (fw_winograd_fits (&d));
  d = ok, d.oh = d.ow = 13;
  g_assert_false (fw_winograd_fits (&d));
  d = ok, d.post = FW_DNNL_POST_GELU_ERF;
  g_assert_false (fw_winograd_fits (&d));
  d = ok, d.weights = NULL;
  g_assert_false (fw_winograd_fits (&d));
  d = ok, d.block = 0;
  g_assert_false (fw_winograd_fits (&d));
  d = ok, d.block = 16;
  g_assert_false (fw_winograd_fits (&d));
  g_setenv ("FW_WINOGRAD", "0", TRUE);
  g_assert_false (fw_winograd_fits (&ok));
  g_unsetenv ("FW_WINOGRAD");
  g_assert_true (fw_winograd_fits (&ok));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/codegen/host/winograd/plain", test_plain);
  g_test_add_func ("/core/codegen/host/winograd/mixed-layouts", test_mixed_layouts);
  g_test_add_func ("/core/codegen/host/winograd/blocked-through-prim", test_blocked_through_prim);
  g_test_add_func ("/core/codegen/host/winograd/local-groups", test_local_groups);
  g_test_add_func ("/core/codegen/host/winograd/refuses", test_refuses);
  return g_test_run ();
}
