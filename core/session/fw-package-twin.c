/* fw-package-twin.c: an exported kernel package's Ascend kernels on the twin (fw-package-twin.h).
 *
 * Everything the package must hold is read and checked first (manifest, kernel files, group models, the
 * arguments against the groups), so a broken package fails before any compile with the file and member at
 * fault; then each kernel is compiled and run, its failures being results, not errors. */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>
#include <json-glib/json-glib.h>

#include "exec/fw-exec.h"
#include "fw-error.h"
#include "fw-package-twin.h"
#include "fw-package-twin-private.h"
#include "hw/fw-profile.h"
#include "onnx/fw-onnx.h"
#include "shape/fw-shape-infer.h"

/* One kernel as the manifest describes it, with its files read. */
typedef struct
{
  FwPackageTwinKernel *out;
  char                *entry;
  char                *kernel_text;
  char                *tiling_name;
  char                *tiling_text;
  guint64              tiling[FW_TWIN_TILING_MAX];
  guint                n_tiling;     /* the vector tile's 7, then a mixed kernel's cube tiling */
  guint                blocks;
  guint64              workspace_bytes;  /* an integer kernel's GM workspace, 0 none */
  gdouble              product_bound;    /* an integer kernel's product bound, < 0: none given */
  char                *group;
  GPtrArray           *args;      /* JsonObject* (borrowed from the manifest) */
  guint                n_inputs;
} Planned;

static void
planned_free (gpointer data)
{
  Planned *p = data;

  g_free (p->entry);
  g_free (p->kernel_text);
  g_free (p->tiling_name);
  g_free (p->tiling_text);
  g_free (p->group);
  g_clear_pointer (&p->args, g_ptr_array_unref);
  g_free (p);
}

static void
kernel_free (gpointer data)
{
  FwPackageTwinKernel *k = data;

  g_free (k->id);
  g_free (k->folder);
  g_free (k->pattern);
  g_free (k->source);
  g_clear_pointer (&k->check, fw_twin_check_free);
  g_free (k);
}

void
fw_package_twin_result_free (FwPackageTwinResult *result)
{
  if (result == NULL)
    return;
  g_free (result->profile);
  g_ptr_array_unref (result->kernels);
  g_ptr_array_unref (result->skipped);
  g_free (result);
}

gboolean
fw_package_twin_result_pass (const FwPackageTwinResult *result)
{
  for (guint i = 0; i < result->kernels->len; i++)
    {
      const FwPackageTwinKernel *k = g_ptr_array_index (result->kernels, i);
      if (!k->check->pass || k->check->diagnostics->len > 0)
        return FALSE;
    }
  return TRUE;
}

/* Member name of o as a string, or an error naming where it was expected. */
static const char *
need_string (JsonObject *o, const char *name, const char *manifest, const char *where, GError **error)
{
  JsonNode *n = json_object_get_member (o, name);

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_STRING)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_INVALID, _("%s: %s: “%s” is missing or not a string"), manifest, where,
                   name);
      return NULL;
    }
  return json_node_get_string (n);
}

static gboolean
need_int (JsonObject *o, const char *name, const char *manifest, const char *where, gint64 *out, GError **error)
{
  JsonNode *n = json_object_get_member (o, name);

  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_INT64 ||
      json_node_get_int (n) < 0)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_INVALID, _("%s: %s: “%s” is missing or not a whole number ≥ 0"),
                   manifest, where, name);
      return FALSE;
    }
  *out = json_node_get_int (n);
  return TRUE;
}

char *
fw_package_twin_read_file (const char *dir, const char *relative, const char *manifest, const char *where,
                           GError **error)
{
  g_autofree char *path = NULL;
  char *text = NULL;

  if (g_path_is_absolute (relative) || strstr (relative, "..") != NULL)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_INVALID, _("%s: %s: “%s” is not a path inside the package"), manifest,
                   where, relative);
      return NULL;
    }
  path = g_build_filename (dir, relative, NULL);
  if (!g_file_get_contents (path, &text, NULL, error))
    {
      g_prefix_error (error, _("%s: %s: "), manifest, where);
      return NULL;
    }
  return text;
}

