/* fw-graph-framing.h: where the graph view looks. A model opens on its start (the inputs at the top) at a
 * zoom where box labels can be read; fitting shows the whole graph when it is readable whole, and otherwise
 * keeps the readable zoom and leaves the rest to scrolling, since a whole transformer fitted into a window
 * is a column of dots. Geometry over an FwLayout only, no widget. */
#pragma once

#include "layout/fw-layout.h"

G_BEGIN_DECLS

/* From this zoom up box labels are drawn at a size a person reads without leaning in (28-unit boxes, the
 * interface font at about 11 pixels). */
#define FW_GRAPH_READABLE_ZOOM 0.75

typedef struct
{
  gdouble zoom;
  gdouble origin_x, origin_y;   /* the layout point at the view's top-left corner */
} FwGraphFrame;

/* The first frame on a model in a view_w × view_h view: the whole graph when it fits at a readable zoom
 * (no closer than 1:1), else the readable zoom with the top of the graph at the top of the view, centred
 * across on the boxes in view. */
void     fw_graph_frame_start     (FwLayout      *layout,
                                   gdouble        view_w,
                                   gdouble        view_h,
                                   FwGraphFrame  *out);
/* What "fit" (0) does: the whole graph, centred, no closer than max_zoom, when it is readable whole; else
 * the readable zoom (or the width's fit when closer, up to 1:1), centred across on the boxes in view, with
 * the view's top kept at top_y (where it is now) as far as the graph allows. */
void     fw_graph_frame_fit       (FwLayout      *layout,
                                   gdouble        view_w,
                                   gdouble        view_h,
                                   gdouble        top_y,
                                   gdouble        max_zoom,
                                   FwGraphFrame  *out);

G_END_DECLS
