/* fw-ascend-rows.c: many rows per vector instruction. A tile of short rows (swin's window-attention softmax
 * over 49, its layernorms over 96) done one instruction per row pays each instruction's fixed cost once per
 * row; the "tensor高维切分计算" (high-dimensional slicing) forms of the API take a repeat count, a mask and
 * block and repeat strides, so that repeat r of one instruction is row r of the tile (高维切分.md, Add.md's
 * high-dimensional prototypes, BinaryRepeatParams.md, UnaryRepeatParams.md):
 *
 *   - a row reduction is WholeReduceSum/Max/Min (WholeReduceSum.md, WholeReduceMax.md) with the row as the
 *     repeat's mask and ROW_STRIDE as the source repeat stride; a row longer than one 256-byte repeat is first
 *     folded lane by lane into one repeat per row (Add/Max/Min over its 256-byte column chunks);
 *   - a per-row value meets its row through Brcb (Brcb.md), which fills one 32-byte block per row with it: the
 *     binary instruction then reads that block with a block stride of 0 and a repeat stride of 1;
 *   - a resident row (a LayerNorm's scale and bias) is read with a repeat stride of 0, the same row every
 *     repeat.
 *
 * The helpers are templates in the kernel's own file (fw_ac_rows_prelude); the twin implements each form
 * (data/ascend/twin/twin_repeat.h). */
#include "config.h"

#include <string.h>

#include "fw-ascend-codegen-private.h"

/* Repeats per instruction: at most 255 (高维切分.md), and a multiple of 16 so that each call's first per-row
 * value (half or float) starts 32-byte aligned, as Brcb's source and the reductions' results must. */
#define ROWS_PER_CALL 240

void
fw_ac_rows_decide (Gen *g)
{
  gdouble ub = (gdouble) g->profile->ub_bytes - (gdouble) g->profile->ub_reserve_bytes;
  gdouble tiles;
  gint64 per_repeat, chunks;

  g->row_forms = FALSE;
  if (!g->rows_mode || g->cube || g->row_len <= 0 || g->max_eb == 0 || g->max_eb > 4)
    return;
  /* Repeat strides are uint8_t blocks of 32 bytes (BinaryRepeatParams.md): a row pitch of at most 255 blocks. */
  if (g->row_stride * g->max_eb / 32 > 255)
    return;
  per_repeat = 256 / g->max_eb;
  chunks = (g->row_len + per_repeat - 1) / per_repeat;
  /* The strided forms issue one instruction per 256-byte column chunk where the row form issues one per row:
   * worth it only where a tile has more rows than a row has chunks. The tile is not known yet (the planner
   * sizes it from the buffers this decision shapes), so the rows are those the Unified Buffer holds with the
   * streamed operands double-buffered, the temps and three scratch tiles. */
  tiles = 2.0 * (g->inputs->len + g->outputs->len) + g->slot_eb->len + 3.0;
  g->row_forms = (gdouble) chunks < ub / ((gdouble) g->row_stride * g->max_eb * tiles);
}

