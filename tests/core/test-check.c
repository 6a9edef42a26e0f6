/* The check (compile, verify, measure) of a project: results land in the candidate list and the details;
 * the async form reports progress in the caller's context and holds the plan still while it runs; a
 * cancel leaves the project as it was; results of an older plan are not applied. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "fw-error.h"
#include "fw-test-models.h"
#include "codegen/fw-targets.h"
#include "io/fw-progress.h"
#include "session/fw-check.h"
#include "session/fw-kernel-sources.h"
#include "session/fw-project.h"

typedef struct
{
  char      *dir;
  FwModel   *model;
  FwProject *project;
  FwRuleSet *rules;
} Fixture;

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FwProfile) profile = fw_test_profile_910b ();

  f->dir = fw_test_temp_dir ();
  f->model = fw_test_transformer_block (16, 64, 4, FALSE);
  g_assert_true (fw_test_infer (f->model, NULL, NULL, &error));
  g_assert_no_error (error);
  f->rules = fw_test_builtin_rules ();
  f->project = fw_project_new (f->model, profile, f->rules, NULL, &error);
  g_assert_no_error (error);
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  g_assert_finalize_object (f->project);
  fw_rule_set_free (f->rules);
  g_assert_finalize_object (f->model);
  fw_test_remove_dir (f->dir);
  g_free (f->dir);
}

static FwCheck *
check_new (Fixture *f, gboolean measure)
{
  g_autofree char *cache = g_build_filename (f->dir, "cache", NULL);
  FwCheckOptions options;

  fw_check_options_init (&options);
  options.measure = measure;
  options.repeats = 1;
  options.n_threads = 1;
  options.cache_dir = cache;
  return fw_check_new (f->project, &options);
}

static guint
n_fused (FwProject *project)
{
  FwPlan *plan = fw_project_get_plan (project);
  guint n = 0;

  for (guint i = 0; i < plan->candidates->len; i++)
    n += fw_candidate_is_fused (g_ptr_array_index (plan->candidates, i));
  return n;
}

static void
test_blocking (Fixture *f, gconstpointer data)
{
  g_autoptr(FwCheck) check = check_new (f, TRUE);
  g_autoptr(GError) error = NULL;
  GListModel *items = fw_project_get_candidates (f->project);
  guint verified = 0;

  g_assert_cmpuint (n_fused (f->project), >, 0);
  g_assert_true (fw_check_run (check, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpfloat (fw_check_get_fraction (check), ==, 1.0);
  g_assert_cmpuint (fw_check_get_targets (check)->kernels->len, ==, n_fused (f->project));
  g_assert_nonnull (fw_check_get_verify (check));
  g_assert_true (fw_check_get_verify (check)->pass);
  g_assert_nonnull (fw_check_get_measure (check));
  g_assert_cmpuint (fw_check_get_n_failed (check), ==, 0);

  /* The blocking run leaves the project alone until apply. */
  for (guint i = 0; i < g_list_model_get_n_items (items); i++)
    {
      g_autoptr(FwCandidateItem) item = g_list_model_get_item (items, i);
      g_assert_cmpstr (fw_candidate_item_get_verification (item), ==, "");
      g_assert_null (fw_project_get_check_detail (f->project, i));
    }
  fw_check_apply (check);
  for (guint i = 0; i < g_list_model_get_n_items (items); i++)
    {
      g_autoptr(FwCandidateItem) item = g_list_model_get_item (items, i);
      FwCandidate *c = g_ptr_array_index (fw_project_get_plan (f->project)->candidates, i);

      if (!fw_candidate_is_fused (c))
        {
          g_assert_cmpstr (fw_candidate_item_get_verification (item), ==, "");
          continue;
        }
      g_assert_cmpstr (fw_candidate_item_get_verification (item), ==, "pass");
      g_assert_false (isnan (fw_candidate_item_get_measured_saved_us (item)));
      g_assert_nonnull (strstr (fw_project_get_check_detail (f->project, i), "max abs error"));
      g_assert_nonnull (strstr (fw_project_get_check_detail (f->project, i), "measured speed-up"));
      verified++;
    }
  g_assert_cmpuint (verified, ==, n_fused (f->project));

  /* The sources the check generated are kept per candidate, for the inspector. */
  for (guint i = 0; i < fw_check_get_targets (check)->kernels->len; i++)
    {
      const FwTargetKernel *k = g_ptr_array_index (fw_check_get_targets (check)->kernels, i);
      FwKernelSources *sources = fw_project_get_kernel_sources (f->project, k->candidate);

      g_assert_nonnull (sources);
      g_assert_cmpuint (fw_kernel_sources_get_revision (sources), ==, fw_project_get_revision (f->project));
      g_assert_nonnull (k->sources[FW_TARGET_HOST]);
      g_assert_cmpstr (fw_kernel_sources_get_source (sources, FW_TARGET_HOST), ==,
                       fw_kernel_source_get_main (k->sources[FW_TARGET_HOST]));
      g_assert_null (fw_kernel_sources_get_error (sources, FW_TARGET_HOST));
      if (k->sources[FW_TARGET_ASCEND] != NULL)
        g_assert_cmpstr (fw_kernel_sources_get_source (sources, FW_TARGET_ASCEND), ==,
                         fw_kernel_source_get_main (k->sources[FW_TARGET_ASCEND]));
      else
        g_assert_nonnull (fw_kernel_sources_get_error (sources, FW_TARGET_ASCEND));
    }
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

