/* fw-host-codegen-private.h: what the files of the host generator share: the generator's state (Gen), the
 * group's values (SkVal) and nodes (SkNode), and the functions one phase calls in another.
 *
 *   fw-host-codegen.c    assembles the kernel source: header, entry, the phases in order
 *   fw-host-schedule.c   what loops exist: values, row axes, the space, strides, merged axes, passes
 *   fw-host-expr.c       literals, operand loads and stores, each node's C expression
 *   fw-host-region.c     the parallel region over rows: row prologue, passes, reductions
 *   fw-host-producers.c  the compute roots: MatMul, Gemm and Conv by oneDNN or sgemm (or a direct grouped Conv)
 *   fw-host-dnnl.c       the oneDNN primitives the producers call
 *   fw-host-half.c       float16 and bfloat16: conversions, row converters, float32 panels of root operands
 *   fw-host-int8.c       integer (QDQ) groups: int8 products in int32, the dequantising epilogue, requantisation
 *   fw-host-attention.c  a fused attention group, whole: its own loop over query blocks and key blocks
 *   fw-host-hgemm.c      a horizontal GEMM group, whole: one sgemm over packed weights, then each slice */
#pragma once

#include "fw-superkernel-private.h"
#include "plan/fw-plan.h"

G_BEGIN_DECLS

/* A grouped Conv whose group reduces over at most this many taps (channels × kernel window) is computed by a
 * direct loop: as sgemm calls per group they are matrices of one or a few rows, where the call costs more
 * than its arithmetic (MobileNet's depthwise convolutions). */
#define DIRECT_CONV_TAPS 64
/* A region over at most this many elements runs on one thread, as the reference's elementwise kernels do
 * up to the same size. Waking a second thread saves little there, and on a loaded machine the region's end can
 * wait a whole scheduler time slice (4 ms and more) for a thread that did not get a core: medians of small
 * MobileNet kernels went from 0.4 ms to 16 ms that way. */
#define PARALLEL_MIN_ELEMENTS 65536
/* An elementwise group whose single inner run is longer than this is cut into chunks, so threads share it. */
#define CHUNK_ELEMENTS 8192

typedef enum {
  SV_EXTERNAL,   /* read from a kernel input */
  SV_IMM_SCALAR, /* a one-element constant, printed as a literal */
  SV_IMM_ARRAY,  /* a small constant, printed as a static array */
  SV_INTERNAL,   /* computed inside the group */
  SV_TILE,       /* the root's sgemm tile */
} SvKind;

typedef enum {
  MAP_NONE,      /* not in the space (MatMul/Conv operands) */
  MAP_RIGHT,     /* numpy broadcasting, right-aligned */
  MAP_CHANNEL,   /* a [C] vector along axis 1 (BatchNormalization, Conv bias) */
  MAP_LEAD,      /* a reduction's keepdims=0 result: the lead axes */
} SvMap;

typedef struct
{
  guint     id;
  FwValue  *value;       /* NULL for the tile */
  SvKind    kind;
  SvMap     map;
  FwDType   dtype;
  gint      in_index;    /* SV_EXTERNAL */
  gint      out_index;   /* -1 unless the value leaves the kernel */
  gint      imm_index;   /* SV_IMM_ARRAY */
  gboolean  rowv;        /* constant along the inner axes */
  gint      pass;        /* internal: the pass computing it (ELEM) or the section it is ready in (ROWV) */
  gboolean  scratch;
  gint      scratch_slot;
  gint64    strides[FW_MAX_RANK];  /* element strides over the space's axes */
  gint64    offset;      /* element offset of the space's origin: the planner's index map (a slice) */
  gint64    cstr[FW_MAX_RANK];     /* over the merged axes: lead ones first, then inner ones */
  gint      loaded_pass; /* the pass whose body loaded it, -1 */
  gint      panel;       /* a half input widened once into hp[panel] (its dtype then float32), -1 */
  gboolean  row_loaded;
  gboolean  need_ptr;
  gboolean  need_scr;
  gboolean  half_in;     /* half, read unit-stride in this pass: through a block converted to float32 */
  gboolean  half_out;    /* half output written unit-stride in this pass: through a float32 block */
} SkVal;

