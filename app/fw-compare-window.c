/* fw-compare-window.c: the plan as it is against the plan another strategy makes of the same model, or the
 * plan a session file's decisions make: the other plan is made in a thread, then the fusions that appear,
 * vanish or change are listed (fw_plan_diff);
 * a row selects its fusion on the canvas, or for one only the other plan has, finds its first node. */
#include "config.h"

#include <glib/gi18n.h>

#include "fw-compare-window.h"
#include "fw-window-private.h"
#include "plan/fw-plan-diff.h"
#include "session/fw-session.h"

struct _FwCompareWindow
{
  AdwWindow   parent_instance;
  FwWindow   *window;     /* weak */
  FwProject  *project;
  FwPlan     *other;      /* the other strategy's plan, once made */
  GArray     *diff;
  FwStrategy  strategy;
  char       *session_path;   /* compare with this session's decisions instead of a strategy */
  GtkLabel   *summary;
  GtkListBox *rows;
  GtkSpinner *spinner;
  GCancellable *cancellable;
};

G_DEFINE_FINAL_TYPE (FwCompareWindow, fw_compare_window, ADW_TYPE_WINDOW)

static const char *
strategy_label (FwStrategy strategy)
{
  switch (strategy)
    {
    case FW_STRATEGY_CONSERVATIVE: return _("Conservative");
    case FW_STRATEGY_AGGRESSIVE: return _("Aggressive");
    case FW_STRATEGY_BALANCED:
    default: return _("Balanced");
    }
}

static const char *
kind_label (FwPlanDiffKind kind)
{
  switch (kind)
    {
    case FW_PLAN_DIFF_ADDED: return _("Only there");
    case FW_PLAN_DIFF_REMOVED: return _("Only here");
    case FW_PLAN_DIFF_CHANGED: return _("Changed");
    case FW_PLAN_DIFF_SAME:
    default: return _("Same");
    }
}

static const FwCandidate *
candidate_of (const FwPlan *plan, guint index)
{
  return index < plan->candidates->len ? g_ptr_array_index (plan->candidates, index) : NULL;
}

static GtkWidget *
row_for (FwCompareWindow *self, const FwPlanDiffEntry *e)
{
  FwPlan *plan = fw_project_get_plan (self->project);
  const FwCandidate *here = e->a != G_MAXUINT ? candidate_of (plan, e->a) : NULL;
  const FwCandidate *there = e->b != G_MAXUINT ? candidate_of (self->other, e->b) : NULL;
  g_autofree char *title = NULL;
  g_autofree char *subtitle = NULL;
  GtkWidget *row = adw_action_row_new ();

  if (here != NULL && there != NULL)
    {
      title = g_strdup_printf ("%s → %s", here->pattern, there->pattern);
      /* Translators: a fusion here (its number and node count) against the other plan's */
      subtitle = g_strdup_printf (_("#%u, %u nodes here; %u nodes there"), e->a, here->nodes->len, there->nodes->len);
    }
  else if (here != NULL)
    {
      title = g_strdup (here->pattern);
      subtitle = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "#%u, %u node", "#%u, %u nodes", here->nodes->len),
                                  e->a, here->nodes->len);
    }
  else
    {
      title = g_strdup (there->pattern);
      subtitle = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u node, starting at “%s”",
                                               "%u nodes, starting at “%s”", there->nodes->len),
                                  there->nodes->len, fw_node_get_name (g_ptr_array_index (there->nodes, 0)));
    }
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  adw_action_row_add_prefix (ADW_ACTION_ROW (row), gtk_label_new (kind_label (e->kind)));
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), TRUE);
  return row;
}

static void
show_diff (FwCompareWindow *self)
{
  guint counts[4];
  g_autofree char *summary = NULL;

  fw_plan_diff_count (self->diff, counts);
  if (self->session_path != NULL)
    {
      g_autofree char *base = g_path_get_basename (self->session_path);

      /* Translators: how the plan here differs from the plan a session file's decisions make */
      summary = g_strdup_printf (_("Against the session “%s”: %u fusions only there, %u only here, %u changed, %u the same"),
                                 base, counts[FW_PLAN_DIFF_ADDED], counts[FW_PLAN_DIFF_REMOVED],
                                 counts[FW_PLAN_DIFF_CHANGED], counts[FW_PLAN_DIFF_SAME]);
    }
  else
    /* Translators: how the plan here differs from the other strategy's plan */
    summary = g_strdup_printf (_("Against the %s strategy: %u fusions only there, %u only here, %u changed, %u the same"),
                               strategy_label (self->strategy), counts[FW_PLAN_DIFF_ADDED],
                               counts[FW_PLAN_DIFF_REMOVED], counts[FW_PLAN_DIFF_CHANGED], counts[FW_PLAN_DIFF_SAME]);
  gtk_label_set_text (self->summary, summary);
  for (guint i = 0; i < self->diff->len; i++)
    {
      const FwPlanDiffEntry *e = &g_array_index (self->diff, FwPlanDiffEntry, i);

      if (e->kind != FW_PLAN_DIFF_SAME)
        gtk_list_box_append (self->rows, row_for (self, e));
    }
}

