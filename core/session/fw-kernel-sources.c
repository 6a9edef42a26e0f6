/* fw-kernel-sources.c: a candidate's generated host C and Ascend C sources at one plan revision, and
 * generating them off the main thread. */
#include "config.h"

#include "fw-kernel-sources.h"
#include "fw-error.h"

struct _FwKernelSources
{
  gatomicrefcount ref;
  guint64         revision;
  char           *sources[FW_N_TARGETS];  /* the kernel's own file, per target */
  char           *errors[FW_N_TARGETS];
  GArray         *marks[FW_N_TARGETS];    /* FwSourceMark, or NULL: none */
};

FwKernelSources *
fw_kernel_sources_new (guint64 revision)
{
  FwKernelSources *self = g_new0 (FwKernelSources, 1);

  g_atomic_ref_count_init (&self->ref);
  self->revision = revision;
  return self;
}

void
fw_kernel_sources_set (FwKernelSources *sources, FwTargetId target, const char *source, const char *error)
{
  g_return_if_fail (target < FW_N_TARGETS);
  g_free (sources->sources[target]);
  g_free (sources->errors[target]);
  sources->sources[target] = g_strdup (source);
  sources->errors[target] = g_strdup (error);
}

static void
clear_mark (gpointer data)
{
  g_free (((FwSourceMark *) data)->text);
}

void
fw_kernel_sources_add_mark (FwKernelSources *sources, FwTargetId target, guint line, const char *text)
{
  FwSourceMark mark = { line, g_strdup (text) };

  g_return_if_fail (target < FW_N_TARGETS && line > 0);
  if (sources->marks[target] == NULL)
    {
      sources->marks[target] = g_array_new (FALSE, FALSE, sizeof (FwSourceMark));
      g_array_set_clear_func (sources->marks[target], clear_mark);
    }
  g_array_append_val (sources->marks[target], mark);
}

guint
fw_kernel_sources_get_n_marks (const FwKernelSources *sources, FwTargetId target)
{
  g_return_val_if_fail (target < FW_N_TARGETS, 0);
  return sources->marks[target] ? sources->marks[target]->len : 0;
}

const FwSourceMark *
fw_kernel_sources_get_mark (const FwKernelSources *sources, FwTargetId target, guint index)
{
  g_return_val_if_fail (index < fw_kernel_sources_get_n_marks (sources, target), NULL);
  return &g_array_index (sources->marks[target], FwSourceMark, index);
}

/* The twin's diagnostics that name a line of the kernel's own file (the one shown); those about the run as
 * a whole (line 0) or about a header stay in the verification text only. */
static void
add_twin_marks (FwKernelSources *self, const FwTargetKernel *kernel)
{
  const FwKernelSource *src = kernel->sources[FW_TARGET_ASCEND];
  g_autofree char *name = NULL;

  if (kernel->twin == NULL || src == NULL)
    return;
  /* The name the twin compiles the kernel under (fw-ascend-twin.c), so its #line names it. */
  name = g_strdup_printf ("%s.cpp", fw_kernel_source_get_name (src));
  for (guint i = 0; i < kernel->twin->diagnostics->len; i++)
    {
      const FwTwinDiagnostic *d = &g_array_index (kernel->twin->diagnostics, FwTwinDiagnostic, i);
      g_autofree char *text = NULL;

      if (d->line <= 0 || d->file == NULL || g_strcmp0 (name, d->file) != 0)
        continue;
      text = g_strdup_printf ("%s: %s", d->code, d->message);
      fw_kernel_sources_add_mark (self, FW_TARGET_ASCEND, (guint) d->line, text);
    }
}

FwKernelSources *
fw_kernel_sources_new_from_kernel (guint64 revision, const FwTargetKernel *kernel)
{
  FwKernelSources *self = fw_kernel_sources_new (revision);

  for (guint t = 0; t < FW_N_TARGETS; t++)
    fw_kernel_sources_set (self, t, kernel->sources[t] ? fw_kernel_source_get_main (kernel->sources[t]) : NULL,
                           kernel->errors[t]);
  add_twin_marks (self, kernel);
  return self;
}

