/* fw-op-cost.c: FLOPs and bytes per op from inferred static shapes.
 *
 * FLOP weights per element for transcendental functions are rough instruction counts of the usual
 * polynomial/range-reduction implementations on a vector unit (exp/log ≈ 8, erf/tanh/sigmoid ≈ 10,
 * Gelu ≈ 20 with its erf and three multiplies); they only need to rank ops against each other and against
 * bandwidth, not to predict cycles. Multiply-add counts as 2. Bytes: every input with a static shape is
 * read once and every output written once. */
#include "config.h"

#include <string.h>

#include "ops/fw-op-cost-private.h"

gdouble
fw_cost_value_bytes (const FwValue *value)
{
  gint64 n, bytes;

  if (value == NULL)
    return 0;
  n = fw_value_get_n_elements (value);
  if (n < 0 || !fw_dtype_bytes_for (value->dtype, n, &bytes))
    return -1;
  return (gdouble) bytes;
}

static gdouble
n_elements (const FwValue *value)
{
  gint64 n = value ? fw_value_get_n_elements (value) : -1;
  return n >= 0 ? (gdouble) n : -1;
}

/* Bytes of all static inputs and all outputs; FALSE when an output is not static. */
static gboolean
fill_bytes (const FwNode *node, FwOpCost *cost)
{
  memset (cost, 0, sizeof *cost);
  for (guint k = 0; k < node->n_inputs; k++)
    {
      gdouble b = fw_cost_value_bytes (node->inputs[k]);
      if (b > 0)
        cost->bytes_read += b;
    }
  for (guint k = 0; k < node->n_outputs; k++)
    {
      gdouble b;
      if (node->outputs[k] == NULL)
        continue;
      b = fw_cost_value_bytes (node->outputs[k]);
      if (b < 0)
        return FALSE;
      cost->bytes_written += b;
    }
  return TRUE;
}

/* Erf is what both targets compose it from: the host's rational approximation (fw_erf: a clamp, 10 FMAs, a
 * multiply and a divide, about 27 operations) and Ascend's Abramowitz-Stegun form (19 vector instructions,
 * one of them an Exp; docs/ascend-twin.md). At 10 the planner priced swin_t's MatMul + GELU kernel at 16.6 µs
 * where the twin counted 29.2; Gelu is its erf and four more operations. */
static const struct {
  const char *op;
  gdouble flops;
} elementwise_weights[] = {
  { "Exp", 8 }, { "Log", 8 }, { "Pow", 8 }, { "Sin", 8 }, { "Cos", 8 }, { "Tan", 10 },
  { "Erf", 24 }, { "Tanh", 10 }, { "Sigmoid", 10 }, { "Softplus", 10 }, { "Elu", 10 }, { "Selu", 10 },
  { "Celu", 10 }, { "Gelu", 28 }, { "FastGelu", 20 }, { "BiasGelu", 28 }, { "QuickGelu", 12 }, { "Mish", 20 },
  { "Sqrt", 4 }, { "Div", 4 }, { "Reciprocal", 4 }, { "Mod", 4 }, { "HardSigmoid", 3 }, { "HardSwish", 4 },
  { "Clip", 2 }, { "Where", 1 }, { "Mean", 2 }, { "Cast", 1 }, { "Identity", 0 }, { "Dropout", 0 },
};

gdouble
fw_op_elementwise_weight (const char *op_type)
{
  for (guint k = 0; k < G_N_ELEMENTS (elementwise_weights); k++)
    if (strcmp (elementwise_weights[k].op, op_type) == 0)
      return elementwise_weights[k].flops;
  return 1;
}

gboolean
fw_cost_elementwise (const FwNode *node, FwOpCost *cost)
{
  gdouble n;

  if (!fill_bytes (node, cost) || node->n_outputs == 0)
    return FALSE;
  n = n_elements (node->outputs[0]);
  if (n < 0)
    return FALSE;
  /* n-ary Sum/Min/Max do one operation per extra input. */
  cost->flops = n * fw_op_elementwise_weight (node->op_type) * MAX ((gint) node->n_inputs - 1, 1);
  return TRUE;
}

gboolean
fw_cost_movement (const FwNode *node, FwOpCost *cost)
{
  return fill_bytes (node, cost);
}

gboolean
fw_cost_matmul (const FwNode *node, FwOpCost *cost)
{
  const FwValue *a = node->n_inputs > 0 ? node->inputs[0] : NULL;
  gdouble out;

  if (!fill_bytes (node, cost) || a == NULL || a->rank < 1 || a->dims[a->rank - 1].value < 0 || node->n_outputs == 0)
    return FALSE;
  out = n_elements (node->outputs[0]);
  if (out < 0)
    return FALSE;
  /* batch·M·N outputs, each a K-long multiply-add. */
  cost->flops = 2.0 * out * (gdouble) a->dims[a->rank - 1].value;
  return TRUE;
}

