/* fw-graph-dump.c: graph dumps (fw-graph-dump.h): which bytes each stage is, written beside their text. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "codegen/fw-kernel-package.h"
#include "fw-error.h"
#include "fw-fused-model.h"
#include "fw-graph-dump.h"
#include "io/fw-file-write.h"
#include "onnx/fw-onnx-text.h"

static const char *const stage_names[] = { "0-loaded", "1-planned", "2-decided" };

gboolean
fw_graph_dump_dir_from_env (char **dir, GError **error)
{
  const char *on = g_getenv ("DUMP_GRAPH"), *path = g_getenv ("DUMP_GRAPH_PATH");

  *dir = NULL;
  if (on == NULL || on[0] == '\0' || strcmp (on, "0") == 0)
    return TRUE;
  if (strcmp (on, "1") != 0)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_USAGE, _("DUMP_GRAPH=“%s”: expected 1 or 0"), on);
      return FALSE;
    }
  *dir = g_strdup (path != NULL && path[0] != '\0' ? path : ".");
  return TRUE;
}

/* NAME.onnx and NAME.pbtxt in dir. */
static gboolean
write_pair (GBytes *bytes, const char *dir, const char *name, GError **error)
{
  g_autofree char *onnx_name = g_strconcat (name, ".onnx", NULL);
  g_autofree char *text_name = g_strconcat (name, ".pbtxt", NULL);
  g_autofree char *onnx_path = g_build_filename (dir, onnx_name, NULL);
  g_autofree char *text_path = g_build_filename (dir, text_name, NULL);
  g_autofree char *text = NULL;
  gsize len;
  const guint8 *data = g_bytes_get_data (bytes, &len);

  if (!fw_file_write (onnx_path, data, (gssize) len, error))
    return FALSE;
  text = fw_onnx_to_text (bytes, error);
  if (text == NULL)
    {
      g_prefix_error (error, "%s: ", onnx_path);
      return FALSE;
    }
  return fw_file_write (text_path, text, -1, error);
}

static gboolean
make_dir (const char *dir, GError **error)
{
  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_IO, _("cannot create the dump folder %s: %s"), dir, g_strerror (errno));
      return FALSE;
    }
  return TRUE;
}

/* One small model per fused kernel, named as the kernel package names its folders. */
static gboolean
write_kernels (FwPlan *plan, const char *dir, const char *stem, GError **error)
{
  g_autoptr(FwOnnxRewrite) rewrite = fw_fused_model_rewrite (plan, error);
  g_autofree char *name = g_strconcat (stem, ".kernels", NULL);
  g_autofree char *kdir = g_build_filename (dir, name, NULL);

  if (rewrite == NULL || !make_dir (kdir, error))
    return FALSE;
  for (guint i = 0; i < plan->candidates->len; i++)
    {
      const FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      g_autofree char *folder = NULL;
      g_autoptr(GBytes) bytes = NULL;

      if (!fw_candidate_is_fused (c) || c->nodes == NULL || c->nodes->len == 0)
        continue;
      bytes = fw_fused_model_serialize_group (rewrite, plan, i, error);
      folder = fw_kernel_package_folder_name (c);
      if (bytes == NULL || !write_pair (bytes, kdir, folder, error))
        return FALSE;
    }
  return TRUE;
}

gboolean
fw_graph_dump_write (FwPlan *plan, const char *model_path, const char *dir, FwGraphDumpStage stage, GError **error)
{
  g_autofree char *base = g_path_get_basename (model_path);
  g_autofree char *stem = g_str_has_suffix (base, ".onnx") ? g_strndup (base, strlen (base) - 5) : g_strdup (base);
  g_autofree char *name = g_strdup_printf ("%s.%s", stem, stage_names[stage]);
  g_autoptr(GBytes) bytes = NULL;

  if (!make_dir (dir, error))
    return FALSE;
  if (stage == FW_GRAPH_DUMP_LOADED)
    bytes = fw_onnx_serialize (plan->model, FW_ONNX_WRITE_INFERRED_SHAPES, error);
  else
    bytes = fw_fused_model_serialize (plan, FW_ONNX_WRITE_INFERRED_SHAPES, error);
  if (bytes == NULL || !write_pair (bytes, dir, name, error))
    return FALSE;
  return stage != FW_GRAPH_DUMP_DECIDED || write_kernels (plan, dir, stem, error);
}
