/* fw-host-tuning.c: environment for OpenBLAS and libgomp, set before they load. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fw-host-tuning.h"

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
fw_host_tuning_apply (char **argv)
{
  const char *core = fw_host_tuning_blas_core ();
  gboolean changed = FALSE;

  const char *preload = g_getenv ("LD_PRELOAD");

  /* FW_HOST_TUNED marks the second run, so a failing setenv can never loop. Under valgrind the exec'd
   * program would run outside it: leave the run as it is. */
  if (argv == NULL || argv[0] == NULL || g_getenv ("FW_HOST_TUNED") != NULL ||
      (preload != NULL && strstr (preload, "vgpreload") != NULL))
    return;
  if (core != NULL && g_getenv ("OPENBLAS_CORETYPE") == NULL)
    changed |= g_setenv ("OPENBLAS_CORETYPE", core, TRUE);
  if (g_getenv ("OMP_WAIT_POLICY") == NULL)
    changed |= g_setenv ("OMP_WAIT_POLICY", "passive", TRUE);
  if (!changed)
    return;
  g_setenv ("FW_HOST_TUNED", "1", TRUE);
  execv ("/proc/self/exe", argv);
  /* Not fatal: the program runs with the libraries' own choices. */
}