gboolean
fw_cost_gemm (const FwNode *node, FwOpCost *cost)
{
  const FwValue *a = node->n_inputs > 0 ? node->inputs[0] : NULL;
  gboolean ta = fw_node_get_attr_int (node, "transA", 0) != 0;
  gdouble out;
  gint64 k;

  if (!fill_bytes (node, cost) || a == NULL || a->rank != 2 || node->n_outputs == 0)
    return FALSE;
  k = a->dims[ta ? 0 : 1].value;
  out = n_elements (node->outputs[0]);
  if (k < 0 || out < 0)
    return FALSE;
  cost->flops = 2.0 * out * (gdouble) k;
  if (node->n_inputs > 2 && node->inputs[2] != NULL)
    cost->flops += out;
  return TRUE;
}

static gboolean
kernel_volume (const FwValue *w, gdouble *volume)
{
  *volume = 1;
  if (w == NULL || w->rank < 3)
    return FALSE;
  for (gint i = 1; i < w->rank; i++)
    {
      if (w->dims[i].value < 0)
        return FALSE;
      *volume *= (gdouble) w->dims[i].value;
    }
  return TRUE;
}

/* The weight W at input w_slot, the optional bias at b_slot. */
static gboolean
conv_cost (const FwNode *node, guint w_slot, guint b_slot, FwOpCost *cost)
{
  gdouble out, volume;

  if (!fill_bytes (node, cost) || node->n_inputs <= w_slot || node->n_outputs == 0)
    return FALSE;
  out = n_elements (node->outputs[0]);
  /* W is [Cout, Cin/group, k…]: each output element is a (Cin/group)·∏k multiply-add. */
  if (out < 0 || !kernel_volume (node->inputs[w_slot], &volume))
    return FALSE;
  cost->flops = 2.0 * out * volume;
  if (node->n_inputs > b_slot && node->inputs[b_slot] != NULL)
    cost->flops += out;
  return TRUE;
}

gboolean
fw_cost_conv (const FwNode *node, FwOpCost *cost)
{
  return conv_cost (node, 1, 2, cost);
}

/* QLinearConv: the weight is input 3, the int32 bias input 8. */
gboolean
fw_cost_qlinear_conv (const FwNode *node, FwOpCost *cost)
{
  return conv_cost (node, 3, 8, cost);
}

gboolean
fw_cost_conv_transpose (const FwNode *node, FwOpCost *cost)
{
  gdouble in, volume;

  if (!fill_bytes (node, cost) || node->n_inputs < 2 || node->n_outputs == 0)
    return FALSE;
  in = n_elements (node->inputs[0]);
  /* W is [Cin, Cout/group, k…]: each input element scatters into (Cout/group)·∏k outputs. */
  if (in < 0 || !kernel_volume (node->inputs[1], &volume))
    return FALSE;
  cost->flops = 2.0 * in * volume;
  if (node->n_inputs > 2 && node->inputs[2] != NULL)
    cost->flops += n_elements (node->outputs[0]);
  return TRUE;
}

gboolean
fw_cost_reduce (const FwNode *node, FwOpCost *cost)
{
  gdouble in;

  if (!fill_bytes (node, cost) || node->n_inputs == 0)
    return FALSE;
  in = n_elements (node->inputs[0]);
  if (in < 0)
    return FALSE;
  cost->flops = in;
  return TRUE;
}

gboolean
fw_cost_softmax (const FwNode *node, FwOpCost *cost)
{
  if (!fw_cost_reduce (node, cost))
    return FALSE;
  /* max, subtract, exp (8), sum, divide (2). */
  cost->flops *= 12;
  return TRUE;
}

gboolean
fw_cost_norm (const FwNode *node, FwOpCost *cost)
{
  if (!fw_cost_reduce (node, cost))
    return FALSE;
  /* mean, centre, square-sum, rsqrt, scale, shift. */
  cost->flops *= 8;
  return TRUE;
}

gboolean
fw_cost_batch_norm (const FwNode *node, FwOpCost *cost)
{
  if (!fw_cost_reduce (node, cost))
    return FALSE;
  /* Inference folds to one multiply-add per element. */
  cost->flops *= 2;
  return TRUE;
}

gboolean
fw_cost_pool (const FwNode *node, FwOpCost *cost)
{
  guint n_k = 0;
  const gint64 *k = fw_node_get_attr_ints (node, "kernel_shape", &n_k);
  gdouble out, window = 1;

  if (!fill_bytes (node, cost) || node->n_outputs == 0)
    return FALSE;
  out = n_elements (node->outputs[0]);
  if (out < 0)
    return FALSE;
  for (guint i = 0; k && i < n_k; i++)
    window *= (gdouble) MAX (k[i], 1);
  cost->flops = out * window;
  return TRUE;
}

/* The ops whose work is mostly a division or square root, and those the reference kernels compute with one
 * function of the C library (fw-kernels-elementwise.c, Softmax's exps in fw-kernels-nn-loops.h), by the
 * function: their own weights above are counted in these units' operations. */
