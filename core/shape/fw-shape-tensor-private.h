/* fw-shape-tensor-private.h: helpers the shape files of the data-movement ops share (fw-shape-tensor.c,
 * fw-shape-reshape.c, fw-shape-concat.c, fw-shape-slice.c, fw-shape-resize.c). */
#pragma once

#include "shape/fw-shape-private.h"

G_BEGIN_DECLS

/* The value's dtype, FW_DTYPE_UNDEFINED for an absent input. */
FwDType fw_st_dtype_of (const FwValue *value);

/* The value is present and its rank known (and at most FW_MAX_RANK). */
gboolean fw_st_has_rank (const FwValue *value);

/* A shape-vector element as an output dim: literals and unknowns become unknown dims. */
FwDim fw_st_sv_to_dim (FwDim e);

/* A dim as a shape-vector element. */
FwDim fw_st_dim_to_sv (FwDim d);

/* Output 0 takes input 0's data with output 0's (static) shape: Reshape, Flatten, (Un)Squeeze. */
void fw_st_fold_same_data (FwInferContext *ctx, FwNode *node);

/* A 0-D or 1-D input's shape vector moves unchanged to a 0-D or 1-D output with the same element count. */
void fw_st_pass_shape_value (FwInferContext *ctx, FwNode *node);

/* Builds output 0 from input 0 by an index map src (output element → input element). */
void fw_st_fold_by_index (FwInferContext *ctx, FwNode *node, const FwFold *in, const gint64 *src);

/* *n: output 0's element count; TRUE when it is known and small enough to fold. */
gboolean fw_st_output_foldable (FwInferContext *ctx, FwNode *node, gint64 *n);

/* Row-major element strides of dims. */
void fw_st_strides_of (gint rank, const gint64 *dims, gint64 *strides);

G_END_DECLS
