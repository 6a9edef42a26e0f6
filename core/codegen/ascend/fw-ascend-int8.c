/* fw-ascend-int8.c: the Ascend kernel of an integer (QDQ) MatMul, Gemm or Conv group (plan/fw-qdq.h): one mixed
 * cube + vector kernel in the "mix vector-cube" form of fw-ascend-cube.c, with the Matmul API on int8 operands
 * and an int32 C: Matmul使用说明 (cannmirror/asc-devkit, docs/zh/api/SIMD-API/高阶API/矩阵计算/Matmul-Kernel侧接口/,
 * formerly docs/api/context/), table 2 "Matmul输入输出数据类型的支持列表": A int8_t, B int8_t, C int32_t, bias
 * int32_t on Atlas A2; MatmulType<TPosition::GM, CubeFormat::ND, int8_t> for A and B and a VECIN int32_t C fetched
 * block by block with GetTensorC. The page allows no uint8_t operand, and no other 8-bit pairing.
 *
 * What the kernel computes, per element of C, is what the host kernel (codegen/host/fw-host-int8.c) computes:
 *   1. A as int8: an int8 activation is read as it is; a uint8 one, or a float one the group quantises
 *      (its QuantizeLinear is a member), goes through a vector prepass that writes it as int8 into the
 *      kernel's GM workspace (each core its own rows: no core waits for another), shifted by −128 for
 *      uint8 so that (u − z) = (u − 128) − (z − 128) stays exact. QuantizeLinear is Div by the scale (as ONNX
 *      Runtime divides: x · (1/s) can differ in the last bit and cross a rounding tie), Maxs/Mins to the
 *      type's range less the zero point, Cast float → float with CAST_RINT (half to even, QuantizeLinear's
 *      rounding), Adds of the zero point, then float → half → int8 with CAST_NONE, exact on integers of
 *      this range (Cast.md's A2 table has no float → int8 form).
 *   2. The cube sums a·b in int32, exactly. B is the weights, a constant with zero points 0 (symmetric, as
 *      both quantizers write them); A's zero point za enters as the per-column correction
 *      corr[c] = −za · Σk B[k][c], computed here once from the weights and added to each block in int32
 *      (Σ (a − za) b = Σ a b − za Σ b).
 *   3. Vector code: Cast int32 → float (CAST_NONE: exact below 2^24, else to nearest even, as the host's
 *      (float) conversion), Mul by s_a · s_b[c] per column (the float32 product, as the host), Add of the
 *      dequantised bias, the float epilogue, and the requantising QuantizeLinear of step 1's form, the last
 *      Cast half → int8/uint8 row by row into the output's rows (32-byte pitch), then CopyOut.
 * Per-column constants (corr, the multipliers, the bias, an epilogue's per-column operands) are compiled into
 * the kernel and set into the Unified Buffer once per core (LocalTensor::SetValue, then an S → V flag).
 *
 * The HBM bytes (the plan prices them: fw-estimate.c takes a CUBE_VECTOR arrangement's hbm_read/written) are
 * what the twin counts: the prepass's reads and workspace writes, the Matmul API's reads by
 * fw_ascend_cube_traffic on int8 A and B, each streamed epilogue input once, the output once.
 *
 * A Conv root is the same kernel on C = W x im2col(x) (fw-ascend-int8-conv.c: the weights are A, the im2col a
 * vector prepass into the workspace, and the per-channel vectors run along C's rows).
 *
 * A MatMul of two activations (attention's products) is the same kernel with both operands through a prepass
 * per batch and the zero points' corrections from their sums (fw-ascend-int8-act.c).
 *
 * Not made (FW-TG-005, docs/reason-codes.md): weights that are not int8 with zero points 0, batched weights,
 * epilogue operators or operand shapes this file has no vector form for, and the forms fw-ascend-int8-conv.c
 * and fw-ascend-int8-act.c refuse. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "fw-ascend-int8-private.h"


gboolean
fw_i8_refuse (GError **error, const char *format, ...)
{
  va_list args;
  g_autofree char *why = NULL;

  va_start (args, format);
  why = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED, _("Ascend target: [FW-TG-005] integer group: %s"), why);
  return FALSE;
}

#define zp_at fw_qdq_zero_point_at
#define scale_at fw_qdq_scale_at

const char *
fw_i8_ctype (FwDType t)
{
  return t == FW_DTYPE_INT8 ? "int8_t" : t == FW_DTYPE_UINT8 ? "uint8_t" : "float";
}

char *
fw_i8_flit (double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (!isfinite (v))
    return g_strdup (v > 0 ? "3.402823466e+38f" : v < 0 ? "-3.402823466e+38f" : "0.0f");
  g_ascii_formatd (buf, sizeof buf, "%.9g", v);
  return strchr (buf, '.') || strchr (buf, 'e') ? g_strdup_printf ("%sf", buf) : g_strdup_printf ("%s.0f", buf);
}

static GArray *
new_col (I8 *g)
{
  GArray *c = g_array_sized_new (FALSE, TRUE, sizeof (float), (guint) g->n_chan);

  g_array_set_size (c, (guint) g->n_chan);
  g_ptr_array_add (g->cols, c);
  return c;
}

static void
i8_clear (I8 *g)
{
  fw_qdq_group_clear (&g->q);
  g_free (g->name);
  g_free (g->struct_name);
  if (g->corr)
    g_array_unref (g->corr);
  if (g->cols)
    g_ptr_array_unref (g->cols);
  if (g->streams)
    g_ptr_array_unref (g->streams);
  if (g->where)
    g_hash_table_unref (g->where);
  if (g->last_use)
    g_hash_table_unref (g->last_use);
  if (g->compute)
    g_string_free (g->compute, TRUE);
  if (g->names)
    g_ptr_array_unref (g->names);
}

/* A's zero point, the correction and the multipliers per output channel (from the weights, once; for two
 * activations the correction is the kernel's, from the sums its prepass takes), and the bias. */
static gboolean
product_constants (I8 *g, GError **error)
{
  FwQdqGroup *q = &g->q;
  FwNode *root = q->root;
  const FwTensor *bt = g->act ? NULL : q->b.dq.integer->constant;
  gdouble zb = (gdouble) ABS (g->zb);

  g->za = zp_at (&q->a.dq, 0) - (q->a.dq.qtype == FW_DTYPE_UINT8 ? 128 : 0);
  /* |Σ (a − za)(b − zb)| ≤ K (128 + |za|)(128 + |zb|) (zb 0 for weights), and so every partial sum: int32
   * holds them. */
  if ((gdouble) g->k * (128.0 + (gdouble) ABS (g->za)) * (128.0 + zb) >= 2147483647.0)
    return fw_i8_refuse (error, _("%s “%s”: %" PRId64 " products and the zero point's correction pass int32"),
                   root->op_type, root->name, g->k);
  g->corr = g_array_sized_new (FALSE, TRUE, sizeof (gint32), (guint) g->n_chan);
  g_array_set_size (g->corr, (guint) g->n_chan);
  {
    GArray *mult = new_col (g);
    float sa = scale_at (&q->a.dq, 0);

    for (gint64 col = 0; col < g->n_chan; col++)
      {
        gint64 sum = 0, v = 0;
        for (gint64 kk = 0; bt != NULL && kk < g->k; kk++)
          if (fw_tensor_get_int64 (bt, g->w_by_chan ? col * g->k + kk : kk * g->n + col, &v))
            sum += v;
        g_array_index (g->corr, gint32, col) = (gint32) (-g->za * sum);
        g_array_index (mult, float, col) = sa * scale_at (&q->b.dq, col);
      }
  }
  if (q->bias.node != NULL || q->float_bias != NULL)
    {
      GArray *bias = new_col (g);
      for (gint64 col = 0; col < g->n_chan; col++)
        {
          double v = 0;
          if (q->bias.node != NULL)
            {
              gint64 iv = 0;
              fw_tensor_get_int64 (q->bias.integer->constant, col, &iv);
              g_array_index (bias, float, col) = (float) (iv - zp_at (&q->bias, col)) * scale_at (&q->bias, col);
            }
          else if (fw_tensor_get_double (q->float_bias->constant, col, &v))
            g_array_index (bias, float, col) = (float) v;
        }
    }
  return TRUE;
}

