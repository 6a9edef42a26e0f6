/* fw-graph-view.c: the graph canvas.
 *
 * Drawing cost follows what is on screen, not the model: boxes are indexed by layer (layers sorted by y, boxes
 * of a layer by x) and edge segments by their top y, so a frame finds its visible part by binary search. Three
 * levels of detail: rounded boxes with labels when zoomed in, plain rectangles with edges in between, and
 * below one pixel a layer, one run of colour per pixel row, so a fully zoomed-out 10,000-node graph costs a
 * frame in proportion to the widget's height. Edges and hulls are drawn with cairo in widget pixels (a cairo
 * node in layout units would allocate a surface the size of the layout when zoomed out).
 *
 * This file holds the GObject and the plain setters and getters; the index is in fw-graph-view-index.c, the
 * drawing in fw-graph-view-snapshot.c and fw-graph-view-minimap.c, zoom and framing in fw-graph-view-zoom.c,
 * input in fw-graph-view-input.c and search in fw-graph-view-search.c, sharing fw-graph-view-private.h. */
#include "config.h"

#include "fw-graph-view-private.h"
#include "fw-scope-label.h"

GParamSpec *fw_graph_view_properties[N_PROPS];
guint fw_graph_view_signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (FwGraphView, fw_graph_view, GTK_TYPE_WIDGET)
G_DEFINE_ENUM_TYPE (FwGraphDetail, fw_graph_detail,
  G_DEFINE_ENUM_VALUE (FW_GRAPH_DETAIL_ROWS, "rows"),
  G_DEFINE_ENUM_VALUE (FW_GRAPH_DETAIL_BOXES, "boxes"),
  G_DEFINE_ENUM_VALUE (FW_GRAPH_DETAIL_OUTLINES, "outlines"),
  G_DEFINE_ENUM_VALUE (FW_GRAPH_DETAIL_LABELS, "labels"))

