/* fw-cann-flags.c: CANN's graph-autofusion switches, read as CANN reads them (docs/cann-flags.md).
 *
 * AUTOFUSE_FLAGS ("--enable_autofuse=true;--max_fusion_size=32;--autofuse_disable_pass=reduce") and
 * AUTOFUSE_DFX_FLAGS ("--debug_dir=DIR;--codegen_compile_debug=true;--skip_node_names_cfg=FILE") set the
 * same plan options as our AUTOFUSION_* variables, which are applied after them and win; the command line
 * wins over both. An unknown option is an error, as CANN's option parser treats it. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "fw-plan-private.h"

/* Pass names and the discovery they switch, in FwPass bit order. */
static const char *const pass_names[] = { "reduce", "matmul", "concat", "slice", "transpose", "gather", NULL };

static const char *const flag_keys[] = { "enable_autofuse", "max_fusion_size", "autofuse_enable_pass",
                                         "autofuse_disable_pass", NULL };
static const char *const dfx_keys[] = { "debug_dir", "codegen_compile_debug", "skip_node_names_cfg", NULL };

static gboolean
parse_bool (const char *var, const char *key, const char *value, gboolean *out, GError **error)
{
  if (g_ascii_strcasecmp (value, "true") == 0 || strcmp (value, "1") == 0)
    *out = TRUE;
  else if (g_ascii_strcasecmp (value, "false") == 0 || strcmp (value, "0") == 0)
    *out = FALSE;
  else
    {
      g_set_error (error, FW_ERROR, FW_ERROR_USAGE, _("%s: --%s=“%s”: expected true or false"), var, key, value);
      return FALSE;
    }
  return TRUE;
}

static gboolean
parse_passes (const char *var, const char *key, const char *value, guint *mask, GError **error)
{
  g_auto(GStrv) names = g_strsplit (value, ",", -1);

  *mask = 0;
  for (guint i = 0; names[i] != NULL; i++)
    {
      char *name = g_strstrip (names[i]);
      guint k;

      if (name[0] == '\0')
        continue;
      for (k = 0; pass_names[k] != NULL && g_ascii_strcasecmp (name, pass_names[k]) != 0; k++)
        ;
      if (pass_names[k] == NULL)
        {
          g_autofree char *known = g_strjoinv (", ", (char **) pass_names);
          g_set_error (error, FW_ERROR, FW_ERROR_USAGE, _("%s: --%s: unknown pass “%s” (known: %s)"), var, key, name,
                       known);
          return FALSE;
        }
      *mask |= 1u << k;
    }
  return TRUE;
}

/* Splits "--a=1;--b=2" (semicolons or white space between options) into key, value pairs; FALSE with an error
 * naming the variable on a malformed option or an unknown key. */
static gboolean
split_options (const char *var, const char *text, const char *const *keys, GPtrArray *out, GError **error)
{
  g_auto(GStrv) items = NULL;
  g_autofree char *copy = g_strdup (text);

  g_strdelimit (copy, "; \t\n", ';');
  items = g_strsplit (copy, ";", -1);
  for (guint i = 0; items[i] != NULL; i++)
    {
      const char *item = items[i], *eq;
      g_autofree char *key = NULL;

      if (item[0] == '\0')
        continue;
      eq = strchr (item, '=');
      if (!g_str_has_prefix (item, "--") || eq == NULL)
        {
          g_set_error (error, FW_ERROR, FW_ERROR_USAGE, _("%s: “%s” is not of the form --option=value"), var, item);
          return FALSE;
        }
      key = g_strndup (item + 2, (gsize) (eq - item - 2));
      if (!g_strv_contains (keys, key))
        {
          g_autofree char *known = g_strjoinv (", --", (char **) keys);
          g_set_error (error, FW_ERROR, FW_ERROR_USAGE, _("%s: unknown option “--%s” (known: --%s)"), var, key, known);
          return FALSE;
        }
      g_ptr_array_add (out, g_steal_pointer (&key));
      g_ptr_array_add (out, g_strdup (eq + 1));
    }
  return TRUE;
}

