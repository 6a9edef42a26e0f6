/* fw-kernels-nn-private.h: what the compute, pooling, reduction and normalisation kernel files share.
 *
 * Floating-point kernels compute in float for float32 and float16 (converted on the way in and out) and in
 * double for double, so each numeric loop exists twice (the *-loops.h headers are included once per type).
 * Integer kernels work on int64 copies and truncate on the way out, which gives the same wrap-around
 * results as 32-bit arithmetic would. */
#pragma once

#include "fw-kernel.h"
#include "hw/fw-host-threads.h"

G_BEGIN_DECLS

/* a × b into out for sizes (non-negative); FALSE when it overflows or passes the tensor cap. */
gboolean  fw_nn_mul            (gint64          a,
                                gint64          b,
                                gint64         *out);
/* The product of dims[0..n) with the same checks, as a kernel error naming the node. */
gboolean  fw_nn_size           (const FwNode   *node,
                                guint           n,
                                const gint64   *dims,
                                gint64         *out,
                                GError        **error);
/* Working copy of a floating-point array: a new reference when it is float32 or double already, else a
 * float32 conversion. NULL with error for other dtypes. */
FwArray  *fw_nn_to_work        (const FwNode   *node,
                                FwArray        *array,
                                GError        **error);
/* The result in dtype: a new reference when work already is, else a converted copy. */
FwArray  *fw_nn_from_work      (FwArray        *work,
                                FwDType         dtype,
                                GError        **error);
/* An int64 copy (or reference) of an integer array; NULL with error for other dtypes. */
FwArray  *fw_nn_to_int64       (const FwNode   *node,
                                FwArray        *array,
                                GError        **error);
/* Back from int64 to an integer dtype, truncating (wrapping) as a narrower integer computation would. */
FwArray  *fw_nn_from_int64     (FwArray        *work,
                                FwDType         dtype,
                                GError        **error);
gboolean  fw_nn_is_float       (FwDType         dtype);
gboolean  fw_nn_is_int         (FwDType         dtype);
/* A scratch buffer of n elements of size bytes, with a kernel error instead of an abort when it is too
 * large. */
gpointer  fw_nn_alloc          (const FwNode   *node,
                                gint64          n,
                                gsize           size,
                                GError        **error);
/* Threads for a loop doing work element-operations: the host's one rule (hw/fw-host-threads.h). */
guint     fw_nn_threads        (FwExecContext  *ctx,
                                gint64          work);

/* Kernels, by file. */
gboolean fw_nn_conv              (FwExecContext *, const FwNode *, FwArray *const *, guint, FwArray **, guint, GError **);
gboolean fw_nn_conv_transpose    (FwExecContext *, const FwNode *, FwArray *const *, guint, FwArray **, guint, GError **);
gboolean fw_nn_conv_integer      (FwExecContext *, const FwNode *, FwArray *const *, guint, FwArray **, guint, GError **);
gboolean fw_nn_pool              (FwExecContext *, const FwNode *, FwArray *const *, guint, FwArray **, guint, GError **);
gboolean fw_nn_global_pool       (FwExecContext *, const FwNode *, FwArray *const *, guint, FwArray **, guint, GError **);

gboolean fw_nn_reduce            (FwExecContext *, const FwNode *, FwArray *const *, guint, FwArray **, guint, GError **);
gboolean fw_nn_arg_reduce        (FwExecContext *, const FwNode *, FwArray *const *, guint, FwArray **, guint, GError **);
gboolean fw_nn_cumsum            (FwExecContext *, const FwNode *, FwArray *const *, guint, FwArray **, guint, GError **);
gboolean fw_nn_topk              (FwExecContext *, const FwNode *, FwArray *const *, guint, FwArray **, guint, GError **);

G_END_DECLS
