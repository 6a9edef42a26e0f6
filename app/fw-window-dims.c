/* fw-window-dims.c: the banner over the canvas that names the model's symbolic dims without a size, with an
 * entry each (filled from the sizes given before, or the session beside the model), and opens the model
 * again with them bound; and the line over the candidate list that says why a plan fuses nothing. A model
 * with unbound dims otherwise shows an empty list and nothing that says Preferences holds bindings. */
#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "fw-window-private.h"
#include "plan/fw-plan-empty.h"
#include "session/fw-session.h"

/* Whether the project's bindings ("name=value") name symbol. */
static gboolean
is_bound (FwProject *project, const char *symbol)
{
  const char * const *bindings = fw_project_get_bindings (project);
  gsize len = strlen (symbol);

  for (guint i = 0; bindings != NULL && bindings[i] != NULL; i++)
    if (strncmp (bindings[i], symbol, len) == 0 && bindings[i][len] == '=')
      return TRUE;
  return FALSE;
}

/* Whether a graph input still has symbol as a dim. Exporters also name dims of intermediate values
 * (torch's "Gemmoutput_dim_0") that inference makes static: those need no size from anyone. */
static gboolean
is_input_dim (FwGraph *graph, const char *symbol)
{
  for (guint i = 0; i < fw_graph_get_n_inputs (graph); i++)
    {
      const FwValue *input = fw_graph_get_input (graph, i);
      const FwDim *dims = fw_value_get_dims (input);

      if (fw_value_is_initializer (input) || dims == NULL)
        continue;
      for (gint d = 0; d < fw_value_get_rank (input); d++)
        if (dims[d].value < 0 && g_strcmp0 (dims[d].symbol, symbol) == 0)
          return TRUE;
    }
  return FALSE;
}

GStrv
fw_window_get_unbound_symbols (FwWindow *self)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  FwGraph *graph = self->project != NULL ? fw_model_get_graph (fw_project_get_model (self->project)) : NULL;

  for (guint i = 0; graph != NULL && self->symbols != NULL && self->symbols[i] != NULL; i++)
    if (!is_bound (self->project, self->symbols[i]) && is_input_dim (graph, self->symbols[i]))
      g_strv_builder_add (builder, self->symbols[i]);
  return g_strv_builder_end (builder);
}

/* The size to offer for symbol: the one given in the banner before, else the session's beside the model. */
static char *
prefill_for (FwWindow *self, const FwSession *session, const char *symbol)
{
  gsize len = strlen (symbol);
  const gint64 *given = self->dim_bindings != NULL ? g_hash_table_lookup (self->dim_bindings, symbol) : NULL;

  if (given != NULL)
    return g_strdup_printf ("%" G_GINT64_FORMAT, *given);
  for (guint i = 0; session != NULL && session->bindings != NULL && session->bindings[i] != NULL; i++)
    if (strncmp (session->bindings[i], symbol, len) == 0 && session->bindings[i][len] == '=')
      return g_strdup (session->bindings[i] + len + 1);
  return NULL;
}

static void
on_entry_activate (FwWindow *self)
{
  fw_window_dims_apply (self);
}

static void
clear_entries (FwWindow *self)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->dims_entries))) != NULL)
    gtk_box_remove (self->dims_entries, child);
}

void
fw_window_dims_update_reason (FwWindow *self)
{
  g_auto(GStrv) unbound = NULL;
  g_autofree char *why = NULL;

  if (self->empty_plan_label == NULL)
    return;
  if (self->project != NULL)
    {
      unbound = fw_window_get_unbound_symbols (self);
      why = fw_plan_explain_empty (fw_project_get_plan (self->project), (const char * const *) unbound);
    }
  gtk_label_set_text (self->empty_plan_label, why != NULL ? why : "");
  gtk_widget_set_visible (GTK_WIDGET (self->empty_plan_label), why != NULL);
}

