/* fw-layout.h: a layered (Sugiyama) drawing of a graph for the canvas and the headless renderer: where each
 * node box goes, how each edge runs, what a click at a point hits.
 *
 * Nodes are grouped by name scope ("blocks.3/mlp"); a collapsed scope is one box and its insides are not laid
 * out at all until it is expanded, which is what keeps large models fast. Every phase is near-linear in the
 * nodes and edges drawn (docs/layout.md). The same graph and options give the same coordinates. The layout
 * reads the graph and never changes it; the graph must outlive the layout. Constant nodes are not drawn.
 *
 * Progress is reported through the `fraction` and `message` properties; with the async form their
 * notifications are emitted in the thread-default main context of the caller, never in the worker thread. */
#pragma once

#include <gio/gio.h>

#include "graph/fw-graph.h"

G_BEGIN_DECLS

typedef struct
{
  /* More drawn nodes than this: scopes start collapsed (0: 1,000; G_MAXUINT: never). */
  guint    collapse_threshold;
  /* When collapsing, the largest scopes are opened until about this many boxes are visible (0: 200). */
  guint    collapsed_target;
  guint    crossing_passes;   /* barycenter sweeps down and up (0: 4) */
  guint    coordinate_passes; /* placement sweeps (0: 8) */
  /* Identity nodes that only copy a weight (an initializer, a Constant's output or another such copy) are
   * not drawn either, as if part of their consumer's box: exporters emit one per shared parameter. */
  gboolean fold_weight_copies;
  /* FwNode* → a scope path to draw the node in instead of its own (read by fw_layout_new only, may be NULL):
   * the fused view puts each fused group in a scope of its own. Such scopes start collapsed. */
  GHashTable *scope_override;
} FwLayoutOptions;

typedef enum {
  FW_LAYOUT_BOX_NODE,
  FW_LAYOUT_BOX_SCOPE,  /* a collapsed scope */
} FwLayoutBoxKind;

typedef struct
{
  gdouble          x, y, w, h;  /* top-left corner and size */
  FwLayoutBoxKind  kind;
  FwNode          *node;        /* NODE: the node; SCOPE: NULL */
  const char      *scope;       /* SCOPE: its path ("blocks.3"); NODE: the node's scope */
  const char      *label;       /* what the box shows: op type, or the scope's last part */
  guint            n_nodes;     /* drawn nodes inside: 1 for a node */
  guint            layer;
} FwLayoutBox;

typedef struct
{
  gdouble x, y;
} FwLayoutPoint;

typedef struct
{
  guint                 upper;     /* box index of the end in the upper layer, where the polyline starts */
  guint                 lower;     /* box index of the end in the lower layer */
  /* Data flows from lower to upper: only when collapsing scopes made a cycle that had to be broken. */
  gboolean              reversed;
  /* One point per layer crossed and one more, through the dummies; 2 (a straight line) for the longest
   * edges of a graph that would need more dummies than a budget linear in its size. y strictly increases. */
  guint                 n_points;
  const FwLayoutPoint  *points;
} FwLayoutEdge;

#define FW_TYPE_LAYOUT (fw_layout_get_type ())

G_DECLARE_FINAL_TYPE (FwLayout, fw_layout, FW, LAYOUT, GObject)

void                 fw_layout_options_init    (FwLayoutOptions     *options);
/* options may be NULL for the defaults. Nothing is computed yet. */
FwLayout            *fw_layout_new             (FwGraph             *graph,
                                                const FwLayoutOptions *options);
FwGraph             *fw_layout_get_graph       (FwLayout            *self);
gdouble              fw_layout_get_fraction    (FwLayout            *self);
const char          *fw_layout_get_message     (FwLayout            *self);

/* Scopes: paths as fw_node_get_scope gives them. FALSE when there is no such scope. Expanding a scope
 * expands its ancestors too. Takes effect at the next compute. */
gboolean             fw_layout_set_expanded    (FwLayout            *self,
                                                const char          *scope,
                                                gboolean             expanded);
gboolean             fw_layout_get_expanded    (FwLayout            *self,
                                                const char          *scope);
/* All scopes, sorted; the root scope "" is not among them. */
GPtrArray           *fw_layout_list_scopes     (FwLayout            *self);

/* FALSE only when cancelled; the previous result stays until a compute succeeds. */
gboolean             fw_layout_compute         (FwLayout            *self,
                                                GCancellable        *cancellable,
                                                GError             **error);
void                 fw_layout_compute_async   (FwLayout            *self,
                                                GCancellable        *cancellable,
                                                GAsyncReadyCallback  callback,
                                                gpointer             user_data);
gboolean             fw_layout_compute_finish  (FwLayout            *self,
                                                GAsyncResult        *result,
                                                GError             **error);

/* The result of the last successful compute; empty before one. */
guint                fw_layout_get_n_boxes     (FwLayout            *self);
const FwLayoutBox   *fw_layout_get_box         (FwLayout            *self,
                                                guint                index);
guint                fw_layout_get_n_edges     (FwLayout            *self);
const FwLayoutEdge  *fw_layout_get_edge        (FwLayout            *self,
                                                guint                index);
guint                fw_layout_get_n_layers    (FwLayout            *self);
/* Dummy nodes the long edges were routed through. */
guint                fw_layout_get_n_dummies   (FwLayout            *self);
void                 fw_layout_get_bounds      (FwLayout            *self,
                                                gdouble             *width,
                                                gdouble             *height);
/* The box showing node (its own, or its collapsed scope's); G_MAXUINT when the node is not drawn. */
guint                fw_layout_find_node       (FwLayout            *self,
                                                const FwNode        *node);
/* The box at (x, y), G_MAXUINT when none: O(log n). */
guint                fw_layout_hit_test        (FwLayout            *self,
                                                gdouble              x,
                                                gdouble              y);

G_END_DECLS
