/* fw-kernel-package.c: the kernel package: folders per candidate, then manifest.json.
 *
 * Everything is generated in memory first, the folder checked for the model's own files, and
 * only then written; the manifest goes last and lists the SHA-256 of the bytes actually written, so a
 * package can be verified file by file. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "ascend/fw-ascend.h"
#include "fw-error.h"
#include "fw-kernel-package.h"
#include "fw-ascend-scopes.h"
#include "fw-targets.h"
#include "graph/fw-fingerprint.h"
#include "host/fw-host-scope.h"
#include "host/fw-superkernel.h"
#include "io/fw-file-write.h"
#include "io/fw-folder-swap.h"
#include "plan/fw-plan.h"

typedef struct
{
  char   *relative;  /* inside the package */
  GBytes *bytes;
} PendingFile;

static void
pending_file_free (gpointer data)
{
  PendingFile *f = data;

  g_free (f->relative);
  g_bytes_unref (f->bytes);
  g_free (f);
}

char *
fw_kernel_package_folder_name (const FwCandidate *candidate)
{
  GString *s = g_string_new (NULL);
  const char *pattern = candidate->pattern ? candidate->pattern : "";

  g_string_append_printf (s, "k%03u_", candidate->index);
  /* Rule names come from user files: only a safe alphabet reaches the file system. */
  for (const guchar *p = (const guchar *) pattern; *p && s->len < 5 + 40; p++)
    g_string_append_c (s, g_ascii_isalnum (*p) || *p == '-' || *p == '_' ? (char) *p : '_');
  if (pattern[0] == '\0')
    g_string_append (s, "group");
  return g_string_free (s, FALSE);
}

static char *
utf8 (const char *text)
{
  return g_utf8_make_valid (text ? text : "", -1);
}

/* role: "input" or "output" for a kernel argument, NULL for a boundary value. */
static void
add_value (JsonBuilder *b, const FwValue *v, const char *role)
{
  g_autofree char *name = utf8 (fw_value_get_name (v));

  json_builder_begin_object (b);
  if (role != NULL)
    {
      json_builder_set_member_name (b, "role");
      json_builder_add_string_value (b, role);
    }
  json_builder_set_member_name (b, "name");
  json_builder_add_string_value (b, name);
  json_builder_set_member_name (b, "dtype");
  json_builder_add_string_value (b, fw_dtype_name (v->dtype));
  json_builder_set_member_name (b, "dims");
  json_builder_begin_array (b);
  for (gint i = 0; i < v->rank; i++)
    json_builder_add_int_value (b, v->dims[i].value);
  json_builder_end_array (b);
  json_builder_end_object (b);
}

/* The group's boundary as the planner decided it: values read from HBM (immediates aside) and values
 * written there, in the order the group first touches them. */
static void
boundary (const FwCandidate *c, GPtrArray *inputs, GPtrArray *outputs)
{
  for (guint i = 0; i < fw_kernel_spec_get_n_values (c->spec); i++)
    {
      const FwSpecValue *v = fw_kernel_spec_get_value (c->spec, i);
      if (v->kind == FW_SPEC_INPUT || v->kind == FW_SPEC_ROOT_OPERAND)
        g_ptr_array_add (inputs, v->value);
      else if (v->kind == FW_SPEC_OUTPUT)
        g_ptr_array_add (outputs, v->value);
    }
}

static void
add_pending (GPtrArray *pending, const char *relative, GBytes *bytes)
{
  PendingFile *f = g_new0 (PendingFile, 1);

  f->relative = g_strdup (relative);
  f->bytes = bytes;
  g_ptr_array_add (pending, f);
}

static void
add_file_entry (JsonBuilder *b, const char *relative, GBytes *bytes)
{
  g_autofree char *sum = g_compute_checksum_for_bytes (G_CHECKSUM_SHA256, bytes);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "path");
  json_builder_add_string_value (b, relative);
  json_builder_set_member_name (b, "sha256");
  json_builder_add_string_value (b, sum);
  json_builder_set_member_name (b, "bytes");
  json_builder_add_int_value (b, (gint64) g_bytes_get_size (bytes));
  json_builder_end_object (b);
}

