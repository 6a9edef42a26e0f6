/* test-exec-nn.c: the compute, pooling, reduction and normalisation reference kernels on small cases
 * worked out by hand. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "exec/fw-exec.h"
#include "fw-error.h"
#include "fw-test-models.h"

/* One node in a model of its own; every input gets an array (initializers too, so shape inference can
 * read axes and K). */
typedef struct
{
  FwModel  *model;
  FwNode   *node;
  FwArray  *in[8];
  guint     n_in;
  FwArray  *out[4];
  guint     n_out;
} Case;

static FwNode *
case_begin (Case *c, const char *op, gint64 opset, const char *inputs, guint n_out)
{
  g_auto(GStrv) names = g_strsplit (inputs, ",", -1);
  const char *outs[4] = { "o0", "o1", "o2", "o3" };

  memset (c, 0, sizeof *c);
  c->model = fw_test_model_new (opset);
  c->n_in = g_strv_length (names);
  c->n_out = n_out;
  c->node = fw_graph_add_node (fw_model_get_graph (c->model), op, "", "/n", c->n_in, (const char *const *) names,
                               n_out, outs, NULL);
  g_assert_nonnull (c->node);
  c->node->opset = opset;
  return c->node;
}

static FwArray *
make_array (FwDType dtype, guint rank, const gint64 *dims, const double *values)
{
  FwArray *a = fw_array_new (dtype, rank, dims, NULL);

  g_assert_nonnull (a);
  for (gint64 i = 0; i < a->n_elements; i++)
    fw_array_set_double (a, i, values ? values[i] : (double) i);
  return a;
}

/* Input slot i: a graph input, or an initializer when constant (its values are then known at inference). */
static void
case_input (Case *c, guint i, FwDType dtype, guint rank, const gint64 *dims, const double *values, gboolean constant)
{
  FwGraph *g = fw_model_get_graph (c->model);
  const char *in_name = c->node->inputs[i] ? c->node->inputs[i]->name : NULL;
  FwArray *a = make_array (dtype, rank, dims, values);

  g_assert_nonnull (in_name);
  if (constant)
    {
      g_autoptr(FwTensor) t = fw_array_to_tensor (a);
      g_assert_nonnull (fw_graph_add_initializer (g, in_name, t, NULL));
    }
  else
    {
      FwDim d[FW_MAX_RANK];

      for (guint k = 0; k < rank; k++)
        d[k] = FW_DIM_STATIC (dims[k]);
      g_assert_nonnull (fw_graph_add_input (g, in_name, dtype, rank, d, NULL));
    }
  c->in[i] = a;
}

/* Links, infers (when infer), runs the kernel; FALSE with error when the kernel refused. */
static gboolean
case_run_full (Case *c, gboolean infer, GError **error)
{
  FwGraph *g = fw_model_get_graph (c->model);
  g_autoptr(FwExecContext) ctx = fw_exec_context_new (2, NULL);
  g_autoptr(GError) local = NULL;

  for (guint o = 0; o < c->n_out; o++)
    if (c->node->outputs[o] != NULL)
      g_assert_true (fw_graph_add_output (g, c->node->outputs[o]->name, NULL));
  g_assert_true (fw_graph_link (g, &local));
  if (infer && !fw_test_infer (c->model, NULL, NULL, &local))
    g_error ("inference: %s", local->message);
  return fw_exec_run_node (ctx, c->node, c->in, c->out, error);
}

static void
case_run (Case *c)
{
  g_autoptr(GError) error = NULL;

  if (!case_run_full (c, TRUE, &error))
    g_error ("%s: %s", c->node->op_type, error->message);
}

static void
case_clear (Case *c)
{
  for (guint i = 0; i < 8; i++)
    g_clear_pointer (&c->in[i], fw_array_unref);
  for (guint i = 0; i < 4; i++)
    g_clear_pointer (&c->out[i], fw_array_unref);
  g_clear_object (&c->model);
}

static void
check (const FwArray *a, FwDType dtype, guint rank, const gint64 *dims, const double *expect, double tol)
{
  g_assert_nonnull (a);
  g_assert_cmpint (a->dtype, ==, dtype);
  g_assert_cmpuint (a->rank, ==, rank);
  for (guint i = 0; i < rank; i++)
    g_assert_cmpint (a->dims[i], ==, dims[i]);
  for (gint64 i = 0; i < a->n_elements; i++)
    {
      double v = fw_array_get_double (a, i);

      if (!(fabs (v - expect[i]) <= tol + tol * fabs (expect[i])))
        g_error ("element %" G_GINT64_FORMAT ": %.9g, expected %.9g", i, v, expect[i]);
    }
}

/* A kernel error (FW_ERROR_INVALID), run without inference so the kernel itself must refuse. */
static void
expect_refusal (Case *c)
{
  g_autoptr(GError) error = NULL;

  g_assert_false (case_run_full (c, FALSE, &error));
  g_assert_error (error, FW_ERROR, FW_ERROR_INVALID);
  g_test_message ("%s", error->message);
}

/* ---- MatMul, Gemm ---- */

static void
test_matmul_batched (void)
{
  Case c;
  gint64 ad[3] = { 2, 2, 3 }, bd[2] = { 3, 2 }, yd[3] = { 2, 2, 2 };
  /* a = 0..11, b = 0..5: [[0,1,2],[3,4,5]] @ [[0,1],[2,3],[4,5]] = [[10,13],[28,40]]. */
  double y[8] = { 10, 13, 28, 40, 46, 67, 64, 94 };

  case_begin (&c, "MatMul", 13, "a,b", 1);
  case_input (&c, 0, FW_DTYPE_FLOAT, 3, ad, NULL, FALSE);
  case_input (&c, 1, FW_DTYPE_FLOAT, 2, bd, NULL, FALSE);
  case_run (&c);
  check (c.out[0], FW_DTYPE_FLOAT, 3, yd, y, 1e-6);
  case_clear (&c);
}

/* Batches shared among the threads (fw-kernels-nn-loops.h): 8 and 16 batches of 16×16×16 (2 threads take
 * whole batches), B broadcast along the first batch dim, and 3 batches (uneven: OpenBLAS's threads split
 * each product), each against a plain triple loop. Small integers, so every sum is exact. */
static void
check_batched_threads (guint rank_a, const gint64 *ad, guint rank_b, const gint64 *bd)
{
  Case c;
  gint64 yd[4], n_a = 1, n_b = 1, batches = 1, bb = 1;
  const gint64 m = 16, k = 16, n = 16;
  g_autofree double *a = NULL, *b = NULL, *y = NULL;

  for (guint i = 0; i < rank_a; i++)
    n_a *= ad[i];
  for (guint i = 0; i < rank_b; i++)
    n_b *= bd[i];
  for (guint i = 0; i + 2 < rank_a; i++)
    batches *= ad[i];
  for (guint i = 0; i + 2 < rank_b; i++)
    bb *= bd[i];
  a = g_new (double, n_a);
  b = g_new (double, n_b);
  y = g_new0 (double, batches * m * n);
  for (gint64 i = 0; i < n_a; i++)
    a[i] = (double) (i % 7) - 3;
  for (gint64 i = 0; i < n_b; i++)
    b[i] = (double) (i % 5) - 2;
  /* B's batches repeat along A's trailing batch dims (B has fewer batch dims or the same). */
  for (gint64 t = 0; t < batches; t++)
    for (gint64 i = 0; i < m; i++)
      for (gint64 j = 0; j < n; j++)
        for (gint64 p = 0; p < k; p++)
          y[(t * m + i) * n + j] += a[(t * m + i) * k + p] * b[((t % bb) * k + p) * n + j];
  memcpy (yd, ad, rank_a * sizeof (gint64));
  case_begin (&c, "MatMul", 13, "a,b", 1);
  case_input (&c, 0, FW_DTYPE_FLOAT, rank_a, ad, a, FALSE);
  case_input (&c, 1, FW_DTYPE_FLOAT, rank_b, bd, b, FALSE);
  case_run (&c);
  check (c.out[0], FW_DTYPE_FLOAT, rank_a, yd, y, 0);
  case_clear (&c);
}

