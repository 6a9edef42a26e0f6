/* fw-ascend-codegen.c: Ascend C for one fused candidate.
 *
 * The kernel follows the shape of the public add_custom samples: a class with Init (global tensors offset by
 * the block index, TQue<VECIN, 2> / TQue<VECOUT, 2> double-buffered queues and TBuf temporaries) and Process
 * looping CopyIn → Compute → CopyOut over the tiles of this block. Every tile is `rows` rows of `len`
 * elements placed `stride` apart in UB; groups without a row reduction use one row per tile, so one
 * description serves both.
 *
 * Everything the planner decided comes from the candidate's FwKernelSpec: the iteration space and the rows a
 * tile holds whole (a row reduction's, or the broadcast rows the planner chose for per-row scalars and row
 * vectors), each value's role, the Unified Buffer plan and the tile. FULL values stream through queues, ROW
 * values (what a row reduction leaves) hold one element per row, SMALL values (bias, BatchNormalization
 * parameters) are loaded whole once: one element is read as a scalar, one row stays resident and is applied
 * row by row, and anything else is expanded into a tile-shaped buffer, once when the broadcast pattern
 * repeats with the tile and per tile otherwise. Scalar constants become immediates.
 *
 * The host tiling function prints the spec's buffer plan and repeats the planner's binary search over it, so
 * a kernel uses the UB share the plan reported; the kernel shrinks the tile only where its own scratch would
 * overflow the Unified Buffer. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-ascend.h"
#include "fw-error.h"
#include "hw/fw-profile.h"
#include "plan/fw-plan.h"

#define MAX_PATTERN 40

typedef enum {
  KIND_INPUT,     /* streamed from GM through a VECIN queue */
  KIND_OUTPUT,    /* computed into a VECOUT queue, written to GM */
  KIND_TEMP,      /* an intermediate in a TBuf slot */
  KIND_SMALL,     /* broadcast operand, loaded whole */
  KIND_IMMEDIATE, /* scalar constant */
} OperandKind;

typedef struct _Operand Operand;

struct _Operand
{
  FwValue     *value;
  OperandKind  kind;
  FwShapeRole  role;
  const char  *ctype;
  guint        eb;
  guint        index;        /* input, output or small number; slot for temps */
  guint        id;           /* v<id> in generated code */
  double       imm;
  gint64       vstride[FW_MAX_RANK];
  gint64       elements;
  guint        first;
  guint        last;
  gboolean     output;       /* also written to GM */
  /* Boolean values live in UB as Compare's bit masks (one bit per element, uint8_t storage). Not, and
   * Cast or Identity from bool to bool, make no code: they alias their source mask, Not flipping `invert`
   * (relative to the source's own `invert`, which a comparison may set when it is emitted). */
  gboolean     mask;
  Operand     *alias_of;
  gboolean     invert;
  /* A broadcast operand that is exactly one row (bias, LayerNorm gamma/beta): it stays resident in its load
   * buffer and each row of the tile is computed against it, so no tile-shaped copy is made. */
  gboolean     rowvec;
};

/* What the generated kernel allocates: role FULL (tile), ROW (rows), or OTHER (fixed bytes in `elements`). */
typedef struct
{
  FwShapeRole role;
  guint       eb;
  guint       copies;
  gint64      elements;
} KernelBuffer;

struct _FwAscendKernel
{
  FwAscendTiling  tiling;
  FwKernelSource *source;     /* the kernel .cpp first, then its tiling header, host tiling, CMake, README */
};

typedef struct
{
  FwPlan            *plan;
  const FwCandidate *cand;
  const FwKernelSpec *spec;
  const FwProfile   *profile;
  FwSpace            space;
  gboolean           rows_mode;
  /* The planner tiled whole rows for broadcast operands (per-row scalars or row vectors in an elementwise
   * group), not for a row reduction. */
  gboolean           broadcast_rows;
  gint64             total;
  gint64             row_len;    /* rows mode: elements per row */
  gint64             row_stride; /* rows mode: row pitch in UB */
  GHashTable        *operands;   /* FwValue* → Operand* */
  GPtrArray         *all;        /* Operand*, owned */
  GPtrArray         *inputs;     /* Operand* streamed */
  GPtrArray         *outputs;
  GPtrArray         *smalls;
  GArray            *slot_eb;    /* guint per temp slot */
  GArray            *kernel_buffers;
  GString           *compute;
  gboolean           scratch[3];
  gboolean           row_scratch;
  gboolean           reduce;
  gboolean           uses_mask;   /* Compare/Select: counts and tile buffers in whole 256-byte blocks */
  guint              max_eb;
  char              *name;
  char              *struct_name;
} Gen;

char *
fw_ascend_escape_comment (const char *text)
{
  GString *out = g_string_new (NULL);
  char prev = 0;

  for (const guchar *p = (const guchar *) (text ? text : ""); *p; p++)
    {
      guchar c = *p;

      if (c < 0x20 || c >= 0x7f || c == '\\')
        g_string_append_printf (out, "\\x%02x", c);
      else if ((c == '/' && prev == '*') || (c == '*' && prev == '/'))
        {
          g_string_append_c (out, '\\');
          g_string_append_c (out, (char) c);
        }
      else
        g_string_append_c (out, (char) c);
      prev = out->len ? out->str[out->len - 1] : 0;
    }
  return g_string_free (out, FALSE);
}

static const char *
ctype_of (FwDType dtype)
{
  switch (dtype)
    {
    case FW_DTYPE_FLOAT:
      return "float";
    case FW_DTYPE_FLOAT16:
      return "half";
    case FW_DTYPE_INT32:
      return "int32_t";
    case FW_DTYPE_BOOL:
      return "uint8_t";  /* a bit mask inside the kernel only: see Operand.mask */
    default:
      return NULL;
    }
}

static gboolean
is_float_ctype (const char *ctype)
{
  return strcmp (ctype, "float") == 0 || strcmp (ctype, "half") == 0;
}

static gboolean
in_group (Gen *g, const FwNode *node)
{
  return fw_kernel_spec_contains (g->spec, node);
}

static gboolean
used_outside (Gen *g, const FwValue *value)
{
  return fw_kernel_spec_is_output (g->spec, value);
}

static const char *
node_label (const FwNode *node)
{
  return node->name && node->name[0] ? node->name : "";
}

/* The planner's iteration space and rows. */
static gboolean
read_space (Gen *g, GError **error)
{
  g->space = *fw_kernel_spec_get_space (g->spec);
  if (g->space.rank <= 0 || g->space.rank > FW_MAX_RANK || fw_space_elements (&g->space) <= 0)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED, _("Ascend target: the group has no static iteration space"));
      return FALSE;
    }
  g->broadcast_rows = g->space.row_axes > 0 && fw_kernel_spec_get_reduce_axes (g->spec) == 0;
  g->total = fw_space_elements (&g->space);
  g->rows_mode = g->space.row_axes > 0;
  g->row_len = g->rows_mode ? fw_space_row_elements (&g->space) : 0;
  return TRUE;
}

static gdouble
align_up (gdouble bytes, guint align)
{
  return align <= 1 ? bytes : ceil (bytes / align) * align;
}

/* Elements a tile-shaped buffer is rounded up to: Compare and Select count whole 256-byte blocks, so
 * kernels that use them round to 128 elements (256 bytes of half, 512 of float); others to 8. */
static guint
full_align (Gen *g)
{
  return g->uses_mask ? 128 : 8;
}

static gdouble
kernel_bytes (Gen *g, gint64 tile_len, gint64 rows)
{
  gdouble total = 0;

  for (guint i = 0; i < g->kernel_buffers->len; i++)
    {
      KernelBuffer *b = &g_array_index (g->kernel_buffers, KernelBuffer, i);
      gdouble bytes;

      if (b->role == FW_SHAPE_FULL)
        bytes = align_up (g->rows_mode ? (gdouble) rows * g->row_stride : (gdouble) tile_len, full_align (g)) * b->eb;
      else if (b->role == FW_SHAPE_ROW)
        bytes = align_up ((gdouble) rows * b->eb, 32);
      else
        bytes = align_up ((gdouble) b->elements, 32);
      total += bytes * b->copies;
    }
  return total;
}

/* The planner's tile, in its units (whole rows, one cube fractal or one aligned block), shrunk only where
 * the kernel's own scratch would overflow the Unified Buffer. */
static void
compute_tiling (Gen *g, FwAscendTiling *out)
{
  const FwResourceEstimate *plan = &g->cand->resource;
  const FwProfile *profile = g->profile;
  gdouble row = g->rows_mode ? (gdouble) g->row_len : 1.0;
  gdouble unit = (gdouble) MAX (plan->unit_elements, 1);
  gdouble lo = MAX (1.0, floor ((gdouble) plan->tile_elements / unit));
  gdouble ub = (gdouble) profile->ub_bytes - (gdouble) profile->ub_reserve_bytes;
  guint cores = MAX (profile->vector_cores, 1u);

  memset (out, 0, sizeof *out);
  out->ub_bytes = plan->ub_bytes;
  while (lo > 1 && kernel_bytes (g, (gint64) (lo * unit), (gint64) (lo * unit / row)) > ub)
    lo -= 1;
  out->total_length = g->total;
  out->tile_length = (gint64) (lo * unit);
  out->rows = g->rows_mode ? (gint64) (lo * unit / row) : 0;
  out->row_length = g->rows_mode ? g->row_len : 0;
  out->tile_num = (g->total + out->tile_length - 1) / out->tile_length;
  out->block_num = MIN ((gint64) cores, out->tile_num);
  out->tiles_per_block = (out->tile_num + out->block_num - 1) / out->block_num;
  out->kernel_ub_bytes = kernel_bytes (g, out->tile_length, g->rows_mode ? out->rows : 1);
}

static G_GNUC_PRINTF (2, 3) void
emit (Gen *g, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  g_string_append_vprintf (g->compute, format, args);
  va_end (args);
}

static char *
literal (double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (isnan (v))
    return g_strdup ("(0.0f / 0.0f)");
  if (isinf (v))
    return g_strdup (v > 0 ? "(1.0f / 0.0f)" : "(-1.0f / 0.0f)");
  g_ascii_formatd (buf, sizeof buf, "%.9g", v);
  if (strchr (buf, '.') == NULL && strchr (buf, 'e') == NULL)
    return g_strdup_printf ("%s.0f", buf);
  return g_strdup_printf ("%sf", buf);
}

/* Element stride of a broadcast operand along each space axis (0 where it is broadcast). BatchNormalization's
 * per-channel parameters map onto axis 1; everything else broadcasts numpy-style from the right. */
static gboolean
small_mapping (Gen *g, const FwNode *node, guint slot, Operand *o)
{
  const FwValue *v = o->value;
  gint rank = g->space.rank;
  gint64 stride = 1;

  memset (o->vstride, 0, sizeof o->vstride);
  if (slot >= 1 && strcmp (node->op_type, "BatchNormalization") == 0 && v->rank == 1 && rank >= 2 &&
      v->dims[0].value == g->space.dims[1])
    {
      o->vstride[1] = v->dims[0].value > 1 ? 1 : 0;
      return TRUE;
    }
  if (v->rank > rank)
    return FALSE;
  for (gint j = v->rank - 1; j >= 0; j--)
    {
      gint a = rank - v->rank + j;
      gint64 d = v->dims[j].value;
      if (d != 1 && d != g->space.dims[a])
        return FALSE;
      o->vstride[a] = d == 1 ? 0 : stride;
      stride *= d;
    }
  return TRUE;
}

static Operand *
operand_new (Gen *g, FwValue *v, OperandKind kind)
{
  Operand *o = g_new0 (Operand, 1);

  o->value = v;
  o->kind = kind;
  o->role = fw_kernel_spec_lookup (g->spec, v)->role;
  o->ctype = ctype_of (v->dtype);
  o->eb = MAX (1u, fw_dtype_bits (v->dtype) / 8);
  o->id = g->all->len;
  o->elements = fw_value_get_n_elements (v);
  g_ptr_array_add (g->all, o);
  g_hash_table_insert (g->operands, v, o);
  g->max_eb = MAX (g->max_eb, o->eb);
  return o;
}

