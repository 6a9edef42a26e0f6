/* fw-graph-view.c: the graph canvas.
 *
 * Drawing cost follows what is on screen, not the model: boxes are indexed by layer (layers sorted by y, boxes
 * of a layer by x) and edge segments by their top y, so a frame finds its visible part by binary search. Three
 * levels of detail: rounded boxes with labels when zoomed in, plain rectangles with edges in between, and
 * below one pixel a layer, one run of colour per pixel row, so a fully zoomed-out 10,000-node graph costs a
 * frame in proportion to the widget's height. Edges and hulls are drawn with cairo in widget pixels (a cairo
 * node in layout units would allocate a surface the size of the layout when zoomed out). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gi18n.h>

#include "fw-graph-view.h"
#include "fw-graph-framing.h"
#include "fw-graph-overlay.h"
#include "fw-scope-label.h"
#include "layout/fw-hull.h"
#include "plan/fw-node-refusal.h"
#include "ops/fw-op-registry.h"
#include "report/fw-render.h"

#define HULL_PAD        6.0
#define CORNER          5.0
#define MIN_ZOOM        1e-4
#define MAX_ZOOM        8.0
#define FULL_DETAIL_PX  10.0   /* box height on screen from which boxes are rounded, outlined and labelled */
#define LABEL_ZOOM      0.45   /* below this the label text would be too small to read */
#define EDGE_BAND_PX    6.0    /* layer spacing on screen from which edges are drawn */
#define MINIMAP_SIDE    160.0
#define MINIMAP_MARGIN  12.0
#define N_COLORS        8      /* index 0: empty pixel, 1 + op class: nodes, 7: collapsed scope */

typedef struct
{
  gdouble x0, y0, x1, y1;
  guint   edge;
  guint   k;   /* points[k] to points[k + 1] */
} Segment;

typedef struct
{
  guint          candidate;
  FwCandidateStatus status;
  gboolean       flagged;  /* its kernel failed verification or did not compile */
  guint          n_points;
  FwLayoutPoint *points;   /* the padded convex hull, counter-clockwise in screen orientation */
  gdouble        x0, y0, x1, y1;
} Hull;

struct _FwGraphView
{
  GtkWidget      parent_instance;

  FwLayout      *layout;
  FwProject     *project;
  FwPlan        *plan;      /* borrowed, used when there is no project */
  gulong         plan_changed_id;
  gulong         check_changed_id;
  GCancellable  *compute_cancellable;

  gdouble        zoom;
  gdouble        origin_x, origin_y;   /* the layout point at the widget's top-left corner */
  gboolean       fit_pending;          /* frame the graph's start once the widget has a size */
  FwGraphDetail  detail;

  /* What node boxes are coloured by: the op class, or an overlay's categories (per box, 0 for a scope) with
   * their colours at palette index N_COLORS + category - 1 and the legend drawn in a corner. */
  FwGraphOverlay overlay;
  guint8        *overlay_class;
  FwGraphLegend  legend;
  GdkRGBA        overlay_palette[FW_GRAPH_OVERLAY_MAX_CATEGORIES];
  GdkRGBA        overlay_dark[FW_GRAPH_OVERLAY_MAX_CATEGORIES];

  /* Index of the layout's last result. */
  guint          n_boxes;
  guint          n_layers;
  guint         *order;        /* box indices by layer, then x */
  guint         *layer_start;  /* n_layers + 1 offsets into order */
  gdouble       *layer_y;      /* top of each layer, non-decreasing */
  gdouble        box_h;        /* tallest box */
  gdouble        bounds_w, bounds_h;
  Segment       *segments;     /* sorted by y0 */
  guint          n_segments;
  gdouble        max_span;     /* tallest segment in segments */
  Segment       *long_segments; /* straight edges over many layers, always tested */
  guint          n_long;
  Hull          *hulls;
  guint          n_hulls;
  PangoLayout  **labels;       /* per box, made when first shown */
  gdouble       *scope_saving; /* per box: seconds the plan saves inside a collapsed scope, or NULL */
  GskRenderNode *minimap;      /* the whole layout at minimap scale, made once per layout */
  gdouble        minimap_scale;

  guint          selected_box;
  guint          hover_box;
  guint          selected_candidate;
  guint          search_pos;   /* position in order of the last search hit */

  gdouble        pointer_x, pointer_y;
  gdouble        drag_origin_x, drag_origin_y;
  gboolean       drag_in_minimap;
  gdouble        pinch_zoom;
};

enum {
  PROP_0,
  PROP_LAYOUT,
  PROP_PROJECT,
  PROP_ZOOM,
  PROP_SELECTED_CANDIDATE,
  PROP_DETAIL,
  PROP_OVERLAY,
  N_PROPS
};

enum {
  NODE_SELECTED,
  CANDIDATE_SELECTED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (FwGraphView, fw_graph_view, GTK_TYPE_WIDGET)
G_DEFINE_ENUM_TYPE (FwGraphDetail, fw_graph_detail,
  G_DEFINE_ENUM_VALUE (FW_GRAPH_DETAIL_ROWS, "rows"),
  G_DEFINE_ENUM_VALUE (FW_GRAPH_DETAIL_BOXES, "boxes"),
  G_DEFINE_ENUM_VALUE (FW_GRAPH_DETAIL_OUTLINES, "outlines"),
  G_DEFINE_ENUM_VALUE (FW_GRAPH_DETAIL_LABELS, "labels"))

/* The headless renderer's colours, so a picture and the canvas agree; filled in at class init. */
static GdkRGBA palette[N_COLORS];
/* Darker versions for the pixel-row drawing, where a pale colour on white would vanish. */
static GdkRGBA palette_dark[N_COLORS];

/* Twice as far from white, and a little darker still. */
static gfloat
darken (gdouble channel)
{
  return MAX (0.0, 2.0 * channel - 1.15);
}

static void
fill_palettes (void)
{
  palette[0] = palette_dark[0] = (GdkRGBA) { 1, 1, 1, 1 };
  for (guint i = 1; i < N_COLORS; i++)
    {
      FwLayoutBoxKind kind = i == N_COLORS - 1 ? FW_LAYOUT_BOX_SCOPE : FW_LAYOUT_BOX_NODE;
      gdouble r, g, b;

      fw_render_box_color (kind, (FwOpClass) (i - 1), &r, &g, &b);
      palette[i] = (GdkRGBA) { r, g, b, 1 };
      palette_dark[i] = (GdkRGBA) { darken (r), darken (g), darken (b), 1 };
    }
}

static guint8 box_color (const FwLayoutBox *box);

/* The colour index of box b: its overlay category's when an overlay is on and it is a node. */
static guint8
box_color_at (FwGraphView *self, guint b, const FwLayoutBox *box)
{
  if (self->overlay_class != NULL && self->overlay_class[b] != 0)
    return N_COLORS + self->overlay_class[b] - 1;
  return box_color (box);
}

static const GdkRGBA *
color_of (FwGraphView *self, guint8 color, gboolean dark)
{
  if (color >= N_COLORS)
    return dark ? &self->overlay_dark[color - N_COLORS] : &self->overlay_palette[color - N_COLORS];
  return dark ? &palette_dark[color] : &palette[color];
}

static guint8
box_color (const FwLayoutBox *box)
{
  FwOpClass c;

  if (box->kind == FW_LAYOUT_BOX_SCOPE || box->node == NULL)
    return N_COLORS - 1;
  c = fw_node_get_op_class (box->node);
  return 1 + ((guint) c <= FW_OP_CLASS_OPAQUE ? c : FW_OP_CLASS_OPAQUE);
}

static FwPlan *
current_plan (FwGraphView *self)
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
  result = item != NULL ? fw_candidate_item_get_verification (item) : NULL;
  return g_strcmp0 (result, "fail") == 0 || g_strcmp0 (result, "unverified") == 0;
}