static gboolean
read_tiling (JsonObject *ak, Planned *p, const char *manifest, const char *where, GError **error)
{
  static const char *const fields[] = { "total_length", "tile_length", "tile_num", "rows", "row_length",
                                        "block_num", "tiles_per_block" };
  JsonNode *n = json_object_get_member (ak, "tiling");
  g_autofree char *at = g_strdup_printf ("%s.tiling", where);
  gint64 blocks = 0;

  if (n == NULL || !JSON_NODE_HOLDS_OBJECT (n))
    {
      g_set_error (error, FW_ERROR, FW_ERROR_INVALID, _("%s: %s: “%s” is missing or not an object"), manifest,
                   where, "tiling");
      return FALSE;
    }
  for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
    {
      gint64 v;
      if (!need_int (json_node_get_object (n), fields[i], manifest, at, &v, error))
        return FALSE;
      p->tiling[i] = (guint64) v;
    }
  p->n_tiling = G_N_ELEMENTS (fields);
  if (json_object_has_member (ak, "cube_tiling"))
    {
      JsonNode *c = json_object_get_member (ak, "cube_tiling");
      JsonArray *a = JSON_NODE_HOLDS_ARRAY (c) ? json_node_get_array (c) : NULL;

      if (a == NULL || json_array_get_length (a) < 4 || p->n_tiling + json_array_get_length (a) > FW_TWIN_TILING_MAX)
        {
          g_set_error (error, FW_ERROR, FW_ERROR_INVALID, _("%s: %s: “%s” is not an array of 4 to %u integers"),
                       manifest, where, "cube_tiling", FW_TWIN_TILING_MAX - p->n_tiling);
          return FALSE;
        }
      for (guint i = 0; i < json_array_get_length (a); i++)
        {
          JsonNode *e = json_array_get_element (a, i);

          if (!JSON_NODE_HOLDS_VALUE (e) || json_node_get_value_type (e) != G_TYPE_INT64 || json_node_get_int (e) < 0)
            {
              g_set_error (error, FW_ERROR, FW_ERROR_INVALID, _("%s: %s: cube_tiling[%u] is not a non-negative integer"),
                           manifest, where, i);
              return FALSE;
            }
          p->tiling[p->n_tiling++] = (guint64) json_node_get_int (e);
        }
    }
  p->workspace_bytes = json_object_has_member (ak, "workspace_bytes")
                         ? (guint64) MAX (json_object_get_int_member (ak, "workspace_bytes"), 0) : 0;
  p->product_bound = json_object_has_member (ak, "product_bound") ? json_object_get_double_member (ak, "product_bound")
                                                                  : -1.0;
  if (!need_int (ak, "block_dim", manifest, where, &blocks, error))
    return FALSE;
  if (blocks < 1 || blocks > 65535)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_INVALID, _("%s: %s: block_dim %lld is not in 1…65535"), manifest, where,
                   (long long) blocks);
      return FALSE;
    }
  p->blocks = (guint) blocks;
  return TRUE;
}

/* The kernel's arguments: inputs first, then outputs, each with a name, a dtype and static dims. */
static gboolean
read_arguments (JsonObject *ak, Planned *p, const char *manifest, const char *where, GError **error)
{
  JsonNode *n = json_object_get_member (ak, "arguments");
  JsonArray *a;
  gboolean seen_output = FALSE;

  if (n == NULL || !JSON_NODE_HOLDS_ARRAY (n))
    {
      g_set_error (error, FW_ERROR, FW_ERROR_INVALID, _("%s: %s: “%s” is missing or not an array"), manifest,
                   where, "arguments");
      return FALSE;
    }
  a = json_node_get_array (n);
  p->args = g_ptr_array_new ();
  for (guint i = 0; i < json_array_get_length (a); i++)
    {
      JsonNode *e = json_array_get_element (a, i);
      g_autofree char *at = g_strdup_printf ("%s.arguments[%u]", where, i);
      JsonObject *o;
      const char *role, *dtype;
      FwDType dt;

      if (!JSON_NODE_HOLDS_OBJECT (e))
        {
          g_set_error (error, FW_ERROR, FW_ERROR_INVALID, _("%s: %s: not an object"), manifest, at);
          return FALSE;
        }
      o = json_node_get_object (e);
      if ((role = need_string (o, "role", manifest, at, error)) == NULL ||
          need_string (o, "name", manifest, at, error) == NULL ||
          (dtype = need_string (o, "dtype", manifest, at, error)) == NULL)
        return FALSE;
      if ((strcmp (role, "input") != 0 && strcmp (role, "output") != 0) || (seen_output && role[0] == 'i') ||
          !fw_dtype_from_name (dtype, &dt) || !json_object_has_member (o, "dims") ||
          !JSON_NODE_HOLDS_ARRAY (json_object_get_member (o, "dims")))
        {
          g_set_error (error, FW_ERROR, FW_ERROR_INVALID,
                       _("%s: %s: expected role input or output (inputs first), a known dtype and dims"), manifest, at);
          return FALSE;
        }
      seen_output |= role[0] == 'o';
      p->n_inputs += role[0] == 'i';
      g_ptr_array_add (p->args, o);
    }
  return TRUE;
}

