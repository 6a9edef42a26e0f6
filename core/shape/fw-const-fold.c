/* fw-const-fold.c: evaluation of small constant tensors, the ones exporters use to compute shapes.
 *
 * Integers and bool are held as gint64, floating types as double, whatever their dtype; results are
 * converted back on packing. Callers check element counts against the cap before anything is read, so
 * weights are never touched. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "shape/fw-shape-private.h"

gboolean
fw_fold_supported_dtype (FwDType dtype)
{
  switch (dtype)
    {
    case FW_DTYPE_FLOAT:
    case FW_DTYPE_DOUBLE:
    case FW_DTYPE_FLOAT16:
    case FW_DTYPE_INT64:
    case FW_DTYPE_INT32:
    case FW_DTYPE_INT16:
    case FW_DTYPE_INT8:
    case FW_DTYPE_UINT8:
    case FW_DTYPE_UINT16:
    case FW_DTYPE_UINT32:
    case FW_DTYPE_UINT64:
    case FW_DTYPE_BOOL:
      return TRUE;
    default:
      return FALSE;
    }
}

static gboolean
dtype_holds_float (FwDType dtype)
{
  return dtype == FW_DTYPE_FLOAT || dtype == FW_DTYPE_DOUBLE || dtype == FW_DTYPE_FLOAT16;
}

void
fw_fold_init (FwFold *fold, FwDType dtype, gint rank, const gint64 *dims)
{
  gint64 n = 1;

  memset (fold, 0, sizeof *fold);
  fold->dtype = dtype;
  fold->rank = rank;
  for (gint i = 0; i < rank; i++)
    {
      fold->dims[i] = dims[i];
      n *= dims[i];
    }
  fold->n = n;
  fold->is_float = dtype_holds_float (dtype);
  if (fold->is_float)
    fold->d = g_new0 (double, MAX (n, 1));
  else
    fold->i = g_new0 (gint64, MAX (n, 1));
}

void
fw_fold_clear (FwFold *fold)
{
  g_clear_pointer (&fold->i, g_free);
  g_clear_pointer (&fold->d, g_free);
}

FwFold *
fw_fold_array_new (guint n)
{
  return g_new0 (FwFold, MAX (n, 1));
}

void
fw_fold_array_free (FwFold *folds, guint n)
{
  for (guint k = 0; folds && k < n; k++)
    fw_fold_clear (&folds[k]);
  g_free (folds);
}

gboolean
fw_fold_load (FwInferContext *ctx, const FwValue *value, FwFold *out)
{
  const FwTensor *t;
  const guint8 *p;
  gsize size = 0;
  gint64 bytes;

  memset (out, 0, sizeof *out);
  if (!fw_infer_is_foldable (ctx, value))
    return FALSE;
  t = value->constant;
  if (t->rank > FW_MAX_RANK || !fw_dtype_bytes_for (t->dtype, t->n_elements, &bytes))
    return FALSE;
  p = fw_tensor_get_data (t, &size);
  if ((gint64) size != bytes)
    return FALSE;
  fw_fold_init (out, t->dtype, (gint) t->rank, t->dims);
  for (gint64 k = 0; k < t->n_elements; k++)
    switch (t->dtype)
      {
      case FW_DTYPE_FLOAT: { float v; memcpy (&v, p + 4 * k, 4); out->d[k] = v; break; }
      case FW_DTYPE_DOUBLE: { memcpy (&out->d[k], p + 8 * k, 8); break; }
      case FW_DTYPE_FLOAT16: { guint16 v; memcpy (&v, p + 2 * k, 2); out->d[k] = fw_half_to_float (v); break; }
      case FW_DTYPE_INT64: { memcpy (&out->i[k], p + 8 * k, 8); break; }
      case FW_DTYPE_UINT64: { guint64 v; memcpy (&v, p + 8 * k, 8); out->i[k] = (gint64) v; break; }
      case FW_DTYPE_INT32: { gint32 v; memcpy (&v, p + 4 * k, 4); out->i[k] = v; break; }
      case FW_DTYPE_UINT32: { guint32 v; memcpy (&v, p + 4 * k, 4); out->i[k] = v; break; }
      case FW_DTYPE_INT16: { gint16 v; memcpy (&v, p + 2 * k, 2); out->i[k] = v; break; }
      case FW_DTYPE_UINT16: { guint16 v; memcpy (&v, p + 2 * k, 2); out->i[k] = v; break; }
      case FW_DTYPE_INT8: out->i[k] = (gint8) p[k]; break;
      case FW_DTYPE_UINT8: out->i[k] = p[k]; break;
      case FW_DTYPE_BOOL: out->i[k] = p[k] != 0; break;
      default:
        fw_fold_clear (out);
        return FALSE;
      }
  return TRUE;
}

/* Wraps v to dtype's range, as a C cast to that type would. */
static gint64
wrap_int (FwDType dtype, gint64 v)
{
  switch (dtype)
    {
    case FW_DTYPE_INT32: return (gint32) (guint32) v;
    case FW_DTYPE_UINT32: return (guint32) v;
    case FW_DTYPE_INT16: return (gint16) (guint16) v;
    case FW_DTYPE_UINT16: return (guint16) v;
    case FW_DTYPE_INT8: return (gint8) (guint8) v;
    case FW_DTYPE_UINT8: return (guint8) v;
    case FW_DTYPE_BOOL: return v != 0;
    default: return v;
    }
}

