/* fw-ascend-kernel-cpp.c: the Ascend C kernel file of a candidate: the GM/UB copy helpers, the
 * FusedKernel class (Init, Process, the pipe events, broadcast expansion, CopyIn, Compute, CopyOut, its
 * members) and the entry point. */
#include "config.h"

#include <string.h>

#include "fw-ascend-codegen-private.h"

static void
emit_expand (Gen *g, GString *s, Operand *o)
{
  g_string_append_printf (s,
    "  /* Broadcast operand %u into tile shape: element (r, c) of the tile reads the operand at the index its\n"
    "   * broadcast maps it to. A scalar loop: it runs once when the pattern repeats with the tile. */\n"
    "  __aicore__ inline void Expand%u(uint64_t base, uint32_t rows, uint32_t len, uint32_t stride, uint64_t rowLen)\n"
    "  {\n"
    "    VectorToScalar();  /* the previous tile's vector reads of the buffer are done */\n"
    "    for (uint32_t r = 0; r < rows; r++)\n"
    "      for (uint32_t c = 0; c < len; c++) {\n"
    "        uint64_t gi = base + r * rowLen + c;\n"
    "        uint64_t idx = 0",
    o->index, o->index);
  {
    gint64 after = 1;
    for (gint a = g->space.rank - 1; a >= 0; a--)
      {
        if (o->vstride[a] != 0)
          g_string_append_printf (s, " + ((gi / %" G_GINT64_FORMAT "u) %% %" G_GINT64_FORMAT "u) * %" G_GINT64_FORMAT "u",
                                  after, g->space.dims[a], o->vstride[a]);
        after *= g->space.dims[a];
      }
  }
  g_string_append_printf (s, ";\n"
    "        e%u.SetValue(r * stride + c, raw%u.GetValue(static_cast<uint32_t>(idx)));\n"
    "      }\n"
    "    ScalarToVector();\n"
    "  }\n\n", o->index, o->index);
}

/* Period of a broadcast operand's pattern along the flattened space: the product of the space's dims from
 * its outermost non-broadcast axis inwards. A tile that is a multiple of it sees the same pattern every time. */
static gint64
small_period (Gen *g, Operand *o)
{
  gint64 p = 1;
  gint outer = g->space.rank;

  for (gint a = 0; a < g->space.rank; a++)
    if (o->vstride[a] != 0)
      {
        outer = a;
        break;
      }
  for (gint a = outer; a < g->space.rank; a++)
    p *= g->space.dims[a];
  return p;
}

/* The kernel's GM arguments in the order the host passes them (inputs, small constants, outputs), each as
 * prefix NAME and a comma: for the entry point, Init's parameters and the call of Init. */
static void
append_gm_args (GString *s, const Gen *g, const char *prefix)
{
  static const char * const names[] = { "in", "small", "out" };
  const GPtrArray *lists[] = { g->inputs, g->smalls, g->outputs };

  /* A mixed kernel's matrices come first (A, B, the bias). */
  if (g->cube)
    g_string_append_printf (s, "%scubeA, %scubeB, %s%s%s", prefix, prefix, g->cube_bias ? prefix : "",
                            g->cube_bias ? "cubeBias" : "", g->cube_bias ? ", " : "");
  for (guint l = 0; l < G_N_ELEMENTS (names); l++)
    for (guint i = 0; i < lists[l]->len; i++)
      g_string_append_printf (s, "%s%s%u, ", prefix, names[l], i);
}

/* The tile argument of CopyIn, Compute and CopyOut: the tile's number, or in a mixed kernel the C block's
 * first element in C. */
static const char *
tile_type (const Gen *g)
{
  return g->cube ? "uint64_t" : "uint32_t";
}

/* A row operand holds one element per row of the tile, a full one the whole tile. */
static gboolean
is_row (const Operand *o)
{
  return o->role == FW_SHAPE_ROW;
}

/* The GM tensor of a tiled input ("in") or output ("out"), from this block's share on. */
static void
append_set_global (GString *s, const char *name, guint i, const Operand *o)
{
  g_string_append_printf (s, "    %s%uGm.SetGlobalBuffer(reinterpret_cast<__gm__ %s *>(%s%u) + %s, %s);\n", name, i,
                          o->ctype, name, i, is_row (o) ? "rowOffset" : "fullOffset",
                          is_row (o) ? "this->blockRows" : "this->blockLength");
}