static void
on_plan_changed (FwGraphView *self)
{
  fw_graph_view_build_hulls (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* GObject */

static void
fw_graph_view_dispose (GObject *object)
{
  FwGraphView *self = FW_GRAPH_VIEW (object);
  GtkWidget *child;

  /* A context menu the window opened over the canvas. */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  g_cancellable_cancel (self->compute_cancellable);
  g_clear_object (&self->compute_cancellable);
  if (self->project != NULL)
    {
      g_clear_signal_handler (&self->plan_changed_id, self->project);
      g_clear_signal_handler (&self->check_changed_id, self->project);
    }
  fw_graph_view_clear_index (self);
  g_clear_pointer (&self->overlay_class, g_free);
  fw_graph_legend_clear (&self->legend);
  g_clear_object (&self->project);
  g_clear_object (&self->layout);
  G_OBJECT_CLASS (fw_graph_view_parent_class)->dispose (object);
}

static void
fw_graph_view_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  FwGraphView *self = FW_GRAPH_VIEW (object);

  switch (prop_id)
    {
    case PROP_LAYOUT:
      g_value_set_object (value, self->layout);
      break;
    case PROP_PROJECT:
      g_value_set_object (value, self->project);
      break;
    case PROP_ZOOM:
      g_value_set_double (value, self->zoom);
      break;
    case PROP_SELECTED_CANDIDATE:
      g_value_set_uint (value, self->selected_candidate);
      break;
    case PROP_DETAIL:
      g_value_set_enum (value, self->detail);
      break;
    case PROP_OVERLAY:
      g_value_set_enum (value, self->overlay);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
fw_graph_view_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  FwGraphView *self = FW_GRAPH_VIEW (object);

  switch (prop_id)
    {
    case PROP_LAYOUT:
      fw_graph_view_set_layout (self, g_value_get_object (value));
      break;
    case PROP_PROJECT:
      fw_graph_view_set_project (self, g_value_get_object (value));
      break;
    case PROP_ZOOM:
      fw_graph_view_set_zoom (self, g_value_get_double (value));
      break;
    case PROP_SELECTED_CANDIDATE:
      fw_graph_view_select_candidate (self, g_value_get_uint (value));
      break;
    case PROP_OVERLAY:
      fw_graph_view_set_overlay (self, g_value_get_enum (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

/* The canvas draws itself; its only children are popovers (a context menu), which GTK 4 shows only when
 * the parent presents them as it is allocated. */
static void
fw_graph_view_size_allocate (GtkWidget *widget, int width, int height, int baseline)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_POPOVER (child))
      gtk_popover_present (GTK_POPOVER (child));
}

static void
fw_graph_view_class_init (FwGraphViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = fw_graph_view_dispose;
  object_class->get_property = fw_graph_view_get_property;
  object_class->set_property = fw_graph_view_set_property;
  widget_class->snapshot = fw_graph_view_snapshot;
  widget_class->size_allocate = fw_graph_view_size_allocate;
  fw_graph_view_fill_palettes ();

  fw_graph_view_properties[PROP_LAYOUT] =
    g_param_spec_object ("layout", NULL, NULL, FW_TYPE_LAYOUT,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  fw_graph_view_properties[PROP_PROJECT] =
    g_param_spec_object ("project", NULL, NULL, FW_TYPE_PROJECT,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  fw_graph_view_properties[PROP_ZOOM] =
    g_param_spec_double ("zoom", NULL, NULL, MIN_ZOOM, MAX_ZOOM, 1.0,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  fw_graph_view_properties[PROP_SELECTED_CANDIDATE] =
    g_param_spec_uint ("selected-candidate", NULL, NULL, 0, G_MAXUINT, G_MAXUINT,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* What a frame at the current zoom draws, so a test can tell labels are on screen. */
  fw_graph_view_properties[PROP_DETAIL] =
    g_param_spec_enum ("detail", NULL, NULL, FW_TYPE_GRAPH_DETAIL, FW_GRAPH_DETAIL_LABELS,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  fw_graph_view_properties[PROP_OVERLAY] =
    g_param_spec_enum ("overlay", NULL, NULL, FW_TYPE_GRAPH_OVERLAY, FW_GRAPH_OVERLAY_OP_CLASS,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, fw_graph_view_properties);

  fw_graph_view_signals[NODE_SELECTED] =
    g_signal_new ("node-selected", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_POINTER);
  fw_graph_view_signals[CANDIDATE_SELECTED] =
    g_signal_new ("candidate-selected", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_UINT);

  fw_graph_view_add_bindings (widget_class);

  gtk_widget_class_set_css_name (widget_class, "fwgraphview");
}

static void
fw_graph_view_init (FwGraphView *self)
{

  self->zoom = 1.0;
  self->detail = FW_GRAPH_DETAIL_LABELS;
  self->selected_box = self->range_box = self->hover_box = G_MAXUINT;
  self->selected_candidate = G_MAXUINT;
  self->search_pos = G_MAXUINT;
  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  gtk_widget_set_overflow (GTK_WIDGET (self), GTK_OVERFLOW_HIDDEN);
  fw_graph_view_add_controllers (self);
}

/* Public API */

GtkWidget *
fw_graph_view_new (void)
{
  return g_object_new (FW_TYPE_GRAPH_VIEW, NULL);
}

void
fw_graph_view_set_layout (FwGraphView *self, FwLayout *layout)
{
  g_return_if_fail (FW_IS_GRAPH_VIEW (self));
  g_return_if_fail (layout == NULL || FW_IS_LAYOUT (layout));

  if (self->layout == layout)
    return;
  g_cancellable_cancel (self->compute_cancellable);
  g_clear_object (&self->compute_cancellable);
  g_set_object (&self->layout, layout);
  fw_graph_view_build_index (self);
  self->fit_pending = TRUE;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), fw_graph_view_properties[PROP_LAYOUT]);
}

FwLayout *
fw_graph_view_get_layout (FwGraphView *self)
{
  g_return_val_if_fail (FW_IS_GRAPH_VIEW (self), NULL);
  return self->layout;
}

void
fw_graph_view_reload (FwGraphView *self)
{
  g_return_if_fail (FW_IS_GRAPH_VIEW (self));
  fw_graph_view_build_index (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
fw_graph_view_set_project (FwGraphView *self, FwProject *project)
{
  g_return_if_fail (FW_IS_GRAPH_VIEW (self));
  g_return_if_fail (project == NULL || FW_IS_PROJECT (project));

  if (self->project == project)
    return;
  if (self->project != NULL)
    {
      g_clear_signal_handler (&self->plan_changed_id, self->project);
      g_clear_signal_handler (&self->check_changed_id, self->project);
    }
  g_set_object (&self->project, project);
  if (project != NULL)
    {
      self->plan_changed_id = g_signal_connect_swapped (project, "plan-changed", G_CALLBACK (on_plan_changed), self);
      /* Verification results arrive without a plan change. */
      self->check_changed_id = g_signal_connect_swapped (project, "check-changed", G_CALLBACK (on_plan_changed),
                                                         self);
    }
  on_plan_changed (self);
  g_object_notify_by_pspec (G_OBJECT (self), fw_graph_view_properties[PROP_PROJECT]);
}

gboolean
fw_graph_view_get_candidate_flagged (FwGraphView *self, guint candidate)
{
  g_return_val_if_fail (FW_IS_GRAPH_VIEW (self), FALSE);

  for (guint i = 0; i < self->n_hulls; i++)
    if (self->hulls[i].candidate == candidate)
      return self->hulls[i].flagged;
  return FALSE;
}

FwProject *
fw_graph_view_get_project (FwGraphView *self)
{
  g_return_val_if_fail (FW_IS_GRAPH_VIEW (self), NULL);
  return self->project;
}

void
fw_graph_view_set_plan (FwGraphView *self, FwPlan *plan)
{
  g_return_if_fail (FW_IS_GRAPH_VIEW (self));
  self->plan = plan;
  on_plan_changed (self);
}

void
fw_graph_view_set_overlay (FwGraphView *self, FwGraphOverlay overlay)
{
  g_return_if_fail (FW_IS_GRAPH_VIEW (self));
  if (self->overlay == overlay)
    return;
  self->overlay = overlay;
  fw_graph_view_build_overlay (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), fw_graph_view_properties[PROP_OVERLAY]);
}

FwGraphOverlay
fw_graph_view_get_overlay (FwGraphView *self)
{
  g_return_val_if_fail (FW_IS_GRAPH_VIEW (self), FW_GRAPH_OVERLAY_OP_CLASS);
  return self->overlay;
}

const FwGraphLegend *
fw_graph_view_get_legend (FwGraphView *self)
{
  g_return_val_if_fail (FW_IS_GRAPH_VIEW (self), NULL);
  return &self->legend;
}

guint
fw_graph_view_get_box_category (FwGraphView *self, guint box)
{
  g_return_val_if_fail (FW_IS_GRAPH_VIEW (self), 0);
  return self->overlay_class != NULL && box < self->n_boxes ? self->overlay_class[box] : 0;
}

char *
fw_graph_view_get_box_text (FwGraphView *self, guint b)
{
  const FwLayoutBox *box;

  g_return_val_if_fail (FW_IS_GRAPH_VIEW (self), NULL);
  g_return_val_if_fail (b < self->n_boxes, NULL);
  box = fw_layout_get_box (self->layout, b);
  if (box->kind == FW_LAYOUT_BOX_SCOPE)
    return fw_scope_label (box, self->scope_saving != NULL ? self->scope_saving[b] : 0);
  return g_utf8_make_valid (box->label ? box->label : "", -1);
}

void
fw_graph_view_select_candidate (FwGraphView *self, guint candidate)
{
  const Hull *hull;

  g_return_if_fail (FW_IS_GRAPH_VIEW (self));
  fw_graph_view_set_selected_candidate (self, candidate);
  hull = candidate != G_MAXUINT ? fw_graph_view_find_hull (self, candidate) : NULL;
  if (hull != NULL)
    fw_graph_view_frame_rect (self, hull->x0 - 20, hull->y0 - 20, hull->x1 + 20, hull->y1 + 20, 1.5);
}

guint
fw_graph_view_get_selected_candidate (FwGraphView *self)
{
  g_return_val_if_fail (FW_IS_GRAPH_VIEW (self), G_MAXUINT);
  return self->selected_candidate;
}

FwNode *
fw_graph_view_get_range_node (FwGraphView *self)
{
  g_return_val_if_fail (FW_IS_GRAPH_VIEW (self), NULL);
  if (self->range_box == G_MAXUINT)
    return NULL;
  return fw_layout_get_box (self->layout, self->range_box)->node;
}

const char *
fw_graph_view_get_selected_scope (FwGraphView *self)
{
  const FwLayoutBox *box;

  g_return_val_if_fail (FW_IS_GRAPH_VIEW (self), NULL);
  if (self->selected_box == G_MAXUINT)
    return NULL;
  box = fw_layout_get_box (self->layout, self->selected_box);
  return box->kind == FW_LAYOUT_BOX_SCOPE ? box->scope : NULL;
}

FwNode *
fw_graph_view_get_selected_node (FwGraphView *self)
{
  g_return_val_if_fail (FW_IS_GRAPH_VIEW (self), NULL);
  if (self->selected_box == G_MAXUINT)
    return NULL;
  return fw_layout_get_box (self->layout, self->selected_box)->node;
}
