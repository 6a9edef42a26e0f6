/* fw-fused-model.c: the rewrite a plan asks for (which nodes each fused group replaces, its function's name
 * and description); core/onnx/fw-onnx-rewrite.c turns that into a file. */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "codegen/fw-kernel-package.h"
#include "fw-error.h"
#include "fw-fused-model.h"
#include "graph/fw-graph.h"
#include "onnx/fw-onnx-rewrite.h"
#include "plan/fw-kernel-spec.h"
#include "plan/fw-qdq.h"

/* Function names are identifiers to ONNX and to Netron: anything but [A-Za-z0-9_] becomes '_'. */
static char *
sanitize_identifier (const char *text)
{
  GString *s = g_string_new (NULL);

  for (const char *p = text ? text : ""; *p; p++)
    g_string_append_c (s, g_ascii_isalnum (*p) ? *p : '_');
  if (s->len == 0)
    g_string_append (s, "group");
  return g_string_free (s, FALSE);
}

/* The longest scope ("layer1/layer1.0") every node of the group shares, cut at a '/'. */
static char *
common_scope (GPtrArray *nodes)
{
  const char *first = fw_node_get_scope (g_ptr_array_index (nodes, 0));
  gsize len = first ? strlen (first) : 0;

  for (guint i = 1; i < nodes->len && len > 0; i++)
    {
      const char *scope = fw_node_get_scope (g_ptr_array_index (nodes, i));
      gsize k = 0;

      if (scope == NULL)
        scope = "";
      while (k < len && scope[k] == first[k])
        k++;
      /* Only whole components: "a/bc" and "a/bd" share "a", not "a/b". */
      if (!((k == len || first[k] == '/') && (scope[k] == '\0' || scope[k] == '/')))
        while (k > 0 && first[k] != '/')
          k--;
      len = k;
    }
  return g_strndup (first ? first : "", len);
}

/* A number for people, in the C locale: the export must be the same bytes under every locale. */
static char *
format_number (gdouble v, const char *format)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  return g_strdup (g_ascii_formatd (buf, sizeof buf, format, v));
}

/* The function node's description, and its metadata (key, value, …). */
static char *
describe (const FwCandidate *c, GPtrArray *metadata)
{
  const FwCostEstimate *cost = fw_candidate_get_cost (c);
  g_autoptr(GString) ops = g_string_new (NULL);
  g_autofree char *ub = format_number (fw_candidate_get_resource (c)->ub_percent, "%.1f");
  gdouble saved = cost->bytes_read_before + cost->bytes_written_before - cost->bytes_read_after -
                  cost->bytes_written_after;
  g_autofree char *bytes = format_number (saved, "%.0f");
  g_autofree char *time_us = format_number (cost->saving_s * 1e6, "%.3f");
  g_autofree char *launches = g_strdup_printf ("%u", cost->launches_before > cost->launches_after
                                                     ? cost->launches_before - cost->launches_after : 0);
  char *doc;

  for (guint i = 0; i < c->nodes->len; i++)
    g_string_append_printf (ops, "%s%s", i ? ", " : "", ((FwNode *) g_ptr_array_index (c->nodes, i))->op_type);
  /* Untranslated on purpose: file contents must not depend on the locale of whoever exported them. */
  doc = g_strdup_printf ("Fusion Workbench group %u (%s): pattern %s, kind %s, %u nodes: %s. "
                         "Unified Buffer %s %%, HBM bytes saved %s, launches saved %s, "
                         "estimated time saved %s us.",
                         c->index, fw_candidate_status_name (c->status), c->pattern,
                         c->kind ? c->kind : c->pattern, c->nodes->len, ops->str, ub, bytes,
                         launches, time_us);
  g_ptr_array_add (metadata, g_strdup ("fusion.pattern"));
  g_ptr_array_add (metadata, g_strdup (c->pattern));
  g_ptr_array_add (metadata, g_strdup ("fusion.kind"));
  g_ptr_array_add (metadata, g_strdup (c->kind ? c->kind : c->pattern));
  g_ptr_array_add (metadata, g_strdup ("fusion.status"));
  g_ptr_array_add (metadata, g_strdup (fw_candidate_status_name (c->status)));
  g_ptr_array_add (metadata, g_strdup ("fusion.ub_percent"));
  g_ptr_array_add (metadata, g_steal_pointer (&ub));
  g_ptr_array_add (metadata, g_strdup ("fusion.bytes_saved"));
  g_ptr_array_add (metadata, g_steal_pointer (&bytes));
  g_ptr_array_add (metadata, g_strdup ("fusion.launches_saved"));
  g_ptr_array_add (metadata, g_steal_pointer (&launches));
  g_ptr_array_add (metadata, g_strdup ("fusion.time_saved_us"));
  g_ptr_array_add (metadata, g_steal_pointer (&time_us));
  if (c->body != NULL)
    {
      g_ptr_array_add (metadata, g_strdup ("fusion.body"));
      g_ptr_array_add (metadata, g_strdup (c->body));
    }
  return doc;
}

