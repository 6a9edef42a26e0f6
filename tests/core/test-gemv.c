/* test-gemv.c: the few-rows product kernel (core/codegen/host/fw-host-gemv.c) against products summed in
 * double: one and two rows, odd and even K, N not a multiple of the 16-column panel, transposed and strided
 * operands, alpha, a bias and every post-op, on one thread and two; and which products it takes, through
 * the oneDNN primitive it stands in for. No timing. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "codegen/host/fw-host-dnnl.h"
#include "codegen/host/fw-host-gemv.h"

typedef struct
{
  gint64     M, K, N;
  gboolean   trans_a, trans_b, bias;
  float      alpha;
  FwDnnlPost post;
  int        threads;
} Case;

static float
value (GRand *rand)
{
  return (float) g_rand_double_range (rand, -1.0, 1.0);
}

static gdouble
post_of (FwDnnlPost post, gdouble x)
{
  switch (post)
    {
    case FW_DNNL_POST_RELU:
      return MAX (x, 0.0);
    case FW_DNNL_POST_GELU_ERF:
      return 0.5 * x * (1.0 + erf (x / G_SQRT2));
    case FW_DNNL_POST_HARD_SIGMOID:
      return CLAMP (0.2 * x + 0.5, 0.0, 1.0);
    case FW_DNNL_POST_HARD_SWISH:
      return x * CLAMP (x / 6.0 + 0.5, 0.0, 1.0);
    case FW_DNNL_POST_NONE:
    default:
      return x;
    }
}

/* The kernel's result against the sum in double, every element within the tolerance verification gives a
 * root that sums in another order (abs 1e-5 + 2·K·2⁻²⁴·max|a|·max|w|·|alpha|, rel 1e-4). */
static void
check_case (const Case *k, gboolean through_prim)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed ((guint32) (k->M * 131 + k->K * 7 + k->N + k->post));
  gint64 wd[2] = { k->trans_b ? k->N : k->K, k->trans_b ? k->K : k->N }, bd[1] = { k->N };
  g_autofree float *a = g_new (float, k->M * k->K), *wv = g_new (float, k->K * k->N), *bv = g_new (float, k->N);
  g_autofree float *dst = g_new (float, k->M * k->N);
  g_autoptr(FwTensor) w = NULL, b = NULL;
  gdouble bound = 1e-5 + 2.0 * k->K * ldexp (1.0, -24) * fabs (k->alpha), worst = 0;
  FwDnnlDesc d = { .post = k->post, .post_alpha = 0.2f, .post_beta = 0.5f };

  for (gint64 i = 0; i < k->M * k->K; i++)
    a[i] = value (rand);
  for (gint64 i = 0; i < k->K * k->N; i++)
    wv[i] = value (rand);
  for (gint64 i = 0; i < k->N; i++)
    bv[i] = value (rand);
  w = fw_tensor_new_float (2, wd, wv);
  b = fw_tensor_new_float (1, bd, bv);
  fw_dnnl_desc_set_product (&d, k->M, k->K, k->N, k->trans_a, k->trans_b, k->alpha);
  d.weights = w;
  d.bias = k->bias ? b : NULL;
  g_assert_true (fw_gemv_fits (&d));
  for (gint64 i = 0; i < k->M * k->N; i++)
    dst[i] = NAN;
  if (through_prim)
    {
      g_autofree char *why = NULL;
      FwDnnlPrim *p = fw_dnnl_prim_new (&d, k->threads, &why);

      g_assert_nonnull (p);
      g_assert_cmpstr (fw_dnnl_prim_get_impl (p), ==, FW_GEMV_IMPL);
      g_assert_cmpstr (fw_dnnl_prim_get_backend (p), ==, "gemv");
      g_assert_false (fw_dnnl_prim_channels_last (p));
      g_assert_cmpint (fw_dnnl_prim_run (p, a, NULL, dst, NULL, 0, k->threads), ==, 0);
      fw_dnnl_prim_free (p);
    }
  else
    {
      FwGemv *g = fw_gemv_new (&d);

      g_assert_nonnull (g);
      /* Twice: a run must not depend on what the last one left. */
      for (gint r = 0; r < 2; r++)
        g_assert_cmpint (fw_gemv_run (g, a, dst, k->threads), ==, 0);
      fw_gemv_free (g);
    }
  for (gint64 m = 0; m < k->M; m++)
    for (gint64 n = 0; n < k->N; n++)
      {
        gdouble sum = 0, want, got = dst[m * k->N + n], err;

        for (gint64 i = 0; i < k->K; i++)
          sum += (gdouble) a[k->trans_a ? i * k->M + m : m * k->K + i] *
                 wv[k->trans_b ? n * k->K + i : i * k->N + n];
        want = post_of (k->post, k->alpha * sum + (k->bias ? bv[n] : 0.0));
        err = fabs (got - want);
        worst = MAX (worst, err);
        if (!(err <= bound + 1e-4 * fabs (want)))
          g_error ("row %" G_GINT64_FORMAT " column %" G_GINT64_FORMAT ": %g, want %g", m, n, got, want);
      }
  g_test_message ("worst error %g, bound %g", worst, bound);
}

