/* fw-ascend-int8-conv.c: the Conv form of an integer group's kernel (fw-ascend-int8.c): the product is
 * C = W x im2col(x), [OC, OH*OW] with K = C_in*KH*KW, which is the NCHW output of a batch-1 Conv as it stands,
 * so the epilogue's C-shaped inputs and the output are read and written as the MatMul form's are, and the
 * per-channel vectors (the correction, the multipliers, the bias, the epilogue's [OC, 1, 1] operands) run
 * along C's rows (RowApply).
 *
 * The weights W [OC, K] are A, as they are stored (int8, zero points 0). B is im2col(x) [K, N], made by a
 * vector prepass into the core's part of the kernel's GM workspace: every core makes the columns it multiplies
 * (its n-share), all K rows of them, so no core waits for another. Row k = (c, kh, kw) at column
 * p = oh*OW + ow holds x[c][oh*SH - PT + kh*DH][ow*SW - PL + kw*DW] as int8, or the activation's zero point
 * where that is padding (za in int8 space: Σ (a − za) w then has no term for it, as the float Conv has none).
 *
 * CHUNK columns at a time: the chunk's input rows of channel c are read once into a window in the UB,
 * DataCopyPad putting the conv's left padding before each row and its right padding after (leftPadding,
 * rightPadding and paddingValue, DataCopyPad.md; at most 32 bytes each), Duplicate filling the rows above
 * and below the image; the window is converted to half in int8 space (int8 as it is, uint8 shifted by −128,
 * a float activation quantised as the MatMul form's prepass does). One Gather (Gather.md, count form: half
 * elements from byte offsets) then takes the channel's KH x KW rows of the chunk: the first row's offsets are
 * computed once per chunk by the scalar unit, the row of (kh, kw) is that row plus (kh*DH*pitch + kw*DW)*2
 * bytes (an int32 Adds per row); the half result is cast to int8 (CAST_NONE: exact on these integers) and
 * one copy writes the KH x KW rows, N apart, into the workspace. */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-ascend-int8-private.h"
#include "graph/fw-window.h"

/* The output positions a prepass chunk covers at most, the UB the prepass may take from the C blocks, and the
 * most elements one Gather takes (its count form issues count / 128 repeats of half, at most 255). */
#define CONV_CHUNK_MAX 4096
#define CONV_PREP_BUDGET (64 * 1024)
#define CONV_GATHER_MAX (255 * 128)
/* bc: RowApply's 64 broadcast blocks of 32 bytes. */
#define CONV_BC_BYTES (64 * 32)

static gint64
round32 (gint64 v)
{
  return (v + 31) / 32 * 32;
}

/* The UB the prepass takes (each InitBuffer rounds up to 32 bytes): the window as read, in half and (a float
 * x) the duplicated scale; the KH x KW rows of a chunk's offsets, their Gather in half and as int8. */
static gint64
prep_bytes (const I8 *g, const FwAcConv *cv)
{
  gint64 win = cv->win_rows * cv->pitch, table = cv->kh * cv->kw * cv->chunk;

  return round32 (win * cv->src_bytes) + round32 (win * 2) + (g->q.a.q.node != NULL ? round32 (win * 4) : 0) +
         table * (4 + 2 + 1) + CONV_BC_BYTES;
}

/* The window's row layout: the left padding, the row, the right padding DataCopyPad fills to the row's last
 * 32-byte block (or one block more), then a gap making the pitch 16 elements' multiple. */
static gboolean
window_layout (I8 *g, FwAcConv *cv, GError **error)
{
  const FwNode *root = g->q.root;
  gint es = cv->src_bytes;
  gint64 need = cv->pr;
  gint64 data = (cv->pl + cv->w) * es, gap = round32 (data) - data;

  if (cv->pl * es > 32)
    return fw_i8_refuse (error, _("Conv “%s”: a left padding of %" PRId64 " elements (DataCopyPad pads at most "
                                  "32 bytes)"), root->name, cv->pl);
  if (need * es > 32 || (gap > 0 && gap < need * es))
    return fw_i8_refuse (error, _("Conv “%s”: a right padding of %" PRId64 " elements DataCopyPad cannot put "
                                  "after a row of %" PRId64), root->name, need, cv->w);
  cv->lpad = cv->pl;
  cv->rpad = (gap > 0 ? gap : need > 0 ? 32 : 0) / es;
  cv->pitch = (data + cv->rpad * es) / es;
  cv->gap_blocks = cv->pitch % 16 != 0 ? 1 : 0;
  cv->pitch += cv->gap_blocks * (32 / es);
  return TRUE;
}