/* The product's shape and operands: FALSE (error set) when this file does not make the group. */
static gboolean
decide_product (I8 *g, GError **error)
{
  FwQdqGroup *q = &g->q;
  FwNode *root = q->root;
  FwValue *a = root->inputs[0], *b = root->inputs[1], *c = root->outputs[0];

  if (b == NULL)
    return fw_i8_refuse (error, _("%s “%s”: no B"), root->op_type, root->name);
  if (q->a.dq.qtype != FW_DTYPE_INT8 && q->a.dq.qtype != FW_DTYPE_UINT8)
    return fw_i8_refuse (error, _("%s “%s”: A is %s"), root->op_type, root->name, fw_dtype_name (q->a.dq.qtype));
  g->a_src = q->a.q.node != NULL ? q->a.q.real : q->a.dq.integer;
  g->batch = 1;
  if (q->b.q.node != NULL || q->b.dq.integer->constant == NULL)
    {
      /* Two activations (attention's products): fw-ascend-int8-act.c, MatMul only. */
      if (strcmp (root->op_type, "MatMul") != 0)
        return fw_i8_refuse (error, _("%s “%s”: B is computed at run time; only a MatMul takes two activations"),
                             root->op_type, root->name);
      return fw_i8_act_decide (g, error) && product_constants (g, error);
    }
  g->b_src = q->b.dq.integer;
  if (q->b.dq.qtype != FW_DTYPE_INT8)
    return fw_i8_refuse (error, _("%s “%s”: the weights are %s; the Matmul API takes int8_t B only"), root->op_type,
                         root->name, fw_dtype_name (q->b.dq.qtype));
  for (gint64 i = 0; i < q->b.dq.n; i++)
    if (zp_at (&q->b.dq, i) != 0)
      return fw_i8_refuse (error, _("%s “%s”: the weights' zero point is not 0 (the correction would need A's row sums)"),
                           root->op_type, root->name);
  if (strcmp (root->op_type, "Conv") == 0)
    {
      if (!fw_i8_conv_decide (g, error))
        return FALSE;
    }
  else
    {
      if (a->rank < 2 || b->rank != 2 || c->rank < 2)
        return fw_i8_refuse (error, _("%s “%s”: batched weights (a B of rank %d)"), root->op_type, root->name, b->rank);
      g->trans_b = strcmp (root->op_type, "Gemm") == 0 && fw_node_get_attr_int (root, "transB", 0) != 0;
      g->w_by_chan = g->trans_b;
      g->k = a->dims[a->rank - 1].value;
      g->n = b->dims[g->trans_b ? 0 : 1].value;
      g->m = fw_value_get_n_elements (a) / MAX (g->k, 1);
      g->n_chan = g->n;
      if (g->m * g->n != fw_value_get_n_elements (c) || c->dims[c->rank - 1].value != g->n ||
          b->dims[g->trans_b ? 1 : 0].value != g->k || g->m > G_MAXINT || g->n > G_MAXINT || g->k > G_MAXINT)
        return fw_i8_refuse (error, _("%s “%s”: the operands are not an [M, K] by [K, N] product"), root->op_type,
                             root->name);
      g->prep = q->a.q.node != NULL || q->a.dq.qtype == FW_DTYPE_UINT8;
    }
  return product_constants (g, error);
}

/* A name the generator made, kept until the kernel is written. */
static const char *
own (I8 *g, char *name)
{
  g_ptr_array_add (g->names, name);
  return name;
}

static const char *
new_temp (I8 *g)
{
  return own (g, g_strdup_printf ("t%u", g->n_tmp++));
}

/* Whether constant v holds one value per output channel, broadcast along the others: a row of C's width
 * for a product, [OC, 1, 1] (any leading 1s) for a Conv's [1, OC, OH, OW]. */
static gboolean
per_channel (const I8 *g, const FwValue *v)
{
  if (!g->conv)
    return v->dims[v->rank - 1].value == g->n;
  return v->rank >= 3 && v->dims[v->rank - 1].value == 1 && v->dims[v->rank - 2].value == 1 &&
         v->dims[v->rank - 3].value == g->n_chan;
}

/* An epilogue operand: a value computed in the kernel, a C-shaped float input, a constant scalar or a
 * constant row of C's width. */
static gboolean
operand (I8 *g, FwValue *v, Opnd *o, GError **error)
{
  const char *local = g_hash_table_lookup (g->where, v);
  gint64 n = v != NULL ? fw_value_get_n_elements (v) : -1;

  memset (o, 0, sizeof *o);
  if (local != NULL)
    {
      o->kind = OP_LOCAL;
      o->name = (char *) local;
      return TRUE;
    }
  if (v == NULL || v->dtype != FW_DTYPE_FLOAT)
    return fw_i8_refuse (error, _("an epilogue operand that is not float32"));
  if (v->constant != NULL && n == 1)
    {
      o->kind = OP_IMM;
      return fw_tensor_get_double (v->constant, 0, &o->imm) || fw_i8_refuse (error, _("an unreadable constant"));
    }
  if (v->constant != NULL && n == g->n_chan && per_channel (g, v))
    {
      GArray *c = new_col (g);
      double x = 0;
      for (gint64 i = 0; i < g->n_chan; i++)
        g_array_index (c, float, i) = fw_tensor_get_double (v->constant, i, &x) ? (float) x : 0.0f;
      o->kind = OP_COL;
      o->col = g->cols->len - 1;
      return TRUE;
    }
  if (n == g->batch * g->m * g->n && v->rank >= 1 &&
      (g->conv ? v->rank == 4 && v->dims[1].value == g->m : v->dims[v->rank - 1].value == g->n))
    {
      guint i;
      if (!g_ptr_array_find (g->streams, v, &i))
        {
          g_ptr_array_add (g->streams, v);
          i = g->streams->len - 1;
        }
      o->kind = OP_STREAM;
      o->name = (char *) own (g, g_strdup_printf ("x%u", i));
      g_hash_table_insert (g->where, v, o->name);
      return TRUE;
    }
  return fw_i8_refuse (error, _("an epilogue operand of %" PRId64 " elements (neither C's shape, one value per output "
                                "channel, nor a scalar constant)"), n);
}

static void
emit (I8 *g, const char *format, ...) G_GNUC_PRINTF (2, 3);

static void
emit (I8 *g, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  g_string_append_vprintf (g->compute, format, args);
  va_end (args);
}

/* dst = x op col against per-channel vector col (its columns, or for a Conv its rows), over the block
 * (reversed: col op x). */
static void
emit_col (I8 *g, const char *api, const char *dst, const char *x, guint col, gboolean reversed)
{
  g_autofree char *upper = g_ascii_strup (api, -1);

  if (g->conv)
    emit (g, "      RowApply<COL_%s>(%s, %s, cols[%u * colPitch + c0], bcBuf, rows, len, pitch, %s);\n", upper, dst, x,
          col + 1, reversed ? "true" : "false");
  else
    emit (g, "      ColApply<COL_%s>(%s, %s, cols[%u * colPitch + c0], rows, len, pitch, %s);\n", upper, dst, x, col + 1,
          reversed ? "true" : "false");
}

/* The tensor a node's result goes to: its tensor operand's, when that is y or a temp read for the last time
 * here (and no Identity aliased a tensor), else a new temp. */
static const char *
destination (I8 *g, guint pos, FwValue *in, const Opnd *x, gboolean may_reuse)
{
  guint last = GPOINTER_TO_UINT (g_hash_table_lookup (g->last_use, in));

  if (may_reuse && !g->aliased && x->kind == OP_LOCAL && last == pos + 1 &&
      (x->name[0] == 't' || strcmp (x->name, "y") == 0))
    return x->name;
  return new_temp (g);
}

static gboolean
is_const (const Opnd *o)
{
  return o->kind == OP_IMM || o->kind == OP_COL;
}

static gboolean
emit_binary (I8 *g, guint pos, FwNode *node, GError **error)
{
  const char *op = node->op_type, *dst;
  gboolean add = strcmp (op, "Add") == 0, sub = strcmp (op, "Sub") == 0, mul = strcmp (op, "Mul") == 0;
  gboolean swapped;
  const Opnd *x, *c;
  Opnd a, b;

  if (!operand (g, node->inputs[0], &a, error) || !operand (g, node->inputs[1], &b, error))
    return FALSE;
  if (is_const (&a) && is_const (&b))
    return fw_i8_refuse (error, _("%s of two constants"), op);
  /* x: a tensor; c: a tensor or a constant, on the right of op unless swapped. */
  swapped = is_const (&a);
  x = swapped ? &b : &a;
  c = swapped ? &a : &b;
  dst = destination (g, pos, node->inputs[swapped ? 1 : 0], x,
                     !(swapped && c->kind == OP_IMM && !add && !mul && !sub));
  if (c->kind == OP_LOCAL || c->kind == OP_STREAM)
    emit (g, "      AscendC::%s(%s, %s, %s, n);\n", op, dst, a.name, b.name);
  else if (c->kind == OP_COL)
    emit_col (g, op, dst, x->name, c->col, swapped);
  else if (!swapped || add || mul)
    {
      g_autofree char *lit = fw_i8_flit (add || mul ? c->imm : sub ? -c->imm : 1.0 / c->imm);
      emit (g, "      AscendC::%s(%s, %s, %s, n);%s\n", add || sub ? "Adds" : "Muls", dst, x->name, lit,
            !add && !sub && !mul ? "  /* x / c as x (1/c) */" : "");
    }
  else if (sub)
    {
      g_autofree char *lit = fw_i8_flit (c->imm);
      emit (g, "      AscendC::Muls(%s, %s, -1.0f, n);\n      AscendC::Adds(%s, %s, %s, n);\n", dst, x->name, dst, dst,
            lit);
    }
  else
    {
      g_autofree char *lit = fw_i8_flit (c->imm);
      emit (g, "      AscendC::Duplicate(%s, %s, n);\n      AscendC::Div(%s, %s, %s, n);\n", dst, lit, dst, dst, x->name);
    }
  g_hash_table_insert (g->where, node->outputs[0], (char *) dst);
  return TRUE;
}

