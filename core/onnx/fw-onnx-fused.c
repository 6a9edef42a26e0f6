/* fw-onnx-fused.c: which nodes each fused group replaces, what crosses its boundary and where its node
 * goes in the main graph; fw-onnx-writer.c puts the bytes together. */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "fw-onnx-fused.h"
#include "graph/fw-model-private.h"

static void
fused_group_free (gpointer data)
{
  FwOnnxFusedGroup *group = data;

  g_free (group->op_type);
  g_free (group->name);
  g_free (group->doc_string);
  g_ptr_array_unref (group->inputs);
  g_ptr_array_unref (group->outputs);
  g_ptr_array_unref (group->nodes);
  g_ptr_array_unref (group->metadata);
  g_free (group);
}

static void
rewrite_clear (FwOnnxRewrite *rewrite)
{
  g_clear_pointer (&rewrite->order, g_ptr_array_unref);
  g_clear_pointer (&rewrite->group_of, g_hash_table_unref);
  g_clear_pointer (&rewrite->groups, g_ptr_array_unref);
  g_clear_pointer (&rewrite->hidden, g_hash_table_unref);
}

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

static void
describe (FwOnnxFusedGroup *group, const FwCandidate *c)
{
  g_autoptr(GString) ops = g_string_new (NULL);
  g_autofree char *ub = format_number (c->resource.ub_percent, "%.1f");
  gdouble saved = c->cost.bytes_read_before + c->cost.bytes_written_before - c->cost.bytes_read_after -
                  c->cost.bytes_written_after;
  g_autofree char *bytes = format_number (saved, "%.0f");
  g_autofree char *time_us = format_number (c->cost.saving_s * 1e6, "%.3f");
  g_autofree char *launches = g_strdup_printf ("%u", c->cost.launches_before > c->cost.launches_after
                                                     ? c->cost.launches_before - c->cost.launches_after : 0);

  for (guint i = 0; i < c->nodes->len; i++)
    g_string_append_printf (ops, "%s%s", i ? ", " : "", ((FwNode *) g_ptr_array_index (c->nodes, i))->op_type);
  /* Untranslated on purpose: file contents must not depend on the locale of whoever exported them. */
  group->doc_string = g_strdup_printf ("Fusion Workbench group %u (%s): pattern %s, kind %s, %u nodes: %s. "
                                       "Unified Buffer %s %%, HBM bytes saved %s, launches saved %s, "
                                       "estimated time saved %s us.",
                                       c->index, fw_candidate_status_name (c->status), c->pattern,
                                       c->kind ? c->kind : c->pattern, c->nodes->len, ops->str, ub, bytes,
                                       launches, time_us);
  g_ptr_array_add (group->metadata, g_strdup ("fusion.pattern"));
  g_ptr_array_add (group->metadata, g_strdup (c->pattern));
  g_ptr_array_add (group->metadata, g_strdup ("fusion.kind"));
  g_ptr_array_add (group->metadata, g_strdup (c->kind ? c->kind : c->pattern));
  g_ptr_array_add (group->metadata, g_strdup ("fusion.status"));
  g_ptr_array_add (group->metadata, g_strdup (fw_candidate_status_name (c->status)));
  g_ptr_array_add (group->metadata, g_strdup ("fusion.ub_percent"));
  g_ptr_array_add (group->metadata, g_steal_pointer (&ub));
  g_ptr_array_add (group->metadata, g_strdup ("fusion.bytes_saved"));
  g_ptr_array_add (group->metadata, g_steal_pointer (&bytes));
  g_ptr_array_add (group->metadata, g_strdup ("fusion.launches_saved"));
  g_ptr_array_add (group->metadata, g_steal_pointer (&launches));
  g_ptr_array_add (group->metadata, g_strdup ("fusion.time_saved_us"));
  g_ptr_array_add (group->metadata, g_steal_pointer (&time_us));
}

static gboolean
in_group (FwOnnxRewrite *rewrite, const FwNode *node, const FwOnnxFusedGroup *group)
{
  return node != NULL && g_hash_table_lookup (rewrite->group_of, node) == group;
}

/* Inputs: every value a node of the group reads that no node of it produces, first use first. Outputs:
 * every value it produces that a node outside it reads (a subgraph's capture counts) or that is a graph
 * output; the rest becomes internal to the function. */
