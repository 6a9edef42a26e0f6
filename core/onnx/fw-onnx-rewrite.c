/* fw-onnx-rewrite.c: which nodes each set replaces, what crosses its boundary and where its node goes in the
 * main graph; fw-onnx-writer.c puts the bytes together. */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "fw-onnx-rewrite-private.h"
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
  if (group->packed != NULL)
    {
      FwOnnxPacked *p = group->packed;
      g_ptr_array_unref (p->roots);
      g_array_unref (p->columns);
      g_ptr_array_unref (p->dropped);
      g_free (p->weight_name);
      g_free (p->bias_name);
      fw_tensor_unref (p->weight);
      if (p->bias != NULL)
        fw_tensor_unref (p->bias);
      g_free (p);
    }
  g_free (group);
}

FwOnnxRewrite *
fw_onnx_rewrite_new (FwModel *model)
{
  FwOnnxRewrite *rewrite = g_new0 (FwOnnxRewrite, 1);
  FwGraph *graph;

  g_return_val_if_fail (FW_IS_MODEL (model), NULL);

  rewrite->model = g_object_ref (model);
  rewrite->taken = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  rewrite->group_of = g_hash_table_new (NULL, NULL);
  rewrite->groups = g_ptr_array_new_with_free_func (fused_group_free);
  rewrite->hidden = g_hash_table_new (NULL, NULL);
  rewrite->body_orders = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) g_ptr_array_unref);
  /* Names that fusion.workbench already uses (a model exported before and fused again) stay taken. */
  graph = fw_model_get_graph (model);
  for (guint i = 0; graph != NULL && i < graph->nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (graph->nodes, i);
      if (strcmp (node->domain, FW_ONNX_FUSED_DOMAIN) == 0)
        g_hash_table_add (rewrite->taken, g_strdup (node->op_type));
    }
  return rewrite;
}

void
fw_onnx_rewrite_free (FwOnnxRewrite *rewrite)
{
  if (rewrite == NULL)
    return;
  g_clear_pointer (&rewrite->order, g_ptr_array_unref);
  g_clear_pointer (&rewrite->body_orders, g_hash_table_unref);
  g_clear_pointer (&rewrite->group_of, g_hash_table_unref);
  g_clear_pointer (&rewrite->groups, g_ptr_array_unref);
  g_clear_pointer (&rewrite->hidden, g_hash_table_unref);
  g_clear_pointer (&rewrite->taken, g_hash_table_unref);
  g_clear_object (&rewrite->model);
  g_free (rewrite);
}

gboolean
fw_onnx_rewrite_is_taken (FwOnnxRewrite *rewrite, const char *op_type)
{
  g_return_val_if_fail (rewrite != NULL, FALSE);
  return g_hash_table_contains (rewrite->taken, op_type);
}

static gboolean
in_model (FwModel *model, const FwGraph *graph)
{
  while (graph != NULL && graph->parent != NULL)
    graph = graph->parent;
  return graph != NULL && graph == fw_model_get_graph (model);
}

gboolean
fw_onnx_rewrite_add (FwOnnxRewrite *rewrite, GPtrArray *nodes, const char *op_type, const char *name,
                     const char *doc_string, GPtrArray *metadata, GError **error)
{
  g_autoptr(GHashTable) seen = g_hash_table_new (NULL, NULL);
  FwGraph *graph;
  FwOnnxFusedGroup *group;

  g_return_val_if_fail (rewrite != NULL && rewrite->order == NULL, FALSE);
  g_return_val_if_fail (nodes != NULL && nodes->len > 0 && op_type != NULL && name != NULL, FALSE);

  /* One graph per set: the main graph or a control-flow body of the model. */
  graph = ((FwNode *) g_ptr_array_index (nodes, 0))->graph;
  for (guint k = 0; k < nodes->len; k++)
    {
      FwNode *node = g_ptr_array_index (nodes, k);

      if (node->graph != graph || node->index >= graph->nodes->len ||
          g_ptr_array_index (graph->nodes, node->index) != node || !in_model (rewrite->model, graph))
        {
          g_set_error (error, FW_ERROR, FW_ERROR_INTERNAL, _("node “%s” is not in the model’s main graph"),
                       node->name);
          return FALSE;
        }
      if (g_hash_table_contains (rewrite->group_of, node) || !g_hash_table_add (seen, node))
        {
          g_set_error (error, FW_ERROR, FW_ERROR_INTERNAL, _("node “%s” is in more than one fused group"),
                       node->name);
          return FALSE;
        }
    }
  group = g_new0 (FwOnnxFusedGroup, 1);
  group->op_type = g_strdup (op_type);
  group->name = g_strdup (name);
  group->doc_string = g_strdup (doc_string);
  group->inputs = g_ptr_array_new ();
  group->outputs = g_ptr_array_new ();
  group->nodes = g_ptr_array_copy (nodes, NULL, NULL);
  group->metadata = metadata != NULL ? metadata : g_ptr_array_new_with_free_func (g_free);
  for (guint k = 0; k < nodes->len; k++)
    g_hash_table_insert (rewrite->group_of, g_ptr_array_index (nodes, k), group);
  g_hash_table_add (rewrite->taken, g_strdup (op_type));
  g_ptr_array_add (rewrite->groups, group);
  return TRUE;
}

