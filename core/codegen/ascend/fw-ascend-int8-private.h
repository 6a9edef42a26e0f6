/* fw-ascend-int8-private.h: what fw-ascend-int8.c (an integer group's kernel), fw-ascend-int8-conv.c (its Conv
 * form: the im2col prepass) and fw-ascend-int8-act.c (its two-activation form) share. */
#ifndef FW_ASCEND_INT8_PRIVATE_H
#define FW_ASCEND_INT8_PRIVATE_H

#include "fw-ascend-codegen-private.h"
#include "plan/fw-qdq.h"

G_BEGIN_DECLS

/* Elements of A per prepass tile: its input, half and int8 buffers and the duplicated scale (at most 4 + 2 + 1
 * + 4 bytes an element). */
#define PREP_TILE 2048

/* A Conv root's geometry (x [1, c, h, w], W [OC, c, kh, kw], y [1, OC, oh, ow]) and its prepass layout: a
 * chunk of `chunk` = rows x ow output positions reads a window of win_rows input rows, each row at a pitch of
 * `pitch` elements (a 16-element multiple, so the half window's rows start 32-byte aligned), the conv's left
 * padding as DataCopyPad's leftPadding (lpad) and its right padding inside rpad. */
typedef struct
{
  gint64 c, h, w, kh, kw, sh, sw, dh, dw, pt, pl, pr;  /* pr: the right padding a row needs */
  gint64 oh, ow;
  gint64 rows, chunk, win_rows, pitch, lpad, rpad, gap_blocks;
  gint   src_bytes;
} FwAcConv;

typedef enum { OP_LOCAL, OP_STREAM, OP_IMM, OP_COL } OpKind;

typedef struct
{
  OpKind  kind;
  char   *name;   /* the UB tensor (local, stream), or NULL */
  double  imm;
  guint   col;    /* OP_COL: the column vector's number */
} Opnd;

typedef struct
{
  FwPlan            *plan;
  const FwCandidate *cand;
  const FwProfile   *profile;
  FwQdqGroup         q;
  char              *name;
  char              *struct_name;
  FwValue           *a_src;     /* the kernel's A argument: int8, or what the prepass reads */
  gboolean           prep;
  gboolean           trans_b;
  gint64             m, n, k;
  gint64             za;        /* A's zero point as int8 (after the uint8 shift) */
  GArray            *corr;      /* gint32 per column */
  GPtrArray         *cols;      /* GArray of float per column: the multipliers, the bias, epilogue operands */
  GPtrArray         *streams;   /* FwValue*: C-shaped float inputs of the epilogue */
  GHashTable        *where;     /* FwValue* → tensor name */
  GHashTable        *last_use;  /* FwValue* → index + 1 of the last epilogue node reading it */
  GString           *compute;
  GPtrArray         *names;     /* char*: the tensor names made, owned */
  gboolean           aliased;   /* an Identity made two values one tensor: no result is computed in place */
  guint              n_tmp;
  gboolean           erf;
  const char        *result;    /* the epilogue's float result tensor */
  gboolean           conv;      /* a Conv root: C = W x im2col(x), [OC, OH*OW]; per-channel vectors run along rows */
  gboolean           w_by_chan; /* the weights are stored channel-major ([N, K] or [OC, C*KH*KW]) */
  gint64             n_chan;    /* output channels: N, or OC for a Conv */
  FwAcConv           cv;        /* a Conv's geometry and prepass layout */
  gboolean           act;       /* B an activation too (attention's products): batched, both quantised per batch */
  gint64             batch;     /* products (1 unless act) */
  FwValue           *b_src;     /* the kernel's B argument: the weights, or what B's prepass reads */
  gint64             zb;        /* act: B's zero point as int8 */
  gint64             pa, pb;    /* act: the UB pitch of A's and B's prepass rows (elements) */
  FwCubeShape        shape;
  FwCubeTiling       tiling;
  guint              per_elem;  /* UB bytes per element of a C block */
  gint64             fixed;     /* UB bytes that do not scale with it */
} I8;


#define fw_i8_zp_at fw_qdq_zero_point_at
#define fw_i8_scale_at fw_qdq_scale_at

gboolean    fw_i8_refuse              (GError           **error,
                                       const char        *format,
                                       ...) G_GNUC_PRINTF (2, 3);
char       *fw_i8_flit                (double             v);
const char *fw_i8_ctype               (FwDType            t);
void        fw_i8_append_quantize     (GString           *s,
                                       const FwQdqParams *p,
                                       gint64             shift,
                                       const char        *x,
                                       const char        *h,
                                       const char        *count,
                                       const char        *indent);

/* fw-ascend-int8-act.c */
gboolean    fw_i8_act_decide          (I8                *g,
                                       GError           **error);
gint64      fw_i8_act_ub_bytes        (const I8          *g);
gint64      fw_i8_act_workspace       (const I8          *g);
void        fw_i8_act_traffic         (const I8          *g,
                                       gdouble           *read,
                                       gdouble           *written);
void        fw_i8_act_append_consts   (const I8          *g,
                                       GString           *s);
void        fw_i8_act_append_init     (const I8          *g,
                                       GString           *s);
void        fw_i8_act_append_prepare  (const I8          *g,
                                       GString           *s);
void        fw_i8_act_append_members  (const I8          *g,
                                       GString           *s);

/* fw-ascend-int8-conv.c */
gboolean    fw_i8_conv_decide         (I8                *g,
                                       GError           **error);
gint64      fw_i8_conv_ub_bytes       (const I8          *g);
void        fw_i8_conv_traffic        (const I8          *g,
                                       gdouble           *read,
                                       gdouble           *written);
void        fw_i8_conv_append_consts  (const I8          *g,
                                       GString           *s);
void        fw_i8_conv_append_init    (const I8          *g,
                                       GString           *s);
void        fw_i8_conv_append_prepare (const I8          *g,
                                       GString           *s);
void        fw_i8_conv_append_members (const I8          *g,
                                       GString           *s);

G_END_DECLS

#endif
