/* fw-schedule.c: the fused graph's execution order (fw-schedule.h). */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "fw-schedule.h"

/* A min-heap of vertex ids keyed by their first node's topological position, so the schedule stays close
 * to the file's order. */
typedef struct
{
  guint *items;
  guint  len;
  const guint *key;
} Heap;

static void
heap_push (Heap *h, guint v)
{
  guint i = h->len++;

  h->items[i] = v;
  while (i > 0 && h->key[h->items[(i - 1) / 2]] > h->key[h->items[i]])
    {
      guint p = (i - 1) / 2, t = h->items[p];

      h->items[p] = h->items[i];
      h->items[i] = t;
      i = p;
    }
}

static guint
heap_pop (Heap *h)
{
  guint top = h->items[0], i = 0;

  h->items[0] = h->items[--h->len];
  for (;;)
    {
      guint l = 2 * i + 1, r = l + 1, m = i, t;

      if (l < h->len && h->key[h->items[l]] < h->key[h->items[m]])
        m = l;
      if (r < h->len && h->key[h->items[r]] < h->key[h->items[m]])
        m = r;
      if (m == i)
        break;
      t = h->items[m];
      h->items[m] = h->items[i];
      h->items[i] = t;
      i = m;
    }
  return top;
}

static gboolean
candidate_in (const FwCandidate *c, const FwGraph *graph)
{
  return c->nodes != NULL && c->nodes->len > 0 && ((FwNode *) g_ptr_array_index (c->nodes, 0))->graph == graph;
}

GArray *
fw_schedule_fused_candidates_in (FwPlan *plan, const FwGraph *graph)
{
  GArray *fused = g_array_new (FALSE, FALSE, sizeof (guint));

  for (guint i = 0; i < plan->candidates->len; i++)
    {
      FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      if (fw_candidate_is_fused (c) && candidate_in (c, graph))
        g_array_append_val (fused, i);
    }
  return fused;
}

GArray *
fw_schedule_fused_candidates (FwPlan *plan)
{
  return fw_schedule_fused_candidates_in (plan, fw_model_get_graph (plan->model));
}

/* Vertices: groups first (0 … n_groups−1), then every node outside them. */
static gboolean
assign_vertices (FwPlan *plan, FwGraph *graph, const guint *groups, guint n_groups, guint *vertex_of, guint *out_n,
                 GError **error)
{
  guint n_vertices = n_groups;

  for (guint i = 0; i < graph->nodes->len; i++)
    vertex_of[i] = G_MAXUINT;
  for (guint g = 0; g < n_groups; g++)
    {
      FwCandidate *c;

      if (groups[g] >= plan->candidates->len)
        {
          g_set_error (error, FW_ERROR, FW_ERROR_INTERNAL, _("no candidate %u in the plan"), groups[g]);
          return FALSE;
        }
      c = g_ptr_array_index (plan->candidates, groups[g]);
      for (guint n = 0; n < c->nodes->len; n++)
        {
          FwNode *node = g_ptr_array_index (c->nodes, n);

          if (node->graph != graph)
            {
              g_set_error (error, FW_ERROR, FW_ERROR_INTERNAL, _("candidate %u is not in the graph scheduled"),
                           groups[g]);
              return FALSE;
            }
          if (vertex_of[node->index] != G_MAXUINT)
            {
              g_set_error (error, FW_ERROR, FW_ERROR_INTERNAL, _("node “%s” is in two fused groups"), node->name);
              return FALSE;
            }
          vertex_of[node->index] = g;
        }
    }
  for (guint i = 0; i < graph->nodes->len; i++)
    if (vertex_of[i] == G_MAXUINT)
      vertex_of[i] = n_vertices++;
  *out_n = n_vertices;
  return TRUE;
}

GArray *
fw_schedule_build (FwPlan *plan, const guint *groups, guint n_groups, GError **error)
{
  return fw_schedule_build_in (plan, fw_model_get_graph (plan->model), groups, n_groups, error);
}

GArray *
fw_schedule_build_in (FwPlan *plan, FwGraph *graph, const guint *groups, guint n_groups, GError **error)
{
  guint n_nodes = graph->nodes->len, n_vertices, n_order = 0, scheduled = 0;
  g_autofree guint *vertex_of = g_new (guint, MAX (n_nodes, 1));
  g_autofree guint *key = NULL, *indegree = NULL;
  g_autofree FwNode **node_of_vertex = NULL;
  g_autoptr(GPtrArray) out_edges = NULL;
  g_autoptr(GArray) own = NULL;
  g_autoptr(GArray) steps = g_array_new (FALSE, FALSE, sizeof (FwScheduleStep));
  FwNode **order = fw_graph_get_order (graph, &n_order);
  Heap heap = { 0 };

  if (groups == NULL)
    {
      own = fw_schedule_fused_candidates_in (plan, graph);
      groups = (const guint *) own->data;
      n_groups = own->len;
    }
  if (!assign_vertices (plan, graph, groups, n_groups, vertex_of, &n_vertices, error))
    return NULL;
  key = g_new (guint, MAX (n_vertices, 1));
  indegree = g_new0 (guint, MAX (n_vertices, 1));
  for (guint v = 0; v < n_vertices; v++)
    key[v] = G_MAXUINT;
  for (guint t = 0; t < n_order; t++)
    key[vertex_of[order[t]->index]] = MIN (key[vertex_of[order[t]->index]], t);
  out_edges = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  for (guint v = 0; v < n_vertices; v++)
    g_ptr_array_add (out_edges, g_array_new (FALSE, FALSE, sizeof (guint)));
  for (guint i = 0; i < n_nodes; i++)
    {
      FwNode *node = g_ptr_array_index (graph->nodes, i);
      guint to = vertex_of[i];

      for (guint k = 0; k < node->n_inputs + (node->implicit_inputs ? node->implicit_inputs->len : 0); k++)
        {
          FwValue *v = k < node->n_inputs ? node->inputs[k]
                                          : g_ptr_array_index (node->implicit_inputs, k - node->n_inputs);
          guint from;

          if (v == NULL || v->producer == NULL || v->producer->graph != graph)
            continue;
          from = vertex_of[v->producer->index];
          if (from == to)
            continue;
          g_array_append_val (g_ptr_array_index (out_edges, from), to);
          indegree[to]++;
        }
    }
  node_of_vertex = g_new0 (FwNode *, MAX (n_vertices, 1));
  for (guint i = 0; i < n_nodes; i++)
    if (vertex_of[i] >= n_groups)
      node_of_vertex[vertex_of[i]] = g_ptr_array_index (graph->nodes, i);
  heap.items = g_new (guint, n_vertices + 1);
  heap.key = key;
  for (guint v = 0; v < n_vertices; v++)
    if (indegree[v] == 0)
      heap_push (&heap, v);
  while (heap.len > 0)
    {
      guint v = heap_pop (&heap);
      GArray *edges = g_ptr_array_index (out_edges, v);
      FwScheduleStep step = { v < n_groups ? NULL : node_of_vertex[v], v < n_groups ? v : G_MAXUINT };

      g_array_append_val (steps, step);
      scheduled++;
      for (guint e = 0; e < edges->len; e++)
        {
          guint to = g_array_index (edges, guint, e);

          if (--indegree[to] == 0)
            heap_push (&heap, to);
        }
    }
  g_free (heap.items);
  if (scheduled != n_vertices)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_INTERNAL,
                   _("the fused groups form a cycle with the rest of the graph (%u of %u steps scheduled)"),
                   scheduled, n_vertices);
      return NULL;
    }
  return g_steal_pointer (&steps);
}
