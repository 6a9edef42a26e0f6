/* fw-graph-view-input.c: FwGraphView's pointer, touch and keyboard input: hover with its tooltip, clicks that
 * select a node or a candidate or open a scope, dragging, scrolling and pinching, the zoom keys. */
#include "config.h"

#include <math.h>

#include <glib/gi18n.h>

#include "fw-graph-view-private.h"
#include "plan/fw-node-refusal.h"

/* Selection and events */

void
fw_graph_view_select_box (FwGraphView *self, guint b, gboolean emit)
{
  const FwLayoutBox *box = b != G_MAXUINT ? fw_layout_get_box (self->layout, b) : NULL;

  self->selected_box = b;
  self->range_box = G_MAXUINT;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  if (emit)
    g_signal_emit (self, fw_graph_view_signals[NODE_SELECTED], 0, box != NULL ? (gpointer) box->node : NULL);
}

void
fw_graph_view_set_selected_candidate (FwGraphView *self, guint candidate)
{
  if (self->selected_candidate == candidate)
    return;
  self->selected_candidate = candidate;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), fw_graph_view_properties[PROP_SELECTED_CANDIDATE]);
}

/* Which fusion holds node, or the refusals that kept it out of one. */
static void
append_fusion (FwGraphView *self, GString *s, const FwNode *node)
{
  FwPlan *plan = fw_graph_view_current_plan (self);
  g_autofree char *why = NULL;
  guint c;

  if (plan == NULL)
    return;
  c = fw_plan_fused_candidate_of (plan, node);
  if (c != G_MAXUINT)
    {
      g_string_append_c (s, '\n');
      /* Translators: the fusion a node is in: the candidate's number and pattern. */
      g_string_append_printf (s, _("Fused in candidate #%u (%s)"), c,
                              ((FwCandidate *) g_ptr_array_index (plan->candidates, c))->pattern);
      return;
    }
  why = fw_plan_describe_unfused (plan, node, 3);
  if (why != NULL)
    g_string_append_printf (s, "\n%s\n%s", _("Not fused:"), why);
}

static char *
tooltip_text (FwGraphView *self, guint b)
{
  const FwLayoutBox *box = fw_layout_get_box (self->layout, b);
  g_autoptr(GString) s = g_string_new (NULL);
  const FwNode *node = box->node;

  if (box->kind == FW_LAYOUT_BOX_SCOPE || node == NULL)
    {
      g_string_append_printf (s, ngettext ("%s: %u node (double-click to open)",
                                           "%s: %u nodes (double-click to open)", box->n_nodes),
                              box->scope, box->n_nodes);
      return g_utf8_make_valid (s->str, -1);
    }
  g_string_append_printf (s, "%s  %s", fw_node_get_op_type (node), fw_node_get_name (node));
  for (guint i = 0; i < fw_node_get_n_outputs (node); i++)
    {
      const FwValue *output = fw_node_get_output (node, i);
      g_autofree char *shape = NULL;

      if (output == NULL)
        continue;
      shape = fw_value_format_shape (output);
      g_string_append_c (s, '\n');
      /* Translators: an output of a node: its name, shape and element type. */
      g_string_append_printf (s, _("%s: %s %s"), fw_value_get_name (output), shape,
                              fw_dtype_name (fw_value_get_dtype (output)));
    }
  append_fusion (self, s, node);
  return g_utf8_make_valid (s->str, -1);
}

