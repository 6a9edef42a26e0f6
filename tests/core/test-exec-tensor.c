/* test-exec-tensor.c: the data-movement, shape and control-flow reference kernels on hand-computed cases.
 * Resize expectations come from a port of ONNX's reference implementation (interpolate_nd). */
#include "config.h"

#include <math.h>
#include <string.h>

#include "fw-error.h"
#include "fw-test-models.h"
#include "exec/fw-exec.h"
#include "graph/fw-graph-private.h"

#define DIMS(...) ((const gint64[]) { __VA_ARGS__ })
#define VALS(...) ((const double[]) { __VA_ARGS__ })

static FwArray *
mk (FwDType dtype, guint rank, const gint64 *dims, const double *values)
{
  g_autoptr(GError) error = NULL;
  FwArray *a = fw_array_new (dtype, rank, dims, &error);

  g_assert_no_error (error);
  for (gint64 i = 0; i < a->n_elements; i++)
    fw_array_set_double (a, i, values ? values[i] : (double) i);
  return a;
}

static FwArray *
ints (guint n, const double *values)
{
  gint64 d = n;
  return mk (FW_DTYPE_INT64, 1, &d, values);
}

static FwArray *
scalar_i (gint64 v)
{
  double d = (double) v;
  return mk (FW_DTYPE_INT64, 0, NULL, &d);
}

static void
check (const FwArray *a, guint rank, const gint64 *dims, const double *values)
{
  g_autofree char *got = fw_array_format_shape (a);

  if (a->rank != rank || (rank > 0 && memcmp (a->dims, dims, rank * sizeof (gint64)) != 0))
    g_error ("shape %s", got);
  for (gint64 i = 0; values != NULL && i < a->n_elements; i++)
    {
      double v = fw_array_get_double (a, i);
      if (fabs (v - values[i]) > 1e-5 * MAX (1.0, fabs (values[i])))
        g_error ("element %" G_GINT64_FORMAT " is %.9g, expected %.9g", i, v, values[i]);
    }
}

/* ---- one node built into a model, inferred, then run on arrays ---- */

typedef struct
{
  FwModel   *model;
  FwGraph   *g;
  GPtrArray *names;
  GPtrArray *arrays;
  FwNode    *node;
  const char *op;
  gint64     opset;
  guint      n_out;
  FwArray   *out[8];
} Op;

static Op *
op_new (gint64 opset, const char *op_type, guint n_out)
{
  Op *c = g_new0 (Op, 1);

  c->model = fw_test_model_new (opset);
  c->g = fw_model_get_graph (c->model);
  c->names = g_ptr_array_new_with_free_func (g_free);
  c->arrays = g_ptr_array_new ();
  c->op = op_type;
  c->opset = opset;
  c->n_out = n_out;
  return c;
}

static void
op_free (Op *c)
{
  for (guint i = 0; i < c->n_out; i++)
    g_clear_pointer (&c->out[i], fw_array_unref);
  for (guint i = 0; i < c->arrays->len; i++)
    if (g_ptr_array_index (c->arrays, i))
      fw_array_unref (g_ptr_array_index (c->arrays, i));
  g_ptr_array_unref (c->arrays);
  g_ptr_array_unref (c->names);
  g_object_unref (c->model);
  g_free (c);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Op, op_free)

/* An input the shape inference sees as a constant (so it checks the kernel's output shape), taking a. */
static void
op_const (Op *c, FwArray *a)
{
  g_autofree char *name = g_strdup_printf ("in%u", c->arrays->len);
  g_autoptr(FwTensor) t = fw_array_to_tensor (a);
  g_autoptr(GError) error = NULL;

  g_assert_nonnull (fw_graph_add_initializer (c->g, name, t, &error));
  g_assert_no_error (error);
  g_ptr_array_add (c->names, g_steal_pointer (&name));
  g_ptr_array_add (c->arrays, a);
}

/* An input known only by its type and shape, so inference cannot refuse bad values before the kernel. */
static void
op_dyn (Op *c, FwArray *a)
{
  g_autofree char *name = g_strdup_printf ("in%u", c->arrays->len);
  FwDim dims[FW_MAX_RANK];
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < a->rank; i++)
    dims[i] = FW_DIM_STATIC (a->dims[i]);
  g_assert_nonnull (fw_graph_add_input (c->g, name, a->dtype, (gint) a->rank, dims, &error));
  g_assert_no_error (error);
  g_ptr_array_add (c->names, g_steal_pointer (&name));
  g_ptr_array_add (c->arrays, a);
}

static void
op_none (Op *c)
{
  g_ptr_array_add (c->names, g_strdup (""));
  g_ptr_array_add (c->arrays, NULL);
}

static FwNode *
op_node (Op *c)
{
  if (c->node == NULL)
    {
      const char *outs[8];
      g_autoptr(GError) error = NULL;

      for (guint i = 0; i < c->n_out; i++)
        outs[i] = fw_graph_intern (c->g, i == 0 ? "y0" : i == 1 ? "y1" : i == 2 ? "y2" : "y3");
      c->node = fw_graph_add_node (c->g, c->op, "", "n", c->names->len, (const char *const *) c->names->pdata,
                                   c->n_out, outs, &error);
      g_assert_no_error (error);
      c->node->opset = c->opset;
      for (guint i = 0; i < c->n_out; i++)
        g_assert_true (fw_graph_add_output (c->g, outs[i], NULL));
    }
  return c->node;
}

static gboolean
op_run (Op *c, GError **error)
{
  g_autoptr(FwExecContext) ctx = fw_exec_context_new (1, NULL);
  FwNode *node = op_node (c);

  g_assert_true (fw_graph_link (c->g, NULL));
  if (!fw_test_infer (c->model, NULL, NULL, error))
    return FALSE;
  return fw_exec_run_node (ctx, node, (FwArray *const *) c->arrays->pdata, c->out, error);
}

static void
op_ok (Op *c)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (op_run (c, &error));
  g_assert_no_error (error);
}

static void
op_fails (Op *c)
{
  g_autoptr(GError) error = NULL;

  g_assert_false (op_run (c, &error));
  g_assert_nonnull (error);
  g_test_message ("expected error: %s", error->message);
}

/* ---- Reshape, Flatten, Squeeze, Unsqueeze ---- */

static void
test_reshape (void)
{
  g_autoptr(Op) c = op_new (14, "Reshape", 1);
  FwArray *x = mk (FW_DTYPE_FLOAT, 3, DIMS (2, 3, 4), NULL);

  op_dyn (c, x);
  op_const (c, ints (3, VALS (0, -1, 2)));
  op_ok (c);
  check (c->out[0], 3, DIMS (2, 6, 2), NULL);
  /* A view: the same bytes. */
  g_assert_true (c->out[0]->data == x->data);
}

static void
test_reshape_allowzero (void)
{
  g_autoptr(Op) c = op_new (14, "Reshape", 1);

  op_dyn (c, mk (FW_DTYPE_FLOAT, 2, DIMS (0, 3), NULL));
  op_const (c, ints (3, VALS (3, 0, 5)));
  fw_node_set_attr_int (op_node (c), "allowzero", 1);
  op_ok (c);
  check (c->out[0], 3, DIMS (3, 0, 5), NULL);
}

static void
test_reshape_errors (void)
{
  static const double bad[][3] = { { -1, -1, 4 }, { -2, 3, 4 }, { 5, 5, 1 } };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(Op) c = op_new (14, "Reshape", 1);

      op_dyn (c, mk (FW_DTYPE_FLOAT, 2, DIMS (4, 6), NULL));
      op_dyn (c, ints (3, bad[i]));
      op_fails (c);
    }
}