/* The manifest's ascend_kernel member of kernel ko, its files read. */
static Planned *
plan_kernel (const char *dir, const char *manifest, JsonObject *ko, FwPackageTwinKernel *out, GError **error)
{
  g_autoptr(GError) local = NULL;
  g_autofree char *where = g_strdup_printf ("kernel %s", out->id);
  JsonObject *ak = json_object_get_object_member (ko, "ascend_kernel");
  Planned *p = g_new0 (Planned, 1);
  const char *entry, *source, *tiling, *group;

  p->out = out;
  if ((entry = need_string (ak, "entry", manifest, where, &local)) == NULL ||
      (source = need_string (ak, "source", manifest, where, &local)) == NULL ||
      (tiling = need_string (ak, "tiling_header", manifest, where, &local)) == NULL ||
      (group = need_string (ko, "group", manifest, where, &local)) == NULL ||
      !read_tiling (ak, p, manifest, where, &local) || !read_arguments (ak, p, manifest, where, &local))
    goto fail;
  p->entry = g_strdup (entry);
  p->group = g_strdup (group);
  p->tiling_name = g_path_get_basename (tiling);
  out->source = g_strdup (source);
  if ((p->kernel_text = fw_package_twin_read_file (dir, source, manifest, where, &local)) == NULL ||
      (p->tiling_text = fw_package_twin_read_file (dir, tiling, manifest, where, &local)) == NULL)
    goto fail;
  return p;

fail:
  g_propagate_error (error, g_steal_pointer (&local));
  planned_free (p);
  return NULL;
}

/* Does --kernel name this one: "k003", "3" or its folder? */
static gboolean
named (const char *want, const FwPackageTwinKernel *k)
{
  const char *digits = want[0] == 'k' ? want + 1 : want;

  return strcmp (want, k->id) == 0 || strcmp (want, k->folder) == 0 ||
         (digits[0] != '\0' && strspn (digits, "0123456789") == strlen (digits) &&
          g_ascii_strtoull (digits, NULL, 10) == g_ascii_strtoull (k->id + 1, NULL, 10));
}

static JsonNode *
load_manifest (const char *manifest, JsonParser *parser, GError **error)
{
  JsonNode *root;
  JsonObject *o;
  g_autoptr(GError) local = NULL;

  if (!json_parser_load_from_file (parser, manifest, &local))
    {
      /* json-glib's message carries the line and column. */
      g_set_error (error, FW_ERROR, FW_ERROR_PARSE, _("%s: not a readable kernel package manifest: %s"), manifest,
                   local->message);
      return NULL;
    }
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root) ||
      !json_object_has_member (o = json_node_get_object (root), "kernels") ||
      !JSON_NODE_HOLDS_ARRAY (json_object_get_member (o, "kernels")) ||
      json_object_get_int_member_with_default (o, "format_version", 0) != 1)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_INVALID,
                   _("%s: expected an object with format_version 1 and a “kernels” array"), manifest);
      return NULL;
    }
  return root;
}

