/* fw-test-index-models.c: small models whose groups hold injective operators, one per kind of index map
 * (fw-test-models.h, fw_test_index_model). Shapes are chosen so each map is what its name says: a
 * transposed store, a strided slice read, a free view, a gather of one row, and the refused kinds. */
#include "config.h"

#include <string.h>

#include "fw-test-models.h"

#define op fw_test_add_node

static void
floats (FwGraph *g, GRand *rand, const char *name, guint rank, const gint64 *dims)
{
  fw_test_add_random_weight (g, rand, name, rank, dims, 1.0f);
}

static void
ints (FwGraph *g, const char *name, guint rank, const gint64 *dims, const gint64 *values)
{
  g_autoptr(FwTensor) t = fw_tensor_new_int64 (rank, dims, values);
  g_assert_nonnull (fw_graph_add_initializer (g, name, t, NULL));
}

static void
input (FwGraph *g, const char *name, guint rank, const gint64 *dims)
{
  FwDim d[8];

  for (guint i = 0; i < rank; i++)
    d[i] = FW_DIM_STATIC (dims[i]);
  g_assert_nonnull (fw_graph_add_input (g, name, FW_DTYPE_FLOAT, rank, d, NULL));
}

/* Slice x[:, :, 16:48:2] of a [2, 8, 64] input (opset 13 inputs). */
static void
slice (FwGraph *g, const char *name, const char *x, const char *out)
{
  gint64 one = 1, start = 16, end = 48, axis = 2, step = 2;
  g_autofree char *s = g_strconcat (name, ".starts", NULL), *e = g_strconcat (name, ".ends", NULL);
  g_autofree char *a = g_strconcat (name, ".axes", NULL), *t = g_strconcat (name, ".steps", NULL);
  const char *ins[5] = { x, s, e, a, t };
  const char *outs[1] = { out };

  ints (g, s, 1, &one, &start);
  ints (g, e, 1, &one, &end);
  ints (g, a, 1, &one, &axis);
  ints (g, t, 1, &one, &step);
  g_assert_nonnull (fw_graph_add_node (g, "Slice", "", name, 5, ins, 1, outs, NULL));
}

