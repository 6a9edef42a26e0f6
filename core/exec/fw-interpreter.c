/* fw-interpreter.c: the reference interpreter: runs a graph node by node in topological order with the
 * reference kernels, freeing each value after its last use. */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "fw-error.h"
#include "fw-exec-private.h"

FwExecContext *
fw_exec_context_new (guint n_threads, GCancellable *cancellable)
{
  FwExecContext *ctx = g_new0 (FwExecContext, 1);

  ctx->n_threads = n_threads > 0 ? n_threads : MAX (1u, g_get_num_processors ());
  ctx->cancellable = cancellable ? g_object_ref (cancellable) : NULL;
  return ctx;
}

void
fw_exec_context_free (FwExecContext *ctx)
{
  if (ctx == NULL)
    return;
  g_clear_object (&ctx->cancellable);
  g_free (ctx);
}

guint
fw_exec_context_get_n_threads (FwExecContext *ctx)
{
  return ctx->n_threads;
}

guint64
fw_exec_random_next (guint64 *state)
{
  guint64 z = (*state += G_GUINT64_CONSTANT (0x9E3779B97F4A7C15));

  z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT (0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT (0x94D049BB133111EB);
  return z ^ (z >> 31);
}

void
fw_exec_fill_random (FwArray *array, guint64 *state)
{
  for (gint64 k = 0; k < array->n_elements; k++)
    {
      guint64 r = fw_exec_random_next (state);

      if (fw_dtype_is_float (array->dtype))
        fw_array_set_double (array, k, (gdouble) (r >> 11) * (2.0 / 9007199254740992.0) - 1.0);
      else if (array->dtype == FW_DTYPE_BOOL)
        fw_array_set_double (array, k, (gdouble) (r >> 63));
      else
        fw_array_set_double (array, k, (gdouble) (r >> 61));
    }
}

GPtrArray *
fw_exec_make_inputs (FwModel *model, guint64 seed, GError **error)
{
  FwGraph *graph = fw_model_get_graph (model);
  g_autoptr(GPtrArray) arrays = g_ptr_array_new_with_free_func ((GDestroyNotify) fw_array_unref);
  guint64 state = seed;

  for (guint i = 0; i < graph->inputs->len; i++)
    {
      FwValue *value = g_ptr_array_index (graph->inputs, i);
      gint64 dims[FW_MAX_RANK];
      FwArray *array;

      if (value->is_initializer)
        continue;
      if (!fw_value_is_static (value) || value->rank > FW_MAX_RANK)
        {
          g_autofree char *shape = fw_value_format_shape (value);
          g_set_error (error, FW_ERROR, FW_ERROR_INVALID,
                       _("input “%s” has the shape %s: bind every symbolic dimension (--bind NAME=VALUE) to run the model"),
                       value->name, shape);
          return NULL;
        }
      for (gint d = 0; d < value->rank; d++)
        dims[d] = value->dims[d].value;
      array = fw_array_new (value->dtype, value->rank, dims, error);
      if (array == NULL)
        {
          g_prefix_error (error, _("input “%s”: "), value->name);
          return NULL;
        }
      fw_exec_fill_random (array, &state);
      g_ptr_array_add (arrays, array);
    }
  return g_steal_pointer (&arrays);
}

FwArray *
fw_exec_frame_lookup (FwExecFrame *frame, const FwValue *value, GError **error)
{
  const FwValue *v = value;

  for (FwExecFrame *f = frame; f != NULL; f = f->parent)
    {
      if (f->graph != v->graph)
        {
          v = fw_graph_lookup_value (f->graph, value->name);
          if (v == NULL)
            continue;
        }
      if (f->values[v->index] != NULL)
        return fw_array_ref (f->values[v->index]);
      if (v->constant != NULL)
        {
          FwArray *array = fw_array_new_from_tensor (v->constant, error);

          if (array == NULL)
            {
              g_prefix_error (error, _("constant “%s”: "), v->name);
              return NULL;
            }
          f->values[v->index] = fw_array_ref (array);
          return array;
        }
      /* A subgraph holds a placeholder for each outer value it reads: look further out. */
      if (!v->outer && !v->placeholder)
        break;
    }
  g_set_error (error, FW_ERROR, FW_ERROR_INTERNAL, _("value “%s” is needed before it was computed"), value->name);
  return NULL;
}

gboolean
fw_exec_check_outputs (const FwNode *node, FwArray **outputs, FwDType golden, GError **error)
{
  for (guint i = 0; i < node->n_outputs; i++)
    {
      const FwValue *v = node->outputs[i];
      FwArray *a = outputs[i];
      gboolean same = TRUE;

      if (v == NULL)
        continue;
      if (a == NULL)
        {
          g_set_error (error, FW_ERROR, FW_ERROR_INTERNAL, _("node “%s” (%s) did not produce output %u"),
                       node->name, node->op_type, i);
          return FALSE;
        }
      if (v->dtype != FW_DTYPE_UNDEFINED && fw_exec_golden_dtype (golden, v->dtype) != a->dtype)
        same = FALSE;
      if (v->rank != FW_RANK_UNKNOWN && fw_value_is_static (v))
        {
          if ((guint) v->rank != a->rank)
            same = FALSE;
          else
            for (gint d = 0; d < v->rank; d++)
              if (v->dims[d].value != a->dims[d])
                same = FALSE;
        }
      if (!same)
        {
          g_autofree char *expected = fw_value_format_shape (v);
          g_autofree char *got = fw_array_format_shape (a);

          g_set_error (error, FW_ERROR, FW_ERROR_INTERNAL,
                       _("node “%s” (%s) computed %s %s for “%s” where shape inference said %s %s"),
                       node->name, node->op_type, fw_dtype_name (a->dtype), got, v->name,
                       fw_dtype_name (v->dtype), expected);
          return FALSE;
        }
    }
  return TRUE;
}

gboolean
fw_exec_run_node (FwExecContext *ctx, const FwNode *node, FwArray *const *inputs, FwArray **outputs,
                  GError **error)
{
  FwKernelFunc run = node->op != NULL && node->op->custom != NULL ? fw_kernel_custom (node->op)
                                                                   : fw_kernel_lookup (node->domain, node->op_type);

  if (run == NULL)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED, _("node “%s”: no reference kernel for %s%s%s"),
                   node->name, node->domain[0] ? node->domain : "", node->domain[0] ? "." : "", node->op_type);
      return FALSE;
    }
  memset (outputs, 0, node->n_outputs * sizeof (FwArray *));
  if (ctx->unquantised && fw_exec_run_node_unquantised (node, inputs, outputs))
    return TRUE;
  if (ctx->golden != FW_DTYPE_UNDEFINED ? !fw_exec_run_node_golden (ctx, node, run, inputs, outputs, error)
                                        : !run (ctx, node, inputs, node->n_inputs, outputs, node->n_outputs, error))
    {
      for (guint i = 0; i < node->n_outputs; i++)
        g_clear_pointer (&outputs[i], fw_array_unref);
      return FALSE;
    }
  if (!fw_exec_check_outputs (node, outputs, ctx->golden, error))
    {
      for (guint i = 0; i < node->n_outputs; i++)
        g_clear_pointer (&outputs[i], fw_array_unref);
      return FALSE;
    }
  return TRUE;
}