static void
find_boundary (FwOnnxRewrite *rewrite, FwOnnxFusedGroup *group)
{
  g_autoptr(GHashTable) seen = g_hash_table_new (NULL, NULL);

  for (guint i = 0; i < group->nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (group->nodes, i);
      guint n_implicit = node->implicit_inputs ? node->implicit_inputs->len : 0;

      for (guint k = 0; k < node->n_inputs + n_implicit; k++)
        {
          FwValue *v = k < node->n_inputs ? node->inputs[k]
                                          : g_ptr_array_index (node->implicit_inputs, k - node->n_inputs);
          if (v == NULL || in_group (rewrite, v->producer, group) || !g_hash_table_add (seen, v))
            continue;
          g_ptr_array_add (group->inputs, v);
        }
    }
  for (guint i = 0; i < group->nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (group->nodes, i);

      for (guint k = 0; k < node->n_outputs; k++)
        {
          FwValue *v = node->outputs[k];
          gboolean outside = FALSE;

          if (v == NULL)
            continue;
          outside = v->is_output;
          for (guint u = 0; !outside && u < v->n_uses; u++)
            outside = !in_group (rewrite, v->uses[u].node, group);
          if (outside)
            g_ptr_array_add (group->outputs, v);
          else
            g_hash_table_add (rewrite->hidden, v);
        }
    }
  /* A node needs an output; a group nobody reads (dead code the planner still grouped) keeps its last. */
  if (group->outputs->len == 0)
    {
      FwNode *last = g_ptr_array_index (group->nodes, group->nodes->len - 1);

      for (guint k = 0; k < last->n_outputs && group->outputs->len == 0; k++)
        if (last->outputs[k] != NULL)
          {
            g_ptr_array_add (group->outputs, last->outputs[k]);
            g_hash_table_remove (rewrite->hidden, last->outputs[k]);
          }
    }
}

/* The producers a unit (a node, or a whole group) waits for. */
static void
unit_dependencies (FwOnnxRewrite *rewrite, FwNode *node, GPtrArray *deps)
{
  FwOnnxFusedGroup *group = g_hash_table_lookup (rewrite->group_of, node);
  GPtrArray *members = group ? group->nodes : NULL;
  guint n_members = members ? members->len : 1;

  g_ptr_array_set_size (deps, 0);
  for (guint m = 0; m < n_members; m++)
    {
      FwNode *n = members ? g_ptr_array_index (members, m) : node;
      guint n_implicit = n->implicit_inputs ? n->implicit_inputs->len : 0;

      for (guint k = 0; k < n->n_inputs + n_implicit; k++)
        {
          FwValue *v = k < n->n_inputs ? n->inputs[k] : g_ptr_array_index (n->implicit_inputs, k - n->n_inputs);
          if (v != NULL && v->producer != NULL && v->producer->graph == node->graph &&
              !(group != NULL && in_group (rewrite, v->producer, group)))
            g_ptr_array_add (deps, v->producer);
        }
    }
}

/* The node that stands for node's unit in the order: the group's first node, or node itself. */
static FwNode *
unit_of (FwOnnxRewrite *rewrite, FwNode *node)
{
  FwOnnxFusedGroup *group = g_hash_table_lookup (rewrite->group_of, node);

  return group ? g_ptr_array_index (group->nodes, 0) : node;
}

typedef struct
{
  FwNode    *node;
  GPtrArray *deps;
  guint      next;
} Frame;

/* The main graph's order after fusion: file order, except that a group is written where its first node
 * was, after whatever it reads that came later in the file. Depth first, by hand (a chain of a million
 * nodes must not exhaust the stack). A cycle means the planner let through a group that an outside path
 * leaves and re-enters, which it must never do. */
static gboolean
compute_order (FwOnnxRewrite *rewrite, FwGraph *graph, GError **error)
{
  guint n = graph->nodes->len;
  g_autofree guint8 *state = g_new0 (guint8, n);  /* 0 new, 1 on the stack, 2 written */
  g_autoptr(GArray) stack = g_array_new (FALSE, FALSE, sizeof (Frame));
  g_autoptr(GPtrArray) spare = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  gboolean ok = TRUE;

  rewrite->order = g_ptr_array_new ();
  for (guint i = 0; i < n && ok; i++)
    {
      FwNode *start = unit_of (rewrite, (FwNode *) g_ptr_array_index (graph->nodes, i));
      Frame f;

      if (state[start->index] != 0)
        continue;
      f.node = start;
      f.deps = spare->len ? g_ptr_array_steal_index_fast (spare, spare->len - 1) : g_ptr_array_new ();
      f.next = 0;
      unit_dependencies (rewrite, start, f.deps);
      state[start->index] = 1;
      g_array_append_val (stack, f);
      while (stack->len > 0 && ok)
        {
          Frame *top = &g_array_index (stack, Frame, stack->len - 1);

          if (top->next < top->deps->len)
            {
              FwNode *dep = unit_of (rewrite, (FwNode *) g_ptr_array_index (top->deps, top->next));
              Frame g;

              top->next++;
              if (state[dep->index] == 2)
                continue;
              if (state[dep->index] == 1)
                {
                  ok = FALSE;
                  break;
                }
              g.node = dep;
              g.deps = spare->len ? g_ptr_array_steal_index_fast (spare, spare->len - 1) : g_ptr_array_new ();
              g.next = 0;
              unit_dependencies (rewrite, dep, g.deps);
              state[dep->index] = 1;
              g_array_append_val (stack, g);
            }
          else
            {
              state[top->node->index] = 2;
              g_ptr_array_add (rewrite->order, top->node);
              g_ptr_array_add (spare, top->deps);
              g_array_set_size (stack, stack->len - 1);
            }
        }
    }
  for (guint i = 0; i < stack->len; i++)
    g_ptr_array_unref (g_array_index (stack, Frame, i).deps);
  if (!ok)
    g_set_error (error, FW_ERROR, FW_ERROR_INTERNAL,
                 _("the fused groups form a cycle in the graph; the plan is inconsistent with the model"));
  return ok;
}

