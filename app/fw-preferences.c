#include "config.h"

#include <glib/gi18n.h>

#include "fw-preferences.h"
#include "hw/fw-host-calibrate.h"

struct _FwPreferences
{
  AdwPreferencesWindow parent_instance;

  GSettings *settings;

  AdwComboRow *profile_row;
  AdwComboRow *strategy_row;
  GtkSpinButton *max_depth_spin;
  GtkSpinButton *max_fusion_size_spin;
  AdwEntryRow *bindings_row;
  GtkSwitch *fold_weights_switch;
  AdwEntryRow *rules_row;
  AdwEntryRow *whitelists_row;
  AdwEntryRow *ops_row;
  AdwComboRow *theme_row;
  AdwActionRow *calibrate_row;
  GtkButton *calibrate_button;
  GCancellable *calibrating;   /* while a calibration runs; cancelled when the window goes */
};

G_DEFINE_FINAL_TYPE (FwPreferences, fw_preferences, ADW_TYPE_PREFERENCES_WINDOW)

/* The rows list choices in the order of these arrays; settings store the names. */
static const char * const profile_names[] = { "ascend-910b", "ascend-310p", "host", NULL };
static const char * const strategy_names[] = { "conservative", "balanced", "aggressive", NULL };
static const char * const theme_names[] = { "system", "light", "dark", NULL };

static gboolean
name_to_position (GValue *value, GVariant *variant, gpointer user_data)
{
  const char * const *names = user_data;
  const char *name = g_variant_get_string (variant, NULL);

  for (guint i = 0; names[i] != NULL; i++)
    if (g_strcmp0 (names[i], name) == 0)
      {
        g_value_set_uint (value, i);
        return TRUE;
      }
  /* A profile given as a file path has no row; show none selected rather than a wrong one. */
  g_value_set_uint (value, GTK_INVALID_LIST_POSITION);
  return TRUE;
}

static GVariant *
position_to_name (const GValue *value, const GVariantType *type, gpointer user_data)
{
  const char * const *names = user_data;
  guint position = g_value_get_uint (value);

  if (position >= g_strv_length ((char **) names))
    return NULL;
  return g_variant_new_string (names[position]);
}

static void
bind_choice (FwPreferences *self, const char *key, AdwComboRow *row, const char * const *names)
{
  g_settings_bind_with_mapping (self->settings, key, row, "selected", G_SETTINGS_BIND_DEFAULT,
                                name_to_position, position_to_name, (gpointer) names, NULL);
}

static void
on_bindings_changed (FwPreferences *self, GtkEditable *editable)
{
  g_auto(GStrv) parts = g_strsplit_set (gtk_editable_get_text (editable), ", ", -1);
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) bindings = NULL;

  for (guint i = 0; parts[i] != NULL; i++)
    if (parts[i][0] != '\0')
      g_strv_builder_add (builder, parts[i]);
  bindings = g_strv_builder_end (builder);
  g_settings_set_strv (self->settings, "bindings", (const char * const *) bindings);
}

/* Paths are listed as in $PATH: a comma or a space can be part of a file name, a colon hardly ever is. */
static void
set_paths (FwPreferences *self, const char *key, GtkEditable *editable)
{
  g_auto(GStrv) parts = g_strsplit (gtk_editable_get_text (editable), G_SEARCHPATH_SEPARATOR_S, -1);
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) paths = NULL;

  for (guint i = 0; parts[i] != NULL; i++)
    if (g_strstrip (parts[i])[0] != '\0')
      g_strv_builder_add (builder, parts[i]);
  paths = g_strv_builder_end (builder);
  g_settings_set_strv (self->settings, key, (const char * const *) paths);
}

static void
on_rules_changed (FwPreferences *self, GtkEditable *editable)
{
  set_paths (self, "rules", editable);
}

static void
on_whitelists_changed (FwPreferences *self, GtkEditable *editable)
{
  set_paths (self, "whitelists", editable);
}

static void
on_ops_changed (FwPreferences *self, GtkEditable *editable)
{
  set_paths (self, "ops", editable);
}

static void
show_paths (FwPreferences *self, const char *key, AdwEntryRow *row)
{
  g_auto(GStrv) paths = g_settings_get_strv (self->settings, key);
  g_autofree char *text = g_strjoinv (G_SEARCHPATH_SEPARATOR_S, paths);

  gtk_editable_set_text (GTK_EDITABLE (row), text);
}

/* The calibration's result in the row: the fitted numbers, or why there are none. The window may have
 * been closed meanwhile (its template children are then gone): nothing to show. */
