/* The command line as a user meets it: exit codes, --help, --version, reports in both formats, and a
 * clear message naming the file for bad input. Runs the real binary. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "fw-test-models.h"
#include "fw-test-pb.h"

static const char *binary;
static char *workdir;

static int run_env (const char * const *args, const char * const *extra_env, char **out, char **err);

static int
run (const char * const *args, char **out, char **err)
{
  return run_env (args, NULL, out, err);
}

static int
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

static char *
write_model (FwModel *model, const char *name)
{
  char *path = g_build_filename (workdir, name, NULL);
  g_autoptr(GError) error = NULL;

  g_assert_true (fw_onnx_write (model, path, FW_ONNX_WRITE_DEFAULT, &error));
  return path;
}

static void
test_version (void)
{
  const char *args[] = { "--version", NULL };
  g_autofree char *out = NULL, *err = NULL;

  g_assert_cmpint (run (args, &out, &err), ==, 0);
  g_assert_true (g_str_has_prefix (out, "fusion-workbench " PACKAGE_VERSION));
}

static void
test_help (void)
{
  const char *args[] = { "--help", NULL };
  g_autofree char *out = NULL, *err = NULL;

  g_assert_cmpint (run (args, &out, &err), ==, 0);
  g_assert_nonnull (strstr (out, "--batch"));
  g_assert_nonnull (strstr (out, "--bind"));
  g_assert_nonnull (strstr (out, "--report"));
}

/* --calibrate measures, prints each number old → new and caches a calibrated profile; under
 * FW_HOST_PROFILE_NO_PROBE=1, which promises fixed numbers, it refuses. */
static void
test_calibrate (void)
{
  const char *args[] = { "--calibrate", NULL };
  g_autofree char *cache = g_build_filename (workdir, "calibrate-cache", NULL);
  g_autofree char *file = g_build_filename (cache, "fusion-workbench", "host-calibration.yaml", NULL);
  const char *env[] = { "XDG_CACHE_HOME", cache, NULL };
  const char *no_probe_env[] = { "XDG_CACHE_HOME", cache, "FW_HOST_PROFILE_NO_PROBE", "1", NULL };
  g_autofree char *o1 = NULL, *e1 = NULL, *o2 = NULL, *e2 = NULL;
  g_autoptr(FwProfile) p = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (run_env (args, no_probe_env, &o1, &e1), ==, 2);
  g_assert_nonnull (strstr (e1, "FW_HOST_PROFILE_NO_PROBE"));
  g_assert_false (g_file_test (file, G_FILE_TEST_EXISTS));

  g_assert_cmpint (run_env (args, env, &o2, &e2), ==, 0);
  g_assert_nonnull (strstr (o2, file));
  g_assert_nonnull (strstr (o2, "factor transcendental"));
  g_assert_nonnull (strstr (o2, "→"));
  p = fw_profile_load_file (file, &error);
  g_assert_no_error (error);
  g_assert_true (p->calibrated);
  g_assert_cmpfloat (p->hbm_bytes_per_s, >, 0);
}

static void
test_bad_usage (void)
{
  const char *unknown[] = { "--no-such-flag", NULL };
  const char *format[] = { "--batch", "m.onnx", "--format", "xml", NULL };
  const char *bind[] = { "--batch", "m.onnx", "--bind", "batch", NULL };
  const char *bind_value[] = { "--batch", "m.onnx", "--bind", "batch=-3", NULL };
  g_autofree char *o1 = NULL, *e1 = NULL, *o2 = NULL, *e2 = NULL, *o3 = NULL, *e3 = NULL, *o4 = NULL, *e4 = NULL;

  g_assert_cmpint (run (unknown, &o1, &e1), ==, 2);
  g_assert_cmpint (run (format, &o2, &e2), ==, 2);
  g_assert_nonnull (strstr (e2, "xml"));
  g_assert_cmpint (run (bind, &o3, &e3), ==, 2);
  g_assert_nonnull (strstr (e3, "NAME=VALUE"));
  g_assert_cmpint (run (bind_value, &o4, &e4), ==, 2);
}

static void
test_missing_model (void)
{
  const char *args[] = { "--batch", "does-not-exist.onnx", NULL };
  g_autofree char *out = NULL, *err = NULL;

  g_assert_cmpint (run (args, &out, &err), ==, 2);
  g_assert_nonnull (strstr (err, "does-not-exist.onnx"));
}

static void
test_bad_model (void)
{
  g_autofree char *path = g_build_filename (workdir, "broken.onnx", NULL);
  const char *args[] = { "--batch", "broken.onnx", "--report", "broken.json", NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(FwModel) model = fw_test_conv_block ();
  g_autoptr(GBytes) bytes = fw_onnx_serialize (model, FW_ONNX_WRITE_DEFAULT, NULL);
  g_autofree char *report = g_build_filename (workdir, "broken.json", NULL);

  /* Cut in the middle of the weights. */
  g_assert_true (g_file_set_contents (path, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes) / 2, NULL));
  g_assert_cmpint (run (args, &out, &err), ==, 2);
  g_assert_nonnull (strstr (err, "broken.onnx"));
  g_assert_nonnull (strstr (err, "byte"));
  /* No report is written for a model that did not load. */
  g_assert_false (g_file_test (report, G_FILE_TEST_EXISTS));
}

static JsonObject *
parse_report (const char *path, JsonParser *parser)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (json_parser_load_from_file (parser, path, &error));
  g_assert_no_error (error);
  return json_node_get_object (json_parser_get_root (parser));
}

static void
test_json_report (void)
{
  g_autoptr(FwModel) model = fw_test_transformer_block (32, 64, 4, TRUE);
  g_free (write_model (model, "block.onnx"));
  g_autofree char *report = g_build_filename (workdir, "block.json", NULL);
  const char *args[] = { "--batch", "block.onnx", "--report", "block.json", "--bind", "batch=8", NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *root, *graph, *shapes, *output;

  g_assert_cmpint (run (args, &out, &err), ==, 0);
  root = parse_report (report, parser);
  g_assert_cmpint (json_object_get_int_member (root, "schema_version"), ==, 1);
  graph = json_object_get_object_member (root, "graph");
  shapes = json_object_get_object_member (root, "shapes");
  g_assert_cmpint (json_object_get_int_member (graph, "nodes"), ==, fw_graph_get_n_nodes (fw_model_get_graph (model)));
  output = json_array_get_object_element (json_object_get_array_member (graph, "outputs"), 0);
  g_assert_cmpstr (json_object_get_string_member (output, "shape"), ==, "[8,32,64]");
  g_assert_cmpfloat (json_object_get_double_member (shapes, "static_percent"), ==, 100.0);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (shapes, "ops_without_inference")), ==, 0);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (root, "bindings"), "batch"), ==, 8);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (root, "model"), "file"), ==,
                   "block.onnx");
}

