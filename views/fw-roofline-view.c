/* fw-roofline-view.c: the roofline chart as a widget.
 *
 * The chart is drawn by core (fw_roofline_draw) into the snapshot's cairo node, and clicks and the pointer
 * go through the same core hit test, so the widget, a saved picture and the tests agree on where every
 * candidate is. The data is a snapshot of the plan rebuilt on "plan-changed": an undo rebuilds the plan and
 * its candidates, and nothing here may keep pointers into it. */
#include "config.h"

#include <glib/gi18n.h>

#include "fw-roofline-view.h"
#include "fw-chart-snapshot-private.h"

#define MIN_WIDTH       320
#define MIN_HEIGHT      240
#define NATURAL_WIDTH   720
#define NATURAL_HEIGHT  480

struct _FwRooflineView
{
  GtkWidget        parent_instance;

  FwProject       *project;
  gulong           plan_changed_id;
  FwRooflineData  *data;
  guint            selected_candidate;
  guint            hover_candidate;
};

enum {
  PROP_0,
  PROP_PROJECT,
  PROP_SELECTED_CANDIDATE,
  N_PROPS
};

enum {
  CANDIDATE_SELECTED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (FwRooflineView, fw_roofline_view, GTK_TYPE_WIDGET)

static void
set_hover (FwRooflineView *self, guint candidate)
{
  const FwRooflinePoint *point;

  if (self->hover_candidate == candidate)
    return;
  self->hover_candidate = candidate;
  point = candidate != G_MAXUINT && self->data ? fw_roofline_data_find (self->data, candidate) : NULL;
  if (point == NULL)
    {
      gtk_widget_set_tooltip_text (GTK_WIDGET (self), NULL);
      gtk_widget_set_cursor (GTK_WIDGET (self), NULL);
    }
  else
    {
      g_autofree char *text = fw_roofline_point_describe (point);
      gtk_widget_set_tooltip_text (GTK_WIDGET (self), text);
      gtk_widget_set_cursor_from_name (GTK_WIDGET (self), "pointer");
    }
}

static guint
candidate_at (FwRooflineView *self, gdouble x, gdouble y)
{
  if (self->data == NULL)
    return G_MAXUINT;
  return fw_roofline_hit (self->data, gtk_widget_get_width (GTK_WIDGET (self)),
                          gtk_widget_get_height (GTK_WIDGET (self)), x, y);
}

static void
on_plan_changed (FwRooflineView *self)
{
  FwPlan *plan = self->project ? fw_project_get_plan (self->project) : NULL;

  g_clear_pointer (&self->data, fw_roofline_data_free);
  if (plan != NULL)
    self->data = fw_roofline_data_new (plan);
  /* The figures under the pointer may have changed: describe them afresh on the next motion. */
  self->hover_candidate = G_MAXUINT;
  gtk_widget_set_tooltip_text (GTK_WIDGET (self), NULL);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
on_motion (GtkEventControllerMotion *motion, gdouble x, gdouble y, FwRooflineView *self)
{
  set_hover (self, candidate_at (self, x, y));
}

static void
on_leave (GtkEventControllerMotion *motion, FwRooflineView *self)
{
  set_hover (self, G_MAXUINT);
}

static void
on_click_released (GtkGestureClick *gesture, gint n_press, gdouble x, gdouble y, FwRooflineView *self)
{
  fw_roofline_view_click (self, x, y);
}

/* GtkWidget */

static void
fw_roofline_view_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  FwRooflineView *self = FW_ROOFLINE_VIEW (widget);

  fw_chart_snapshot (widget, snapshot, fw_roofline_draw, self->data, self->selected_candidate);
}

static void
fw_roofline_view_measure (GtkWidget *widget, GtkOrientation orientation, int for_size, int *minimum,
                          int *natural, int *minimum_baseline, int *natural_baseline)
{
  gboolean horizontal = orientation == GTK_ORIENTATION_HORIZONTAL;

  *minimum = horizontal ? MIN_WIDTH : MIN_HEIGHT;
  *natural = horizontal ? NATURAL_WIDTH : NATURAL_HEIGHT;
}

static void
fw_roofline_view_css_changed (GtkWidget *widget, GtkCssStyleChange *change)
{
  GTK_WIDGET_CLASS (fw_roofline_view_parent_class)->css_changed (widget, change);
  /* A theme switch changes the text colour, and with it the chart's light or dark look. */
  gtk_widget_queue_draw (widget);
}

/* GObject */

static void
fw_roofline_view_dispose (GObject *object)
{
  FwRooflineView *self = FW_ROOFLINE_VIEW (object);

  if (self->project != NULL)
    g_clear_signal_handler (&self->plan_changed_id, self->project);
  g_clear_object (&self->project);
  g_clear_pointer (&self->data, fw_roofline_data_free);
  G_OBJECT_CLASS (fw_roofline_view_parent_class)->dispose (object);
}

static void
fw_roofline_view_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  FwRooflineView *self = FW_ROOFLINE_VIEW (object);

