/* fw-kernel.h: the reference kernels: one CPU implementation per operator the shape inference covers,
 * written for clarity and ONNX's exact semantics first and speed second (MatMul, Gemm and Conv go through
 * OpenBLAS). They are the ground truth the SuperKernels are verified against.
 *
 * A kernel reads its inputs (NULL for an omitted optional input), computes its outputs' shapes itself from
 * the inputs and attributes (so data-dependent shapes work) and sets outputs[i] to a new array for every
 * i with node->outputs[i] != NULL. On failure it returns FALSE with an FW_ERROR naming the node
 * (fw_kernel_fail); it never aborts on input. Kernels must be reentrant: the fused executor and the
 * measurement may run several at once. */
#pragma once

#include <glib.h>

#include "fw-array.h"
#include "graph/fw-graph-private.h"

G_BEGIN_DECLS

typedef struct _FwExecContext FwExecContext;

typedef gboolean (*FwKernelFunc) (FwExecContext  *ctx,
                                  const FwNode   *node,
                                  FwArray *const *inputs,
                                  guint           n_inputs,
                                  FwArray       **outputs,
                                  guint           n_outputs,
                                  GError        **error);

typedef struct
{
  const char   *op_type;   /* ai.onnx */
  FwKernelFunc  run;
} FwKernelEntry;

/* The kernel for an op, or NULL when there is none. */
FwKernelFunc  fw_kernel_lookup     (const char    *domain,
                                    const char    *op_type);
/* The kernel of a custom op's registry row (fw-kernels-custom.c): the one that evaluates its host
 * expression, or NULL when op is NULL or has none. The interpreter asks with the node's own row, which
 * stays valid when another registry is installed since. */
FwKernelFunc  fw_kernel_custom     (const FwOpInfo *op);
/* Every op with a kernel, sorted, for tests and docs. */
GPtrArray    *fw_kernel_list_ops   (void);

/* Each kernel family file exports its table (fw-kernel-registry.c joins them). */
const FwKernelEntry *fw_kernels_elementwise (guint *n_entries);  /* fw-kernels-elementwise.c */
const FwKernelEntry *fw_kernels_nn          (guint *n_entries);  /* fw-kernels-nn.c */
const FwKernelEntry *fw_kernels_tensor      (guint *n_entries);  /* fw-kernels-tensor.c */

/* Sets error to FW_ERROR_INVALID "node “NAME” (OP): MESSAGE" and returns FALSE. */
gboolean      fw_kernel_fail       (GError       **error,
                                    const FwNode  *node,
                                    const char    *format,
                                    ...) G_GNUC_PRINTF (3, 4);
/* Numpy broadcasting of a and b's dims into out (rank = max); FALSE with error when they do not broadcast. */
gboolean      fw_kernel_broadcast_dims (const FwNode  *node,
                                    guint          rank_a,
                                    const gint64  *dims_a,
                                    guint          rank_b,
                                    const gint64  *dims_b,
                                    guint         *rank_out,
                                    gint64        *dims_out,
                                    GError       **error);
/* Element strides of an input of (rank, dims) read broadcast into an output of (out_rank, out_dims):
 * right-aligned, 0 along broadcast axes. strides must hold out_rank entries. */
void          fw_kernel_broadcast_strides (guint          rank,
                                    const gint64  *dims,
                                    guint          out_rank,
                                    const gint64  *out_dims,
                                    gint64        *strides);
/* Axis attribute value normalised into [0, rank); FALSE with error when out of range. */
gboolean      fw_kernel_axis       (const FwNode  *node,
                                    gint64         axis,
                                    guint          rank,
                                    guint         *out,
                                    GError       **error);

/* Runs a subgraph (If/Loop/Scan bodies) in the context: inputs bind the subgraph's formal inputs in order,
 * outer values resolve in the enclosing frames. outputs receives one new array per subgraph output. */
gboolean      fw_exec_run_subgraph (FwExecContext  *ctx,
                                    const FwGraph  *subgraph,
                                    FwArray *const *inputs,
                                    guint           n_inputs,
                                    FwArray       **outputs,
                                    GError        **error);
/* Threads the kernels may use (OpenMP, OpenBLAS); at least 1. */
guint         fw_exec_context_get_n_threads (FwExecContext *ctx);

G_END_DECLS