void
fw_window_dims_update (FwWindow *self)
{
  g_auto(GStrv) unbound = NULL;
  g_autoptr(FwSession) session = NULL;
  g_autofree char *names = NULL;
  g_autofree char *text = NULL;
  guint n;

  if (self->dims_revealer == NULL)
    return;
  clear_entries (self);
  unbound = fw_window_get_unbound_symbols (self);
  n = g_strv_length (unbound);
  fw_window_dims_update_reason (self);
  gtk_revealer_set_reveal_child (self->dims_revealer, n > 0);
  if (n == 0)
    return;
  if (self->model_path != NULL)
    {
      g_autofree char *session_path = fw_project_session_path_for (self->model_path);

      /* A session that cannot be read offers nothing here; restoring it says why. */
      if (session_path != NULL && g_file_test (session_path, G_FILE_TEST_IS_REGULAR))
        session = fw_session_load (session_path, NULL);
    }
  names = g_strjoinv (", ", unbound);
  text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                       "The symbolic dimension %s has no size, so nothing it touches can be fused. Give it one:",
                                       "The symbolic dimensions %s have no size, so nothing they touch can be fused. Give them one:",
                                       n), names);
  gtk_label_set_text (self->dims_label, text);
  for (guint i = 0; i < n; i++)
    {
      GtkWidget *label = gtk_label_new (unbound[i]);
      GtkWidget *entry = gtk_entry_new ();
      g_autofree char *value = prefill_for (self, session, unbound[i]);

      gtk_editable_set_width_chars (GTK_EDITABLE (entry), 6);
      gtk_entry_set_input_purpose (GTK_ENTRY (entry), GTK_INPUT_PURPOSE_DIGITS);
      gtk_entry_set_placeholder_text (GTK_ENTRY (entry), _("size"));
      gtk_widget_set_valign (entry, GTK_ALIGN_CENTER);
      if (value != NULL)
        gtk_editable_set_text (GTK_EDITABLE (entry), value);
      g_object_set_data_full (G_OBJECT (entry), "symbol", g_strdup (unbound[i]), g_free);
      g_signal_connect_swapped (entry, "activate", G_CALLBACK (on_entry_activate), self);
      gtk_widget_add_css_class (label, "heading");
      gtk_box_append (self->dims_entries, label);
      gtk_box_append (self->dims_entries, entry);
    }
}

GtkEditable *
fw_window_dims_get_entry (FwWindow *self, const char *symbol)
{
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->dims_entries)); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_ENTRY (child) && g_strcmp0 (g_object_get_data (G_OBJECT (child), "symbol"), symbol) == 0)
      return GTK_EDITABLE (child);
  return NULL;
}

gboolean
fw_window_dims_apply (FwWindow *self)
{
  g_autoptr(GHashTable) sizes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(GFile) file = NULL;

  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->dims_entries)); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      const char *symbol = g_object_get_data (G_OBJECT (child), "symbol");
      g_autofree char *text = NULL;
      gint64 value = 0;

      if (!GTK_IS_ENTRY (child) || symbol == NULL)
        continue;
      text = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (child))));
      gtk_widget_remove_css_class (child, "error");
      if (text[0] == '\0')
        continue;
      if (!g_ascii_string_to_signed (text, 10, 1, G_MAXINT32, &value, NULL))
        {
          g_autofree char *message = g_strdup_printf (_("The size of “%s” must be a whole number from 1 up, not “%s”"),
                                                      symbol, text);

          gtk_widget_add_css_class (child, "error");
          fw_window_toast (self, message);
          return FALSE;
        }
      g_hash_table_insert (sizes, g_strdup (symbol), g_memdup2 (&value, sizeof value));
    }
  if (g_hash_table_size (sizes) == 0 || self->model_path == NULL)
    {
      fw_window_toast (self, _("Type a size for a dimension first"));
      return FALSE;
    }
  if (self->dim_bindings == NULL)
    self->dim_bindings = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  {
    GHashTableIter iter;
    gpointer key, value;

    g_hash_table_iter_init (&iter, sizes);
    while (g_hash_table_iter_next (&iter, &key, &value))
      {
        g_hash_table_iter_steal (&iter);
        g_hash_table_replace (self->dim_bindings, key, value);
      }
  }
  /* Bindings are read while loading (shape inference needs them), so the model is opened again. */
  file = g_file_new_for_path (self->model_path);
  fw_window_open (self, file);
  return TRUE;
}

void
fw_window_dims_merge_bindings (FwWindow *self, GHashTable *bindings)
{
  GHashTableIter iter;
  gpointer key, value;

  if (self->dim_bindings == NULL)
    return;
  g_hash_table_iter_init (&iter, self->dim_bindings);
  while (g_hash_table_iter_next (&iter, &key, &value))
    g_hash_table_replace (bindings, g_strdup (key), g_memdup2 (value, sizeof (gint64)));
}
