/* fw-profile.c: reading, checking and writing hardware profiles (format: data/hw/README.md). */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include <gio/gio.h>
#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "hw/fw-hw-private.h"
#include "hw/fw-hw-resources.h"

/* Past 1 TiB a size is a typo, not a buffer; the cap also keeps every size exact in a double. */
#define MAX_SIZE_BYTES   1099511627776.0
#define MAX_COUNT        65536
/* Loose ceilings that only catch unit slips ("1.6 PB/s" for "1.6 TB/s"); no chip is near them. */
#define MAX_RATE_BYTES   1e16
#define MAX_RATE_FLOPS   1e19
#define MAX_OVERHEAD_S   1.0

static const char * const builtin_names[] = { "ascend-910b", "ascend-310p", "host", NULL };

static const char * const top_keys[] = {
  "version", "name", "description", "kind", "machine", "cores", "memory", "bandwidth", "throughput",
  "overhead", "limits", "calibration", NULL,
};
static const char * const cores_keys[] = { "cube", "vector", NULL };
static const char * const memory_keys[] = { "ub", "ub_reserve", "l1", "l0a", "l0b", "l0c", "l2", NULL };
static const char * const bandwidth_keys[] = { "hbm", NULL };
/* The key names the data type so a reader never has to guess what the number counts. */
static const char * const throughput_npu_keys[] = { "cube_fp16", "vector_fp16", "cube_int8", NULL };
static const char * const throughput_cpu_keys[] = { "cube_fp32", "vector_fp32", "cube_int8", NULL };
static const char * const overhead_keys[] = { "launch", "sync", NULL };
/* In FwCostClass order. */
static const char * const calibration_keys[] = {
  "simple", "divide", "exp", "erf", "tanh", "pow", "transcendental", "reduce", "gemm_small", "gemm_medium",
  "gemm_large", "fused_gemm_small", "fused_gemm_medium", "fused_gemm_large", NULL,
};
G_STATIC_ASSERT (G_N_ELEMENTS (calibration_keys) == FW_COST_N_CLASSES + 1);
/* A factor beyond these is a broken measurement, not a machine. */
#define MIN_CLASS_FACTOR 1e-4
#define MAX_CLASS_FACTOR 1e4
static const char * const limits_keys[] = {
  "budget_fraction", "max_vector_queues", "max_kernel_inputs", "max_fused_nodes", "ub_align", NULL,
};

FwProfile *
fw_profile_ref (FwProfile *profile)
{
  g_return_val_if_fail (profile != NULL, NULL);
  g_atomic_ref_count_inc (&profile->ref_count);
  return profile;
}

void
fw_profile_unref (FwProfile *profile)
{
  if (profile == NULL || !g_atomic_ref_count_dec (&profile->ref_count))
    return;
  g_free (profile->name);
  g_free (profile->description);
  g_free (profile->source);
  g_free (profile);
}

const char * const *
fw_profile_builtin_names (void)
{
  return builtin_names;
}

gdouble
fw_profile_class_factor (const FwProfile *profile, FwCostClass cost_class)
{
  g_return_val_if_fail (profile != NULL && cost_class < FW_COST_N_CLASSES, 1);
  return profile->class_factor[cost_class] > 0 ? profile->class_factor[cost_class] : 1;
}

const char *
fw_cost_class_key (FwCostClass cost_class)
{
  g_return_val_if_fail (cost_class < FW_COST_N_CLASSES, NULL);
  return calibration_keys[cost_class];
}

gdouble
fw_profile_budget_bytes (const FwProfile *profile)
{
  g_return_val_if_fail (profile != NULL, 0);
  if (profile->ub_bytes <= profile->ub_reserve_bytes)
    return 0;
  return (gdouble) (profile->ub_bytes - profile->ub_reserve_bytes) * profile->budget_fraction;
}

/* One mapping of the document and its name, so that every error can say "memory.ub", not just "ub". */
typedef struct
{
  const FwYamlDocument *doc;
  const char           *name;  /* NULL at the top level */
  const FwYamlNode     *map;   /* NULL for an optional section that is absent: every key takes its default */
} Section;

static char *
key_path (const Section *s, const char *key)
{
  return s->name ? g_strconcat (s->name, ".", key, NULL) : g_strdup (key);
}