typedef struct
{
  GMainLoop *loop;
  gboolean   ok;
  GError    *error;
  GThread   *main_thread;
  guint      n_progress;
  gboolean   progress_off_thread;
  gdouble    last_fraction;
  gboolean   went_back;
} Wait;

static void
on_fraction (GObject *object, GParamSpec *pspec, gpointer user_data)
{
  Wait *w = user_data;
  gdouble fraction = fw_check_get_fraction (FW_CHECK (object));

  w->n_progress++;
  w->progress_off_thread |= g_thread_self () != w->main_thread;
  w->went_back |= fraction < w->last_fraction;
  w->last_fraction = fraction;
}

static void
on_done (GObject *object, GAsyncResult *result, gpointer user_data)
{
  Wait *w = user_data;

  w->ok = fw_check_run_finish (FW_CHECK (object), result, &w->error);
  g_main_loop_quit (w->loop);
}

static void
test_async (Fixture *f, gconstpointer data)
{
  g_autoptr(FwCheck) check = check_new (f, FALSE);
  g_autoptr(GError) error = NULL;
  Wait w = { 0 };
  guint candidate = 0;
  FwPlan *plan = fw_project_get_plan (f->project);
  g_autoptr(FwCandidateItem) item = NULL;

  while (!fw_candidate_is_fused (g_ptr_array_index (plan->candidates, candidate)))
    candidate++;
  w.loop = g_main_loop_new (NULL, FALSE);
  w.main_thread = g_thread_self ();
  g_signal_connect (check, "notify::fraction", G_CALLBACK (on_fraction), &w);
  fw_check_run_async (check, NULL, on_done, &w);

  /* While it runs the plan is held still: decisions and undo are refused, and a second check too. */
  g_assert_true (fw_project_get_busy (f->project));
  g_assert_false (fw_project_veto (f->project, candidate, &error));
  g_assert_error (error, FW_ERROR, FW_ERROR_USAGE);
  g_clear_error (&error);
  g_assert_false (fw_project_can_undo (f->project));
  {
    g_autoptr(FwCheck) second = check_new (f, FALSE);
    Wait w2 = { 0 };

    w2.loop = g_main_loop_new (NULL, FALSE);
    fw_check_run_async (second, NULL, on_done, &w2);
    g_main_loop_run (w2.loop);
    g_assert_false (w2.ok);
    g_assert_error (w2.error, FW_ERROR, FW_ERROR_USAGE);
    g_clear_error (&w2.error);
    g_main_loop_unref (w2.loop);
  }
  g_main_loop_run (w.loop);
  g_assert_no_error (w.error);
  g_assert_true (w.ok);
  g_assert_false (fw_project_get_busy (f->project));
  g_assert_cmpuint (w.n_progress, >=, 2);
  g_assert_false (w.progress_off_thread);
  g_assert_false (w.went_back);
  g_assert_cmpfloat (w.last_fraction, ==, 1.0);
  /* The async form applies the results itself. */
  item = g_list_model_get_item (fw_project_get_candidates (f->project), candidate);
  g_assert_cmpstr (fw_candidate_item_get_verification (item), ==, "pass");
  g_assert_nonnull (fw_project_get_check_detail (f->project, candidate));
  /* No measurement asked for: no measured time. */
  g_assert_true (isnan (fw_candidate_item_get_measured_saved_us (item)));
  /* And the plan may change again. */
  g_assert_true (fw_project_veto (f->project, candidate, &error));
  g_assert_no_error (error);
  g_main_loop_unref (w.loop);
  wait_for_last_ref (check);
}

