/* fw-kernels-custom.c: the reference kernel of every custom operator with a host expression: the
 * registry's parsed expression evaluated element by element, its inputs broadcast into the output. The host
 * SuperKernel compiles C printed from the same tree; this walks the tree itself, so a verification compares
 * two independent evaluations. */
#include "config.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-kernel.h"
#include "ops/fw-custom-ops-private.h"

/* The output's dims by the entry's shape rule, from the arrays at hand. */
static gboolean
output_dims (const FwNode *node, const FwCustomOp *op, FwArray *const *inputs, guint *rank, gint64 *dims,
             GError **error)
{
  switch (op->shape)
    {
    case FW_CUSTOM_SHAPE_ATTRIBUTE:
      {
        guint n = 0;
        const gint64 *ints = fw_node_get_attr_ints (node, op->shape_attribute, &n);
        if (ints == NULL || n > FW_MAX_RANK)
          return fw_kernel_fail (error, node, _("attribute “%s” does not give the output shape"), op->shape_attribute);
        for (guint i = 0; i < n; i++)
          if ((dims[i] = ints[i]) < 0)
            return fw_kernel_fail (error, node, _("attribute “%s” has a negative dim"), op->shape_attribute);
        *rank = n;
        return TRUE;
      }
    case FW_CUSTOM_SHAPE_BROADCAST:
      *rank = inputs[0]->rank;
      memcpy (dims, inputs[0]->dims, sizeof (gint64) * inputs[0]->rank);
      for (guint k = 1; k < op->n_inputs; k++)
        {
          gint64 prev[FW_MAX_RANK];
          guint prev_rank = *rank;
          memcpy (prev, dims, sizeof prev);
          if (!fw_kernel_broadcast_dims (node, prev_rank, prev, inputs[k]->rank, inputs[k]->dims, rank, dims, error))
            return FALSE;
        }
      return TRUE;
    case FW_CUSTOM_SHAPE_SAME_AS:
    default:
      *rank = inputs[op->shape_input]->rank;
      memcpy (dims, inputs[op->shape_input]->dims, sizeof (gint64) * *rank);
      return TRUE;
    }
}

/* A float64 or int64 element as the expression's float: out of range is an infinity (the conversion itself
 * would be undefined there), as a float register would hold it. */
static float
to_float (gdouble d)
{
  if (d > FLT_MAX)
    return INFINITY;
  if (d < -FLT_MAX)
    return -INFINITY;
  return (float) d;
}

/* Whether an input of (rank, in) reads broadcast into (out_rank, out). */
static gboolean
broadcasts_into (guint rank, const gint64 *in, guint out_rank, const gint64 *out)
{
  if (rank > out_rank)
    return FALSE;
  for (guint i = 0; i < rank; i++)
    if (in[rank - 1 - i] != 1 && in[rank - 1 - i] != out[out_rank - 1 - i])
      return FALSE;
  return TRUE;
}

static gboolean
run_custom (FwExecContext *ctx, const FwNode *node, FwArray *const *inputs, guint n_inputs, FwArray **outputs,
            guint n_outputs, GError **error)
{
  const FwCustomOp *op = node->op ? node->op->custom : NULL;
  gint64 dims[FW_MAX_RANK], strides[FW_CUSTOM_EXPR_MAX_INPUTS][FW_MAX_RANK];
  guint rank = 0;
  FwDType dtype;
  g_autoptr(FwArray) out = NULL;

  if (op == NULL || op->expr == NULL)
    return fw_kernel_fail (error, node, _("the operator registry gives no host_expression for it"));
  if (n_inputs != op->n_inputs)
    return fw_kernel_fail (error, node, _("%u input(s), the operator registry (%s) declares %u"), n_inputs,
                           op->origin, op->n_inputs);
  for (guint k = 0; k < n_inputs; k++)
    if (inputs[k] == NULL)
      return fw_kernel_fail (error, node, _("input %u is missing"), k);
  if (!output_dims (node, op, inputs, &rank, dims, error))
    return FALSE;
  for (guint k = 0; k < n_inputs; k++)
    {
      if (!broadcasts_into (inputs[k]->rank, inputs[k]->dims, rank, dims))
        {
          g_autofree char *shape = fw_array_format_shape (inputs[k]);
          return fw_kernel_fail (error, node, _("input %u of shape %s does not broadcast to the output"), k, shape);
        }
      fw_kernel_broadcast_strides (inputs[k]->rank, inputs[k]->dims, rank, dims, strides[k]);
    }
  dtype = op->dtype_fixed ? op->dtype : inputs[op->dtype_input]->dtype;
  if (!(out = fw_array_new (dtype, rank, dims, error)))
    return FALSE;
  for (gint64 i = 0; i < out->n_elements; i++)
    {
      float x[FW_CUSTOM_EXPR_MAX_INPUTS];
      for (guint k = 0; k < n_inputs; k++)
        {
          gint64 rest = i, at = 0;
          for (gint d = (gint) rank - 1; d >= 0; d--)
            {
              at += (rest % dims[d]) * strides[k][d];
              rest /= dims[d];
            }
          x[k] = to_float (fw_array_get_double (inputs[k], at));
        }
      fw_array_set_double (out, i, (gdouble) fw_custom_expr_eval (op->expr, x));
    }
  if (n_outputs > 0 && node->outputs[0] != NULL)
    outputs[0] = g_steal_pointer (&out);
  return TRUE;
}

FwKernelFunc
fw_kernel_custom (const FwOpInfo *op)
{
  return op != NULL && op->custom != NULL && op->custom->expr != NULL ? run_custom : NULL;
}
