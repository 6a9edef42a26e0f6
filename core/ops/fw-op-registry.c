/* fw-op-registry.c: the operator table.
 *
 * Classes follow TVM's op kinds: unary maps are elementwise, numpy-broadcasting ones broadcast; data
 * movement is injective; anything that combines elements along axes (reductions, Softmax, the norms,
 * pooling) is reduce; MatMul/Gemm/Conv are out-fusable; shape-only ops, control flow and data-dependent
 * shapes are opaque. BatchNormalization in inference mode is a per-channel multiply-add, so broadcast. */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "ops/fw-custom-ops.h"
#include "ops/fw-op-cost-private.h"
#include "ops/fw-op-registry.h"
#include "shape/fw-shape-private.h"

#define E FW_OP_CLASS_ELEMENTWISE
#define B FW_OP_CLASS_BROADCAST
#define I FW_OP_CLASS_INJECTIVE
#define R FW_OP_CLASS_REDUCE
#define O FW_OP_CLASS_OUT_FUSABLE
#define X FW_OP_CLASS_OPAQUE

#define ROW(op, cls, infer, cost, since) { "", op, cls, infer, cost, since }
#define MS(op, cls, infer, cost) { "com.microsoft", op, cls, infer, cost, 1 }

static const FwOpInfo op_table[] = {
  /* elementwise, unary */
  ROW ("Abs", E, fw_infer_unary, fw_cost_elementwise, 6),
  ROW ("Acos", E, fw_infer_unary, fw_cost_elementwise, 7),
  ROW ("Acosh", E, fw_infer_unary, fw_cost_elementwise, 9),
  ROW ("Asin", E, fw_infer_unary, fw_cost_elementwise, 7),
  ROW ("Asinh", E, fw_infer_unary, fw_cost_elementwise, 9),
  ROW ("Atan", E, fw_infer_unary, fw_cost_elementwise, 7),
  ROW ("Atanh", E, fw_infer_unary, fw_cost_elementwise, 9),
  ROW ("BitwiseNot", E, fw_infer_unary, fw_cost_elementwise, 18),
  ROW ("Cast", E, fw_infer_cast, fw_cost_elementwise, 6),
  ROW ("CastLike", E, fw_infer_cast_like, fw_cost_elementwise, 15),
  ROW ("Ceil", E, fw_infer_unary, fw_cost_elementwise, 6),
  ROW ("Celu", E, fw_infer_unary, fw_cost_elementwise, 12),
  ROW ("Cos", E, fw_infer_unary, fw_cost_elementwise, 7),
  ROW ("Cosh", E, fw_infer_unary, fw_cost_elementwise, 9),
  ROW ("Dropout", E, fw_infer_dropout, fw_cost_elementwise, 7),
  ROW ("Elu", E, fw_infer_unary, fw_cost_elementwise, 6),
  ROW ("Erf", E, fw_infer_unary, fw_cost_elementwise, 9),
  ROW ("Exp", E, fw_infer_unary, fw_cost_elementwise, 6),
  ROW ("Floor", E, fw_infer_unary, fw_cost_elementwise, 6),
  ROW ("Gelu", E, fw_infer_unary, fw_cost_elementwise, 20),
  ROW ("HardSigmoid", E, fw_infer_unary, fw_cost_elementwise, 6),
  ROW ("HardSwish", E, fw_infer_unary, fw_cost_elementwise, 14),
  ROW ("Identity", E, fw_infer_identity, fw_cost_movement, 1),
  ROW ("IsInf", E, fw_infer_unary_bool, fw_cost_elementwise, 10),
  ROW ("IsNaN", E, fw_infer_unary_bool, fw_cost_elementwise, 9),
  ROW ("LeakyRelu", E, fw_infer_unary, fw_cost_elementwise, 6),
  ROW ("Log", E, fw_infer_unary, fw_cost_elementwise, 6),
  ROW ("Mish", E, fw_infer_unary, fw_cost_elementwise, 18),
  ROW ("Neg", E, fw_infer_unary, fw_cost_elementwise, 6),
  ROW ("Not", E, fw_infer_unary_bool, fw_cost_elementwise, 1),
  ROW ("Reciprocal", E, fw_infer_unary, fw_cost_elementwise, 6),
  ROW ("Relu", E, fw_infer_unary, fw_cost_elementwise, 6),
  ROW ("Round", E, fw_infer_unary, fw_cost_elementwise, 11),
  ROW ("Selu", E, fw_infer_unary, fw_cost_elementwise, 6),
  ROW ("Shrink", E, fw_infer_unary, fw_cost_elementwise, 9),
  ROW ("Sigmoid", E, fw_infer_unary, fw_cost_elementwise, 6),
  ROW ("Sign", E, fw_infer_unary, fw_cost_elementwise, 9),
  ROW ("Sin", E, fw_infer_unary, fw_cost_elementwise, 7),
  ROW ("Sinh", E, fw_infer_unary, fw_cost_elementwise, 9),
  ROW ("Softplus", E, fw_infer_unary, fw_cost_elementwise, 1),
  ROW ("Softsign", E, fw_infer_unary, fw_cost_elementwise, 1),
  ROW ("Sqrt", E, fw_infer_unary, fw_cost_elementwise, 6),
  ROW ("Tan", E, fw_infer_unary, fw_cost_elementwise, 7),
  ROW ("Tanh", E, fw_infer_unary, fw_cost_elementwise, 6),
  ROW ("ThresholdedRelu", E, fw_infer_unary, fw_cost_elementwise, 10),

  /* broadcast */
  ROW ("Add", B, fw_infer_broadcast, fw_cost_elementwise, 7),
  ROW ("And", B, fw_infer_compare, fw_cost_elementwise, 7),
  ROW ("BatchNormalization", B, fw_infer_batch_norm, fw_cost_batch_norm, 7),
  ROW ("BitShift", B, fw_infer_broadcast, fw_cost_elementwise, 11),
  ROW ("BitwiseAnd", B, fw_infer_broadcast, fw_cost_elementwise, 18),
  ROW ("BitwiseOr", B, fw_infer_broadcast, fw_cost_elementwise, 18),
  ROW ("BitwiseXor", B, fw_infer_broadcast, fw_cost_elementwise, 18),
  ROW ("Clip", B, fw_infer_clip, fw_cost_elementwise, 6),
  ROW ("Div", B, fw_infer_broadcast, fw_cost_elementwise, 7),
  ROW ("Equal", B, fw_infer_compare, fw_cost_elementwise, 7),
  ROW ("Greater", B, fw_infer_compare, fw_cost_elementwise, 7),
  ROW ("GreaterOrEqual", B, fw_infer_compare, fw_cost_elementwise, 12),
  ROW ("Less", B, fw_infer_compare, fw_cost_elementwise, 7),
  ROW ("LessOrEqual", B, fw_infer_compare, fw_cost_elementwise, 12),
  ROW ("Max", B, fw_infer_broadcast, fw_cost_elementwise, 8),
  ROW ("Mean", B, fw_infer_broadcast, fw_cost_elementwise, 8),
  ROW ("Min", B, fw_infer_broadcast, fw_cost_elementwise, 8),
  ROW ("Mod", B, fw_infer_broadcast, fw_cost_elementwise, 10),
  ROW ("Mul", B, fw_infer_broadcast, fw_cost_elementwise, 7),
  ROW ("Or", B, fw_infer_compare, fw_cost_elementwise, 7),
  ROW ("Pow", B, fw_infer_broadcast, fw_cost_elementwise, 7),
  ROW ("PRelu", B, fw_infer_prelu, fw_cost_elementwise, 7),
  ROW ("Sub", B, fw_infer_broadcast, fw_cost_elementwise, 7),
  ROW ("Sum", B, fw_infer_broadcast, fw_cost_elementwise, 8),
  ROW ("Where", B, fw_infer_where, fw_cost_elementwise, 9),
  ROW ("Xor", B, fw_infer_compare, fw_cost_elementwise, 7),

  /* injective */
  ROW ("Concat", I, fw_infer_concat, fw_cost_movement, 4),
  ROW ("DepthToSpace", I, fw_infer_depth_to_space, fw_cost_movement, 1),
  ROW ("Expand", I, fw_infer_expand, fw_cost_movement, 8),
  ROW ("Flatten", I, fw_infer_flatten, fw_cost_movement, 1),
  ROW ("Gather", I, fw_infer_gather, fw_cost_movement, 1),
  ROW ("GatherElements", I, fw_infer_gather_elements, fw_cost_movement, 11),
  ROW ("GatherND", I, fw_infer_gather_nd, fw_cost_movement, 11),
  ROW ("Pad", I, fw_infer_pad, fw_cost_movement, 2),
  ROW ("Reshape", I, fw_infer_reshape, fw_cost_movement, 5),
  ROW ("Resize", I, fw_infer_resize, fw_cost_movement, 10),
  ROW ("Slice", I, fw_infer_slice, fw_cost_movement, 1),
  ROW ("SpaceToDepth", I, fw_infer_space_to_depth, fw_cost_movement, 1),
  ROW ("Split", I, fw_infer_split, fw_cost_movement, 2),
  ROW ("Squeeze", I, fw_infer_squeeze, fw_cost_movement, 1),
  ROW ("Tile", I, fw_infer_tile, fw_cost_movement, 6),
  ROW ("Transpose", I, fw_infer_transpose, fw_cost_movement, 1),
  ROW ("Trilu", I, fw_infer_same_as_first, fw_cost_movement, 14),
  ROW ("Unsqueeze", I, fw_infer_unsqueeze, fw_cost_movement, 1),
  ROW ("Upsample", I, fw_infer_resize, fw_cost_movement, 7),

  /* reduce */
  ROW ("ArgMax", R, fw_infer_arg_reduce, fw_cost_reduce, 1),
  ROW ("ArgMin", R, fw_infer_arg_reduce, fw_cost_reduce, 1),
  ROW ("AveragePool", R, fw_infer_pool, fw_cost_pool, 7),
  ROW ("CumSum", R, fw_infer_same_as_first, fw_cost_reduce, 11),
  ROW ("GlobalAveragePool", R, fw_infer_global_pool, fw_cost_reduce, 1),
  ROW ("GlobalLpPool", R, fw_infer_global_pool, fw_cost_reduce, 2),
  ROW ("GlobalMaxPool", R, fw_infer_global_pool, fw_cost_reduce, 1),
  ROW ("GroupNormalization", R, fw_infer_same_as_first, fw_cost_norm, 18),
  ROW ("Hardmax", R, fw_infer_same_as_first, fw_cost_reduce, 1),
  ROW ("InstanceNormalization", R, fw_infer_same_as_first, fw_cost_norm, 6),
  ROW ("LayerNormalization", R, fw_infer_layer_norm, fw_cost_norm, 17),
  ROW ("LogSoftmax", R, fw_infer_same_as_first, fw_cost_softmax, 1),
  ROW ("LpNormalization", R, fw_infer_same_as_first, fw_cost_norm, 1),
  ROW ("LpPool", R, fw_infer_pool, fw_cost_pool, 2),
  ROW ("LRN", R, fw_infer_same_as_first, fw_cost_norm, 1),
  ROW ("MaxPool", R, fw_infer_pool, fw_cost_pool, 1),
  ROW ("MeanVarianceNormalization", R, fw_infer_same_as_first, fw_cost_norm, 9),
  ROW ("ReduceL1", R, fw_infer_reduce, fw_cost_reduce, 1),
  ROW ("ReduceL2", R, fw_infer_reduce, fw_cost_reduce, 1),
  ROW ("ReduceLogSum", R, fw_infer_reduce, fw_cost_reduce, 1),
  ROW ("ReduceLogSumExp", R, fw_infer_reduce, fw_cost_reduce, 1),
  ROW ("ReduceMax", R, fw_infer_reduce, fw_cost_reduce, 1),
  ROW ("ReduceMean", R, fw_infer_reduce, fw_cost_reduce, 1),
  ROW ("ReduceMin", R, fw_infer_reduce, fw_cost_reduce, 1),
  ROW ("ReduceProd", R, fw_infer_reduce, fw_cost_reduce, 1),
  ROW ("ReduceSum", R, fw_infer_reduce, fw_cost_reduce, 1),
  ROW ("ReduceSumSquare", R, fw_infer_reduce, fw_cost_reduce, 1),
  ROW ("Softmax", R, fw_infer_same_as_first, fw_cost_softmax, 1),

  /* out-fusable */
  ROW ("Conv", O, fw_infer_conv, fw_cost_conv, 1),
  ROW ("ConvInteger", O, fw_infer_conv, fw_cost_conv, 10),
  ROW ("ConvTranspose", O, fw_infer_conv_transpose, fw_cost_conv_transpose, 1),
  ROW ("Einsum", O, fw_infer_einsum, NULL, 12),
  ROW ("Gemm", O, fw_infer_gemm, fw_cost_gemm, 7),
  ROW ("MatMul", O, fw_infer_matmul, fw_cost_matmul, 1),
  ROW ("MatMulInteger", O, fw_infer_matmul, fw_cost_matmul, 10),

  /* opaque */
  ROW ("Constant", X, fw_infer_constant, fw_cost_movement, 1),
  ROW ("ConstantOfShape", X, fw_infer_constant_of_shape, fw_cost_movement, 9),
  ROW ("If", X, fw_infer_if, NULL, 1),
  ROW ("Loop", X, fw_infer_loop, NULL, 1),
  ROW ("NonZero", X, fw_infer_nonzero, fw_cost_movement, 9),
  ROW ("Range", X, fw_infer_range, fw_cost_movement, 11),
  ROW ("Scan", X, fw_infer_scan, NULL, 9),
  ROW ("ScatterElements", X, fw_infer_same_as_first, fw_cost_movement, 11),
  ROW ("ScatterND", X, fw_infer_same_as_first, fw_cost_movement, 11),
  ROW ("Shape", X, fw_infer_shape, fw_cost_movement, 1),
  ROW ("Size", X, fw_infer_size, fw_cost_movement, 1),
  ROW ("TopK", X, fw_infer_topk, fw_cost_reduce, 1),

  /* linear quantisation: kernels of their own until the planner folds Q/DQ chains into integer kernels */
  ROW ("DequantizeLinear", X, fw_infer_dequantize_linear, fw_cost_elementwise, 10),
  ROW ("DynamicQuantizeLinear", X, fw_infer_dynamic_quantize_linear, fw_cost_elementwise, 11),
  ROW ("QLinearConv", X, fw_infer_conv, fw_cost_qlinear_conv, 10),
  ROW ("QLinearMatMul", X, fw_infer_matmul, fw_cost_matmul, 10),
  ROW ("QuantizeLinear", X, fw_infer_quantize_linear, fw_cost_elementwise, 10),

  /* com.microsoft fusions ONNX Runtime's exporters emit */
  MS ("BiasGelu", E, fw_infer_broadcast, fw_cost_elementwise),
  MS ("FastGelu", E, fw_infer_broadcast, fw_cost_elementwise),
  MS ("Gelu", E, fw_infer_unary, fw_cost_elementwise),
  MS ("QuickGelu", E, fw_infer_unary, fw_cost_elementwise),
};

