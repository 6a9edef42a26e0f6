/* fw-kernel-spec-private.h: the spec's fields, for the planner that builds it. Code generators read a spec
 * through fw-kernel-spec.h only. */
#pragma once

#include "fw-plan.h"
#include "hw/fw-profile.h"

G_BEGIN_DECLS

struct _FwKernelSpec
{
  GPtrArray    *nodes;        /* FwNode*, execution order */
  GHashTable   *positions;    /* FwNode* → position + 1 */
  FwNode       *root;
  FwSpace       space;        /* row_axes: the rows a tile holds whole, reductions' or broadcast operands' */
  gint          reduce_axes;  /* the rows row operations reduce, 0 when none */
  FwRowOp      *row_ops;      /* per position */
  char        **row_errors;   /* per position: why the node's rows cannot be described, or NULL */
  GArray       *values;       /* FwSpecValue */
  GHashTable   *by_value;     /* FwValue* → index + 1 */
  GArray       *buffers;      /* FwSpecBuffer */
  guint         n_inputs;     /* distinct tensors read from HBM */
  guint         n_outputs;    /* tensors written to HBM */
  FwUbArrangement *arrangement; /* the target's, priced instead of buffers; NULL when none */
  guint        *first_pass;   /* per position (fw-kernel-passes.c) */
  guint        *last_pass;
  guint         n_passes;
  guint         n_carried;
  gint64        sweep_row_elements;
  GHashTable   *maps;         /* FwValue* → FwIndexMap*, NULL without injective members or when they fail */
  char         *map_error;    /* why the index maps cannot be followed, or NULL */
  FwReasonCode  map_code;
  FwNode       *map_culprit;
  FwAttentionSpec *attention; /* a fused attention (fw-attention.c), or NULL */
  FwHgemmSpec  *hgemm;        /* a horizontal GEMM (fw-hgemm.c), or NULL */
  FwResourceEstimate resource;   /* the prices (fw-estimate.c) */
  FwCostEstimate     cost;
};

/* Builds the spec of the group: its nodes in topological order, the compute root (or NULL) and the
 * iteration space discovery gave it. Broadcast rows, when allowed, are chosen here when the space has no row
 * reduction and one row fits the profile's budget by the plan's own buffers. */
FwKernelSpec *fw_kernel_spec_new   (GPtrArray        *nodes,
                                    FwNode           *root,
                                    const FwSpace    *space,
                                    const FwProfile  *profile,
                                    gboolean          broadcast_rows);
/* Takes the arrangement's contents (before anyone reads the spec). */
void          fw_kernel_spec_take_arrangement (FwKernelSpec    *spec,
                                               FwUbArrangement *arrangement);
FwKernelSpec *fw_kernel_spec_new_for_nodes (GPtrArray *nodes,
                                           FwNode    *root,
                                           const FwProfile *profile);

/* Decides the passes over each row and the carried values, once the values are collected. */
void          fw_kernel_spec_plan_passes (FwKernelSpec *spec);

/* Rows per node for a row operation: the one definition (fw-kernel-spec.c); FALSE with a translated reason
 * when its axes cannot be described (computed at run time, not trailing, out of range). */
gboolean      fw_node_row_op_full  (const FwNode     *node,
                                    FwRowOp          *out,
                                    char            **why);

/* Index maps (fw-index-map.c): whether an injective member is one the maps follow at all (FALSE with a code
 * and a translated reason), and the map of every value of a group, FwValue* → FwIndexMap*. NULL without a
 * reason when the group has no injective member; NULL with *why set when a map cannot be followed. */
gboolean      fw_index_map_follows  (const FwNode     *node,
                                     FwReasonCode     *code,
                                     char            **why);
GHashTable   *fw_index_maps_compute (GPtrArray        *nodes,
                                     FwNode           *root,
                                     const FwSpace    *space,
                                     FwReasonCode     *code,
                                     char            **why,
                                     FwNode          **culprit);

/* Fused attention (fw-attention.c). Whether a MatMul starts an attention chain discovery can fuse: FALSE
 * and no reason when it is no attention at all; FALSE with a code, a translated reason and the node refused
 * when it is one that stays refused; TRUE with the chain's nodes (topological order, the scores MatMul first)
 * appended to `nodes`. */
gboolean      fw_attention_match     (FwNode           *scores,
                                      GPtrArray        *nodes,
                                      FwReasonCode     *code,
                                      char            **why,
                                      FwNode          **culprit);
/* Whether a node may be part of an attention operand's prologue (computed as Q, K or V are loaded): a view,
 * a Slice with constant starts and positive steps, a Concat, Neg, or float arithmetic, static. */
gboolean      fw_attention_prologue_op (const FwNode   *node);
/* Whether every reader of the node's results that runs is inside (inside (reader, data)), none a graph
 * output. */
gboolean      fw_attention_used_inside (const FwNode   *node,
                                        gboolean      (*inside) (const FwNode *, gpointer),
                                        gpointer        data);
/* The attention of a group's nodes with its blocks chosen for the profile, or NULL when they are none: the
 * chain, the views after its product and the operands' prologue. */
FwAttentionSpec *fw_attention_describe (GPtrArray      *nodes,
                                        FwNode         *root,
                                        const FwProfile *profile);
/* Its prices: the blocks' buffers (FALSE when even the smallest blocks do not fit), and the bytes the kernel
 * moves: Q once, K and V once per query block, each mask operand once per batch it is broadcast over, the
 * result once. */
gboolean      fw_attention_estimate_resource (const FwKernelSpec *spec,
                                              const FwProfile    *profile,
                                              FwResourceEstimate *out);
void          fw_attention_bytes             (const FwKernelSpec *spec,
                                              gdouble            *read,
                                              gdouble            *written);

/* Horizontal GEMM (fw-hgemm.c). Whether a node may be a slice's root: a float32 MatMul of a constant 2-D
 * weight, or a Gemm without transA whose B is constant and whose C is one that adds along the columns; FALSE
 * with a translated reason when not. */
gboolean      fw_hgemm_slice_root    (const FwNode     *node,
                                      char            **why);
/* Whether a node may be in a slice's epilogue: float elementwise arithmetic and activations, and views. */
gboolean      fw_hgemm_epilogue_op   (const FwNode     *node);
/* An RMSNorm (Pow or Mul → ReduceMean over the last axis → Add eps → Sqrt → Div, or Div (1, ·) or Reciprocal
 * and Mul → Mul by a constant gamma, or without it) whose result is a: TRUE with its nodes appended in
 * topological order (when nodes is not NULL) and the description in *norm (norm_* fields); FALSE when a is not
 * made so, or a value between its nodes is read outside them. */
gboolean      fw_hgemm_match_norm    (FwValue          *a,
                                      GPtrArray        *nodes,
                                      FwHgemmSpec      *norm);
/* The horizontal GEMM of a group's nodes, or NULL when they are none: two or more slice roots reading the
 * same A at the same K, every other member an epilogue op reached from them. Freed by fw_hgemm_spec_free. */
FwHgemmSpec  *fw_hgemm_describe      (GPtrArray        *nodes);
void          fw_hgemm_spec_free     (FwHgemmSpec      *hgemm);

G_END_DECLS
