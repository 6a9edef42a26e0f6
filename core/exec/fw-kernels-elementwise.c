/* fw-kernels-elementwise.c: reference kernels for the elementwise and broadcasting ops.
 *
 * These kernels are also the unfused baseline the SuperKernels are timed against, so they are written to
 * be fast in the plain way: each op is one per-element expression, instantiated per C type by macros into
 * a contiguous loop the compiler vectorises ("omp simd": GCC's -O2 cost model alone does not vectorise
 * loops of unknown length). Broadcasting goes through one walker: it drops size-1 axes and merges axes that
 * are contiguous for every input, so same-shape, scalar, row and column broadcasts all become a few long
 * rows with an inner stride of 0 or 1, and only truly N-d broadcasts pay for an index counter (per row,
 * never per element).
 *
 * float16 and bfloat16 compute through the float32 kernels in stack blocks of HALF_BLOCK elements, rounding
 * once per op as ONNX Runtime does. float32 uses the C library's float functions (expf, erff, tanhf…)
 * computed in float, float64 the double ones.
 *
 * Where ONNX leaves a result undefined or C would trap, the kernels choose (and the tests pin down):
 *  - add, sub, mul, neg and abs wrap (two's complement), as ONNX Runtime's do in practice;
 *  - division or Mod by zero gives 0 (ONNX leaves it undefined; ONNX Runtime would trap);
 *  - INT_MIN / -1 wraps to INT_MIN and INT_MIN % -1 is 0 instead of trapping;
 *  - Pow with a negative integer exponent gives the truncated result (1, -1 or 0), 0 for 0^-n;
 *  - BitShift by the type's width or more gives 0;
 *  - Cast of a float out of an integer type's range (undefined in ONNX) saturates to int64 first and
 *    then wraps, which matches x86 ONNX Runtime for everything inside the int32 range; NaN becomes 0.
 *
 * This file holds the ops' expressions, their per-type tables and the kernels; the walker, the 16-bit float
 * path, Cast's table and the checks every kernel shares are in fw-kernels-elementwise-run.c. */
#include "config.h"

#include <inttypes.h>

#include <float.h>
#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "fw-exec.h"
#include "fw-kernels-elementwise-private.h"

/* ---- type lists and loop bodies ---- */

/* X (suffix, C type, unsigned type wide enough that arithmetic on it never overflows int, args…) */
#define SIGNED_TYPES(X, ...) \
  X (i8, gint8, guint, __VA_ARGS__) \
  X (i16, gint16, guint, __VA_ARGS__) \
  X (i32, gint32, guint32, __VA_ARGS__) \
  X (i64, gint64, guint64, __VA_ARGS__)
#define UNSIGNED_TYPES(X, ...) \
  X (u8, guint8, guint, __VA_ARGS__) \
  X (u16, guint16, guint, __VA_ARGS__) \
  X (u32, guint32, guint32, __VA_ARGS__) \
  X (u64, guint64, guint64, __VA_ARGS__)
#define FLOAT_TYPES(X, ...) \
  X (f32, float, float, __VA_ARGS__) \
  X (f64, double, double, __VA_ARGS__)
#define BOOL_TYPES(X, ...) X (b, guint8, guint, __VA_ARGS__)

#define DT_f32 FW_DTYPE_FLOAT
#define DT_f64 FW_DTYPE_DOUBLE
#define DT_i8 FW_DTYPE_INT8
#define DT_i16 FW_DTYPE_INT16
#define DT_i32 FW_DTYPE_INT32
#define DT_i64 FW_DTYPE_INT64
#define DT_u8 FW_DTYPE_UINT8
#define DT_u16 FW_DTYPE_UINT16
#define DT_u32 FW_DTYPE_UINT32
#define DT_u64 FW_DTYPE_UINT64
#define DT_b FW_DTYPE_BOOL

/* The C library function for the type: MATH_f32 (exp) is expf. */
#define MATH_f32(name) name##f
#define MATH_f64(name) name
#define MATH_i8(name) name
#define MATH_i16(name) name
#define MATH_i32(name) name
#define MATH_i64(name) name
#define MATH_u8(name) name
#define MATH_u16(name) name
#define MATH_u32(name) name
#define MATH_u64(name) name
#define MATH_b(name) name

#define OUT_SAME(T) T
#define OUT_BOOL(T) guint8

