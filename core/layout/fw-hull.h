/* fw-hull.h: the outline of a candidate on a laid-out graph, for the headless renderer and the canvas alike.
 *
 * Both draw a fusion candidate as the convex hull of its nodes' boxes, so a picture and the window agree. */
#pragma once

#include "layout/fw-layout.h"

G_BEGIN_DECLS

/* The convex hull of points by the monotone chain, its corners in order around it, written to hull, which
 * has room for 2 * n_points + 1; returns its length. Sorts points in place. */
guint          fw_hull_convex        (FwLayoutPoint       *points,
                                      guint                n_points,
                                      FwLayoutPoint       *hull);

/* The hull around the boxes showing nodes (FwNode *), each box grown by pad on every side: a new array
 * with room for more points than it holds, its length in *n_points. NULL with *n_points 0 when none of the
 * nodes is drawn. */
FwLayoutPoint *fw_hull_around_nodes  (FwLayout            *layout,
                                      const GPtrArray     *nodes,
                                      gdouble              pad,
                                      guint               *n_points);

/* Whether (x, y) lies inside the convex polygon hull or on its edge. */
gboolean       fw_hull_contains      (const FwLayoutPoint *hull,
                                      guint                n_points,
                                      gdouble              x,
                                      gdouble              y);

G_END_DECLS