void
fw_exec_frame_count_kept (FwExecFrame *frame, guint *uses, GHashTable *keep)
{
  for (guint i = 0; i < frame->graph->values->len; i++)
    {
      FwValue *v = g_ptr_array_index (frame->graph->values, i);

      if (v->is_output || (keep != NULL && g_hash_table_contains (keep, v)))
        uses[i]++;
    }
}

void
fw_exec_frame_release (FwExecFrame *frame, guint *uses, const FwValue *v)
{
  if (v == NULL || v->graph != frame->graph)
    return;
  if (uses[v->index] > 0 && --uses[v->index] == 0)
    g_clear_pointer (&frame->values[v->index], fw_array_unref);
}

gboolean
fw_exec_frame_bind_inputs (FwExecFrame *frame, FwArray *const *inputs, guint n_inputs, gboolean skip_initializers,
                           GError **error)
{
  guint next = 0;

  for (guint i = 0; i < frame->graph->inputs->len; i++)
    {
      FwValue *v = g_ptr_array_index (frame->graph->inputs, i);

      if (skip_initializers && v->is_initializer)
        continue;
      if (next >= n_inputs || inputs[next] == NULL)
        {
          g_set_error (error, FW_ERROR, FW_ERROR_INVALID, _("no array given for graph input “%s”"), v->name);
          return FALSE;
        }
      frame->values[v->index] = fw_array_ref (inputs[next++]);
    }
  return TRUE;
}