static gboolean
emit_node (I8 *g, guint pos, FwNode *node, GError **error)
{
  static const char *const binary[] = { "Add", "Sub", "Mul", "Div" };
  static const struct { const char *op, *api; } unary[] = {
    { "Relu", "Relu" }, { "Exp", "Exp" }, { "Sqrt", "Sqrt" }, { "Abs", "Abs" },
  };
  const char *dst;
  Opnd a;

  for (guint i = 0; i < G_N_ELEMENTS (binary); i++)
    if (strcmp (node->op_type, binary[i]) == 0 && node->n_inputs == 2)
      return emit_binary (g, pos, node, error);
  if (node->n_inputs != 1 || !operand (g, node->inputs[0], &a, error))
    return error != NULL && *error != NULL ? FALSE : fw_i8_refuse (error, _("no vector form of %s here"), node->op_type);
  if (a.kind != OP_LOCAL && a.kind != OP_STREAM)
    return fw_i8_refuse (error, _("%s of a constant"), node->op_type);
  if (strcmp (node->op_type, "Identity") == 0)
    {
      g->aliased = TRUE;
      g_hash_table_insert (g->where, node->outputs[0], a.name);
      return TRUE;
    }
  dst = destination (g, pos, node->inputs[0], &a, TRUE);
  for (guint i = 0; i < G_N_ELEMENTS (unary); i++)
    if (strcmp (node->op_type, unary[i].op) == 0)
      {
        emit (g, "      AscendC::%s(%s, %s, n);\n", unary[i].api, dst, a.name);
        g_hash_table_insert (g->where, node->outputs[0], (char *) dst);
        return TRUE;
      }
  if (strcmp (node->op_type, "Neg") == 0)
    emit (g, "      AscendC::Muls(%s, %s, -1.0f, n);\n", dst, a.name);
  else if (strcmp (node->op_type, "Erf") == 0)
    {
      g->erf = TRUE;
      fw_ac_erf_statements (g->compute, dst, a.name, "float", "n");
    }
  else
    return fw_i8_refuse (error, _("no vector form of %s here"), node->op_type);
  g_hash_table_insert (g->where, node->outputs[0], (char *) dst);
  return TRUE;
}

static gboolean
build_epilogue (I8 *g, GError **error)
{
  FwQdqGroup *q = &g->q;
  FwValue *res = q->out.node != NULL ? q->out.real : q->result;

  g->where = g_hash_table_new (NULL, NULL);
  g->last_use = g_hash_table_new (NULL, NULL);
  g->streams = g_ptr_array_new ();
  g->compute = g_string_new (NULL);
  g_hash_table_insert (g->where, q->root->outputs[0], (char *) "y");
  for (guint i = 0; i < q->epilogue->len; i++)
    {
      FwNode *n = g_ptr_array_index (q->epilogue, i);
      for (guint k = 0; k < n->n_inputs; k++)
        g_hash_table_insert (g->last_use, n->inputs[k], GUINT_TO_POINTER (i + 1));
    }
  for (guint i = 0; i < q->epilogue->len; i++)
    if (!emit_node (g, i, g_ptr_array_index (q->epilogue, i), error))
      return FALSE;
  g->result = g_hash_table_lookup (g->where, res);
  if (g->result == NULL)
    return fw_i8_refuse (error, _("the group's result is not its last node's"));
  if (q->out.node != NULL && (q->out.n != 1 || (q->out.qtype != FW_DTYPE_INT8 && q->out.qtype != FW_DTYPE_UINT8)))
    return fw_i8_refuse (error, _("the requantising QuantizeLinear is not per tensor to int8 or uint8"));
  if (q->out.node == NULL && q->result->dtype != FW_DTYPE_FLOAT)
    return fw_i8_refuse (error, _("the result is %s"), fw_dtype_name (q->result->dtype));
  return TRUE;
}

/* The Unified Buffer the kernel takes: per C element (the int32 block, y, streams, temps, Erf's scratch, the
 * output and its half step, the duplicated scale) and fixed (the column vectors, the prepass tile). */
static void
size_buffers (I8 *g)
{
  gint64 col_pitch = (g->n_chan + 7) / 8 * 8;

  g->per_elem = 4 + 4 + 4 * g->streams->len + 4 * g->n_tmp + (g->erf ? 12 : 0) +
                (g->q.out.node != NULL ? 2 + 2 + 4 : 4);
  g->fixed = 4 * col_pitch * (1 + (gint64) g->cols->len);
  if (g->prep)
    g->fixed += PREP_TILE * ((gint64) fw_dtype_bits (g->a_src->dtype) / 8 + 2 + 1 + 4);
  if (g->conv)
    g->fixed += fw_i8_conv_ub_bytes (g);
  if (g->act)
    g->fixed += fw_i8_act_ub_bytes (g);
}

static gboolean
decide (I8 *g, const FwPlan *plan, const FwCandidate *cand, GError **error)
{
  g_autoptr(GError) tiling_error = NULL;
  gdouble budget;

  memset (g, 0, sizeof *g);
  g->plan = (FwPlan *) plan;
  g->cand = cand;
  g->profile = plan->profile;
  g->cols = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  g->names = g_ptr_array_new_with_free_func (g_free);
  g->name = g_strdup_printf ("fw_k%03u", cand->index);
  g->struct_name = g_strdup_printf ("FwK%03uTiling", cand->index);
  if (!fw_qdq_group_describe (cand, &g->q))
    return fw_i8_refuse (error, _("candidate %u is not one"), cand->index);
  if (!decide_product (g, error) || !build_epilogue (g, error))
    return FALSE;
  size_buffers (g);
  g->shape = (FwCubeShape) { g->m, g->n, g->k, 1, 1, 0, FALSE };
  budget = fw_profile_budget_bytes (g->profile) - (gdouble) g->fixed;
  if (budget < 256.0 * g->per_elem ||
      !fw_ascend_cube_tiling (&g->shape, g->profile, g->per_elem, (guint64) budget, &g->tiling, &tiling_error))
    return fw_i8_refuse (error, "%s", tiling_error ? tiling_error->message
                                             : _("its buffers leave no room in the Unified Buffer for a block of C"));
  return TRUE;
}

/* Row counts of core c's share of C. */
static gint64
core_rows (const FwCubeTiling *t, gint c)
{
  gint64 shares = (t->m + t->single_core_m - 1) / t->single_core_m;
  gint64 m0 = (c % shares) * t->single_core_m;

  return MIN ((gint64) t->single_core_m, t->m - m0);
}

static gint64
workspace_stride (const I8 *g)
{
  /* A Conv's core writes its columns of the whole [K, N] im2col (the Matmul API reads B at a pitch of N). */
  if (g->act)
    return fw_i8_act_workspace (g);
  return ((g->conv ? g->n : (gint64) g->tiling.single_core_m) * g->k + 31) / 32 * 32;
}

static void
traffic (const I8 *g, gdouble *read, gdouble *written)
{
  gdouble out_eb = (gdouble) fw_dtype_bits (g->q.result->dtype) / 8;

  *read = g->batch * (fw_ascend_cube_traffic (&g->tiling, &g->shape) + (gdouble) g->streams->len * g->m * g->n * 4);
  *written = (gdouble) g->batch * g->m * g->n * out_eb;
  for (gint c = 0; g->prep && c < g->tiling.used_core_num; c++)
    {
      gdouble elems = (gdouble) core_rows (&g->tiling, c) * g->k;
      *read += elems * fw_dtype_bits (g->a_src->dtype) / 8;
      *written += elems;
    }
  if (g->conv)
    fw_i8_conv_traffic (g, read, written);
  if (g->act)
    fw_i8_act_traffic (g, read, written);
}

gboolean
fw_ascend_int8_arrange (const FwPlan *plan, const FwCandidate *candidate, FwUbArrangement *out, GError **error)
{
  I8 g;
  gboolean ok = decide (&g, plan, candidate, error);

  if (ok)
    {
      FwUbBuffer tile = { FW_UB_TILE, g.per_elem, 1, 0 }, fixed = { FW_UB_FIXED, 1, 1, g.fixed };

      g_array_append_val (out->buffers, tile);
      g_array_append_val (out->buffers, fixed);
      out->row_stride = g.tiling.base_n;  /* a tile row is a row of the C block */
      out->tile_align = 1;
      out->block_bytes = 32;
      out->form = FW_KERNEL_FORM_CUBE_VECTOR;
      g_clear_pointer (&out->form_reason, g_free);
      out->fixed_tile = (gint64) g.tiling.base_m * g.tiling.base_n;
      out->fixed_rows = g.tiling.base_m;
      traffic (&g, &out->hbm_read, &out->hbm_written);
      out->vector_cores = (guint) MAX (g.tiling.used_core_num, 1);
    }
  i8_clear (&g);
  return ok;
}

