/* fw-host-tuning.h: settings the host's math libraries read once, when they load. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* OpenBLAS picks its kernels from the CPU model when it loads; in virtual machines that report a generic
 * model it falls back to SSE3 ("Prescott") kernels, several times slower than the AVX2 or AVX-512 ones the
 * CPU runs. OpenBLAS is opened at first use (fw-blas.h), after this: when OPENBLAS_CORETYPE is unset, it is
 * set here from the CPU's features (a user's own setting is kept). Call first thing in main(), while the
 * program has one thread (setenv is not safe beside other threads); fw_blas_ensure does the same for a
 * program that did not. */
void  fw_host_tuning_apply (void);

/* The OpenBLAS core type this CPU should use ("SkylakeX", "Haswell"…), or NULL to leave it to OpenBLAS. */
const char *fw_host_tuning_blas_core (void);

G_END_DECLS