/* Kernel inputs, outputs, broadcast operands and immediates; intermediates get TBuf slots by liveness. */
static gboolean
build_operands (Gen *g, GError **error)
{
  GPtrArray *nodes = g->cand->nodes;
  g_autoptr(GPtrArray) slot_until = g_ptr_array_new ();  /* per slot: last position used, as GUINT_TO_POINTER */

  for (guint i = 0; i < nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (nodes, i);

      if (node == g->cand->root)
        {
          /* The cube's result arrives in global memory; the epilogue streams it like any input. */
          FwValue *v = node->n_outputs > 0 ? node->outputs[0] : NULL;
          Operand *o;
          if (v == NULL || ctype_of (v->dtype) == NULL)
            {
              g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED, _("Ascend target: %s result dtype %s"),
                           node->op_type, v ? fw_dtype_name (v->dtype) : "?");
              return FALSE;
            }
          o = operand_new (g, v, KIND_INPUT);
          o->index = g->inputs->len;
          g_ptr_array_add (g->inputs, o);
          o->output = used_outside (g, v);
          if (o->output)
            {
              g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED,
                           _("Ascend target: the %s result is also used outside the group"), node->op_type);
              return FALSE;
            }
          continue;
        }
      for (guint k = 0; k < node->n_inputs; k++)
        {
          FwValue *v = node->inputs[k];
          Operand *o;

          if (v == NULL || g_hash_table_contains (g->operands, v))
            continue;
          if (fw_kernel_spec_lookup (g->spec, v)->kind == FW_SPEC_IMMEDIATE)
            {
              o = operand_new (g, v, KIND_IMMEDIATE);
              if (v->constant->n_elements < 1 || !fw_tensor_get_double (v->constant, 0, &o->imm))
                o->imm = 0;
              continue;
            }
          if (ctype_of (v->dtype) == NULL || v->dtype == FW_DTYPE_BOOL)
            {
              g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED,
                           _("Ascend target: %s reads a %s tensor from global memory; the target handles float32, "
                             "float16 and int32 there (bool only as a mask computed in the kernel)"),
                           node->op_type, fw_dtype_name (v->dtype));
              return FALSE;
            }
          o = operand_new (g, v, KIND_INPUT);
          /* ONNX broadcasts from the right: a loaded value of lower rank that happens to equal the leading
           * dims ([N] in an [N, N] space) is a row vector, not one value per row. */
          if (o->role == FW_SHAPE_ROW && v->rank < g->space.rank)
            o->role = FW_SHAPE_OTHER;
          if (o->role == FW_SHAPE_SMALL ||
              (strcmp (node->op_type, "BatchNormalization") == 0 && k >= 1) ||
              (o->role == FW_SHAPE_OTHER && small_mapping (g, node, k, o)))
            {
              o->kind = KIND_SMALL;
              o->role = FW_SHAPE_SMALL;
              if (!small_mapping (g, node, k, o))
                {
                  g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED,
                               _("Ascend target: operand %u of %s does not broadcast into the iteration space"), k,
                               node->op_type);
                  return FALSE;
                }
              o->index = g->smalls->len;
              g_ptr_array_add (g->smalls, o);
              o->rowvec = g->rows_mode && o->elements == g->row_len && o->elements > 1;
              for (gint a = 0; a < g->space.rank - g->space.row_axes; a++)
                if (o->vstride[a] != 0)
                  o->rowvec = FALSE;
            }
          else if (o->role == FW_SHAPE_FULL || o->role == FW_SHAPE_ROW)
            {
              o->index = g->inputs->len;
              g_ptr_array_add (g->inputs, o);
            }
          else
            {
              g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED,
                           _("Ascend target: operand %u of %s does not map onto the iteration space"), k,
                           node->op_type);
              return FALSE;
            }
        }
      for (guint k = 0; k < node->n_outputs; k++)
        {
          FwValue *v = node->outputs[k];
          Operand *o;

          if (v == NULL)
            continue;
          if (k > 0)
            {
              if (v->n_uses == 0 && !v->is_output)
                continue;  /* an optional extra output nobody reads (Dropout's mask) */
              g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED,
                           _("Ascend target: %s has more than one used output"), node->op_type);
              return FALSE;
            }
          if (ctype_of (v->dtype) == NULL)
            {
              g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED,
                           _("Ascend target: %s produces %s; the target handles float32, float16 and int32"),
                           node->op_type, fw_dtype_name (v->dtype));
              return FALSE;
            }
          if (v->dtype == FW_DTYPE_BOOL && used_outside (g, v))
            {
              g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED,
                           _("Ascend target: the bool result of %s is used outside the group; masks stay in the kernel"),
                           node->op_type);
              return FALSE;
            }
          o = operand_new (g, v, used_outside (g, v) ? KIND_OUTPUT : KIND_TEMP);
          o->first = i;
          o->last = i;
          o->mask = v->dtype == FW_DTYPE_BOOL;
          if (o->role != FW_SHAPE_FULL && o->role != FW_SHAPE_ROW)
            {
              g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED,
                           _("Ascend target: %s computes on a broadcast operand, not the iteration space"),
                           node->op_type);
              return FALSE;
            }
          for (guint u = 0; u < v->n_uses; u++)
            {
              guint pos;
              if (in_group (g, v->uses[u].node) && g_ptr_array_find (nodes, v->uses[u].node, &pos))
                o->last = MAX (o->last, pos);
            }
          if (o->kind == KIND_OUTPUT)
            {
              o->index = g->outputs->len;
              g_ptr_array_add (g->outputs, o);
              continue;
            }
          if (o->mask)
            {
              Operand *src = node->n_inputs > 0 && node->inputs[0] ? g_hash_table_lookup (g->operands, node->inputs[0]) : NULL;
              if (o->role != FW_SHAPE_FULL)
                {
                  g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED,
                               _("Ascend target: %s makes a mask over reduced rows; masks cover the whole tile only"),
                               node->op_type);
                  return FALSE;
                }
              g->uses_mask = TRUE;
              if (src != NULL && src->mask && src->kind == KIND_TEMP &&
                  (strcmp (node->op_type, "Not") == 0 || strcmp (node->op_type, "Cast") == 0 ||
                   strcmp (node->op_type, "Identity") == 0))
                {
                  Operand *root = src->alias_of ? src->alias_of : src;
                  o->alias_of = root;
                  o->invert = (src->alias_of ? src->invert : FALSE) ^ (strcmp (node->op_type, "Not") == 0);
                  o->index = root->index;
                  root->last = MAX (root->last, o->last);
                  g_ptr_array_index (slot_until, root->index) =
                    GUINT_TO_POINTER (MAX (GPOINTER_TO_UINT (g_ptr_array_index (slot_until, root->index)), o->last));
                  continue;
                }
            }
          /* First free slot: one whose last use is strictly before this node, so a node never writes the
           * buffer it reads. */
          o->index = G_MAXUINT;
          for (guint s = 0; s < slot_until->len; s++)
            if (GPOINTER_TO_UINT (g_ptr_array_index (slot_until, s)) < i)
              {
                o->index = s;
                break;
              }
          if (o->index == G_MAXUINT)
            {
              guint zero = 0;
              o->index = slot_until->len;
              g_ptr_array_add (slot_until, NULL);
              g_array_append_val (g->slot_eb, zero);
            }
          g_ptr_array_index (slot_until, o->index) = GUINT_TO_POINTER (o->last);
          g_array_index (g->slot_eb, guint, o->index) = MAX (g_array_index (g->slot_eb, guint, o->index), o->eb);
        }
    }
  if (g->outputs->len == 0)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED, _("Ascend target: the group writes nothing"));
      return FALSE;
    }
  if (g->rows_mode)
    {
      guint min_eb = 4;
      for (guint i = 0; i < g->all->len; i++)
        {
          Operand *o = g_ptr_array_index (g->all, i);
          if (o->kind != KIND_IMMEDIATE && !o->mask)
            min_eb = MIN (min_eb, o->eb);
        }
      g->row_stride = (g->row_len + (32 / min_eb) - 1) / (32 / min_eb) * (32 / min_eb);
    }
  return TRUE;
}

/* How an operand enters an op whose result has role `role`: a tensor name, or a scalar expression. */
typedef enum {
  VIEW_WHOLE,      /* the tile (or its rows), or a scalar */
  VIEW_ROW_SCALAR, /* one element per row (expr is the row buffer): read per row as a scalar */
  VIEW_ROW_VECTOR, /* one resident row (expr is its load buffer), the same for every row */
} ViewPerRow;

typedef struct
{
  gboolean   scalar;
  ViewPerRow per_row;
  gboolean   loaded;  /* per-row scalars straight from a queue: their scalar reads wait for MTE2 */
  char       expr[160];
} View;

static void
view_tensor (View *v, const char *expr)
{
  v->scalar = FALSE;
  v->per_row = VIEW_WHOLE;
  g_strlcpy (v->expr, expr, sizeof v->expr);
}

static void
view_scalar (View *v, const char *expr)
{
  v->scalar = TRUE;
  v->per_row = VIEW_WHOLE;
  g_strlcpy (v->expr, expr, sizeof v->expr);
}

static const char *scratch_names[3] = { "sA", "sB", "sC" };

static void
use_scratch (Gen *g, guint i, const char *ctype)
{
  g->scratch[i] = TRUE;
  emit (g, "      AscendC::LocalTensor<%s> %s = scratch%u.Get<%s>();\n", ctype, scratch_names[i], i, ctype);
}

static gboolean
get_view (Gen *g, Operand *o, FwShapeRole role, const char *ctype, guint scratch, View *out, GError **error)
{
  char name[32];

  g_snprintf (name, sizeof name, "v%u", o->id);
  if (o->kind == KIND_IMMEDIATE)
    {
      g_autofree char *lit = literal (o->imm);
      view_scalar (out, lit);
      return TRUE;
    }
  if (strcmp (o->ctype, ctype) != 0)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED,
                   _("Ascend target: operands of different dtypes (%s and %s) without a Cast"), o->ctype, ctype);
      return FALSE;
    }
  if (o->kind == KIND_SMALL && o->elements == 1)
    {
      char expr[64];
      g_snprintf (expr, sizeof expr, "static_cast<float>(raw%u.GetValue(0))", o->index);
      view_scalar (out, expr);
      return TRUE;
    }
  if (o->kind == KIND_SMALL)
    {
      if (role != FW_SHAPE_FULL)
        {
          g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED,
                       _("Ascend target: a broadcast operand meets a row reduction's result"));
          return FALSE;
        }
      if (o->rowvec)
        {
          /* An op without a per-row form reads it: copy the resident row into each row of scratch. */
          use_scratch (g, scratch, ctype);
          emit (g, "      for (uint32_t r = 0; r < rows; r++)\n"
                   "        AscendC::Muls(%s[r * ROW_STRIDE], raw%u, static_cast<%s>(1.0f), static_cast<int32_t>(ROW_LEN));\n",
                scratch_names[scratch], o->index, ctype);
          view_tensor (out, scratch_names[scratch]);
          return TRUE;
        }
      g_snprintf (name, sizeof name, "e%u", o->index);
      view_tensor (out, name);
      return TRUE;
    }
  if (o->role == role)
    {
      view_tensor (out, name);
      return TRUE;
    }
  if (o->role == FW_SHAPE_ROW && role == FW_SHAPE_FULL)
    {
      /* A row's value repeated along the row: Duplicate per row (rows start 32-byte aligned). */
      use_scratch (g, scratch, ctype);
      emit (g, "      VectorToScalar();\n"
               "      for (uint32_t r = 0; r < rows; r++)\n"
               "        AscendC::Duplicate(%s[r * ROW_STRIDE], %s.GetValue(r), static_cast<int32_t>(ROW_LEN));\n",
            scratch_names[scratch], name);
      view_tensor (out, scratch_names[scratch]);
      return TRUE;
    }
  g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED, _("Ascend target: an operand does not fit the result's shape"));
  return FALSE;
}

/* Like get_view, for the operands of emit_binary: in rows mode a per-row scalar or a resident row vector
 * meeting a tile-shaped result is applied row by row instead of being expanded into scratch. */
static gboolean
get_binary_view (Gen *g, Operand *o, FwShapeRole role, const char *ctype, guint scratch, View *out, GError **error)
{
  if (g->rows_mode && role == FW_SHAPE_FULL && !o->mask && o->ctype != NULL && strcmp (o->ctype, ctype) == 0)
    {
      if (o->kind == KIND_SMALL && o->rowvec)
        {
          view_tensor (out, "");
          out->per_row = VIEW_ROW_VECTOR;
          g_snprintf (out->expr, sizeof out->expr, "raw%u", o->index);
          return TRUE;
        }
      if (o->kind != KIND_SMALL && o->kind != KIND_IMMEDIATE && o->role == FW_SHAPE_ROW)
        {
          view_tensor (out, "");
          out->per_row = VIEW_ROW_SCALAR;
          out->loaded = o->kind == KIND_INPUT;
          g_snprintf (out->expr, sizeof out->expr, "v%u", o->id);
          return TRUE;
        }
    }
  return get_view (g, o, role, ctype, scratch, out, error);
}

static gboolean emit_binary (Gen *g, const char *op, const char *dst, const View *a, const View *b, const char *count,
                             const char *ctype, GError **error);

/* Row r of a view, as emit_binary's single-row operand. */
static void
row_of (const View *v, View *out)
{
  if (v->per_row == VIEW_ROW_SCALAR)
    {
      char expr[192];
      g_snprintf (expr, sizeof expr, "static_cast<float>(%s.GetValue(r))", v->expr);
      view_scalar (out, expr);
    }
  else if (v->per_row == VIEW_ROW_VECTOR || v->scalar)
    {
      *out = *v;
      out->per_row = VIEW_WHOLE;
    }
  else
    {
      char expr[192];
      g_snprintf (expr, sizeof expr, "%s[r * ROW_STRIDE]", v->expr);
      view_tensor (out, expr);
    }
}

