/* fw-host-dnnl.h: oneDNN primitives behind host SuperKernels' compute roots (Conv, MatMul, Gemm).
 *
 * A primitive is described by shape once, when the kernel is generated (the primitive descriptor: whether
 * oneDNN takes it and which implementation it chose), made and its constant weights reordered into the
 * layout that implementation prefers when the kernel is prepared, and then run on the kernel's plain
 * (row-major, NCHW) operands: activations are reordered to the primitive's layout and back at its edges, so
 * the epilogue the generated C runs over the result is unchanged. Reduced-precision math is off (fpmath mode
 * strict). oneDNN keeps its own cache of created primitives keyed by shape and attributes, so kernels of one
 * shape share the JIT-compiled code. Built without oneDNN (HAVE_DNNL unset), every description is refused
 * and the kernels keep OpenBLAS. */
#pragma once

#include <glib.h>

#include "graph/fw-tensor.h"

G_BEGIN_DECLS

#define FW_DNNL_MAX_RANK 6

typedef enum {
  FW_DNNL_CONV,
  FW_DNNL_MATMUL,
} FwDnnlKind;

typedef enum {
  FW_DNNL_POST_NONE,
  FW_DNNL_POST_RELU,
  FW_DNNL_POST_GELU_ERF,  /* 0.5 x (1 + erf (x / √2)) */
  FW_DNNL_POST_HARD_SIGMOID,  /* max (0, min (1, post_alpha x + post_beta)): a linear then a clip post-op */
  FW_DNNL_POST_HARD_SWISH,    /* x · max (0, min (1, x / 6 + 1/2)), oneDNN's hardswish */
} FwDnnlPost;

typedef struct
{
  FwDnnlKind kind;
  /* FW_DNNL_CONV: 2-D, NCHW data, OIHW weights (GOIHW when groups > 1). */
  gint64     n, c, h, w, m, oh, ow, kh, kw, groups;
  gint64     sh, sw, dh, dw, pt, pl, pb, pr;
  /* FW_DNNL_MATMUL: dst = alpha · src × weights over [batch..., M, K] × [batch..., K, N], each operand's
   * batch dims 1 or the result's; element strides of the operands as they lie in memory. */
  gint       ndims;
  gint64     src_dims[FW_DNNL_MAX_RANK], src_strides[FW_DNNL_MAX_RANK];
  gint64     wei_dims[FW_DNNL_MAX_RANK], wei_strides[FW_DNNL_MAX_RANK];
  gint64     dst_dims[FW_DNNL_MAX_RANK];
  float      alpha;
  /* The weights when they are a constant of the model (float32, laid out as the weights operand): reordered
   * once when the primitive is prepared, and the pointer a run passes is not read. NULL: read at each run. */
  FwTensor  *weights;
  /* A constant float32 bias added to every output (conv: one per output channel M; matmul: one per column
   * N), or NULL. A SuperKernel's epilogue adds its own; a single op's kernel (fw-host-node-kernel.c) gives
   * it here. */
  FwTensor  *bias;
  /* An elementwise function oneDNN applies to each output after the bias (an eltwise post-op), so that a
   * SuperKernel whose whole epilogue is the bias and this needs no pass of its own (fw-host-producers.c). */
  FwDnnlPost post;
  float      post_alpha, post_beta;  /* FW_DNNL_POST_HARD_SIGMOID's */
  /* FW_DNNL_CONV: a tensor of the result's shape the run passes (a ResNet block's shortcut) is added after
   * the bias and before post (a sum post-op over dst filled with it first), as the reference adds it. */
  gboolean   residual;
  /* FW_DNNL_CONV: 16 asks for nChw16c activations (the source where C is a multiple of 16, the result where
   * M is) and Winograd where fw_dnnl_conv_winograd_fits; 8 for nChw8c likewise (AVX2, no Winograd); 0 lets
   * oneDNN choose. fw_host_activation_block decides it for the whole graph. */
  guint      block;
} FwDnnlDesc;

/* Whether d is a convolution oneDNN's Winograd kernel takes and computes faster than its direct one
 * (3x3, stride and dilation 1, one group, channels multiples of 16, at least 14x14 outputs). */
gboolean    fw_dnnl_conv_winograd_fits (const FwDnnlDesc *d);

/* How a run's activations lie (fw_dnnl_prim_run's layout): plain NCHW unless their bit is set, then in
 * the primitive's own channels-last form (NHWC, or nChw16c / nChw8c with desc.block 16 / 8) with the same
 * logical dims.
 * Only a primitive that computes in such a form takes them (fw_dnnl_prim_channels_last; its source only
 * where fw_dnnl_prim_src_channels_last): the fused executor keeps such values so between two of them and
 * spares both reorders. */