/* Expressions are EXPR (T, U, M, x, P) for unary ops and EXPR (T, U, M, x, y, P) for binary ones. */
#define DEF_UNARY_ONE(sfx, T, U, op, EXPR, OUT) \
  static void \
  op##_##sfx (const void *in, void *out, gint64 n, const Params *P) \
  { \
    const T *a = in; \
    OUT (T) *o = out; \
    (void) P; \
    _Pragma ("omp simd") \
    for (gint64 i = 0; i < n; i++) \
      { \
        T x = a[i]; \
        o[i] = (OUT (T)) (EXPR (T, U, MATH_##sfx, x, P)); \
      } \
  }
#define UNARY_ENTRY(sfx, T, U, op, EXPR, OUT) [DT_##sfx] = op##_##sfx,

#define DEF_BINARY_ONE(sfx, T, U, op, EXPR, OUT) \
  static void \
  op##_##sfx (const void *const *in, const gint64 *st, void *out, gint64 n, const Params *P) \
  { \
    const T *a = in[0], *b = in[1]; \
    OUT (T) *o = out; \
    (void) P; \
    if (st[0] && st[1]) \
      { \
        _Pragma ("omp simd") \
        for (gint64 i = 0; i < n; i++) \
          { \
            T x = a[i], y = b[i]; \
            o[i] = (OUT (T)) (EXPR (T, U, MATH_##sfx, x, y, P)); \
          } \
      } \
    else if (st[0]) \
      { \
        T y = b[0]; \
        _Pragma ("omp simd") \
        for (gint64 i = 0; i < n; i++) \
          { \
            T x = a[i]; \
            o[i] = (OUT (T)) (EXPR (T, U, MATH_##sfx, x, y, P)); \
          } \
      } \
    else if (st[1]) \
      { \
        T x = a[0]; \
        _Pragma ("omp simd") \
        for (gint64 i = 0; i < n; i++) \
          { \
            T y = b[i]; \
            o[i] = (OUT (T)) (EXPR (T, U, MATH_##sfx, x, y, P)); \
          } \
      } \
    else \
      { \
        T x = a[0], y = b[0]; \
        OUT (T) v = (OUT (T)) (EXPR (T, U, MATH_##sfx, x, y, P)); \
        for (gint64 i = 0; i < n; i++) \
          o[i] = v; \
      } \
  }
#define BINARY_ENTRY(sfx, T, U, op, EXPR, OUT) [DT_##sfx] = op##_##sfx,

#define DEF_UNARY(LIST, op, EXPR, OUT) LIST (DEF_UNARY_ONE, op, EXPR, OUT)
#define DEF_BINARY(LIST, op, EXPR, OUT) LIST (DEF_BINARY_ONE, op, EXPR, OUT)
#define UNARY_ENTRIES(LIST, op) LIST (UNARY_ENTRY, op, 0, 0)
#define BINARY_ENTRIES(LIST, op) LIST (BINARY_ENTRY, op, 0, 0)

/* ---- helpers the expressions call ---- */

static inline float
clamp01f (float v)
{
  return v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
}

static inline double
clamp01 (double v)
{
  return v < 0.0 ? 0.0 : (v > 1.0 ? 1.0 : v);
}

/* Split at 0 so e^x never overflows. */
static inline float
softplusf (float x)
{
  return x > 0.0f ? x + log1pf (expf (-x)) : log1pf (expf (x));
}

static inline double
softplus (double x)
{
  return x > 0.0 ? x + log1p (exp (-x)) : log1p (exp (x));
}

static inline gint64
sdiv64 (gint64 x, gint64 y)
{
  if (y == 0)
    return 0;
  if (y == -1)
    return (gint64) (0 - (guint64) x);
  return x / y;
}

/* Mod with fmod = 0: the result takes the divisor's sign, as Python's %. */
static inline gint64
smod64 (gint64 x, gint64 y, gboolean c_fmod)
{
  gint64 r;

  if (y == 0 || y == -1)
    return 0;
  r = x % y;
  if (!c_fmod && r != 0 && ((r < 0) != (y < 0)))
    r += y;
  return r;
}

static inline gint64
ipow64 (gint64 x, gint64 y)
{
  guint64 result = 1, base = (guint64) x;

  if (y < 0)
    return x == 1 ? 1 : (x == -1 ? ((y & 1) ? -1 : 1) : 0);
  while (y > 0)
    {
      if (y & 1)
        result *= base;
      base *= base;
      y >>= 1;
    }
  return (gint64) result;
}

/* ---- unary ops ---- */

#define E_ABS_F(T, U, M, x, P) M (fabs) (x)
#define E_ABS_S(T, U, M, x, P) ((x) < 0 ? (T) (0u - (U) (x)) : (x))
#define E_ID(T, U, M, x, P) (x)
#define E_NEG_F(T, U, M, x, P) (-(x))
#define E_NEG_S(T, U, M, x, P) ((T) (0u - (U) (x)))
#define E_SIGN(T, U, M, x, P) ((T) (((x) > 0) - ((x) < 0)))
#define E_SIGN_U(T, U, M, x, P) ((T) ((x) > 0))
#define E_RELU(T, U, M, x, P) ((x) < 0 ? (T) 0 : (x))
#define E_BITNOT(T, U, M, x, P) ((T) ~(U) (x))
#define E_NOT(T, U, M, x, P) ((x) == 0)
#define E_CEIL(T, U, M, x, P) M (ceil) (x)
#define E_FLOOR(T, U, M, x, P) M (floor) (x)
#define E_ROUND(T, U, M, x, P) M (nearbyint) (x)   /* half to even in the default rounding mode */
#define E_SQRT(T, U, M, x, P) M (sqrt) (x)
#define E_EXP(T, U, M, x, P) M (exp) (x)
#define E_LOG(T, U, M, x, P) M (log) (x)
#define E_ERF(T, U, M, x, P) M (erf) (x)
#define E_SIN(T, U, M, x, P) M (sin) (x)
#define E_COS(T, U, M, x, P) M (cos) (x)
#define E_TAN(T, U, M, x, P) M (tan) (x)
#define E_ASIN(T, U, M, x, P) M (asin) (x)
#define E_ACOS(T, U, M, x, P) M (acos) (x)
#define E_ATAN(T, U, M, x, P) M (atan) (x)
#define E_SINH(T, U, M, x, P) M (sinh) (x)
#define E_COSH(T, U, M, x, P) M (cosh) (x)
#define E_ASINH(T, U, M, x, P) M (asinh) (x)
#define E_ACOSH(T, U, M, x, P) M (acosh) (x)
#define E_ATANH(T, U, M, x, P) M (atanh) (x)
#define E_TANH(T, U, M, x, P) M (tanh) (x)
#define E_RECIP(T, U, M, x, P) ((T) 1 / (x))
#define E_SIGMOID(T, U, M, x, P) ((T) 1 / ((T) 1 + M (exp) (-(x))))
#define E_SOFTPLUS(T, U, M, x, P) M (softplus) (x)
#define E_SOFTSIGN(T, U, M, x, P) ((x) / ((T) 1 + M (fabs) (x)))
#define E_MISH(T, U, M, x, P) ((x) * M (tanh) (M (softplus) (x)))
#define E_ELU(T, U, M, x, P) ((x) < 0 ? (T) P->alpha * (M (exp) (x) - (T) 1) : (x))
#define E_CELU(T, U, M, x, P) ((x) > 0 ? (x) : (T) P->alpha * (M (exp) ((x) / (T) P->alpha) - (T) 1))
#define E_SELU(T, U, M, x, P) \
  ((T) P->gamma * ((x) > 0 ? (x) : (T) P->alpha * M (exp) (x) - (T) P->alpha))
#define E_LEAKY(T, U, M, x, P) ((x) >= 0 ? (x) : (T) P->alpha * (x))
#define E_THRESH(T, U, M, x, P) ((x) > (T) P->alpha ? (x) : (T) 0)
#define E_HARDSIG(T, U, M, x, P) M (clamp01) ((T) P->alpha * (x) + (T) P->beta)
#define E_HARDSWISH(T, U, M, x, P) ((x) * M (clamp01) ((x) * (T) (1.0 / 6.0) + (T) 0.5))
#define E_GELU(T, U, M, x, P) ((T) 0.5 * (x) * ((T) 1 + M (erf) ((x) * (T) 0.70710678118654752440)))
#define E_GELU_TANH(T, U, M, x, P) \
  ((T) 0.5 * (x) * ((T) 1 + M (tanh) ((T) 0.79788456080286535588 * ((x) + (T) 0.044715 * (x) * (x) * (x)))))
#define E_SHRINK_F(T, U, M, x, P) \
  ((x) < (T) -P->lambd ? (x) + (T) P->bias : ((x) > (T) P->lambd ? (x) - (T) P->bias : (T) 0))
#define E_SHRINK_I(T, U, M, x, P) \
  ((double) (x) < -P->lambd ? (T) fw_ew_f2i64 ((double) (x) + P->bias) \
   : ((double) (x) > P->lambd ? (T) fw_ew_f2i64 ((double) (x) - P->bias) : (T) 0))
#define E_ISNAN(T, U, M, x, P) ((x) != (x))
#define E_DIVN(T, U, M, x, P) ((x) / (T) P->beta)
/* Clip: max with the low bound first, then min with the high one, so low > high gives high. NaN stays. */
#define E_CLIP_F(T, U, M, x, P) \
  (((x) < (T) P->lo_f ? (T) P->lo_f : (x)) > (T) P->hi_f ? (T) P->hi_f : ((x) < (T) P->lo_f ? (T) P->lo_f : (x)))
#define E_CLIP_I(T, U, M, x, P) \
  (((x) < (T) P->lo_i ? (T) P->lo_i : (x)) > (T) P->hi_i ? (T) P->hi_i : ((x) < (T) P->lo_i ? (T) P->lo_i : (x)))

DEF_UNARY (FLOAT_TYPES, abs, E_ABS_F, OUT_SAME)
DEF_UNARY (SIGNED_TYPES, abs, E_ABS_S, OUT_SAME)
DEF_UNARY (UNSIGNED_TYPES, abs, E_ID, OUT_SAME)
DEF_UNARY (FLOAT_TYPES, neg, E_NEG_F, OUT_SAME)
DEF_UNARY (SIGNED_TYPES, neg, E_NEG_S, OUT_SAME)
DEF_UNARY (FLOAT_TYPES, sign, E_SIGN, OUT_SAME)
DEF_UNARY (SIGNED_TYPES, sign, E_SIGN, OUT_SAME)
DEF_UNARY (UNSIGNED_TYPES, sign, E_SIGN_U, OUT_SAME)
DEF_UNARY (FLOAT_TYPES, relu, E_RELU, OUT_SAME)
DEF_UNARY (SIGNED_TYPES, relu, E_RELU, OUT_SAME)
DEF_UNARY (SIGNED_TYPES, bitnot, E_BITNOT, OUT_SAME)
DEF_UNARY (UNSIGNED_TYPES, bitnot, E_BITNOT, OUT_SAME)
DEF_UNARY (BOOL_TYPES, lnot, E_NOT, OUT_BOOL)
DEF_UNARY (FLOAT_TYPES, ceil, E_CEIL, OUT_SAME)
DEF_UNARY (FLOAT_TYPES, floor, E_FLOOR, OUT_SAME)
DEF_UNARY (FLOAT_TYPES, round, E_ROUND, OUT_SAME)
DEF_UNARY (FLOAT_TYPES, sqrt, E_SQRT, OUT_SAME)
DEF_UNARY (FLOAT_TYPES, exp, E_EXP, OUT_SAME)
DEF_UNARY (FLOAT_TYPES, log, E_LOG, OUT_SAME)
DEF_UNARY (FLOAT_TYPES, erf, E_ERF, OUT_SAME)
DEF_UNARY (FLOAT_TYPES, sin, E_SIN, OUT_SAME)
DEF_UNARY (FLOAT_TYPES, cos, E_COS, OUT_SAME)
DEF_UNARY (FLOAT_TYPES, tan, E_TAN, OUT_SAME)
DEF_UNARY (FLOAT_TYPES, asin, E_ASIN, OUT_SAME)
DEF_UNARY (FLOAT_TYPES, acos, E_ACOS, OUT_SAME)
DEF_UNARY (FLOAT_TYPES, atan, E_ATAN, OUT_SAME)
DEF_UNARY (FLOAT_TYPES, sinh, E_SINH, OUT_SAME)
DEF_UNARY (FLOAT_TYPES, cosh, E_COSH, OUT_SAME)
DEF_UNARY (FLOAT_TYPES, asinh, E_ASINH, OUT_SAME)
DEF_UNARY (FLOAT_TYPES, acosh, E_ACOSH, OUT_SAME)
DEF_UNARY (FLOAT_TYPES, atanh, E_ATANH, OUT_SAME)
DEF_UNARY (FLOAT_TYPES, tanh, E_TANH, OUT_SAME)
DEF_UNARY (FLOAT_TYPES, recip, E_RECIP, OUT_SAME)
DEF_UNARY (FLOAT_TYPES, sigmoid, E_SIGMOID, OUT_SAME)
DEF_UNARY (FLOAT_TYPES, softplus, E_SOFTPLUS, OUT_SAME)
DEF_UNARY (FLOAT_TYPES, softsign, E_SOFTSIGN, OUT_SAME)
DEF_UNARY (FLOAT_TYPES, mish, E_MISH, OUT_SAME)
DEF_UNARY (FLOAT_TYPES, elu, E_ELU, OUT_SAME)
DEF_UNARY (FLOAT_TYPES, celu, E_CELU, OUT_SAME)
DEF_UNARY (FLOAT_TYPES, selu, E_SELU, OUT_SAME)
DEF_UNARY (FLOAT_TYPES, leaky, E_LEAKY, OUT_SAME)
DEF_UNARY (FLOAT_TYPES, thresh, E_THRESH, OUT_SAME)
DEF_UNARY (FLOAT_TYPES, hardsig, E_HARDSIG, OUT_SAME)
DEF_UNARY (FLOAT_TYPES, hardswish, E_HARDSWISH, OUT_SAME)
DEF_UNARY (FLOAT_TYPES, gelu, E_GELU, OUT_SAME)
DEF_UNARY (FLOAT_TYPES, gelu_tanh, E_GELU_TANH, OUT_SAME)
DEF_UNARY (FLOAT_TYPES, shrink, E_SHRINK_F, OUT_SAME)
DEF_UNARY (SIGNED_TYPES, shrink, E_SHRINK_I, OUT_SAME)
DEF_UNARY (UNSIGNED_TYPES, shrink, E_SHRINK_I, OUT_SAME)
DEF_UNARY (FLOAT_TYPES, isnan, E_ISNAN, OUT_BOOL)
DEF_UNARY (FLOAT_TYPES, divn, E_DIVN, OUT_SAME)
DEF_UNARY (FLOAT_TYPES, clip, E_CLIP_F, OUT_SAME)
DEF_UNARY (SIGNED_TYPES, clip, E_CLIP_I, OUT_SAME)
DEF_UNARY (UNSIGNED_TYPES, clip, E_CLIP_I, OUT_SAME)

/* isinf is a type-generic macro, not a family of functions. */
#define E_ISINF_G(T, U, M, x, P) (isinf (x) && ((x) > 0 ? P->detect_pos : P->detect_neg))
DEF_UNARY (FLOAT_TYPES, isinf, E_ISINF_G, OUT_BOOL)

#define FLOAT_OP(op) { .fn = { UNARY_ENTRIES (FLOAT_TYPES, op) } }

static const UnaryOp op_abs = { .fn = { UNARY_ENTRIES (FLOAT_TYPES, abs) UNARY_ENTRIES (SIGNED_TYPES, abs)
                                        UNARY_ENTRIES (UNSIGNED_TYPES, abs) } };
static const UnaryOp op_neg = { .fn = { UNARY_ENTRIES (FLOAT_TYPES, neg) UNARY_ENTRIES (SIGNED_TYPES, neg) } };
static const UnaryOp op_sign = { .fn = { UNARY_ENTRIES (FLOAT_TYPES, sign) UNARY_ENTRIES (SIGNED_TYPES, sign)
                                         UNARY_ENTRIES (UNSIGNED_TYPES, sign) } };
static const UnaryOp op_relu = { .fn = { UNARY_ENTRIES (FLOAT_TYPES, relu) UNARY_ENTRIES (SIGNED_TYPES, relu) } };
static const UnaryOp op_bitnot = { .fn = { UNARY_ENTRIES (SIGNED_TYPES, bitnot)
                                           UNARY_ENTRIES (UNSIGNED_TYPES, bitnot) } };
static const UnaryOp op_not = { .fn = { UNARY_ENTRIES (BOOL_TYPES, lnot) }, .bool_out = TRUE };
static const UnaryOp op_shrink = { .fn = { UNARY_ENTRIES (FLOAT_TYPES, shrink) UNARY_ENTRIES (SIGNED_TYPES, shrink)
                                           UNARY_ENTRIES (UNSIGNED_TYPES, shrink) } };
static const UnaryOp op_clip = { .fn = { UNARY_ENTRIES (FLOAT_TYPES, clip) UNARY_ENTRIES (SIGNED_TYPES, clip)
                                         UNARY_ENTRIES (UNSIGNED_TYPES, clip) } };
static const UnaryOp op_isnan = { .fn = { UNARY_ENTRIES (FLOAT_TYPES, isnan) }, .bool_out = TRUE };
static const UnaryOp op_isinf = { .fn = { UNARY_ENTRIES (FLOAT_TYPES, isinf) }, .bool_out = TRUE };
static const UnaryOp op_ceil = FLOAT_OP (ceil);
static const UnaryOp op_floor = FLOAT_OP (floor);
static const UnaryOp op_round = FLOAT_OP (round);
static const UnaryOp op_sqrt = FLOAT_OP (sqrt);
static const UnaryOp op_exp = FLOAT_OP (exp);
static const UnaryOp op_log = FLOAT_OP (log);
static const UnaryOp op_erf = FLOAT_OP (erf);
static const UnaryOp op_sin = FLOAT_OP (sin);
static const UnaryOp op_cos = FLOAT_OP (cos);
static const UnaryOp op_tan = FLOAT_OP (tan);
static const UnaryOp op_asin = FLOAT_OP (asin);
static const UnaryOp op_acos = FLOAT_OP (acos);
static const UnaryOp op_atan = FLOAT_OP (atan);
static const UnaryOp op_sinh = FLOAT_OP (sinh);
static const UnaryOp op_cosh = FLOAT_OP (cosh);
static const UnaryOp op_asinh = FLOAT_OP (asinh);
static const UnaryOp op_acosh = FLOAT_OP (acosh);
static const UnaryOp op_atanh = FLOAT_OP (atanh);
static const UnaryOp op_tanh = FLOAT_OP (tanh);
static const UnaryOp op_recip = FLOAT_OP (recip);
static const UnaryOp op_sigmoid = FLOAT_OP (sigmoid);
static const UnaryOp op_softplus = FLOAT_OP (softplus);
static const UnaryOp op_softsign = FLOAT_OP (softsign);
static const UnaryOp op_mish = FLOAT_OP (mish);
static const UnaryOp op_elu = FLOAT_OP (elu);
static const UnaryOp op_celu = FLOAT_OP (celu);
static const UnaryOp op_selu = FLOAT_OP (selu);
static const UnaryOp op_leaky = FLOAT_OP (leaky);
static const UnaryOp op_thresh = FLOAT_OP (thresh);
static const UnaryOp op_hardsig = FLOAT_OP (hardsig);
static const UnaryOp op_hardswish = FLOAT_OP (hardswish);
static const UnaryOp op_gelu = FLOAT_OP (gelu);
static const UnaryOp op_gelu_tanh = FLOAT_OP (gelu_tanh);
static const UnaryOp op_divn = FLOAT_OP (divn);

/* ---- binary ops ---- */

#define E_ADD(T, U, M, x, y, P) ((T) ((U) (x) + (U) (y)))
#define E_SUB(T, U, M, x, y, P) ((T) ((U) (x) - (U) (y)))
#define E_MUL(T, U, M, x, y, P) ((T) ((U) (x) * (U) (y)))
#define E_DIV_F(T, U, M, x, y, P) ((x) / (y))
#define E_DIV_S(T, U, M, x, y, P) ((T) sdiv64 ((x), (y)))
#define E_DIV_U(T, U, M, x, y, P) ((y) == 0 ? (T) 0 : (T) ((x) / (y)))
#define E_FMOD_F(T, U, M, x, y, P) M (fmod) ((x), (y))
#define E_FMOD_S(T, U, M, x, y, P) ((T) smod64 ((x), (y), TRUE))
#define E_MOD_S(T, U, M, x, y, P) ((T) smod64 ((x), (y), FALSE))
#define E_MOD_U(T, U, M, x, y, P) ((y) == 0 ? (T) 0 : (T) ((x) % (y)))
#define E_POW_F(T, U, M, x, y, P) M (pow) ((x), (y))
#define E_POW_I(T, U, M, x, y, P) ((T) ipow64 ((x), (y)))
/* NaN propagates, as in ONNX Runtime. */
#define E_MAX_F(T, U, M, x, y, P) (((x) != (x) || (x) > (y)) ? (x) : (y))
#define E_MIN_F(T, U, M, x, y, P) (((x) != (x) || (x) < (y)) ? (x) : (y))
#define E_MAX_I(T, U, M, x, y, P) ((x) > (y) ? (x) : (y))
#define E_MIN_I(T, U, M, x, y, P) ((x) < (y) ? (x) : (y))
#define E_BITAND(T, U, M, x, y, P) ((T) ((U) (x) & (U) (y)))
#define E_BITOR(T, U, M, x, y, P) ((T) ((U) (x) | (U) (y)))
#define E_BITXOR(T, U, M, x, y, P) ((T) ((U) (x) ^ (U) (y)))
#define E_SHL(T, U, M, x, y, P) ((y) >= sizeof (T) * 8 ? (T) 0 : (T) ((U) (x) << (y)))
#define E_SHR(T, U, M, x, y, P) ((y) >= sizeof (T) * 8 ? (T) 0 : (T) ((U) (x) >> (y)))
#define E_AND(T, U, M, x, y, P) ((x) != 0 && (y) != 0)
#define E_OR(T, U, M, x, y, P) ((x) != 0 || (y) != 0)
#define E_XOR(T, U, M, x, y, P) (((x) != 0) != ((y) != 0))
#define E_EQ(T, U, M, x, y, P) ((x) == (y))
#define E_GT(T, U, M, x, y, P) ((x) > (y))
#define E_GE(T, U, M, x, y, P) ((x) >= (y))
#define E_LT(T, U, M, x, y, P) ((x) < (y))
#define E_LE(T, U, M, x, y, P) ((x) <= (y))
#define E_PRELU_F(T, U, M, x, y, P) ((x) < 0 ? (x) * (y) : (x))
#define E_PRELU_S(T, U, M, x, y, P) ((x) < 0 ? (T) ((U) (x) * (U) (y)) : (x))
#define E_PRELU_U(T, U, M, x, y, P) ((void) (y), (x))

#define NUMERIC_TYPES(X, ...) FLOAT_TYPES (X, __VA_ARGS__) SIGNED_TYPES (X, __VA_ARGS__) UNSIGNED_TYPES (X, __VA_ARGS__)
#define INT_TYPES(X, ...) SIGNED_TYPES (X, __VA_ARGS__) UNSIGNED_TYPES (X, __VA_ARGS__)
#define ALL_TYPES(X, ...) NUMERIC_TYPES (X, __VA_ARGS__) BOOL_TYPES (X, __VA_ARGS__)

DEF_BINARY (NUMERIC_TYPES, add, E_ADD, OUT_SAME)
DEF_BINARY (NUMERIC_TYPES, sub, E_SUB, OUT_SAME)
DEF_BINARY (NUMERIC_TYPES, mul, E_MUL, OUT_SAME)
DEF_BINARY (FLOAT_TYPES, div, E_DIV_F, OUT_SAME)
DEF_BINARY (SIGNED_TYPES, div, E_DIV_S, OUT_SAME)
DEF_BINARY (UNSIGNED_TYPES, div, E_DIV_U, OUT_SAME)
DEF_BINARY (FLOAT_TYPES, fmod, E_FMOD_F, OUT_SAME)
DEF_BINARY (SIGNED_TYPES, fmod, E_FMOD_S, OUT_SAME)
DEF_BINARY (UNSIGNED_TYPES, fmod, E_MOD_U, OUT_SAME)
DEF_BINARY (SIGNED_TYPES, mod, E_MOD_S, OUT_SAME)
DEF_BINARY (UNSIGNED_TYPES, mod, E_MOD_U, OUT_SAME)
DEF_BINARY (FLOAT_TYPES, pow, E_POW_F, OUT_SAME)
DEF_BINARY (SIGNED_TYPES, pow, E_POW_I, OUT_SAME)
DEF_BINARY (FLOAT_TYPES, max, E_MAX_F, OUT_SAME)
DEF_BINARY (INT_TYPES, max, E_MAX_I, OUT_SAME)
DEF_BINARY (FLOAT_TYPES, min, E_MIN_F, OUT_SAME)
DEF_BINARY (INT_TYPES, min, E_MIN_I, OUT_SAME)
DEF_BINARY (INT_TYPES, bitand, E_BITAND, OUT_SAME)
DEF_BINARY (INT_TYPES, bitor, E_BITOR, OUT_SAME)
DEF_BINARY (INT_TYPES, bitxor, E_BITXOR, OUT_SAME)
DEF_BINARY (UNSIGNED_TYPES, shl, E_SHL, OUT_SAME)
DEF_BINARY (UNSIGNED_TYPES, shr, E_SHR, OUT_SAME)
DEF_BINARY (BOOL_TYPES, land, E_AND, OUT_BOOL)
DEF_BINARY (BOOL_TYPES, lor, E_OR, OUT_BOOL)
DEF_BINARY (BOOL_TYPES, lxor, E_XOR, OUT_BOOL)
DEF_BINARY (ALL_TYPES, eq, E_EQ, OUT_BOOL)
DEF_BINARY (NUMERIC_TYPES, gt, E_GT, OUT_BOOL)
DEF_BINARY (NUMERIC_TYPES, ge, E_GE, OUT_BOOL)
DEF_BINARY (NUMERIC_TYPES, lt, E_LT, OUT_BOOL)
DEF_BINARY (NUMERIC_TYPES, le, E_LE, OUT_BOOL)
DEF_BINARY (FLOAT_TYPES, prelu, E_PRELU_F, OUT_SAME)
DEF_BINARY (SIGNED_TYPES, prelu, E_PRELU_S, OUT_SAME)
DEF_BINARY (UNSIGNED_TYPES, prelu, E_PRELU_U, OUT_SAME)

static const BinaryOp op_add = { .fn = { BINARY_ENTRIES (NUMERIC_TYPES, add) } };
static const BinaryOp op_sub = { .fn = { BINARY_ENTRIES (NUMERIC_TYPES, sub) } };
static const BinaryOp op_mul = { .fn = { BINARY_ENTRIES (NUMERIC_TYPES, mul) } };
static const BinaryOp op_div = { .fn = { BINARY_ENTRIES (NUMERIC_TYPES, div) } };
static const BinaryOp op_fmod = { .fn = { BINARY_ENTRIES (NUMERIC_TYPES, fmod) } };
static const BinaryOp op_mod = { .fn = { BINARY_ENTRIES (INT_TYPES, mod) } };
static const BinaryOp op_pow = { .fn = { BINARY_ENTRIES (FLOAT_TYPES, pow) BINARY_ENTRIES (SIGNED_TYPES, pow) } };
static const BinaryOp op_max = { .fn = { BINARY_ENTRIES (NUMERIC_TYPES, max) } };
static const BinaryOp op_min = { .fn = { BINARY_ENTRIES (NUMERIC_TYPES, min) } };
static const BinaryOp op_bitand = { .fn = { BINARY_ENTRIES (INT_TYPES, bitand) } };
static const BinaryOp op_bitor = { .fn = { BINARY_ENTRIES (INT_TYPES, bitor) } };
static const BinaryOp op_bitxor = { .fn = { BINARY_ENTRIES (INT_TYPES, bitxor) } };
static const BinaryOp op_shl = { .fn = { BINARY_ENTRIES (UNSIGNED_TYPES, shl) } };
static const BinaryOp op_shr = { .fn = { BINARY_ENTRIES (UNSIGNED_TYPES, shr) } };
static const BinaryOp op_and = { .fn = { BINARY_ENTRIES (BOOL_TYPES, land) }, .bool_out = TRUE };
static const BinaryOp op_or = { .fn = { BINARY_ENTRIES (BOOL_TYPES, lor) }, .bool_out = TRUE };
static const BinaryOp op_xor = { .fn = { BINARY_ENTRIES (BOOL_TYPES, lxor) }, .bool_out = TRUE };
static const BinaryOp op_eq = { .fn = { BINARY_ENTRIES (ALL_TYPES, eq) }, .bool_out = TRUE };
static const BinaryOp op_gt = { .fn = { BINARY_ENTRIES (NUMERIC_TYPES, gt) }, .bool_out = TRUE };
static const BinaryOp op_ge = { .fn = { BINARY_ENTRIES (NUMERIC_TYPES, ge) }, .bool_out = TRUE };
static const BinaryOp op_lt = { .fn = { BINARY_ENTRIES (NUMERIC_TYPES, lt) }, .bool_out = TRUE };
static const BinaryOp op_le = { .fn = { BINARY_ENTRIES (NUMERIC_TYPES, le) }, .bool_out = TRUE };
static const BinaryOp op_prelu = { .fn = { BINARY_ENTRIES (NUMERIC_TYPES, prelu) } };

/* ---- Where: a selection, so by element size, not by type ---- */

#define DEF_WHERE(bits, T) \
  static void \
  where_##bits (const void *const *in, const gint64 *st, void *out, gint64 n, const Params *P) \
  { \
    const guint8 *c = in[0]; \
    const T *x = in[1], *y = in[2]; \
    T *o = out; \
    gint64 s0 = st[0], s1 = st[1], s2 = st[2]; \
    (void) P; \
    _Pragma ("omp simd") \
    for (gint64 i = 0; i < n; i++) \
      o[i] = c[i * s0] ? x[i * s1] : y[i * s2]; \
  }
DEF_WHERE (8, guint8)
DEF_WHERE (16, guint16)
DEF_WHERE (32, guint32)
DEF_WHERE (64, guint64)

#define KERNEL_ARGS \
  FwExecContext *ctx, const FwNode *node, FwArray *const *inputs, guint n_inputs, FwArray **outputs, \
  guint n_outputs, GError **error
#define PASS_ARGS ctx, node, inputs, n_inputs, outputs, n_outputs

#define PLAIN_UNARY(name, op) \
  static gboolean k_##name (KERNEL_ARGS) \
  { \
    Params p = { 0 }; \
    return fw_ew_unary_kernel (PASS_ARGS, &op, &p, error); \
  }
#define PLAIN_BINARY(name, op) \
  static gboolean k_##name (KERNEL_ARGS) \
  { \
    Params p = { 0 }; \
    return fw_ew_binary_kernel (PASS_ARGS, &op, &p, error); \
  }

PLAIN_UNARY (abs, op_abs)
PLAIN_UNARY (acos, op_acos)
PLAIN_UNARY (acosh, op_acosh)
PLAIN_UNARY (asin, op_asin)
PLAIN_UNARY (asinh, op_asinh)
PLAIN_UNARY (atan, op_atan)
PLAIN_UNARY (atanh, op_atanh)
PLAIN_UNARY (bitnot, op_bitnot)
PLAIN_UNARY (ceil, op_ceil)
PLAIN_UNARY (cos, op_cos)
PLAIN_UNARY (cosh, op_cosh)
PLAIN_UNARY (erf, op_erf)
PLAIN_UNARY (exp, op_exp)
PLAIN_UNARY (floor, op_floor)
PLAIN_UNARY (isnan, op_isnan)
PLAIN_UNARY (log, op_log)
PLAIN_UNARY (mish, op_mish)
PLAIN_UNARY (neg, op_neg)
PLAIN_UNARY (not, op_not)
PLAIN_UNARY (recip, op_recip)
PLAIN_UNARY (relu, op_relu)
PLAIN_UNARY (round, op_round)
PLAIN_UNARY (sigmoid, op_sigmoid)
PLAIN_UNARY (sign, op_sign)
PLAIN_UNARY (sin, op_sin)
PLAIN_UNARY (sinh, op_sinh)
PLAIN_UNARY (softplus, op_softplus)
PLAIN_UNARY (softsign, op_softsign)
PLAIN_UNARY (sqrt, op_sqrt)
PLAIN_UNARY (tan, op_tan)
PLAIN_UNARY (tanh, op_tanh)
PLAIN_UNARY (hardswish, op_hardswish)

PLAIN_BINARY (add, op_add)
PLAIN_BINARY (sub, op_sub)
PLAIN_BINARY (mul, op_mul)
PLAIN_BINARY (div, op_div)
PLAIN_BINARY (and, op_and)
PLAIN_BINARY (or, op_or)
PLAIN_BINARY (xor, op_xor)
PLAIN_BINARY (bitand, op_bitand)
PLAIN_BINARY (bitor, op_bitor)
PLAIN_BINARY (bitxor, op_bitxor)
PLAIN_BINARY (equal, op_eq)
PLAIN_BINARY (greater, op_gt)
PLAIN_BINARY (greater_equal, op_ge)
PLAIN_BINARY (less, op_lt)
PLAIN_BINARY (less_equal, op_le)

/* Activations with alpha (and beta, gamma) attributes and ONNX's defaults. */
#define ALPHA_UNARY(name, op, a_default, b_default, g_default) \
  static gboolean k_##name (KERNEL_ARGS) \
  { \
    Params p = { 0 }; \
    p.alpha = fw_node_get_attr_float (node, "alpha", a_default); \
    p.beta = fw_node_get_attr_float (node, "beta", b_default); \
    p.gamma = fw_node_get_attr_float (node, "gamma", g_default); \
    return fw_ew_unary_kernel (PASS_ARGS, &op, &p, error); \
  }

ALPHA_UNARY (elu, op_elu, 1.0f, 0.0f, 0.0f)
ALPHA_UNARY (celu, op_celu, 1.0f, 0.0f, 0.0f)
ALPHA_UNARY (selu, op_selu, 1.67326319217681884765625f, 0.0f, 1.05070102214813232421875f)
ALPHA_UNARY (leaky_relu, op_leaky, 0.01f, 0.0f, 0.0f)
ALPHA_UNARY (thresholded_relu, op_thresh, 1.0f, 0.0f, 0.0f)
ALPHA_UNARY (hard_sigmoid, op_hardsig, 0.2f, 0.5f, 0.0f)

static gboolean
k_celu_check (KERNEL_ARGS)
{
  if (fw_node_get_attr_float (node, "alpha", 1.0f) == 0.0f)
    return fw_kernel_fail (error, node, _("attribute “alpha” must not be 0"));
  return k_celu (PASS_ARGS, error);
}

static gboolean
k_shrink (KERNEL_ARGS)
{
  Params p = { 0 };

  p.bias = fw_node_get_attr_float (node, "bias", 0.0f);
  p.lambd = fw_node_get_attr_float (node, "lambd", 0.5f);
  return fw_ew_unary_kernel (PASS_ARGS, &op_shrink, &p, error);
}

static gboolean
k_isinf (KERNEL_ARGS)
{
  Params p = { 0 };

  p.detect_pos = fw_node_get_attr_int (node, "detect_positive", 1) != 0;
  p.detect_neg = fw_node_get_attr_int (node, "detect_negative", 1) != 0;
  return fw_ew_unary_kernel (PASS_ARGS, &op_isinf, &p, error);
}

static gboolean
k_gelu (KERNEL_ARGS)
{
  Params p = { 0 };
  const char *approximate = fw_node_get_attr_string (node, "approximate");

  if (approximate == NULL || strcmp (approximate, "none") == 0)
    return fw_ew_unary_kernel (PASS_ARGS, &op_gelu, &p, error);
  if (strcmp (approximate, "tanh") == 0)
    return fw_ew_unary_kernel (PASS_ARGS, &op_gelu_tanh, &p, error);
  return fw_kernel_fail (error, node, _("attribute “approximate” must be “none” or “tanh”"));
}

static gboolean
k_identity (KERNEL_ARGS)
{
  if (!fw_ew_need_inputs (node, inputs, n_inputs, 1, n_outputs, error))
    return FALSE;
  outputs[0] = fw_array_ref (inputs[0]);
  return TRUE;
}

/* Inference only: the input passes through and the mask, when asked for, is all true (ones of the
 * input's type before opset 10, where the mask had the input's type). */
static gboolean
k_dropout (KERNEL_ARGS)
{
  FwArray *x;
  gboolean training = FALSE;
  double ratio = fw_node_get_attr_float (node, "ratio", 0.5f);

  if (!fw_ew_need_inputs (node, inputs, n_inputs, 1, n_outputs, error))
    return FALSE;
  x = inputs[0];
  if (n_inputs > 1 && inputs[1] != NULL && inputs[1]->n_elements > 0)
    ratio = fw_array_get_double (inputs[1], 0);
  if (n_inputs > 2 && inputs[2] != NULL && inputs[2]->n_elements > 0)
    training = fw_array_get_double (inputs[2], 0) != 0.0;
  if (training && ratio != 0.0)
    return fw_kernel_fail (error, node, _("training-mode Dropout is random and cannot be computed here"));
  if (n_outputs > 1 && node->outputs[1] != NULL)
    {
      gboolean old_mask = node->opset > 0 && node->opset < 10;
      FwArray *mask = fw_ew_new_output (node, old_mask ? x->dtype : FW_DTYPE_BOOL, x->rank, x->dims, error);

      if (mask == NULL)
        return FALSE;
      if (!old_mask)
        memset (mask->data, 1, mask->n_elements);
      else
        for (gint64 i = 0; i < mask->n_elements; i++)
          fw_array_set_double (mask, i, 1.0);
      outputs[1] = mask;
    }
  outputs[0] = fw_array_ref (x);
  return TRUE;
}

static gboolean
do_cast (FwExecContext *ctx, const FwNode *node, FwArray *x, FwDType to, FwArray **outputs, GError **error)
{
  if (!fw_ew_cast_supported (x->dtype) || !fw_ew_cast_supported (to))
    {
      g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED, _("node “%s” (%s): casting %s to %s is not supported"),
                   node->name ? node->name : "", node->op_type, fw_dtype_name (x->dtype), fw_dtype_name (to));
      return FALSE;
    }
  outputs[0] = fw_ew_cast_array (ctx, node, x, to, error);
  return outputs[0] != NULL;
}

/* saturate only concerns float8 targets, which are refused, so it is ignored. */
static gboolean
k_cast (KERNEL_ARGS)
{
  gint64 to = fw_node_get_attr_int (node, "to", 0);

  if (!fw_ew_need_inputs (node, inputs, n_inputs, 1, n_outputs, error))
    return FALSE;
  if (!fw_dtype_is_valid (to) || to == FW_DTYPE_UNDEFINED)
    return fw_kernel_fail (error, node, _("attribute “to” must be a valid data type"));
  return do_cast (ctx, node, inputs[0], (FwDType) to, outputs, error);
}

static gboolean
k_cast_like (KERNEL_ARGS)
{
  if (!fw_ew_need_inputs (node, inputs, n_inputs, 2, n_outputs, error))
    return FALSE;
  return do_cast (ctx, node, inputs[0], inputs[1]->dtype, outputs, error);
}

static void
int_range (FwDType dtype, gint64 *lo, gint64 *hi)
{
  switch (dtype)
    {
    case FW_DTYPE_INT8: *lo = G_MININT8; *hi = G_MAXINT8; break;
    case FW_DTYPE_INT16: *lo = G_MININT16; *hi = G_MAXINT16; break;
    case FW_DTYPE_INT32: *lo = G_MININT32; *hi = G_MAXINT32; break;
    case FW_DTYPE_UINT8: *lo = 0; *hi = G_MAXUINT8; break;
    case FW_DTYPE_UINT16: *lo = 0; *hi = G_MAXUINT16; break;
    case FW_DTYPE_UINT32: *lo = 0; *hi = G_MAXUINT32; break;
    case FW_DTYPE_UINT64: *lo = 0; *hi = -1; break;   /* the bit pattern of G_MAXUINT64 */
    default: *lo = G_MININT64; *hi = G_MAXINT64; break;
    }
}

/* A Clip bound input (opset 11 on): an optional scalar of the input's type. */
static gboolean
clip_bound (const FwNode *node, FwArray *x, FwArray *bound, double *f, gint64 *i, GError **error)
{
  if (bound == NULL)
    return TRUE;
  if (bound->dtype != x->dtype)
    return fw_kernel_fail (error, node, _("the bounds must have the input's type %s, not %s"),
                           fw_dtype_name (x->dtype), fw_dtype_name (bound->dtype));
  if (bound->n_elements != 1)
    return fw_kernel_fail (error, node, _("the bounds must be scalars"));
  if (x->dtype == FW_DTYPE_UINT64)
    *i = (gint64) ((const guint64 *) bound->data)[0];
  else if (fw_dtype_is_integer (x->dtype))
    *i = fw_array_get_int64 (bound, 0);
  else
    *f = fw_array_get_double (bound, 0);
  return TRUE;
}

static gboolean
k_clip (KERNEL_ARGS)
{
  Params p = { 0 };
  FwArray *x;

  if (!fw_ew_need_inputs (node, inputs, n_inputs, 1, n_outputs, error))
    return FALSE;
  x = inputs[0];
  p.lo_f = -INFINITY;
  p.hi_f = INFINITY;
  int_range (x->dtype, &p.lo_i, &p.hi_i);
  if (node->opset > 0 && node->opset < 11)
    {
      if (!fw_dtype_is_float (x->dtype))
        return fw_ew_unsupported_type (error, node, x->dtype);
      p.lo_f = fw_node_get_attr_float (node, "min", -FLT_MAX);
      p.hi_f = fw_node_get_attr_float (node, "max", FLT_MAX);
    }
  else if (!clip_bound (node, x, n_inputs > 1 ? inputs[1] : NULL, &p.lo_f, &p.lo_i, error)
           || !clip_bound (node, x, n_inputs > 2 ? inputs[2] : NULL, &p.hi_f, &p.hi_i, error))
    return FALSE;
  return fw_ew_unary_kernel (PASS_ARGS, &op_clip, &p, error);
}

static gboolean
k_mod (KERNEL_ARGS)
{
  Params p = { 0 };
  gboolean c_fmod = fw_node_get_attr_int (node, "fmod", 0) != 0;

  if (!fw_ew_need_inputs (node, inputs, n_inputs, 2, n_outputs, error))
    return FALSE;
  if (!c_fmod && fw_dtype_is_float (inputs[0]->dtype))
    return fw_kernel_fail (error, node, _("floating-point Mod needs the attribute fmod = 1"));
  return fw_ew_binary_kernel (PASS_ARGS, c_fmod ? &op_fmod : &op_mod, &p, error);
}

static gboolean
k_bitshift (KERNEL_ARGS)
{
  Params p = { 0 };
  const char *direction = fw_node_get_attr_string (node, "direction");

  if (direction != NULL && strcmp (direction, "LEFT") == 0)
    return fw_ew_binary_kernel (PASS_ARGS, &op_shl, &p, error);
  if (direction != NULL && strcmp (direction, "RIGHT") == 0)
    return fw_ew_binary_kernel (PASS_ARGS, &op_shr, &p, error);
  return fw_kernel_fail (error, node, _("attribute “direction” must be “LEFT” or “RIGHT”"));
}

static gboolean
k_prelu (KERNEL_ARGS)
{
  Params p = { 0 };

  if (!fw_ew_need_inputs (node, inputs, n_inputs, 2, n_outputs, error))
    return FALSE;
  if (!fw_ew_binary_kernel (PASS_ARGS, &op_prelu, &p, error))
    return FALSE;
  /* The slope broadcasts to X, never X to the slope's shape. */
  if (!fw_array_same_shape (outputs[0], inputs[0]))
    {
      g_clear_pointer (&outputs[0], fw_array_unref);
      return fw_kernel_fail (error, node, _("the slope does not broadcast to the input's shape"));
    }
  return TRUE;
}

/* Pow's exponent may have another type than the base: both are brought to one compute type (float32 for
 * 16- and 32-bit float bases, float64, int64 for integer powers, float64 for an integer base with a float
 * exponent) and the result cast back to the base's type. */
static gboolean
k_pow (KERNEL_ARGS)
{
  Params p = { 0 };
  FwArray *x, *y;
  FwDType compute, out_dtype;
  g_autoptr(FwArray) xc = NULL;
  g_autoptr(FwArray) yc = NULL;
  g_autoptr(FwArray) r = NULL;

  if (!fw_ew_need_inputs (node, inputs, n_inputs, 2, n_outputs, error))
    return FALSE;
  x = inputs[0];
  y = inputs[1];
  out_dtype = x->dtype;
  if (x->dtype == FW_DTYPE_BOOL || !fw_ew_cast_supported (x->dtype))
    return fw_ew_unsupported_type (error, node, x->dtype);
  if (y->dtype == FW_DTYPE_BOOL || !fw_ew_cast_supported (y->dtype))
    return fw_ew_unsupported_type (error, node, y->dtype);
  if (x->dtype == FW_DTYPE_FLOAT || fw_ew_is_half (x->dtype))
    compute = FW_DTYPE_FLOAT;
  else if (x->dtype == FW_DTYPE_DOUBLE || fw_dtype_is_float (y->dtype))
    compute = FW_DTYPE_DOUBLE;
  else
    compute = FW_DTYPE_INT64;
  xc = fw_ew_cast_array (ctx, node, x, compute, error);
  yc = xc ? fw_ew_cast_array (ctx, node, y, compute, error) : NULL;
  if (yc == NULL)
    return FALSE;
  r = fw_ew_run_binary (ctx, node, xc, yc, &op_pow, &p, error);
  if (r == NULL)
    return FALSE;
  outputs[0] = fw_ew_cast_array (ctx, node, r, out_dtype, error);
  return outputs[0] != NULL;
}

/* Variadic Sum, Mean, Max, Min: folded pairwise, each step broadcasting into the growing result. */
static gboolean
variadic (FwExecContext *ctx, const FwNode *node, FwArray *const *inputs, guint n_inputs, FwArray **outputs,
          guint n_outputs, const BinaryOp *op, gboolean mean, GError **error)
{
  Params p = { 0 };
  g_autoptr(FwArray) acc = NULL;

  if (!fw_ew_need_inputs (node, inputs, n_inputs, 1, n_outputs, error))
    return FALSE;
  for (guint i = 1; i < n_inputs; i++)
    {
      if (inputs[i] == NULL)
        return fw_kernel_fail (error, node, _("input %u is missing"), i);
      if (inputs[i]->dtype != inputs[0]->dtype)
        return fw_kernel_fail (error, node, _("the inputs have different types, %s and %s"),
                               fw_dtype_name (inputs[0]->dtype), fw_dtype_name (inputs[i]->dtype));
    }
  if (mean && !fw_dtype_is_float (inputs[0]->dtype))
    return fw_ew_unsupported_type (error, node, inputs[0]->dtype);
  if (op->fn[inputs[0]->dtype] == NULL && !(fw_ew_is_half (inputs[0]->dtype) && op->fn[FW_DTYPE_FLOAT] != NULL))
    return fw_ew_unsupported_type (error, node, inputs[0]->dtype);
  acc = fw_array_ref (inputs[0]);
  for (guint i = 1; i < n_inputs; i++)
    {
      FwArray *next = fw_ew_run_binary (ctx, node, acc, inputs[i], op, &p, error);

      if (next == NULL)
        return FALSE;
      fw_array_unref (acc);
      acc = next;
    }
  if (mean && n_inputs > 1)
    {
      FwArray *next;

      p.beta = n_inputs;
      next = fw_ew_run_unary (ctx, node, acc, &op_divn, &p, error);
      if (next == NULL)
        return FALSE;
      fw_array_unref (acc);
      acc = next;
    }
  outputs[0] = g_steal_pointer (&acc);
  return TRUE;
}

static gboolean
k_sum (KERNEL_ARGS)
{
  return variadic (PASS_ARGS, &op_add, FALSE, error);
}

static gboolean
k_mean (KERNEL_ARGS)
{
  return variadic (PASS_ARGS, &op_add, TRUE, error);
}

static gboolean
k_max (KERNEL_ARGS)
{
  return variadic (PASS_ARGS, &op_max, FALSE, error);
}

static gboolean
k_min (KERNEL_ARGS)
{
  return variadic (PASS_ARGS, &op_min, FALSE, error);
}

static gboolean
k_where (KERNEL_ARGS)
{
  FwArray *c, *x, *y;
  gint64 dims[FW_MAX_RANK], dims2[FW_MAX_RANK];
  guint rank, rank2;
  RowFn fn;
  FwArray *out;
  Walk w;
  Params p = { 0 };

  if (!fw_ew_need_inputs (node, inputs, n_inputs, 3, n_outputs, error))
    return FALSE;
  c = inputs[0];
  x = inputs[1];
  y = inputs[2];
  if (c->dtype != FW_DTYPE_BOOL)
    return fw_kernel_fail (error, node, _("the condition must be bool, not %s"), fw_dtype_name (c->dtype));
  if (x->dtype != y->dtype)
    return fw_kernel_fail (error, node, _("the inputs have different types, %s and %s"), fw_dtype_name (x->dtype),
                           fw_dtype_name (y->dtype));
  switch (fw_dtype_bits (x->dtype))
    {
    case 8: fn = where_8; break;
    case 16: fn = where_16; break;
    case 32: fn = where_32; break;
    case 64: fn = where_64; break;
    default: return fw_ew_unsupported_type (error, node, x->dtype);
    }
  if (!fw_kernel_broadcast_dims (node, c->rank, c->dims, x->rank, x->dims, &rank, dims, error)
      || !fw_kernel_broadcast_dims (node, rank, dims, y->rank, y->dims, &rank2, dims2, error))
    return FALSE;
  out = fw_ew_new_output (node, x->dtype, rank2, dims2, error);
  if (out == NULL)
    return FALSE;
  {
    FwArray *ins[3] = { c, x, y };
    const void *data[3] = { c->data, x->data, y->data };

    fw_ew_walk_init (&w, 3, ins, rank2, dims2, fw_dtype_bits (x->dtype) / 8);
    fw_ew_walk_run (ctx, &w, data, out->data, fn, &p);
  }
  outputs[0] = out;
  return TRUE;
}

/* BatchNormalization, inference mode: y = x * a + b per channel with a = scale / sqrt(var + eps) and
 * b = B - mean * a, in this order as ONNX Runtime computes it. Before opset 9, spatial = 0 gave each
 * (channel, position) its own statistics; those are taken by their element count. */
static gboolean
k_batch_norm (KERNEL_ARGS)
{
  FwArray *x;
  double eps = fw_node_get_attr_float (node, "epsilon", 1e-5f);
  gint64 n, c, s = 1, per, n_rows, total;
  g_autofree double *a = NULL;
  g_autofree double *b = NULL;
  g_autofree float *af = NULL;
  g_autofree float *bf = NULL;
  FwArray *out;
  gint n_threads = (gint) fw_exec_context_get_n_threads (ctx);

  if (!fw_ew_need_inputs (node, inputs, n_inputs, 5, n_outputs, error))
    return FALSE;
  x = inputs[0];
  if (fw_node_get_attr_int (node, "training_mode", 0) != 0)
    return fw_kernel_fail (error, node, _("training mode is not supported; only inference"));
  for (guint i = 1; i < n_outputs; i++)
    if (node->outputs[i] != NULL)
      return fw_kernel_fail (error, node, _("the running statistics outputs of training mode are not supported"));
  if (x->dtype != FW_DTYPE_FLOAT && x->dtype != FW_DTYPE_DOUBLE && !fw_ew_is_half (x->dtype))
    return fw_ew_unsupported_type (error, node, x->dtype);
  if (x->rank < 2)
    return fw_kernel_fail (error, node, _("the input must have rank 2 or more"));
  n = x->dims[0];
  c = x->dims[1];
  for (guint d = 2; d < x->rank; d++)
    s *= x->dims[d];
  per = inputs[1]->n_elements == c * s && s != 1 ? c * s : c;
  for (guint i = 1; i < 5; i++)
    if (inputs[i]->n_elements != per || !fw_dtype_is_float (inputs[i]->dtype))
      return fw_kernel_fail (error, node, _("scale, B, mean and var must be float tensors of %" PRId64
                                            " elements"), per);
  out = fw_ew_new_output (node, x->dtype, x->rank, x->dims, error);
  if (out == NULL)
    return FALSE;
  a = g_new (double, MAX (per, 1));
  b = g_new (double, MAX (per, 1));
  af = g_new (float, MAX (per, 1));
  bf = g_new (float, MAX (per, 1));
  for (gint64 k = 0; k < per; k++)
    {
      double scale = fw_array_get_double (inputs[1], k), bias = fw_array_get_double (inputs[2], k);
      double mean = fw_array_get_double (inputs[3], k), var = fw_array_get_double (inputs[4], k);
      float inv = 1.0f / sqrtf ((float) var + (float) eps);

      af[k] = inv * (float) scale;
      bf[k] = (float) bias - (float) mean * af[k];
      a[k] = (1.0 / sqrt (var + eps)) * scale;
      b[k] = bias - mean * a[k];
    }
  n_rows = n * c;
  total = n_rows * s;
#pragma omp parallel for if (fw_host_loop_threads (total, n_threads) > 1) num_threads (n_threads)
  for (gint64 r = 0; r < n_rows; r++)
    {
      gint64 ch = r % c, base = per == c ? ch : ch * s, step = per == c ? 0 : 1;

      if (x->dtype == FW_DTYPE_FLOAT)
        {
          const float *xi = (const float *) x->data + r * s;
          float *yo = (float *) out->data + r * s;

#pragma omp simd
          for (gint64 i = 0; i < s; i++)
            yo[i] = xi[i] * af[base + i * step] + bf[base + i * step];
        }
      else if (x->dtype == FW_DTYPE_DOUBLE)
        {
          const double *xi = (const double *) x->data + r * s;
          double *yo = (double *) out->data + r * s;

#pragma omp simd
          for (gint64 i = 0; i < s; i++)
            yo[i] = xi[i] * a[base + i * step] + b[base + i * step];
        }
      else
        {
          const guint16 *xi = (const guint16 *) x->data + r * s;
          guint16 *yo = (guint16 *) out->data + r * s;
          float buf[HALF_BLOCK];

          for (gint64 off = 0; off < s; off += HALF_BLOCK)
            {
              gint64 m = MIN (HALF_BLOCK, s - off);

              fw_ew_half_load (buf, xi + off, m, x->dtype);
              for (gint64 i = 0; i < m; i++)
                buf[i] = buf[i] * af[base + (off + i) * step] + bf[base + (off + i) * step];
              fw_ew_half_store (yo + off, buf, m, x->dtype);
            }
        }
    }
  outputs[0] = out;
  return TRUE;
}

static const FwKernelEntry entries[] = {
  { "Abs", k_abs },
  { "Acos", k_acos },
  { "Acosh", k_acosh },
  { "Add", k_add },
  { "And", k_and },
  { "Asin", k_asin },
  { "Asinh", k_asinh },
  { "Atan", k_atan },
  { "Atanh", k_atanh },
  { "BatchNormalization", k_batch_norm },
  { "BitShift", k_bitshift },
  { "BitwiseAnd", k_bitand },
  { "BitwiseNot", k_bitnot },
  { "BitwiseOr", k_bitor },
  { "BitwiseXor", k_bitxor },
  { "Cast", k_cast },
  { "CastLike", k_cast_like },
  { "Ceil", k_ceil },
  { "Celu", k_celu_check },
  { "Clip", k_clip },
  { "Cos", k_cos },
  { "Cosh", k_cosh },
  { "Div", k_div },
  { "Dropout", k_dropout },
  { "Elu", k_elu },
  { "Equal", k_equal },
  { "Erf", k_erf },
  { "Exp", k_exp },
  { "Floor", k_floor },
  { "Gelu", k_gelu },
  { "Greater", k_greater },
  { "GreaterOrEqual", k_greater_equal },
  { "HardSigmoid", k_hard_sigmoid },
  { "HardSwish", k_hardswish },
  { "Identity", k_identity },
  { "IsInf", k_isinf },
  { "IsNaN", k_isnan },
  { "LeakyRelu", k_leaky_relu },
  { "Less", k_less },
  { "LessOrEqual", k_less_equal },
  { "Log", k_log },
  { "Max", k_max },
  { "Mean", k_mean },
  { "Min", k_min },
  { "Mish", k_mish },
  { "Mod", k_mod },
  { "Mul", k_mul },
  { "Neg", k_neg },
  { "Not", k_not },
  { "Or", k_or },
  { "Pow", k_pow },
  { "PRelu", k_prelu },
  { "Reciprocal", k_recip },
  { "Relu", k_relu },
  { "Round", k_round },
  { "Selu", k_selu },
  { "Shrink", k_shrink },
  { "Sigmoid", k_sigmoid },
  { "Sign", k_sign },
  { "Sin", k_sin },
  { "Sinh", k_sinh },
  { "Softplus", k_softplus },
  { "Softsign", k_softsign },
  { "Sqrt", k_sqrt },
  { "Sub", k_sub },
  { "Sum", k_sum },
  { "Tan", k_tan },
  { "Tanh", k_tanh },
  { "ThresholdedRelu", k_thresholded_relu },
  { "Where", k_where },
  { "Xor", k_xor },
};

const FwKernelEntry *
fw_kernels_elementwise (guint *n_entries)
{
  *n_entries = G_N_ELEMENTS (entries);
  return entries;
}
