/* fw-custom-ops.c: the registry of custom operators: loading files into a set, the one set installed for
 * the process, and the shape, dtype and cost rules every entry's row runs. */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "ops/fw-custom-ops-private.h"
#include "ops/fw-op-cost-private.h"
#include "shape/fw-shape-private.h"

struct _FwCustomOps
{
  GPtrArray *ops;   /* FwCustomOp*, owning, in load order */
};

FwCustomOps *
fw_custom_ops_new (void)
{
  FwCustomOps *set = g_new0 (FwCustomOps, 1);

  set->ops = g_ptr_array_new_with_free_func ((GDestroyNotify) fw_custom_op_free);
  return set;
}

void
fw_custom_ops_free (FwCustomOps *set)
{
  if (set == NULL)
    return;
  g_ptr_array_unref (set->ops);
  g_free (set);
}

const FwOpInfo *
fw_custom_ops_find (const FwCustomOps *set, const char *domain, const char *op_type)
{
  if (set == NULL || domain == NULL || op_type == NULL)
    return NULL;
  for (guint i = 0; i < set->ops->len; i++)
    {
      const FwCustomOp *op = g_ptr_array_index (set->ops, i);
      if (strcmp (op->domain, domain) == 0 && strcmp (op->op_type, op_type) == 0)
        return &op->info;
    }
  return NULL;
}

/* Adds the files' entries, all or none: a name declared twice, in one file or across two, is an error at the
 * second. */
static gboolean
commit (FwCustomOps *set, GPtrArray *files, GError **error)
{
  for (guint f = 0; f < files->len; f++)
    {
      GPtrArray *ops = g_ptr_array_index (files, f);
      for (guint i = 0; i < ops->len; i++)
        {
          const FwCustomOp *op = g_ptr_array_index (ops, i);
          const FwOpInfo *seen = fw_custom_ops_find (set, op->domain, op->op_type);

          for (guint g = 0; seen == NULL && g < f; g++)
            seen = fw_custom_ops_find (&(FwCustomOps) { g_ptr_array_index (files, g) }, op->domain, op->op_type);
          if (seen != NULL)
            {
              g_set_error (error, FW_ERROR, FW_ERROR_PARSE, _("%s: %s is declared twice (first at %s)"), op->origin,
                           op->name, seen->custom->origin);
              return FALSE;
            }
        }
    }
  for (guint f = 0; f < files->len; f++)
    {
      GPtrArray *ops = g_ptr_array_index (files, f);
      while (ops->len > 0)
        g_ptr_array_add (set->ops, g_ptr_array_steal_index (ops, 0));
    }
  return TRUE;
}

gboolean
fw_custom_ops_load_path (FwCustomOps *set, const char *file_or_dir, GError **error)
{
  g_autoptr(GPtrArray) files = NULL;

  g_return_val_if_fail (set != NULL && file_or_dir != NULL, FALSE);
  if ((files = fw_yaml_parse_files (file_or_dir, fw_custom_ops_parse, error)) == NULL)
    return FALSE;
  return commit (set, files, error);
}

gboolean
fw_custom_ops_load_data (FwCustomOps *set, const char *display_name, const char *data, gsize len, GError **error)
{
  g_autoptr(FwYamlDocument) doc = NULL;
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  GPtrArray *ops;

  g_return_val_if_fail (set != NULL && display_name != NULL, FALSE);
  doc = fw_yaml_load_data (display_name, data, len, error);
  if (doc == NULL || (ops = fw_custom_ops_parse (doc, error)) == NULL)
    return FALSE;
  g_ptr_array_add (files, ops);
  return commit (set, files, error);
}

guint
fw_custom_ops_get_n_ops (const FwCustomOps *set)
{
  return set ? set->ops->len : 0;
}

const FwOpInfo *
fw_custom_ops_get_op (const FwCustomOps *set, guint index)
{
  g_return_val_if_fail (set != NULL && index < set->ops->len, NULL);
  return &((const FwCustomOp *) g_ptr_array_index (set->ops, index))->info;
}

/* ---- the installed registry ---- */

static GMutex installed_lock;
static FwCustomOps *installed;
/* Every set installed before, kept because nodes of models read then still point at their rows. */
static GPtrArray *retired;

void
fw_custom_ops_install (FwCustomOps *set)
{
  g_mutex_lock (&installed_lock);
  if (installed != NULL)
    {
      if (retired == NULL)
        retired = g_ptr_array_new ();
      g_ptr_array_add (retired, installed);
    }
  installed = set;
  g_mutex_unlock (&installed_lock);
}