/* Whether this CPU runs the kernel (AVX2 with FMA); skips the test when not. */
static gboolean
available (void)
{
  static float one = 1;
  gint64 dims[2] = { 1, 1 };
  g_autoptr(FwTensor) w = fw_tensor_new_float (2, dims, &one);
  FwDnnlDesc d = { 0 };

  fw_dnnl_desc_set_product (&d, 1, 1, 1, FALSE, FALSE, 1.0f);
  d.weights = w;
  if (fw_gemv_fits (&d))
    return TRUE;
  g_test_skip ("no AVX2 with FMA on this CPU");
  return FALSE;
}

/* A classifier at batch 1: one row, K odd, N = 16·62 + 9 (a part panel), a bias, on two threads. */
static void
test_one_row (void)
{
  Case k = { 1, 577, 1001, FALSE, FALSE, TRUE, 1.0f, FW_DNNL_POST_NONE, 2 };

  if (!available ())
    return;
  check_case (&k, FALSE);
}

/* Two rows, a Gemm's transposed A and B with alpha, each post-op, on one thread and two. */
static void
test_two_rows_posts (void)
{
  static const FwDnnlPost posts[] = { FW_DNNL_POST_RELU, FW_DNNL_POST_GELU_ERF, FW_DNNL_POST_HARD_SIGMOID,
                                      FW_DNNL_POST_HARD_SWISH };

  if (!available ())
    return;
  for (guint i = 0; i < G_N_ELEMENTS (posts); i++)
    {
      Case k = { 2, 64 + i, 40 + 3 * i, TRUE, TRUE, i % 2 == 0, 0.5f + i, posts[i], 1 + (int) (i % 2) };

      check_case (&k, FALSE);
    }
}

/* Fewer columns than one panel and one term: the padding of the panel never reaches the result. */
static void
test_tiny (void)
{
  Case k = { 1, 1, 3, FALSE, TRUE, TRUE, 2.0f, FW_DNNL_POST_RELU, 2 };

  if (!available ())
    return;
  check_case (&k, FALSE);
}

/* Weights and bias whose bytes lie at an odd offset, as a model file's raw_data may: read aligned (the
 * sanitizer build flagged the misaligned loads), the result the same. */
static void
test_unaligned_weights (void)
{
  const gint64 K = 37, N = 21;
  gint64 wd[2] = { K, N }, bd[1] = { N };
  g_autofree guint8 *raw = g_new0 (guint8, (K * N + N) * 4 + 2);
  g_autofree float *a = g_new (float, K), *y = g_new (float, N);
  g_autoptr(GBytes) all = NULL, wb = NULL, bb = NULL;
  g_autoptr(FwTensor) w = NULL, b = NULL;
  FwDnnlDesc d = { 0 };
  FwGemv *g;

  if (!available ())
    return;
  for (gint64 i = 0; i < K * N + N; i++)
    {
      float v = (float) (i % 11) * 0.125f - 0.5f;
      memcpy (raw + 1 + i * 4, &v, 4);
    }
  for (gint64 k = 0; k < K; k++)
    a[k] = (float) (k % 5) - 2.0f;
  all = g_bytes_new (raw, (K * N + N) * 4 + 2);
  wb = g_bytes_new_from_bytes (all, 1, K * N * 4);
  bb = g_bytes_new_from_bytes (all, 1 + K * N * 4, N * 4);
  w = fw_tensor_new (FW_DTYPE_FLOAT, 2, wd, wb);
  b = fw_tensor_new (FW_DTYPE_FLOAT, 1, bd, bb);
  fw_dnnl_desc_set_product (&d, 1, K, N, FALSE, FALSE, 1.0f);
  d.weights = w;
  d.bias = b;
  g_assert_true (fw_gemv_fits (&d));
  g = fw_gemv_new (&d);
  g_assert_nonnull (g);
  g_assert_cmpint (fw_gemv_run (g, a, y, 1), ==, 0);
  fw_gemv_free (g);
  for (gint64 n = 0; n < N; n++)
    {
      gdouble want = 0;
      float v;

      memcpy (&v, raw + 1 + (K * N + n) * 4, 4);
      want = v;
      for (gint64 k = 0; k < K; k++)
        {
          memcpy (&v, raw + 1 + (k * N + n) * 4, 4);
          want += (gdouble) a[k] * v;
        }
      g_assert_cmpfloat_with_epsilon (y[n], want, 1e-4);
    }
}