static void
hover (FwGraphView *self, gdouble x, gdouble y)
{
  guint b = G_MAXUINT;

  self->pointer_x = x;
  self->pointer_y = y;
  if (self->layout != NULL && self->n_boxes > 0)
    b = fw_layout_hit_test (self->layout, self->origin_x + x / self->zoom, self->origin_y + y / self->zoom);
  if (b == self->hover_box)
    return;
  self->hover_box = b;
  if (b == G_MAXUINT)
    gtk_widget_set_tooltip_text (GTK_WIDGET (self), NULL);
  else
    {
      g_autofree char *text = tooltip_text (self, b);
      gtk_widget_set_tooltip_text (GTK_WIDGET (self), text);
    }
  if (self->zoom * self->box_h >= FULL_DETAIL_PX)
    gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
on_motion (GtkEventControllerMotion *motion, gdouble x, gdouble y, FwGraphView *self)
{
  hover (self, x, y);
}

static void
on_leave (GtkEventControllerMotion *motion, FwGraphView *self)
{
  self->hover_box = G_MAXUINT;
  gtk_widget_set_tooltip_text (GTK_WIDGET (self), NULL);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
on_compute_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(FwGraphView) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!fw_layout_compute_finish (FW_LAYOUT (source), result, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_warning ("Layout failed: %s", error->message);
      return;
    }
  if (FW_LAYOUT (source) != self->layout)
    return;
  fw_graph_view_build_index (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* Opens a collapsed scope; the new drawing replaces the old one only when its compute finishes. */
static void
expand_scope (FwGraphView *self, guint b)
{
  const FwLayoutBox *box = fw_layout_get_box (self->layout, b);

  if (box->kind != FW_LAYOUT_BOX_SCOPE || !fw_layout_set_expanded (self->layout, box->scope, TRUE))
    return;
  g_cancellable_cancel (self->compute_cancellable);
  g_clear_object (&self->compute_cancellable);
  self->compute_cancellable = g_cancellable_new ();
  fw_layout_compute_async (self->layout, self->compute_cancellable, on_compute_done, g_object_ref (self));
}

/* Shift+click on a node box with a node selected: the range of kernels between the two (a SuperKernel scope
 * to make, fw_graph_view_get_range_node). */
static gboolean
extend_to (FwGraphView *self, guint b)
{
  if (self->selected_box == G_MAXUINT || b == self->selected_box ||
      fw_layout_get_box (self->layout, b)->kind == FW_LAYOUT_BOX_SCOPE ||
      fw_layout_get_box (self->layout, self->selected_box)->kind == FW_LAYOUT_BOX_SCOPE)
    return FALSE;
  self->range_box = b;
  gtk_widget_queue_draw (GTK_WIDGET (self));
  return TRUE;
}

/* A click at widget point (x, y): a box selects its node (Shift: extends the selection to it), otherwise a
 * hull its candidate. */
static void
click_at (FwGraphView *self, gint n_press, gdouble x, gdouble y, gboolean extend)
{
  gdouble lx = self->origin_x + x / self->zoom, ly = self->origin_y + y / self->zoom;
  guint b, c;

  if (self->layout == NULL || self->n_boxes == 0)
    return;
  if (fw_graph_view_in_minimap (self, x, y))
    {
      fw_graph_view_minimap_jump (self, x, y);
      return;
    }
  b = fw_layout_hit_test (self->layout, lx, ly);
  if (b != G_MAXUINT)
    {
      if (n_press == 2)
        expand_scope (self, b);
      else if (!extend || !extend_to (self, b))
        fw_graph_view_select_box (self, b, TRUE);
      return;
    }
  c = fw_graph_view_hull_at (self, lx, ly);
  if (c != G_MAXUINT)
    {
      fw_graph_view_set_selected_candidate (self, c);
      g_signal_emit (self, fw_graph_view_signals[CANDIDATE_SELECTED], 0, c);
      return;
    }
  if (self->selected_box != G_MAXUINT)
    fw_graph_view_select_box (self, G_MAXUINT, TRUE);
}

static void
on_click_released (GtkGestureClick *gesture, gint n_press, gdouble x, gdouble y, FwGraphView *self)
{
  GdkModifierType state = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (gesture));

  gtk_widget_grab_focus (GTK_WIDGET (self));
  click_at (self, n_press, x, y, (state & GDK_SHIFT_MASK) != 0);
}

static void
on_drag_begin (GtkGestureDrag *gesture, gdouble x, gdouble y, FwGraphView *self)
{
  self->drag_origin_x = self->origin_x;
  self->drag_origin_y = self->origin_y;
  self->drag_in_minimap = fw_graph_view_in_minimap (self, x, y);
}

static void
on_drag_update (GtkGestureDrag *gesture, gdouble dx, gdouble dy, FwGraphView *self)
{
  if (self->drag_in_minimap)
    {
      gdouble sx, sy;

      gtk_gesture_drag_get_start_point (gesture, &sx, &sy);
      fw_graph_view_minimap_jump (self, sx + dx, sy + dy);
      return;
    }
  fw_graph_view_set_view (self, self->zoom, self->drag_origin_x - dx / self->zoom, self->drag_origin_y - dy / self->zoom);
}

static gboolean
on_scroll (GtkEventControllerScroll *scroll, gdouble dx, gdouble dy, FwGraphView *self)
{
  GdkModifierType state = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (scroll));
  gdouble step = gtk_event_controller_scroll_get_unit (scroll) == GDK_SCROLL_UNIT_WHEEL ? 48.0 : 1.0;

  if (state & GDK_CONTROL_MASK)
    {
      fw_graph_view_zoom_around (self, self->zoom * pow (1.15, -dy * (step > 1 ? 1 : 0.1)), self->pointer_x, self->pointer_y);
      return TRUE;
    }
  if (state & GDK_SHIFT_MASK && dx == 0)
    {
      dx = dy;
      dy = 0;
    }
  fw_graph_view_set_view (self, self->zoom, self->origin_x + dx * step / self->zoom, self->origin_y + dy * step / self->zoom);
  return TRUE;
}

static void
on_zoom_begin (GtkGesture *gesture, GdkEventSequence *sequence, FwGraphView *self)
{
  self->pinch_zoom = self->zoom;
}

static void
on_zoom_scale_changed (GtkGestureZoom *gesture, gdouble scale, FwGraphView *self)
{
  gdouble cx, cy;

  if (!gtk_gesture_get_bounding_box_center (GTK_GESTURE (gesture), &cx, &cy))
    {
      cx = gtk_widget_get_width (GTK_WIDGET (self)) / 2.0;
      cy = gtk_widget_get_height (GTK_WIDGET (self)) / 2.0;
    }
  fw_graph_view_zoom_around (self, self->pinch_zoom * scale, cx, cy);
}

static gboolean
zoom_key (GtkWidget *widget, GVariant *args, gpointer user_data)
{
  FwGraphView *self = FW_GRAPH_VIEW (widget);
  gint what = g_variant_get_int32 (args);
  gdouble cx = gtk_widget_get_width (widget) / 2.0, cy = gtk_widget_get_height (widget) / 2.0;

  if (what == 0)
    fw_graph_view_zoom_to_fit (self);
  else
    fw_graph_view_zoom_around (self, self->zoom * (what > 0 ? 1.25 : 0.8), cx, cy);
  return TRUE;
}

void
fw_graph_view_add_bindings (GtkWidgetClass *widget_class)
{
  gtk_widget_class_add_binding (widget_class, GDK_KEY_plus, 0, zoom_key, "i", 1);
  gtk_widget_class_add_binding (widget_class, GDK_KEY_plus, GDK_SHIFT_MASK, zoom_key, "i", 1);
  gtk_widget_class_add_binding (widget_class, GDK_KEY_equal, 0, zoom_key, "i", 1);
  gtk_widget_class_add_binding (widget_class, GDK_KEY_KP_Add, 0, zoom_key, "i", 1);
  gtk_widget_class_add_binding (widget_class, GDK_KEY_minus, 0, zoom_key, "i", -1);
  gtk_widget_class_add_binding (widget_class, GDK_KEY_KP_Subtract, 0, zoom_key, "i", -1);
  gtk_widget_class_add_binding (widget_class, GDK_KEY_0, 0, zoom_key, "i", 0);
  gtk_widget_class_add_binding (widget_class, GDK_KEY_KP_0, 0, zoom_key, "i", 0);
}

void
fw_graph_view_add_controllers (FwGraphView *self)
{
  GtkEventController *controller;
  GtkGesture *gesture;

  controller = gtk_event_controller_motion_new ();
  g_signal_connect (controller, "motion", G_CALLBACK (on_motion), self);
  g_signal_connect (controller, "leave", G_CALLBACK (on_leave), self);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);

  gesture = gtk_gesture_click_new ();
  g_signal_connect (gesture, "released", G_CALLBACK (on_click_released), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  gesture = gtk_gesture_drag_new ();
  g_signal_connect (gesture, "drag-begin", G_CALLBACK (on_drag_begin), self);
  g_signal_connect (gesture, "drag-update", G_CALLBACK (on_drag_update), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  controller = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);
  g_signal_connect (controller, "scroll", G_CALLBACK (on_scroll), self);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);

  gesture = gtk_gesture_zoom_new ();
  g_signal_connect (gesture, "begin", G_CALLBACK (on_zoom_begin), self);
  g_signal_connect (gesture, "scale-changed", G_CALLBACK (on_zoom_scale_changed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));
}