/* A string member, null for NULL. */
static void
add_string_or_null (JsonBuilder *b, const char *name, const char *value)
{
  json_builder_set_member_name (b, name);
  if (value != NULL)
    json_builder_add_string_value (b, value);
  else
    json_builder_add_null_value (b);
}

static void
add_double (JsonBuilder *b, const char *name, gdouble value)
{
  json_builder_set_member_name (b, name);
  json_builder_add_double_value (b, value);
}

static gboolean
make_dirs (const char *path, GError **error)
{
  if (g_mkdir_with_parents (path, 0755) != 0)
    {
      int saved = errno;
      g_set_error (error, FW_ERROR, FW_ERROR_IO, _("%s: cannot create the folder: %s"), path, g_strerror (saved));
      return FALSE;
    }
  return TRUE;
}

/* What running the Ascend kernel needs besides its files (fusion-workbench --twin, docs/ascend-twin.md): the
 * entry, the launch's block count, the tiling values the kernel reads, and its own arguments in order. */
static void
add_ascend_kernel (JsonBuilder *b, const char *folder, FwAscendKernel *kernel)
{
  static const char *const fields[] = { "total_length", "tile_length", "tile_num", "rows", "row_length",
                                        "block_num", "tiles_per_block" };
  const FwKernelSource *src = fw_ascend_kernel_get_kernel_source (kernel);
  const FwAscendTiling *t = fw_ascend_kernel_get_tiling (kernel);
  const gint64 values[] = { t->total_length, t->tile_length, t->tile_num, t->rows, t->row_length, t->block_num,
                            t->tiles_per_block };
  const char *name = fw_kernel_source_get_name (src);
  g_autofree char *cpp = g_strdup_printf ("%s.cpp", name);
  g_autofree char *tiling = g_strdup_printf ("%s_tiling.h", name);
  g_autofree char *cpp_rel = g_build_filename (folder, "ascend", cpp, NULL);
  g_autofree char *tiling_rel = g_build_filename (folder, "ascend", tiling, NULL);

  json_builder_set_member_name (b, "ascend_kernel");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "entry");
  json_builder_add_string_value (b, name);
  json_builder_set_member_name (b, "source");
  json_builder_add_string_value (b, cpp_rel);
  json_builder_set_member_name (b, "tiling_header");
  json_builder_add_string_value (b, tiling_rel);
  json_builder_set_member_name (b, "block_dim");
  json_builder_add_int_value (b, MAX (t->block_num, 1));
  json_builder_set_member_name (b, "tiling");
  json_builder_begin_object (b);
  for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
    {
      json_builder_set_member_name (b, fields[i]);
      json_builder_add_int_value (b, values[i]);
    }
  json_builder_end_object (b);
  /* A mixed kernel's tiling struct goes on with its cube tiling (TCubeTiling's fields and the batch walk's,
   * in the struct's order). */
  if (t->n_cube > 0)
    {
      json_builder_set_member_name (b, "cube_tiling");
      json_builder_begin_array (b);
      for (guint i = 0; i < t->n_cube; i++)
        json_builder_add_int_value (b, (gint64) t->cube[i]);
      json_builder_end_array (b);
    }
  /* An integer kernel's GM workspace (its argument after the outputs) and the bound of a float reference's sum
   * against its exact integer one. */
  if (t->workspace_bytes > 0)
    {
      json_builder_set_member_name (b, "workspace_bytes");
      json_builder_add_int_value (b, t->workspace_bytes);
    }
  if (fw_ascend_kernel_is_integer (kernel))
    {
      json_builder_set_member_name (b, "product_bound");
      json_builder_add_double_value (b, fw_ascend_kernel_product_tolerance (kernel, NULL));
    }
  json_builder_set_member_name (b, "arguments");
  json_builder_begin_array (b);
  for (guint i = 0; i < fw_kernel_source_get_n_inputs (src) + fw_kernel_source_get_n_outputs (src); i++)
    {
      gboolean out = i >= fw_kernel_source_get_n_inputs (src);
      FwValue *v = out ? fw_kernel_source_get_output (src, i - fw_kernel_source_get_n_inputs (src))
                       : fw_kernel_source_get_input (src, i);
      add_value (b, v, out ? "output" : "input");
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
}

