/* The model report: contents, ordering, Markdown that survives hostile names. */
#include "config.h"

#include <string.h>

#include "fw-test-models.h"
#include "report/fw-model-report.h"

static JsonNode *
report_for (FwModel *model, FwInferReport *infer)
{
  g_autoptr(GError) error = NULL;

  fw_infer_report_init (infer);
  g_assert_true (fw_test_infer (model, NULL, infer, &error));
  g_auto(GStrv) symbols = fw_graph_collect_symbols (fw_model_get_graph (model));

  return fw_model_report_build (model, infer, NULL, (const char * const *) symbols);
}

static void
test_contents (void)
{
  g_autoptr(FwModel) model = fw_test_conv_block ();
  FwInferReport infer;
  g_autoptr(JsonNode) node = report_for (model, &infer);
  JsonObject *root = json_node_get_object (node);
  JsonObject *graph = json_object_get_object_member (root, "graph");
  JsonArray *hist = json_object_get_array_member (graph, "op_histogram");
  JsonArray *largest = json_object_get_array_member (root, "largest_tensors");
  JsonObject *first;
  gint64 prev = G_MAXINT64;

  g_assert_cmpstr (json_object_get_string_member (root, "schema"), ==, "fusion-workbench/report");
  g_assert_cmpint (json_object_get_int_member (graph, "nodes"), ==, 11);
  /* Histogram: count descending, then name. */
  first = json_array_get_object_element (hist, 0);
  g_assert_cmpint (json_object_get_int_member (first, "count"), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (first, "op"), ==, "BatchNormalization");
  {
    JsonObject *cost = json_object_get_object_member (root, "cost");
    JsonObject *classes = json_object_get_object_member (cost, "op_classes");
    /* conv1 alone: 2 × 16×16×16 outputs × 3×3×3 MACs. */
    g_assert_cmpint (json_object_get_int_member (cost, "flops"), >, 2 * 16 * 16 * 16 * 27);
    g_assert_cmpint (json_object_get_int_member (cost, "kernels"), ==, 11);
    g_assert_cmpint (json_object_get_int_member (cost, "nodes_not_costed"), ==, 0);
    g_assert_cmpint (json_object_get_int_member (classes, "out-fusable"), ==, 3);
    g_assert_cmpint (json_object_get_int_member (classes, "elementwise"), ==, 2);
  }
  g_assert_cmpuint (json_array_get_length (largest), ==, 10);
  for (guint i = 0; i < json_array_get_length (largest); i++)
    {
      gint64 bytes = json_object_get_int_member (json_array_get_object_element (largest, i), "bytes");
      g_assert_cmpint (bytes, <=, prev);
      prev = bytes;
    }
  /* The largest value of the conv block is the first convolution's output, 16×16×16 floats. */
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (largest, 0), "shape"), ==,
                   "[1,16,16,16]");
  fw_infer_report_clear (&infer);
}

static void
test_markdown_escapes (void)
{
  g_autoptr(FwModel) model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  FwDim dims[1] = { FW_DIM_STATIC (4) };
  const char *in[1] = { "in|put\nx" }, *out[1] = { "y" };
  FwInferReport infer;
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *md = NULL;

  fw_graph_add_input (g, "in|put\nx", FW_DTYPE_FLOAT, 1, dims, NULL);
  fw_graph_add_node (g, "Relu", "", "/r", 1, in, 1, out, NULL);
  fw_graph_add_output (g, "y", NULL);
  g_assert_true (fw_graph_link (g, NULL));
  node = report_for (model, &infer);
  md = fw_model_report_format (node, FW_REPORT_MARKDOWN);
  /* A pipe or newline in a name must not break the table. */
  g_assert_nonnull (strstr (md, "| in\\|put x | float32 | [4] |"));
  fw_infer_report_clear (&infer);
}

static void
test_deterministic (void)
{
  g_autoptr(FwModel) a = fw_test_transformer_block (16, 32, 4, FALSE);
  g_autoptr(FwModel) b = fw_test_transformer_block (16, 32, 4, FALSE);
  FwInferReport ia, ib;
  g_autoptr(JsonNode) na = report_for (a, &ia);
  g_autoptr(JsonNode) nb = report_for (b, &ib);
  g_autofree char *ja = fw_model_report_format (na, FW_REPORT_JSON);
  g_autofree char *jb = fw_model_report_format (nb, FW_REPORT_JSON);
  g_autofree char *ma = fw_model_report_format (na, FW_REPORT_MARKDOWN);
  g_autofree char *mb = fw_model_report_format (nb, FW_REPORT_MARKDOWN);

  g_assert_cmpstr (ja, ==, jb);
  g_assert_cmpstr (ma, ==, mb);
  fw_infer_report_clear (&ia);
  fw_infer_report_clear (&ib);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/report/contents", test_contents);
  g_test_add_func ("/core/report/markdown-escapes", test_markdown_escapes);
  g_test_add_func ("/core/report/deterministic", test_deterministic);
  return g_test_run ();
}
