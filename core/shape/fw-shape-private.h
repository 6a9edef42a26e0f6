/* fw-shape-private.h: what the per-op shape functions share: the inference context, output setters that
 * respect declared value_info, broadcasting, reading small constants and shape vectors, and the constant
 * folder. Private to libfwcore (the op registry points its rows at the fw_infer_* functions below). */
#pragma once

#include <glib.h>

#include "graph/fw-graph-private.h"
#include "ops/fw-op-registry.h"
#include "shape/fw-shape-infer.h"

G_BEGIN_DECLS

#define FW_DEFAULT_MAX_FOLD_ELEMENTS 65536

/* Elements of a shape vector (FwValue.shape_value) are dims, with one extension: a negative value with no
 * symbol is a literal integer (Reshape's -1 travels through Concat that way), and FW_SV_UNKNOWN marks an
 * element nothing is known about. Readers outside core/shape see both as unknown dims. */
#define FW_SV_UNKNOWN G_MININT64
#define FW_SV_KNOWN(e) ((e).symbol == NULL && (e).value != FW_SV_UNKNOWN)

struct _FwInferContext
{
  gint64         max_fold;   /* element cap for folding and for reading constants */
  FwInferReport *report;
  gboolean       folded;     /* the current node produced a constant */
};

/* ---- helpers (fw-shape-infer.c) ---- */

/* Sets error to “node “name” (op): message” and returns FALSE. */
gboolean  fw_infer_error         (GError        **error,
                                  const FwNode   *node,
                                  const char     *format,
                                  ...) G_GNUC_PRINTF (3, 4);
/* Input slot or NULL when absent or omitted. */
FwValue  *fw_infer_input         (const FwNode   *node,
                                  guint           slot);
/* Sets output slot's dtype and shape, refining (not replacing) a declared value_info; no-op for absent
 * outputs. rank FW_RANK_UNKNOWN keeps whatever was declared. */
void      fw_infer_set           (FwInferContext *ctx,
                                  FwNode         *node,
                                  guint           slot,
                                  FwDType         dtype,
                                  gint            rank,
                                  const FwDim    *dims);
/* Same dtype and shape as value (which may be NULL: then unknown). */
void      fw_infer_set_like      (FwInferContext *ctx,
                                  FwNode         *node,
                                  guint           slot,
                                  const FwValue  *value);
/* Sets a 0-D (rank 0) or 1-D integer output whose elements are dims: type, shape_value, and a constant
 * tensor when every element is static. */
void      fw_infer_set_shape_value (FwInferContext *ctx,
                                    FwNode         *node,
                                    guint           slot,
                                    FwDType         dtype,
                                    gint            rank,
                                    gint            len,
                                    const FwDim    *elems);
/* Stores a folded constant (takes ownership) as output slot: type, constant, shape_value. */
void      fw_infer_set_constant  (FwInferContext *ctx,
                                  FwNode         *node,
                                  guint           slot,
                                  FwTensor       *tensor);
/* Elements of a 0-D or 1-D integer value as dims, from its shape_value or small constant. Returns a new
 * array (g_free) or NULL; *len gets the count. */
FwDim    *fw_infer_get_dim_vector (FwInferContext *ctx,
                                   const FwValue  *value,
                                   gint           *len);
/* All elements of a small integer constant (or a fully static shape_value). New array or NULL. */
gint64   *fw_infer_get_ints      (FwInferContext *ctx,
                                  const FwValue  *value,
                                  gint           *n);
/* Whether value has a constant small enough to fold. */
gboolean  fw_infer_is_foldable   (FwInferContext *ctx,
                                  const FwValue  *value);
/* Normalises axis into [0, rank); FALSE (with error) when out of range. */
gboolean  fw_infer_axis          (const FwNode   *node,
                                  gint64          axis,
                                  gint            rank,
                                  gint           *out,
                                  GError        **error);
gboolean  fw_dim_is_one          (const FwDim    *dim);
/* Static product of dims[start:end]; with at most one symbolic factor (times static ones, as `symbol`)
 * kept symbolic; unknown otherwise. */
FwDim     fw_dims_product_dim    (const FwDim    *dims,
                                  gint            start,
                                  gint            end);

/* ---- broadcasting (fw-broadcast.c) ---- */

/* Numpy broadcast of n shapes into out (FW_MAX_RANK entries); *rank_out FW_RANK_UNKNOWN when any rank is
 * unknown. Static mismatches are an error naming the node and the shapes. */