/* The overlay's categories and colours: made again with the plan, its check results and the layout. */
static void
build_overlay (FwGraphView *self)
{
  g_clear_pointer (&self->overlay_class, g_free);
  g_clear_pointer (&self->minimap, gsk_render_node_unref);
  fw_graph_legend_clear (&self->legend);
  if (self->layout == NULL || self->n_boxes == 0)
    return;
  self->overlay_class = fw_graph_overlay_classify (self->overlay, self->layout, current_plan (self), self->project,
                                                   &self->legend);
  for (guint i = 0; i < self->legend.n_categories; i++)
    {
      const GdkRGBA *c = &self->legend.colors[i];

      self->overlay_palette[i] = *c;
      self->overlay_dark[i] = (GdkRGBA) { darken (c->red), darken (c->green), darken (c->blue), 1 };
    }
}

/* The time saved inside each collapsed scope, which its label shows: made again with the plan. */
static void
build_scope_savings (FwGraphView *self)
{
  g_clear_pointer (&self->scope_saving, g_free);
  if (self->layout == NULL || self->n_boxes == 0)
    return;
  self->scope_saving = fw_scope_savings (self->layout, current_plan (self));
  for (guint b = 0; self->labels != NULL && b < self->n_boxes; b++)
    if (fw_layout_get_box (self->layout, b)->kind == FW_LAYOUT_BOX_SCOPE)
      g_clear_object (&self->labels[b]);
}

static void
build_hulls (FwGraphView *self)
{
  FwPlan *plan = current_plan (self);

  clear_hulls (self);
  build_scope_savings (self);
  build_overlay (self);
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

static void
clear_index (FwGraphView *self)
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
  self->selected_box = self->hover_box = G_MAXUINT;
  self->search_pos = G_MAXUINT;
}

static void update_detail (FwGraphView *self);

static void
build_index (FwGraphView *self)
{
  FwLayout *layout = self->layout;
  guint n_edges, n_seg = 0;
  g_autoptr(GArray) longs = NULL;

  clear_index (self);
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
  build_hulls (self);
  update_detail (self);
}

/* Geometry */

static void
visible_rect (FwGraphView *self, gdouble *x0, gdouble *y0, gdouble *x1, gdouble *y1)
{
  *x0 = self->origin_x;
  *y0 = self->origin_y;
  *x1 = self->origin_x + gtk_widget_get_width (GTK_WIDGET (self)) / self->zoom;
  *y1 = self->origin_y + gtk_widget_get_height (GTK_WIDGET (self)) / self->zoom;
}

/* The first layer whose boxes reach down to y or below. */
static guint
first_layer_from (FwGraphView *self, gdouble y)
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
static guint
first_box_from (FwGraphView *self, guint l, gdouble x)
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
static guint
hull_at (FwGraphView *self, gdouble x, gdouble y)
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

static const Hull *
find_hull (FwGraphView *self, guint candidate)
{
  for (guint i = 0; i < self->n_hulls; i++)
    if (self->hulls[i].candidate == candidate)
      return &self->hulls[i];
  return NULL;
}

static gdouble
clamp_zoom (gdouble zoom)
{
  return isfinite (zoom) ? CLAMP (zoom, MIN_ZOOM, MAX_ZOOM) : 1.0;
}

/* What draw_boxes_detailed and the snapshot's rows test draw at the zoom. */
static FwGraphDetail
detail_at (FwGraphView *self, gdouble zoom)
{
  if (zoom * (self->box_h + 44) < 2.0)
    return FW_GRAPH_DETAIL_ROWS;
  if (zoom * self->box_h < FULL_DETAIL_PX)
    return FW_GRAPH_DETAIL_BOXES;
  return zoom >= LABEL_ZOOM ? FW_GRAPH_DETAIL_LABELS : FW_GRAPH_DETAIL_OUTLINES;
}

static void
update_detail (FwGraphView *self)
{
  FwGraphDetail detail = detail_at (self, self->zoom);

  if (detail == self->detail)
    return;
  self->detail = detail;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_DETAIL]);
}

static void
set_view (FwGraphView *self, gdouble zoom, gdouble origin_x, gdouble origin_y)
{
  gboolean zoom_changed;

  zoom = clamp_zoom (zoom);
  zoom_changed = zoom != self->zoom;
  self->zoom = zoom;
  self->origin_x = origin_x;
  self->origin_y = origin_y;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  if (zoom_changed)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ZOOM]);
  update_detail (self);
}

static void
set_frame (FwGraphView *self, const FwGraphFrame *frame)
{
  set_view (self, frame->zoom, frame->origin_x, frame->origin_y);
}

/* Zooms keeping the layout point under widget point (wx, wy) where it is. */
static void
zoom_around (FwGraphView *self, gdouble zoom, gdouble wx, gdouble wy)
{
  gdouble px = self->origin_x + wx / self->zoom;
  gdouble py = self->origin_y + wy / self->zoom;

  zoom = clamp_zoom (zoom);
  set_view (self, zoom, px - wx / zoom, py - wy / zoom);
}

/* Shows the layout rectangle whole and centred, at no more than max_zoom. */
static void
frame_rect (FwGraphView *self, gdouble x0, gdouble y0, gdouble x1, gdouble y1, gdouble max_zoom)
{
  gdouble w = gtk_widget_get_width (GTK_WIDGET (self));
  gdouble h = gtk_widget_get_height (GTK_WIDGET (self));
  gdouble zoom;

  if (w <= 0 || h <= 0)
    {
      self->fit_pending = FALSE;
      w = MAX (w, 1);
      h = MAX (h, 1);
    }
  zoom = MIN (w / MAX (x1 - x0, 1), h / MAX (y1 - y0, 1));
  zoom = clamp_zoom (MIN (zoom, max_zoom));
  set_view (self, zoom, (x0 + x1) / 2 - w / 2 / zoom, (y0 + y1) / 2 - h / 2 / zoom);
}

/* Centres a box, zooming in to a readable size when the view is too far out to tell it apart. */
static void
frame_box (FwGraphView *self, guint b)
{
  const FwLayoutBox *box = fw_layout_get_box (self->layout, b);
  gdouble w = gtk_widget_get_width (GTK_WIDGET (self));
  gdouble h = gtk_widget_get_height (GTK_WIDGET (self));
  gdouble zoom = self->zoom < 0.75 ? 1.0 : self->zoom;

  set_view (self, zoom, box->x + box->w / 2 - w / 2 / zoom, box->y + box->h / 2 - h / 2 / zoom);
}

/* Drawing */