/* The geometry, the product's shape and the prepass layout of a Conv root. */
gboolean
fw_i8_conv_decide (I8 *g, GError **error)
{
  const FwNode *root = g->q.root;
  const FwValue *x = root->inputs[0], *w = root->inputs[1], *y = root->outputs[0];
  FwAcConv *cv = &g->cv;
  gint64 k[2];
  FwWindow2d win;

  if (x->rank != 4 || w->rank != 4 || y->rank != 4 || g->a_src->rank != 4)
    return fw_i8_refuse (error, _("Conv “%s”: not a 2-D convolution"), root->name);
  if (x->dims[0].value != 1)
    return fw_i8_refuse (error, _("Conv “%s”: a batch of %" PRId64 " (C = W x im2col(x) is one image's NCHW "
                                  "output)"), root->name, x->dims[0].value);
  if (fw_node_get_attr_int (root, "group", 1) != 1)
    return fw_i8_refuse (error, _("Conv “%s”: %" PRId64 " groups (one product per group is not generated)"),
                         root->name, fw_node_get_attr_int (root, "group", 1));
  k[0] = w->dims[2].value, k[1] = w->dims[3].value;
  if (!fw_window_2d (root, k, &win) || w->dims[1].value != x->dims[1].value || win.out[0] < 1 || win.out[1] < 1 ||
      win.in[0] < 1 || win.in[1] < 1)
    return fw_i8_refuse (error, _("Conv “%s”: attributes out of range"), root->name);
  memset (cv, 0, sizeof *cv);
  cv->c = x->dims[1].value;
  cv->h = win.in[0], cv->w = win.in[1];
  cv->kh = k[0], cv->kw = k[1];
  cv->oh = win.out[0], cv->ow = win.out[1];
  cv->sh = win.s[0], cv->sw = win.s[1];
  cv->dh = win.d[0], cv->dw = win.d[1];
  cv->pt = win.begin[0], cv->pl = win.begin[1];
  cv->pr = win.end[1];
  g->conv = TRUE;
  g->w_by_chan = TRUE;
  g->m = w->dims[0].value;
  g->n = cv->oh * cv->ow;
  g->k = cv->c * cv->kh * cv->kw;
  g->n_chan = g->m;
  if (g->m > G_MAXINT || g->n > G_MAXINT || g->k > G_MAXINT || g->n * g->k > G_MAXINT32 ||
      fw_value_get_n_elements (y) != g->m * g->n)
    return fw_i8_refuse (error, _("Conv “%s”: too large for one kernel"), root->name);
  cv->src_bytes = fw_dtype_bits (g->a_src->dtype) / 8;
  if (!window_layout (g, cv, error))
    return FALSE;
  /* The largest chunk (a 32-element multiple: its rows of the tables start 32-byte aligned) whose buffers fit
   * the budget and whose KH x KW rows one Gather takes; its positions span at most (chunk - 1) / OW + 2
   * output rows. */
  for (cv->chunk = MIN (CONV_CHUNK_MAX, round32 (g->n)); cv->chunk >= 32; cv->chunk -= 32)
    {
      cv->rows = (cv->chunk - 1) / cv->ow + 2;
      cv->win_rows = (cv->rows - 1) * cv->sh + (cv->kh - 1) * cv->dh + 1;
      if (prep_bytes (g, cv) <= CONV_PREP_BUDGET && cv->kh * cv->kw * cv->chunk <= CONV_GATHER_MAX &&
          cv->win_rows <= 4095)
        return TRUE;
    }
  return fw_i8_refuse (error, _("Conv “%s”: one output row's input window (%" PRId64 " x %" PRId64
                                ") does not fit the prepass's share of the Unified Buffer"), root->name,
                       (cv->kh - 1) * cv->dh + 1 + cv->sh, cv->pitch);
}

gint64
fw_i8_conv_ub_bytes (const I8 *g)
{
  return prep_bytes (g, &g->cv);
}

/* What the prepass moves, as the kernel moves it: per core and chunk, each channel's rows of the window that
 * are inside the image (DataCopyPad counts the bytes read, not the padding), and K rows of the chunk written. */