typedef struct
{
  FwKernelPackageGroupFunc func;
  gpointer                 data;
} GroupSource;

static gboolean
package_candidate (FwPlan *plan, const FwTargets *targets, const GroupSource *groups, const FwTargetKernel *k,
                   JsonBuilder *b, GPtrArray *pending, GError **error)
{
  /* The manifest lists a candidate's Ascend files before its host files (format version 1). */
  static const FwTargetId order[] = { FW_TARGET_ASCEND, FW_TARGET_HOST };
  const FwCandidate *c = g_ptr_array_index (plan->candidates, k->candidate);
  const FwResourceEstimate *res = fw_candidate_get_resource (c);
  const FwCostEstimate *cost = fw_candidate_get_cost (c);
  g_autofree char *folder = fw_kernel_package_folder_name (c);
  g_autofree char *pattern = utf8 (c->pattern);
  g_autoptr(GPtrArray) inputs = g_ptr_array_new ();
  g_autoptr(GPtrArray) outputs = g_ptr_array_new ();
  FwSuperKernel *host = targets->enabled[FW_TARGET_HOST] ? k->host : NULL;
  g_autofree char *skip = NULL;
  g_autofree char *group = NULL;

  boundary (c, inputs, outputs);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "id");
  json_builder_add_int_value (b, c->index);
  json_builder_set_member_name (b, "folder");
  json_builder_add_string_value (b, folder);
  json_builder_set_member_name (b, "pattern");
  json_builder_add_string_value (b, pattern);
  json_builder_set_member_name (b, "kind");
  json_builder_add_string_value (b, c->kind ? c->kind : "");
  json_builder_set_member_name (b, "status");
  json_builder_add_string_value (b, fw_candidate_status_name (c->status));
  json_builder_set_member_name (b, "nodes");
  json_builder_begin_array (b);
  for (guint i = 0; i < c->nodes->len; i++)
    {
      g_autofree char *name = utf8 (fw_node_get_name (g_ptr_array_index (c->nodes, i)));
      json_builder_add_string_value (b, name);
    }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "inputs");
  json_builder_begin_array (b);
  for (guint i = 0; i < inputs->len; i++)
    add_value (b, g_ptr_array_index (inputs, i), NULL);
  json_builder_end_array (b);
  json_builder_set_member_name (b, "outputs");
  json_builder_begin_array (b);
  for (guint i = 0; i < outputs->len; i++)
    add_value (b, g_ptr_array_index (outputs, i), NULL);
  json_builder_end_array (b);

  json_builder_set_member_name (b, "estimates");
  json_builder_begin_object (b);
  add_double (b, "ub_bytes", res->ub_bytes);
  add_double (b, "ub_percent", res->ub_percent);
  add_double (b, "bytes_saved", (cost->bytes_read_before + cost->bytes_written_before) -
                                (cost->bytes_read_after + cost->bytes_written_after));
  json_builder_set_member_name (b, "launches_saved");
  json_builder_add_int_value (b, (gint64) cost->launches_before - (gint64) cost->launches_after);
  add_double (b, "time_before_s", cost->time_before_s);
  add_double (b, "time_after_s", cost->time_after_s);
  add_double (b, "kernel_time_s", cost->kernel_time_s);
  json_builder_end_object (b);

  json_builder_set_member_name (b, "files");
  json_builder_begin_array (b);
  for (guint o = 0; o < G_N_ELEMENTS (order); o++)
    {
      FwTargetId t = order[o];
      const FwKernelSource *src = k->sources[t];

      if (!targets->enabled[t])
        continue;
      for (guint i = 0; src != NULL && i < fw_kernel_source_get_n_files (src); i++)
        {
          const FwKernelFile *f = fw_kernel_source_get_file (src, i);
          g_autofree char *rel = g_build_filename (folder, fw_target_name (t), f->name, NULL);
          GBytes *bytes = g_bytes_new (f->contents, strlen (f->contents));
          add_file_entry (b, rel, bytes);
          add_pending (pending, rel, bytes);
        }
      if (t == FW_TARGET_ASCEND && src == NULL)
        skip = utf8 (k->errors[t] ? k->errors[t] : "");  /* recorded after the files array */
      if (t == FW_TARGET_HOST && host != NULL && fw_superkernel_get_object_path (host) != NULL)
        {
          g_autofree char *rel = g_build_filename (folder, "host", "kernel.so", NULL);
          g_autofree char *data = NULL;
          gsize len = 0;
          GBytes *bytes;

          if (!g_file_get_contents (fw_superkernel_get_object_path (host), &data, &len, error))
            return FALSE;
          bytes = g_bytes_new_take (g_steal_pointer (&data), len);
          add_file_entry (b, rel, bytes);
          add_pending (pending, rel, bytes);
        }
    }
  /* The group alone as a small model, for the reference a re-run of the kernel is checked against. */
  if (groups->func != NULL && targets->enabled[FW_TARGET_ASCEND] && k->ascend != NULL)
    {
      g_autofree char *rel = g_build_filename (folder, "group.onnx", NULL);
      GBytes *bytes = groups->func (k->candidate, groups->data, error);

      if (bytes == NULL)
        return FALSE;
      add_file_entry (b, rel, bytes);
      add_pending (pending, rel, bytes);
      group = g_steal_pointer (&rel);
    }
  json_builder_end_array (b);
  if (group != NULL)
    {
      json_builder_set_member_name (b, "group");
      json_builder_add_string_value (b, group);
    }
  if (targets->enabled[FW_TARGET_ASCEND] && k->ascend != NULL)
    add_ascend_kernel (b, folder, k->ascend);
  if (skip != NULL)
    {
      json_builder_set_member_name (b, "ascend_skipped");
      json_builder_add_string_value (b, skip);
    }
  if (host != NULL)
    {
      const char *sh = fw_superkernel_get_source_hash (host);
      const char *oh = fw_superkernel_get_object_hash (host);
      if (sh != NULL)
        {
          json_builder_set_member_name (b, "host_source_sha256");
          json_builder_add_string_value (b, sh);
        }
      if (oh != NULL)
        {
          json_builder_set_member_name (b, "host_object_sha256");
          json_builder_add_string_value (b, oh);
        }
    }
  json_builder_end_object (b);
  return TRUE;
}

