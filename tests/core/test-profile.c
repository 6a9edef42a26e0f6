/* test-profile.c: shipped hardware profiles, user profile files and their errors, and the host probe. */
#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "fw-error.h"
#include "hw/fw-profile.h"

static char *tmp_dir;    /* removed at exit */

static char *
write_tmp (const char *name, const char *text)
{
  char *path = g_build_filename (tmp_dir, name, NULL);
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, text, -1, &error);
  g_assert_no_error (error);
  return path;
}

static char *
host_cache_path (void)
{
  return g_build_filename (g_get_user_cache_dir (), "fusion-workbench", "host-profile.yaml", NULL);
}

static void
test_builtin_910b (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwProfile) p = fw_profile_load_builtin ("ascend-910b", &error);

  g_assert_no_error (error);
  g_assert_cmpstr (p->name, ==, "ascend-910b");
  g_assert_cmpstr (p->source, ==, "resource:///org/fusionworkbench/hw/ascend-910b.yaml");
  g_assert_cmpint (p->kind, ==, FW_PROFILE_NPU);
  g_assert_cmpuint (p->cube_cores, ==, 24);
  g_assert_cmpuint (p->vector_cores, ==, 48);
  g_assert_cmpuint (p->ub_bytes, ==, 196608);
  g_assert_cmpuint (p->ub_reserve_bytes, ==, 256);
  g_assert_cmpuint (p->l1_bytes, ==, 524288);
  g_assert_cmpuint (p->l0a_bytes, ==, 65536);
  g_assert_cmpuint (p->l0b_bytes, ==, 65536);
  g_assert_cmpuint (p->l0c_bytes, ==, 131072);
  /* "192 MB" in vendor tables; the CANN code that tiles against it (catlass L2CacheByte, ascend-boost-comm
   * l2Size) says 192 * 1024 * 1024, so the profile ships the binary size. */
  g_assert_cmpuint (p->l2_bytes, ==, 192u * 1024 * 1024);
  g_assert_cmpfloat (p->hbm_bytes_per_s, ==, 1.6e12);
  g_assert_cmpfloat (p->cube_flops_per_s, ==, 354e12);
  g_assert_cmpfloat (p->vector_flops_per_s, ==, 11.4e12);
  g_assert_cmpfloat_with_epsilon (p->launch_overhead_s, 5e-6, 1e-15);
  g_assert_cmpfloat_with_epsilon (p->sync_overhead_s, 1e-6, 1e-15);
  g_assert_cmpfloat (p->budget_fraction, ==, 0.8);
  g_assert_cmpuint (p->max_vector_queues, ==, 4);
  g_assert_cmpuint (p->max_kernel_inputs, ==, 8);
  g_assert_cmpuint (p->max_fused_nodes, ==, 64);
  g_assert_cmpuint (p->ub_align_bytes, ==, 32);
}

static void
test_builtin_310p (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwProfile) p = fw_profile_load_builtin ("ascend-310p", &error);

  g_assert_no_error (error);
  g_assert_cmpstr (p->name, ==, "ascend-310p");
  g_assert_cmpint (p->kind, ==, FW_PROFILE_NPU);
  g_assert_cmpuint (p->cube_cores, ==, 8);
  g_assert_cmpuint (p->vector_cores, ==, 7);
  g_assert_cmpuint (p->ub_bytes, ==, 262144);
  g_assert_cmpuint (p->l1_bytes, ==, 1048576);
  g_assert_cmpuint (p->l0c_bytes, ==, 262144);
  g_assert_cmpuint (p->l2_bytes, ==, 16u * 1024 * 1024);
  g_assert_cmpfloat (p->hbm_bytes_per_s, >, 0);
  g_assert_cmpfloat (p->cube_flops_per_s, >, p->vector_flops_per_s);
  g_assert_cmpuint (p->max_vector_queues, ==, 4);
  g_assert_cmpuint (p->max_kernel_inputs, ==, 8);
}

