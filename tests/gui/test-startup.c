/* test-startup.c: the built program started as a person starts it from a fresh build, with no settings
 * schema installed and no GSETTINGS_SCHEMA_DIR: from the build folder it takes the schema compiled there;
 * copied anywhere else it runs on the defaults in memory, with a warning. Either way the window comes up
 * and the program is still running when it is told to stop (no abort on the missing schema). */
#include "config.h"

#include <signal.h>
#include <string.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "fw-test-models.h"

static char *tmp_dir;

/* Runs binary with no schema reachable the usual ways until it says its window is up, then stops it;
 * returns what it wrote (GLib writes debug messages to stdout, warnings to stderr). */
static char *
run_until_window (const char *binary)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                                                       G_SUBPROCESS_FLAGS_STDERR_MERGE);
  g_autofree char *empty = g_build_filename (tmp_dir, "no-schemas", NULL);
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GDataInputStream) lines = NULL;
  g_autoptr(GString) log = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  gboolean presented = FALSE;

  g_assert_cmpint (g_mkdir_with_parents (empty, 0700), ==, 0);
  g_subprocess_launcher_unsetenv (launcher, "GSETTINGS_SCHEMA_DIR");
  /* Nor an installed copy in the usual data folders. */
  g_subprocess_launcher_setenv (launcher, "XDG_DATA_DIRS", empty, TRUE);
  g_subprocess_launcher_setenv (launcher, "XDG_DATA_HOME", empty, TRUE);
  g_subprocess_launcher_setenv (launcher, "XDG_CACHE_HOME", empty, TRUE);
  g_subprocess_launcher_setenv (launcher, "GSETTINGS_BACKEND", "memory", TRUE);
  g_subprocess_launcher_setenv (launcher, "G_MESSAGES_DEBUG", "fw-app", TRUE);
  g_subprocess_launcher_setenv (launcher, "FW_HOST_PROFILE_NO_PROBE", "1", TRUE);
  g_subprocess_launcher_setenv (launcher, "GTK_A11Y", "none", TRUE);
  g_subprocess_launcher_setenv (launcher, "NO_AT_BRIDGE", "1", TRUE);
  process = g_subprocess_launcher_spawn (launcher, &error, binary, NULL);
  g_assert_no_error (error);

  lines = g_data_input_stream_new (g_subprocess_get_stdout_pipe (process));
  while (!presented)
    {
      g_autofree char *line = g_data_input_stream_read_line_utf8 (lines, NULL, NULL, &error);

      g_assert_no_error (error);
      if (line == NULL)
        break;
      g_string_append_printf (log, "%s\n", line);
      presented = strstr (line, "Window presented") != NULL;
    }
  if (!presented)
    g_test_message ("output:\n%s", log->str);
  /* Ended by itself (an abort on the schema, say) before its window came up. */
  g_assert_true (presented);

  g_subprocess_send_signal (process, SIGTERM);
  g_assert_true (g_subprocess_wait (process, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_signaled (process));
  g_assert_cmpint (g_subprocess_get_term_sig (process), ==, SIGTERM);
  return g_string_free (g_steal_pointer (&log), FALSE);
}

static void
test_startup_build_tree (void)
{
  g_autofree char *log = run_until_window (g_getenv ("FW_BIN"));

  g_assert_nonnull (strstr (log, "Settings schema from the build folder"));
  g_assert_null (strstr (log, "is not installed"));
}

static void
test_startup_no_schema (void)
{
  g_autofree char *copy = g_build_filename (tmp_dir, "bin", "fusion-workbench", NULL);
  g_autofree char *dir = g_path_get_dirname (copy);
  g_autoptr(GFile) from = g_file_new_for_path (g_getenv ("FW_BIN"));
  g_autoptr(GFile) to = g_file_new_for_path (copy);
  g_autoptr(GError) error = NULL;
  g_autofree char *log = NULL;

  /* Outside any build folder, so only the copy compiled into the program is left. */
  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_true (g_file_copy (from, to, G_FILE_COPY_OVERWRITE, NULL, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_chmod (copy, 0700), ==, 0);
  log = run_until_window (copy);
  g_assert_nonnull (strstr (log, "Settings schema from the program (in memory)"));
  g_assert_nonnull (strstr (log, "is not installed"));
}

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  tmp_dir = g_dir_make_tmp ("fw-test-startup-XXXXXX", NULL);
  g_test_add_func ("/startup/build-tree-schema", test_startup_build_tree);
  g_test_add_func ("/startup/no-schema", test_startup_no_schema);
  ret = g_test_run ();
  fw_test_remove_dir (tmp_dir);
  g_free (tmp_dir);
  return ret;
}
