/* fw-window-superkernel.c: the user's SuperKernel scopes from the window (win.make-superkernel,
 * win.remove-superkernel and the SuperKernels page): a collapsed name scope, or a range of kernels (click the
 * first, Shift+click the last), made a scope by a project decision (fw_project_make_superkernel), which the
 * overlay, the list, the report and the generators all read from the plan. */
#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "fw-window-private.h"
#include "fw-error.h"
#include "layout/fw-layout.h"

/* A name scope is its own name (made twice, the decision says it exists); a range has none of its own:
 * "user_000", "user_001"…, the first free. */
static char *
free_name (FwPlan *plan, const char *wanted)
{
  g_autoptr(GPtrArray) scopes = fw_plan_get_user_scopes (plan);

  if (wanted != NULL)
    return g_strdup (wanted);
  for (guint i = 0;; i++)
    {
      g_autofree char *name = g_strdup_printf ("user_%03u", i);

      if (fw_sk_user_scopes_find (scopes, name) == G_MAXUINT)
        return g_steal_pointer (&name);
    }
}

static gboolean
under_prefix (const char *name, const char *prefix)
{
  gsize n = strlen (prefix);

  return strncmp (name, prefix, n) == 0 && (name[n] == '\0' || name[n] == '/');
}

/* The collapsed scope at path as a user scope: its name-scope prefix when every node drawn inside the box is
 * under it (the layout's paths drop the names' leading '/'), else the nodes themselves. */
static FwSkUserScope *
scope_of_box (FwWindow *self, const char *path, GError **error)
{
  FwLayout *layout = fw_graph_view_get_layout (self->graph_view);
  FwGraph *graph = fw_layout_get_graph (layout);
  g_autoptr(GPtrArray) names = g_ptr_array_new ();
  g_autofree char *prefix = NULL;
  gboolean all = TRUE;

  for (guint i = 0; i < graph->nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (graph->nodes, i);
      guint b = fw_layout_find_node (layout, node);
      const FwLayoutBox *box = b != G_MAXUINT ? fw_layout_get_box (layout, b) : NULL;

      if (box == NULL || box->kind != FW_LAYOUT_BOX_SCOPE || g_strcmp0 (box->scope, path) != 0)
        continue;
      if (prefix == NULL)
        prefix = g_strdup_printf ("%.*s%s", (int) strspn (node->name, "/"), node->name, path);
      all = all && under_prefix (node->name, prefix);
      g_ptr_array_add (names, (gpointer) node->name);
    }
  if (names->len == 0)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_USAGE, _("the scope %s holds no node"), path);
      return NULL;
    }
  if (all)
    return fw_sk_user_scope_new (prefix, prefix, NULL);
  g_ptr_array_add (names, NULL);
  return fw_sk_user_scope_new (path, NULL, (const char * const *) names->pdata);
}

static FwSkUserScope *
scope_of_selection (FwWindow *self, GError **error)
{
  FwPlan *plan = fw_project_get_plan (self->project);
  const char *path = fw_graph_view_get_selected_scope (self->graph_view);
  FwNode *first = fw_graph_view_get_selected_node (self->graph_view);
  FwNode *last = fw_graph_view_get_range_node (self->graph_view);
  g_auto(GStrv) nodes = NULL;
  guint n_kernels = 0;

  if (fw_window_get_fused_view_ready (self))
    {
      g_set_error (error, FW_ERROR, FW_ERROR_USAGE, "%s",
                   _("SuperKernel scopes are chosen on the graph as it is: switch the Fused view off first"));
      return NULL;
    }
  if (path != NULL)
    return scope_of_box (self, path, error);
  if (first == NULL || last == NULL)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_USAGE, "%s",
                   _("Select what to bind into one launch: a collapsed name scope, or click the first kernel and "
                     "Shift+click the last"));
      return NULL;
    }
  nodes = fw_sk_plan_range_nodes (plan, first, last, &n_kernels, error);
  if (nodes == NULL)
    return NULL;
  if (n_kernels < 2)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_USAGE, "%s",
                   _("The range holds one kernel, which is one launch already: Shift+click a kernel further on"));
      return NULL;
    }
  return fw_sk_user_scope_new (NULL, NULL, (const char * const *) nodes);
}

gboolean
fw_window_make_superkernel (FwWindow *self, char **name, GError **error)
{
  g_autoptr(FwSkUserScope) scope = NULL;
  FwPlan *plan;

  if (self->project == NULL)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_USAGE, "%s", _("Open a model first"));
      return FALSE;
    }
  plan = fw_project_get_plan (self->project);
  scope = scope_of_selection (self, error);
  if (scope == NULL)
    return FALSE;
  {
    g_autofree char *wanted = scope->name;

    scope->name = free_name (plan, wanted);
  }
  if (!fw_project_make_superkernel (self->project, scope, error))
    return FALSE;
  /* Show what was made: the list with the new one in it, and so the scopes in their colours. */
  gtk_stack_set_visible_child_name (self->side_stack, "superkernels");
  gtk_drop_down_set_selected (self->overlay_dropdown, FW_GRAPH_OVERLAY_SUPERKERNEL);
  if (name != NULL)
    *name = g_strdup (scope->name);
  return TRUE;
}

