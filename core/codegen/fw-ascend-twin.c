/* fw-ascend-twin.c: compiling a kernel against the Ascend C twin and running it in a child process.
 *
 * The twin's sources are resources of libfwcore. They are written into a folder of the kernel cache named by
 * their hash, the runtime (twin_core.cpp + twin_main.cpp) is compiled there once, and each kernel becomes one
 * executable: a shim that pastes the kernel's tiling header and its .cpp (with #line, so diagnostics name the
 * kernel's own file and lines) and defines the entry the driver calls, linked with the runtime. Both go
 * through fw_host_toolchain_build_cxx, so they are cached and hash-checked like host SuperKernels. A run
 * writes the inputs and a job file into a temporary folder, runs the executable on it and reads back the
 * outputs and the diagnostics (format in twin_main.cpp). */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/wait.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "codegen/fw-twin-resources.h"
#include "fw-ascend-twin.h"
#include "fw-error.h"
#include "io/fw-file-write.h"
#include "io/fw-spawn.h"

static const char *const twin_files[] = {
  "kernel_operator.h", "twin_core.h", "twin_copy.h", "twin_vector.h", "twin_repeat.h", "twin_diag.h", "twin_core.cpp",
  "twin_main.cpp", "twin_matmul.cpp", "twin_sync.cpp", "lib/matmul_intf.h",
};

struct _FwAscendTwin
{
  FwHostToolchain *toolchain;
  char            *include_dir;
  char            *salt;
  char            *runtime_object;
  /* The precompiled API headers (kernel_operator.h; with lib/matmul_intf.h for mixed kernels), named as
   * the header -include reads; NULL: each kernel parses them itself. */
  char            *pch_vector, *pch_mixed;
};

struct _FwTwinRun
{
  GPtrArray    *outputs;      /* FwArray* */
  GArray       *diagnostics;  /* FwTwinDiagnostic */
  FwTwinCounts  counts;
  GArray       *blocks;       /* FwTwinBlockCounts */
  gdouble       build_s, run_s;
};

/* -O0: each kernel is compiled once per change and runs for a fraction of a second, most of its time in the
 * runtime (checks, the Matmul block product), which is compiled once at -O2; optimising the API's templates
 * for every kernel cost more (0.3 s of a 0.6 s compile) than it saved at run time. The arithmetic is the
 * same at every level: IEEE float with no excess precision and -ffp-contract=off (no fused multiply-add),
 * the C library's functions. -w: generated kernels' unused parameters and the like are not the twin's
 * business (the syntax check runs with -Wall). */
static const char *const compile_flags[] = { "-std=c++17", "-O0", "-ffp-contract=off", "-w", NULL };

static void
diagnostic_clear (gpointer data)
{
  FwTwinDiagnostic *d = data;

  g_free (d->code);
  g_free (d->file);
  g_free (d->message);
}

static void
block_counts_clear (gpointer data)
{
  FwTwinBlockCounts *b = data;

  g_clear_pointer (&b->kinds, g_array_unref);
}

static void
vector_kind_clear (gpointer data)
{
  g_free (((FwTwinVectorKind *) data)->name);
}

/* Block i's record, created (zero) when the file names it first. */
static FwTwinBlockCounts *
block_at (FwTwinRun *run, guint64 i)
{
  /* Blocks are numbered below the launch's count; a line past any sane count is ignored. */
  if (i > 65535)
    return NULL;
  while (run->blocks->len <= i)
    {
      FwTwinBlockCounts b = { 0 };
      b.kinds = g_array_new (FALSE, TRUE, sizeof (FwTwinVectorKind));
      g_array_set_clear_func (b.kinds, vector_kind_clear);
      g_array_append_val (run->blocks, b);
    }
  return &g_array_index (run->blocks, FwTwinBlockCounts, i);
}

