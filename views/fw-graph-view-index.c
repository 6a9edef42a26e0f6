/* fw-graph-view-index.c: FwGraphView's index of its layout's last result, which lets a frame find its visible
 * part by binary search (boxes by layer, then x; edge segments by their top y), and the per-candidate hulls,
 * overlay categories and scope savings made again with the plan. */
#include "config.h"

#include <stdlib.h>

#include "fw-graph-view-private.h"
#include "fw-graph-overlay.h"
#include "fw-scope-label.h"
#include "layout/fw-hull.h"

FwPlan *
fw_graph_view_current_plan (FwGraphView *self)
{
  if (self->project != NULL)
    return fw_project_get_plan (self->project);
  return self->plan;
}

/* Index building */

static FwLayout *sort_layout;   /* qsort has no user data; the index is built on the main thread only */

static int
compare_box_order (const void *a, const void *b)
{
  const FwLayoutBox *p = fw_layout_get_box (sort_layout, *(const guint *) a);
  const FwLayoutBox *q = fw_layout_get_box (sort_layout, *(const guint *) b);

  if (p->layer != q->layer)
    return p->layer < q->layer ? -1 : 1;
  if (p->x != q->x)
    return p->x < q->x ? -1 : 1;
  return *(const guint *) a < *(const guint *) b ? -1 : 1;
}

static int
compare_segment (const void *a, const void *b)
{
  const Segment *p = a, *q = b;

  if (p->y0 != q->y0)
    return p->y0 < q->y0 ? -1 : 1;
  if (p->edge != q->edge)
    return p->edge < q->edge ? -1 : 1;
  return p->k < q->k ? -1 : p->k > q->k;
}

static void
clear_hulls (FwGraphView *self)
{
  for (guint i = 0; i < self->n_hulls; i++)
    g_free (self->hulls[i].points);
  g_clear_pointer (&self->hulls, g_free);
  self->n_hulls = 0;
}

static gboolean
candidate_flagged (FwGraphView *self, guint candidate)
{
  g_autoptr(FwCandidateItem) item = NULL;
  const char *result;

  if (self->project == NULL)
    return FALSE;
  item = g_list_model_get_item (fw_project_get_candidates (self->project), candidate);
  if (item == NULL)
    return FALSE;
  result = fw_candidate_item_get_verification (item);
  /* An Ascend kernel that failed on the twin is as wrong as a host kernel that failed. */
  return g_strcmp0 (result, "fail") == 0 || g_strcmp0 (result, "unverified") == 0 ||
         g_strcmp0 (fw_candidate_item_get_twin (item), "fail") == 0;
}

/* The overlay's categories and colours: made again with the plan, its check results and the layout. */
void
fw_graph_view_build_overlay (FwGraphView *self)
{
  g_clear_pointer (&self->overlay_class, g_free);
  g_clear_pointer (&self->minimap, gsk_render_node_unref);
  fw_graph_legend_clear (&self->legend);
  if (self->layout == NULL || self->n_boxes == 0)
    return;
  self->overlay_class = fw_graph_overlay_classify (self->overlay, self->layout, fw_graph_view_current_plan (self), self->project,
                                                   &self->legend);
  for (guint i = 0; i < self->legend.n_categories; i++)
    {
      const GdkRGBA *c = &self->legend.colors[i];

      self->overlay_palette[i] = *c;
      self->overlay_dark[i] = (GdkRGBA) { fw_graph_view_darken (c->red), fw_graph_view_darken (c->green), fw_graph_view_darken (c->blue), 1 };
    }
}

/* The time saved inside each collapsed scope, which its label shows: made again with the plan. */
static void
build_scope_savings (FwGraphView *self)
{
  g_clear_pointer (&self->scope_saving, g_free);
  if (self->layout == NULL || self->n_boxes == 0)
    return;
  self->scope_saving = fw_scope_savings (self->layout, fw_graph_view_current_plan (self));
  for (guint b = 0; self->labels != NULL && b < self->n_boxes; b++)
    if (fw_layout_get_box (self->layout, b)->kind == FW_LAYOUT_BOX_SCOPE)
      g_clear_object (&self->labels[b]);
}