static void
test_flatten (void)
{
  g_autoptr(Op) c = op_new (13, "Flatten", 1);

  op_dyn (c, mk (FW_DTYPE_FLOAT16, 4, DIMS (2, 3, 4, 5), NULL));
  fw_node_set_attr_int (op_node (c), "axis", -2);
  op_ok (c);
  check (c->out[0], 2, DIMS (6, 20), NULL);
}

static void
test_squeeze (void)
{
  {
    g_autoptr(Op) c = op_new (11, "Squeeze", 1);
    op_dyn (c, mk (FW_DTYPE_BOOL, 4, DIMS (1, 3, 1, 2), VALS (1, 0, 0, 1, 1, 1)));
    fw_node_set_attr_ints (op_node (c), "axes", 1, DIMS (-2));
    op_ok (c);
    check (c->out[0], 3, DIMS (1, 3, 2), VALS (1, 0, 0, 1, 1, 1));
  }
  {
    g_autoptr(Op) c = op_new (13, "Squeeze", 1);
    op_dyn (c, mk (FW_DTYPE_INT64, 4, DIMS (1, 3, 1, 2), NULL));
    op_ok (c);
    check (c->out[0], 2, DIMS (3, 2), VALS (0, 1, 2, 3, 4, 5));
  }
  {
    g_autoptr(Op) c = op_new (13, "Squeeze", 1);
    op_dyn (c, mk (FW_DTYPE_INT64, 2, DIMS (3, 2), NULL));
    op_dyn (c, ints (1, VALS (0)));
    op_fails (c);
  }
}

static void
test_unsqueeze (void)
{
  {
    g_autoptr(Op) c = op_new (13, "Unsqueeze", 1);
    op_dyn (c, mk (FW_DTYPE_FLOAT, 2, DIMS (3, 4), NULL));
    op_const (c, ints (2, VALS (0, -1)));
    op_ok (c);
    check (c->out[0], 4, DIMS (1, 3, 4, 1), NULL);
  }
  {
    g_autoptr(Op) c = op_new (11, "Unsqueeze", 1);
    op_dyn (c, mk (FW_DTYPE_FLOAT, 0, NULL, VALS (7)));
    fw_node_set_attr_ints (op_node (c), "axes", 1, DIMS (0));
    op_ok (c);
    check (c->out[0], 1, DIMS (1), VALS (7));
  }
}

/* ---- Transpose, DepthToSpace, SpaceToDepth ---- */

static void
test_transpose (void)
{
  {
    g_autoptr(Op) c = op_new (13, "Transpose", 1);
    op_dyn (c, mk (FW_DTYPE_INT64, 3, DIMS (2, 3, 4), NULL));
    fw_node_set_attr_ints (op_node (c), "perm", 3, DIMS (1, 2, 0));
    op_ok (c);
    check (c->out[0], 3, DIMS (3, 4, 2),
           VALS (0, 12, 1, 13, 2, 14, 3, 15, 4, 16, 5, 17, 6, 18, 7, 19, 8, 20, 9, 21, 10, 22, 11, 23));
  }
  {
    /* Default: reversed axes. */
    g_autoptr(Op) c = op_new (13, "Transpose", 1);
    op_dyn (c, mk (FW_DTYPE_UINT8, 2, DIMS (2, 3), NULL));
    op_ok (c);
    check (c->out[0], 2, DIMS (3, 2), VALS (0, 3, 1, 4, 2, 5));
  }
}

static void
test_transpose_large (void)
{
  g_autoptr(Op) c = op_new (13, "Transpose", 1);
  FwArray *x = mk (FW_DTYPE_FLOAT, 4, DIMS (2, 67, 3, 129), NULL);
  const float *in, *out;

  op_dyn (c, x);
  fw_node_set_attr_ints (op_node (c), "perm", 4, DIMS (0, 3, 2, 1));
  op_ok (c);
  check (c->out[0], 4, DIMS (2, 129, 3, 67), NULL);
  in = x->data;
  out = c->out[0]->data;
  for (gint64 a = 0; a < 2; a++)
    for (gint64 b = 0; b < 129; b++)
      for (gint64 d = 0; d < 3; d++)
        for (gint64 e = 0; e < 67; e++)
          g_assert_cmpfloat (out[((a * 129 + b) * 3 + d) * 67 + e], ==, in[((a * 67 + e) * 3 + d) * 129 + b]);
}

static void
test_transpose_tiled (void)
{
  /* A plain matrix transpose takes the tiled path; odd sizes cover the partial tiles. */
  g_autoptr(Op) c = op_new (13, "Transpose", 1);
  FwArray *x = mk (FW_DTYPE_INT64, 2, DIMS (70, 45), NULL);
  const gint64 *in, *out;

  op_dyn (c, x);
  op_ok (c);
  check (c->out[0], 2, DIMS (45, 70), NULL);
  in = x->data;
  out = c->out[0]->data;
  for (gint64 r = 0; r < 45; r++)
    for (gint64 k = 0; k < 70; k++)
      g_assert_cmpint (out[r * 70 + k], ==, in[k * 45 + r]);
}

static void
test_depth_to_space (void)
{
  /* x[0, c, 0, 0] = c for 8 channels, blocksize 2. */
  {
    g_autoptr(Op) c = op_new (13, "DepthToSpace", 1);
    op_dyn (c, mk (FW_DTYPE_FLOAT, 4, DIMS (1, 8, 1, 1), NULL));
    fw_node_set_attr_int (op_node (c), "blocksize", 2);
    op_ok (c);
    /* DCR: out[0, c', i, j] = x[0, (i*2 + j)*2 + c'] */
    check (c->out[0], 4, DIMS (1, 2, 2, 2), VALS (0, 2, 4, 6, 1, 3, 5, 7));
  }
  {
    g_autoptr(Op) c = op_new (13, "DepthToSpace", 1);
    op_dyn (c, mk (FW_DTYPE_FLOAT, 4, DIMS (1, 8, 1, 1), NULL));
    fw_node_set_attr_int (op_node (c), "blocksize", 2);
    fw_node_set_attr_string (op_node (c), "mode", "CRD");
    op_ok (c);
    /* CRD: out[0, c', i, j] = x[0, c'*4 + i*2 + j] */
    check (c->out[0], 4, DIMS (1, 2, 2, 2), VALS (0, 1, 2, 3, 4, 5, 6, 7));
  }
  {
    /* SpaceToDepth inverts DCR. */
    g_autoptr(Op) c = op_new (13, "SpaceToDepth", 1);
    op_dyn (c, mk (FW_DTYPE_FLOAT, 4, DIMS (1, 2, 2, 2), VALS (0, 2, 4, 6, 1, 3, 5, 7)));
    fw_node_set_attr_int (op_node (c), "blocksize", 2);
    op_ok (c);
    check (c->out[0], 4, DIMS (1, 8, 1, 1), VALS (0, 1, 2, 3, 4, 5, 6, 7));
  }
}

/* ---- Concat, Split ---- */

static void
test_concat (void)
{
  g_autoptr(Op) c = op_new (13, "Concat", 1);

  op_dyn (c, mk (FW_DTYPE_INT32, 2, DIMS (2, 1), VALS (1, 2)));
  op_dyn (c, mk (FW_DTYPE_INT32, 2, DIMS (2, 0), NULL));
  op_dyn (c, mk (FW_DTYPE_INT32, 2, DIMS (2, 2), VALS (3, 4, 5, 6)));
  fw_node_set_attr_int (op_node (c), "axis", -1);
  op_ok (c);
  check (c->out[0], 2, DIMS (2, 3), VALS (1, 3, 4, 2, 5, 6));
}