void
fw_i8_conv_traffic (const I8 *g, gdouble *read, gdouble *written)
{
  const FwAcConv *cv = &g->cv;
  const FwCubeTiling *t = &g->tiling;
  gint64 m_shares = (t->m + t->single_core_m - 1) / t->single_core_m;

  for (gint core = 0; core < t->used_core_num; core++)
    {
      gint64 n0 = (core / m_shares) * t->single_core_n, sn = MIN ((gint64) t->single_core_n, t->n - n0);
      for (gint64 p0 = n0; p0 < n0 + sn; p0 += cv->chunk)
        {
          gint64 cnt = MIN (cv->chunk, n0 + sn - p0);
          gint64 ih0 = (p0 / cv->ow) * cv->sh - cv->pt;
          gint64 valid = MIN (ih0 + cv->win_rows, cv->h) - MAX (ih0, 0);
          if (valid > 0)
            *read += (gdouble) cv->c * valid * cv->w * cv->src_bytes;
          *written += (gdouble) g->k * cnt;
        }
    }
}

void
fw_i8_conv_append_consts (const I8 *g, GString *s)
{
  const FwAcConv *cv = &g->cv;
  const FwQdqParams *dq = &g->q.a.dq;
  const char *st = fw_i8_ctype (g->a_src->dtype);
  g_autofree char *pad = g->q.a.q.node != NULL ? g_strdup ("0.0f")
                                               : g_strdup_printf ("%" G_GINT64_FORMAT, fw_i8_zp_at (dq, 0));

  g_string_append_printf (s,
    "/* The Conv: x [1, C_IN, H_IN, W_IN], W [OC, C_IN, KH, KW], strides, dilations, top and left padding. */\n"
    "constexpr uint32_t C_IN = %" G_GINT64_FORMAT "u, KH = %" G_GINT64_FORMAT "u, KW = %" G_GINT64_FORMAT "u;\n"
    "constexpr int32_t H_IN = %" G_GINT64_FORMAT ", PT = %" G_GINT64_FORMAT ";\n"
    "constexpr uint32_t W_IN = %" G_GINT64_FORMAT "u, OW_OUT = %" G_GINT64_FORMAT "u;\n"
    "constexpr uint32_t SH = %" G_GINT64_FORMAT "u, SW = %" G_GINT64_FORMAT "u, DH = %" G_GINT64_FORMAT "u, DW = %"
    G_GINT64_FORMAT "u;\n"
    "/* The prepass: CHUNK output positions a time; their window of WIN_ROWS input rows at a pitch of WIN_PITCH\n"
    " * elements, PAD_L/PAD_R elements of padding around each row (GAP_BLOCKS blocks after it), PAD_SRC the\n"
    " * source value that is the zero point, ZA its int8 value. */\n"
    "constexpr uint32_t CHUNK = %" G_GINT64_FORMAT "u;\n"
    "constexpr int32_t WIN_ROWS = %" G_GINT64_FORMAT ";\n"
    "constexpr uint32_t WIN_PITCH = %" G_GINT64_FORMAT "u, GAP_BLOCKS = %" G_GINT64_FORMAT "u;\n"
    "constexpr uint8_t PAD_L = %" G_GINT64_FORMAT ", PAD_R = %" G_GINT64_FORMAT ";\n"
    "constexpr %s PAD_SRC = %s;\n"
    "constexpr float ZA = %" G_GINT64_FORMAT ".0f;\n\n",
    cv->c, cv->kh, cv->kw, cv->h, cv->pt, cv->w, cv->ow, cv->sh, cv->sw, cv->dh, cv->dw, cv->chunk, cv->win_rows,
    cv->pitch, cv->gap_blocks, cv->lpad, cv->rpad, st, pad, g->za);
}

void
fw_i8_conv_append_init (const I8 *g, GString *s)
{
  const char *st = fw_i8_ctype (g->a_src->dtype);

  g_string_append_printf (s,
    "    aGm.SetGlobalBuffer(reinterpret_cast<__gm__ %s *>(a), static_cast<uint64_t>(C_IN) * H_IN * W_IN);\n"
    "    /* The weights' rows of this core's output channels: A of the product. */\n"
    "    bGm.SetGlobalBuffer(reinterpret_cast<__gm__ int8_t *>(b) + static_cast<uint64_t>(this->m0) * K_LEN,\n"
    "                        static_cast<uint64_t>(this->sm) * K_LEN);\n"
    "    /* im2col(x) [K, N] as int8, this core's columns of it, in its own part of the workspace: B. */\n"
    "    wsGm.SetGlobalBuffer(reinterpret_cast<__gm__ int8_t *>(workspace) + idx * tiling.wsStride, K_LEN * N_COLS);\n"
    "    pipe.InitBuffer(winQueue, 1, WIN_ROWS * WIN_PITCH * sizeof(%s));\n"
    "    pipe.InitBuffer(hWinBuf, WIN_ROWS * WIN_PITCH * sizeof(half));\n"
    "%s"
    "    pipe.InitBuffer(offBuf, KH * KW * CHUNK * sizeof(uint32_t));\n"
    "    pipe.InitBuffer(gBuf, KH * KW * CHUNK * sizeof(half));\n"
    "    pipe.InitBuffer(colQueue, 1, KH * KW * CHUNK);\n"
    "    pipe.InitBuffer(bcBuf, %d);\n",
    st, st, g->q.a.q.node != NULL ? "    pipe.InitBuffer(winScaleBuf, WIN_ROWS * WIN_PITCH * sizeof(float));\n" : "",
    CONV_BC_BYTES);
}