/* A horizontal GEMM's products as one MatMul over its packed weights (plan/fw-hgemm.c), in a main-graph set;
 * a set whose weights cannot be packed keeps its original nodes, which compute the same. */
static gboolean
pack_products (FwOnnxRewrite *rewrite, const FwCandidate *c, GError **error)
{
  const FwHgemmSpec *h = c->spec != NULL ? fw_kernel_spec_get_hgemm (c->spec) : NULL;
  g_autofree float *bias = NULL;
  g_autofree float *w = NULL;
  g_autoptr(GPtrArray) roots = g_ptr_array_new ();
  g_autofree gint64 *columns = NULL;
  g_autoptr(FwTensor) wt = NULL;
  g_autoptr(FwTensor) bt = NULL;
  gint64 wd[2], bd[1];

  if (h == NULL || c->body != NULL || (w = fw_hgemm_pack (h, &bias)) == NULL)
    return TRUE;
  columns = g_new (gint64, h->n_slices);
  for (guint i = 0; i < h->n_slices; i++)
    {
      g_ptr_array_add (roots, h->slices[i].root);
      columns[i] = h->slices[i].n;
    }
  wd[0] = h->k;
  wd[1] = h->n;
  bd[0] = h->n;
  wt = fw_tensor_new_float (2, wd, w);
  bt = bias != NULL ? fw_tensor_new_float (1, bd, bias) : NULL;
  return fw_onnx_rewrite_pack_products (rewrite, roots, columns, wt, bt, error);
}

/* One function node per proposed or accepted candidate, in plan order. */
static FwOnnxRewrite *
build_rewrite (FwPlan *plan, GError **error)
{
  g_autoptr(FwOnnxRewrite) rewrite = fw_onnx_rewrite_new (plan->model);

  for (guint i = 0; i < plan->candidates->len; i++)
    {
      const FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      g_autofree char *pattern = NULL, *scope = NULL, *op_type = NULL, *name = NULL, *doc = NULL;
      GPtrArray *metadata;

      if (!fw_candidate_is_fused (c))
        continue;
      if (c->nodes == NULL || c->nodes->len == 0)
        continue;
      pattern = sanitize_identifier (c->pattern);
      op_type = g_strdup_printf ("Fused_%s_%u", pattern, c->index);
      for (guint suffix = 2; fw_onnx_rewrite_is_taken (rewrite, op_type); suffix++)
        {
          g_free (op_type);
          op_type = g_strdup_printf ("Fused_%s_%u_%u", pattern, c->index, suffix);
        }
      scope = common_scope (c->nodes);
      name = scope[0] ? g_strdup_printf ("/%s/%s", scope, op_type) : g_strdup (op_type);
      metadata = g_ptr_array_new_with_free_func (g_free);
      doc = describe (c, metadata);
      if (!fw_onnx_rewrite_add (rewrite, c->nodes, op_type, name, doc, metadata, error) ||
          !pack_products (rewrite, c, error))
        {
          g_prefix_error (error, _("candidate %u: "), c->index);
          return NULL;
        }
    }
  return g_steal_pointer (&rewrite);
}

static gboolean
check_plan (FwPlan *plan, GError **error)
{
  if (plan == NULL || plan->model == NULL || fw_model_get_graph (plan->model) == NULL)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_USAGE, _("there is no planned model to export"));
      return FALSE;
    }
  return TRUE;
}

GBytes *
fw_fused_model_serialize (FwPlan *plan, FwOnnxWriteFlags flags, GError **error)
{
  g_autoptr(FwOnnxRewrite) rewrite = NULL;

  if (!check_plan (plan, error) || !(rewrite = build_rewrite (plan, error)))
    return NULL;
  return fw_onnx_rewrite_serialize (rewrite, flags, error);
}

