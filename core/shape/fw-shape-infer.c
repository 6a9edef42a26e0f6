/* fw-shape-infer.c: the graph walk (bindings, subgraphs, report) and the helpers every shape function uses
 * to read inputs and set outputs. */
#include "config.h"

#include <inttypes.h>

#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "shape/fw-shape-private.h"

void
fw_infer_report_init (FwInferReport *report)
{
  memset (report, 0, sizeof *report);
  report->ops_without_inference = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

void
fw_infer_report_clear (FwInferReport *report)
{
  g_clear_pointer (&report->ops_without_inference, g_hash_table_unref);
  memset (report, 0, sizeof *report);
}

gboolean
fw_infer_error (GError **error, const FwNode *node, const char *format, ...)
{
  va_list args;
  g_autofree char *message = NULL;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, FW_ERROR, FW_ERROR_INVALID, _("node “%s” (%s): %s"), node->name, node->op_type, message);
  return FALSE;
}

FwValue *
fw_infer_input (const FwNode *node, guint slot)
{
  return slot < node->n_inputs ? node->inputs[slot] : NULL;
}

gboolean
fw_dim_is_one (const FwDim *dim)
{
  return dim->value == 1;
}

gboolean
fw_infer_axis (const FwNode *node, gint64 axis, gint rank, gint *out, GError **error)
{
  if (axis < -(gint64) rank || axis >= rank)
    return fw_infer_error (error, node, _("axis %" PRId64 " is out of range for rank %d"), axis, rank);
  *out = (gint) (axis < 0 ? axis + rank : axis);
  return TRUE;
}

FwDim
fw_dims_product_dim (const FwDim *dims, gint start, gint end)
{
  gint64 coef = 1;
  const char *symbol = NULL;

  for (gint i = start; i < end; i++)
    {
      if (dims[i].value >= 0)
        {
          if (dims[i].value != 0 && coef > FW_TENSOR_MAX_ELEMENTS / dims[i].value)
            return FW_DIM_UNKNOWN;
          coef *= dims[i].value;
        }
      else if (dims[i].symbol != NULL && symbol == NULL)
        symbol = dims[i].symbol;
      else
        return FW_DIM_UNKNOWN;
    }
  if (symbol == NULL)
    return FW_DIM_STATIC (coef);
  if (coef == 1)
    return (FwDim) { -1, symbol };
  return coef == 0 ? FW_DIM_STATIC (0) : FW_DIM_UNKNOWN;
}

void
fw_infer_set (FwInferContext *ctx G_GNUC_UNUSED, FwNode *node, guint slot, FwDType dtype, gint rank, const FwDim *dims)
{
  FwValue *value;
  FwDim merged[FW_MAX_RANK];

  if (slot >= node->n_outputs || node->outputs[slot] == NULL)
    return;
  value = node->outputs[slot];
  if (dtype == FW_DTYPE_UNDEFINED)
    dtype = value->dtype;
  if (rank < 0 || rank > FW_MAX_RANK)
    {
      if (value->has_value_info && value->rank >= 0)
        value->dtype = dtype;
      else
        fw_value_set_type (value, dtype, FW_RANK_UNKNOWN, NULL);
      return;
    }
  for (gint i = 0; i < rank; i++)
    {
      merged[i] = dims ? dims[i] : FW_DIM_UNKNOWN;
      if (merged[i].value < 0 && merged[i].symbol == NULL)
        merged[i] = FW_DIM_UNKNOWN;
    }
  /* Declared value_info refines what inference could not pin down; where both are static, inference wins,
   * as ONNX Runtime does. */
  if (value->has_value_info && value->rank == rank)
    for (gint i = 0; i < rank; i++)
      if (merged[i].value < 0 && (value->dims[i].value >= 0 || (merged[i].symbol == NULL && value->dims[i].symbol)))
        merged[i] = value->dims[i];
  fw_value_set_type (value, dtype, rank, merged);
}