/* "B" and "V" lines of the diagnostics file (twin_main.cpp). */
static void
parse_block_line (FwTwinRun *run, char **f, guint n)
{
  FwTwinBlockCounts *b;

  if (n < 3 || (b = block_at (run, g_ascii_strtoull (f[1], NULL, 10))) == NULL)
    return;
  if (strcmp (f[0], "B") == 0)
    sscanf (f[2], "%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT
            " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %u %" G_GUINT64_FORMAT,
            &b->mte2_bytes, &b->mte2_copies, &b->mte2_max_copy, &b->mte3_bytes, &b->mte3_copies, &b->cube_macs,
            &b->cube_bytes, &b->cube_size, &b->scalar);
  else if (n == 8)
    {
      FwTwinVectorKind k = { g_strdup (f[2]), (guint) g_ascii_strtoull (f[3], NULL, 10),
                             (guint) g_ascii_strtoull (f[4], NULL, 10), g_ascii_strtoull (f[5], NULL, 10),
                             g_ascii_strtoull (f[6], NULL, 10), g_ascii_strtoull (f[7], NULL, 10) };
      g_array_append_val (b->kinds, k);
    }
}

/* Writes the twin's sources into cache/twin-HASH (once) and returns the hash of all of them. */
static gboolean
install_sources (FwAscendTwin *twin, GError **error)
{
  g_autoptr(GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  g_autoptr(GPtrArray) blobs = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  g_autofree char *dir_name = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (twin_files); i++)
    {
      g_autofree char *path = g_strconcat ("/org/fusionworkbench/twin/", twin_files[i], NULL);
      GBytes *bytes = g_resource_lookup_data (fw_twin_get_resource (), path, G_RESOURCE_LOOKUP_FLAGS_NONE, error);
      gsize len = 0;
      const guchar *data;

      if (bytes == NULL)
        return FALSE;
      data = g_bytes_get_data (bytes, &len);
      g_checksum_update (sum, (const guchar *) twin_files[i], strlen (twin_files[i]) + 1);
      g_checksum_update (sum, data, len);
      g_ptr_array_add (blobs, bytes);
    }
  twin->salt = g_strdup (g_checksum_get_string (sum));
  dir_name = g_strdup_printf ("twin-%.16s", twin->salt);
  twin->include_dir = g_build_filename (fw_host_toolchain_get_cache_dir (twin->toolchain), dir_name, NULL);
  if (g_mkdir_with_parents (twin->include_dir, 0700) != 0)
    {
      int saved = errno;
      g_set_error (error, FW_ERROR, FW_ERROR_IO, _("cannot create the twin's folder “%s”: %s"), twin->include_dir,
                   g_strerror (saved));
      return FALSE;
    }
  for (guint i = 0; i < G_N_ELEMENTS (twin_files); i++)
    {
      g_autofree char *path = g_build_filename (twin->include_dir, twin_files[i], NULL);
      g_autofree char *parent = g_path_get_dirname (path);
      g_autofree char *have = NULL;
      gsize len = 0, have_len = 0;
      const char *data = g_bytes_get_data (g_ptr_array_index (blobs, i), &len);

      if (g_file_get_contents (path, &have, &have_len, NULL) && have_len == len && memcmp (have, data, len) == 0)
        continue;
      /* lib/matmul_intf.h keeps the API's include path. */
      if (g_mkdir_with_parents (parent, 0700) != 0)
        {
          int saved = errno;
          g_set_error (error, FW_ERROR, FW_ERROR_IO, _("cannot create the twin's folder “%s”: %s"), parent,
                       g_strerror (saved));
          return FALSE;
        }
      if (!fw_file_write (path, data, (gssize) len, error))
        return FALSE;
    }
  return TRUE;
}

/* The API headers precompiled with the kernels' flags, through the kernel cache (hash-checked like every
 * object there): returns the header a kernel compile names with -include (the compiler takes HEADER.gch
 * beside it, or parses the header when it cannot use that), or NULL when the compiler made none. Half of a
 * kernel's compile is parsing these headers (a mixed kernel's more). */
static char *
build_pch (FwAscendTwin *twin, const char *text)
{
  const char *flags[] = { compile_flags[0], compile_flags[1], compile_flags[2], compile_flags[3], "-x", "c++-header",
                          "-I", twin->include_dir, NULL };
  g_autoptr(GError) local = NULL;
  g_autofree char *gch = NULL, *header = NULL, *have = NULL;

  if (!fw_host_toolchain_build_cxx (twin->toolchain, text, flags, NULL, twin->salt, ".h.gch", &gch, &local))
    return NULL;
  header = g_strndup (gch, strlen (gch) - strlen (".gch"));
  if ((!g_file_get_contents (header, &have, NULL, NULL) || strcmp (have, text) != 0) &&
      !fw_file_write (header, text, -1, NULL))
    return NULL;
  return g_steal_pointer (&header);
}