static void
append_window (const I8 *g, GString *s)
{
  const char *st = fw_i8_ctype (g->a_src->dtype);

  g_string_append_printf (s,
    "      for (uint32_t c = 0; c < C_IN; c++) {\n"
    "        AscendC::LocalTensor<%s> x = winQueue.AllocTensor<%s>();\n"
    "        if (valid > 0) {\n"
    "          AscendC::DataCopyExtParams in(static_cast<uint16_t>(valid), W_IN * sizeof(%s), 0, GAP_BLOCKS, 0);\n"
    "          AscendC::DataCopyPadExtParams<%s> pad(true, PAD_L, PAD_R, PAD_SRC);\n"
    "          AscendC::DataCopyPad(x[top * WIN_PITCH], aGm[(static_cast<uint64_t>(c) * H_IN + ihs) * W_IN], in, pad);\n"
    "        }\n"
    "        winQueue.EnQue(x);\n"
    "        x = winQueue.DeQue<%s>();\n"
    "        if (top > 0)\n"
    "          AscendC::Duplicate(hw, static_cast<half>(ZA), static_cast<int32_t>(top * WIN_PITCH));\n"
    "        if (valid > 0) {\n"
    "          uint32_t cnt = valid * WIN_PITCH;\n"
    "          AscendC::LocalTensor<%s> xv = x[top * WIN_PITCH];\n"
    "          AscendC::LocalTensor<half> hv = hw[top * WIN_PITCH];\n",
    st, st, st, st, st, st);
  if (g->q.a.q.node != NULL)
    {
      g_string_append (s, "          /* QuantizeLinear (in the group), to int8 space (uint8 shifted by -128), in half. */\n");
      fw_i8_append_quantize (s, &g->q.a.q, g->q.a.dq.qtype == FW_DTYPE_UINT8 ? 128 : 0, "xv", "hv", "cnt", "          ");
    }
  else if (g->a_src->dtype == FW_DTYPE_UINT8)
    g_string_append (s, "          /* uint8 u as the int8 u - 128: exact through half (Cast.md: uint8_t -> half CAST_NONE). */\n"
                        "          AscendC::Cast(hv, xv, AscendC::RoundMode::CAST_NONE, cnt);\n"
                        "          AscendC::Adds(hv, hv, static_cast<half>(-128.0f), static_cast<int32_t>(cnt));\n");
  else
    g_string_append (s, "          AscendC::Cast(hv, xv, AscendC::RoundMode::CAST_NONE, cnt);  /* int8 -> half: exact */\n");
  g_string_append (s,
    "        }\n"
    "        if (static_cast<int32_t>(top + valid) < WIN_ROWS)\n"
    "          AscendC::Duplicate(hw[(top + valid) * WIN_PITCH], static_cast<half>(ZA),\n"
    "                             static_cast<int32_t>((WIN_ROWS - top - valid) * WIN_PITCH));\n"
    "        winQueue.FreeTensor(x);\n");
}