static void
test_concat_mismatch (void)
{
  g_autoptr(Op) c = op_new (13, "Concat", 1);

  op_dyn (c, mk (FW_DTYPE_FLOAT, 2, DIMS (2, 1), NULL));
  op_dyn (c, mk (FW_DTYPE_FLOAT, 2, DIMS (3, 1), NULL));
  fw_node_set_attr_int (op_node (c), "axis", 1);
  /* Inference refuses this already; the kernel must too, when run on its own. */
  {
    g_autoptr(FwExecContext) ctx = fw_exec_context_new (1, NULL);
    g_autoptr(GError) error = NULL;
    FwArray *out[1] = { NULL };

    g_assert_true (fw_graph_link (c->g, NULL));
    g_assert_false (fw_exec_run_node (ctx, op_node (c), (FwArray *const *) c->arrays->pdata, out, &error));
    g_assert_error (error, FW_ERROR, FW_ERROR_INVALID);
  }
}

static void
test_split (void)
{
  {
    /* Opset 18 num_outputs with an uneven last chunk: 5 → 2, 2, 1. */
    g_autoptr(Op) c = op_new (18, "Split", 3);
    op_dyn (c, mk (FW_DTYPE_FLOAT, 2, DIMS (2, 5), NULL));
    fw_node_set_attr_int (op_node (c), "axis", 1);
    fw_node_set_attr_int (op_node (c), "num_outputs", 3);
    op_ok (c);
    check (c->out[0], 2, DIMS (2, 2), VALS (0, 1, 5, 6));
    check (c->out[1], 2, DIMS (2, 2), VALS (2, 3, 7, 8));
    check (c->out[2], 2, DIMS (2, 1), VALS (4, 9));
  }
  {
    /* Opset 11 split attribute. */
    g_autoptr(Op) c = op_new (11, "Split", 2);
    op_dyn (c, mk (FW_DTYPE_INT64, 1, DIMS (5), NULL));
    fw_node_set_attr_ints (op_node (c), "split", 2, DIMS (1, 4));
    op_ok (c);
    check (c->out[0], 1, DIMS (1), VALS (0));
    check (c->out[1], 1, DIMS (4), VALS (1, 2, 3, 4));
  }
  {
    /* Opset 13 split input. */
    g_autoptr(Op) c = op_new (13, "Split", 2);
    op_dyn (c, mk (FW_DTYPE_INT64, 2, DIMS (3, 2), NULL));
    op_const (c, ints (2, VALS (2, 1)));
    op_ok (c);
    check (c->out[0], 2, DIMS (2, 2), VALS (0, 1, 2, 3));
    check (c->out[1], 2, DIMS (1, 2), VALS (4, 5));
  }
  {
    g_autoptr(Op) c = op_new (13, "Split", 2);
    op_dyn (c, mk (FW_DTYPE_INT64, 1, DIMS (3), NULL));
    op_dyn (c, ints (2, VALS (2, 2)));
    op_fails (c);
  }
}

/* ---- Slice ---- */

static void
test_slice (void)
{
  g_autoptr(Op) c = op_new (13, "Slice", 1);

  op_dyn (c, mk (FW_DTYPE_FLOAT, 2, DIMS (3, 4), NULL));
  op_const (c, ints (2, VALS (1, -100)));
  op_const (c, ints (2, VALS (1000, 3)));
  op_const (c, ints (2, VALS (0, -1)));
  op_ok (c);
  check (c->out[0], 2, DIMS (2, 3), VALS (4, 5, 6, 8, 9, 10));
}

static void
test_slice_negative_step (void)
{
  {
    g_autoptr(Op) c = op_new (13, "Slice", 1);
    op_dyn (c, mk (FW_DTYPE_INT64, 2, DIMS (2, 5), NULL));
    op_const (c, ints (1, VALS (-1)));
    op_const (c, ints (1, VALS ((double) G_MININT64)));
    op_const (c, ints (1, VALS (1)));
    op_const (c, ints (1, VALS (-2)));
    op_ok (c);
    check (c->out[0], 2, DIMS (2, 3), VALS (4, 2, 0, 9, 7, 5));
  }
  {
    /* Start past the end clamps to the last element. */
    g_autoptr(Op) c = op_new (13, "Slice", 1);
    op_dyn (c, mk (FW_DTYPE_INT64, 1, DIMS (4), NULL));
    op_const (c, ints (1, VALS (10)));
    op_const (c, ints (1, VALS (0)));
    op_none (c);
    op_const (c, ints (1, VALS (-1)));
    op_ok (c);
    check (c->out[0], 1, DIMS (3), VALS (3, 2, 1));
  }
}

static void
test_slice_opset1 (void)
{
  g_autoptr(Op) c = op_new (9, "Slice", 1);

  op_dyn (c, mk (FW_DTYPE_FLOAT, 2, DIMS (3, 4), NULL));
  fw_node_set_attr_ints (op_node (c), "starts", 1, DIMS (1));
  fw_node_set_attr_ints (op_node (c), "ends", 1, DIMS (-1));
  fw_node_set_attr_ints (op_node (c), "axes", 1, DIMS (1));
  op_ok (c);
  check (c->out[0], 2, DIMS (3, 2), VALS (1, 2, 5, 6, 9, 10));
}

/* ---- Gather, GatherElements, GatherND ---- */

static void
test_gather (void)
{
  {
    g_autoptr(Op) c = op_new (13, "Gather", 1);
    op_dyn (c, mk (FW_DTYPE_FLOAT, 2, DIMS (3, 2), NULL));
    op_const (c, mk (FW_DTYPE_INT64, 2, DIMS (2, 2), VALS (0, -1, 1, 2)));
    fw_node_set_attr_int (op_node (c), "axis", 0);
    op_ok (c);
    check (c->out[0], 3, DIMS (2, 2, 2), VALS (0, 1, 4, 5, 2, 3, 4, 5));
  }
  {
    g_autoptr(Op) c = op_new (13, "Gather", 1);
    op_dyn (c, mk (FW_DTYPE_FLOAT, 2, DIMS (2, 3), NULL));
    op_const (c, mk (FW_DTYPE_INT32, 0, NULL, VALS (-1)));
    fw_node_set_attr_int (op_node (c), "axis", 1);
    op_ok (c);
    check (c->out[0], 1, DIMS (2), VALS (2, 5));
  }
  {
    g_autoptr(Op) c = op_new (13, "Gather", 1);
    op_dyn (c, mk (FW_DTYPE_FLOAT, 2, DIMS (2, 3), NULL));
    op_dyn (c, mk (FW_DTYPE_INT64, 1, DIMS (1), VALS (3)));
    fw_node_set_attr_int (op_node (c), "axis", 1);
    op_fails (c);
  }
}

static void
test_gather_elements (void)
{
  {
    g_autoptr(Op) c = op_new (13, "GatherElements", 1);
    op_dyn (c, mk (FW_DTYPE_INT64, 2, DIMS (2, 2), VALS (1, 2, 3, 4)));
    op_dyn (c, mk (FW_DTYPE_INT64, 2, DIMS (2, 2), VALS (0, 0, 1, -2)));
    fw_node_set_attr_int (op_node (c), "axis", 1);
    op_ok (c);
    check (c->out[0], 2, DIMS (2, 2), VALS (1, 1, 4, 3));
  }
  {
    g_autoptr(Op) c = op_new (13, "GatherElements", 1);
    op_dyn (c, mk (FW_DTYPE_INT64, 2, DIMS (3, 3), NULL));
    op_dyn (c, mk (FW_DTYPE_INT64, 2, DIMS (2, 3), VALS (1, 2, 0, 2, 0, 0)));
    op_ok (c);
    check (c->out[0], 2, DIMS (2, 3), VALS (3, 7, 2, 6, 1, 2));
  }
  {
    g_autoptr(Op) c = op_new (13, "GatherElements", 1);
    op_dyn (c, mk (FW_DTYPE_INT64, 2, DIMS (2, 2), NULL));
    op_dyn (c, mk (FW_DTYPE_INT64, 2, DIMS (2, 2), VALS (0, 0, 5, 0)));
    op_fails (c);
  }
}