void
fw_infer_set_like (FwInferContext *ctx, FwNode *node, guint slot, const FwValue *value)
{
  if (value == NULL)
    fw_infer_set (ctx, node, slot, FW_DTYPE_UNDEFINED, FW_RANK_UNKNOWN, NULL);
  else
    fw_infer_set (ctx, node, slot, value->dtype, value->rank, value->dims);
}

void
fw_infer_set_constant (FwInferContext *ctx, FwNode *node, guint slot, FwTensor *tensor)
{
  FwValue *value;
  FwDim dims[FW_MAX_RANK];

  if (slot >= node->n_outputs || node->outputs[slot] == NULL || tensor->rank > FW_MAX_RANK)
    {
      fw_tensor_unref (tensor);
      return;
    }
  value = node->outputs[slot];
  for (guint i = 0; i < tensor->rank; i++)
    dims[i] = FW_DIM_STATIC (tensor->dims[i]);
  fw_value_set_type (value, tensor->dtype, (gint) tensor->rank, dims);
  g_clear_pointer (&value->constant, fw_tensor_unref);
  value->constant = tensor;
  fw_value_set_shape_value (value, -1, NULL);
  if (fw_dtype_is_integer (tensor->dtype) && tensor->rank <= 1 && tensor->n_elements >= 0
      && tensor->n_elements <= FW_MAX_RANK)
    {
      FwDim elems[FW_MAX_RANK];
      gboolean ok = TRUE;

      for (gint64 i = 0; i < tensor->n_elements && ok; i++)
        {
          gint64 v;
          ok = fw_tensor_get_int64 (tensor, i, &v);
          elems[i] = (FwDim) { v, NULL };
        }
      if (ok)
        fw_value_set_shape_value (value, (gint) tensor->n_elements, elems);
    }
  ctx->folded = TRUE;
}

void
fw_infer_set_shape_value (FwInferContext *ctx, FwNode *node, guint slot, FwDType dtype, gint rank, gint len,
                          const FwDim *elems)
{
  FwValue *value;
  FwDim dim = FW_DIM_STATIC (len);
  gboolean known = TRUE;

  if (slot >= node->n_outputs || node->outputs[slot] == NULL)
    return;
  value = node->outputs[slot];
  if (rank == 0 && len != 1)
    rank = 1;
  for (gint i = 0; i < len; i++)
    known = known && FW_SV_KNOWN (elems[i]);
  if (known && (fw_dtype_is_integer (dtype) || dtype == FW_DTYPE_BOOL))
    {
      FwFold fold;
      gint64 dims1 = len;

      fw_fold_init (&fold, dtype, rank, &dims1);
      for (gint i = 0; i < len; i++)
        fold.i[i] = elems[i].value;
      fw_infer_set_constant (ctx, node, slot, fw_fold_to_tensor (&fold));
      fw_fold_clear (&fold);
      return;
    }
  fw_infer_set (ctx, node, slot, dtype, rank, &dim);
  fw_value_set_shape_value (value, len, elems);
}

gboolean
fw_infer_is_foldable (FwInferContext *ctx, const FwValue *value)
{
  return value != NULL && value->constant != NULL && value->constant->n_elements >= 0
         && value->constant->n_elements <= ctx->max_fold && fw_fold_supported_dtype (value->constant->dtype);
}