static void
test_symbolic_stays (void)
{
  g_autoptr(FwModel) model = fw_test_elementwise_chain (4, 16, TRUE);
  g_free (write_model (model, "chain.onnx"));
  const char *args[] = { "--batch", "chain.onnx", "--format", "json", NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *root, *output;

  g_assert_cmpint (run (args, &out, &err), ==, 0);
  g_assert_true (json_parser_load_from_data (parser, out, -1, NULL));
  root = json_node_get_object (json_parser_get_root (parser));
  output = json_array_get_object_element (
    json_object_get_array_member (json_object_get_object_member (root, "graph"), "outputs"), 0);
  g_assert_cmpstr (json_object_get_string_member (output, "shape"), ==, "[batch,16]");
  g_assert_false (json_object_get_boolean_member (output, "static"));
}

static void
test_unused_binding_warns (void)
{
  g_autoptr(FwModel) model = fw_test_elementwise_chain (4, 16, TRUE);
  const char *args[] = { "--batch", "chain2.onnx", "--format", "json", "--bind", "batch=2", "--bind", "btach=4",
                         NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *root;
  JsonArray *unused, *symbols;

  g_free (write_model (model, "chain2.onnx"));
  g_assert_cmpint (run (args, &out, &err), ==, 0);
  g_assert_nonnull (strstr (err, "--bind btach"));
  g_assert_nonnull (strstr (err, "batch"));
  g_assert_true (json_parser_load_from_data (parser, out, -1, NULL));
  root = json_node_get_object (json_parser_get_root (parser));
  unused = json_object_get_array_member (root, "bindings_unused");
  g_assert_cmpuint (json_array_get_length (unused), ==, 1);
  g_assert_cmpstr (json_array_get_string_element (unused, 0), ==, "btach");
  symbols = json_object_get_array_member (json_object_get_object_member (root, "shapes"), "symbols");
  g_assert_cmpuint (json_array_get_length (symbols), ==, 1);
  g_assert_cmpstr (json_array_get_string_element (symbols, 0), ==, "batch");
}

static void
test_markdown_report (void)
{
  g_autoptr(FwModel) model = fw_test_conv_block ();
  g_free (write_model (model, "conv.onnx"));
  g_autofree char *report = g_build_filename (workdir, "conv.md", NULL);
  const char *args[] = { "--batch", "conv.onnx", "--report", "conv.md", NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_autofree char *text = NULL;

  g_assert_cmpint (run (args, &out, &err), ==, 0);
  g_assert_true (g_file_get_contents (report, &text, NULL, NULL));
  g_assert_true (g_str_has_prefix (text, "# Model report: conv.onnx"));
  g_assert_nonnull (strstr (text, "| logits | float32 | [1,10] |"));
  g_assert_nonnull (strstr (text, "| Conv | 2 |"));
  g_assert_nonnull (strstr (text, "100.00%"));
}

static void
test_deterministic (void)
{
  g_autoptr(FwModel) model = fw_test_transformer_block (16, 32, 2, FALSE);
  g_free (write_model (model, "det.onnx"));
  const char *args[] = { "--batch", "det.onnx", "--format", "json", NULL };
  g_autofree char *a = NULL, *b = NULL, *e1 = NULL, *e2 = NULL;

  g_assert_cmpint (run (args, &a, &e1), ==, 0);
  g_assert_cmpint (run (args, &b, &e2), ==, 0);
  g_assert_cmpstr (a, ==, b);
}

static void
unknown_op_body (GByteArray *g, gpointer data)
{
  gint64 dims[1] = { 4 };
  fw_test_pb_value_info (g, GRAPH_INPUT, "x", 1, dims);
  fw_test_pb_node (g, "TotallyNewOp", "/mystery", "x", NULL, "y");
  fw_test_pb_value_info (g, GRAPH_OUTPUT, "y", 1, dims);
}

static void
test_unknown_op_listed (void)
{
  g_autoptr(GBytes) bytes = fw_test_pb_model (8, 13, unknown_op_body, NULL);
  g_autofree char *path = g_build_filename (workdir, "mystery.onnx", NULL);
  const char *args[] = { "--batch", "mystery.onnx", "--format", "markdown", NULL };
  g_autofree char *out = NULL, *err = NULL;

  g_assert_true (g_file_set_contents (path, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), NULL));
  g_assert_cmpint (run (args, &out, &err), ==, 0);
  g_assert_nonnull (strstr (out, "| TotallyNewOp | 1 |"));
}

static void
cycle_body (GByteArray *g, gpointer data)
{
  gint64 dims[1] = { 4 };
  fw_test_pb_value_info (g, GRAPH_INPUT, "x", 1, dims);
  fw_test_pb_node (g, "Add", "/a", "x", "b_out", "a_out");
  fw_test_pb_node (g, "Relu", "/b", "a_out", NULL, "b_out");
  fw_test_pb_value_info (g, GRAPH_OUTPUT, "a_out", 1, dims);
}

static void
dangling_body (GByteArray *g, gpointer data)
{
  gint64 dims[1] = { 4 };
  fw_test_pb_value_info (g, GRAPH_INPUT, "x", 1, dims);
  fw_test_pb_node (g, "Add", "/a", "x", "nowhere", "y");
  fw_test_pb_value_info (g, GRAPH_OUTPUT, "y", 1, dims);
}

static void
escape_body (GByteArray *g, gpointer data)
{
  fw_test_pb_external (g, "w", 4, "../../etc/passwd", 0, 16);
}

static void
huge_body (GByteArray *g, gpointer data)
{
  gint64 dims[2] = { G_GINT64_CONSTANT (1) << 31, G_GINT64_CONSTANT (1) << 31 };
  fw_test_pb_initializer (g, "w", 2, dims, 16);
}

static void
shape_mismatch_body (GByteArray *g, gpointer data)
{
  gint64 a[2] = { 4, 3 }, b[2] = { 5, 7 };
  fw_test_pb_value_info (g, GRAPH_INPUT, "a", 2, a);
  fw_test_pb_value_info (g, GRAPH_INPUT, "b", 2, b);
  fw_test_pb_node (g, "MatMul", "/mm", "a", "b", "y");
  fw_test_pb_value_info (g, GRAPH_OUTPUT, "y", 2, a);
}

/* Batch mode turns every kind of bad model into exit code 2 and a message naming the file. */
static void
test_bad_models_exit_2 (void)
{
  static const struct { const char *file; FwTestGraphBody body; const char *needle; } cases[] = {
    { "cycle.onnx", cycle_body, "cycle" },
    { "dangling.onnx", dangling_body, "nowhere" },
    { "escape.onnx", escape_body, "folder" },
    { "huge.onnx", huge_body, "2^39" },
    { "mismatch.onnx", shape_mismatch_body, "/mm" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GBytes) bytes = fw_test_pb_model (8, 13, cases[i].body, NULL);
      g_autofree char *path = g_build_filename (workdir, cases[i].file, NULL);
      const char *args[] = { "--batch", cases[i].file, "--format", "json", NULL };
      g_autofree char *out = NULL, *err = NULL;

      g_assert_true (g_file_set_contents (path, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), NULL));
      g_assert_cmpint (run (args, &out, &err), ==, 2);
      g_assert_cmpstr (out, ==, "");
      if (strstr (err, cases[i].file) == NULL || strstr (err, cases[i].needle) == NULL)
        g_error ("%s: message “%s” lacks the file or “%s”", cases[i].file, err, cases[i].needle);
    }
}

static JsonObject *
plan_of (const char *json, JsonParser *parser)
{
  g_assert_true (json_parser_load_from_data (parser, json, -1, NULL));
  return json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)), "plan");
}

static gboolean
has_pattern (JsonObject *plan, const char *pattern)
{
  JsonArray *candidates = json_object_get_array_member (plan, "candidates");

  for (guint i = 0; i < json_array_get_length (candidates); i++)
    if (g_strcmp0 (json_object_get_string_member (json_array_get_object_element (candidates, i), "pattern"),
                   pattern) == 0)
      return TRUE;
  return FALSE;
}

static void
test_plan_in_report (void)
{
  g_autoptr(FwModel) model = fw_test_transformer_block (16, 64, 4, FALSE);
  const char *balanced[] = { "--batch", "plan.onnx", "--format", "json", NULL };
  const char *aggressive[] = { "--batch", "plan.onnx", "--format", "json", "--strategy", "aggressive", NULL };
  const char *env_aggr[] = { "AUTOFUSION_STRATEGY", "aggressive", NULL };
  const char *env_off[] = { "AUTOFUSION_ENABLE", "0", NULL };
  const char *env_debug[] = { "AUTOFUSION_LOG_LEVEL", "DEBUG", NULL };
  const char *flag_wins[] = { "--batch", "plan.onnx", "--format", "json", "--strategy", "balanced", NULL };
  g_autofree char *o1 = NULL, *e1 = NULL, *o2 = NULL, *e2 = NULL, *o3 = NULL, *e3 = NULL, *o4 = NULL, *e4 = NULL;
  g_autofree char *o5 = NULL, *e5 = NULL, *o6 = NULL, *e6 = NULL;
  g_autoptr(JsonParser) p1 = json_parser_new ();
  g_autoptr(JsonParser) p2 = json_parser_new ();
  g_autoptr(JsonParser) p3 = json_parser_new ();
  g_autoptr(JsonParser) p4 = json_parser_new ();
  g_autoptr(JsonParser) p5 = json_parser_new ();
  JsonObject *plan;

  g_free (write_model (model, "plan.onnx"));
  g_assert_cmpint (run (balanced, &o1, &e1), ==, 0);
  plan = plan_of (o1, p1);
  g_assert_cmpstr (json_object_get_string_member (plan, "profile"), ==, "ascend-910b");
  g_assert_cmpstr (json_object_get_string_member (plan, "strategy"), ==, "balanced");
  g_assert_true (has_pattern (plan, "layernorm"));
  g_assert_true (has_pattern (plan, "matmul_bias_gelu"));
  /* The attention is one kernel from balanced on; the scores alone are never a group then. */
  g_assert_true (has_pattern (plan, "attention"));
  g_assert_false (has_pattern (plan, "attention_scores"));

  g_assert_cmpint (run (aggressive, &o2, &e2), ==, 0);
  g_assert_cmpstr (json_object_get_string_member (plan_of (o2, p2), "strategy"), ==, "aggressive");
  g_assert_true (has_pattern (plan_of (o2, p2), "attention"));
  /* The environment sets the strategy; a flag overrides it. */
  g_assert_cmpint (run_env (balanced, env_aggr, &o3, &e3), ==, 0);
  g_assert_cmpstr (json_object_get_string_member (plan_of (o3, p3), "strategy"), ==, "aggressive");
  g_assert_cmpint (run_env (flag_wins, env_aggr, &o6, &e6), ==, 0);
  g_assert_cmpstr (json_object_get_string_member (plan_of (o6, p5), "strategy"), ==, "balanced");
  g_assert_cmpint (run_env (balanced, env_off, &o4, &e4), ==, 0);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (plan_of (o4, p4), "candidates")), ==, 0);
  /* DEBUG prints every decision. */
  g_assert_cmpint (run_env (balanced, env_debug, &o5, &e5), ==, 0);
  g_assert_nonnull (strstr (e5, "found "));
  g_assert_nonnull (strstr (e5, "resource estimate"));
  g_assert_nonnull (strstr (e5, "accepted "));
  g_assert_nonnull (strstr (e5, "cannot fuse, the reason is [FW-NF-"));
}

