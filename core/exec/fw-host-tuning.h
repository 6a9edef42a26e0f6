/* fw-host-tuning.h: settings the host's math libraries read once, when they load. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* OpenBLAS picks its kernels from the CPU model when it loads; in virtual machines that report a generic
 * model it falls back to SSE3 ("Prescott") kernels, four times slower than the AVX-512 ones the CPU runs.
 * And libgomp's idle threads spin for a while after each parallel region, taking the cores OpenBLAS's own
 * threads need next. Both are read from the environment before main() runs, so when they are unset this
 * sets OPENBLAS_CORETYPE from the CPU's features and OMP_WAIT_POLICY=passive, and runs the program again
 * (execv of /proc/self/exe with the same argv). Returns only when nothing had to change or the exec
 * failed. Call first thing in main(); a user's own settings are left alone. */
void  fw_host_tuning_apply (char **argv);

/* The OpenBLAS core type this CPU should use ("SkylakeX", "Haswell"…), or NULL to leave it to OpenBLAS. */
const char *fw_host_tuning_blas_core (void);

G_END_DECLS