/* A kernel that includes the Matmul API (a line `#include "lib/matmul_intf.h"`) gets the mixed header. */
static gboolean
includes_matmul (const char *source)
{
  for (const char *p = strstr (source, "lib/matmul_intf.h"); p != NULL; p = strstr (p + 1, "lib/matmul_intf.h"))
    {
      const char *line = p;
      while (line > source && line[-1] != '\n')
        line--;
      while (*line == ' ' || *line == '\t')
        line++;
      if (g_str_has_prefix (line, "#include") && line + strlen ("#include") < p)
        return TRUE;
    }
  return FALSE;
}

FwAscendTwin *
fw_ascend_twin_new (FwHostToolchain *toolchain, GError **error)
{
  g_autoptr(FwAscendTwin) twin = g_new0 (FwAscendTwin, 1);
  /* -ffp-contract=off: the twin's float arithmetic rounds every product and every sum, as the Matmul block
   * product's vector lanes must to give the scalar order's bits (ISO C++ mode's default, stated). */
  const char *flags[] = { "-std=c++17", "-O2", "-ffp-contract=off", "-w", "-c", "-I", NULL, NULL };

  g_return_val_if_fail (toolchain != NULL, NULL);
  twin->toolchain = toolchain;
  if (!install_sources (twin, error))
    return NULL;
  flags[6] = twin->include_dir;
  if (!fw_host_toolchain_build_cxx (toolchain, "#include \"twin_core.cpp\"\n#include \"twin_main.cpp\"\n#include \"twin_matmul.cpp\"\n"
                                    "#include \"twin_sync.cpp\"\n", flags, NULL,
                                    twin->salt, ".o", &twin->runtime_object, error))
    {
      g_prefix_error (error, _("the Ascend C twin does not build: "));
      return NULL;
    }
  twin->pch_vector = build_pch (twin, "#include \"kernel_operator.h\"\n");
  twin->pch_mixed = build_pch (twin, "#include \"kernel_operator.h\"\n#include \"lib/matmul_intf.h\"\n");
  return g_steal_pointer (&twin);
}

void
fw_ascend_twin_free (FwAscendTwin *twin)
{
  if (twin == NULL)
    return;
  g_free (twin->include_dir);
  g_free (twin->salt);
  g_free (twin->runtime_object);
  g_free (twin->pch_vector);
  g_free (twin->pch_mixed);
  g_free (twin);
}

/* The kernel text with its `#include "tiling"` line blanked (the shim pastes the header before it), so line
 * numbers stay the kernel's. */
static void
append_kernel (GString *s, const FwTwinKernel *k)
{
  g_autofree char *include = k->tiling_name ? g_strdup_printf ("#include \"%s\"", k->tiling_name) : NULL;
  g_auto(GStrv) lines = g_strsplit (k->kernel_source, "\n", -1);

  g_string_append_printf (s, "#line 1 \"%s\"\n", k->kernel_name);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      if (include == NULL || strcmp (lines[i], include) != 0)
        g_string_append (s, lines[i]);
      if (lines[i + 1] != NULL)
        g_string_append_c (s, '\n');
    }
}

static char *
shim_source (const FwTwinKernel *k, guint n_args)
{
  GString *s = g_string_new ("#include \"kernel_operator.h\"\n");

  if (k->tiling_source != NULL)
    g_string_append_printf (s, "#line 1 \"%s\"\n%s\n", k->tiling_name, k->tiling_source);
  append_kernel (s, k);
  g_string_append (s, "\n#line 1 \"fw-twin-shim\"\nextern \"C\" void fw_twin_entry (uint8_t **a)\n{\n  ");
  g_string_append_printf (s, "%s (", k->entry);
  for (guint i = 0; i < n_args; i++)
    g_string_append_printf (s, "%sa[%u]", i ? ", " : "", i);
  g_string_append (s, ");\n}\n");
  return g_string_free (s, FALSE);
}

/* ReduceSum.md: the first-n form adds the repeats in order on Atlas A2 (910B), by a tree on the inference
 * series (310P). */
static int
reduce_mode (const FwProfile *profile)
{
  return profile->name != NULL && strstr (profile->name, "310") != NULL ? 1 : 2;
}

