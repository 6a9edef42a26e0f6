/* fw-kernels-reduce.c: the Reduce* family, ArgMax/ArgMin, CumSum and TopK. Floating-point sums accumulate
 * in double, which keeps float32 results within a rounding of the exact value. */
#include "config.h"

#include <inttypes.h>

#include <glib/gi18n-lib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fw-kernels-nn-private.h"

typedef enum {
  REDUCE_L1, REDUCE_L2, REDUCE_LOG_SUM, REDUCE_LOG_SUM_EXP, REDUCE_MAX, REDUCE_MEAN, REDUCE_MIN, REDUCE_PROD,
  REDUCE_SUM, REDUCE_SUM_SQUARE
} ReduceKind;

static const struct { const char *op; ReduceKind kind; } reduce_ops[] = {
  { "ReduceL1", REDUCE_L1 }, { "ReduceL2", REDUCE_L2 }, { "ReduceLogSum", REDUCE_LOG_SUM },
  { "ReduceLogSumExp", REDUCE_LOG_SUM_EXP }, { "ReduceMax", REDUCE_MAX }, { "ReduceMean", REDUCE_MEAN },
  { "ReduceMin", REDUCE_MIN }, { "ReduceProd", REDUCE_PROD }, { "ReduceSum", REDUCE_SUM },
  { "ReduceSumSquare", REDUCE_SUM_SQUARE },
};

#define FW_T float
#define FW_ACC double
#define FW_FN(name) name##_f
#define FW_ADD(a, b) ((a) + (b))
#define FW_MUL(a, b) ((a) * (b))
#define FW_ISNAN(v) isnan (v)
#define FW_ACC_LOWEST (-INFINITY)
#define FW_ACC_HIGHEST INFINITY
#include "fw-kernels-reduce-loops.h"
#undef FW_T
#undef FW_FN

#define FW_T double
#define FW_FN(name) name##_d
#include "fw-kernels-reduce-loops.h"
#undef FW_T
#undef FW_ACC
#undef FW_FN
#undef FW_ADD
#undef FW_MUL
#undef FW_ISNAN
#undef FW_ACC_LOWEST
#undef FW_ACC_HIGHEST

/* Integers wrap, as two's complement hardware (and ONNX Runtime) does; through unsigned to stay defined. */
#define FW_T gint64
#define FW_ACC gint64
#define FW_FN(name) name##_i
#define FW_ADD(a, b) ((gint64) ((guint64) (a) + (guint64) (b)))
#define FW_MUL(a, b) ((gint64) ((guint64) (a) * (guint64) (b)))
#define FW_ISNAN(v) FALSE
#define FW_ACC_LOWEST G_MININT64
#define FW_ACC_HIGHEST G_MAXINT64
#include "fw-kernels-reduce-loops.h"
#undef FW_T
#undef FW_ACC
#undef FW_FN
#undef FW_ADD
#undef FW_MUL
#undef FW_ISNAN
#undef FW_ACC_LOWEST
#undef FW_ACC_HIGHEST

/* The working form of x: float32 or double for floating types; int64 for integers, or double where the
 * op's result is not an integer operation (L2, LogSum, LogSumExp). */
static FwArray *
to_work (const FwNode *node, FwArray *x, gboolean integer_ok, GError **error)
{
  if (fw_nn_is_float (x->dtype))
    return fw_nn_to_work (node, x, error);
  if (!fw_nn_is_int (x->dtype))
    {
      fw_kernel_fail (error, node, _("dtype %s is not supported"), fw_dtype_name (x->dtype));
      return NULL;
    }
  if (integer_ok)
    return fw_nn_to_int64 (node, x, error);
  {
    FwArray *d = fw_array_new (FW_DTYPE_DOUBLE, x->rank, x->dims, error);

    for (gint64 i = 0; d != NULL && i < x->n_elements; i++)
      ((double *) d->data)[i] = (double) fw_array_get_int64 (x, i);
    return d;
  }
}

static FwArray *
from_work (FwArray *work, FwDType dtype, GError **error)
{
  if (fw_nn_is_float (dtype))
    return fw_nn_from_work (work, dtype, error);
  if (work->dtype == FW_DTYPE_DOUBLE)
    {
      g_autoptr(FwArray) i64 = fw_array_new (FW_DTYPE_INT64, work->rank, work->dims, error);

      if (i64 == NULL)
        return NULL;
      for (gint64 i = 0; i < work->n_elements; i++)
        {
          double v = ((double *) work->data)[i];

          ((gint64 *) i64->data)[i] = isfinite (v) && fabs (v) < 9.2e18 ? (gint64) v : G_MININT64;
        }
      return fw_nn_from_int64 (i64, dtype, error);
    }
  return fw_nn_from_int64 (work, dtype, error);
}

