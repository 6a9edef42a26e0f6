#include "config.h"

#include <glib/gstdio.h>
/* For the memory backend. */
#define G_SETTINGS_ENABLE_BACKEND
#include <gio/gsettingsbackend.h>

#include "fw-settings.h"

#define BUILTIN_SCHEMAS "/org/fusionworkbench/FusionWorkbench/schemas/gschemas.compiled"

static GSettingsSchema *schema;
static GSettingsBackend *backend;   /* NULL: GLib's default */
static FwSettingsSource source;

/* data/gschemas.compiled of the build folder whose app/ holds the running program: `ninja -C build` then
 * build/app/fusion-workbench works without installing or setting GSETTINGS_SCHEMA_DIR. */
static GSettingsSchema *
lookup_in_build_tree (void)
{
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *app_dir = NULL;
  g_autofree char *data_dir = NULL;
  g_autofree char *compiled = NULL;
  g_autoptr(GSettingsSchemaSource) from_dir = NULL;

  if (exe == NULL)
    return NULL;
  app_dir = g_path_get_dirname (exe);
  data_dir = g_build_filename (app_dir, "..", "data", NULL);
  compiled = g_build_filename (data_dir, "gschemas.compiled", NULL);
  if (!g_file_test (compiled, G_FILE_TEST_IS_REGULAR))
    return NULL;
  from_dir = g_settings_schema_source_new_from_directory (data_dir, NULL, FALSE, NULL);
  return from_dir != NULL ? g_settings_schema_source_lookup (from_dir, APP_ID, FALSE) : NULL;
}

/* The schema compiled into the program's resources. A schema source reads only folders, so the bytes go
 * into a private folder for as long as it takes to map them. */
static GSettingsSchema *
lookup_builtin (void)
{
  g_autoptr(GBytes) bytes = g_resources_lookup_data (BUILTIN_SCHEMAS, G_RESOURCE_LOOKUP_FLAGS_NONE, NULL);
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  g_autoptr(GSettingsSchemaSource) from_dir = NULL;
  GSettingsSchema *found = NULL;
  gsize size = 0;
  gconstpointer data;

  if (bytes == NULL || (dir = g_dir_make_tmp ("fusion-workbench-schema-XXXXXX", NULL)) == NULL)
    return NULL;
  path = g_build_filename (dir, "gschemas.compiled", NULL);
  data = g_bytes_get_data (bytes, &size);
  if (g_file_set_contents (path, data, size, NULL))
    {
      from_dir = g_settings_schema_source_new_from_directory (dir, NULL, TRUE, NULL);
      if (from_dir != NULL)
        found = g_settings_schema_source_lookup (from_dir, APP_ID, FALSE);
    }
  g_unlink (path);
  g_rmdir (dir);
  return found;
}

static gpointer
find_schema (gpointer data)
{
  GSettingsSchemaSource *installed = g_settings_schema_source_get_default ();

  if (installed != NULL && (schema = g_settings_schema_source_lookup (installed, APP_ID, TRUE)) != NULL)
    source = FW_SETTINGS_INSTALLED;
  else if ((schema = lookup_in_build_tree ()) != NULL)
    source = FW_SETTINGS_BUILD_TREE;
  else
    {
      schema = lookup_builtin ();
      /* The resource is linked into every build with the window: its absence is a build error. */
      g_assert (schema != NULL);
      source = FW_SETTINGS_MEMORY;
      backend = g_memory_settings_backend_new ();
      g_warning ("The settings schema %s is not installed and no build folder holds it: preferences are "
                 "the defaults and are forgotten when the program ends. Install the program, or start it "
                 "with GSETTINGS_SCHEMA_DIR set to the folder of gschemas.compiled.", APP_ID);
    }
  g_debug ("Settings schema from %s",
           source == FW_SETTINGS_INSTALLED ? "the installed schemas"
           : source == FW_SETTINGS_BUILD_TREE ? "the build folder" : "the program (in memory)");
  return NULL;
}

static void
ensure_schema (void)
{
  static GOnce once = G_ONCE_INIT;

  g_once (&once, find_schema, NULL);
}

GSettings *
fw_settings_new (void)
{
  ensure_schema ();
  return g_settings_new_full (schema, backend, NULL);
}

FwSettingsSource
fw_settings_get_source (void)
{
  ensure_schema ();
  return source;
}