static void
test_gather_nd (void)
{
  {
    g_autoptr(Op) c = op_new (13, "GatherND", 1);
    op_dyn (c, mk (FW_DTYPE_INT32, 3, DIMS (2, 2, 2), NULL));
    op_dyn (c, mk (FW_DTYPE_INT64, 2, DIMS (2, 2), VALS (0, 1, -1, 0)));
    op_ok (c);
    check (c->out[0], 2, DIMS (2, 2), VALS (2, 3, 4, 5));
  }
  {
    /* batch_dims 1: data [2,2,2], indices [2,1] → out [2,2]. */
    g_autoptr(Op) c = op_new (13, "GatherND", 1);
    op_dyn (c, mk (FW_DTYPE_INT32, 3, DIMS (2, 2, 2), NULL));
    op_dyn (c, mk (FW_DTYPE_INT64, 2, DIMS (2, 1), VALS (1, 0)));
    fw_node_set_attr_int (op_node (c), "batch_dims", 1);
    op_ok (c);
    check (c->out[0], 2, DIMS (2, 2), VALS (2, 3, 4, 5));
  }
  {
    g_autoptr(Op) c = op_new (13, "GatherND", 1);
    op_dyn (c, mk (FW_DTYPE_INT32, 2, DIMS (2, 2), NULL));
    op_dyn (c, mk (FW_DTYPE_INT64, 2, DIMS (1, 2), VALS (0, -3)));
    op_fails (c);
  }
}

/* ---- ScatterElements, ScatterND ---- */

static void
test_scatter_elements (void)
{
  static const char *const reductions[] = { "none", "add", "mul", "max", "min" };

  for (guint r = 0; r < G_N_ELEMENTS (reductions); r++)
    {
      g_autoptr(Op) c = op_new (18, "ScatterElements", 1);
      /* data [1,5] = 1..5; indices [1,2] = {1, 3}; updates {10, 20} along axis 1. */
      op_dyn (c, mk (FW_DTYPE_FLOAT, 2, DIMS (1, 5), VALS (1, 2, 3, 4, 5)));
      op_dyn (c, mk (FW_DTYPE_INT64, 2, DIMS (1, 2), VALS (1, -2)));
      op_dyn (c, mk (FW_DTYPE_FLOAT, 2, DIMS (1, 2), VALS (10, 20)));
      fw_node_set_attr_int (op_node (c), "axis", 1);
      fw_node_set_attr_string (op_node (c), "reduction", reductions[r]);
      op_ok (c);
      switch (r)
        {
        case 0: check (c->out[0], 2, DIMS (1, 5), VALS (1, 10, 3, 20, 5)); break;
        case 1: check (c->out[0], 2, DIMS (1, 5), VALS (1, 12, 3, 24, 5)); break;
        case 2: check (c->out[0], 2, DIMS (1, 5), VALS (1, 20, 3, 80, 5)); break;
        case 3: check (c->out[0], 2, DIMS (1, 5), VALS (1, 10, 3, 20, 5)); break;
        default: check (c->out[0], 2, DIMS (1, 5), VALS (1, 2, 3, 4, 5)); break;
        }
    }
  {
    g_autoptr(Op) c = op_new (13, "ScatterElements", 1);
    op_dyn (c, mk (FW_DTYPE_FLOAT, 1, DIMS (3), NULL));
    op_dyn (c, mk (FW_DTYPE_INT64, 1, DIMS (1), VALS (3)));
    op_dyn (c, mk (FW_DTYPE_FLOAT, 1, DIMS (1), VALS (1)));
    op_fails (c);
  }
}

static void
test_scatter_nd (void)
{
  {
    g_autoptr(Op) c = op_new (16, "ScatterND", 1);
    op_dyn (c, mk (FW_DTYPE_INT64, 1, DIMS (8), VALS (1, 2, 3, 4, 5, 6, 7, 8)));
    op_dyn (c, mk (FW_DTYPE_INT64, 2, DIMS (4, 1), VALS (4, 3, 1, 7)));
    op_dyn (c, mk (FW_DTYPE_INT64, 1, DIMS (4), VALS (9, 10, 11, 12)));
    op_ok (c);
    check (c->out[0], 1, DIMS (8), VALS (1, 11, 3, 10, 9, 6, 7, 12));
  }
  {
    /* Slices, with add: indices [[0],[0]] add updates twice to row 0. */
    g_autoptr(Op) c = op_new (16, "ScatterND", 1);
    op_dyn (c, mk (FW_DTYPE_FLOAT, 2, DIMS (2, 2), VALS (1, 1, 1, 1)));
    op_dyn (c, mk (FW_DTYPE_INT64, 2, DIMS (2, 1), VALS (0, 0)));
    op_dyn (c, mk (FW_DTYPE_FLOAT, 2, DIMS (2, 2), VALS (1, 2, 3, 4)));
    fw_node_set_attr_string (op_node (c), "reduction", "add");
    op_ok (c);
    check (c->out[0], 2, DIMS (2, 2), VALS (5, 7, 1, 1));
  }
  {
    g_autoptr(Op) c = op_new (16, "ScatterND", 1);
    op_dyn (c, mk (FW_DTYPE_FLOAT, 1, DIMS (2), NULL));
    op_dyn (c, mk (FW_DTYPE_INT64, 2, DIMS (1, 1), VALS (-3)));
    op_dyn (c, mk (FW_DTYPE_FLOAT, 1, DIMS (1), VALS (1)));
    op_fails (c);
  }
}

/* ---- Expand, Tile, Pad, Trilu ---- */

static void
test_expand (void)
{
  {
    g_autoptr(Op) c = op_new (13, "Expand", 1);
    op_dyn (c, mk (FW_DTYPE_FLOAT16, 2, DIMS (3, 1), VALS (1, 2, 3)));
    op_const (c, ints (3, VALS (2, 1, 2)));
    op_ok (c);
    check (c->out[0], 3, DIMS (2, 3, 2), VALS (1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3));
  }
  {
    g_autoptr(Op) c = op_new (13, "Expand", 1);
    op_dyn (c, mk (FW_DTYPE_FLOAT, 1, DIMS (1), NULL));
    op_dyn (c, ints (3, VALS (1 << 20, 1 << 20, 1 << 20)));
    op_fails (c);
  }
  {
    g_autoptr(Op) c = op_new (13, "Expand", 1);
    op_dyn (c, mk (FW_DTYPE_FLOAT, 1, DIMS (1), NULL));
    op_dyn (c, ints (1, VALS (-4)));
    op_fails (c);
  }
}

static void
test_tile (void)
{
  {
    g_autoptr(Op) c = op_new (13, "Tile", 1);
    op_dyn (c, mk (FW_DTYPE_BOOL, 2, DIMS (1, 2), VALS (1, 0)));
    op_const (c, ints (2, VALS (2, 2)));
    op_ok (c);
    check (c->out[0], 2, DIMS (2, 4), VALS (1, 0, 1, 0, 1, 0, 1, 0));
  }
  {
    g_autoptr(Op) c = op_new (13, "Tile", 1);
    op_dyn (c, mk (FW_DTYPE_INT64, 2, DIMS (2, 2), NULL));
    op_const (c, ints (2, VALS (2, 1)));
    op_ok (c);
    check (c->out[0], 2, DIMS (4, 2), VALS (0, 1, 2, 3, 0, 1, 2, 3));
  }
  {
    g_autoptr(Op) c = op_new (13, "Tile", 1);
    op_dyn (c, mk (FW_DTYPE_INT64, 1, DIMS (2), NULL));
    op_dyn (c, ints (1, VALS (1e15)));
    op_fails (c);
  }
}

