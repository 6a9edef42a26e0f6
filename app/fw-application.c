#include "config.h"

#include <glib/gi18n.h>

#include "fw-application.h"
#include "fw-preferences.h"
#include "fw-settings.h"
#include "fw-window.h"

struct _FwApplication
{
  AdwApplication parent_instance;

  GSettings *settings;
  GStrv      rules;        /* --rules and --whitelist, for every window */
  GStrv      whitelists;
  GStrv      ops;          /* --ops, read by each window's open */
};

G_DEFINE_FINAL_TYPE (FwApplication, fw_application, ADW_TYPE_APPLICATION)

static const struct {
  const char *action;
  const char *accels[3];
} accels[] = {
  { "app.quit", { "<Control>q", NULL } },
  { "app.preferences", { "<Control>comma", NULL } },
  { "win.show-help-overlay", { "<Control>question", NULL } },
  { "win.open", { "<Control>o", NULL } },
  { "win.save-session", { "<Control>s", NULL } },
  { "win.undo", { "<Control>z", NULL } },
  { "win.redo", { "<Control><Shift>z", NULL } },
  { "win.zoom-in", { "<Control>plus", "<Control>equal", NULL } },
  { "win.zoom-out", { "<Control>minus", NULL } },
  { "win.zoom-fit", { "<Control>0", NULL } },
  { "win.find", { "<Control>f", NULL } },
  { "win.close", { "<Control>w", NULL } },
  { "win.check", { "<Control>r", NULL } },
  { "win.measure", { "<Control><Shift>r", NULL } },
  { "win.export", { "<Control>e", NULL } },
};

static void
apply_theme (FwApplication *self)
{
  static const AdwColorScheme schemes[] = {
    ADW_COLOR_SCHEME_DEFAULT, ADW_COLOR_SCHEME_FORCE_LIGHT, ADW_COLOR_SCHEME_FORCE_DARK,
  };
  guint theme = (guint) g_settings_get_enum (self->settings, "theme");

  adw_style_manager_set_color_scheme (adw_style_manager_get_default (),
                                      schemes[MIN (theme, G_N_ELEMENTS (schemes) - 1)]);
}

static GtkWindow *
active_or_new_window (FwApplication *self)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (self));

  if (window == NULL)
    {
      window = GTK_WINDOW (fw_window_new (ADW_APPLICATION (self)));
      fw_window_set_open_files (FW_WINDOW (window), (const char * const *) self->rules,
                                (const char * const *) self->whitelists);
    }
  return window;
}

static void
fw_application_activate (GApplication *app)
{
  gtk_window_present (active_or_new_window (FW_APPLICATION (app)));
  /* tests/gui/test-startup.c waits for this line. */
  g_debug ("Window presented");
}

static void
fw_application_open (GApplication *app, GFile **files, gint n_files, const char *hint)
{
  /* One window per model, so each keeps its own project and session. */
  for (gint i = 0; i < n_files; i++)
    {
      FwWindow *window = fw_window_new (ADW_APPLICATION (app));

      fw_window_set_open_files (window, (const char * const *) FW_APPLICATION (app)->rules,
                                (const char * const *) FW_APPLICATION (app)->whitelists);
      fw_window_open (window, files[i]);
      gtk_window_present (GTK_WINDOW (window));
      g_debug ("Window presented");
    }
}

static void
about_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  FwApplication *self = user_data;
  static const char *developers[] = { "The Fusion Workbench developers", NULL };
  GtkWidget *about = adw_about_window_new ();

  g_object_set (about,
                "transient-for", gtk_application_get_active_window (GTK_APPLICATION (self)),
                "application-name", _("Fusion Workbench"),
                "application-icon", APP_ID,
                "version", PACKAGE_VERSION,
                "comments", _("Inspect and steer operator fusion of neural networks for Ascend NPUs"),
                "developers", developers,
                "license-type", GTK_LICENSE_GPL_3_0,
                /* Translators: replace with your names, one per line */
                "translator-credits", _("translator-credits"),
                NULL);
  gtk_window_present (GTK_WINDOW (about));
}