gboolean
fw_custom_ops_install_paths (const char * const *paths, GError **error)
{
  g_autoptr(FwCustomOps) set = fw_custom_ops_new ();

  for (guint i = 0; paths != NULL && paths[i] != NULL; i++)
    if (!fw_custom_ops_load_path (set, paths[i], error))
      return FALSE;
  fw_custom_ops_install (g_steal_pointer (&set));
  return TRUE;
}

const FwOpInfo *
fw_custom_ops_lookup (const char *domain, const char *op_type)
{
  const FwOpInfo *row;

  if (domain == NULL || domain[0] == '\0' || strcmp (domain, "ai.onnx") == 0)
    return NULL;
  g_mutex_lock (&installed_lock);
  row = fw_custom_ops_find (installed, domain, op_type);
  g_mutex_unlock (&installed_lock);
  return row;
}

/* ---- what a row tells ---- */

gboolean
fw_op_is_custom (const FwOpInfo *op)
{
  return op != NULL && op->custom != NULL;
}

const char *
fw_custom_op_get_name (const FwCustomOp *op)
{
  return op->name;
}

const char *
fw_custom_op_get_origin (const FwCustomOp *op)
{
  return op->origin;
}

guint
fw_custom_op_get_n_inputs (const FwCustomOp *op)
{
  return op->n_inputs;
}

const FwCustomExpr *
fw_custom_op_get_expr (const FwCustomOp *op)
{
  return op->expr;
}

/* ---- the row's rules ---- */

static gboolean
infer_attribute_shape (FwInferContext *ctx, FwNode *node, const FwCustomOp *op, FwDType dtype, GError **error)
{
  guint n = 0;
  const gint64 *ints = fw_node_get_attr_ints (node, op->shape_attribute, &n);
  FwDim dims[FW_MAX_RANK];

  if (ints == NULL)
    return fw_infer_error (error, node, _("the operator registry (%s) takes the output shape from attribute “%s”, "
                                          "which the node lacks"),
                           op->origin, op->shape_attribute);
  if (n > FW_MAX_RANK)
    return fw_infer_error (error, node, _("attribute “%s” has %u dims, more than %d"), op->shape_attribute, n,
                           FW_MAX_RANK);
  for (guint i = 0; i < n; i++)
    {
      if (ints[i] < 0)
        return fw_infer_error (error, node, _("attribute “%s” has a negative dim"), op->shape_attribute);
      dims[i] = FW_DIM_STATIC (ints[i]);
    }
  fw_infer_set (ctx, node, 0, dtype, (gint) n, dims);
  return TRUE;
}

gboolean
fw_custom_op_infer (FwInferContext *ctx, FwNode *node, GError **error)
{
  const FwCustomOp *op = node->op->custom;
  FwValue *like;
  FwDType dtype;

  if (node->n_inputs != op->n_inputs)
    return fw_infer_error (error, node, _("%u input(s), but the operator registry (%s) declares %u"), node->n_inputs,
                           op->origin, op->n_inputs);
  for (guint i = 0; i < node->n_inputs; i++)
    if (node->inputs[i] == NULL)
      return fw_infer_error (error, node, _("input %u is omitted; the operator registry (%s) declares every input "
                                            "required"),
                             i, op->origin);
  dtype = op->dtype_fixed ? op->dtype : node->inputs[op->dtype_input]->dtype;
  switch (op->shape)
    {
    case FW_CUSTOM_SHAPE_ATTRIBUTE:
      return infer_attribute_shape (ctx, node, op, dtype, error);
    case FW_CUSTOM_SHAPE_BROADCAST:
      {
        FwDim dims[FW_MAX_RANK];
        gint rank;

        if (!fw_broadcast_shapes (node, node->n_inputs, node->inputs, &rank, dims, error))
          return FALSE;
        fw_infer_set (ctx, node, 0, dtype, rank, dims);
        return TRUE;
      }
    case FW_CUSTOM_SHAPE_SAME_AS:
    default:
      like = node->inputs[op->shape_input];
      fw_infer_set (ctx, node, 0, dtype, like->rank, like->rank >= 0 ? like->dims : NULL);
      return TRUE;
    }
}

gboolean
fw_custom_op_cost (const FwNode *node, FwOpCost *cost)
{
  const FwCustomOp *op = node->op->custom;
  gint64 n;

  if (!fw_cost_movement (node, cost))
    return FALSE;
  if (!op->has_flops)
    return TRUE;
  n = node->n_outputs > 0 && node->outputs[0] ? fw_value_get_n_elements (node->outputs[0]) : -1;
  if (n < 0)
    return FALSE;
  cost->flops = op->flops_per_element * (gdouble) n;
  return TRUE;
}
