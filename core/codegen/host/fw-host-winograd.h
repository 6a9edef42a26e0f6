/* fw-host-winograd.h: 3x3 stride-1 float32 convolutions by Winograd's F(2x2, 3x3) on AVX2 with FMA.
 *
 * oneDNN 2.6 has Winograd on AVX-512 only; on AVX2 its direct kernel (jit:avx2) computed resnet18's 3x3
 * convolutions at 85-125 GFLOP/s on two Zen 3 cores, slower than ONNX Runtime's. F(2x2, 3x3) computes each
 * 2x2 block of outputs from a 4x4 block of the source with 16 products per input channel instead of 36:
 * the source's blocks are transformed (B^T d B), multiplied by the weights transformed once (G g G^T) in 16
 * matrix products over the input channels, and the products transformed back (A^T m A), the bias, a
 * residual and a Relu applied there. It runs behind a FwDnnlPrim (fw-host-dnnl.c), so it takes the same
 * descriptor, layouts and run arguments as the oneDNN primitive it replaces. */
#pragma once

#include <glib.h>

#include "fw-host-dnnl.h"

G_BEGIN_DECLS

typedef struct _FwWinograd FwWinograd;

/* Whether d is a convolution this kernel computes on this CPU: 2-D, 3x3, stride and dilation 1, one group,
 * input channels a multiple of 8 and output channels of 16, at least 14x14 outputs (n · oh · ow >= 196),
 * constant float32 weights, no post-op but a Relu, AVX2 with FMA present, and the graph keeping nChw8c
 * activations (desc.block 8: AVX2, where oneDNN has no Winograd of its own). FW_WINOGRAD=0: never (to
 * compare with oneDNN's direct kernel). */
gboolean    fw_winograd_fits (const FwDnnlDesc *d);
/* The kernel for d (fw_winograd_fits), its weights transformed now; NULL if they cannot be read. Its
 * activations lie in nChw8c or plain, each as a run says. */
#define FW_WINOGRAD_IMPL "wino_f2x3:avx2"
FwWinograd *fw_winograd_new  (const FwDnnlDesc *d);
void        fw_winograd_free (FwWinograd       *w);
/* dst = src ⊛ weights + bias (+ residual) (then Relu), on n_threads threads; src, dst and the residual each
 * plain NCHW or in nChw8c as layout's FwDnnlLayout bits say. Runs of one kernel must not overlap (the
 * FwDnnlPrim's lock serialises them). 0 on success. */
int         fw_winograd_run  (FwWinograd       *w,
                              const float      *src,
                              float            *dst,
                              const float      *residual,
                              int               layout,
                              int               n_threads);

G_END_DECLS