void
fw_graph_view_build_hulls (FwGraphView *self)
{
  FwPlan *plan = fw_graph_view_current_plan (self);

  clear_hulls (self);
  build_scope_savings (self);
  fw_graph_view_build_overlay (self);
  if (plan == NULL || plan->candidates == NULL || self->layout == NULL || self->n_boxes == 0)
    return;
  self->hulls = g_new0 (Hull, plan->candidates->len);
  for (guint c = 0; c < plan->candidates->len; c++)
    {
      const FwCandidate *cand = g_ptr_array_index (plan->candidates, c);
      Hull *h = &self->hulls[self->n_hulls];

      h->points = fw_hull_around_nodes (self->layout, cand->nodes, HULL_PAD, &h->n_points);
      if (h->points == NULL)
        continue;
      h->candidate = c;
      h->status = cand->status;
      h->flagged = candidate_flagged (self, c);
      h->x0 = h->y0 = G_MAXDOUBLE;
      h->x1 = h->y1 = -G_MAXDOUBLE;
      for (guint i = 0; i < h->n_points; i++)
        {
          h->x0 = MIN (h->x0, h->points[i].x);
          h->y0 = MIN (h->y0, h->points[i].y);
          h->x1 = MAX (h->x1, h->points[i].x);
          h->y1 = MAX (h->y1, h->points[i].y);
        }
      self->n_hulls++;
    }
}

void
fw_graph_view_clear_index (FwGraphView *self)
{
  if (self->labels != NULL)
    for (guint i = 0; i < self->n_boxes; i++)
      g_clear_object (&self->labels[i]);
  g_clear_pointer (&self->labels, g_free);
  g_clear_pointer (&self->order, g_free);
  g_clear_pointer (&self->layer_start, g_free);
  g_clear_pointer (&self->layer_y, g_free);
  g_clear_pointer (&self->segments, g_free);
  g_clear_pointer (&self->long_segments, g_free);
  g_clear_pointer (&self->minimap, gsk_render_node_unref);
  g_clear_pointer (&self->scope_saving, g_free);
  clear_hulls (self);
  self->n_boxes = self->n_layers = self->n_segments = self->n_long = 0;
  self->bounds_w = self->bounds_h = 0;
  self->max_span = 0;
  self->box_h = 0;
  self->selected_box = self->range_box = self->hover_box = G_MAXUINT;
  self->search_pos = G_MAXUINT;
}