static void
add_source_files (JsonBuilder *b, const FwKernelSource *src, const char *folder, GPtrArray *pending)
{
  for (guint f = 0; f < fw_kernel_source_get_n_files (src); f++)
    {
      const FwKernelFile *file = fw_kernel_source_get_file (src, f);
      g_autofree char *rel = g_build_filename (folder, file->name, NULL);
      GBytes *bytes = g_bytes_new (file->contents, strlen (file->contents));

      add_file_entry (b, rel, bytes);
      add_pending (pending, rel, bytes);
    }
}

/* A scope's Ascend source in the manifest: what re-running it on the twin needs (fusion-workbench --twin):
 * the entry, its launch's block count, the tiling struct's fields, its arguments with their roles (an input,
 * a stand-in's result, or a value the scope writes). */
static void
add_ascend_superkernel (JsonBuilder *b, FwAscendScope *scope, const char *folder)
{
  const FwKernelSource *src = fw_ascend_scope_get_kernel_source (scope);
  const char *name = fw_kernel_source_get_name (src);
  guint n_in = fw_kernel_source_get_n_inputs (src), n_out = fw_kernel_source_get_n_outputs (src), n_tiling = 0;
  guint n_results = 0;
  const guint64 *tiling = fw_ascend_scope_get_tiling (scope, &n_tiling);
  g_autofree char *cpp = g_strdup_printf ("%s/ascend/%s.cpp", folder, name);
  g_autofree char *header = g_strdup_printf ("%s/ascend/%s_tiling.h", folder, name);

  /* The stand-ins' results are the inputs that are also outputs. */
  for (guint j = 0; j < n_in; j++)
    for (guint o = 0; o < n_out; o++)
      n_results += fw_kernel_source_get_input (src, j) == fw_kernel_source_get_output (src, o);
  json_builder_set_member_name (b, "ascend_superkernel");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "entry");
  json_builder_add_string_value (b, name);
  json_builder_set_member_name (b, "source");
  json_builder_add_string_value (b, cpp);
  json_builder_set_member_name (b, "tiling_header");
  json_builder_add_string_value (b, header);
  json_builder_set_member_name (b, "block_dim");
  json_builder_add_int_value (b, fw_ascend_scope_get_blocks (scope));
  json_builder_set_member_name (b, "barriers");
  json_builder_add_int_value (b, fw_ascend_scope_get_n_barriers (scope));
  json_builder_set_member_name (b, "stand_ins");
  json_builder_add_int_value (b, fw_ascend_scope_get_n_stand_ins (scope));
  json_builder_set_member_name (b, "tiling");
  json_builder_begin_array (b);
  for (guint t = 0; t < n_tiling; t++)
    json_builder_add_int_value (b, (gint64) tiling[t]);
  json_builder_end_array (b);
  json_builder_set_member_name (b, "arguments");
  json_builder_begin_array (b);
  for (guint a = 0; a < n_in + n_out; a++)
    {
      gboolean out = a >= n_in;
      FwValue *v = out ? fw_kernel_source_get_output (src, a - n_in) : fw_kernel_source_get_input (src, a);
      add_value (b, v, out ? "output" : a >= n_in - n_results ? "result" : "input");
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
}