static void
split_at_axis (const FwArray *x, guint axis, gint64 *outer, gint64 *n, gint64 *inner)
{
  *outer = *inner = 1;
  *n = x->rank > 0 ? x->dims[axis] : 1;
  for (guint i = 0; i < x->rank; i++)
    {
      if (i < axis)
        *outer *= x->dims[i];
      else if (i > axis)
        *inner *= x->dims[i];
    }
}

gboolean
fw_nn_reduce (FwExecContext *ctx, const FwNode *node, FwArray *const *inputs, guint n_inputs, FwArray **outputs,
              guint n_outputs, GError **error)
{
  FwArray *x = inputs[0], *axes_in = n_inputs > 1 ? inputs[1] : NULL;
  const FwAttr *axes_attr = fw_node_get_attr (node, "axes");
  gboolean keepdims = fw_node_get_attr_int (node, "keepdims", 1) != 0;
  gboolean noop = fw_node_get_attr_int (node, "noop_with_empty_axes", 0) != 0;
  gboolean reduced[FW_MAX_RANK];
  gint64 out_dims[FW_MAX_RANK], seg_size[FW_MAX_RANK];
  gboolean seg_reduced[FW_MAX_RANK];
  guint out_rank = 0, n_seg = 0, n_red_seg = 0, perm[FW_MAX_RANK];
  gint64 n_axes = 0, outer = 1, n = 1, inner = 1;
  ReduceKind kind = REDUCE_SUM;
  g_autoptr(FwArray) xw = NULL, y = NULL, permuted = NULL;
  const void *src;
  guint nt;

  if (x == NULL)
    return fw_kernel_fail (error, node, _("input data is required"));
  for (guint i = 0; i < G_N_ELEMENTS (reduce_ops); i++)
    if (strcmp (node->op_type, reduce_ops[i].op) == 0)
      kind = reduce_ops[i].kind;
  for (guint i = 0; i < x->rank; i++)
    reduced[i] = FALSE;
  /* Axes moved from attribute to input (opset 13 for ReduceSum, 18 for the rest); accept either. */
  if (axes_attr != NULL)
    {
      if (axes_attr->type != FW_ATTR_INTS)
        return fw_kernel_fail (error, node, _("attribute “axes” must be a list of integers"));
      n_axes = axes_attr->n;
    }
  else if (axes_in != NULL)
    {
      if (axes_in->dtype != FW_DTYPE_INT64 || axes_in->rank > 1)
        return fw_kernel_fail (error, node, _("input axes must be a 1-D int64 tensor"));
      n_axes = axes_in->n_elements;
    }
  for (gint64 k = 0; k < n_axes; k++)
    {
      gint64 a = axes_attr != NULL ? axes_attr->ints[k] : fw_array_get_int64 (axes_in, k);
      guint axis;

      if (!fw_kernel_axis (node, a, x->rank, &axis, error))
        return FALSE;
      if (x->rank > 0)
        reduced[axis] = TRUE;
    }
  if (n_axes == 0)
    {
      if (noop)
        {
          outputs[0] = fw_array_copy (x, error);
          return outputs[0] != NULL;
        }
      for (guint i = 0; i < x->rank; i++)
        reduced[i] = TRUE;
    }
  for (guint i = 0; i < x->rank; i++)
    {
      if (!reduced[i])
        out_dims[out_rank++] = x->dims[i];
      else if (keepdims)
        out_dims[out_rank++] = 1;
    }

  /* Merge neighbouring axes of one kind (size-1 axes go either way): one reduced run is the
   * [outer, n, inner] case; several need a permuted copy with the reduced axes last. */
  for (guint i = 0; i < x->rank; i++)
    {
      if (x->dims[i] == 1)
        continue;
      if (n_seg > 0 && seg_reduced[n_seg - 1] == reduced[i])
        seg_size[n_seg - 1] *= x->dims[i];
      else
        {
          seg_size[n_seg] = x->dims[i];
          seg_reduced[n_seg++] = reduced[i];
          n_red_seg += reduced[i];
        }
    }
  if ((xw = to_work (node, x, kind != REDUCE_L2 && kind != REDUCE_LOG_SUM && kind != REDUCE_LOG_SUM_EXP,
                     error)) == NULL
      || (y = fw_array_new (xw->dtype, out_rank, out_dims, error)) == NULL)
    return FALSE;
  src = xw->data;
  if (n_red_seg <= 1)
    {
      gboolean after = FALSE;

      for (guint s = 0; s < n_seg; s++)
        {
          if (seg_reduced[s])
            {
              n = seg_size[s];
              after = TRUE;
            }
          else if (after)
            inner *= seg_size[s];
          else
            outer *= seg_size[s];
        }
    }
  else
    {
      guint k = 0;

      for (guint i = 0; i < x->rank; i++)
        if (!reduced[i])
          {
            perm[k++] = i;
            outer *= x->dims[i];
          }
      for (guint i = 0; i < x->rank; i++)
        if (reduced[i])
          {
            perm[k++] = i;
            n *= x->dims[i];
          }
      if ((permuted = fw_array_new (xw->dtype, 1, &x->n_elements, error)) == NULL)
        return FALSE;
      if (xw->dtype == FW_DTYPE_FLOAT)
        permute_f (xw->data, permuted->data, x->rank, x->dims, perm, x->n_elements);
      else if (xw->dtype == FW_DTYPE_DOUBLE)
        permute_d (xw->data, permuted->data, x->rank, x->dims, perm, x->n_elements);
      else
        permute_i (xw->data, permuted->data, x->rank, x->dims, perm, x->n_elements);
      src = permuted->data;
    }
  nt = fw_nn_threads (ctx, x->n_elements);
  if (xw->dtype == FW_DTYPE_FLOAT)
    reduce_f (src, y->data, outer, n, inner, kind, nt);
  else if (xw->dtype == FW_DTYPE_DOUBLE)
    reduce_d (src, y->data, outer, n, inner, kind, nt);
  else
    reduce_i (src, y->data, outer, n, inner, kind, nt);
  outputs[0] = from_work (y, x->dtype, error);
  return outputs[0] != NULL;
}

