/* test-exec-tensor.c: the data-movement and shape reference kernels on hand-computed cases; Resize is in
 * test-exec-resize.c, If and Loop in test-exec-control.c. */
#include "config.h"

#include "fw-test-op.h"

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
  return g_test_run ();
}