typedef enum {
  FW_DNNL_SRC_NHWC      = 1 << 0,
  FW_DNNL_DST_NHWC      = 1 << 1,
  FW_DNNL_RESIDUAL_NHWC = 1 << 2,
} FwDnnlLayout;

/* d as the matmul dst [M, N] = alpha · op(A) × op(B) of row-major [M, K] (or [K, M] with trans_a) by
 * [K, N] (or [N, K] with trans_b) matrices, as Gemm takes them; other fields left as they are. */
void        fw_dnnl_desc_set_product (FwDnnlDesc *d,
                                      gint64      M,
                                      gint64      K,
                                      gint64      N,
                                      gboolean    trans_a,
                                      gboolean    trans_b,
                                      float       alpha);

/* d as the matmul dst [batch..., M, N] = A × B of row-major operands of ranks 2 to y_rank, broadcast over
 * the result's batch dims as ONNX MatMul does (y_dims: the result's); FALSE when a rank is under 2 or over
 * FW_DNNL_MAX_RANK. One batch matrix becomes a plain 2-D product. Other fields left as they are. */
gboolean    fw_dnnl_desc_set_matmul (FwDnnlDesc   *d,
                                     gint          a_rank,
                                     const gint64 *a_dims,
                                     gint          b_rank,
                                     const gint64 *b_dims,
                                     gint          y_rank,
                                     const gint64 *y_dims);

/* A constant as the float32 tensor a primitive's weights or bias take: a new reference to t when it is
 * float32, else a new tensor of its values widened (a half constant, widened once when the kernel is made). */
FwTensor   *fw_dnnl_float_tensor    (FwTensor     *t);

typedef struct _FwDnnlPrim FwDnnlPrim;

/* "oneDNN 2.6.3", or NULL when the build has no oneDNN. */
const char *fw_dnnl_library      (void);
/* The instruction set oneDNN runs on this CPU (dnnl_get_effective_cpu_isa), or NULL. */
const char *fw_dnnl_isa          (void);

/* The primitive for desc, its descriptor made for n_threads threads; NULL with *why (newly allocated) when
 * oneDNN is missing or refuses the shape. */
FwDnnlPrim *fw_dnnl_prim_new     (const FwDnnlDesc *desc,
                                  int               n_threads,
                                  char            **why);
void        fw_dnnl_prim_free    (FwDnnlPrim       *prim);
/* The implementation oneDNN chose (dnnl_verbose's name: "jit:avx512_core", "brg:avx512_core", ...). */
const char *fw_dnnl_prim_get_impl (FwDnnlPrim      *prim);
/* Whose code computes it: "onednn", or the workbench's own kernel behind the same call, "winograd"
 * (fw-host-winograd.h) or "gemv" (fw-host-gemv.h). The report's producer backend. */
const char *fw_dnnl_prim_get_backend (FwDnnlPrim   *prim);
/* Whether prim is a convolution computing in channels-last (its own src and dst NHWC): then a run may pass
 * any of src, dst and the residual channels-last. */
gboolean    fw_dnnl_prim_channels_last (FwDnnlPrim *prim);
/* With fw_dnnl_prim_channels_last: whether the source too may come in that form (not a 3-channel image's). */
gboolean    fw_dnnl_prim_src_channels_last (FwDnnlPrim *prim);
/* The channels block of the primitive's form: 0 for NHWC, 16 for nChw16c, 8 for nChw8c (FwArray.block). */
guint       fw_dnnl_prim_block (FwDnnlPrim *prim);
/* Makes the primitive and its reorders and reorders constant weights, for n_threads; FALSE on failure (the
 * run then fails too). Done by the first run when not before. */
gboolean    fw_dnnl_prim_prepare (FwDnnlPrim       *prim,
                                  int               n_threads);
/* Runs the primitive: dst = src ⊛ weights (+ residual, when desc.residual) on n_threads threads, the
 * activations laid out as layout (FwDnnlLayout bits) says. 0 on success. The generated code calls it
 * through the runtime table (FwSkProducerRun). Runs of one primitive are serialised. */
int         fw_dnnl_prim_run     (void             *prim,
                                  const float      *src,
                                  const float      *weights,
                                  float            *dst,
                                  const float      *residual,
                                  int               layout,
                                  int               n_threads);

/* Seconds of one product m×k by k×n through a matmul primitive made as a fused kernel's root makes it
 * (constant weights, reordered once), timed by fw_host_bench_time_product, on n_threads threads; 0 when
 * oneDNN is missing or refuses. The calibration's fused_gemm timer (FwHostProductTimer). */
double      fw_dnnl_time_product (guint             m,
                                  guint             n,
                                  guint             k,
                                  guint             n_threads);

G_END_DECLS