/* The fw-yaml readers say where but not which key; a user fixing a file needs both, so their message is
 * re-issued at the same place with the key in front. */
static gboolean
rethrow_with_key (const Section *s, const FwYamlNode *node, const char *path, GError *local, GError **error)
{
  g_autofree char *prefix = g_strdup_printf ("%s:%u:%u: ", s->doc->filename, node->line, node->column);
  const char *message = local->message;

  if (g_str_has_prefix (message, prefix))
    message += strlen (prefix);
  fw_yaml_error (error, s->doc, node, "%s: %s", path, message);
  g_error_free (local);
  return FALSE;
}

static gboolean
missing_key (const Section *s, const char *path, GError **error)
{
  return fw_yaml_error (error, s->doc, s->map, _("missing key “%s”"), path);
}

static gboolean
get_section (const FwYamlDocument *doc, const FwYamlNode *root, const char *name, gboolean required,
             const char * const *allowed, Section *out, GError **error)
{
  const FwYamlNode *node = fw_yaml_get (root, name);

  out->doc = doc;
  out->name = name;
  out->map = NULL;
  if (node == NULL)
    {
      Section top = { doc, NULL, root };
      return required ? missing_key (&top, name, error) : TRUE;
    }
  if (node->kind != FW_YAML_MAPPING)
    return fw_yaml_error (error, doc, node, _("%s: must be a mapping of keys, not %s"), name,
                          fw_yaml_kind_name (node->kind));
  if (!fw_yaml_check_keys (doc, node, allowed, error))
    return FALSE;
  out->map = node;
  return TRUE;
}

static gboolean
read_count (const Section *s, const char *key, gboolean required, guint fallback, guint *out,
            const FwYamlNode **node_out, GError **error)
{
  const FwYamlNode *node = fw_yaml_get (s->map, key);
  g_autofree char *path = key_path (s, key);
  GError *local = NULL;
  gint64 v;

  if (node_out)
    *node_out = node;
  if (node == NULL)
    {
      if (required)
        return missing_key (s, path, error);
      *out = fallback;
      return TRUE;
    }
  if (!fw_yaml_get_int (s->doc, node, 1, MAX_COUNT, &v, &local))
    return rethrow_with_key (s, node, path, local, error);
  *out = (guint) v;
  return TRUE;
}

static gboolean
read_size (const Section *s, const char *key, gboolean required, guint64 fallback, guint64 *out,
           const FwYamlNode **node_out, GError **error)
{
  const FwYamlNode *node = fw_yaml_get (s->map, key);
  g_autofree char *path = key_path (s, key);
  GError *local = NULL;
  double v;

  if (node_out)
    *node_out = node;
  if (node == NULL)
    {
      if (required)
        return missing_key (s, path, error);
      *out = fallback;
      return TRUE;
    }
  if (!fw_yaml_get_quantity (s->doc, node, "bytes", &v, &local))
    return rethrow_with_key (s, node, path, local, error);
  if (v > MAX_SIZE_BYTES)
    return fw_yaml_error (error, s->doc, node, _("%s: “%s” is larger than 1 TiB"), path, node->scalar);
  if (v != floor (v))
    return fw_yaml_error (error, s->doc, node, _("%s: “%s” is not a whole number of bytes"), path,
                          node->scalar);
  *out = (guint64) v;
  return TRUE;
}

/* Rates must be positive: a zero bandwidth or throughput would make every cost infinite. */
static gboolean
read_rate (const Section *s, const char *key, const char *unit_kind, double max, double *out, GError **error)
{
  const FwYamlNode *node = fw_yaml_get (s->map, key);
  g_autofree char *path = key_path (s, key);
  GError *local = NULL;
  double v;

  if (node == NULL)
    return missing_key (s, path, error);
  if (!fw_yaml_get_quantity (s->doc, node, unit_kind, &v, &local))
    return rethrow_with_key (s, node, path, local, error);
  if (v <= 0)
    return fw_yaml_error (error, s->doc, node, _("%s: must be greater than 0"), path);
  if (v > max)
    return fw_yaml_error (error, s->doc, node, _("%s: “%s” is implausibly large (check the unit)"), path,
                          node->scalar);
  *out = v;
  return TRUE;
}