static void
test_builtin_names (void)
{
  const char * const *names = fw_profile_builtin_names ();
  g_autoptr(GError) error = NULL;
  g_autoptr(FwProfile) none = NULL;

  g_assert_cmpuint (g_strv_length ((char **) names), ==, 3);
  g_assert_true (g_strv_contains (names, "ascend-910b"));
  g_assert_true (g_strv_contains (names, "ascend-310p"));
  g_assert_true (g_strv_contains (names, "host"));
  g_setenv ("FW_HOST_PROFILE_NO_PROBE", "1", TRUE);
  for (guint i = 0; names[i]; i++)
    {
      g_autoptr(FwProfile) p = fw_profile_load_builtin (names[i], &error);
      g_assert_no_error (error);
      g_assert_cmpstr (p->name, ==, names[i]);
      g_assert_cmpfloat (fw_profile_budget_bytes (p), >, 0);
    }
  g_unsetenv ("FW_HOST_PROFILE_NO_PROBE");
  none = fw_profile_load_builtin ("ascend-999", &error);
  g_assert_null (none);
  g_assert_error (error, FW_ERROR, FW_ERROR_USAGE);
  g_assert_nonnull (strstr (error->message, "ascend-910b"));
}

static void
test_budget (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwProfile) p = fw_profile_load_builtin ("ascend-910b", &error);

  g_assert_no_error (error);
  g_assert_cmpfloat_with_epsilon (fw_profile_budget_bytes (p), (196608.0 - 256.0) * 0.8, 1e-6);
  p->budget_fraction = 1.0;
  g_assert_cmpfloat (fw_profile_budget_bytes (p), ==, 196352.0);
}

static void
test_ref_counting (void)
{
  g_autoptr(GError) error = NULL;
  FwProfile *p = fw_profile_load_builtin ("ascend-310p", &error);

  g_assert_no_error (error);
  g_assert_true (fw_profile_ref (p) == p);
  fw_profile_unref (p);
  g_assert_cmpstr (p->name, ==, "ascend-310p");
  fw_profile_unref (p);
}

static void
test_lookup (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwProfile) builtin = fw_profile_lookup ("ascend-910b", &error);
  g_autofree char *yaml = NULL, *path = NULL;
  g_autoptr(FwProfile) file = NULL, none = NULL, missing = NULL;

  g_assert_no_error (error);
  g_assert_cmpuint (builtin->ub_bytes, ==, 196608);
  yaml = fw_profile_to_yaml (builtin);
  path = write_tmp ("lookup.yaml", yaml);
  file = fw_profile_lookup (path, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (file->source, ==, path);
  none = fw_profile_lookup ("no-such-chip", &error);
  g_assert_null (none);
  g_assert_error (error, FW_ERROR, FW_ERROR_USAGE);
  g_clear_error (&error);
  missing = fw_profile_lookup ("/nonexistent/fw-test/chip.yaml", &error);
  g_assert_null (missing);
  g_assert_error (error, FW_ERROR, FW_ERROR_IO);
}

static void
assert_same_profile (const FwProfile *a, const FwProfile *b)
{
  g_assert_cmpstr (a->name, ==, b->name);
  g_assert_cmpstr (a->description, ==, b->description);
  g_assert_cmpint (a->kind, ==, b->kind);
  g_assert_cmpuint (a->cube_cores, ==, b->cube_cores);
  g_assert_cmpuint (a->vector_cores, ==, b->vector_cores);
  g_assert_cmpuint (a->ub_bytes, ==, b->ub_bytes);
  g_assert_cmpuint (a->ub_reserve_bytes, ==, b->ub_reserve_bytes);
  g_assert_cmpuint (a->l1_bytes, ==, b->l1_bytes);
  g_assert_cmpuint (a->l0a_bytes, ==, b->l0a_bytes);
  g_assert_cmpuint (a->l0b_bytes, ==, b->l0b_bytes);
  g_assert_cmpuint (a->l0c_bytes, ==, b->l0c_bytes);
  g_assert_cmpuint (a->l2_bytes, ==, b->l2_bytes);
  g_assert_cmpfloat (a->hbm_bytes_per_s, ==, b->hbm_bytes_per_s);
  g_assert_cmpfloat (a->cube_flops_per_s, ==, b->cube_flops_per_s);
  g_assert_cmpfloat (a->vector_flops_per_s, ==, b->vector_flops_per_s);
  g_assert_cmpfloat (a->launch_overhead_s, ==, b->launch_overhead_s);
  g_assert_cmpfloat (a->sync_overhead_s, ==, b->sync_overhead_s);
  g_assert_cmpfloat (a->budget_fraction, ==, b->budget_fraction);
  g_assert_cmpuint (a->max_vector_queues, ==, b->max_vector_queues);
  g_assert_cmpuint (a->max_kernel_inputs, ==, b->max_kernel_inputs);
  g_assert_cmpuint (a->max_fused_nodes, ==, b->max_fused_nodes);
  g_assert_cmpuint (a->ub_align_bytes, ==, b->ub_align_bytes);
}