void
fw_i8_conv_append_prepare (const I8 *g, GString *s)
{
  g_string_append (s,
    "  /* im2col(x) for this core's columns into its workspace: row k = (c, kh, kw) of [K, N] holds at column\n"
    "   * p = oh * OW_OUT + ow x[c][oh SH - PT + kh DH][ow SW - PL + kw DW] as int8, ZA where that is padding.\n"
    "   * CHUNK columns at a time: each channel's window of input rows is read once and converted to half, and\n"
    "   * one Gather takes its KH x KW rows of the chunk (CHUNK apart) from the chunk's byte offsets, the row of\n"
    "   * (kh, kw) the first row shifted by (kh DH WIN_PITCH + kw DW) halves; one copy writes them. */\n"
    "  __aicore__ inline void Prepare()\n  {\n"
    "    AscendC::LocalTensor<half> hw = hWinBuf.Get<half>();\n"
    "    AscendC::LocalTensor<uint32_t> off = offBuf.Get<uint32_t>();\n"
    "    AscendC::LocalTensor<int32_t> offI = offBuf.Get<int32_t>();\n"
    "    AscendC::LocalTensor<half> gh = gBuf.Get<half>();\n");
  if (g->q.a.q.node != NULL)
    {
      g_autofree char *sc = fw_i8_flit (fw_i8_scale_at (&g->q.a.q, 0));
      g_string_append_printf (s, "    AscendC::LocalTensor<float> scaleT = winScaleBuf.Get<float>();\n"
                                 "    AscendC::Duplicate(scaleT, %s, static_cast<int32_t>(WIN_ROWS * WIN_PITCH));\n", sc);
    }
  g_string_append (s,
    "    for (uint32_t p0 = this->n0; p0 < this->n0 + this->sn; p0 += CHUNK) {\n"
    "      uint32_t n = this->n0 + this->sn - p0 < CHUNK ? this->n0 + this->sn - p0 : CHUNK;\n"
    "      uint32_t ohA = p0 / OW_OUT;\n"
    "      int32_t ih0 = static_cast<int32_t>(ohA * SH) - PT;\n"
    "      int32_t ihs = ih0 > 0 ? ih0 : 0, ihe = ih0 + WIN_ROWS < H_IN ? ih0 + WIN_ROWS : H_IN;\n"
    "      uint32_t top = static_cast<uint32_t>(ihs - ih0), valid = ihe > ihs ? static_cast<uint32_t>(ihe - ihs) : 0;\n"
    "      /* The chunk's offsets, once the vector pipe is done with the last chunk's. */\n"
    "      AscendC::SetFlag<AscendC::HardEvent::V_S>(0);\n"
    "      AscendC::WaitFlag<AscendC::HardEvent::V_S>(0);\n"
    "      for (uint32_t i = 0; i < CHUNK; i++) {\n"
    "        uint32_t oh = (p0 + i) / OW_OUT, ow = p0 + i - oh * OW_OUT;\n"
    "        off.SetValue(i, i < n ? static_cast<uint32_t>(((oh - ohA) * SH * WIN_PITCH + ow * SW) * sizeof(half)) : 0u);\n"
    "      }\n"
    "      AscendC::SetFlag<AscendC::HardEvent::S_V>(0);\n"
    "      AscendC::WaitFlag<AscendC::HardEvent::S_V>(0);\n"
    "      for (uint32_t r = 1; r < KH * KW; r++)\n"
    "        AscendC::Adds(offI[r * CHUNK], offI, static_cast<int32_t>(((r / KW) * DH * WIN_PITCH + (r % KW) * DW) * sizeof(half)),\n"
    "                      static_cast<int32_t>(CHUNK));\n");
  append_window (g, s);
  g_string_append (s,
    "        AscendC::Gather(gh, hw, off, 0, KH * KW * CHUNK);\n"
    "        AscendC::LocalTensor<int8_t> q = colQueue.AllocTensor<int8_t>();\n"
    "        AscendC::Cast(q, gh, AscendC::RoundMode::CAST_NONE, KH * KW * CHUNK);  /* integers of int8's range: exact */\n"
    "        colQueue.EnQue(q);\n"
    "        q = colQueue.DeQue<int8_t>();\n"
    "        /* Rows c KH KW ... of im2col, N_COLS apart. */\n"
    "        AscendC::DataCopyExtParams o(static_cast<uint16_t>(KH * KW), n, (CHUNK - (n + 31) / 32 * 32) / 32, N_COLS - n, 0);\n"
    "        AscendC::DataCopyPad(wsGm[static_cast<uint64_t>(c) * KH * KW * N_COLS + p0], q, o);\n"
    "        colQueue.FreeTensor(q);\n"
    "      }\n"
    "    }\n"
    "    /* The workspace is in GM before the Matmul object reads it (on the chip the cube core reads it after the\n"
    "     * vector core's MTE3 is done: every pipe drained). */\n"
    "    AscendC::PipeBarrier<PIPE_ALL>();\n  }\n\n");
}

void
fw_i8_conv_append_members (const I8 *g, GString *s)
{
  g_string_append_printf (s,
    "  AscendC::TQue<AscendC::QuePosition::VECIN, 1> winQueue;    /* one channel's input rows of a chunk */\n"
    "  AscendC::TQue<AscendC::QuePosition::VECOUT, 1> colQueue;   /* a channel's KH x KW rows of the chunk as int8 */\n"
    "  AscendC::TBuf<AscendC::TPosition::VECCALC> hWinBuf, offBuf, gBuf, bcBuf%s;\n"
    "  AscendC::GlobalTensor<int8_t> wsGm;\n",
    g->q.a.q.node != NULL ? ", winScaleBuf" : "");
}