/* Reads every kernel the manifest lists (only the named ones when only is given). */
static gboolean
plan_all (const char *dir, const char *manifest, JsonObject *root, const char *const *only,
          FwPackageTwinResult *result, GPtrArray *planned, GError **error)
{
  JsonArray *ks = json_object_get_array_member (root, "kernels");
  gsize n_only = only ? g_strv_length ((char **) only) : 0;

  for (guint i = 0; i < json_array_get_length (ks); i++)
    {
      JsonNode *e = json_array_get_element (ks, i);
      JsonObject *ko = JSON_NODE_HOLDS_OBJECT (e) ? json_node_get_object (e) : NULL;
      g_autofree char *at = g_strdup_printf ("kernels[%u]", i);
      FwPackageTwinKernel *k;
      gint64 id;
      const char *folder;
      gboolean wanted = n_only == 0;

      if (ko == NULL || !need_int (ko, "id", manifest, at, &id, error) ||
          (folder = need_string (ko, "folder", manifest, at, error)) == NULL)
        {
          if (ko == NULL)
            g_set_error (error, FW_ERROR, FW_ERROR_INVALID, _("%s: %s: not an object"), manifest, at);
          return FALSE;
        }
      k = g_new0 (FwPackageTwinKernel, 1);
      k->id = g_strdup_printf ("k%03" G_GINT64_FORMAT, id);
      k->folder = g_strdup (folder);
      k->pattern = g_strdup (json_object_get_string_member_with_default (ko, "pattern", ""));
      /* kernel_time_s (the kernel alone); packages written before it give the group's time_after_s. */
      if (json_object_has_member (ko, "estimates"))
        {
          JsonObject *est = json_object_get_object_member (ko, "estimates");
          if (est != NULL)
            k->planner_s = json_object_get_double_member_with_default (
              est, "kernel_time_s", json_object_get_double_member_with_default (est, "time_after_s", 0));
        }
      for (gsize w = 0; w < n_only; w++)
        wanted |= named (only[w], k);
      if (!wanted)
        {
          kernel_free (k);
          continue;
        }
      if (!json_object_has_member (ko, "ascend_kernel"))
        {
          const char *why = json_object_get_string_member_with_default (ko, "ascend_skipped", NULL);
          if (n_only > 0)
            {
              g_set_error (error, FW_ERROR, FW_ERROR_USAGE,
                           _("--kernel %s: the package has no Ascend kernel for it (%s)"), k->id,
                           why ? why : _("written without the Ascend target, or by an older version"));
              kernel_free (k);
              return FALSE;
            }
          g_ptr_array_add (result->skipped, g_strdup_printf ("%s: %s", k->id, why ? why : _("no Ascend kernel")));
          kernel_free (k);
          continue;
        }
      {
        Planned *p = plan_kernel (dir, manifest, ko, k, error);
        g_ptr_array_add (result->kernels, k);
        if (p == NULL)
          return FALSE;
        g_ptr_array_add (planned, p);
      }
    }
  for (gsize w = 0; w < n_only; w++)
    {
      gboolean found = FALSE;
      for (guint i = 0; i < result->kernels->len && !found; i++)
        found = named (only[w], g_ptr_array_index (result->kernels, i));
      if (!found)
        {
          g_set_error (error, FW_ERROR, FW_ERROR_USAGE, _("--kernel %s: %s lists no such kernel"), only[w], manifest);
          return FALSE;
        }
    }
  return TRUE;
}

/* a has the dtype and dims of the manifest's argument o. */
static gboolean
matches (const FwArray *a, JsonObject *o)
{
  JsonArray *dims = json_object_get_array_member (o, "dims");
  FwDType dt;
  gboolean same;

  fw_dtype_from_name (json_object_get_string_member (o, "dtype"), &dt);
  same = a->dtype == dt && a->rank == json_array_get_length (dims);
  for (guint d = 0; same && d < a->rank; d++)
    same = a->dims[d] == json_array_get_int_element (dims, d);
  return same;
}

/* The array for the group's value named like argument o: a seeded graph input or a constant; its dtype and
 * dims must be the argument's. */
static FwArray *
argument_array (FwGraph *graph, GHashTable *seeded, JsonObject *o, const char *group, GError **error)
{
  const char *name = json_object_get_string_member (o, "name");
  FwValue *v = fw_graph_lookup_value (graph, name);
  g_autoptr(FwArray) a = NULL;

  if (v != NULL && g_hash_table_contains (seeded, v))
    a = fw_array_ref (g_hash_table_lookup (seeded, v));
  else if (v != NULL && v->constant != NULL && (a = fw_array_new_from_tensor (v->constant, error)) == NULL)
    return NULL;
  if (a == NULL)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_INVALID, _("%s: the group gives no value for the kernel's input “%s”"),
                   group, name);
      return NULL;
    }
  if (!matches (a, o))
    {
      g_set_error (error, FW_ERROR, FW_ERROR_INVALID, _("%s: “%s” does not have the dtype and dims the manifest gives "
                                                         "the kernel's argument"), group, name);
      return NULL;
    }
  return g_steal_pointer (&a);
}

