/* fw-superkernel-list.c: the SuperKernel scopes listed beside the graph, with the buttons that make and
 * remove the user's own (fw-superkernel-list.h). The rows are rebuilt from the project's SuperKernel plan on
 * every plan change: the plan decides the scopes, the list only shows them. */
#include "config.h"

#include <glib/gi18n.h>

#include "fw-superkernel-list.h"

struct _FwSuperkernelList
{
  GtkWidget   parent_instance;

  FwProject  *project;
  gulong      plan_changed_id;
  GtkWidget  *box;
  GtkLabel   *hint;
  GtkListBox *list;
  GPtrArray  *texts;    /* char* per row: title and subtitle */
  GArray     *scopes;   /* guint per row: index in the SuperKernel plan's scopes, G_MAXUINT for none */
};

enum {
  PROP_0,
  PROP_PROJECT,
  N_PROPS
};

enum {
  SCOPE_ACTIVATED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (FwSuperkernelList, fw_superkernel_list, GTK_TYPE_WIDGET)

static void
add_row (FwSuperkernelList *self, const char *title, const char *subtitle, const char *remove_name, guint scope)
{
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *texts = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *name = gtk_label_new (title);
  GtkWidget *detail = gtk_label_new (subtitle);

  gtk_widget_set_margin_start (row, 6);
  gtk_widget_set_margin_end (row, 6);
  gtk_widget_set_margin_top (row, 4);
  gtk_widget_set_margin_bottom (row, 4);
  gtk_label_set_xalign (GTK_LABEL (name), 0);
  gtk_widget_add_css_class (name, "heading");
  gtk_label_set_ellipsize (GTK_LABEL (name), PANGO_ELLIPSIZE_MIDDLE);
  gtk_label_set_xalign (GTK_LABEL (detail), 0);
  gtk_label_set_wrap (GTK_LABEL (detail), TRUE);
  gtk_label_set_max_width_chars (GTK_LABEL (detail), 40);
  gtk_widget_add_css_class (detail, "dim-label");
  gtk_widget_set_hexpand (texts, TRUE);
  gtk_box_append (GTK_BOX (texts), name);
  gtk_box_append (GTK_BOX (texts), detail);
  gtk_box_append (GTK_BOX (row), texts);
  if (remove_name != NULL)
    {
      GtkWidget *remove = gtk_button_new_with_label (_("Remove"));

      gtk_widget_set_valign (remove, GTK_ALIGN_CENTER);
      gtk_widget_set_tooltip_text (remove, _("Remove this SuperKernel scope (Undo brings it back)"));
      gtk_actionable_set_action_name (GTK_ACTIONABLE (remove), "win.remove-superkernel");
      gtk_actionable_set_action_target_value (GTK_ACTIONABLE (remove), g_variant_new_string (remove_name));
      gtk_box_append (GTK_BOX (row), remove);
    }
  gtk_list_box_append (self->list, row);
  g_ptr_array_add (self->texts, g_strdup_printf ("%s\n%s", title, subtitle));
  g_array_append_val (self->scopes, scope);
}

static char *
scope_subtitle (const FwSkScope *s)
{
  g_autofree char *saving = g_strdup_printf ("%.2f", s->saving_s * 1e6);
  g_autofree char *figures = NULL;

  /* TRANSLATORS: a SuperKernel scope: its kernels, the cores it launches on, the estimated time saved */
  figures = g_strdup_printf (ngettext ("%u kernel, %u cores, saves about %s µs", "%u kernels, %u cores, saves about %s µs",
                                       s->kernels->len),
                             s->kernels->len, s->cores, saving);
  /* TRANSLATORS: the first and the last kernel of a SuperKernel scope, by node name */
  g_autofree char *span = g_strdup_printf (_("from %s to %s"), g_array_index (s->kernels, FwSkKernel, 0).node->name,
                                           g_array_index (s->kernels, FwSkKernel, s->kernels->len - 1).node->name);

  return s->end_message != NULL ? g_strdup_printf ("%s; %s\n%s", figures, s->end_message, span)
                                : g_strdup_printf ("%s\n%s", figures, span);
}

static gboolean
user_has_scope (const FwSkPlan *sk, guint user)
{
  for (guint i = 0; i < sk->scopes->len; i++)
    if (((FwSkScope *) g_ptr_array_index (sk->scopes, i))->user == user)
      return TRUE;
  return FALSE;
}

static void
rebuild (FwSuperkernelList *self)
{
  const FwSkPlan *sk = self->project != NULL ? fw_project_get_superkernel_plan (self->project) : NULL;
  GtkWidget *child;

  /* GTK 4.8 has no gtk_list_box_remove_all. */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->list))) != NULL)
    gtk_list_box_remove (self->list, child);
  g_ptr_array_set_size (self->texts, 0);
  g_array_set_size (self->scopes, 0);
  if (sk == NULL)
    {
      gtk_label_set_text (self->hint, "");
      return;
    }
  gtk_label_set_text (self->hint, sk->user_scopes->len > 0
                      ? _("Your SuperKernel scopes: only their kernels are bound into one launch each. Remove them "
                          "all to go back to the automatic scopes.")
                      : _("Automatic SuperKernel scopes. To choose your own, select a collapsed name scope, or click "
                          "the first kernel and Shift+click the last, then Make SuperKernel."));
  for (guint i = 0; i < sk->scopes->len; i++)
    {
      const FwSkScope *s = g_ptr_array_index (sk->scopes, i);
      g_autofree char *subtitle = scope_subtitle (s);
      const char *user = s->user != G_MAXUINT
                         ? ((FwSkUserScope *) g_ptr_array_index (sk->user_scopes, s->user))->name : NULL;

      /* Only the first part of a scope the planner split carries the Remove button. */
      add_row (self, s->name, subtitle, user != NULL && g_strcmp0 (user, s->name) == 0 ? user : NULL, i);
    }
  /* A scope of the user's that binds nothing is still a decision to see and undo. */
  for (guint u = 0; u < sk->user_scopes->len; u++)
    if (!user_has_scope (sk, u))
      {
        const FwSkUserScope *us = g_ptr_array_index (sk->user_scopes, u);

        add_row (self, us->name, _("Binds no kernels: fewer than two of its kernels run in a row, or they cannot "
                                   "join (see the SuperKernel overlay)"),
                 us->source != NULL && g_str_equal (us->source, "--superkernel-scope") ? NULL : us->name, G_MAXUINT);
      }
}