/* Float to integer without undefined behaviour: truncates, NaN gives 0, saturates at the int64 range. */
static gint64
double_to_int (double d)
{
  if (isnan (d))
    return 0;
  if (d >= 9.2233720368547748e18)
    return G_MAXINT64;
  if (d <= -9.2233720368547758e18)
    return G_MININT64;
  return (gint64) d;
}

FwTensor *
fw_fold_to_tensor (const FwFold *fold)
{
  gint64 bytes = 0;
  guint8 *buf;
  g_autoptr(GBytes) data = NULL;

  if (!fw_dtype_bytes_for (fold->dtype, fold->n, &bytes))
    return NULL;
  buf = g_malloc0 (MAX (bytes, 1));
  for (gint64 k = 0; k < fold->n; k++)
    {
      double d = fold->is_float ? fold->d[k] : (double) fold->i[k];
      gint64 i = fold->is_float ? double_to_int (fold->d[k]) : fold->i[k];

      switch (fold->dtype)
        {
        case FW_DTYPE_FLOAT: { float v = (float) d; memcpy (buf + 4 * k, &v, 4); break; }
        case FW_DTYPE_DOUBLE: memcpy (buf + 8 * k, &d, 8); break;
        case FW_DTYPE_FLOAT16: { guint16 v = fw_float_to_half ((float) d); memcpy (buf + 2 * k, &v, 2); break; }
        case FW_DTYPE_INT64:
        case FW_DTYPE_UINT64: memcpy (buf + 8 * k, &i, 8); break;
        case FW_DTYPE_INT32:
        case FW_DTYPE_UINT32: { guint32 v = (guint32) i; memcpy (buf + 4 * k, &v, 4); break; }
        case FW_DTYPE_INT16:
        case FW_DTYPE_UINT16: { guint16 v = (guint16) i; memcpy (buf + 2 * k, &v, 2); break; }
        case FW_DTYPE_INT8:
        case FW_DTYPE_UINT8: buf[k] = (guint8) i; break;
        case FW_DTYPE_BOOL: buf[k] = fold->is_float ? d != 0.0 : i != 0; break;
        default: break;
        }
    }
  data = g_bytes_new_take (buf, bytes);
  return fw_tensor_new (fold->dtype, (guint) fold->rank, fold->dims, data);
}

void
fw_fold_gather (const FwFold *in, FwFold *out, const gint64 *src)
{
  for (gint64 k = 0; k < out->n; k++)
    {
      if (out->is_float)
        out->d[k] = in->is_float ? in->d[src[k]] : (double) in->i[src[k]];
      else
        out->i[k] = in->is_float ? double_to_int (in->d[src[k]]) : in->i[src[k]];
    }
}