static gboolean
apply_flags (FwPlanOptions *options, const char *text, GError **error)
{
  const char *var = "AUTOFUSE_FLAGS";
  g_autoptr(GPtrArray) kv = g_ptr_array_new_with_free_func (g_free);
  guint enable = 0, disable = 0;

  if (!split_options (var, text, flag_keys, kv, error))
    return FALSE;
  for (guint i = 0; i + 1 < kv->len; i += 2)
    {
      const char *key = g_ptr_array_index (kv, i), *value = g_ptr_array_index (kv, i + 1);

      if (strcmp (key, "enable_autofuse") == 0 && !parse_bool (var, key, value, &options->enabled, error))
        return FALSE;
      if (strcmp (key, "max_fusion_size") == 0)
        {
          char *end = NULL;
          gint64 n;
          errno = 0;
          n = g_ascii_strtoll (value, &end, 10);
          if (errno != 0 || end == value || *end != '\0' || n < 1 || n > 4096)
            {
              g_set_error (error, FW_ERROR, FW_ERROR_USAGE, _("%s: --%s=“%s”: expected a number from 1 to 4096"), var,
                           key, value);
              return FALSE;
            }
          options->max_fusion_size = (guint) n;
        }
      if (strcmp (key, "autofuse_enable_pass") == 0 && !parse_passes (var, key, value, &enable, error))
        return FALSE;
      if (strcmp (key, "autofuse_disable_pass") == 0 && !parse_passes (var, key, value, &disable, error))
        return FALSE;
    }
  /* Enabling a pass undoes a disable given in the same variable; every pass is on by default. */
  options->disabled_passes = disable & ~enable;
  return TRUE;
}

struct _FwNodeSkips
{
  char **op_types;
  char **node_names;
  char  *file;
};

static void
skips_clear (gpointer data)
{
  FwNodeSkips *skips = data;

  g_strfreev (skips->op_types);
  g_strfreev (skips->node_names);
  g_free (skips->file);
}

FwNodeSkips *
fw_node_skips_ref (FwNodeSkips *skips)
{
  return skips != NULL ? g_atomic_rc_box_acquire (skips) : NULL;
}

void
fw_node_skips_unref (FwNodeSkips *skips)
{
  if (skips != NULL)
    g_atomic_rc_box_release_full (skips, skips_clear);
}

const char *
fw_node_skips_why (const FwNodeSkips *skips, const FwNode *node)
{
  if (skips == NULL)
    return NULL;
  if (g_strv_contains ((const char *const *) skips->node_names, node->name))
    return "ByNodeName";
  if (g_strv_contains ((const char *const *) skips->op_types, node->op_type))
    return "ByNodeType";
  return NULL;
}

const char *
fw_node_skips_get_file (const FwNodeSkips *skips)
{
  return skips->file;
}