/* The n-th row shown (the same entries show_diff listed, in order). */
static const FwPlanDiffEntry *
entry_at (FwCompareWindow *self, gint n)
{
  for (guint i = 0; self->diff != NULL && i < self->diff->len; i++)
    {
      const FwPlanDiffEntry *e = &g_array_index (self->diff, FwPlanDiffEntry, i);

      if (e->kind != FW_PLAN_DIFF_SAME && n-- == 0)
        return e;
    }
  return NULL;
}

void
fw_compare_window_activate_row (FwCompareWindow *self, guint n)
{
  const FwPlanDiffEntry *e;

  g_return_if_fail (FW_IS_COMPARE_WINDOW (self));
  e = entry_at (self, (gint) n);
  if (e == NULL || self->window == NULL || fw_window_get_project (self->window) != self->project)
    return;
  if (e->a != G_MAXUINT)
    {
      fw_candidate_list_select (self->window->candidate_list, e->a);
      return;
    }
  /* Only the other plan fuses these: find its first node here. */
  fw_graph_view_search (self->window->graph_view,
                        fw_node_get_name (g_ptr_array_index (candidate_of (self->other, e->b)->nodes, 0)), TRUE);
}

static void
on_row_activated (FwCompareWindow *self, GtkListBoxRow *row)
{
  fw_compare_window_activate_row (self, (guint) gtk_list_box_row_get_index (row));
}

/* The other plan, made in a thread: the model, profile and rules are only read. */
static void
plan_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  FwCompareWindow *self = source;
  FwPlan *plan = fw_project_get_plan (self->project);
  FwPlanOptions options = plan->options;
  GError *error = NULL;
  FwPlan *other;

  g_autoptr(FwSession) session = NULL;

  /* A session's plan: its strategy, then its decisions, as restoring it would. */
  if (self->session_path != NULL && (session = fw_session_load (self->session_path, &error)) == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  options.strategy = session != NULL ? session->strategy : self->strategy;
  other = fw_plan_new (fw_project_get_model (self->project), fw_project_get_profile (self->project), plan->rules,
                       &options, &error);
  if (other != NULL && session != NULL && !fw_session_check_model (session, other, &error))
    g_clear_pointer (&other, fw_plan_free);
  if (other != NULL && session != NULL)
    fw_session_apply (session, other);
  if (other == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, other, (GDestroyNotify) fw_plan_free);
}

static void
on_planned (GObject *source, GAsyncResult *result, gpointer user_data)
{
  FwCompareWindow *self = FW_COMPARE_WINDOW (source);
  g_autoptr(GError) error = NULL;
  FwPlan *other = g_task_propagate_pointer (G_TASK (result), &error);

  if (self->spinner == NULL)
    {
      g_clear_pointer (&other, fw_plan_free);
      return;
    }
  gtk_spinner_stop (self->spinner);
  gtk_widget_set_visible (GTK_WIDGET (self->spinner), FALSE);
  if (other == NULL)
    {
      gtk_label_set_text (self->summary, error->message);
      return;
    }
  self->other = other;
  /* The project's plan is read on the main thread, as decisions change it. */
  self->diff = fw_plan_diff (fw_project_get_plan (self->project), other);
  show_diff (self);
}

gboolean
fw_compare_window_get_ready (FwCompareWindow *self)
{
  g_return_val_if_fail (FW_IS_COMPARE_WINDOW (self), FALSE);
  return self->diff != NULL;
}

FwPlan *
fw_compare_window_get_other_plan (FwCompareWindow *self)
{
  g_return_val_if_fail (FW_IS_COMPARE_WINDOW (self), NULL);
  return self->other;
}

GArray *
fw_compare_window_get_diff (FwCompareWindow *self)
{
  g_return_val_if_fail (FW_IS_COMPARE_WINDOW (self), NULL);
  return self->diff;
}

