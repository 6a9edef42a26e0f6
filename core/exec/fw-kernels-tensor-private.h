/* fw-kernels-tensor-private.h: what the data-movement kernel files share (fw-kernels-tensor.c,
 * fw-kernels-gather.c, fw-kernels-pad.c, fw-kernels-constant.c, fw-kernels-resize.c, fw-kernels-control.c,
 * fw-kernels-scan.c). */
#pragma once

#include <string.h>

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

/* Fails unless input k is present. */
gboolean  fw_kt_need_input    (const FwNode   *node,
                               FwArray *const *inputs,
                               guint           n_inputs,
                               guint           k,
                               GError        **error);
/* The shape input of Expand and ConstantOfShape: at most FW_MAX_RANK dims, none negative. */
gint64   *fw_kt_read_shape    (const FwNode   *node,
                               FwArray        *input,
                               guint          *n,
                               GError        **error);

/* Bytes per element. */
static inline gsize
fw_kt_esize (const FwArray *a)
{
  return fw_array_element_size (a->dtype);
}

/* One element of esize bytes; the common sizes compile to single moves. */
static inline void
fw_kt_copy_elem (guint8 *dst, const guint8 *src, gsize esize)
{
  switch (esize)
    {
    case 1: *dst = *src; break;
    case 2: memcpy (dst, src, 2); break;
    case 4: memcpy (dst, src, 4); break;
    case 8: memcpy (dst, src, 8); break;
    default: memcpy (dst, src, esize); break;
    }
}

/* Row-major element strides of dims. */
static inline void
fw_kt_contiguous_strides (guint rank, const gint64 *dims, gint64 *strides)
{
  gint64 s = 1;

  for (gint i = (gint) rank - 1; i >= 0; i--)
    {
      strides[i] = s;
      s *= dims[i];
    }
}

/* The product of dims[from .. to). */
static inline gint64
fw_kt_product (const gint64 *dims, guint from, guint to)
{
  gint64 p = 1;

  for (guint i = from; i < to; i++)
    p *= dims[i];
  return p;
}

/* Input k, NULL when absent. */
static inline FwArray *
fw_kt_opt_input (FwArray *const *inputs, guint n_inputs, guint k)
{
  return k < n_inputs ? inputs[k] : NULL;
}

/* The kernels of fw-kernels-gather.c, fw-kernels-pad.c and fw-kernels-constant.c, for the table in
 * fw-kernels-tensor.c. */
gboolean  fw_kernel_gather            (FwExecContext  *ctx,
                                       const FwNode   *node,
                                       FwArray *const *inputs,
                                       guint           n_inputs,
                                       FwArray       **outputs,
                                       guint           n_outputs,
                                       GError        **error);
gboolean  fw_kernel_gather_elements   (FwExecContext  *ctx,
                                       const FwNode   *node,
                                       FwArray *const *inputs,
                                       guint           n_inputs,
                                       FwArray       **outputs,
                                       guint           n_outputs,
                                       GError        **error);
gboolean  fw_kernel_gather_nd         (FwExecContext  *ctx,
                                       const FwNode   *node,
                                       FwArray *const *inputs,
                                       guint           n_inputs,
                                       FwArray       **outputs,
                                       guint           n_outputs,
                                       GError        **error);
gboolean  fw_kernel_scatter_elements  (FwExecContext  *ctx,
                                       const FwNode   *node,
                                       FwArray *const *inputs,
                                       guint           n_inputs,
                                       FwArray       **outputs,
                                       guint           n_outputs,
                                       GError        **error);
gboolean  fw_kernel_scatter_nd        (FwExecContext  *ctx,
                                       const FwNode   *node,
                                       FwArray *const *inputs,
                                       guint           n_inputs,
                                       FwArray       **outputs,
                                       guint           n_outputs,
                                       GError        **error);
gboolean  fw_kernel_pad               (FwExecContext  *ctx,
                                       const FwNode   *node,
                                       FwArray *const *inputs,
                                       guint           n_inputs,
                                       FwArray       **outputs,
                                       guint           n_outputs,
                                       GError        **error);
gboolean  fw_kernel_shape             (FwExecContext  *ctx,
                                       const FwNode   *node,
                                       FwArray *const *inputs,
                                       guint           n_inputs,
                                       FwArray       **outputs,
                                       guint           n_outputs,
                                       GError        **error);
gboolean  fw_kernel_size              (FwExecContext  *ctx,
                                       const FwNode   *node,
                                       FwArray *const *inputs,
                                       guint           n_inputs,
                                       FwArray       **outputs,
                                       guint           n_outputs,
                                       GError        **error);
gboolean  fw_kernel_constant          (FwExecContext  *ctx,
                                       const FwNode   *node,
                                       FwArray *const *inputs,
                                       guint           n_inputs,
                                       FwArray       **outputs,
                                       guint           n_outputs,
                                       GError        **error);
gboolean  fw_kernel_constant_of_shape (FwExecContext  *ctx,
                                       const FwNode   *node,
                                       FwArray *const *inputs,
                                       guint           n_inputs,
                                       FwArray       **outputs,
                                       guint           n_outputs,
                                       GError        **error);
gboolean  fw_kernel_range             (FwExecContext  *ctx,
                                       const FwNode   *node,
                                       FwArray *const *inputs,
                                       guint           n_inputs,
                                       FwArray       **outputs,
                                       guint           n_outputs,
                                       GError        **error);
gboolean  fw_kernel_nonzero           (FwExecContext  *ctx,
                                       const FwNode   *node,
                                       FwArray *const *inputs,
                                       guint           n_inputs,
                                       FwArray       **outputs,
                                       guint           n_outputs,
                                       GError        **error);

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
gboolean  fw_kernel_scan      (FwExecContext  *ctx,
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
