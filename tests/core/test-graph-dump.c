/* test-graph-dump.c: graph dumps (DUMP_GRAPH, --dump-graph): each stage and each fused kernel as a model
 * that reads back with the right nodes, its protobuf text, and the errors. */
#include "config.h"

#include <string.h>

#include "export/fw-graph-dump.h"
#include "fw-error.h"
#include "fw-test-models.h"
#include "graph/fw-graph-private.h"
#include "onnx/fw-onnx.h"
#include "onnx/fw-onnx-text.h"
#include "plan/fw-plan-private.h"

static FwPlan *
plan_of (FwModel *model)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  FwPlanOptions options;
  FwPlan *plan;

  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  fw_plan_options_init (&options);
  plan = fw_plan_new (model, profile, NULL, &options, &error);
  g_assert_no_error (error);
  return plan;
}

static FwModel *
reload (const char *path)
{
  g_autoptr(GError) error = NULL;
  FwModel *model = fw_onnx_load (path, NULL, NULL, &error);

  g_assert_no_error (error);
  return model;
}

static guint
count_lines (const char *path, const char *prefix)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  guint n = 0;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i]; i++)
    n += g_str_has_prefix (g_strchug (lines[i]), prefix);
  return n;
}

static guint
groups_of (FwPlan *plan)
{
  guint n = 0;

  for (guint i = 0; i < plan->candidates->len; i++)
    {
      const FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      n += c->status == FW_CANDIDATE_PROPOSED || c->status == FW_CANDIDATE_ACCEPTED;
    }
  return n;
}

static void
test_stages (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwModel) model = fw_test_transformer_block (16, 64, 4, FALSE);
  g_autoptr(FwPlan) plan = plan_of (model);
  g_autofree char *dir = fw_test_temp_dir ();
  guint before, after, n_graph = fw_graph_get_n_nodes (fw_model_get_graph (model)), kernels = 0;
  const char *stages[] = { "block.0-loaded", "block.1-planned", "block.2-decided" };

  fw_plan_get_node_counts (plan, &before, &after);
  g_assert_cmpuint (before, ==, n_graph);
  g_assert_cmpuint (after, <, before);
  for (guint s = 0; s < 3; s++)
    g_assert_true (fw_graph_dump_write (plan, "/models/block.onnx", dir, (FwGraphDumpStage) s, &error));
  g_assert_no_error (error);
  for (guint s = 0; s < 3; s++)
    {
      g_autofree char *onnx_name = g_strconcat (stages[s], ".onnx", NULL);
      g_autofree char *text_name = g_strconcat (stages[s], ".pbtxt", NULL);
      g_autofree char *onnx = g_build_filename (dir, onnx_name, NULL);
      g_autofree char *text = g_build_filename (dir, text_name, NULL);
      g_autoptr(FwModel) back = reload (onnx);
      guint nodes = fw_graph_get_n_nodes (fw_model_get_graph (back));

      /* The loaded graph has every node; the fused ones one per group (their bodies are functions). */
      g_assert_cmpuint (nodes, ==, s == 0 ? before : after);
      g_assert_cmpuint (count_lines (text, "op_type: "), >=, nodes);
      g_assert_cmpuint (count_lines (text, "ir_version: "), ==, 1);
      /* A fused stage has one function per group: a group of n nodes took away n - 1. */
      if (s > 0)
        g_assert_cmpuint (count_lines (text, "functions {"), ==, groups_of (plan));
    }
  for (guint i = 0; i < plan->candidates->len; i++)
    {
      const FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      g_autofree char *name = NULL, *path = NULL;
      g_autoptr(FwModel) k = NULL;
      g_autoptr(GError) infer_error = NULL;

      if (c->status != FW_CANDIDATE_PROPOSED && c->status != FW_CANDIDATE_ACCEPTED)
        continue;
      name = g_strdup_printf ("block.kernels/k%03u_%s.onnx", c->index, c->pattern);
      path = g_build_filename (dir, name, NULL);
      k = reload (path);
      /* Each kernel's model is its group's nodes alone, and a model in its own right. */
      g_assert_cmpuint (fw_graph_get_n_nodes (fw_model_get_graph (k)), ==, c->nodes->len);
      g_assert_true (fw_test_infer (k, NULL, NULL, &infer_error));
      g_assert_no_error (infer_error);
      kernels++;
    }
  g_assert_cmpuint (kernels, ==, groups_of (plan));
  g_assert_cmpuint (kernels, >, 0);
  fw_test_remove_dir (dir);
}

