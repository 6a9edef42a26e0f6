/* fw-kernel-spec.h: the planner's frozen decision for one fused group, read by every code generator.
 *
 * The planner decides once, for each group, what the kernel iterates over, which values stream, stay
 * resident or live on chip and for how long, the tile and the Unified Buffer plan, and what it all costs.
 * A code generator reads those decisions here and derives none of them again: the UB figure a report gives
 * is the one the kernel's tiling is computed from (docs/kernel-spec.md). A spec is built by the planner,
 * owned by its candidate and immutable. */
#pragma once

#include <glib.h>

#include "graph/fw-graph.h"

G_BEGIN_DECLS

/* The iteration space: the group's largest tensor, with the number of trailing axes a tile must hold
 * whole (`row_axes`, 0 when the group is tiled flat). */
typedef struct
{
  gint    rank;
  gint64  dims[FW_MAX_RANK];
  gint    row_axes;
} FwSpace;

gint64                fw_space_elements              (const FwSpace      *space);
/* Elements of one row: the product of the trailing row axes (1 when none). */
gint64                fw_space_row_elements          (const FwSpace      *space);

/* How a value maps onto the space. */
typedef enum {
  FW_SHAPE_FULL,   /* the whole iteration space */
  FW_SHAPE_ROW,    /* the space with its trailing row axes reduced (kept as 1 or dropped) */
  FW_SHAPE_SMALL,  /* broadcast into the space (bias, scale) */
  FW_SHAPE_OTHER,  /* does not map onto the space */
} FwShapeRole;

/* What a value is to the kernel. */
typedef enum {
  FW_SPEC_INPUT,         /* read from HBM (streamed tile by tile, or loaded whole when SMALL) */
  FW_SPEC_ROOT_OPERAND,  /* read only by the compute root, through L1/L0 rather than the Unified Buffer */
  FW_SPEC_IMMEDIATE,     /* a scalar constant (or a few shape integers) compiled into the kernel */
  FW_SPEC_INTERMEDIATE,  /* made and consumed inside the group */
  FW_SPEC_OUTPUT,        /* made inside and written to HBM: used outside the group or a graph output */
} FwSpecKind;

/* A broadcast operand's form, as the kernels apply it. */
typedef enum {
  FW_BROADCAST_NONE,          /* not broadcast: FULL or ROW */
  FW_BROADCAST_SCALAR,        /* one element */
  FW_BROADCAST_ROW_VECTOR,    /* exactly the trailing axes, repeated along every leading one ([H] in [B,S,H]) */
  FW_BROADCAST_PER_ROW,       /* constant along trailing axes, matching the leading ones ([B,S,1] in [B,S,H]) */
  FW_BROADCAST_CHANNEL,       /* a [C] vector along axis 1 (BatchNormalization's parameters) */
  FW_BROADCAST_OTHER,         /* numpy broadcasting some other way */
} FwBroadcast;

/* Where a value lies over the space (fw-index-map.c): element offset + Σ strides[a] · i_a. Filled for every
 * value of a group with injective members (Reshape, Transpose, Slice, ...); `indexed` only for those reached
 * across one, which are read or written through the map instead of by numpy broadcasting. */
#define FW_INDEX_MAP_RANK 8  /* index maps follow spaces and values up to this rank */

typedef struct
{
  gboolean  indexed;
  gboolean  linear;      /* the space's own layout: offset 0 and the space's contiguous strides (a free view) */
  gboolean  bijective;   /* each element of the value is one point of the space */
  gint64    offset;
  gint64    strides[FW_INDEX_MAP_RANK];
  gint64    touched;     /* elements of the value the space reaches */
} FwIndexMap;

