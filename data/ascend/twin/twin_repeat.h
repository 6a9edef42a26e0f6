/* twin_repeat.h: the "tensor高维切分计算" (high-dimensional slicing) forms of the Ascend C twin's vector
 * instructions (included by kernel_operator.h after twin_vector.h): a mask, a repeat count and block and
 * repeat strides instead of a count, so that one instruction covers many short rows. The generator emits them
 * for row reductions and per-row broadcasts (core/codegen/ascend/fw-ascend-rows.c).
 *
 * The rules, from the pages (cannmirror/asc-devkit docs/api/context, or docs/zh/api/SIMD-API/基础API/
 * Memory矢量计算 in the newer layout):
 *   - 高维切分.md (SIMD计算说明): each repeat reads 8 DataBlocks of 32 bytes per operand and writes 8; repeatTime
 *     cannot exceed 255; dataBlockStride is the distance between the blocks of one repeat and repeatStride
 *     between the same block of adjacent repeats, both in 32-byte blocks; a source block stride of 0 reuses the
 *     first block, a repeat stride of 0 re-reads the same 8 blocks; a destination block stride of 0 is
 *     undefined behaviour;
 *   - 掩码/通用说明.md and Add.md (mask parameter): the continuous mask is the number of leading elements of each
 *     repeat that take part, in [1, 128] for 16-bit, [1, 64] for 32-bit and [1, 32] for 64-bit elements (0 is a
 *     no-op); the bit mask is mask[0] (and mask[1] for 16-bit elements) with bit i enabling element i, not all
 *     zero; "mask为0时，目的操作数保持原值": elements a mask leaves out keep their value in dst;
 *   - BinaryRepeatParams.md, UnaryRepeatParams.md: the stride fields (uint8_t repeat strides, block strides
 *     uint8_t for binary and uint16_t for unary instructions);
 *   - WholeReduceSum.md, WholeReduceMax.md, WholeReduceMin.md: one result per repeat over its masked elements,
 *     the sum by a binary tree of pairs (partial half sums saturating at 65504), dst at dstRepStride results
 *     apart, dst element-aligned (Sum) or aligned to a value-index pair (Max/Min), src 32-byte aligned;
 *     repeatTime in [0, 255];
 *   - Brcb.md: each repeat takes 8 elements of src0 and fills one destination block with each, the blocks
 *     dstBlkStride apart (0 counts as 1) and the repeats dstRepStride apart; src0 must hold 8 × repeatTime
 *     elements and may not be dst's memory.
 * Every operand block an instruction touches is checked like a count-form operand (its tensor's extent, the
 * pipe order of the 32-byte block); a stride that runs past the tensor is FW-TWIN-UB-BOUNDS. */
#ifndef FW_TWIN_REPEAT_H
#define FW_TWIN_REPEAT_H

