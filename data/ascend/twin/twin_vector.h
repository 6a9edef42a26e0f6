/* twin_vector.h: the vector instructions of the Ascend C twin (included by kernel_operator.h), in the
 * "tensor前n个数据计算" (first count elements) form the generator emits. That form splits count into repeats of
 * 256 bytes itself, so no repeat limit reaches the caller; the twin counts the repeats and checks each operand
 * (32-byte aligned start, count elements inside its extent, the pipe order of its blocks). */
#ifndef FW_TWIN_VECTOR_H
#define FW_TWIN_VECTOR_H

#include <limits>
#include <type_traits>

namespace AscendC {
namespace twin {

/* The C library's functions through the compiler's builtins: <cmath> alone costs more to parse than a
 * generated kernel, and every kernel is compiled on its own. */
inline float Exp (float a) { return __builtin_expf (a); }
inline double Exp (double a) { return __builtin_exp (a); }
inline float Log (float a) { return __builtin_logf (a); }
inline double Log (double a) { return __builtin_log (a); }
inline float Sqrt (float a) { return __builtin_sqrtf (a); }
inline double Sqrt (double a) { return __builtin_sqrt (a); }
inline float Abs (float a) { return __builtin_fabsf (a); }
inline double Abs (double a) { return __builtin_fabs (a); }
template <typename C> C Abs (C a) { return a < C (0) ? -a : a; }

/* Arithmetic type: half computes in float and rounds to binary16 when stored. */
template <typename T> struct Calc { using type = T; };
template <> struct Calc<half> { using type = float; };

inline bool CheckCount (int64_t count, const char *what, const char *file, int line)
{
  if (count < 0)
    {
      fwtwin::Diag ("FW-TWIN-COUNT", file, line, "%s with a negative count %lld", what, (long long) count);
      return false;
    }
  return true;
}

/* One vector instruction of count elements: its repeats (256 bytes of the wider operand each) and, for the
 * time estimate, its kind and element sizes (twin_core.h CountVector). */
inline void VectorStats (const char *what, uint64_t count, unsigned dst_size, unsigned src_size)
{
  uint64_t bytes = count * (dst_size > src_size ? dst_size : src_size);
  fwtwin::g.stats.vector_instructions++;
  fwtwin::g.stats.vector_repeats += (bytes + 255) / 256;
  fwtwin::CountVector (what, dst_size, src_size, count, (bytes + 255) / 256);
}

template <typename T, typename F>
void Unary (const LocalTensor<T> &dst, const LocalTensor<T> &src, int32_t count, const char *what, const char *file,
            int line, F f)
{
  using C = typename Calc<T>::type;
  if (!CheckCount (count, what, file, line))
    return;
  fwtwin::Issue (fwtwin::P_V);
  const T *s = src.Use (count, fwtwin::P_V, false, true, what, file, line);
  T *d = dst.Use (count, fwtwin::P_V, true, true, what, file, line);
  if (s == nullptr || d == nullptr)
    return;
  VectorStats (what, count, sizeof (T), sizeof (T));
  for (int32_t i = 0; i < count; i++)
    d[i] = static_cast<T> (f (static_cast<C> (s[i])));
}

template <typename T, typename F>
void Binary (const LocalTensor<T> &dst, const LocalTensor<T> &a, const LocalTensor<T> &b, int32_t count,
             const char *what, const char *file, int line, F f)
{
  using C = typename Calc<T>::type;
  if (!CheckCount (count, what, file, line))
    return;
  fwtwin::Issue (fwtwin::P_V);
  const T *x = a.Use (count, fwtwin::P_V, false, true, what, file, line);
  const T *y = b.Use (count, fwtwin::P_V, false, true, what, file, line);
  T *d = dst.Use (count, fwtwin::P_V, true, true, what, file, line);
  if (x == nullptr || y == nullptr || d == nullptr)
    return;
  VectorStats (what, count, sizeof (T), sizeof (T));
  for (int32_t i = 0; i < count; i++)
    d[i] = static_cast<T> (f (static_cast<C> (x[i]), static_cast<C> (y[i])));
}

}  // namespace twin

#define FW_TWIN_BINARY(NAME, EXPR)                                                                                 \
  template <typename T>                                                                                            \
  void NAME (const LocalTensor<T> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1,                   \
             const int32_t &count, FW_LOC)                                                                         \
  {                                                                                                                \
    using C = typename twin::Calc<T>::type;                                                                        \
    twin::Binary (dst, src0, src1, count, #NAME, FW_AT, [] (C a, C b) { return EXPR; });                           \
  }

/* Add.md, Sub.md, Mul.md, Div.md, Max.md, Min.md: elementwise, IEEE arithmetic. */
FW_TWIN_BINARY (Add, a + b)
FW_TWIN_BINARY (Sub, a - b)
FW_TWIN_BINARY (Mul, a * b)
FW_TWIN_BINARY (Div, a / b)
FW_TWIN_BINARY (Max, a > b ? a : b)
FW_TWIN_BINARY (Min, a < b ? a : b)

#define FW_TWIN_SCALAR(NAME, EXPR)                                                                                 \
  template <typename T>                                                                                            \
  void NAME (const LocalTensor<T> &dst, const LocalTensor<T> &src, const T &scalarValue, const int32_t &count,    \
             FW_LOC)                                                                                               \
  {                                                                                                                \
    using C = typename twin::Calc<T>::type;                                                                        \
    C s = static_cast<C> (scalarValue);                                                                            \
    twin::Unary (dst, src, count, #NAME, FW_AT, [s] (C a) { return EXPR; });                                       \
  }

/* Adds.md, Muls.md, Maxs.md, Mins.md: the scalar applied to every element. */
FW_TWIN_SCALAR (Adds, a + s)
FW_TWIN_SCALAR (Muls, a * s)
FW_TWIN_SCALAR (Maxs, a > s ? a : s)
FW_TWIN_SCALAR (Mins, a < s ? a : s)

#define FW_TWIN_UNARY(NAME, EXPR)                                                                                  \
  template <typename T>                                                                                            \
  void NAME (const LocalTensor<T> &dst, const LocalTensor<T> &src, const int32_t &count, FW_LOC)                   \
  {                                                                                                                \
    using C = typename twin::Calc<T>::type;                                                                        \
    twin::Unary (dst, src, count, #NAME, FW_AT, [] (C a) { return static_cast<C> (EXPR); });                       \
  }

/* Exp.md, Ln.md, Abs.md, Relu.md, Sqrt.md, Rsqrt.md, Reciprocal.md: e^x, ln x, |x|, max(x, 0), sqrt x,
 * 1/sqrt x, 1/x, with the C library's float functions (the chip's own rounding is not modelled). */
FW_TWIN_UNARY (Exp, twin::Exp (a))
FW_TWIN_UNARY (Ln, twin::Log (a))
FW_TWIN_UNARY (Abs, twin::Abs (a))
FW_TWIN_UNARY (Relu, a > 0 ? a : C (0))
FW_TWIN_UNARY (Sqrt, twin::Sqrt (a))
FW_TWIN_UNARY (Rsqrt, C (1) / twin::Sqrt (a))
FW_TWIN_UNARY (Reciprocal, C (1) / a)

/* Duplicate.md: count copies of the scalar. */
template <typename T> void Duplicate (const LocalTensor<T> &dst, const T &scalarValue, const int32_t &count, FW_LOC)
{
  if (!twin::CheckCount (count, "Duplicate", FW_AT))
    return;
  fwtwin::Issue (fwtwin::P_V);
  T *d = dst.Use (count, fwtwin::P_V, true, true, "Duplicate", FW_AT);
  if (d == nullptr)
    return;
  twin::VectorStats ("Duplicate", count, sizeof (T), sizeof (T));
  for (int32_t i = 0; i < count; i++)
    d[i] = scalarValue;
}

/* Gather.md (count form; the A2 implementation, asc-devkit impl/basic_api/dav_c220/
 * kernel_operator_vec_gather_impl.h, reads element i at src's address + srcBaseAddr + srcOffset[i] bytes): 2- and
 * 4-byte elements only (int16_t/uint16_t/int32_t/uint32_t/float/half/bfloat16_t on A2, no 8-bit form), the three
 * tensors 32-byte aligned, every address aligned to the element and inside src ("偏移地址后不能超出UB大小数据的范围"
 * is the page's bound; the twin takes src's own extent, which a kernel reading past its tensor also breaks). */
template <typename T>
void Gather (const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<uint32_t> &srcOffset,
             const uint32_t srcBaseAddr, const uint32_t count, FW_LOC)
{
  static_assert (sizeof (T) == 2 || sizeof (T) == 4, "Gather.md: 2- or 4-byte elements only on Atlas A2");
  fwtwin::Issue (fwtwin::P_V);
  const uint32_t *o = srcOffset.Use (count, fwtwin::P_V, false, true, "Gather offsets", FW_AT);
  const T *s = src.Use (src.GetSize (), fwtwin::P_V, false, true, "Gather", FW_AT);
  T *d = dst.Use (count, fwtwin::P_V, true, true, "Gather", FW_AT);
  if (o == nullptr || s == nullptr || d == nullptr)
    return;
  twin::VectorStats ("Gather", count, sizeof (T), sizeof (T));
  for (uint32_t i = 0; i < count; i++)
    {
      uint64_t at = static_cast<uint64_t> (srcBaseAddr) + o[i];
      if (at % sizeof (T) != 0)
        {
          fwtwin::Diag ("FW-TWIN-GATHER", FW_AT, "Gather element %u: byte offset %llu is not a multiple of the %u-byte "
                        "element (Gather.md)", i, (unsigned long long) at, static_cast<unsigned> (sizeof (T)));
          return;
        }
      if (at / sizeof (T) >= src.GetSize ())
        {
          fwtwin::Diag ("FW-TWIN-GATHER", FW_AT, "Gather element %u: byte offset %llu is past the source's %u elements",
                        i, (unsigned long long) at, src.GetSize ());
          return;
        }
      d[i] = s[at / sizeof (T)];
    }
}

namespace twin {

/* ReduceSum.md: sharedTmpBuffer needs the first pass's repeat results rounded up to a 32-byte block:
 * ceil(ceil(count / per_repeat) / per_block) * per_block elements. */
template <typename T>
bool ReduceOperands (const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &tmp, int32_t count,
                     const char *what, const char *file, int line, const T **s, T **d)
{
  const uint32_t per_repeat = 256 / sizeof (T), per_block = 32 / sizeof (T);
  uint32_t repeats = count < static_cast<int32_t> (per_repeat) ? 1 : (count + per_repeat - 1) / per_repeat;
  uint32_t need = (repeats + per_block - 1) / per_block * per_block;
  if (!CheckCount (count, what, file, line))
    return false;
  fwtwin::Issue (fwtwin::P_V);
  if (tmp.GetSize () < need)
    fwtwin::Diag ("FW-TWIN-REDUCE-TMP", file, line,
                  "%s of %d elements needs a sharedTmpBuffer of %u elements, it has %u", what, count, need,
                  tmp.GetSize ());
  *s = src.Use (count, fwtwin::P_V, false, true, what, file, line);
  /* dst needs only element alignment (ReduceSum.md parameter table). */
  *d = dst.Use (1, fwtwin::P_V, true, false, what, file, line);
  if (tmp.GetSize () >= need)
    tmp.Use (need, fwtwin::P_V, true, true, what, file, line);
  if (*s == nullptr || *d == nullptr)
    return false;
  VectorStats (what, count, sizeof (T), sizeof (T));
  return true;
}

template <typename C> C RoundSum (C v, bool is_half)
{
  if (!is_half)
    return v;
  /* ReduceSum.md: half partial sums saturate at 65504. */
  float f = static_cast<float> (half (static_cast<float> (v)));
  return static_cast<C> (f > 65504.0f ? 65504.0f : f < -65504.0f ? -65504.0f : f);
}

}  // namespace twin

/* ReduceSum.md: a binary tree inside each 256-byte repeat (pairs (0,1), (2,3), ... then pairs of those);
 * the repeats' results by a binary tree as well (mode 1: 310P "Atlas 推理系列产品") or added in order (mode 2:
 * the first-n form on Atlas A2, 910B). */
template <typename T, bool isSetMask = true>
void ReduceSum (const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &sharedTmpBuffer,
                const int32_t count, FW_LOC)
{
  using C = typename twin::Calc<T>::type;
  const int per_repeat = 256 / sizeof (T);
  const bool is_half = std::is_same<T, half>::value;
  const T *s;
  T *d;
  if (!twin::ReduceOperands (dst, src, sharedTmpBuffer, count, "ReduceSum", FW_AT, &s, &d))
    return;
  C lane[128];
  C parts[4096];
  int n_parts = 0;
  C total = 0;
  for (int r0 = 0; r0 < count || (count == 0 && r0 == 0); r0 += per_repeat)
    {
      for (int i = 0; i < per_repeat; i++)
        lane[i] = r0 + i < count ? static_cast<C> (s[r0 + i]) : C (0);
      for (int w = per_repeat; w > 1; w /= 2)
        for (int i = 0; i < w / 2; i++)
          lane[i] = twin::RoundSum<C> (lane[2 * i] + lane[2 * i + 1], is_half);
      if (fwtwin::g.reduce_mode == 2 || n_parts == 4096)
        total = twin::RoundSum<C> (total + lane[0], is_half);
      else
        parts[n_parts++] = lane[0];
      if (count == 0)
        break;
    }
  if (fwtwin::g.reduce_mode != 2)
    {
      while (n_parts > 1)
        {
          int m = 0;
          for (int i = 0; i < n_parts; i += 2)
            parts[m++] = i + 1 < n_parts ? twin::RoundSum<C> (parts[i] + parts[i + 1], is_half) : parts[i];
          n_parts = m;
        }
      total = twin::RoundSum<C> (total + (n_parts ? parts[0] : C (0)), is_half);
    }
  d[0] = static_cast<T> (total);
}

namespace twin {
/* ReduceMax.md, ReduceMin.md: the largest (smallest) of the first count elements into dst[0]. */
template <typename T, typename Better>
void ReduceExtreme (const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &tmp, int32_t count,
                    bool calIndex, const char *what, const char *file, int line, Better better)
{
  using C = typename Calc<T>::type;
  const T *s;
  T *d;
  if (calIndex)
    fwtwin::Diag ("FW-TWIN-UNSUPPORTED", file, line, "%s with calIndex is not modelled", what);
  if (!ReduceOperands (dst, src, tmp, count, what, file, line, &s, &d))
    return;
  C m = count > 0 ? static_cast<C> (s[0]) : C (0);
  for (int32_t i = 1; i < count; i++)
    if (better (static_cast<C> (s[i]), m))
      m = static_cast<C> (s[i]);
  d[0] = static_cast<T> (m);
}
}  // namespace twin

template <typename T>
void ReduceMax (const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &sharedTmpBuffer,
                const int32_t count, bool calIndex = false, FW_LOC)
{
  twin::ReduceExtreme (dst, src, sharedTmpBuffer, count, calIndex, "ReduceMax", FW_AT,
                       [] (auto a, auto b) { return a > b; });
}

template <typename T>
void ReduceMin (const LocalTensor<T> &dst, const LocalTensor<T> &src, const LocalTensor<T> &sharedTmpBuffer,
                const int32_t count, bool calIndex = false, FW_LOC)
{
  twin::ReduceExtreme (dst, src, sharedTmpBuffer, count, calIndex, "ReduceMin", FW_AT,
                       [] (auto a, auto b) { return a < b; });
}

namespace twin {

/* Compare.md, CompareScalar.md, Select.md: count elements must fill whole 256-byte blocks. */
template <typename T> bool CheckMaskCount (uint32_t count, const char *what, const char *file, int line)
{
  if ((static_cast<uint64_t> (count) * sizeof (T)) % 256 != 0)
    {
      fwtwin::Diag ("FW-TWIN-MASK-COUNT", file, line, "%s of %u elements: count must fill whole 256-byte blocks", what,
                    count);
      return false;
    }
  return true;
}

template <typename C> bool CompareOp (C a, C b, CMPMODE m)
{
  switch (m)
    {
    case CMPMODE::LT: return a < b;
    case CMPMODE::GT: return a > b;
    case CMPMODE::EQ: return a == b;
    case CMPMODE::LE: return a <= b;
    case CMPMODE::GE: return a >= b;
    case CMPMODE::NE: return a != b;
    }
  return false;
}

template <typename T, typename U, typename Get>
void CompareInto (const LocalTensor<U> &dst, const LocalTensor<T> &src0, uint32_t count, CMPMODE mode,
                  const char *what, const char *file, int line, Get rhs)
{
  using C = typename Calc<T>::type;
  if (!CheckMaskCount<T> (count, what, file, line))
    return;
  const T *a = src0.Use (count, fwtwin::P_V, false, true, what, file, line);
  uint8_t *bits = reinterpret_cast<uint8_t *> (dst.Use ((count / 8 + sizeof (U) - 1) / sizeof (U), fwtwin::P_V, true,
                                                         true, what, file, line));
  if (a == nullptr || bits == nullptr)
    return;
  VectorStats (what, count, sizeof (T), sizeof (T));
  /* One bit per element, element i in bit i % 8 of byte i / 8; 1 where src0 mode src1 holds. */
  for (uint32_t i = 0; i < count; i += 8)
    {
      uint8_t byte = 0;
      for (uint32_t k = 0; k < 8; k++)
        if (CompareOp<C> (static_cast<C> (a[i + k]), rhs (i + k), mode))
          byte = static_cast<uint8_t> (byte | (1u << k));
      bits[i / 8] = byte;
    }
}

}  // namespace twin

template <typename T, typename U>
void Compare (const LocalTensor<U> &dst, const LocalTensor<T> &src0, const LocalTensor<T> &src1, CMPMODE cmpMode,
              uint32_t count, FW_LOC)
{
  using C = typename twin::Calc<T>::type;
  fwtwin::Issue (fwtwin::P_V);
  const T *b = src1.Use (count, fwtwin::P_V, false, true, "Compare", FW_AT);
  if (b == nullptr)
    return;
  twin::CompareInto (dst, src0, count, cmpMode, "Compare", FW_AT, [b] (uint32_t i) { return static_cast<C> (b[i]); });
}

template <typename T, typename U>
void CompareScalar (const LocalTensor<U> &dst, const LocalTensor<T> &src0, const T src1Scalar, CMPMODE cmpMode,
                    uint32_t count, FW_LOC)
{
  using C = typename twin::Calc<T>::type;
  C s = static_cast<C> (src1Scalar);
  fwtwin::Issue (fwtwin::P_V);
  twin::CompareInto (dst, src0, count, cmpMode, "CompareScalar", FW_AT, [s] (uint32_t) { return s; });
}

namespace twin {

template <typename T, typename U, typename Get>
void SelectInto (const LocalTensor<T> &dst, const LocalTensor<U> &mask, const LocalTensor<T> &src0, uint32_t count,
                 const char *file, int line, Get rhs)
{
  if (!CheckMaskCount<T> (count, "Select", file, line))
    return;
  const uint8_t *bits = reinterpret_cast<const uint8_t *> (
    mask.Use ((count / 8 + sizeof (U) - 1) / sizeof (U), fwtwin::P_V, false, true, "Select mask", file, line));
  const T *a = src0.Use (count, fwtwin::P_V, false, true, "Select", file, line);
  T *d = dst.Use (count, fwtwin::P_V, true, true, "Select", file, line);
  if (bits == nullptr || a == nullptr || d == nullptr)
    return;
  VectorStats ("Select", count, sizeof (T), sizeof (T));
  for (uint32_t i = 0; i < count; i++)
    d[i] = ((bits[i / 8] >> (i % 8)) & 1u) ? a[i] : rhs (i);
}

}  // namespace twin

/* Select.md: src0 where the mask bit is 1, src1 where it is 0. The scalar form takes VSEL_TENSOR_SCALAR_MODE,
 * the tensor form VSEL_TENSOR_TENSOR_MODE. */
template <typename T, typename U>
void Select (const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0, T src1,
             SELMODE selMode, uint32_t count, FW_LOC)
{
  fwtwin::Issue (fwtwin::P_V);
  if (selMode != SELMODE::VSEL_TENSOR_SCALAR_MODE)
    fwtwin::Diag ("FW-TWIN-SELECT-MODE", FW_AT, "Select with a scalar src1 needs VSEL_TENSOR_SCALAR_MODE");
  twin::SelectInto (dst, selMask, src0, count, FW_AT, [src1] (uint32_t) { return src1; });
}

template <typename T, typename U>
void Select (const LocalTensor<T> &dst, const LocalTensor<U> &selMask, const LocalTensor<T> &src0,
             const LocalTensor<T> &src1, SELMODE selMode, uint32_t count, FW_LOC)
{
  fwtwin::Issue (fwtwin::P_V);
  if (selMode != SELMODE::VSEL_TENSOR_TENSOR_MODE)
    fwtwin::Diag ("FW-TWIN-SELECT-MODE", FW_AT, "Select with a tensor src1 needs VSEL_TENSOR_TENSOR_MODE");
  const T *b = src1.Use (count, fwtwin::P_V, false, true, "Select", FW_AT);
  if (b == nullptr)
    return;
  twin::SelectInto (dst, selMask, src0, count, FW_AT, [b] (uint32_t i) { return b[i]; });
}

namespace twin {
/* Cast.md round modes on a value already in double: CAST_RINT to nearest even, CAST_FLOOR, CAST_CEIL,
 * CAST_ROUND half away from zero, CAST_TRUNC toward zero. */
inline double RoundBy (double v, RoundMode m)
{
  switch (m)
    {
    case RoundMode::CAST_FLOOR: return __builtin_floor (v);
    case RoundMode::CAST_CEIL: return __builtin_ceil (v);
    case RoundMode::CAST_ROUND: return __builtin_round (v);
    case RoundMode::CAST_TRUNC: return __builtin_trunc (v);
    default: return __builtin_nearbyint (v);
    }
}

/* int32 -> float in round mode m: the nearest float below or above where the value has more than 24 bits. */
inline float IntToFloatBy (double v, RoundMode m)
{
  float r = static_cast<float> (v);  /* to nearest, ties to even */
  double rv = r;
  if (rv == v || m == RoundMode::CAST_NONE || m == RoundMode::CAST_RINT)
    return r;
  float lo = rv < v ? r : __builtin_nextafterf (r, -__builtin_inff ());
  float hi = rv > v ? r : __builtin_nextafterf (r, __builtin_inff ());
  switch (m)
    {
    case RoundMode::CAST_FLOOR: return lo;
    case RoundMode::CAST_CEIL: return hi;
    case RoundMode::CAST_TRUNC: return v > 0 ? lo : hi;
    default: return v - lo == static_cast<double> (hi) - v ? (v > 0 ? hi : lo) : r;  /* CAST_ROUND */
    }
}

template <typename T> const char *TypeName ()
{
  if constexpr (std::is_same<T, half>::value)
    return "half";
  else if constexpr (std::is_same<T, float>::value)
    return "float";
  else if constexpr (std::is_same<T, int32_t>::value)
    return "int32_t";
  else
    return "an integer";
}

inline const char *RoundName (RoundMode m)
{
  static const char *const names[] = { "CAST_NONE", "CAST_RINT", "CAST_FLOOR", "CAST_CEIL", "CAST_ROUND",
                                       "CAST_TRUNC", "CAST_ODD" };
  unsigned i = static_cast<unsigned> (m);
  return i < sizeof names / sizeof names[0] ? names[i] : "?";
}

/* Cast.md, table "Atlas A2 ... Cast指令参数说明": the round modes each conversion takes. half -> float has only
 * CAST_NONE (it is exact); float -> half all seven; float or half -> int32 the five rounding ones (not
 * CAST_NONE); int32 -> float those and CAST_NONE; float -> float the five (it rounds to an integer). int32 ->
 * half is a dequantise (the mode is ignored, SetDeqScale scales it): not a conversion the twin models. */
template <typename T, typename U> bool CastModeAllowed (RoundMode m, const char **why)
{
  const bool rounding = m == RoundMode::CAST_RINT || m == RoundMode::CAST_FLOOR || m == RoundMode::CAST_CEIL ||
                        m == RoundMode::CAST_ROUND || m == RoundMode::CAST_TRUNC;
  *why = nullptr;
  if constexpr (std::is_same<U, half>::value && std::is_same<T, float>::value)
    return m == RoundMode::CAST_NONE;
  else if constexpr (std::is_same<U, float>::value && std::is_same<T, half>::value)
    return rounding || m == RoundMode::CAST_NONE || m == RoundMode::CAST_ODD;
  else if constexpr (std::is_integral<T>::value && !std::is_integral<U>::value)
    return rounding;
  else if constexpr (std::is_same<U, int32_t>::value && std::is_same<T, float>::value)
    return rounding || m == RoundMode::CAST_NONE;
  else if constexpr (std::is_same<U, float>::value && std::is_same<T, float>::value)
    return rounding;
  else if constexpr (std::is_same<U, int32_t>::value && std::is_same<T, half>::value)
    {
      *why = "int32 -> half is a dequantise on Atlas A2 (SetDeqScale scales it, the round mode is ignored)";
      return false;
    }
  else
    return true;
}
}  // namespace twin

namespace twin {
/* Cast.md, "Atlas A2 训练系列产品/Atlas A2 推理系列产品支持的数据类型组合情况", for the forms the 8-bit (integer
 * group) kernels use: int8_t/uint8_t -> half CAST_NONE only; half -> int8_t/uint8_t any of CAST_RINT, FLOOR, CEIL,
 * ROUND, TRUNC, NONE; float -> float any of RINT, FLOOR, CEIL, ROUND, TRUNC (not NONE); int32_t -> half has no
 * round mode and needs SetDeqScale ("int32_t到half数据类型的转换，设置舍入模式无效"), which the twin does not model.
 * There is no direct float <-> int8_t form on A2 (the page's table has none): a float is requantised through
 * half. Other pairs are not checked here. 0: allowed, else the reason. */
template <typename T, typename U> const char *CastForm (RoundMode m)
{
  constexpr bool t8 = std::is_same<T, int8_t>::value || std::is_same<T, uint8_t>::value;
  constexpr bool u8 = std::is_same<U, int8_t>::value || std::is_same<U, uint8_t>::value;
  if constexpr (u8)
    return std::is_same<T, half>::value ? (m == RoundMode::CAST_NONE ? nullptr : "an 8-bit -> half Cast takes CAST_NONE only")
                                        : "an 8-bit source casts to half only";
  if constexpr (t8)
    return std::is_same<U, half>::value ? (m == RoundMode::CAST_ODD ? "half -> 8-bit has no CAST_ODD" : nullptr)
                                        : "an 8-bit destination is cast from half only";
  if constexpr (std::is_same<T, float>::value && std::is_same<U, float>::value)
    return m == RoundMode::CAST_NONE || m == RoundMode::CAST_ODD ? "float -> float takes CAST_RINT, FLOOR, CEIL, ROUND or TRUNC"
                                                                 : nullptr;
  if constexpr (std::is_same<T, half>::value && std::is_same<U, int32_t>::value)
    return "int32_t -> half needs SetDeqScale (its round mode has no effect), which the twin does not model";
  return nullptr;
}
}  // namespace twin

/* Cast.md: each element converted in roundMode, where the conversion takes it (CastModeAllowed); a mode it
 * does not take is a diagnostic, not a guess. float -> half rounds as FloatToHalfMode (saturating). */
template <typename T, typename U>
void Cast (const LocalTensor<T> &dst, const LocalTensor<U> &src, const RoundMode &roundMode, const uint32_t count,
           FW_LOC)
{
  constexpr bool eight = std::is_same<T, int8_t>::value || std::is_same<T, uint8_t>::value ||
                         std::is_same<U, int8_t>::value || std::is_same<U, uint8_t>::value;
  const char *why = nullptr;
  fwtwin::Issue (fwtwin::P_V);
  /* The 8-bit forms, float -> float and int32 -> half by CastForm (no result where the form does not exist);
     every other pair by CastModeAllowed (the result in the mode asked, with the diagnostic). */
  if (!eight && !twin::CastForm<T, U> (roundMode) && !twin::CastModeAllowed<T, U> (roundMode, &why))
    {
      if (why != nullptr)
        fwtwin::Diag ("FW-TWIN-CAST-MODE", FW_AT, "Cast: %s", why);
      else
        fwtwin::Diag ("FW-TWIN-CAST-MODE", FW_AT, "Cast %s -> %s does not take %s (Cast.md, Atlas A2 table)",
                      twin::TypeName<U> (), twin::TypeName<T> (), twin::RoundName (roundMode));
    }
  const U *s = src.Use (count, fwtwin::P_V, false, true, "Cast", FW_AT);
  T *d = dst.Use (count, fwtwin::P_V, true, true, "Cast", FW_AT);
  if (s == nullptr || d == nullptr)
    return;
  twin::VectorStats ("Cast", count, sizeof (T), sizeof (U));
  if (const char *form = twin::CastForm<T, U> (roundMode))
    {
      fwtwin::Diag ("FW-TWIN-CAST-MODE", FW_AT, "Cast of %u-byte to %u-byte elements with round mode %s: %s",
                    (unsigned) sizeof (U), (unsigned) sizeof (T), twin::RoundName (roundMode), form);
      return;
    }
  if constexpr (std::is_integral<T>::value)
    {
      /* precision_conversion.md: a value outside the destination's range saturates ("溢出默认按照饱和模式处理");
       * half -> uint8_t: "负数输入会被视为异常", a negative input is an error, not a 0. */
      const double lo = static_cast<double> (std::numeric_limits<T>::min ());
      const double hi = static_cast<double> (std::numeric_limits<T>::max ());
      bool negative = false;
      for (uint32_t i = 0; i < count; i++)
        {
          double v = twin::RoundBy (static_cast<double> (static_cast<typename twin::Calc<U>::type> (s[i])), roundMode);
          negative = negative || (std::is_same<T, uint8_t>::value && std::is_same<U, half>::value && v < 0);
          d[i] = static_cast<T> (v != v ? 0 : v < lo ? lo : v > hi ? hi : v);
        }
      if (negative)
        fwtwin::Diag ("FW-TWIN-CAST-RANGE", FW_AT, "Cast of a negative half to uint8_t (precision_conversion.md: an error)");
    }
  else if constexpr (std::is_same<T, half>::value && std::is_same<U, float>::value)
    for (uint32_t i = 0; i < count; i++)
      d[i].bits = fwtwin::FloatToHalfMode (s[i], static_cast<int> (roundMode));
  else if constexpr (std::is_same<T, float>::value && std::is_same<U, float>::value)
    /* float -> float rounds to an integral value in the mode (RINT: half to even, as QuantizeLinear). */
    for (uint32_t i = 0; i < count; i++)
      d[i] = static_cast<float> (twin::RoundBy (static_cast<double> (s[i]), roundMode));
  else if constexpr (std::is_same<T, float>::value && std::is_integral<U>::value)
    for (uint32_t i = 0; i < count; i++)
      d[i] = twin::IntToFloatBy (static_cast<double> (s[i]), roundMode);
  else
    for (uint32_t i = 0; i < count; i++)
      d[i] = static_cast<T> (static_cast<float> (static_cast<typename twin::Calc<U>::type> (s[i])));
}

}  // namespace AscendC

#endif