typedef enum {
  NK_ELEM,
  NK_ROWV,
  NK_REDUCE,
  NK_SOFTMAX,
  NK_LAYERNORM,
  NK_ROOT,
} NodeKind;

typedef struct
{
  FwNode   *node;
  guint     id;
  NodeKind  kind;
  gint      pass;        /* NK_ELEM, NK_ROOT: its pass; stage nodes: the first stage's pass */
  gint      last_pass;   /* stage nodes: the pass of the last stage */
  SkVal    *out;
} SkNode;

typedef struct
{
  FwPlan            *plan;
  const FwCandidate *cand;
  FwSuperKernel     *kernel;
  GPtrArray         *vals;      /* SkVal*, owned */
  GHashTable        *by_value;  /* FwValue* → SkVal* */
  GArray            *nodes;     /* SkNode */
  FwNode            *root;
  SkVal             *tile;
  gint               rank;
  gint64             dims[FW_MAX_RANK];
  gint               row_axes;  /* trailing axes the row operations reduce, 0 when none */
  gint               moved;     /* the space axis a row operation reduces though it is not the last, moved last
                                   for iteration (opset 13 Softmax on an inner axis); -1 when none */
  gint               split;     /* first inner axis of the space, -1 until known */
  gint               n_lead, n_inner;
  gint64             lead[FW_MAX_RANK], inner[FW_MAX_RANK];
  gint64             n_rows, row_len;
  gint64             chunk, n_chunks;
  gint               n_passes;
  gint               n_scratch;
  gboolean           in_place;  /* the root computes into the output the epilogue overwrites */
  gint64             gemm_k;    /* the inner dimension of the sgemm the region follows, 0 when none */
  guint              n_imm;
  gint               n_panels;  /* float32 copies of half root operands (hp[k]) */
  gboolean           half;      /* some value is float16 or bfloat16: the conversions are emitted */
  gboolean           pass_lanes; /* the pass being emitted sums into lane accumulators (fw-host-region.c) */
  gboolean           team;      /* kernel->team: the body's loops are work-shared in the caller's team */
  GString           *decls;     /* file-scope constants */
  GString           *body;      /* the entry's body */
  /* Set while an attention operand's block load is written row by row (fw-host-attention.c): each read
     of a kernel input appends its index expression here and is written as in<N>[o<i> + k]. */
  GPtrArray         *row_reads;
} Gen;

#define LEAD_STRIDE(v, k) ((v)->cstr[(k)])
#define INNER_STRIDE(v, k) ((v)->cstr[FW_MAX_RANK / 2 + (k)])

/* fw-host-codegen.c: FALSE with an FW_ERROR_UNSUPPORTED "host SuperKernel: …" error. */
G_GNUC_PRINTF (2, 3)
gboolean     fw_hc_unsupported         (GError       **error,
                                        const char    *format,
                                        ...);

/* The index of v among the kernel's inputs, added when it is not one yet (the generators that write their
 * whole bodies: attention, horizontal GEMM). */
gint         fw_hc_kernel_input        (Gen           *g,
                                        FwValue       *v);
/* A model's string inside a generated comment, escaped so it cannot end the comment or splice lines. */
void         fw_hc_append_comment_text (GString       *s,
                                        const char    *text);
/* What every generated file starts with after its comment: includes, the runtime table, the ABI version and
 * the helpers (the half-precision ones when half). */
void         fw_hc_append_prelude      (GString       *src,
                                        gboolean       half);
/* The runtime table's declarations and the ABI version alone (the integer kernels' own prelude has them). */
void         fw_hc_append_runtime_table (GString      *src);

/* fw-host-schedule.c: the group's values, space, strides, merged axes, passes and where the root writes,
 * in that order; FALSE with error when the group cannot be generated. */
gboolean     fw_hc_schedule            (Gen           *g,
                                        GError       **error);
/* The value of input k of node, NULL when it has none or it is a parameter read at generation. */
SkVal       *fw_hc_input_val           (Gen           *g,
                                        const FwNode  *node,
                                        guint          k);
/* TRUE unless v is a root operand that does not map onto the space. */
gboolean     fw_hc_val_in_space        (const SkVal   *v);