gboolean
fw_exec_frame_finish (FwExecFrame *frame, FwArray **outputs, GHashTable *keep, GError **error)
{
  const FwGraph *graph = frame->graph;

  for (guint i = 0; i < graph->outputs->len; i++)
    {
      outputs[i] = fw_exec_frame_lookup (frame, g_ptr_array_index (graph->outputs, i), error);
      if (outputs[i] == NULL)
        {
          for (guint k = 0; k < i; k++)
            g_clear_pointer (&outputs[k], fw_array_unref);
          return FALSE;
        }
    }
  if (keep != NULL)
    {
      GHashTableIter iter;
      gpointer key, val;

      g_hash_table_iter_init (&iter, keep);
      while (g_hash_table_iter_next (&iter, &key, &val))
        {
          FwValue *v = key;

          /* A body runs once per iteration or branch taken: its values are kept from its last run. */
          if ((val == NULL || graph->parent != NULL) && v->graph == graph)
            {
              FwArray *a = fw_exec_frame_lookup (frame, v, NULL);

              /* The fused executor may have kept it channels-last (fw-fused.c): the caller gets it plain. */
              if (a != NULL && a->nhwc)
                {
                  FwArray *plain = fw_array_to_plain (a, error);

                  fw_array_unref (a);
                  if ((a = plain) == NULL)
                    return FALSE;
                }
              if (a != NULL)
                g_hash_table_iter_replace (&iter, a);
            }
        }
    }
  return TRUE;
}

void
fw_exec_frame_clear (FwExecFrame *frame)
{
  for (guint i = 0; i < frame->graph->values->len; i++)
    g_clear_pointer (&frame->values[i], fw_array_unref);
  g_clear_pointer (&frame->values, g_free);
}

/* Output arrays into frame: kept while a use is left, dropped at once otherwise. */
void
fw_exec_frame_store (FwExecFrame *frame, const guint *uses, const FwValue *v, FwArray *array)
{
  g_clear_pointer (&frame->values[v->index], fw_array_unref);
  if (uses[v->index] > 0)
    frame->values[v->index] = array;
  else
    fw_array_unref (array);
}

/* The node's kernel in a fused run when it has one (ctx->node_kernels), else its reference kernel; the
 * node kernel's results are checked against shape inference as the reference's are. */
static gboolean
run_node_or_kernel (FwExecContext *ctx, const FwNode *node, FwArray **in, FwArray **out, GError **error)
{
  FwNodeKernel *k = ctx->node_kernels != NULL ? g_hash_table_lookup (ctx->node_kernels, node) : NULL;

  if (k == NULL)
    return fw_exec_run_node (ctx, node, in, out, error);
  if (!k->kernel.run (k->kernel.data, in, out, ctx->n_threads, error) ||
      !fw_exec_check_outputs (node, out, ctx->golden, error))
    {
      for (guint o = 0; o < node->n_outputs; o++)
        g_clear_pointer (&out[o], fw_array_unref);
      return FALSE;
    }
  return TRUE;
}