gboolean
fw_nn_arg_reduce (FwExecContext *ctx, const FwNode *node, FwArray *const *inputs, guint n_inputs,
                  FwArray **outputs, guint n_outputs, GError **error)
{
  FwArray *x = inputs[0];
  gboolean keepdims = fw_node_get_attr_int (node, "keepdims", 1) != 0;
  gboolean last = fw_node_get_attr_int (node, "select_last_index", 0) != 0;
  gboolean is_max = strcmp (node->op_type, "ArgMax") == 0;
  gint64 out_dims[FW_MAX_RANK], outer, n, inner;
  g_autoptr(FwArray) xw = NULL, y = NULL;
  guint axis, out_rank = 0, nt;

  if (x == NULL)
    return fw_kernel_fail (error, node, _("input data is required"));
  if (!fw_kernel_axis (node, fw_node_get_attr_int (node, "axis", 0), x->rank, &axis, error))
    return FALSE;
  for (guint i = 0; i < x->rank; i++)
    {
      if (i != axis)
        out_dims[out_rank++] = x->dims[i];
      else if (keepdims)
        out_dims[out_rank++] = 1;
    }
  split_at_axis (x, axis, &outer, &n, &inner);
  if (n == 0 && outer * inner > 0)
    return fw_kernel_fail (error, node, _("cannot take the index of an extreme along an empty axis"));
  if ((xw = to_work (node, x, TRUE, error)) == NULL
      || (y = fw_array_new (FW_DTYPE_INT64, out_rank, out_dims, error)) == NULL)
    return FALSE;
  nt = fw_nn_threads (ctx, x->n_elements);
  if (xw->dtype == FW_DTYPE_FLOAT)
    arg_reduce_f (xw->data, y->data, outer, n, inner, is_max, last, nt);
  else if (xw->dtype == FW_DTYPE_DOUBLE)
    arg_reduce_d (xw->data, y->data, outer, n, inner, is_max, last, nt);
  else
    arg_reduce_i (xw->data, y->data, outer, n, inner, is_max, last, nt);
  outputs[0] = g_steal_pointer (&y);
  return TRUE;
}

static gboolean
read_scalar_int (const FwNode *node, const FwArray *a, const char *what, gint64 *out, GError **error)
{
  if (a == NULL || a->n_elements != 1 || a->rank > 1
      || (a->dtype != FW_DTYPE_INT64 && a->dtype != FW_DTYPE_INT32))
    return fw_kernel_fail (error, node, _("input %s must hold one int32 or int64 value"), what);
  *out = fw_array_get_int64 (a, 0);
  return TRUE;
}