static void
test_pad (void)
{
  static const char *const modes[] = { "constant", "reflect", "edge", "wrap" };
  /* [1,2,3] padded 2 before and 3 after. */
  static const double expected[][8] = {
    { 9, 9, 1, 2, 3, 9, 9, 9 },
    { 3, 2, 1, 2, 3, 2, 1, 2 },
    { 1, 1, 1, 2, 3, 3, 3, 3 },
    { 2, 3, 1, 2, 3, 1, 2, 3 },
  };

  for (guint m = 0; m < G_N_ELEMENTS (modes); m++)
    {
      g_autoptr(Op) c = op_new (18, "Pad", 1);
      op_dyn (c, mk (FW_DTYPE_FLOAT, 2, DIMS (1, 3), VALS (1, 2, 3)));
      op_const (c, ints (2, VALS (2, 3)));
      op_const (c, mk (FW_DTYPE_FLOAT, 0, NULL, VALS (9)));
      op_const (c, ints (1, VALS (-1)));
      fw_node_set_attr_string (op_node (c), "mode", modes[m]);
      op_ok (c);
      check (c->out[0], 2, DIMS (1, 8), expected[m]);
    }
  {
    /* Opset 2: pads and value attributes; negative pads crop. */
    g_autoptr(Op) c = op_new (2, "Pad", 1);
    op_dyn (c, mk (FW_DTYPE_FLOAT, 2, DIMS (2, 3), NULL));
    fw_node_set_attr_ints (op_node (c), "pads", 4, DIMS (1, -1, 0, 0));
    fw_node_set_attr_float (op_node (c), "value", -1.5f);
    op_ok (c);
    check (c->out[0], 2, DIMS (3, 2), VALS (-1.5, -1.5, 1, 2, 4, 5));
  }
  {
    /* 2-D reflect. */
    g_autoptr(Op) c = op_new (13, "Pad", 1);
    op_dyn (c, mk (FW_DTYPE_INT32, 2, DIMS (2, 3), NULL));
    op_const (c, ints (4, VALS (1, 0, 0, 1)));
    fw_node_set_attr_string (op_node (c), "mode", "reflect");
    op_ok (c);
    check (c->out[0], 2, DIMS (3, 4), VALS (3, 4, 5, 4, 0, 1, 2, 1, 3, 4, 5, 4));
  }
  {
    g_autoptr(Op) c = op_new (13, "Pad", 1);
    op_dyn (c, mk (FW_DTYPE_INT32, 1, DIMS (2), NULL));
    op_dyn (c, ints (2, VALS (-5, 0)));
    op_fails (c);
  }
}

static void
test_trilu (void)
{
  {
    g_autoptr(Op) c = op_new (14, "Trilu", 1);
    op_dyn (c, mk (FW_DTYPE_FLOAT, 2, DIMS (3, 4), VALS (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)));
    op_const (c, scalar_i (1));
    op_ok (c);
    check (c->out[0], 2, DIMS (3, 4), VALS (0, 2, 3, 4, 0, 0, 7, 8, 0, 0, 0, 12));
  }
  {
    g_autoptr(Op) c = op_new (14, "Trilu", 1);
    op_dyn (c, mk (FW_DTYPE_INT64, 3, DIMS (1, 3, 3), VALS (1, 2, 3, 4, 5, 6, 7, 8, 9)));
    op_const (c, scalar_i (-1));
    fw_node_set_attr_int (op_node (c), "upper", 0);
    op_ok (c);
    check (c->out[0], 3, DIMS (1, 3, 3), VALS (0, 0, 0, 4, 0, 0, 7, 8, 0));
  }
}

/* ---- Shape, Size, Constant, ConstantOfShape, Range, NonZero ---- */

static void
test_shape_size (void)
{
  {
    g_autoptr(Op) c = op_new (15, "Shape", 1);
    op_dyn (c, mk (FW_DTYPE_FLOAT, 4, DIMS (2, 3, 4, 5), NULL));
    fw_node_set_attr_int (op_node (c), "start", 1);
    fw_node_set_attr_int (op_node (c), "end", -1);
    op_ok (c);
    check (c->out[0], 1, DIMS (2), VALS (3, 4));
  }
  {
    g_autoptr(Op) c = op_new (13, "Shape", 1);
    op_dyn (c, mk (FW_DTYPE_FLOAT, 2, DIMS (2, 3), NULL));
    op_ok (c);
    check (c->out[0], 1, DIMS (2), VALS (2, 3));
  }
  {
    g_autoptr(Op) c = op_new (13, "Size", 1);
    op_dyn (c, mk (FW_DTYPE_FLOAT, 2, DIMS (2, 3), NULL));
    op_ok (c);
    check (c->out[0], 0, NULL, VALS (6));
  }
}

static void
test_constant (void)
{
  {
    g_autoptr(Op) c = op_new (13, "Constant", 1);
    fw_node_set_attr_ints (op_node (c), "value_ints", 3, DIMS (4, 5, 6));
    op_ok (c);
    check (c->out[0], 1, DIMS (3), VALS (4, 5, 6));
    g_assert_cmpint (c->out[0]->dtype, ==, FW_DTYPE_INT64);
  }
  {
    g_autoptr(Op) c = op_new (13, "Constant", 1);
    fw_node_set_attr_float (op_node (c), "value_float", 2.5f);
    op_ok (c);
    check (c->out[0], 0, NULL, VALS (2.5));
  }
  {
    g_autoptr(Op) c = op_new (13, "Constant", 1);
    g_autoptr(FwTensor) t = fw_tensor_new_float (2, DIMS (1, 2), (const float[]) { 1, -1 });
    fw_node_set_attr_tensor (op_node (c), "value", t);
    op_ok (c);
    check (c->out[0], 2, DIMS (1, 2), VALS (1, -1));
  }
  {
    g_autoptr(Op) c = op_new (13, "Constant", 1);
    fw_node_set_attr_string (op_node (c), "value_string", "text");
    op_fails (c);
  }
}

static void
test_constant_of_shape (void)
{
  {
    g_autoptr(Op) c = op_new (13, "ConstantOfShape", 1);
    g_autoptr(FwTensor) t = fw_tensor_new_int64 (1, DIMS (1), (const gint64[]) { 7 });
    op_dyn (c, ints (2, VALS (2, 3)));
    fw_node_set_attr_tensor (op_node (c), "value", t);
    op_ok (c);
    check (c->out[0], 2, DIMS (2, 3), VALS (7, 7, 7, 7, 7, 7));
    g_assert_cmpint (c->out[0]->dtype, ==, FW_DTYPE_INT64);
  }
  {
    g_autoptr(Op) c = op_new (13, "ConstantOfShape", 1);
    op_dyn (c, ints (1, VALS (3)));
    op_ok (c);
    check (c->out[0], 1, DIMS (3), VALS (0, 0, 0));
    g_assert_cmpint (c->out[0]->dtype, ==, FW_DTYPE_FLOAT);
  }
  {
    g_autoptr(Op) c = op_new (13, "ConstantOfShape", 1);
    op_dyn (c, ints (2, VALS (1 << 30, 1 << 30)));
    op_fails (c);
  }
  {
    g_autoptr(Op) c = op_new (13, "ConstantOfShape", 1);
    op_dyn (c, ints (2, VALS (2, -1)));
    op_fails (c);
  }
}

