/* fw-graph-view-snapshot.c: drawing FwGraphView: hulls, edges and boxes at the level of detail of the zoom,
 * then the minimap and the overlay's legend. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "fw-graph-view-private.h"
#include "fw-graph-framing.h"
#include "fw-graph-overlay.h"
#include "ops/fw-op-registry.h"
#include "report/fw-render.h"

/* The headless renderer's colours, so a picture and the canvas agree; filled in at class init. */
static GdkRGBA palette[N_COLORS];
/* Darker versions for the pixel-row drawing, where a pale colour on white would vanish. */
static GdkRGBA palette_dark[N_COLORS];

/* Twice as far from white, and a little darker still. */
gfloat
fw_graph_view_darken (gdouble channel)
{
  return MAX (0.0, 2.0 * channel - 1.15);
}

void
fw_graph_view_fill_palettes (void)
{
  palette[0] = palette_dark[0] = (GdkRGBA) { 1, 1, 1, 1 };
  for (guint i = 1; i < N_COLORS; i++)
    {
      FwLayoutBoxKind kind = i == N_COLORS - 1 ? FW_LAYOUT_BOX_SCOPE : FW_LAYOUT_BOX_NODE;
      gdouble r, g, b;

      fw_render_box_color (kind, (FwOpClass) (i - 1), &r, &g, &b);
      palette[i] = (GdkRGBA) { r, g, b, 1 };
      palette_dark[i] = (GdkRGBA) { fw_graph_view_darken (r), fw_graph_view_darken (g), fw_graph_view_darken (b), 1 };
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

  for (guint l = fw_graph_view_first_layer_from (self, y0); l < self->n_layers && self->layer_y[l] <= y1; l++)
    for (guint i = fw_graph_view_first_box_from (self, l, x0); i < self->layer_start[l + 1]; i++)
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
          gboolean selected = b == self->selected_box || b == self->range_box;
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
void
fw_graph_view_draw_boxes_rows (FwGraphView *self, GtkSnapshot *snapshot, gdouble ox, gdouble oy, gdouble scale,
                 gdouble dx, gdouble dy, guint w, guint h)
{
  g_autofree guint8 *row = g_malloc0 (MAX (w, 1));
  guint lo = G_MAXUINT, hi = 0;
  gint current = -1;
  gdouble y1 = oy + h / scale, x1 = ox + w / scale;

  if (w == 0 || h == 0)
    return;
  for (guint l = fw_graph_view_first_layer_from (self, oy); l <= self->n_layers; l++)
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
      for (guint i = fw_graph_view_first_box_from (self, l, ox); i < self->layer_start[l + 1]; i++)
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

void
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
      fw_graph_view_set_frame (self, &frame);
    }
  fw_graph_view_visible_rect (self, &x0, &y0, &x1, &y1);
  rows = fw_graph_view_detail_at (self, self->zoom) == FW_GRAPH_DETAIL_ROWS;

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
    fw_graph_view_draw_boxes_rows (self, snapshot, x0, y0, self->zoom, 0, 0, (guint) ceil (w), (guint) ceil (h));
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
  fw_graph_view_draw_minimap (self, snapshot, w, h);
  fw_graph_legend_snapshot (&self->legend, widget, snapshot);
}
