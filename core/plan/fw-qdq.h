/* fw-qdq.h: integer (QDQ) groups: a DequantizeLinear-wrapped MatMul, Gemm or Conv computed in integers.
 *
 * Discovery (fw-discovery-qdq.c) makes them, the estimate prices them with integer bytes and the profile's
 * int8 rate, the host generator (codegen/host/fw-host-int8.c) writes their kernel; all of them read the
 * group through fw_qdq_group_describe, so what an integer group is is decided here once. */
#pragma once

#include "fw-plan.h"
#include "graph/fw-graph-private.h"

G_BEGIN_DECLS

/* The candidate kind (and pattern) of an integer group. */
#define FW_QDQ_KIND "qdq_integer"

/* One DequantizeLinear or QuantizeLinear with constant parameters. */
typedef struct
{
  FwNode         *node;
  FwValue        *integer;      /* the integer side: DQ's input 0, Q's output */
  FwValue        *real;         /* the float side: DQ's output, Q's input 0 */
  FwDType         qtype;        /* int8 or uint8 (int32 for a bias) */
  gint            axis;         /* the per-axis axis (normalised), -1 per tensor */
  gint64          n;            /* parameters: 1, or the axis' length */
  const FwTensor *scale;
  const FwTensor *zero_point;   /* NULL: 0 */
} FwQdqParams;

/* A root operand read as integers: through a DequantizeLinear (in the group or shared with others, whose
 * integer input the kernel reads), itself behind a QuantizeLinear in the group (its float input read and
 * quantised by the kernel) or not. */
typedef struct
{
  FwQdqParams  dq;
  gboolean     member;   /* the DequantizeLinear is in the group */
  FwQdqParams  q;        /* q.node NULL when no QuantizeLinear is in the group in front of it */
} FwQdqOperand;

typedef struct
{
  FwNode       *root;
  FwQdqOperand  a, b;         /* the root's inputs 0 and 1 (Conv: X and W) */
  FwQdqParams   bias;         /* the DequantizeLinear of an int32 bias, or bias.node NULL */
  gboolean      bias_member;
  FwValue      *float_bias;   /* a float32 constant bias, or NULL */
  GPtrArray    *epilogue;     /* FwNode*: the elementwise members after the root, topological order */
  FwQdqParams   out;          /* the QuantizeLinear the group ends in, or out.node NULL */
  FwValue      *result;       /* what the kernel writes */
  gint64        k;            /* the reduction length */
} FwQdqGroup;

/* node's parameters when it is a DequantizeLinear (dequantize) or QuantizeLinear with constant scale and
 * zero point over an 8-bit type (int32 too for a DequantizeLinear when allow_int32); FALSE with the code
 * and a translated reason when it is one but does not qualify, FALSE with *code 0 when it is neither. */
gboolean      fw_qdq_params           (FwNode          *node,
                                       gboolean         dequantize,
                                       gboolean         allow_int32,
                                       FwQdqParams     *out,
                                       FwReasonCode    *code,
                                       char           **why);
/* Whether the root's operands are all DequantizeLinear outputs the integer kernel can read, and the
 * reduction length; *code 0 when the root is not Q/DQ-wrapped at all. Fills g's root, a, b, bias,
 * float_bias and k (members FALSE). */
gboolean      fw_qdq_root_operands    (FwNode          *root,
                                       FwQdqGroup      *g,
                                       FwReasonCode    *code,
                                       char           **why);
/* Elementwise operators the integer kernel's epilogue computes. */
gboolean      fw_qdq_epilogue_op      (const FwNode    *node);
/* The integer group the candidate holds; FALSE when it is not one. Free with fw_qdq_group_clear. */
gboolean      fw_qdq_group_describe   (const FwCandidate *candidate,
                                       FwQdqGroup      *g);
void          fw_qdq_group_clear      (FwQdqGroup      *g);
gboolean      fw_candidate_is_integer (const FwCandidate *candidate);
/* Parameter i of p (the one parameter of a per-tensor p): its zero point (0 without one) and its scale as
 * float32, as the kernels apply them. */
gint64        fw_qdq_zero_point_at    (const FwQdqParams *p,
                                       gint64           i);
float         fw_qdq_scale_at         (const FwQdqParams *p,
                                       gint64           i);
/* The bytes a kernel reads for value: a DequantizeLinear's output read through (its integer input) counts
 * the integer bytes. */
gdouble       fw_qdq_read_bytes       (const FwValue   *value);

G_END_DECLS