static void
test_bad_plan_inputs (void)
{
  g_autoptr(FwModel) model = fw_test_conv_block ();
  g_autofree char *profile = g_build_filename (workdir, "bad-profile.yaml", NULL);
  g_autofree char *rules = g_build_filename (workdir, "bad-rules.yaml", NULL);
  const char *bad_profile[] = { "--batch", "conv3.onnx", "--profile", "bad-profile.yaml", NULL };
  const char *no_profile[] = { "--batch", "conv3.onnx", "--profile", "ascend-999", NULL };
  const char *bad_rules[] = { "--batch", "conv3.onnx", "--rules", "bad-rules.yaml", NULL };
  const char *bad_strategy[] = { "--batch", "conv3.onnx", "--strategy", "greedy", NULL };
  const char *plain[] = { "--batch", "conv3.onnx", NULL };
  const char *env_bad[] = { "AUTOFUSION_MAX_DEPTH", "lots", NULL };
  g_autofree char *o1 = NULL, *e1 = NULL, *o2 = NULL, *e2 = NULL, *o3 = NULL, *e3 = NULL, *o4 = NULL, *e4 = NULL;
  g_autofree char *o5 = NULL, *e5 = NULL;

  g_free (write_model (model, "conv3.onnx"));
  g_assert_true (g_file_set_contents (profile, "version: 1\nname: x\nkind: npu\ncores: {cube: 1, vector: 1}\n"
                                      "memory: {ub: 12 parsecs}\n", -1, NULL));
  g_assert_true (g_file_set_contents (rules, "version: 1\nrules:\n  - name: r\n    patern: [Relu]\n", -1, NULL));
  g_assert_cmpint (run (bad_profile, &o1, &e1), ==, 2);
  g_assert_nonnull (strstr (e1, "bad-profile.yaml:5:"));
  g_assert_cmpint (run (no_profile, &o2, &e2), ==, 2);
  g_assert_nonnull (strstr (e2, "ascend-999"));
  g_assert_cmpint (run (bad_rules, &o3, &e3), ==, 2);
  g_assert_nonnull (strstr (e3, "bad-rules.yaml:4:5"));
  g_assert_nonnull (strstr (e3, "patern"));
  g_assert_cmpint (run (bad_strategy, &o4, &e4), ==, 2);
  g_assert_nonnull (strstr (e4, "greedy"));
  g_assert_cmpint (run_env (plain, env_bad, &o5, &e5), ==, 2);
  g_assert_nonnull (strstr (e5, "AUTOFUSION_MAX_DEPTH"));
}

/* A report or whitelist aimed at the input model is refused; the model stays as it was. */
static void
test_never_overwrites_model (void)
{
  g_autoptr(FwModel) model = fw_test_conv_block ();
  g_autofree char *path = write_model (model, "keep.onnx");
  const char *report[] = { "--batch", "keep.onnx", "--report", "keep.onnx", NULL };
  const char *whitelist[] = { "--batch", "keep.onnx", "--export-whitelist", "./keep.onnx", NULL };
  g_autofree char *before = NULL, *after = NULL;
  g_autofree char *o1 = NULL, *e1 = NULL, *o2 = NULL, *e2 = NULL;
  gsize len_before, len_after;

  g_assert_true (g_file_get_contents (path, &before, &len_before, NULL));
  g_assert_cmpint (run (report, &o1, &e1), ==, 2);
  g_assert_nonnull (strstr (e1, "refusing to overwrite the input model"));
  g_assert_cmpint (run (whitelist, &o2, &e2), ==, 2);
  g_assert_nonnull (strstr (e2, "refusing to overwrite the input model"));
  g_assert_true (g_file_get_contents (path, &after, &len_after, NULL));
  g_assert_cmpmem (before, len_before, after, len_after);
}

/* Output aimed at a device is written into it, never renamed over it: /dev/null stays a device. */
static void
test_report_to_dev_null (void)
{
  g_autoptr(FwModel) model = fw_test_conv_block ();
  const char *args[] = { "--batch", "null.onnx", "--report", "/dev/null", "--export-whitelist", "/dev/null", NULL };
  g_autofree char *out = NULL, *err = NULL;
  GStatBuf st;

  g_free (write_model (model, "null.onnx"));
  g_assert_cmpint (run (args, &out, &err), ==, 0);
  g_assert_cmpint (g_stat ("/dev/null", &st), ==, 0);
  g_assert_true (S_ISCHR (st.st_mode));
}

static void
test_unwritable_report (void)
{
  g_autoptr(FwModel) model = fw_test_conv_block ();
  g_free (write_model (model, "conv2.onnx"));
  const char *args[] = { "--batch", "conv2.onnx", "--report", "/nonexistent-dir/r.json", NULL };
  g_autofree char *out = NULL, *err = NULL;

  g_assert_cmpint (run (args, &out, &err), ==, 2);
  g_assert_nonnull (strstr (err, "/nonexistent-dir/r.json"));
}

static void
write_text (const char *name, const char *text)
{
  g_autofree char *path = g_build_filename (workdir, name, NULL);
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_set_contents (path, text, -1, &error));
}

/* --whitelist, --export-whitelist and --fail-on rejected-whitelist: 0 when every accepted entry held, 1 when
 * one matched nothing, 2 for a bad whitelist or an unknown --fail-on condition. */
static void
test_whitelist_flags (void)
{
  g_autoptr(FwModel) model = fw_test_transformer_block (16, 32, 2, FALSE);
  g_autofree char *exported = g_build_filename (workdir, "wl-out.fusion.yaml", NULL);
  g_autofree char *out = NULL, *err = NULL, *text = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *plan;

  g_free (write_model (model, "wl.onnx"));
  write_text ("good.fusion.yaml", "version: 1\nentries:\n  - pattern: layernorm\n    decision: veto\n    who: ci\n");
  write_text ("none.fusion.yaml", "version: 1\nentries:\n  - pattern: no_such_pattern\n    decision: accept\n");
  write_text ("bad.fusion.yaml", "version: 1\nentries:\n  - pattern: layernorm\n    decision: perhaps\n");
  {
    const char *args[] = { "--batch", "wl.onnx", "--format", "json", "--whitelist", "good.fusion.yaml",
                           "--export-whitelist", "wl-out.fusion.yaml", "--fail-on", "rejected-whitelist", NULL };
    g_assert_cmpint (run (args, &out, &err), ==, 0);
    g_assert_true (json_parser_load_from_data (parser, out, -1, NULL));
    plan = json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)), "plan");
    g_assert_cmpuint (json_array_get_length (json_object_get_array_member (plan, "decisions")), ==, 1);
    g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (plan, "whitelist"), "entries"), ==, 1);
    g_assert_true (g_file_get_contents (exported, &text, NULL, NULL));
    g_assert_nonnull (strstr (text, "pattern: \"layernorm\""));
    g_assert_nonnull (strstr (text, "fingerprint: "));
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
  }
  {
    /* The exported file applies back cleanly. */
    const char *args[] = { "--batch", "wl.onnx", "--format", "json", "--whitelist", "wl-out.fusion.yaml",
                           "--fail-on", "rejected-whitelist", NULL };
    g_assert_cmpint (run (args, &out, &err), ==, 0);
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
  }
  {
    const char *args[] = { "--batch", "wl.onnx", "--format", "markdown", "--whitelist", "good.fusion.yaml",
                           "--whitelist", "none.fusion.yaml", "--fail-on", "rejected-whitelist", NULL };
    g_assert_cmpint (run (args, &out, &err), ==, 1);
    g_assert_nonnull (strstr (err, "rejected-whitelist"));
    g_assert_nonnull (strstr (out, "none.fusion.yaml:3"));
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
  }
  {
    /* Without --fail-on the same is only reported. */
    const char *args[] = { "--batch", "wl.onnx", "--format", "json", "--whitelist", "none.fusion.yaml", NULL };
    g_assert_cmpint (run (args, &out, &err), ==, 0);
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
  }
  {
    const char *args[] = { "--batch", "wl.onnx", "--format", "json", "--whitelist", "bad.fusion.yaml", NULL };
    g_assert_cmpint (run (args, &out, &err), ==, 2);
    g_assert_nonnull (strstr (err, "bad.fusion.yaml:4:15"));
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
  }
  {
    const char *args[] = { "--batch", "wl.onnx", "--format", "json", "--fail-on", "rejected-whitelist,mismatch", NULL };
    g_assert_cmpint (run (args, &out, &err), ==, 2);
    g_assert_nonnull (strstr (err, "mismatch"));
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
  }
  {
    const char *args[] = { "--batch", "wl.onnx", "--format", "json", "--whitelist", "missing.fusion.yaml", NULL };
    g_assert_cmpint (run (args, &out, &err), ==, 2);
  }
}