static void
test_matmul_batched_threads (void)
{
  const gint64 a8[3] = { 8, 16, 16 }, b8[3] = { 8, 16, 16 };
  const gint64 a16[4] = { 4, 4, 16, 16 }, b4[3] = { 4, 16, 16 };
  const gint64 a3[3] = { 3, 16, 16 }, b3[3] = { 3, 16, 16 };

  check_batched_threads (3, a8, 3, b8);
  check_batched_threads (4, a16, 3, b4);
  check_batched_threads (3, a3, 3, b3);
}

static void
test_matmul_broadcast (void)
{
  Case c;
  /* a [2,1,1,2] with b [3,2,1]: batch dims [2,1] and [3] broadcast to [2,3]. */
  gint64 ad[4] = { 2, 1, 1, 2 }, bd[3] = { 3, 2, 1 }, yd[4] = { 2, 3, 1, 1 };
  double a[4] = { 1, 2, 3, 4 }, b[6] = { 1, 1, 2, 0, 0, 3 };
  double y[6] = { 3, 2, 6, 7, 6, 12 };

  case_begin (&c, "MatMul", 13, "a,b", 1);
  case_input (&c, 0, FW_DTYPE_FLOAT, 4, ad, a, FALSE);
  case_input (&c, 1, FW_DTYPE_FLOAT, 3, bd, b, FALSE);
  case_run (&c);
  check (c.out[0], FW_DTYPE_FLOAT, 4, yd, y, 1e-6);
  case_clear (&c);
}

static void
test_matmul_vectors (void)
{
  Case c;
  gint64 vd[1] = { 3 }, md[2] = { 3, 2 }, yd[1] = { 2 }, md2[2] = { 2, 3 };
  double v[3] = { 1, 2, 3 }, y[2] = { 16, 22 }, y2[2] = { 8, 26 };

  /* [3] @ [3,2] -> [2] */
  case_begin (&c, "MatMul", 13, "a,b", 1);
  case_input (&c, 0, FW_DTYPE_FLOAT, 1, vd, v, FALSE);
  case_input (&c, 1, FW_DTYPE_FLOAT, 2, md, NULL, FALSE);
  case_run (&c);
  check (c.out[0], FW_DTYPE_FLOAT, 1, yd, y, 1e-6);
  case_clear (&c);

  /* [2,3] @ [3] -> [2] */
  case_begin (&c, "MatMul", 13, "a,b", 1);
  case_input (&c, 0, FW_DTYPE_FLOAT, 2, md2, NULL, FALSE);
  case_input (&c, 1, FW_DTYPE_FLOAT, 1, vd, v, FALSE);
  case_run (&c);
  check (c.out[0], FW_DTYPE_FLOAT, 1, yd, y2, 1e-6);
  case_clear (&c);
}

static void
test_matmul_dtypes (void)
{
  FwDType types[] = { FW_DTYPE_FLOAT16, FW_DTYPE_DOUBLE, FW_DTYPE_INT32, FW_DTYPE_INT64 };
  gint64 ad[2] = { 2, 3 }, bd[2] = { 3, 2 }, yd[2] = { 2, 2 };
  double y[4] = { 10, 13, 28, 40 };

  for (guint t = 0; t < G_N_ELEMENTS (types); t++)
    {
      Case c;

      case_begin (&c, "MatMul", 13, "a,b", 1);
      case_input (&c, 0, types[t], 2, ad, NULL, FALSE);
      case_input (&c, 1, types[t], 2, bd, NULL, FALSE);
      case_run (&c);
      check (c.out[0], types[t], 2, yd, y, 0);
      case_clear (&c);
    }
}

static void
test_matmul_integer (void)
{
  Case c;
  gint64 ad[2] = { 2, 2 }, bd[2] = { 2, 2 }, one[1] = { 1 }, yd[2] = { 2, 2 };
  double a[4] = { 11, 12, 13, 14 }, b[4] = { 1, 2, 3, 4 }, za[1] = { 10 };
  /* (a - 10) @ b = [[1,2],[3,4]] @ [[1,2],[3,4]] = [[7,10],[15,22]] */
  double y[4] = { 7, 10, 15, 22 };

  case_begin (&c, "MatMulInteger", 13, "a,b,za", 1);
  case_input (&c, 0, FW_DTYPE_UINT8, 2, ad, a, FALSE);
  case_input (&c, 1, FW_DTYPE_UINT8, 2, bd, b, FALSE);
  case_input (&c, 2, FW_DTYPE_UINT8, 1, one, za, TRUE);
  case_run (&c);
  check (c.out[0], FW_DTYPE_INT32, 2, yd, y, 0);
  case_clear (&c);
}

static void
test_gemm (void)
{
  Case c;
  FwNode *n;
  gint64 ad[2] = { 3, 2 }, bd[2] = { 2, 3 }, cd[1] = { 2 }, yd[2] = { 2, 2 };
  /* A^T = [[0,2,4],[1,3,5]], B^T = [[0,3],[1,4],[2,5]]: A^T B^T = [[10,28],[13,40]];
   * y = 0.5 × that + 2 × [1, -1]. */
  double cv[2] = { 1, -1 }, y[4] = { 7, 12, 8.5, 18 };

  n = case_begin (&c, "Gemm", 13, "a,b,c", 1);
  fw_node_set_attr_int (n, "transA", 1);
  fw_node_set_attr_int (n, "transB", 1);
  fw_node_set_attr_float (n, "alpha", 0.5f);
  fw_node_set_attr_float (n, "beta", 2.0f);
  case_input (&c, 0, FW_DTYPE_FLOAT, 2, ad, NULL, FALSE);
  case_input (&c, 1, FW_DTYPE_FLOAT, 2, bd, NULL, FALSE);
  case_input (&c, 2, FW_DTYPE_FLOAT, 1, cd, cv, FALSE);
  case_run (&c);
  check (c.out[0], FW_DTYPE_FLOAT, 2, yd, y, 1e-6);
  case_clear (&c);
}

static void
test_matmul_errors (void)
{
  Case c;
  gint64 ad[2] = { 2, 3 }, bd[2] = { 2, 2 };

  case_begin (&c, "MatMul", 13, "a,b", 1);
  case_input (&c, 0, FW_DTYPE_FLOAT, 2, ad, NULL, FALSE);
  case_input (&c, 1, FW_DTYPE_FLOAT, 2, bd, NULL, FALSE);
  expect_refusal (&c);
  case_clear (&c);

  case_begin (&c, "Gemm", 13, "a,b", 1);
  case_input (&c, 0, FW_DTYPE_FLOAT, 2, ad, NULL, FALSE);
  case_input (&c, 1, FW_DTYPE_FLOAT, 2, bd, NULL, FALSE);
  expect_refusal (&c);
  case_clear (&c);
}