static void
fw_compare_window_dispose (GObject *object)
{
  FwCompareWindow *self = FW_COMPARE_WINDOW (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->spinner = NULL;
  self->summary = NULL;
  self->rows = NULL;
  g_clear_weak_pointer (&self->window);
  G_OBJECT_CLASS (fw_compare_window_parent_class)->dispose (object);
}

static void
fw_compare_window_finalize (GObject *object)
{
  FwCompareWindow *self = FW_COMPARE_WINDOW (object);

  g_clear_pointer (&self->diff, g_array_unref);
  g_clear_pointer (&self->other, fw_plan_free);
  g_clear_object (&self->project);
  g_free (self->session_path);
  G_OBJECT_CLASS (fw_compare_window_parent_class)->finalize (object);
}

static void
fw_compare_window_class_init (FwCompareWindowClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = fw_compare_window_dispose;
  G_OBJECT_CLASS (klass)->finalize = fw_compare_window_finalize;
}

static void
fw_compare_window_init (FwCompareWindow *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *content = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  GtkWidget *scrolled = gtk_scrolled_window_new ();
  GtkWidget *top = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);

  gtk_window_set_default_size (GTK_WINDOW (self), 560, 520);
  gtk_box_append (GTK_BOX (box), adw_header_bar_new ());
  gtk_widget_set_margin_start (content, 12);
  gtk_widget_set_margin_end (content, 12);
  gtk_widget_set_margin_top (content, 12);
  gtk_widget_set_margin_bottom (content, 12);
  self->spinner = GTK_SPINNER (gtk_spinner_new ());
  gtk_spinner_start (self->spinner);
  self->summary = GTK_LABEL (gtk_label_new (_("Planning with the other strategy…")));
  gtk_label_set_wrap (self->summary, TRUE);
  gtk_label_set_xalign (self->summary, 0);
  gtk_box_append (GTK_BOX (top), GTK_WIDGET (self->spinner));
  gtk_box_append (GTK_BOX (top), GTK_WIDGET (self->summary));
  gtk_box_append (GTK_BOX (content), top);
  self->rows = GTK_LIST_BOX (gtk_list_box_new ());
  gtk_list_box_set_selection_mode (self->rows, GTK_SELECTION_NONE);
  gtk_widget_add_css_class (GTK_WIDGET (self->rows), "boxed-list");
  g_signal_connect_swapped (self->rows, "row-activated", G_CALLBACK (on_row_activated), self);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), GTK_WIDGET (self->rows));
  gtk_widget_set_vexpand (scrolled, TRUE);
  gtk_box_append (GTK_BOX (content), scrolled);
  gtk_box_append (GTK_BOX (box), content);
  adw_window_set_content (ADW_WINDOW (self), box);
}

static FwCompareWindow *
compare_new (FwWindow *window, FwStrategy strategy, const char *session_path)
{
  FwCompareWindow *self;
  g_autoptr(GTask) task = NULL;
  g_autofree char *title = NULL;

  g_return_val_if_fail (FW_IS_WINDOW (window) && fw_window_get_project (window) != NULL, NULL);
  self = g_object_new (FW_TYPE_COMPARE_WINDOW, "transient-for", window, "destroy-with-parent", TRUE, NULL);
  g_set_weak_pointer (&self->window, window);
  self->project = g_object_ref (fw_window_get_project (window));
  self->strategy = strategy;
  self->session_path = g_strdup (session_path);
  if (session_path != NULL)
    {
      g_autofree char *base = g_path_get_basename (session_path);

      /* Translators: the title of the comparison window; %s is a session file's name */
      title = g_strdup_printf (_("Compare with “%s”"), base);
    }
  else
    /* Translators: the title of the comparison window; %s is a strategy */
    title = g_strdup_printf (_("Compare with the %s Strategy"), strategy_label (strategy));
  gtk_window_set_title (GTK_WINDOW (self), title);
  self->cancellable = g_cancellable_new ();
  task = g_task_new (self, self->cancellable, on_planned, NULL);
  g_task_run_in_thread (task, plan_thread);
  return self;
}

FwCompareWindow *
fw_compare_window_new (FwWindow *window, FwStrategy strategy)
{
  return compare_new (window, strategy, NULL);
}

FwCompareWindow *
fw_compare_window_new_for_session (FwWindow *window, const char *session_path)
{
  g_return_val_if_fail (session_path != NULL, NULL);
  return compare_new (window, FW_STRATEGY_BALANCED, session_path);
}