gboolean
fw_fused_model_write (FwPlan *plan, const char *path, FwOnnxWriteFlags flags, GError **error)
{
  g_autoptr(FwOnnxRewrite) rewrite = NULL;

  if (!check_plan (plan, error) || !(rewrite = build_rewrite (plan, error)))
    return FALSE;
  return fw_onnx_rewrite_write (rewrite, path, flags, error);
}

FwOnnxRewrite *
fw_fused_model_rewrite (FwPlan *plan, GError **error)
{
  if (!check_plan (plan, error))
    return NULL;
  return build_rewrite (plan, error);
}

/* An integer group reads its int8 operands through DequantizeLinear nodes that are not members when others
 * share them (fw-qdq.h: the weights' of two products, an activation's read by Q, K and V): its kernel takes
 * the int8 values themselves, so the small model computes those DequantizeLinear first, with the int8
 * weights among its initializers and a quantised activation as its input. */
static GPtrArray *
shared_dequantizers (const FwCandidate *c)
{
  GPtrArray *prologue = g_ptr_array_new ();
  g_autoptr(GHashTable) members = g_hash_table_new (NULL, NULL);

  if (!fw_candidate_is_integer (c))
    return prologue;
  for (guint i = 0; i < c->nodes->len; i++)
    g_hash_table_add (members, g_ptr_array_index (c->nodes, i));
  for (guint i = 0; i < c->nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (c->nodes, i);

      for (guint k = 0; k < node->n_inputs; k++)
        {
          FwNode *dq = node->inputs[k] != NULL ? node->inputs[k]->producer : NULL;

          if (dq != NULL && strcmp (dq->op_type, "DequantizeLinear") == 0 && !g_hash_table_contains (members, dq) &&
              !g_ptr_array_find (prologue, dq, NULL))
            g_ptr_array_add (prologue, dq);
        }
    }
  return prologue;
}

GBytes *
fw_fused_model_serialize_group (FwOnnxRewrite *rewrite, FwPlan *plan, guint candidate, GError **error)
{
  guint set = 0;

  /* The rewrite's sets are the fused candidates with nodes, in plan order (build_rewrite). */
  for (guint i = 0; i < plan->candidates->len; i++)
    {
      const FwCandidate *c = g_ptr_array_index (plan->candidates, i);

      if (!fw_candidate_is_fused (c) || c->nodes == NULL || c->nodes->len == 0)
        continue;
      if (i == candidate)
        {
          g_autoptr(GPtrArray) prologue = shared_dequantizers (c);

          return fw_onnx_rewrite_serialize_set_with_prologue (rewrite, set, prologue, error);
        }
      set++;
    }
  g_set_error (error, FW_ERROR, FW_ERROR_INVALID, _("candidate %u is not a fused group"), candidate);
  return NULL;
}

typedef struct
{
  FwOnnxRewrite *rewrite;
  FwPlan        *plan;
} Groups;

static GBytes *
group_model (guint candidate, gpointer user_data, GError **error)
{
  Groups *g = user_data;

  return fw_fused_model_serialize_group (g->rewrite, g->plan, candidate, error);
}

gboolean
fw_fused_model_write_kernel_package (FwPlan *plan, const FwTargets *targets, const char *dir, GError **error)
{
  return fw_fused_model_write_kernel_package_with_scopes (plan, targets, NULL, dir, error);
}

gboolean
fw_fused_model_write_kernel_package_with_scopes (FwPlan *plan, const FwTargets *targets, const FwSkPlan *sk,
                                                 const char *dir, GError **error)
{
  g_autoptr(FwOnnxRewrite) rewrite = NULL;
  Groups groups = { NULL, plan };

  /* The groups are only for re-running Ascend kernels. */
  if (!targets->enabled[FW_TARGET_ASCEND])
    return fw_kernel_package_write_with_scopes (plan, targets, dir, NULL, NULL, sk, error);
  if ((rewrite = fw_fused_model_rewrite (plan, error)) == NULL)
    return FALSE;
  groups.rewrite = rewrite;
  return fw_kernel_package_write_with_scopes (plan, targets, dir, group_model, &groups, sk, error);
}