/* ---- Conv, ConvTranspose ---- */

static void
test_conv_pads_strides (void)
{
  Case c;
  FwNode *n;
  gint64 xd[4] = { 1, 1, 3, 3 }, wd[4] = { 1, 1, 2, 2 }, bd[1] = { 1 }, yd[4] = { 1, 1, 2, 2 };
  double w[4] = { 1, 1, 1, 1 }, b[1] = { 0.5 };
  /* x = 0..8 padded by 1, 2x2 all-ones kernel, stride 2: windows at (-1,-1), (-1,1), (1,-1), (1,1). */
  double y[4] = { 0.5, 1 + 2 + 0.5, 3 + 6 + 0.5, 4 + 5 + 7 + 8 + 0.5 };

  n = case_begin (&c, "Conv", 13, "x,w,b", 1);
  fw_node_set_attr_ints (n, "pads", 4, (gint64[]) { 1, 1, 1, 1 });
  fw_node_set_attr_ints (n, "strides", 2, (gint64[]) { 2, 2 });
  case_input (&c, 0, FW_DTYPE_FLOAT, 4, xd, NULL, FALSE);
  case_input (&c, 1, FW_DTYPE_FLOAT, 4, wd, w, TRUE);
  case_input (&c, 2, FW_DTYPE_FLOAT, 1, bd, b, TRUE);
  case_run (&c);
  check (c.out[0], FW_DTYPE_FLOAT, 4, yd, y, 1e-6);
  case_clear (&c);
}

static void
test_conv_dilation (void)
{
  Case c;
  FwNode *n;
  gint64 xd[3] = { 1, 1, 5 }, wd[3] = { 1, 1, 2 }, yd[3] = { 1, 1, 3 };
  double w[2] = { 1, 10 };
  /* taps x[i] and x[i + 2] */
  double y[3] = { 0 + 20, 1 + 30, 2 + 40 };

  n = case_begin (&c, "Conv", 13, "x,w", 1);
  fw_node_set_attr_ints (n, "dilations", 1, (gint64[]) { 2 });
  case_input (&c, 0, FW_DTYPE_FLOAT, 3, xd, NULL, FALSE);
  case_input (&c, 1, FW_DTYPE_FLOAT, 3, wd, w, TRUE);
  case_run (&c);
  check (c.out[0], FW_DTYPE_FLOAT, 3, yd, y, 1e-6);
  case_clear (&c);
}

static void
test_conv_group (void)
{
  Case c;
  FwNode *n;
  /* Depthwise 1x1 over 2 channels (the direct path), then a grouped 3-D 1x1x1 with float16. */
  gint64 xd[4] = { 1, 2, 1, 2 }, wd[4] = { 2, 1, 1, 1 }, yd[4] = { 1, 2, 1, 2 };
  double w[2] = { 2, -1 }, y[4] = { 0, 2, -2, -3 };

  n = case_begin (&c, "Conv", 13, "x,w", 1);
  fw_node_set_attr_int (n, "group", 2);
  case_input (&c, 0, FW_DTYPE_FLOAT, 4, xd, NULL, FALSE);
  case_input (&c, 1, FW_DTYPE_FLOAT, 4, wd, w, TRUE);
  case_run (&c);
  check (c.out[0], FW_DTYPE_FLOAT, 4, yd, y, 1e-6);
  case_clear (&c);

  n = case_begin (&c, "Conv", 13, "x,w", 1);
  fw_node_set_attr_int (n, "group", 2);
  case_input (&c, 0, FW_DTYPE_FLOAT16, 4, xd, NULL, FALSE);
  case_input (&c, 1, FW_DTYPE_FLOAT16, 4, wd, w, TRUE);
  case_run (&c);
  check (c.out[0], FW_DTYPE_FLOAT16, 4, yd, y, 1e-3);
  case_clear (&c);
}

static void
test_conv_same (void)
{
  Case c;
  FwNode *n;
  gint64 xd[3] = { 1, 1, 4 }, wd[3] = { 1, 1, 2 }, yd[3] = { 1, 1, 4 };
  double x[4] = { 1, 2, 3, 4 }, w[2] = { 1, 10 };
  /* total pad 1: SAME_UPPER pads the end (x[i] + 10 x[i+1]), SAME_LOWER the start (x[i-1] + 10 x[i]). */
  double upper[4] = { 21, 32, 43, 4 }, lower[4] = { 10, 21, 32, 43 };

  n = case_begin (&c, "Conv", 13, "x,w", 1);
  fw_node_set_attr_string (n, "auto_pad", "SAME_UPPER");
  case_input (&c, 0, FW_DTYPE_FLOAT, 3, xd, x, FALSE);
  case_input (&c, 1, FW_DTYPE_FLOAT, 3, wd, w, TRUE);
  case_run (&c);
  check (c.out[0], FW_DTYPE_FLOAT, 3, yd, upper, 1e-6);
  case_clear (&c);

  n = case_begin (&c, "Conv", 13, "x,w", 1);
  fw_node_set_attr_string (n, "auto_pad", "SAME_LOWER");
  case_input (&c, 0, FW_DTYPE_DOUBLE, 3, xd, x, FALSE);
  case_input (&c, 1, FW_DTYPE_DOUBLE, 3, wd, w, TRUE);
  case_run (&c);
  check (c.out[0], FW_DTYPE_DOUBLE, 3, yd, lower, 1e-12);
  case_clear (&c);
}

static void
test_conv_errors (void)
{
  Case c;
  FwNode *n;
  gint64 xd[4] = { 1, 3, 4, 4 }, wd[4] = { 2, 2, 3, 3 }, wd2[4] = { 2, 3, 5, 5 };

  /* Channels 3 vs 2 × group 1. */
  case_begin (&c, "Conv", 13, "x,w", 1);
  case_input (&c, 0, FW_DTYPE_FLOAT, 4, xd, NULL, FALSE);
  case_input (&c, 1, FW_DTYPE_FLOAT, 4, wd, NULL, FALSE);
  expect_refusal (&c);
  case_clear (&c);

  /* A 5x5 kernel on a 4x4 input. */
  case_begin (&c, "Conv", 13, "x,w", 1);
  case_input (&c, 0, FW_DTYPE_FLOAT, 4, xd, NULL, FALSE);
  case_input (&c, 1, FW_DTYPE_FLOAT, 4, wd2, NULL, FALSE);
  expect_refusal (&c);
  case_clear (&c);

  /* Zero stride, negative pads, rank 2. */
  n = case_begin (&c, "Conv", 13, "x,w", 1);
  fw_node_set_attr_ints (n, "strides", 2, (gint64[]) { 0, 1 });
  case_input (&c, 0, FW_DTYPE_FLOAT, 4, xd, NULL, FALSE);
  case_input (&c, 1, FW_DTYPE_FLOAT, 4, (gint64[]) { 1, 3, 1, 1 }, NULL, FALSE);
  expect_refusal (&c);
  case_clear (&c);

  n = case_begin (&c, "Conv", 13, "x,w", 1);
  fw_node_set_attr_ints (n, "pads", 4, (gint64[]) { -1, 0, 0, 0 });
  case_input (&c, 0, FW_DTYPE_FLOAT, 4, xd, NULL, FALSE);
  case_input (&c, 1, FW_DTYPE_FLOAT, 4, (gint64[]) { 1, 3, 1, 1 }, NULL, FALSE);
  expect_refusal (&c);
  case_clear (&c);

  /* A dilation that would overflow the window size. */
  n = case_begin (&c, "Conv", 13, "x,w", 1);
  fw_node_set_attr_ints (n, "dilations", 2, (gint64[]) { G_GINT64_CONSTANT (1) << 40, 1 });
  case_input (&c, 0, FW_DTYPE_FLOAT, 4, xd, NULL, FALSE);
  case_input (&c, 1, FW_DTYPE_FLOAT, 4, (gint64[]) { 1, 3, 3, 1 }, NULL, FALSE);
  expect_refusal (&c);
  case_clear (&c);

  case_begin (&c, "Conv", 13, "x,w", 1);
  case_input (&c, 0, FW_DTYPE_FLOAT, 2, xd, NULL, FALSE);
  case_input (&c, 1, FW_DTYPE_FLOAT, 2, xd, NULL, FALSE);
  expect_refusal (&c);
  case_clear (&c);
}

