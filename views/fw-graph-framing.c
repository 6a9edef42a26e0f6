#include "config.h"

#include "fw-graph-framing.h"

/* The x the view centres on for the layout rows y0..y1 at zoom: the middle of the boxes there, or when
 * they are wider than the view, the middle of the topmost of them, so the start of the band is in view. */
static gdouble
centre_x (FwLayout *layout, gdouble y0, gdouble y1, gdouble view_w, gdouble zoom)
{
  gdouble lo = G_MAXDOUBLE, hi = -G_MAXDOUBLE, top = G_MAXDOUBLE;
  gdouble top_lo = G_MAXDOUBLE, top_hi = -G_MAXDOUBLE;
  guint n = fw_layout_get_n_boxes (layout);

  for (guint i = 0; i < n; i++)
    {
      const FwLayoutBox *box = fw_layout_get_box (layout, i);

      if (box->y + box->h < y0 || box->y > y1)
        continue;
      lo = MIN (lo, box->x);
      hi = MAX (hi, box->x + box->w);
      top = MIN (top, box->y);
    }
  if (lo > hi)
    {
      gdouble w, h;

      fw_layout_get_bounds (layout, &w, &h);
      return w / 2;
    }
  if ((hi - lo) * zoom <= view_w)
    return (lo + hi) / 2;
  for (guint i = 0; i < n; i++)
    {
      const FwLayoutBox *box = fw_layout_get_box (layout, i);

      if (box->y != top)
        continue;
      top_lo = MIN (top_lo, box->x);
      top_hi = MAX (top_hi, box->x + box->w);
    }
  return (top_lo + top_hi) / 2;
}

void
fw_graph_frame_fit (FwLayout *layout, gdouble view_w, gdouble view_h, gdouble top_y, gdouble max_zoom,
                    FwGraphFrame *out)
{
  gdouble w = 1, h = 1, whole;

  g_return_if_fail (FW_IS_LAYOUT (layout));
  view_w = MAX (view_w, 1);
  view_h = MAX (view_h, 1);
  fw_layout_get_bounds (layout, &w, &h);
  w = MAX (w, 1);
  h = MAX (h, 1);
  whole = MIN (view_w / w, view_h / h);
  if (whole >= FW_GRAPH_READABLE_ZOOM)
    {
      out->zoom = MIN (whole, max_zoom);
      out->origin_x = w / 2 - view_w / 2 / out->zoom;
      out->origin_y = h / 2 - view_h / 2 / out->zoom;
      return;
    }
  out->zoom = CLAMP (view_w / w, FW_GRAPH_READABLE_ZOOM, MAX (1.0, FW_GRAPH_READABLE_ZOOM));
  if (h * out->zoom <= view_h)
    out->origin_y = h / 2 - view_h / 2 / out->zoom;
  else
    out->origin_y = CLAMP (top_y, 0, h - view_h / out->zoom);
  out->origin_x = centre_x (layout, out->origin_y, out->origin_y + view_h / out->zoom, view_w, out->zoom)
                  - view_w / 2 / out->zoom;
}

void
fw_graph_frame_start (FwLayout *layout, gdouble view_w, gdouble view_h, FwGraphFrame *out)
{
  fw_graph_frame_fit (layout, view_w, view_h, 0, 1.0, out);
}
