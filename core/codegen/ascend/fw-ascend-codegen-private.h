/* fw-ascend-codegen-private.h: what the files of the Ascend generator share: the generator's state (Gen),
 * the kernel's operands, the planner's and the kernel's buffer lists, and the functions one phase calls in
 * another.
 *
 *   fw-ascend-codegen.c        file assembly: the phases in order, the tiling header, the host tiling, CMake,
 *                              README, and the public FwAscendKernel accessors
 *   fw-ascend-operands.c       the iteration space and rows, operands and temp slots, buffers and tiling
 *   fw-ascend-emit.c           per-op emission: each node's Compute statements
 *   fw-ascend-kernel-cpp.c     the kernel .cpp around them: copies, Init, Process, CopyIn, CopyOut, members
 *   fw-ascend-rows.c           many rows per instruction: row reductions and per-row operands in the
 *                              repeat/stride forms, and the kernel's helpers for them
 *   fw-ascend-cube.c           whether a MatMul/Gemm group is one mixed cube + vector kernel, its cube tiling
 *                              and HBM traffic, and the Matmul API parts of its .cpp
 *   fw-ascend-int8.c           an integer (QDQ) MatMul/Gemm/Conv group's own mixed kernel (int8 cube, the
 *                              dequantise/requantise epilogue in vector code)
 *   fw-ascend-int8-conv.c      its Conv form: C = W x im2col(x), the im2col by a vector prepass (Gather)
 *   fw-ascend-int8-act.c       its two-activation form (attention's products): both operands by a prepass */
#pragma once

#include "fw-ascend.h"
#include "fw-ascend-cube-tiling.h"
#include "hw/fw-profile.h"
#include "plan/fw-plan.h"

G_BEGIN_DECLS

typedef enum {
  KIND_INPUT,     /* streamed from GM through a VECIN queue */
  KIND_OUTPUT,    /* computed into a VECOUT queue, written to GM */
  KIND_TEMP,      /* an intermediate in a TBuf slot */
  KIND_SMALL,     /* broadcast operand, loaded whole */
  KIND_IMMEDIATE, /* scalar constant */
} OperandKind;

typedef struct _Operand Operand;

/* Tile-shaped scratch buffers sA..sE a node's statements may use (fw-ascend-emit.c). */
#define FW_AC_N_SCRATCH 5

struct _Operand
{
  FwValue     *value;
  OperandKind  kind;
  FwShapeRole  role;
  const char  *ctype;
  guint        eb;
  guint        index;        /* input, output or small number; slot for temps */
  guint        id;           /* v<id> in generated code */
  double       imm;
  gint64       vstride[FW_MAX_RANK];
  gint64       elements;
  guint        first;
  guint        last;
  gboolean     output;       /* also written to GM */
  /* Boolean values live in UB as Compare's bit masks (one bit per element, uint8_t storage). Not, and
   * Cast or Identity from bool to bool, make no code: they alias their source mask, Not flipping `invert`
   * (relative to the source's own `invert`, which a comparison may set when it is emitted). */
  gboolean     mask;
  Operand     *alias_of;
  gboolean     invert;
  /* A broadcast operand that is exactly one row (bias, LayerNorm gamma/beta): it stays resident in its load
   * buffer and each row of the tile is computed against it, so no tile-shaped copy is made. */
  gboolean     rowvec;
};

/* What the generated kernel allocates: role FULL (tile), ROW (rows), or OTHER (fixed bytes in `elements`). */
typedef struct
{
  FwShapeRole role;
  guint       eb;
  guint       copies;
  gint64      elements;
} KernelBuffer;

