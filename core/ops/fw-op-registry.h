/* fw-op-registry.h: one table row per operator: how it fuses (its op class, after TVM's op kinds), how its
 * output shapes and dtypes follow from its inputs, and what it costs in FLOPs and bytes.
 *
 * The table is static data; nothing here walks a whole graph (that is core/shape and core/plan). Later
 * issues add a reference kernel and code emitters to the same rows. */
#pragma once

#include <glib.h>

#include "graph/fw-graph-private.h"
#include "hw/fw-profile.h"

G_BEGIN_DECLS

typedef enum {
  FW_OP_CLASS_ELEMENTWISE,  /* one output element from the same input element: Relu, Exp, Cast */
  FW_OP_CLASS_BROADCAST,    /* elementwise with numpy broadcasting: Add, Mul, Where */
  FW_OP_CLASS_INJECTIVE,    /* each output element from one input element: Reshape, Transpose, Gather */
  FW_OP_CLASS_REDUCE,       /* reduces along axes: ReduceMean, Softmax's insides, pooling */
  FW_OP_CLASS_OUT_FUSABLE,  /* compute-bound, takes an elementwise epilogue: MatMul, Gemm, Conv */
  FW_OP_CLASS_OPAQUE,       /* never fused: control flow, unknown ops, shape-only ops */
} FwOpClass;

typedef struct _FwInferContext FwInferContext;
typedef struct _FwCustomOp FwCustomOp;

/* Sets the node's output dtypes and shapes (fw_value_set_type) from its inputs. Returns FALSE with error
 * when the inputs contradict the op (a MatMul whose inner dims differ); leaving an output unknown is not an
 * error. */
typedef gboolean (*FwShapeFunc) (FwInferContext *ctx,
                                 FwNode         *node,
                                 GError        **error);

typedef struct
{
  gdouble flops;        /* arithmetic operations, multiply-add counted as 2 */
  gdouble bytes_read;   /* bytes of all inputs, each read once */
  gdouble bytes_written;
} FwOpCost;

/* Fills cost from the node's (inferred) shapes; FALSE when shapes are not static. */
typedef gboolean (*FwCostFunc) (const FwNode *node,
                                FwOpCost     *cost);

struct _FwOpInfo
{
  const char  *domain;     /* "" for ai.onnx */
  const char  *op_type;
  FwOpClass    op_class;
  FwShapeFunc  infer;      /* NULL: outputs stay unknown and the op is listed as without inference */
  FwCostFunc   cost;
  gint         since_opset; /* earliest ai.onnx opset we handle, for reports */
  const FwCustomOp *custom; /* the operator registry file's entry (fw-custom-ops.h), NULL for the table's rows */
};

/* The table's row, or the installed operator registry's (fw_custom_ops_install), which comes first for
 * domains other than ai.onnx. */
const FwOpInfo *fw_op_lookup        (const char *domain,
                                     const char *op_type);
const char     *fw_op_class_name    (FwOpClass   op_class);
/* The op class of a node's registry row; OPAQUE for an op the registry does not know. */
FwOpClass       fw_node_get_op_class (const FwNode *node);
/* All rows, for documentation and tests. */
const FwOpInfo *fw_op_registry_get  (guint      *n_ops);
/* FLOPs the cost model counts an element of an elementwise op (1 for the ops not in its table). */
gdouble         fw_op_elementwise_weight (const char *op_type);
/* Which throughput a node's arithmetic runs at (fw-profile.h's classes): a matrix product's by its size in
 * FLOP, any other node's by its op. */
FwCostClass     fw_op_gemm_class    (gdouble       flops);
/* The same size class as computed by a fused kernel's producer: FW_COST_CLASS_FUSED_GEMM_*. */
FwCostClass     fw_op_fused_gemm_class (gdouble    flops);
FwCostClass     fw_op_vector_class  (const FwNode *node);
/* Whether the node's class rate also prices it inside a host fused kernel: a division or square root, or a
 * function the fused kernel takes from the C library as the interpreter does; FALSE where the kernel has
 * its own operations for it (Erf, Pow, reductions), whose FLOP weights count them. */
gboolean        fw_op_fused_rate_is_classed (const FwNode *node);
/* Whether a host fused kernel sums the reduction node's rows in lanes, independent adds a vector wide
 * (fw-host-region.c): a half kernel's sums, whose order the rounding to half hides. A float32 kernel keeps
 * the reference's one accumulator, and a maximum, minimum or product keeps one in any kernel. */
gboolean        fw_op_fused_sum_in_lanes (const FwNode *node,
                                          gboolean      half_kernel);
/* Whether the node is a reduction a host fused kernel accumulates in one chain of dependent operations:
 * each element waits for the last one's add, so the row takes a latency an element, not a vector's
 * throughput (priced by the calibration's `reduce` class, which times the same chain). */
gboolean        fw_op_fused_reduction_is_chain (const FwNode *node,
                                                gboolean      half_kernel);
/* Generic cost for a node: FLOPs per output element by class, bytes from static shapes. */
gboolean        fw_op_cost          (const FwNode *node,
                                     FwOpCost     *cost);

G_END_DECLS