/* Whether a node of the set other than the roots reads v. */
static gboolean
read_besides (const FwOnnxFusedGroup *group, GPtrArray *roots, const FwValue *v)
{
  for (guint i = 0; i < group->nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (group->nodes, i);
      if (g_ptr_array_find (roots, node, NULL))
        continue;
      for (guint k = 0; k < node->n_inputs; k++)
        if (node->inputs[k] == v)
          return TRUE;
    }
  return FALSE;
}

gboolean
fw_onnx_rewrite_pack_products (FwOnnxRewrite *rewrite, GPtrArray *roots, const gint64 *columns, FwTensor *weight,
                               FwTensor *bias, GError **error)
{
  FwOnnxFusedGroup *group;
  FwOnnxPacked *p;
  FwValue *a;

  g_return_val_if_fail (rewrite != NULL && rewrite->order == NULL && roots != NULL && roots->len > 0, FALSE);
  g_return_val_if_fail (columns != NULL && weight != NULL, FALSE);
  group = rewrite->groups->len > 0 ? g_ptr_array_index (rewrite->groups, rewrite->groups->len - 1) : NULL;
  a = ((FwNode *) g_ptr_array_index (roots, 0))->inputs[0];
  for (guint i = 0; group != NULL && i < roots->len; i++)
    {
      FwNode *r = g_ptr_array_index (roots, i);
      if (g_hash_table_lookup (rewrite->group_of, r) != group || r->graph->parent != NULL || r->n_inputs < 2 ||
          r->inputs[0] != a || r->n_outputs < 1 || r->outputs[0] == NULL)
        group = NULL;
    }
  if (group == NULL || group->packed != NULL)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_INTERNAL, _("the products to pack are not the main-graph set added last"));
      return FALSE;
    }
  p = g_new0 (FwOnnxPacked, 1);
  p->a = a;
  p->roots = g_ptr_array_copy (roots, NULL, NULL);
  p->columns = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_array_append_vals (p->columns, columns, roots->len);
  p->dropped = g_ptr_array_new ();
  for (guint i = 0; i < roots->len; i++)
    {
      FwNode *r = g_ptr_array_index (roots, i);
      for (guint k = 1; k < MIN (r->n_inputs, 3u); k++)
        if (r->inputs[k] != NULL && !read_besides (group, roots, r->inputs[k]) &&
            !g_ptr_array_find (p->dropped, r->inputs[k], NULL))
          g_ptr_array_add (p->dropped, r->inputs[k]);
    }
  p->weight_name = g_strdup_printf ("%s.packed_weight", group->op_type);
  p->weight = fw_tensor_ref (weight);
  p->bias_name = bias != NULL ? g_strdup_printf ("%s.packed_bias", group->op_type) : NULL;
  p->bias = bias != NULL ? fw_tensor_ref (bias) : NULL;
  group->packed = p;
  return TRUE;
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
compute_order (FwOnnxRewrite *rewrite, FwGraph *graph, GPtrArray *order, GError **error)
{
  guint n = graph->nodes->len;
  g_autofree guint8 *state = g_new0 (guint8, n);  /* 0 new, 1 on the stack, 2 written */
  g_autoptr(GArray) stack = g_array_new (FALSE, FALSE, sizeof (Frame));
  g_autoptr(GPtrArray) spare = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  gboolean ok = TRUE;

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
              g_ptr_array_add (order, top->node);
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

/* Boundaries and order, once every set is in. */
static gboolean
finish (FwOnnxRewrite *rewrite, GError **error)
{
  if (rewrite->order != NULL)
    return TRUE;
  for (guint i = 0; i < rewrite->groups->len; i++)
    find_boundary (rewrite, g_ptr_array_index (rewrite->groups, i));
  rewrite->order = g_ptr_array_new ();
  if (!compute_order (rewrite, fw_model_get_graph (rewrite->model), rewrite->order, error))
    {
      g_clear_pointer (&rewrite->order, g_ptr_array_unref);
      return FALSE;
    }
  /* A body that holds a set is written in its own order too. */
  for (guint i = 0; i < rewrite->groups->len; i++)
    {
      FwOnnxFusedGroup *group = g_ptr_array_index (rewrite->groups, i);
      FwGraph *graph = ((FwNode *) g_ptr_array_index (group->nodes, 0))->graph;
      GPtrArray *order;

      if (graph->parent == NULL || g_hash_table_contains (rewrite->body_orders, graph))
        continue;
      order = g_ptr_array_new ();
      g_hash_table_insert (rewrite->body_orders, graph, order);
      if (!compute_order (rewrite, graph, order, error))
        {
          g_hash_table_remove_all (rewrite->body_orders);
          g_clear_pointer (&rewrite->order, g_ptr_array_unref);
          return FALSE;
        }
    }
  return TRUE;
}

GBytes *
fw_onnx_rewrite_serialize (FwOnnxRewrite *rewrite, FwOnnxWriteFlags flags, GError **error)
{
  g_return_val_if_fail (rewrite != NULL, NULL);

  if (!finish (rewrite, error))
    return NULL;
  return fw_onnx_serialize_rewritten (rewrite->model, rewrite, flags, error);
}

gboolean
fw_onnx_rewrite_write (FwOnnxRewrite *rewrite, const char *path, FwOnnxWriteFlags flags, GError **error)
{
  g_return_val_if_fail (rewrite != NULL, FALSE);

  if (!finish (rewrite, error))
    return FALSE;
  return fw_onnx_write_rewritten (rewrite->model, rewrite, path, flags, error);
}

guint
fw_onnx_rewrite_get_n_sets (FwOnnxRewrite *rewrite)
{
  return rewrite->groups->len;
}

GBytes *
fw_onnx_rewrite_serialize_set (FwOnnxRewrite *rewrite, guint index, GError **error)
{
  g_return_val_if_fail (rewrite != NULL && index < rewrite->groups->len, NULL);

  if (!finish (rewrite, error))
    return NULL;
  return fw_onnx_serialize_group (rewrite->model, g_ptr_array_index (rewrite->groups, index), error);
}

GBytes *
fw_onnx_rewrite_serialize_set_with_prologue (FwOnnxRewrite *rewrite, guint index, const GPtrArray *prologue,
                                             GError **error)
{
  const FwOnnxFusedGroup *set;
  FwOnnxFusedGroup joined;
  g_autoptr(GPtrArray) nodes = g_ptr_array_new (), inputs = g_ptr_array_new ();
  g_autoptr(GHashTable) made = g_hash_table_new (NULL, NULL), seen = g_hash_table_new (NULL, NULL);

  g_return_val_if_fail (rewrite != NULL && index < rewrite->groups->len, NULL);
  if (!finish (rewrite, error))
    return NULL;
  set = g_ptr_array_index (rewrite->groups, index);
  if (prologue == NULL || prologue->len == 0)
    return fw_onnx_serialize_group (rewrite->model, set, error);
  for (guint i = 0; i < prologue->len; i++)
    {
      FwNode *node = g_ptr_array_index (prologue, i);

      g_ptr_array_add (nodes, node);
      for (guint k = 0; k < node->n_outputs; k++)
        if (node->outputs[k] != NULL)
          g_hash_table_add (made, node->outputs[k]);
      for (guint k = 0; k < node->n_inputs; k++)
        if (node->inputs[k] != NULL && !g_hash_table_contains (made, node->inputs[k]) &&
            g_hash_table_add (seen, node->inputs[k]))
          g_ptr_array_add (inputs, node->inputs[k]);
    }
  for (guint i = 0; i < set->nodes->len; i++)
    g_ptr_array_add (nodes, g_ptr_array_index (set->nodes, i));
  for (guint i = 0; i < set->inputs->len; i++)
    {
      FwValue *v = g_ptr_array_index (set->inputs, i);

      if (!g_hash_table_contains (made, v) && g_hash_table_add (seen, v))
        g_ptr_array_add (inputs, v);
    }
  joined = *set;
  joined.nodes = nodes;
  joined.inputs = inputs;
  return fw_onnx_serialize_group (rewrite->model, &joined, error);
}
