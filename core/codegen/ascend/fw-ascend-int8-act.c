/* fw-ascend-int8-act.c: the two-activation form of an integer group's kernel (fw-ascend-int8.c): a MatMul
 * whose B is computed at run time too (attention's Q·Kᵀ and P·V), batched over its leading dimensions (equal
 * for A, B and C: no broadcast), both operands per tensor.
 *
 * Per batch, a vector prepass writes this core's rows of A ([sm, K]) and its columns of B ([K, sn], at a pitch
 * of N) as int8 into its own part of the GM workspace, converting them as the MatMul form's prepass converts
 * A (int8 as it is, uint8 shifted by −128, a float operand quantised by the group's QuantizeLinear), and
 * takes their sums in float (exact: integers below 2^24): A's row sums by folding 64-column chunks with Add
 * and one WholeReduceSum per tile, B's column sums by one Add per row. With both zero points in int8 space,
 *   Σk (a − za)(b − zb) = Σk a b − za Σk b[k][j] − zb Σk a[i][k] + K za zb,
 * the cube's int32 Σ a b gets the column term through the per-column correction (ColApply, the MatMul form's
 * corr, here computed per batch) and the row term with K za zb through a per-row one (RowApply), in int32,
 * exact; the dequantisation is then the product's (s_a s_b per column). */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-ascend-int8-private.h"

/* Elements of a prepass tile: whole rows of A (K each) or of B's columns (sn ≤ N each). */
#define ACT_TILE 2048
#define ACT_BC_BYTES (64 * 32)

static gint64
round32 (gint64 v)
{
  return (v + 31) / 32 * 32;
}

static gint
bytes_of (const FwValue *v)
{
  return fw_dtype_bits (v->dtype) / 8;
}

gboolean
fw_i8_act_decide (I8 *g, GError **error)
{
  FwQdqGroup *q = &g->q;
  const FwNode *root = q->root;
  const FwValue *a = root->inputs[0], *b = root->inputs[1], *c = root->outputs[0];
  gint r = a->rank;

  if (q->a.dq.n != 1 || q->b.dq.n != 1)
    return fw_i8_refuse (error, _("MatMul “%s”: an activation quantised per axis"), root->name);
  if (q->b.dq.qtype != FW_DTYPE_INT8 && q->b.dq.qtype != FW_DTYPE_UINT8)
    return fw_i8_refuse (error, _("MatMul “%s”: B is %s"), root->name, fw_dtype_name (q->b.dq.qtype));
  if (r < 2 || b->rank != r || c->rank != r)
    return fw_i8_refuse (error, _("MatMul “%s”: operands of ranks %d, %d (a broadcast batch)"), root->name, r,
                         b->rank);
  g->batch = 1;
  for (gint d = 0; d < r - 2; d++)
    {
      if (a->dims[d].value != b->dims[d].value || a->dims[d].value != c->dims[d].value)
        return fw_i8_refuse (error, _("MatMul “%s”: a batch dimension broadcast"), root->name);
      g->batch *= a->dims[d].value;
    }
  g->m = a->dims[r - 2].value;
  g->k = a->dims[r - 1].value;
  g->n = b->dims[r - 1].value;
  if (b->dims[r - 2].value != g->k || c->dims[r - 2].value != g->m || c->dims[r - 1].value != g->n)
    return fw_i8_refuse (error, _("MatMul “%s”: the operands are not [M, K] by [K, N] products"), root->name);
  g->act = TRUE;
  g->n_chan = g->n;
  g->b_src = q->b.q.node != NULL ? q->b.q.real : q->b.dq.integer;
  g->zb = fw_i8_zp_at (&q->b.dq, 0) - (q->b.dq.qtype == FW_DTYPE_UINT8 ? 128 : 0);
  g->pa = round32 (g->k);
  g->pb = round32 (g->n);
  /* The fold's repeat stride is PA / 8 blocks, a uint8_t (BinaryRepeatParams.md). */
  if (g->pa > ACT_TILE || g->pa / 8 > 255 || g->pb > ACT_TILE || g->batch * g->m * g->n > G_MAXINT32)
    return fw_i8_refuse (error, _("MatMul “%s”: rows of %" PRId64 " or %" PRId64 " elements, past the prepass tile of %d"),
                         root->name, g->k, g->n, ACT_TILE);
  return TRUE;
}

gint64
fw_i8_act_ub_bytes (const I8 *g)
{
  gint es = MAX (bytes_of (g->a_src), bytes_of (g->b_src));
  gboolean quantise = g->q.a.q.node != NULL || g->q.b.q.node != NULL;

  /* The source tile, its half, float and int8 forms, the duplicated scale, A's row sums and corrections,
   * B's column sums, RowApply's blocks. */
  return (gint64) ACT_TILE * (es + 2 + 4 + 1 + (quantise ? 4 : 0)) + 2 * round32 (4 * g->m) + 4 * g->pb + ACT_BC_BYTES;
}

