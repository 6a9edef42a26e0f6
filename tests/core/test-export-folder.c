/* The export of a plan into a folder (FwExport): every part written and readable, each part optional,
 * nothing written when a target path is the input model, progress in the caller's context, cancel. */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include <json-glib/json-glib.h>

#include "fw-error.h"
#include "fw-test-models.h"
#include "codegen/fw-kernel-package.h"
#include "export/fw-export.h"
#include "onnx/fw-onnx.h"
#include "plan/fw-decisions.h"

typedef struct
{
  char      *dir;
  char      *model_path;
  char      *out;
  FwModel   *model;
  FwPlan    *plan;
  FwRuleSet *rules;
} Fixture;

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();
  g_autoptr(FwModel) built = fw_test_transformer_block (16, 64, 4, FALSE);

  f->dir = fw_test_temp_dir ();
  f->model_path = g_build_filename (f->dir, "block.onnx", NULL);
  f->out = g_build_filename (f->dir, "out", NULL);
  g_assert_true (fw_onnx_write (built, f->model_path, FW_ONNX_WRITE_DEFAULT, &error));
  g_assert_no_error (error);
  f->model = fw_onnx_load (f->model_path, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (fw_test_infer (f->model, NULL, NULL, &error));
  f->rules = fw_test_builtin_rules ();
  f->plan = fw_plan_new (f->model, profile, f->rules, NULL, &error);
  g_assert_no_error (error);
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  fw_plan_free (f->plan);
  fw_rule_set_free (f->rules);
  g_assert_finalize_object (f->model);
  fw_test_remove_dir (f->dir);
  g_free (f->dir);
  g_free (f->model_path);
  g_free (f->out);
}

static FwExportOptions
options_for (Fixture *f)
{
  static char *cache;
  FwExportOptions options;

  g_clear_pointer (&cache, g_free);
  cache = g_build_filename (f->dir, "cache", NULL);
  fw_export_options_init (&options);
  options.cache_dir = cache;
  return options;
}

static char *
out_file (Fixture *f, const char *name)
{
  return g_build_filename (f->out, name, NULL);
}