/* For tests: the pointer moving to widget point (x, y), as the motion controller would report it. */
void
fw_graph_view_hover (FwGraphView *self, gdouble x, gdouble y)
{
  g_return_if_fail (FW_IS_GRAPH_VIEW (self));
  hover (self, x, y);
}

/* For tests: the widget-relative handling of a click, as the click gesture would run it. */
void
fw_graph_view_click (FwGraphView *self, gint n_press, gdouble x, gdouble y)
{
  g_return_if_fail (FW_IS_GRAPH_VIEW (self));
  click_at (self, n_press, x, y, FALSE);
}

void
fw_graph_view_shift_click (FwGraphView *self, gdouble x, gdouble y)
{
  g_return_if_fail (FW_IS_GRAPH_VIEW (self));
  click_at (self, 1, x, y, TRUE);
}

gboolean
fw_graph_view_select_range (FwGraphView *self, const FwNode *first, const FwNode *last)
{
  guint a, b;

  g_return_val_if_fail (FW_IS_GRAPH_VIEW (self), FALSE);
  if (self->layout == NULL || self->n_boxes == 0)
    return FALSE;
  a = fw_layout_find_node (self->layout, first);
  b = fw_layout_find_node (self->layout, last);
  if (a == G_MAXUINT || b == G_MAXUINT)
    return FALSE;
  fw_graph_view_select_box (self, a, TRUE);
  return extend_to (self, b);
}
