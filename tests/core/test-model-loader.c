/* FwModelLoader: load plus inference with progress, blocking and async, cancellation and errors. */
#include "config.h"

#include <glib/gstdio.h>

#include "fw-error.h"
#include "fw-test-models.h"
#include "onnx/fw-model-loader.h"

typedef struct
{
  guint    n_fraction;
  guint    n_message;
  gdouble  last;
  gboolean backwards;
  gboolean off_thread;
  GThread *main_thread;
} Watch;

static void
on_fraction (FwModelLoader *loader, GParamSpec *pspec, Watch *w)
{
  gdouble f = fw_model_loader_get_fraction (loader);

  if (f < w->last)
    w->backwards = TRUE;
  if (g_thread_self () != w->main_thread)
    w->off_thread = TRUE;
  w->last = f;
  w->n_fraction++;
}

static void
on_message (FwModelLoader *loader, GParamSpec *pspec, Watch *w)
{
  w->n_message++;
}

static char *
write_model (FwModel *model, char **dir)
{
  *dir = g_dir_make_tmp ("fw-loader-XXXXXX", NULL);
  {
    char *path = g_build_filename (*dir, "model.onnx", NULL);
    g_assert_true (fw_onnx_write (model, path, FW_ONNX_WRITE_DEFAULT, NULL));
    return path;
  }
}

static void
cleanup (const char *dir, const char *path)
{
  g_unlink (path);
  g_rmdir (dir);
}

static void
watch (FwModelLoader *loader, Watch *w)
{
  w->main_thread = g_thread_self ();
  g_signal_connect (loader, "notify::fraction", G_CALLBACK (on_fraction), w);
  g_signal_connect (loader, "notify::message", G_CALLBACK (on_message), w);
}

static void
test_blocking (void)
{
  g_autoptr(FwModel) built = fw_test_long_chain (20000);
  g_autofree char *dir = NULL;
  g_autofree char *path = write_model (built, &dir);
  FwModelLoader *loader = fw_model_loader_new (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(FwModel) model = NULL;
  g_autofree char *prop_path = NULL;
  Watch w = { 0 };

  watch (loader, &w);
  g_object_get (loader, "path", &prop_path, NULL);
  g_assert_cmpstr (prop_path, ==, path);
  model = fw_model_loader_load (loader, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (fw_graph_get_n_nodes (fw_model_get_graph (model)), ==, 20000);
  /* Parsing reports every 1,024 nodes, then inference and the end. */
  g_assert_cmpuint (w.n_fraction, >=, 10);
  g_assert_cmpuint (w.n_message, ==, 3);
  g_assert_false (w.backwards);
  g_assert_cmpfloat (fw_model_loader_get_fraction (loader), ==, 1.0);
  g_assert_cmpuint (fw_model_loader_get_infer_report (loader)->n_static_values, ==,
                    fw_model_loader_get_infer_report (loader)->n_values);
  g_assert_finalize_object (loader);
  cleanup (dir, path);
}

static void
loaded (GObject *source, GAsyncResult *result, gpointer user_data)
{
  FwModel **out = user_data;
  g_autoptr(GError) error = NULL;

  *out = fw_model_loader_load_finish (FW_MODEL_LOADER (source), result, &error);
  g_assert_no_error (error);
}

/* The worker thread drops its reference to the task (and so to the loader) a moment after the result is
 * delivered; wait for that before checking that nothing else keeps the loader alive. */
static void
wait_for_last_ref (gpointer object)
{
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

  while (g_atomic_int_get (&G_OBJECT (object)->ref_count) > 1 && g_get_monotonic_time () < deadline)
    {
      while (g_main_context_pending (NULL))
        g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
}

static void
test_async (void)
{
  g_autoptr(FwModel) built = fw_test_transformer_block (16, 32, 4, TRUE);
  g_autofree char *dir = NULL;
  g_autofree char *path = write_model (built, &dir);
  FwModelLoader *loader = fw_model_loader_new (path);
  g_autoptr(GHashTable) bindings = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  gint64 batch = 5;
  FwModel *model = NULL;
  g_autofree char *shape = NULL;
  Watch w = { 0 };

  g_hash_table_insert (bindings, g_strdup ("batch"), g_memdup2 (&batch, sizeof batch));
  fw_model_loader_set_bindings (loader, bindings);
  watch (loader, &w);
  fw_model_loader_load_async (loader, NULL, loaded, &model);
  while (model == NULL)
    g_main_context_iteration (NULL, TRUE);
  /* Let the last notifications arrive. */
  while (g_main_context_pending (NULL))
    g_main_context_iteration (NULL, FALSE);
  g_assert_false (w.off_thread);
  g_assert_false (w.backwards);
  g_assert_cmpfloat (fw_model_loader_get_fraction (loader), ==, 1.0);
  shape = fw_test_shape_of (model, "y");
  g_assert_cmpstr (shape, ==, "[5,16,32]");
  g_object_unref (model);
  wait_for_last_ref (loader);
  g_assert_finalize_object (loader);
  cleanup (dir, path);
}

static void
failed (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GError **out = user_data;
  FwModel *model = fw_model_loader_load_finish (FW_MODEL_LOADER (source), result, out);

  g_assert_null (model);
  g_assert_nonnull (*out);
}

static void
test_async_cancelled (void)
{
  g_autoptr(FwModel) built = fw_test_long_chain (5000);
  g_autofree char *dir = NULL;
  g_autofree char *path = write_model (built, &dir);
  FwModelLoader *loader = fw_model_loader_new (path);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  GError *error = NULL;

  g_cancellable_cancel (cancellable);
  fw_model_loader_load_async (loader, cancellable, failed, &error);
  while (error == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_error_free (error);
  wait_for_last_ref (loader);
  g_assert_finalize_object (loader);
  cleanup (dir, path);
}

static void
test_bad_file (void)
{
  FwModelLoader *loader = fw_model_loader_new ("/nonexistent/x.onnx");
  g_autoptr(GError) error = NULL;
  g_autoptr(FwModel) model = fw_model_loader_load (loader, NULL, &error);

  g_assert_null (model);
  g_assert_error (error, FW_ERROR, FW_ERROR_IO);
  g_assert_finalize_object (loader);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/onnx/loader/blocking", test_blocking);
  g_test_add_func ("/core/onnx/loader/async", test_async);
  g_test_add_func ("/core/onnx/loader/async-cancelled", test_async_cancelled);
  g_test_add_func ("/core/onnx/loader/bad-file", test_bad_file);
  return g_test_run ();
}
