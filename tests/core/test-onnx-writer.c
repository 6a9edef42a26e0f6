/* Writing ONNX: deterministic bytes, external data, never over the input model, atomic replacement. */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "fw-error.h"
#include "fw-test-models.h"

static void
test_deterministic (void)
{
  g_autoptr(FwModel) a = fw_test_transformer_block (16, 32, 4, TRUE);
  g_autoptr(FwModel) b = fw_test_transformer_block (16, 32, 4, TRUE);
  g_autoptr(GBytes) x = fw_onnx_serialize (a, FW_ONNX_WRITE_DEFAULT, NULL);
  g_autoptr(GBytes) y = fw_onnx_serialize (b, FW_ONNX_WRITE_DEFAULT, NULL);
  g_autoptr(FwModel) back = fw_onnx_load_bytes (x, "x.onnx", NULL, NULL, NULL);
  g_autoptr(GBytes) z = fw_onnx_serialize (back, FW_ONNX_WRITE_DEFAULT, NULL);

  g_assert_true (g_bytes_equal (x, y));
  /* Read and written back unchanged: the same bytes. */
  g_assert_true (g_bytes_equal (x, z));
}

/* The data file is named after a hash of its bytes, written before the model that names it; a rewrite
 * with other weights leaves exactly one data file, the new one. */
static char *
only_data_file (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  char *found = NULL;

  while ((name = g_dir_read_name (d)) != NULL)
    if (g_str_has_suffix (name, ".data"))
      {
        g_assert_null (found);
        found = g_strdup (name);
      }
  g_assert_nonnull (found);
  return found;
}

static void
test_external_data (void)
{
  g_autofree char *dir = fw_test_temp_dir ();
  g_autofree char *path = g_build_filename (dir, "out.onnx", NULL);
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autoptr(FwModel) model = fw_test_conv_block ();
  g_autoptr(FwModel) other = fw_test_transformer_block (16, 32, 4, FALSE);
  g_autoptr(FwModel) back = NULL;
  g_autoptr(GError) error = NULL;
  FwValue *w, *w2;
  gsize size_a, size_b;
  gconstpointer data_a, data_b;
  GStatBuf st;

  g_assert_true (fw_onnx_write (model, path, FW_ONNX_WRITE_EXTERNAL_DATA, &error));
  g_assert_no_error (error);
  first = only_data_file (dir);
  g_assert_true (g_str_has_prefix (first, "out.onnx.") && strlen (first) == strlen ("out.onnx.") + 16 + 5);
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  /* The weights went out of the model file. */
  g_assert_cmpint (st.st_size, <, 4096);
  back = fw_onnx_load (path, NULL, NULL, &error);
  g_assert_no_error (error);
  w = fw_graph_lookup_value (fw_model_get_graph (model), "layer1.conv.weight");
  w2 = fw_graph_lookup_value (fw_model_get_graph (back), "layer1.conv.weight");
  data_a = fw_tensor_get_data (w->constant, &size_a);
  data_b = fw_tensor_get_data (w2->constant, &size_b);
  g_assert_cmpmem (data_a, size_a, data_b, size_b);
  g_assert_cmpstr (w2->constant->external_location, ==, first);
  g_clear_object (&back);
  /* Other weights under the same name: a new data file, the old one gone. */
  g_assert_true (fw_onnx_write (other, path, FW_ONNX_WRITE_EXTERNAL_DATA, &error));
  second = only_data_file (dir);
  g_assert_cmpstr (first, !=, second);
  back = fw_onnx_load (path, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (fw_graph_lookup_value (fw_model_get_graph (back), "w1"));
  g_clear_object (&back);
  fw_test_remove_dir (dir);
}

static void
test_refuses_input (void)
{
  g_autofree char *dir = fw_test_temp_dir ();
  g_autofree char *path = g_build_filename (dir, "model.onnx", NULL);
  g_autofree char *alias = g_build_filename (dir, "alias.onnx", NULL);
  g_autoptr(FwModel) built = fw_test_conv_block ();
  g_autoptr(FwModel) model = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  gsize len_before, len_after;

  g_assert_true (fw_onnx_write (built, path, FW_ONNX_WRITE_DEFAULT, NULL));
  g_assert_true (g_file_get_contents (path, &before, &len_before, NULL));
  model = fw_onnx_load (path, NULL, NULL, &error);
  g_assert_no_error (error);

  g_assert_false (fw_onnx_write (model, path, FW_ONNX_WRITE_DEFAULT, &error));
  g_assert_error (error, FW_ERROR, FW_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "input model"));
  g_clear_error (&error);
  /* Another name for the same file is refused too. */
  g_assert_cmpint (link (path, alias), ==, 0);
  g_assert_false (fw_onnx_write (model, alias, FW_ONNX_WRITE_DEFAULT, &error));
  g_assert_error (error, FW_ERROR, FW_ERROR_IO);
  g_assert_true (g_file_get_contents (path, &after, &len_after, NULL));
  g_assert_cmpmem (before, len_before, after, len_after);
  g_clear_object (&model);
  fw_test_remove_dir (dir);
}

