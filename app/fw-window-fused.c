/* fw-window-fused.c: the fused view, the plan after fusion: the same graph laid out with every proposed or
 * accepted group as one collapsed box of its own ("fused_3_epilogue (7) · −48.1 µs"), toggled from the
 * header; it is laid out again in a thread when the plan changes, and the selected fusion stays framed
 * across the toggle. */
#include "config.h"

#include "fw-window-private.h"
#include "plan/fw-group-namespace.h"

static void
show_layout (FwWindow *self, FwLayout *layout)
{
  guint candidate = fw_graph_view_get_selected_candidate (self->graph_view);

  fw_graph_view_set_layout (self->graph_view, layout);
  /* Synchronised: the fusion selected before is framed in the other drawing. */
  if (candidate != G_MAXUINT)
    fw_graph_view_select_candidate (self->graph_view, candidate);
}

static void
on_fused_computed (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(FwWindow) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!fw_layout_compute_finish (FW_LAYOUT (object), result, &error) || self->fused_layout != FW_LAYOUT (object))
    return;
  g_clear_object (&self->fused_cancellable);
  if (self->fused_button != NULL && gtk_toggle_button_get_active (self->fused_button))
    show_layout (self, self->fused_layout);
}

static void
lay_out_fused (FwWindow *self)
{
  g_autoptr(GHashTable) namespaces = NULL;
  FwLayoutOptions options;

  if (self->fused_cancellable != NULL)
    g_cancellable_cancel (self->fused_cancellable);
  g_clear_object (&self->fused_cancellable);
  g_clear_object (&self->fused_layout);
  if (self->project == NULL)
    return;
  namespaces = fw_plan_group_namespaces (fw_project_get_plan (self->project));
  fw_layout_options_init (&options);
  options.fold_weight_copies = g_settings_get_boolean (self->settings, "fold-weight-copies");
  options.scope_override = namespaces;
  self->fused_layout = fw_layout_new (fw_model_get_graph (fw_project_get_model (self->project)), &options);
  self->fused_cancellable = g_cancellable_new ();
  fw_layout_compute_async (self->fused_layout, self->fused_cancellable, on_fused_computed, g_object_ref (self));
}

void
fw_window_set_fused_view (FwWindow *self, gboolean fused)
{
  if (self->fused_button != NULL && gtk_toggle_button_get_active (self->fused_button) != fused)
    {
      /* Comes back here through "toggled". */
      gtk_toggle_button_set_active (self->fused_button, fused);
      return;
    }
  if (!fused)
    {
      if (self->fused_cancellable != NULL)
        g_cancellable_cancel (self->fused_cancellable);
      g_clear_object (&self->fused_cancellable);
      if (self->layout != NULL && fw_graph_view_get_layout (self->graph_view) != self->layout)
        show_layout (self, self->layout);
      g_clear_object (&self->fused_layout);
      return;
    }
  lay_out_fused (self);
}

gboolean
fw_window_get_fused_view_ready (FwWindow *self)
{
  return self->fused_layout != NULL && self->fused_cancellable == NULL &&
         fw_graph_view_get_layout (self->graph_view) == self->fused_layout;
}

void
fw_window_fused_plan_changed (FwWindow *self)
{
  if (self->fused_button != NULL && gtk_toggle_button_get_active (self->fused_button))
    lay_out_fused (self);
}

void
fw_window_fused_dispose (FwWindow *self)
{
  if (self->fused_cancellable != NULL)
    g_cancellable_cancel (self->fused_cancellable);
  g_clear_object (&self->fused_cancellable);
  g_clear_object (&self->fused_layout);
}