static void
test_all (Fixture *f, gconstpointer data)
{
  FwExportOptions options = options_for (f);
  g_autoptr(FwExport) export = fw_export_new (f->model, f->plan, f->out, &options);
  g_autoptr(GError) error = NULL;
  g_autofree char *fused = out_file (f, "block.fused.onnx");
  g_autofree char *whitelist = out_file (f, "block.fusion.yaml");
  g_autofree char *manifest = out_file (f, "kernels/manifest.json");
  g_autofree char *json = out_file (f, "block.report.json");
  g_autofree char *md = out_file (f, "block.report.md");
  g_autoptr(FwModel) reloaded = NULL;
  g_autoptr(FwWhitelist) list = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *root;
  g_autofree char *md_text = NULL;

  g_assert_true (fw_export_run (export, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (fw_export_get_written (export)->len, ==, 5);
  g_assert_cmpfloat (fw_export_get_fraction (export), ==, 1.0);
  /* Each part is what its own reader accepts. */
  reloaded = fw_onnx_load (fused, NULL, NULL, &error);
  g_assert_no_error (error);
  list = fw_whitelist_load (whitelist, &error);
  g_assert_no_error (error);
  g_assert_true (g_file_test (manifest, G_FILE_TEST_IS_REGULAR));
  g_assert_true (json_parser_load_from_file (parser, json, &error));
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_true (json_object_has_member (root, "plan"));
  g_assert_true (json_object_has_member (root, "targets"));
  g_assert_true (g_file_get_contents (md, &md_text, NULL, &error));
  g_assert_cmpuint (strlen (md_text), >, 0);
}

static void
test_parts (Fixture *f, gconstpointer data)
{
  FwExportOptions options = options_for (f);
  g_autoptr(FwExport) export = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *fused = out_file (f, "block.fused.onnx");
  g_autofree char *whitelist = out_file (f, "block.fusion.yaml");
  g_autofree char *kernels = out_file (f, "kernels");
  g_autofree char *json = out_file (f, "block.report.json");

  options.fused_model = options.kernels = options.report = FALSE;
  export = fw_export_new (f->model, f->plan, f->out, &options);
  g_assert_true (fw_export_run (export, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_test (whitelist, G_FILE_TEST_IS_REGULAR));
  g_assert_false (g_file_test (fused, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (kernels, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (json, G_FILE_TEST_EXISTS));
  g_clear_object (&export);

  options.whitelist = FALSE;
  export = fw_export_new (f->model, f->plan, f->out, &options);
  g_assert_false (fw_export_run (export, NULL, &error));
  g_assert_error (error, FW_ERROR, FW_ERROR_USAGE);
}

/* A file in the export folder that is the input model (a hard link here) stops the export before anything
 * is written, and the model keeps its bytes. */
static void
test_refuses_input (Fixture *f, gconstpointer data)
{
  FwExportOptions options = options_for (f);
  g_autoptr(FwExport) export = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *report = out_file (f, "block.report.json");
  g_autofree char *whitelist = out_file (f, "block.fusion.yaml");
  g_autofree char *before = NULL, *after = NULL;
  gsize before_len = 0, after_len = 0;

  g_assert_cmpint (g_mkdir_with_parents (f->out, 0700), ==, 0);
  g_assert_cmpint (link (f->model_path, report), ==, 0);
  g_assert_true (g_file_get_contents (f->model_path, &before, &before_len, NULL));
  export = fw_export_new (f->model, f->plan, f->out, &options);
  g_assert_false (fw_export_run (export, NULL, &error));
  g_assert_error (error, FW_ERROR, FW_ERROR_USAGE);
  g_assert_nonnull (strstr (error->message, report));
  g_assert_false (g_file_test (whitelist, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_get_contents (f->model_path, &after, &after_len, NULL));
  g_assert_cmpmem (before, before_len, after, after_len);
}

/* The worker thread lets go of its task (and so of the object) just after the callback has run. */
static void
wait_for_last_ref (gpointer object)
{
  while (g_atomic_int_get (&G_OBJECT (object)->ref_count) > 1)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
}

/* A second export replaces the package as a whole: the folder of a candidate vetoed since is gone, and no
 * staging folder is left beside it. A model kept inside the kernels folder stops the export before any
 * write. */
static void
test_kernels_replaced (Fixture *f, gconstpointer data)
{
  FwExportOptions options = options_for (f);
  g_autoptr(FwExport) first = NULL, second = NULL, third = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *kernels = out_file (f, "kernels");
  g_autofree char *folder = NULL, *vetoed_dir = NULL, *inside = NULL, *whitelist = NULL;
  g_autoptr(GDir) dir = NULL;
  const char *name;
  guint fused = 0;

  options.fused_model = options.whitelist = options.report = FALSE;
  options.host = FALSE;
  first = fw_export_new (f->model, f->plan, f->out, &options);
  g_assert_true (fw_export_run (first, NULL, &error));
  g_assert_no_error (error);
  /* The first fused candidate the Ascend target makes a kernel of (it refuses a fused attention). */
  while (!fw_candidate_is_fused (g_ptr_array_index (f->plan->candidates, fused)) ||
         fw_kernel_spec_get_attention (((FwCandidate *) g_ptr_array_index (f->plan->candidates, fused))->spec) != NULL)
    fused++;
  folder = fw_kernel_package_folder_name (g_ptr_array_index (f->plan->candidates, fused));
  vetoed_dir = g_build_filename (kernels, folder, NULL);
  g_assert_true (g_file_test (vetoed_dir, G_FILE_TEST_IS_DIR));
  g_assert_true (fw_plan_veto (f->plan, fused, NULL, NULL, &error));
  second = fw_export_new (f->model, f->plan, f->out, &options);
  g_assert_true (fw_export_run (second, NULL, &error));
  g_assert_no_error (error);
  g_assert_false (g_file_test (vetoed_dir, G_FILE_TEST_EXISTS));
  dir = g_dir_open (f->out, 0, &error);
  g_assert_no_error (error);
  while ((name = g_dir_read_name (dir)) != NULL)
    g_assert_false (g_str_has_prefix (name, ".kernels.tmp-"));

  inside = g_build_filename (kernels, "model.onnx", NULL);
  g_assert_cmpint (link (f->model_path, inside), ==, 0);
  fw_export_options_init (&options);
  options.host = FALSE;
  third = fw_export_new (f->model, f->plan, f->out, &options);
  g_assert_false (fw_export_run (third, NULL, &error));
  g_assert_error (error, FW_ERROR, FW_ERROR_USAGE);
  whitelist = out_file (f, "block.fusion.yaml");
  g_assert_false (g_file_test (whitelist, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (inside, G_FILE_TEST_IS_REGULAR));
}

typedef struct
{
  GMainLoop *loop;
  gboolean   ok;
  GError    *error;
  GThread   *main_thread;
  guint      n_progress;
  gboolean   off_thread;
} Wait;

static void
on_progress (GObject *object, GParamSpec *pspec, gpointer user_data)
{
  Wait *w = user_data;

  w->n_progress++;
  w->off_thread |= g_thread_self () != w->main_thread;
}

static void
on_done (GObject *object, GAsyncResult *result, gpointer user_data)
{
  Wait *w = user_data;

  w->ok = fw_export_run_finish (FW_EXPORT (object), result, &w->error);
  g_main_loop_quit (w->loop);
}

static void
test_async (Fixture *f, gconstpointer data)
{
  FwExportOptions options = options_for (f);
  g_autoptr(FwExport) export = fw_export_new (f->model, f->plan, f->out, &options);
  g_autofree char *manifest = out_file (f, "kernels/manifest.json");
  Wait w = { 0 };

  w.loop = g_main_loop_new (NULL, FALSE);
  w.main_thread = g_thread_self ();
  g_signal_connect (export, "notify::fraction", G_CALLBACK (on_progress), &w);
  g_signal_connect (export, "notify::message", G_CALLBACK (on_progress), &w);
  fw_export_run_async (export, NULL, on_done, &w);
  g_main_loop_run (w.loop);
  g_assert_no_error (w.error);
  g_assert_true (w.ok);
  g_assert_cmpuint (w.n_progress, >=, 3);
  g_assert_false (w.off_thread);
  g_assert_true (g_file_test (manifest, G_FILE_TEST_IS_REGULAR));
  g_main_loop_unref (w.loop);
  wait_for_last_ref (export);
}

static void
test_cancel (Fixture *f, gconstpointer data)
{
  FwExportOptions options = options_for (f);
  g_autoptr(FwExport) export = fw_export_new (f->model, f->plan, f->out, &options);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autofree char *manifest = out_file (f, "kernels/manifest.json");
  Wait w = { 0 };

  w.loop = g_main_loop_new (NULL, FALSE);
  g_cancellable_cancel (cancellable);
  fw_export_run_async (export, cancellable, on_done, &w);
  g_main_loop_run (w.loop);
  g_assert_false (w.ok);
  g_assert_error (w.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&w.error);
  g_assert_false (g_file_test (manifest, G_FILE_TEST_EXISTS));
  g_main_loop_unref (w.loop);
  wait_for_last_ref (export);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/core/export/folder/all", Fixture, NULL, fixture_set_up, test_all, fixture_tear_down);
  g_test_add ("/core/export/folder/parts", Fixture, NULL, fixture_set_up, test_parts, fixture_tear_down);
  g_test_add ("/core/export/folder/refuses-input", Fixture, NULL, fixture_set_up, test_refuses_input,
              fixture_tear_down);
  g_test_add ("/core/export/folder/kernels-replaced", Fixture, NULL, fixture_set_up, test_kernels_replaced,
              fixture_tear_down);
  g_test_add ("/core/export/folder/async", Fixture, NULL, fixture_set_up, test_async, fixture_tear_down);
  g_test_add ("/core/export/folder/cancel", Fixture, NULL, fixture_set_up, test_cancel, fixture_tear_down);
  return g_test_run ();
}
