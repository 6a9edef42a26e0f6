/* test-ops.c: the op registry: coverage, lookup, classes and costs. */
#include "config.h"

#include <string.h>

#include <glib.h>

#include "graph/fw-graph-private.h"
#include "ops/fw-op-registry.h"
#include "shape/fw-shape-infer.h"

static const char *required_ops[] = {
  "Add", "Sub", "Mul", "Div", "Pow", "Sqrt", "Erf", "Exp", "Log", "Tanh", "Relu", "Sigmoid", "HardSigmoid",
  "HardSwish", "LeakyRelu", "Clip", "Neg", "Abs", "Reciprocal", "Cast", "Identity", "Dropout", "Not", "Equal",
  "Less", "Greater", "Where", "Mod", "Conv", "ConvTranspose", "BatchNormalization", "LayerNormalization",
  "MatMul", "Gemm", "Softmax", "ReduceMean", "ReduceSum", "ReduceMax", "GlobalAveragePool", "AveragePool",
  "MaxPool", "Flatten", "Reshape", "Transpose", "Squeeze", "Unsqueeze", "Concat", "Split", "Slice", "Gather",
  "Expand", "Shape", "Constant", "ConstantOfShape", "Range", "ScatterND", "Pad", "Resize", "Tile", "Gelu",
  "Floor", "Ceil", "Round", "Sin", "Cos", "Min", "Max", "Sum", "Mean", "And", "Or", "Xor", "LessOrEqual",
  "GreaterOrEqual", "IsNaN", "Softplus", "Elu", "Selu", "PRelu", "Mish", "Sign", "ReduceProd", "ReduceMin",
  "ReduceL2", "ArgMax", "ArgMin", "LogSoftmax", "InstanceNormalization", "GroupNormalization", "Einsum",
  "Size", "NonZero", "TopK", "CumSum", "Trilu", "GatherElements", "GatherND", "Upsample", "DepthToSpace",
  "SpaceToDepth", "If", "Loop",
};

static void
test_required (void)
{
  for (guint k = 0; k < G_N_ELEMENTS (required_ops); k++)
    {
      const FwOpInfo *op = fw_op_lookup ("", required_ops[k]);

      if (op == NULL || op->infer == NULL)
        g_error ("op %s has no row with inference", required_ops[k]);
      g_assert_true (fw_op_lookup ("ai.onnx", required_ops[k]) == op);
      g_assert_cmpstr (op->op_type, ==, required_ops[k]);
    }
}

static void
test_unknown (void)
{
  g_assert_null (fw_op_lookup ("", "NoSuchOp"));
  g_assert_null (fw_op_lookup ("com.example", "Add"));
  g_assert_null (fw_op_lookup ("", ""));
  g_assert_null (fw_op_lookup (NULL, NULL));
  g_assert_nonnull (fw_op_lookup (NULL, "Add"));
  g_assert_nonnull (fw_op_lookup ("com.microsoft", "FastGelu"));
}

static void
test_classes (void)
{
  struct { const char *op; FwOpClass cls; const char *name; } cases[] = {
    { "Relu", FW_OP_CLASS_ELEMENTWISE, "elementwise" },
    { "Cast", FW_OP_CLASS_ELEMENTWISE, "elementwise" },
    { "Add", FW_OP_CLASS_BROADCAST, "broadcast" },
    { "Where", FW_OP_CLASS_BROADCAST, "broadcast" },
    { "BatchNormalization", FW_OP_CLASS_BROADCAST, "broadcast" },
    { "Reshape", FW_OP_CLASS_INJECTIVE, "injective" },
    { "Gather", FW_OP_CLASS_INJECTIVE, "injective" },
    { "Softmax", FW_OP_CLASS_REDUCE, "reduce" },
    { "ReduceMean", FW_OP_CLASS_REDUCE, "reduce" },
    { "MaxPool", FW_OP_CLASS_REDUCE, "reduce" },
    { "MatMul", FW_OP_CLASS_OUT_FUSABLE, "out-fusable" },
    { "Conv", FW_OP_CLASS_OUT_FUSABLE, "out-fusable" },
    { "Shape", FW_OP_CLASS_OPAQUE, "opaque" },
    { "If", FW_OP_CLASS_OPAQUE, "opaque" },
  };

  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      const FwOpInfo *op = fw_op_lookup ("", cases[k].op);
      g_assert_nonnull (op);
      g_assert_cmpint (op->op_class, ==, cases[k].cls);
      g_assert_cmpstr (fw_op_class_name (op->op_class), ==, cases[k].name);
    }
}

static void
test_table (void)
{
  guint n = 0;
  const FwOpInfo *ops = fw_op_registry_get (&n);
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  g_assert_cmpuint (n, >, 100);
  for (guint k = 0; k < n; k++)
    {
      char *key = g_strdup_printf ("%s:%s", ops[k].domain, ops[k].op_type);
      g_assert_nonnull (ops[k].op_type);
      g_assert_false (g_hash_table_contains (seen, key));
      g_hash_table_add (seen, key);
      g_assert_true (fw_op_lookup (ops[k].domain, ops[k].op_type) == &ops[k]);
    }
}