static void
test_conv_transpose (void)
{
  Case c;
  FwNode *n;
  gint64 xd[3] = { 1, 1, 3 }, wd[3] = { 1, 1, 2 }, yd[3] = { 1, 1, 6 }, yd2[3] = { 1, 1, 4 };
  double x[3] = { 1, 2, 3 }, w[2] = { 1, 10 };
  /* stride 2: each x[i] writes x[i] at 2i and 10 x[i] at 2i+1; output_padding adds one zero. */
  double y[6] = { 1, 10, 2, 20, 3, 30 };
  /* stride 1: y = [1, 10+2, 20+3, 30] */
  double y2[4] = { 1, 12, 23, 30 };
  /* stride 1 with pads 1,1: the middle two */
  double y3[2] = { 12, 23 };
  gint64 yd3[3] = { 1, 1, 2 };

  n = case_begin (&c, "ConvTranspose", 13, "x,w", 1);
  fw_node_set_attr_ints (n, "strides", 1, (gint64[]) { 2 });
  case_input (&c, 0, FW_DTYPE_FLOAT, 3, xd, x, FALSE);
  case_input (&c, 1, FW_DTYPE_FLOAT, 3, wd, w, TRUE);
  case_run (&c);
  check (c.out[0], FW_DTYPE_FLOAT, 3, yd, y, 1e-6);
  case_clear (&c);

  case_begin (&c, "ConvTranspose", 13, "x,w", 1);
  case_input (&c, 0, FW_DTYPE_FLOAT, 3, xd, x, FALSE);
  case_input (&c, 1, FW_DTYPE_FLOAT, 3, wd, w, TRUE);
  case_run (&c);
  check (c.out[0], FW_DTYPE_FLOAT, 3, yd2, y2, 1e-6);
  case_clear (&c);

  n = case_begin (&c, "ConvTranspose", 13, "x,w", 1);
  fw_node_set_attr_ints (n, "pads", 2, (gint64[]) { 1, 1 });
  case_input (&c, 0, FW_DTYPE_FLOAT, 3, xd, x, FALSE);
  case_input (&c, 1, FW_DTYPE_FLOAT, 3, wd, w, TRUE);
  case_run (&c);
  check (c.out[0], FW_DTYPE_FLOAT, 3, yd3, y3, 1e-6);
  case_clear (&c);

  {
    gint64 yd4[3] = { 1, 1, 7 };
    double y4[7] = { 1, 10, 2, 20, 3, 30, 0 };

    n = case_begin (&c, "ConvTranspose", 13, "x,w", 1);
    fw_node_set_attr_ints (n, "strides", 1, (gint64[]) { 2 });
    fw_node_set_attr_ints (n, "output_padding", 1, (gint64[]) { 1 });
    case_input (&c, 0, FW_DTYPE_FLOAT, 3, xd, x, FALSE);
    case_input (&c, 1, FW_DTYPE_FLOAT, 3, wd, w, TRUE);
    case_run (&c);
    check (c.out[0], FW_DTYPE_FLOAT, 3, yd4, y4, 1e-6);
    case_clear (&c);
  }
}

/* ---- pooling ---- */

static void
test_pool_max_ceil (void)
{
  Case c;
  FwNode *n;
  gint64 xd[4] = { 1, 1, 3, 3 }, yd[4] = { 1, 1, 2, 2 };
  /* 2x2 stride 2 with ceil_mode: the second window in each axis holds one row/column. */
  double y[4] = { 4, 5, 7, 8 }, idx[4] = { 4, 5, 7, 8 };

  n = case_begin (&c, "MaxPool", 12, "x", 2);
  fw_node_set_attr_ints (n, "kernel_shape", 2, (gint64[]) { 2, 2 });
  fw_node_set_attr_ints (n, "strides", 2, (gint64[]) { 2, 2 });
  fw_node_set_attr_int (n, "ceil_mode", 1);
  case_input (&c, 0, FW_DTYPE_FLOAT, 4, xd, NULL, FALSE);
  case_run (&c);
  check (c.out[0], FW_DTYPE_FLOAT, 4, yd, y, 0);
  check (c.out[1], FW_DTYPE_INT64, 4, yd, idx, 0);
  case_clear (&c);
}

/* 2-D MaxPool without indices takes a fast path (the window clipped once per output); with indices, the
 * generic loop. Both agree on padded, strided, dilated and ceil_mode windows. */
static void
test_pool_max_fast_path (void)
{
  gint64 xd[4] = { 1, 2, 7, 8 };
  double x[112];

  for (guint i = 0; i < 112; i++)
    x[i] = (double) ((i * 37) % 23) - 11.5;
  for (guint config = 0; config < 2; config++)
    {
      Case c[2];

      for (guint with_indices = 0; with_indices < 2; with_indices++)
        {
          FwNode *n = case_begin (&c[with_indices], "MaxPool", 12, "x", with_indices ? 2 : 1);
          fw_node_set_attr_ints (n, "kernel_shape", 2, (gint64[]) { 3, 3 });
          fw_node_set_attr_ints (n, "strides", 2, (gint64[]) { 2, 2 });
          fw_node_set_attr_ints (n, "pads", 4, (gint64[]) { 1, 1, 1, 1 });
          if (config == 1)
            {
              fw_node_set_attr_ints (n, "dilations", 2, (gint64[]) { 2, 1 });
              fw_node_set_attr_int (n, "ceil_mode", 1);
            }
          case_input (&c[with_indices], 0, FW_DTYPE_FLOAT, 4, xd, x, FALSE);
          case_run (&c[with_indices]);
        }
      g_assert_cmpint (c[0].out[0]->n_elements, ==, c[1].out[0]->n_elements);
      g_assert_cmpint (memcmp (c[0].out[0]->data, c[1].out[0]->data, c[0].out[0]->n_elements * sizeof (float)), ==, 0);
      case_clear (&c[0]);
      case_clear (&c[1]);
    }
}