/* The primitive that stands for oneDNN's runs it and names it. */
static void
test_through_prim (void)
{
  Case k = { 1, 512, 1000, FALSE, TRUE, TRUE, 1.0f, FW_DNNL_POST_HARD_SWISH, 2 };

  if (fw_dnnl_library () == NULL)
    {
      g_test_skip ("built without oneDNN");
      return;
    }
  if (!available ())
    return;
  check_case (&k, TRUE);
}

/* What it leaves to oneDNN: more than two rows, batched products, weights read at each run, half weights,
 * a bias of the wrong length, convolutions, and FW_GEMV=0. */
static void
test_refuses (void)
{
  gint64 dims[2] = { 8, 4 }, bdims[1] = { 3 };
  g_autofree float *v = g_new0 (float, 32);
  g_autoptr(FwTensor) w = fw_tensor_new_float (2, dims, v), short_bias = fw_tensor_new_float (1, bdims, v);
  g_autoptr(GBytes) zeros = g_bytes_new (v, 32 * 2);
  g_autoptr(FwTensor) half = fw_tensor_new (FW_DTYPE_FLOAT16, 2, dims, zeros);
  gint64 a3[3] = { 2, 1, 8 }, b3[3] = { 2, 8, 4 }, y3[3] = { 2, 1, 4 };
  FwDnnlDesc ok = { 0 }, d;

  if (!available ())
    return;
  fw_dnnl_desc_set_product (&ok, 2, 8, 4, FALSE, FALSE, 1.0f);
  ok.weights = w;
  g_assert_true (fw_gemv_fits (&ok));
  d = ok;
  fw_dnnl_desc_set_product (&d, 3, 8, 4, FALSE, FALSE, 1.0f);
  g_assert_false (fw_gemv_fits (&d));
  d = ok;
  g_assert_true (fw_dnnl_desc_set_matmul (&d, 3, a3, 3, b3, 3, y3));
  g_assert_cmpint (d.ndims, ==, 3);
  g_assert_false (fw_gemv_fits (&d));
  d = ok, d.weights = NULL;
  g_assert_false (fw_gemv_fits (&d));
  d = ok, d.weights = half;
  g_assert_false (fw_gemv_fits (&d));
  d = ok, d.bias = short_bias;
  g_assert_false (fw_gemv_fits (&d));
  d = ok, d.kind = FW_DNNL_CONV;
  g_assert_false (fw_gemv_fits (&d));
  g_setenv ("FW_GEMV", "0", TRUE);
  g_assert_false (fw_gemv_fits (&ok));
  g_unsetenv ("FW_GEMV");
  g_assert_true (fw_gemv_fits (&ok));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/codegen/host/gemv/one-row", test_one_row);
  g_test_add_func ("/core/codegen/host/gemv/two-rows-posts", test_two_rows_posts);
  g_test_add_func ("/core/codegen/host/gemv/tiny", test_tiny);
  g_test_add_func ("/core/codegen/host/gemv/unaligned-weights", test_unaligned_weights);
  g_test_add_func ("/core/codegen/host/gemv/through-prim", test_through_prim);
  g_test_add_func ("/core/codegen/host/gemv/refuses", test_refuses);
  return g_test_run ();
}