/* The queue of a tiled input ("inQueue") or output ("outQueue"), sized for one tile. */
static void
append_init_queue (GString *s, const char *queue, guint i, const Operand *o)
{
  g_string_append_printf (s, "    pipe.InitBuffer(%s%u, BUFFER_NUM, %s * %uu);\n", queue, i,
                          is_row (o) ? "rowElems" : "fullElems", o->eb);
}

/* Where tile t of an operand starts in GM, and the rows, len and stride arguments of its copy. */
static const char *
tile_step (const Operand *o)
{
  return is_row (o) ? "this->tileRows" : "this->tileLength";
}

static const char *
tile_copy_shape (const Operand *o)
{
  return is_row (o) ? "1, rows, rows" : "rows, len, stride";
}

static gboolean
has_rowvec (Gen *g)
{
  for (guint i = 0; i < g->smalls->len; i++)
    if (((Operand *) g_ptr_array_index (g->smalls, i))->rowvec)
      return TRUE;
  return FALSE;
}

/* The includes, the constants and the GM/UB copy helpers, before the kernel class. */
static void
append_prelude (Gen *g, GString *s)
{
  if (!g->as_body)
    g_string_append_printf (s, "#include \"kernel_operator.h\"\n%s#include \"%s_tiling.h\"\n\n",
                            g->cube ? "#include \"lib/matmul_intf.h\"\n" : "", g->name);
  g_string_append (s, "namespace {\n\nconstexpr int32_t BUFFER_NUM = 2;  /* double buffering: load tile i+1 while computing tile i */\n");
  if (g->rows_mode)
    g_string_append_printf (s, "constexpr uint32_t ROW_LEN = %" G_GINT64_FORMAT "u;     /* elements per row */\n"
                               "constexpr uint32_t ROW_STRIDE = %" G_GINT64_FORMAT "u;  /* row pitch in UB: rows start 32-byte aligned */\n",
                            g->row_len, g->row_stride);
  fw_ac_rows_prelude (g, s);
  g_string_append (s,
    "constexpr uint32_t MAX_BLOCK_COUNT = 4095;  /* DataCopyPad blockCount limit */\n\n"
    "template <typename T>\n"
    "__aicore__ inline uint32_t GapBlocks(uint32_t len, uint32_t stride)\n{\n"
    "  uint32_t perBlock = 32 / sizeof(T);\n"
    "  uint32_t padded = (len + perBlock - 1) / perBlock * perBlock;\n"
    "  return stride > padded ? (stride - padded) / perBlock : 0;\n}\n\n"
    "/* rows runs of len elements, contiguous in GM, each starting `stride` elements apart in UB. */\n"
    "template <typename T>\n"
    "__aicore__ inline void CopyGmToUb(const AscendC::LocalTensor<T> &dst, const AscendC::GlobalTensor<T> &src,\n"
    "                                  uint32_t rows, uint32_t len, uint32_t stride)\n{\n"
    "  if (rows == 1 || len == stride) {\n"
    "    uint32_t count = rows * len;\n"
    "    if ((count * sizeof(T)) % 32 == 0) {\n"
    "      AscendC::DataCopy(dst, src, count);\n"
    "    } else {\n"
    "      AscendC::DataCopyExtParams params(1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0);\n"
    "      AscendC::DataCopyPadExtParams<T> pad(false, 0, 0, T());\n"
    "      AscendC::DataCopyPad(dst, src, params, pad);\n"
    "    }\n"
    "    return;\n"
    "  }\n"
    "  for (uint32_t r0 = 0; r0 < rows; r0 += MAX_BLOCK_COUNT) {\n"
    "    uint32_t n = rows - r0 < MAX_BLOCK_COUNT ? rows - r0 : MAX_BLOCK_COUNT;\n"
    "    AscendC::DataCopyExtParams params(static_cast<uint16_t>(n), static_cast<uint32_t>(len * sizeof(T)), 0,\n"
    "                                      GapBlocks<T>(len, stride), 0);\n"
    "    AscendC::DataCopyPadExtParams<T> pad(false, 0, 0, T());\n"
    "    AscendC::DataCopyPad(dst[r0 * stride], src[static_cast<uint64_t>(r0) * len], params, pad);\n"
    "  }\n}\n\n"
    "template <typename T>\n"
    "__aicore__ inline void CopyUbToGm(const AscendC::GlobalTensor<T> &dst, const AscendC::LocalTensor<T> &src,\n"
    "                                  uint32_t rows, uint32_t len, uint32_t stride)\n{\n"
    "  if (rows == 1 || len == stride) {\n"
    "    uint32_t count = rows * len;\n"
    "    if ((count * sizeof(T)) % 32 == 0) {\n"
    "      AscendC::DataCopy(dst, src, count);\n"
    "    } else {\n"
    "      AscendC::DataCopyExtParams params(1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0);\n"
    "      AscendC::DataCopyPad(dst, src, params);\n"
    "    }\n"
    "    return;\n"
    "  }\n"
    "  for (uint32_t r0 = 0; r0 < rows; r0 += MAX_BLOCK_COUNT) {\n"
    "    uint32_t n = rows - r0 < MAX_BLOCK_COUNT ? rows - r0 : MAX_BLOCK_COUNT;\n"
    "    AscendC::DataCopyExtParams params(static_cast<uint16_t>(n), static_cast<uint32_t>(len * sizeof(T)),\n"
    "                                      GapBlocks<T>(len, stride), 0, 0);\n"
    "    AscendC::DataCopyPad(dst[static_cast<uint64_t>(r0) * len], src[r0 * stride], params);\n"
    "  }\n}\n\n");
  if (g->cube)
    fw_ac_cube_prelude (g, s);
}