/* ---- the files ---- */

#define cube_fields fw_ac_cube_fields

static void
compute_tiling (const I8 *g, FwAscendTiling *t)
{
  const FwCubeTiling *c = &g->tiling;
  const gint f[] = { c->used_core_num, c->m, c->n, c->ka, c->kb, c->single_core_m, c->single_core_n, c->single_core_k,
                     c->base_m, c->base_n, c->base_k, c->depth_a1, c->depth_b1, c->step_m, c->step_n, c->step_ka,
                     c->step_kb, c->is_bias, c->iterate_order, c->db_l0a, c->db_l0b, c->db_l0c };
  gint64 m_shares = (c->m + c->single_core_m - 1) / c->single_core_m;

  G_STATIC_ASSERT (G_N_ELEMENTS (f) == G_N_ELEMENTS (cube_fields));
  memset (t, 0, sizeof *t);
  for (guint i = 0; i < G_N_ELEMENTS (f); i++)
    t->cube[t->n_cube++] = (guint64) f[i];
  t->cube[t->n_cube++] = (guint64) (g->prep || g->conv || g->act ? workspace_stride (g) : 0);
  for (gint core = 0; core < c->used_core_num; core++)
    {
      gint64 n0 = (core / m_shares) * c->single_core_n, sn = MIN ((gint64) c->single_core_n, c->n - n0);
      gint64 blocks = ((core_rows (c, core) + c->base_m - 1) / c->base_m) * ((sn + c->base_n - 1) / c->base_n);
      t->tile_num += blocks;
      t->tiles_per_block = MAX (t->tiles_per_block, blocks);
    }
  t->tile_num *= g->batch;
  t->tiles_per_block *= g->batch;
  t->total_length = g->batch * g->m * g->n;
  t->tile_length = (gint64) c->base_m * c->base_n;
  t->rows = c->base_m;
  t->row_length = c->base_n;
  t->block_num = c->used_core_num;
  t->ub_bytes = (gdouble) g->per_elem * t->tile_length + (gdouble) g->fixed;
  t->kernel_ub_bytes = t->ub_bytes;
  t->workspace_bytes = g->prep || g->conv || g->act ? workspace_stride (g) * c->used_core_num : 0;
}

static void
append_header (const I8 *g, GString *s, const char *what)
{
  g_autofree char *pattern = fw_ascend_escape_comment (g->cand->pattern);

  g_string_append_printf (s, "/* %s: %s for candidate %u (%s, integer), generated by Fusion Workbench.\n * Nodes:\n",
                          g->name, what, g->cand->index, pattern);
  for (guint i = 0; i < g->cand->nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (g->cand->nodes, i);
      g_autofree char *label = fw_ascend_escape_comment (fw_ac_node_label (node));
      g_autofree char *op = fw_ascend_escape_comment (node->op_type);
      g_string_append_printf (s, " *   %u %s \"%s\"%s\n", i, op, label,
                              node == g->cand->root ? " (the Matmul API on int8 operands: the cube part)" : "");
    }
  g_string_append (s, " * One mixed cube + vector kernel: the int8 product is summed in int32 by the Matmul object block by\n"
                      " * block into the Unified Buffer; the vector code dequantises, runs the epilogue and requantises\n"
                      " * before CopyOut (docs/ascend-target.md, \"Integer groups\").\n */\n");
}

static void
append_array (GString *s, const char *type, const char *name, GArray *values, gboolean is_int)
{
  g_string_append_printf (s, "constexpr %s %s[%u] = {", type, name, values->len);
  for (guint i = 0; i < values->len; i++)
    {
      if (i % 8 == 0)
        g_string_append (s, "\n  ");
      if (is_int)
        g_string_append_printf (s, "%" G_GINT32_FORMAT ", ", g_array_index (values, gint32, i));
      else
        {
          g_autofree char *f = fw_i8_flit (g_array_index (values, float, i));
          g_string_append_printf (s, "%s, ", f);
        }
    }
  g_string_append (s, "\n};\n");
}

/* QuantizeLinear by p of the count elements of float tensor x (in place), then x as half into h: Div by the
 * duplicated scale in scaleT, the clamp, CAST_RINT, the zero point less shift. */
void
fw_i8_append_quantize (GString *s, const FwQdqParams *p, gint64 shift, const char *x, const char *h, const char *count,
                 const char *indent)
{
  gint64 lo = p->qtype == FW_DTYPE_INT8 ? -128 : 0, hi = p->qtype == FW_DTYPE_INT8 ? 127 : 255, zp = zp_at (p, 0);
  g_autofree char *flo = fw_i8_flit ((double) (lo - zp)), *fhi = fw_i8_flit ((double) (hi - zp)), *fz = fw_i8_flit ((double) (zp - shift));

  g_string_append_printf (s,
    "%sAscendC::Div(%s, %s, scaleT, %s);\n"
    "%sAscendC::Maxs(%s, %s, %s, %s);\n"
    "%sAscendC::Mins(%s, %s, %s, %s);\n"
    "%sAscendC::Cast(%s, %s, AscendC::RoundMode::CAST_RINT, %s);  /* half to even, as QuantizeLinear */\n"
    "%sAscendC::Adds(%s, %s, %s, %s);\n"
    "%sAscendC::Cast(%s, %s, AscendC::RoundMode::CAST_NONE, %s);  /* an integer below 2^11: exact in half */\n",
    indent, x, x, count, indent, x, x, flo, count, indent, x, x, fhi, count, indent, x, x, count, indent, x, x, fz,
    count, indent, h, x, count);
}

