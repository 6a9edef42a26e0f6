/* fw-kernels-control.c: If and Loop, which run their bodies through the interpreter
 * (fw_exec_run_subgraph), so a body sees the enclosing graphs' values. */
#include "config.h"

#include <inttypes.h>

#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "fw-exec-private.h"
#include "fw-kernels-tensor-private.h"

static FwGraph *
graph_attr (const FwNode *node, const char *name)
{
  const FwAttr *attr = fw_node_get_attr (node, name);

  return attr != NULL && attr->type == FW_ATTR_GRAPH ? attr->g : NULL;
}

static gboolean
read_condition (const FwNode *node, const FwArray *a, const char *what, gboolean *out, GError **error)
{
  if (a->n_elements != 1)
    return fw_kernel_fail (error, node, _("%s must hold one element, not %" PRId64), what, a->n_elements);
  *out = fw_dtype_is_float (a->dtype) ? fw_array_get_double (a, 0) != 0.0 : fw_array_get_int64 (a, 0) != 0;
  return TRUE;
}

static void
unref_all (FwArray **arrays, guint n)
{
  for (guint i = 0; i < n; i++)
    g_clear_pointer (&arrays[i], fw_array_unref);
}

gboolean
fw_kernel_if (FwExecContext *ctx, const FwNode *node, FwArray *const *inputs, guint n_inputs, FwArray **outputs,
              guint n_outputs, GError **error)
{
  gboolean cond;
  FwGraph *branch;
  g_autofree FwArray **results = NULL;

  if (n_inputs < 1 || inputs[0] == NULL)
    return fw_kernel_fail (error, node, _("the condition is required"));
  if (!read_condition (node, inputs[0], _("the condition"), &cond, error))
    return FALSE;
  branch = graph_attr (node, cond ? "then_branch" : "else_branch");
  if (branch == NULL)
    return fw_kernel_fail (error, node, _("attribute “%s” is missing"), cond ? "then_branch" : "else_branch");
  if (branch->outputs->len != n_outputs)
    return fw_kernel_fail (error, node, _("the branch has %u outputs, the node %u"), branch->outputs->len, n_outputs);
  results = g_new0 (FwArray *, n_outputs + 1);
  if (!fw_exec_run_subgraph (ctx, branch, NULL, 0, results, error))
    return FALSE;
  for (guint i = 0; i < n_outputs; i++)
    {
      if (node->outputs[i] != NULL)
        outputs[i] = results[i];
      else
        fw_array_unref (results[i]);
    }
  return TRUE;
}

/* Stacks a scan output's per-iteration arrays along a new first axis. */
static FwArray *
stack_scan (const FwNode *node, const FwGraph *body, guint k, GPtrArray *parts, GError **error)
{
  const FwValue *decl = g_ptr_array_index (body->outputs, k);
  gint64 dims[FW_MAX_RANK];
  FwArray *first, *y;
  gsize bytes;

  if (parts->len == 0)
    {
      /* No iteration ran: an empty stack, shaped by the body's declaration where it is static. */
      FwDType dtype = decl->dtype != FW_DTYPE_UNDEFINED ? decl->dtype : FW_DTYPE_FLOAT;
      guint rank = 1;

      dims[0] = 0;
      if (decl->rank > 0 && decl->rank < FW_MAX_RANK && fw_value_is_static (decl))
        for (gint i = 0; i < decl->rank; i++)
          dims[rank++] = decl->dims[i].value;
      return fw_kt_new_array (node, dtype, rank, dims, error);
    }
  first = g_ptr_array_index (parts, 0);
  if (first->rank + 1 > FW_MAX_RANK)
    {
      fw_kernel_fail (error, node, _("scan output %u would have rank over %d"), k, FW_MAX_RANK);
      return NULL;
    }
  for (guint i = 1; i < parts->len; i++)
    {
      FwArray *a = g_ptr_array_index (parts, i);

      if (a->dtype != first->dtype || !fw_array_same_shape (a, first))
        {
          g_autofree char *s0 = fw_array_format_shape (first);
          g_autofree char *si = fw_array_format_shape (a);
          fw_kernel_fail (error, node, _("scan output %u changes from %s to %s in iteration %u"), k, s0, si, i);
          return NULL;
        }
    }
  dims[0] = parts->len;
  memcpy (dims + 1, first->dims, first->rank * sizeof (gint64));
  y = fw_kt_new_array (node, first->dtype, first->rank + 1, dims, error);
  if (y == NULL)
    return NULL;
  bytes = first->n_bytes;
  for (guint i = 0; i < parts->len; i++)
    memcpy ((guint8 *) y->data + i * bytes, ((FwArray *) g_ptr_array_index (parts, i))->data, bytes);
  return y;
}