/* Init: global tensors from this block's share on, queues and buffers. */
static void
append_init (Gen *g, GString *s)
{
  guint n_in = g->inputs->len, n_out = g->outputs->len, n_small = g->smalls->len;

  g_string_append (s, "  __aicore__ inline void Init(");
  append_gm_args (s, g, "GM_ADDR ");
  g_string_append_printf (s, "const %s &tiling)\n  {\n", g->struct_name);
  if (g->cube)
    fw_ac_cube_init (g, s);
  else
    g_string_append (s,
    "    this->tileLength = static_cast<uint32_t>(tiling.tileLength);\n"
    "    this->tileRows = static_cast<uint32_t>(tiling.rows);\n"
    "    uint64_t firstTile = static_cast<uint64_t>(AscendC::GetBlockIdx()) * tiling.tilesPerBlock;\n"
    "    uint64_t tiles = firstTile >= tiling.tileNum ? 0 : tiling.tileNum - firstTile;\n"
    "    this->tileCount = static_cast<uint32_t>(tiles < tiling.tilesPerBlock ? tiles : tiling.tilesPerBlock);\n"
    "    uint64_t fullOffset = firstTile * tiling.tileLength;\n"
    "    uint64_t fullLeft = fullOffset >= tiling.totalLength ? 0 : tiling.totalLength - fullOffset;\n"
    "    uint64_t fullSpan = static_cast<uint64_t>(this->tileCount) * tiling.tileLength;\n"
    "    this->blockLength = fullSpan < fullLeft ? fullSpan : fullLeft;\n"
    "    this->blockOffset = fullOffset;\n");
  if (g->rows_mode && !g->cube)
    g_string_append (s,
      "    uint64_t rowOffset = firstTile * tiling.rows;\n"
      "    this->blockRows = static_cast<uint32_t>(this->blockLength / ROW_LEN);\n"
      "    (void)rowOffset;\n");
  for (guint i = 0; i < n_in && !g->cube; i++)
    append_set_global (s, "in", i, g_ptr_array_index (g->inputs, i));
  for (guint i = 0; i < n_small; i++)
    {
      Operand *o = g_ptr_array_index (g->smalls, i);
      g_string_append_printf (s, "    small%uGm.SetGlobalBuffer(reinterpret_cast<__gm__ %s *>(small%u), %" G_GINT64_FORMAT "u);\n",
                              i, o->ctype, i, o->elements);
    }
  for (guint i = 0; i < n_out && !g->cube; i++)
    append_set_global (s, "out", i, g_ptr_array_index (g->outputs, i));
  if (g->rows_mode)
    g_string_append_printf (s, "    uint32_t fullElems = (this->tileRows * ROW_STRIDE + %uu) / %uu * %uu;\n"
                               "    uint32_t rowElems = (this->tileRows + 7) / 8 * 8;\n",
                            fw_ac_full_align (g) - 1, fw_ac_full_align (g), fw_ac_full_align (g));
  else
    g_string_append_printf (s, "    uint32_t fullElems = (this->tileLength + %uu) / %uu * %uu;\n"
                               "    uint32_t rowElems = 8;\n",
                            fw_ac_full_align (g) - 1, fw_ac_full_align (g), fw_ac_full_align (g));
  g_string_append (s, "    (void)rowElems;\n"
                      "    /* sizes below are element counts times the element size, 32-byte multiples */\n");
  if (g->cube)
    g_string_append_printf (s, "    pipe.InitBuffer(cubeQueue, 1, fullElems * %uu);\n", g->cube_result->eb);
  for (guint i = 0; i < n_in; i++)
    append_init_queue (s, "inQueue", i, g_ptr_array_index (g->inputs, i));
  for (guint i = 0; i < n_out; i++)
    append_init_queue (s, "outQueue", i, g_ptr_array_index (g->outputs, i));
  for (guint i = 0; i < g->slot_eb->len; i++)
    g_string_append_printf (s, "    pipe.InitBuffer(tmp%u, fullElems * %uu);\n", i, g_array_index (g->slot_eb, guint, i));
  for (guint i = 0; i < FW_AC_N_SCRATCH; i++)
    if (g->scratch[i])
      g_string_append_printf (s, "    pipe.InitBuffer(scratch%u, fullElems * %uu);\n", i, g->max_eb);
  if (g->row_scratch)
    g_string_append_printf (s, "    pipe.InitBuffer(rowScratch, rowElems * %uu);\n", g->max_eb);
  fw_ac_rows_init (g, s);
  if (g->reduce)
    g_string_append_printf (s, "    pipe.InitBuffer(reduceBuf0, 32);\n"
                               "    pipe.InitBuffer(reduceBuf1, (ROW_LEN * %uu + 31) / 32 * 32);\n", g->max_eb);
  for (guint i = 0; i < n_small; i++)
    {
      Operand *o = g_ptr_array_index (g->smalls, i);
      g_string_append_printf (s, "    pipe.InitBuffer(smallRaw%u, %" G_GINT64_FORMAT "u);\n", i,
                              (o->elements * o->eb + 31) / 32 * 32);
      if (fw_ac_needs_expand (o))
        g_string_append_printf (s, "    pipe.InitBuffer(smallTile%u, fullElems * %uu);\n", i, o->eb);
    }
  g_string_append (s, "  }\n\n");
}