static void
append_prelude (const I8 *g, GString *s)
{
  g_string_append_printf (s, "#include \"kernel_operator.h\"\n#include \"lib/matmul_intf.h\"\n#include \"%s_tiling.h\"\n\n"
                             "namespace {\n\n"
                             "constexpr uint32_t N_COLS = %" G_GINT64_FORMAT "u;  /* columns of C, its row pitch in GM */\n"
                             "constexpr uint32_t COL_PITCH = %" G_GINT64_FORMAT "u;  /* a column vector's span in UB */\n"
                             "constexpr uint64_t K_LEN = %" G_GINT64_FORMAT "u;\n"
                             "constexpr bool TRANS_B = %s;\n"
                             "constexpr uint32_t PREP_TILE = %uu;  /* elements of A per prepass tile */\n\n",
                          g->name, g->n, (g->n_chan + 7) / 8 * 8, g->k, g->trans_b ? "true" : "false", PREP_TILE);
  if (g->conv)
    fw_i8_conv_append_consts (g, s);
  if (g->act)
    fw_i8_act_append_consts (g, s);
  g_string_append (s, g->conv ? "/* The activation zero point's correction, -za * sum_k W[oc][k], in int32 (added to each row of C). */\n"
                              : "/* The activation zero point's correction, -za * sum_k B[k][c], in int32 (added to each block of C). */\n");
  append_array (s, "int32_t", "COL_CORR", g->corr, TRUE);
  g_string_append (s, "/* Per column: s_a * s_b[c] (COL_0), then the bias and the epilogue's per-column operands. */\n");
  for (guint i = 0; i < g->cols->len; i++)
    {
      g_autofree char *name = g_strdup_printf ("COL_%u", i);
      append_array (s, "float", name, g_ptr_array_index (g->cols, i), FALSE);
    }
  g_string_append (s,
    "\ntemplate <typename T>\n"
    "__aicore__ inline uint32_t GapBlocks(uint32_t len, uint32_t stride)\n{\n"
    "  uint32_t perBlock = 32 / sizeof(T);\n"
    "  uint32_t padded = (len + perBlock - 1) / perBlock * perBlock;\n"
    "  return stride > padded ? (stride - padded) / perBlock : 0;\n}\n\n"
    "/* rows runs of len elements, N_COLS apart in GM and ubPitch apart in UB. */\n"
    "template <typename T>\n"
    "__aicore__ inline void CopyBlockIn(const AscendC::LocalTensor<T> &dst, const AscendC::GlobalTensor<T> &src,\n"
    "                                   uint32_t rows, uint32_t len, uint32_t ubPitch)\n{\n"
    "  AscendC::DataCopyExtParams params(static_cast<uint16_t>(rows), static_cast<uint32_t>(len * sizeof(T)),\n"
    "                                    static_cast<uint32_t>((N_COLS - len) * sizeof(T)), GapBlocks<T>(len, ubPitch), 0);\n"
    "  AscendC::DataCopyPadExtParams<T> pad(false, 0, 0, T());\n"
    "  AscendC::DataCopyPad(dst, src, params, pad);\n}\n\n"
    "template <typename T>\n"
    "__aicore__ inline void CopyBlockOut(const AscendC::GlobalTensor<T> &dst, const AscendC::LocalTensor<T> &src,\n"
    "                                    uint32_t rows, uint32_t len, uint32_t ubPitch)\n{\n"
    "  AscendC::DataCopyExtParams params(static_cast<uint16_t>(rows), static_cast<uint32_t>(len * sizeof(T)),\n"
    "                                    GapBlocks<T>(len, ubPitch), static_cast<uint32_t>((N_COLS - len) * sizeof(T)), 0);\n"
    "  AscendC::DataCopyPad(dst, src, params);\n}\n\n"
    "enum ColOp { COL_ADD, COL_SUB, COL_MUL, COL_DIV };\n\n"
    "template <int OP, typename T>\n"
    "__aicore__ inline void ColOpCall(const AscendC::LocalTensor<T> &d, const AscendC::LocalTensor<T> &a,\n"
    "                                 const AscendC::LocalTensor<T> &b, uint64_t mask, uint8_t n,\n"
    "                                 const AscendC::BinaryRepeatParams &p)\n{\n"
    "  if constexpr (OP == COL_ADD)\n    AscendC::Add(d, a, b, mask, n, p);\n"
    "  else if constexpr (OP == COL_SUB)\n    AscendC::Sub(d, a, b, mask, n, p);\n"
    "  else if constexpr (OP == COL_MUL)\n    AscendC::Mul(d, a, b, mask, n, p);\n"
    "  else\n    AscendC::Div(d, a, b, mask, n, p);\n}\n\n"
    "/* dst = x OP col (colFirst: col OP x) over the block's rows, pitch elements apart: the high-dimensional form\n"
    " * (BinaryRepeatParams.md), repeat r row r, the column vector read with a repeat stride of 0 (the same row\n"
    " * every repeat), one call per 256-byte column chunk and 255 rows (repeatTime <= 255). */\n"
    "template <int OP, typename T>\n"
    "__aicore__ inline void ColApply(const AscendC::LocalTensor<T> &dst, const AscendC::LocalTensor<T> &x,\n"
    "                                const AscendC::LocalTensor<T> &col, uint32_t rows, uint32_t len, uint32_t pitch,\n"
    "                                bool colFirst)\n{\n"
    "  constexpr uint32_t perRepeat = 256 / sizeof(T);\n"
    "  const uint8_t rowBlocks = static_cast<uint8_t>(pitch * sizeof(T) / 32);\n"
    "  const AscendC::BinaryRepeatParams p(1, 1, 1, rowBlocks, colFirst ? 0 : rowBlocks, colFirst ? rowBlocks : 0);\n"
    "  for (uint32_t r0 = 0; r0 < rows; r0 += 255) {\n"
    "    uint8_t n = static_cast<uint8_t>(rows - r0 < 255 ? rows - r0 : 255);\n"
    "    for (uint32_t c = 0; c < len; c += perRepeat) {\n"
    "      uint64_t mask = len - c < perRepeat ? len - c : perRepeat;\n"
    "      if (colFirst)\n"
    "        ColOpCall<OP>(dst[r0 * pitch + c], col[c], x[r0 * pitch + c], mask, n, p);\n"
    "      else\n"
    "        ColOpCall<OP>(dst[r0 * pitch + c], x[r0 * pitch + c], col[c], mask, n, p);\n"
    "    }\n  }\n}\n\n");
  if (g->conv || g->act)
    g_string_append (s,
      "/* dst = x OP v[r] (vFirst: v[r] OP x) on row r of the block, pitch elements apart: a Conv's per-channel\n"
      " * vectors run along C's rows. Brcb (Brcb.md) spreads 8 rows' values into 8 blocks of bc (one block a\n"
      " * row), then the high-dimensional form reads row r's block with a block stride of 0 and a repeat stride\n"
      " * of one block: one call per 256-byte column chunk and 64 rows (bc holds 64 blocks). */\n"
      "template <int OP, typename T>\n"
      "__aicore__ inline void RowApply(const AscendC::LocalTensor<T> &dst, const AscendC::LocalTensor<T> &x,\n"
      "                                const AscendC::LocalTensor<T> &v, AscendC::TBuf<AscendC::TPosition::VECCALC> &bcBuf,\n"
      "                                uint32_t rows, uint32_t len, uint32_t pitch, bool vFirst)\n{\n"
      "  constexpr uint32_t perRepeat = 256 / sizeof(T);\n"
      "  AscendC::LocalTensor<T> bc = bcBuf.Get<T>();\n"
      "  const uint8_t rowBlocks = static_cast<uint8_t>(pitch * sizeof(T) / 32);\n"
      "  const AscendC::BinaryRepeatParams p(1, vFirst ? 0 : 1, vFirst ? 1 : 0, rowBlocks, vFirst ? 1 : rowBlocks,\n"
      "                                      vFirst ? rowBlocks : 1);\n"
      "  for (uint32_t r0 = 0; r0 < rows; r0 += 64) {\n"
      "    uint32_t n = rows - r0 < 64 ? rows - r0 : 64;\n"
      "    AscendC::Brcb(bc, v[r0], static_cast<uint8_t>((n + 7) / 8), AscendC::BrcbRepeatParams(1, 8));\n"
      "    for (uint32_t c = 0; c < len; c += perRepeat) {\n"
      "      uint64_t mask = len - c < perRepeat ? len - c : perRepeat;\n"
      "      if (vFirst)\n"
      "        ColOpCall<OP>(dst[r0 * pitch + c], bc, x[r0 * pitch + c], mask, static_cast<uint8_t>(n), p);\n"
      "      else\n"
      "        ColOpCall<OP>(dst[r0 * pitch + c], x[r0 * pitch + c], bc, mask, static_cast<uint8_t>(n), p);\n"
      "    }\n  }\n}\n\n");
  g_string_append (s, "}  // namespace\n\n");
}

static void
append_args (const I8 *g, GString *s, gboolean with_types)
{
  const char *t = with_types ? "GM_ADDR " : "";

  g_string_append_printf (s, "%sa, %sb, ", t, t);
  for (guint i = 0; i < g->streams->len; i++)
    g_string_append_printf (s, "%sin%u, ", t, i);
  g_string_append_printf (s, "%sout0, ", t);
  if (g->prep || g->conv || g->act)
    g_string_append_printf (s, "%sworkspace, ", t);
}

static void
append_init (const I8 *g, GString *s)
{
  const char *out_t = fw_i8_ctype (g->q.result->dtype);

  g_string_append (s, "  __aicore__ inline void Init(");
  append_args (g, s, TRUE);
  g_string_append_printf (s, "const %s &tiling)\n  {\n", g->struct_name);
  for (guint i = 0; i < G_N_ELEMENTS (cube_fields); i++)
    g_string_append_printf (s, "    this->cube.%s = static_cast<int>(tiling.cube%s);\n", cube_fields[i], cube_fields[i]);
  g_string_append (s, fw_ac_cube_share_code);
  g_string_append_printf (s,
    "    this->baseM = static_cast<uint32_t>(this->cube.baseM);\n"
    "    this->baseN = static_cast<uint32_t>(this->cube.baseN);\n"
    "    this->outPitch = %s;\n",
    g->q.out.node != NULL ? "(this->baseN + 31) / 32 * 32  /* int8 rows start 32-byte aligned */" : "this->baseN");
  if (g->conv)
    fw_i8_conv_append_init (g, s);
  else if (g->act)
    fw_i8_act_append_init (g, s);
  else
    g_string_append_printf (s,
      "    uint64_t aRows = static_cast<uint64_t>(this->sm) * K_LEN;\n"
      "    aGm.SetGlobalBuffer(reinterpret_cast<__gm__ %s *>(a) + static_cast<uint64_t>(this->m0) * K_LEN, aRows);\n"
      "    uint64_t bOffset = TRANS_B ? static_cast<uint64_t>(this->n0) * K_LEN : this->n0;\n"
      "    bGm.SetGlobalBuffer(reinterpret_cast<__gm__ int8_t *>(b) + bOffset, K_LEN * N_COLS - bOffset);\n",
      fw_i8_ctype (g->a_src->dtype));
  if (g->prep)
    g_string_append (s, "    /* This core's rows of A as int8, in its own part of the workspace (no other core reads it). */\n"
                        "    wsGm.SetGlobalBuffer(reinterpret_cast<__gm__ int8_t *>(workspace) + idx * tiling.wsStride, aRows);\n");
  for (guint i = 0; i < g->streams->len; i++)
    g_string_append_printf (s, "    in%uGm.SetGlobalBuffer(reinterpret_cast<__gm__ float *>(in%u), tiling.totalLength);\n", i, i);
  g_string_append_printf (s, "    out0Gm.SetGlobalBuffer(reinterpret_cast<__gm__ %s *>(out0), tiling.totalLength);\n"
                             "    uint32_t block = this->baseM * this->baseN;\n"
                             "    pipe.InitBuffer(cubeQueue, 1, block * sizeof(int32_t));\n"
                             "    pipe.InitBuffer(yBuf, block * sizeof(float));\n", out_t);
  for (guint i = 0; i < g->streams->len; i++)
    g_string_append_printf (s, "    pipe.InitBuffer(inQueue%u, 1, block * sizeof(float));\n", i);
  for (guint i = 0; i < g->n_tmp; i++)
    g_string_append_printf (s, "    pipe.InitBuffer(tBuf%u, block * sizeof(float));\n", i);
  if (g->erf)
    g_string_append (s, "    pipe.InitBuffer(sBuf, 3 * block * sizeof(float));\n");
  if (g->q.out.node != NULL)
    g_string_append_printf (s, "    pipe.InitBuffer(outQueue, 1, this->baseM * this->outPitch * sizeof(%s));\n"
                               "    pipe.InitBuffer(hBuf, (block > PREP_TILE ? block : PREP_TILE) * sizeof(half));\n",
                            out_t);
  else
    g_string_append (s, "    pipe.InitBuffer(outQueue, 1, block * sizeof(float));\n");
  if (g->prep)
    g_string_append_printf (s, "    pipe.InitBuffer(prepIn, 1, PREP_TILE * sizeof(%s));\n"
                               "    pipe.InitBuffer(prepOut, 1, PREP_TILE);\n%s",
                            fw_i8_ctype (g->a_src->dtype),
                            g->q.out.node != NULL ? "" : "    pipe.InitBuffer(hBuf, PREP_TILE * sizeof(half));\n");
  if (g->prep || g->q.out.node != NULL)
    g_string_append_printf (s, "    pipe.InitBuffer(scaleBuf, %s * sizeof(float));\n",
                            g->prep && g->q.out.node != NULL ? "(block > PREP_TILE ? block : PREP_TILE)"
                            : g->prep ? "PREP_TILE" : "block");
  g_string_append_printf (s, "    pipe.InitBuffer(colBuf, %u * COL_PITCH * sizeof(float));\n  }\n\n", g->cols->len + 1);
}