/* dst = a OP b where a or b is per row: one instruction per row of the tile, with the row's scalar or the
 * resident row as the operand (rows start ROW_STRIDE apart, 32-byte aligned). */
static gboolean
emit_binary_rows (Gen *g, const char *op, const char *dst, const View *a, const View *b, const char *ctype,
                  GError **error)
{
  View ra, rb;
  char rdst[64];

  if (a->per_row == VIEW_ROW_SCALAR || b->per_row == VIEW_ROW_SCALAR)
    {
      if ((a->per_row == VIEW_ROW_SCALAR && a->loaded) || (b->per_row == VIEW_ROW_SCALAR && b->loaded))
        emit (g, "      LoadToScalar();  /* per-row scalars read straight from the queue */\n");
      if ((a->per_row == VIEW_ROW_SCALAR && !a->loaded) || (b->per_row == VIEW_ROW_SCALAR && !b->loaded))
        emit (g, "      VectorToScalar();  /* per-row scalars computed by vector instructions */\n");
    }
  row_of (a, &ra);
  row_of (b, &rb);
  g_snprintf (rdst, sizeof rdst, "%s[r * ROW_STRIDE]", dst);
  emit (g, "      /* per row: %s */\n      for (uint32_t r = 0; r < rows; r++) {\n",
        a->per_row == VIEW_ROW_VECTOR || b->per_row == VIEW_ROW_VECTOR ? "the resident row operand" :
        "one scalar per row");
  if (!emit_binary (g, op, rdst, &ra, &rb, "static_cast<int32_t>(ROW_LEN)", ctype, error))
    return FALSE;
  emit (g, "      }\n");
  return TRUE;
}

/* dst = a OP b for OP in Add Sub Mul Div Max Min, with the scalar forms the API has. */
static gboolean
emit_binary (Gen *g, const char *op, const char *dst, const View *a, const View *b, const char *count,
             const char *ctype, GError **error)
{
  if (a->per_row != VIEW_WHOLE || b->per_row != VIEW_WHOLE)
    {
      if (a->per_row == VIEW_ROW_VECTOR && b->per_row == VIEW_ROW_VECTOR)
        {
          g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED, _("Ascend target: %s of two broadcast rows"), op);
          return FALSE;
        }
      return emit_binary_rows (g, op, dst, a, b, ctype, error);
    }
  if (a->scalar && b->scalar)
    {
      const char *sym = strcmp (op, "Add") == 0 ? "+" : strcmp (op, "Sub") == 0 ? "-" : strcmp (op, "Mul") == 0 ? "*" :
                        strcmp (op, "Div") == 0 ? "/" : NULL;
      if (sym == NULL)
        {
          g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED, _("Ascend target: %s of two scalars"), op);
          return FALSE;
        }
      emit (g, "      AscendC::Duplicate(%s, static_cast<%s>((%s) %s (%s)), %s);\n", dst, ctype, a->expr, sym, b->expr,
            count);
      return TRUE;
    }
  if (!a->scalar && !b->scalar)
    {
      emit (g, "      AscendC::%s(%s, %s, %s, %s);\n", op, dst, a->expr, b->expr, count);
      return TRUE;
    }
  {
    const View *t = a->scalar ? b : a, *s = a->scalar ? a : b;
    gboolean scalar_first = a->scalar;

    if (strcmp (op, "Add") == 0 || strcmp (op, "Mul") == 0 || strcmp (op, "Max") == 0 || strcmp (op, "Min") == 0)
      emit (g, "      AscendC::%ss(%s, %s, static_cast<%s>(%s), %s);\n", op, dst, t->expr, ctype, s->expr, count);
    else if (strcmp (op, "Sub") == 0 && !scalar_first)
      emit (g, "      AscendC::Adds(%s, %s, static_cast<%s>(-(%s)), %s);\n", dst, t->expr, ctype, s->expr, count);
    else if (strcmp (op, "Sub") == 0)
      emit (g, "      AscendC::Muls(%s, %s, static_cast<%s>(-1.0f), %s);\n"
               "      AscendC::Adds(%s, %s, static_cast<%s>(%s), %s);\n",
            dst, t->expr, ctype, count, dst, dst, ctype, s->expr, count);
    else if (strcmp (op, "Div") == 0 && !scalar_first)
      emit (g, "      AscendC::Muls(%s, %s, static_cast<%s>(1.0f / (%s)), %s);\n", dst, t->expr, ctype, s->expr, count);
    else if (strcmp (op, "Div") == 0)
      emit (g, "      AscendC::Reciprocal(%s, %s, %s);\n"
               "      AscendC::Muls(%s, %s, static_cast<%s>(%s), %s);\n",
            dst, t->expr, count, dst, dst, ctype, s->expr, count);
    else
      {
        g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED, _("Ascend target: no vector form of %s"), op);
        return FALSE;
      }
  }
  return TRUE;
}

/* Abramowitz and Stegun 7.1.26 (|error| < 1.5e-7): the vector unit has no Erf instruction.
 * erf(x) = sign(x) (1 − (a1 t + a2 t² + a3 t³ + a4 t⁴ + a5 t⁵) e^(−x²)), t = 1 / (1 + p|x|). */
static void
emit_erf (Gen *g, const char *dst, const char *src, const char *ctype)
{
  const char *c = "n";

  use_scratch (g, 0, ctype);
  use_scratch (g, 1, ctype);
  use_scratch (g, 2, ctype);
  emit (g, "      /* erf by Abramowitz-Stegun 7.1.26: no Erf instruction exists */\n");
  emit (g, "      AscendC::Abs(sA, %s, %s);\n", src, c);
  emit (g, "      AscendC::Muls(sB, sA, static_cast<%s>(0.3275911f), %s);\n", ctype, c);
  emit (g, "      AscendC::Adds(sB, sB, static_cast<%s>(1.0f), %s);\n", ctype, c);
  emit (g, "      AscendC::Reciprocal(sB, sB, %s);\n", c);
  emit (g, "      AscendC::Muls(sC, sB, static_cast<%s>(1.061405429f), %s);\n", ctype, c);
  emit (g, "      AscendC::Adds(sC, sC, static_cast<%s>(-1.453152027f), %s);\n", ctype, c);
  emit (g, "      AscendC::Mul(sC, sC, sB, %s);\n", c);
  emit (g, "      AscendC::Adds(sC, sC, static_cast<%s>(1.421413741f), %s);\n", ctype, c);
  emit (g, "      AscendC::Mul(sC, sC, sB, %s);\n", c);
  emit (g, "      AscendC::Adds(sC, sC, static_cast<%s>(-0.284496736f), %s);\n", ctype, c);
  emit (g, "      AscendC::Mul(sC, sC, sB, %s);\n", c);
  emit (g, "      AscendC::Adds(sC, sC, static_cast<%s>(0.254829592f), %s);\n", ctype, c);
  emit (g, "      AscendC::Mul(sC, sC, sB, %s);\n", c);
  emit (g, "      AscendC::Mul(sB, sA, sA, %s);\n", c);
  emit (g, "      AscendC::Muls(sB, sB, static_cast<%s>(-1.0f), %s);\n", ctype, c);
  emit (g, "      AscendC::Exp(sB, sB, %s);\n", c);
  emit (g, "      AscendC::Mul(sC, sC, sB, %s);\n", c);
  emit (g, "      AscendC::Muls(sC, sC, static_cast<%s>(-1.0f), %s);\n", ctype, c);
  emit (g, "      AscendC::Adds(sC, sC, static_cast<%s>(1.0f), %s);\n", ctype, c);
  /* sign(x) as x / (|x| + tiny): exact away from 0, and erf is 0 there anyway. */
  emit (g, "      AscendC::Adds(sA, sA, static_cast<%s>(1e-7f), %s);\n", ctype, c);
  emit (g, "      AscendC::Div(sA, %s, sA, %s);\n", src, c);
  emit (g, "      AscendC::Mul(%s, sC, sA, %s);\n", dst, c);
}

/* Sigmoid = 1 / (1 + e^(−x)) and tanh = 2 sigmoid(2x) − 1: no instruction for either; this form does not
 * overflow to inf/inf for large |x|. */
static void
emit_sigmoid (Gen *g, const char *dst, const char *src, const char *ctype, double scale)
{
  g_autofree char *lit = literal (-scale);

  emit (g, "      AscendC::Muls(%s, %s, static_cast<%s>(%s), n);\n", dst, src, ctype, lit);
  emit (g, "      AscendC::Exp(%s, %s, n);\n", dst, dst);
  emit (g, "      AscendC::Adds(%s, %s, static_cast<%s>(1.0f), n);\n", dst, dst, ctype);
  emit (g, "      AscendC::Reciprocal(%s, %s, n);\n", dst, dst);
}

static void
emit_row_reduce (Gen *g, const char *api, const char *dst, const char *src, const char *ctype)
{
  g->reduce = TRUE;
  emit (g, "      {\n");
  emit (g, "      AscendC::LocalTensor<%s> red0 = reduceBuf0.Get<%s>();\n", ctype, ctype);
  emit (g, "      AscendC::LocalTensor<%s> red1 = reduceBuf1.Get<%s>();\n", ctype, ctype);
  emit (g, "      for (uint32_t r = 0; r < rows; r++)\n"
           "        {\n"
           "          AscendC::%s(red0, %s[r * ROW_STRIDE], red1, static_cast<int32_t>(ROW_LEN));\n"
           "          VectorToScalar();\n"
           "          %s.SetValue(r, red0.GetValue(0));\n"
           "        }\n"
           "      ScalarToVector();\n"
           "      }\n",
        api, src, dst);
}