/* The skip file: [ByNodeType] and [ByNodeName] sections, one name per line, `#` comments. */
static gboolean
read_skip_file (FwPlanOptions *options, const char *path, GError **error)
{
  FwNodeSkips *skips;
  g_autofree char *text = NULL;
  g_autoptr(GError) local = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GPtrArray) types = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  GPtrArray *section = NULL;

  if (!g_file_get_contents (path, &text, NULL, &local))
    {
      g_set_error (error, FW_ERROR, FW_ERROR_IO, _("AUTOFUSE_DFX_FLAGS: --skip_node_names_cfg: %s"), local->message);
      return FALSE;
    }
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *hash = strchr (lines[i], '#');
      char *line;

      if (hash != NULL)
        *hash = '\0';
      line = g_strstrip (lines[i]);
      if (line[0] == '\0')
        continue;
      if (line[0] == '[')
        {
          if (strcmp (line, "[ByNodeType]") == 0)
            section = types;
          else if (strcmp (line, "[ByNodeName]") == 0)
            section = names;
          else
            {
              g_set_error (error, FW_ERROR, FW_ERROR_INVALID,
                           _("%s:%u: unknown section “%s” (known: [ByNodeType], [ByNodeName])"), path, i + 1, line);
              return FALSE;
            }
          continue;
        }
      if (section == NULL)
        {
          g_set_error (error, FW_ERROR, FW_ERROR_INVALID,
                       _("%s:%u: “%s” comes before any section ([ByNodeType] or [ByNodeName])"), path, i + 1, line);
          return FALSE;
        }
      g_ptr_array_add (section, g_strdup (line));
    }
  g_ptr_array_add (types, NULL);
  g_ptr_array_add (names, NULL);
  skips = g_atomic_rc_box_new0 (FwNodeSkips);
  skips->op_types = (char **) g_ptr_array_free (g_steal_pointer (&types), FALSE);
  skips->node_names = (char **) g_ptr_array_free (g_steal_pointer (&names), FALSE);
  skips->file = g_strdup (path);
  fw_node_skips_unref (options->skips);
  options->skips = skips;
  return TRUE;
}

/* AUTOFUSE_DFX_FLAGS: the skip file goes into the plan options; the debug folder and whether to keep the
 * kernels' sources there into debug (which may be NULL when the caller keeps nothing). */
static gboolean
apply_dfx (FwPlanOptions *options, FwCannDebug *debug, const char *text, GError **error)
{
  const char *var = "AUTOFUSE_DFX_FLAGS";
  g_autoptr(GPtrArray) kv = g_ptr_array_new_with_free_func (g_free);
  gboolean compile_debug = FALSE;
  const char *dir = NULL;

  if (!split_options (var, text, dfx_keys, kv, error))
    return FALSE;
  for (guint i = 0; i + 1 < kv->len; i += 2)
    {
      const char *key = g_ptr_array_index (kv, i), *value = g_ptr_array_index (kv, i + 1);

      if (strcmp (key, "debug_dir") == 0)
        dir = value[0] != '\0' ? value : NULL;
      if (strcmp (key, "codegen_compile_debug") == 0 && !parse_bool (var, key, value, &compile_debug, error))
        return FALSE;
      if (strcmp (key, "skip_node_names_cfg") == 0 && !read_skip_file (options, value, error))
        return FALSE;
    }
  if (compile_debug && dir == NULL)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_USAGE, _("%s: --codegen_compile_debug=true needs --debug_dir=DIR"), var);
      return FALSE;
    }
  if (debug != NULL)
    {
      g_free (debug->debug_dir);
      debug->debug_dir = g_strdup (dir);
      debug->compile_debug = compile_debug;
    }
  return TRUE;
}

gboolean
fw_plan_options_from_cann_env (FwPlanOptions *options, FwCannDebug *debug, GError **error)
{
  const char *v;

  if ((v = g_getenv ("AUTOFUSE_FLAGS")) != NULL && !apply_flags (options, v, error))
    return FALSE;
  if ((v = g_getenv ("AUTOFUSE_DFX_FLAGS")) != NULL && !apply_dfx (options, debug, v, error))
    return FALSE;
  return TRUE;
}

gboolean
fw_cann_debug_from_env (FwCannDebug *debug, GError **error)
{
  FwPlanOptions scratch;
  const char *v;
  gboolean ok;

  fw_plan_options_init (&scratch);
  ok = (v = g_getenv ("AUTOFUSE_DFX_FLAGS")) == NULL || apply_dfx (&scratch, debug, v, error);
  fw_plan_options_clear (&scratch);
  return ok;
}

void
fw_cann_debug_clear (FwCannDebug *debug)
{
  g_clear_pointer (&debug->debug_dir, g_free);
  debug->compile_debug = FALSE;
}

const char *
fw_pass_name (FwPass pass)
{
  for (guint k = 0; pass_names[k] != NULL; k++)
    if (pass == (FwPass) (1u << k))
      return pass_names[k];
  return "?";
}