static void
remove_dir (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_unlink (path);
    }
  g_rmdir (dir);
}

static void
parse_diagnostics (FwTwinRun *run, const char *text)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) f = g_strsplit (lines[i], "\t", 6);
      guint n = g_strv_length (f);

      if (n == 6 && strcmp (f[0], "D") == 0)
        {
          FwTwinDiagnostic d = { g_strdup (f[1]), g_strdup (f[2]), (gint) g_ascii_strtoll (f[3], NULL, 10),
                                 g_ascii_strtoll (f[4], NULL, 10), g_utf8_make_valid (f[5], -1) };
          g_array_append_val (run->diagnostics, d);
        }
      else if (n > 0 && (strcmp (f[0], "B") == 0 || strcmp (f[0], "V") == 0))
        {
          g_auto(GStrv) v = g_strsplit (lines[i], "\t", 8);
          parse_block_line (run, v, g_strv_length (v));
        }
      else if (n == 2 && strcmp (f[0], "S") == 0)
        sscanf (f[1], "%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT
                " %" G_GUINT64_FORMAT, &run->counts.mte2_bytes, &run->counts.mte3_bytes,
                &run->counts.vector_repeats, &run->counts.vector_instructions, &run->counts.scalar_accesses);
    }
}

/* Writes the job and the inputs into dir, runs exe on it, reads the outputs into place. */
static gboolean
execute (const char *exe, const char *dir, const FwTwinKernel *k, const FwProfile *profile, FwArray *const *inputs,
         guint n_inputs, FwArray *const *outputs, guint n_outputs, FwTwinRun *run, GError **error)
{
  g_autoptr(GString) job = g_string_new (NULL);
  g_autofree char *job_path = g_build_filename (dir, "job", NULL);
  g_autofree char *diag_path = g_build_filename (dir, "diagnostics", NULL);
  g_autofree char *out = NULL, *err = NULL, *diag = NULL;
  const char *argv[] = { exe, job_path, NULL };
  gint status = 0;

  g_string_append_printf (job, "ub %" G_GUINT64_FORMAT "\ncube %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT
                          " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT "\nreduce %d\nblocks %u\nseed 1\ndiag %s\ntiling",
                          profile->ub_bytes, profile->l1_bytes, profile->l0a_bytes, profile->l0b_bytes,
                          profile->l0c_bytes, reduce_mode (profile), MAX (k->blocks, 1u), diag_path);
  if (k->long_tiling != NULL)
    for (guint i = 0; i < k->n_long_tiling; i++)
      g_string_append_printf (job, " %" G_GUINT64_FORMAT, k->long_tiling[i]);
  else
    for (guint i = 0; i < (k->n_tiling ? MIN (k->n_tiling, FW_TWIN_TILING_MAX) : 7); i++)
      g_string_append_printf (job, " %" G_GUINT64_FORMAT, k->tiling[i]);
  g_string_append_c (job, '\n');
  /* A scope's blocks are threads; its run may take longer than one kernel's. */
  if (k->concurrent)
    g_string_append_printf (job, "concurrent 1\ntime_limit 600\ndrop_barrier %u\nsync_timeout_ms %u\n",
                            k->drop_barrier, k->sync_timeout_ms);
  for (guint i = 0; i < n_inputs + n_outputs; i++)
    {
      gboolean is_out = i >= n_inputs;
      FwArray *a = is_out ? outputs[i - n_inputs] : inputs[i];
      g_autofree char *name = g_strdup_printf ("%s%u", is_out ? "out" : "in", is_out ? i - n_inputs : i);
      g_autofree char *path = g_build_filename (dir, name, NULL);

      if (!is_out && !g_file_set_contents (path, a->data, (gssize) a->n_bytes, error))
        return FALSE;
      g_string_append_printf (job, "arg %s %" G_GSIZE_FORMAT " %s %s\n", is_out ? "out" : "in", a->n_bytes, path, name);
    }
  if (k->workspace_bytes > 0)
    g_string_append_printf (job, "arg ws %" G_GUINT64_FORMAT " - workspace\n", k->workspace_bytes);
  if (!g_file_set_contents (job_path, job->str, -1, error))
    return FALSE;
  if (!fw_spawn_sync (dir, argv, FW_SPAWN_DEFAULT, &out, &err, &status, error))
    return FALSE;
  if (g_file_get_contents (diag_path, &diag, NULL, NULL))
    parse_diagnostics (run, diag);
  if (!g_spawn_check_wait_status (status, NULL))
    {
      /* The driver exits 3 after a guard page or its time limit, having written why. */
      if (WIFEXITED (status) && WEXITSTATUS (status) == 3 && run->diagnostics->len > 0)
        return TRUE;
      g_set_error (error, FW_ERROR, FW_ERROR_INTERNAL, _("the twin of kernel %s did not run: %s"), k->entry,
                   err && *err ? g_strstrip (err) : _("it stopped abnormally"));
      return FALSE;
    }
  for (guint i = 0; i < n_outputs; i++)
    {
      g_autofree char *path = g_strdup_printf ("%s/out%u", dir, i);
      g_autofree char *data = NULL;
      gsize len = 0;

      if (!g_file_get_contents (path, &data, &len, error))
        return FALSE;
      if (len != outputs[i]->n_bytes)
        {
          g_set_error (error, FW_ERROR, FW_ERROR_INTERNAL, _("the twin of kernel %s wrote a short output"), k->entry);
          return FALSE;
        }
      memcpy (outputs[i]->data, data, len);
    }
  return TRUE;
}