#undef E
#undef B
#undef I
#undef R
#undef O
#undef X

static GHashTable *default_domain;   /* op_type → row, ai.onnx only */

static gpointer
build_index (gpointer data G_GNUC_UNUSED)
{
  GHashTable *index = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint k = 0; k < G_N_ELEMENTS (op_table); k++)
    if (op_table[k].domain[0] == '\0')
      g_hash_table_insert (index, (gpointer) op_table[k].op_type, (gpointer) &op_table[k]);
  default_domain = index;
  return index;
}

const FwOpInfo *
fw_op_lookup (const char *domain, const char *op_type)
{
  static GOnce once = G_ONCE_INIT;
  const FwOpInfo *row;

  if (op_type == NULL)
    return NULL;
  if (domain == NULL || domain[0] == '\0' || strcmp (domain, "ai.onnx") == 0)
    {
      g_once (&once, build_index, NULL);
      return g_hash_table_lookup (default_domain, op_type);
    }
  /* An operator registry file may declare (or redeclare) ops of other domains. */
  if ((row = fw_custom_ops_lookup (domain, op_type)) != NULL)
    return row;
  /* Other domains have a handful of rows: a scan is cheaper than a second index. */
  for (guint k = 0; k < G_N_ELEMENTS (op_table); k++)
    if (op_table[k].domain[0] != '\0' && strcmp (op_table[k].domain, domain) == 0
        && strcmp (op_table[k].op_type, op_type) == 0)
      return &op_table[k];
  return NULL;
}