static PangoLayout *
box_label (FwGraphView *self, guint b)
{
  if (self->labels[b] == NULL)
    {
      const FwLayoutBox *box = fw_layout_get_box (self->layout, b);
      g_autofree char *text = fw_graph_view_get_box_text (self, b);
      PangoLayout *pl = gtk_widget_create_pango_layout (GTK_WIDGET (self), text);

      pango_layout_set_width (pl, (int) MAX (box->w - 6, 1) * PANGO_SCALE);
      pango_layout_set_ellipsize (pl, PANGO_ELLIPSIZE_END);
      pango_layout_set_alignment (pl, PANGO_ALIGN_CENTER);
      pango_layout_set_single_paragraph_mode (pl, TRUE);
      self->labels[b] = pl;
    }
  return self->labels[b];
}

static void
draw_boxes_detailed (FwGraphView *self, GtkSnapshot *snapshot,
                     gdouble x0, gdouble y0, gdouble x1, gdouble y1)
{
  gboolean labels = self->zoom >= LABEL_ZOOM;
  gboolean rounded = self->zoom * self->box_h >= FULL_DETAIL_PX;
  static const GdkRGBA ink = { 0.1, 0.1, 0.1, 1 };
  static const GdkRGBA selection = { 0.1, 0.35, 0.9, 1 };

  gtk_snapshot_save (snapshot);
  gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (-self->origin_x * self->zoom,
                                                          -self->origin_y * self->zoom));
  gtk_snapshot_scale (snapshot, self->zoom, self->zoom);

  for (guint l = first_layer_from (self, y0); l < self->n_layers && self->layer_y[l] <= y1; l++)
    for (guint i = first_box_from (self, l, x0); i < self->layer_start[l + 1]; i++)
      {
        guint b = self->order[i];
        const FwLayoutBox *box = fw_layout_get_box (self->layout, b);
        graphene_rect_t r = GRAPHENE_RECT_INIT (box->x, box->y, box->w, box->h);
        guint8 color = box_color_at (self, b, box);

        if (box->x > x1)
          break;
        if (!rounded)
          {
            gtk_snapshot_append_color (snapshot, color_of (self, color, TRUE), &r);
            continue;
          }
        {
          GskRoundedRect rr;
          gboolean selected = b == self->selected_box;
          float width = selected ? 3.0f : box->kind == FW_LAYOUT_BOX_SCOPE ? 2.0f : 1.0f;
          float widths[4] = { width, width, width, width };
          GdkRGBA border = selected ? selection : (GdkRGBA) { 0.25, 0.25, 0.28, 1 };
          GdkRGBA borders[4] = { border, border, border, border };

          gsk_rounded_rect_init_from_rect (&rr, &r, CORNER);
          gtk_snapshot_push_rounded_clip (snapshot, &rr);
          gtk_snapshot_append_color (snapshot, color_of (self, color, b == self->hover_box), &r);
          gtk_snapshot_pop (snapshot);
          gtk_snapshot_append_border (snapshot, &rr, widths, borders);
        }
        if (labels)
          {
            PangoLayout *pl = box_label (self, b);
            PangoRectangle ink_rect, logical;

            pango_layout_get_pixel_extents (pl, &ink_rect, &logical);
            gtk_snapshot_push_clip (snapshot, &r);
            gtk_snapshot_save (snapshot);
            gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (box->x + 3, box->y + (box->h - logical.height) / 2));
            gtk_snapshot_append_layout (snapshot, pl, &ink);
            gtk_snapshot_restore (snapshot);
            gtk_snapshot_pop (snapshot);
          }
      }
  gtk_snapshot_restore (snapshot);
}

/* Below a pixel a layer: every box becomes a run in its pixel row of a w-pixel-wide picture, one colour node
 * per run, so the cost is bounded by the rows and runs on screen rather than by the boxes. Draws the layout
 * region from (ox, oy) at scale, at widget offset (dx, dy). */
static void
draw_boxes_rows (FwGraphView *self, GtkSnapshot *snapshot, gdouble ox, gdouble oy, gdouble scale,
                 gdouble dx, gdouble dy, guint w, guint h)
{
  g_autofree guint8 *row = g_malloc0 (MAX (w, 1));
  guint lo = G_MAXUINT, hi = 0;
  gint current = -1;
  gdouble y1 = oy + h / scale, x1 = ox + w / scale;

  if (w == 0 || h == 0)
    return;
  for (guint l = first_layer_from (self, oy); l <= self->n_layers; l++)
    {
      gint r = l < self->n_layers ? (gint) floor ((self->layer_y[l] - oy) * scale) : G_MAXINT;

      if (l < self->n_layers && self->layer_y[l] > y1)
        r = G_MAXINT;
      if (r != current && current >= 0 && lo <= hi)
        {
          /* Flush the finished row as runs of one colour. */
          for (guint c = lo; c <= hi;)
            {
              guint s = c;

              while (c <= hi && row[c] == row[s])
                c++;
              if (row[s] != 0)
                gtk_snapshot_append_color (snapshot, color_of (self, row[s], TRUE),
                                           &GRAPHENE_RECT_INIT (dx + s, dy + current, c - s,
                                                                MAX (1.0, self->box_h * scale)));
            }
          memset (row + lo, 0, hi - lo + 1);
          lo = G_MAXUINT;
          hi = 0;
        }
      if (r == G_MAXINT)
        break;
      current = r;
      for (guint i = first_box_from (self, l, ox); i < self->layer_start[l + 1]; i++)
        {
          const FwLayoutBox *box = fw_layout_get_box (self->layout, self->order[i]);
          gdouble a = floor ((box->x - ox) * scale), b = ceil ((box->x + box->w - ox) * scale);

          if (box->x > x1)
            break;
          a = MAX (a, 0);
          b = MIN (b, w);
          for (guint c = (guint) a; c < (guint) b; c++)
            row[c] = box_color_at (self, self->order[i], box);
          if (a < b)
            {
              lo = MIN (lo, (guint) a);
              hi = MAX (hi, (guint) b - 1);
            }
        }
    }
}

static void
arrowhead (cairo_t *cr, const FwLayoutPoint *tip, const FwLayoutPoint *from, gdouble size)
{
  gdouble dx = tip->x - from->x, dy = tip->y - from->y;
  gdouble len = sqrt (dx * dx + dy * dy);
  gdouble ux, uy;

  if (len < 1e-6)
    return;
  ux = dx / len;
  uy = dy / len;
  cairo_move_to (cr, tip->x, tip->y);
  cairo_line_to (cr, tip->x - 2 * size * ux + size * uy, tip->y - 2 * size * uy - size * ux);
  cairo_line_to (cr, tip->x - 2 * size * ux - size * uy, tip->y - 2 * size * uy + size * ux);
  cairo_close_path (cr);
}

static gboolean
segment_visible (const Segment *s, gdouble x0, gdouble y0, gdouble x1, gdouble y1)
{
  return s->y1 >= y0 && s->y0 <= y1 && MAX (s->x0, s->x1) >= x0 && MIN (s->x0, s->x1) <= x1;
}

static void
add_segment (FwGraphView *self, cairo_t *cr, const Segment *s, gboolean *arrows_pending)
{
  const FwLayoutEdge *e = fw_layout_get_edge (self->layout, s->edge);

  cairo_move_to (cr, s->x0, s->y0);
  cairo_line_to (cr, s->x1, s->y1);
  if ((e->reversed && s->k == 0) || (!e->reversed && s->k + 2 == e->n_points))
    *arrows_pending = TRUE;
}

