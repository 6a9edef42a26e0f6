/* fw-blas.h: OpenBLAS, opened on first use instead of linked. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* OpenBLAS chooses its kernels once, when it loads, from the CPU model or from OPENBLAS_CORETYPE; in virtual
 * machines that report a generic model it falls back to SSE3 kernels, several times slower than the AVX2 or
 * AVX-512 ones the CPU runs. Linked, it loads before main() and the only way to choose for it was to set the
 * variable and run the program again. Opened here, the variable is set first (fw_host_tuning_blas_core;
 * a user's own setting is kept). Thread-safe; the first failure is returned to every caller. */
gboolean    fw_blas_ensure (GError **error);

/* Row-major products, C = alpha · op(A) · op(B) + beta · C, as cblas_sgemm / cblas_dgemm. Call
 * fw_blas_ensure first. */
void        fw_blas_sgemm (gboolean trans_a, gboolean trans_b, gint m, gint n, gint k, float alpha, const float *a,
                           gint lda, const float *b, gint ldb, float beta, float *c, gint ldc);
void        fw_blas_dgemm (gboolean trans_a, gboolean trans_b, gint m, gint n, gint k, double alpha, const double *a,
                           gint lda, const double *b, gint ldb, double beta, double *c, gint ldc);

/* The kernels OpenBLAS chose ("Haswell", "SkylakeX"…), or NULL before it is opened or when it cannot say. */
const char *fw_blas_core_name (void);
/* The file opened ("/usr/lib/x86_64-linux-gnu/openblas-openmp/libopenblas.so.0"), or NULL before. */
const char *fw_blas_library   (void);

G_END_DECLS