typedef struct
{
  FwPlan            *plan;
  const FwCandidate *cand;
  const FwKernelSpec *spec;
  const FwProfile   *profile;
  FwSpace            space;
  gboolean           rows_mode;
  /* The planner tiled whole rows for broadcast operands (per-row scalars or row vectors in an elementwise
   * group), not for a row reduction. */
  gboolean           broadcast_rows;
  gint64             total;
  gint64             row_len;    /* rows mode: elements per row */
  gint64             row_stride; /* rows mode: row pitch in UB */
  GHashTable        *operands;   /* FwValue* → Operand* */
  GPtrArray         *all;        /* Operand*, owned */
  GPtrArray         *inputs;     /* Operand* streamed */
  GPtrArray         *outputs;
  GPtrArray         *smalls;
  GArray            *slot_eb;    /* guint per temp slot */
  GArray            *kernel_buffers;
  GString           *compute;
  gboolean           scratch[FW_AC_N_SCRATCH];
  /* A float16 group whose reductions, normalisations or transcendental chains compute in float32
   * (fw_ac_decide_wide): its scratch, row scratch and reduction buffers hold float (max_eb 4). */
  gboolean           wide;
  gboolean           row_scratch;
  gboolean           reduce;
  gboolean           uses_mask;   /* Compare/Select: counts and tile buffers in whole 256-byte blocks */
  /* fw-ascend-rows.c: rows-mode statements cover many rows per instruction (decided once, before the nodes);
   * the helpers are used, and need the per-row broadcast buffer and the fold buffer of long rows. */
  gboolean           row_forms;
  gboolean           row_forms_used;
  gboolean           row_bcast;
  gboolean           row_fold;
  guint              max_eb;
  char              *name;
  char              *struct_name;
  /* A mixed cube + vector kernel (fw-ascend-cube.c): the root's product comes block by block from the
   * Matmul API into cube_result's queue; the C blocks are the tiles (rows x cols at a pitch of baseN). */
  gboolean           allow_cube;   /* try the mixed form (cleared to fall back to the epilogue) */
  gboolean           cube;
  char              *not_cube;     /* why a MatMul/Gemm root is an epilogue, or NULL */
  Operand           *cube_result;
  FwValue           *cube_a, *cube_b, *cube_bias;
  FwNode            *bias_add;     /* an Add of a bias row folded into SetBias, or NULL */
  gboolean           trans_b;
  gdouble            alpha;        /* Gemm's alpha, applied to each block first (1: none) */
  gint64             batch;        /* products (the batch of a batched MatMul; 1 for 2-D) */
  gint64             a_batch, b_batch; /* A's and B's batch (1: broadcast over every product) */
  FwCubeShape        cube_shape;
  FwCubeTiling       cube_tiling;
  /* Generating the kernel as a SuperKernel's sub-kernel (fw_ac_gen_body): no includes, no extern "C" entry. */
  gboolean           as_body;
} Gen;

/* fw-ascend-operands.c, in the order generate () calls them. */
gboolean     fw_ac_read_space             (Gen            *g,
                                           GError        **error);
gboolean     fw_ac_build_operands         (Gen            *g,
                                           GError        **error);
void         fw_ac_decide_wide            (Gen            *g);
gboolean     fw_ac_computes_wide          (const FwNode   *node);
void         fw_ac_collect_kernel_buffers (Gen            *g);
gdouble      fw_ac_kernel_bytes           (Gen            *g,
                                           gint64          tile_len,
                                           gint64          rows);
void         fw_ac_compute_tiling         (Gen            *g,
                                           FwAscendTiling *out);
guint        fw_ac_full_align             (Gen            *g);
gboolean     fw_ac_needs_expand           (const Operand  *o);
gboolean     fw_ac_is_float_ctype         (const char     *ctype);

/* fw-ascend-emit.c: node's statements into g->compute; FALSE with error when it has no lowering. */
gboolean     fw_ac_emit_node              (Gen            *g,
                                           guint           pos,
                                           FwNode         *node,
                                           GError        **error);

/* erf(src) into dst over count elements (the vector unit has no Erf instruction), with three scratch tensors
 * of ctype named sA, sB and sC in scope. */
void         fw_ac_erf_statements         (GString        *s,
                                           const char     *dst,
                                           const char     *src,
                                           const char     *ctype,
                                           const char     *count);

/* fw-ascend-rows.c. How an operand of a per-row binary instruction is laid out: a tile (a row every
 * ROW_STRIDE), one value per row (broadcast with Brcb first), or the one resident row. */
typedef enum {
  FW_ROW_FORM_TILE,
  FW_ROW_FORM_BCAST,
  FW_ROW_FORM_RESIDENT,
} FwRowForm;

void         fw_ac_rows_decide            (Gen            *g);
/* dst (one value per row) = api (ReduceSum, ReduceMax or ReduceMin) of each row of src, of eb-byte elements. */
void         fw_ac_rows_reduce            (Gen            *g,
                                           const char     *api,
                                           const char     *dst,
                                           const char     *src,
                                           const char     *ctype,
                                           guint           eb);
/* dst = a op b (Add Sub Mul Div Max Min) over the tile's rows; FALSE (nothing written) when the forms have
 * no such instruction (two per-row operands). */
gboolean     fw_ac_rows_binary            (Gen            *g,
                                           const char     *op,
                                           const char     *dst,
                                           FwRowForm       fa,
                                           const char     *a,
                                           FwRowForm       fb,
                                           const char     *b,
                                           const char     *ctype);