FwDim *
fw_infer_get_dim_vector (FwInferContext *ctx, const FwValue *value, gint *len)
{
  FwDim *out;
  const FwTensor *t;

  *len = 0;
  if (value == NULL)
    return NULL;
  if (value->shape_value != NULL)
    {
      *len = value->shape_value_len;
      return g_memdup2 (value->shape_value, MAX (value->shape_value_len, 1) * sizeof (FwDim));
    }
  t = value->constant;
  if (t == NULL || t->rank > 1 || t->n_elements < 0 || t->n_elements > MIN (ctx->max_fold, G_MAXINT)
      || !(fw_dtype_is_integer (t->dtype) || t->dtype == FW_DTYPE_BOOL))
    return NULL;
  out = g_new (FwDim, MAX (t->n_elements, 1));
  for (gint64 i = 0; i < t->n_elements; i++)
    {
      gint64 v;
      if (!fw_tensor_get_int64 (t, i, &v))
        {
          g_free (out);
          return NULL;
        }
      /* INT64_MIN is the "unknown" marker; as a literal (Slice's end) one more means the same. */
      out[i] = (FwDim) { v == FW_SV_UNKNOWN ? v + 1 : v, NULL };
    }
  *len = (gint) t->n_elements;
  return out;
}

gint64 *
fw_infer_get_ints (FwInferContext *ctx, const FwValue *value, gint *n)
{
  gint len = 0;
  g_autofree FwDim *elems = fw_infer_get_dim_vector (ctx, value, &len);
  gint64 *out;

  *n = 0;
  if (elems == NULL)
    return NULL;
  for (gint i = 0; i < len; i++)
    if (!FW_SV_KNOWN (elems[i]))
      return NULL;
  out = g_new (gint64, MAX (len, 1));
  for (gint i = 0; i < len; i++)
    out[i] = elems[i].value;
  *n = len;
  return out;
}

/* ---- the walk ---- */

static void
bind_dims (GHashTable *bindings, FwDim *dims, gint n)
{
  for (gint i = 0; i < n; i++)
    if (dims[i].value < 0 && dims[i].symbol != NULL)
      {
        const gint64 *bound = g_hash_table_lookup (bindings, dims[i].symbol);
        if (bound != NULL && *bound >= 0)
          dims[i] = FW_DIM_STATIC (*bound);
      }
}

/* Bindings and a clean slate: inferred facts of an earlier run (folded constants, shape vectors, shapes
 * that came from other bindings) must not leak into this one. */
static void
prepare_graph (FwGraph *graph, GHashTable *bindings)
{
  for (guint i = 0; i < graph->values->len; i++)
    {
      FwValue *value = g_ptr_array_index (graph->values, i);

      if (value->producer != NULL)
        {
          g_clear_pointer (&value->constant, fw_tensor_unref);
          fw_value_set_shape_value (value, -1, NULL);
          if (!value->has_value_info)
            fw_value_set_type (value, FW_DTYPE_UNDEFINED, FW_RANK_UNKNOWN, NULL);
        }
      if (bindings != NULL && value->rank > 0)
        bind_dims (bindings, value->dims, value->rank);
    }
  for (guint i = 0; i < graph->nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (graph->nodes, i);
      for (guint a = 0; a < node->n_attrs; a++)
        {
          FwAttr *attr = &node->attrs[a];
          if (attr->g)
            prepare_graph (attr->g, bindings);
          for (guint k = 0; attr->graphs && k < attr->n; k++)
            prepare_graph (attr->graphs[k], bindings);
        }
    }
}

static void
note_without_inference (FwInferReport *report, const FwNode *node)
{
  gboolean default_domain = node->domain[0] == '\0' || strcmp (node->domain, "ai.onnx") == 0;
  g_autofree char *key = default_domain ? g_strdup (node->op_type)
                                        : g_strdup_printf ("%s:%s", node->domain, node->op_type);
  gpointer old;

  if (report->ops_without_inference == NULL)
    report->ops_without_inference = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  old = g_hash_table_lookup (report->ops_without_inference, key);
  if (old != NULL)
    g_hash_table_insert (report->ops_without_inference, g_steal_pointer (&key),
                         GUINT_TO_POINTER (GPOINTER_TO_UINT (old) + 1));
  else
    g_hash_table_insert (report->ops_without_inference, g_steal_pointer (&key), GUINT_TO_POINTER (1));
}

static gboolean infer_graph (FwInferContext *ctx, FwGraph *graph, GError **error);

