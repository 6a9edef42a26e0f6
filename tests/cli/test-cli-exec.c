/* The command line's execution side as a user meets it, on the real binary: --verify and --export on both
 * targets, control flow, a failing compiler, bad --measure/--verify flags, an export beside the model, custom
 * ops, SuperKernel scopes, and --twin on an exported package (a broken kernel and a removed barrier caught). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <glib/gstdio.h>

#include "fw-cli-support.h"
#include "fw-test-pb.h"

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
  /* The reference side's products came from an OpenBLAS the report names. */
  {
    JsonObject *blas = json_object_get_object_member (measurement, "reference_blas");

    g_assert_nonnull (blas);
    g_assert_nonnull (strstr (json_object_get_string_member (blas, "library"), "openblas"));
  }
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
  fw_cli_setup ();
  g_test_add_func ("/app/cli/verify-export", test_verify_export);
  g_test_add_func ("/app/cli/control-flow", test_control_flow);
  g_test_add_func ("/app/cli/compiler-fails", test_compiler_fails);
  g_test_add_func ("/app/cli/bad-exec-flags", test_bad_exec_flags);
  g_test_add_func ("/app/cli/export-beside-model", test_export_beside_model);
  g_test_add_func ("/app/cli/custom-ops", test_custom_ops);
  g_test_add_func ("/app/cli/superkernel", test_superkernel);
  g_test_add_func ("/app/cli/twin-package", test_twin_package);
  g_test_add_func ("/app/cli/superkernel-ascend", test_superkernel_ascend);
  status = g_test_run ();
  fw_cli_teardown ();
  return status;
}