namespace AscendC {

/* BinaryRepeatParams.md, UnaryRepeatParams.md, kernel_struct_brcb.h (Brcb.md table 3): the documented fields
 * and constructor argument orders; the reserved fields are left out. */
struct BinaryRepeatParams
{
  BinaryRepeatParams () {}
  BinaryRepeatParams (const uint8_t dstBlkStrideIn, const uint8_t src0BlkStrideIn, const uint8_t src1BlkStrideIn,
                      const uint8_t dstRepStrideIn, const uint8_t src0RepStrideIn, const uint8_t src1RepStrideIn)
    : dstBlkStride (dstBlkStrideIn), src0BlkStride (src0BlkStrideIn), src1BlkStride (src1BlkStrideIn),
      dstRepStride (dstRepStrideIn), src0RepStride (src0RepStrideIn), src1RepStride (src1RepStrideIn)
  {
  }
  uint8_t dstBlkStride = 1, src0BlkStride = 1, src1BlkStride = 1;
  uint8_t dstRepStride = 8, src0RepStride = 8, src1RepStride = 8;
};

struct UnaryRepeatParams
{
  UnaryRepeatParams () {}
  UnaryRepeatParams (const uint16_t dstBlkStrideIn, const uint16_t srcBlkStrideIn, const uint8_t dstRepStrideIn,
                     const uint8_t srcRepStrideIn)
    : dstBlkStride (dstBlkStrideIn), srcBlkStride (srcBlkStrideIn), dstRepStride (dstRepStrideIn),
      srcRepStride (srcRepStrideIn)
  {
  }
  uint16_t dstBlkStride = 1, srcBlkStride = 1;
  uint8_t dstRepStride = 8, srcRepStride = 8;
};

struct BrcbRepeatParams
{
  BrcbRepeatParams () {}
  BrcbRepeatParams (const uint16_t dstBlkStrideIn, const uint16_t dstRepStrideIn)
    : dstRepStride (dstRepStrideIn), dstBlkStride (dstBlkStrideIn)
  {
  }
  uint16_t dstRepStride = 8;
  uint16_t dstBlkStride = 1;
};

/* WholeReduceMax.md: where the value and the index go in dst. */
enum class ReduceOrder { ORDER_VALUE_INDEX, ORDER_INDEX_VALUE, ORDER_ONLY_VALUE, ORDER_ONLY_INDEX };

namespace twin {

/* One repeat's mask, 128 bits (element i of the repeat takes part when bit i is set). */
struct RepeatMask
{
  uint64_t lo = 0, hi = 0;
  bool Has (unsigned i) const { return i < 64 ? ((lo >> i) & 1u) != 0 : ((hi >> (i - 64)) & 1u) != 0; }
};

/* 高维切分.md: repeatTime in [0, 255]. The API's parameter is a uint8_t (an int32_t for WholeReduce*); the twin
 * takes it wider so that 256 is a diagnostic rather than a silent 0. */
inline bool CheckRepeat (int64_t repeat, const char *what, const char *file, int line)
{
  if (repeat < 0 || repeat > 255)
    {
      fwtwin::Diag ("FW-TWIN-REPEAT", file, line, "%s with repeatTime %lld: it must lie in [0, 255]", what,
                    (long long) repeat);
      return false;
    }
  return true;
}

/* The continuous mask: the first `mask` elements of each repeat, at most one repeat's worth. */
template <typename T> bool ContinuousMask (uint64_t mask, RepeatMask *m, const char *what, const char *file, int line)
{
  const uint64_t per_repeat = 256 / sizeof (T);
  if (mask > per_repeat)
    {
      fwtwin::Diag ("FW-TWIN-MASK", file, line,
                    "%s with a continuous mask of %llu: %u-byte elements allow at most %llu per repeat", what,
                    (unsigned long long) mask, (unsigned) sizeof (T), (unsigned long long) per_repeat);
      return false;
    }
  m->lo = mask >= 64 ? ~0ull : (1ull << mask) - 1;
  m->hi = mask >= 128 ? ~0ull : mask > 64 ? (1ull << (mask - 64)) - 1 : 0;
  return true;
}

/* The bit mask: mask[0] and, for 16-bit elements, mask[1]; no bit beyond one repeat, not all zero. */
template <typename T> bool BitMask (const uint64_t mask[], RepeatMask *m, const char *what, const char *file, int line)
{
  m->lo = mask[0];
  m->hi = sizeof (T) == 2 ? mask[1] : 0;
  if ((m->lo == 0 && m->hi == 0) || (sizeof (T) == 8 && (m->lo >> 32) != 0))
    {
      fwtwin::Diag ("FW-TWIN-MASK", file, line, "%s with a bit mask of %#llx %#llx: %s", what,
                    (unsigned long long) mask[0], (unsigned long long) (sizeof (T) == 2 ? mask[1] : 0),
                    m->lo == 0 && m->hi == 0 ? "no element takes part" : "64-bit elements have 32 per repeat");
      return false;
    }
  return true;
}

/* One operand of a repeat form: its tensor and its strides in 32-byte blocks. */
template <typename T> struct Strided
{
  const LocalTensor<T> *t;
  unsigned blk, rep;
};

/* The blocks of a repeat the mask touches: a bit per block of per_block elements. */
template <typename T> unsigned ActiveBlocks (const RepeatMask &m)
{
  const unsigned per_block = 32 / sizeof (T);
  unsigned bits = 0;
  for (unsigned b = 0; b < 8; b++)
    for (unsigned e = 0; e < per_block; e++)
      if (m.Has (b * per_block + e))
        {
          bits |= 1u << b;
          break;
        }
  return bits;
}

/* The access checks of one operand in repeat r: the run of active blocks where the block stride is 1, the
 * one block a stride of 0 reuses, else each active block. An access past the tensor is UbAccess's
 * FW-TWIN-UB-BOUNDS. Returns the operand's base pointer, or nullptr when the repeat must be skipped. */
template <typename T>
T *TouchRepeat (const Strided<T> &o, unsigned r, unsigned blocks, bool write, const char *what, const char *file,
                int line)
{
  const uint64_t per_block = 32 / sizeof (T);
  unsigned first = 8, last = 0;
  for (unsigned b = 0; b < 8; b++)
    if (blocks & (1u << b))
      {
        first = first == 8 ? b : first;
        last = b;
      }
  if (first == 8)
    return nullptr;
  for (unsigned b = first; b <= last; b++)
    {
      if (!(blocks & (1u << b)))
        continue;
      uint64_t at = (static_cast<uint64_t> (r) * o.rep + static_cast<uint64_t> (b) * o.blk) * per_block;
      uint64_t n = o.blk == 1 ? (last - b + 1) * per_block : per_block;
      if (at > 0xffffffffull)
        {
          fwtwin::Diag ("FW-TWIN-UB-BOUNDS", file, line, "%s: repeat %u's strides run past the Unified Buffer", what, r);
          return nullptr;
        }
      if ((*o.t)[static_cast<uint32_t> (at)].Use (n, fwtwin::P_V, write, false, what, file, line) == nullptr)
        return nullptr;
      if (o.blk <= 1)
        break;
    }
  return reinterpret_cast<T *> (fwtwin::g.ub + o.t->Addr ());
}

/* Element e of repeat r of an operand (e's block b = e / per_block at b × blk blocks). */
template <typename T> uint64_t At (const Strided<T> &o, unsigned r, unsigned e)
{
  const unsigned per_block = 32 / sizeof (T);
  return (static_cast<uint64_t> (r) * o.rep + static_cast<uint64_t> (e / per_block) * o.blk) * per_block +
         e % per_block;
}

/* One repeat-form instruction for the counters: repeats of 256 bytes of the wider operand each (a masked
 * repeat costs the pipe a whole one), its elements those repeats' lanes. */
inline void RepeatStats (const char *what, uint64_t repeats, unsigned dst_size, unsigned src_size)
{
  unsigned wide = dst_size > src_size ? dst_size : src_size;
  fwtwin::g.stats.vector_instructions++;
  fwtwin::g.stats.vector_repeats += repeats;
  fwtwin::CountVector (what, dst_size, src_size, repeats * (256 / wide), repeats);
}

inline bool CheckDstStride (unsigned blk, const char *what, const char *file, int line)
{
  if (blk == 0)
    {
      fwtwin::Diag ("FW-TWIN-STRIDE", file, line, "%s with dstBlkStride 0: undefined on the chip (高维切分.md)", what);
      return false;
    }
  return true;
}

/* dst = f(src0, src1) over repeat repeats under mask m. Each repeat reads its sources before it writes. */
template <typename T, typename F>
void BinaryRepeat (const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,
                   const RepeatMask &m, int64_t repeat, const BinaryRepeatParams &p, const char *what,
                   const char *file, int line, F f)
{
  using C = typename Calc<T>::type;
  const unsigned per_repeat = 256 / sizeof (T);
  fwtwin::Issue (fwtwin::P_V);
  if (!CheckRepeat (repeat, what, file, line) || !CheckDstStride (p.dstBlkStride, what, file, line))
    return;
  if (!fwtwin::CheckAligned (dst.Addr (), what, file, line) || !fwtwin::CheckAligned (src0.Addr (), what, file, line) ||
      !fwtwin::CheckAligned (src1.Addr (), what, file, line))
    return;
  RepeatStats (what, static_cast<uint64_t> (repeat), sizeof (T), sizeof (T));
  const Strided<T> d{ &dst, p.dstBlkStride, p.dstRepStride }, a{ &src0, p.src0BlkStride, p.src0RepStride },
    b{ &src1, p.src1BlkStride, p.src1RepStride };
  const unsigned blocks = ActiveBlocks<T> (m);
  C va[128], vb[128];
  for (unsigned r = 0; r < static_cast<unsigned> (repeat); r++)
    {
      const T *x = TouchRepeat (a, r, blocks, false, what, file, line);
      const T *y = TouchRepeat (b, r, blocks, false, what, file, line);
      T *z = TouchRepeat (d, r, blocks, true, what, file, line);
      if (x == nullptr || y == nullptr || z == nullptr)
        continue;
      for (unsigned e = 0; e < per_repeat; e++)
        if (m.Has (e))
          {
            va[e] = static_cast<C> (x[At (a, r, e)]);
            vb[e] = static_cast<C> (y[At (b, r, e)]);
          }
      for (unsigned e = 0; e < per_repeat; e++)
        if (m.Has (e))
          z[At (d, r, e)] = static_cast<T> (f (va[e], vb[e]));
    }
}

/* dst = f(src) over repeat repeats under mask m (the scalar forms Adds, Muls, Maxs, Mins). */
template <typename T, typename F>
void UnaryRepeat (const LocalTensor<T> &dst, const LocalTensor<T> &src, const RepeatMask &m, int64_t repeat,
                  const UnaryRepeatParams &p, const char *what, const char *file, int line, F f)
{
  using C = typename Calc<T>::type;
  const unsigned per_repeat = 256 / sizeof (T);
  fwtwin::Issue (fwtwin::P_V);
  if (!CheckRepeat (repeat, what, file, line) || !CheckDstStride (p.dstBlkStride, what, file, line))
    return;
  if (!fwtwin::CheckAligned (dst.Addr (), what, file, line) || !fwtwin::CheckAligned (src.Addr (), what, file, line))
    return;
  RepeatStats (what, static_cast<uint64_t> (repeat), sizeof (T), sizeof (T));
  const Strided<T> d{ &dst, p.dstBlkStride, p.dstRepStride }, a{ &src, p.srcBlkStride, p.srcRepStride };
  const unsigned blocks = ActiveBlocks<T> (m);
  C va[128];
  for (unsigned r = 0; r < static_cast<unsigned> (repeat); r++)
    {
      const T *x = TouchRepeat (a, r, blocks, false, what, file, line);
      T *z = TouchRepeat (d, r, blocks, true, what, file, line);
      if (x == nullptr || z == nullptr)
        continue;
      for (unsigned e = 0; e < per_repeat; e++)
        if (m.Has (e))
          va[e] = static_cast<C> (x[At (a, r, e)]);
      for (unsigned e = 0; e < per_repeat; e++)
        if (m.Has (e))
          z[At (d, r, e)] = static_cast<T> (f (va[e]));
    }
}

}  // namespace twin

/* Add.md, Sub.md, Mul.md, Div.md, Max.md, Min.md: the high-dimensional slicing prototypes, continuous and
 * bit mask. */
#define FW_TWIN_BINARY_REPEAT(NAME, EXPR)                                                                          \
  template <typename T>                                                                                            \
  void NAME (const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, uint64_t mask,    \
             const int32_t repeatTime, const BinaryRepeatParams &repeatParams, FW_LOC)                             \
  {                                                                                                                \
    using C = typename twin::Calc<T>::type;                                                                        \
    twin::RepeatMask m;                                                                                            \
    if (mask == 0 || !twin::ContinuousMask<T> (mask, &m, #NAME, FW_AT))                                            \
      return;                                                                                                      \
    twin::BinaryRepeat (dst, src0, src1, m, repeatTime, repeatParams, #NAME, FW_AT, [] (C a, C b) { return EXPR; }); \
  }                                                                                                                \
  template <typename T>                                                                                            \
  void NAME (const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,                   \
             const uint64_t mask[], const int32_t repeatTime, const BinaryRepeatParams &repeatParams, FW_LOC)      \
  {                                                                                                                \
    using C = typename twin::Calc<T>::type;                                                                        \
    twin::RepeatMask m;                                                                                            \
    if (!twin::BitMask<T> (mask, &m, #NAME, FW_AT))                                                                \
      return;                                                                                                      \
    twin::BinaryRepeat (dst, src0, src1, m, repeatTime, repeatParams, #NAME, FW_AT, [] (C a, C b) { return EXPR; }); \
  }

FW_TWIN_BINARY_REPEAT (Add, a + b)
FW_TWIN_BINARY_REPEAT (Sub, a - b)
FW_TWIN_BINARY_REPEAT (Mul, a * b)
FW_TWIN_BINARY_REPEAT (Div, a / b)
FW_TWIN_BINARY_REPEAT (Max, a > b ? a : b)
FW_TWIN_BINARY_REPEAT (Min, a < b ? a : b)

/* Adds.md, Muls.md, Maxs.md, Mins.md: the high-dimensional slicing prototypes. */
#define FW_TWIN_SCALAR_REPEAT(NAME, EXPR)                                                                          \
  template <typename T>                                                                                            \
  void NAME (const LocalTensor<T> &dst, const LocalTensor<T> &src, const T &scalarValue, uint64_t mask,           \
             const int32_t repeatTime, const UnaryRepeatParams &repeatParams, FW_LOC)                              \
  {                                                                                                                \
    using C = typename twin::Calc<T>::type;                                                                        \
    C s = static_cast<C> (scalarValue);                                                                            \
    twin::RepeatMask m;                                                                                            \
    if (mask == 0 || !twin::ContinuousMask<T> (mask, &m, #NAME, FW_AT))                                            \
      return;                                                                                                      \
    twin::UnaryRepeat (dst, src, m, repeatTime, repeatParams, #NAME, FW_AT, [s] (C a) { return EXPR; });           \
  }                                                                                                                \
  template <typename T>                                                                                            \
  void NAME (const LocalTensor<T> &dst, const LocalTensor<T> &src, const T &scalarValue, const uint64_t mask[],   \
             const int32_t repeatTime, const UnaryRepeatParams &repeatParams, FW_LOC)                              \
  {                                                                                                                \
    using C = typename twin::Calc<T>::type;                                                                        \
    C s = static_cast<C> (scalarValue);                                                                            \
    twin::RepeatMask m;                                                                                            \
    if (!twin::BitMask<T> (mask, &m, #NAME, FW_AT))                                                                \
      return;                                                                                                      \
    twin::UnaryRepeat (dst, src, m, repeatTime, repeatParams, #NAME, FW_AT, [s] (C a) { return EXPR; });           \
  }

FW_TWIN_SCALAR_REPEAT (Adds, a + s)
FW_TWIN_SCALAR_REPEAT (Muls, a * s)
FW_TWIN_SCALAR_REPEAT (Maxs, a > s ? a : s)
FW_TWIN_SCALAR_REPEAT (Mins, a < s ? a : s)

namespace twin {

enum WholeKind { WHOLE_SUM, WHOLE_MAX, WHOLE_MIN };

/* WholeReduceSum/Max/Min over repeat repeats: one result per repeat at dst[r × dstRepStride × unit]. */
template <typename T>
void WholeReduce (const LocalTensor<T> &dst, const LocalTensor<T> &src, const RepeatMask &m, int32_t repeat,
                  int32_t dstRepStride, int32_t srcBlkStride, int32_t srcRepStride, WholeKind kind, ReduceOrder order,
                  const char *what, const char *file, int line)
{
  using C = typename Calc<T>::type;
  const unsigned per_repeat = 256 / sizeof (T);
  const bool is_half = std::is_same<T, half>::value;
  /* Max/Min write a value and an index unless asked for one of them; the dst stride counts those units. */
  const bool pair = kind != WHOLE_SUM && (order == ReduceOrder::ORDER_VALUE_INDEX ||
                                          order == ReduceOrder::ORDER_INDEX_VALUE);
  const unsigned unit = pair ? 2 : 1;
  fwtwin::Issue (fwtwin::P_V);
  if (!CheckRepeat (repeat, what, file, line))
    return;
  if (srcBlkStride < 0 || srcRepStride < 0 || dstRepStride < 0)
    {
      fwtwin::Diag ("FW-TWIN-STRIDE", file, line, "%s with a negative stride", what);
      return;
    }
  if (!fwtwin::CheckAligned (src.Addr (), what, file, line))
    return;
  /* WholeReduceSum.md: dst aligned to its element; WholeReduceMax/Min.md: to a value-index pair. */
  if (dst.Addr () % (sizeof (T) * (kind == WHOLE_SUM ? 1 : 2)) != 0)
    {
      fwtwin::Diag ("FW-TWIN-UNALIGNED", file, line, "%s: dst at UB offset %u is not %u-byte aligned", what,
                    dst.Addr (), (unsigned) (sizeof (T) * (kind == WHOLE_SUM ? 1 : 2)));
      return;
    }
  RepeatStats (what, static_cast<uint64_t> (repeat), sizeof (T), sizeof (T));
  const Strided<T> a{ &src, static_cast<unsigned> (srcBlkStride), static_cast<unsigned> (srcRepStride) };
  const unsigned blocks = ActiveBlocks<T> (m);
  C lane[128];
  for (unsigned r = 0; r < static_cast<unsigned> (repeat); r++)
    {
      const T *x = TouchRepeat (a, r, blocks, false, what, file, line);
      uint64_t at = static_cast<uint64_t> (r) * static_cast<uint64_t> (dstRepStride) * unit;
      if (x == nullptr || at + unit > dst.GetSize ())
        {
          if (x != nullptr)
            fwtwin::Diag ("FW-TWIN-UB-BOUNDS", file, line, "%s: repeat %u's result at %llu is past dst's %u elements",
                          what, r, (unsigned long long) at, dst.GetSize ());
          continue;
        }
      T *z = dst[static_cast<uint32_t> (at)].Use (unit, fwtwin::P_V, true, false, what, file, line);
      if (z == nullptr)
        continue;
      C v = 0;
      unsigned index = 0;
      bool have = false;
      for (unsigned e = 0; e < per_repeat; e++)
        {
          C xe = m.Has (e) ? static_cast<C> (x[At (a, r, e)]) : C (0);
          lane[e] = xe;
          if (kind == WHOLE_SUM || !m.Has (e))
            continue;
          if (!have || (kind == WHOLE_MAX ? xe > v : xe < v))
            {
              v = xe;
              index = e;
              have = true;
            }
        }
      if (kind == WHOLE_SUM)
        {
          for (unsigned w = per_repeat; w > 1; w /= 2)
            for (unsigned i = 0; i < w / 2; i++)
              lane[i] = RoundSum<C> (lane[2 * i] + lane[2 * i + 1], is_half);
          z[0] = static_cast<T> (lane[0]);
          continue;
        }
      /* The index is stored in the element's bits (WholeReduceMax.md: read back with reinterpret_cast). */
      T value = static_cast<T> (v), idx;
      if (sizeof (T) == 2)
        {
          uint16_t i16 = static_cast<uint16_t> (index);
          std::memcpy (&idx, &i16, sizeof idx);
        }
      else
        {
          uint32_t i32 = index;
          std::memcpy (&idx, &i32, sizeof idx);
        }
      switch (order)
        {
        case ReduceOrder::ORDER_VALUE_INDEX: z[0] = value; z[1] = idx; break;
        case ReduceOrder::ORDER_INDEX_VALUE: z[0] = idx; z[1] = value; break;
        case ReduceOrder::ORDER_ONLY_VALUE: z[0] = value; break;
        case ReduceOrder::ORDER_ONLY_INDEX: z[0] = idx; break;
        }
    }
}

}  // namespace twin

#define FW_TWIN_WHOLE_REDUCE(NAME, KIND, ORDER_PARAM, ORDER)                                                       \
  template <typename T, bool isSetMask = true>                                                                     \
  void NAME (const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t mask, const int32_t repeatTime,  \
             const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride ORDER_PARAM, FW_LOC) \
  {                                                                                                                \
    twin::RepeatMask m;                                                                                            \
    if (mask < 1)                                                                                                  \
      {                                                                                                            \
        fwtwin::Diag ("FW-TWIN-MASK", FW_AT, "%s with a continuous mask of %d: at least 1", #NAME, mask);         \
        return;                                                                                                    \
      }                                                                                                            \
    if (!twin::ContinuousMask<T> (static_cast<uint64_t> (mask), &m, #NAME, FW_AT))                                 \
      return;                                                                                                      \
    twin::WholeReduce (dst, src, m, repeatTime, dstRepStride, srcBlkStride, srcRepStride, twin::KIND, ORDER, #NAME, \
                       FW_AT);                                                                                     \
  }                                                                                                                \
  template <typename T, bool isSetMask = true>                                                                     \
  void NAME (const LocalTensor<T> &dst, const LocalTensor<T> &src, const uint64_t mask[], const int32_t repeatTime, \
             const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride ORDER_PARAM, FW_LOC) \
  {                                                                                                                \
    twin::RepeatMask m;                                                                                            \
    if (!twin::BitMask<T> (mask, &m, #NAME, FW_AT))                                                                \
      return;                                                                                                      \
    twin::WholeReduce (dst, src, m, repeatTime, dstRepStride, srcBlkStride, srcRepStride, twin::KIND, ORDER, #NAME, \
                       FW_AT);                                                                                     \
  }

#define FW_TWIN_ORDER_PARAM , ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX
#define FW_TWIN_NO_ORDER_PARAM

/* WholeReduceSum.md; WholeReduceMax.md and WholeReduceMin.md (with ReduceOrder). */
FW_TWIN_WHOLE_REDUCE (WholeReduceSum, WHOLE_SUM, FW_TWIN_NO_ORDER_PARAM, ReduceOrder::ORDER_ONLY_VALUE)
FW_TWIN_WHOLE_REDUCE (WholeReduceMax, WHOLE_MAX, FW_TWIN_ORDER_PARAM, order)
FW_TWIN_WHOLE_REDUCE (WholeReduceMin, WHOLE_MIN, FW_TWIN_ORDER_PARAM, order)

/* Brcb.md: repeatTime repeats of 8 elements of src0, each filling one 32-byte block of dst. */
template <typename T>
void Brcb (const LocalTensor<T> &dst, const LocalTensor<T> &src0, const int32_t repeatTime,
           const BrcbRepeatParams &repeatParams, FW_LOC)
{
  const unsigned per_block = 32 / sizeof (T);
  const unsigned blk = repeatParams.dstBlkStride == 0 ? 1 : repeatParams.dstBlkStride;
  fwtwin::Issue (fwtwin::P_V);
  if (!twin::CheckRepeat (repeatTime, "Brcb", FW_AT))
    return;
  if (!fwtwin::CheckAligned (dst.Addr (), "Brcb", FW_AT) || !fwtwin::CheckAligned (src0.Addr (), "Brcb", FW_AT))
    return;
  if (dst.Slot () == src0.Slot () && dst.Addr () == src0.Addr ())
    {
      fwtwin::Diag ("FW-TWIN-STRIDE", FW_AT, "Brcb with src0 and dst at the same memory (Brcb.md: not supported)");
      return;
    }
  if (repeatTime == 0)
    return;
  const T *s = src0.Use (8u * static_cast<uint64_t> (repeatTime), fwtwin::P_V, false, true, "Brcb", FW_AT);
  if (s == nullptr)
    return;
  twin::RepeatStats ("Brcb", static_cast<uint64_t> (repeatTime), sizeof (T), sizeof (T));
  T v[8];
  const twin::Strided<T> d{ &dst, blk, repeatParams.dstRepStride };
  for (unsigned r = 0; r < static_cast<unsigned> (repeatTime); r++)
    {
      for (unsigned j = 0; j < 8; j++)
        v[j] = s[r * 8 + j];
      for (unsigned j = 0; j < 8; j++)
        {
          uint64_t at = twin::At (d, r, j * per_block);
          T *z = at > 0xffffffffull ? nullptr
                                    : dst[static_cast<uint32_t> (at)].Use (per_block, fwtwin::P_V, true, false, "Brcb",
                                                                           FW_AT);
          if (z == nullptr)
            continue;
          for (unsigned e = 0; e < per_block; e++)
            z[e] = v[j];
        }
    }
}

}  // namespace AscendC

#endif