/* dst's rows = src's per-row value (FW_ROW_FORM_BCAST) or the resident row src (FW_ROW_FORM_RESIDENT). */
void         fw_ac_rows_expand            (Gen            *g,
                                           const char     *dst,
                                           FwRowForm       form,
                                           const char     *src,
                                           const char     *ctype);
void         fw_ac_rows_prelude           (Gen            *g,
                                           GString        *s);
void         fw_ac_rows_init              (Gen            *g,
                                           GString        *s);
void         fw_ac_rows_members           (Gen            *g,
                                           GString        *s);

/* fw-ascend-kernel-cpp.c: the kernel .cpp, newly allocated. */
char        *fw_ac_gen_kernel             (Gen            *g);
/* The same kernel as a SuperKernel's sub-kernel: everything in namespace NAME, the entry an __aicore__
 * function NAME::Run with the entry's arguments (the includes are the scope's). */
char        *fw_ac_gen_body               (Gen            *g);

/* fw-ascend-cube.c: decides g->cube (or says why not in g->not_cube) from the root and the space, before
 * the operands are built; then, once the kernel's buffers are known, the cube tiling (FALSE with not_cube
 * set when none fits: the caller arranges the group again as an epilogue). */
void         fw_ac_cube_decide            (Gen            *g);
gboolean     fw_ac_cube_check_operands    (Gen            *g);
gboolean     fw_ac_cube_tile              (Gen            *g);
void         fw_ac_cube_compute_tiling    (Gen            *g,
                                           FwAscendTiling *out);
/* The HBM bytes the mixed kernel reads and writes, as the twin counts them. */
void         fw_ac_cube_traffic           (Gen            *g,
                                           gdouble        *read,
                                           gdouble        *written);
/* The .cpp parts of the mixed kernel (fw-ascend-kernel-cpp.c calls them where g->cube). */
void         fw_ac_cube_prelude           (Gen            *g,
                                           GString        *s);
void         fw_ac_cube_init              (Gen            *g,
                                           GString        *s);
void         fw_ac_cube_process_loop      (Gen            *g,
                                           GString        *s);
void         fw_ac_cube_members           (Gen            *g,
                                           GString        *s);
void         fw_ac_cube_entry_fields      (Gen            *g,
                                           GString        *s);
void         fw_ac_cube_struct_fields     (Gen            *g,
                                           GString        *s);
/* The TCubeTiling fields a mixed kernel's tiling struct carries (as cubeNAME), in order. */
#define FW_AC_N_CUBE_FIELDS 22
extern const char *const fw_ac_cube_fields[FW_AC_N_CUBE_FIELDS];
/* Init's lines after the tiling is in this->cube: the Matmul object registered with the pipe, this core's
 * share of C (m0, n0, sm, sn: M shares first). */
extern const char fw_ac_cube_share_code[];

/* fw-ascend-int8.c: an integer (QDQ) group's kernel: int8 Matmul, int32 C, the dequantise/requantise
 * epilogue in vector code (FALSE / NULL with error, code FW-TG-005, for the groups it does not make). */
gboolean        fw_ascend_int8_arrange    (const FwPlan      *plan,
                                           const FwCandidate *candidate,
                                           FwUbArrangement   *out,
                                           GError           **error);
FwAscendKernel *fw_ascend_int8_generate   (FwPlan            *plan,
                                           const FwCandidate *candidate,
                                           GError           **error);

/* fw-ascend-codegen.c */
/* An integer kernel from its files (source, taken) and tiling; product_abs: the bound of the reference's
 * float sum against the kernel's exact integer one (fw_ascend_kernel_product_tolerance). No SuperKernel body. */
FwAscendKernel *fw_ac_kernel_new_integer  (FwKernelSource       *source,
                                           const FwAscendTiling *tiling,
                                           gdouble               product_abs);
/* The host tiling file after its header comment, for a kernel whose tiling was computed here for profile (a
 * mixed kernel's): it hands out t's numbers when the UB given holds the kernel's buffers. */
void         fw_ac_host_tiling_fixed      (GString              *s,
                                           const char           *name,
                                           const char           *struct_name,
                                           const FwProfile      *profile,
                                           const FwAscendTiling *t);
/* The kernel folder's CMakeLists.txt: the device kernel NAME.cpp and the host tiling NAME_tiling.cpp. */
char        *fw_ac_gen_cmake              (const char     *name);
const char  *fw_ac_node_label             (const FwNode   *node);
void         fw_ac_append_header          (Gen            *g,
                                           GString        *s,
                                           const char     *what);

G_END_DECLS