static gboolean
have_cc (void)
{
  g_autofree char *cc = g_find_program_in_path ("cc");

  if (cc == NULL)
    g_test_skip ("no C compiler");
  return cc != NULL;
}

static const char *const *
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

/* The whole SuperKernel path from the command line: both targets, verification, measurement, export. */
static void
test_verify_export (void)
{
  g_autoptr(FwModel) model = fw_test_transformer_block (16, 32, 4, TRUE);
  g_autofree char *path = write_model (model, "enc.onnx");
  const char *args[] = { "--batch", "enc.onnx", "--bind", "batch=2", "--target", "host,ascend", "--verify",
                         "--measure", "--repeats", "1", "--threads", "2", "--export", "enc-out", "--fail-on",
                         "mismatch", "--report", "enc.json", NULL };
  g_autofree char *out = NULL, *err = NULL, *report = g_build_filename (workdir, "enc.json", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *root, *verification, *measurement;
  JsonArray *host, *ascend;
  g_autofree char *fused = g_build_filename (workdir, "enc-out", "enc.fused.onnx", NULL);
  g_autofree char *yaml = g_build_filename (workdir, "enc-out", "enc.fusion.yaml", NULL);
  g_autofree char *manifest = g_build_filename (workdir, "enc-out", "kernels", "manifest.json", NULL);
  g_autoptr(FwModel) back = NULL;
  g_autoptr(GError) error = NULL;
  guint n_fused = 0, mixed = 0;
  const char *form;

  if (!have_cc ())
    return;
  g_assert_cmpint (run_env (args, cache_env (), &out, &err), ==, 0);
  root = parse_report (report, parser);
  host = json_object_get_array_member (json_object_get_object_member (json_object_get_object_member (root, "targets"),
                                                                      "host"), "kernels");
  g_assert_cmpuint (json_array_get_length (host), >, 0);
  for (guint i = 0; i < json_array_get_length (host); i++)
    g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (host, i), "status"), ==,
                     "compiled");
  /* Every Ascend kernel ran on the twin on the reference's boundary values: clean and matching. */
  ascend = json_object_get_array_member (json_object_get_object_member (json_object_get_object_member (root, "targets"),
                                                                        "ascend"), "kernels");
  g_assert_cmpuint (json_array_get_length (ascend), ==, json_array_get_length (host));
  for (guint i = 0; i < json_array_get_length (ascend); i++)
    {
      JsonObject *k = json_array_get_object_element (ascend, i);
      JsonObject *twin;

      /* A group read or written through a strided index map (the head split's transposes) is refused by
         the Ascend generator with that reason, and a fused attention with FW-TG-003; its host kernel was
         verified. */
      if (g_strcmp0 (json_object_get_string_member_with_default (k, "status", ""), "generated") != 0)
        {
          const char *message = json_object_get_string_member_with_default (k, "message", "");
          g_assert_true (strstr (message, "index map") != NULL || strstr (message, "[FW-TG-003]") != NULL);
          continue;
        }
      twin = json_object_get_object_member (k, "twin");
      g_assert_nonnull (twin);
      g_assert_true (json_object_get_boolean_member (twin, "ran"));
      g_assert_true (json_object_get_boolean_member (twin, "pass"));
      g_assert_cmpfloat (json_object_get_double_member (twin, "cosine"), >=, 0.9999);
      g_assert_cmpuint (json_array_get_length (json_object_get_array_member (twin, "diagnostics")), ==, 0);
      g_assert_cmpint (json_object_get_int_member (twin, "mte2_bytes"), >, 0);
      /* The twin's time beside the planner's, both past the launch overhead. */
      g_assert_cmpfloat (json_object_get_double_member (twin, "estimated_us"), >, 5.0);
      g_assert_cmpfloat (json_object_get_double_member (twin, "planner_estimated_us"), >, 5.0);
      form = json_object_get_string_member (json_array_get_object_element (ascend, i), "form");
      g_assert_true (g_strcmp0 (form, "vector") == 0 || g_strcmp0 (form, "epilogue") == 0 ||
                     g_strcmp0 (form, "cube_vector") == 0);
      mixed += g_strcmp0 (form, "cube_vector") == 0;
    }
  /* The encoder's projections are MatMul roots with epilogues: one mixed cube + vector kernel each, run on
   * the twin with the rest. */
  g_assert_cmpuint (mixed, >, 0);
  /* Their rank correlation over the model's kernels: a number in [-1, 1] (or null when one side is flat). */
  {
    JsonObject *a = json_object_get_object_member (json_object_get_object_member (root, "targets"), "ascend");
    JsonNode *rho = json_object_get_member (a, "twin_rank_correlation");
    g_assert_nonnull (rho);
    if (!JSON_NODE_HOLDS_NULL (rho))
      g_assert_cmpfloat (fabs (json_node_get_double (rho)), <=, 1.0);
  }
  verification = json_object_get_object_member (root, "verification");
  g_assert_true (json_object_get_boolean_member (verification, "pass"));
  n_fused = json_array_get_length (json_object_get_array_member (verification, "groups"));
  g_assert_cmpuint (n_fused, ==, json_array_get_length (host));
  measurement = json_object_get_object_member (root, "measurement");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (measurement, "kernels")), ==, n_fused);
  g_assert_cmpfloat (json_object_get_double_member (json_object_get_object_member (measurement, "model"),
                                                    "fused_ms"), >, 0.0);
  /* The Ascend profile is never calibrated: the uncalibrated figures are the plan's own. */
  g_assert_false (json_object_get_boolean_member (measurement, "calibrated"));
  g_assert_true (json_object_has_member (measurement, "median_abs_error_percent"));
  g_assert_true (json_object_has_member (measurement, "rank_correlation_uncalibrated"));
  {
    JsonArray *ks = json_object_get_array_member (measurement, "kernels");
    for (guint i = 0; i < json_array_get_length (ks); i++)
      {
        JsonObject *k = json_array_get_object_element (ks, i);
        g_assert_cmpfloat (json_object_get_double_member (k, "predicted_speedup_uncalibrated"), ==,
                           json_object_get_double_member (k, "predicted_speedup"));
      }
  }
  g_assert_true (g_file_test (yaml, G_FILE_TEST_IS_REGULAR));
  g_assert_true (g_file_test (manifest, G_FILE_TEST_IS_REGULAR));
  back = fw_onnx_load (fused, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (fw_graph_get_n_nodes (fw_model_get_graph (back)), <,
                    fw_graph_get_n_nodes (fw_model_get_graph (model)));
}

/* A model whose work sits in Loop and If bodies: their groups are compiled, run inside the bodies and
 * verified, each listed with its body. */