static void
test_round_trip (void)
{
  const char *names[] = { "ascend-910b", "ascend-310p" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(FwProfile) p = fw_profile_load_builtin (names[i], &error);
      g_autofree char *yaml = NULL, *file = NULL, *path = NULL, *yaml2 = NULL;
      g_autoptr(FwProfile) back = NULL;

      g_assert_no_error (error);
      yaml = fw_profile_to_yaml (p);
      file = g_strconcat (names[i], "-copy.yaml", NULL);
      path = write_tmp (file, yaml);
      back = fw_profile_load_file (path, &error);
      g_assert_no_error (error);
      assert_same_profile (p, back);
      g_assert_cmpstr (back->source, ==, path);
      /* Writing is stable: the copy writes the same text. */
      yaml2 = fw_profile_to_yaml (back);
      g_assert_cmpstr (yaml, ==, yaml2);
    }
}

static void
test_round_trip_odd_values (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwProfile) p = fw_profile_load_builtin ("ascend-310p", &error);
  g_autoptr(FwProfile) back = NULL;
  g_autofree char *yaml = NULL;

  g_assert_no_error (error);
  /* Numbers no unit divides evenly, and text that needs quoting, must still come back exactly. */
  g_free (p->description);
  p->description = g_strdup ("a \"quoted\" name: with \\ and\nnew line, 中文");
  p->hbm_bytes_per_s = 22927524427.74172;
  p->cube_flops_per_s = 1.0 / 3.0 * 1e13;
  p->vector_flops_per_s = 123456789.123;
  p->launch_overhead_s = 0.3e-6;
  p->sync_overhead_s = 0;
  p->budget_fraction = 0.1 + 0.2;
  p->ub_bytes = 196608 + 7;
  p->l2_bytes = G_GUINT64_CONSTANT (1) << 40;
  yaml = fw_profile_to_yaml (p);
  back = fw_profile_load_data ("odd.yaml", yaml, strlen (yaml), &error);
  g_assert_no_error (error);
  assert_same_profile (p, back);
}

static void
test_user_file_defaults (void)
{
  const char *text =
    "# A chip of our own, with only what is required.\n"
    "version: 1\n"
    "name: my_chip.v2\n"
    "kind: cpu\n"
    "cores: {cube: 4, vector: 8}\n"
    "memory: {ub: 1 MiB}\n"
    "bandwidth: {hbm: 50 GB/s}\n"
    "throughput: {cube_fp32: 1 TFLOP/s, vector_fp32: 500 GFLOP/s}\n";
  g_autofree char *path = write_tmp ("mine.yaml", text);
  g_autoptr(GError) error = NULL;
  g_autoptr(FwProfile) p = fw_profile_load_file (path, &error);

  g_assert_no_error (error);
  g_assert_cmpstr (p->name, ==, "my_chip.v2");
  g_assert_cmpstr (p->description, ==, "");
  g_assert_cmpstr (p->source, ==, path);
  g_assert_cmpint (p->kind, ==, FW_PROFILE_CPU);
  g_assert_cmpuint (p->ub_bytes, ==, 1048576);
  g_assert_cmpuint (p->ub_reserve_bytes, ==, 0);
  g_assert_cmpuint (p->l2_bytes, ==, 0);
  g_assert_cmpfloat (p->hbm_bytes_per_s, ==, 50e9);
  g_assert_cmpfloat (p->vector_flops_per_s, ==, 500e9);
  /* The documented defaults (data/hw/README.md). */
  g_assert_cmpfloat_with_epsilon (p->launch_overhead_s, 5e-6, 1e-15);
  g_assert_cmpfloat_with_epsilon (p->sync_overhead_s, 1e-6, 1e-15);
  g_assert_cmpfloat (p->budget_fraction, ==, 0.8);
  g_assert_cmpuint (p->max_vector_queues, ==, 4);
  g_assert_cmpuint (p->max_kernel_inputs, ==, 8);
  g_assert_cmpuint (p->max_fused_nodes, ==, 64);
  g_assert_cmpuint (p->ub_align_bytes, ==, 32);
}

