/* fw-layout-layering.c: the layered graph: units (drawn nodes and collapsed scopes) and the edges between
 * them, their layers, the dummies that break long edges into one-layer segments, the first order. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fw-layout-private.h"
#include "graph/fw-graph-private.h"

static int
compare_unit_edge (const void *a, const void *b)
{
  const UnitEdge *x = a, *y = b;

  if (x->lo != y->lo)
    return x->lo < y->lo ? -1 : 1;
  if (x->hi != y->hi)
    return x->hi < y->hi ? -1 : 1;
  return (int) x->reversed - (int) y->reversed;
}

int
fw_layout_compare_sort_item (const void *a, const void *b)
{
  const SortItem *x = a, *y = b;

  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  if (x->tie != y->tie)
    return x->tie < y->tie ? -1 : 1;
  return x->id < y->id ? -1 : x->id > y->id;
}

static void
adjacency_build (Adjacency *adj, guint n, guint n_edges, const guint *from, const guint *to)
{
  guint *fill = g_new0 (guint, n + 1);

  adj->start = g_new0 (guint, n + 1);
  adj->list = g_new (guint, MAX (n_edges, 1));
  for (guint e = 0; e < n_edges; e++)
    adj->start[from[e] + 1]++;
  for (guint v = 0; v < n; v++)
    adj->start[v + 1] += adj->start[v];
  memcpy (fill, adj->start, n * sizeof *fill);
  for (guint e = 0; e < n_edges; e++)
    adj->list[fill[from[e]]++] = to[e];
  g_free (fill);
}

static void
adjacency_clear (Adjacency *adj)
{
  g_clear_pointer (&adj->start, g_free);
  g_clear_pointer (&adj->list, g_free);
}

void
fw_layout_layered_clear (Layered *g)
{
  g_clear_pointer (&g->units, g_array_unref);
  g_clear_pointer (&g->uedges, g_array_unref);
  g_clear_pointer (&g->unit_of_node, g_free);
  g_clear_pointer (&g->efrom, g_free);
  g_clear_pointer (&g->eto, g_free);
  g_clear_pointer (&g->layer, g_free);
  g_clear_pointer (&g->routed, g_free);
  g_clear_pointer (&g->first_dummy, g_free);
  g_clear_pointer (&g->lnode_layer, g_free);
  g_clear_pointer (&g->dummy, g_free);
  adjacency_clear (&g->up);
  adjacency_clear (&g->down);
  g_clear_pointer (&g->layer_start, g_free);
  g_clear_pointer (&g->layer_nodes, g_free);
  g_clear_pointer (&g->pos, g_free);
  g_clear_pointer (&g->width, g_free);
  g_clear_pointer (&g->x, g_free);
}

/* Units: drawn nodes outside collapsed scopes, and one per outermost collapsed scope, numbered in
 * topological order of their first node. */
void
fw_layout_collect_units (Layered *g, const Job *job)
{
  FwLayout *self = job->self;
  guint n_graph = self->graph->nodes->len;
  g_autofree guint *scope_unit = g_new (guint, self->scopes->len);
  FwNode **order;
  guint n_order;

  g->units = g_array_new (FALSE, FALSE, sizeof (Unit));
  g->unit_of_node = g_new (guint, MAX (n_graph, 1));
  for (guint i = 0; i < n_graph; i++)
    g->unit_of_node[i] = G_MAXUINT;
  for (guint i = 0; i < self->scopes->len; i++)
    scope_unit[i] = G_MAXUINT;

  order = fw_graph_get_order (self->graph, &n_order);
  for (guint i = 0; order != NULL && i < n_order; i++)
    {
      FwNode *node = order[i];
      Scope *s = self->node_scope[node->index];
      Scope *collapsed = NULL;
      Unit unit = { 0 };

      if (s == NULL)
        continue;
      for (Scope *t = s; t->parent != NULL; t = t->parent)
        if (!job->expanded[t->id])
          collapsed = t;
      if (collapsed != NULL)
        {
          if (scope_unit[collapsed->id] == G_MAXUINT)
            {
              unit.scope = collapsed;
              scope_unit[collapsed->id] = g->units->len;
              g_array_append_val (g->units, unit);
            }
          g->unit_of_node[node->index] = scope_unit[collapsed->id];
          g_array_index (g->units, Unit, scope_unit[collapsed->id]).n_nodes++;
        }
      else
        {
          unit.node = node;
          unit.scope = s;
          unit.n_nodes = 1;
          g->unit_of_node[node->index] = g->units->len;
          g_array_append_val (g->units, unit);
        }
    }
  g->nu = g->units->len;
}