/* Process: broadcast operands loaded once (and expanded once where the pattern repeats), then the
 * tiles of this block. */
static void
append_process (Gen *g, GString *s)
{
  guint n_small = g->smalls->len;

  g_string_append (s, "  __aicore__ inline void Process()\n  {\n");
  for (guint i = 0; i < n_small; i++)
    {
      Operand *o = g_ptr_array_index (g->smalls, i);
      g_string_append_printf (s,
        "    raw%u = smallRaw%u.Get<%s>();\n"
        "    {\n"
        "      AscendC::DataCopyExtParams params(1, %" G_GINT64_FORMAT "u, 0, 0, 0);\n"
        "      AscendC::DataCopyPadExtParams<%s> pad(false, 0, 0, %s());\n"
        "      AscendC::DataCopyPad(raw%u, small%uGm, params, pad);\n"
        "    }\n",
        i, i, o->ctype, o->elements * o->eb, o->ctype, o->ctype, i, i);
      if (fw_ac_needs_expand (o))
        g_string_append_printf (s, "    e%u = smallTile%u.Get<%s>();\n", i, i, o->ctype);
    }
  if (n_small > 0)
    g_string_append (s, "    LoadToScalar();  /* the loads above feed scalar reads */\n");
  if (has_rowvec (g))
    g_string_append (s, "    LoadToVector();  /* and resident rows feed vector instructions directly */\n");
  for (guint i = 0; i < n_small && !g->cube; i++)
    {
      Operand *o = g_ptr_array_index (g->smalls, i);
      if (fw_ac_needs_expand (o))
        g_string_append_printf (s,
          "    this->expandOnce%u = (static_cast<uint64_t>(this->tileLength) %% %" G_GINT64_FORMAT "u) == 0;\n"
          "    if (this->expandOnce%u)\n"
          "      Expand%u(0, %s, %s, %s, %s);\n",
          i, small_period (g, o), i, i, g->rows_mode ? "this->tileRows" : "1", g->rows_mode ? "ROW_LEN" : "this->tileLength",
          g->rows_mode ? "ROW_STRIDE" : "this->tileLength", g->rows_mode ? "ROW_LEN" : "this->tileLength");
    }
  if (g->cube)
    {
      fw_ac_cube_process_loop (g, s);
      return;
    }
  g_string_append (s,
    "    for (uint32_t t = 0; t < this->tileCount; t++) {\n");
  if (g->rows_mode)
    g_string_append (s,
      "      uint32_t left = this->blockRows - t * this->tileRows;\n"
      "      uint32_t rows = left < this->tileRows ? left : this->tileRows;\n"
      "      uint32_t len = ROW_LEN;\n"
      "      uint32_t stride = ROW_STRIDE;\n");
  else
    g_string_append (s,
      "      uint64_t left = this->blockLength - static_cast<uint64_t>(t) * this->tileLength;\n"
      "      uint32_t rows = 1;\n"
      "      uint32_t len = static_cast<uint32_t>(left < this->tileLength ? left : this->tileLength);\n"
      "      uint32_t stride = len;\n");
  g_string_append (s, "      CopyIn(t, rows, len, stride);\n      Compute(t, rows, len, stride);\n"
                      "      CopyOut(t, rows, len, stride);\n    }\n  }\n\nprivate:\n");
}