static gboolean
read_time (const Section *s, const char *key, double fallback, double *out, GError **error)
{
  const FwYamlNode *node = fw_yaml_get (s->map, key);
  g_autofree char *path = key_path (s, key);
  GError *local = NULL;
  double v;

  if (node == NULL)
    {
      *out = fallback;
      return TRUE;
    }
  if (!fw_yaml_get_quantity (s->doc, node, "s", &v, &local))
    return rethrow_with_key (s, node, path, local, error);
  if (v > MAX_OVERHEAD_S)
    return fw_yaml_error (error, s->doc, node, _("%s: “%s” is longer than 1 s (check the unit)"), path,
                          node->scalar);
  *out = v;
  return TRUE;
}

static gboolean
read_string (const Section *s, const char *key, gboolean required, const char **out, const FwYamlNode **node_out,
             GError **error)
{
  const FwYamlNode *node = fw_yaml_get (s->map, key);
  g_autofree char *path = key_path (s, key);
  GError *local = NULL;

  *node_out = node;
  *out = NULL;
  if (node == NULL)
    return required ? missing_key (s, path, error) : TRUE;
  if (!fw_yaml_get_string (s->doc, node, out, &local))
    return rethrow_with_key (s, node, path, local, error);
  return TRUE;
}

static gboolean
valid_name (const char *name)
{
  if (name[0] == '\0' || strlen (name) > 64)
    return FALSE;
  for (const char *p = name; *p; p++)
    if (!g_ascii_isalnum (*p) && *p != '-' && *p != '_' && *p != '.')
      return FALSE;
  return TRUE;
}

/* The top level: a mapping of known keys, version 1, then name, description, kind and machine. Nothing is
 * stored in *machine_out unless this succeeds. */
static gboolean
read_identity (const FwYamlDocument *doc, const Section *top, FwProfile *p, char **machine_out, GError **error)
{
  const FwYamlNode *root = doc->root;
  const FwYamlNode *node;
  const char *text;
  gint64 version;
  GError *local = NULL;

  if (root == NULL)
    {
      fw_yaml_error (error, doc, NULL, _("the profile is empty"));
      return FALSE;
    }
  if (root->kind != FW_YAML_MAPPING)
    {
      fw_yaml_error (error, doc, root, _("a hardware profile must be a mapping of keys, not %s"),
                     fw_yaml_kind_name (root->kind));
      return FALSE;
    }
  if (!fw_yaml_check_keys (doc, root, top_keys, error))
    return FALSE;

  /* The version first: a newer file's other errors would only mislead. */
  node = fw_yaml_get (root, "version");
  if (node == NULL)
    {
      missing_key (top, "version", error);
      return FALSE;
    }
  if (!fw_yaml_get_int (doc, node, G_MININT, G_MAXINT, &version, &local))
    {
      rethrow_with_key (top, node, "version", local, error);
      return FALSE;
    }
  if (version != 1)
    {
      fw_yaml_error (error, doc, node, _("version: this program reads version 1 profiles, not %" PRId64),
                     version);
      return FALSE;
    }

  if (!read_string (top, "name", TRUE, &text, &node, error))
    return FALSE;
  if (!valid_name (text))
    {
      fw_yaml_error (error, doc, node,
                     _("name: “%s” must be 1 to 64 letters, digits, “.”, “_” or “-”"), text);
      return FALSE;
    }
  p->name = g_strdup (text);
  if (!read_string (top, "description", FALSE, &text, &node, error))
    return FALSE;
  p->description = g_strdup (text ? text : "");
  if (!read_string (top, "kind", TRUE, &text, &node, error))
    return FALSE;
  if (strcmp (text, "npu") == 0)
    p->kind = FW_PROFILE_NPU;
  else if (strcmp (text, "cpu") == 0)
    p->kind = FW_PROFILE_CPU;
  else
    {
      fw_yaml_error (error, doc, node, _("kind: “%s” is neither “npu” nor “cpu”"), text);
      return FALSE;
    }
  if (!read_string (top, "machine", FALSE, &text, &node, error))
    return FALSE;
  if (machine_out)
    *machine_out = g_strdup (text);
  return TRUE;
}

