/* fw-host-tuning.c: the OpenBLAS core type, set before OpenBLAS is opened (fw-blas.c). */
#include "config.h"

#include "hw/fw-host-tuning.h"

const char *
fw_host_tuning_blas_core (void)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init ();
  if (__builtin_cpu_supports ("avx512f") && __builtin_cpu_supports ("avx512bw") &&
      __builtin_cpu_supports ("avx512vl") && __builtin_cpu_supports ("avx512dq"))
    return "SkylakeX";
  if (__builtin_cpu_supports ("avx2") && __builtin_cpu_supports ("fma"))
    return "Haswell";
#endif
  return NULL;
}

void
fw_host_tuning_apply (void)
{
  const char *core = fw_host_tuning_blas_core ();

  if (core != NULL && g_getenv ("OPENBLAS_CORETYPE") == NULL)
    g_setenv ("OPENBLAS_CORETYPE", core, FALSE);
}