static void
test_control_flow (void)
{
  g_autofree char *model = g_test_build_filename (G_TEST_DIST, "data", "control-flow", "cflow_vad.onnx", NULL);
  const char *args[] = { "--batch", model, "--target", "host", "--verify", "--fail-on", "mismatch", "--report",
                         "cf.json", NULL };
  g_autofree char *out = NULL, *err = NULL, *report = g_build_filename (workdir, "cf.json", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *root, *verification;
  JsonArray *candidates, *groups;
  guint in_loop = 0, checked_in_body = 0;

  if (!have_cc ())
    return;
  g_assert_cmpint (run_env (args, cache_env (), &out, &err), ==, 0);
  root = parse_report (report, parser);
  candidates = json_object_get_array_member (json_object_get_object_member (root, "plan"), "candidates");
  for (guint i = 0; i < json_array_get_length (candidates); i++)
    in_loop += g_strcmp0 (json_object_get_string_member_with_default (json_array_get_object_element (candidates, i),
                                                                      "body", ""), "/Loop_0/body") == 0;
  g_assert_cmpuint (in_loop, >, 0);
  verification = json_object_get_object_member (root, "verification");
  g_assert_true (json_object_get_boolean_member (verification, "pass"));
  groups = json_object_get_array_member (verification, "groups");
  for (guint i = 0; i < json_array_get_length (groups); i++)
    {
      JsonObject *c = json_array_get_object_element (candidates,
                                                     json_object_get_int_member (json_array_get_object_element (groups, i),
                                                                                 "candidate"));
      checked_in_body += json_object_has_member (c, "body");
    }
  g_assert_cmpuint (checked_in_body, >, in_loop);
}

/* A compiler that fails: every group is reported with the compiler's message, the run goes on with the
 * reference kernels, and --fail-on mismatch turns the unverified groups into exit code 1. */
static void
test_compiler_fails (void)
{
  g_autoptr(FwModel) model = fw_test_elementwise_chain (4, 256, FALSE);
  g_autofree char *path = write_model (model, "chain.onnx");
  g_autofree char *script = g_build_filename (workdir, "bad-cc", NULL);
  g_autofree char *cache = g_build_filename (workdir, "cache-bad", NULL);
  const char *args[] = { "--batch", "chain.onnx", "--verify", "--fail-on", "mismatch", "--report", "-", "--format", "json", NULL };
  const char *env[] = { "CC", script, "XDG_CACHE_HOME", cache, NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *root;
  JsonObject *kernel;

  g_assert_true (g_file_set_contents (script, "#!/bin/sh\n[ \"$1\" = --version ] && { echo 'fakecc 1.0'; exit 0; }\n"
                                      "echo 'fatal: this compiler refuses everything' >&2\nexit 1\n", -1, NULL));
  g_assert_cmpint (g_chmod (script, 0755), ==, 0);
  g_assert_cmpint (run_env (args, env, &out, &err), ==, 1);
  g_assert_nonnull (strstr (err, "--fail-on mismatch"));
  g_assert_true (json_parser_load_from_data (parser, out, -1, NULL));
  root = json_node_get_object (json_parser_get_root (parser));
  kernel = json_array_get_object_element (json_object_get_array_member (json_object_get_object_member (
    json_object_get_object_member (root, "targets"), "host"), "kernels"), 0);
  g_assert_cmpstr (json_object_get_string_member (kernel, "status"), ==, "not-compiled");
  g_assert_nonnull (strstr (json_object_get_string_member (kernel, "message"), "refuses everything"));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (
    json_object_get_object_member (root, "verification"), "unverified")), ==, 1);
  g_assert_false (json_object_get_boolean_member (json_object_get_object_member (root, "verification"), "pass"));
}

static void
test_bad_exec_flags (void)
{
  g_autoptr(FwModel) model = fw_test_elementwise_chain (3, 16, TRUE);
  g_autofree char *path = write_model (model, "sym.onnx");
  const char *target[] = { "--batch", "sym.onnx", "--target", "gpu", NULL };
  const char *tolerance[] = { "--batch", "sym.onnx", "--bind", "batch=1", "--verify", "--tolerance", "rel=tight", NULL };
  const char *mismatch[] = { "--batch", "sym.onnx", "--fail-on", "mismatch", NULL };
  const char *regression[] = { "--batch", "sym.onnx", "--fail-on", "regression", NULL };
  const char *unbound[] = { "--batch", "sym.onnx", "--verify", NULL };
  const char *repeats[] = { "--batch", "sym.onnx", "--repeats", "-3", NULL };
  const char *policy[] = { "--batch", "sym.onnx", "--bind", "batch=1", "--verify", "--verify-policy", "lenient", NULL };
  struct { const char *const *args; const char *message; } cases[] = {
    { target, "--target “gpu”" },
    { tolerance, "--tolerance “rel=tight”" },
    { mismatch, "--fail-on mismatch needs --verify" },
    { regression, "--fail-on regression needs --measure" },
    { unbound, "--bind" },
    { repeats, "--repeats" },
    { policy, "--verify-policy “lenient”" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *out = NULL, *err = NULL;

      g_assert_cmpint (run_env (cases[i].args, cache_env (), &out, &err), ==, 2);
      if (strstr (err, cases[i].message) == NULL)
        g_error ("case %u: “%s” not in: %s", i, cases[i].message, err);
    }
}

/* --export into the model's own folder writes beside it and leaves the model as it was. */
static void
test_export_beside_model (void)
{
  g_autoptr(FwModel) model = fw_test_conv_block ();
  g_autofree char *path = write_model (model, "conv.onnx");
  const char *args[] = { "--batch", "conv.onnx", "--export", ".", "--target", "ascend", NULL };
  g_autofree char *before = NULL, *after = NULL, *out = NULL, *err = NULL;
  g_autofree char *fused = g_build_filename (workdir, "conv.fused.onnx", NULL);
  gsize len_before, len_after;

  g_assert_true (g_file_get_contents (path, &before, &len_before, NULL));
  g_assert_cmpint (run_env (args, cache_env (), &out, &err), ==, 0);
  g_assert_true (g_file_get_contents (path, &after, &len_after, NULL));
  g_assert_cmpmem (before, len_before, after, len_after);
  g_assert_true (g_file_test (fused, G_FILE_TEST_IS_REGULAR));
}

/* The graph drawn headless, in both formats, and a clear error for any other. */
static void
test_render (void)
{
  g_autoptr(FwModel) model = fw_test_conv_block ();
  g_autofree char *path = write_model (model, "draw.onnx");
  const char *svg[] = { "--batch", "draw.onnx", "--render", "draw.svg", "--report", "/dev/null", NULL };
  const char *png[] = { "--batch", "draw.onnx", "--render", "draw.png", "--report", "/dev/null", NULL };
  const char *bad[] = { "--batch", "draw.onnx", "--render", "draw.gif", NULL };
  g_autofree char *out = NULL, *err = NULL, *text = NULL;
  g_autofree char *svg_path = g_build_filename (workdir, "draw.svg", NULL);
  g_autofree char *png_path = g_build_filename (workdir, "draw.png", NULL);
  gsize len = 0;

  g_assert_cmpint (run (svg, &out, &err), ==, 0);
  g_assert_true (g_file_get_contents (svg_path, &text, &len, NULL));
  g_assert_nonnull (strstr (text, "<svg"));
  g_clear_pointer (&text, g_free);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run (png, &out, &err), ==, 0);
  g_assert_true (g_file_get_contents (png_path, &text, &len, NULL));
  g_assert_cmpuint (len, >, 8);
  g_assert_cmpmem (text, 8, "\x89PNG\r\n\x1a\n", 8);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run (bad, &out, &err), ==, 2);
  g_assert_nonnull (strstr (err, "draw.gif"));
}