gboolean
fw_window_remove_superkernel (FwWindow *self, const char *name, GError **error)
{
  if (self->project == NULL)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_USAGE, "%s", _("Open a model first"));
      return FALSE;
    }
  return fw_project_remove_superkernel (self->project, name, error);
}

/* A row of the list: its scope's first and last kernel selected in the graph, a range ready to make again. */
static void
on_scope_activated (FwWindow *self, guint index, FwSuperkernelList *list)
{
  const FwSkPlan *sk = self->project != NULL ? fw_project_get_superkernel_plan (self->project) : NULL;
  const FwSkScope *scope;

  if (sk == NULL || index >= sk->scopes->len || fw_window_get_fused_view_ready (self))
    return;
  scope = g_ptr_array_index (sk->scopes, index);
  fw_graph_view_select_range (self->graph_view, g_array_index (scope->kernels, FwSkKernel, 0).node,
                              g_array_index (scope->kernels, FwSkKernel, scope->kernels->len - 1).node);
}

/* The user's scope holding the selected node's kernel, or NULL. */
static const char *
selected_user_scope (FwWindow *self)
{
  const FwSkPlan *sk = self->project != NULL ? fw_project_get_superkernel_plan (self->project) : NULL;
  FwNode *node = fw_graph_view_get_selected_node (self->graph_view);
  const FwSkScope *scope;
  guint at;

  if (sk == NULL || node == NULL || fw_sk_plan_locate (sk, node, &at, NULL, NULL) != FW_SK_PLACE_SCOPE)
    return NULL;
  scope = g_ptr_array_index (sk->scopes, at);
  return scope->user != G_MAXUINT ? ((FwSkUserScope *) g_ptr_array_index (sk->user_scopes, scope->user))->name : NULL;
}

static gboolean
unparent_later (gpointer data)
{
  gtk_widget_unparent (data);
  return G_SOURCE_REMOVE;
}

/* After the item's action ran: the popover still finds win.* through its parent until then. */
static void
on_context_closed (GtkPopover *popover)
{
  g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, unparent_later, g_object_ref (popover), g_object_unref);
}

/* A right click on the canvas: the SuperKernel actions on what is selected. */
static void
on_context_click (GtkGestureClick *gesture, gint n_press, gdouble x, gdouble y, FwWindow *self)
{
  g_autoptr(GMenu) menu = g_menu_new ();
  const char *remove = selected_user_scope (self);
  GtkWidget *popover;

  if (self->project == NULL)
    return;
  g_menu_append (menu, _("Make _SuperKernel from Selection"), "win.make-superkernel");
  if (remove != NULL)
    {
      /* The name's own underscores are not mnemonics. */
      g_auto(GStrv) parts = g_strsplit (remove, "_", -1);
      g_autofree char *escaped = g_strjoinv ("__", parts);
      /* TRANSLATORS: the name of the user's SuperKernel scope */
      g_autofree char *label = g_strdup_printf (_("_Remove SuperKernel “%s”"), escaped);
      g_autoptr(GMenuItem) item = g_menu_item_new (label, NULL);

      g_menu_item_set_action_and_target_value (item, "win.remove-superkernel", g_variant_new_string (remove));
      g_menu_append_item (menu, item);
    }
  popover = gtk_popover_menu_new_from_model (G_MENU_MODEL (menu));
  gtk_widget_set_parent (popover, GTK_WIDGET (self->graph_view));
  gtk_popover_set_pointing_to (GTK_POPOVER (popover), &(GdkRectangle) { (int) x, (int) y, 1, 1 });
  gtk_popover_set_has_arrow (GTK_POPOVER (popover), FALSE);
  /* One popover per click: it goes when it closes. */
  g_signal_connect (popover, "closed", G_CALLBACK (on_context_closed), NULL);
  gtk_popover_popup (GTK_POPOVER (popover));
  gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
}

/* The page about scopes shows them on the canvas too: a restored session's scopes are otherwise out of sight
 * behind the op-class colours. */
static void
on_side_page (FwWindow *self, GParamSpec *pspec, GtkStack *stack)
{
  if (g_strcmp0 (gtk_stack_get_visible_child_name (stack), "superkernels") == 0)
    gtk_drop_down_set_selected (self->overlay_dropdown, FW_GRAPH_OVERLAY_SUPERKERNEL);
}

void
fw_window_superkernel_init (FwWindow *self)
{
  GtkGesture *context = gtk_gesture_click_new ();

  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (context), GDK_BUTTON_SECONDARY);
  g_signal_connect_object (context, "pressed", G_CALLBACK (on_context_click), self, 0);
  gtk_widget_add_controller (GTK_WIDGET (self->graph_view), GTK_EVENT_CONTROLLER (context));
  g_signal_connect_object (self->side_stack, "notify::visible-child", G_CALLBACK (on_side_page), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->superkernel_list, "scope-activated", G_CALLBACK (on_scope_activated), self,
                           G_CONNECT_SWAPPED);
}