static void
draw_edges (FwGraphView *self, cairo_t *cr, gdouble x0, gdouble y0, gdouble x1, gdouble y1)
{
  gboolean arrows = FALSE;
  guint lo = 0, hi = self->n_segments;
  gdouble from = y0 - self->max_span;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (self->segments[mid].y0 < from)
        lo = mid + 1;
      else
        hi = mid;
    }
  cairo_set_source_rgb (cr, 0.45, 0.45, 0.48);
  cairo_set_line_width (cr, MAX (1.2, 1.0 / self->zoom));
  for (guint i = lo; i < self->n_segments && self->segments[i].y0 <= y1; i++)
    if (segment_visible (&self->segments[i], x0, y0, x1, y1))
      add_segment (self, cr, &self->segments[i], &arrows);
  for (guint i = 0; i < self->n_long; i++)
    if (segment_visible (&self->long_segments[i], x0, y0, x1, y1))
      add_segment (self, cr, &self->long_segments[i], &arrows);
  cairo_stroke (cr);
  if (!arrows)
    return;
  /* Second pass for the heads, so the lines above are one stroke. */
  for (guint i = lo; i < self->n_segments && self->segments[i].y0 <= y1; i++)
    {
      const Segment *s = &self->segments[i];
      const FwLayoutEdge *e;

      if (!segment_visible (s, x0, y0, x1, y1))
        continue;
      e = fw_layout_get_edge (self->layout, s->edge);
      if (e->reversed && s->k == 0)
        arrowhead (cr, &e->points[0], &e->points[1], 3.5);
      else if (!e->reversed && s->k + 2 == e->n_points)
        arrowhead (cr, &e->points[e->n_points - 1], &e->points[e->n_points - 2], 3.5);
    }
  cairo_fill (cr);
}

static gboolean
hull_visible (const Hull *h, gdouble x0, gdouble y0, gdouble x1, gdouble y1)
{
  return h->x1 >= x0 && h->x0 <= x1 && h->y1 >= y0 && h->y0 <= y1;
}

/* A red "!" at the hull's top right corner: the group's kernel failed verification or did not compile,
 * visible from afar, where the list may be scrolled elsewhere. */
static void
draw_flag (cairo_t *cr, const Hull *h, gdouble unit)
{
  gdouble radius = 8.0 * unit;
  cairo_text_extents_t ext;

  cairo_save (cr);
  cairo_set_dash (cr, NULL, 0, 0);
  cairo_arc (cr, h->x1, h->y0, radius, 0, 2 * G_PI);
  cairo_set_source_rgb (cr, 0.85, 0.11, 0.14);
  cairo_fill_preserve (cr);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_set_line_width (cr, 1.5 * unit);
  cairo_stroke (cr);
  cairo_select_font_face (cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
  cairo_set_font_size (cr, 12.0 * unit);
  cairo_text_extents (cr, "!", &ext);
  cairo_move_to (cr, h->x1 - ext.width / 2 - ext.x_bearing, h->y0 - ext.height / 2 - ext.y_bearing);
  cairo_show_text (cr, "!");
  cairo_restore (cr);
}

static void
hull_path (cairo_t *cr, const Hull *h)
{
  cairo_new_path (cr);
  for (guint i = 0; i < h->n_points; i++)
    cairo_line_to (cr, h->points[i].x, h->points[i].y);
  cairo_close_path (cr);
}

/* A cairo context in widget pixels that draws in layout units. */
static cairo_t *
append_layout_cairo (FwGraphView *self, GtkSnapshot *snapshot)
{
  cairo_t *cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0,
                                                                          gtk_widget_get_width (GTK_WIDGET (self)),
                                                                          gtk_widget_get_height (GTK_WIDGET (self))));
  cairo_scale (cr, self->zoom, self->zoom);
  cairo_translate (cr, -self->origin_x, -self->origin_y);
  cairo_set_line_join (cr, CAIRO_LINE_JOIN_ROUND);
  return cr;
}

static void
draw_minimap (FwGraphView *self, GtkSnapshot *snapshot, gdouble w, gdouble h)
{
  gdouble scale = MINIMAP_SIDE / MAX (MAX (self->bounds_w, self->bounds_h), 1);
  gdouble mw = MAX (self->bounds_w * scale, 24), mh = MAX (self->bounds_h * scale, 24);
  gdouble mx = w - mw - MINIMAP_MARGIN, my = h - mh - MINIMAP_MARGIN;
  gdouble vx0, vy0, vx1, vy1;
  static const GdkRGBA back = { 1, 1, 1, 0.9 };
  static const GdkRGBA frame = { 0.3, 0.3, 0.35, 1 };
  static const GdkRGBA view = { 0.1, 0.35, 0.9, 1 };
  static const GdkRGBA view_fill = { 0.1, 0.35, 0.9, 0.12 };
  float widths[4] = { 1, 1, 1, 1 };
  GdkRGBA frames[4] = { frame, frame, frame, frame };
  GdkRGBA views[4] = { view, view, view, view };
  GskRoundedRect rr;

  if (mx < 0 || my < 0 || self->n_boxes == 0)
    return;
  if (self->minimap == NULL || self->minimap_scale != scale)
    {
      GtkSnapshot *s = gtk_snapshot_new ();

      draw_boxes_rows (self, s, 0, 0, scale, 0, 0, (guint) ceil (mw), (guint) ceil (mh));
      g_clear_pointer (&self->minimap, gsk_render_node_unref);
      self->minimap = gtk_snapshot_free_to_node (s);
      self->minimap_scale = scale;
    }
  gsk_rounded_rect_init_from_rect (&rr, &GRAPHENE_RECT_INIT (mx - 1, my - 1, mw + 2, mh + 2), 0);
  gtk_snapshot_append_color (snapshot, &back, &rr.bounds);
  gtk_snapshot_append_border (snapshot, &rr, widths, frames);
  gtk_snapshot_save (snapshot);
  gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (mx, my));
  if (self->minimap != NULL)
    gtk_snapshot_append_node (snapshot, self->minimap);
  visible_rect (self, &vx0, &vy0, &vx1, &vy1);
  vx0 = CLAMP (vx0 * scale, 0, mw);
  vy0 = CLAMP (vy0 * scale, 0, mh);
  vx1 = CLAMP (vx1 * scale, 0, mw);
  vy1 = CLAMP (vy1 * scale, 0, mh);
  gsk_rounded_rect_init_from_rect (&rr, &GRAPHENE_RECT_INIT (vx0, vy0, MAX (vx1 - vx0, 2), MAX (vy1 - vy0, 2)), 0);
  gtk_snapshot_append_color (snapshot, &view_fill, &rr.bounds);
  gtk_snapshot_append_border (snapshot, &rr, widths, views);
  gtk_snapshot_restore (snapshot);
}

/* The minimap's rectangle in widget coordinates, and its scale; FALSE when it is not shown. */
static gboolean
minimap_geometry (FwGraphView *self, gdouble *mx, gdouble *my, gdouble *mw, gdouble *mh, gdouble *scale)
{
  gdouble w = gtk_widget_get_width (GTK_WIDGET (self));
  gdouble h = gtk_widget_get_height (GTK_WIDGET (self));

  *scale = MINIMAP_SIDE / MAX (MAX (self->bounds_w, self->bounds_h), 1);
  *mw = MAX (self->bounds_w * *scale, 24);
  *mh = MAX (self->bounds_h * *scale, 24);
  *mx = w - *mw - MINIMAP_MARGIN;
  *my = h - *mh - MINIMAP_MARGIN;
  return self->n_boxes > 0 && *mx >= 0 && *my >= 0;
}

