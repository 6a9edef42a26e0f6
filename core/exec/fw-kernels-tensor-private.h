/* fw-kernels-tensor-private.h: what the data-movement kernel files share (fw-kernels-tensor.c,
 * fw-kernels-resize.c, fw-kernels-control.c). */
#pragma once

#include "fw-kernel.h"

G_BEGIN_DECLS

/* fw_array_new with the node named in the error, so a refused huge output says which node asked. */
FwArray  *fw_kt_new_array     (const FwNode   *node,
                               FwDType         dtype,
                               guint           rank,
                               const gint64   *dims,
                               GError        **error);
/* The elements of an integer tensor (0-D or 1-D) as a new array of *n values; what names the input in the
 * error when the tensor is not of an integer type. */
gint64   *fw_kt_read_ints     (const FwNode   *node,
                               const FwArray  *array,
                               const char     *what,
                               guint          *n,
                               GError        **error);
/* Fills dst (an output of rank dims, row-major) from src read with element strides (any sign, 0 for
 * broadcast): the loop Transpose, Slice, Expand, Tile and the block rearrangements share. rank may be up
 * to 2 * FW_MAX_RANK. */
void      fw_kt_strided_copy  (guint8         *dst,
                               const guint8   *src,
                               gsize           esize,
                               guint           rank,
                               const gint64   *dims,
                               const gint64   *strides);
/* Stores an integer into element i of any dtype without going through a double (int64 keeps every bit). */
void      fw_kt_set_int64     (FwArray        *array,
                               gint64          i,
                               gint64          value);

gboolean  fw_kernel_resize    (FwExecContext  *ctx,
                               const FwNode   *node,
                               FwArray *const *inputs,
                               guint           n_inputs,
                               FwArray       **outputs,
                               guint           n_outputs,
                               GError        **error);
gboolean  fw_kernel_if        (FwExecContext  *ctx,
                               const FwNode   *node,
                               FwArray *const *inputs,
                               guint           n_inputs,
                               FwArray       **outputs,
                               guint           n_outputs,
                               GError        **error);
gboolean  fw_kernel_loop      (FwExecContext  *ctx,
                               const FwNode   *node,
                               FwArray *const *inputs,
                               guint           n_inputs,
                               FwArray       **outputs,
                               guint           n_outputs,
                               GError        **error);

/* Iterations one Loop node may run before the run is refused: a loop whose condition never turns false
 * must not hang batch mode. */
#define FW_LOOP_MAX_ITERATIONS 1000000

G_END_DECLS