static void
test_cancel (Fixture *f, gconstpointer data)
{
  g_autoptr(FwCheck) check = check_new (f, TRUE);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  Wait w = { 0 };
  GListModel *items = fw_project_get_candidates (f->project);

  w.loop = g_main_loop_new (NULL, FALSE);
  g_cancellable_cancel (cancellable);
  fw_check_run_async (check, cancellable, on_done, &w);
  g_main_loop_run (w.loop);
  g_assert_false (w.ok);
  g_assert_error (w.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&w.error);
  g_assert_false (fw_project_get_busy (f->project));
  for (guint i = 0; i < g_list_model_get_n_items (items); i++)
    {
      g_autoptr(FwCandidateItem) item = g_list_model_get_item (items, i);
      g_assert_cmpstr (fw_candidate_item_get_verification (item), ==, "");
    }
  g_main_loop_unref (w.loop);
  wait_for_last_ref (check);
}

/* Results of a plan that changed since are for other candidates: they are dropped. */
static void
test_stale (Fixture *f, gconstpointer data)
{
  g_autoptr(FwCheck) check = check_new (f, FALSE);
  g_autoptr(GError) error = NULL;
  FwPlan *plan = fw_project_get_plan (f->project);
  guint candidate = 0;
  guint64 revision;

  g_assert_true (fw_check_run (check, NULL, &error));
  g_assert_no_error (error);
  revision = fw_check_get_revision (check);
  while (!fw_candidate_is_fused (g_ptr_array_index (plan->candidates, candidate)))
    candidate++;
  g_assert_true (fw_project_veto (f->project, candidate, &error));
  g_assert_cmpuint (fw_project_get_revision (f->project), >, revision);
  fw_check_apply (check);
  for (guint i = 0; i < plan->candidates->len; i++)
    {
      g_assert_null (fw_project_get_check_detail (f->project, i));
      g_assert_null (fw_project_get_kernel_sources (f->project, i));
    }
}

static void
on_sources (GObject *object, GAsyncResult *result, gpointer data)
{
  FwKernelSources **out = data;
  g_autoptr(GError) error = NULL;

  *out = fw_kernel_sources_generate_finish (FW_PROJECT (object), result, &error);
  g_assert_no_error (error);
}

/* A candidate's sources generated in a worker are what the generators give, kept in the project for the
 * revision they were made at; a decision meanwhile waits for the worker instead of failing, and makes the
 * result one of an older plan, which the project does not keep. */