void
fw_graph_view_build_index (FwGraphView *self)
{
  FwLayout *layout = self->layout;
  guint n_edges, n_seg = 0;
  g_autoptr(GArray) longs = NULL;

  fw_graph_view_clear_index (self);
  if (layout == NULL)
    return;
  self->n_boxes = fw_layout_get_n_boxes (layout);
  fw_layout_get_bounds (layout, &self->bounds_w, &self->bounds_h);
  if (self->n_boxes == 0)
    return;

  self->order = g_new (guint, self->n_boxes);
  for (guint i = 0; i < self->n_boxes; i++)
    {
      const FwLayoutBox *box = fw_layout_get_box (layout, i);

      self->order[i] = i;
      self->n_layers = MAX (self->n_layers, box->layer + 1);
      self->box_h = MAX (self->box_h, box->h);
    }
  sort_layout = layout;
  qsort (self->order, self->n_boxes, sizeof (guint), compare_box_order);
  sort_layout = NULL;

  self->layer_start = g_new0 (guint, self->n_layers + 1);
  self->layer_y = g_new0 (gdouble, self->n_layers);
  for (guint i = 0; i < self->n_boxes; i++)
    self->layer_start[fw_layout_get_box (layout, i)->layer + 1]++;
  for (guint l = 0; l < self->n_layers; l++)
    self->layer_start[l + 1] += self->layer_start[l];
  for (guint l = 0; l < self->n_layers; l++)
    {
      /* A layer of dummies only has no box: it takes the previous layer's y, which keeps the search sorted. */
      if (self->layer_start[l] < self->layer_start[l + 1])
        self->layer_y[l] = fw_layout_get_box (layout, self->order[self->layer_start[l]])->y;
      else
        self->layer_y[l] = l > 0 ? self->layer_y[l - 1] : 0;
      if (l > 0 && self->layer_y[l] < self->layer_y[l - 1])
        self->layer_y[l] = self->layer_y[l - 1];
    }

  n_edges = fw_layout_get_n_edges (layout);
  for (guint e = 0; e < n_edges; e++)
    n_seg += fw_layout_get_edge (layout, e)->n_points - 1;
  self->segments = g_new (Segment, MAX (n_seg, 1));
  longs = g_array_new (FALSE, FALSE, sizeof (Segment));
  for (guint e = 0; e < n_edges; e++)
    {
      const FwLayoutEdge *edge = fw_layout_get_edge (layout, e);

      for (guint k = 0; k + 1 < edge->n_points; k++)
        {
          Segment s = { edge->points[k].x, edge->points[k].y, edge->points[k + 1].x, edge->points[k + 1].y, e, k };

          /* A segment over more than a few layers is one of the budget's straight edges: rare, kept apart so
           * the sorted search can assume short spans. */
          if (s.y1 - s.y0 > 4 * (self->box_h + 44))
            g_array_append_val (longs, s);
          else
            {
              self->segments[self->n_segments++] = s;
              self->max_span = MAX (self->max_span, s.y1 - s.y0);
            }
        }
    }
  qsort (self->segments, self->n_segments, sizeof (Segment), compare_segment);
  self->n_long = longs->len;
  self->long_segments = (Segment *) (void *) g_array_free (g_steal_pointer (&longs), FALSE);
  self->labels = g_new0 (PangoLayout *, self->n_boxes);
  fw_graph_view_build_hulls (self);
  fw_graph_view_update_detail (self);
}

/* The first layer whose boxes reach down to y or below. */
guint
fw_graph_view_first_layer_from (FwGraphView *self, gdouble y)
{
  guint lo = 0, hi = self->n_layers;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (self->layer_y[mid] + self->box_h < y)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* The first position in layer l whose box reaches x or beyond (boxes of a layer do not overlap, so their right
 * edges are sorted too). */
guint
fw_graph_view_first_box_from (FwGraphView *self, guint l, gdouble x)
{
  guint lo = self->layer_start[l], hi = self->layer_start[l + 1];

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      const FwLayoutBox *box = fw_layout_get_box (self->layout, self->order[mid]);

      if (box->x + box->w < x)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

static gboolean
point_in_hull (const Hull *h, gdouble x, gdouble y)
{
  return x >= h->x0 && x <= h->x1 && y >= h->y0 && y <= h->y1
         && fw_hull_contains (h->points, h->n_points, x, y);
}

/* The smallest hull at a layout point, so a candidate nested in a bigger one can still be picked. */
guint
fw_graph_view_hull_at (FwGraphView *self, gdouble x, gdouble y)
{
  guint best = G_MAXUINT;
  gdouble best_area = G_MAXDOUBLE;

  for (guint i = 0; i < self->n_hulls; i++)
    {
      const Hull *h = &self->hulls[i];
      gdouble area = (h->x1 - h->x0) * (h->y1 - h->y0);

      if (area < best_area && point_in_hull (h, x, y))
        {
          best = h->candidate;
          best_area = area;
        }
    }
  return best;
}

const Hull *
fw_graph_view_find_hull (FwGraphView *self, guint candidate)
{
  for (guint i = 0; i < self->n_hulls; i++)
    if (self->hulls[i].candidate == candidate)
      return &self->hulls[i];
  return NULL;
}