/* The pipe events and the broadcast expansions. Scalar access to UB orders against one pipeline at a
 * time with the documented event pair (FetchEventID, SetFlag / WaitFlag with a HardEvent) instead of a
 * PIPE_ALL barrier. */
static void
append_events (Gen *g, GString *s)
{
  guint n_small = g->smalls->len;

  g_string_append (s,
    "  /* Scalar reads after vector writes (and the scalar writes that follow them) wait for the vector pipe. */\n"
    "  __aicore__ inline void VectorToScalar()\n  {\n"
    "    AscendC::TEventID id = pipe.FetchEventID(AscendC::HardEvent::V_S);\n"
    "    AscendC::SetFlag<AscendC::HardEvent::V_S>(id);\n"
    "    AscendC::WaitFlag<AscendC::HardEvent::V_S>(id);\n  }\n\n"
    "  /* Vector instructions after scalar writes to UB wait for the scalar unit. */\n"
    "  __aicore__ inline void ScalarToVector()\n  {\n"
    "    AscendC::TEventID id = pipe.FetchEventID(AscendC::HardEvent::S_V);\n"
    "    AscendC::SetFlag<AscendC::HardEvent::S_V>(id);\n"
    "    AscendC::WaitFlag<AscendC::HardEvent::S_V>(id);\n  }\n\n"
    "  /* Scalar reads of data DataCopyPad loaded wait for the load pipe (MTE2). */\n"
    "  __aicore__ inline void LoadToScalar()\n  {\n"
    "    AscendC::TEventID id = pipe.FetchEventID(AscendC::HardEvent::MTE2_S);\n"
    "    AscendC::SetFlag<AscendC::HardEvent::MTE2_S>(id);\n"
    "    AscendC::WaitFlag<AscendC::HardEvent::MTE2_S>(id);\n  }\n\n");
  if (has_rowvec (g))
    g_string_append (s,
      "  /* Vector reads of a resident row, loaded once outside the queues, wait for the load pipe (MTE2). */\n"
      "  __aicore__ inline void LoadToVector()\n  {\n"
      "    AscendC::TEventID id = pipe.FetchEventID(AscendC::HardEvent::MTE2_V);\n"
      "    AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(id);\n"
      "    AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(id);\n  }\n\n");
  for (guint i = 0; i < n_small; i++)
    if (fw_ac_needs_expand (g_ptr_array_index (g->smalls, i)))
      emit_expand (g, s, g_ptr_array_index (g->smalls, i));
}