FwModel *
fw_test_index_model (FwTestIndexCase which)
{
  FwModel *model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  g_autoptr(GRand) rand = g_rand_new_with_seed (11);
  gint64 perm[3] = { 0, 2, 1 };
  const char *out = "y";

  switch (which)
    {
    case FW_TEST_INDEX_TRANSPOSE_EPILOGUE:
      {
        /* MatMul → Add → Transpose → Relu: the epilogue writes its result transposed. */
        gint64 x[3] = { 2, 16, 32 }, w[2] = { 32, 24 }, b[1] = { 24 };
        input (g, "x", 3, x);
        floats (g, rand, "w", 2, w);
        floats (g, rand, "b", 1, b);
        op (g, "MatMul", "/mm", "x", "w", "m");
        op (g, "Add", "/bias", "m", "b", "e");
        fw_node_set_attr_ints (op (g, "Transpose", "/t", "e", NULL, "t"), "perm", 3, perm);
        op (g, "Relu", "/relu", "t", NULL, "y");
        break;
      }
    case FW_TEST_INDEX_SLICE_PROLOGUE:
      {
        /* Exp → Slice (a strided window of the last axis) → Mul by a row vector → Tanh. */
        gint64 x[3] = { 2, 8, 64 }, c[1] = { 16 };
        input (g, "x", 3, x);
        floats (g, rand, "c", 1, c);
        op (g, "Exp", "/exp", "x", NULL, "ex");
        op (g, "Neg", "/neg", "ex", NULL, "n");
        slice (g, "/slice", "n", "s");
        op (g, "Mul", "/mul", "s", "c", "p");
        op (g, "Tanh", "/tanh", "p", NULL, "y");
        break;
      }
    case FW_TEST_INDEX_VIEW_TRANSPOSE:
      {
        /* Sigmoid → Reshape [2,8,64] → [2,8,4,16] → Transpose (0,2,1,3) → Mul → Add: attention's head split
           around elementwise work, with a residual read plainly. */
        gint64 x[3] = { 2, 8, 64 }, s4[1] = { 4 }, split[4] = { 2, 8, 4, 16 };
        gint64 p4[4] = { 0, 2, 1, 3 }, c[1] = { 16 }, r[4] = { 2, 4, 8, 16 };
        input (g, "x", 3, x);
        ints (g, "split", 1, s4, split);
        floats (g, rand, "c", 1, c);
        floats (g, rand, "r", 4, r);
        op (g, "Sigmoid", "/sig", "x", NULL, "a");
        op (g, "Reshape", "/split", "a", "split", "v");
        fw_node_set_attr_ints (op (g, "Transpose", "/heads", "v", NULL, "h"), "perm", 4, p4);
        op (g, "Mul", "/scale", "h", "c", "hm");
        op (g, "Add", "/res", "hm", "r", "y");
        break;
      }
    case FW_TEST_INDEX_GATHER_ROW:
      {
        /* Relu → Gather of row 3 of axis 1 (a constant scalar index) → Add. */
        gint64 x[3] = { 4, 6, 32 }, idx = 3, b[1] = { 32 };
        input (g, "x", 3, x);
        ints (g, "idx", 0, NULL, &idx);
        floats (g, rand, "b", 1, b);
        op (g, "Relu", "/relu", "x", NULL, "r");
        fw_node_set_attr_int (op (g, "Gather", "/pick", "r", "idx", "gt"), "axis", 1);
        op (g, "Add", "/add", "gt", "b", "y");
        break;
      }
    case FW_TEST_INDEX_TWO_MAPS:
      {
        /* x + transpose(x) after a Relu: the group would read the Relu's result through two maps. */
        gint64 x[2] = { 32, 32 }, p2[2] = { 1, 0 };
        input (g, "x", 2, x);
        op (g, "Relu", "/relu", "x", NULL, "r");
        fw_node_set_attr_ints (op (g, "Transpose", "/t", "r", NULL, "t"), "perm", 2, p2);
        op (g, "Add", "/sum", "r", "t", "y");
        break;
      }
    case FW_TEST_INDEX_GATHER_DYNAMIC:
      {
        /* Relu → Gather at indices that are a graph input → Add. */
        gint64 x[2] = { 16, 32 }, b[1] = { 32 };
        FwDim idim[1] = { FW_DIM_STATIC (4) };
        input (g, "x", 2, x);
        g_assert_nonnull (fw_graph_add_input (g, "idx", FW_DTYPE_INT64, 1, idim, NULL));
        floats (g, rand, "b", 1, b);
        op (g, "Relu", "/relu", "x", NULL, "r");
        op (g, "Gather", "/pick", "r", "idx", "gt");
        op (g, "Add", "/add", "gt", "b", "y");
        break;
      }
    case FW_TEST_INDEX_CONCAT:
    default:
      {
        /* Relu and Neg of x, concatenated along the last axis, then Sigmoid. */
        gint64 x[2] = { 16, 32 };
        const char *ins[2] = { "r", "n" };
        const char *outs[1] = { "cc" };
        FwNode *n;
        input (g, "x", 2, x);
        op (g, "Relu", "/relu", "x", NULL, "r");
        op (g, "Neg", "/neg", "x", NULL, "n");
        n = fw_graph_add_node (g, "Concat", "", "/cat", 2, ins, 1, outs, NULL);
        fw_node_set_attr_int (n, "axis", 1);
        op (g, "Sigmoid", "/sig", "cc", NULL, "y");
        break;
      }
    }
  g_assert_true (fw_graph_add_output (g, out, NULL));
  g_assert_true (fw_graph_link (g, NULL));
  g_assert_true (fw_test_infer (model, NULL, NULL, NULL));
  return model;
}