/* Tensor data past 1 KiB is left out of the text with a comment; small tensors are kept. */
static void
test_text (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwModel) model = fw_test_transformer_block (16, 64, 4, FALSE);
  g_autoptr(GBytes) bytes = NULL;
  g_autofree char *text = NULL;

  g_assert_true (fw_test_infer (model, NULL, NULL, NULL));
  bytes = fw_onnx_serialize (model, FW_ONNX_WRITE_DEFAULT, &error);
  g_assert_no_error (error);
  text = fw_onnx_to_text (bytes, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (text, "\nopset_import {\n  domain: \"\"\n"));
  g_assert_nonnull (strstr (text, "bytes left out (the .onnx file has them)"));
  g_assert_nonnull (strstr (text, "    dims: 64\n"));
  /* A message cut short is an error, not half a text. */
  {
    gsize len;
    const guint8 *data = g_bytes_get_data (bytes, &len);
    g_autoptr(GBytes) cut = g_bytes_new (data, len - 7);
    g_autofree char *none = fw_onnx_to_text (cut, &error);
    g_assert_null (none);
    g_assert_error (error, FW_ERROR, FW_ERROR_PARSE);
    g_assert_true (g_str_has_prefix (error->message, "byte "));
  }
}

static void
test_env (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = NULL;

  g_unsetenv ("DUMP_GRAPH");
  g_unsetenv ("DUMP_GRAPH_PATH");
  g_assert_true (fw_graph_dump_dir_from_env (&dir, &error));
  g_assert_null (dir);
  g_setenv ("DUMP_GRAPH", "1", TRUE);
  g_assert_true (fw_graph_dump_dir_from_env (&dir, &error));
  g_assert_cmpstr (dir, ==, ".");
  g_clear_pointer (&dir, g_free);
  g_setenv ("DUMP_GRAPH_PATH", "/tmp/graph_dump", TRUE);
  g_assert_true (fw_graph_dump_dir_from_env (&dir, &error));
  g_assert_cmpstr (dir, ==, "/tmp/graph_dump");
  g_clear_pointer (&dir, g_free);
  g_setenv ("DUMP_GRAPH", "yes", TRUE);
  g_assert_false (fw_graph_dump_dir_from_env (&dir, &error));
  g_assert_error (error, FW_ERROR, FW_ERROR_USAGE);
  g_assert_cmpstr (error->message, ==, "DUMP_GRAPH=“yes”: expected 1 or 0");
  g_unsetenv ("DUMP_GRAPH");
  g_unsetenv ("DUMP_GRAPH_PATH");
}

/* A folder that cannot be made is an error naming it. */
static void
test_unwritable (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwModel) model = fw_test_elementwise_chain (4, 64, FALSE);
  g_autoptr(FwPlan) plan = plan_of (model);
  g_autofree char *dir = fw_test_temp_dir ();
  g_autofree char *file = g_build_filename (dir, "a-file", NULL);
  g_autofree char *below = g_build_filename (file, "dumps", NULL);

  g_assert_true (g_file_set_contents (file, "x", -1, NULL));
  g_assert_false (fw_graph_dump_write (plan, "chain.onnx", below, FW_GRAPH_DUMP_LOADED, &error));
  g_assert_error (error, FW_ERROR, FW_ERROR_IO);
  g_assert_nonnull (strstr (error->message, below));
  fw_test_remove_dir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/export/graph-dump/stages", test_stages);
  g_test_add_func ("/core/export/graph-dump/text", test_text);
  g_test_add_func ("/core/export/graph-dump/env", test_env);
  g_test_add_func ("/core/export/graph-dump/unwritable", test_unwritable);
  return g_test_run ();
}