/* A valid profile; each bad case replaces one line (1-based), so the expected line numbers are plain. */
static const char * const good_lines[] = {
  "version: 1",                  /* 1 */
  "name: test-chip",             /* 2 */
  "kind: npu",                   /* 3 */
  "cores:",                      /* 4 */
  "  cube: 4",                   /* 5 */
  "  vector: 8",                 /* 6 */
  "memory:",                     /* 7 */
  "  ub: 192 KiB",               /* 8 */
  "  ub_reserve: 256 B",         /* 9 */
  "bandwidth:",                  /* 10 */
  "  hbm: 1 TB/s",               /* 11 */
  "throughput:",                 /* 12 */
  "  cube_fp16: 100 TFLOP/s",    /* 13 */
  "  vector_fp16: 10 TFLOP/s",   /* 14 */
  "overhead:",                   /* 15 */
  "  launch: 5 us",              /* 16 */
  "limits:",                     /* 17 */
  "  budget_fraction: 0.8",      /* 18 */
  "  max_kernel_inputs: 8",      /* 19 */
};

typedef struct
{
  const char *test;
  guint       line;        /* the line replaced */
  const char *replacement;
  const char *where;       /* "LINE:COL" expected in the error */
  const char *needle;      /* the key, and what was wrong */
} BadCase;