static void
test_pool_average_pads (void)
{
  Case c;
  FwNode *n;
  gint64 xd[4] = { 1, 1, 2, 2 }, yd[4] = { 1, 1, 2, 2 };
  double x[4] = { 1, 2, 3, 4 };
  /* 2x2 windows, pads 1 on the start only: each window holds one to four values. */
  double excl[4] = { 1, 1.5, 2, 2.5 }, incl[4] = { 0.25, 0.75, 1, 2.5 };

  n = case_begin (&c, "AveragePool", 11, "x", 1);
  fw_node_set_attr_ints (n, "kernel_shape", 2, (gint64[]) { 2, 2 });
  fw_node_set_attr_ints (n, "pads", 4, (gint64[]) { 1, 1, 0, 0 });
  case_input (&c, 0, FW_DTYPE_FLOAT, 4, xd, x, FALSE);
  case_run (&c);
  check (c.out[0], FW_DTYPE_FLOAT, 4, yd, excl, 1e-6);
  case_clear (&c);

  n = case_begin (&c, "AveragePool", 11, "x", 1);
  fw_node_set_attr_ints (n, "kernel_shape", 2, (gint64[]) { 2, 2 });
  fw_node_set_attr_ints (n, "pads", 4, (gint64[]) { 1, 1, 0, 0 });
  fw_node_set_attr_int (n, "count_include_pad", 1);
  case_input (&c, 0, FW_DTYPE_FLOAT16, 4, xd, x, FALSE);
  case_run (&c);
  check (c.out[0], FW_DTYPE_FLOAT16, 4, yd, incl, 1e-3);
  case_clear (&c);
}

static void
test_pool_lp_and_global (void)
{
  Case c;
  FwNode *n;
  gint64 xd[3] = { 1, 2, 2 }, yd[3] = { 1, 2, 1 };
  double x[4] = { 3, 4, -1, 1 };
  double lp[2] = { 5, sqrt (2) }, avg[2] = { 3.5, 0 }, mx[2] = { 4, 1 };

  n = case_begin (&c, "LpPool", 18, "x", 1);
  fw_node_set_attr_ints (n, "kernel_shape", 1, (gint64[]) { 2 });
  case_input (&c, 0, FW_DTYPE_FLOAT, 3, xd, x, FALSE);
  case_run (&c);
  check (c.out[0], FW_DTYPE_FLOAT, 3, yd, lp, 1e-6);
  case_clear (&c);

  case_begin (&c, "GlobalAveragePool", 13, "x", 1);
  case_input (&c, 0, FW_DTYPE_FLOAT, 3, xd, x, FALSE);
  case_run (&c);
  check (c.out[0], FW_DTYPE_FLOAT, 3, yd, avg, 1e-6);
  case_clear (&c);

  case_begin (&c, "GlobalMaxPool", 13, "x", 1);
  case_input (&c, 0, FW_DTYPE_DOUBLE, 3, xd, x, FALSE);
  case_run (&c);
  check (c.out[0], FW_DTYPE_DOUBLE, 3, yd, mx, 0);
  case_clear (&c);

  case_begin (&c, "GlobalLpPool", 13, "x", 1);
  case_input (&c, 0, FW_DTYPE_FLOAT, 3, xd, x, FALSE);
  case_run (&c);
  check (c.out[0], FW_DTYPE_FLOAT, 3, yd, lp, 1e-6);
  case_clear (&c);
}

/* ---- reductions ---- */

static void
run_reduce (const char *op, gint64 opset, gboolean axes_as_input, gint64 axis, gboolean keepdims, FwDType dtype,
            const double *expect)
{
  /* x [2, 3] = [[1, 2, 3], [-4, 5, 6]] reduced over axis. */
  double x[6] = { 1, 2, 3, -4, 5, 6 };
  gint64 xd[2] = { 2, 3 }, one[1] = { 1 }, yd[2];
  double axes[1] = { (double) axis };
  guint rank = 0;
  Case c;
  FwNode *n;

  n = case_begin (&c, op, opset, axes_as_input ? "x,axes" : "x", 1);
  if (!axes_as_input)
    fw_node_set_attr_ints (n, "axes", 1, &axis);
  fw_node_set_attr_int (n, "keepdims", keepdims);
  case_input (&c, 0, dtype, 2, xd, x, FALSE);
  if (axes_as_input)
    case_input (&c, 1, FW_DTYPE_INT64, 1, one, axes, TRUE);
  case_run (&c);
  for (guint i = 0; i < 2; i++)
    if (i != (guint) (axis < 0 ? axis + 2 : axis))
      yd[rank++] = xd[i];
    else if (keepdims)
      yd[rank++] = 1;
  check (c.out[0], dtype, rank, yd, expect, dtype == FW_DTYPE_FLOAT16 ? 2e-3 : 1e-5);
  case_clear (&c);
}

static void
test_reduce_all (void)
{
  static const struct
  {
    const char *op;
    double rows[2], cols[3];
  } cases[] = {
    { "ReduceSum", { 6, 7 }, { -3, 7, 9 } },
    { "ReduceMean", { 2, 7.0 / 3 }, { -1.5, 3.5, 4.5 } },
    { "ReduceMax", { 3, 6 }, { 1, 5, 6 } },
    { "ReduceMin", { 1, -4 }, { -4, 2, 3 } },
    { "ReduceProd", { 6, -120 }, { -4, 10, 18 } },
    { "ReduceL1", { 6, 15 }, { 5, 7, 9 } },
    { "ReduceL2", { 3.74165738677, 8.77496438739 }, { 4.12310562562, 5.38516480713, 6.70820393250 } },
    { "ReduceSumSquare", { 14, 77 }, { 17, 29, 45 } },
    { "ReduceLogSum", { 1.79175946923, 1.94591014906 }, { NAN, 1.94591014906, 2.19722457734 } },
    { "ReduceLogSumExp", { 3.40760596444, 6.31326168752 }, { 1.00671535848, 5.04858735157, 6.04858735157 } },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      gint64 new_opset = strcmp (cases[i].op, "ReduceSum") == 0 ? 13 : 18;
      double cols_ok[3];

      memcpy (cols_ok, cases[i].cols, sizeof cols_ok);
      g_test_message ("%s", cases[i].op);
      /* Axes as an attribute (old opsets) and as an input (new), keepdims both ways, both axes. */
      run_reduce (cases[i].op, 11, FALSE, 1, TRUE, FW_DTYPE_FLOAT, cases[i].rows);
      run_reduce (cases[i].op, new_opset, TRUE, -1, FALSE, FW_DTYPE_FLOAT, cases[i].rows);
      run_reduce (cases[i].op, new_opset, TRUE, 1, TRUE, FW_DTYPE_DOUBLE, cases[i].rows);
      if (strcmp (cases[i].op, "ReduceLogSum") != 0)
        {
          run_reduce (cases[i].op, 11, FALSE, 0, FALSE, FW_DTYPE_FLOAT, cols_ok);
          run_reduce (cases[i].op, new_opset, TRUE, 0, TRUE, FW_DTYPE_FLOAT16, cols_ok);
        }
    }
  {
    double ints_rows[2] = { 6, 7 }, ints_max[3] = { 1, 5, 6 };

    run_reduce ("ReduceSum", 13, TRUE, 1, FALSE, FW_DTYPE_INT32, ints_rows);
    run_reduce ("ReduceMax", 18, TRUE, 0, TRUE, FW_DTYPE_INT64, ints_max);
  }
}