/* The copy of tile t of operand i between its GM tensor (GMiGm) and its UB tensor (LOCALi): a vector
 * kernel's tiles lie one after another in GM, a mixed kernel's C blocks at C's row pitch. */
static char *
copy_call (const Gen *g, const Operand *o, const char *tile_fn, const char *block_fn, const char *local,
           const char *gm, guint i)
{
  gboolean out = strcmp (gm, "out") == 0;
  g_autofree char *gm_at = g->cube ? g_strdup_printf ("%s%uGm[t]", gm, i)
                                   : g_strdup_printf ("%s%uGm[static_cast<uint64_t>(t) * %s]", gm, i, tile_step (o));
  g_autofree char *ub = g_strdup_printf ("%s%u", local, i);

  return g_strdup_printf ("%s(%s, %s, %s)", g->cube ? block_fn : tile_fn, out ? gm_at : ub, out ? ub : gm_at,
                          g->cube ? "rows, len, stride, C_PITCH" : tile_copy_shape (o));
}

/* CopyIn: each streamed input's tile into its queue. */
static void
append_copy_in (Gen *g, GString *s)
{
  guint n_in = g->inputs->len;

  g_string_append_printf (s, "  __aicore__ inline void CopyIn(%s t, uint32_t rows, uint32_t len, uint32_t stride)\n  {\n"
                             "    (void)t;\n    (void)rows;\n    (void)len;\n    (void)stride;\n", tile_type (g));
  if (g->cube)
    g_string_append_printf (s,
      "    AscendC::LocalTensor<%s> c = cubeQueue.AllocTensor<%s>();\n"
      "    mm.GetTensorC(c, 0, true);\n"
      "    cubeQueue.EnQue(c);\n", g->cube_result->ctype, g->cube_result->ctype);
  for (guint i = 0; i < n_in; i++)
    {
      Operand *o = g_ptr_array_index (g->inputs, i);
      g_autofree char *copy = copy_call (g, o, "CopyGmToUb", "CopyBlockIn", "x", "in", i);

      g_string_append_printf (s,
        "    AscendC::LocalTensor<%s> x%u = inQueue%u.AllocTensor<%s>();\n"
        "    %s;\n"
        "    inQueue%u.EnQue(x%u);\n", o->ctype, i, i, o->ctype, copy, i, i);
    }
  g_string_append (s, "  }\n\n");
}

/* Compute: the queues' tensors, the temp slots, then the nodes' statements. */
static void
append_compute (Gen *g, GString *s)
{
  guint n_in = g->inputs->len, n_out = g->outputs->len, n_small = g->smalls->len;

  g_string_append_printf (s, "  __aicore__ inline void Compute(%s t, uint32_t rows, uint32_t len, uint32_t stride)\n  {\n", tile_type (g));
  g_string_append (s, "    const int32_t n = static_cast<int32_t>(rows * stride);\n"
                      "    const int32_t rowsN = static_cast<int32_t>(rows);\n"
                      "    (void)t;\n    (void)len;\n    (void)n;\n    (void)rowsN;\n");
  if (g->uses_mask)
    g_string_append (s, "    /* Compare and Select count whole 256-byte blocks; the tile buffers are rounded to 128 elements */\n"
                        "    const uint32_t nMask = (static_cast<uint32_t>(n) + 127u) / 128u * 128u;\n");
  if (g->cube)
    g_string_append_printf (s, "    AscendC::LocalTensor<%s> v%u = cubeQueue.DeQue<%s>();\n", g->cube_result->ctype,
                            g->cube_result->id, g->cube_result->ctype);
  for (guint i = 0; i < n_in; i++)
    {
      Operand *o = g_ptr_array_index (g->inputs, i);
      g_string_append_printf (s, "    AscendC::LocalTensor<%s> v%u = inQueue%u.DeQue<%s>();\n", o->ctype, o->id, i, o->ctype);
    }
  for (guint i = 0; i < n_out; i++)
    {
      Operand *o = g_ptr_array_index (g->outputs, i);
      g_string_append_printf (s, "    AscendC::LocalTensor<%s> v%u = outQueue%u.AllocTensor<%s>();\n", o->ctype, o->id, i,
                              o->ctype);
    }
  for (guint i = 0; i < n_small; i++)
    {
      Operand *o = g_ptr_array_index (g->smalls, i);
      if (fw_ac_needs_expand (o) && g->cube)
        g_string_append_printf (s, "    Expand%u(t, rows, len, stride, C_PITCH);\n", i);
      else if (fw_ac_needs_expand (o))
        g_string_append_printf (s, "    if (!this->expandOnce%u)\n"
                                   "      Expand%u(this->blockOffset + static_cast<uint64_t>(t) * this->tileLength, rows, len, stride, %s);\n",
                                i, i, g->rows_mode ? "ROW_LEN" : "len");
    }
  for (guint i = 0; i < g->all->len; i++)
    {
      Operand *o = g_ptr_array_index (g->all, i);
      if (o->kind == KIND_TEMP && o->alias_of == NULL)
        g_string_append_printf (s, "    AscendC::LocalTensor<%s> v%u = tmp%u.Get<%s>();\n", o->ctype, o->id, o->index,
                                o->ctype);
    }
  g_string_append (s, g->compute->str);
  for (guint i = 0; i < n_out; i++)
    {
      Operand *o = g_ptr_array_index (g->outputs, i);
      g_string_append_printf (s, "    outQueue%u.EnQue(v%u);\n", i, o->id);
    }
  for (guint i = 0; i < n_in; i++)
    {
      Operand *o = g_ptr_array_index (g->inputs, i);
      g_string_append_printf (s, "    inQueue%u.FreeTensor(v%u);\n", i, o->id);
    }
  if (g->cube)
    g_string_append_printf (s, "    cubeQueue.FreeTensor(v%u);\n", g->cube_result->id);
  g_string_append (s, "  }\n\n");
}

