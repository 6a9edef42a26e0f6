/* fw-targets.c: code generation for a whole plan. */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "fw-targets.h"
#include "host/fw-host-node-kernel.h"

/* What each target does with a fused candidate: generate its kernel into k, giving the target-neutral view of
 * it, or NULL with the reason. A target that needs more (the host's compile) does it after all are made. */
typedef const FwKernelSource *(*GenerateFunc) (FwPlan *plan, const FwCandidate *candidate, FwTargetKernel *k,
                                               GError **error);

static const FwKernelSource *
generate_host (FwPlan *plan, const FwCandidate *candidate, FwTargetKernel *k, GError **error)
{
  k->host = fw_superkernel_generate (plan, candidate, error);
  return k->host != NULL ? fw_superkernel_get_kernel_source (k->host) : NULL;
}

static const FwKernelSource *
generate_ascend (FwPlan *plan, const FwCandidate *candidate, FwTargetKernel *k, GError **error)
{
  k->ascend = fw_ascend_kernel_generate (plan, candidate, error);
  return k->ascend != NULL ? fw_ascend_kernel_get_kernel_source (k->ascend) : NULL;
}

static const struct
{
  const char   *name;
  GenerateFunc  generate;
} target_table[FW_N_TARGETS] = {
  [FW_TARGET_HOST] = { "host", generate_host },
  [FW_TARGET_ASCEND] = { "ascend", generate_ascend },
};

const char *
fw_target_name (FwTargetId target)
{
  g_return_val_if_fail (target < FW_N_TARGETS, NULL);
  return target_table[target].name;
}

gboolean
fw_target_from_name (const char *name, FwTargetId *out)
{
  for (guint t = 0; t < FW_N_TARGETS; t++)
    if (g_strcmp0 (name, target_table[t].name) == 0)
      {
        *out = (FwTargetId) t;
        return TRUE;
      }
  return FALSE;
}

static gboolean
run_superkernel (gpointer data, FwArray *const *inputs, FwArray **outputs, guint n_threads, GError **error)
{
  return fw_superkernel_run (data, inputs, outputs, n_threads, error);
}

static gboolean
run_superkernel_nhwc (gpointer data, FwArray *const *inputs, FwArray **outputs, gboolean out_nhwc, guint n_threads,
                      GError **error)
{
  return fw_superkernel_run_layout (data, inputs, outputs, out_nhwc, n_threads, error);
}

void
fw_target_kernel_free (FwTargetKernel *k)
{
  g_clear_pointer (&k->host, fw_superkernel_free);
  g_clear_pointer (&k->ascend, fw_ascend_kernel_free);
  g_clear_pointer (&k->twin, fw_twin_check_free);
  g_free (k->group.inputs);
  g_free (k->group.outputs);
  for (guint t = 0; t < FW_N_TARGETS; t++)
    g_free (k->errors[t]);
  g_free (k);
}

void
fw_targets_free (FwTargets *targets)
{
  if (targets == NULL)
    return;
  g_clear_pointer (&targets->node_kernels, g_ptr_array_unref);
  g_clear_pointer (&targets->kernels, g_ptr_array_unref);
  g_clear_pointer (&targets->toolchain, fw_host_toolchain_free);
  g_free (targets->toolchain_error);
  g_free (targets);
}

FwTargetKernel *
fw_target_kernel_generate (FwPlan *plan, guint candidate, const gboolean enabled[FW_N_TARGETS])
{
  FwTargetKernel *k = g_new0 (FwTargetKernel, 1);
  const FwCandidate *c = g_ptr_array_index (plan->candidates, candidate);

  k->candidate = candidate;
  for (guint t = 0; t < FW_N_TARGETS; t++)
    {
      g_autoptr(GError) local = NULL;

      if (!enabled[t])
        continue;
      k->sources[t] = target_table[t].generate (plan, c, k, &local);
      if (k->sources[t] == NULL)
        k->errors[t] = g_strdup (local->message);
    }
  return k;
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
        k->errors[FW_TARGET_HOST] = g_strdup (error->message);
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
  targets->enabled[FW_TARGET_HOST] = host;
  targets->enabled[FW_TARGET_ASCEND] = ascend;
  targets->kernels = g_ptr_array_new_with_free_func ((GDestroyNotify) fw_target_kernel_free);
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
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return NULL;
      k = fw_target_kernel_generate (plan, i, targets->enabled);
      g_ptr_array_add (targets->kernels, k);
      if (k->host != NULL && targets->toolchain == NULL)
        k->errors[FW_TARGET_HOST] = g_strdup (targets->toolchain_error);
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
      /* The pool's threads end now rather than idle for GLib's 15 s. Compiling starts no OpenMP team on
         them (fw_superkernel_compile), but one that did would keep libgomp counting more threads than
         cores until its thread ended, and every parallel region of the runs that follow would wake its
         workers from sleep. */
      g_thread_pool_stop_unused_threads ();
    }
  g_mutex_clear (&build.lock);
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;
  for (guint i = 0; i < targets->kernels->len; i++)
    {
      FwTargetKernel *k = g_ptr_array_index (targets->kernels, i);
      const FwKernelSource *src = k->sources[FW_TARGET_HOST];

      if (!k->host_compiled)
        continue;
      k->group.candidate = k->candidate;
      k->group.n_inputs = fw_kernel_source_get_n_inputs (src);
      k->group.inputs = g_new0 (FwValue *, k->group.n_inputs + 1);
      for (guint j = 0; j < k->group.n_inputs; j++)
        k->group.inputs[j] = fw_kernel_source_get_input (src, j);
      k->group.n_outputs = fw_kernel_source_get_n_outputs (src);
      k->group.outputs = g_new0 (FwValue *, k->group.n_outputs + 1);
      for (guint j = 0; j < k->group.n_outputs; j++)
        k->group.outputs[j] = fw_kernel_source_get_output (src, j);
      k->group.run = run_superkernel;
      k->group.data = k->host;
      if (fw_superkernel_channels_last (k->host, &k->group.nhwc_inputs))
        k->group.run_nhwc = run_superkernel_nhwc;
      k->group.inplace_inputs = fw_superkernel_inplace_inputs (k->host);
      {
        FwValue *a, *b;

        k->group.product_a = k->group.product_b = -1;
        if (fw_superkernel_get_product_order (k->host, &k->group.product_k, &k->group.product_alpha, &a, &b))
          for (guint j = 0; j < k->group.n_inputs; j++)
            {
              if (k->group.inputs[j] == a)
                k->group.product_a = (gint) j;
              if (k->group.inputs[j] == b)
                k->group.product_b = (gint) j;
            }
      }
    }
  if (host)
    {
      g_autoptr(GPtrArray) groups = fw_targets_group_kernels (targets);
      targets->node_kernels = fw_host_node_kernels_new (plan, groups);
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
