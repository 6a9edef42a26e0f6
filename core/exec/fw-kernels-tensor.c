/* fw-kernels-tensor.c: reference kernels (placeholder table until this family lands). */
#include "config.h"

#include "fw-kernel.h"

const FwKernelEntry *
fw_kernels_tensor (guint *n_entries)
{
  *n_entries = 0;
  return NULL;
}