/* CopyOut: each output's tile back to GM. */
static void
append_copy_out (Gen *g, GString *s)
{
  guint n_out = g->outputs->len;

  g_string_append_printf (s, "  __aicore__ inline void CopyOut(%s t, uint32_t rows, uint32_t len, uint32_t stride)\n  {\n"
                             "    (void)len;\n    (void)stride;\n", tile_type (g));
  for (guint i = 0; i < n_out; i++)
    {
      Operand *o = g_ptr_array_index (g->outputs, i);
      g_autofree char *copy = copy_call (g, o, "CopyUbToGm", "CopyBlockOut", "y", "out", i);

      g_string_append_printf (s,
        "    AscendC::LocalTensor<%s> y%u = outQueue%u.DeQue<%s>();\n"
        "    %s;\n"
        "    outQueue%u.FreeTensor(y%u);\n", o->ctype, i, i, o->ctype, copy, i, i);
    }
  g_string_append (s, "  }\n\n");
}

/* The class members: pipe, queues, buffers, global tensors and the tiling numbers. */
static void
append_members (Gen *g, GString *s)
{
  guint n_in = g->inputs->len, n_out = g->outputs->len, n_small = g->smalls->len;

  g_string_append (s, "  AscendC::TPipe pipe;\n");
  if (g->cube)
    fw_ac_cube_members (g, s);
  for (guint i = 0; i < n_in; i++)
    g_string_append_printf (s, "  AscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> inQueue%u;\n", i);
  for (guint i = 0; i < n_out; i++)
    g_string_append_printf (s, "  AscendC::TQue<AscendC::QuePosition::VECOUT, BUFFER_NUM> outQueue%u;\n", i);
  for (guint i = 0; i < g->slot_eb->len; i++)
    g_string_append_printf (s, "  AscendC::TBuf<AscendC::TPosition::VECCALC> tmp%u;\n", i);
  for (guint i = 0; i < FW_AC_N_SCRATCH; i++)
    if (g->scratch[i])
      g_string_append_printf (s, "  AscendC::TBuf<AscendC::TPosition::VECCALC> scratch%u;\n", i);
  if (g->row_scratch)
    g_string_append (s, "  AscendC::TBuf<AscendC::TPosition::VECCALC> rowScratch;\n");
  fw_ac_rows_members (g, s);
  if (g->reduce)
    g_string_append (s, "  AscendC::TBuf<AscendC::TPosition::VECCALC> reduceBuf0;\n"
                        "  AscendC::TBuf<AscendC::TPosition::VECCALC> reduceBuf1;\n");
  for (guint i = 0; i < n_small; i++)
    {
      Operand *o = g_ptr_array_index (g->smalls, i);
      g_string_append_printf (s, "  AscendC::TBuf<AscendC::TPosition::VECCALC> smallRaw%u;\n"
                                 "  AscendC::GlobalTensor<%s> small%uGm;\n"
                                 "  AscendC::LocalTensor<%s> raw%u;\n", i, o->ctype, i, o->ctype, i);
      if (fw_ac_needs_expand (o))
        g_string_append_printf (s, "  AscendC::TBuf<AscendC::TPosition::VECCALC> smallTile%u;\n"
                                   "  AscendC::LocalTensor<%s> e%u;\n"
                                   "  bool expandOnce%u = false;\n", i, o->ctype, i, i);
    }
  for (guint i = 0; i < n_in; i++)
    g_string_append_printf (s, "  AscendC::GlobalTensor<%s> in%uGm;\n", ((Operand *) g_ptr_array_index (g->inputs, i))->ctype, i);
  for (guint i = 0; i < n_out; i++)
    g_string_append_printf (s, "  AscendC::GlobalTensor<%s> out%uGm;\n", ((Operand *) g_ptr_array_index (g->outputs, i))->ctype, i);
  g_string_append (s, "  uint32_t tileLength = 0;\n  uint32_t tileRows = 0;\n  uint32_t tileCount = 0;\n"
                      "  uint64_t blockLength = 0;\n  uint64_t blockOffset = 0;  /* this block's first element in the space */\n");
  if (g->rows_mode)
    g_string_append (s, "  uint32_t blockRows = 0;\n");
  g_string_append (s, "};\n\n}  // namespace\n\n");
}