/* A core's workspace: its rows of A, then B [K, N] (its columns written). */
gint64
fw_i8_act_workspace (const I8 *g)
{
  return round32 ((gint64) g->tiling.single_core_m * g->k) + round32 (g->k * g->n);
}

void
fw_i8_act_traffic (const I8 *g, gdouble *read, gdouble *written)
{
  const FwCubeTiling *t = &g->tiling;
  gint64 m_shares = (t->m + t->single_core_m - 1) / t->single_core_m;

  for (gint core = 0; core < t->used_core_num; core++)
    {
      gint64 m0 = (core % m_shares) * t->single_core_m, n0 = (core / m_shares) * t->single_core_n;
      gint64 sm = MIN ((gint64) t->single_core_m, t->m - m0), sn = MIN ((gint64) t->single_core_n, t->n - n0);
      *read += (gdouble) g->batch * g->k * (sm * bytes_of (g->a_src) + sn * bytes_of (g->b_src));
      *written += (gdouble) g->batch * g->k * (sm + sn);
    }
}

void
fw_i8_act_append_consts (const I8 *g, GString *s)
{
  gint ea = bytes_of (g->a_src);
  g_autofree char *za = fw_i8_flit ((double) g->za), *zb = fw_i8_flit ((double) g->zb);
  g_autofree char *kzz = fw_i8_flit ((double) g->k * (double) g->za * (double) g->zb);

  g_string_append_printf (s,
    "/* Two activations: BATCH products of [M_ROWS, K_LEN] by [K_LEN, N_COLS]; prepass tiles of TILE elements,\n"
    " * RA rows of A (PA apart, GAP_A blocks after each) or RB rows of B's columns (PB apart); the zero points\n"
    " * in int8 space and K za zb; B's part of a core's workspace starts WS_B bytes in. */\n"
    "constexpr uint32_t BATCH = %" G_GINT64_FORMAT "u, M_ROWS = %" G_GINT64_FORMAT "u, TILE = %du;\n"
    "constexpr uint32_t PA = %" G_GINT64_FORMAT "u, PB = %" G_GINT64_FORMAT "u, RA = %" G_GINT64_FORMAT
    "u, RB = %" G_GINT64_FORMAT "u, GAP_A = %" G_GINT64_FORMAT "u;\n"
    "constexpr float ZA8 = %s, ZB8 = %s, KZZ = %s;\n"
    "constexpr uint64_t WS_B = %" G_GINT64_FORMAT "u;\n\n",
    g->batch, g->m, ACT_TILE, g->pa, g->pb, ACT_TILE / g->pa, ACT_TILE / g->pb,
    (g->pa * ea - round32 (g->k * ea)) / 32, za, zb, kzz, round32 ((gint64) g->tiling.single_core_m * g->k));
}

void
fw_i8_act_append_init (const I8 *g, GString *s)
{
  const char *ta = fw_i8_ctype (g->a_src->dtype), *tb = fw_i8_ctype (g->b_src->dtype);
  gint es = MAX (bytes_of (g->a_src), bytes_of (g->b_src));

  g_string_append_printf (s,
    "    aGm.SetGlobalBuffer(reinterpret_cast<__gm__ %s *>(a), static_cast<uint64_t>(BATCH) * M_ROWS * K_LEN);\n"
    "    bSrcGm.SetGlobalBuffer(reinterpret_cast<__gm__ %s *>(b), static_cast<uint64_t>(BATCH) * K_LEN * N_COLS);\n"
    "    /* This core's rows of A and columns of B as int8, in its own part of the workspace. */\n"
    "    wsAGm.SetGlobalBuffer(reinterpret_cast<__gm__ int8_t *>(workspace) + idx * tiling.wsStride,\n"
    "                          static_cast<uint64_t>(this->sm) * K_LEN);\n"
    "    wsBGm.SetGlobalBuffer(reinterpret_cast<__gm__ int8_t *>(workspace) + idx * tiling.wsStride + WS_B,\n"
    "                          K_LEN * N_COLS);\n"
    "    pipe.InitBuffer(pIn, 1, TILE * %d);\n"
    "    pipe.InitBuffer(pOut, 1, TILE);\n"
    "    pipe.InitBuffer(pH, TILE * sizeof(half));\n"
    "    pipe.InitBuffer(pF, TILE * sizeof(float));\n"
    "%s"
    "    pipe.InitBuffer(rowSumBuf, M_ROWS * sizeof(float));\n"
    "    pipe.InitBuffer(rowBuf, M_ROWS * sizeof(int32_t));\n"
    "    pipe.InitBuffer(colSumBuf, PB * sizeof(float));\n"
    "    pipe.InitBuffer(bcBuf, %d);\n",
    ta, tb, es, g->q.a.q.node != NULL || g->q.b.q.node != NULL ? "    pipe.InitBuffer(pScaleBuf, TILE * sizeof(float));\n" : "",
    ACT_BC_BYTES);
}