static void
test_reduce_all_axes (void)
{
  Case c;
  FwNode *n;
  gint64 xd[3] = { 2, 2, 2 }, yd3[3] = { 1, 1, 1 }, yd1[1] = { 2 };
  double all[1] = { 28 }, mid[2] = { 0 + 2 + 4 + 6, 1 + 3 + 5 + 7 };

  /* No axes: everything, keepdims 1. */
  case_begin (&c, "ReduceSum", 13, "x", 1);
  case_input (&c, 0, FW_DTYPE_FLOAT, 3, xd, NULL, FALSE);
  case_run (&c);
  check (c.out[0], FW_DTYPE_FLOAT, 3, yd3, all, 1e-6);
  case_clear (&c);

  /* noop_with_empty_axes: the input back. */
  n = case_begin (&c, "ReduceMean", 18, "x", 1);
  fw_node_set_attr_int (n, "noop_with_empty_axes", 1);
  case_input (&c, 0, FW_DTYPE_FLOAT, 3, xd, NULL, FALSE);
  case_run (&c);
  g_assert_true (fw_array_same_shape (c.out[0], c.in[0]));
  case_clear (&c);

  /* Axes 0 and 2 (not neighbours): the permuted path. */
  n = case_begin (&c, "ReduceSum", 11, "x", 1);
  fw_node_set_attr_ints (n, "axes", 2, (gint64[]) { 0, 2 });
  fw_node_set_attr_int (n, "keepdims", 0);
  case_input (&c, 0, FW_DTYPE_FLOAT, 3, xd, NULL, FALSE);
  case_run (&c);
  {
    double expect[2] = { 0 + 1 + 4 + 5, 2 + 3 + 6 + 7 };
    check (c.out[0], FW_DTYPE_FLOAT, 1, yd1, expect, 1e-6);
  }
  case_clear (&c);
  (void) mid;
}

static void
test_arg_reduce (void)
{
  Case c;
  FwNode *n;
  gint64 xd[2] = { 2, 3 }, yd[2] = { 2, 1 }, yd1[1] = { 3 };
  double x[6] = { 1, 3, 3, 2, 0, 2 };
  double first[2] = { 1, 0 }, last[2] = { 2, 2 }, mins[3] = { 0, 1, 1 };

  n = case_begin (&c, "ArgMax", 13, "x", 1);
  fw_node_set_attr_int (n, "axis", 1);
  case_input (&c, 0, FW_DTYPE_FLOAT, 2, xd, x, FALSE);
  case_run (&c);
  check (c.out[0], FW_DTYPE_INT64, 2, yd, first, 0);
  case_clear (&c);

  n = case_begin (&c, "ArgMax", 13, "x", 1);
  fw_node_set_attr_int (n, "axis", -1);
  fw_node_set_attr_int (n, "select_last_index", 1);
  case_input (&c, 0, FW_DTYPE_INT32, 2, xd, x, FALSE);
  case_run (&c);
  check (c.out[0], FW_DTYPE_INT64, 2, yd, last, 0);
  case_clear (&c);

  n = case_begin (&c, "ArgMin", 13, "x", 1);
  fw_node_set_attr_int (n, "keepdims", 0);
  case_input (&c, 0, FW_DTYPE_FLOAT16, 2, xd, x, FALSE);
  case_run (&c);
  check (c.out[0], FW_DTYPE_INT64, 1, yd1, mins, 0);
  case_clear (&c);
}

/* ---- softmax family ---- */

static void
test_softmax_opsets (void)
{
  Case c;
  FwNode *n;
  gint64 xd[3] = { 1, 2, 2 };
  double x[4] = { 0, 1, 2, 3 };
  double e1 = exp (1), e2 = exp (2), e3 = exp (3), s = 1 + e1 + e2 + e3;
  /* Opset 11, axis 1: one row of 4. Opset 13, axis 1: pairs (0,2) and (1,3). */
  double v11[4] = { 1 / s, e1 / s, e2 / s, e3 / s };
  double v13[4] = { 1 / (1 + e2), 1 / (1 + e2), e2 / (1 + e2), e2 / (1 + e2) };
  double log13[4], hard[4] = { 0, 0, 1, 1 };

  for (guint i = 0; i < 4; i++)
    log13[i] = log (v13[i]);

  n = case_begin (&c, "Softmax", 11, "x", 1);
  fw_node_set_attr_int (n, "axis", 1);
  case_input (&c, 0, FW_DTYPE_FLOAT, 3, xd, x, FALSE);
  case_run (&c);
  check (c.out[0], FW_DTYPE_FLOAT, 3, xd, v11, 1e-6);
  case_clear (&c);

  /* Opset 11, axis -1: rows of the last axis. */
  n = case_begin (&c, "Softmax", 11, "x", 1);
  fw_node_set_attr_int (n, "axis", -1);
  case_input (&c, 0, FW_DTYPE_FLOAT, 3, xd, x, FALSE);
  case_run (&c);
  {
    double pair[4] = { 1 / (1 + e1), e1 / (1 + e1), 1 / (1 + e1), e1 / (1 + e1) };
    check (c.out[0], FW_DTYPE_FLOAT, 3, xd, pair, 1e-6);
  }
  case_clear (&c);

  n = case_begin (&c, "Softmax", 13, "x", 1);
  fw_node_set_attr_int (n, "axis", 1);
  case_input (&c, 0, FW_DTYPE_FLOAT, 3, xd, x, FALSE);
  case_run (&c);
  check (c.out[0], FW_DTYPE_FLOAT, 3, xd, v13, 1e-6);
  case_clear (&c);

  n = case_begin (&c, "LogSoftmax", 13, "x", 1);
  fw_node_set_attr_int (n, "axis", 1);
  case_input (&c, 0, FW_DTYPE_DOUBLE, 3, xd, x, FALSE);
  case_run (&c);
  check (c.out[0], FW_DTYPE_DOUBLE, 3, xd, log13, 1e-12);
  case_clear (&c);

  n = case_begin (&c, "Hardmax", 13, "x", 1);
  fw_node_set_attr_int (n, "axis", 1);
  case_input (&c, 0, FW_DTYPE_FLOAT16, 3, xd, x, FALSE);
  case_run (&c);
  check (c.out[0], FW_DTYPE_FLOAT16, 3, xd, hard, 0);
  case_clear (&c);
}

/* ---- normalisation ---- */