FwTwinRun *
fw_ascend_twin_run_kernel (FwAscendTwin *twin, const FwTwinKernel *k, const FwProfile *profile,
                           FwArray *const *inputs, guint n_inputs, FwArray *const *outputs, guint n_outputs,
                           GError **error)
{
  g_autofree char *shim = NULL, *exe = NULL, *dir = NULL;
  const char *pch = includes_matmul (k->kernel_source) ? twin->pch_mixed : twin->pch_vector;
  const char *flags[] = { compile_flags[0], compile_flags[1], compile_flags[2], compile_flags[3], "-I", twin->include_dir,
                          pch ? "-include" : NULL, pch, NULL };
  const char *extra[] = { twin->runtime_object, NULL };
  g_autoptr(FwTwinRun) run = NULL;
  gint64 t0 = g_get_monotonic_time (), t1;
  gboolean ok;

  g_return_val_if_fail (twin != NULL && k != NULL && profile != NULL, NULL);
  shim = shim_source (k, n_inputs + n_outputs + (k->workspace_bytes > 0) + 1);
  if (!fw_host_toolchain_build_cxx (twin->toolchain, shim, flags, extra, twin->salt, ".twin", &exe, error))
    {
      g_prefix_error (error, _("kernel %s does not compile against the Ascend C twin: "), k->entry);
      return NULL;
    }
  t1 = g_get_monotonic_time ();
  dir = g_dir_make_tmp ("fw-twin-XXXXXX", error);
  if (dir == NULL)
    return NULL;
  run = g_new0 (FwTwinRun, 1);
  run->build_s = (t1 - t0) / 1e6;
  run->outputs = g_ptr_array_new_with_free_func ((GDestroyNotify) fw_array_unref);
  run->diagnostics = g_array_new (FALSE, TRUE, sizeof (FwTwinDiagnostic));
  g_array_set_clear_func (run->diagnostics, diagnostic_clear);
  run->blocks = g_array_new (FALSE, TRUE, sizeof (FwTwinBlockCounts));
  g_array_set_clear_func (run->blocks, block_counts_clear);
  for (guint i = 0; i < n_outputs; i++)
    g_ptr_array_add (run->outputs, fw_array_ref (outputs[i]));
  ok = execute (exe, dir, k, profile, inputs, n_inputs, outputs, n_outputs, run, error);
  remove_dir (dir);
  run->run_s = (g_get_monotonic_time () - t1) / 1e6;
  return ok ? g_steal_pointer (&run) : NULL;
}