/* The group run by the reference interpreter on seeded inputs: the kernel's inputs (ins) and the reference
 * values of its outputs (want), in argument order. */
static gboolean
reference (const char *dir, Planned *p, guint64 seed, GPtrArray *ins, GPtrArray *want, GError **error)
{
  g_autofree char *path = g_build_filename (dir, p->group, NULL);
  FwInferOptions infer_options = { NULL, 0 };
  FwOnnxLoadOptions load_options = { 0 };
  g_autoptr(FwModel) model = NULL;
  g_autoptr(GPtrArray) seeded = NULL;
  g_autoptr(GHashTable) by_value = g_hash_table_new (NULL, NULL);
  g_autoptr(GHashTable) keep = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) fw_array_unref);
  g_autoptr(FwExecContext) ctx = fw_exec_context_new (1, NULL);
  g_autoptr(GPtrArray) outs = NULL;
  FwGraph *graph;
  FwInferReport report;
  gboolean ok;
  guint j = 0;

  if (strstr (p->group, "..") != NULL || g_path_is_absolute (p->group))
    {
      g_set_error (error, FW_ERROR, FW_ERROR_INVALID, _("kernel %s: “%s” is not a path inside the package"),
                   p->out->id, p->group);
      return FALSE;
    }
  if ((model = fw_onnx_load (path, &load_options, NULL, error)) == NULL)
    return FALSE;
  graph = fw_model_get_graph (model);
  fw_infer_report_init (&report);
  ok = fw_shape_infer_graph (graph, &infer_options, &report, error);
  fw_infer_report_clear (&report);
  if (!ok || (seeded = fw_exec_make_inputs (model, seed, error)) == NULL)
    {
      g_prefix_error (error, "%s: ", path);
      return FALSE;
    }
  for (guint i = 0; i < fw_graph_get_n_inputs (graph); i++)
    {
      FwValue *v = fw_graph_get_input (graph, i);
      if (!fw_value_is_initializer (v) && j < seeded->len)
        g_hash_table_insert (by_value, v, g_ptr_array_index (seeded, j++));
    }
  /* An epilogue's input is the cube result inside the group: the reference computes it, as CANN's cube
   * operator would before the kernel runs. Outputs are kept too. */
  for (guint i = 0; i < p->args->len; i++)
    {
      JsonObject *o = g_ptr_array_index (p->args, i);
      FwValue *v = fw_graph_lookup_value (graph, json_object_get_string_member (o, "name"));

      if (v == NULL)
        {
          g_set_error (error, FW_ERROR, FW_ERROR_INVALID,
                       _("%s: the kernel's argument “%s” is not a value of the group"), path,
                       json_object_get_string_member (o, "name"));
          return FALSE;
        }
      if (!g_hash_table_contains (by_value, v) && v->constant == NULL)
        g_hash_table_insert (keep, v, NULL);
    }
  outs = g_ptr_array_new_with_free_func ((GDestroyNotify) fw_array_unref);
  g_ptr_array_set_size (outs, fw_graph_get_n_outputs (graph));
  if (!fw_exec_run_reference (ctx, graph, (FwArray *const *) seeded->pdata, seeded->len, (FwArray **) outs->pdata,
                              keep, error))
    {
      g_prefix_error (error, _("%s: the reference run failed: "), path);
      return FALSE;
    }
  for (guint i = 0; i < p->n_inputs; i++)
    {
      JsonObject *o = g_ptr_array_index (p->args, i);
      FwValue *v = fw_graph_lookup_value (graph, json_object_get_string_member (o, "name"));
      FwArray *a;

      if (g_hash_table_lookup (keep, v) != NULL)
        g_hash_table_insert (by_value, v, g_hash_table_lookup (keep, v));
      if ((a = argument_array (graph, by_value, o, path, error)) == NULL)
        return FALSE;
      g_ptr_array_add (ins, a);
    }
  for (guint i = p->n_inputs; i < p->args->len; i++)
    {
      JsonObject *o = g_ptr_array_index (p->args, i);
      FwValue *v = fw_graph_lookup_value (graph, json_object_get_string_member (o, "name"));
      FwArray *a = g_hash_table_lookup (keep, v);

      if (a == NULL || !matches (a, o))
        {
          g_set_error (error, FW_ERROR, FW_ERROR_INVALID, _("%s: “%s” does not have the dtype and dims the manifest gives "
                                                             "the kernel's argument"), path,
                       json_object_get_string_member (o, "name"));
          return FALSE;
        }
      g_ptr_array_add (want, fw_array_ref (a));
    }
  return TRUE;
}

