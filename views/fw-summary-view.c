/* fw-summary-view.c: the summary bar chart as a widget, drawn by core (fw_summary_draw) into the snapshot's
 * cairo node from a snapshot of the plan's totals rebuilt on "plan-changed". */
#include "config.h"

#include <glib/gi18n.h>

#include "fw-summary-view.h"
#include "fw-chart-snapshot-private.h"

#define MIN_WIDTH       360
#define MIN_HEIGHT      220
#define NATURAL_WIDTH   640
#define NATURAL_HEIGHT  360

struct _FwSummaryView
{
  GtkWidget        parent_instance;

  FwProject       *project;
  gulong           plan_changed_id;
  FwRooflineData  *data;
};

enum {
  PROP_0,
  PROP_PROJECT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (FwSummaryView, fw_summary_view, GTK_TYPE_WIDGET)

static void
on_plan_changed (FwSummaryView *self)
{
  FwPlan *plan = self->project ? fw_project_get_plan (self->project) : NULL;

  g_clear_pointer (&self->data, fw_roofline_data_free);
  if (plan != NULL)
    self->data = fw_roofline_data_new (plan);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* GtkWidget */

static void
fw_summary_view_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  FwSummaryView *self = FW_SUMMARY_VIEW (widget);

  fw_chart_snapshot (widget, snapshot, fw_summary_draw, self->data, G_MAXUINT);
}

static void
fw_summary_view_measure (GtkWidget *widget, GtkOrientation orientation, int for_size, int *minimum,
                         int *natural, int *minimum_baseline, int *natural_baseline)
{
  gboolean horizontal = orientation == GTK_ORIENTATION_HORIZONTAL;

  *minimum = horizontal ? MIN_WIDTH : MIN_HEIGHT;
  *natural = horizontal ? NATURAL_WIDTH : NATURAL_HEIGHT;
}

static void
fw_summary_view_css_changed (GtkWidget *widget, GtkCssStyleChange *change)
{
  GTK_WIDGET_CLASS (fw_summary_view_parent_class)->css_changed (widget, change);
  /* A theme switch changes the text colour, and with it the chart's light or dark look. */
  gtk_widget_queue_draw (widget);
}

/* GObject */

static void
fw_summary_view_dispose (GObject *object)
{
  FwSummaryView *self = FW_SUMMARY_VIEW (object);

  if (self->project != NULL)
    g_clear_signal_handler (&self->plan_changed_id, self->project);
  g_clear_object (&self->project);
  g_clear_pointer (&self->data, fw_roofline_data_free);
  G_OBJECT_CLASS (fw_summary_view_parent_class)->dispose (object);
}

static void
fw_summary_view_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  FwSummaryView *self = FW_SUMMARY_VIEW (object);

  switch (prop_id)
    {
    case PROP_PROJECT:
      g_value_set_object (value, self->project);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
fw_summary_view_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  FwSummaryView *self = FW_SUMMARY_VIEW (object);

  switch (prop_id)
    {
    case PROP_PROJECT:
      fw_summary_view_set_project (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
fw_summary_view_class_init (FwSummaryViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = fw_summary_view_dispose;
  object_class->get_property = fw_summary_view_get_property;
  object_class->set_property = fw_summary_view_set_property;
  widget_class->snapshot = fw_summary_view_snapshot;
  widget_class->measure = fw_summary_view_measure;
  widget_class->css_changed = fw_summary_view_css_changed;

  properties[PROP_PROJECT] =
    g_param_spec_object ("project", NULL, NULL, FW_TYPE_PROJECT,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_css_name (widget_class, "fwsummaryview");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
fw_summary_view_init (FwSummaryView *self)
{
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Kernels, HBM traffic and estimated time before and after fusion"), -1);
}

/* Public API */

GtkWidget *
fw_summary_view_new (void)
{
  return g_object_new (FW_TYPE_SUMMARY_VIEW, NULL);
}

void
fw_summary_view_set_project (FwSummaryView *self, FwProject *project)
{
  g_return_if_fail (FW_IS_SUMMARY_VIEW (self));
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
fw_summary_view_get_project (FwSummaryView *self)
{
  g_return_val_if_fail (FW_IS_SUMMARY_VIEW (self), NULL);
  return self->project;
}

const FwRooflineData *
fw_summary_view_get_data (FwSummaryView *self)
{
  g_return_val_if_fail (FW_IS_SUMMARY_VIEW (self), NULL);
  return self->data;
}