static void
test_layer_norm (void)
{
  Case c;
  FwNode *n;
  gint64 xd[2] = { 2, 2 }, sd[1] = { 2 }, md[2] = { 2, 1 };
  double x[4] = { 1, 3, 2, 2 }, sc[2] = { 2, 1 }, b[2] = { 0, 1 };
  double inv0 = 1 / sqrt (1 + 1e-5), inv1 = 1 / sqrt (1e-5);
  double y[4] = { -2 * inv0, inv0 + 1, 0, 1 }, mean[2] = { 2, 2 }, inv[2] = { inv0, inv1 };

  n = case_begin (&c, "LayerNormalization", 17, "x,s,b", 3);
  fw_node_set_attr_int (n, "axis", -1);
  case_input (&c, 0, FW_DTYPE_FLOAT, 2, xd, x, FALSE);
  case_input (&c, 1, FW_DTYPE_FLOAT, 1, sd, sc, TRUE);
  case_input (&c, 2, FW_DTYPE_FLOAT, 1, sd, b, TRUE);
  case_run (&c);
  check (c.out[0], FW_DTYPE_FLOAT, 2, xd, y, 1e-5);
  check (c.out[1], FW_DTYPE_FLOAT, 2, md, mean, 1e-6);
  check (c.out[2], FW_DTYPE_FLOAT, 2, md, inv, 1e-5);
  case_clear (&c);

  n = case_begin (&c, "LayerNormalization", 17, "x,s", 1);
  case_input (&c, 0, FW_DTYPE_FLOAT16, 2, xd, x, FALSE);
  case_input (&c, 1, FW_DTYPE_FLOAT16, 1, sd, sc, TRUE);
  case_run (&c);
  {
    double y2[4] = { -2 * inv0, inv0, 0, 0 };
    check (c.out[0], FW_DTYPE_FLOAT16, 2, xd, y2, 2e-3);
  }
  case_clear (&c);
  (void) n;
}

static void
test_instance_group_norm (void)
{
  Case c;
  FwNode *n;
  gint64 xd[3] = { 1, 2, 2 }, cd[1] = { 2 };
  double x[4] = { 1, 3, 5, 5 }, sc[2] = { 1, 2 }, b[2] = { 0, 10 };
  double inv = 1 / sqrt (1 + 1e-5);
  double inst[4] = { -inv, inv, 10, 10 };
  /* One group of all four: mean 3.5, variance 2.75. */
  double ginv = 1 / sqrt (2.75 + 1e-5);
  double grp[4] = { -2.5 * ginv, -0.5 * ginv, 1.5 * 2 * ginv + 10, 1.5 * 2 * ginv + 10 };

  case_begin (&c, "InstanceNormalization", 13, "x,s,b", 1);
  case_input (&c, 0, FW_DTYPE_FLOAT, 3, xd, x, FALSE);
  case_input (&c, 1, FW_DTYPE_FLOAT, 1, cd, sc, TRUE);
  case_input (&c, 2, FW_DTYPE_FLOAT, 1, cd, b, TRUE);
  case_run (&c);
  check (c.out[0], FW_DTYPE_FLOAT, 3, xd, inst, 1e-5);
  case_clear (&c);

  n = case_begin (&c, "GroupNormalization", 21, "x,s,b", 1);
  fw_node_set_attr_int (n, "num_groups", 1);
  case_input (&c, 0, FW_DTYPE_FLOAT, 3, xd, x, FALSE);
  case_input (&c, 1, FW_DTYPE_FLOAT, 1, cd, sc, TRUE);
  case_input (&c, 2, FW_DTYPE_FLOAT, 1, cd, b, TRUE);
  case_run (&c);
  check (c.out[0], FW_DTYPE_FLOAT, 3, xd, grp, 1e-5);
  case_clear (&c);
}

static void
test_lrn_lp_mvn (void)
{
  Case c;
  FwNode *n;
  gint64 xd[4] = { 1, 2, 1, 1 }, vd[2] = { 1, 2 };
  double x[2] = { 3, 4 };
  /* size 2: channel 0 sees channels 0..1 (ceil), channel 1 only itself... floor((2-1)/2)=0 before, 1 after. */
  double lrn[2] = { 3 / pow (1 + 1e-4 / 2 * 25, 0.75), 4 / pow (1 + 1e-4 / 2 * 16, 0.75) };
  double lp[2] = { 0.6, 0.8 };
  double mvn[2] = { -1 / (1 + 1e-9), 1 / (1 + 1e-9) };

  n = case_begin (&c, "LRN", 13, "x", 1);
  fw_node_set_attr_int (n, "size", 2);
  case_input (&c, 0, FW_DTYPE_FLOAT, 4, xd, x, FALSE);
  case_run (&c);
  check (c.out[0], FW_DTYPE_FLOAT, 4, xd, lrn, 1e-6);
  case_clear (&c);

  case_begin (&c, "LpNormalization", 13, "x", 1);
  case_input (&c, 0, FW_DTYPE_FLOAT, 2, vd, x, FALSE);
  case_run (&c);
  check (c.out[0], FW_DTYPE_FLOAT, 2, vd, lp, 1e-6);
  case_clear (&c);

  n = case_begin (&c, "MeanVarianceNormalization", 13, "x", 1);
  fw_node_set_attr_ints (n, "axes", 1, (gint64[]) { 1 });
  case_input (&c, 0, FW_DTYPE_FLOAT, 2, vd, x, FALSE);
  case_run (&c);
  check (c.out[0], FW_DTYPE_FLOAT, 2, vd, mvn, 1e-6);
  case_clear (&c);
}

/* ---- CumSum, TopK, Einsum ---- */

static void
test_cumsum (void)
{
  static const struct { gboolean exclusive, reverse; double y[3]; } cases[] = {
    { FALSE, FALSE, { 1, 3, 6 } }, { TRUE, FALSE, { 0, 1, 3 } },
    { FALSE, TRUE, { 6, 5, 3 } }, { TRUE, TRUE, { 5, 3, 0 } },
  };
  gint64 xd[1] = { 3 }, ad[1] = { 1 };
  double x[3] = { 1, 2, 3 }, axis[1] = { 0 };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      FwDType t = i % 2 ? FW_DTYPE_INT32 : FW_DTYPE_FLOAT;
      Case c;
      FwNode *n = case_begin (&c, "CumSum", 14, "x,axis", 1);

      fw_node_set_attr_int (n, "exclusive", cases[i].exclusive);
      fw_node_set_attr_int (n, "reverse", cases[i].reverse);
      case_input (&c, 0, t, 1, xd, x, FALSE);
      case_input (&c, 1, FW_DTYPE_INT64, 1, ad, axis, TRUE);
      case_run (&c);
      check (c.out[0], t, 1, xd, cases[i].y, 0);
      case_clear (&c);
    }
}

static void
test_topk (void)
{
  Case c;
  FwNode *n;
  gint64 xd[2] = { 2, 4 }, kd[1] = { 1 }, yd[2] = { 2, 2 };
  double x[8] = { 1, 5, 5, 2, 0, -1, 7, -1 }, k[1] = { 2 };
  double top[4] = { 5, 5, 7, 0 }, top_i[4] = { 1, 2, 2, 0 };
  double low[4] = { 1, 2, -1, -1 }, low_i[4] = { 0, 3, 1, 3 };

  case_begin (&c, "TopK", 11, "x,k", 2);
  case_input (&c, 0, FW_DTYPE_FLOAT, 2, xd, x, FALSE);
  case_input (&c, 1, FW_DTYPE_INT64, 1, kd, k, TRUE);
  case_run (&c);
  check (c.out[0], FW_DTYPE_FLOAT, 2, yd, top, 0);
  check (c.out[1], FW_DTYPE_INT64, 2, yd, top_i, 0);
  case_clear (&c);

  n = case_begin (&c, "TopK", 11, "x,k", 2);
  fw_node_set_attr_int (n, "largest", 0);
  case_input (&c, 0, FW_DTYPE_INT64, 2, xd, x, FALSE);
  case_input (&c, 1, FW_DTYPE_INT64, 1, kd, k, TRUE);
  case_run (&c);
  check (c.out[0], FW_DTYPE_INT64, 2, yd, low, 0);
  check (c.out[1], FW_DTYPE_INT64, 2, yd, low_i, 0);
  case_clear (&c);

  /* k larger than the axis */
  {
    double big[1] = { 5 };

    case_begin (&c, "TopK", 11, "x,k", 2);
    case_input (&c, 0, FW_DTYPE_FLOAT, 2, xd, x, FALSE);
    case_input (&c, 1, FW_DTYPE_INT64, 1, kd, big, TRUE);
    expect_refusal (&c);
    case_clear (&c);
  }
}