void
fw_fold_bcast_strides (const FwFold *in, gint out_rank, const gint64 *out_dims, gint64 *strides)
{
  gint64 stride = 1;

  for (gint i = out_rank - 1; i >= 0; i--)
    {
      gint j = i - (out_rank - in->rank);

      if (j < 0)
        strides[i] = 0;
      else
        {
          strides[i] = in->dims[j] == 1 && out_dims[i] != 1 ? 0 : stride;
          stride *= in->dims[j];
        }
    }
}

typedef enum {
  OP_NONE,
  OP_IDENTITY, OP_CAST, OP_ABS, OP_NEG, OP_FLOOR, OP_CEIL, OP_ROUND, OP_SQRT, OP_NOT, OP_RELU, OP_SIGN,
  OP_RECIPROCAL, OP_EXP, OP_LOG,
  OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD, OP_POW, OP_MIN, OP_MAX, OP_SUM,
  OP_EQUAL, OP_LESS, OP_GREATER, OP_LESS_EQ, OP_GREATER_EQ, OP_AND, OP_OR, OP_XOR,
  OP_WHERE,
} FoldOp;

static const struct {
  const char *name;
  FoldOp op;
} fold_ops[] = {
  { "Identity", OP_IDENTITY }, { "Cast", OP_CAST }, { "CastLike", OP_CAST }, { "Abs", OP_ABS },
  { "Neg", OP_NEG }, { "Floor", OP_FLOOR }, { "Ceil", OP_CEIL }, { "Round", OP_ROUND }, { "Sqrt", OP_SQRT },
  { "Not", OP_NOT }, { "Relu", OP_RELU }, { "Sign", OP_SIGN }, { "Reciprocal", OP_RECIPROCAL },
  { "Exp", OP_EXP }, { "Log", OP_LOG },
  { "Add", OP_ADD }, { "Sub", OP_SUB }, { "Mul", OP_MUL }, { "Div", OP_DIV }, { "Mod", OP_MOD },
  { "Pow", OP_POW }, { "Min", OP_MIN }, { "Max", OP_MAX }, { "Sum", OP_SUM },
  { "Equal", OP_EQUAL }, { "Less", OP_LESS }, { "Greater", OP_GREATER }, { "LessOrEqual", OP_LESS_EQ },
  { "GreaterOrEqual", OP_GREATER_EQ }, { "And", OP_AND }, { "Or", OP_OR }, { "Xor", OP_XOR },
  { "Where", OP_WHERE },
};

static FoldOp
fold_op_from_name (const char *name)
{
  for (guint k = 0; k < G_N_ELEMENTS (fold_ops); k++)
    if (strcmp (fold_ops[k].name, name) == 0)
      return fold_ops[k].op;
  return OP_NONE;
}

static gboolean
unary_int (FoldOp op, gint64 a, gint64 *out)
{
  switch (op)
    {
    case OP_IDENTITY: case OP_CAST: *out = a; return TRUE;
    case OP_ABS: *out = a < 0 ? (gint64) (0 - (guint64) a) : a; return TRUE;
    case OP_NEG: *out = (gint64) (0 - (guint64) a); return TRUE;
    case OP_FLOOR: case OP_CEIL: case OP_ROUND: *out = a; return TRUE;
    case OP_NOT: *out = !a; return TRUE;
    case OP_RELU: *out = MAX (a, 0); return TRUE;
    case OP_SIGN: *out = (a > 0) - (a < 0); return TRUE;
    default: return FALSE;
    }
}