/* The roofline and the summary, headless, and the same refusal of other formats. */
static void
test_render_pictures (void)
{
  g_autoptr(FwModel) model = fw_test_transformer_block (16, 64, 4, FALSE);
  g_autofree char *path = write_model (model, "pictures.onnx");
  const char *both[] = { "--batch", "pictures.onnx", "--roofline", "roofline.svg", "--summary", "summary.png",
                         "--report", "/dev/null", NULL };
  const char *bad[] = { "--batch", "pictures.onnx", "--summary", "summary.bmp", NULL };
  const char *over[] = { "--batch", "pictures.onnx", "--roofline", "pictures.onnx", NULL };
  g_autofree char *out = NULL, *err = NULL, *text = NULL;
  g_autofree char *svg_path = g_build_filename (workdir, "roofline.svg", NULL);
  g_autofree char *png_path = g_build_filename (workdir, "summary.png", NULL);
  gsize len = 0;

  g_assert_cmpint (run (both, &out, &err), ==, 0);
  g_assert_true (g_file_get_contents (svg_path, &text, &len, NULL));
  g_assert_nonnull (strstr (text, "<svg"));
  g_clear_pointer (&text, g_free);
  g_assert_true (g_file_get_contents (png_path, &text, &len, NULL));
  g_assert_cmpuint (len, >, 8);
  g_assert_cmpmem (text, 8, "\x89PNG\r\n\x1a\n", 8);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run (bad, &out, &err), ==, 2);
  g_assert_nonnull (strstr (err, "summary.bmp"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  /* The input model survives a mistyped picture path. */
  g_assert_cmpint (run (over, &out, &err), ==, 2);
  g_assert_nonnull (strstr (err, "refusing to overwrite"));
}

/* --convert-rules prints a fusion_rules file in our format, and says where a bad one is wrong (exit 2). */
static void
test_convert_rules (void)
{
  g_autofree char *good = g_build_filename (workdir, "articles.yaml", NULL);
  g_autofree char *bad = g_build_filename (workdir, "articles-bad.yaml", NULL);
  const char *args_good[] = { "--convert-rules", good, NULL };
  const char *args_bad[] = { "--convert-rules", bad, NULL };
  g_autofree char *out = NULL, *err = NULL, *out2 = NULL, *err2 = NULL;

  g_assert_true (g_file_set_contents (good, "fusion_rules:\n  - name: mbr\n    pattern: [MatMul, BiasAdd, ReLU]\n"
                                      "    conditions: [{matmul_m_dim_ge: 128}]\n", -1, NULL));
  g_assert_true (g_file_set_contents (bad, "fusion_rules:\n  - name: mbr\n    pattern: [MatMul, BiasAd]\n", -1, NULL));
  g_assert_cmpint (run (args_good, &out, &err), ==, 0);
  g_assert_nonnull (strstr (out, "version: 1\n"));
  g_assert_nonnull (strstr (out, "pattern: [MatMul, Add, Relu]"));
  g_assert_nonnull (strstr (out, "when: {min_dim: {M: 128}}"));
  g_assert_cmpint (run (args_bad, &out2, &err2), ==, 2);
  g_assert_nonnull (strstr (err2, "articles-bad.yaml:3:23: unknown op “BiasAd” in a fusion_rules pattern (did you mean “BiasAdd”?"));
}

static guint
n_fused_nodes (JsonObject *root)
{
  JsonArray *cands = json_object_get_array_member (json_object_get_object_member (root, "plan"), "candidates");
  guint n = 0;

  for (guint i = 0; i < json_array_get_length (cands); i++)
    n += json_array_get_length (json_object_get_array_member (json_array_get_object_element (cands, i), "nodes"));
  return n;
}

/* --ops: the custom op fuses with its neighbours, the host kernel verifies against the registry's own
 * evaluation; a bad registry is bad input naming its place; the preferences' `ops` key is read too. */
static void
test_custom_ops (void)
{
  g_autoptr(FwModel) model = fw_test_custom_op_model (4, 64);
  g_autofree char *path = write_model (model, "custom.onnx");
  g_autofree char *ops = g_build_filename (workdir, "ops.yaml", NULL);
  g_autofree char *bad = g_build_filename (workdir, "ops-bad.yaml", NULL);
  g_autofree char *report = g_build_filename (workdir, "custom.json", NULL);
  g_autofree char *plain = g_build_filename (workdir, "custom-plain.json", NULL);
  g_autofree char *schemas = g_build_filename (g_getenv ("G_TEST_BUILDDIR"), "..", "data", NULL);
  g_autofree char *compiled = g_build_filename (schemas, "gschemas.compiled", NULL);
  g_autofree char *config = g_build_filename (workdir, "config", NULL);
  g_autofree char *keyfile_dir = g_build_filename (config, "glib-2.0", "settings", NULL);
  g_autofree char *keyfile = g_build_filename (keyfile_dir, "keyfile", NULL);
  g_autofree char *keys = g_strdup_printf ("[org/fusionworkbench/FusionWorkbench]\nops=['%s']\n", ops);
  const char *args[] = { "--batch", "custom.onnx", "--ops", "ops.yaml", "--verify", "--fail-on", "mismatch",
                         "--report", "custom.json", NULL };
  const char *args_bad[] = { "--batch", "custom.onnx", "--ops", "ops-bad.yaml", NULL };
  const char *args_plain[] = { "--batch", "custom.onnx", "--report", "custom-plain.json", NULL };
  const char *pref_env[] = { "XDG_CACHE_HOME", NULL, "GSETTINGS_SCHEMA_DIR", schemas, "GSETTINGS_BACKEND", "keyfile",
                             "XDG_CONFIG_HOME", config, NULL };
  g_autofree char *out = NULL, *err = NULL, *out2 = NULL, *err2 = NULL, *out3 = NULL, *err3 = NULL;
  g_autofree char *out4 = NULL, *err4 = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(JsonParser) parser2 = json_parser_new ();
  JsonObject *root;

  g_assert_true (g_file_set_contents (ops, FW_TEST_CUSTOM_OPS_YAML, -1, NULL));
  g_assert_true (g_file_set_contents (bad, "ops:\n  - {domain: com.example, type: FastGelu, class: elementwise, "
                                      "inputs: 1, host_expression: \"x0 * tanh(x0)\"}\n", -1, NULL));
  g_assert_cmpint (run (args_bad, &out2, &err2), ==, 2);
  g_assert_nonnull (strstr (err2, "ops-bad.yaml:2:97: host_expression: unknown function “tanh” (did you mean "
                                  "“tanhf”?)"));
  {
    const char *args_md[] = { "--batch", "custom.onnx", "--ops", "ops.yaml", "--format", "markdown", NULL };
    g_autofree char *md = NULL, *md_err = NULL;
    g_assert_cmpint (run (args_md, &md, &md_err), ==, 0);
    g_assert_nonnull (strstr (md, "- Custom operators: com.example:FastGelu (elementwise, ops.yaml:3:5), "
                                  "com.example:ScaledAdd (broadcast, ops.yaml:9:5)\n"));
  }
  /* Without the registry the op is opaque: nothing fuses across it. */
  g_assert_cmpint (run (args_plain, &out3, &err3), ==, 0);
  root = parse_report (plain, parser2);
  g_assert_cmpuint (n_fused_nodes (root), ==, 0);
  g_assert_false (json_object_has_member (json_object_get_object_member (root, "plan"), "custom_ops"));
  if (!have_cc ())
    return;
  g_assert_cmpint (run_env (args, cache_env (), &out, &err), ==, 0);
  root = parse_report (report, parser);
  g_assert_cmpuint (n_fused_nodes (root), ==, 3);
  g_assert_true (json_object_get_boolean_member (json_object_get_object_member (root, "verification"), "pass"));
  {
    JsonArray *used = json_object_get_array_member (json_object_get_object_member (root, "plan"), "custom_ops");
    JsonObject *gelu = json_array_get_object_element (used, 0);
    g_assert_cmpuint (json_array_get_length (used), ==, 2);
    g_assert_cmpstr (json_object_get_string_member (gelu, "op"), ==, "com.example:FastGelu");
    g_assert_cmpstr (json_object_get_string_member (gelu, "class"), ==, "elementwise");
    g_assert_cmpstr (json_object_get_string_member (gelu, "declared_at"), ==, "ops.yaml:3:5");
    g_assert_true (json_object_get_boolean_member (gelu, "host_expression"));
    g_assert_cmpint (json_object_get_int_member (gelu, "nodes"), ==, 1);
  }
  /* The same through the preferences, read from a keyfile backend with the build's schema. */
  if (!g_file_test (compiled, G_FILE_TEST_IS_REGULAR))
    return;
  g_assert_cmpint (g_mkdir_with_parents (keyfile_dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (keyfile, keys, -1, NULL));
  pref_env[1] = cache_env ()[1];
  args[2] = "--verify";   /* no --ops: only the preferences name the registry */
  args[3] = "--verify";
  g_assert_cmpint (run_env (args, pref_env, &out4, &err4), ==, 0);
  g_clear_object (&parser);
  parser = json_parser_new ();
  g_assert_cmpuint (n_fused_nodes (parse_report (report, parser)), ==, 3);
}

/* AUTOFUSE_DFX_FLAGS --codegen_compile_debug keeps every kernel under DIR/autofuse_compile_debug; a bad
 * AUTOFUSE_FLAGS option is bad usage. */
static void
test_cann_debug (void)
{
  g_autoptr(FwModel) model = fw_test_conv_block ();
  g_autofree char *path = write_model (model, "conv-dbg.onnx");
  g_autofree char *dbg = g_build_filename (workdir, "dbg", NULL);
  g_autofree char *dfx = g_strdup_printf ("--debug_dir=%s;--codegen_compile_debug=true", dbg);
  g_autofree char *manifest = g_build_filename (dbg, "autofuse_compile_debug", "manifest.json", NULL);
  g_autofree char *compile = g_build_filename (dbg, "autofuse_compile_debug", "compile.txt", NULL);
  g_autofree char *text = NULL;
  const char *args[] = { "--batch", path, "--report", "-", NULL };
  const char *env[] = { "AUTOFUSE_DFX_FLAGS", dfx, NULL };
  const char *bad_env[] = { "AUTOFUSE_FLAGS", "--enable_autofuse=yes", NULL };
  g_autofree char *out = NULL, *err = NULL, *out2 = NULL, *err2 = NULL;

  g_assert_cmpint (run_env (args, env, &out, &err), ==, 0);
  g_assert_true (g_file_test (manifest, G_FILE_TEST_IS_REGULAR));
  g_assert_true (g_file_get_contents (compile, &text, NULL, NULL));
  g_assert_true (g_str_has_prefix (text, "compiler: "));
  g_assert_cmpint (run_env (args, bad_env, &out2, &err2), ==, 2);
  g_assert_nonnull (strstr (err2, "AUTOFUSE_FLAGS: --enable_autofuse=“yes”: expected true or false"));
}

/* AUTOFUSION_LOG_LEVEL=DEBUG prints refusals in CANN's pair form. */
static void
test_cann_log_lines (void)
{
  g_autoptr(FwModel) model = fw_test_transformer_block (32, 64, 4, FALSE);
  g_autofree char *path = write_model (model, "block-log.onnx");
  const char *args[] = { "--batch", path, "--report", "-", NULL };
  const char *env[] = { "AUTOFUSION_LOG_LEVEL", "DEBUG", NULL };
  g_autofree char *out = NULL, *err = NULL;
  g_autoptr(GRegex) pair = g_regex_new ("^autofusion: node1 \\S+\\(\\w+\\) and node2 \\S+\\(\\w+\\) cannot fuse, "
                                        "the reason is \\[FW-NF-0\\d\\d\\](\\[NF10\\d\\d\\])?\\[.+\\]$",
                                        G_REGEX_MULTILINE, 0, NULL);

  g_assert_cmpint (run_env (args, env, &out, &err), ==, 0);
  g_assert_true (g_regex_match (pair, err, 0, NULL));
}

/* --model-explorer DIR: the graph and node data files, named after the model, parse as JSON. */
static void
test_model_explorer (void)
{
  g_autoptr(FwModel) model = fw_test_transformer_block (8, 16, 2, FALSE);
  g_autofree char *dir = g_build_filename (workdir, "me", NULL);
  const char *args[] = { "--batch", "me-block.onnx", "--report", "/dev/null", "--model-explorer", dir, NULL };
  const char *names[] = { "me-block.model-explorer.json", "me-block.node-data.refusal.json",
                          "me-block.node-data.estimated-us.json" };
  g_autofree char *out = NULL, *err = NULL;

  g_free (write_model (model, "me-block.onnx"));
  g_assert_cmpint (run (args, &out, &err), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = g_build_filename (dir, names[i], NULL);
      g_autoptr(JsonParser) parser = json_parser_new ();
      g_autoptr(GError) error = NULL;

      g_assert_true (json_parser_load_from_file (parser, path, &error));
      g_assert_no_error (error);
    }
  /* No measurement, no measured file. */
  {
    g_autofree char *path = g_build_filename (dir, "me-block.node-data.measured-us.json", NULL);
    g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  }
}

/* --superkernel auto puts the scopes into the report (JSON and Markdown); a bad mode or limit is a usage
 * error naming the flag. */
static void
test_superkernel (void)
{
  g_autoptr(FwModel) model = fw_test_transformer_block (8, 16, 2, FALSE);
  g_autofree char *path = write_model (model, "sk-block.onnx");
  const char *args[] = { "--batch", path, "--report", "-", "--format", "json", "--superkernel", "auto", NULL };
  const char *md_args[] = { "--batch", path, "--report", "-", "--format", "markdown", "--superkernel-scope", "/attn",
                            NULL };
  const char *bad[] = { "--batch", path, "--report", "/dev/null", "--superkernel", "always", NULL };
  const char *bad_size[] = { "--batch", path, "--report", "/dev/null", "--superkernel", "auto",
                             "--superkernel-max-kernels", "1", NULL };
  g_autofree char *out = NULL, *err = NULL, *md = NULL, *md_err = NULL, *out2 = NULL, *err2 = NULL;
  g_autofree char *out3 = NULL, *err3 = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *sk;

  g_assert_cmpint (run (args, &out, &err), ==, 0);
  g_assert_true (json_parser_load_from_data (parser, out, -1, NULL));
  sk = json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)), "superkernel");
  g_assert_nonnull (sk);
  g_assert_cmpint (json_array_get_length (json_object_get_array_member (sk, "scopes")), >=, 1);
  g_assert_cmpint (json_object_get_int_member (sk, "launches_after"), <,
                   json_object_get_int_member (json_object_get_object_member (json_object_get_object_member (
                     json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)), "plan"),
                     "totals"), "after"), "launches"));
  g_assert_cmpint (run (md_args, &md, &md_err), ==, 0);
  g_assert_nonnull (strstr (md, "## SuperKernel scopes"));
  g_assert_nonnull (strstr (md, "| /attn |"));
  g_assert_cmpint (run (bad, &out2, &err2), ==, 2);
  g_assert_nonnull (strstr (err2, "unknown --superkernel “always” (known: auto, off)"));
  g_assert_cmpint (run (bad_size, &out3, &err3), ==, 2);
  g_assert_nonnull (strstr (err3, "--superkernel-max-kernels must be from 2 to 100000"));
}

