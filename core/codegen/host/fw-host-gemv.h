/* fw-host-gemv.h: products of a few rows by a constant matrix ([M, K] × [K, N], M at most
 * FW_GEMV_MAX_ROWS) on x86-64 with AVX2 and FMA: a classifier's Gemm at batch 1.
 *
 * Such a product reads each weight once and does one multiply-add with it, so its time is the time to
 * stream the weights. oneDNN 2.6's matmul took 275 µs for mobilenet_v3_small's 1024x1000 classifier on two
 * Zen 4 cores (15 GB/s, a sixth of what the two cores' caches deliver), the largest single step of a 1.7 ms
 * fused run. Here the weights are packed once into panels of 16 columns with K contiguous, so a run reads
 * them as one sequential stream per thread. It runs behind a FwDnnlPrim (fw-host-dnnl.c): same descriptor,
 * same run arguments, as the primitive it replaces. */
#pragma once

#include <glib.h>

#include "fw-host-dnnl.h"

G_BEGIN_DECLS

/* Rows of the left operand this kernel takes at most. With weights from memory (fw-bench-gemv) it ran 1.4x
 * oneDNN's speed at one or two rows and level at four; from cache it fell behind from two rows on, where
 * oneDNN's blocked kernel reuses each weight across rows from registers. */
#define FW_GEMV_MAX_ROWS 2

typedef struct _FwGemv FwGemv;

/* Whether d is a product this kernel computes on this CPU: a 2-D matmul (any strides) of at most
 * FW_GEMV_MAX_ROWS rows by constant float32 weights, any alpha, bias and post-op, AVX2 with FMA present.
 * FW_GEMV=0: never (to compare with oneDNN's matmul). */
gboolean    fw_gemv_fits (const FwDnnlDesc *d);
#define FW_GEMV_IMPL "gemv:avx2"
/* The kernel for d (fw_gemv_fits), its weights packed now; NULL if they cannot be read. */
FwGemv     *fw_gemv_new  (const FwDnnlDesc *d);
void        fw_gemv_free (FwGemv           *g);
/* dst = post (alpha · src × weights + bias), dst row-major [M, N], on n_threads threads. Runs may overlap.
 * 0 on success. */
int         fw_gemv_run  (FwGemv           *g,
                          const float      *src,
                          float            *dst,
                          int               n_threads);

G_END_DECLS