static void
on_calibrated (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr(FwPreferences) self = user_data;
  g_autoptr(GError) error = NULL;
  FwCalAgreement agreement = { 0 };
  g_autoptr(FwProfile) after = fw_host_calibrate_finish (result, NULL, &agreement, &error);
  g_autofree char *text = NULL;

  (void) source;
  g_clear_object (&self->calibrating);
  if (self->calibrate_row == NULL)
    return;
  gtk_widget_set_sensitive (GTK_WIDGET (self->calibrate_button), TRUE);
  if (after == NULL)
    text = g_strdup_printf (_("Not calibrated: %s"), error->message);
  else
    text = g_strdup_printf (_("Calibrated: memory %.3g GB/s, vector %.3g GFLOP/s, matrix %.3g GFLOP/s, "
                              "launch %.3g µs; plans made from now on use them"),
                            after->hbm_bytes_per_s / 1e9, after->vector_flops_per_s / 1e9,
                            after->cube_flops_per_s / 1e9, after->launch_overhead_s * 1e6);
  if (after != NULL && (agreement.contention > FW_CAL_CONTENDED || agreement.spread > FW_CAL_BUSY))
    {
      g_autofree char *busy =
        agreement.contention > FW_CAL_CONTENDED
          ? g_strdup_printf (_("%s. The machine was busy: the median round of “%s” took %.1f times its fastest, "
                               "so the numbers may be off; calibrate again when it is quieter"),
                             text, fw_cal_bench_name (agreement.contended), agreement.contention)
          : g_strdup_printf (_("%s. The machine was busy: after %u rounds the last still "
                               "moved the fitted “%s” by %.0f %%, so the numbers may be off; "
                               "calibrate again when it is quieter"),
                             text, agreement.rounds, agreement.worst, agreement.spread * 100.0);
      g_free (text);
      text = g_steal_pointer (&busy);
    }
  adw_action_row_set_subtitle (self->calibrate_row, text);
}

static void
on_calibrate_clicked (FwPreferences *self)
{
  if (self->calibrating != NULL)
    return;
  self->calibrating = g_cancellable_new ();
  gtk_widget_set_sensitive (GTK_WIDGET (self->calibrate_button), FALSE);
  adw_action_row_set_subtitle (self->calibrate_row, _("Calibrating…"));
  fw_host_calibrate_async (NULL, NULL, self->calibrating, on_calibrated, g_object_ref (self));
}

static void
fw_preferences_dispose (GObject *object)
{
  FwPreferences *self = FW_PREFERENCES (object);

  if (self->calibrating != NULL)
    g_cancellable_cancel (self->calibrating);

  gtk_widget_dispose_template (GTK_WIDGET (self), FW_TYPE_PREFERENCES);
  g_clear_object (&self->settings);
  G_OBJECT_CLASS (fw_preferences_parent_class)->dispose (object);
}

static void
fw_preferences_class_init (FwPreferencesClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = fw_preferences_dispose;

  gtk_widget_class_set_template_from_resource (widget_class, "/org/fusionworkbench/FusionWorkbench/fw-preferences.ui");
  gtk_widget_class_bind_template_child (widget_class, FwPreferences, profile_row);
  gtk_widget_class_bind_template_child (widget_class, FwPreferences, strategy_row);
  gtk_widget_class_bind_template_child (widget_class, FwPreferences, max_depth_spin);
  gtk_widget_class_bind_template_child (widget_class, FwPreferences, max_fusion_size_spin);
  gtk_widget_class_bind_template_child (widget_class, FwPreferences, bindings_row);
  gtk_widget_class_bind_template_child (widget_class, FwPreferences, fold_weights_switch);
  gtk_widget_class_bind_template_child (widget_class, FwPreferences, theme_row);
  gtk_widget_class_bind_template_child (widget_class, FwPreferences, rules_row);
  gtk_widget_class_bind_template_child (widget_class, FwPreferences, whitelists_row);
  gtk_widget_class_bind_template_child (widget_class, FwPreferences, ops_row);
  gtk_widget_class_bind_template_child (widget_class, FwPreferences, calibrate_row);
  gtk_widget_class_bind_template_child (widget_class, FwPreferences, calibrate_button);
  gtk_widget_class_bind_template_callback (widget_class, on_calibrate_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_bindings_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_rules_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_whitelists_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_ops_changed);
}

static void
fw_preferences_init (FwPreferences *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

GtkWidget *
fw_preferences_new (GtkWindow *parent, GSettings *settings)
{
  FwPreferences *self = g_object_new (FW_TYPE_PREFERENCES,
                                      "transient-for", parent,
                                      "modal", TRUE,
                                      NULL);
  g_auto(GStrv) bindings = NULL;
  g_autofree char *text = NULL;

  self->settings = g_object_ref (settings);
  bind_choice (self, "profile", self->profile_row, profile_names);
  bind_choice (self, "strategy", self->strategy_row, strategy_names);
  bind_choice (self, "theme", self->theme_row, theme_names);
  g_settings_bind (settings, "max-depth", self->max_depth_spin, "value", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "max-fusion-size", self->max_fusion_size_spin, "value", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "fold-weight-copies", self->fold_weights_switch, "active", G_SETTINGS_BIND_DEFAULT);

  /* Filled before the handler is connected in effect: the text round-trips to the same list. */
  bindings = g_settings_get_strv (settings, "bindings");
  text = g_strjoinv (", ", bindings);
  gtk_editable_set_text (GTK_EDITABLE (self->bindings_row), text);
  show_paths (self, "rules", self->rules_row);
  show_paths (self, "whitelists", self->whitelists_row);
  show_paths (self, "ops", self->ops_row);
  return GTK_WIDGET (self);
}
