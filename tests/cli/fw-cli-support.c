/* fw-cli-support.c: see fw-cli-support.h. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "fw-cli-support.h"
#include "onnx/fw-onnx.h"

const char *binary;
char *workdir;

void
fw_cli_setup (void)
{
  binary = g_getenv ("FW_BINARY");
  g_assert_nonnull (binary);
  workdir = g_dir_make_tmp ("fw-cli-XXXXXX", NULL);
  g_assert_nonnull (workdir);
}

void
fw_cli_teardown (void)
{
  g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", workdir);

  if (system (cmd) != 0)
    g_printerr ("could not remove %s\n", workdir);
  g_clear_pointer (&workdir, g_free);
}

int
run (const char * const *args, char **out, char **err)
{
  return run_env (args, NULL, out, err);
}

int
run_env (const char * const *args, const char * const *extra_env, char **out, char **err)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) env = g_get_environ ();
  int status = 0;

  g_ptr_array_add (argv, (gpointer) binary);
  for (guint i = 0; args[i]; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  /* No display: batch mode must never need one. */
  env = g_environ_unsetenv (env, "DISPLAY");
  env = g_environ_unsetenv (env, "WAYLAND_DISPLAY");
  for (guint i = 0; extra_env && extra_env[i]; i += 2)
    env = g_environ_setenv (env, extra_env[i], extra_env[i + 1], TRUE);
  g_assert_true (g_spawn_sync (workdir, (char **) argv->pdata, env, G_SPAWN_DEFAULT, NULL, NULL, out, err,
                               &status, &error));
  g_assert_no_error (error);
  return WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
}

char *
write_model (FwModel *model, const char *name)
{
  char *path = g_build_filename (workdir, name, NULL);
  g_autoptr(GError) error = NULL;

  g_assert_true (fw_onnx_write (model, path, FW_ONNX_WRITE_DEFAULT, &error));
  return path;
}

JsonObject *
parse_report (const char *path, JsonParser *parser)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (json_parser_load_from_file (parser, path, &error));
  g_assert_no_error (error);
  return json_node_get_object (json_parser_get_root (parser));
}

void
write_text (const char *name, const char *text)
{
  g_autofree char *path = g_build_filename (workdir, name, NULL);
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_set_contents (path, text, -1, &error));
}

JsonObject *
plan_of (const char *json, JsonParser *parser)
{
  g_assert_true (json_parser_load_from_data (parser, json, -1, NULL));
  return json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)), "plan");
}

gboolean
has_pattern (JsonObject *plan, const char *pattern)
{
  JsonArray *candidates = json_object_get_array_member (plan, "candidates");

  for (guint i = 0; i < json_array_get_length (candidates); i++)
    if (g_strcmp0 (json_object_get_string_member (json_array_get_object_element (candidates, i), "pattern"),
                   pattern) == 0)
      return TRUE;
  return FALSE;
}

gboolean
have_cc (void)
{
  g_autofree char *cc = g_find_program_in_path ("cc");

  if (cc == NULL)
    g_test_skip ("no C compiler");
  return cc != NULL;
}

const char *const *
cache_env (void)
{
  static char *env[3];

  if (env[0] == NULL)
    {
      env[0] = g_strdup ("XDG_CACHE_HOME");
      env[1] = g_build_filename (workdir, "cache", NULL);
    }
  return (const char *const *) env;
}

guint
n_fused_nodes (JsonObject *root)
{
  JsonArray *cands = json_object_get_array_member (json_object_get_object_member (root, "plan"), "candidates");
  guint n = 0;

  for (guint i = 0; i < json_array_get_length (cands); i++)
    n += json_array_get_length (json_object_get_array_member (json_array_get_object_element (cands, i), "nodes"));
  return n;
}