static void
on_row_activated (GtkListBox *list, GtkListBoxRow *row, FwSuperkernelList *self)
{
  gint at = gtk_list_box_row_get_index (row);
  guint scope = at >= 0 && (guint) at < self->scopes->len ? g_array_index (self->scopes, guint, at) : G_MAXUINT;

  if (scope != G_MAXUINT)
    g_signal_emit (self, signals[SCOPE_ACTIVATED], 0, scope);
}

static void
fw_superkernel_list_dispose (GObject *object)
{
  FwSuperkernelList *self = FW_SUPERKERNEL_LIST (object);

  if (self->project != NULL)
    g_clear_signal_handler (&self->plan_changed_id, self->project);
  g_clear_object (&self->project);
  g_clear_pointer (&self->box, gtk_widget_unparent);
  g_clear_pointer (&self->texts, g_ptr_array_unref);
  g_clear_pointer (&self->scopes, g_array_unref);
  G_OBJECT_CLASS (fw_superkernel_list_parent_class)->dispose (object);
}

static void
fw_superkernel_list_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  FwSuperkernelList *self = FW_SUPERKERNEL_LIST (object);

  switch (prop_id)
    {
    case PROP_PROJECT: g_value_set_object (value, self->project); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
fw_superkernel_list_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  FwSuperkernelList *self = FW_SUPERKERNEL_LIST (object);

  switch (prop_id)
    {
    case PROP_PROJECT: fw_superkernel_list_set_project (self, g_value_get_object (value)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
fw_superkernel_list_class_init (FwSuperkernelListClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = fw_superkernel_list_dispose;
  object_class->get_property = fw_superkernel_list_get_property;
  object_class->set_property = fw_superkernel_list_set_property;

  properties[PROP_PROJECT] = g_param_spec_object ("project", NULL, NULL, FW_TYPE_PROJECT,
                                                  G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
  signals[SCOPE_ACTIVATED] = g_signal_new ("scope-activated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                           NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_UINT);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "fwsuperkernellist");
}

static void
fw_superkernel_list_init (FwSuperkernelList *self)
{
  GtkWidget *make = gtk_button_new_with_mnemonic (_("_Make SuperKernel from Selection"));
  GtkWidget *scrolled = gtk_scrolled_window_new ();

  self->texts = g_ptr_array_new_with_free_func (g_free);
  self->scopes = g_array_new (FALSE, FALSE, sizeof (guint));
  self->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  gtk_widget_set_margin_start (self->box, 6);
  gtk_widget_set_margin_end (self->box, 6);
  gtk_widget_set_margin_top (self->box, 6);
  gtk_widget_set_parent (self->box, GTK_WIDGET (self));

  self->hint = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_wrap (self->hint, TRUE);
  /* A wrapping label asks for its whole text as natural width; the side panel must not grow for it. */
  gtk_label_set_max_width_chars (self->hint, 40);
  gtk_label_set_xalign (self->hint, 0);
  gtk_widget_add_css_class (GTK_WIDGET (self->hint), "dim-label");
  gtk_box_append (GTK_BOX (self->box), GTK_WIDGET (self->hint));

  gtk_actionable_set_action_name (GTK_ACTIONABLE (make), "win.make-superkernel");
  gtk_widget_set_halign (make, GTK_ALIGN_START);
  gtk_widget_add_css_class (make, "suggested-action");
  gtk_box_append (GTK_BOX (self->box), make);

  self->list = GTK_LIST_BOX (gtk_list_box_new ());
  gtk_list_box_set_selection_mode (self->list, GTK_SELECTION_NONE);
  gtk_list_box_set_activate_on_single_click (self->list, TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (self->list), "boxed-list");
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->list), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("SuperKernel scopes"), -1);
  g_signal_connect (self->list, "row-activated", G_CALLBACK (on_row_activated), self);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), GTK_WIDGET (self->list));
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_widget_set_vexpand (scrolled, TRUE);
  gtk_box_append (GTK_BOX (self->box), scrolled);
}

GtkWidget *
fw_superkernel_list_new (void)
{
  return g_object_new (FW_TYPE_SUPERKERNEL_LIST, NULL);
}

void
fw_superkernel_list_set_project (FwSuperkernelList *self, FwProject *project)
{
  g_return_if_fail (FW_IS_SUPERKERNEL_LIST (self));
  g_return_if_fail (project == NULL || FW_IS_PROJECT (project));

  if (self->project == project)
    return;
  if (self->project != NULL)
    g_clear_signal_handler (&self->plan_changed_id, self->project);
  g_set_object (&self->project, project);
  if (project != NULL)
    self->plan_changed_id = g_signal_connect_swapped (project, "plan-changed", G_CALLBACK (rebuild), self);
  rebuild (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROJECT]);
}

FwProject *
fw_superkernel_list_get_project (FwSuperkernelList *self)
{
  g_return_val_if_fail (FW_IS_SUPERKERNEL_LIST (self), NULL);
  return self->project;
}

guint
fw_superkernel_list_get_n_rows (FwSuperkernelList *self)
{
  g_return_val_if_fail (FW_IS_SUPERKERNEL_LIST (self), 0);
  return self->texts->len;
}

char *
fw_superkernel_list_get_row_text (FwSuperkernelList *self, guint row)
{
  g_return_val_if_fail (FW_IS_SUPERKERNEL_LIST (self), NULL);
  return row < self->texts->len ? g_strdup (g_ptr_array_index (self->texts, row)) : NULL;
}

const char *
fw_superkernel_list_get_hint (FwSuperkernelList *self)
{
  g_return_val_if_fail (FW_IS_SUPERKERNEL_LIST (self), NULL);
  return gtk_label_get_text (self->hint);
}