static const char *
unary_api (const char *op)
{
  static const char *const map[][2] = {
    { "Exp", "Exp" }, { "Log", "Ln" }, { "Abs", "Abs" }, { "Relu", "Relu" }, { "Sqrt", "Sqrt" },
    { "Reciprocal", "Reciprocal" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (map); i++)
    if (strcmp (op, map[i][0]) == 0)
      return map[i][1];
  return NULL;
}

static const char *
compare_mode (const char *op, gboolean swapped)
{
  static const char *const map[][3] = {
    { "Equal", "EQ", "EQ" }, { "Less", "LT", "GT" }, { "Greater", "GT", "LT" }, { "LessOrEqual", "LE", "GE" },
    { "GreaterOrEqual", "GE", "LE" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (map); i++)
    if (strcmp (op, map[i][0]) == 0)
      return map[i][swapped ? 2 : 1];
  return NULL;
}

/* The buffer that holds a mask and whether its bits are the negation of the value. */
static Operand *
mask_source (Operand *o, gboolean *invert)
{
  Operand *root = o->alias_of ? o->alias_of : o;

  *invert = (o->alias_of ? o->invert : FALSE) ^ root->invert;
  return root;
}

/* Comparisons, Not, casts to and from bool, and Where: Compare / CompareScalar write one bit per element,
 * Select reads them. Counts are whole 256-byte blocks (nMask), as both pages require; tile buffers are
 * rounded up to match, and the extra elements are never copied out. Returns FALSE with error unset when
 * the node is none of these. */
static gboolean
emit_mask_node (Gen *g, FwNode *node, Operand *out, Operand *ia, GError **error, gboolean *handled)
{
  const char *op = node->op_type;
  char dst[32];

  *handled = TRUE;
  g_snprintf (dst, sizeof dst, "v%u", out->id);
  if (out->alias_of != NULL)
    {
      emit (g, "      /* %s of a mask: no code, it reads v%u's bits%s */\n", op, out->alias_of->id,
            out->invert ? " inverted" : "");
      return TRUE;
    }
  if (compare_mode (op, FALSE) != NULL && out->mask)
    {
      Operand *ib = node->n_inputs == 2 && node->inputs[1] ? g_hash_table_lookup (g->operands, node->inputs[1]) : NULL;
      const char *ctype;
      View a, b;

      if (ia == NULL || ib == NULL || ia->mask || ib->mask)
        return FALSE;
      ctype = ia->kind != KIND_IMMEDIATE ? ia->ctype : ib->ctype;
      if (ctype == NULL || (strcmp (ctype, "int32_t") == 0 && strcmp (op, "Equal") != 0))
        {
          g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED,
                       _("Ascend target: %s on %s: Compare handles half and float, int32 only for equality"), op,
                       ctype ? ctype : "?");
          return FALSE;
        }
      if (!get_view (g, ia, FW_SHAPE_FULL, ctype, 0, &a, error) || !get_view (g, ib, FW_SHAPE_FULL, ctype, 1, &b, error))
        return FALSE;
      if (!a.scalar && !b.scalar)
        emit (g, "      AscendC::Compare(%s, %s, %s, AscendC::CMPMODE::%s, nMask);\n", dst, a.expr, b.expr,
              compare_mode (op, FALSE));
      else if (a.scalar != b.scalar)
        emit (g, "      AscendC::CompareScalar(%s, %s, static_cast<%s>(%s), AscendC::CMPMODE::%s, nMask);\n", dst,
              a.scalar ? b.expr : a.expr, ctype, a.scalar ? a.expr : b.expr, compare_mode (op, a.scalar));
      else
        {
          g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED, _("Ascend target: %s of two constants"), op);
          return FALSE;
        }
      return TRUE;
    }
  if (strcmp (op, "Cast") == 0 && out->mask && ia != NULL && !ia->mask)
    {
      View a;
      if (ia->kind == KIND_IMMEDIATE || !get_view (g, ia, FW_SHAPE_FULL, ia->ctype, 0, &a, error))
        return FALSE;
      if (is_float_ctype (ia->ctype))
        emit (g, "      AscendC::CompareScalar(%s, %s, static_cast<%s>(0.0f), AscendC::CMPMODE::NE, nMask);\n", dst,
              a.expr, ia->ctype);
      else
        {
          /* int32 compares for equality only: x != 0 is the inverse of x == 0. */
          emit (g, "      AscendC::CompareScalar(%s, %s, static_cast<int32_t>(0), AscendC::CMPMODE::EQ, nMask);"
                   "  /* bits are x == 0, read inverted */\n", dst, a.expr);
          out->invert = TRUE;
        }
      return TRUE;
    }
  if (strcmp (op, "Cast") == 0 && ia != NULL && ia->mask && !out->mask)
    {
      gboolean inv;
      Operand *m = mask_source (ia, &inv);
      if (!is_float_ctype (out->ctype))
        {
          g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED,
                       _("Ascend target: Cast from bool to %s: Select handles half and float"), out->ctype);
          return FALSE;
        }
      emit (g, "      AscendC::Duplicate(%s, static_cast<%s>(%s), static_cast<int32_t>(nMask));\n", dst, out->ctype,
            inv ? "0.0f" : "1.0f");
      emit (g, "      AscendC::Select(%s, v%u, %s, static_cast<%s>(%s), AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, nMask);\n",
            dst, m->id, dst, out->ctype, inv ? "1.0f" : "0.0f");
      return TRUE;
    }
  if (strcmp (op, "Where") == 0)
    {
      Operand *ix = node->n_inputs == 3 && node->inputs[1] ? g_hash_table_lookup (g->operands, node->inputs[1]) : NULL;
      Operand *iy = node->n_inputs == 3 && node->inputs[2] ? g_hash_table_lookup (g->operands, node->inputs[2]) : NULL;
      const char *ctype = out->ctype;
      gboolean inv;
      Operand *m;
      View x, y;
      const View *s0, *s1;

      if (ia == NULL || !ia->mask || ix == NULL || iy == NULL || ix->mask || iy->mask)
        {
          g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED,
                       _("Ascend target: Where needs a condition computed in the kernel and non-bool values"));
          return FALSE;
        }
      if (!is_float_ctype (ctype) || out->role != FW_SHAPE_FULL)
        {
          g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED,
                       _("Ascend target: Where on %s over %s: Select handles half and float tiles"), ctype,
                       out->role == FW_SHAPE_FULL ? _("the tile") : _("reduced rows"));
          return FALSE;
        }
      if (!get_view (g, ix, FW_SHAPE_FULL, ctype, 0, &x, error) || !get_view (g, iy, FW_SHAPE_FULL, ctype, 1, &y, error))
        return FALSE;
      m = mask_source (ia, &inv);
      /* Select takes src0 where the bit is 1: swap the values when the bits are inverted. */
      s0 = inv ? &y : &x;
      s1 = inv ? &x : &y;
      if (!s0->scalar && !s1->scalar)
        emit (g, "      AscendC::Select(%s, v%u, %s, %s, AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, nMask);\n", dst,
              m->id, s0->expr, s1->expr);
      else if (!s0->scalar)
        emit (g, "      AscendC::Select(%s, v%u, %s, static_cast<%s>(%s), AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, nMask);\n",
              dst, m->id, s0->expr, ctype, s1->expr);
      else if (!s1->scalar)
        {
          /* Only src1 may be a scalar: fill src0's constant into scratch. */
          use_scratch (g, 2, ctype);
          emit (g, "      AscendC::Duplicate(sC, static_cast<%s>(%s), static_cast<int32_t>(nMask));\n", ctype, s0->expr);
          emit (g, "      AscendC::Select(%s, v%u, sC, %s, AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE, nMask);\n", dst, m->id,
                s1->expr);
        }
      else
        {
          emit (g, "      AscendC::Duplicate(%s, static_cast<%s>(%s), static_cast<int32_t>(nMask));\n", dst, ctype, s0->expr);
          emit (g, "      AscendC::Select(%s, v%u, %s, static_cast<%s>(%s), AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, nMask);\n",
                dst, m->id, dst, ctype, s1->expr);
        }
      return TRUE;
    }
  *handled = FALSE;
  return FALSE;
}

/* LayerNormalization normalises from `axis` on: those axes must be exactly the planner's row. */
static gboolean
layer_norm_rows_match (Gen *g, const FwNode *node)
{
  const FwValue *x = node->inputs[0];
  gint64 axis = fw_node_get_attr_int (node, "axis", -1);
  gint64 prod = 1;

  if (x == NULL || x->rank <= 0)
    return FALSE;
  if (axis < 0)
    axis += x->rank;
  if (axis < 0 || axis >= x->rank)
    return FALSE;
  for (gint i = (gint) axis; i < x->rank; i++)
    prod *= x->dims[i].value;
  return prod == g->row_len;
}