/* What one run needs: read-only after set up, so runs go in parallel. */
typedef struct
{
  FwAscendTwin    *twin;
  const FwProfile *profile;
} Job;

typedef struct
{
  Planned   *p;
  GPtrArray *ins;   /* FwArray* */
  GPtrArray *want;  /* FwArray* */
} Task;

static void
task_free (gpointer data)
{
  Task *t = data;

  g_ptr_array_unref (t->ins);
  g_ptr_array_unref (t->want);
  g_free (t);
}

static void
run_one (gpointer data, gpointer user_data)
{
  Task *t = data;
  Job *job = user_data;
  Planned *p = t->p;
  g_autofree char *kernel_name = g_path_get_basename (p->out->source);
  FwTwinKernel k = { p->entry, kernel_name, p->kernel_text, p->tiling_name, p->tiling_text, { 0 }, p->blocks };
  g_autoptr(GPtrArray) outs = g_ptr_array_new_with_free_func ((GDestroyNotify) fw_array_unref);
  g_autoptr(FwTwinRun) run = NULL;
  g_autoptr(GError) error = NULL;
  gboolean half = FALSE;

  memcpy (k.tiling, p->tiling, sizeof p->tiling);
  k.n_tiling = p->n_tiling;
  k.workspace_bytes = p->workspace_bytes;
  for (guint i = 0; i < p->args->len; i++)
    {
      JsonObject *o = g_ptr_array_index (p->args, i);
      JsonArray *dims = json_object_get_array_member (o, "dims");
      gint64 d[FW_MAX_RANK];
      FwDType dt;
      FwArray *a;

      fw_dtype_from_name (json_object_get_string_member (o, "dtype"), &dt);
      half |= dt == FW_DTYPE_FLOAT16;
      if (i < p->n_inputs)
        continue;
      for (guint j = 0; j < json_array_get_length (dims) && j < FW_MAX_RANK; j++)
        d[j] = json_array_get_int_element (dims, j);
      a = fw_array_new0 (dt, MIN (json_array_get_length (dims), FW_MAX_RANK), d, &error);
      if (a == NULL)
        {
          p->out->check = fw_twin_check_new_error (error->message);
          return;
        }
      g_ptr_array_add (outs, a);
    }
  run = fw_ascend_twin_run_kernel (job->twin, &k, job->profile, (FwArray *const *) t->ins->pdata, t->ins->len,
                                   (FwArray *const *) outs->pdata, outs->len, &error);
  /* A mixed kernel (its cube tiling's fourth field is K) sums its product in another order than the
   * reference; A and B are its first two arguments. */
  p->out->check = run != NULL ? fw_twin_check_new_from_run (run, (FwArray *const *) t->want->pdata, half, NULL,
                                                            p->product_bound >= 0 ? p->product_bound
                                                            : p->n_tiling > 7 && t->ins->len >= 2
                                                              ? fw_ascend_product_tolerance (p->tiling[7 + 3],
                                                                                             g_ptr_array_index (t->ins, 0),
                                                                                             g_ptr_array_index (t->ins, 1))
                                                              : 0,
                                                            job->profile)
                              : fw_twin_check_new_error (error->message);
}