/* fw-host-expr.c: register and memory types (NULL for an unsupported dtype), literals, operands. */
const char  *fw_hc_reg_type            (FwDType        dtype);
const char  *fw_hc_mem_type            (FwDType        dtype);
gboolean     fw_hc_is_floatish         (FwDType        dtype);
void         fw_hc_append_const_element (GString      *s,
                                        FwTensor      *t,
                                        gint64         i,
                                        FwDType        dtype);
/* f as an exact float literal, newly allocated. */
char        *fw_hc_flit                (float          f);
/* The array v's row pointer is based on (in<i>, out<i>, c<i> or dst) into buf. */
const char  *fw_hc_ptr_base            (SkVal         *v,
                                        char          *buf,
                                        gsize          len);
void         fw_hc_operand             (Gen           *g,
                                        GString       *s,
                                        SkVal         *v,
                                        gint           pass,
                                        GString       *out);
char        *fw_hc_elementwise_expr    (Gen           *g,
                                        GString       *s,
                                        const FwNode  *node,
                                        gint           pass,
                                        SkVal         *out,
                                        GError       **error);
/* fw-host-custom.c: a custom operator's expression, or NULL with the refusal. */
char        *fw_hc_custom_expr         (Gen           *g,
                                        GString       *s,
                                        const FwNode  *node,
                                        gint           pass,
                                        SkVal         *out,
                                        GError       **error);
void         fw_hc_append_store        (Gen           *g,
                                        GString       *s,
                                        SkVal         *v,
                                        const char    *indent,
                                        gboolean       row_scope);

/* fw-host-half.c: float16 and bfloat16 (register type float, memory type uint16_t). */
gboolean     fw_hc_is_half             (FwDType        dtype);
/* "h" (float16) or "b" (bfloat16): the letter of the generated conversions fw_<l>2f, fw_f2<l>, fw_<l>2f_row
 * and fw_f2<l>_row; NULL for other dtypes. */
const char  *fw_hc_half_letter         (FwDType        dtype);
void         fw_hc_append_half_helpers (GString       *src);
const char  *fw_hc_root_operand        (Gen           *g,
                                        SkVal         *v,
                                        char          *buf,
                                        gsize          len);
/* Half inputs every row reads alike (weights, biases, norm scales) widened once before the region. */
void         fw_hc_widen_row_invariant (Gen           *g);

/* fw-host-region.c */
gboolean     fw_hc_emit_region         (Gen           *g,
                                        const char    *count,
                                        const char    *row_expr,
                                        const char    *row_pre,
                                        GError       **error);

/* fw-host-producers.c: which library computes the root (oneDNN where it takes the shape, else OpenBLAS or
 * the direct grouped Conv), decided once into kernel->producer_kind; FW_HOST_PRODUCER=openblas keeps
 * OpenBLAS. Then the root's product into the tile (or the output in place), then the epilogue's region. */
void         fw_hc_choose_producer     (Gen           *g);
gboolean     fw_hc_emit_matmul         (Gen           *g,
                                        GError       **error);
gboolean     fw_hc_emit_gemm           (Gen           *g,
                                        GError       **error);
gboolean     fw_hc_emit_conv           (Gen           *g,
                                        GError       **error);

/* fw-host-int8.c: the whole kernel of an integer (QDQ) group (plan/fw-qdq.h), inputs, outputs and source. */
gboolean     fw_hc_int8_codegen        (FwSuperKernel *kernel,
                                        GError       **error);

/* fw-host-attention.c: a fused attention group's body, its inputs and its output (the schedule does not
 * run for it). */
gboolean     fw_hc_emit_attention      (Gen           *g,
                                        GError       **error);
/* Index expressions (fw-host-attention.c), NULL-terminated arrays the caller frees with g_strfreev: the
 * coordinates of v for an operand of a node whose result has coordinates c (rank `rank`), numpy broadcasting
 * from the right; and, for a view, the coordinates over `to` of the element at coordinates c over `from`. */
char       **fw_hc_broadcast_coords    (const FwValue *v,
                                        char         **c,
                                        gint           rank);
char       **fw_hc_reshape_coords      (const FwValue *from,
                                        char         **c,
                                        const FwValue *to);

/* fw-host-hgemm.c: a horizontal GEMM group's body, inputs and outputs, and the weights it packs side by side
 * once (kernel->packed, passed after the inputs). */
gboolean     fw_hc_emit_hgemm          (Gen           *g,
                                        GError       **error);

G_END_DECLS