static void
test_replaces_atomically (void)
{
  g_autofree char *dir = fw_test_temp_dir ();
  g_autofree char *path = g_build_filename (dir, "out.onnx", NULL);
  g_autoptr(FwModel) a = fw_test_conv_block ();
  g_autoptr(FwModel) b = fw_test_elementwise_chain (4, 8, FALSE);
  g_autoptr(FwModel) back = NULL;
  g_autoptr(GDir) d = NULL;
  guint n_files = 0;

  g_assert_true (fw_onnx_write (a, path, FW_ONNX_WRITE_DEFAULT, NULL));
  g_assert_true (fw_onnx_write (b, path, FW_ONNX_WRITE_DEFAULT, NULL));
  back = fw_onnx_load (path, NULL, NULL, NULL);
  g_assert_cmpuint (fw_graph_get_n_nodes (fw_model_get_graph (back)), ==, 4);
  /* No temporary file is left behind. */
  d = g_dir_open (dir, 0, NULL);
  while (g_dir_read_name (d))
    n_files++;
  g_assert_cmpuint (n_files, ==, 1);
  g_clear_object (&back);
  fw_test_remove_dir (dir);
}

static void
test_unwritable (void)
{
  g_autoptr(FwModel) model = fw_test_conv_block ();
  g_autoptr(GError) error = NULL;

  g_assert_false (fw_onnx_write (model, "/nonexistent-dir/out.onnx", FW_ONNX_WRITE_DEFAULT, &error));
  g_assert_error (error, FW_ERROR, FW_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "/nonexistent-dir/out.onnx"));
}

static void
test_inferred_shapes (void)
{
  g_autoptr(FwModel) model = fw_test_conv_block ();
  g_autoptr(GBytes) plain = NULL;
  g_autoptr(GBytes) annotated = NULL;
  g_autoptr(FwModel) back = NULL;
  g_autoptr(GError) error = NULL;
  FwValue *v;

  g_assert_true (fw_test_infer (model, NULL, NULL, &error));
  plain = fw_onnx_serialize (model, FW_ONNX_WRITE_DEFAULT, NULL);
  annotated = fw_onnx_serialize (model, FW_ONNX_WRITE_INFERRED_SHAPES, NULL);
  g_assert_cmpuint (g_bytes_get_size (annotated), >, g_bytes_get_size (plain));
  back = fw_onnx_load_bytes (annotated, "annotated.onnx", NULL, NULL, &error);
  g_assert_no_error (error);
  v = fw_graph_lookup_value (fw_model_get_graph (back), "p1");
  g_assert_true (v->has_value_info);
  g_assert_cmpint (v->rank, ==, 4);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/onnx/write/deterministic", test_deterministic);
  g_test_add_func ("/core/onnx/write/external-data", test_external_data);
  g_test_add_func ("/core/onnx/write/refuses-input-model", test_refuses_input);
  g_test_add_func ("/core/onnx/write/replaces-atomically", test_replaces_atomically);
  g_test_add_func ("/core/onnx/write/unwritable", test_unwritable);
  g_test_add_func ("/core/onnx/write/inferred-shapes", test_inferred_shapes);
  return g_test_run ();
}