static gboolean
emit_node (Gen *g, guint pos, FwNode *node, GError **error)
{
  const char *op = node->op_type;
  Operand *out = g_hash_table_lookup (g->operands, node->outputs[0]);
  const char *ctype = out->ctype;
  gboolean row_out = out->role == FW_SHAPE_ROW;
  const char *count = row_out ? "rowsN" : "n";
  char dst[32];
  View a = { 0 }, b = { 0 };
  Operand *ia = NULL, *ib = NULL;
  g_autofree char *label = fw_ascend_escape_comment (node_label (node));

  g_snprintf (dst, sizeof dst, "v%u", out->id);
  if (node->domain[0] != '\0')
    goto unsupported;
  if (node->n_inputs >= 1 && node->inputs[0])
    ia = g_hash_table_lookup (g->operands, node->inputs[0]);
  if (node->n_inputs >= 2 && node->inputs[1])
    ib = g_hash_table_lookup (g->operands, node->inputs[1]);
  emit (g, "    /* node %u: %s \"%s\" */\n    {\n", pos, op, label);
  if (out->mask || (ia != NULL && ia->mask) || strcmp (op, "Where") == 0)
    {
      gboolean handled = FALSE;
      if (emit_mask_node (g, node, out, ia, error, &handled))
        {
          emit (g, "    }\n");
          return TRUE;
        }
      if (handled && error != NULL && *error != NULL)
        return FALSE;
      goto unsupported;
    }

  if (strcmp (op, "Cast") == 0)
    {
      const char *mode;
      if (ia == NULL || ia->kind == KIND_IMMEDIATE || ia->kind == KIND_SMALL || ia->role != out->role)
        goto unsupported;
      if (strcmp (ia->ctype, ctype) == 0)
        emit (g, "      AscendC::Muls(%s, v%u, static_cast<%s>(1), %s);\n", dst, ia->id, ctype, count);
      else
        {
          if (is_float_ctype (ia->ctype) && !is_float_ctype (ctype))
            mode = "CAST_TRUNC";
          else if (strcmp (ia->ctype, "float") == 0 && strcmp (ctype, "half") == 0)
            mode = "CAST_RINT";
          else
            mode = "CAST_NONE";
          emit (g, "      AscendC::Cast(%s, v%u, AscendC::RoundMode::%s, static_cast<uint32_t>(%s));\n", dst, ia->id,
                mode, count);
        }
      emit (g, "    }\n");
      return TRUE;
    }
  if (!is_float_ctype (ctype))
    goto unsupported;
  if (strcmp (op, "Add") == 0 || strcmp (op, "Sub") == 0 || strcmp (op, "Mul") == 0 || strcmp (op, "Div") == 0 ||
      strcmp (op, "Max") == 0 || strcmp (op, "Min") == 0)
    {
      if (ia == NULL || !get_binary_view (g, ia, out->role, ctype, 0, &a, error))
        return FALSE;
      if (ib == NULL || node->n_inputs != 2 || !get_binary_view (g, ib, out->role, ctype, 1, &b, error))
        return ib == NULL ? (g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED,
                                          _("Ascend target: %s with %u inputs"), op, node->n_inputs), FALSE) : FALSE;
      if (!emit_binary (g, op, dst, &a, &b, count, ctype, error))
        return FALSE;
    }
  /* A row reduction reads the full tile and writes one value per row. */
  else if (ia != NULL && !get_view (g, ia, g_str_has_prefix (op, "Reduce") || g_str_has_prefix (op, "Global") ?
                                               FW_SHAPE_FULL : out->role, ctype, 0, &a, error))
    return FALSE;
  else if (a.scalar)
    goto unsupported;
  else if (unary_api (op) != NULL)
    emit (g, "      AscendC::%s(%s, %s, %s);\n", unary_api (op), dst, a.expr, count);
  else if (strcmp (op, "Neg") == 0)
    emit (g, "      AscendC::Muls(%s, %s, static_cast<%s>(-1.0f), %s);\n", dst, a.expr, ctype, count);
  else if (strcmp (op, "Identity") == 0 || strcmp (op, "Dropout") == 0 || strcmp (op, "Reshape") == 0 ||
           strcmp (op, "Flatten") == 0 || strcmp (op, "Squeeze") == 0 || strcmp (op, "Unsqueeze") == 0)
    {
      if (ia->role != out->role)
        goto unsupported;
      emit (g, "      AscendC::Muls(%s, %s, static_cast<%s>(1.0f), %s);  /* a copy: same elements, same order */\n",
            dst, a.expr, ctype, count);
    }
  else if (strcmp (op, "Pow") == 0)
    {
      if (ib == NULL || !get_view (g, ib, out->role, ctype, 1, &b, error))
        return FALSE;
      if (ib->kind == KIND_IMMEDIATE && ib->imm == 2.0)
        emit (g, "      AscendC::Mul(%s, %s, %s, %s);\n", dst, a.expr, a.expr, count);
      else if (ib->kind == KIND_IMMEDIATE && ib->imm == 0.5)
        emit (g, "      AscendC::Sqrt(%s, %s, %s);\n", dst, a.expr, count);
      else if (ib->kind == KIND_IMMEDIATE && ib->imm == 1.0)
        emit (g, "      AscendC::Muls(%s, %s, static_cast<%s>(1.0f), %s);\n", dst, a.expr, ctype, count);
      else if (ib->kind == KIND_IMMEDIATE && ib->imm == 3.0)
        emit (g, "      AscendC::Mul(%s, %s, %s, %s);\n      AscendC::Mul(%s, %s, %s, %s);\n", dst, a.expr, a.expr,
              count, dst, dst, a.expr, count);
      else if (ib->kind == KIND_IMMEDIATE && ib->imm == -1.0)
        emit (g, "      AscendC::Reciprocal(%s, %s, %s);\n", dst, a.expr, count);
      else
        {
          /* x^y = e^(y ln x): no Pow instruction; defined for x > 0 only, as the comment in the README says. */
          emit (g, "      /* x^y = exp(y ln x), valid for x > 0: no vector Pow instruction */\n");
          emit (g, "      AscendC::Ln(%s, %s, %s);\n", dst, a.expr, count);
          if (b.scalar)
            emit (g, "      AscendC::Muls(%s, %s, static_cast<%s>(%s), %s);\n", dst, dst, ctype, b.expr, count);
          else
            emit (g, "      AscendC::Mul(%s, %s, %s, %s);\n", dst, dst, b.expr, count);
          emit (g, "      AscendC::Exp(%s, %s, %s);\n", dst, dst, count);
        }
    }
  else if (strcmp (op, "Sigmoid") == 0)
    {
      emit (g, "      /* sigmoid = 1 / (1 + exp(-x)): no Sigmoid instruction */\n");
      emit_sigmoid (g, dst, a.expr, ctype, 1.0);
    }
  else if (strcmp (op, "Tanh") == 0)
    {
      emit (g, "      /* tanh = 2 sigmoid(2x) - 1: no Tanh instruction */\n");
      emit_sigmoid (g, dst, a.expr, ctype, 2.0);
      emit (g, "      AscendC::Muls(%s, %s, static_cast<%s>(2.0f), n);\n", dst, dst, ctype);
      emit (g, "      AscendC::Adds(%s, %s, static_cast<%s>(-1.0f), n);\n", dst, dst, ctype);
    }
  else if (strcmp (op, "Erf") == 0)
    emit_erf (g, dst, a.expr, ctype);
  else if (strcmp (op, "Gelu") == 0)
    {
      const char *approx = fw_node_get_attr_string (node, "approximate");
      if (approx != NULL && strcmp (approx, "none") != 0)
        goto unsupported;
      emit (g, "      /* gelu = x (1 + erf(x / sqrt 2)) / 2, erf composed below */\n");
      /* erf reads its argument from dst and writes back there: it needs all three scratch buffers. */
      emit (g, "      AscendC::Muls(%s, %s, static_cast<%s>(0.70710678f), n);\n", dst, a.expr, ctype);
      emit_erf (g, dst, dst, ctype);
      emit (g, "      AscendC::Adds(%s, %s, static_cast<%s>(1.0f), n);\n", dst, dst, ctype);
      emit (g, "      AscendC::Mul(%s, %s, %s, n);\n", dst, dst, a.expr);
      emit (g, "      AscendC::Muls(%s, %s, static_cast<%s>(0.5f), n);\n", dst, dst, ctype);
    }
  else if (strcmp (op, "LeakyRelu") == 0)
    {
      g_autofree char *alpha = literal (fw_node_get_attr_float (node, "alpha", 0.01f));
      use_scratch (g, 1, ctype);
      emit (g, "      /* leaky relu = max(x, 0) + alpha min(x, 0) */\n");
      emit (g, "      AscendC::Maxs(sB, %s, static_cast<%s>(0.0f), n);\n", a.expr, ctype);
      emit (g, "      AscendC::Mins(%s, %s, static_cast<%s>(0.0f), n);\n", dst, a.expr, ctype);
      emit (g, "      AscendC::Muls(%s, %s, static_cast<%s>(%s), n);\n", dst, dst, ctype, alpha);
      emit (g, "      AscendC::Add(%s, %s, sB, n);\n", dst, dst);
    }
  else if (strcmp (op, "Clip") == 0)
    {
      Operand *lo = node->n_inputs > 1 && node->inputs[1] ? g_hash_table_lookup (g->operands, node->inputs[1]) : NULL;
      Operand *hi = node->n_inputs > 2 && node->inputs[2] ? g_hash_table_lookup (g->operands, node->inputs[2]) : NULL;
      g_autofree char *lo_lit = NULL, *hi_lit = NULL;
      if ((lo && lo->kind != KIND_IMMEDIATE) || (hi && hi->kind != KIND_IMMEDIATE))
        goto unsupported;
      lo_lit = literal (lo ? lo->imm : fw_node_get_attr_float (node, "min", -INFINITY));
      hi_lit = literal (hi ? hi->imm : fw_node_get_attr_float (node, "max", INFINITY));
      emit (g, "      AscendC::Maxs(%s, %s, static_cast<%s>(%s), %s);\n", dst, a.expr, ctype, lo_lit, count);
      emit (g, "      AscendC::Mins(%s, %s, static_cast<%s>(%s), %s);\n", dst, dst, ctype, hi_lit, count);
    }
  else if (strcmp (op, "BatchNormalization") == 0 && node->n_inputs == 5 && !row_out)
    {
      View scale, bias, mean, var, eps;
      g_autofree char *eps_lit = literal (fw_node_get_attr_float (node, "epsilon", 1e-5f));
      Operand *ops[4];
      for (guint k = 0; k < 4; k++)
        {
          ops[k] = node->inputs[k + 1] ? g_hash_table_lookup (g->operands, node->inputs[k + 1]) : NULL;
          if (ops[k] == NULL)
            goto unsupported;
        }
      if (!get_view (g, ops[0], FW_SHAPE_FULL, ctype, 0, &scale, error) ||
          !get_view (g, ops[1], FW_SHAPE_FULL, ctype, 0, &bias, error) ||
          !get_view (g, ops[2], FW_SHAPE_FULL, ctype, 0, &mean, error) ||
          !get_view (g, ops[3], FW_SHAPE_FULL, ctype, 0, &var, error))
        return FALSE;
      view_scalar (&eps, eps_lit);
      emit (g, "      /* inference batch norm: (x - mean) / sqrt(var + eps) * scale + bias */\n");
      use_scratch (g, 1, ctype);
      {
        View d, sb;
        view_tensor (&d, dst);
        view_tensor (&sb, "sB");
        if (!emit_binary (g, "Sub", dst, &a, &mean, "n", ctype, error) ||
            !emit_binary (g, "Add", "sB", &var, &eps, "n", ctype, error))
          return FALSE;
        emit (g, "      AscendC::Sqrt(sB, sB, n);\n");
        if (!emit_binary (g, "Div", dst, &d, &sb, "n", ctype, error) ||
            !emit_binary (g, "Mul", dst, &d, &scale, "n", ctype, error) ||
            !emit_binary (g, "Add", dst, &d, &bias, "n", ctype, error))
          return FALSE;
      }
    }
  else if (g_str_has_prefix (op, "Reduce") && row_out && ia->role == FW_SHAPE_FULL &&
           (strcmp (op, "ReduceSum") == 0 || strcmp (op, "ReduceMean") == 0 || strcmp (op, "ReduceMax") == 0 ||
            strcmp (op, "ReduceMin") == 0))
    {
      const char *api = strcmp (op, "ReduceMax") == 0 ? "ReduceMax" : strcmp (op, "ReduceMin") == 0 ? "ReduceMin" :
                        "ReduceSum";
      emit_row_reduce (g, api, dst, a.expr, ctype);
      if (strcmp (op, "ReduceMean") == 0)
        {
          g_autofree char *inv = literal (1.0 / (double) g->row_len);
          emit (g, "      AscendC::Muls(%s, %s, static_cast<%s>(%s), rowsN);\n", dst, dst, ctype, inv);
        }
    }
  else if (strcmp (op, "HardSigmoid") == 0 || strcmp (op, "HardSwish") == 0)
    {
      gboolean swish = strcmp (op, "HardSwish") == 0;
      g_autofree char *alpha = literal (swish ? 1.0 / 6.0 : fw_node_get_attr_float (node, "alpha", 0.2f));
      g_autofree char *beta = literal (swish ? 0.5 : fw_node_get_attr_float (node, "beta", 0.5f));
      emit (g, "      /* hard sigmoid = min(max(alpha x + beta, 0), 1)%s: no instruction for it */\n",
            swish ? "; hard swish = x hard sigmoid(x)" : "");
      emit (g, "      AscendC::Muls(%s, %s, static_cast<%s>(%s), %s);\n", dst, a.expr, ctype, alpha, count);
      emit (g, "      AscendC::Adds(%s, %s, static_cast<%s>(%s), %s);\n", dst, dst, ctype, beta, count);
      emit (g, "      AscendC::Maxs(%s, %s, static_cast<%s>(0.0f), %s);\n", dst, dst, ctype, count);
      emit (g, "      AscendC::Mins(%s, %s, static_cast<%s>(1.0f), %s);\n", dst, dst, ctype, count);
      if (swish)
        emit (g, "      AscendC::Mul(%s, %s, %s, %s);\n", dst, dst, a.expr, count);
    }
  else if ((strcmp (op, "GlobalAveragePool") == 0 || strcmp (op, "GlobalMaxPool") == 0) && row_out &&
           ia->role == FW_SHAPE_FULL)
    {
      /* The planner makes the spatial axes the row: one value per (n, c). */
      gboolean avg = strcmp (op, "GlobalAveragePool") == 0;
      emit_row_reduce (g, avg ? "ReduceSum" : "ReduceMax", dst, a.expr, ctype);
      if (avg)
        {
          g_autofree char *inv = literal (1.0 / (double) g->row_len);
          emit (g, "      AscendC::Muls(%s, %s, static_cast<%s>(%s), rowsN);\n", dst, dst, ctype, inv);
        }
    }
  else if (strcmp (op, "LayerNormalization") == 0 && g->rows_mode && !row_out && ia->role == FW_SHAPE_FULL &&
           layer_norm_rows_match (g, node))
    {
      g_autofree char *inv = literal (1.0 / (double) g->row_len);
      g_autofree char *eps = literal (fw_node_get_attr_float (node, "epsilon", 1e-5f));
      Operand *iscale = ib;
      Operand *ibias = node->n_inputs > 2 && node->inputs[2] ? g_hash_table_lookup (g->operands, node->inputs[2]) : NULL;
      View scale, bias, d;

      if (iscale == NULL || !get_binary_view (g, iscale, FW_SHAPE_FULL, ctype, 1, &scale, error) ||
          (ibias != NULL && !get_binary_view (g, ibias, FW_SHAPE_FULL, ctype, 2, &bias, error)))
        return FALSE;
      g->row_scratch = TRUE;
      use_scratch (g, 0, ctype);
      emit (g, "      /* layer norm over the row: (x - mean) / sqrt(mean((x - mean)^2) + eps) * scale + bias */\n");
      emit (g, "      AscendC::LocalTensor<%s> sR = rowScratch.Get<%s>();\n", ctype, ctype);
      emit_row_reduce (g, "ReduceSum", "sR", a.expr, ctype);
      emit (g, "      AscendC::Muls(sR, sR, static_cast<%s>(%s), rowsN);\n", ctype, inv);
      emit (g, "      VectorToScalar();\n"
               "      for (uint32_t r = 0; r < rows; r++)\n"
               "        AscendC::Adds(%s[r * ROW_STRIDE], %s[r * ROW_STRIDE], static_cast<%s>(-static_cast<float>(sR.GetValue(r))), static_cast<int32_t>(ROW_LEN));\n",
            dst, a.expr, ctype);
      emit (g, "      AscendC::Mul(sA, %s, %s, n);\n", dst, dst);
      emit_row_reduce (g, "ReduceSum", "sR", "sA", ctype);
      emit (g, "      AscendC::Muls(sR, sR, static_cast<%s>(%s), rowsN);\n", ctype, inv);
      emit (g, "      AscendC::Adds(sR, sR, static_cast<%s>(%s), rowsN);\n", ctype, eps);
      emit (g, "      AscendC::Sqrt(sR, sR, rowsN);\n");
      emit (g, "      VectorToScalar();\n"
               "      for (uint32_t r = 0; r < rows; r++)\n"
               "        AscendC::Muls(%s[r * ROW_STRIDE], %s[r * ROW_STRIDE], static_cast<%s>(1.0f / static_cast<float>(sR.GetValue(r))), static_cast<int32_t>(ROW_LEN));\n",
            dst, dst, ctype);
      view_tensor (&d, dst);
      if (!emit_binary (g, "Mul", dst, &d, &scale, "n", ctype, error) ||
          (ibias != NULL && !emit_binary (g, "Add", dst, &d, &bias, "n", ctype, error)))
        return FALSE;
    }
  else if (strcmp (op, "LogSoftmax") == 0 && g->rows_mode && !row_out && ia->role == FW_SHAPE_FULL)
    {
      g->row_scratch = TRUE;
      use_scratch (g, 0, ctype);
      emit (g, "      /* log softmax over the row: (x - max) - ln(sum(exp(x - max))), with row reductions */\n");
      emit (g, "      AscendC::LocalTensor<%s> sR = rowScratch.Get<%s>();\n", ctype, ctype);
      emit_row_reduce (g, "ReduceMax", "sR", a.expr, ctype);
      emit (g, "      for (uint32_t r = 0; r < rows; r++)\n"
               "        AscendC::Adds(%s[r * ROW_STRIDE], %s[r * ROW_STRIDE], static_cast<%s>(-static_cast<float>(sR.GetValue(r))), static_cast<int32_t>(ROW_LEN));\n",
            dst, a.expr, ctype);
      emit (g, "      AscendC::Exp(sA, %s, n);\n", dst);
      emit_row_reduce (g, "ReduceSum", "sR", "sA", ctype);
      emit (g, "      AscendC::Ln(sR, sR, rowsN);\n");
      emit (g, "      VectorToScalar();\n"
               "      for (uint32_t r = 0; r < rows; r++)\n"
               "        AscendC::Adds(%s[r * ROW_STRIDE], %s[r * ROW_STRIDE], static_cast<%s>(-static_cast<float>(sR.GetValue(r))), static_cast<int32_t>(ROW_LEN));\n",
            dst, dst, ctype);
    }
  else if (strcmp (op, "Softmax") == 0 && g->rows_mode && !row_out && ia->role == FW_SHAPE_FULL)
    {
      g->row_scratch = TRUE;
      emit (g, "      /* softmax over the row: exp(x - max) / sum, with row reductions */\n");
      emit (g, "      AscendC::LocalTensor<%s> sR = rowScratch.Get<%s>();\n", ctype, ctype);
      emit_row_reduce (g, "ReduceMax", "sR", a.expr, ctype);
      emit (g, "      for (uint32_t r = 0; r < rows; r++)\n"
               "        AscendC::Adds(%s[r * ROW_STRIDE], %s[r * ROW_STRIDE], static_cast<%s>(-static_cast<float>(sR.GetValue(r))), static_cast<int32_t>(ROW_LEN));\n",
            dst, a.expr, ctype);
      emit (g, "      AscendC::Exp(%s, %s, n);\n", dst, dst);
      emit_row_reduce (g, "ReduceSum", "sR", dst, ctype);
      emit (g, "      for (uint32_t r = 0; r < rows; r++)\n"
               "        AscendC::Muls(%s[r * ROW_STRIDE], %s[r * ROW_STRIDE], static_cast<%s>(1.0f / static_cast<float>(sR.GetValue(r))), static_cast<int32_t>(ROW_LEN));\n",
            dst, dst, ctype);
    }
  else
    goto unsupported;
  emit (g, "    }\n");
  return TRUE;

