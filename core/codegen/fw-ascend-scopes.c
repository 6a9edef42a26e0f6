/* fw-ascend-scopes.c: every scope's Ascend SuperKernel over a targets build (fw-ascend-scopes.h). */
#include "config.h"

#include "fw-ascend-scopes.h"

static FwAscendKernel *
lookup (guint candidate, gpointer data)
{
  const FwTargets *targets = data;

  for (guint i = 0; i < targets->kernels->len; i++)
    {
      FwTargetKernel *k = g_ptr_array_index (targets->kernels, i);
      if (k->candidate == candidate)
        return k->ascend;
    }
  return NULL;
}

GPtrArray *
fw_ascend_scopes_generate (const FwTargets *targets, const FwSkPlan *sk, GError **error)
{
  g_autoptr(GPtrArray) scopes = g_ptr_array_new_with_free_func ((GDestroyNotify) fw_ascend_scope_free);

  g_return_val_if_fail (targets != NULL && sk != NULL, NULL);
  if (!targets->enabled[FW_TARGET_ASCEND])
    return g_steal_pointer (&scopes);
  for (guint i = 0; i < sk->scopes->len; i++)
    {
      FwAscendScope *scope = fw_ascend_scope_generate (targets->plan, sk, i, lookup, (gpointer) targets, error);
      if (scope == NULL)
        return NULL;
      g_ptr_array_add (scopes, scope);
    }
  return g_steal_pointer (&scopes);
}