static FwGraph *
graph_with_node (const char *op, guint n_in, const char **inputs, const char *output)
{
  FwGraph *g = fw_graph_new (NULL);
  const char *outs[1] = { output };
  FwNode *node = fw_graph_add_node (g, op, "", "n", n_in, inputs, 1, outs, NULL);

  g_assert_nonnull (node);
  return g;
}

static void
infer_ok (FwGraph *g)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (fw_graph_link (g, &error));
  g_assert_true (fw_shape_infer_graph (g, NULL, NULL, &error));
  g_assert_no_error (error);
}

static void
test_cost_matmul (void)
{
  const char *ins[2] = { "a", "b" };
  FwGraph *g = graph_with_node ("MatMul", 2, ins, "c");
  FwOpCost cost;

  fw_graph_add_input (g, "a", FW_DTYPE_FLOAT, 3,
                      (FwDim[]) { FW_DIM_STATIC (2), FW_DIM_STATIC (128), FW_DIM_STATIC (64) }, NULL);
  fw_graph_add_input (g, "b", FW_DTYPE_FLOAT, 2, (FwDim[]) { FW_DIM_STATIC (64), FW_DIM_STATIC (32) }, NULL);
  infer_ok (g);
  g_assert_true (fw_op_cost (fw_graph_get_node (g, 0), &cost));
  g_assert_cmpfloat (cost.flops, ==, 2.0 * 2 * 128 * 32 * 64);
  g_assert_cmpfloat (cost.bytes_read, ==, (2.0 * 128 * 64 + 64 * 32) * 4);
  g_assert_cmpfloat (cost.bytes_written, ==, 2.0 * 128 * 32 * 4);
  fw_graph_free (g);
}

static void
test_cost_conv (void)
{
  const char *ins[3] = { "x", "w", "b" };
  FwGraph *g = graph_with_node ("Conv", 3, ins, "y");
  FwNode *node = fw_graph_get_node (g, 0);
  FwOpCost cost;
  gint64 wdims[4] = { 64, 3, 7, 7 };
  gint64 bdims[1] = { 64 };
  g_autofree float *wdata = g_new0 (float, 64 * 3 * 7 * 7);
  g_autofree float *bdata = g_new0 (float, 64);
  g_autoptr(FwTensor) w = fw_tensor_new_float (4, wdims, wdata);
  g_autoptr(FwTensor) b = fw_tensor_new_float (1, bdims, bdata);
  gdouble out = 64.0 * 112 * 112;

  fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 4,
                      (FwDim[]) { FW_DIM_STATIC (1), FW_DIM_STATIC (3), FW_DIM_STATIC (224), FW_DIM_STATIC (224) },
                      NULL);
  fw_graph_add_initializer (g, "w", w, NULL);
  fw_graph_add_initializer (g, "b", b, NULL);
  fw_node_set_attr_ints (node, "strides", 2, (gint64[]) { 2, 2 });
  fw_node_set_attr_ints (node, "pads", 4, (gint64[]) { 3, 3, 3, 3 });
  infer_ok (g);
  g_assert_true (fw_op_cost (node, &cost));
  g_assert_cmpfloat (cost.flops, ==, 2.0 * out * 3 * 49 + out);
  g_assert_cmpfloat (cost.bytes_read, ==, (3.0 * 224 * 224 + 64 * 3 * 49 + 64) * 4);
  g_assert_cmpfloat (cost.bytes_written, ==, out * 4);
  fw_graph_free (g);
}

static void
test_cost_unknown_shape (void)
{
  const char *ins[1] = { "x" };
  FwGraph *g = graph_with_node ("Relu", 1, ins, "y");
  FwOpCost cost;

  fw_graph_add_input (g, "x", FW_DTYPE_FLOAT, 1, (FwDim[]) { { -1, "n" } }, NULL);
  infer_ok (g);
  g_assert_false (fw_op_cost (fw_graph_get_node (g, 0), &cost));
  fw_graph_free (g);
}

static void
test_lookup_many (void)
{
  guint found = 0;

  for (guint i = 0; i < 100000; i++)
    if (fw_op_lookup ("", required_ops[i % G_N_ELEMENTS (required_ops)]) != NULL)
      found++;
  g_assert_cmpuint (found, ==, 100000);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/core/ops/required", test_required);
  g_test_add_func ("/core/ops/unknown", test_unknown);
  g_test_add_func ("/core/ops/classes", test_classes);
  g_test_add_func ("/core/ops/table", test_table);
  g_test_add_func ("/core/ops/cost/matmul", test_cost_matmul);
  g_test_add_func ("/core/ops/cost/conv", test_cost_conv);
  g_test_add_func ("/core/ops/cost/unknown-shape", test_cost_unknown_shape);
  g_test_add_func ("/core/ops/lookup-many", test_lookup_many);
  return g_test_run ();
}