/* cores and memory: the unit counts and every on-chip buffer's size. */
static gboolean
read_cores_and_memory (const FwYamlDocument *doc, FwProfile *p, GError **error)
{
  const FwYamlNode *ub_node, *reserve_node;
  Section cores, memory;

  if (!get_section (doc, doc->root, "cores", TRUE, cores_keys, &cores, error)
      || !read_count (&cores, "cube", TRUE, 0, &p->cube_cores, NULL, error)
      || !read_count (&cores, "vector", TRUE, 0, &p->vector_cores, NULL, error))
    return FALSE;

  if (!get_section (doc, doc->root, "memory", TRUE, memory_keys, &memory, error)
      || !read_size (&memory, "ub", TRUE, 0, &p->ub_bytes, &ub_node, error)
      || !read_size (&memory, "ub_reserve", FALSE, 0, &p->ub_reserve_bytes, &reserve_node, error)
      || !read_size (&memory, "l1", FALSE, 0, &p->l1_bytes, NULL, error)
      || !read_size (&memory, "l0a", FALSE, 0, &p->l0a_bytes, NULL, error)
      || !read_size (&memory, "l0b", FALSE, 0, &p->l0b_bytes, NULL, error)
      || !read_size (&memory, "l0c", FALSE, 0, &p->l0c_bytes, NULL, error)
      || !read_size (&memory, "l2", FALSE, 0, &p->l2_bytes, NULL, error))
    return FALSE;
  if (p->ub_bytes <= p->ub_reserve_bytes)
    {
      fw_yaml_error (error, doc, reserve_node ? reserve_node : ub_node,
                     _("memory.ub (%" PRIu64 " B) must be larger than memory.ub_reserve (%" PRIu64 " B)"),
                     p->ub_bytes, p->ub_reserve_bytes);
      return FALSE;
    }
  return TRUE;
}

/* bandwidth, throughput (fp16 keys for an NPU, fp32 for a CPU) and overhead. */
static gboolean
read_rates (const FwYamlDocument *doc, FwProfile *p, GError **error)
{
  const FwYamlNode *root = doc->root;
  Section bandwidth, throughput, overhead;

  if (!get_section (doc, root, "bandwidth", TRUE, bandwidth_keys, &bandwidth, error)
      || !read_rate (&bandwidth, "hbm", "bytes/s", MAX_RATE_BYTES, &p->hbm_bytes_per_s, error))
    return FALSE;

  if (p->kind == FW_PROFILE_NPU)
    {
      if (!get_section (doc, root, "throughput", TRUE, throughput_npu_keys, &throughput, error)
          || !read_rate (&throughput, "cube_fp16", "flop/s", MAX_RATE_FLOPS, &p->cube_flops_per_s, error)
          || !read_rate (&throughput, "vector_fp16", "flop/s", MAX_RATE_FLOPS, &p->vector_flops_per_s, error))
        return FALSE;
    }
  else
    {
      if (!get_section (doc, root, "throughput", TRUE, throughput_cpu_keys, &throughput, error)
          || !read_rate (&throughput, "cube_fp32", "flop/s", MAX_RATE_FLOPS, &p->cube_flops_per_s, error)
          || !read_rate (&throughput, "vector_fp32", "flop/s", MAX_RATE_FLOPS, &p->vector_flops_per_s, error))
        return FALSE;
    }

  /* Integer products (int8 × int8 summed in int32): optional, the matrix rate when not given. */
  p->cube_int8_ops_per_s = p->cube_flops_per_s;
  if (fw_yaml_get (throughput.map, "cube_int8") != NULL &&
      !read_rate (&throughput, "cube_int8", "flop/s", MAX_RATE_FLOPS, &p->cube_int8_ops_per_s, error))
    return FALSE;

  return get_section (doc, root, "overhead", FALSE, overhead_keys, &overhead, error)
         && read_time (&overhead, "launch", 5e-6, &p->launch_overhead_s, error)
         && read_time (&overhead, "sync", 1e-6, &p->sync_overhead_s, error);
}