static const char * const divide_ops[] = { "Div", "Sqrt", "Reciprocal", "Mod", NULL };
static const char * const exp_ops[] = {
  "Exp", "Sigmoid", "Elu", "Selu", "Celu", "QuickGelu", "Softmax", "LogSoftmax", NULL,
};
static const char * const erf_ops[] = { "Erf", "BiasGelu", NULL };
static const char * const tanh_ops[] = { "Tanh", "FastGelu", "Mish", NULL };
static const char * const other_function_ops[] = {
  "Log", "Sin", "Cos", "Tan", "Softplus", "Sinh", "Cosh", "Asin", "Acos", "Atan", "Asinh", "Acosh", "Atanh", NULL,
};

/* 4 MFLOP: a product this small is mostly packing and call overhead; 256 MFLOP: past it the library
 * reaches its steady rate (the shapes fw-host-calibrate.c times are inside each class). */
#define GEMM_SMALL_FLOPS  4e6
#define GEMM_MEDIUM_FLOPS 256e6

FwCostClass
fw_op_gemm_class (gdouble flops)
{
  return flops < GEMM_SMALL_FLOPS ? FW_COST_CLASS_GEMM_SMALL
         : flops < GEMM_MEDIUM_FLOPS ? FW_COST_CLASS_GEMM_MEDIUM : FW_COST_CLASS_GEMM_LARGE;
}

FwCostClass
fw_op_fused_gemm_class (gdouble flops)
{
  return FW_COST_CLASS_FUSED_GEMM_SMALL + (fw_op_gemm_class (flops) - FW_COST_CLASS_GEMM_SMALL);
}

/* What the host target's fused kernels compute with the C library, as the interpreter does (expf, tanhf,
 * logf…: fw-host-expr.c), against what they compute with operations of their own: Erf and erf-GELU by
 * fw_erf's polynomial, Pow by products, and every Softmax's and LogSoftmax's exps by fw_exp (fw-host-region.c,
 * fw-host-attention.c; LogSoftmax's one logf a row is negligible). */
static const char * const libm_fused_ops[] = {
  "Exp", "Log", "Sin", "Cos", "Tan", "Tanh", "Sigmoid", "Softplus", "Elu", "Selu", "Celu", "FastGelu", "QuickGelu",
  "Mish", NULL,
};

gboolean
fw_op_fused_rate_is_classed (const FwNode *node)
{
  const char *approx;

  if (node->domain[0] != '\0' && strcmp (node->domain, "com.microsoft") != 0)
    return FALSE;
  if (g_strv_contains (divide_ops, node->op_type) || g_strv_contains (libm_fused_ops, node->op_type))
    return TRUE;
  approx = strcmp (node->op_type, "Gelu") == 0 ? fw_node_get_attr_string (node, "approximate") : NULL;
  return approx != NULL && strcmp (approx, "tanh") == 0;
}

/* The reductions a host fused kernel computes row by row (fw-host-schedule.c's NK_REDUCE), and of them those
 * whose accumulator each element must wait for in any kernel: a comparison or a product. */
static const char * const row_reductions[] = {
  "ReduceSum", "ReduceMean", "ReduceSumSquare", "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp",
  "ReduceMax", "ReduceMin", "ReduceProd", "GlobalAveragePool", "GlobalMaxPool", NULL,
};
static const char * const ordered_reductions[] = { "ReduceMax", "ReduceMin", "ReduceProd", "GlobalMaxPool", NULL };

gboolean
fw_op_fused_sum_in_lanes (const FwNode *node, gboolean half_kernel)
{
  return half_kernel && !g_strv_contains (ordered_reductions, node->op_type);
}

gboolean
fw_op_fused_reduction_is_chain (const FwNode *node, gboolean half_kernel)
{
  return (node->domain[0] == '\0' || strcmp (node->domain, "com.microsoft") == 0) &&
         g_strv_contains (row_reductions, node->op_type) && !fw_op_fused_sum_in_lanes (node, half_kernel);
}

FwCostClass
fw_op_vector_class (const FwNode *node)
{
  if (node->domain[0] != '\0' && strcmp (node->domain, "com.microsoft") != 0)
    return FW_COST_CLASS_SIMPLE;
  if (strcmp (node->op_type, "Gelu") == 0)
    return g_strcmp0 (fw_node_get_attr_string (node, "approximate"), "tanh") == 0 ? FW_COST_CLASS_TANH
                                                                                  : FW_COST_CLASS_ERF;
  if (strcmp (node->op_type, "Pow") == 0)
    return FW_COST_CLASS_POW;
  if (g_strv_contains (exp_ops, node->op_type))
    return FW_COST_CLASS_EXP;
  if (g_strv_contains (erf_ops, node->op_type))
    return FW_COST_CLASS_ERF;
  if (g_strv_contains (tanh_ops, node->op_type))
    return FW_COST_CLASS_TANH;
  if (g_strv_contains (other_function_ops, node->op_type))
    return FW_COST_CLASS_TRANSCENDENTAL;
  if (g_strv_contains (divide_ops, node->op_type))
    return FW_COST_CLASS_DIVIDE;
  if (fw_node_get_op_class (node) == FW_OP_CLASS_REDUCE)
    return FW_COST_CLASS_REDUCE;
  return FW_COST_CLASS_SIMPLE;
}