static void
test_sources_async (Fixture *f, gconstpointer data)
{
  FwPlan *plan = fw_project_get_plan (f->project);
  g_autoptr(GError) error = NULL;
  FwKernelSources *sources = NULL;
  guint candidate = 0;
  guint64 revision = fw_project_get_revision (f->project);

  while (!fw_candidate_is_fused (g_ptr_array_index (plan->candidates, candidate)))
    candidate++;
  g_assert_null (fw_project_get_kernel_sources (f->project, candidate));
  fw_kernel_sources_generate_async (f->project, candidate, NULL, on_sources, &sources);
  while (sources == NULL)
    g_main_context_iteration (NULL, TRUE);
  {
    FwCandidate *c = g_ptr_array_index (plan->candidates, candidate);
    g_autoptr(FwKernelSources) direct = fw_kernel_sources_generate (plan, c, revision);

    g_assert_cmpuint (fw_kernel_sources_get_revision (sources), ==, revision);
    g_assert_nonnull (fw_kernel_sources_get_source (sources, FW_TARGET_HOST));
    g_assert_cmpstr (fw_kernel_sources_get_source (sources, FW_TARGET_HOST), ==, fw_kernel_sources_get_source (direct, FW_TARGET_HOST));
    g_assert_cmpstr (fw_kernel_sources_get_source (sources, FW_TARGET_ASCEND), ==,
                     fw_kernel_sources_get_source (direct, FW_TARGET_ASCEND));
    g_assert_cmpstr (fw_kernel_sources_get_error (sources, FW_TARGET_ASCEND), ==, fw_kernel_sources_get_error (direct, FW_TARGET_ASCEND));
  }
  g_assert_true (fw_project_get_kernel_sources (f->project, candidate) == sources);
  g_clear_pointer (&sources, fw_kernel_sources_unref);
  wait_for_last_ref (f->project);

  fw_kernel_sources_generate_async (f->project, candidate, NULL, on_sources, &sources);
  g_assert_true (fw_project_veto (f->project, candidate, &error));
  g_assert_no_error (error);
  while (sources == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (fw_kernel_sources_get_revision (sources), ==, revision);
  g_assert_null (fw_project_get_kernel_sources (f->project, candidate));
  g_clear_pointer (&sources, fw_kernel_sources_unref);
  wait_for_last_ref (f->project);
}

/* A blocking run reports from every compile thread at once, with no main context to funnel the reports
 * through: each report replaces the message, and none may free what another is replacing (batch mode on
 * a model of thousands of groups aborted with a double free once in a few dozen runs). */
typedef struct
{
  GObject    parent;
  FwProgress progress;
} TestOwner;

typedef struct
{
  GObjectClass parent_class;
} TestOwnerClass;

static GParamSpec *owner_props[3];

GType test_owner_get_type (void);
G_DEFINE_TYPE (TestOwner, test_owner, G_TYPE_OBJECT)

static void
test_owner_finalize (GObject *object)
{
  fw_progress_clear (&((TestOwner *) object)->progress);
  G_OBJECT_CLASS (test_owner_parent_class)->finalize (object);
}

static void
test_owner_get_property (GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
  fw_progress_get_property (&((TestOwner *) object)->progress, pspec, value);
}

static void
test_owner_class_init (TestOwnerClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = test_owner_finalize;
  G_OBJECT_CLASS (klass)->get_property = test_owner_get_property;
  fw_progress_pspecs (&owner_props[1], &owner_props[2]);
  g_object_class_install_properties (G_OBJECT_CLASS (klass), 3, owner_props);
}

static void
test_owner_init (TestOwner *self)
{
  fw_progress_init (&self->progress, owner_props[1], owner_props[2]);
}

static gpointer
report_many (gpointer data)
{
  TestOwner *owner = data;

  for (guint i = 0; i < 20000; i++)
    {
      char message[64];
      g_snprintf (message, sizeof message, "kernel %u of 20000 (%p)", i, (void *) g_thread_self ());
      fw_progress_report (G_OBJECT (owner), &owner->progress, NULL, i / 20000.0, message);
    }
  return NULL;
}

static void
test_progress_threads (void)
{
  TestOwner *owner = g_object_new (test_owner_get_type (), NULL);
  GThread *threads[8];

  for (guint t = 0; t < G_N_ELEMENTS (threads); t++)
    threads[t] = g_thread_new ("report", report_many, owner);
  for (guint t = 0; t < G_N_ELEMENTS (threads); t++)
    g_thread_join (threads[t]);
  g_assert_nonnull (strstr (owner->progress.message, "kernel "));
  g_assert_cmpfloat (owner->progress.fraction, <=, 1.0);
  g_assert_finalize_object (owner);
}

/* A fused group that had no kernel to check ran on reference kernels: the verification lists it as
 * unverified and does not pass, although every value it compared matched. */
static void
test_unverified (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *cache = g_build_filename (f->dir, "cache", NULL);
  g_autoptr(FwCheck) check = NULL;
  FwCheckOptions options;
  FwVerifyResult *v;

  fw_check_options_init (&options);
  options.host = FALSE;
  options.ascend = FALSE;
  options.without_kernels = TRUE;
  options.n_threads = 1;
  options.cache_dir = cache;
  check = fw_check_new (f->project, &options);
  g_assert_true (fw_check_run (check, NULL, &error));
  g_assert_no_error (error);
  v = fw_check_get_verify (check);
  g_assert_nonnull (v);
  g_assert_cmpuint (n_fused (f->project), >, 0);
  g_assert_cmpuint (v->unverified->len, ==, n_fused (f->project));
  for (guint i = 0; i < v->outputs->len; i++)
    g_assert_true (g_array_index (v->outputs, FwOutputCheck, i).compare.pass);
  g_assert_false (v->pass);
}

/* With the twin on, every Ascend kernel's verdict there lands in the list beside the host's, and the
 * twin's diagnostics on the kernel's own lines become marks on its source (those about the run as a whole
 * or about another file do not). */
static void
test_twin (Fixture *f, gconstpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *cache = g_build_filename (f->dir, "cache", NULL);
  g_autoptr(FwCheck) check = NULL;
  GListModel *items = fw_project_get_candidates (f->project);
  FwCheckOptions options;
  FwTargetKernel *k = NULL;
  guint on_twin = 0;

  fw_check_options_init (&options);
  options.twin = TRUE;
  options.n_threads = 1;
  options.cache_dir = cache;
  check = fw_check_new (f->project, &options);
  g_assert_true (fw_check_run (check, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (fw_check_get_n_failed (check), ==, 0);
  fw_check_apply (check);
  for (guint i = 0; i < fw_check_get_targets (check)->kernels->len; i++)
    {
      FwTargetKernel *ki = g_ptr_array_index (fw_check_get_targets (check)->kernels, i);
      g_autoptr(FwCandidateItem) item = g_list_model_get_item (items, ki->candidate);

      if (ki->ascend == NULL)
        {
          g_assert_cmpstr (fw_candidate_item_get_twin (item), ==, "");
          continue;
        }
      g_assert_nonnull (ki->twin);
      g_assert_true (ki->twin->ran);
      g_assert_cmpstr (fw_candidate_item_get_twin (item), ==, "pass");
      g_assert_nonnull (strstr (fw_project_get_check_detail (f->project, ki->candidate), "On the Ascend C twin: pass"));
      g_assert_cmpuint (fw_kernel_sources_get_n_marks (fw_project_get_kernel_sources (f->project, ki->candidate),
                                                       FW_TARGET_ASCEND), ==, 0);
      on_twin++;
      k = ki;
    }
  g_assert_cmpuint (on_twin, >, 0);

  /* A kernel the twin found fault with: it counts as failed, and its lines are marked. */
  {
    const char *name = fw_kernel_source_get_name (k->sources[FW_TARGET_ASCEND]);
    FwTwinDiagnostic d[] = {
      { g_strdup ("FW-TWIN-UNALIGNED"), g_strdup_printf ("%s.cpp", name), 7, 1,
        g_strdup ("DataCopy to UB offset 40 is not 32-byte aligned") },
      { g_strdup ("FW-TWIN-LEAK"), g_strdup_printf ("%s.cpp", name), 0, 1, g_strdup ("a tensor was not freed") },
      { g_strdup ("FW-TWIN-BOUNDS"), g_strdup ("kernel_operator.h"), 12, 1, g_strdup ("in the header") },
    };
    g_autoptr(FwKernelSources) sources = NULL;
    const FwSourceMark *m;

    g_array_append_vals (k->twin->diagnostics, d, G_N_ELEMENTS (d));
    k->twin->pass = FALSE;
    g_assert_cmpuint (fw_check_get_n_failed (check), ==, 1);
    sources = fw_kernel_sources_new_from_kernel (1, k);
    g_assert_cmpuint (fw_kernel_sources_get_n_marks (sources, FW_TARGET_ASCEND), ==, 1);
    g_assert_cmpuint (fw_kernel_sources_get_n_marks (sources, FW_TARGET_HOST), ==, 0);
    m = fw_kernel_sources_get_mark (sources, FW_TARGET_ASCEND, 0);
    g_assert_cmpuint (m->line, ==, 7);
    g_assert_cmpstr (m->text, ==, "FW-TWIN-UNALIGNED: DataCopy to UB offset 40 is not 32-byte aligned");
    fw_check_apply (check);
    {
      g_autoptr(FwCandidateItem) item = g_list_model_get_item (items, k->candidate);
      g_assert_cmpstr (fw_candidate_item_get_twin (item), ==, "fail");
    }
  }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/session/check/progress-threads", test_progress_threads);
  g_test_add ("/core/session/check/blocking", Fixture, NULL, fixture_set_up, test_blocking, fixture_tear_down);
  g_test_add ("/core/session/check/async", Fixture, NULL, fixture_set_up, test_async, fixture_tear_down);
  g_test_add ("/core/session/check/cancel", Fixture, NULL, fixture_set_up, test_cancel, fixture_tear_down);
  g_test_add ("/core/session/check/stale", Fixture, NULL, fixture_set_up, test_stale, fixture_tear_down);
  g_test_add ("/core/session/check/unverified", Fixture, NULL, fixture_set_up, test_unverified, fixture_tear_down);
  g_test_add ("/core/session/check/twin", Fixture, NULL, fixture_set_up, test_twin, fixture_tear_down);
  g_test_add ("/core/session/kernel-sources/async", Fixture, NULL, fixture_set_up, test_sources_async,
              fixture_tear_down);
  return g_test_run ();
}
