/* fw-kernel-sources.c: a candidate's generated host C and Ascend C sources at one plan revision, and
 * generating them off the main thread. */
#include "config.h"

#include "fw-kernel-sources.h"
#include "fw-error.h"
#include "codegen/ascend/fw-ascend.h"
#include "codegen/host/fw-superkernel.h"

struct _FwKernelSources
{
  gatomicrefcount ref;
  guint64         revision;
  char           *host_source;
  char           *host_error;
  char           *ascend_source;
  char           *ascend_error;
};

FwKernelSources *
fw_kernel_sources_new (guint64 revision, const char *host_source, const char *host_error,
                       const char *ascend_source, const char *ascend_error)
{
  FwKernelSources *self = g_new0 (FwKernelSources, 1);

  g_atomic_ref_count_init (&self->ref);
  self->revision = revision;
  self->host_source = g_strdup (host_source);
  self->host_error = g_strdup (host_error);
  self->ascend_source = g_strdup (ascend_source);
  self->ascend_error = g_strdup (ascend_error);
  return self;
}

FwKernelSources *
fw_kernel_sources_generate (FwPlan *plan, const FwCandidate *candidate, guint64 revision)
{
  g_autoptr(GError) host_error = NULL;
  g_autoptr(GError) ascend_error = NULL;
  FwSuperKernel *host;
  FwAscendKernel *ascend;
  FwKernelSources *self;

  g_return_val_if_fail (plan != NULL && candidate != NULL, NULL);

  host = fw_superkernel_generate (plan, candidate, &host_error);
  ascend = fw_ascend_kernel_generate (plan, candidate, &ascend_error);
  self = fw_kernel_sources_new (revision, host ? fw_superkernel_get_source (host) : NULL,
                                host_error ? host_error->message : NULL,
                                ascend ? fw_ascend_kernel_get_source (ascend) : NULL,
                                ascend_error ? ascend_error->message : NULL);
  g_clear_pointer (&host, fw_superkernel_free);
  g_clear_pointer (&ascend, fw_ascend_kernel_free);
  return self;
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
  g_free (sources->host_source);
  g_free (sources->host_error);
  g_free (sources->ascend_source);
  g_free (sources->ascend_error);
  g_free (sources);
}

guint64
fw_kernel_sources_get_revision (const FwKernelSources *sources)
{
  return sources->revision;
}

const char *
fw_kernel_sources_get_host_source (const FwKernelSources *sources)
{
  return sources->host_source;
}

const char *
fw_kernel_sources_get_host_error (const FwKernelSources *sources)
{
  return sources->host_error;
}

const char *
fw_kernel_sources_get_ascend_source (const FwKernelSources *sources)
{
  return sources->ascend_source;
}

const char *
fw_kernel_sources_get_ascend_error (const FwKernelSources *sources)
{
  return sources->ascend_error;
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
