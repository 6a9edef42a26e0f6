/* fw-check.c: compile, verify and measure a project's plan off the main thread. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-check.h"
#include "fw-error.h"
#include "codegen/fw-ascend-scopes.h"
#include "fw-kernel-sources.h"
#include "io/fw-progress.h"

/* Shares of the progress bar: compiling dominates a cold cache; verifying runs the model twice. */
#define COMPILE_SHARE 0.6

struct _FwCheck
{
  GObject          parent_instance;
  FwProject       *project;
  FwCheckOptions   options;
  char            *cache_dir;
  guint64          revision;
  FwProgress       progress;
  GMainContext    *context;     /* where progress goes while an async run is on */
  FwTargets       *targets;
  FwVerifyResult  *verify;
  FwMeasureResult *measure;
  GPtrArray       *scopes;      /* FwAscendScope*, one per scope of options.superkernel, or NULL */
  GPtrArray       *scope_twin;  /* FwTwinCheck*, the same, or NULL */
};

G_DEFINE_FINAL_TYPE (FwCheck, fw_check, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_FRACTION,
  PROP_MESSAGE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

void
fw_check_options_init (FwCheckOptions *options)
{
  memset (options, 0, sizeof *options);
  options->host = options->ascend = options->verify = TRUE;
}

static void
clear_results (FwCheck *self)
{
  g_clear_pointer (&self->verify, fw_verify_result_free);
  g_clear_pointer (&self->measure, fw_measure_result_free);
  g_clear_pointer (&self->scope_twin, g_ptr_array_unref);
  g_clear_pointer (&self->scopes, g_ptr_array_unref);
  g_clear_pointer (&self->targets, fw_targets_free);
}

static void
fw_check_finalize (GObject *object)
{
  FwCheck *self = FW_CHECK (object);

  clear_results (self);
  g_clear_object (&self->project);
  g_clear_pointer (&self->cache_dir, g_free);
  g_clear_pointer (&self->context, g_main_context_unref);
  fw_progress_clear (&self->progress);
  G_OBJECT_CLASS (fw_check_parent_class)->finalize (object);
}

static void
fw_check_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  FwCheck *self = FW_CHECK (object);

  if (!fw_progress_get_property (&self->progress, pspec, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
fw_check_class_init (FwCheckClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = fw_check_finalize;
  object_class->get_property = fw_check_get_property;
  fw_progress_pspecs (&properties[PROP_FRACTION], &properties[PROP_MESSAGE]);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
fw_check_init (FwCheck *self)
{
  fw_progress_init (&self->progress, properties[PROP_FRACTION], properties[PROP_MESSAGE]);
}

FwCheck *
fw_check_new (FwProject *project, const FwCheckOptions *options)
{
  FwCheck *self;

  g_return_val_if_fail (FW_IS_PROJECT (project), NULL);

  self = g_object_new (FW_TYPE_CHECK, NULL);
  self->project = g_object_ref (project);
  if (options != NULL)
    self->options = *options;
  else
    fw_check_options_init (&self->options);
  self->cache_dir = g_strdup (self->options.cache_dir);
  self->options.cache_dir = self->cache_dir;
  return self;
}

FwProject *
fw_check_get_project (FwCheck *self)
{
  g_return_val_if_fail (FW_IS_CHECK (self), NULL);
  return self->project;
}

gdouble
fw_check_get_fraction (FwCheck *self)
{
  g_return_val_if_fail (FW_IS_CHECK (self), 0.0);
  return self->progress.fraction;
}

const char *
fw_check_get_message (FwCheck *self)
{
  g_return_val_if_fail (FW_IS_CHECK (self), NULL);
  return self->progress.message;
}

guint64
fw_check_get_revision (FwCheck *self)
{
  g_return_val_if_fail (FW_IS_CHECK (self), 0);
  return self->revision;
}

FwTargets *
fw_check_get_targets (FwCheck *self)
{
  g_return_val_if_fail (FW_IS_CHECK (self), NULL);
  return self->targets;
}

FwVerifyResult *
fw_check_get_verify (FwCheck *self)
{
  g_return_val_if_fail (FW_IS_CHECK (self), NULL);
  return self->verify;
}

FwMeasureResult *
fw_check_get_measure (FwCheck *self)
{
  g_return_val_if_fail (FW_IS_CHECK (self), NULL);
  return self->measure;
}

GPtrArray *
fw_check_get_scope_twin (FwCheck *self)
{
  g_return_val_if_fail (FW_IS_CHECK (self), NULL);
  return self->scope_twin;
}

static void
report (FwCheck *self, gdouble fraction, const char *message)
{
  fw_progress_report (G_OBJECT (self), &self->progress, self->context, fraction, message);
}

static void
on_compiled (guint done, guint total, gpointer data)
{
  FwCheck *self = data;
  /* TRANSLATORS: %u of %u SuperKernels compiled so far */
  g_autofree char *message = g_strdup_printf (_("Compiling SuperKernels (%u of %u)…"), done, total);

  report (self, total > 0 ? COMPILE_SHARE * done / total : COMPILE_SHARE, message);
}

/* What verification's reference run hands the twin: each Ascend kernel runs on the reference values of its
 * boundary and is compared with the reference's outputs. Kernels compile and run in parallel (each is a
 * compiler and then a child process); each worker fills only its own kernel's result. */
typedef struct
{
  FwCheck         *self;
  FwPlan          *plan;
  FwHostToolchain *toolchain;
  GCancellable    *cancellable;
  FwAscendTwin    *twin;
  const char      *why;
  GHashTable      *values;
  guint            total;
  gint             done;
} TwinJob;

static void
twin_one (gpointer data, gpointer user_data)
{
  FwTargetKernel *k = data;
  TwinJob *job = user_data;
  FwCheck *self = job->self;
  g_autofree char *message = NULL;
  guint done;

  if (g_cancellable_is_cancelled (job->cancellable))
    return;
  /* Judged as host verification judges the group: under golden (a half model by default) by the golden rule. */
  k->twin = fw_ascend_twin_check_policy (job->twin, k->ascend, job->plan->profile, job->values,
                                         self->options.has_tolerance ? &self->options.tolerance : NULL, job->why,
                                         g_ptr_array_index (job->plan->candidates, k->candidate),
                                         fw_verify_golden_dtype (fw_model_get_graph (job->plan->model),
                                                                 self->options.verify_policy));
  done = (guint) g_atomic_int_add (&job->done, 1) + 1;
  /* TRANSLATORS: %u of %u Ascend kernels run on the twin so far */
  message = g_strdup_printf (_("Running Ascend kernels on the twin (%u of %u)…"), done, job->total);
  report (self, COMPILE_SHARE, message);
}

/* Each scope's SuperKernel after the kernels: its blocks are threads already, one scope at a time. */
static void
run_scopes_on_twin (TwinJob *job, FwAscendTwin *twin)
{
  FwCheck *self = job->self;

  if (self->scopes == NULL)
    return;
  self->scope_twin = g_ptr_array_new_with_free_func ((GDestroyNotify) fw_twin_check_free);
  for (guint i = 0; i < self->scopes->len; i++)
    {
      /* TRANSLATORS: %u of %u SuperKernel scopes run on the twin so far */
      g_autofree char *message = g_strdup_printf (_("Running SuperKernel scopes on the twin (%u of %u)…"), i,
                                                  self->scopes->len);

      report (self, COMPILE_SHARE, message);
      g_ptr_array_add (self->scope_twin,
                       g_cancellable_is_cancelled (job->cancellable)
                         ? fw_twin_check_new_error (_("cancelled"))
                         : fw_ascend_twin_check_scope (twin, g_ptr_array_index (self->scopes, i), job->plan->profile,
                                                       job->values,
                                                       self->options.has_tolerance ? &self->options.tolerance : NULL,
                                                       0, job->why));
    }
}

static void
run_on_twin (GHashTable *values, gpointer data)
{
  TwinJob *job = data;
  FwCheck *self = job->self;
  g_autoptr(GError) local = NULL;
  g_autoptr(FwAscendTwin) twin = job->toolchain ? fw_ascend_twin_new (job->toolchain, &local) : NULL;
  guint threads = self->options.n_threads ? self->options.n_threads : g_get_num_processors ();
  GThreadPool *pool = g_thread_pool_new (twin_one, job, MAX (1u, threads), FALSE, NULL);

  job->twin = twin;
  job->why = local ? local->message : _("no compiler for the Ascend C twin");
  job->values = values;
  for (guint i = 0; i < self->targets->kernels->len; i++)
    job->total += ((FwTargetKernel *) g_ptr_array_index (self->targets->kernels, i))->ascend != NULL;
  for (guint i = 0; i < self->targets->kernels->len; i++)
    {
      FwTargetKernel *k = g_ptr_array_index (self->targets->kernels, i);
      if (k->ascend != NULL)
        g_thread_pool_push (pool, k, NULL);
    }
  g_thread_pool_free (pool, FALSE, TRUE);
  run_scopes_on_twin (job, twin);
  job->twin = NULL;
}

/* The Ascend kernels' inputs and outputs, for the reference run to keep. */
static GPtrArray *
twin_values (FwTargets *targets)
{
  GPtrArray *keep = g_ptr_array_new ();

  for (guint i = 0; i < targets->kernels->len; i++)
    {
      FwTargetKernel *k = g_ptr_array_index (targets->kernels, i);
      const FwKernelSource *src = k->ascend ? fw_ascend_kernel_get_kernel_source (k->ascend) : NULL;

      for (guint j = 0; src && j < fw_kernel_source_get_n_inputs (src); j++)
        g_ptr_array_add (keep, fw_kernel_source_get_input (src, j));
      for (guint j = 0; src && j < fw_kernel_source_get_n_outputs (src); j++)
        g_ptr_array_add (keep, fw_kernel_source_get_output (src, j));
    }
  return keep;
}

gboolean
fw_check_run (FwCheck *self, GCancellable *cancellable, GError **error)
{
  FwPlan *plan;
  g_autoptr(GPtrArray) kernels = NULL;
  gdouble verify_end;

  g_return_val_if_fail (FW_IS_CHECK (self), FALSE);

  clear_results (self);
  plan = fw_project_get_plan (self->project);
  self->revision = fw_project_get_revision (self->project);
  fw_progress_begin (G_OBJECT (self), &self->progress, self->context, _("Generating SuperKernels…"));
  self->targets = fw_targets_build_full (plan, self->options.host, self->options.ascend, self->options.cache_dir,
                                         on_compiled, self, cancellable, error);
  if (self->targets == NULL)
    return FALSE;
  kernels = fw_targets_group_kernels (self->targets);
  verify_end = self->options.measure ? 0.8 : 1.0;
  report (self, COMPILE_SHARE, _("Verifying against the unfused model…"));
  if (self->options.verify && (kernels->len > 0 || self->options.without_kernels))
    {
      FwVerifyOptions vopts = { 0 };
      g_autoptr(GPtrArray) keep = NULL;
      g_autoptr(FwHostToolchain) own_toolchain = NULL;
      TwinJob job = { self, plan, self->targets->toolchain, cancellable, NULL, NULL, NULL, 0, 0 };

      if (self->options.twin && self->options.ascend)
        {
          if (job.toolchain == NULL)
            job.toolchain = own_toolchain = fw_host_toolchain_new (self->options.cache_dir, NULL);
          keep = twin_values (self->targets);
          if (self->options.superkernel != NULL &&
              !(self->scopes = fw_ascend_scopes_generate (self->targets, self->options.superkernel, error)))
            return FALSE;
          for (guint i = 0; self->scopes != NULL && i < self->scopes->len; i++)
            {
              const FwKernelSource *src = fw_ascend_scope_get_kernel_source (g_ptr_array_index (self->scopes, i));

              for (guint j = 0; j < fw_kernel_source_get_n_inputs (src); j++)
                g_ptr_array_add (keep, fw_kernel_source_get_input (src, j));
              for (guint j = 0; j < fw_kernel_source_get_n_outputs (src); j++)
                g_ptr_array_add (keep, fw_kernel_source_get_output (src, j));
            }
          vopts.also_keep = keep;
          vopts.on_reference = run_on_twin;
          vopts.on_reference_data = &job;
        }
      vopts.seed = self->options.seed;
      vopts.has_tolerance = self->options.has_tolerance;
      vopts.tolerance = self->options.tolerance;
      vopts.policy = self->options.verify_policy;
      vopts.n_threads = self->options.n_threads;
      vopts.cancellable = cancellable;
      vopts.node_kernels = self->targets->node_kernels;
      self->verify = fw_verify_run (plan, kernels, &vopts, error);
      if (self->verify == NULL)
        return FALSE;
    }
  report (self, verify_end, NULL);
  if (self->options.measure && (kernels->len > 0 || self->options.without_kernels))
    {
      FwMeasureOptions mopts = { 0 };

      report (self, verify_end, _("Measuring SuperKernels and the whole model…"));
      mopts.seed = self->options.seed;
      mopts.repeats = self->options.repeats;
      mopts.n_threads = self->options.n_threads;
      mopts.cancellable = cancellable;
      mopts.node_kernels = self->targets->node_kernels;
      self->measure = fw_measure_run (plan, kernels, &mopts, error);
      if (self->measure == NULL)
        return FALSE;
    }
  report (self, 1.0, _("Check finished"));
  return TRUE;
}

static const FwGroupCheck *
group_check_for (FwCheck *self, guint candidate)
{
  for (guint i = 0; self->verify != NULL && i < self->verify->groups->len; i++)
    {
      const FwGroupCheck *g = &g_array_index (self->verify->groups, FwGroupCheck, i);
      if (g->candidate == candidate)
        return g;
    }
  return NULL;
}

static const FwKernelTiming *
timing_for (FwCheck *self, guint candidate)
{
  for (guint i = 0; self->measure != NULL && i < self->measure->kernels->len; i++)
    {
      const FwKernelTiming *t = &g_array_index (self->measure->kernels, FwKernelTiming, i);
      if (t->candidate == candidate)
        return t;
    }
  return NULL;
}

static void
append_compare (GString *text, const char *what, const FwCompare *c, const FwTolerance *tol)
{
  /* TRANSLATORS: "%s" is "Isolated" or "In the model"; then errors, the tolerance and how many elements
   * were outside it */
  g_string_append_printf (text, _("%s: %s; max abs error %.3g, max rel error %.3g (tolerance rel %.3g, abs %.3g); "
                                  "%" PRId64 " of %" PRId64 " elements outside\n"),
                          what, c->pass ? _("pass") : _("FAIL"), c->max_abs, c->max_rel, tol->rel, tol->abs,
                          c->n_failed, c->n_elements);
  if (c->nan_mismatch)
    g_string_append_printf (text, "  %s\n", _("NaN in one result and not in the other"));
}

/* The Ascend kernel on the twin: the verdict, the figures, each diagnostic at its kernel line. */
static void
append_twin (GString *text, const FwTwinCheck *t)
{
  if (!t->ran)
    {
      g_string_append_printf (text, _("On the Ascend C twin: not run: %s\n"), t->error ? t->error : "");
      return;
    }
  /* TRANSLATORS: pass or FAIL, then the cosine similarity and the errors against the reference */
  g_string_append_printf (text, _("On the Ascend C twin: %s; cosine %.6f, max abs error %.3g, max rel error %.3g\n"),
                          t->pass ? _("pass") : _("FAIL"), t->cosine, t->max_abs, t->max_rel);
  for (guint i = 0; i < t->diagnostics->len; i++)
    {
      const FwTwinDiagnostic *d = &g_array_index (t->diagnostics, FwTwinDiagnostic, i);
      g_string_append_printf (text, "  %s %s:%d: %s\n", d->code, d->file, d->line, d->message);
    }
}

static char *
detail_for (FwCheck *self, const FwTargetKernel *k, const char **result)
{
  GString *text = g_string_new (NULL);
  const FwGroupCheck *g = group_check_for (self, k->candidate);
  const FwKernelTiming *t = timing_for (self, k->candidate);

  *result = "unverified";
  if (k->host_compiled)
    g_string_append_printf (text, "%s\n", _("Host SuperKernel: compiled"));
  else
    g_string_append_printf (text, _("Host SuperKernel: not compiled: %s\n"),
                            k->errors[FW_TARGET_HOST] ? k->errors[FW_TARGET_HOST] : _("no code generated"));
  if (k->ascend != NULL)
    g_string_append_printf (text, "%s\n", _("Ascend C kernel: generated"));
  else if (k->errors[FW_TARGET_ASCEND] != NULL)
    g_string_append_printf (text, _("Ascend C kernel: not generated: %s\n"), k->errors[FW_TARGET_ASCEND]);
  if (k->twin != NULL)
    append_twin (text, k->twin);
  if (g != NULL)
    {
      *result = g->pass ? "pass" : "fail";
      append_compare (text, _("Isolated"), &g->isolated, &g->tolerance);
      append_compare (text, _("In the model"), &g->in_model, &g->tolerance);
      if (self->verify != NULL && self->verify->policy == FW_VERIFY_POLICY_GOLDEN)
        /* TRANSLATORS: the golden run is the group computed in a wider type; "%s" is that type */
        g_string_append_printf (text, _("Against the golden run (%s): unfused max abs error %.3g, cosine %.6f; "
                                        "fused max abs error %.3g, cosine %.6f\n"),
                                fw_dtype_name (self->verify->golden), g->unfused_golden.max_abs,
                                g->unfused_golden.cosine, g->fused_golden.max_abs, g->fused_golden.cosine);
      if (self->verify != NULL)
        g_string_append_printf (text, _("Inputs drawn with seed %" PRIu64 "\n"), self->verify->seed);
    }
  else
    g_string_append_printf (text, "%s\n", _("Not verified: the group ran on the reference kernels"));
  if (t != NULL)
    g_string_append_printf (text, _("SuperKernel %.1f µs, its ops unfused %.1f µs: measured speed-up %.2f×, "
                                    "predicted %.2f×\n"),
                            t->kernel_s * 1e6, t->reference_s * 1e6, t->measured_speedup, t->predicted_speedup);
  if (text->len > 0 && text->str[text->len - 1] == '\n')
    g_string_truncate (text, text->len - 1);
  return g_string_free (text, FALSE);
}

guint
fw_check_get_n_failed (FwCheck *self)
{
  guint n = 0;

  g_return_val_if_fail (FW_IS_CHECK (self), 0);
  for (guint i = 0; self->targets != NULL && i < self->targets->kernels->len; i++)
    {
      const FwTargetKernel *k = g_ptr_array_index (self->targets->kernels, i);
      const FwGroupCheck *g = group_check_for (self, k->candidate);

      n += g == NULL || !g->pass || (k->twin != NULL && !k->twin->pass);
    }
  return n;
}

/* The list's word for the Ascend kernel on the twin; NULL: the check did not run it there. */
static const char *
twin_result (const FwTargetKernel *k)
{
  if (k->twin == NULL)
    return NULL;
  if (!k->twin->ran)
    return "not-run";
  return k->twin->pass ? "pass" : "fail";
}

/* What the check generated for a candidate, kept in the project for the inspector. */
static FwKernelSources *
sources_of (FwCheck *self, const FwTargetKernel *k)
{
  return fw_kernel_sources_new_from_kernel (self->revision, k);
}

void
fw_check_apply (FwCheck *self)
{
  g_return_if_fail (FW_IS_CHECK (self));

  /* A plan changed since the run has other candidates under the same indices. */
  if (self->targets == NULL || self->revision != fw_project_get_revision (self->project))
    return;
  for (guint i = 0; i < self->targets->kernels->len; i++)
    {
      const FwTargetKernel *k = g_ptr_array_index (self->targets->kernels, i);
      const FwKernelTiming *t = timing_for (self, k->candidate);
      const char *result = NULL;
      g_autofree char *detail = detail_for (self, k, &result);
      g_autoptr(FwKernelSources) sources = sources_of (self, k);

      fw_project_set_verification (self->project, k->candidate, result);
      fw_project_set_twin (self->project, k->candidate, twin_result (k));
      if (t != NULL)
        fw_project_set_measured (self->project, k->candidate, (t->reference_s - t->kernel_s) * 1e6);
      fw_project_set_kernel_sources (self->project, k->candidate, sources);
      fw_project_set_check_detail (self->project, k->candidate, detail);
    }
}

/* The async form */

static void
run_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  FwCheck *self = source;
  GError *error = NULL;

  if (fw_check_run (self, cancellable, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

/* Back in the caller's context: the project may change again, and gets the results. */
static void
on_run_done (GObject *object, GAsyncResult *result, gpointer user_data)
{
  FwCheck *self = FW_CHECK (object);
  g_autoptr(GTask) outer = user_data;
  GError *error = NULL;

  g_clear_pointer (&self->context, g_main_context_unref);
  fw_project_set_busy (self->project, FALSE);
  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      g_task_return_error (outer, error);
      return;
    }
  fw_check_apply (self);
  g_task_return_boolean (outer, TRUE);
}

void
fw_check_run_async (FwCheck *self, GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GTask *outer;
  g_autoptr(GTask) inner = NULL;

  g_return_if_fail (FW_IS_CHECK (self));

  outer = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (outer, fw_check_run_async);
  if (fw_project_get_busy (self->project))
    {
      g_task_return_new_error (outer, FW_ERROR, FW_ERROR_USAGE, "%s",
                               _("another task is running on this model; wait for it or cancel it"));
      g_object_unref (outer);
      return;
    }
  fw_project_set_busy (self->project, TRUE);
  self->context = g_main_context_ref_thread_default ();
  inner = g_task_new (self, cancellable, on_run_done, outer);
  g_task_set_return_on_cancel (inner, FALSE);
  g_task_run_in_thread (inner, run_thread);
}

gboolean
fw_check_run_finish (FwCheck *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}