/* Edges between units, once per pair. Within a DAG every edge runs to a later unit; collapsing can make
 * one run back, and it is laid out turned round. */
void
fw_layout_collect_unit_edges (Layered *g, FwGraph *graph)
{
  FwNode **order;
  guint n_order;
  guint ne;

  g->uedges = g_array_new (FALSE, FALSE, sizeof (UnitEdge));
  order = fw_graph_get_order (graph, &n_order);
  for (guint i = 0; order != NULL && i < n_order; i++)
    {
      FwNode *node = order[i];
      guint u = g->unit_of_node[node->index];

      if (u == G_MAXUINT)
        continue;
      for (guint k = 0; k < node->n_outputs; k++)
        {
          FwValue *value = node->outputs[k];

          for (guint j = 0; value != NULL && j < value->n_uses; j++)
            {
              FwNode *consumer = value->uses[j].node;
              UnitEdge e;
              guint w;

              if (consumer == NULL || consumer->graph != graph)
                continue;
              w = g->unit_of_node[consumer->index];
              if (w == G_MAXUINT || w == u)
                continue;
              e.lo = MIN (u, w);
              e.hi = MAX (u, w);
              e.reversed = u > w;
              g_array_append_val (g->uedges, e);
            }
        }
    }
  qsort (g->uedges->data, g->uedges->len, sizeof (UnitEdge), compare_unit_edge);
  ne = 0;
  for (guint e = 0; e < g->uedges->len; e++)
    {
      UnitEdge *cur = &g_array_index (g->uedges, UnitEdge, e);
      if (ne > 0)
        {
          UnitEdge *prev = &g_array_index (g->uedges, UnitEdge, ne - 1);
          if (prev->lo == cur->lo && prev->hi == cur->hi)
            continue;
        }
      g_array_index (g->uedges, UnitEdge, ne++) = *cur;
    }
  g_array_set_size (g->uedges, ne);
  g->ne = ne;

  g->efrom = g_new (guint, MAX (ne, 1));
  g->eto = g_new (guint, MAX (ne, 1));
  for (guint e = 0; e < ne; e++)
    {
      g->efrom[e] = g_array_index (g->uedges, UnitEdge, e).lo;
      g->eto[e] = g_array_index (g->uedges, UnitEdge, e).hi;
    }
}

/* Layers: longest path from the sources, then each node that feeds at least as many edges as feed it
 * moves down next to its consumers, which shortens its out-edges at no cost to the rest. */
void
fw_layout_assign_layers (Layered *g)
{
  Adjacency out = { 0 }, in = { 0 };
  guint nu = g->nu;
  guint *layer;

  adjacency_build (&out, nu, g->ne, g->efrom, g->eto);
  adjacency_build (&in, nu, g->ne, g->eto, g->efrom);
  layer = g->layer = g_new0 (guint, MAX (nu, 1));
  for (guint u = 0; u < nu; u++)
    for (guint k = out.start[u]; k < out.start[u + 1]; k++)
      layer[out.list[k]] = MAX (layer[out.list[k]], layer[u] + 1);
  for (guint u = nu; u-- > 0;)
    {
      guint n_out = out.start[u + 1] - out.start[u];
      guint n_in = in.start[u + 1] - in.start[u];
      guint lowest = G_MAXUINT;

      if (n_out == 0 || n_out < n_in)
        continue;
      for (guint k = out.start[u]; k < out.start[u + 1]; k++)
        lowest = MIN (lowest, layer[out.list[k]]);
      if (lowest - 1 > layer[u])
        layer[u] = lowest - 1;
    }
  g->n_layers = 0;
  for (guint u = 0; u < nu; u++)
    g->n_layers = MAX (g->n_layers, layer[u] + 1);
  adjacency_clear (&out);
  adjacency_clear (&in);
}

/* A graph where one node feeds every layer would need a number of dummies quadratic in its size; past a
 * budget linear in the graph, the longest edges are left as straight lines. */