FwTwinRun *
fw_ascend_twin_run (FwAscendTwin *twin, FwAscendKernel *kernel, const FwProfile *profile, FwArray *const *inputs,
                    GError **error)
{
  const FwKernelSource *src = fw_ascend_kernel_get_kernel_source (kernel);
  const FwAscendTiling *t = fw_ascend_kernel_get_tiling (kernel);
  const char *name = fw_kernel_source_get_name (src);
  g_autofree char *kernel_name = g_strdup_printf ("%s.cpp", name);
  g_autofree char *tiling_name = g_strdup_printf ("%s_tiling.h", name);
  guint n_in = fw_kernel_source_get_n_inputs (src), n_out = fw_kernel_source_get_n_outputs (src);
  g_autoptr(GPtrArray) outputs = g_ptr_array_new_with_free_func ((GDestroyNotify) fw_array_unref);
  FwTwinKernel k = { name, kernel_name, fw_kernel_source_get_main (src), tiling_name,
                     fw_kernel_source_lookup_file (src, tiling_name),
                     { (guint64) t->total_length, (guint64) t->tile_length, (guint64) t->tile_num, (guint64) t->rows,
                       (guint64) t->row_length, (guint64) t->block_num, (guint64) t->tiles_per_block },
                     (guint) MAX (t->block_num, 1), 7 };

  /* A mixed kernel's struct goes on with its cube tiling. */
  for (guint i = 0; i < t->n_cube && 7 + i < FW_TWIN_TILING_MAX; i++)
    k.tiling[k.n_tiling++] = t->cube[i];
  k.workspace_bytes = (guint64) MAX (t->workspace_bytes, 0);

  for (guint i = 0; i < n_in; i++)
    {
      FwValue *v = fw_kernel_source_get_input (src, i);
      const FwArray *a = inputs[i];
      gboolean same = a != NULL && a->dtype == v->dtype && (gint) a->rank == v->rank;

      for (gint d = 0; same && d < v->rank; d++)
        same = a->dims[d] == v->dims[d].value;
      if (!same)
        {
          g_autofree char *want = fw_value_format_shape (v);
          g_set_error (error, FW_ERROR, FW_ERROR_INVALID, _("twin of kernel %s: input %u must be %s %s"), name, i,
                       fw_dtype_name (v->dtype), want);
          return NULL;
        }
    }
  for (guint i = 0; i < n_out; i++)
    {
      FwValue *v = fw_kernel_source_get_output (src, i);
      gint64 dims[FW_MAX_RANK];
      FwArray *a;

      for (gint d = 0; d < v->rank; d++)
        dims[d] = v->dims[d].value;
      a = fw_array_new0 (v->dtype, (guint) v->rank, dims, error);
      if (a == NULL)
        return NULL;
      g_ptr_array_add (outputs, a);
    }
  return fw_ascend_twin_run_kernel (twin, &k, profile, inputs, n_in, (FwArray *const *) outputs->pdata, n_out, error);
}

void
fw_twin_run_free (FwTwinRun *run)
{
  if (run == NULL)
    return;
  g_ptr_array_unref (run->outputs);
  g_array_unref (run->diagnostics);
  g_array_unref (run->blocks);
  g_free (run);
}

guint
fw_twin_run_get_n_outputs (FwTwinRun *run)
{
  return run->outputs->len;
}

FwArray *
fw_twin_run_get_output (FwTwinRun *run, guint index)
{
  g_return_val_if_fail (index < run->outputs->len, NULL);
  return g_ptr_array_index (run->outputs, index);
}

guint
fw_twin_run_get_n_diagnostics (FwTwinRun *run)
{
  return run->diagnostics->len;
}

const FwTwinDiagnostic *
fw_twin_run_get_diagnostic (FwTwinRun *run, guint index)
{
  g_return_val_if_fail (index < run->diagnostics->len, NULL);
  return &g_array_index (run->diagnostics, FwTwinDiagnostic, index);
}

const FwTwinDiagnostic *
fw_twin_run_find (FwTwinRun *run, const char *code)
{
  for (guint i = 0; i < run->diagnostics->len; i++)
    if (strcmp (g_array_index (run->diagnostics, FwTwinDiagnostic, i).code, code) == 0)
      return &g_array_index (run->diagnostics, FwTwinDiagnostic, i);
  return NULL;
}

const FwTwinCounts *
fw_twin_run_get_counts (FwTwinRun *run)
{
  return &run->counts;
}

const GArray *
fw_twin_run_get_blocks (FwTwinRun *run)
{
  return run->blocks;
}

void
fw_twin_run_get_seconds (FwTwinRun *run, gdouble *build_s, gdouble *run_s)
{
  *build_s = run->build_s;
  *run_s = run->run_s;
}