static gboolean
unary_float (FoldOp op, double a, double *out)
{
  switch (op)
    {
    case OP_IDENTITY: case OP_CAST: *out = a; return TRUE;
    case OP_ABS: *out = fabs (a); return TRUE;
    case OP_NEG: *out = -a; return TRUE;
    case OP_FLOOR: *out = floor (a); return TRUE;
    case OP_CEIL: *out = ceil (a); return TRUE;
    case OP_ROUND: *out = nearbyint (a); return TRUE;  /* round half to even, as ONNX says */
    case OP_SQRT: *out = sqrt (a); return TRUE;
    case OP_NOT: *out = a == 0.0; return TRUE;
    case OP_RELU: *out = a > 0 ? a : 0; return TRUE;
    case OP_SIGN: *out = (a > 0) - (a < 0); return TRUE;
    case OP_RECIPROCAL: *out = 1.0 / a; return TRUE;
    case OP_EXP: *out = exp (a); return TRUE;
    case OP_LOG: *out = log (a); return TRUE;
    default: return FALSE;
    }
}

/* Integer division and modulo as ONNX Runtime computes them: Div truncates toward zero; Mod follows the
 * divisor's sign unless fmod=1. Division by zero (or INT64_MIN / -1) is not folded. */
static gboolean
binary_int (FoldOp op, gint64 fmod_attr, gint64 a, gint64 b, gint64 *out)
{
  switch (op)
    {
    case OP_ADD: case OP_SUM: *out = (gint64) ((guint64) a + (guint64) b); return TRUE;
    case OP_SUB: *out = (gint64) ((guint64) a - (guint64) b); return TRUE;
    case OP_MUL: *out = (gint64) ((guint64) a * (guint64) b); return TRUE;
    case OP_DIV:
      if (b == 0 || (a == G_MININT64 && b == -1))
        return FALSE;
      *out = a / b;
      return TRUE;
    case OP_MOD:
      if (b == 0 || (a == G_MININT64 && b == -1))
        return FALSE;
      *out = a % b;
      if (!fmod_attr && *out != 0 && ((*out < 0) != (b < 0)))
        *out += b;
      return TRUE;
    case OP_POW:
      {
        double r = pow ((double) a, (double) b);
        *out = double_to_int (r);
        return TRUE;
      }
    case OP_MIN: *out = MIN (a, b); return TRUE;
    case OP_MAX: *out = MAX (a, b); return TRUE;
    case OP_EQUAL: *out = a == b; return TRUE;
    case OP_LESS: *out = a < b; return TRUE;
    case OP_GREATER: *out = a > b; return TRUE;
    case OP_LESS_EQ: *out = a <= b; return TRUE;
    case OP_GREATER_EQ: *out = a >= b; return TRUE;
    case OP_AND: *out = a && b; return TRUE;
    case OP_OR: *out = a || b; return TRUE;
    case OP_XOR: *out = (!a) != (!b); return TRUE;
    default: return FALSE;
    }
}

static gboolean
binary_float (FoldOp op, gint64 fmod_attr G_GNUC_UNUSED, double a, double b, double *out)
{
  switch (op)
    {
    case OP_ADD: case OP_SUM: *out = a + b; return TRUE;
    case OP_SUB: *out = a - b; return TRUE;
    case OP_MUL: *out = a * b; return TRUE;
    case OP_DIV: *out = a / b; return TRUE;
    case OP_MOD: *out = fmod (a, b); return TRUE;
    case OP_POW: *out = pow (a, b); return TRUE;
    case OP_MIN: *out = isnan (a) || isnan (b) ? NAN : MIN (a, b); return TRUE;
    case OP_MAX: *out = isnan (a) || isnan (b) ? NAN : MAX (a, b); return TRUE;
    case OP_EQUAL: *out = a == b; return TRUE;
    case OP_LESS: *out = a < b; return TRUE;
    case OP_GREATER: *out = a > b; return TRUE;
    case OP_LESS_EQ: *out = a <= b; return TRUE;
    case OP_GREATER_EQ: *out = a >= b; return TRUE;
    default: return FALSE;
    }
}

static inline double
fold_get_double (const FwFold *f, gint64 k)
{
  return f->is_float ? f->d[k] : (double) f->i[k];
}