unsupported:
  g_clear_error (error);
  g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED,
               _("Ascend target: no Ascend C lowering for %s%s%s here (node %u of the group)"),
               node->domain[0] ? node->domain : "", node->domain[0] ? "::" : "", op, pos);
  return FALSE;
}

/* A broadcast operand gets a tile-shaped copy unless it is one scalar or a resident row. */
static gboolean
needs_expand (const Operand *o)
{
  return o->elements > 1 && !o->rowvec;
}

static void
add_kernel_buffer (Gen *g, FwShapeRole role, guint eb, guint copies, gint64 elements)
{
  KernelBuffer b = { role, eb, copies, elements };
  g_array_append_val (g->kernel_buffers, b);
}

/* What Init allocates, in the same order: queues, temp slots, scratch, reduction work, broadcast buffers. */
static void
collect_kernel_buffers (Gen *g)
{
  for (guint i = 0; i < g->inputs->len; i++)
    {
      Operand *o = g_ptr_array_index (g->inputs, i);
      add_kernel_buffer (g, o->role, o->eb, 2, 0);
    }
  for (guint i = 0; i < g->outputs->len; i++)
    {
      Operand *o = g_ptr_array_index (g->outputs, i);
      add_kernel_buffer (g, o->role, o->eb, 2, 0);
    }
  for (guint s = 0; s < g->slot_eb->len; s++)
    add_kernel_buffer (g, FW_SHAPE_FULL, g_array_index (g->slot_eb, guint, s), 1, 0);
  for (guint s = 0; s < 3; s++)
    if (g->scratch[s])
      add_kernel_buffer (g, FW_SHAPE_FULL, g->max_eb, 1, 0);
  if (g->row_scratch)
    add_kernel_buffer (g, FW_SHAPE_ROW, g->max_eb, 1, 0);
  if (g->reduce)
    {
      add_kernel_buffer (g, FW_SHAPE_OTHER, 1, 1, 32);
      add_kernel_buffer (g, FW_SHAPE_OTHER, 1, 1, g->row_len * g->max_eb);
    }
  for (guint i = 0; i < g->smalls->len; i++)
    {
      Operand *o = g_ptr_array_index (g->smalls, i);
      add_kernel_buffer (g, FW_SHAPE_OTHER, 1, 1, o->elements * o->eb);
      if (needs_expand (o))
        add_kernel_buffer (g, FW_SHAPE_FULL, o->eb, 1, 0);
    }
}

static const char *
role_name (FwShapeRole role)
{
  return role == FW_SHAPE_FULL ? "ROLE_FULL" : role == FW_SHAPE_ROW ? "ROLE_ROW" : "ROLE_OTHER";
}

/* The header comment every file starts with: what the kernel is, with the model's names escaped. */
static void
append_header (Gen *g, GString *s, const char *what)
{
  g_autofree char *pattern = fw_ascend_escape_comment (g->cand->pattern);

  g_string_append_printf (s, "/* %s: %s for candidate %u (%s), generated by Fusion Workbench.\n", g->name, what,
                          g->cand->index, pattern);
  g_string_append (s, " * Nodes:\n");
  for (guint i = 0; i < g->cand->nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (g->cand->nodes, i);
      g_autofree char *label = fw_ascend_escape_comment (node_label (node));
      g_autofree char *op = fw_ascend_escape_comment (node->op_type);
      g_string_append_printf (s, " *   %u %s \"%s\"%s\n", i, op, label,
                              node == g->cand->root ? " (runs as CANN's own cube operator; not in this kernel)" : "");
    }
  if (g->cand->root != NULL)
    g_string_append (s, " * The cube part (MatMul, Gemm or Conv) runs as CANN's own operator and writes its result to\n"
                        " * global memory; this kernel is the vector epilogue fused after it and reads that result.\n");
  g_string_append (s, " */\n");
}

static char *
gen_tiling_header (Gen *g, const FwAscendTiling *t)
{
  GString *s = g_string_new (NULL);
  g_autofree char *upper = g_ascii_strup (g->name, -1);

  append_header (g, s, "tiling data");
  g_string_append_printf (s,
    "#ifndef %s_TILING_H\n#define %s_TILING_H\n\n#include <cstdint>\n\n"
    "/* Filled on the host by %sComputeTiling, read by the kernel from global memory. */\n"
    "struct %s\n{\n"
    "  uint64_t totalLength;    /* elements of the iteration space */\n"
    "  uint64_t tileLength;     /* elements per tile */\n"
    "  uint64_t tileNum;        /* tiles in all */\n"
    "  uint64_t rows;           /* rows per tile (row reductions), 0 otherwise */\n"
    "  uint64_t rowLength;      /* elements per row, 0 without row reductions */\n"
    "  uint64_t blockNum;       /* cores to launch */\n"
    "  uint64_t tilesPerBlock;  /* tiles each core runs (the last may run fewer) */\n"
    "};\n\n"
    "/* The profile the plan used, as defaults for the host tiling function. */\n"
    "#define %s_UB_BYTES %" G_GUINT64_FORMAT "u\n"
    "#define %s_UB_RESERVE_BYTES %" G_GUINT64_FORMAT "u\n"
    "#define %s_BUDGET_FRACTION %.6f\n"
    "#define %s_UB_ALIGN_BYTES %uu\n"
    "#define %s_VECTOR_CORES %uu\n\n"
    "/* What the generator computed for that profile. */\n"
    "#define %s_TOTAL_LENGTH %" G_GINT64_FORMAT "u\n"
    "#define %s_TILE_LENGTH %" G_GINT64_FORMAT "u\n"
    "#define %s_TILE_NUM %" G_GINT64_FORMAT "u\n"
    "#define %s_ROWS %" G_GINT64_FORMAT "u\n"
    "#define %s_ROW_LENGTH %" G_GINT64_FORMAT "u\n"
    "#define %s_BLOCK_NUM %" G_GINT64_FORMAT "u\n\n"
    "/* Sizes the tile from the Unified Buffer budget as the planner's estimate did; 0 on success, -1 when no\n"
    " * tile fits. */\n"
    "extern \"C\" int %sComputeTiling(uint64_t ubBytes, uint64_t ubReserveBytes, double budgetFraction,\n"
    "                                 uint32_t alignBytes, uint32_t vectorCores, %s *tiling);\n\n"
    "#endif\n",
    upper, upper, g->struct_name, g->struct_name,
    upper, g->profile->ub_bytes, upper, g->profile->ub_reserve_bytes, upper, g->profile->budget_fraction,
    upper, MAX (g->profile->ub_align_bytes, 1u), upper, MAX (g->profile->vector_cores, 1u),
    upper, t->total_length, upper, t->tile_length, upper, t->tile_num, upper, t->rows, upper, t->row_length,
    upper, t->block_num, g->struct_name, g->struct_name);
  return g_string_free (s, FALSE);
}

static char *
gen_host_tiling (Gen *g)
{
  GString *s = g_string_new (NULL);
  gdouble unit_kind = g->rows_mode ? 0 : g->cand->root != NULL ? 1 : 2;

  append_header (g, s, "host tiling");
  g_string_append_printf (s, "#include <cmath>\n#include <cstdint>\n\n#include \"%s_tiling.h\"\n\n", g->name);
  g_string_append (s,
    "namespace {\n\n"
    "enum Role { ROLE_FULL, ROLE_ROW, ROLE_OTHER };\n\n"
    "/* The planner's buffer model (Fusion Workbench core/plan/fw-estimate.c): streamed buffers twice, the\n"
    " * intermediates alive at the busiest position once. */\n"
    "struct PlanBuffer\n{\n  Role role;\n  uint32_t elemBytes;\n  double elements;\n  bool streamed;\n"
    "  uint32_t first;\n  uint32_t last;\n};\n\n"
    "const PlanBuffer kPlanBuffers[] = {\n");
  for (guint i = 0; i < fw_kernel_spec_get_n_buffers (g->spec); i++)
    {
      const FwSpecBuffer *b = fw_kernel_spec_get_buffer (g->spec, i);
      g_string_append_printf (s, "  { %s, %uu, %" G_GINT64_FORMAT ".0, %s, %uu, %uu },\n", role_name (b->role),
                              b->elem_bytes, b->elements, b->streamed ? "true" : "false", b->first, b->last);
    }
  g_string_append (s, "};\n\n"
    "/* What the kernel's Init allocates: tile-shaped, row-shaped or fixed-size buffers. */\n"
    "struct KernelBuffer\n{\n  Role role;\n  uint32_t elemBytes;\n  uint32_t copies;\n  double fixedBytes;\n};\n\n"
    "const KernelBuffer kKernelBuffers[] = {\n");
  for (guint i = 0; i < g->kernel_buffers->len; i++)
    {
      KernelBuffer *b = &g_array_index (g->kernel_buffers, KernelBuffer, i);
      g_string_append_printf (s, "  { %s, %uu, %uu, %" G_GINT64_FORMAT ".0 },\n", role_name (b->role), b->eb,
                              b->copies, b->elements);
    }
  g_string_append_printf (s, "};\n\n"
    "const uint32_t kPositions = %uu;\n"
    "const double kTotal = %" G_GINT64_FORMAT ".0;\n"
    "const double kRow = %" G_GINT64_FORMAT ".0;\n"
    "const double kRowStride = %" G_GINT64_FORMAT ".0;\n"
    "const int kUnitKind = %d;  /* 0 whole rows, 1 one 16x16 cube fractal, 2 one aligned block */\n"
    "const double kFullAlign = %u.0;  /* elements a tile buffer is rounded up to */\n\n",
    g->cand->nodes->len, g->total, g->rows_mode ? g->row_len : 1, g->rows_mode ? g->row_stride : 0,
    (int) unit_kind, full_align (g));
  g_string_append (s,
    "double AlignUp(double bytes, uint32_t align)\n{\n"
    "  return align <= 1 ? bytes : std::ceil(bytes / align) * align;\n}\n\n"
    "double Footprint(const PlanBuffer &b, double tile, double rows)\n{\n"
    "  if (b.role == ROLE_FULL)\n    return tile;\n"
    "  if (b.role == ROLE_ROW)\n    return rows;\n"
    "  return b.elements < tile ? b.elements : tile;\n}\n\n"
    "double PlanBytes(double tile, double rows, uint32_t align)\n{\n"
    "  double streamed = 0, peak = 0;\n"
    "  for (const PlanBuffer &b : kPlanBuffers)\n"
    "    if (b.streamed)\n      streamed += 2 * AlignUp(Footprint(b, tile, rows) * b.elemBytes, align);\n"
    "  for (uint32_t p = 0; p < kPositions; p++) {\n"
    "    double live = 0;\n"
    "    for (const PlanBuffer &b : kPlanBuffers)\n"
    "      if (!b.streamed && b.first <= p && b.last >= p)\n"
    "        live += AlignUp(Footprint(b, tile, rows) * b.elemBytes, align);\n"
    "    if (live > peak)\n      peak = live;\n"
    "  }\n"
    "  return streamed + peak;\n}\n\n"
    "double KernelBytes(double tile, double rows)\n{\n"
    "  double total = 0;\n"
    "  for (const KernelBuffer &b : kKernelBuffers) {\n"
    "    double bytes;\n"
    "    if (b.role == ROLE_FULL)\n"
    "      bytes = std::ceil((kUnitKind == 0 ? rows * kRowStride : tile) / kFullAlign) * kFullAlign * b.elemBytes;\n"
    "    else if (b.role == ROLE_ROW)\n"
    "      bytes = AlignUp(rows * b.elemBytes, 32);\n"
    "    else\n"
    "      bytes = AlignUp(b.fixedBytes, 32);\n"
    "    total += bytes * b.copies;\n"
    "  }\n"
    "  return total;\n}\n\n"
    "}  // namespace\n\n");
  g_string_append_printf (s,
    "extern \"C\" int %sComputeTiling(uint64_t ubBytes, uint64_t ubReserveBytes, double budgetFraction,\n"
    "                                 uint32_t alignBytes, uint32_t vectorCores, %s *tiling)\n{\n"
    "  double budget = (static_cast<double>(ubBytes) - static_cast<double>(ubReserveBytes)) * budgetFraction;\n"
    "  double ub = static_cast<double>(ubBytes) - static_cast<double>(ubReserveBytes);\n"
    "  uint32_t align = alignBytes > 0 ? alignBytes : 1;\n"
    "  uint32_t cores = vectorCores > 0 ? vectorCores : 1;\n"
    "  double unit;\n"
    "  if (kUnitKind == 0)\n    unit = kRow;\n"
    "  else if (kUnitKind == 1)\n    unit = kTotal < 256.0 ? (kTotal > 1.0 ? kTotal : 1.0) : 256.0;\n"
    "  else\n    unit = align / 4.0 > 1.0 ? align / 4.0 : 1.0;\n"
    "  if (unit < 1.0)\n    unit = 1.0;\n"
    "  double units = std::ceil(kTotal / unit);\n"
    "  double perCore = std::ceil(units / cores);\n"
    "  if (perCore < 1.0)\n    perCore = 1.0;\n"
    "  double lo = 1, hi = perCore;\n"
    "  double minRows = unit / kRow > 1.0 ? unit / kRow : 1.0;\n"
    "  if (PlanBytes(unit, minRows, align) > budget)\n    return -1;\n"
    "  while (hi - lo > 0.5) {\n"
    "    double mid = std::floor((lo + hi + 1) / 2);\n"
    "    double t = mid * unit;\n"
    "    if (PlanBytes(t, t / kRow, align) <= budget)\n      lo = mid;\n"
    "    else\n      hi = mid - 1;\n"
    "  }\n"
    "  /* The kernel's own scratch may not fit where the planner's model did: shrink until it does. */\n"
    "  while (lo > 1 && KernelBytes(lo * unit, lo * unit / kRow) > ub)\n    lo -= 1;\n"
    "  uint64_t total = static_cast<uint64_t>(kTotal);\n"
    "  tiling->totalLength = total;\n"
    "  tiling->tileLength = static_cast<uint64_t>(lo * unit);\n"
    "  tiling->rows = kUnitKind == 0 ? static_cast<uint64_t>(lo * unit / kRow) : 0;\n"
    "  tiling->rowLength = kUnitKind == 0 ? static_cast<uint64_t>(kRow) : 0;\n"
    "  tiling->tileNum = (total + tiling->tileLength - 1) / tiling->tileLength;\n"
    "  tiling->blockNum = tiling->tileNum < cores ? tiling->tileNum : cores;\n"
    "  tiling->tilesPerBlock = (tiling->tileNum + tiling->blockNum - 1) / tiling->blockNum;\n"
    "  return 0;\n}\n",
    g->struct_name, g->struct_name);
  return g_string_free (s, FALSE);
}

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

  for (guint l = 0; l < G_N_ELEMENTS (names); l++)
    for (guint i = 0; i < lists[l]->len; i++)
      g_string_append_printf (s, "%s%s%u, ", prefix, names[l], i);
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