FwPackageTwinResult *
fw_package_twin_run (const char *dir, const char *const *only, const char *cache_dir, guint64 seed, GError **error)
{
  g_autofree char *manifest = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(FwPackageTwinResult) result = NULL;
  g_autoptr(GPtrArray) planned = g_ptr_array_new_with_free_func (planned_free);
  g_autoptr(GPtrArray) tasks = g_ptr_array_new_with_free_func (task_free);
  g_autoptr(FwProfile) profile = NULL;
  g_autoptr(FwHostToolchain) toolchain = NULL;
  g_autoptr(FwAscendTwin) twin = NULL;
  JsonNode *root;
  Job job;
  GThreadPool *pool;
  gboolean with_scopes;

  g_return_val_if_fail (dir != NULL, NULL);
  manifest = g_build_filename (dir, "manifest.json", NULL);
  result = g_new0 (FwPackageTwinResult, 1);
  result->kernels = g_ptr_array_new_with_free_func (kernel_free);
  result->skipped = g_ptr_array_new_with_free_func (g_free);
  if (!g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, FW_ERROR, FW_ERROR_USAGE, _("%s: no such folder (expected an exported kernel package)"), dir);
      return NULL;
    }
  /* An export's folder holds the package as kernels/. */
  if (!g_file_test (manifest, G_FILE_TEST_EXISTS))
    {
      g_autofree char *inner = g_build_filename (dir, "kernels", NULL);
      g_autofree char *inner_manifest = g_build_filename (inner, "manifest.json", NULL);

      if (g_file_test (inner_manifest, G_FILE_TEST_EXISTS))
        return fw_package_twin_run (inner, only, cache_dir, seed, error);
    }
  if (!g_file_test (manifest, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, FW_ERROR, FW_ERROR_USAGE, _("%s: no manifest.json: not a kernel package"), dir);
      return NULL;
    }
  if ((root = load_manifest (manifest, parser, error)) == NULL)
    return NULL;
  result->profile = g_strdup (json_object_get_string_member_with_default (json_node_get_object (root), "profile",
                                                                          "ascend-910b"));
  if ((profile = fw_profile_lookup (result->profile[0] ? result->profile : "ascend-910b", error)) == NULL)
    {
      g_prefix_error (error, _("%s: profile: "), manifest);
      return NULL;
    }
  if (!plan_all (dir, manifest, json_node_get_object (root), only, result, planned, error))
    return NULL;
  for (guint i = 0; i < planned->len; i++)
    {
      Task *t = g_new0 (Task, 1);
      g_autoptr(GError) own = NULL;

      t->p = g_ptr_array_index (planned, i);
      t->ins = g_ptr_array_new_with_free_func ((GDestroyNotify) fw_array_unref);
      t->want = g_ptr_array_new_with_free_func ((GDestroyNotify) fw_array_unref);
      g_ptr_array_add (tasks, t);
      if (reference (dir, t->p, seed, t->ins, t->want, &own))
        continue;
      /* A group the reference cannot run (a package whose group.onnx lacks a value the kernel reads, as ones
       * exported before group.onnx carried an integer group's shared DequantizeLinear nodes did): that kernel
       * is not checked (and counts as failed), the others run. */
      if (t->p->product_bound < 0)
        {
          g_propagate_error (error, g_steal_pointer (&own));
          return NULL;
        }
      t->p->out->check = fw_twin_check_new_error (own->message);
      g_ptr_array_remove_index (tasks, tasks->len - 1);
    }
  /* The scopes run with every kernel, not with --kernel. */
  with_scopes = (only == NULL || only[0] == NULL) && fw_package_twin_has_superkernels (json_node_get_object (root));
  if (planned->len == 0 && !with_scopes)
    return g_steal_pointer (&result);
  if ((toolchain = fw_host_toolchain_new (cache_dir, error)) == NULL || (twin = fw_ascend_twin_new (toolchain, error)) == NULL)
    return NULL;
  job = (Job) { twin, profile };
  pool = g_thread_pool_new (run_one, &job, (gint) MAX (1u, g_get_num_processors ()), FALSE, NULL);
  for (guint i = 0; i < tasks->len; i++)
    g_thread_pool_push (pool, g_ptr_array_index (tasks, i), NULL);
  g_thread_pool_free (pool, FALSE, TRUE);
  if (with_scopes && !fw_package_twin_run_superkernels (dir, manifest, json_node_get_object (root), twin, profile, seed,
                                                        result->kernels, error))
    return NULL;
  return g_steal_pointer (&result);
}
