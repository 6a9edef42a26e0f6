/* fw-targets.c: code generation for a whole plan. */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "fw-targets.h"

gboolean
fw_candidate_is_fused (const FwCandidate *candidate)
{
  return candidate->status == FW_CANDIDATE_PROPOSED || candidate->status == FW_CANDIDATE_ACCEPTED;
}

static gboolean
run_superkernel (gpointer data, FwArray *const *inputs, FwArray **outputs, guint n_threads, GError **error)
{
  return fw_superkernel_run (data, inputs, outputs, n_threads, error);
}

static void
target_kernel_free (FwTargetKernel *k)
{
  g_clear_pointer (&k->host, fw_superkernel_free);
  g_clear_pointer (&k->ascend, fw_ascend_kernel_free);
  g_free (k->group.inputs);
  g_free (k->group.outputs);
  g_free (k->host_error);
  g_free (k->ascend_error);
  g_free (k);
}

void
fw_targets_free (FwTargets *targets)
{
  if (targets == NULL)
    return;
  g_clear_pointer (&targets->kernels, g_ptr_array_unref);
  g_clear_pointer (&targets->toolchain, fw_host_toolchain_free);
  g_free (targets->toolchain_error);
  g_free (targets);
}

typedef struct
{
  FwTargets        *targets;
  GCancellable     *cancellable;
  FwTargetsProgress progress;
  gpointer          progress_data;
  GMutex            lock;
  guint             done;
  guint             total;
} Build;

static void
report (Build *build, gboolean one_more)
{
  guint done, total;

  if (build->progress == NULL)
    return;
  g_mutex_lock (&build->lock);
  build->done += one_more;
  done = build->done;
  total = build->total;
  g_mutex_unlock (&build->lock);
  build->progress (done, total, build->progress_data);
}

static void
compile_one (gpointer data, gpointer user_data)
{
  FwTargetKernel *k = data;
  Build *build = user_data;
  g_autoptr(GError) error = NULL;

  /* A cancel skips the kernels still queued; the ones compiling finish (the compiler is not interrupted). */
  if (!g_cancellable_is_cancelled (build->cancellable))
    {
      if (fw_superkernel_compile (k->host, build->targets->toolchain, &error))
        k->host_compiled = TRUE;
      else
        k->host_error = g_strdup (error->message);
    }
  report (build, TRUE);
}

FwTargets *
fw_targets_build (FwPlan *plan, gboolean host, gboolean ascend, const char *cache_dir, GCancellable *cancellable,
                  GError **error)
{
  return fw_targets_build_full (plan, host, ascend, cache_dir, NULL, NULL, cancellable, error);
}

FwTargets *
fw_targets_build_full (FwPlan *plan, gboolean host, gboolean ascend, const char *cache_dir,
                       FwTargetsProgress progress, gpointer progress_data, GCancellable *cancellable,
                       GError **error)
{
  g_autoptr(FwTargets) targets = g_new0 (FwTargets, 1);
  g_autoptr(GError) local = NULL;
  Build build = { 0 };

  targets->plan = plan;
  targets->host = host;
  targets->ascend = ascend;
  targets->kernels = g_ptr_array_new_with_free_func ((GDestroyNotify) target_kernel_free);
  if (host)
    {
      targets->toolchain = fw_host_toolchain_new (cache_dir, &local);
      if (targets->toolchain == NULL)
        targets->toolchain_error = g_strdup (local->message);
      g_clear_error (&local);
    }
  for (guint i = 0; i < plan->candidates->len; i++)
    {
      FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      FwTargetKernel *k;

      if (!fw_candidate_is_fused (c))
        continue;
      k = g_new0 (FwTargetKernel, 1);
      k->candidate = i;
      g_ptr_array_add (targets->kernels, k);
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return NULL;
      if (host)
        {
          k->host = fw_superkernel_generate (plan, c, &local);
          if (k->host == NULL)
            {
              k->host_error = g_strdup (local->message);
              g_clear_error (&local);
            }
          else if (targets->toolchain == NULL)
            k->host_error = g_strdup (targets->toolchain_error);
        }
      if (ascend)
        {
          k->ascend = fw_ascend_kernel_generate (plan, c, &local);
          if (k->ascend == NULL)
            {
              k->ascend_error = g_strdup (local->message);
              g_clear_error (&local);
            }
        }
    }
  build.targets = targets;
  build.cancellable = cancellable;
  build.progress = progress;
  build.progress_data = progress_data;
  g_mutex_init (&build.lock);
  if (host && targets->toolchain != NULL)
    {
      /* One compiler per core: a cold cache on resnet50 is dozens of kernels. */
      GThreadPool *pool = g_thread_pool_new (compile_one, &build, MAX (1u, g_get_num_processors ()), FALSE, NULL);

      for (guint i = 0; i < targets->kernels->len; i++)
        build.total += ((FwTargetKernel *) g_ptr_array_index (targets->kernels, i))->host != NULL;
      report (&build, FALSE);
      for (guint i = 0; i < targets->kernels->len; i++)
        {
          FwTargetKernel *k = g_ptr_array_index (targets->kernels, i);
          if (k->host != NULL)
            g_thread_pool_push (pool, k, NULL);
        }
      g_thread_pool_free (pool, FALSE, TRUE);
    }
  g_mutex_clear (&build.lock);
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;
  for (guint i = 0; i < targets->kernels->len; i++)
    {
      FwTargetKernel *k = g_ptr_array_index (targets->kernels, i);

      if (!k->host_compiled)
        continue;
      k->group.candidate = k->candidate;
      k->group.n_inputs = fw_superkernel_get_n_inputs (k->host);
      k->group.inputs = g_new0 (FwValue *, k->group.n_inputs + 1);
      for (guint j = 0; j < k->group.n_inputs; j++)
        k->group.inputs[j] = fw_superkernel_get_input (k->host, j);
      k->group.n_outputs = fw_superkernel_get_n_outputs (k->host);
      k->group.outputs = g_new0 (FwValue *, k->group.n_outputs + 1);
      for (guint j = 0; j < k->group.n_outputs; j++)
        k->group.outputs[j] = fw_superkernel_get_output (k->host, j);
      k->group.run = run_superkernel;
      k->group.data = k->host;
    }
  return g_steal_pointer (&targets);
}

GPtrArray *
fw_targets_group_kernels (FwTargets *targets)
{
  GPtrArray *out = g_ptr_array_new ();

  for (guint i = 0; i < targets->kernels->len; i++)
    {
      FwTargetKernel *k = g_ptr_array_index (targets->kernels, i);
      if (k->host_compiled)
        g_ptr_array_add (out, &k->group);
    }
  return out;
}

GPtrArray *
fw_targets_host_by_candidate (FwTargets *targets)
{
  GPtrArray *out = g_ptr_array_new ();

  g_ptr_array_set_size (out, targets->plan->candidates->len);
  for (guint i = 0; i < targets->kernels->len; i++)
    {
      FwTargetKernel *k = g_ptr_array_index (targets->kernels, i);
      if (k->host != NULL)
        out->pdata[k->candidate] = k->host;
    }
  return out;
}