/* limits, each with its default. */
static gboolean
read_limits (const FwYamlDocument *doc, FwProfile *p, GError **error)
{
  const FwYamlNode *node, *align_node;
  Section limits;
  guint64 align;
  GError *local = NULL;

  if (!get_section (doc, doc->root, "limits", FALSE, limits_keys, &limits, error))
    return FALSE;
  node = fw_yaml_get (limits.map, "budget_fraction");
  p->budget_fraction = 0.8;
  if (node != NULL)
    {
      if (!fw_yaml_get_double (doc, node, 0, 1, &p->budget_fraction, &local))
        {
          rethrow_with_key (&limits, node, "limits.budget_fraction", local, error);
          return FALSE;
        }
      if (p->budget_fraction <= 0)
        {
          fw_yaml_error (error, doc, node, _("limits.budget_fraction: must be greater than 0 and at most 1"));
          return FALSE;
        }
    }
  if (!read_count (&limits, "max_vector_queues", FALSE, 4, &p->max_vector_queues, NULL, error)
      || !read_count (&limits, "max_kernel_inputs", FALSE, 8, &p->max_kernel_inputs, NULL, error)
      || !read_count (&limits, "max_fused_nodes", FALSE, 64, &p->max_fused_nodes, NULL, error)
      || !read_size (&limits, "ub_align", FALSE, 32, &align, &align_node, error))
    return FALSE;
  if (align == 0 || align > 4096 || (align & (align - 1)) != 0)
    {
      fw_yaml_error (error, doc, align_node,
                     _("limits.ub_align: %" PRIu64 " B is not a power of two from 1 B to 4 KiB"), align);
      return FALSE;
    }
  p->ub_align_bytes = (guint) align;
  return TRUE;
}

/* calibration: optional; every class absent from it keeps factor 1. */
static gboolean
read_calibration (const FwYamlDocument *doc, FwProfile *p, GError **error)
{
  Section calibration;

  for (guint c = 0; c < FW_COST_N_CLASSES; c++)
    p->class_factor[c] = 1;
  if (!get_section (doc, doc->root, "calibration", FALSE, calibration_keys, &calibration, error))
    return FALSE;
  if (calibration.map == NULL)
    return TRUE;
  p->calibrated = TRUE;
  for (guint c = 0; c < FW_COST_N_CLASSES; c++)
    {
      const FwYamlNode *node = fw_yaml_get (calibration.map, calibration_keys[c]);
      g_autofree char *path = key_path (&calibration, calibration_keys[c]);
      GError *local = NULL;

      if (node == NULL)
        continue;
      if (!fw_yaml_get_double (doc, node, MIN_CLASS_FACTOR, MAX_CLASS_FACTOR, &p->class_factor[c], &local))
        return rethrow_with_key (&calibration, node, path, local, error);
    }
  return TRUE;
}

FwProfile *
fw_profile_from_document (const FwYamlDocument *doc, const char *source, char **machine_out, GError **error)
{
  g_autoptr(FwProfile) p = g_new0 (FwProfile, 1);
  Section top = { doc, NULL, doc->root };

  g_atomic_ref_count_init (&p->ref_count);
  if (!read_identity (doc, &top, p, machine_out, error))
    return NULL;
  if (!read_cores_and_memory (doc, p, error) || !read_rates (doc, p, error) || !read_limits (doc, p, error)
      || !read_calibration (doc, p, error))
    {
      if (machine_out)
        g_clear_pointer (machine_out, g_free);
      return NULL;
    }
  p->source = g_strdup (source);
  return g_steal_pointer (&p);
}

FwProfile *
fw_profile_load_data (const char *display_name, const char *data, gsize len, GError **error)
{
  g_autoptr(FwYamlDocument) doc = NULL;

  g_return_val_if_fail (display_name != NULL && data != NULL, NULL);
  doc = fw_yaml_load_data (display_name, data, len, error);
  if (doc == NULL)
    return NULL;
  return fw_profile_from_document (doc, display_name, NULL, error);
}

FwProfile *
fw_profile_load_file (const char *path, GError **error)
{
  g_autoptr(FwYamlDocument) doc = NULL;

  g_return_val_if_fail (path != NULL, NULL);
  doc = fw_yaml_load_file (path, error);
  if (doc == NULL)
    return NULL;
  return fw_profile_from_document (doc, path, NULL, error);
}

FwProfile *
fw_profile_load_resource (const char *name, GError **error)
{
  g_autofree char *path = g_strconcat (FW_HW_RESOURCE_PREFIX, name, ".yaml", NULL);
  g_autofree char *display = g_strconcat ("resource://", path, NULL);
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) local = NULL;
  gsize len = 0;
  const char *data;

  /* libfwcore is static, so the resource's constructor may never run: ask the resource itself. */
  bytes = g_resource_lookup_data (fw_hw_get_resource (), path, G_RESOURCE_LOOKUP_FLAGS_NONE, &local);
  if (bytes == NULL)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_INTERNAL, _("the builtin profile %s is missing: %s"), display,
                   local->message);
      return NULL;
    }
  data = g_bytes_get_data (bytes, &len);
  return fw_profile_load_data (display, data, len, error);
}