gboolean
fw_exec_frame_run_node (FwExecContext *ctx, FwExecFrame *frame, guint *uses, const FwNode *node, FwArray **scratch,
                        GError **error)
{
  g_autofree FwArray **own = scratch == NULL ? g_new0 (FwArray *, node->n_inputs + node->n_outputs + 2) : NULL;
  FwArray **in = scratch != NULL ? scratch : own, **out = in + node->n_inputs + 1;
  gboolean folded = node->n_outputs > 0, done = TRUE;

  if (scratch != NULL)
    memset (scratch, 0, (node->n_inputs + node->n_outputs + 2) * sizeof (FwArray *));

  /* Outputs shape inference folded at load are constants: nothing to compute. */
  for (guint o = 0; o < node->n_outputs; o++)
    if (node->outputs[o] != NULL && node->outputs[o]->constant == NULL)
      folded = FALSE;
  if (!folded)
    {
      for (guint i = 0; i < node->n_inputs && done; i++)
        if (node->inputs[i] != NULL)
          done = (in[i] = fw_exec_frame_lookup (frame, node->inputs[i], error)) != NULL;
      if (done)
        done = run_node_or_kernel (ctx, node, in, out, error);
      for (guint i = 0; i < node->n_inputs; i++)
        g_clear_pointer (&in[i], fw_array_unref);
      if (!done)
        return FALSE;
      for (guint o = 0; o < node->n_outputs; o++)
        if (node->outputs[o] != NULL)
          fw_exec_frame_store (frame, uses, node->outputs[o], out[o]);
        else
          g_clear_pointer (&out[o], fw_array_unref);
    }
  for (guint i = 0; i < node->n_inputs; i++)
    fw_exec_frame_release (frame, uses, node->inputs[i]);
  if (node->implicit_inputs != NULL)
    for (guint i = 0; i < node->implicit_inputs->len; i++)
      fw_exec_frame_release (frame, uses, g_ptr_array_index (node->implicit_inputs, i));
  return TRUE;
}

static gboolean
run_graph (FwExecContext *ctx, const FwGraph *graph, FwArray *const *inputs, guint n_inputs, gboolean skip_initializers,
           FwArray **outputs, GHashTable *keep, GError **error)
{
  FwExecFrame frame = { graph, NULL, ctx->frame };
  g_autofree guint *uses = g_new0 (guint, graph->values->len);
  FwNode **order;
  guint n_order = 0;
  gboolean ok = FALSE;

  frame.values = g_new0 (FwArray *, graph->values->len);
  for (guint i = 0; i < graph->values->len; i++)
    uses[i] = ((FwValue *) g_ptr_array_index (graph->values, i))->n_uses;
  fw_exec_frame_count_kept (&frame, uses, keep);
  if (!fw_exec_frame_bind_inputs (&frame, inputs, n_inputs, skip_initializers, error))
    goto out;
  ctx->frame = &frame;
  order = fw_graph_get_order (graph, &n_order);
  for (guint n = 0; n < n_order; n++)
    if (g_cancellable_set_error_if_cancelled (ctx->cancellable, error) ||
        !fw_exec_frame_run_node (ctx, &frame, uses, order[n], NULL, error))
      goto out;
  ok = fw_exec_frame_finish (&frame, outputs, keep, error);

out:
  ctx->frame = frame.parent;
  fw_exec_frame_clear (&frame);
  return ok;
}

gboolean
fw_exec_run_reference (FwExecContext *ctx, const FwGraph *graph, FwArray *const *inputs, guint n_inputs,
                       FwArray **outputs, GHashTable *keep, GError **error)
{
  GHashTable *bodies = NULL, *kept = keep;
  gboolean ok;

  /* The reference runs every body on reference kernels, and keeps its values as the top level's. */
  fw_exec_context_swap_run (ctx, &bodies, &kept);
  ok = run_graph (ctx, graph, inputs, n_inputs, TRUE, outputs, keep, error);
  fw_exec_context_swap_run (ctx, &bodies, &kept);
  return ok;
}

gboolean
fw_exec_run_subgraph (FwExecContext *ctx, const FwGraph *subgraph, FwArray *const *inputs, guint n_inputs,
                      FwArray **outputs, GError **error)
{
  FwFusedProgram *body = ctx->bodies != NULL ? g_hash_table_lookup (ctx->bodies, subgraph) : NULL;

  if (body != NULL)
    return fw_fused_program_run_body (body, ctx, inputs, n_inputs, outputs, error);
  return run_graph (ctx, subgraph, inputs, n_inputs, FALSE, outputs, ctx->keep, error);
}