static void
choose_routed_edges (Layered *g)
{
  const guint *layer = g->layer;
  guint ne = g->ne;
  guint64 want = 0, budget = DUMMY_BUDGET_PER_ITEM * ((guint64) g->nu + ne) + DUMMY_BUDGET_BASE;

  g->routed = g_new (gboolean, MAX (ne, 1));
  for (guint e = 0; e < ne; e++)
    {
      g->routed[e] = TRUE;
      want += layer[g->eto[e]] - layer[g->efrom[e]] - 1;
    }
  if (want > budget)
    {
      g_autofree SortItem *items = g_new (SortItem, ne);
      guint64 used = 0;

      for (guint e = 0; e < ne; e++)
        items[e] = (SortItem) { layer[g->eto[e]] - layer[g->efrom[e]], e, e };
      qsort (items, ne, sizeof (SortItem), fw_layout_compare_sort_item);
      for (guint i = 0; i < ne; i++)
        {
          guint64 need = (guint64) items[i].key - 1;

          if (used + need <= budget)
            used += need;
          else
            g->routed[items[i].id] = FALSE;
        }
    }
}

/* Dummy nodes: a routed edge across k layers becomes a chain through k − 1 of them, k segments. */
void
fw_layout_insert_dummies (Layered *g)
{
  const guint *layer = g->layer;
  guint ne = g->ne;
  g_autofree guint *sfrom = NULL, *sto = NULL;
  guint s = 0;

  choose_routed_edges (g);
  g->first_dummy = g_new (guint, MAX (ne, 1));
  g->n_total = g->nu;
  g->n_segments = 0;
  for (guint e = 0; e < ne; e++)
    {
      guint span = layer[g->eto[e]] - layer[g->efrom[e]];

      g->first_dummy[e] = G_MAXUINT;
      if (!g->routed[e])
        continue;
      g->first_dummy[e] = g->n_total;
      g->n_total += span - 1;
      g->n_segments += span;
    }
  g->lnode_layer = g_new (guint, MAX (g->n_total, 1));
  g->dummy = g_new0 (gboolean, MAX (g->n_total, 1));
  sfrom = g_new (guint, MAX (g->n_segments, 1));
  sto = g_new (guint, MAX (g->n_segments, 1));
  memcpy (g->lnode_layer, layer, g->nu * sizeof (guint));
  for (guint e = 0; e < ne; e++)
    {
      guint span = layer[g->eto[e]] - layer[g->efrom[e]];
      guint prev = g->efrom[e];

      if (!g->routed[e])
        continue;
      for (guint k = 1; k < span; k++)
        {
          guint d = g->first_dummy[e] + k - 1;
          g->lnode_layer[d] = layer[g->efrom[e]] + k;
          g->dummy[d] = TRUE;
          sfrom[s] = prev;
          sto[s] = d;
          s++;
          prev = d;
        }
      sfrom[s] = prev;
      sto[s] = g->eto[e];
      s++;
    }
  adjacency_build (&g->down, g->n_total, g->n_segments, sfrom, sto);
  adjacency_build (&g->up, g->n_total, g->n_segments, sto, sfrom);
}

/* Initial order: by id within each layer (units in topological order, dummies by edge). */
void
fw_layout_initial_order (Layered *g)
{
  guint n_layers = g->n_layers;
  g_autofree guint *fill = NULL;

  g->layer_start = g_new0 (guint, n_layers + 1);
  g->layer_nodes = g_new (guint, MAX (g->n_total, 1));
  g->pos = g_new (guint, MAX (g->n_total, 1));
  g->max_layer_len = 0;
  for (guint v = 0; v < g->n_total; v++)
    g->layer_start[g->lnode_layer[v] + 1]++;
  for (guint l = 0; l < n_layers; l++)
    {
      g->max_layer_len = MAX (g->max_layer_len, g->layer_start[l + 1]);
      g->layer_start[l + 1] += g->layer_start[l];
    }
  fill = g_memdup2 (g->layer_start, (n_layers + 1) * sizeof (guint));
  for (guint v = 0; v < g->n_total; v++)
    {
      guint l = g->lnode_layer[v];
      g->pos[v] = fill[l] - g->layer_start[l];
      g->layer_nodes[fill[l]++] = v;
    }
}