static gboolean
build_rewrite (FwPlan *plan, FwOnnxRewrite *rewrite, GError **error)
{
  FwGraph *graph = fw_model_get_graph (plan->model);
  g_autoptr(GHashTable) taken = g_hash_table_new (g_str_hash, g_str_equal);

  rewrite->group_of = g_hash_table_new (NULL, NULL);
  rewrite->groups = g_ptr_array_new_with_free_func (fused_group_free);
  rewrite->hidden = g_hash_table_new (NULL, NULL);

  /* Names that fusion.workbench already uses (a model exported before and fused again) stay taken. */
  for (guint i = 0; i < graph->nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (graph->nodes, i);
      if (strcmp (node->domain, FW_ONNX_FUSED_DOMAIN) == 0)
        g_hash_table_add (taken, (gpointer) node->op_type);
    }

  for (guint i = 0; i < plan->candidates->len; i++)
    {
      const FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      FwOnnxFusedGroup *group;
      g_autofree char *pattern = NULL;
      g_autofree char *scope = NULL;

      if (c->status != FW_CANDIDATE_PROPOSED && c->status != FW_CANDIDATE_ACCEPTED)
        continue;
      if (c->nodes == NULL || c->nodes->len == 0)
        continue;
      group = g_new0 (FwOnnxFusedGroup, 1);
      group->inputs = g_ptr_array_new ();
      group->outputs = g_ptr_array_new ();
      group->nodes = g_ptr_array_new ();
      group->metadata = g_ptr_array_new_with_free_func (g_free);
      g_ptr_array_add (rewrite->groups, group);
      for (guint k = 0; k < c->nodes->len; k++)
        {
          FwNode *node = g_ptr_array_index (c->nodes, k);

          if (node->graph != graph || node->index >= graph->nodes->len ||
              g_ptr_array_index (graph->nodes, node->index) != node)
            {
              g_set_error (error, FW_ERROR, FW_ERROR_INTERNAL,
                           _("candidate %u holds a node that is not in the model’s main graph"), c->index);
              return FALSE;
            }
          if (g_hash_table_contains (rewrite->group_of, node))
            {
              g_set_error (error, FW_ERROR, FW_ERROR_INTERNAL,
                           _("node “%s” is in more than one fused group (candidate %u and another)"),
                           node->name, c->index);
              return FALSE;
            }
          g_hash_table_insert (rewrite->group_of, node, group);
          g_ptr_array_add (group->nodes, node);
        }

      pattern = sanitize_identifier (c->pattern);
      group->op_type = g_strdup_printf ("Fused_%s_%u", pattern, c->index);
      for (guint suffix = 2; g_hash_table_contains (taken, group->op_type); suffix++)
        {
          g_free (group->op_type);
          group->op_type = g_strdup_printf ("Fused_%s_%u_%u", pattern, c->index, suffix);
        }
      g_hash_table_add (taken, group->op_type);
      scope = common_scope (group->nodes);
      group->name = scope[0] ? g_strdup_printf ("/%s/%s", scope, group->op_type) : g_strdup (group->op_type);
      describe (group, c);
    }
  for (guint i = 0; i < rewrite->groups->len; i++)
    find_boundary (rewrite, g_ptr_array_index (rewrite->groups, i));
  return compute_order (rewrite, graph, error);
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
fw_onnx_serialize_fused (FwPlan *plan, FwOnnxWriteFlags flags, GError **error)
{
  FwOnnxRewrite rewrite = { 0 };
  GBytes *bytes = NULL;

  if (!check_plan (plan, error))
    return NULL;
  if (build_rewrite (plan, &rewrite, error))
    bytes = fw_onnx_serialize_rewritten (plan->model, &rewrite, flags, error);
  rewrite_clear (&rewrite);
  return bytes;
}

gboolean
fw_onnx_export_fused (FwPlan *plan, const char *path, FwOnnxWriteFlags flags, GError **error)
{
  FwOnnxRewrite rewrite = { 0 };
  gboolean ok = FALSE;

  if (!check_plan (plan, error))
    return FALSE;
  if (build_rewrite (plan, &rewrite, error))
    ok = fw_onnx_write_rewritten (plan->model, &rewrite, path, flags, error);
  rewrite_clear (&rewrite);
  return ok;
}