FwProfile *
fw_profile_load_builtin (const char *name, GError **error)
{
  g_return_val_if_fail (name != NULL, NULL);
  if (!g_strv_contains (builtin_names, name))
    {
      g_autofree char *list = g_strjoinv (", ", (char **) builtin_names);
      g_set_error (error, FW_ERROR, FW_ERROR_USAGE, _("no builtin hardware profile “%s” (there are: %s)"), name,
                   list);
      return NULL;
    }
  if (strcmp (name, "host") == 0)
    return fw_host_profile_load (error);
  return fw_profile_load_resource (name, error);
}

FwProfile *
fw_profile_lookup (const char *name_or_path, GError **error)
{
  g_return_val_if_fail (name_or_path != NULL, NULL);
  if (g_strv_contains (builtin_names, name_or_path))
    return fw_profile_load_builtin (name_or_path, error);
  /* Something that looks like a path gets the file system's own complaint, naming the path. */
  if (g_file_test (name_or_path, G_FILE_TEST_EXISTS) || strchr (name_or_path, G_DIR_SEPARATOR) != NULL
      || g_str_has_suffix (name_or_path, ".yaml") || g_str_has_suffix (name_or_path, ".yml"))
    return fw_profile_load_file (name_or_path, error);
  {
    g_autofree char *list = g_strjoinv (", ", (char **) builtin_names);
    g_set_error (error, FW_ERROR, FW_ERROR_USAGE,
                 _("“%s” is neither a builtin hardware profile (%s) nor a profile file"), name_or_path, list);
  }
  return NULL;
}

/* YAML double-quoted text: every byte that could end or bend the string is escaped. */
static void
append_quoted (GString *out, const char *text)
{
  g_string_append_c (out, '"');
  for (const char *p = text; *p; p++)
    {
      if (*p == '"' || *p == '\\')
        g_string_append_printf (out, "\\%c", *p);
      else if (*p == '\n')
        g_string_append (out, "\\n");
      else if ((guchar) *p < 0x20 || *p == 0x7f)
        g_string_append_printf (out, "\\x%02x", (guchar) *p);
      else
        g_string_append_c (out, *p);
    }
  g_string_append_c (out, '"');
}

/* The shortest decimal that reads back as the same double, so a cached profile is exact and readable. */
static void
format_number (char *buf, gsize size, double v)
{
  static const char * const formats[] = {
    "%.6g", "%.7g", "%.8g", "%.9g", "%.10g", "%.11g", "%.12g", "%.13g", "%.14g", "%.15g", "%.16g", "%.17g",
  };

  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      g_ascii_formatd (buf, size, formats[i], v);
      if (g_ascii_strtod (buf, NULL) == v)
        break;
    }
}

static void
append_number (GString *out, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  format_number (buf, sizeof buf, v);
  g_string_append (out, buf);
}

typedef struct
{
  const char *unit;
  double      factor;
} Unit;

static const Unit rate_units[] = { { "TB/s", 1e12 }, { "GB/s", 1e9 }, { "MB/s", 1e6 }, { "B/s", 1 }, { NULL, 0 } };
static const Unit flop_units[] = {
  { "PFLOP/s", 1e15 }, { "TFLOP/s", 1e12 }, { "GFLOP/s", 1e9 }, { "MFLOP/s", 1e6 }, { "FLOP/s", 1 }, { NULL, 0 },
};
static const Unit time_units[] = { { "s", 1 }, { "ms", 1e-3 }, { "us", 1e-6 }, { "ns", 1e-9 }, { NULL, 0 } };

/* The unit giving the shortest number that reads back exactly (the larger unit on a tie): fw-yaml
 * multiplies the number by the unit's factor, so "0.5 us" is checked the way it will be read. The plain
 * unit always qualifies, since the shortest repr reads back by construction. */