static inline gint64
fold_get_int (const FwFold *f, gint64 k)
{
  return f->is_float ? double_to_int (f->d[k]) : f->i[k];
}

gboolean
fw_fold_elementwise (const char *op_type, const FwNode *node, guint n_in, FwFold *in, FwFold *out)
{
  FoldOp op = fold_op_from_name (op_type);
  gint64 fmod_attr = fw_node_get_attr_int (node, "fmod", 0);
  g_autofree gint64 *strides = NULL;
  gint64 coord[FW_MAX_RANK];
  gint64 offset[8];
  gboolean in_float;

  if (op == OP_NONE || n_in == 0 || n_in > 8 || out->rank > FW_MAX_RANK)
    return FALSE;
  if (op == OP_WHERE && n_in != 3)
    return FALSE;
  if (op >= OP_ADD && op < OP_WHERE && op != OP_MIN && op != OP_MAX && op != OP_SUM && n_in != 2)
    return FALSE;
  if (op < OP_ADD && n_in != 1)
    return FALSE;
  if (op == OP_SQRT && !in[0].is_float)
    return FALSE;

  strides = g_new0 (gint64, (gsize) n_in * MAX (out->rank, 1));
  for (guint k = 0; k < n_in; k++)
    fw_fold_bcast_strides (&in[k], out->rank, out->dims, strides + (gsize) k * MAX (out->rank, 1));
  memset (coord, 0, sizeof coord);
  memset (offset, 0, sizeof offset);
  in_float = op == OP_WHERE ? in[1].is_float : in[0].is_float;

  for (gint64 e = 0; e < out->n; e++)
    {
      gboolean ok = TRUE;

      if (op == OP_WHERE)
        {
          const FwFold *pick = fold_get_int (&in[0], offset[0]) ? &in[1] : &in[2];
          gint64 at = pick == &in[1] ? offset[1] : offset[2];
          if (out->is_float)
            out->d[e] = fold_get_double (pick, at);
          else
            out->i[e] = fold_get_int (pick, at);
        }
      else if (op < OP_ADD)
        {
          if (in_float)
            {
              double r = 0;
              ok = unary_float (op, in[0].d[offset[0]], &r);
              if (out->is_float)
                out->d[e] = r;
              else if (out->dtype == FW_DTYPE_BOOL)
                out->i[e] = r != 0.0;
              else
                out->i[e] = wrap_int (out->dtype, double_to_int (r));
            }
          else
            {
              gint64 r = 0;
              ok = unary_int (op, in[0].i[offset[0]], &r);
              if (out->is_float)
                out->d[e] = (double) r;
              else
                out->i[e] = wrap_int (out->dtype, r);
            }
        }
      else if (in_float)
        {
          double acc = in[0].d[offset[0]];
          for (guint k = 1; k < n_in && ok; k++)
            ok = binary_float (op, fmod_attr, acc, fold_get_double (&in[k], offset[k]), &acc);
          if (out->is_float)
            out->d[e] = acc;
          else
            out->i[e] = double_to_int (acc);
        }
      else
        {
          gint64 acc = in[0].i[offset[0]];
          for (guint k = 1; k < n_in && ok; k++)
            ok = binary_int (op, fmod_attr, acc, fold_get_int (&in[k], offset[k]), &acc);
          if (out->is_float)
            out->d[e] = (double) acc;
          else
            out->i[e] = wrap_int (out->dtype, acc);
        }
      if (!ok)
        return FALSE;

      /* Advance the output coordinate and every input's offset with it. */
      for (gint d = out->rank - 1; d >= 0; d--)
        {
          coord[d]++;
          for (guint k = 0; k < n_in; k++)
            offset[k] += strides[(gsize) k * MAX (out->rank, 1) + d];
          if (coord[d] < out->dims[d])
            break;
          for (guint k = 0; k < n_in; k++)
            offset[k] -= coord[d] * strides[(gsize) k * MAX (out->rank, 1) + d];
          coord[d] = 0;
        }
    }
  return TRUE;
}