/* The entry point: the tiling struct copied from GM, then Init and Process. */
static void
append_entry (Gen *g, GString *s)
{
  if (g->as_body)
    g_string_append (s, "/* The kernel's entry as a function the SuperKernel's entry calls. */\n__aicore__ inline void Run(");
  else
    g_string_append_printf (s, "extern \"C\" __global__ __aicore__ void %s(", g->name);
  append_gm_args (s, g, "GM_ADDR ");
  g_string_append_printf (s, "GM_ADDR tiling)\n{\n"
    "  const __gm__ %s *src = reinterpret_cast<const __gm__ %s *>(tiling);\n"
    "  %s t;\n"
    "  t.totalLength = src->totalLength;\n  t.tileLength = src->tileLength;\n  t.tileNum = src->tileNum;\n"
    "  t.rows = src->rows;\n  t.rowLength = src->rowLength;\n  t.blockNum = src->blockNum;\n"
    "  t.tilesPerBlock = src->tilesPerBlock;\n", g->struct_name, g->struct_name, g->struct_name);
  if (g->cube)
    fw_ac_cube_entry_fields (g, s);
  g_string_append (s, "  FusedKernel op;\n  op.Init(");
  append_gm_args (s, g, "");
  g_string_append (s, "t);\n  op.Process();\n}\n");
}

char *
fw_ac_gen_body (Gen *g)
{
  GString *s = g_string_new (NULL);
  g_autofree char *kernel = NULL;

  g->as_body = TRUE;
  kernel = fw_ac_gen_kernel (g);
  g->as_body = FALSE;
  g_string_append_printf (s, "/* ---- sub-kernel %s (its own file: %s.cpp) ---- */\nnamespace %s {\n\n%s\n}  // namespace %s\n",
                          g->name, g->name, g->name, kernel, g->name);
  return g_string_free (s, FALSE);
}

char *
fw_ac_gen_kernel (Gen *g)
{
  GString *s = g_string_new (NULL);

  if (!g->as_body)
    fw_ac_append_header (g, s, "Ascend C kernel");
  append_prelude (g, s);
  g_string_append (s, "class FusedKernel\n{\npublic:\n  __aicore__ inline FusedKernel() {}\n\n");
  append_init (g, s);
  append_process (g, s);
  append_events (g, s);
  append_copy_in (g, s);
  append_compute (g, s);
  append_copy_out (g, s);
  append_members (g, s);
  append_entry (g, s);
  return g_string_free (s, FALSE);
}