static void
test_range (void)
{
  {
    g_autoptr(Op) c = op_new (13, "Range", 1);
    op_dyn (c, scalar_i (10));
    op_dyn (c, scalar_i (3));
    op_dyn (c, scalar_i (-3));
    op_ok (c);
    check (c->out[0], 1, DIMS (3), VALS (10, 7, 4));
  }
  {
    g_autoptr(Op) c = op_new (13, "Range", 1);
    op_dyn (c, mk (FW_DTYPE_FLOAT, 0, NULL, VALS (1)));
    op_dyn (c, mk (FW_DTYPE_FLOAT, 0, NULL, VALS (2)));
    op_dyn (c, mk (FW_DTYPE_FLOAT, 0, NULL, VALS (0.3)));
    op_ok (c);
    check (c->out[0], 1, DIMS (4), VALS (1, 1.3, 1.6, 1.9));
  }
  {
    g_autoptr(Op) c = op_new (13, "Range", 1);
    op_dyn (c, scalar_i (0));
    op_dyn (c, scalar_i (5));
    op_dyn (c, scalar_i (0));
    op_fails (c);
  }
}

static void
test_nonzero (void)
{
  g_autoptr(Op) c = op_new (13, "NonZero", 1);

  op_dyn (c, mk (FW_DTYPE_FLOAT, 2, DIMS (2, 2), VALS (1, 0, -0.0, 3)));
  op_ok (c);
  check (c->out[0], 2, DIMS (2, 2), VALS (0, 1, 0, 1));
}

/* ---- Resize, Upsample ---- */

static const double x24[] = { 1, 2, 3, 4, 5, 6, 7, 8 };

/* Resize-13 of the 2×4 x24 with scales (or sizes when scales is NULL) and string attributes. */
static FwArray *
resize (const double *scales, const double *sizes, const double *roi, const char *mode, const char *coord,
        const char *nearest, double cubic_a, gboolean exclude, double extrapolation)
{
  g_autoptr(Op) c = op_new (13, "Resize", 1);
  FwArray *y;

  op_dyn (c, mk (FW_DTYPE_FLOAT, 2, DIMS (2, 4), x24));
  if (roi)
    op_const (c, mk (FW_DTYPE_FLOAT, 1, DIMS (4), roi));
  else
    op_none (c);
  if (scales)
    op_const (c, mk (FW_DTYPE_FLOAT, 1, DIMS (2), scales));
  else
    op_none (c);
  if (sizes)
    op_const (c, ints (2, sizes));
  fw_node_set_attr_string (op_node (c), "mode", mode);
  fw_node_set_attr_string (op_node (c), "coordinate_transformation_mode", coord);
  if (nearest)
    fw_node_set_attr_string (op_node (c), "nearest_mode", nearest);
  fw_node_set_attr_float (op_node (c), "cubic_coeff_a", (float) cubic_a);
  fw_node_set_attr_int (op_node (c), "exclude_outside", exclude);
  fw_node_set_attr_float (op_node (c), "extrapolation_value", (float) extrapolation);
  op_ok (c);
  y = g_steal_pointer (&c->out[0]);
  return y;
}

static void
test_resize_linear (void)
{
  g_autoptr(FwArray) a = resize (VALS (2, 1.5), NULL, NULL, "linear", "half_pixel", NULL, -0.75, FALSE, 0);
  g_autoptr(FwArray) b = resize (NULL, VALS (3, 7), NULL, "linear", "align_corners", NULL, -0.75, FALSE, 0);
  g_autoptr(FwArray) c = resize (VALS (0.5, 0.75), NULL, NULL, "linear", "pytorch_half_pixel", NULL, -0.75,
                                 FALSE, 0);
  g_autoptr(FwArray) d = resize (VALS (0.5, 0.5), NULL, NULL, "linear", "asymmetric", NULL, -0.75, FALSE, 0);
  g_autoptr(FwArray) e = resize (NULL, VALS (3, 4), VALS (0, -0.5, 1, 1.2), "linear", "tf_crop_and_resize", NULL,
                                 -0.75, FALSE, 10);

  check (a, 2, DIMS (4, 6), VALS (1, 1.5, 2.16666667, 2.83333333, 3.5, 4, 2, 2.5, 3.16666667, 3.83333333, 4.5, 5,
                                  4, 4.5, 5.16666667, 5.83333333, 6.5, 7, 5, 5.5, 6.16666667, 6.83333333, 7.5, 8));
  check (b, 2, DIMS (3, 7), VALS (1, 1.5, 2, 2.5, 3, 3.5, 4, 3, 3.5, 4, 4.5, 5, 5.5, 6, 5, 5.5, 6, 6.5, 7, 7.5, 8));
  check (c, 2, DIMS (1, 3), VALS (1.16666667, 2.5, 3.83333333));
  check (d, 2, DIMS (1, 2), VALS (1, 3));
  check (e, 2, DIMS (3, 4), VALS (10, 1.2, 2.9, 10, 10, 3.2, 4.9, 10, 10, 5.2, 6.9, 10));
}

static void
test_resize_cubic (void)
{
  g_autoptr(FwArray) a = resize (VALS (2, 1.5), NULL, NULL, "cubic", "half_pixel", NULL, -0.75, FALSE, 0);
  g_autoptr(FwArray) b = resize (NULL, VALS (3, 5), NULL, "cubic", "align_corners", NULL, -0.5, TRUE, 0);
  g_autoptr(FwArray) c = resize (VALS (1.5, 0.75), NULL, NULL, "cubic", "half_pixel", NULL, -0.75, TRUE, 0);

  check (a, 2, DIMS (4, 6), VALS (0.491319444, 0.984375, 1.79108796, 2.36516204, 3.171875, 3.66493056,
                                  1.81944444, 2.3125, 3.11921296, 3.69328704, 4.5, 4.99305556,
                                  4.00694444, 4.5, 5.30671296, 5.88078704, 6.6875, 7.18055556,
                                  5.33506944, 5.828125, 6.63483796, 7.20891204, 8.015625, 8.50868056));
  check (b, 2, DIMS (3, 5), VALS (1, 1.70992366, 2.5, 3.29007634, 4, 3, 3.70992366, 4.5, 5.29007634, 6,
                                  5, 5.70992366, 6.5, 7.29007634, 8));
  check (c, 2, DIMS (3, 3), VALS (0.710675532, 2.09459459, 3.47851366, 3.11608094, 4.5, 5.88391906,
                                  5.52148634, 6.90540541, 8.28932447));
}

static void
test_resize_nearest (void)
{
  g_autoptr(FwArray) a = resize (VALS (2, 1.5), NULL, NULL, "nearest", "asymmetric", "floor", -0.75, FALSE, 0);
  g_autoptr(FwArray) b = resize (VALS (1.5, 1.5), NULL, NULL, "nearest", "half_pixel", "round_prefer_ceil",
                                 -0.75, FALSE, 0);
  g_autoptr(FwArray) c = resize (VALS (1.5, 1.5), NULL, NULL, "nearest", "half_pixel", NULL, -0.75, FALSE, 0);
  g_autoptr(FwArray) d = resize (VALS (1.5, 0.75), NULL, NULL, "nearest", "align_corners", "ceil", -0.75, FALSE, 0);

  check (a, 2, DIMS (4, 6), VALS (1, 1, 2, 3, 3, 4, 1, 1, 2, 3, 3, 4, 5, 5, 6, 7, 7, 8, 5, 5, 6, 7, 7, 8));
  check (b, 2, DIMS (3, 6), VALS (1, 2, 2, 3, 4, 4, 5, 6, 6, 7, 8, 8, 5, 6, 6, 7, 8, 8));
  check (c, 2, DIMS (3, 6), VALS (1, 1, 2, 3, 3, 4, 1, 1, 2, 3, 3, 4, 5, 5, 6, 7, 7, 8));
  check (d, 2, DIMS (3, 3), VALS (1, 3, 4, 5, 7, 8, 5, 7, 8));
}