/* A Loop's body is inferred with its carried values' initial shapes, then again with the dims an iteration
 * changes taken back (fw_infer_loop_widen): dims only ever go from known to unknown, so two more passes
 * settle any body; the counts are those of the last pass. */
static gboolean
infer_subgraphs (FwInferContext *ctx, FwNode *node, GError **error)
{
  gboolean prepared = FALSE;
  FwInferReport before = *ctx->report;

  for (guint pass = 0; pass < 3; pass++)
    {
      for (guint a = 0; a < node->n_attrs; a++)
        {
          FwAttr *attr = &node->attrs[a];
          guint n = attr->g ? 1 : (attr->graphs ? attr->n : 0);

          for (guint k = 0; k < n; k++)
            {
              FwGraph *sub = attr->g ? attr->g : attr->graphs[k];

              if (!prepared)
                {
                  fw_infer_prepare_subgraphs (ctx, node);
                  prepared = TRUE;
                }
              if (pass > 0)
                prepare_graph (sub, NULL);
              if (!infer_graph (ctx, sub, error))
                {
                  g_prefix_error (error, _("in subgraph “%s” of node “%s”: "), attr->name, node->name);
                  return FALSE;
                }
            }
        }
      if (pass == 2 || !fw_infer_loop_widen (node))
        break;
      ctx->report->n_nodes = before.n_nodes;
      ctx->report->n_values = before.n_values;
      ctx->report->n_static_values = before.n_static_values;
      ctx->report->n_folded = before.n_folded;
    }
  return TRUE;
}

static gboolean
infer_graph (FwInferContext *ctx, FwGraph *graph, GError **error)
{
  FwInferReport *report = ctx->report;

  if (!graph->linked || graph->order == NULL)
    {
      if (graph->nodes->len == 0)
        return TRUE;
      g_set_error (error, FW_ERROR, FW_ERROR_INTERNAL, _("shape inference on a graph that is not linked"));
      return FALSE;
    }

  for (guint i = 0; i < graph->nodes->len; i++)
    {
      FwNode *node = graph->order[i];
      const FwOpInfo *op = node->op;

      if (op == NULL)
        op = node->op = fw_op_lookup (node->domain, node->op_type);
      report->n_nodes++;
      if (node->n_attrs > 0 && !infer_subgraphs (ctx, node, error))
        return FALSE;
      ctx->folded = FALSE;
      if (op != NULL && op->infer != NULL)
        {
          if (!op->infer (ctx, node, error))
            return FALSE;
        }
      else
        note_without_inference (report, node);
      if (ctx->folded)
        report->n_folded++;
    }

  for (guint i = 0; i < graph->values->len; i++)
    {
      FwValue *value = g_ptr_array_index (graph->values, i);

      if (value->producer == NULL && !value->is_input)
        continue;
      report->n_values++;
      if (fw_value_is_static (value))
        report->n_static_values++;
    }
  return TRUE;
}

gboolean
fw_shape_infer_graph (FwGraph *graph, const FwInferOptions *options, FwInferReport *report, GError **error)
{
  FwInferContext ctx = { 0 };
  FwInferReport scratch;
  gboolean ok;
  GHashTable *bindings = options ? options->bindings : NULL;

  g_return_val_if_fail (graph != NULL, FALSE);

  if (report == NULL)
    {
      fw_infer_report_init (&scratch);
      report = &scratch;
    }
  else if (report->ops_without_inference == NULL)
    report->ops_without_inference = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  ctx.max_fold = options && options->max_fold_elements > 0 ? options->max_fold_elements
                                                            : FW_DEFAULT_MAX_FOLD_ELEMENTS;
  ctx.report = report;
  prepare_graph (graph, bindings && g_hash_table_size (bindings) > 0 ? bindings : NULL);
  ok = infer_graph (&ctx, graph, error);
  if (report == &scratch)
    fw_infer_report_clear (&scratch);
  return ok;
}