/* x (the operand's source type) as int8-space half into h, cnt elements. */
static void
append_convert (GString *s, const FwQdqOperand *op, const FwValue *src, const char *indent)
{
  if (op->q.node != NULL)
    fw_i8_append_quantize (s, &op->q, op->dq.qtype == FW_DTYPE_UINT8 ? 128 : 0, "x", "h", "cnt", indent);
  else
    {
      g_string_append_printf (s, "%sAscendC::Cast(h, x, AscendC::RoundMode::CAST_NONE, cnt);\n", indent);
      if (src->dtype == FW_DTYPE_UINT8)
        g_string_append_printf (s, "%sAscendC::Adds(h, h, static_cast<half>(-128.0f), static_cast<int32_t>(cnt));\n", indent);
    }
}

static void
append_scale (GString *s, const FwQdqOperand *op)
{
  g_autofree char *sc = NULL;

  if (op->q.node == NULL)
    return;
  sc = fw_i8_flit (fw_i8_scale_at (&op->q, 0));
  g_string_append_printf (s, "    AscendC::Duplicate(scaleT, %s, static_cast<int32_t>(TILE));\n", sc);
}

void
fw_i8_act_append_prepare (const I8 *g, GString *s)
{
  const char *ta = fw_i8_ctype (g->a_src->dtype), *tb = fw_i8_ctype (g->b_src->dtype);

  g_string_append (s,
    "  /* Batch bt's rows of A and columns of B of this core as int8 into its workspace, with A's row sums and\n"
    "   * B's column sums (float, exact) made into the per-row and per-column corrections. */\n"
    "  __aicore__ inline void Prepare(uint32_t bt)\n  {\n"
    "    AscendC::LocalTensor<half> h = pH.Get<half>();\n"
    "    AscendC::LocalTensor<float> f = pF.Get<float>();\n"
    "    AscendC::LocalTensor<float> rs = rowSumBuf.Get<float>();\n"
    "    AscendC::LocalTensor<float> cs = colSumBuf.Get<float>();\n");
  if (g->q.a.q.node != NULL || g->q.b.q.node != NULL)
    g_string_append (s, "    AscendC::LocalTensor<float> scaleT = pScaleBuf.Get<float>();\n");
  append_scale (s, &g->q.a);
  g_string_append_printf (s,
    "    for (uint32_t r0 = 0; r0 < this->sm; r0 += RA) {\n"
    "      uint32_t rows = this->sm - r0 < RA ? this->sm - r0 : RA, cnt = rows * PA;\n"
    "      AscendC::LocalTensor<%s> x = pIn.AllocTensor<%s>();\n"
    "      AscendC::DataCopyExtParams in(static_cast<uint16_t>(rows), static_cast<uint32_t>(K_LEN * sizeof(%s)), 0, GAP_A, 0);\n"
    "      AscendC::DataCopyPadExtParams<%s> pad(false, 0, 0, %s());\n"
    "      AscendC::DataCopyPad(x, aGm[(static_cast<uint64_t>(bt) * M_ROWS + this->m0 + r0) * K_LEN], in, pad);\n"
    "      pIn.EnQue(x);\n"
    "      x = pIn.DeQue<%s>();\n", ta, ta, ta, ta, ta, ta);
  append_convert (s, &g->q.a, g->a_src, "      ");
  g_string_append (s,
    "      pIn.FreeTensor(x);\n"
    "      /* Row sums: 64-column chunks folded onto the first, then one sum per row. */\n"
    "      AscendC::Cast(f, h, AscendC::RoundMode::CAST_NONE, cnt);\n"
    "      const AscendC::BinaryRepeatParams fold(1, 1, 1, PA / 8, PA / 8, PA / 8);\n"
    "      for (uint32_t c = 64; c < K_LEN; c += 64)\n"
    "        AscendC::Add(f, f, f[c], K_LEN - c < 64 ? K_LEN - c : 64, static_cast<uint8_t>(rows), fold);\n"
    "      AscendC::WholeReduceSum(rs[r0], f, K_LEN < 64 ? static_cast<int32_t>(K_LEN) : 64, static_cast<int32_t>(rows), 1, 1,\n"
    "                              static_cast<int32_t>(PA / 8));\n"
    "      AscendC::LocalTensor<int8_t> q = pOut.AllocTensor<int8_t>();\n"
    "      AscendC::Cast(q, h, AscendC::RoundMode::CAST_NONE, cnt);\n"
    "      pOut.EnQue(q);\n"
    "      q = pOut.DeQue<int8_t>();\n"
    "      AscendC::DataCopyExtParams o(static_cast<uint16_t>(rows), static_cast<uint32_t>(K_LEN), 0, 0, 0);\n"
    "      AscendC::DataCopyPad(wsAGm[static_cast<uint64_t>(r0) * K_LEN], q, o);\n"
    "      pOut.FreeTensor(q);\n"
    "    }\n"
    "    /* Per row: -zb sum_k a + K za zb, in int32. */\n"
    "    AscendC::Muls(rs, rs, -ZB8, static_cast<int32_t>(this->sm));\n"
    "    AscendC::Adds(rs, rs, KZZ, static_cast<int32_t>(this->sm));\n"
    "    AscendC::Cast(rowBuf.Get<int32_t>(), rs, AscendC::RoundMode::CAST_RINT, this->sm);\n");
  append_scale (s, &g->q.b);
  g_string_append_printf (s,
    "    AscendC::Duplicate(cs, 0.0f, static_cast<int32_t>(PB));\n"
    "    for (uint32_t k0 = 0; k0 < K_LEN; k0 += RB) {\n"
    "      uint32_t rows = K_LEN - k0 < RB ? K_LEN - k0 : RB, cnt = rows * PB;\n"
    "      AscendC::LocalTensor<%s> x = pIn.AllocTensor<%s>();\n"
    "      AscendC::DataCopyExtParams in(static_cast<uint16_t>(rows), static_cast<uint32_t>(this->sn * sizeof(%s)),\n"
    "                                    static_cast<uint32_t>((N_COLS - this->sn) * sizeof(%s)), GapBlocks<%s>(this->sn, PB), 0);\n"
    "      AscendC::DataCopyPadExtParams<%s> pad(false, 0, 0, %s());\n"
    "      AscendC::DataCopyPad(x, bSrcGm[(static_cast<uint64_t>(bt) * K_LEN + k0) * N_COLS + this->n0], in, pad);\n"
    "      pIn.EnQue(x);\n"
    "      x = pIn.DeQue<%s>();\n", tb, tb, tb, tb, tb, tb, tb, tb);
  append_convert (s, &g->q.b, g->b_src, "      ");
  g_string_append (s,
    "      pIn.FreeTensor(x);\n"
    "      AscendC::Cast(f, h, AscendC::RoundMode::CAST_NONE, cnt);\n"
    "      for (uint32_t r = 0; r < rows; r++)\n"
    "        AscendC::Add(cs, cs, f[r * PB], static_cast<int32_t>(this->sn));\n"
    "      AscendC::LocalTensor<int8_t> q = pOut.AllocTensor<int8_t>();\n"
    "      AscendC::Cast(q, h, AscendC::RoundMode::CAST_NONE, cnt);\n"
    "      pOut.EnQue(q);\n"
    "      q = pOut.DeQue<int8_t>();\n"
    "      AscendC::DataCopyExtParams o(static_cast<uint16_t>(rows), this->sn, GapBlocks<int8_t>(this->sn, PB),\n"
    "                                   N_COLS - this->sn, 0);\n"
    "      AscendC::DataCopyPad(wsBGm[static_cast<uint64_t>(k0) * N_COLS + this->n0], q, o);\n"
    "      pOut.FreeTensor(q);\n"
    "    }\n"
    "    /* Per column: -za sum_k b, in int32, where the weights' constant correction would be. */\n"
    "    AscendC::Muls(cs, cs, -ZA8, static_cast<int32_t>(this->sn));\n"
    "    AscendC::Cast(colBuf.Get<int32_t>(), cs, AscendC::RoundMode::CAST_RINT, this->sn);\n"
    "    /* The workspace is in GM before the Matmul object reads it (every pipe drained). */\n"
    "    AscendC::PipeBarrier<PIPE_ALL>();\n  }\n\n");
}

void
fw_i8_act_append_members (const I8 *g, GString *s)
{
  g_string_append_printf (s,
    "  AscendC::TQue<AscendC::QuePosition::VECIN, 1> pIn;    /* a prepass tile as read */\n"
    "  AscendC::TQue<AscendC::QuePosition::VECOUT, 1> pOut;  /* the tile as int8 */\n"
    "  AscendC::TBuf<AscendC::TPosition::VECCALC> pH, pF, rowSumBuf, rowBuf, colSumBuf, bcBuf%s;\n"
    "  AscendC::GlobalTensor<%s> bSrcGm;\n"
    "  AscendC::GlobalTensor<int8_t> wsAGm, wsBGm;\n",
    g->q.a.q.node != NULL || g->q.b.q.node != NULL ? ", pScaleBuf" : "", fw_i8_ctype (g->b_src->dtype));
}