static const char *
row_op (const char *op)
{
  static const char *const map[][2] = {
    { "Add", "ROW_ADD" }, { "Sub", "ROW_SUB" }, { "Mul", "ROW_MUL" }, { "Div", "ROW_DIV" }, { "Max", "ROW_MAX" },
    { "Min", "ROW_MIN" }, { "ReduceSum", "ROW_ADD" }, { "ReduceMax", "ROW_MAX" }, { "ReduceMin", "ROW_MIN" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (map); i++)
    if (strcmp (op, map[i][0]) == 0)
      return map[i][1];
  return NULL;
}

static const char *
form_name (FwRowForm f)
{
  return f == FW_ROW_FORM_TILE ? "ROW_TILE" : f == FW_ROW_FORM_BCAST ? "ROW_BCAST" : "ROW_RESIDENT";
}

/* The per-row values `vals` (one element per row), one 32-byte block per row in rowBcast, as `bc`. */
static void
broadcast (Gen *g, const char *vals, const char *ctype)
{
  g->row_bcast = TRUE;
  g_string_append_printf (g->compute,
                          "      AscendC::LocalTensor<%s> bc = rowBcast.Get<%s>();\n"
                          "      RowsBroadcast(bc, %s, rows);\n", ctype, ctype, vals);
}

void
fw_ac_rows_reduce (Gen *g, const char *api, const char *dst, const char *src, const char *ctype, guint eb)
{
  g->row_forms_used = TRUE;
  if (g->row_len * eb > 256)
    g->row_fold = TRUE;
  if (g->row_len * eb > 256)
    g_string_append_printf (g->compute, "      RowsReduce<%s>(%s, %s, rowFold.Get<%s>(), rows);  /* %s of each row */\n",
                            row_op (api), dst, src, ctype, api);
  else
    g_string_append_printf (g->compute, "      RowsReduce<%s>(%s, %s, %s, rows);  /* %s of each row: no fold */\n",
                            row_op (api), dst, src, src, api);
}

gboolean
fw_ac_rows_binary (Gen *g, const char *op, const char *dst, FwRowForm fa, const char *a, FwRowForm fb, const char *b,
                   const char *ctype)
{
  if (row_op (op) == NULL || (fa == FW_ROW_FORM_BCAST && fb == FW_ROW_FORM_BCAST))
    return FALSE;
  g->row_forms_used = TRUE;
  g_string_append (g->compute, "      {\n");
  if (fa == FW_ROW_FORM_BCAST || fb == FW_ROW_FORM_BCAST)
    broadcast (g, fa == FW_ROW_FORM_BCAST ? a : b, ctype);
  g_string_append_printf (g->compute, "      RowsApply<%s, %s, %s>(%s, %s, %s, rows);\n      }\n", row_op (op),
                          form_name (fa), form_name (fb), dst, fa == FW_ROW_FORM_BCAST ? "bc" : a,
                          fb == FW_ROW_FORM_BCAST ? "bc" : b);
  return TRUE;
}

void
fw_ac_rows_expand (Gen *g, const char *dst, FwRowForm form, const char *src, const char *ctype)
{
  g->row_forms_used = TRUE;
  g_string_append (g->compute, "      {\n");
  if (form == FW_ROW_FORM_BCAST)
    broadcast (g, src, ctype);
  g_string_append_printf (g->compute, "      RowsCopy<%s>(%s, %s, rows);\n      }\n", form_name (form), dst,
                          form == FW_ROW_FORM_BCAST ? "bc" : src);
}

/* The helpers, in the kernel's anonymous namespace after ROW_LEN and ROW_STRIDE. */
static const char rows_prelude[] =
  "/* Many rows per vector instruction (the high-dimensional slicing forms): repeat r of an instruction is row\n"
  " * r of the tile, ROW_STRIDE elements after row r - 1; a row longer than one 256-byte repeat takes one\n"
  " * instruction per 256-byte column chunk of it. */\n"
  "constexpr uint32_t ROWS_PER_CALL = " G_STRINGIFY (ROWS_PER_CALL) ";  /* repeatTime <= 255; a multiple of 16 keeps each call's per-row values 32-byte aligned */\n"
  "enum RowForm { ROW_TILE, ROW_BCAST, ROW_RESIDENT };  /* a tile, Brcb's block per row, the resident row */\n"
  "enum RowOp { ROW_ADD, ROW_SUB, ROW_MUL, ROW_DIV, ROW_MAX, ROW_MIN };\n\n"
  "template <typename T>\n"
  "__aicore__ inline constexpr uint8_t RowBlocks()\n{\n  return static_cast<uint8_t>(ROW_STRIDE * sizeof(T) / 32);\n}\n\n"
  "template <int FORM, typename T>\n"
  "__aicore__ inline constexpr uint8_t RowBlkStride()\n{\n  return FORM == ROW_BCAST ? 0 : 1;  /* 0: every block reads the row's one block */\n}\n\n"
  "template <int FORM, typename T>\n"
  "__aicore__ inline constexpr uint8_t RowRepStride()\n{\n"
  "  return FORM == ROW_TILE ? RowBlocks<T>() : FORM == ROW_BCAST ? 1 : 0;  /* 0: the same row every repeat */\n}\n\n"
  "/* Rows [r0, ...) of an operand, from column c on. */\n"
  "template <int FORM, typename T>\n"
  "__aicore__ inline AscendC::LocalTensor<T> RowPart(const AscendC::LocalTensor<T> &t, uint32_t r0, uint32_t c)\n{\n"
  "  if constexpr (FORM == ROW_TILE)\n    return t[r0 * ROW_STRIDE + c];\n"
  "  else if constexpr (FORM == ROW_BCAST)\n    return t[r0 * (32 / sizeof(T))];\n"
  "  else\n    return t[c];\n}\n\n"
  "template <int OP, typename T>\n"
  "__aicore__ inline void RowOpCall(const AscendC::LocalTensor<T> &d, const AscendC::LocalTensor<T> &a,\n"
  "                                 const AscendC::LocalTensor<T> &b, uint64_t mask, uint32_t n,\n"
  "                                 const AscendC::BinaryRepeatParams &p)\n{\n"
  "  if constexpr (OP == ROW_ADD)\n    AscendC::Add(d, a, b, mask, n, p);\n"
  "  else if constexpr (OP == ROW_SUB)\n    AscendC::Sub(d, a, b, mask, n, p);\n"
  "  else if constexpr (OP == ROW_MUL)\n    AscendC::Mul(d, a, b, mask, n, p);\n"
  "  else if constexpr (OP == ROW_DIV)\n    AscendC::Div(d, a, b, mask, n, p);\n"
  "  else if constexpr (OP == ROW_MAX)\n    AscendC::Max(d, a, b, mask, n, p);\n"
  "  else\n    AscendC::Min(d, a, b, mask, n, p);\n}\n\n"
  "/* dst = a OP b over the rows of the tile, row by row in the repeats. */\n"
  "template <int OP, int FA, int FB, typename T>\n"
  "__aicore__ inline void RowsApply(const AscendC::LocalTensor<T> &dst, const AscendC::LocalTensor<T> &a,\n"
  "                                 const AscendC::LocalTensor<T> &b, uint32_t rows)\n{\n"
  "  constexpr uint32_t perRepeat = 256 / sizeof(T);\n"
  "  const AscendC::BinaryRepeatParams p(1, RowBlkStride<FA, T>(), RowBlkStride<FB, T>(), RowBlocks<T>(),\n"
  "                                      RowRepStride<FA, T>(), RowRepStride<FB, T>());\n"
  "  for (uint32_t r0 = 0; r0 < rows; r0 += ROWS_PER_CALL) {\n"
  "    uint32_t n = rows - r0 < ROWS_PER_CALL ? rows - r0 : ROWS_PER_CALL;\n"
  "    for (uint32_t c = 0; c < ROW_LEN; c += perRepeat)\n"
  "      RowOpCall<OP>(dst[r0 * ROW_STRIDE + c], RowPart<FA>(a, r0, c), RowPart<FB>(b, r0, c),\n"
  "                    ROW_LEN - c < perRepeat ? ROW_LEN - c : perRepeat, n, p);\n"
  "  }\n}\n\n"
  "/* dst's rows = the row's broadcast value, or the resident row (a copy: x * 1 is exact). */\n"
  "template <int FS, typename T>\n"
  "__aicore__ inline void RowsCopy(const AscendC::LocalTensor<T> &dst, const AscendC::LocalTensor<T> &src, uint32_t rows)\n{\n"
  "  constexpr uint32_t perRepeat = 256 / sizeof(T);\n"
  "  const AscendC::UnaryRepeatParams p(1, RowBlkStride<FS, T>(), RowBlocks<T>(), RowRepStride<FS, T>());\n"
  "  for (uint32_t r0 = 0; r0 < rows; r0 += ROWS_PER_CALL) {\n"
  "    uint32_t n = rows - r0 < ROWS_PER_CALL ? rows - r0 : ROWS_PER_CALL;\n"
  "    for (uint32_t c = 0; c < ROW_LEN; c += perRepeat)\n"
  "      AscendC::Muls(dst[r0 * ROW_STRIDE + c], RowPart<FS>(src, r0, c), static_cast<T>(1.0f),\n"
  "                    ROW_LEN - c < perRepeat ? ROW_LEN - c : perRepeat, n, p);\n"
  "  }\n}\n\n"
  "/* One 32-byte block per row of bc holding the row's value (Brcb: 8 values, 8 blocks per repeat). */\n"
  "template <typename T>\n"
  "__aicore__ inline void RowsBroadcast(const AscendC::LocalTensor<T> &bc, const AscendC::LocalTensor<T> &vals, uint32_t rows)\n{\n"
  "  for (uint32_t r0 = 0; r0 < rows; r0 += ROWS_PER_CALL) {\n"
  "    uint32_t n = rows - r0 < ROWS_PER_CALL ? rows - r0 : ROWS_PER_CALL;\n"
  "    AscendC::Brcb(bc[r0 * (32 / sizeof(T))], vals[r0], (n + 7) / 8, AscendC::BrcbRepeatParams(1, 8));\n"
  "  }\n}\n\n"
  "/* dst[r] = the sum (ROW_ADD), largest (ROW_MAX) or smallest (ROW_MIN) of row r: one WholeReduce repeat per\n"
  " * row, after folding a longer row's 256-byte chunks lane by lane into one repeat of fold. */\n"
  "template <int OP, typename T>\n"
  "__aicore__ inline void RowsReduce(const AscendC::LocalTensor<T> &dst, const AscendC::LocalTensor<T> &src,\n"
  "                                  const AscendC::LocalTensor<T> &fold, uint32_t rows)\n{\n"
  "  constexpr uint32_t perRepeat = 256 / sizeof(T);\n"
  "  for (uint32_t r0 = 0; r0 < rows; r0 += ROWS_PER_CALL) {\n"
  "    uint32_t n = rows - r0 < ROWS_PER_CALL ? rows - r0 : ROWS_PER_CALL;\n"
  "    AscendC::LocalTensor<T> in = src[r0 * ROW_STRIDE];\n"
  "    AscendC::LocalTensor<T> part = in;\n"
  "    uint32_t lanes = ROW_LEN;\n"
  "    uint32_t partBlocks = RowBlocks<T>();\n"
  "    if constexpr (ROW_LEN > perRepeat) {\n"
  "      uint32_t c = 2 * perRepeat;\n"
  "      if constexpr (ROW_LEN >= 2 * perRepeat) {\n"
  "        RowOpCall<OP>(fold, in, in[perRepeat], perRepeat, n,\n"
  "                      AscendC::BinaryRepeatParams(1, 1, 1, 8, RowBlocks<T>(), RowBlocks<T>()));\n"
  "      } else {\n"
  "        AscendC::Muls(fold, in, static_cast<T>(1.0f), perRepeat, n, AscendC::UnaryRepeatParams(1, 1, 8, RowBlocks<T>()));\n"
  "        c = perRepeat;\n"
  "      }\n"
  "      for (; c < ROW_LEN; c += perRepeat)\n"
  "        RowOpCall<OP>(fold, fold, in[c], ROW_LEN - c < perRepeat ? ROW_LEN - c : perRepeat, n,\n"
  "                      AscendC::BinaryRepeatParams(1, 1, 1, 8, 8, RowBlocks<T>()));\n"
  "      part = fold;\n"
  "      lanes = perRepeat;\n"
  "      partBlocks = 8;\n"
  "    }\n"
  "    if constexpr (OP == ROW_ADD)\n"
  "      AscendC::WholeReduceSum(dst[r0], part, lanes, n, 1, 1, partBlocks);\n"
  "    else if constexpr (OP == ROW_MAX)\n"
  "      AscendC::WholeReduceMax(dst[r0], part, lanes, n, 1, 1, partBlocks, AscendC::ReduceOrder::ORDER_ONLY_VALUE);\n"
  "    else\n"
  "      AscendC::WholeReduceMin(dst[r0], part, lanes, n, 1, 1, partBlocks, AscendC::ReduceOrder::ORDER_ONLY_VALUE);\n"
  "  }\n}\n\n";

void
fw_ac_rows_prelude (Gen *g, GString *s)
{
  if (g->row_forms_used)
    g_string_append (s, rows_prelude);
}

/* rowBcast: a 32-byte block per row, rounded up to whole groups of 8 rows (Brcb fills 8 blocks a repeat);
 * rowFold: one 256-byte repeat per row of a call. */
void
fw_ac_rows_init (Gen *g, GString *s)
{
  if (g->row_bcast)
    g_string_append (s, "    pipe.InitBuffer(rowBcast, rowElems * 32u);\n");
  if (g->row_fold)
    g_string_append (s, "    pipe.InitBuffer(rowFold, (this->tileRows < ROWS_PER_CALL ? this->tileRows : ROWS_PER_CALL) * 256u);\n");
}

void
fw_ac_rows_members (Gen *g, GString *s)
{
  if (g->row_bcast)
    g_string_append (s, "  AscendC::TBuf<AscendC::TPosition::VECCALC> rowBcast;\n");
  if (g->row_fold)
    g_string_append (s, "  AscendC::TBuf<AscendC::TPosition::VECCALC> rowFold;\n");
}