FwKernelSources *
fw_kernel_sources_generate (FwPlan *plan, const FwCandidate *candidate, guint64 revision)
{
  static const gboolean every[FW_N_TARGETS] = { [FW_TARGET_HOST] = TRUE, [FW_TARGET_ASCEND] = TRUE };
  g_autoptr(FwTargetKernel) kernel = NULL;

  g_return_val_if_fail (plan != NULL && candidate != NULL, NULL);
  kernel = fw_target_kernel_generate (plan, candidate->index, every);
  return fw_kernel_sources_new_from_kernel (revision, kernel);
}

FwKernelSources *
fw_kernel_sources_ref (FwKernelSources *sources)
{
  g_return_val_if_fail (sources != NULL, NULL);
  g_atomic_ref_count_inc (&sources->ref);
  return sources;
}

void
fw_kernel_sources_unref (FwKernelSources *sources)
{
  if (sources == NULL || !g_atomic_ref_count_dec (&sources->ref))
    return;
  for (guint t = 0; t < FW_N_TARGETS; t++)
    {
      g_free (sources->sources[t]);
      g_free (sources->errors[t]);
      if (sources->marks[t] != NULL)
        g_array_unref (sources->marks[t]);
    }
  g_free (sources);
}

guint64
fw_kernel_sources_get_revision (const FwKernelSources *sources)
{
  return sources->revision;
}

const char *
fw_kernel_sources_get_source (const FwKernelSources *sources, FwTargetId target)
{
  g_return_val_if_fail (target < FW_N_TARGETS, NULL);
  return sources->sources[target];
}

const char *
fw_kernel_sources_get_error (const FwKernelSources *sources, FwTargetId target)
{
  g_return_val_if_fail (target < FW_N_TARGETS, NULL);
  return sources->errors[target];
}

/* The async form */

typedef struct
{
  guint    candidate;
  guint64  revision;
} Job;

static void
generate_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  FwProject *project = source;
  Job *job = task_data;
  FwPlan *plan = fw_project_get_plan (project);
  FwKernelSources *sources;

  sources = fw_kernel_sources_generate (plan, g_ptr_array_index (plan->candidates, job->candidate),
                                        job->revision);
  /* Released here, not in the callback: a decision may be waiting for it on the main thread. */
  fw_project_release_plan (project);
  g_task_return_pointer (task, sources, (GDestroyNotify) fw_kernel_sources_unref);
}

void
fw_kernel_sources_generate_async (FwProject *project, guint candidate, GCancellable *cancellable,
                                  GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr(GTask) task = NULL;
  FwPlan *plan;
  Job *job;

  g_return_if_fail (FW_IS_PROJECT (project));

  task = g_task_new (project, cancellable, callback, user_data);
  g_task_set_source_tag (task, fw_kernel_sources_generate_async);
  plan = fw_project_get_plan (project);
  if (candidate >= plan->candidates->len)
    {
      g_task_return_new_error (task, FW_ERROR, FW_ERROR_INTERNAL, "no candidate %u", candidate);
      return;
    }
  job = g_new0 (Job, 1);
  job->candidate = candidate;
  job->revision = fw_project_get_revision (project);
  g_task_set_task_data (task, job, g_free);
  fw_project_hold_plan (project);
  g_task_run_in_thread (task, generate_thread);
}

FwKernelSources *
fw_kernel_sources_generate_finish (FwProject *project, GAsyncResult *result, GError **error)
{
  FwKernelSources *sources;

  g_return_val_if_fail (g_task_is_valid (result, project), NULL);

  sources = g_task_propagate_pointer (G_TASK (result), error);
  if (sources != NULL && sources->revision == fw_project_get_revision (project))
    {
      Job *job = g_task_get_task_data (G_TASK (result));
      fw_project_set_kernel_sources (project, job->candidate, sources);
    }
  return sources;
}
