/* fw-graph-view-private.h: FwGraphView's state and the functions its parts share: the index
 * (fw-graph-view-index.c), drawing (fw-graph-view-snapshot.c, fw-graph-view-minimap.c), zoom and framing
 * (fw-graph-view-zoom.c), input (fw-graph-view-input.c) and search (fw-graph-view-search.c). */
#pragma once

#include <gtk/gtk.h>

#include "fw-graph-view.h"
#include "fw-graph-framing.h"
#include "fw-graph-overlay.h"

G_BEGIN_DECLS

#define HULL_PAD        6.0
#define CORNER          5.0
#define MIN_ZOOM        1e-4
#define MAX_ZOOM        8.0
#define FULL_DETAIL_PX  10.0   /* box height on screen from which boxes are rounded, outlined and labelled */
#define LABEL_ZOOM      0.45   /* below this the label text would be too small to read */
#define EDGE_BAND_PX    6.0    /* layer spacing on screen from which edges are drawn */
#define MINIMAP_SIDE    160.0
#define MINIMAP_MARGIN  12.0
#define N_COLORS        8      /* index 0: empty pixel, 1 + op class: nodes, 7: collapsed scope */

typedef struct
{
  gdouble x0, y0, x1, y1;
  guint   edge;
  guint   k;   /* points[k] to points[k + 1] */
} Segment;

typedef struct
{
  guint          candidate;
  FwCandidateStatus status;
  gboolean       flagged;  /* its kernel failed verification or did not compile */
  guint          n_points;
  FwLayoutPoint *points;   /* the padded convex hull, counter-clockwise in screen orientation */
  gdouble        x0, y0, x1, y1;
} Hull;

struct _FwGraphView
{
  GtkWidget      parent_instance;

  FwLayout      *layout;
  FwProject     *project;
  FwPlan        *plan;      /* borrowed, used when there is no project */
  gulong         plan_changed_id;
  gulong         check_changed_id;
  GCancellable  *compute_cancellable;

  gdouble        zoom;
  gdouble        origin_x, origin_y;   /* the layout point at the widget's top-left corner */
  gboolean       fit_pending;          /* frame the graph's start once the widget has a size */
  FwGraphDetail  detail;

  /* What node boxes are coloured by: the op class, or an overlay's categories (per box, 0 for a scope) with
   * their colours at palette index N_COLORS + category - 1 and the legend drawn in a corner. */
  FwGraphOverlay overlay;
  guint8        *overlay_class;
  FwGraphLegend  legend;
  GdkRGBA        overlay_palette[FW_GRAPH_OVERLAY_MAX_CATEGORIES];
  GdkRGBA        overlay_dark[FW_GRAPH_OVERLAY_MAX_CATEGORIES];

  /* Index of the layout's last result. */
  guint          n_boxes;
  guint          n_layers;
  guint         *order;        /* box indices by layer, then x */
  guint         *layer_start;  /* n_layers + 1 offsets into order */
  gdouble       *layer_y;      /* top of each layer, non-decreasing */
  gdouble        box_h;        /* tallest box */
  gdouble        bounds_w, bounds_h;
  Segment       *segments;     /* sorted by y0 */
  guint          n_segments;
  gdouble        max_span;     /* tallest segment in segments */
  Segment       *long_segments; /* straight edges over many layers, always tested */
  guint          n_long;
  Hull          *hulls;
  guint          n_hulls;
  PangoLayout  **labels;       /* per box, made when first shown */
  gdouble       *scope_saving; /* per box: seconds the plan saves inside a collapsed scope, or NULL */
  GskRenderNode *minimap;      /* the whole layout at minimap scale, made once per layout */
  gdouble        minimap_scale;

  guint          selected_box;
  guint          range_box;    /* Shift+click: the other end of a range of kernels from selected_box, or G_MAXUINT */
  guint          hover_box;
  guint          selected_candidate;
  guint          search_pos;   /* position in order of the last search hit */

  gdouble        pointer_x, pointer_y;
  gdouble        drag_origin_x, drag_origin_y;
  gboolean       drag_in_minimap;
  gdouble        pinch_zoom;
};

enum {
  PROP_0,
  PROP_LAYOUT,
  PROP_PROJECT,
  PROP_ZOOM,
  PROP_SELECTED_CANDIDATE,
  PROP_DETAIL,
  PROP_OVERLAY,
  N_PROPS
};

enum {
  NODE_SELECTED,
  CANDIDATE_SELECTED,
  N_SIGNALS
};

extern GParamSpec *fw_graph_view_properties[N_PROPS];
extern guint fw_graph_view_signals[N_SIGNALS];

/* fw-graph-view-index.c */
FwPlan       *fw_graph_view_current_plan     (FwGraphView *self);
void          fw_graph_view_build_index      (FwGraphView *self);
void          fw_graph_view_clear_index      (FwGraphView *self);
void          fw_graph_view_build_hulls      (FwGraphView *self);
void          fw_graph_view_build_overlay    (FwGraphView *self);
guint         fw_graph_view_first_layer_from (FwGraphView *self, gdouble y);
guint         fw_graph_view_first_box_from   (FwGraphView *self, guint l, gdouble x);
guint         fw_graph_view_hull_at          (FwGraphView *self, gdouble x, gdouble y);
const Hull   *fw_graph_view_find_hull        (FwGraphView *self, guint candidate);

/* fw-graph-view-zoom.c */
void          fw_graph_view_visible_rect     (FwGraphView *self, gdouble *x0, gdouble *y0, gdouble *x1, gdouble *y1);
FwGraphDetail fw_graph_view_detail_at        (FwGraphView *self, gdouble zoom);
void          fw_graph_view_update_detail    (FwGraphView *self);
void          fw_graph_view_set_view         (FwGraphView *self, gdouble zoom, gdouble origin_x, gdouble origin_y);
void          fw_graph_view_set_frame        (FwGraphView *self, const FwGraphFrame *frame);
void          fw_graph_view_zoom_around      (FwGraphView *self, gdouble zoom, gdouble wx, gdouble wy);
void          fw_graph_view_frame_rect       (FwGraphView *self, gdouble x0, gdouble y0, gdouble x1, gdouble y1,
                                              gdouble max_zoom);
void          fw_graph_view_frame_box        (FwGraphView *self, guint b);

/* fw-graph-view-snapshot.c */
gfloat        fw_graph_view_darken           (gdouble channel);
void          fw_graph_view_fill_palettes    (void);
void          fw_graph_view_draw_boxes_rows  (FwGraphView *self, GtkSnapshot *snapshot, gdouble ox, gdouble oy,
                                              gdouble scale, gdouble dx, gdouble dy, guint w, guint h);
void          fw_graph_view_snapshot         (GtkWidget *widget, GtkSnapshot *snapshot);

/* fw-graph-view-minimap.c */
void          fw_graph_view_draw_minimap     (FwGraphView *self, GtkSnapshot *snapshot, gdouble w, gdouble h);
gboolean      fw_graph_view_in_minimap       (FwGraphView *self, gdouble x, gdouble y);
void          fw_graph_view_minimap_jump     (FwGraphView *self, gdouble x, gdouble y);

/* fw-graph-view-input.c */
void          fw_graph_view_select_box       (FwGraphView *self, guint b, gboolean emit);
void          fw_graph_view_set_selected_candidate (FwGraphView *self, guint candidate);
void          fw_graph_view_add_bindings     (GtkWidgetClass *widget_class);
void          fw_graph_view_add_controllers  (FwGraphView *self);

G_END_DECLS