static char *
gen_kernel (Gen *g)
{
  GString *s = g_string_new (NULL);
  guint n_in = g->inputs->len, n_out = g->outputs->len, n_small = g->smalls->len;

  append_header (g, s, "Ascend C kernel");
  g_string_append_printf (s, "#include \"kernel_operator.h\"\n#include \"%s_tiling.h\"\n\n", g->name);
  g_string_append (s, "namespace {\n\nconstexpr int32_t BUFFER_NUM = 2;  /* double buffering: load tile i+1 while computing tile i */\n");
  if (g->rows_mode)
    g_string_append_printf (s, "constexpr uint32_t ROW_LEN = %" G_GINT64_FORMAT "u;     /* elements per row */\n"
                               "constexpr uint32_t ROW_STRIDE = %" G_GINT64_FORMAT "u;  /* row pitch in UB: rows start 32-byte aligned */\n",
                            g->row_len, g->row_stride);
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

  g_string_append (s, "class FusedKernel\n{\npublic:\n  __aicore__ inline FusedKernel() {}\n\n");
  /* Init */
  g_string_append (s, "  __aicore__ inline void Init(");
  append_gm_args (s, g, "GM_ADDR ");
  g_string_append_printf (s, "const %s &tiling)\n  {\n", g->struct_name);
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
  if (g->rows_mode)
    g_string_append (s,
      "    uint64_t rowOffset = firstTile * tiling.rows;\n"
      "    this->blockRows = static_cast<uint32_t>(this->blockLength / ROW_LEN);\n"
      "    (void)rowOffset;\n");
  for (guint i = 0; i < n_in; i++)
    append_set_global (s, "in", i, g_ptr_array_index (g->inputs, i));
  for (guint i = 0; i < n_small; i++)
    {
      Operand *o = g_ptr_array_index (g->smalls, i);
      g_string_append_printf (s, "    small%uGm.SetGlobalBuffer(reinterpret_cast<__gm__ %s *>(small%u), %" G_GINT64_FORMAT "u);\n",
                              i, o->ctype, i, o->elements);
    }
  for (guint i = 0; i < n_out; i++)
    append_set_global (s, "out", i, g_ptr_array_index (g->outputs, i));
  if (g->rows_mode)
    g_string_append_printf (s, "    uint32_t fullElems = (this->tileRows * ROW_STRIDE + %uu) / %uu * %uu;\n"
                               "    uint32_t rowElems = (this->tileRows + 7) / 8 * 8;\n",
                            full_align (g) - 1, full_align (g), full_align (g));
  else
    g_string_append_printf (s, "    uint32_t fullElems = (this->tileLength + %uu) / %uu * %uu;\n"
                               "    uint32_t rowElems = 8;\n",
                            full_align (g) - 1, full_align (g), full_align (g));
  g_string_append (s, "    (void)rowElems;\n"
                      "    /* sizes below are element counts times the element size, 32-byte multiples */\n");
  for (guint i = 0; i < n_in; i++)
    append_init_queue (s, "inQueue", i, g_ptr_array_index (g->inputs, i));
  for (guint i = 0; i < n_out; i++)
    append_init_queue (s, "outQueue", i, g_ptr_array_index (g->outputs, i));
  for (guint i = 0; i < g->slot_eb->len; i++)
    g_string_append_printf (s, "    pipe.InitBuffer(tmp%u, fullElems * %uu);\n", i, g_array_index (g->slot_eb, guint, i));
  for (guint i = 0; i < 3; i++)
    if (g->scratch[i])
      g_string_append_printf (s, "    pipe.InitBuffer(scratch%u, fullElems * %uu);\n", i, g->max_eb);
  if (g->row_scratch)
    g_string_append_printf (s, "    pipe.InitBuffer(rowScratch, rowElems * %uu);\n", g->max_eb);
  if (g->reduce)
    g_string_append_printf (s, "    pipe.InitBuffer(reduceBuf0, 32);\n"
                               "    pipe.InitBuffer(reduceBuf1, (ROW_LEN * %uu + 31) / 32 * 32);\n", g->max_eb);
  for (guint i = 0; i < n_small; i++)
    {
      Operand *o = g_ptr_array_index (g->smalls, i);
      g_string_append_printf (s, "    pipe.InitBuffer(smallRaw%u, %" G_GINT64_FORMAT "u);\n", i,
                              (o->elements * o->eb + 31) / 32 * 32);
      if (needs_expand (o))
        g_string_append_printf (s, "    pipe.InitBuffer(smallTile%u, fullElems * %uu);\n", i, o->eb);
    }
  g_string_append (s, "  }\n\n");

  /* Process */
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
      if (needs_expand (o))
        g_string_append_printf (s, "    e%u = smallTile%u.Get<%s>();\n", i, i, o->ctype);
    }
  if (n_small > 0)
    g_string_append (s, "    LoadToScalar();  /* the loads above feed scalar reads */\n");
  if (has_rowvec (g))
    g_string_append (s, "    LoadToVector();  /* and resident rows feed vector instructions directly */\n");
  for (guint i = 0; i < n_small; i++)
    {
      Operand *o = g_ptr_array_index (g->smalls, i);
      if (needs_expand (o))
        g_string_append_printf (s,
          "    this->expandOnce%u = (static_cast<uint64_t>(this->tileLength) %% %" G_GINT64_FORMAT "u) == 0;\n"
          "    if (this->expandOnce%u)\n"
          "      Expand%u(0, %s, %s, %s, %s);\n",
          i, small_period (g, o), i, i, g->rows_mode ? "this->tileRows" : "1", g->rows_mode ? "ROW_LEN" : "this->tileLength",
          g->rows_mode ? "ROW_STRIDE" : "this->tileLength", g->rows_mode ? "ROW_LEN" : "this->tileLength");
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
  /* Scalar access to UB orders against one pipeline at a time with the documented event pair
   * (FetchEventID, SetFlag / WaitFlag with a HardEvent) instead of a PIPE_ALL barrier. */
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
    if (needs_expand (g_ptr_array_index (g->smalls, i)))
      emit_expand (g, s, g_ptr_array_index (g->smalls, i));

  /* CopyIn */
  g_string_append (s, "  __aicore__ inline void CopyIn(uint32_t t, uint32_t rows, uint32_t len, uint32_t stride)\n  {\n"
                      "    (void)t;\n    (void)rows;\n    (void)len;\n    (void)stride;\n");
  for (guint i = 0; i < n_in; i++)
    {
      Operand *o = g_ptr_array_index (g->inputs, i);
      g_string_append_printf (s,
        "    AscendC::LocalTensor<%s> x%u = inQueue%u.AllocTensor<%s>();\n"
        "    CopyGmToUb(x%u, in%uGm[static_cast<uint64_t>(t) * %s], %s);\n"
        "    inQueue%u.EnQue(x%u);\n", o->ctype, i, i, o->ctype, i, i, tile_step (o), tile_copy_shape (o), i, i);
    }
  g_string_append (s, "  }\n\n");

  /* Compute */
  g_string_append (s, "  __aicore__ inline void Compute(uint32_t t, uint32_t rows, uint32_t len, uint32_t stride)\n  {\n"
                      "    const int32_t n = static_cast<int32_t>(rows * stride);\n"
                      "    const int32_t rowsN = static_cast<int32_t>(rows);\n"
                      "    (void)t;\n    (void)len;\n    (void)n;\n    (void)rowsN;\n");
  if (g->uses_mask)
    g_string_append (s, "    /* Compare and Select count whole 256-byte blocks; the tile buffers are rounded to 128 elements */\n"
                        "    const uint32_t nMask = (static_cast<uint32_t>(n) + 127u) / 128u * 128u;\n");
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
      if (needs_expand (o))
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
  g_string_append (s, "  }\n\n");

  /* CopyOut */
  g_string_append (s, "  __aicore__ inline void CopyOut(uint32_t t, uint32_t rows, uint32_t len, uint32_t stride)\n  {\n"
                      "    (void)len;\n    (void)stride;\n");
  for (guint i = 0; i < n_out; i++)
    {
      Operand *o = g_ptr_array_index (g->outputs, i);
      g_string_append_printf (s,
        "    AscendC::LocalTensor<%s> y%u = outQueue%u.DeQue<%s>();\n"
        "    CopyUbToGm(out%uGm[static_cast<uint64_t>(t) * %s], y%u, %s);\n"
        "    outQueue%u.FreeTensor(y%u);\n", o->ctype, i, i, o->ctype, i, tile_step (o), i, tile_copy_shape (o), i, i);
    }
  g_string_append (s, "  }\n\n");

  /* Members */
  g_string_append (s, "  AscendC::TPipe pipe;\n");
  for (guint i = 0; i < n_in; i++)
    g_string_append_printf (s, "  AscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> inQueue%u;\n", i);
  for (guint i = 0; i < n_out; i++)
    g_string_append_printf (s, "  AscendC::TQue<AscendC::QuePosition::VECOUT, BUFFER_NUM> outQueue%u;\n", i);
  for (guint i = 0; i < g->slot_eb->len; i++)
    g_string_append_printf (s, "  AscendC::TBuf<AscendC::TPosition::VECCALC> tmp%u;\n", i);
  for (guint i = 0; i < 3; i++)
    if (g->scratch[i])
      g_string_append_printf (s, "  AscendC::TBuf<AscendC::TPosition::VECCALC> scratch%u;\n", i);
  if (g->row_scratch)
    g_string_append (s, "  AscendC::TBuf<AscendC::TPosition::VECCALC> rowScratch;\n");
  if (g->reduce)
    g_string_append (s, "  AscendC::TBuf<AscendC::TPosition::VECCALC> reduceBuf0;\n"
                        "  AscendC::TBuf<AscendC::TPosition::VECCALC> reduceBuf1;\n");
  for (guint i = 0; i < n_small; i++)
    {
      Operand *o = g_ptr_array_index (g->smalls, i);
      g_string_append_printf (s, "  AscendC::TBuf<AscendC::TPosition::VECCALC> smallRaw%u;\n"
                                 "  AscendC::GlobalTensor<%s> small%uGm;\n"
                                 "  AscendC::LocalTensor<%s> raw%u;\n", i, o->ctype, i, o->ctype, i);
      if (needs_expand (o))
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

  /* Entry */
  g_string_append_printf (s, "extern \"C\" __global__ __aicore__ void %s(", g->name);
  append_gm_args (s, g, "GM_ADDR ");
  g_string_append_printf (s, "GM_ADDR tiling)\n{\n"
    "  const __gm__ %s *src = reinterpret_cast<const __gm__ %s *>(tiling);\n"
    "  %s t;\n"
    "  t.totalLength = src->totalLength;\n  t.tileLength = src->tileLength;\n  t.tileNum = src->tileNum;\n"
    "  t.rows = src->rows;\n  t.rowLength = src->rowLength;\n  t.blockNum = src->blockNum;\n"
    "  t.tilesPerBlock = src->tilesPerBlock;\n"
    "  FusedKernel op;\n  op.Init(", g->struct_name, g->struct_name, g->struct_name);
  append_gm_args (s, g, "");
  g_string_append (s, "t);\n  op.Process();\n}\n");
  return g_string_free (s, FALSE);
}

static char *
gen_cmake (Gen *g)
{
  return g_strdup_printf (
    "# %s: build the fused kernel with the CANN toolchain, in the style of the Ascend C add_custom samples.\n"
    "# cmake -B build -DSOC_VERSION=Ascend910B1 -DASCEND_CANN_PACKAGE_PATH=$ASCEND_HOME_PATH && cmake --build build\n"
    "cmake_minimum_required(VERSION 3.16)\n"
    "project(%s LANGUAGES CXX)\n\n"
    "set(SOC_VERSION \"Ascend910B1\" CACHE STRING \"system on chip type\")\n"
    "set(ASCEND_CANN_PACKAGE_PATH \"$ENV{ASCEND_HOME_PATH}\" CACHE PATH \"ASCEND CANN package installation directory\")\n"
    "set(RUN_MODE \"npu\" CACHE STRING \"run mode: npu or sim\")\n\n"
    "if(EXISTS ${ASCEND_CANN_PACKAGE_PATH}/compiler/tikcpp/ascendc_kernel_cmake)\n"
    "    set(ASCENDC_CMAKE_DIR ${ASCEND_CANN_PACKAGE_PATH}/compiler/tikcpp/ascendc_kernel_cmake)\n"
    "elseif(EXISTS ${ASCEND_CANN_PACKAGE_PATH}/tools/tikcpp/ascendc_kernel_cmake)\n"
    "    set(ASCENDC_CMAKE_DIR ${ASCEND_CANN_PACKAGE_PATH}/tools/tikcpp/ascendc_kernel_cmake)\n"
    "elseif(EXISTS ${ASCEND_CANN_PACKAGE_PATH}/ascendc_devkit/tikcpp/samples/cmake)\n"
    "    set(ASCENDC_CMAKE_DIR ${ASCEND_CANN_PACKAGE_PATH}/ascendc_devkit/tikcpp/samples/cmake)\n"
    "else()\n"
    "    message(FATAL_ERROR \"ascendc_kernel_cmake does not exist; set ASCEND_CANN_PACKAGE_PATH to a CANN install\")\n"
    "endif()\n"
    "include(${ASCENDC_CMAKE_DIR}/ascendc.cmake)\n\n"
    "# The device kernel.\n"
    "ascendc_library(%s_kernels SHARED %s.cpp)\n"
    "target_include_directories(%s_kernels PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})\n\n"
    "# The host tiling function, plain C++.\n"
    "add_library(%s_tiling SHARED %s_tiling.cpp)\n"
    "target_include_directories(%s_tiling PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})\n"
    "target_compile_features(%s_tiling PRIVATE cxx_std_17)\n\n"
    "install(TARGETS %s_kernels %s_tiling LIBRARY DESTINATION lib)\n"
    "install(FILES %s_tiling.h DESTINATION include)\n",
    g->name, g->name, g->name, g->name, g->name, g->name, g->name, g->name, g->name, g->name, g->name, g->name);
}

static void
readme_value (GString *s, const char *kind, guint i, const Operand *o)
{
  g_autofree char *name = fw_ascend_escape_comment (fw_value_get_name (o->value));
  g_autofree char *shape = fw_value_format_shape (o->value);
  g_string_append_printf (s, "| %s%u | `%s` | %s | %s |\n", kind, i, name, fw_dtype_name (o->value->dtype), shape);
}

static char *
gen_readme (Gen *g, const FwAscendTiling *t)
{
  GString *s = g_string_new (NULL);
  g_autofree char *pattern = fw_ascend_escape_comment (g->cand->pattern);

  g_string_append_printf (s, "# %s: fused kernel for candidate %u (`%s`)\n\n", g->name, g->cand->index, pattern);
  g_string_append (s, "Generated by Fusion Workbench's `ascend` target. Names from the model appear here escaped and "
                      "never in code.\n\n## Nodes\n\n");
  for (guint i = 0; i < g->cand->nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (g->cand->nodes, i);
      g_autofree char *label = fw_ascend_escape_comment (node_label (node));
      g_autofree char *op = fw_ascend_escape_comment (node->op_type);
      g_string_append_printf (s, "%u. %s `%s`%s\n", i + 1, op, label,
                              node == g->cand->root ? " — runs as CANN's own operator, not in this kernel" : "");
    }
  if (g->cand->root != NULL)
    g_string_append (s, "\nThe cube part of this group runs as CANN's own MatMul/Conv and writes its result to global "
                        "memory; this kernel is the vector epilogue fused after it (argument `in0`). Launch the "
                        "cube operator first on the same stream.\n");
  g_string_append (s, "\n## Arguments, in order\n\n| argument | value | dtype | shape |\n|---|---|---|---|\n");
  for (guint i = 0; i < g->inputs->len; i++)
    readme_value (s, "in", i, g_ptr_array_index (g->inputs, i));
  for (guint i = 0; i < g->smalls->len; i++)
    readme_value (s, "small", i, g_ptr_array_index (g->smalls, i));
  for (guint i = 0; i < g->outputs->len; i++)
    readme_value (s, "out", i, g_ptr_array_index (g->outputs, i));
  g_string_append_printf (s, "| tiling | `%s` in global memory | | |\n\n", g->struct_name);
  g_string_append_printf (s,
    "## Tiling on %s\n\n"
    "| total | tile | tiles | rows/tile | row | blocks | UB (plan) | UB (kernel) |\n|---|---|---|---|---|---|---|---|\n"
    "| %" G_GINT64_FORMAT " | %" G_GINT64_FORMAT " | %" G_GINT64_FORMAT " | %" G_GINT64_FORMAT " | %" G_GINT64_FORMAT
    " | %" G_GINT64_FORMAT " | %.0f B | %.0f B |\n\n"
    "`%sComputeTiling` in `%s_tiling.cpp` recomputes these from a UB size and core count: the planner's buffer "
    "model and search, then a shrink only if the kernel's own scratch buffers would not fit.\n\n"
    "## Build and launch\n\n"
    "    cmake -B build -DSOC_VERSION=Ascend910B1 -DASCEND_CANN_PACKAGE_PATH=$ASCEND_HOME_PATH\n"
    "    cmake --build build\n\n"
    "Call `%sComputeTiling`, copy the struct to device memory and launch `%s` with `blockNum` blocks "
    "(`%s<<<blockNum, nullptr, stream>>>(...)` or `ACLRT_LAUNCH_KERNEL`).\n\n"
    "## What has been checked\n\n"
    "Fusion Workbench compiles this kernel with `g++ -std=c++17 -fsyntax-only` against a header that declares the "
    "documented Ascend C API: the code is well-formed and calls the API with the documented signatures. It has not "
    "been compiled by the CANN toolchain, run on a chip or compared numerically there. Operators without a vector "
    "instruction are composed (sigmoid = 1/(1+exp(-x)), tanh = 2 sigmoid(2x) - 1, erf by Abramowitz-Stegun 7.1.26, "
    "|error| < 1.5e-7, pow by exp(y ln x) for x > 0, hard sigmoid and hard swish by Muls/Adds/Maxs/Mins); "
    "bool values are Compare bit masks read by Select, never in global memory. Scalar access to UB is ordered "
    "with FetchEventID + SetFlag/WaitFlag events, not verified on hardware.\n",
    g->profile->name ? g->profile->name : "?", t->total_length, t->tile_length, t->tile_num, t->rows, t->row_length,
    t->block_num, t->ub_bytes, t->kernel_ub_bytes, g->struct_name, g->name, g->struct_name, g->name, g->name);
  return g_string_free (s, FALSE);
}

static void
gen_clear (Gen *g)
{
  g_clear_pointer (&g->operands, g_hash_table_unref);
  g_clear_pointer (&g->all, g_ptr_array_unref);
  g_clear_pointer (&g->inputs, g_ptr_array_unref);
  g_clear_pointer (&g->outputs, g_ptr_array_unref);
  g_clear_pointer (&g->smalls, g_ptr_array_unref);
  g_clear_pointer (&g->slot_eb, g_array_unref);
  g_clear_pointer (&g->kernel_buffers, g_array_unref);
  if (g->compute)
    g_string_free (g->compute, TRUE);
  g->compute = NULL;
  g_clear_pointer (&g->name, g_free);
  g_clear_pointer (&g->struct_name, g_free);
}

static FwAscendKernel *
generate (FwPlan *plan, const FwCandidate *candidate, GError **error)
{
  Gen g = { 0 };
  FwAscendKernel *kernel = NULL;

  g.plan = plan;
  g.cand = candidate;
  g.spec = candidate->spec;
  g.profile = plan->profile;
  g.operands = g_hash_table_new (NULL, NULL);
  g.all = g_ptr_array_new_with_free_func (g_free);
  g.inputs = g_ptr_array_new ();
  g.outputs = g_ptr_array_new ();
  g.smalls = g_ptr_array_new ();
  g.slot_eb = g_array_new (FALSE, TRUE, sizeof (guint));
  g.kernel_buffers = g_array_new (FALSE, TRUE, sizeof (KernelBuffer));
  g.compute = g_string_new (NULL);
  g.name = g_strdup_printf ("fw_k%03u", candidate->index);
  g.struct_name = g_strdup_printf ("FwK%03uTiling", candidate->index);

  if (!read_space (&g, error) || !build_operands (&g, error))
    goto out;
  for (guint i = 0; i < candidate->nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (candidate->nodes, i);
      if (node == candidate->root)
        continue;
      if (node->n_outputs == 0 || node->outputs[0] == NULL)
        {
          g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED, _("Ascend target: %s has no output"), node->op_type);
          goto out;
        }
      if (!emit_node (&g, i, node, error))
        goto out;
    }
  collect_kernel_buffers (&g);
  /* The planner checked one row against the budget by its buffer plan; the kernel's own scratch may still
   * not fit the Unified Buffer. */
  if (g.broadcast_rows &&
      kernel_bytes (&g, g.row_len, 1) > (gdouble) g.profile->ub_bytes - (gdouble) g.profile->ub_reserve_bytes)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED,
                   _("Ascend target: the broadcast operands need whole rows per tile, and one row of %" PRId64
                     " elements does not fit the Unified Buffer"), g.row_len);
      goto out;
    }

  kernel = g_new0 (FwAscendKernel, 1);
  kernel->source = fw_kernel_source_new ("ascend", g.name);
  for (guint i = 0; i < g.inputs->len; i++)
    fw_kernel_source_add_input (kernel->source, ((Operand *) g_ptr_array_index (g.inputs, i))->value);
  for (guint i = 0; i < g.smalls->len; i++)
    fw_kernel_source_add_input (kernel->source, ((Operand *) g_ptr_array_index (g.smalls, i))->value);
  for (guint i = 0; i < g.outputs->len; i++)
    fw_kernel_source_add_output (kernel->source, ((Operand *) g_ptr_array_index (g.outputs, i))->value);
  compute_tiling (&g, &kernel->tiling);
  if (kernel->tiling.tile_length < candidate->resource.tile_elements)
    fw_kernel_source_take_message (kernel->source,
                                   g_strdup_printf (_("tile of %" PRId64 " elements, below the plan's %" PRId64
                                                      ": the kernel's scratch buffers would not fit the Unified Buffer"),
                                                    kernel->tiling.tile_length, candidate->resource.tile_elements));
  fw_kernel_source_take_file (kernel->source, g_strdup_printf ("%s.cpp", g.name), gen_kernel (&g));
  fw_kernel_source_take_file (kernel->source, g_strdup_printf ("%s_tiling.h", g.name),
                              gen_tiling_header (&g, &kernel->tiling));
  fw_kernel_source_take_file (kernel->source, g_strdup_printf ("%s_tiling.cpp", g.name), gen_host_tiling (&g));
  fw_kernel_source_take_file (kernel->source, g_strdup ("CMakeLists.txt"), gen_cmake (&g));
  fw_kernel_source_take_file (kernel->source, g_strdup ("README.md"), gen_readme (&g, &kernel->tiling));

out:
  gen_clear (&g);
  return kernel;
}

FwAscendKernel *
fw_ascend_kernel_generate (FwPlan *plan, const FwCandidate *candidate, GError **error)
{
  g_return_val_if_fail (plan != NULL && candidate != NULL, NULL);
  if (candidate->nodes == NULL || candidate->nodes->len == 0 || candidate->spec == NULL)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_INVALID, _("Ascend target: candidate %u has no nodes"), candidate->index);
      return NULL;
    }
  return generate (plan, candidate, error);
}

void
fw_ascend_kernel_free (FwAscendKernel *kernel)
{
  if (kernel == NULL)
    return;
  fw_kernel_source_free (kernel->source);
  g_free (kernel);
}

const FwAscendTiling *
fw_ascend_kernel_get_tiling (FwAscendKernel *kernel)
{
  return &kernel->tiling;
}

const FwKernelSource *
fw_ascend_kernel_get_kernel_source (FwAscendKernel *kernel)
{
  return kernel->source;
}