static void
append_load_columns (const I8 *g, GString *s)
{
  const char *c0 = g->conv ? "this->m0" : "this->n0";

  g_string_append_printf (s, "  /* The per-channel constants of this core's %s into the UB: scalar stores, then an S -> V flag. */\n"
                             "  __aicore__ inline void LoadColumns()\n  {\n"
                             "    AscendC::LocalTensor<int32_t> corr = colBuf.Get<int32_t>();\n"
                             "    AscendC::LocalTensor<float> cols = colBuf.Get<float>();\n"
                             "    for (uint32_t c = 0; c < this->%s; c++) {\n"
                             "      corr.SetValue(c, COL_CORR[%s + c]);\n",
                          g->conv ? "rows (output channels)" : "columns", g->conv ? "sm" : "sn", c0);
  for (guint i = 0; i < g->cols->len; i++)
    g_string_append_printf (s, "      cols.SetValue(%u * COL_PITCH + c, COL_%u[%s + c]);\n", i + 1, i, c0);
  g_string_append (s, "    }\n"
                      "    AscendC::SetFlag<AscendC::HardEvent::S_V>(0);\n"
                      "    AscendC::WaitFlag<AscendC::HardEvent::S_V>(0);\n  }\n\n");
}

static void
append_prepare (const I8 *g, GString *s)
{
  const char *st = fw_i8_ctype (g->a_src->dtype);
  gboolean quantise = g->q.a.q.node != NULL;

  if (!g->prep)
    return;
  g_string_append_printf (s,
    "  /* A's rows of this core as int8 into the workspace, PREP_TILE elements at a time. */\n"
    "  __aicore__ inline void Prepare()\n  {\n"
    "    uint64_t total = static_cast<uint64_t>(this->sm) * K_LEN;\n"
    "    AscendC::LocalTensor<half> h = hBuf.Get<half>();\n"
    "%s"
    "    for (uint64_t off = 0; off < total; off += PREP_TILE) {\n"
    "      uint32_t cnt = total - off < PREP_TILE ? static_cast<uint32_t>(total - off) : PREP_TILE;\n"
    "      AscendC::LocalTensor<%s> x = prepIn.AllocTensor<%s>();\n"
    "      AscendC::DataCopyExtParams in(1, static_cast<uint32_t>(cnt * sizeof(%s)), 0, 0, 0);\n"
    "      AscendC::DataCopyPadExtParams<%s> pad(false, 0, 0, %s());\n"
    "      AscendC::DataCopyPad(x, aGm[off], in, pad);\n"
    "      prepIn.EnQue(x);\n"
    "      x = prepIn.DeQue<%s>();\n",
    quantise ? "    AscendC::LocalTensor<float> scaleT = scaleBuf.Get<float>();\n" : "", st, st, st, st, st, st);
  if (quantise)
    {
      g_string_append (s, "      /* QuantizeLinear (in the group), then to int8 (uint8 shifted by -128). */\n");
      fw_i8_append_quantize (s, &g->q.a.q, g->q.a.dq.qtype == FW_DTYPE_UINT8 ? 128 : 0, "x", "h", "cnt", "      ");
    }
  else
    g_string_append (s, "      /* uint8 u as the int8 u - 128: exact through half (Cast.md: uint8_t -> half CAST_NONE). */\n"
                        "      AscendC::Cast(h, x, AscendC::RoundMode::CAST_NONE, cnt);\n"
                        "      AscendC::Adds(h, h, static_cast<half>(-128.0f), cnt);\n");
  g_string_append (s,
    "      prepIn.FreeTensor(x);\n"
    "      AscendC::LocalTensor<int8_t> q = prepOut.AllocTensor<int8_t>();\n"
    "      AscendC::Cast(q, h, AscendC::RoundMode::CAST_NONE, cnt);\n"
    "      prepOut.EnQue(q);\n"
    "      q = prepOut.DeQue<int8_t>();\n"
    "      AscendC::DataCopyExtParams outp(1, cnt, 0, 0, 0);\n"
    "      AscendC::DataCopyPad(wsGm[off], q, outp);\n"
    "      prepOut.FreeTensor(q);\n"
    "    }\n"
    "    /* The workspace is in GM before the Matmul object reads it (on the chip the cube core reads it after the\n"
    "     * vector core's MTE3 is done: every pipe drained). */\n"
    "    AscendC::PipeBarrier<PIPE_ALL>();\n  }\n\n");
}

static void
append_process (const I8 *g, GString *s)
{
  g_string_append (s, "  __aicore__ inline void Process()\n  {\n    LoadColumns();\n");
  if (g->prep && g->q.a.q.node != NULL)
    {
      g_autofree char *sc = fw_i8_flit (scale_at (&g->q.a.q, 0));
      g_string_append_printf (s, "    AscendC::Duplicate(scaleBuf.Get<float>(), %s, static_cast<int32_t>(PREP_TILE));\n", sc);
    }
  if (g->prep || g->conv)
    g_string_append (s, "    Prepare();\n");
  if (g->q.out.node != NULL)
    {
      g_autofree char *sc = fw_i8_flit (scale_at (&g->q.out, 0));
      g_string_append_printf (s, "    AscendC::Duplicate(scaleBuf.Get<float>(), %s, static_cast<int32_t>(this->baseM * this->baseN));\n", sc);
    }
  /* Two activations: per batch, both operands as int8 into the workspace with their sums, then the product. */
  if (g->act)
    g_string_append (s, "    for (uint32_t bt = 0; bt < BATCH; bt++) {\n    Prepare(bt);\n");
  g_string_append_printf (s,
    "    mm.SetTensorA(%s);\n"
    "    mm.SetTensorB(%s, TRANS_B);\n"
    "    mm.SetTail(static_cast<int>(this->sm), static_cast<int>(this->sn));\n"
    "    uint32_t mBlocks = (this->sm + this->baseM - 1) / this->baseM, nBlocks = (this->sn + this->baseN - 1) / this->baseN;\n"
    "    bool nFirst = this->cube.iterateOrder == 1;  /* GetTensorC's order: M first (0) or N first (1) */\n"
    "    for (uint32_t count = 0; mm.Iterate(); count++) {\n"
    "      uint32_t bi = nFirst ? count / nBlocks : count %% mBlocks, bj = nFirst ? count %% nBlocks : count / mBlocks;\n"
    "      uint32_t rowLeft = this->sm - bi * this->baseM, colLeft = this->sn - bj * this->baseN;\n"
    "      uint32_t rows = rowLeft < this->baseM ? rowLeft : this->baseM;\n"
    "      uint32_t len = colLeft < this->baseN ? colLeft : this->baseN;\n"
    "      uint64_t t = %sstatic_cast<uint64_t>(this->m0 + bi * this->baseM) * N_COLS + this->n0 + bj * this->baseN;\n"
    "      CopyIn(t, rows, len);\n"
    "      Compute(%s, %srows, len);\n"
    "      CopyOut(t, rows, len);\n"
    "    }\n"
    "%s"
    "    mm.End();\n  }\n\nprivate:\n", g->conv ? "bGm" : g->act ? "wsAGm" : g->prep ? "wsGm" : "aGm",
    g->conv ? "wsGm[this->n0]" : g->act ? "wsBGm[this->n0]" : "bGm",
    g->act ? "static_cast<uint64_t>(bt) * M_ROWS * N_COLS + " : "",
    g->conv ? "bi * this->baseM" : "bj * this->baseN", g->act ? "bi * this->baseM, " : "",
    g->act ? "    }\n" : "");
}