static void
test_resize_aspect (void)
{
  /* not_larger: sizes [4, 4] of a 2×4 input → one scale min(2, 1) = 1: output 2×4, unchanged. */
  g_autoptr(Op) c = op_new (18, "Resize", 1);

  op_dyn (c, mk (FW_DTYPE_UINT8, 4, DIMS (1, 1, 2, 4), x24));
  op_none (c);
  op_none (c);
  op_const (c, ints (2, VALS (4, 4)));
  fw_node_set_attr_ints (op_node (c), "axes", 2, DIMS (2, 3));
  fw_node_set_attr_string (op_node (c), "keep_aspect_ratio_policy", "not_larger");
  op_ok (c);
  check (c->out[0], 4, DIMS (1, 1, 2, 4), x24);
}

static void
test_upsample (void)
{
  {
    g_autoptr(Op) c = op_new (7, "Upsample", 1);
    op_dyn (c, mk (FW_DTYPE_INT64, 4, DIMS (1, 1, 2, 2), VALS (1, 2, 3, 4)));
    fw_node_set_attr_floats (op_node (c), "scales", 4, (const float[]) { 1, 1, 2, 3 });
    op_ok (c);
    check (c->out[0], 4, DIMS (1, 1, 4, 6),
           VALS (1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4));
  }
  {
    /* Opset 9: scales input; linear is asymmetric. */
    g_autoptr(Op) c = op_new (9, "Upsample", 1);
    op_dyn (c, mk (FW_DTYPE_FLOAT, 2, DIMS (1, 2), VALS (1, 3)));
    op_const (c, mk (FW_DTYPE_FLOAT, 1, DIMS (2), VALS (1, 2)));
    fw_node_set_attr_string (op_node (c), "mode", "linear");
    op_ok (c);
    check (c->out[0], 2, DIMS (1, 4), VALS (1, 2, 3, 3));
  }
}

/* ---- If, Loop ---- */

static FwNode *
add_node (FwGraph *g, const char *op, guint n_in, const char *const *in, guint n_out, const char *const *out)
{
  g_autoptr(GError) error = NULL;
  FwNode *node = fw_graph_add_node (g, op, "", op, n_in, in, n_out, out, &error);

  g_assert_no_error (error);
  return node;
}

static void
test_if (void)
{
  for (int branch = 0; branch < 2; branch++)
    {
      g_autoptr(FwModel) model = fw_test_model_new (13);
      FwGraph *g = fw_model_get_graph (model);
      FwGraph *then_g = fw_graph_new (g), *else_g = fw_graph_new (g);
      FwDim d3 = FW_DIM_STATIC (3);
      g_autoptr(FwTensor) two = fw_tensor_new_float (0, NULL, (const float[]) { 2 });
      g_autoptr(FwExecContext) ctx = fw_exec_context_new (1, NULL);
      g_autoptr(GError) error = NULL;
      FwArray *in[2], *out[1] = { NULL };
      FwNode *node;

      g_assert_nonnull (fw_graph_add_input (g, "cond", FW_DTYPE_BOOL, 0, NULL, NULL));
      g_assert_nonnull (fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 1, &d3, NULL));
      /* then: x * 2 (reads the outer x); else: x passed straight through. */
      g_assert_nonnull (fw_graph_add_initializer (then_g, "two", two, NULL));
      add_node (then_g, "Mul", 2, (const char *[]) { "x", "two" }, 1, (const char *[]) { "t" });
      g_assert_true (fw_graph_add_output (then_g, "t", NULL));
      add_node (else_g, "Neg", 1, (const char *[]) { "x" }, 1, (const char *[]) { "e" });
      g_assert_true (fw_graph_add_output (else_g, "e", NULL));
      node = add_node (g, "If", 1, (const char *[]) { "cond" }, 1, (const char *[]) { "y" });
      fw_node_set_attr_graph (node, "then_branch", then_g);
      fw_node_set_attr_graph (node, "else_branch", else_g);
      g_assert_true (fw_graph_add_output (g, "y", NULL));
      g_assert_true (fw_graph_link (g, &error));
      g_assert_no_error (error);
      g_assert_true (fw_test_infer (model, NULL, NULL, &error));
      g_assert_no_error (error);
      in[0] = mk (FW_DTYPE_BOOL, 0, NULL, VALS (branch == 0));
      in[1] = mk (FW_DTYPE_FLOAT, 1, DIMS (3), VALS (1, 2, 3));
      if (fw_kernel_lookup ("", "Mul") == NULL || fw_kernel_lookup ("", "Neg") == NULL)
        {
          g_test_skip ("no Mul/Neg kernels yet");
          fw_array_unref (in[0]);
          fw_array_unref (in[1]);
          return;
        }
      fw_exec_run_reference (ctx, g, in, 2, out, NULL, &error);
      g_assert_no_error (error);
      if (branch == 0)
        check (out[0], 1, DIMS (3), VALS (2, 4, 6));
      else
        check (out[0], 1, DIMS (3), VALS (-1, -2, -3));
      fw_array_unref (out[0]);
      fw_array_unref (in[0]);
      fw_array_unref (in[1]);
    }
}

/* Loop with trip count M and condition: carried sum += i (via Cast-free int64 Add), scan output i * ... */
static FwGraph *
loop_body (FwGraph *g, gboolean stop_at_2)
{
  FwGraph *body = fw_graph_new (g);
  FwDim d1 = FW_DIM_STATIC (1);
  g_autoptr(FwTensor) two = fw_tensor_new_int64 (0, NULL, (const gint64[]) { 2 });

  g_assert_nonnull (fw_graph_add_input (body, "i", FW_DTYPE_INT64, 0, NULL, NULL));
  g_assert_nonnull (fw_graph_add_input (body, "c_in", FW_DTYPE_BOOL, 0, NULL, NULL));
  g_assert_nonnull (fw_graph_add_input (body, "acc_in", FW_DTYPE_INT64, 1, &d1, NULL));
  g_assert_nonnull (fw_graph_add_initializer (body, "two", two, NULL));
  /* acc = acc_in + i + base (base is an outer value); scan = Unsqueeze-free copy of acc via Identity. */
  add_node (body, "Add", 2, (const char *[]) { "acc_in", "i" }, 1, (const char *[]) { "acc_i" });
  add_node (body, "Add", 2, (const char *[]) { "acc_i", "base" }, 1, (const char *[]) { "acc_out" });
  add_node (body, "Identity", 1, (const char *[]) { "acc_out" }, 1, (const char *[]) { "scan" });
  if (stop_at_2)
    add_node (body, "Less", 2, (const char *[]) { "i", "two" }, 1, (const char *[]) { "c_out" });
  else
    add_node (body, "Identity", 1, (const char *[]) { "c_in" }, 1, (const char *[]) { "c_out" });
  g_assert_true (fw_graph_add_output (body, "c_out", NULL));
  g_assert_true (fw_graph_add_output (body, "acc_out", NULL));
  g_assert_true (fw_graph_add_output (body, "scan", NULL));
  return body;
}

