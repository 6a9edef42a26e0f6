/* fw-layout-result.c: what a compute leaves: boxes at their final place, the per-layer index hit tests
 * search, and the edges' routes. */
#include "config.h"

#include "fw-layout-private.h"
#include "graph/fw-graph-private.h"

/* The boxes, shifted so the drawing starts at the margin, and the bounds. */
void
fw_layout_result_add_boxes (Result *r, Layered *g)
{
  gdouble *x = g->x, *width = g->width;
  gdouble min_x = G_MAXDOUBLE, max_x = 0;
  guint n_total = g->n_total, n_layers = g->n_layers;

  for (guint v = 0; v < n_total; v++)
    min_x = MIN (min_x, x[v] - width[v] / 2);
  if (n_total == 0)
    min_x = 0;
  for (guint v = 0; v < n_total; v++)
    {
      x[v] += MARGIN - min_x;
      max_x = MAX (max_x, x[v] + width[v] / 2);
    }
  r->width = n_total > 0 ? max_x + MARGIN : 2 * MARGIN;
  r->height = 2 * MARGIN + (n_layers > 0 ? n_layers * NODE_HEIGHT + (n_layers - 1) * LAYER_GAP : 0);

  r->n_boxes = g->nu;
  r->boxes = g_new0 (FwLayoutBox, MAX (g->nu, 1));
  for (guint u = 0; u < g->nu; u++)
    {
      Unit *unit = &g_array_index (g->units, Unit, u);
      FwLayoutBox *box = &r->boxes[u];

      box->w = width[u];
      box->h = NODE_HEIGHT;
      box->x = x[u] - width[u] / 2;
      box->y = MARGIN + g->layer[u] * (NODE_HEIGHT + LAYER_GAP);
      box->layer = g->layer[u];
      box->n_nodes = unit->n_nodes;
      if (unit->node != NULL)
        {
          box->kind = FW_LAYOUT_BOX_NODE;
          box->node = unit->node;
          box->scope = unit->scope->path;
          box->label = unit->node->op_type;
        }
      else
        {
          box->kind = FW_LAYOUT_BOX_SCOPE;
          box->scope = unit->scope->path;
          box->label = unit->scope->label;
        }
    }
  r->box_of_node = g_memdup2 (g->unit_of_node, MAX (r->n_graph_nodes, 1) * sizeof (guint));

  /* The per-layer index for hit tests: the boxes of each layer, left to right. */
  r->layer_start = g_new0 (guint, n_layers + 1);
  r->layer_box = g_new (guint, MAX (g->nu, 1));
  {
    guint b = 0;

    for (guint l = 0; l < n_layers; l++)
      {
        r->layer_start[l] = b;
        for (guint i = g->layer_start[l]; i < g->layer_start[l + 1]; i++)
          if (!g->dummy[g->layer_nodes[i]])
            r->layer_box[b++] = g->layer_nodes[i];
      }
    r->layer_start[n_layers] = b;
  }
}

/* The routes: from the bottom of the upper box through the centres of the dummies to the top of the lower
 * box; an edge left unrouted is one straight segment. */
void
fw_layout_result_add_routes (Result *r, const Layered *g)
{
  const guint *layer = g->layer;
  const gdouble *x = g->x;
  guint ne = g->ne;
  guint n_points = 0;

  for (guint e = 0; e < ne; e++)
    n_points += g->routed[e] ? layer[g->eto[e]] - layer[g->efrom[e]] + 1 : 2;
  r->n_edges = ne;
  r->edges = g_new0 (FwLayoutEdge, MAX (ne, 1));
  r->points = g_new (FwLayoutPoint, MAX (n_points, 1));
  n_points = 0;
  for (guint e = 0; e < ne; e++)
    {
      FwLayoutEdge *edge = &r->edges[e];
      guint a = g->efrom[e], z = g->eto[e];
      guint span = g->routed[e] ? layer[z] - layer[a] : 1;
      FwLayoutPoint *pt = r->points + n_points;

      edge->upper = a;
      edge->lower = z;
      edge->reversed = g_array_index (g->uedges, UnitEdge, e).reversed;
      edge->n_points = span + 1;
      pt[0].x = x[a];
      pt[0].y = r->boxes[a].y + NODE_HEIGHT;
      for (guint k = 1; k < span; k++)
        {
          guint d = g->first_dummy[e] + k - 1;
          pt[k].x = x[d];
          pt[k].y = MARGIN + g->lnode_layer[d] * (NODE_HEIGHT + LAYER_GAP) + NODE_HEIGHT / 2;
        }
      pt[span].x = x[z];
      pt[span].y = r->boxes[z].y;
      n_points += span + 1;
    }
  n_points = 0;
  for (guint e = 0; e < ne; e++)
    {
      r->edges[e].points = r->points + n_points;
      n_points += r->edges[e].n_points;
    }
}