  switch (prop_id)
    {
    case PROP_PROJECT:
      g_value_set_object (value, self->project);
      break;
    case PROP_SELECTED_CANDIDATE:
      g_value_set_uint (value, self->selected_candidate);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
fw_roofline_view_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  FwRooflineView *self = FW_ROOFLINE_VIEW (object);

  switch (prop_id)
    {
    case PROP_PROJECT:
      fw_roofline_view_set_project (self, g_value_get_object (value));
      break;
    case PROP_SELECTED_CANDIDATE:
      fw_roofline_view_set_selected_candidate (self, g_value_get_uint (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
fw_roofline_view_class_init (FwRooflineViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = fw_roofline_view_dispose;
  object_class->get_property = fw_roofline_view_get_property;
  object_class->set_property = fw_roofline_view_set_property;
  widget_class->snapshot = fw_roofline_view_snapshot;
  widget_class->measure = fw_roofline_view_measure;
  widget_class->css_changed = fw_roofline_view_css_changed;

  properties[PROP_PROJECT] =
    g_param_spec_object ("project", NULL, NULL, FW_TYPE_PROJECT,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SELECTED_CANDIDATE] =
    g_param_spec_uint ("selected-candidate", NULL, NULL, 0, G_MAXUINT, G_MAXUINT,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[CANDIDATE_SELECTED] =
    g_signal_new ("candidate-selected", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_UINT);

  gtk_widget_class_set_css_name (widget_class, "fwrooflineview");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
fw_roofline_view_init (FwRooflineView *self)
{
  GtkEventController *controller;
  GtkGesture *gesture;

  self->selected_candidate = G_MAXUINT;
  self->hover_candidate = G_MAXUINT;
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Roofline of the fusion candidates"), -1);

  controller = gtk_event_controller_motion_new ();
  g_signal_connect (controller, "motion", G_CALLBACK (on_motion), self);
  g_signal_connect (controller, "leave", G_CALLBACK (on_leave), self);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);

  gesture = gtk_gesture_click_new ();
  g_signal_connect (gesture, "released", G_CALLBACK (on_click_released), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));
}

/* Public API */

GtkWidget *
fw_roofline_view_new (void)
{
  return g_object_new (FW_TYPE_ROOFLINE_VIEW, NULL);
}

void
fw_roofline_view_set_project (FwRooflineView *self, FwProject *project)
{
  g_return_if_fail (FW_IS_ROOFLINE_VIEW (self));
  g_return_if_fail (project == NULL || FW_IS_PROJECT (project));

  if (self->project == project)
    return;
  if (self->project != NULL)
    g_clear_signal_handler (&self->plan_changed_id, self->project);
  g_set_object (&self->project, project);
  if (project != NULL)
    self->plan_changed_id = g_signal_connect_swapped (project, "plan-changed", G_CALLBACK (on_plan_changed), self);
  on_plan_changed (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROJECT]);
}

FwProject *
fw_roofline_view_get_project (FwRooflineView *self)
{
  g_return_val_if_fail (FW_IS_ROOFLINE_VIEW (self), NULL);
  return self->project;
}

void
fw_roofline_view_set_selected_candidate (FwRooflineView *self, guint candidate)
{
  g_return_if_fail (FW_IS_ROOFLINE_VIEW (self));

  if (self->selected_candidate == candidate)
    return;
  self->selected_candidate = candidate;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SELECTED_CANDIDATE]);
}

guint
fw_roofline_view_get_selected_candidate (FwRooflineView *self)
{
  g_return_val_if_fail (FW_IS_ROOFLINE_VIEW (self), G_MAXUINT);
  return self->selected_candidate;
}

const FwRooflineData *
fw_roofline_view_get_data (FwRooflineView *self)
{
  g_return_val_if_fail (FW_IS_ROOFLINE_VIEW (self), NULL);
  return self->data;
}

void
fw_roofline_view_click (FwRooflineView *self, gdouble x, gdouble y)
{
  guint candidate;

  g_return_if_fail (FW_IS_ROOFLINE_VIEW (self));

  candidate = candidate_at (self, x, y);
  if (candidate == G_MAXUINT)
    return;
  fw_roofline_view_set_selected_candidate (self, candidate);
  g_signal_emit (self, signals[CANDIDATE_SELECTED], 0, candidate);
}