static const BadCase bad_cases[] = {
  { "missing-key", 8, "  l1: 512 KiB", "8:3", "missing key “memory.ub”" },
  { "missing-top-key", 1, "# no version", "2:1", "missing key “version”" },
  { "empty-section", 11, "  # no hbm", "10:11", "bandwidth: must be a mapping of keys, not a scalar" },
  { "unknown-key", 19, "  max_kernel_input: 8", "19:3", "unknown key “max_kernel_input” (did you mean “max_kernel_inputs”?)" },
  { "unknown-top-key", 2, "nmae: test-chip", "2:1", "did you mean “name”" },
  { "wrong-dtype-key", 13, "  cube_fp32: 100 TFLOP/s", "13:3", "did you mean “cube_fp16”" },
  { "wrong-type-count", 5, "  cube: many", "5:9", "cores.cube: “many” is not a whole number" },
  { "wrong-type-list", 11, "  hbm: [1, 2]", "11:8", "bandwidth.hbm: the value must be a scalar" },
  { "negative-count", 6, "  vector: -8", "6:11", "cores.vector: -8 is out of range" },
  { "zero-count", 6, "  vector: 0", "6:11", "cores.vector: 0 is out of range" },
  { "huge-count", 5, "  cube: 99999999999999999999", "5:9", "cores.cube:" },
  { "count-over-limit", 19, "  max_kernel_inputs: 65537", "19:22", "limits.max_kernel_inputs: 65537 is out of range" },
  { "negative-size", 8, "  ub: -1 KiB", "8:7", "memory.ub: “-1 KiB” is not a non-negative quantity" },
  { "huge-size", 8, "  ub: 2048 GiB", "8:7", "memory.ub: “2048 GiB” is larger than 1 TiB" },
  { "fractional-size", 9, "  ub_reserve: 0.5 B", "9:15", "memory.ub_reserve: “0.5 B” is not a whole number" },
  { "bad-unit", 8, "  ub: 192 KB/s", "8:7", "memory.ub: unknown unit “KB/s”" },
  { "bad-rate-unit", 11, "  hbm: 1 TB", "11:8", "bandwidth.hbm: unknown unit “TB”" },
  { "zero-rate", 11, "  hbm: 0 B/s", "11:8", "bandwidth.hbm: must be greater than 0" },
  { "huge-rate", 13, "  cube_fp16: 100 EFLOP/s", "13:14", "throughput.cube_fp16: unknown unit" },
  { "implausible-rate", 14, "  vector_fp16: 1e9 PFLOP/s", "14:16", "throughput.vector_fp16:" },
  { "long-overhead", 16, "  launch: 5 s", "16:11", "overhead.launch: “5 s” is longer than 1 s" },
  { "budget-zero", 18, "  budget_fraction: 0", "18:20", "limits.budget_fraction: must be greater than 0" },
  { "budget-two", 18, "  budget_fraction: 2", "18:20", "limits.budget_fraction: 2 is out of range" },
  { "budget-text", 18, "  budget_fraction: most", "18:20", "limits.budget_fraction: “most” is not a number" },
  { "reserve-too-big", 9, "  ub_reserve: 192 KiB", "9:15", "memory.ub_reserve" },
  { "align-not-power", 19, "  ub_align: 48 B", "19:13", "limits.ub_align: 48 B is not a power of two" },
  { "bad-version", 1, "version: 2", "1:10", "not 2" },
  { "bad-kind", 3, "kind: gpu", "3:7", "kind: “gpu” is neither" },
  { "bad-name", 2, "name: my chip", "2:7", "name: “my chip”" },
  { "duplicate-key", 16, "  launch: 5 us\n  launch: 6 us", "17:3", "“launch” repeats the one on line 16" },
};

static void
test_bad_profile (gconstpointer data)
{
  const BadCase *c = data;
  GString *text = g_string_new (NULL);
  g_autofree char *path = NULL, *prefix = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FwProfile) p = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (good_lines); i++)
    g_string_append_printf (text, "%s\n", i + 1 == c->line ? c->replacement : good_lines[i]);
  path = write_tmp ("bad.yaml", text->str);
  g_string_free (text, TRUE);
  p = fw_profile_load_file (path, &error);
  g_assert_null (p);
  g_assert_nonnull (error);
  g_assert_true (error->domain == FW_ERROR);
  prefix = g_strdup_printf ("%s:%s: ", path, c->where);
  if (!g_str_has_prefix (error->message, prefix) || strstr (error->message, c->needle) == NULL)
    g_error ("%s: expected “%s…%s…”, got “%s”", c->test, prefix, c->needle, error->message);
}

static void
test_good_lines_load (void)
{
  g_autofree char *joined = g_strjoinv ("\n", (char **) good_lines);
  g_autoptr(GError) error = NULL;
  g_autoptr(FwProfile) p = fw_profile_load_data ("good.yaml", joined, strlen (joined), &error);

  /* The base of the bad cases is itself valid, so each case fails only for its own line. */
  g_assert_no_error (error);
  g_assert_cmpuint (p->ub_bytes, ==, 196608);
}