static void
append_copy_in_out (const I8 *g, GString *s)
{
  const char *out_t = fw_i8_ctype (g->q.result->dtype);

  g_string_append (s, "  __aicore__ inline void CopyIn(uint64_t t, uint32_t rows, uint32_t len)\n  {\n"
                      "    AscendC::LocalTensor<int32_t> c = cubeQueue.AllocTensor<int32_t>();\n"
                      "    mm.GetTensorC(c, 0, true);\n"
                      "    cubeQueue.EnQue(c);\n");
  for (guint i = 0; i < g->streams->len; i++)
    g_string_append_printf (s, "    AscendC::LocalTensor<float> x%u = inQueue%u.AllocTensor<float>();\n"
                               "    CopyBlockIn(x%u, in%uGm[t], rows, len, this->baseN);\n"
                               "    inQueue%u.EnQue(x%u);\n", i, i, i, i, i, i);
  g_string_append (s, "    (void)t;\n    (void)rows;\n    (void)len;\n  }\n\n");
  g_string_append_printf (s, "  __aicore__ inline void CopyOut(uint64_t t, uint32_t rows, uint32_t len)\n  {\n"
                             "    AscendC::LocalTensor<%s> o = outQueue.DeQue<%s>();\n"
                             "    CopyBlockOut(out0Gm[t], o, rows, len, this->outPitch);\n"
                             "    outQueue.FreeTensor(o);\n  }\n\n", out_t, out_t);
}

static void
append_compute (const I8 *g, GString *s)
{
  const char *out_t = fw_i8_ctype (g->q.result->dtype);
  const char *apply = g->conv ? "RowApply" : "ColApply", *bc = g->conv ? "bcBuf, " : "";

  g_string_append_printf (s, "  /* c0: the block's first channel (column, or a Conv's row) in this core's share%s. */\n"
                             "  __aicore__ inline void Compute(uint32_t c0, %suint32_t rows, uint32_t len)\n  {\n",
                          g->act ? "; r0 its first row" : "", g->act ? "uint32_t r0, " : "");
  g_string_append (s,
                      "    const uint32_t pitch = this->baseN, colPitch = COL_PITCH;\n"
                      "    const int32_t n = static_cast<int32_t>(rows * pitch);\n"
                      "    AscendC::LocalTensor<int32_t> acc = cubeQueue.DeQue<int32_t>();\n"
                      "    AscendC::LocalTensor<int32_t> corr = colBuf.Get<int32_t>();\n"
                      "    AscendC::LocalTensor<float> cols = colBuf.Get<float>();\n"
                      "    AscendC::LocalTensor<float> y = yBuf.Get<float>();\n"
                      "    (void)colPitch;\n");
  for (guint i = 0; i < g->streams->len; i++)
    g_string_append_printf (s, "    AscendC::LocalTensor<float> x%u = inQueue%u.DeQue<float>();\n", i, i);
  for (guint i = 0; i < g->n_tmp; i++)
    g_string_append_printf (s, "    AscendC::LocalTensor<float> t%u = tBuf%u.Get<float>();\n", i, i);
  if (g->erf)
    g_string_append (s, "    AscendC::LocalTensor<float> sA = sBuf.Get<float>();\n"
                        "    AscendC::LocalTensor<float> sB = sA[this->baseM * this->baseN];\n"
                        "    AscendC::LocalTensor<float> sC = sA[2 * this->baseM * this->baseN];\n");
  g_string_append_printf (s,
    "    /* Sum (a - za) b: the zero point's correction, in int32 (exact). */\n"
    "    %s<COL_ADD>(acc, acc, corr[c0], %srows, len, pitch, false);\n"
    "%s"
    "    /* Dequantised: float (CAST_NONE: to nearest even past 2^24, as the host's conversion), times s_a s_b[c]. */\n"
    "    AscendC::Cast(y, acc, AscendC::RoundMode::CAST_NONE, static_cast<uint32_t>(n));\n"
    "    cubeQueue.FreeTensor(acc);\n"
    "    %s<COL_MUL>(y, y, cols[colPitch + c0], %srows, len, pitch, false);\n", apply, bc,
    g->act ? "    /* and B's zero point's: -zb sum_k a[r][k] + K za zb, per row. */\n"
             "    RowApply<COL_ADD>(acc, acc, rowBuf.Get<int32_t>()[r0], bcBuf, rows, len, pitch, false);\n" : "",
    apply, bc);
  if (g->q.bias.node != NULL || g->q.float_bias != NULL)
    g_string_append_printf (s, "    %s<COL_ADD>(y, y, cols[2 * colPitch + c0], %srows, len, pitch, false);  /* the dequantised bias */\n",
                            apply, bc);
  g_string_append (s, "    /* The float epilogue. */\n    {\n");
  g_string_append (s, g->compute->str);
  g_string_append (s, "    }\n");
  if (g->q.out.node != NULL)
    {
      g_string_append_printf (s, "    /* Requantised: QuantizeLinear, then half -> %s%s. */\n"
                                 "    AscendC::LocalTensor<float> scaleT = scaleBuf.Get<float>();\n"
                                 "    AscendC::LocalTensor<half> h = hBuf.Get<half>();\n", out_t,
                              g->tiling.base_n % 32 == 0 ? "" : " row by row into the output's 32-byte rows");
      fw_i8_append_quantize (s, &g->q.out, 0, g->result, "h", "static_cast<uint32_t>(n)", "    ");
      /* Rows of baseN bytes are 32-byte aligned when baseN is a multiple of 32: one Cast over the block. */
      if (g->tiling.base_n % 32 == 0)
        g_string_append_printf (s, "    AscendC::LocalTensor<%s> o = outQueue.AllocTensor<%s>();\n"
                                   "    AscendC::Cast(o, h, AscendC::RoundMode::CAST_NONE, static_cast<uint32_t>(n));\n",
                                out_t, out_t);
      else
        g_string_append_printf (s, "    AscendC::LocalTensor<%s> o = outQueue.AllocTensor<%s>();\n"
                                   "    for (uint32_t r = 0; r < rows; r++)\n"
                                   "      AscendC::Cast(o[r * this->outPitch], h[r * pitch], AscendC::RoundMode::CAST_NONE, len);\n",
                                out_t, out_t);
    }
  else
    g_string_append_printf (s, "    AscendC::LocalTensor<float> o = outQueue.AllocTensor<float>();\n"
                               "    AscendC::Muls(o, %s, 1.0f, n);\n", g->result);
  g_string_append (s, "    outQueue.EnQue(o);\n");
  for (guint i = 0; i < g->streams->len; i++)
    g_string_append_printf (s, "    inQueue%u.FreeTensor(x%u);\n", i, i);
  g_string_append (s, "  }\n\n");
}

static void
append_members (const I8 *g, GString *s)
{
  const char *out_t = fw_i8_ctype (g->q.result->dtype);

  g_string_append (s,
    "  AscendC::TPipe pipe;\n"
    "  /* Matmul使用说明, table 2: int8_t A and B (GM, ND), int32_t C into the UB (VECIN), int32_t bias (unused). */\n"
    "  matmul::Matmul<matmul::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, int8_t>,\n"
    "                 matmul::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, int8_t, TRANS_B>,\n"
    "                 matmul::MatmulType<AscendC::TPosition::VECIN, CubeFormat::ND, int32_t>,\n"
    "                 matmul::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, int32_t>> mm;\n"
    "  TCubeTiling cube;\n"
    "  AscendC::TQue<AscendC::QuePosition::VECIN, 1> cubeQueue;  /* one int32 block of C from GetTensorC */\n");
  for (guint i = 0; i < g->streams->len; i++)
    g_string_append_printf (s, "  AscendC::TQue<AscendC::QuePosition::VECIN, 1> inQueue%u;\n", i);
  g_string_append (s, "  AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQueue;\n"
                      "  AscendC::TBuf<AscendC::TPosition::VECCALC> yBuf, colBuf;\n");
  for (guint i = 0; i < g->n_tmp; i++)
    g_string_append_printf (s, "  AscendC::TBuf<AscendC::TPosition::VECCALC> tBuf%u;\n", i);
  if (g->erf)
    g_string_append (s, "  AscendC::TBuf<AscendC::TPosition::VECCALC> sBuf;  /* erf's three scratch tensors */\n");
  if (g->prep || g->q.out.node != NULL)
    g_string_append (s, "  AscendC::TBuf<AscendC::TPosition::VECCALC> hBuf, scaleBuf;\n");
  if (g->prep)
    g_string_append (s, "  AscendC::TQue<AscendC::QuePosition::VECIN, 1> prepIn;\n"
                        "  AscendC::TQue<AscendC::QuePosition::VECOUT, 1> prepOut;\n"
                        "  AscendC::GlobalTensor<int8_t> wsGm;\n");
  if (g->conv)
    fw_i8_conv_append_members (g, s);
  if (g->act)
    fw_i8_act_append_members (g, s);
  g_string_append_printf (s, "  AscendC::GlobalTensor<%s> aGm;\n  AscendC::GlobalTensor<int8_t> bGm;\n",
                          fw_i8_ctype (g->a_src->dtype));
  for (guint i = 0; i < g->streams->len; i++)
    g_string_append_printf (s, "  AscendC::GlobalTensor<float> in%uGm;\n", i);
  g_string_append_printf (s, "  AscendC::GlobalTensor<%s> out0Gm;\n"
                             "  uint32_t m0 = 0, n0 = 0, sm = 0, sn = 0;  /* this core's share of C */\n"
                             "  uint32_t baseM = 0, baseN = 0, outPitch = 0;\n};\n\n", out_t);
}

