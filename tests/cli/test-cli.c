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

#include "fw-cli-support.h"
#include "fw-test-pb.h"

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

/* --calibrate measures, prints each number old → new and how its rounds agreed, and caches a calibrated
 * profile; under
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
  g_assert_nonnull (strstr (o2, "factor pow"));
  /* How many rounds it took, and how far the last one moved the fit: said either way. */
  g_assert_true (strstr (o2, " rounds: the last") != NULL || strstr (e2, "rounds the last still moved") != NULL ||
                 strstr (e2, "the median round of") != NULL);
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

int
main (int argc, char **argv)
{
  int status;

  g_test_init (&argc, &argv, NULL);
  fw_cli_setup ();
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
  g_test_add_func ("/app/cli/render", test_render);
  g_test_add_func ("/app/cli/render-pictures", test_render_pictures);
  g_test_add_func ("/app/cli/convert-rules", test_convert_rules);
  g_test_add_func ("/app/cli/cann-debug", test_cann_debug);
  g_test_add_func ("/app/cli/cann-log-lines", test_cann_log_lines);
  g_test_add_func ("/app/cli/model-explorer", test_model_explorer);
  status = g_test_run ();
  fw_cli_teardown ();
  return status;
}