static void
preferences_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  FwApplication *self = user_data;
  GtkWidget *preferences = fw_preferences_new (gtk_application_get_active_window (GTK_APPLICATION (self)),
                                               self->settings);

  gtk_window_present (GTK_WINDOW (preferences));
}

static void
shortcuts_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (user_data));

  if (window != NULL)
    gtk_widget_activate_action (GTK_WIDGET (window), "win.show-help-overlay", NULL);
}

static void
open_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  GtkWindow *window = active_or_new_window (FW_APPLICATION (user_data));

  gtk_window_present (window);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.open", NULL);
}

static void
quit_activated (GSimpleAction *action, GVariant *parameter, gpointer user_data)
{
  GList *windows = gtk_application_get_windows (GTK_APPLICATION (user_data));

  /* Closing (not destroying) each window saves its session. */
  for (GList *l = windows; l != NULL;)
    {
      GtkWindow *window = l->data;

      l = l->next;
      gtk_window_close (window);
    }
}

static const GActionEntry app_actions[] = {
  { "about", about_activated },
  { "preferences", preferences_activated },
  { "shortcuts", shortcuts_activated },
  { "open", open_activated },
  { "quit", quit_activated },
};

static void
fw_application_startup (GApplication *app)
{
  FwApplication *self = FW_APPLICATION (app);

  G_APPLICATION_CLASS (fw_application_parent_class)->startup (app);

  g_action_map_add_action_entries (G_ACTION_MAP (self), app_actions, G_N_ELEMENTS (app_actions), self);
  for (guint i = 0; i < G_N_ELEMENTS (accels); i++)
    gtk_application_set_accels_for_action (GTK_APPLICATION (self), accels[i].action, accels[i].accels);

  self->settings = fw_settings_new ();
  g_signal_connect_object (self->settings, "changed::theme", G_CALLBACK (apply_theme), self, G_CONNECT_SWAPPED);
  apply_theme (self);
}

static void
fw_application_shutdown (GApplication *app)
{
  FwApplication *self = FW_APPLICATION (app);

  g_clear_object (&self->settings);
  g_clear_pointer (&self->rules, g_strfreev);
  g_clear_pointer (&self->whitelists, g_strfreev);
  g_clear_pointer (&self->ops, g_strfreev);
  G_APPLICATION_CLASS (fw_application_parent_class)->shutdown (app);
}

static void
fw_application_class_init (FwApplicationClass *klass)
{
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  app_class->startup = fw_application_startup;
  app_class->shutdown = fw_application_shutdown;
  app_class->activate = fw_application_activate;
  app_class->open = fw_application_open;

  /* Process-wide, and GLib warns when it is set twice: once per class, not per instance. */
  g_set_application_name (_("Fusion Workbench"));
}

static void
fw_application_init (FwApplication *self)
{
}

FwApplication *
fw_application_new (void)
{
  return g_object_new (FW_TYPE_APPLICATION,
                       "application-id", APP_ID,
                       "flags", G_APPLICATION_HANDLES_OPEN | G_APPLICATION_NON_UNIQUE,
                       "resource-base-path", "/org/fusionworkbench/FusionWorkbench",
                       NULL);
}

/* Relative to the folder the program was started in, whatever the process does later. */
static GStrv
absolute_paths (const char * const *paths)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  for (guint i = 0; paths != NULL && paths[i] != NULL; i++)
    {
      g_autofree char *path = g_canonicalize_filename (paths[i], NULL);

      g_strv_builder_add (builder, path);
    }
  return g_strv_builder_end (builder);
}

int
fw_application_run (int argc, char **argv, const char * const *rules, const char * const *whitelists,
                    const char * const *ops)
{
  g_autoptr(FwApplication) app = fw_application_new ();

  app->rules = absolute_paths (rules);
  app->whitelists = absolute_paths (whitelists);
  app->ops = absolute_paths (ops);
  return g_application_run (G_APPLICATION (app), argc, argv);
}

const char * const *
fw_application_get_ops (FwApplication *self)
{
  g_return_val_if_fail (FW_IS_APPLICATION (self), NULL);
  return (const char * const *) self->ops;
}