static void
append_quantity (GString *out, const char *key, double v, const Unit *units)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE], best[G_ASCII_DTOSTR_BUF_SIZE] = "";
  const char *best_unit = NULL;

  for (const Unit *u = units; u->unit; u++)
    {
      format_number (buf, sizeof buf, v / u->factor);
      if (g_ascii_strtod (buf, NULL) * u->factor != v)
        continue;
      if (best_unit == NULL || strlen (buf) < strlen (best))
        {
          g_strlcpy (best, buf, sizeof best);
          best_unit = u->unit;
        }
    }
  g_assert (best_unit != NULL);
  g_string_append_printf (out, "  %s: %s %s\n", key, best, best_unit);
}

static void
append_size (GString *out, const char *key, guint64 bytes)
{
  static const struct { const char *unit; guint64 factor; } units[] = {
    { "GiB", G_GUINT64_CONSTANT (1) << 30 }, { "MiB", 1 << 20 }, { "KiB", 1 << 10 },
  };
  const char *unit = "B";
  guint64 n = bytes;

  for (guint i = 0; bytes != 0 && i < G_N_ELEMENTS (units); i++)
    if (bytes % units[i].factor == 0)
      {
        n = bytes / units[i].factor;
        unit = units[i].unit;
        break;
      }
  g_string_append_printf (out, "  %s: %" G_GUINT64_FORMAT " %s\n", key, n, unit);
}

char *
fw_profile_serialize (const FwProfile *p, const char *machine, const char *header_comment)
{
  GString *out = g_string_new (NULL);
  gboolean npu = p->kind == FW_PROFILE_NPU;

  if (header_comment)
    {
      g_auto(GStrv) lines = g_strsplit (header_comment, "\n", -1);
      for (guint i = 0; lines[i]; i++)
        g_string_append_printf (out, "# %s\n", lines[i]);
    }
  g_string_append (out, "version: 1\nname: ");
  append_quoted (out, p->name);
  g_string_append (out, "\ndescription: ");
  append_quoted (out, p->description ? p->description : "");
  g_string_append_printf (out, "\nkind: %s\n", npu ? "npu" : "cpu");
  if (machine)
    {
      g_string_append (out, "machine: ");
      append_quoted (out, machine);
      g_string_append_c (out, '\n');
    }
  g_string_append_printf (out, "cores:\n  cube: %u\n  vector: %u\n", p->cube_cores, p->vector_cores);
  g_string_append (out, "memory:\n");
  append_size (out, "ub", p->ub_bytes);
  append_size (out, "ub_reserve", p->ub_reserve_bytes);
  append_size (out, "l1", p->l1_bytes);
  append_size (out, "l0a", p->l0a_bytes);
  append_size (out, "l0b", p->l0b_bytes);
  append_size (out, "l0c", p->l0c_bytes);
  append_size (out, "l2", p->l2_bytes);
  g_string_append (out, "bandwidth:\n");
  append_quantity (out, "hbm", p->hbm_bytes_per_s, rate_units);
  g_string_append (out, "throughput:\n");
  append_quantity (out, npu ? "cube_fp16" : "cube_fp32", p->cube_flops_per_s, flop_units);
  append_quantity (out, npu ? "vector_fp16" : "vector_fp32", p->vector_flops_per_s, flop_units);
  if (p->cube_int8_ops_per_s != p->cube_flops_per_s)
    append_quantity (out, "cube_int8", p->cube_int8_ops_per_s, flop_units);
  g_string_append (out, "overhead:\n");
  append_quantity (out, "launch", p->launch_overhead_s, time_units);
  append_quantity (out, "sync", p->sync_overhead_s, time_units);
  g_string_append (out, "limits:\n  budget_fraction: ");
  append_number (out, p->budget_fraction);
  g_string_append_printf (out, "\n  max_vector_queues: %u\n  max_kernel_inputs: %u\n  max_fused_nodes: %u\n",
                          p->max_vector_queues, p->max_kernel_inputs, p->max_fused_nodes);
  append_size (out, "ub_align", p->ub_align_bytes);
  if (p->calibrated)
    {
      g_string_append (out, "calibration:\n");
      for (guint c = 0; c < FW_COST_N_CLASSES; c++)
        {
          g_string_append_printf (out, "  %s: ", calibration_keys[c]);
          append_number (out, fw_profile_class_factor (p, c));
          g_string_append_c (out, '\n');
        }
    }
  return g_string_free (out, FALSE);
}

char *
fw_profile_to_yaml (const FwProfile *profile)
{
  g_return_val_if_fail (profile != NULL, NULL);
  return fw_profile_serialize (profile, NULL, NULL);
}
