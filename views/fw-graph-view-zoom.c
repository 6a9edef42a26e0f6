/* fw-graph-view-zoom.c: FwGraphView's zoom and origin: clamping, the level of detail a zoom draws, zooming
 * around a point, framing a rectangle, a box or the whole graph. */
#include "config.h"

#include <math.h>

#include "fw-graph-view-private.h"
#include "fw-graph-framing.h"

void
fw_graph_view_visible_rect (FwGraphView *self, gdouble *x0, gdouble *y0, gdouble *x1, gdouble *y1)
{
  *x0 = self->origin_x;
  *y0 = self->origin_y;
  *x1 = self->origin_x + gtk_widget_get_width (GTK_WIDGET (self)) / self->zoom;
  *y1 = self->origin_y + gtk_widget_get_height (GTK_WIDGET (self)) / self->zoom;
}

static gdouble
clamp_zoom (gdouble zoom)
{
  return isfinite (zoom) ? CLAMP (zoom, MIN_ZOOM, MAX_ZOOM) : 1.0;
}

/* What draw_boxes_detailed and the snapshot's rows test draw at the zoom. */
FwGraphDetail
fw_graph_view_detail_at (FwGraphView *self, gdouble zoom)
{
  if (zoom * (self->box_h + 44) < 2.0)
    return FW_GRAPH_DETAIL_ROWS;
  if (zoom * self->box_h < FULL_DETAIL_PX)
    return FW_GRAPH_DETAIL_BOXES;
  return zoom >= LABEL_ZOOM ? FW_GRAPH_DETAIL_LABELS : FW_GRAPH_DETAIL_OUTLINES;
}

void
fw_graph_view_update_detail (FwGraphView *self)
{
  FwGraphDetail detail = fw_graph_view_detail_at (self, self->zoom);

  if (detail == self->detail)
    return;
  self->detail = detail;
  g_object_notify_by_pspec (G_OBJECT (self), fw_graph_view_properties[PROP_DETAIL]);
}

void
fw_graph_view_set_view (FwGraphView *self, gdouble zoom, gdouble origin_x, gdouble origin_y)
{
  gboolean zoom_changed;

  zoom = clamp_zoom (zoom);
  zoom_changed = zoom != self->zoom;
  self->zoom = zoom;
  self->origin_x = origin_x;
  self->origin_y = origin_y;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  if (zoom_changed)
    g_object_notify_by_pspec (G_OBJECT (self), fw_graph_view_properties[PROP_ZOOM]);
  fw_graph_view_update_detail (self);
}

void
fw_graph_view_set_frame (FwGraphView *self, const FwGraphFrame *frame)
{
  fw_graph_view_set_view (self, frame->zoom, frame->origin_x, frame->origin_y);
}

/* Zooms keeping the layout point under widget point (wx, wy) where it is. */
void
fw_graph_view_zoom_around (FwGraphView *self, gdouble zoom, gdouble wx, gdouble wy)
{
  gdouble px = self->origin_x + wx / self->zoom;
  gdouble py = self->origin_y + wy / self->zoom;

  zoom = clamp_zoom (zoom);
  fw_graph_view_set_view (self, zoom, px - wx / zoom, py - wy / zoom);
}

/* Shows the layout rectangle whole and centred, at no more than max_zoom. */
void
fw_graph_view_frame_rect (FwGraphView *self, gdouble x0, gdouble y0, gdouble x1, gdouble y1, gdouble max_zoom)
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
  fw_graph_view_set_view (self, zoom, (x0 + x1) / 2 - w / 2 / zoom, (y0 + y1) / 2 - h / 2 / zoom);
}

/* Centres a box, zooming in to a readable size when the view is too far out to tell it apart. */
void
fw_graph_view_frame_box (FwGraphView *self, guint b)
{
  const FwLayoutBox *box = fw_layout_get_box (self->layout, b);
  gdouble w = gtk_widget_get_width (GTK_WIDGET (self));
  gdouble h = gtk_widget_get_height (GTK_WIDGET (self));
  gdouble zoom = self->zoom < 0.75 ? 1.0 : self->zoom;

  fw_graph_view_set_view (self, zoom, box->x + box->w / 2 - w / 2 / zoom, box->y + box->h / 2 - h / 2 / zoom);
}

void
fw_graph_view_set_zoom (FwGraphView *self, gdouble zoom)
{
  g_return_if_fail (FW_IS_GRAPH_VIEW (self));
  self->fit_pending = FALSE;
  fw_graph_view_zoom_around (self, zoom, gtk_widget_get_width (GTK_WIDGET (self)) / 2.0,
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
    fw_graph_view_set_frame (self, &frame);
  }
}

FwGraphDetail
fw_graph_view_get_detail (FwGraphView *self)
{
  g_return_val_if_fail (FW_IS_GRAPH_VIEW (self), FW_GRAPH_DETAIL_LABELS);
  return self->detail;
}

void
fw_graph_view_get_visible_area (FwGraphView *self, gdouble *x0, gdouble *y0, gdouble *x1, gdouble *y1)
{
  g_return_if_fail (FW_IS_GRAPH_VIEW (self));
  fw_graph_view_visible_rect (self, x0, y0, x1, y1);
}