gboolean
fw_kernel_loop (FwExecContext *ctx, const FwNode *node, FwArray *const *inputs, guint n_inputs, FwArray **outputs,
                guint n_outputs, GError **error)
{
  FwGraph *body = graph_attr (node, "body");
  guint n_carried = n_inputs > 2 ? n_inputs - 2 : 0, n_scan;
  gint64 trip = G_MAXINT64, iter = 0;
  gboolean cond = TRUE, ok = FALSE;
  g_autofree FwArray **carried = NULL;
  g_autofree FwArray **body_in = NULL;
  g_autofree FwArray **body_out = NULL;
  g_autofree GPtrArray **scans = NULL;
  g_autoptr(FwArray) iter_array = NULL;
  g_autoptr(FwArray) cond_array = NULL;

  if (body == NULL)
    return fw_kernel_fail (error, node, _("attribute “body” is required"));
  if (n_outputs < n_carried)
    return fw_kernel_fail (error, node, _("%u loop-carried inputs but only %u outputs"), n_carried, n_outputs);
  n_scan = n_outputs - n_carried;
  if (body->inputs->len != 2 + n_carried || body->outputs->len != 1 + n_carried + n_scan)
    return fw_kernel_fail (error, node, _("the body has %u inputs and %u outputs where %u and %u are needed"),
                           body->inputs->len, body->outputs->len, 2 + n_carried, 1 + n_carried + n_scan);
  if (n_inputs > 0 && inputs[0] != NULL)
    {
      if (!fw_dtype_is_integer (inputs[0]->dtype) || inputs[0]->n_elements != 1)
        return fw_kernel_fail (error, node, _("the trip count must be one integer"));
      trip = fw_array_get_int64 (inputs[0], 0);
    }
  if (n_inputs > 1 && inputs[1] != NULL && !read_condition (node, inputs[1], _("the condition"), &cond, error))
    return FALSE;
  for (guint k = 0; k < n_carried; k++)
    if (inputs[2 + k] == NULL)
      return fw_kernel_fail (error, node, _("loop-carried input %u is missing"), k);

  carried = g_new0 (FwArray *, n_carried + 1);
  body_in = g_new0 (FwArray *, n_carried + 3);
  body_out = g_new0 (FwArray *, 1 + n_carried + n_scan + 1);
  scans = g_new0 (GPtrArray *, n_scan + 1);
  for (guint k = 0; k < n_carried; k++)
    carried[k] = fw_array_ref (inputs[2 + k]);
  for (guint k = 0; k < n_scan; k++)
    scans[k] = g_ptr_array_new_with_free_func ((GDestroyNotify) fw_array_unref);
  iter_array = fw_kt_new_array (node, FW_DTYPE_INT64, 0, NULL, error);
  cond_array = fw_kt_new_array (node, FW_DTYPE_BOOL, 0, NULL, error);
  if (iter_array == NULL || cond_array == NULL)
    goto out;

  while (iter < trip && cond)
    {
      if (iter >= FW_LOOP_MAX_ITERATIONS)
        {
          fw_kernel_fail (error, node, _("the loop runs past %d iterations"), FW_LOOP_MAX_ITERATIONS);
          goto out;
        }
      if (ctx != NULL && g_cancellable_set_error_if_cancelled (ctx->cancellable, error))
        goto out;
      /* Fresh scalars each iteration: the body may keep a reference to the previous ones. */
      if (iter > 0)
        {
          g_clear_pointer (&iter_array, fw_array_unref);
          g_clear_pointer (&cond_array, fw_array_unref);
          iter_array = fw_kt_new_array (node, FW_DTYPE_INT64, 0, NULL, error);
          cond_array = fw_kt_new_array (node, FW_DTYPE_BOOL, 0, NULL, error);
          if (iter_array == NULL || cond_array == NULL)
            goto out;
        }
      *(gint64 *) iter_array->data = iter;
      *(guint8 *) cond_array->data = (guint8) cond;
      body_in[0] = iter_array;
      body_in[1] = cond_array;
      for (guint k = 0; k < n_carried; k++)
        body_in[2 + k] = carried[k];
      if (!fw_exec_run_subgraph (ctx, body, body_in, 2 + n_carried, body_out, error))
        goto out;
      if (!read_condition (node, body_out[0], _("the body's condition"), &cond, error))
        {
          unref_all (body_out, 1 + n_carried + n_scan);
          goto out;
        }
      g_clear_pointer (&body_out[0], fw_array_unref);
      for (guint k = 0; k < n_carried; k++)
        {
          g_clear_pointer (&carried[k], fw_array_unref);
          carried[k] = g_steal_pointer (&body_out[1 + k]);
        }
      for (guint k = 0; k < n_scan; k++)
        g_ptr_array_add (scans[k], g_steal_pointer (&body_out[1 + n_carried + k]));
      iter++;
    }

  for (guint k = 0; k < n_carried; k++)
    outputs[k] = node->outputs[k] != NULL ? g_steal_pointer (&carried[k]) : NULL;
  for (guint k = 0; k < n_scan; k++)
    {
      if (node->outputs[n_carried + k] == NULL)
        continue;
      outputs[n_carried + k] = stack_scan (node, body, 1 + n_carried + k, scans[k], error);
      if (outputs[n_carried + k] == NULL)
        goto out;
    }
  ok = TRUE;

out:
  unref_all (carried, n_carried);
  for (guint k = 0; k < n_scan; k++)
    g_ptr_array_unref (scans[k]);
  return ok;
}