typedef struct
{
  FwValue     *value;
  FwSpecKind   kind;
  FwShapeRole  role;        /* against the spec's space (rows included) */
  FwBroadcast  broadcast;   /* for SMALL inputs */
  gint         broadcast_axes; /* ROW_VECTOR, PER_ROW: the trailing axes it covers or is constant along */
  guint        elem_bytes;
  gint64       elements;
  guint        first;       /* position in the group where it becomes live (inputs: its first reader) */
  guint        last;        /* position of its last reader inside the group; nodes->len when it leaves */
  guint        pass;        /* made inside: the pass over a row from which it can be read (0 without row ops) */
  gboolean     carried;     /* made inside, read in a later pass and not one element per row: kept whole
                               for the row between passes */
  FwIndexMap   map;         /* map.indexed: reached across an injective member (fw-index-map.c) */
} FwSpecValue;

/* One entry of the Unified Buffer plan: a buffer the kernel holds while the tile is processed. */
typedef struct
{
  const FwValue *value;
  FwShapeRole    role;
  guint          elem_bytes;
  gint64         elements;  /* the value's elements (a SMALL or OTHER buffer holds at most one tile of them) */
  gboolean       streamed;  /* double-buffered: loaded from or stored to HBM while the next tile computes */
  guint          first;
  guint          last;
} FwSpecBuffer;

/* A target's own buffer arrangement for the kernel (what its Init allocates), when the planner was given
 * one to price (FwPlanOptions.arrange): each buffer sized per tile. */
typedef enum {
  FW_UB_TILE,   /* tile-shaped: the tile's elements (rows × row_stride in rows), rounded to tile_align */
  FW_UB_ROWS,   /* one element per row of the tile, in bytes rounded to block_bytes */
  FW_UB_FIXED,  /* fixed_bytes, rounded to block_bytes */
} FwUbSizing;

typedef struct
{
  FwUbSizing  sizing;
  guint       elem_bytes;
  guint       copies;       /* 2 for a double-buffered queue */
  gint64      fixed_bytes;
} FwUbBuffer;

/* What the target's kernel is, decided once when the target arranges it (fw_kernel_spec_get_form): the
 * planner prices the kernel's HBM traffic by it and the reports print it. */
typedef enum {
  FW_KERNEL_FORM_VECTOR,       /* no compute root: the group runs on the vector unit */
  FW_KERNEL_FORM_EPILOGUE,     /* the compute root runs as the vendor's own operator and writes its result to
                                  HBM; the kernel is the epilogue reading it back (a round trip it still makes) */
  FW_KERNEL_FORM_CUBE_VECTOR,  /* one mixed kernel: the cube's result stays on chip for the vector epilogue */
} FwKernelForm;

typedef struct
{
  GArray  *buffers;      /* FwUbBuffer, in the order the kernel allocates them */
  gint64   row_stride;   /* rows: elements from one row of a tile-shaped buffer to the next */
  guint    tile_align;   /* elements a tile-shaped buffer is rounded up to */
  guint    block_bytes;  /* bytes row-shaped and fixed buffers are rounded up to */
  FwKernelForm form;
  char    *form_reason;  /* EPILOGUE with a MatMul/Gemm root: why it is not one mixed kernel; else NULL */
  /* CUBE_VECTOR: the tile is the cube tiling's C block (tile elements, rows), not searched, and the HBM
   * bytes are the kernel's own (A and B re-read as the cube tiling walks C), priced instead of each outside
   * value once. 0 otherwise. */
  gint64   fixed_tile;
  gint64   fixed_rows;
  gdouble  hbm_read;
  gdouble  hbm_written;
  /* CUBE_VECTOR: the vector cores the epilogue runs on, one per block (a cube core's share of C): fewer than
   * the profile's vector cores on a split chip, so the vector work is priced over these. 0 otherwise. */
  guint    vector_cores;
} FwUbArrangement;

void                  fw_ub_arrangement_init         (FwUbArrangement    *arrangement);
void                  fw_ub_arrangement_clear        (FwUbArrangement    *arrangement);
/* Bytes the arrangement takes for a tile of `tile` elements and `rows` rows. */
gdouble               fw_ub_arrangement_bytes        (const FwUbArrangement *arrangement,
                                                      gboolean            rows_mode,
                                                      gdouble             tile,
                                                      gdouble             rows,
                                                      guint              *n_buffers);
