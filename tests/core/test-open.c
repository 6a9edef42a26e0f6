/* FwOpen: profile, rules files and folders, whitelists, model, inference and plan into an FwProject;
 * blocking and async with progress in the caller's thread, cancellation, and errors that name their file. */
#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "fw-error.h"
#include "fw-test-models.h"
#include "plan/fw-decisions.h"
#include "report/fw-plan-report.h"
#include "session/fw-open.h"

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
on_fraction (FwOpen *job, GParamSpec *pspec, Watch *w)
{
  gdouble f = fw_open_get_fraction (job);

  if (f < w->last)
    w->backwards = TRUE;
  if (g_thread_self () != w->main_thread)
    w->off_thread = TRUE;
  w->last = f;
  w->n_fraction++;
}

static void
on_message (FwOpen *job, GParamSpec *pspec, Watch *w)
{
  w->n_message++;
}

static void
watch (FwOpen *job, Watch *w)
{
  w->main_thread = g_thread_self ();
  g_signal_connect (job, "notify::fraction", G_CALLBACK (on_fraction), w);
  g_signal_connect (job, "notify::message", G_CALLBACK (on_message), w);
}

static char *
write_model (FwModel *model, const char *dir)
{
  char *path = g_build_filename (dir, "model.onnx", NULL);

  g_assert_true (fw_onnx_write (model, path, FW_ONNX_WRITE_DEFAULT, NULL));
  return path;
}

static char *
write_text (const char *dir, const char *name, const char *text)
{
  char *path = g_build_filename (dir, name, NULL);

  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  return path;
}

static GHashTable *
batch_of (gint64 batch)
{
  GHashTable *bindings = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  g_hash_table_insert (bindings, g_strdup ("batch"), g_memdup2 (&batch, sizeof batch));
  return bindings;
}

/* The worker thread drops its reference to the task (and so to the job) a moment after the result is
 * delivered; wait for that before checking that nothing else keeps the job alive. */
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

static guint
count_status (FwPlan *plan, FwCandidateStatus status)
{
  guint n = 0;

  for (guint i = 0; i < plan->candidates->len; i++)
    n += ((FwCandidate *) g_ptr_array_index (plan->candidates, i))->status == status;
  return n;
}