gboolean
fw_nn_cumsum (FwExecContext *ctx, const FwNode *node, FwArray *const *inputs, guint n_inputs, FwArray **outputs,
              guint n_outputs, GError **error)
{
  FwArray *x = inputs[0];
  gboolean exclusive = fw_node_get_attr_int (node, "exclusive", 0) != 0;
  gboolean reverse = fw_node_get_attr_int (node, "reverse", 0) != 0;
  gint64 axis_value, outer, n, inner;
  g_autoptr(FwArray) xw = NULL, y = NULL;
  guint axis, nt;

  if (x == NULL)
    return fw_kernel_fail (error, node, _("input x is required"));
  if (!read_scalar_int (node, n_inputs > 1 ? inputs[1] : NULL, "axis", &axis_value, error))
    return FALSE;
  if (x->rank == 0)
    return fw_kernel_fail (error, node, _("input x must have rank 1 or more"));
  if (!fw_kernel_axis (node, axis_value, x->rank, &axis, error))
    return FALSE;
  split_at_axis (x, axis, &outer, &n, &inner);
  if ((xw = to_work (node, x, TRUE, error)) == NULL
      || (y = fw_array_new (xw->dtype, x->rank, x->dims, error)) == NULL)
    return FALSE;
  nt = fw_nn_threads (ctx, x->n_elements);
  if (xw->dtype == FW_DTYPE_FLOAT)
    cumsum_f (xw->data, y->data, outer, n, inner, exclusive, reverse, nt);
  else if (xw->dtype == FW_DTYPE_DOUBLE)
    cumsum_d (xw->data, y->data, outer, n, inner, exclusive, reverse, nt);
  else
    cumsum_i (xw->data, y->data, outer, n, inner, exclusive, reverse, nt);
  outputs[0] = from_work (y, x->dtype, error);
  return outputs[0] != NULL;
}

gboolean
fw_nn_topk (FwExecContext *ctx, const FwNode *node, FwArray *const *inputs, guint n_inputs, FwArray **outputs,
            guint n_outputs, GError **error)
{
  FwArray *x = inputs[0];
  gboolean largest = fw_node_get_attr_int (node, "largest", 1) != 0;
  gint64 k, outer, n, inner, out_dims[FW_MAX_RANK];
  g_autoptr(FwArray) xw = NULL, values = NULL, indices = NULL;
  guint axis, nt;

  if (x == NULL)
    return fw_kernel_fail (error, node, _("input X is required"));
  /* Opset 1 had k as an attribute; 10 made it an input. */
  if (fw_node_get_attr (node, "k") != NULL && (n_inputs < 2 || inputs[1] == NULL))
    k = fw_node_get_attr_int (node, "k", 0);
  else if (!read_scalar_int (node, n_inputs > 1 ? inputs[1] : NULL, "K", &k, error))
    return FALSE;
  if (x->rank == 0)
    return fw_kernel_fail (error, node, _("input X must have rank 1 or more"));
  if (!fw_kernel_axis (node, fw_node_get_attr_int (node, "axis", -1), x->rank, &axis, error))
    return FALSE;
  split_at_axis (x, axis, &outer, &n, &inner);
  if (k < 0 || k > n)
    return fw_kernel_fail (error, node, _("k = %" PRId64 " is outside [0, %" PRId64 "]"), k, n);
  memcpy (out_dims, x->dims, x->rank * sizeof (gint64));
  out_dims[axis] = k;
  if ((xw = to_work (node, x, TRUE, error)) == NULL
      || (values = fw_array_new (xw->dtype, x->rank, out_dims, error)) == NULL
      || (indices = fw_array_new (FW_DTYPE_INT64, x->rank, out_dims, error)) == NULL)
    return FALSE;
  /* The result is always sorted: sorted=0 leaves the order open, and sorted is one valid order. */
  nt = fw_nn_threads (ctx, x->n_elements * 8);
  if (xw->dtype == FW_DTYPE_FLOAT)
    topk_f (xw->data, values->data, indices->data, outer, n, inner, k, largest, nt);
  else if (xw->dtype == FW_DTYPE_DOUBLE)
    topk_d (xw->data, values->data, indices->data, outer, n, inner, k, largest, nt);
  else
    topk_i (xw->data, values->data, indices->data, outer, n, inner, k, largest, nt);
  outputs[0] = from_work (values, x->dtype, error);
  if (outputs[0] == NULL)
    return FALSE;
  if (n_outputs > 1)
    outputs[1] = g_steal_pointer (&indices);
  return TRUE;
}