/* The first kernel of the package whose source holds needle: its id ("k003"); the source is rewritten with
 * needle replaced by with. */
static char *
break_kernel (const char *pkg, const char *needle, const char *with)
{
  g_autofree char *manifest = g_build_filename (pkg, "manifest.json", NULL);
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonArray *ks = json_object_get_array_member (parse_report (manifest, parser), "kernels");

  for (guint i = 0; i < json_array_get_length (ks); i++)
    {
      JsonObject *k = json_array_get_object_element (ks, i);
      JsonObject *ak = json_object_has_member (k, "ascend_kernel") ? json_object_get_object_member (k, "ascend_kernel") : NULL;
      g_autofree char *path = NULL;
      g_autofree char *text = NULL;
      char *at;

      /* A group the Ascend target did not generate has no kernel to break. */
      if (ak == NULL)
        continue;
      path = g_build_filename (pkg, json_object_get_string_member (ak, "source"), NULL);
      g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
      if ((at = strstr (text, needle)) != NULL)
        {
          g_autoptr(GString) s = g_string_new_len (text, at - text);
          g_string_append (s, with);
          g_string_append (s, at + strlen (needle));
          g_assert_true (g_file_set_contents (path, s->str, -1, NULL));
          return g_strdup_printf ("k%03" G_GINT64_FORMAT, json_object_get_int_member (k, "id"));
        }
    }
  g_assert_not_reached ();
}

static char *
copy_package (const char *from, const char *name)
{
  char *to = g_build_filename (workdir, name, NULL);
  g_autofree char *cmd = g_strdup_printf ("cp -r '%s' '%s'", from, to);
  gint status = 0;

  g_assert_true (g_spawn_command_line_sync (cmd, NULL, NULL, &status, NULL) && status == 0);
  return to;
}

/* --twin re-runs an exported package's Ascend kernels: clean as exported (0), a hand-broken kernel named
 * (1), bad input named (2). */
static void
test_twin_package (void)
{
  g_autoptr(FwModel) model = fw_test_transformer_block (16, 32, 4, TRUE);
  g_autofree char *path = write_model (model, "tw.onnx");
  const char *export_args[] = { "--batch", "tw.onnx", "--bind", "batch=2", "--target", "ascend", "--export", "tw-out",
                                "--report", "tw.json", NULL };
  g_autofree char *pkg = g_build_filename (workdir, "tw-out", "kernels", NULL);
  g_autofree char *out = NULL, *err = NULL, *json = NULL, *broken = NULL, *unsynced = NULL, *bad = NULL;
  g_autofree char *wrong = NULL, *no_wait = NULL, *manifest = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonArray *ks;

  if (!have_cc ())
    return;
  g_assert_cmpint (run_env (export_args, cache_env (), &out, &err), ==, 0);
  {
    const char *args[] = { "--twin", pkg, "--format", "json", NULL };
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
    g_assert_cmpint (run_env (args, cache_env (), &out, &err), ==, 0);
    g_assert_true (json_parser_load_from_data (parser, out, -1, &error));
    g_assert_no_error (error);
    ks = json_object_get_array_member (json_node_get_object (json_parser_get_root (parser)), "kernels");
    g_assert_cmpuint (json_array_get_length (ks), >=, 4);
    for (guint i = 0; i < json_array_get_length (ks); i++)
      {
        JsonObject *t = json_object_get_object_member (json_array_get_object_element (ks, i), "twin");
        g_assert_true (json_object_get_boolean_member (t, "pass"));
        g_assert_cmpfloat (json_object_get_double_member (t, "cosine"), >=, 0.9999);
        g_assert_cmpfloat (json_object_get_double_member (t, "estimated_us"), >, 0);
      }
  }
  /* The export's folder works too (its kernels/), and one kernel alone: the first the package has (the
     fused attention, candidate 0, has no Ascend kernel: FW-TG-003). */
  {
    g_autofree char *top = g_build_filename (workdir, "tw-out", NULL);
    const char *first = json_object_get_string_member (json_array_get_object_element (ks, 0), "folder");
    const char *args[] = { "--twin", top, "--kernel", first, NULL };
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
    g_assert_cmpint (run_env (args, cache_env (), &out, &err), ==, 0);
    g_assert_nonnull (strstr (out, "1 of 1 kernels pass"));
  }
  /* A wrong operation in one kernel's arithmetic, a WaitFlag removed in another's. */
  broken = copy_package (pkg, "tw-broken");
  wrong = break_kernel (broken, "AscendC::Add(", "AscendC::Sub(");
  unsynced = copy_package (pkg, "tw-unsynced");
  no_wait = break_kernel (unsynced, "AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(id);", "");
  {
    const char *args[] = { "--twin", broken, NULL };
    g_autofree char *row = g_strdup_printf ("%s   FAIL", wrong);
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
    g_assert_cmpint (run_env (args, cache_env (), &out, &err), ==, 1);
    g_assert_nonnull (strstr (out, row));
  }
  {
    const char *args[] = { "--twin", unsynced, "--kernel", no_wait, NULL };
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
    g_assert_cmpint (run_env (args, cache_env (), &out, &err), ==, 1);
    g_assert_nonnull (strstr (out, no_wait));
    g_assert_nonnull (strstr (out, "FW-TWIN-"));
  }
  /* Bad input: no such folder, a manifest cut short, a kernel the package does not have. */
  {
    const char *args[] = { "--twin", "no-such-package", NULL };
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
    g_assert_cmpint (run (args, &out, &err), ==, 2);
    g_assert_nonnull (strstr (err, "no-such-package"));
  }
  bad = copy_package (pkg, "tw-bad");
  manifest = g_build_filename (bad, "manifest.json", NULL);
  g_assert_true (g_file_set_contents (manifest, "{\n  \"format_version\": 1,\n  \"kernels\": [ {\n", -1, NULL));
  {
    const char *args[] = { "--twin", bad, NULL };
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
    g_assert_cmpint (run (args, &out, &err), ==, 2);
    g_assert_nonnull (strstr (err, "manifest.json:"));
    g_assert_nonnull (strstr (err, "manifest.json:3:"));
  }
  {
    const char *args[] = { "--twin", pkg, "--kernel", "k999", NULL };
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
    g_assert_cmpint (run (args, &out, &err), ==, 2);
    g_assert_nonnull (strstr (err, "k999"));
  }
}