static void
fw_graph_view_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  FwGraphView *self = FW_GRAPH_VIEW (widget);
  gdouble w = gtk_widget_get_width (widget), h = gtk_widget_get_height (widget);
  gdouble x0, y0, x1, y1;
  gboolean any_hull = FALSE, rows;
  static const GdkRGBA white = { 1, 1, 1, 1 };

  gtk_snapshot_append_color (snapshot, &white, &GRAPHENE_RECT_INIT (0, 0, w, h));
  if (self->layout == NULL || self->n_boxes == 0 || w <= 0 || h <= 0)
    return;
  if (self->fit_pending)
    {
      FwGraphFrame frame;

      self->fit_pending = FALSE;
      fw_graph_frame_start (self->layout, w, h, &frame);
      set_frame (self, &frame);
    }
  visible_rect (self, &x0, &y0, &x1, &y1);
  rows = detail_at (self, self->zoom) == FW_GRAPH_DETAIL_ROWS;

  gtk_snapshot_push_clip (snapshot, &GRAPHENE_RECT_INIT (0, 0, w, h));
  for (guint i = 0; i < self->n_hulls && !rows; i++)
    any_hull |= hull_visible (&self->hulls[i], x0, y0, x1, y1);

  if (!rows && (any_hull || self->zoom * (self->box_h + 44) >= EDGE_BAND_PX))
    {
      cairo_t *cr = append_layout_cairo (self, snapshot);

      /* Hull fills under the edges and boxes. */
      for (guint i = 0; i < self->n_hulls; i++)
        {
          const Hull *hull = &self->hulls[i];
          gdouble r, g, b;

          if (!hull_visible (hull, x0, y0, x1, y1))
            continue;
          fw_render_hull_color (hull->status, &r, &g, &b);
          cairo_set_source_rgba (cr, r, g, b, hull->candidate == self->selected_candidate ? 0.22 : 0.10);
          hull_path (cr, hull);
          cairo_fill (cr);
        }
      if (self->zoom * (self->box_h + 44) >= EDGE_BAND_PX)
        draw_edges (self, cr, x0, y0, x1, y1);
      cairo_destroy (cr);
    }

  if (rows)
    draw_boxes_rows (self, snapshot, x0, y0, self->zoom, 0, 0, (guint) ceil (w), (guint) ceil (h));
  else
    draw_boxes_detailed (self, snapshot, x0, y0, x1, y1);

  if (any_hull)
    {
      /* Outlines over the boxes, so each stays visible. */
      cairo_t *cr = append_layout_cairo (self, snapshot);

      for (guint i = 0; i < self->n_hulls; i++)
        {
          const Hull *hull = &self->hulls[i];
          gdouble r, g, b;
          gdouble unit = 1.0 / MAX (self->zoom, 0.25);

          if (!hull_visible (hull, x0, y0, x1, y1))
            continue;
          fw_render_hull_color (hull->status, &r, &g, &b);
          cairo_set_source_rgb (cr, r, g, b);
          cairo_set_line_width (cr, (hull->candidate == self->selected_candidate ? 4.5 : 2.0) * unit);
          fw_render_set_hull_dash (cr, hull->status, unit);
          hull_path (cr, hull);
          cairo_stroke (cr);
          if (hull->flagged)
            draw_flag (cr, hull, unit);
        }
      cairo_destroy (cr);
    }
  gtk_snapshot_pop (snapshot);
  draw_minimap (self, snapshot, w, h);
  fw_graph_legend_snapshot (&self->legend, widget, snapshot);
}

/* Selection and events */

static void
select_box (FwGraphView *self, guint b, gboolean emit)
{
  const FwLayoutBox *box = b != G_MAXUINT ? fw_layout_get_box (self->layout, b) : NULL;

  self->selected_box = b;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  if (emit)
    g_signal_emit (self, signals[NODE_SELECTED], 0, box != NULL ? (gpointer) box->node : NULL);
}

static void
set_selected_candidate (FwGraphView *self, guint candidate)
{
  if (self->selected_candidate == candidate)
    return;
  self->selected_candidate = candidate;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SELECTED_CANDIDATE]);
}

/* Which fusion holds node, or the refusals that kept it out of one. */
static void
append_fusion (FwGraphView *self, GString *s, const FwNode *node)
{
  FwPlan *plan = current_plan (self);
  g_autofree char *why = NULL;
  guint c;

  if (plan == NULL)
    return;
  c = fw_plan_fused_candidate_of (plan, node);
  if (c != G_MAXUINT)
    {
      g_string_append_c (s, '\n');
      /* Translators: the fusion a node is in: the candidate's number and pattern. */
      g_string_append_printf (s, _("Fused in candidate #%u (%s)"), c,
                              ((FwCandidate *) g_ptr_array_index (plan->candidates, c))->pattern);
      return;
    }
  why = fw_plan_describe_unfused (plan, node, 3);
  if (why != NULL)
    g_string_append_printf (s, "\n%s\n%s", _("Not fused:"), why);
}

static char *
tooltip_text (FwGraphView *self, guint b)
{
  const FwLayoutBox *box = fw_layout_get_box (self->layout, b);
  g_autoptr(GString) s = g_string_new (NULL);
  const FwNode *node = box->node;

  if (box->kind == FW_LAYOUT_BOX_SCOPE || node == NULL)
    {
      g_string_append_printf (s, ngettext ("%s: %u node (double-click to open)",
                                           "%s: %u nodes (double-click to open)", box->n_nodes),
                              box->scope, box->n_nodes);
      return g_utf8_make_valid (s->str, -1);
    }
  g_string_append_printf (s, "%s  %s", fw_node_get_op_type (node), fw_node_get_name (node));
  for (guint i = 0; i < fw_node_get_n_outputs (node); i++)
    {
      const FwValue *output = fw_node_get_output (node, i);
      g_autofree char *shape = NULL;

      if (output == NULL)
        continue;
      shape = fw_value_format_shape (output);
      g_string_append_c (s, '\n');
      /* Translators: an output of a node: its name, shape and element type. */
      g_string_append_printf (s, _("%s: %s %s"), fw_value_get_name (output), shape,
                              fw_dtype_name (fw_value_get_dtype (output)));
    }
  append_fusion (self, s, node);
  return g_utf8_make_valid (s->str, -1);
}