gboolean              fw_ub_arrangement_equal        (const FwUbArrangement *a,
                                                      const FwUbArrangement *b);

/* How a row operation of the group reduces or normalises. */
typedef struct
{
  gint     axes;       /* trailing axes reduced; 0: not a row operation */
  gint     from_end;   /* a single reduced axis that is not the last (opset-13 Softmax): its position from the
                          end, iterated as if it were last; 0 otherwise */
  gboolean full_out;   /* the output keeps the input's shape (Softmax, LayerNormalization) */
  gboolean keepdims;   /* a reduction's result keeps the reduced axes as 1 */
  gboolean by_default; /* a reduction given no axes (or empty ones): every axis, a full reduction */
} FwRowOp;

/* The spec's prices on the profile it was planned for (fw-estimate.c): what the kernel costs the chip. */
typedef struct
{
  gint64   tile_elements;     /* elements of the iteration space one tile covers */
  gint64   unit_elements;     /* what a tile is a whole number of: one row, one cube fractal or one block */
  gint64   tile_rows;         /* rows per tile for row reductions (1 otherwise) */
  gint64   row_elements;      /* elements one row needs in UB for row reductions (1 otherwise) */
  gdouble  ub_bytes;          /* UB the chosen tile needs: double-buffered inputs and outputs plus live
                                 intermediates */
  gdouble  ub_budget_bytes;   /* what the profile allows one kernel */
  gdouble  ub_percent;        /* ub_bytes / budget × 100 */
  gdouble  ub_min_bytes;      /* UB the smallest legal tile needs */
  guint    n_buffers;         /* buffers live at once (double-buffered ones count twice) */
  guint    queues;            /* vector queues: one per streamed input and output */
  guint    kernel_inputs;     /* distinct tensors read from HBM (scalar constants are immediates) */
  guint    kernel_outputs;    /* tensors written to HBM */
} FwResourceEstimate;

typedef struct
{
  gdouble  bytes_read_before;
  gdouble  bytes_written_before;
  gdouble  bytes_read_after;
  gdouble  bytes_written_after;
  guint    launches_before;
  guint    launches_after;
  gdouble  flops;
  gdouble  time_before_s;
  gdouble  time_after_s;
  gdouble  saving_s;          /* time_before − time_after */
  /* The target's own kernel alone, what the twin runs and estimates: time_after_s, except for an EPILOGUE
     form, whose compute root is the vendor's operator (its bytes, cube work and launch are not the kernel's) */
  gdouble  kernel_time_s;
} FwCostEstimate;

/* A fused attention group (fw-attention.c): the scores Q·K (the first MatMul; K is its second operand,
 * [.., D, Sk]), the score chain (a scale, a mask: Mul, Div, Add or Sub by a scalar or a tensor that
 * broadcasts into the scores) applied as the scores are made, Softmax over the keys, then P·V (the second
 * MatMul), written through the index map of the views after it (a head merge: Transpose, Reshape). The kernel
 * walks blocks of query rows; each block's scores, softmax and product stay on chip. Where one row block's
 * scores over all keys do not fit, it walks the keys in blocks with a running maximum and sum (an online
 * softmax, as flash attention does) and rescales what it has summed. */
#define FW_ATTENTION_RANK FW_INDEX_MAP_RANK

typedef struct
{
  FwNode   *scores;       /* the Q·K MatMul (the group's root) */
  FwNode   *softmax;
  FwNode   *product;      /* the P·V MatMul */
  FwValue  *q, *k, *v;    /* q [.., Sq, D], k [.., D, Sk], v [.., Sk, Dv], each broadcast over the lead axes */
  FwValue  *out;          /* what leaves the kernel: the product's result, or the last view's after it */
  gint      lead_rank;    /* the scores' batch axes */
  gint64    lead[FW_ATTENTION_RANK];
  gint64    sq, sk, d, dv;
  gint64    q_block;      /* query rows per block: one unit of work */
  gint64    key_block;    /* keys per block: sk when a row block's scores fit whole */
  gboolean  online;       /* several key blocks: the online softmax */
  gint64    out_strides[FW_ATTENTION_RANK + 2]; /* element strides of out over the product's axes */
} FwAttentionSpec;