static void
add_host_program (JsonBuilder *b, FwHostScope *s, const char *folder, const char *name)
{
  g_autofree char *scope_name = utf8 (s->name);
  g_autofree char *source = g_strdup_printf ("%s/host/%s.c", folder, name);
  g_autofree char *object = g_strdup_printf ("%s/host/%s.so", folder, name);

  json_builder_begin_object (b);
  add_string_or_null (b, "name", scope_name);
  add_string_or_null (b, "source", source);
  add_string_or_null (b, "object", object);
  add_string_or_null (b, "entry", "fw_sk_entry");
  json_builder_set_member_name (b, "abi");
  json_builder_add_int_value (b, fw_superkernel_abi_version ());
  json_builder_set_member_name (b, "arena_bytes");
  json_builder_add_int_value (b, s->arena_bytes);
  json_builder_set_member_name (b, "arena_align");
  json_builder_add_int_value (b, FW_ARENA_ALIGN);
  json_builder_set_member_name (b, "inputs");
  json_builder_begin_array (b);
  for (guint i = 0; i < s->inputs->len; i++)
    add_value (b, g_ptr_array_index (s->inputs, i), NULL);
  json_builder_end_array (b);
  json_builder_set_member_name (b, "outputs");
  json_builder_begin_array (b);
  for (guint i = 0; i < s->outputs->len; i++)
    add_value (b, g_ptr_array_index (s->outputs, i), NULL);
  json_builder_end_array (b);
  json_builder_set_member_name (b, "sub_kernels");
  json_builder_begin_array (b);
  for (guint u = 0; u < s->units->len; u++)
    {
      const FwScopeMember *m = &g_array_index (s->members, FwScopeMember, u);
      const char *producer = fw_host_scope_unit_producer (s, u);
      gboolean view = g_ptr_array_index (s->units, u) == NULL;
      g_autofree char *function = view ? NULL : g_strdup_printf ("fw_k%u", u);

      json_builder_begin_object (b);
      add_string_or_null (b, "kind", view ? "view" : m->node != NULL ? "single_op" : "group");
      if (m->node == NULL)
        {
          json_builder_set_member_name (b, "candidate");
          json_builder_add_int_value (b, m->candidate);
        }
      add_string_or_null (b, "function", function);
      add_string_or_null (b, "producer", producer);
      json_builder_set_member_name (b, "team");
      json_builder_add_boolean_value (b, fw_host_scope_unit_in_team (s, u));
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
}

/* A scope's host programs in the manifest: each program's source, the object the Makefile builds, its
 * entry, arena and boundary, and its sub-kernels with their producers. */
static void
add_host_superkernel (JsonBuilder *b, FwHostScopes *hosts, guint sk_scope, const char *folder)
{
  g_autofree char *makefile = g_strdup_printf ("%s/host/Makefile", folder);
  g_autofree char *readme = g_strdup_printf ("%s/host/README.md", folder);

  json_builder_set_member_name (b, "host_superkernel");
  json_builder_begin_object (b);
  add_string_or_null (b, "makefile", makefile);
  add_string_or_null (b, "readme", readme);
  json_builder_set_member_name (b, "programs");
  json_builder_begin_array (b);
  for (guint i = 0, p = 0; i < hosts->scopes->len; i++)
    {
      FwHostScope *s = g_ptr_array_index (hosts->scopes, i);
      g_autofree char *name = NULL;

      if (s->sk_scope != sk_scope)
        continue;
      name = fw_host_scope_package_program_name (sk_scope, p++);
      add_host_program (b, s, folder, name);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
}

/* The SuperKernel scopes: superkernels/sNNN/ascend/ with the scope's Ascend files and superkernels/sNNN/host/
 * with its host programs, as the targets ran, each named in the manifest's "superkernels". */
static gboolean
package_superkernels (FwPlan *plan, const FwTargets *targets, const FwSkPlan *sk, JsonBuilder *b,
                      GPtrArray *pending, GError **error)
{
  gboolean ascend = targets->enabled[FW_TARGET_ASCEND], host = targets->enabled[FW_TARGET_HOST];
  g_autoptr(GPtrArray) scopes = NULL;
  g_autoptr(FwHostScopes) hosts = NULL;

  if (ascend && (scopes = fw_ascend_scopes_generate (targets, sk, error)) == NULL)
    return FALSE;
  if (host)
    hosts = fw_host_scopes_build (plan, sk);
  json_builder_set_member_name (b, "superkernels");
  json_builder_begin_array (b);
  for (guint i = 0; i < sk->scopes->len; i++)
    {
      const FwSkScope *s = g_ptr_array_index (sk->scopes, i);
      g_autofree char *folder = g_strdup_printf ("superkernels/s%03u", i);
      g_autofree char *scope_name = utf8 (s->name);
      g_autoptr(FwKernelSource) host_src = hosts != NULL ? fw_host_scope_package (hosts, i) : NULL;

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "id");
      json_builder_add_int_value (b, i);
      json_builder_set_member_name (b, "name");
      json_builder_add_string_value (b, scope_name);
      json_builder_set_member_name (b, "folder");
      json_builder_add_string_value (b, folder);
      json_builder_set_member_name (b, "n_kernels");
      json_builder_add_int_value (b, s->kernels->len);
      json_builder_set_member_name (b, "files");
      json_builder_begin_array (b);
      if (scopes != NULL)
        {
          g_autofree char *sub = g_build_filename (folder, "ascend", NULL);
          add_source_files (b, fw_ascend_scope_get_kernel_source (g_ptr_array_index (scopes, i)), sub, pending);
        }
      if (host_src != NULL)
        {
          g_autofree char *sub = g_build_filename (folder, "host", NULL);
          add_source_files (b, host_src, sub, pending);
        }
      json_builder_end_array (b);
      if (scopes != NULL)
        add_ascend_superkernel (b, g_ptr_array_index (scopes, i), folder);
      if (host_src != NULL)
        add_host_superkernel (b, hosts, i, folder);
      else if (host)
        add_string_or_null (b, "host_skipped", "no host program: fewer than two of its kernels have host code");
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  return TRUE;
}

/* TRUE (with an error) when the model or one of its data files is somewhere inside the existing dir. */
static gboolean
folder_holds_model (FwModel *model, const char *dir, GError **error)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      if (g_file_test (path, G_FILE_TEST_IS_SYMLINK))
        continue;
      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        {
          if (folder_holds_model (model, path, error))
            return TRUE;
        }
      else if (fw_model_is_source_file (model, path))
        {
          g_set_error (error, FW_ERROR, FW_ERROR_USAGE,
                       _("%s: the kernel package replaces this folder, which holds the input model (%s); "
                         "choose another folder"), dir, path);
          return TRUE;
        }
    }
  return FALSE;
}

