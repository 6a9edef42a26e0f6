#include "config.h"

#include <glib/gi18n.h>

#include "fw-application.h"
#include "onnx/fw-onnx.h"

/* A placeholder window until the desktop issue builds the workbench: it opens a model given on the
 * command line and says what it holds, so the GUI path is exercised end to end. */
struct _FwApplication
{
  AdwApplication parent_instance;
};

G_DEFINE_FINAL_TYPE (FwApplication, fw_application, ADW_TYPE_APPLICATION)

static GtkWidget *
new_window (FwApplication *self, const char *text)
{
  GtkWidget *window = adw_application_window_new (GTK_APPLICATION (self));
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *header = adw_header_bar_new ();
  GtkWidget *status = adw_status_page_new ();

  gtk_window_set_title (GTK_WINDOW (window), _("Fusion Workbench"));
  gtk_window_set_default_size (GTK_WINDOW (window), 960, 640);
  adw_status_page_set_title (ADW_STATUS_PAGE (status), _("Fusion Workbench"));
  adw_status_page_set_description (ADW_STATUS_PAGE (status), text);
  adw_status_page_set_icon_name (ADW_STATUS_PAGE (status), "applications-engineering-symbolic");
  gtk_widget_set_vexpand (status, TRUE);
  gtk_box_append (GTK_BOX (box), header);
  gtk_box_append (GTK_BOX (box), status);
  adw_application_window_set_content (ADW_APPLICATION_WINDOW (window), box);
  return window;
}

static void
fw_application_activate (GApplication *app)
{
  GtkWidget *window = new_window (FW_APPLICATION (app),
                                  _("Open a model from the command line: fusion-workbench MODEL.onnx"));
  gtk_window_present (GTK_WINDOW (window));
}

static void
fw_application_open (GApplication *app, GFile **files, gint n_files, const char *hint)
{
  for (gint i = 0; i < n_files; i++)
    {
      g_autofree char *path = g_file_get_path (files[i]);
      g_autoptr(GError) error = NULL;
      g_autoptr(FwModel) model = path ? fw_onnx_load (path, NULL, NULL, &error) : NULL;
      g_autofree char *text = NULL;

      if (model != NULL)
        text = g_strdup_printf (_("%s: %u nodes"), path, fw_graph_count_nodes_deep (fw_model_get_graph (model)));
      else
        text = g_strdup (error ? error->message : _("Only local files can be opened"));
      gtk_window_present (GTK_WINDOW (new_window (FW_APPLICATION (app), text)));
    }
}

static void
fw_application_class_init (FwApplicationClass *klass)
{
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  app_class->activate = fw_application_activate;
  app_class->open = fw_application_open;
}

static void
fw_application_init (FwApplication *self)
{
}

int
fw_application_run (int argc, char **argv)
{
  g_autoptr(FwApplication) app = g_object_new (FW_TYPE_APPLICATION,
                                               "application-id", APP_ID,
                                               "flags", G_APPLICATION_HANDLES_OPEN | G_APPLICATION_NON_UNIQUE,
                                               NULL);
  return g_application_run (G_APPLICATION (app), argc, argv);
}