FwOpClass
fw_node_get_op_class (const FwNode *node)
{
  return node->op ? node->op->op_class : FW_OP_CLASS_OPAQUE;
}

const char *
fw_op_class_name (FwOpClass op_class)
{
  switch (op_class)
    {
    case FW_OP_CLASS_ELEMENTWISE: return "elementwise";
    case FW_OP_CLASS_BROADCAST: return "broadcast";
    case FW_OP_CLASS_INJECTIVE: return "injective";
    case FW_OP_CLASS_REDUCE: return "reduce";
    case FW_OP_CLASS_OUT_FUSABLE: return "out-fusable";
    case FW_OP_CLASS_OPAQUE: return "opaque";
    default: return "opaque";
    }
}

const FwOpInfo *
fw_op_registry_get (guint *n_ops)
{
  if (n_ops)
    *n_ops = G_N_ELEMENTS (op_table);
  return op_table;
}

/* FLOPs per output element by class when a row has no cost function of its own. */
gboolean
fw_op_cost (const FwNode *node, FwOpCost *cost)
{
  const FwOpInfo *op = node->op ? node->op : fw_op_lookup (node->domain, node->op_type);
  FwOpClass op_class = op ? op->op_class : FW_OP_CLASS_OPAQUE;

  memset (cost, 0, sizeof *cost);
  if (op != NULL && op->cost != NULL)
    return op->cost (node, cost);
  switch (op_class)
    {
    case FW_OP_CLASS_ELEMENTWISE:
    case FW_OP_CLASS_BROADCAST:
      return fw_cost_elementwise (node, cost);
    case FW_OP_CLASS_REDUCE:
      return fw_cost_reduce (node, cost);
    case FW_OP_CLASS_OUT_FUSABLE:
      {
        /* Einsum and friends: assume a contraction as large as the biggest input times the output. */
        gdouble in = 0;
        gint64 out = node->n_outputs && node->outputs[0] ? fw_value_get_n_elements (node->outputs[0]) : -1;
        if (!fw_cost_movement (node, cost) || out < 0)
          return FALSE;
        for (guint k = 0; k < node->n_inputs; k++)
          if (node->inputs[k])
            in = MAX (in, (gdouble) fw_value_get_n_elements (node->inputs[k]));
        cost->flops = 2.0 * MAX (in, (gdouble) out);
        return TRUE;
      }
    case FW_OP_CLASS_INJECTIVE:
    case FW_OP_CLASS_OPAQUE:
    default:
      return fw_cost_movement (node, cost);
    }
}