/* A horizontal GEMM (fw-hgemm.c, the aggressive strategy): projections that read the same activation A
 * [.., M, K] with constant weights of the same K (attention's Q, K and V; an MLP's gate and up) computed as
 * one product of A with their weights side by side, [K, n], each projection's result a column slice of it.
 * The weights are concatenated once, when the kernel is prepared; each slice keeps its own elementwise
 * epilogue (a bias, an activation, a view), which may read another slice's result (SwiGLU's gate · up). */
typedef struct
{
  FwNode   *root;      /* the slice's MatMul or Gemm */
  FwValue  *weight;    /* constant, [K, n] (a Gemm's with transB: [n, K]) */
  FwValue  *bias;      /* a Gemm's C ([n], [1, n] or one element), or NULL */
  gboolean  trans_b;
  gdouble   alpha, beta;
  gint64    n;         /* the slice's columns */
  gint64    col;       /* its first column in the product */
} FwHgemmSlice;

typedef struct
{
  FwValue      *a;         /* the shared activation */
  gint64        m, k, n;   /* rows (every axis of A but the last), the inner dimension, all columns */
  guint         n_slices;
  FwHgemmSlice *slices;    /* in the group's order */
  /* An RMSNorm computed row by row as A is loaded, when the group holds the one that makes A (its result read
   * by the products only): A = x / √(mean (x²) + eps) · gamma over the last axis; norm_x NULL otherwise. */
  FwValue      *norm_x;        /* read instead of A */
  FwValue      *norm_gamma;    /* a constant [K], or NULL */
  gdouble       norm_eps;
  gboolean      norm_divides;  /* x / √… as exported; else x · (1 / √…) */
} FwHgemmSpec;

typedef struct _FwKernelSpec FwKernelSpec;

/* Members in execution (topological) order. */
guint                 fw_kernel_spec_get_n_nodes     (const FwKernelSpec *spec);
FwNode               *fw_kernel_spec_get_node        (const FwKernelSpec *spec,
                                                      guint               position);
gboolean              fw_kernel_spec_contains        (const FwKernelSpec *spec,
                                                      const FwNode       *node);
/* Position of a member in execution order, or -1. */
gint                  fw_kernel_spec_position        (const FwKernelSpec *spec,
                                                      const FwNode       *node);
/* The compute-bound producer (MatMul, Gemm, Conv) whose epilogue the group is, or NULL. */
FwNode               *fw_kernel_spec_get_root        (const FwKernelSpec *spec);
const FwSpace        *fw_kernel_spec_get_space       (const FwKernelSpec *spec);
/* Trailing axes row operations reduce (0 when none); broadcast rows aside. */
gint                  fw_kernel_spec_get_reduce_axes (const FwKernelSpec *spec);
/* The row arrangement of a member (axes 0 when it is not a row operation); *why, when not NULL, says why
 * a row operation's axes could not be described (NULL when they could). */
const FwRowOp        *fw_kernel_spec_get_row_op      (const FwKernelSpec *spec,
                                                      guint               position,
                                                      const char        **why);
/* Values in the order the group first touches them; immediates included. */
guint                 fw_kernel_spec_get_n_values    (const FwKernelSpec *spec);
const FwSpecValue    *fw_kernel_spec_get_value       (const FwKernelSpec *spec,
                                                      guint               index);
const FwSpecValue    *fw_kernel_spec_lookup          (const FwKernelSpec *spec,
                                                      const FwValue      *value);
/* Whether a value made inside leaves the kernel (an output). */
gboolean              fw_kernel_spec_is_output       (const FwKernelSpec *spec,
                                                      const FwValue      *value);