static void
test_bad_documents (void)
{
  struct { const char *text, *message; } cases[] = {
    { "", "bad.yaml:1:1: the profile is empty" },
    { "- a\n- b\n", "bad.yaml:1:1: a hardware profile must be a mapping" },
    { "version: 1\nname: [x]\n", "bad.yaml:2:7: name: the value must be a scalar" },
    { "version: 1\nname: x\nkind: npu\ncores: {cube: 1, vector: 1}\nmemory: {ub: 1 KiB}\n"
      "throughput: {cube_fp16: 1 TFLOP/s, vector_fp16: 1 TFLOP/s}\n",
      "bad.yaml:1:1: missing key “bandwidth”" },
    { "version: 1\nname: x\nkind: npu\ncores: 12\n", "bad.yaml:4:8: cores: must be a mapping of keys, not a scalar" },
    { "version: 1\nname: x\nkind: npu\ncores: {cube: 1}\n", "bad.yaml:4:8: missing key “cores.vector”" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(FwProfile) p = fw_profile_load_data ("bad.yaml", cases[i].text, strlen (cases[i].text), &error);
      g_assert_null (p);
      g_assert_nonnull (error);
      if (!g_str_has_prefix (error->message, cases[i].message))
        g_error ("expected “%s…”, got “%s”", cases[i].message, error->message);
    }
}

static void
test_host_no_probe (void)
{
  g_autofree char *cache = host_cache_path ();
  g_autoptr(GError) error = NULL;
  g_autoptr(FwProfile) p = NULL;

  g_remove (cache);
  g_setenv ("FW_HOST_PROFILE_NO_PROBE", "1", TRUE);
  p = fw_profile_load_builtin ("host", &error);
  g_unsetenv ("FW_HOST_PROFILE_NO_PROBE");
  g_assert_no_error (error);
  g_assert_cmpstr (p->name, ==, "host");
  g_assert_cmpint (p->kind, ==, FW_PROFILE_CPU);
  g_assert_true (g_str_has_prefix (p->source, "estimate"));
  g_assert_cmpuint (p->vector_cores, ==, g_get_num_processors ());
  g_assert_cmpuint (p->cube_cores, >=, 1);
  g_assert_cmpuint (p->cube_cores, <=, p->vector_cores);
  g_assert_cmpuint (p->ub_bytes, >, p->ub_reserve_bytes);
  /* host.yaml's fixed fallbacks, so tests see the same numbers on every machine. */
  g_assert_cmpfloat (p->hbm_bytes_per_s, ==, 5e9);
  g_assert_cmpfloat (p->vector_flops_per_s, ==, 10e9);
  g_assert_false (g_file_test (cache, G_FILE_TEST_EXISTS));
}

static void
test_host_probe_and_cache (void)
{
  g_autofree char *cache = host_cache_path ();
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FwProfile) first = NULL, second = NULL, as_file = NULL;

  g_remove (cache);
  first = fw_profile_load_builtin ("host", &error);
  g_assert_no_error (error);
  g_assert_true (g_str_has_prefix (first->source, "probe:"));
  g_assert_nonnull (strstr (first->source, cache));
  g_assert_cmpfloat (first->hbm_bytes_per_s, >, 0);
  g_assert_cmpfloat (first->vector_flops_per_s, >, 0);
  g_assert_cmpfloat (first->cube_flops_per_s, ==, first->vector_flops_per_s);
  g_test_message ("host: %u cores (%u logical), L1 %" G_GUINT64_FORMAT " B, L2/core %" G_GUINT64_FORMAT
                  " B, LLC %" G_GUINT64_FORMAT " B, triad %.3g GB/s, fp32 %.3g GFLOP/s",
                  first->cube_cores, first->vector_cores, first->l1_bytes, first->ub_bytes, first->l2_bytes,
                  first->hbm_bytes_per_s / 1e9, first->vector_flops_per_s / 1e9);
  g_assert_true (g_file_test (cache, G_FILE_TEST_IS_REGULAR));

  /* The second load reads the cache: same numbers, and the source says so. */
  second = fw_profile_load_builtin ("host", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (second->source, ==, cache);
  assert_same_profile (first, second);

  /* The cache is an ordinary profile file as well. */
  as_file = fw_profile_load_file (cache, &error);
  g_assert_no_error (error);
  assert_same_profile (first, as_file);

  g_file_get_contents (cache, &text, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (text, "machine: "));
}

static void
test_host_corrupt_cache (void)
{
  const char *corrupt[] = {
    "version: 1\nname: [unterminated\n",
    "\xff\xfe not even text",
    "version: 1\nname: host\nkind: cpu\n",  /* valid YAML, not a valid profile */
  };
  g_autofree char *cache = host_cache_path ();
  g_autofree char *dir = g_path_get_dirname (cache);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (corrupt); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(FwProfile) p = NULL, again = NULL;

      g_file_set_contents (cache, corrupt[i], -1, &error);
      g_assert_no_error (error);
      p = fw_profile_load_builtin ("host", &error);
      g_assert_no_error (error);
      g_assert_true (g_str_has_prefix (p->source, "probe:"));
      /* ...and the cache was rewritten, so the next load uses it. */
      again = fw_profile_load_builtin ("host", &error);
      g_assert_no_error (error);
      g_assert_cmpstr (again->source, ==, cache);
    }
}

