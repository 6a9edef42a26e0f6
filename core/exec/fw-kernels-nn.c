/* fw-kernels-nn.c: reference kernels (placeholder table until this family lands). */
#include "config.h"

#include "fw-kernel.h"

const FwKernelEntry *
fw_kernels_nn (guint *n_entries)
{
  *n_entries = 0;
  return NULL;
}