gboolean
fw_kernel_package_check_destination (FwPlan *plan, const char *dir, GError **error)
{
  g_return_val_if_fail (plan != NULL && dir != NULL, FALSE);
  return !folder_holds_model (plan->model, dir, error);
}

gboolean
fw_kernel_package_write (FwPlan *plan, const FwTargets *targets, const char *dir, GError **error)
{
  return fw_kernel_package_write_with_groups (plan, targets, dir, NULL, NULL, error);
}

gboolean
fw_kernel_package_write_with_groups (FwPlan *plan, const FwTargets *targets, const char *dir,
                                     FwKernelPackageGroupFunc group_func, gpointer group_data, GError **error)
{
  return fw_kernel_package_write_with_scopes (plan, targets, dir, group_func, group_data, NULL, error);
}

gboolean
fw_kernel_package_write_with_scopes (FwPlan *plan, const FwTargets *targets, const char *dir,
                                     FwKernelPackageGroupFunc group_func, gpointer group_data, const FwSkPlan *sk,
                                     GError **error)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(GPtrArray) pending = g_ptr_array_new_with_free_func (pending_file_free);
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *manifest = NULL;
  g_autofree char *staging = NULL;
  GroupSource groups = { group_func, group_data };

  g_return_val_if_fail (plan != NULL && targets != NULL && targets->plan == plan && dir != NULL, FALSE);
  if (plan->fingerprint == NULL)
    plan->fingerprint = fw_model_fingerprint (plan->model);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "format_version");
  json_builder_add_int_value (b, FW_KERNEL_PACKAGE_FORMAT_VERSION);
  json_builder_set_member_name (b, "model_fingerprint");
  json_builder_add_string_value (b, plan->fingerprint);
  json_builder_set_member_name (b, "profile");
  json_builder_add_string_value (b, plan->profile->name ? plan->profile->name : "");
  json_builder_set_member_name (b, "kernels");
  json_builder_begin_array (b);
  for (guint i = 0; i < targets->kernels->len; i++)
    if (!package_candidate (plan, targets, &groups, g_ptr_array_index (targets->kernels, i), b, pending, error))
      return FALSE;
  json_builder_end_array (b);
  if (sk != NULL && (targets->enabled[FW_TARGET_ASCEND] || targets->enabled[FW_TARGET_HOST]) &&
      !package_superkernels (plan, targets, sk, b, pending, error))
    return FALSE;
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, TRUE);
  manifest = json_generator_to_data (gen, NULL);
  /* Nothing is written if the model or its data is in the folder: the whole folder is replaced, and such a
   * file would go with the old contents (a new file at the same path would overwrite it first). */
  if (folder_holds_model (plan->model, dir, error))
    return FALSE;
  /* The manifest names every file with its hash, so the package is written as a whole: into a staging
   * folder beside dir, swapped in at once. Files rewritten in place one by one would, when killed half way,
   * leave the old manifest naming new files. */
  staging = fw_folder_stage (dir, error);
  if (staging == NULL)
    return FALSE;
  for (guint i = 0; i < pending->len; i++)
    {
      PendingFile *f = g_ptr_array_index (pending, i);
      g_autofree char *path = g_build_filename (staging, f->relative, NULL);
      g_autofree char *parent = g_path_get_dirname (path);
      gsize len;
      gconstpointer data = g_bytes_get_data (f->bytes, &len);

      if (!make_dirs (parent, error) || !fw_file_write (path, data, (gssize) len, error))
        goto fail;
    }
  {
    g_autofree char *staged_manifest = g_build_filename (staging, "manifest.json", NULL);

    if (!fw_file_write (staged_manifest, manifest, -1, error))
      goto fail;
  }
  return fw_folder_commit (staging, dir, error);

fail:
  fw_folder_remove_tree (staging);
  return FALSE;
}
