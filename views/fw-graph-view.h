/* fw-graph-view.h: the graph canvas: draws an FwLayout with GtkSnapshot, fusion candidates as hulls in
 * four looks (proposed, accepted, vetoed, refused), nodes coloured by op class; pan (drag, scroll), zoom
 * (ctrl+scroll, pinch, +/-/0 keys), fit, a minimap; hover shows a node's op, shapes and dtype; click
 * selects a node or a hull; search steps through matches. Only what is visible is drawn. */
#pragma once

#include <gtk/gtk.h>

#include "fw-graph-overlay.h"
#include "layout/fw-layout.h"
#include "session/fw-project.h"

G_BEGIN_DECLS

/* How much of each box the view draws at its zoom ("detail"): one run of colour per pixel row, plain
 * rectangles, outlined boxes, outlined boxes with their labels. */
typedef enum {
  FW_GRAPH_DETAIL_ROWS,
  FW_GRAPH_DETAIL_BOXES,
  FW_GRAPH_DETAIL_OUTLINES,
  FW_GRAPH_DETAIL_LABELS,
} FwGraphDetail;

#define FW_TYPE_GRAPH_DETAIL (fw_graph_detail_get_type ())
GType fw_graph_detail_get_type (void);

#define FW_TYPE_GRAPH_VIEW (fw_graph_view_get_type ())
G_DECLARE_FINAL_TYPE (FwGraphView, fw_graph_view, FW, GRAPH_VIEW, GtkWidget)

GtkWidget   *fw_graph_view_new                (void);
/* "layout": what to draw. "project": for candidate hulls and their status (may be NULL). */
void         fw_graph_view_set_layout         (FwGraphView *self, FwLayout *layout);
FwLayout    *fw_graph_view_get_layout         (FwGraphView *self);
void         fw_graph_view_set_project        (FwGraphView *self, FwProject *project);
FwProject   *fw_graph_view_get_project        (FwGraphView *self);
/* "zoom": 1.0 is one layout unit per pixel. */
void         fw_graph_view_set_zoom           (FwGraphView *self, gdouble zoom);
gdouble      fw_graph_view_get_zoom           (FwGraphView *self);
/* The whole graph when it is readable whole, else a readable zoom from where the view is (fw-graph-framing.h).
 * A new layout opens on its start instead (the first frame after fw_graph_view_set_layout). */
void         fw_graph_view_zoom_to_fit        (FwGraphView *self);
FwGraphDetail fw_graph_view_get_detail        (FwGraphView *self);
/* "overlay": what node boxes are coloured by (fw-graph-overlay.h); the legend is drawn in a corner. */
void         fw_graph_view_set_overlay        (FwGraphView *self, FwGraphOverlay overlay);
FwGraphOverlay fw_graph_view_get_overlay      (FwGraphView *self);
const FwGraphLegend *fw_graph_view_get_legend (FwGraphView *self);
/* Box's overlay category: 1 + its index in the legend, 0 for a scope or without an overlay. */
guint        fw_graph_view_get_box_category   (FwGraphView *self, guint box);
/* The text box's label shows (a collapsed scope's with its node count and time saved), for tests. */
char        *fw_graph_view_get_box_text       (FwGraphView *self, guint box);
/* Selects and frames a candidate's hull (G_MAXUINT clears); "selected-candidate". */
void         fw_graph_view_select_candidate   (FwGraphView *self, guint candidate);
guint        fw_graph_view_get_selected_candidate (FwGraphView *self);
/* Finds the next (or previous) node whose name, op type or scope contains text; selects and frames it. */
gboolean     fw_graph_view_search             (FwGraphView *self, const char *text, gboolean forward);

/* Re-reads the layout after it was computed elsewhere (the view recomputes by itself when a scope is opened
 * by a double-click). */
void         fw_graph_view_reload             (FwGraphView *self);
/* Hulls from a plan without a project (a read-only view, tests); the project's plan wins when both are set.
 * Not owned: must outlive the view or be unset with NULL. */
void         fw_graph_view_set_plan           (FwGraphView *self, FwPlan *plan);
/* Whether candidate's hull carries the warning flag: its kernel failed verification or did not compile
 * (the project's verification result, updated on "check-changed"). */
gboolean     fw_graph_view_get_candidate_flagged (FwGraphView *self, guint candidate);
/* The layout rectangle now on screen. */
void         fw_graph_view_get_visible_area   (FwGraphView *self, gdouble *x0, gdouble *y0, gdouble *x1, gdouble *y1);
FwNode      *fw_graph_view_get_selected_node  (FwGraphView *self);
/* A range of kernels: the node Shift+click extended the selection to (the selected node is the other end),
 * or NULL; a plain click clears it. */
FwNode      *fw_graph_view_get_range_node     (FwGraphView *self);
/* The collapsed name scope whose box is selected ("/encoder/layers.3"), or NULL. */
const char  *fw_graph_view_get_selected_scope (FwGraphView *self);
/* Selects first's box and extends the selection to last's (both drawn as node boxes): FALSE when either
 * is not drawn or inside a collapsed scope. For tests and keyboard-driven pointers, as Shift+click. */
gboolean     fw_graph_view_select_range       (FwGraphView *self, const FwNode *first, const FwNode *last);
/* What a click of n_press presses at widget point (x, y) does: select a node or a hull, open a scope
 * (n_press 2), move the view (in the minimap). For tests and for keyboard-driven pointers. */
void         fw_graph_view_click              (FwGraphView *self, gint n_press, gdouble x, gdouble y);
/* The same click with Shift held: extends the selection to the node there. */
void         fw_graph_view_shift_click        (FwGraphView *self, gdouble x, gdouble y);
/* The pointer moving to widget point (x, y): the box there is hovered and its tooltip set (op, shapes, and
 * the fusion holding the node or the refusals that kept it out). */
void         fw_graph_view_hover              (FwGraphView *self, gdouble x, gdouble y);

/* Signals: "node-selected" (gpointer FwNode*, NULL when cleared), "candidate-selected" (guint). */

G_END_DECLS