/* Distinct tensors read from HBM (immediates aside), and tensors written to it. */
guint                 fw_kernel_spec_get_n_inputs    (const FwKernelSpec *spec);
guint                 fw_kernel_spec_get_n_outputs   (const FwKernelSpec *spec);
/* What the kernel costs the chip at the planner's tile, and what it saves: priced once when the planner made
 * the spec (zero for a spec made outside a plan). */
const FwResourceEstimate *fw_kernel_spec_get_resource (const FwKernelSpec *spec);
const FwCostEstimate *fw_kernel_spec_get_cost        (const FwKernelSpec *spec);
/* Passes over each row (fw-kernel-passes.c): 1 without row operations. A member runs in passes
 * first..last (a normalising row operation spans three or more; everything else one). */
guint                 fw_kernel_spec_get_n_passes    (const FwKernelSpec *spec);
void                  fw_kernel_spec_get_passes      (const FwKernelSpec *spec,
                                                      guint               position,
                                                      guint              *first,
                                                      guint              *last);
/* Elements of the row the row operations sweep (0 without row operations), and how many values are carried
 * across passes: the row storage a kernel keeps is their product (per thread on the host). */
gint64                fw_kernel_spec_get_sweep_row_elements (const FwKernelSpec *spec);
guint                 fw_kernel_spec_get_n_carried   (const FwKernelSpec *spec);
/* Whether input `slot` of a node is data the kernel computes with (a reduction's axes, Dropout's ratio are
 * parameters read when it is generated). */
gboolean              fw_node_is_data_input          (const FwNode       *node,
                                                      guint               slot);
/* A Slice's start and step on every axis of its input (its ends are in its result's shape), normalised as
 * ONNX clamps them; FALSE when they are known only at run time. */
gboolean              fw_node_slice_params           (const FwNode       *node,
                                                      gint64             *start,
                                                      gint64             *step);
/* Whether any value is read or written through an index map (the group has injective members on its
 * paths); `strided`: through one that is not the space's own layout (a transpose, a slice). */
gboolean              fw_kernel_spec_has_index_maps  (const FwKernelSpec *spec,
                                                      gboolean            strided);
/* The attention the group computes, or NULL when it is not a fused attention. */
const FwAttentionSpec *fw_kernel_spec_get_attention (const FwKernelSpec *spec);
/* The horizontal GEMM the group computes, or NULL when it is none. */
const FwHgemmSpec    *fw_kernel_spec_get_hgemm      (const FwKernelSpec *spec);
/* Its weights side by side, [K, n] row-major (transposed ones turned, a Gemm's alpha folded in), and, when
 * bias_out is not NULL, the slices' biases times beta side by side ([n], 0 where a slice has none; NULL when
 * none has one); NULL when a weight or bias has no float32 data. g_free both. */
float                *fw_hgemm_pack                  (const FwHgemmSpec  *hgemm,
                                                      float             **bias_out);
/* The Unified Buffer plan. */
guint                 fw_kernel_spec_get_n_buffers   (const FwKernelSpec *spec);
const FwSpecBuffer   *fw_kernel_spec_get_buffer      (const FwKernelSpec *spec,
                                                      guint               index);
/* The target's arrangement the planner priced, or NULL when it priced its own buffer plan. */
const FwUbArrangement *fw_kernel_spec_get_arrangement (const FwKernelSpec *spec);
/* What the kernel is: the target's arrangement's form, else EPILOGUE with a compute root and VECTOR without. */
FwKernelForm          fw_kernel_spec_get_form        (const FwKernelSpec *spec);
/* Why a group with a compute root is not one mixed kernel (NULL when it is, or has no root). */
const char           *fw_kernel_spec_get_form_reason (const FwKernelSpec *spec);
/* Bytes the kernel takes for a tile of `tile` space elements and `rows` rows: the target's arrangement when
 * there is one, else the plan's buffers each rounded up to `align` bytes, streamed ones twice, intermediates
 * at their peak liveness. */
gdouble               fw_kernel_spec_ub_bytes        (const FwKernelSpec *spec,
                                                      guint               align,
                                                      gdouble             tile,
                                                      gdouble             rows,
                                                      guint              *n_buffers);

G_END_DECLS