gboolean  fw_broadcast_shapes    (const FwNode   *node,
                                  guint           n,
                                  FwValue * const *values,
                                  gint           *rank_out,
                                  FwDim          *out,
                                  GError        **error);
gboolean  fw_broadcast_pair      (const FwNode   *node,
                                  gint            ra,
                                  const FwDim    *a,
                                  gint            rb,
                                  const FwDim    *b,
                                  gint           *rank_out,
                                  FwDim          *out,
                                  GError        **error);
char     *fw_format_dims         (gint            rank,
                                  const FwDim    *dims);

/* ---- constant folding (fw-const-fold.c) ---- */

typedef struct
{
  FwDType  dtype;
  gint     rank;
  gint64   dims[FW_MAX_RANK];
  gint64   n;
  gboolean is_float;   /* values in d, else in i (bool and all integers) */
  gint64  *i;
  double  *d;
} FwFold;

gboolean  fw_fold_supported_dtype (FwDType        dtype);
/* Reads value's constant; FALSE when absent, too large or of an unsupported dtype. */
gboolean  fw_fold_load           (FwInferContext *ctx,
                                  const FwValue  *value,
                                  FwFold         *out);
void      fw_fold_init           (FwFold         *fold,
                                  FwDType         dtype,
                                  gint            rank,
                                  const gint64   *dims);
void      fw_fold_clear          (FwFold         *fold);
FwTensor *fw_fold_to_tensor      (const FwFold   *fold);
/* Builds out by taking element src[k] of in for each output element k. */
void      fw_fold_gather         (const FwFold   *in,
                                  FwFold         *out,
                                  const gint64   *src);
/* Row-major strides of in's dims aligned right to out_rank, 0 where in's dim broadcasts. */
void      fw_fold_bcast_strides  (const FwFold   *in,
                                  gint            out_rank,
                                  const gint64   *out_dims,
                                  gint64         *strides);
/* Evaluates an elementwise op (unary, binary, Where) over folded inputs into out, whose dtype and dims
 * the caller set. FALSE when the op is not one the folder knows. */
gboolean  fw_fold_elementwise    (const char     *op_type,
                                  const FwNode   *node,
                                  guint           n_in,
                                  FwFold         *in,
                                  FwFold         *out);
FwFold   *fw_fold_array_new      (guint           n);
void      fw_fold_array_free     (FwFold         *folds,
                                  guint           n);

/* ---- shape functions, one per family (the registry points at these) ---- */

/* fw-shape-elementwise.c */
gboolean fw_infer_unary          (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_unary_bool     (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_broadcast      (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_compare        (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_where          (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_clip           (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_cast           (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_cast_like      (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_dropout        (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_identity       (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_prelu          (FwInferContext *ctx, FwNode *node, GError **error);

/* fw-shape-nn.c */
gboolean fw_infer_matmul         (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_gemm           (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_conv           (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_conv_transpose (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_pool           (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_global_pool    (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_batch_norm     (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_layer_norm     (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_same_as_first  (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_reduce         (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_arg_reduce     (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_topk           (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_einsum         (FwInferContext *ctx, FwNode *node, GError **error);

/* fw-shape-quantize.c */
gboolean fw_infer_quantize_linear (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_dequantize_linear (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_dynamic_quantize_linear (FwInferContext *ctx, FwNode *node, GError **error);

/* fw-shape-tensor.c */
gboolean fw_infer_shape          (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_size           (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_constant       (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_constant_of_shape (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_range          (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_reshape        (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_flatten        (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_transpose      (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_squeeze        (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_unsqueeze      (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_concat         (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_split          (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_slice          (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_gather         (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_gather_elements (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_gather_nd      (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_expand         (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_tile           (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_pad            (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_resize         (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_depth_to_space (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_space_to_depth (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_nonzero        (FwInferContext *ctx, FwNode *node, GError **error);

/* fw-shape-control.c */
gboolean fw_infer_if             (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_loop           (FwInferContext *ctx, FwNode *node, GError **error);
gboolean fw_infer_scan           (FwInferContext *ctx, FwNode *node, GError **error);
/* Seeds a Loop's or Scan's body's untyped inputs from the node's inputs before the body is inferred. */
void     fw_infer_prepare_subgraphs (FwInferContext *ctx, FwNode *node);
/* After a Loop's or Scan's body's inference: each carried or state input seeded with the initial value's
 * shape keeps only the dims the body's output for it keeps too. TRUE when one changed: the body must be
 * inferred again. */
gboolean fw_infer_loop_widen     (FwNode *node);

G_END_DECLS