static void
hover (FwGraphView *self, gdouble x, gdouble y)
{
  guint b = G_MAXUINT;

  self->pointer_x = x;
  self->pointer_y = y;
  if (self->layout != NULL && self->n_boxes > 0)
    b = fw_layout_hit_test (self->layout, self->origin_x + x / self->zoom, self->origin_y + y / self->zoom);
  if (b == self->hover_box)
    return;
  self->hover_box = b;
  if (b == G_MAXUINT)
    gtk_widget_set_tooltip_text (GTK_WIDGET (self), NULL);
  else
    {
      g_autofree char *text = tooltip_text (self, b);
      gtk_widget_set_tooltip_text (GTK_WIDGET (self), text);
    }
  if (self->zoom * self->box_h >= FULL_DETAIL_PX)
    gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
on_motion (GtkEventControllerMotion *motion, gdouble x, gdouble y, FwGraphView *self)
{
  hover (self, x, y);
}

static void
on_leave (GtkEventControllerMotion *motion, FwGraphView *self)
{
  self->hover_box = G_MAXUINT;
  gtk_widget_set_tooltip_text (GTK_WIDGET (self), NULL);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
minimap_jump (FwGraphView *self, gdouble x, gdouble y)
{
  gdouble mx, my, mw, mh, scale;
  gdouble w = gtk_widget_get_width (GTK_WIDGET (self)), h = gtk_widget_get_height (GTK_WIDGET (self));

  if (!minimap_geometry (self, &mx, &my, &mw, &mh, &scale))
    return;
  set_view (self, self->zoom, (x - mx) / scale - w / 2 / self->zoom, (y - my) / scale - h / 2 / self->zoom);
}

static gboolean
in_minimap (FwGraphView *self, gdouble x, gdouble y)
{
  gdouble mx, my, mw, mh, scale;

  return minimap_geometry (self, &mx, &my, &mw, &mh, &scale)
    && x >= mx && x <= mx + mw && y >= my && y <= my + mh;
}

static void
on_compute_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(FwGraphView) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!fw_layout_compute_finish (FW_LAYOUT (source), result, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_warning ("Layout failed: %s", error->message);
      return;
    }
  if (FW_LAYOUT (source) != self->layout)
    return;
  build_index (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* Opens a collapsed scope; the new drawing replaces the old one only when its compute finishes. */
static void
expand_scope (FwGraphView *self, guint b)
{
  const FwLayoutBox *box = fw_layout_get_box (self->layout, b);

  if (box->kind != FW_LAYOUT_BOX_SCOPE || !fw_layout_set_expanded (self->layout, box->scope, TRUE))
    return;
  g_cancellable_cancel (self->compute_cancellable);
  g_clear_object (&self->compute_cancellable);
  self->compute_cancellable = g_cancellable_new ();
  fw_layout_compute_async (self->layout, self->compute_cancellable, on_compute_done, g_object_ref (self));
}

/* A click at widget point (x, y): a box selects its node, otherwise a hull its candidate. */
static void
click_at (FwGraphView *self, gint n_press, gdouble x, gdouble y)
{
  gdouble lx = self->origin_x + x / self->zoom, ly = self->origin_y + y / self->zoom;
  guint b, c;

  if (self->layout == NULL || self->n_boxes == 0)
    return;
  if (in_minimap (self, x, y))
    {
      minimap_jump (self, x, y);
      return;
    }
  b = fw_layout_hit_test (self->layout, lx, ly);
  if (b != G_MAXUINT)
    {
      if (n_press == 2)
        expand_scope (self, b);
      else
        select_box (self, b, TRUE);
      return;
    }
  c = hull_at (self, lx, ly);
  if (c != G_MAXUINT)
    {
      set_selected_candidate (self, c);
      g_signal_emit (self, signals[CANDIDATE_SELECTED], 0, c);
      return;
    }
  if (self->selected_box != G_MAXUINT)
    select_box (self, G_MAXUINT, TRUE);
}

static void
on_click_released (GtkGestureClick *gesture, gint n_press, gdouble x, gdouble y, FwGraphView *self)
{
  gtk_widget_grab_focus (GTK_WIDGET (self));
  click_at (self, n_press, x, y);
}

static void
on_drag_begin (GtkGestureDrag *gesture, gdouble x, gdouble y, FwGraphView *self)
{
  self->drag_origin_x = self->origin_x;
  self->drag_origin_y = self->origin_y;
  self->drag_in_minimap = in_minimap (self, x, y);
}

static void
on_drag_update (GtkGestureDrag *gesture, gdouble dx, gdouble dy, FwGraphView *self)
{
  if (self->drag_in_minimap)
    {
      gdouble sx, sy;

      gtk_gesture_drag_get_start_point (gesture, &sx, &sy);
      minimap_jump (self, sx + dx, sy + dy);
      return;
    }
  set_view (self, self->zoom, self->drag_origin_x - dx / self->zoom, self->drag_origin_y - dy / self->zoom);
}

static gboolean
on_scroll (GtkEventControllerScroll *scroll, gdouble dx, gdouble dy, FwGraphView *self)
{
  GdkModifierType state = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (scroll));
  gdouble step = gtk_event_controller_scroll_get_unit (scroll) == GDK_SCROLL_UNIT_WHEEL ? 48.0 : 1.0;

  if (state & GDK_CONTROL_MASK)
    {
      zoom_around (self, self->zoom * pow (1.15, -dy * (step > 1 ? 1 : 0.1)), self->pointer_x, self->pointer_y);
      return TRUE;
    }
  if (state & GDK_SHIFT_MASK && dx == 0)
    {
      dx = dy;
      dy = 0;
    }
  set_view (self, self->zoom, self->origin_x + dx * step / self->zoom, self->origin_y + dy * step / self->zoom);
  return TRUE;
}

static void
on_zoom_begin (GtkGesture *gesture, GdkEventSequence *sequence, FwGraphView *self)
{
  self->pinch_zoom = self->zoom;
}

static void
on_zoom_scale_changed (GtkGestureZoom *gesture, gdouble scale, FwGraphView *self)
{
  gdouble cx, cy;

  if (!gtk_gesture_get_bounding_box_center (GTK_GESTURE (gesture), &cx, &cy))
    {
      cx = gtk_widget_get_width (GTK_WIDGET (self)) / 2.0;
      cy = gtk_widget_get_height (GTK_WIDGET (self)) / 2.0;
    }
  zoom_around (self, self->pinch_zoom * scale, cx, cy);
}

static gboolean
zoom_key (GtkWidget *widget, GVariant *args, gpointer user_data)
{
  FwGraphView *self = FW_GRAPH_VIEW (widget);
  gint what = g_variant_get_int32 (args);
  gdouble cx = gtk_widget_get_width (widget) / 2.0, cy = gtk_widget_get_height (widget) / 2.0;

  if (what == 0)
    fw_graph_view_zoom_to_fit (self);
  else
    zoom_around (self, self->zoom * (what > 0 ? 1.25 : 0.8), cx, cy);
  return TRUE;
}

static void
on_plan_changed (FwGraphView *self)
{
  build_hulls (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* GObject */

static void
fw_graph_view_dispose (GObject *object)
{
  FwGraphView *self = FW_GRAPH_VIEW (object);

  g_cancellable_cancel (self->compute_cancellable);
  g_clear_object (&self->compute_cancellable);
  if (self->project != NULL)
    {
      g_clear_signal_handler (&self->plan_changed_id, self->project);
      g_clear_signal_handler (&self->check_changed_id, self->project);
    }
  clear_index (self);
  g_clear_pointer (&self->overlay_class, g_free);
  fw_graph_legend_clear (&self->legend);
  g_clear_object (&self->project);
  g_clear_object (&self->layout);
  G_OBJECT_CLASS (fw_graph_view_parent_class)->dispose (object);
}

static void
fw_graph_view_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  FwGraphView *self = FW_GRAPH_VIEW (object);

  switch (prop_id)
    {
    case PROP_LAYOUT:
      g_value_set_object (value, self->layout);
      break;
    case PROP_PROJECT:
      g_value_set_object (value, self->project);
      break;
    case PROP_ZOOM:
      g_value_set_double (value, self->zoom);
      break;
    case PROP_SELECTED_CANDIDATE:
      g_value_set_uint (value, self->selected_candidate);
      break;
    case PROP_DETAIL:
      g_value_set_enum (value, self->detail);
      break;
    case PROP_OVERLAY:
      g_value_set_enum (value, self->overlay);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
fw_graph_view_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  FwGraphView *self = FW_GRAPH_VIEW (object);

  switch (prop_id)
    {
    case PROP_LAYOUT:
      fw_graph_view_set_layout (self, g_value_get_object (value));
      break;
    case PROP_PROJECT:
      fw_graph_view_set_project (self, g_value_get_object (value));
      break;
    case PROP_ZOOM:
      fw_graph_view_set_zoom (self, g_value_get_double (value));
      break;
    case PROP_SELECTED_CANDIDATE:
      fw_graph_view_select_candidate (self, g_value_get_uint (value));
      break;
    case PROP_OVERLAY:
      fw_graph_view_set_overlay (self, g_value_get_enum (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
fw_graph_view_class_init (FwGraphViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = fw_graph_view_dispose;
  object_class->get_property = fw_graph_view_get_property;
  object_class->set_property = fw_graph_view_set_property;
  widget_class->snapshot = fw_graph_view_snapshot;
  fill_palettes ();

  properties[PROP_LAYOUT] =
    g_param_spec_object ("layout", NULL, NULL, FW_TYPE_LAYOUT,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_PROJECT] =
    g_param_spec_object ("project", NULL, NULL, FW_TYPE_PROJECT,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_ZOOM] =
    g_param_spec_double ("zoom", NULL, NULL, MIN_ZOOM, MAX_ZOOM, 1.0,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SELECTED_CANDIDATE] =
    g_param_spec_uint ("selected-candidate", NULL, NULL, 0, G_MAXUINT, G_MAXUINT,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* What a frame at the current zoom draws, so a test can tell labels are on screen. */
  properties[PROP_DETAIL] =
    g_param_spec_enum ("detail", NULL, NULL, FW_TYPE_GRAPH_DETAIL, FW_GRAPH_DETAIL_LABELS,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_OVERLAY] =
    g_param_spec_enum ("overlay", NULL, NULL, FW_TYPE_GRAPH_OVERLAY, FW_GRAPH_OVERLAY_OP_CLASS,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[NODE_SELECTED] =
    g_signal_new ("node-selected", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_POINTER);
  signals[CANDIDATE_SELECTED] =
    g_signal_new ("candidate-selected", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_UINT);

  gtk_widget_class_add_binding (widget_class, GDK_KEY_plus, 0, zoom_key, "i", 1);
  gtk_widget_class_add_binding (widget_class, GDK_KEY_plus, GDK_SHIFT_MASK, zoom_key, "i", 1);
  gtk_widget_class_add_binding (widget_class, GDK_KEY_equal, 0, zoom_key, "i", 1);
  gtk_widget_class_add_binding (widget_class, GDK_KEY_KP_Add, 0, zoom_key, "i", 1);
  gtk_widget_class_add_binding (widget_class, GDK_KEY_minus, 0, zoom_key, "i", -1);
  gtk_widget_class_add_binding (widget_class, GDK_KEY_KP_Subtract, 0, zoom_key, "i", -1);
  gtk_widget_class_add_binding (widget_class, GDK_KEY_0, 0, zoom_key, "i", 0);
  gtk_widget_class_add_binding (widget_class, GDK_KEY_KP_0, 0, zoom_key, "i", 0);

  gtk_widget_class_set_css_name (widget_class, "fwgraphview");
}

static void
fw_graph_view_init (FwGraphView *self)
{
  GtkEventController *controller;
  GtkGesture *gesture;

  self->zoom = 1.0;
  self->detail = FW_GRAPH_DETAIL_LABELS;
  self->selected_box = self->hover_box = G_MAXUINT;
  self->selected_candidate = G_MAXUINT;
  self->search_pos = G_MAXUINT;
  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  gtk_widget_set_overflow (GTK_WIDGET (self), GTK_OVERFLOW_HIDDEN);

  controller = gtk_event_controller_motion_new ();
  g_signal_connect (controller, "motion", G_CALLBACK (on_motion), self);
  g_signal_connect (controller, "leave", G_CALLBACK (on_leave), self);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);

  gesture = gtk_gesture_click_new ();
  g_signal_connect (gesture, "released", G_CALLBACK (on_click_released), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  gesture = gtk_gesture_drag_new ();
  g_signal_connect (gesture, "drag-begin", G_CALLBACK (on_drag_begin), self);
  g_signal_connect (gesture, "drag-update", G_CALLBACK (on_drag_update), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  controller = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);
  g_signal_connect (controller, "scroll", G_CALLBACK (on_scroll), self);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);

  gesture = gtk_gesture_zoom_new ();
  g_signal_connect (gesture, "begin", G_CALLBACK (on_zoom_begin), self);
  g_signal_connect (gesture, "scale-changed", G_CALLBACK (on_zoom_scale_changed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));
}

/* Public API */

GtkWidget *
fw_graph_view_new (void)
{
  return g_object_new (FW_TYPE_GRAPH_VIEW, NULL);
}

void
fw_graph_view_set_layout (FwGraphView *self, FwLayout *layout)
{
  g_return_if_fail (FW_IS_GRAPH_VIEW (self));
  g_return_if_fail (layout == NULL || FW_IS_LAYOUT (layout));

  if (self->layout == layout)
    return;
  g_cancellable_cancel (self->compute_cancellable);
  g_clear_object (&self->compute_cancellable);
  g_set_object (&self->layout, layout);
  build_index (self);
  self->fit_pending = TRUE;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LAYOUT]);
}

FwLayout *
fw_graph_view_get_layout (FwGraphView *self)
{
  g_return_val_if_fail (FW_IS_GRAPH_VIEW (self), NULL);
  return self->layout;
}

void
fw_graph_view_reload (FwGraphView *self)
{
  g_return_if_fail (FW_IS_GRAPH_VIEW (self));
  build_index (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
fw_graph_view_set_project (FwGraphView *self, FwProject *project)
{
  g_return_if_fail (FW_IS_GRAPH_VIEW (self));
  g_return_if_fail (project == NULL || FW_IS_PROJECT (project));

  if (self->project == project)
    return;
  if (self->project != NULL)
    {
      g_clear_signal_handler (&self->plan_changed_id, self->project);
      g_clear_signal_handler (&self->check_changed_id, self->project);
    }
  g_set_object (&self->project, project);
  if (project != NULL)
    {
      self->plan_changed_id = g_signal_connect_swapped (project, "plan-changed", G_CALLBACK (on_plan_changed), self);
      /* Verification results arrive without a plan change. */
      self->check_changed_id = g_signal_connect_swapped (project, "check-changed", G_CALLBACK (on_plan_changed),
                                                         self);
    }
  on_plan_changed (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROJECT]);
}

gboolean
fw_graph_view_get_candidate_flagged (FwGraphView *self, guint candidate)
{
  g_return_val_if_fail (FW_IS_GRAPH_VIEW (self), FALSE);

  for (guint i = 0; i < self->n_hulls; i++)
    if (self->hulls[i].candidate == candidate)
      return self->hulls[i].flagged;
  return FALSE;
}

FwProject *
fw_graph_view_get_project (FwGraphView *self)
{
  g_return_val_if_fail (FW_IS_GRAPH_VIEW (self), NULL);
  return self->project;
}

void
fw_graph_view_set_plan (FwGraphView *self, FwPlan *plan)
{
  g_return_if_fail (FW_IS_GRAPH_VIEW (self));
  self->plan = plan;
  on_plan_changed (self);
}

void
fw_graph_view_set_zoom (FwGraphView *self, gdouble zoom)
{
  g_return_if_fail (FW_IS_GRAPH_VIEW (self));
  self->fit_pending = FALSE;
  zoom_around (self, zoom, gtk_widget_get_width (GTK_WIDGET (self)) / 2.0,
               gtk_widget_get_height (GTK_WIDGET (self)) / 2.0);
}

gdouble
fw_graph_view_get_zoom (FwGraphView *self)
{
  g_return_val_if_fail (FW_IS_GRAPH_VIEW (self), 1.0);
  return self->zoom;
}

void
fw_graph_view_zoom_to_fit (FwGraphView *self)
{
  g_return_if_fail (FW_IS_GRAPH_VIEW (self));
  if (self->layout == NULL || self->n_boxes == 0)
    return;
  /* Not allocated yet (the window asks while its stack still shows the loading page): fitting into no size
   * would leave a speck in a corner, so fit at the first frame instead. */
  if (gtk_widget_get_width (GTK_WIDGET (self)) <= 0 || gtk_widget_get_height (GTK_WIDGET (self)) <= 0)
    {
      self->fit_pending = TRUE;
      gtk_widget_queue_draw (GTK_WIDGET (self));
      return;
    }
  self->fit_pending = FALSE;
  {
    FwGraphFrame frame;

    fw_graph_frame_fit (self->layout, gtk_widget_get_width (GTK_WIDGET (self)),
                        gtk_widget_get_height (GTK_WIDGET (self)), self->origin_y, MAX_ZOOM, &frame);
    set_frame (self, &frame);
  }
}

void
fw_graph_view_set_overlay (FwGraphView *self, FwGraphOverlay overlay)
{
  g_return_if_fail (FW_IS_GRAPH_VIEW (self));
  if (self->overlay == overlay)
    return;
  self->overlay = overlay;
  build_overlay (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_OVERLAY]);
}

FwGraphOverlay
fw_graph_view_get_overlay (FwGraphView *self)
{
  g_return_val_if_fail (FW_IS_GRAPH_VIEW (self), FW_GRAPH_OVERLAY_OP_CLASS);
  return self->overlay;
}

const FwGraphLegend *
fw_graph_view_get_legend (FwGraphView *self)
{
  g_return_val_if_fail (FW_IS_GRAPH_VIEW (self), NULL);
  return &self->legend;
}

guint
fw_graph_view_get_box_category (FwGraphView *self, guint box)
{
  g_return_val_if_fail (FW_IS_GRAPH_VIEW (self), 0);
  return self->overlay_class != NULL && box < self->n_boxes ? self->overlay_class[box] : 0;
}

FwGraphDetail
fw_graph_view_get_detail (FwGraphView *self)
{
  g_return_val_if_fail (FW_IS_GRAPH_VIEW (self), FW_GRAPH_DETAIL_LABELS);
  return self->detail;
}

char *
fw_graph_view_get_box_text (FwGraphView *self, guint b)
{
  const FwLayoutBox *box;

  g_return_val_if_fail (FW_IS_GRAPH_VIEW (self), NULL);
  g_return_val_if_fail (b < self->n_boxes, NULL);
  box = fw_layout_get_box (self->layout, b);
  if (box->kind == FW_LAYOUT_BOX_SCOPE)
    return fw_scope_label (box, self->scope_saving != NULL ? self->scope_saving[b] : 0);
  return g_utf8_make_valid (box->label ? box->label : "", -1);
}

void
fw_graph_view_get_visible_area (FwGraphView *self, gdouble *x0, gdouble *y0, gdouble *x1, gdouble *y1)
{
  g_return_if_fail (FW_IS_GRAPH_VIEW (self));
  visible_rect (self, x0, y0, x1, y1);
}

void
fw_graph_view_select_candidate (FwGraphView *self, guint candidate)
{
  const Hull *hull;

  g_return_if_fail (FW_IS_GRAPH_VIEW (self));
  set_selected_candidate (self, candidate);
  hull = candidate != G_MAXUINT ? find_hull (self, candidate) : NULL;
  if (hull != NULL)
    frame_rect (self, hull->x0 - 20, hull->y0 - 20, hull->x1 + 20, hull->y1 + 20, 1.5);
}

guint
fw_graph_view_get_selected_candidate (FwGraphView *self)
{
  g_return_val_if_fail (FW_IS_GRAPH_VIEW (self), G_MAXUINT);
  return self->selected_candidate;
}

FwNode *
fw_graph_view_get_selected_node (FwGraphView *self)
{
  g_return_val_if_fail (FW_IS_GRAPH_VIEW (self), NULL);
  if (self->selected_box == G_MAXUINT)
    return NULL;
  return fw_layout_get_box (self->layout, self->selected_box)->node;
}

static gboolean
contains_casefold (const char *haystack, const char *needle)
{
  g_autofree char *folded = NULL;

  if (haystack == NULL)
    return FALSE;
  folded = g_utf8_casefold (haystack, -1);
  return strstr (folded, needle) != NULL;
}

static gboolean
box_matches (const FwLayoutBox *box, const char *needle)
{
  if (contains_casefold (box->scope, needle))
    return TRUE;
  if (box->kind == FW_LAYOUT_BOX_SCOPE || box->node == NULL)
    return contains_casefold (box->label, needle);
  return contains_casefold (fw_node_get_name (box->node), needle)
    || contains_casefold (fw_node_get_op_type (box->node), needle);
}

gboolean
fw_graph_view_search (FwGraphView *self, const char *text, gboolean forward)
{
  g_autofree char *needle = NULL;
  guint start;

  g_return_val_if_fail (FW_IS_GRAPH_VIEW (self), FALSE);
  if (text == NULL || *text == '\0' || self->n_boxes == 0)
    return FALSE;
  needle = g_utf8_casefold (text, -1);
  /* Steps in reading order (layer, then x), wrapping round, from the last hit. */
  start = self->search_pos;
  for (guint step = 1; step <= self->n_boxes; step++)
    {
      guint pos;

      if (start == G_MAXUINT)
        pos = forward ? step - 1 : self->n_boxes - step;
      else if (forward)
        pos = (start + step) % self->n_boxes;
      else
        pos = (start + self->n_boxes - step % self->n_boxes) % self->n_boxes;
      if (box_matches (fw_layout_get_box (self->layout, self->order[pos]), needle))
        {
          self->search_pos = pos;
          select_box (self, self->order[pos], TRUE);
          frame_box (self, self->order[pos]);
          return TRUE;
        }
    }
  return FALSE;
}

/* For tests: the pointer moving to widget point (x, y), as the motion controller would report it. */
void
fw_graph_view_hover (FwGraphView *self, gdouble x, gdouble y)
{
  g_return_if_fail (FW_IS_GRAPH_VIEW (self));
  hover (self, x, y);
}

/* For tests: the widget-relative handling of a click, as the click gesture would run it. */
void
fw_graph_view_click (FwGraphView *self, gint n_press, gdouble x, gdouble y)
{
  g_return_if_fail (FW_IS_GRAPH_VIEW (self));
  click_at (self, n_press, x, y);
}