static void
test_host_other_machine (void)
{
  g_autofree char *cache = host_cache_path ();
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FwProfile) first = NULL, p = NULL;
  g_autoptr(GString) edited = NULL;
  char *machine;

  first = fw_profile_load_builtin ("host", &error);
  g_assert_no_error (error);
  g_file_get_contents (cache, &text, NULL, &error);
  g_assert_no_error (error);
  machine = strstr (text, "machine: \"");
  g_assert_nonnull (machine);
  edited = g_string_new_len (text, machine - text);
  g_string_append (edited, "machine: \"Some other CPU; 1024 CPUs; probe 1\"");
  g_string_append (edited, strchr (machine, '\n'));
  g_file_set_contents (cache, edited->str, -1, &error);
  g_assert_no_error (error);
  p = fw_profile_load_builtin ("host", &error);
  g_assert_no_error (error);
  g_assert_true (g_str_has_prefix (p->source, "probe:"));
}

static void
remove_tree (const char *path)
{
  if (g_file_test (path, G_FILE_TEST_IS_DIR) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK))
    {
      g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
      const char *name;

      while (dir && (name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);
          remove_tree (child);
        }
      g_rmdir (path);
    }
  else
    g_remove (path);
}

int
main (int argc, char **argv)
{
  g_autofree char *cache_home = NULL;
  int status;

  /* Before anything asks GLib for the cache folder: it remembers the first answer. */
  tmp_dir = g_dir_make_tmp ("fw-test-profile-XXXXXX", NULL);
  g_assert_nonnull (tmp_dir);
  cache_home = g_build_filename (tmp_dir, "cache", NULL);
  g_setenv ("XDG_CACHE_HOME", cache_home, TRUE);
  g_unsetenv ("FW_HOST_PROFILE_NO_PROBE");

  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/hw/profile/builtin-910b", test_builtin_910b);
  g_test_add_func ("/core/hw/profile/builtin-310p", test_builtin_310p);
  g_test_add_func ("/core/hw/profile/builtin-names", test_builtin_names);
  g_test_add_func ("/core/hw/profile/budget", test_budget);
  g_test_add_func ("/core/hw/profile/ref-counting", test_ref_counting);
  g_test_add_func ("/core/hw/profile/lookup", test_lookup);
  g_test_add_func ("/core/hw/profile/round-trip", test_round_trip);
  g_test_add_func ("/core/hw/profile/round-trip-odd-values", test_round_trip_odd_values);
  g_test_add_func ("/core/hw/profile/user-file-defaults", test_user_file_defaults);
  g_test_add_func ("/core/hw/profile/bad/base-is-valid", test_good_lines_load);
  for (guint i = 0; i < G_N_ELEMENTS (bad_cases); i++)
    {
      g_autofree char *name = g_strconcat ("/core/hw/profile/bad/", bad_cases[i].test, NULL);
      g_test_add_data_func (name, &bad_cases[i], test_bad_profile);
    }
  g_test_add_func ("/core/hw/profile/bad/documents", test_bad_documents);
  g_test_add_func ("/core/hw/host/no-probe", test_host_no_probe);
  g_test_add_func ("/core/hw/host/probe-and-cache", test_host_probe_and_cache);
  g_test_add_func ("/core/hw/host/corrupt-cache", test_host_corrupt_cache);
  g_test_add_func ("/core/hw/host/other-machine", test_host_other_machine);
  status = g_test_run ();

  remove_tree (tmp_dir);
  g_free (tmp_dir);
  return status;
}