static gboolean
run_loop (gint64 trip, gboolean stop_at_2, FwArray **out, GError **error)
{
  g_autoptr(FwModel) model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  FwDim d1 = FW_DIM_STATIC (1);
  g_autoptr(FwExecContext) ctx = fw_exec_context_new (1, NULL);
  FwArray *in[3];
  FwNode *node;
  gboolean ok;

  g_assert_nonnull (fw_graph_add_input (g, "M", FW_DTYPE_INT64, 0, NULL, NULL));
  g_assert_nonnull (fw_graph_add_input (g, "acc0", FW_DTYPE_INT64, 1, &d1, NULL));
  g_assert_nonnull (fw_graph_add_input (g, "base", FW_DTYPE_INT64, 0, NULL, NULL));
  node = add_node (g, "Loop", 3, (const char *[]) { "M", "", "acc0" }, 2, (const char *[]) { "acc", "scans" });
  fw_node_set_attr_graph (node, "body", loop_body (g, stop_at_2));
  g_assert_true (fw_graph_add_output (g, "acc", NULL));
  g_assert_true (fw_graph_add_output (g, "scans", NULL));
  g_assert_true (fw_graph_link (g, NULL));
  g_assert_true (fw_test_infer (model, NULL, NULL, NULL));
  in[0] = scalar_i (trip);
  in[1] = ints (1, VALS (100));
  in[2] = scalar_i (10);
  ok = fw_exec_run_reference (ctx, g, in, 3, out, NULL, error);
  for (guint i = 0; i < 3; i++)
    fw_array_unref (in[i]);
  return ok;
}

static gboolean
have_kernels (const char *const *ops)
{
  for (guint i = 0; ops[i]; i++)
    if (fw_kernel_lookup ("", ops[i]) == NULL)
      {
        g_test_skip ("elementwise kernels are not there yet");
        return FALSE;
      }
  return TRUE;
}

static void
test_loop (void)
{
  static const char *const needed[] = { "Add", "Identity", "Less", NULL };
  FwArray *out[2] = { NULL, NULL };
  g_autoptr(GError) error = NULL;

  if (!have_kernels (needed))
    return;
  /* M = 4: acc = 100 + Σ (i + 10) for i < 4 = 146; scans 110, 121, 133, 146. */
  run_loop (4, FALSE, out, &error);
  g_assert_no_error (error);
  check (out[0], 1, DIMS (1), VALS (146));
  check (out[1], 2, DIMS (4, 1), VALS (110, 121, 133, 146));
  fw_array_unref (out[0]);
  fw_array_unref (out[1]);

  /* The body's condition stops it after i = 2 (3 iterations). */
  run_loop (100, TRUE, out, &error);
  g_assert_no_error (error);
  check (out[0], 1, DIMS (1), VALS (133));
  check (out[1], 2, DIMS (3, 1), VALS (110, 121, 133));
  fw_array_unref (out[0]);
  fw_array_unref (out[1]);

  /* Zero iterations: the initial value and an empty scan. */
  run_loop (0, FALSE, out, &error);
  g_assert_no_error (error);
  check (out[0], 1, DIMS (1), VALS (100));
  g_assert_cmpint (out[1]->dims[0], ==, 0);
  fw_array_unref (out[0]);
  fw_array_unref (out[1]);
}

static void
test_loop_cap (void)
{
  static const char *const needed[] = { "Add", "Identity", NULL };
  FwArray *out[2] = { NULL, NULL };
  g_autoptr(GError) error = NULL;

  if (!have_kernels (needed))
    return;
  if (!g_test_slow ())
    {
      g_test_skip ("runs a million iterations; -m slow");
      return;
    }
  g_assert_false (run_loop (G_MAXINT64, FALSE, out, &error));
  g_assert_error (error, FW_ERROR, FW_ERROR_INVALID);
}

static void
test_table (void)
{
  static const char *const ops[] = {
    "Concat", "DepthToSpace", "Expand", "Flatten", "Gather", "GatherElements", "GatherND", "Pad", "Reshape",
    "Resize", "Slice", "SpaceToDepth", "Split", "Squeeze", "Tile", "Transpose", "Trilu", "Unsqueeze", "Upsample",
    "Constant", "ConstantOfShape", "If", "Loop", "NonZero", "Range", "ScatterElements", "ScatterND", "Shape",
    "Size",
  };

  for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
    g_assert_nonnull (fw_kernel_lookup ("", ops[i]));
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/exec/tensor/table", test_table);
  g_test_add_func ("/core/exec/tensor/reshape/basic", test_reshape);
  g_test_add_func ("/core/exec/tensor/reshape/allowzero", test_reshape_allowzero);
  g_test_add_func ("/core/exec/tensor/reshape/errors", test_reshape_errors);
  g_test_add_func ("/core/exec/tensor/flatten", test_flatten);
  g_test_add_func ("/core/exec/tensor/squeeze", test_squeeze);
  g_test_add_func ("/core/exec/tensor/unsqueeze", test_unsqueeze);
  g_test_add_func ("/core/exec/tensor/transpose/small", test_transpose);
  g_test_add_func ("/core/exec/tensor/transpose/large", test_transpose_large);
  g_test_add_func ("/core/exec/tensor/transpose/tiled", test_transpose_tiled);
  g_test_add_func ("/core/exec/tensor/depth-to-space", test_depth_to_space);
  g_test_add_func ("/core/exec/tensor/concat/basic", test_concat);
  g_test_add_func ("/core/exec/tensor/concat/mismatch", test_concat_mismatch);
  g_test_add_func ("/core/exec/tensor/split", test_split);
  g_test_add_func ("/core/exec/tensor/slice/basic", test_slice);
  g_test_add_func ("/core/exec/tensor/slice/negative-step", test_slice_negative_step);
  g_test_add_func ("/core/exec/tensor/slice/opset9-attributes", test_slice_opset1);
  g_test_add_func ("/core/exec/tensor/gather/basic", test_gather);
  g_test_add_func ("/core/exec/tensor/gather/elements", test_gather_elements);
  g_test_add_func ("/core/exec/tensor/gather/nd", test_gather_nd);
  g_test_add_func ("/core/exec/tensor/scatter/elements", test_scatter_elements);
  g_test_add_func ("/core/exec/tensor/scatter/nd", test_scatter_nd);
  g_test_add_func ("/core/exec/tensor/expand", test_expand);
  g_test_add_func ("/core/exec/tensor/tile", test_tile);
  g_test_add_func ("/core/exec/tensor/pad", test_pad);
  g_test_add_func ("/core/exec/tensor/trilu", test_trilu);
  g_test_add_func ("/core/exec/tensor/shape-size", test_shape_size);
  g_test_add_func ("/core/exec/tensor/constant", test_constant);
  g_test_add_func ("/core/exec/tensor/constant-of-shape", test_constant_of_shape);
  g_test_add_func ("/core/exec/tensor/range", test_range);
  g_test_add_func ("/core/exec/tensor/nonzero", test_nonzero);
  g_test_add_func ("/core/exec/tensor/resize/linear", test_resize_linear);
  g_test_add_func ("/core/exec/tensor/resize/cubic", test_resize_cubic);
  g_test_add_func ("/core/exec/tensor/resize/nearest", test_resize_nearest);
  g_test_add_func ("/core/exec/tensor/resize/keep-aspect-ratio", test_resize_aspect);
  g_test_add_func ("/core/exec/tensor/resize/upsample", test_upsample);
  g_test_add_func ("/core/exec/tensor/if", test_if);
  g_test_add_func ("/core/exec/tensor/loop/basic", test_loop);
  g_test_add_func ("/core/exec/tensor/loop/cap", test_loop_cap);
  return g_test_run ();
}