/* A folder of rules and a file after it, then two whitelists: everything lands in the project. */
static void
test_blocking (void)
{
  g_autoptr(FwModel) built = fw_test_transformer_block (16, 64, 4, TRUE);
  g_autofree char *dir = fw_test_temp_dir ();
  g_autofree char *path = write_model (built, dir);
  g_autofree char *rules_dir = g_build_filename (dir, "rules", NULL);
  g_autofree char *rule_a = NULL, *rule_file = NULL, *veto = NULL, *none = NULL;
  g_autoptr(GHashTable) bindings = batch_of (5);
  FwOpenOptions options;
  FwOpen *job;
  g_autoptr(FwProject) project = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *shape = NULL;
  const char *rules[2], *whitelists[3];
  FwPlan *plan;
  Watch w = { 0 };

  g_assert_cmpint (g_mkdir (rules_dir, 0700), ==, 0);
  rule_a = write_text (rules_dir, "a.yaml",
                       "version: 1\nrules:\n  - name: from_folder\n    pattern: [Add, Relu]\n    priority: 1\n");
  rule_file = write_text (dir, "more.yaml",
                          "version: 1\nrules:\n  - name: from_file\n    pattern: [Softmax]\n    action: forbid\n");
  veto = write_text (dir, "veto.fusion.yaml", "version: 1\nentries:\n  - pattern: layernorm\n    decision: veto\n");
  none = write_text (dir, "none.fusion.yaml",
                     "version: 1\nentries:\n  - pattern: no_such_pattern\n    decision: accept\n");
  rules[0] = rules_dir;
  rules[1] = NULL;
  whitelists[0] = veto;
  whitelists[1] = none;
  whitelists[2] = NULL;

  fw_open_options_init (&options);
  options.bindings = bindings;
  options.rules = rules;
  options.whitelists = whitelists;
  job = fw_open_new (path, &options);
  /* The options were copied: a second list after the first is the job's own. */
  rules[0] = rule_file;
  watch (job, &w);
  g_assert_cmpstr (fw_open_get_path (job), ==, path);
  project = fw_open_run (job, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (project);
  plan = fw_project_get_plan (project);

  g_assert_nonnull (fw_rule_set_lookup (plan->rules, "from_folder"));
  g_assert_null (fw_rule_set_lookup (plan->rules, "from_file"));
  g_assert_nonnull (fw_rule_set_lookup (plan->rules, "matmul_bias_relu"));
  /* Both whitelists were applied in order, each entry a decision on the plan's log. */
  g_assert_cmpuint (plan->n_applied, ==, 2);
  g_assert_true (((FwDecision *) g_ptr_array_index (plan->decisions, 0))->whitelist);
  g_assert_cmpuint (count_status (plan, FW_CANDIDATE_VETOED), >, 0);
  g_assert_true (fw_plan_whitelist_rejected (plan));
  g_assert_cmpuint (g_list_model_get_n_items (fw_project_get_candidates (project)), ==, plan->candidates->len);
  {
    g_autoptr(FwCandidateItem) item = NULL;
    guint vetoed = G_MAXUINT;

    for (guint i = 0; i < plan->candidates->len && vetoed == G_MAXUINT; i++)
      if (((FwCandidate *) g_ptr_array_index (plan->candidates, i))->status == FW_CANDIDATE_VETOED)
        vetoed = i;
    item = g_list_model_get_item (fw_project_get_candidates (project), vetoed);
    g_assert_cmpstr (fw_candidate_item_get_status (item), ==, "vetoed");
  }

  shape = fw_test_shape_of (fw_project_get_model (project), "y");
  g_assert_cmpstr (shape, ==, "[5,16,64]");
  g_assert_cmpstr (fw_project_get_bindings (project)[0], ==, "batch=5");
  g_assert_null (fw_project_get_bindings (project)[1]);
  g_assert_cmpstr (fw_open_get_symbols (job)[0], ==, "batch");
  g_assert_nonnull (fw_project_get_model_report (project));
  g_assert_null (fw_project_get_session_path (project));
  g_assert_cmpfloat (fw_open_get_fraction (job), ==, 1.0);
  g_assert_false (w.backwards);
  g_assert_cmpuint (w.n_message, >=, 3);
  g_assert_finalize_object (job);
  g_assert_finalize_object (g_steal_pointer (&project));
  fw_test_remove_dir (dir);
}

/* Parsing a long model reports often; the fraction never goes back. */
static void
test_blocking_progress (void)
{
  g_autoptr(FwModel) built = fw_test_long_chain (20000);
  g_autofree char *dir = fw_test_temp_dir ();
  g_autofree char *path = write_model (built, dir);
  FwOpen *job = fw_open_new (path, NULL);
  g_autoptr(FwProject) project = NULL;
  g_autoptr(GError) error = NULL;
  Watch w = { 0 };

  watch (job, &w);
  project = fw_open_run (job, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (fw_graph_get_n_nodes (fw_model_get_graph (fw_project_get_model (project))), ==, 20000);
  /* Parsing reports every 1,024 nodes, then inference, planning and the end. */
  g_assert_cmpuint (w.n_fraction, >=, 10);
  g_assert_false (w.backwards);
  g_assert_cmpfloat (fw_open_get_fraction (job), ==, 1.0);
  g_assert_finalize_object (job);
  fw_test_remove_dir (dir);
}

typedef struct
{
  FwProject *project;
  GError    *error;
  gboolean   done;
} Result;

static void
opened (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Result *r = user_data;

  r->project = fw_open_run_finish (FW_OPEN (source), result, &r->error);
  r->done = TRUE;
}

static void
test_async (void)
{
  g_autoptr(FwModel) built = fw_test_transformer_block (16, 32, 4, TRUE);
  g_autofree char *dir = fw_test_temp_dir ();
  g_autofree char *path = write_model (built, dir);
  g_autofree char *veto = write_text (dir, "veto.fusion.yaml",
                                      "version: 1\nentries:\n  - pattern: layernorm\n    decision: veto\n");
  g_autoptr(GHashTable) bindings = batch_of (3);
  const char *whitelists[] = { veto, NULL };
  FwOpenOptions options;
  FwOpen *job;
  g_autofree char *shape = NULL;
  Result r = { 0 };
  Watch w = { 0 };

  fw_open_options_init (&options);
  options.bindings = bindings;
  options.whitelists = whitelists;
  options.profile = "ascend-310p";
  job = fw_open_new (path, &options);
  watch (job, &w);
  fw_open_run_async (job, NULL, opened, &r);
  while (!r.done)
    g_main_context_iteration (NULL, TRUE);
  /* Let the last notifications arrive. */
  while (g_main_context_pending (NULL))
    g_main_context_iteration (NULL, FALSE);
  g_assert_no_error (r.error);
  g_assert_nonnull (r.project);
  g_assert_false (w.off_thread);
  g_assert_false (w.backwards);
  g_assert_cmpuint (w.n_fraction, >, 0);
  g_assert_cmpfloat (fw_open_get_fraction (job), ==, 1.0);
  g_assert_cmpstr (fw_project_get_profile (r.project)->name, ==, "ascend-310p");
  g_assert_cmpuint (count_status (fw_project_get_plan (r.project), FW_CANDIDATE_VETOED), >, 0);
  shape = fw_test_shape_of (fw_project_get_model (r.project), "y");
  g_assert_cmpstr (shape, ==, "[3,16,32]");
  g_assert_finalize_object (r.project);
  wait_for_last_ref (job);
  g_assert_finalize_object (job);
  fw_test_remove_dir (dir);
}

static void
test_async_cancelled (void)
{
  g_autoptr(FwModel) built = fw_test_long_chain (5000);
  g_autofree char *dir = fw_test_temp_dir ();
  g_autofree char *path = write_model (built, dir);
  FwOpen *job = fw_open_new (path, NULL);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  Result r = { 0 };

  g_cancellable_cancel (cancellable);
  fw_open_run_async (job, cancellable, opened, &r);
  while (!r.done)
    g_main_context_iteration (NULL, TRUE);
  g_assert_null (r.project);
  g_assert_error (r.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_error_free (r.error);
  wait_for_last_ref (job);
  g_assert_finalize_object (job);
  fw_test_remove_dir (dir);
}

/* Opens path with one rules file and one whitelist (either may be NULL); the error it fails with. */
static GError *
open_error (const char *path, const char *rules_file, const char *whitelist, const char *profile)
{
  const char *rules[] = { rules_file, NULL };
  const char *whitelists[] = { whitelist, NULL };
  FwOpenOptions options;
  FwOpen *job;
  FwProject *project;
  GError *error = NULL;

  fw_open_options_init (&options);
  options.rules = rules;
  options.whitelists = whitelists;
  options.profile = profile;
  job = fw_open_new (path, &options);
  project = fw_open_run (job, NULL, &error);
  g_assert_null (project);
  g_assert_nonnull (error);
  g_assert_finalize_object (job);
  return error;
}

static void
test_errors (void)
{
  g_autoptr(FwModel) built = fw_test_elementwise_chain (4, 64, FALSE);
  g_autofree char *dir = fw_test_temp_dir ();
  g_autofree char *path = write_model (built, dir);
  g_autofree char *garbage = write_text (dir, "garbage.onnx", "this is not a model");
  g_autofree char *bad_rules = write_text (dir, "bad-rules.yaml", "version: 1\nrules:\n  - name: r\n    patern: [Relu]\n");
  g_autofree char *bad_list = write_text (dir, "bad.fusion.yaml",
                                          "version: 1\nentries:\n  - pattern: layernorm\n    decision: perhaps\n");
  g_autofree char *missing = g_build_filename (dir, "missing.onnx", NULL);
  GError *error;

  error = open_error (garbage, NULL, NULL, NULL);
  g_assert_nonnull (strstr (error->message, "garbage.onnx"));
  g_clear_error (&error);

  error = open_error (missing, NULL, NULL, NULL);
  g_assert_error (error, FW_ERROR, FW_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "missing.onnx"));
  g_clear_error (&error);

  /* Rules and whitelists are read before the model: a bad one fails even with a model that is missing. */
  error = open_error (missing, bad_rules, NULL, NULL);
  g_assert_error (error, FW_ERROR, FW_ERROR_PARSE);
  g_assert_nonnull (strstr (error->message, "bad-rules.yaml:4:5"));
  g_clear_error (&error);

  error = open_error (missing, NULL, bad_list, NULL);
  g_assert_error (error, FW_ERROR, FW_ERROR_PARSE);
  g_assert_nonnull (strstr (error->message, "bad.fusion.yaml:4:15"));
  g_clear_error (&error);

  error = open_error (path, NULL, NULL, "no-such-profile");
  g_assert_nonnull (strstr (error->message, "no-such-profile"));
  g_clear_error (&error);
  fw_test_remove_dir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/session/open/blocking", test_blocking);
  g_test_add_func ("/core/session/open/blocking-progress", test_blocking_progress);
  g_test_add_func ("/core/session/open/async", test_async);
  g_test_add_func ("/core/session/open/async-cancelled", test_async_cancelled);
  g_test_add_func ("/core/session/open/errors", test_errors);
  return g_test_run ();
}
