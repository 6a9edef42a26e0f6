/* fw-graph-view-minimap.c: FwGraphView's minimap in the bottom right corner: the whole layout as pixel rows
 * with the visible area marked, and jumping there on a click or drag. */
#include "config.h"

#include <math.h>

#include "fw-graph-view-private.h"

void
fw_graph_view_draw_minimap (FwGraphView *self, GtkSnapshot *snapshot, gdouble w, gdouble h)
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

      fw_graph_view_draw_boxes_rows (self, s, 0, 0, scale, 0, 0, (guint) ceil (mw), (guint) ceil (mh));
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
  fw_graph_view_visible_rect (self, &vx0, &vy0, &vx1, &vy1);
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

void
fw_graph_view_minimap_jump (FwGraphView *self, gdouble x, gdouble y)
{
  gdouble mx, my, mw, mh, scale;
  gdouble w = gtk_widget_get_width (GTK_WIDGET (self)), h = gtk_widget_get_height (GTK_WIDGET (self));

  if (!minimap_geometry (self, &mx, &my, &mw, &mh, &scale))
    return;
  fw_graph_view_set_view (self, self->zoom, (x - mx) / scale - w / 2 / self->zoom, (y - my) / scale - h / 2 / self->zoom);
}

gboolean
fw_graph_view_in_minimap (FwGraphView *self, gdouble x, gdouble y)
{
  gdouble mx, my, mw, mh, scale;

  return minimap_geometry (self, &mx, &my, &mw, &mh, &scale)
    && x >= mx && x <= mx + mw && y >= my && y <= my + mh;
}
