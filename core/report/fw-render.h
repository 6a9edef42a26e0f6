/* fw-render.h: a laid-out graph as a picture, without a display: SVG for documents, PNG for quick looks.
 *
 * Boxes are coloured by op class, candidates of a plan are hulls around their nodes, one look per status
 * (proposed, accepted, vetoed, refused). Labels are drawn as glyphs, so a model's names never become markup.
 * Nothing here lays out: that is core/layout. */
#pragma once

#include <cairo.h>
#include <glib.h>

#include "layout/fw-layout.h"
#include "ops/fw-op-registry.h"
#include "plan/fw-plan.h"

G_BEGIN_DECLS

/* The picture of layout's last result, with plan's candidates when plan is not NULL (it must be a plan of
 * the layout's graph). The format follows path's extension, .svg or .png (any case); anything else is
 * FW_ERROR_USAGE. The file is replaced atomically. A PNG larger than 16,384 px a side (or 64 megapixels) is
 * scaled down to fit rather than refused. */
gboolean fw_render_graph (FwLayout      *layout,
                          const FwPlan  *plan,
                          const char    *path,
                          GError       **error);

/* The fill of a box, 0–1 each: by op_class for a node (classes out of range as opaque), one colour for a
 * collapsed scope (op_class unused). The canvas draws with the same. */
void     fw_render_box_color  (FwLayoutBoxKind    kind,
                               FwOpClass          op_class,
                               gdouble           *red,
                               gdouble           *green,
                               gdouble           *blue);

/* The dash of hulls of candidates with status (solid for accepted), in multiples of unit: 1 for a picture;
 * the canvas passes one screen pixel in layout units, so its dashes keep their length at any zoom. */
void     fw_render_set_hull_dash (cairo_t          *cr,
                                  FwCandidateStatus status,
                                  gdouble           unit);

/* The stroke colour of hulls of candidates with status, 0–1 each: for legends and tests. */
void     fw_render_hull_color (FwCandidateStatus status,
                               gdouble          *red,
                               gdouble          *green,
                               gdouble          *blue);

G_END_DECLS