static void
test_einsum (void)
{
  Case c;
  FwNode *n;
  gint64 ad[3] = { 2, 2, 3 }, bd[3] = { 2, 3, 2 }, yd[3] = { 2, 2, 2 }, sq[2] = { 3, 3 }, one[1] = { 3 };
  double y[8] = { 10, 13, 28, 40, 172, 193, 244, 274 };
  double tr[1] = { 0 + 4 + 8 }, tt[9] = { 0, 3, 6, 1, 4, 7, 2, 5, 8 }, rs[3] = { 3, 12, 21 };

  n = case_begin (&c, "Einsum", 12, "a,b", 1);
  fw_node_set_attr_string (n, "equation", "bij,bjk->bik");
  case_input (&c, 0, FW_DTYPE_FLOAT, 3, ad, NULL, FALSE);
  case_input (&c, 1, FW_DTYPE_FLOAT, 3, bd, NULL, FALSE);
  case_run (&c);
  check (c.out[0], FW_DTYPE_FLOAT, 3, yd, y, 1e-6);
  case_clear (&c);

  n = case_begin (&c, "Einsum", 12, "a", 1);
  fw_node_set_attr_string (n, "equation", "ii->");
  case_input (&c, 0, FW_DTYPE_FLOAT, 2, sq, NULL, FALSE);
  case_run (&c);
  check (c.out[0], FW_DTYPE_FLOAT, 0, NULL, tr, 1e-6);
  case_clear (&c);

  n = case_begin (&c, "Einsum", 12, "a", 1);
  fw_node_set_attr_string (n, "equation", "ij->ji");
  case_input (&c, 0, FW_DTYPE_INT64, 2, sq, NULL, FALSE);
  case_run (&c);
  check (c.out[0], FW_DTYPE_INT64, 2, sq, tt, 0);
  case_clear (&c);

  n = case_begin (&c, "Einsum", 12, "a", 1);
  fw_node_set_attr_string (n, "equation", "ij->i");
  case_input (&c, 0, FW_DTYPE_DOUBLE, 2, sq, NULL, FALSE);
  case_run (&c);
  check (c.out[0], FW_DTYPE_DOUBLE, 1, one, rs, 0);
  case_clear (&c);

  n = case_begin (&c, "Einsum", 12, "a", 1);
  fw_node_set_attr_string (n, "equation", "...ij->...ji");
  case_input (&c, 0, FW_DTYPE_FLOAT, 2, sq, NULL, FALSE);
  expect_refusal (&c);
  case_clear (&c);
}

/* ---- a whole model ---- */

static void
test_conv_block_model (void)
{
  g_autoptr(FwModel) model = NULL;
  g_autoptr(FwExecContext) ctx = NULL;
  g_autoptr(GPtrArray) inputs = NULL;
  g_autoptr(GError) error = NULL;
  FwArray *out[4] = { NULL };
  FwGraph *g;

  if (fw_kernel_lookup ("", "Relu") == NULL || fw_kernel_lookup ("", "BatchNormalization") == NULL
      || fw_kernel_lookup ("", "Flatten") == NULL)
    {
      g_test_skip ("the elementwise and tensor kernels are not there yet");
      return;
    }
  model = fw_test_conv_block ();
  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  g = fw_model_get_graph (model);
  ctx = fw_exec_context_new (2, NULL);
  inputs = fw_exec_make_inputs (model, 42, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (fw_graph_get_n_outputs (g), <=, 4);
  if (!fw_exec_run_reference (ctx, g, (FwArray *const *) inputs->pdata, inputs->len, out, NULL, &error))
    g_error ("%s", error->message);
  for (guint i = 0; i < fw_graph_get_n_outputs (g); i++)
    {
      g_assert_nonnull (out[i]);
      for (gint64 k = 0; k < out[i]->n_elements; k++)
        g_assert_true (isfinite (fw_array_get_double (out[i], k)));
      fw_array_unref (out[i]);
    }
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/exec/nn/matmul/batched", test_matmul_batched);
  g_test_add_func ("/core/exec/nn/matmul/broadcast", test_matmul_broadcast);
  g_test_add_func ("/core/exec/nn/matmul/batched-threads", test_matmul_batched_threads);
  g_test_add_func ("/core/exec/nn/matmul/vectors", test_matmul_vectors);
  g_test_add_func ("/core/exec/nn/matmul/dtypes", test_matmul_dtypes);
  g_test_add_func ("/core/exec/nn/matmul/integer", test_matmul_integer);
  g_test_add_func ("/core/exec/nn/matmul/errors", test_matmul_errors);
  g_test_add_func ("/core/exec/nn/gemm/trans-alpha-beta", test_gemm);
  g_test_add_func ("/core/exec/nn/conv/pads-strides-bias", test_conv_pads_strides);
  g_test_add_func ("/core/exec/nn/conv/dilation", test_conv_dilation);
  g_test_add_func ("/core/exec/nn/conv/group", test_conv_group);
  g_test_add_func ("/core/exec/nn/conv/same", test_conv_same);
  g_test_add_func ("/core/exec/nn/conv/errors", test_conv_errors);
  g_test_add_func ("/core/exec/nn/conv-transpose", test_conv_transpose);
  g_test_add_func ("/core/exec/nn/pool/max-ceil-indices", test_pool_max_ceil);
  g_test_add_func ("/core/exec/nn/pool/max-fast-path", test_pool_max_fast_path);
  g_test_add_func ("/core/exec/nn/pool/average-pads", test_pool_average_pads);
  g_test_add_func ("/core/exec/nn/pool/lp-global", test_pool_lp_and_global);
  g_test_add_func ("/core/exec/nn/reduce/each", test_reduce_all);
  g_test_add_func ("/core/exec/nn/reduce/axes", test_reduce_all_axes);
  g_test_add_func ("/core/exec/nn/arg-reduce", test_arg_reduce);
  g_test_add_func ("/core/exec/nn/softmax/opsets", test_softmax_opsets);
  g_test_add_func ("/core/exec/nn/norm/layer", test_layer_norm);
  g_test_add_func ("/core/exec/nn/norm/instance-group", test_instance_group_norm);
  g_test_add_func ("/core/exec/nn/norm/lrn-lp-mvn", test_lrn_lp_mvn);
  g_test_add_func ("/core/exec/nn/cumsum", test_cumsum);
  g_test_add_func ("/core/exec/nn/topk", test_topk);
  g_test_add_func ("/core/exec/nn/einsum", test_einsum);
  g_test_add_func ("/core/exec/nn/model/conv-block", test_conv_block_model);
  return g_test_run ();
}