static char *
gen_kernel (const I8 *g)
{
  GString *s = g_string_new (NULL);

  append_header (g, s, "Ascend C kernel");
  append_prelude (g, s);
  g_string_append (s, "class Int8Kernel\n{\npublic:\n  __aicore__ inline Int8Kernel() {}\n\n");
  append_init (g, s);
  append_process (g, s);
  append_load_columns (g, s);
  if (g->conv)
    fw_i8_conv_append_prepare (g, s);
  else if (g->act)
    fw_i8_act_append_prepare (g, s);
  else
    append_prepare (g, s);
  append_copy_in_out (g, s);
  append_compute (g, s);
  append_members (g, s);
  g_string_append_printf (s, "extern \"C\" __global__ __aicore__ void %s(", g->name);
  append_args (g, s, TRUE);
  g_string_append_printf (s, "GM_ADDR tiling)\n{\n"
                             "  const __gm__ %s *src = reinterpret_cast<const __gm__ %s *>(tiling);\n"
                             "  %s t = *src;\n"
                             "  Int8Kernel op;\n  op.Init(", g->struct_name, g->struct_name, g->struct_name);
  append_args (g, s, FALSE);
  g_string_append (s, "t);\n  op.Process();\n}\n");
  return g_string_free (s, FALSE);
}

static char *
gen_tiling_header (const I8 *g, const FwAscendTiling *t)
{
  GString *s = g_string_new (NULL);
  g_autofree char *upper = g_ascii_strup (g->name, -1);

  append_header (g, s, "tiling data");
  g_string_append_printf (s, "#ifndef %s_TILING_H\n#define %s_TILING_H\n\n#include <cstdint>\n\n"
                             "/* Filled on the host by %sComputeTiling, read by the kernel from global memory. */\n"
                             "struct %s\n{\n"
                             "  uint64_t totalLength;    /* elements of C */\n"
                             "  uint64_t tileLength;     /* elements of a C block (baseM x baseN) */\n"
                             "  uint64_t tileNum;        /* blocks in all */\n"
                             "  uint64_t rows;           /* baseM */\n"
                             "  uint64_t rowLength;      /* baseN */\n"
                             "  uint64_t blockNum;       /* cores to launch */\n"
                             "  uint64_t tilesPerBlock;  /* blocks the busiest core computes */\n"
                             "  /* The cube tiling (TCubeTiling, computed for the profile by fw_ascend_cube_tiling) */\n",
                          upper, upper, g->struct_name, g->struct_name);
  for (guint i = 0; i < G_N_ELEMENTS (cube_fields); i++)
    g_string_append_printf (s, "  uint64_t cube%s;  /* %" G_GUINT64_FORMAT " */\n", cube_fields[i], t->cube[i]);
  g_string_append_printf (s, "  uint64_t wsStride;  /* bytes of workspace per core (%" G_GUINT64_FORMAT "); the kernel takes "
                             "blockNum x wsStride */\n};\n\n"
                             "extern \"C\" int %sComputeTiling(uint64_t ubBytes, uint64_t ubReserveBytes, double budgetFraction,\n"
                             "                                 uint32_t alignBytes, uint32_t vectorCores, %s *tiling);\n\n#endif\n",
                          t->cube[G_N_ELEMENTS (cube_fields)], g->struct_name, g->struct_name);
  return g_string_free (s, FALSE);
}

static char *
gen_host_tiling (const I8 *g, const FwAscendTiling *t)
{
  GString *s = g_string_new (NULL);

  append_header (g, s, "host tiling");
  fw_ac_host_tiling_fixed (s, g->name, g->struct_name, g->profile, t);
  return g_string_free (s, FALSE);
}

static char *
gen_readme (const I8 *g, const FwAscendTiling *t)
{
  GString *s = g_string_new (NULL);
  g_autofree char *pattern = fw_ascend_escape_comment (g->cand->pattern);

  g_string_append_printf (s, "# %s: integer group (candidate %u, %s)\n\n"
                             "One mixed cube + vector kernel: int8 A and B summed in int32 by the Matmul API, dequantised, the\n"
                             "float epilogue and %s in vector code. C is [%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT "], K %"
                             G_GINT64_FORMAT "; %" G_GINT64_FORMAT " cores, blocks of %d x %d.\n\n",
                          g->name, g->cand->index, pattern, g->q.out.node != NULL ? "the requantisation" : "no requantisation",
                          g->m, g->n, g->k, t->block_num, g->tiling.base_m, g->tiling.base_n);
  g_string_append_printf (s, "Arguments: `a` (%s), `b` (%s)", fw_dtype_name (g->a_src->dtype),
                          g->act ? fw_dtype_name (g->b_src->dtype) : "int8 weights");
  for (guint i = 0; i < g->streams->len; i++)
    g_string_append_printf (s, ", `in%u` (float32, C's shape)", i);
  g_string_append_printf (s, ", `out0` (%s)%s, `tiling`.\n", fw_dtype_name (g->q.result->dtype),
                          g->conv ? ", `workspace` (blockNum x wsStride bytes: each core's columns of im2col(x) as int8)"
                          : g->act ? ", `workspace` (blockNum x wsStride bytes: each core's rows of A and columns of B as int8, per batch)"
                          : g->prep ? ", `workspace` (blockNum x wsStride bytes: A as int8, per core)" : "");
  g_string_append (s, "\nSee docs/ascend-target.md, \"Integer groups\", for what the generated code has been checked against.\n");
  return g_string_free (s, FALSE);
}

/* The bound of the reference's float sum of the dequantised product against the kernel's exact one (the rule
 * of fw_ascend_product_tolerance, on the dequantised magnitudes). */
static gdouble
product_bound (const I8 *g)
{
  gint64 lo = g->q.a.dq.qtype == FW_DTYPE_INT8 ? -128 : 0, hi = g->q.a.dq.qtype == FW_DTYPE_INT8 ? 127 : 255;
  gint64 za = zp_at (&g->q.a.dq, 0);
  gdouble amax = scale_at (&g->q.a.dq, 0) * (gdouble) MAX (ABS (lo - za), ABS (hi - za)), bmax = 0;
  const FwTensor *bt = g->act ? NULL : g->q.b.dq.integer->constant;

  if (g->act)
    {
      gint64 blo = g->q.b.dq.qtype == FW_DTYPE_INT8 ? -128 : 0, bhi = g->q.b.dq.qtype == FW_DTYPE_INT8 ? 127 : 255;
      gint64 zb = zp_at (&g->q.b.dq, 0);
      bmax = scale_at (&g->q.b.dq, 0) * (gdouble) MAX (ABS (blo - zb), ABS (bhi - zb));
    }
  for (gint64 i = 0; bt != NULL && i < bt->n_elements; i++)
    {
      gint64 v = 0;
      gint64 col = g->w_by_chan ? i / g->k : i % g->n;
      if (fw_tensor_get_int64 (bt, i, &v))
        bmax = MAX (bmax, fabs ((gdouble) v * scale_at (&g->q.b.dq, col)));
    }
  return 2.0 * (gdouble) g->k * ldexp (1.0, -24) * amax * bmax;
}

FwAscendKernel *
fw_ascend_int8_generate (FwPlan *plan, const FwCandidate *candidate, GError **error)
{
  I8 g;
  FwAscendTiling tiling;
  FwKernelSource *src;
  FwAscendKernel *kernel = NULL;

  if (decide (&g, plan, candidate, error))
    {
      compute_tiling (&g, &tiling);
      src = fw_kernel_source_new ("ascend", g.name);
      fw_kernel_source_add_input (src, g.a_src);
      fw_kernel_source_add_input (src, g.b_src);
      for (guint i = 0; i < g.streams->len; i++)
        fw_kernel_source_add_input (src, g_ptr_array_index (g.streams, i));
      fw_kernel_source_add_output (src, g.q.result);
      fw_kernel_source_take_file (src, g_strdup_printf ("%s.cpp", g.name), gen_kernel (&g));
      fw_kernel_source_take_file (src, g_strdup_printf ("%s_tiling.h", g.name), gen_tiling_header (&g, &tiling));
      fw_kernel_source_take_file (src, g_strdup_printf ("%s_tiling.cpp", g.name), gen_host_tiling (&g, &tiling));
      fw_kernel_source_take_file (src, g_strdup ("CMakeLists.txt"), fw_ac_gen_cmake (g.name));
      fw_kernel_source_take_file (src, g_strdup ("README.md"), gen_readme (&g, &tiling));
      kernel = fw_ac_kernel_new_integer (src, &tiling, product_bound (&g));
    }
  i8_clear (&g);
  return kernel;
}
