/* fw-graph-overlay.h: what the canvas colours its node boxes by, besides the op class: fused or not, the
 * refusal code that kept a node out, the time the estimate says its fusion saves, the time Measure found,
 * the verification of its kernel, and the SuperKernel scope its kernel is bound into; each a few categories
 * with a legend (Model Explorer's per-node overlays). Collapsed scopes keep their own colour. */
#pragma once

#include <gtk/gtk.h>

#include "layout/fw-layout.h"
#include "session/fw-project.h"

G_BEGIN_DECLS

typedef enum {
  FW_GRAPH_OVERLAY_OP_CLASS,
  FW_GRAPH_OVERLAY_FUSION,
  FW_GRAPH_OVERLAY_REFUSAL,
  FW_GRAPH_OVERLAY_SAVING,
  FW_GRAPH_OVERLAY_MEASURED,
  FW_GRAPH_OVERLAY_VERIFICATION,
  FW_GRAPH_OVERLAY_SUPERKERNEL,
} FwGraphOverlay;

#define FW_TYPE_GRAPH_OVERLAY (fw_graph_overlay_get_type ())
GType fw_graph_overlay_get_type (void);

#define FW_GRAPH_OVERLAY_MAX_CATEGORIES 8

typedef struct
{
  guint    n_categories;
  GdkRGBA  colors[FW_GRAPH_OVERLAY_MAX_CATEGORIES];
  char    *labels[FW_GRAPH_OVERLAY_MAX_CATEGORIES];   /* translated, owned */
} FwGraphLegend;

void     fw_graph_legend_clear       (FwGraphLegend  *legend);

/* The category of each box of layout under overlay (a new array, one per box: 1 + an index into the
 * legend's categories, 0 for a collapsed scope), and the legend. plan: the plan to read (project's or a
 * borrowed one); project may be NULL, then measured times and verification are unknown. NULL for
 * FW_GRAPH_OVERLAY_OP_CLASS. */
guint8  *fw_graph_overlay_classify   (FwGraphOverlay  overlay,
                                      FwLayout       *layout,
                                      FwPlan         *plan,
                                      FwProject      *project,
                                      FwGraphLegend  *legend);
/* The legend as a box of swatches and labels, at the canvas's top-left corner. */
void     fw_graph_legend_snapshot    (const FwGraphLegend *legend,
                                      GtkWidget      *widget,
                                      GtkSnapshot    *snapshot);

G_END_DECLS