/* --target ascend --verify --superkernel auto: every scope's sk_NNN.cpp runs on the twin (superkernel.scopes[].twin,
 * clean), the package holds superkernels/sNNN/ascend/ named in the manifest, --twin runs them (s000…), and the
 * scope source with its first barrier removed by hand races there (1). */
static void
test_superkernel_ascend (void)
{
  g_autoptr(FwModel) model = fw_test_transformer_block (16, 32, 4, TRUE);
  g_autofree char *path = write_model (model, "ska.onnx");
  const char *args[] = { "--batch", "ska.onnx", "--bind", "batch=2", "--target", "ascend", "--verify", "--superkernel",
                         "auto", "--fail-on", "mismatch", "--export", "ska-out", "--report", "ska.json", NULL };
  g_autofree char *report = g_build_filename (workdir, "ska.json", NULL);
  g_autofree char *pkg = g_build_filename (workdir, "ska-out", "kernels", NULL);
  g_autofree char *manifest = g_build_filename (pkg, "manifest.json", NULL);
  g_autofree char *out = NULL, *err = NULL, *broken = NULL, *source = NULL, *text = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(JsonParser) mparser = json_parser_new ();
  g_autoptr(JsonParser) tparser = json_parser_new ();
  JsonArray *scopes, *sks, *ks;
  guint n_scopes_run = 0;
  char *at;

  if (!have_cc ())
    return;
  g_assert_cmpint (run_env (args, cache_env (), &out, &err), ==, 0);
  scopes = json_object_get_array_member (json_object_get_object_member (parse_report (report, parser), "superkernel"),
                                         "scopes");
  g_assert_cmpuint (json_array_get_length (scopes), >=, 1);
  for (guint i = 0; i < json_array_get_length (scopes); i++)
    {
      JsonObject *t = json_object_get_object_member (json_array_get_object_element (scopes, i), "twin");
      g_assert_nonnull (t);
      g_assert_true (json_object_get_boolean_member (t, "ran"));
      g_assert_true (json_object_get_boolean_member (t, "pass"));
      g_assert_cmpuint (json_array_get_length (json_object_get_array_member (t, "diagnostics")), ==, 0);
    }
  sks = json_object_get_array_member (parse_report (manifest, mparser), "superkernels");
  g_assert_cmpuint (json_array_get_length (sks), ==, json_array_get_length (scopes));
  source = g_build_filename (pkg, json_object_get_string_member (json_object_get_object_member (
                                    json_array_get_object_element (sks, 0), "ascend_superkernel"), "source"), NULL);
  g_assert_true (g_file_test (source, G_FILE_TEST_IS_REGULAR));
  {
    const char *twin_args[] = { "--twin", pkg, "--format", "json", NULL };
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
    g_assert_cmpint (run_env (twin_args, cache_env (), &out, &err), ==, 0);
    g_assert_true (json_parser_load_from_data (tparser, out, -1, NULL));
    ks = json_object_get_array_member (json_node_get_object (json_parser_get_root (tparser)), "kernels");
    for (guint i = 0; i < json_array_get_length (ks); i++)
      n_scopes_run += json_object_get_string_member (json_array_get_object_element (ks, i), "id")[0] == 's';
    g_assert_cmpuint (n_scopes_run, ==, json_array_get_length (sks));
  }
  /* The first barrier out of the scope's source: the twin reports the race. */
  broken = copy_package (pkg, "ska-broken");
  g_free (source);
  source = g_build_filename (broken, json_object_get_string_member (json_object_get_object_member (
                                       json_array_get_object_element (sks, 0), "ascend_superkernel"), "source"), NULL);
  g_assert_true (g_file_get_contents (source, &text, NULL, NULL));
  at = strstr (text, "  AscendC::SyncAll<false>();\n");
  g_assert_nonnull (at);
  memset (at, ' ', strlen ("  AscendC::SyncAll<false>();"));
  g_assert_true (g_file_set_contents (source, text, -1, NULL));
  {
    const char *twin_args[] = { "--twin", broken, NULL };
    g_clear_pointer (&out, g_free);
    g_clear_pointer (&err, g_free);
    g_assert_cmpint (run_env (twin_args, cache_env (), &out, &err), ==, 1);
    g_assert_nonnull (strstr (out, "FW-TWIN-SYNC-RACE"));
  }
}

int
main (int argc, char **argv)
{
  int status;

  g_test_init (&argc, &argv, NULL);
  binary = g_getenv ("FW_BINARY");
  g_assert_nonnull (binary);
  workdir = g_dir_make_tmp ("fw-cli-XXXXXX", NULL);
  g_test_add_func ("/app/cli/version", test_version);
  g_test_add_func ("/app/cli/help", test_help);
  g_test_add_func ("/app/cli/bad-usage", test_bad_usage);
  g_test_add_func ("/app/cli/calibrate", test_calibrate);
  g_test_add_func ("/app/cli/missing-model", test_missing_model);
  g_test_add_func ("/app/cli/bad-model", test_bad_model);
  g_test_add_func ("/app/cli/json-report", test_json_report);
  g_test_add_func ("/app/cli/symbolic-dims-stay", test_symbolic_stays);
  g_test_add_func ("/app/cli/markdown-report", test_markdown_report);
  g_test_add_func ("/app/cli/unused-binding-warns", test_unused_binding_warns);
  g_test_add_func ("/app/cli/deterministic", test_deterministic);
  g_test_add_func ("/app/cli/unknown-op-listed", test_unknown_op_listed);
  g_test_add_func ("/app/cli/unwritable-report", test_unwritable_report);
  g_test_add_func ("/app/cli/never-overwrites-model", test_never_overwrites_model);
  g_test_add_func ("/app/cli/report-to-dev-null", test_report_to_dev_null);
  g_test_add_func ("/app/cli/bad-models-exit-2", test_bad_models_exit_2);
  g_test_add_func ("/app/cli/plan-in-report", test_plan_in_report);
  g_test_add_func ("/app/cli/bad-plan-inputs", test_bad_plan_inputs);
  g_test_add_func ("/app/cli/whitelist-flags", test_whitelist_flags);
  g_test_add_func ("/app/cli/verify-export", test_verify_export);
  g_test_add_func ("/app/cli/control-flow", test_control_flow);
  g_test_add_func ("/app/cli/compiler-fails", test_compiler_fails);
  g_test_add_func ("/app/cli/bad-exec-flags", test_bad_exec_flags);
  g_test_add_func ("/app/cli/export-beside-model", test_export_beside_model);
  g_test_add_func ("/app/cli/render", test_render);
  g_test_add_func ("/app/cli/render-pictures", test_render_pictures);
  g_test_add_func ("/app/cli/convert-rules", test_convert_rules);
  g_test_add_func ("/app/cli/custom-ops", test_custom_ops);
  g_test_add_func ("/app/cli/cann-debug", test_cann_debug);
  g_test_add_func ("/app/cli/cann-log-lines", test_cann_log_lines);
  g_test_add_func ("/app/cli/model-explorer", test_model_explorer);
  g_test_add_func ("/app/cli/superkernel", test_superkernel);
  g_test_add_func ("/app/cli/twin-package", test_twin_package);
  g_test_add_func ("/app/cli/superkernel-ascend", test_superkernel_ascend);
  status = g_test_run ();
  {
    g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", workdir);
    if (system (cmd) != 0)
      g_printerr ("could not remove %s\n", workdir);
  }
  g_free (workdir);
  return status;
}
