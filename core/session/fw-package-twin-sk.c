/* fw-package-twin-sk.c: a kernel package's SuperKernel scopes on the twin (fw-package-twin-private.h). */
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "fw-package-twin-private.h"

gboolean
fw_package_twin_has_superkernels (JsonObject *root)
{
  JsonNode *n = json_object_get_member (root, "superkernels");

  return n != NULL && JSON_NODE_HOLDS_ARRAY (n) && json_array_get_length (json_node_get_array (n)) > 0;
}

/* A seeded array of argument o's dtype and dims: floats in [-1, 1), integers 0 or 1. */
static FwArray *
seeded (JsonObject *o, GRand *rand, gboolean zero, GError **error)
{
  JsonArray *dims = json_object_has_member (o, "dims") ? json_object_get_array_member (o, "dims") : NULL;
  gint64 d[FW_MAX_RANK];
  FwDType dt;
  FwArray *a;
  guint rank = dims ? MIN (json_array_get_length (dims), FW_MAX_RANK) : 0;

  if (!fw_dtype_from_name (json_object_get_string_member_with_default (o, "dtype", ""), &dt))
    {
      g_set_error (error, FW_ERROR, FW_ERROR_INVALID, _("unknown dtype"));
      return NULL;
    }
  for (guint j = 0; j < rank; j++)
    d[j] = json_array_get_int_element (dims, j);
  if ((a = fw_array_new0 (dt, rank, d, error)) == NULL || zero)
    return a;
  for (gint64 i = 0; i < a->n_elements; i++)
    fw_array_set_double (a, i, fw_dtype_is_float (dt) ? g_rand_double_range (rand, -1.0, 1.0)
                                                      : (gdouble) g_rand_int_range (rand, 0, 2));
  return a;
}

static FwTwinCheck *
run_scope (const char *dir, const char *manifest, JsonObject *so, FwAscendTwin *twin, const FwProfile *profile,
           guint64 seed, FwPackageTwinKernel *out, GError **error)
{
  JsonObject *ak = json_object_get_object_member (so, "ascend_superkernel");
  JsonArray *tiling = ak && json_object_has_member (ak, "tiling") ? json_object_get_array_member (ak, "tiling") : NULL;
  JsonArray *args = ak && json_object_has_member (ak, "arguments") ? json_object_get_array_member (ak, "arguments")
                                                                    : NULL;
  const char *entry = ak ? json_object_get_string_member_with_default (ak, "entry", NULL) : NULL;
  const char *source = ak ? json_object_get_string_member_with_default (ak, "source", NULL) : NULL;
  const char *header = ak ? json_object_get_string_member_with_default (ak, "tiling_header", NULL) : NULL;
  g_autofree char *where = g_strdup_printf ("superkernel %s", out->id);
  g_autofree char *text = NULL, *tiling_text = NULL, *kernel_name = NULL, *tiling_name = NULL;
  g_autoptr(GArray) values = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr(GPtrArray) ins = g_ptr_array_new_with_free_func ((GDestroyNotify) fw_array_unref);
  g_autoptr(GPtrArray) outs = g_ptr_array_new_with_free_func ((GDestroyNotify) fw_array_unref);
  g_autoptr(GRand) rand = g_rand_new_with_seed ((guint32) seed);
  g_autoptr(FwTwinRun) run = NULL;
  g_autoptr(GError) local = NULL;
  FwTwinKernel k = { 0 };
  FwTwinCheck *check;

  if (entry == NULL || source == NULL || header == NULL || tiling == NULL || args == NULL)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_INVALID,
                   _("%s: %s: “ascend_superkernel” needs entry, source, tiling_header, tiling and arguments"),
                   manifest, where);
      return NULL;
    }
  if ((text = fw_package_twin_read_file (dir, source, manifest, where, error)) == NULL ||
      (tiling_text = fw_package_twin_read_file (dir, header, manifest, where, error)) == NULL)
    return NULL;
  out->source = g_strdup (source);
  for (guint i = 0; i < json_array_get_length (tiling); i++)
    {
      guint64 v = (guint64) json_array_get_int_element (tiling, i);
      g_array_append_val (values, v);
    }
  for (guint i = 0; i < json_array_get_length (args); i++)
    {
      JsonObject *o = json_array_get_object_element (args, i);
      gboolean is_out = o != NULL && g_strcmp0 (json_object_get_string_member_with_default (o, "role", ""), "output") == 0;
      FwArray *a = o != NULL ? seeded (o, rand, is_out, &local) : NULL;

      if (a == NULL)
        {
          g_set_error (error, FW_ERROR, FW_ERROR_INVALID, _("%s: %s.arguments[%u]: %s"), manifest, where, i,
                       local ? local->message : _("not an object"));
          return NULL;
        }
      g_ptr_array_add (is_out ? outs : ins, a);
    }
  kernel_name = g_path_get_basename (source);
  tiling_name = g_path_get_basename (header);
  k.entry = entry;
  k.kernel_name = kernel_name;
  k.kernel_source = text;
  k.tiling_name = tiling_name;
  k.tiling_source = tiling_text;
  k.blocks = (guint) MAX (json_object_get_int_member_with_default (ak, "block_dim", 1), 1);
  k.n_tiling = 7;
  k.concurrent = TRUE;
  k.long_tiling = (const guint64 *) values->data;
  k.n_long_tiling = values->len;
  run = fw_ascend_twin_run_kernel (twin, &k, profile, (FwArray *const *) ins->pdata, ins->len,
                                   (FwArray *const *) outs->pdata, outs->len, &local);
  if (run == NULL)
    return fw_twin_check_new_error (local->message);
  /* Compared with themselves: the verdict is the run's diagnostics; the figures say "not compared". */
  check = fw_twin_check_new_from_run (run, (FwArray *const *) outs->pdata, FALSE, NULL, 0, profile);
  check->max_abs = check->max_rel = check->cosine = NAN;
  return check;
}

gboolean
fw_package_twin_run_superkernels (const char *dir, const char *manifest, JsonObject *root, FwAscendTwin *twin,
                                  const FwProfile *profile, guint64 seed, GPtrArray *kernels, GError **error)
{
  JsonArray *scopes;

  if (!fw_package_twin_has_superkernels (root))
    return TRUE;
  scopes = json_object_get_array_member (root, "superkernels");
  for (guint i = 0; i < json_array_get_length (scopes); i++)
    {
      JsonObject *so = json_array_get_object_element (scopes, i);
      FwPackageTwinKernel *k;

      if (so == NULL || !json_object_has_member (so, "ascend_superkernel"))
        continue;
      k = g_new0 (FwPackageTwinKernel, 1);
      k->id = g_strdup_printf ("s%03" G_GINT64_FORMAT, json_object_get_int_member_with_default (so, "id", i));
      k->folder = g_strdup (json_object_get_string_member_with_default (so, "folder", ""));
      k->pattern = g_strdup (json_object_get_string_member_with_default (so, "name", ""));
      g_ptr_array_add (kernels, k);
      if ((k->check = run_scope (dir, manifest, so, twin, profile, seed, k, error)) == NULL)
        return FALSE;
    }
  return TRUE;
}
