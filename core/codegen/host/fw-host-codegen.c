/* fw-host-codegen.c: one candidate → C99 source specialised to its shapes and dtypes.
 *
 * The group's iteration space is split into lead axes (one flat index r, spread over OpenMP threads) and
 * inner axes (a row: the axes row reductions reduce, the spatial plane a Conv tile covers, or the
 * innermost contiguous run of an elementwise chain). Adjacent axes are merged wherever every operand
 * allows, so the innermost loop is long, unit-stride and vectorisable. Each row is processed in passes: a
 * reduction consumes a pass and its result is usable from the next one; values computed in one pass and
 * read in a later one live in a per-thread row scratch buffer, everything else in locals. A compute root
 * (MatMul, Gemm, Conv) is computed whole into a tile by as few sgemm calls as the reference kernels make,
 * then the epilogue runs over the tile's rows in one parallel region; a grouped Conv with few taps per
 * group is computed row by row inside that region instead, just before its epilogue.
 *
 * Nothing the model names reaches the source outside comments, and comments are escaped: generated
 * identifiers only, constants as exact hex literals. */
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "fw-superkernel-private.h"
#include "plan/fw-plan.h"

/* A grouped Conv whose group reduces over at most this many taps (channels × kernel window) is computed by a
 * direct loop: as sgemm calls per group they are matrices of one or a few rows, where the call costs more
 * than its arithmetic (MobileNet's depthwise convolutions). */
#define DIRECT_CONV_TAPS 64
/* A region over at most this many elements runs on one thread, as the reference's elementwise kernels do
 * up to the same size. Waking a second thread saves little there, and on a loaded machine the region's end can
 * wait a whole scheduler time slice (4 ms and more) for a thread that did not get a core: medians of small
 * MobileNet kernels went from 0.4 ms to 16 ms that way. */
#define PARALLEL_MIN_ELEMENTS 65536
/* An elementwise group whose single inner run is longer than this is cut into chunks, so threads share it. */
#define CHUNK_ELEMENTS 8192

typedef enum {
  SV_EXTERNAL,   /* read from a kernel input */
  SV_IMM_SCALAR, /* a one-element constant, printed as a literal */
  SV_IMM_ARRAY,  /* a small constant, printed as a static array */
  SV_INTERNAL,   /* computed inside the group */
  SV_TILE,       /* the root's sgemm tile */
} SvKind;

typedef enum {
  MAP_NONE,      /* not in the space (MatMul/Conv operands) */
  MAP_RIGHT,     /* numpy broadcasting, right-aligned */
  MAP_CHANNEL,   /* a [C] vector along axis 1 (BatchNormalization, Conv bias) */
  MAP_LEAD,      /* a reduction's keepdims=0 result: the lead axes */
} SvMap;

typedef struct
{
  guint     id;
  FwValue  *value;       /* NULL for the tile */
  SvKind    kind;
  SvMap     map;
  FwDType   dtype;
  gint      in_index;    /* SV_EXTERNAL */
  gint      out_index;   /* -1 unless the value leaves the kernel */
  gint      imm_index;   /* SV_IMM_ARRAY */
  gboolean  rowv;        /* constant along the inner axes */
  gint      pass;        /* internal: the pass computing it (ELEM) or the section it is ready in (ROWV) */
  gboolean  scratch;
  gint      scratch_slot;
  gint64    strides[FW_MAX_RANK];  /* element strides over the space's axes */
  gint64    cstr[FW_MAX_RANK];     /* over the merged axes: lead ones first, then inner ones */
  gint      loaded_pass; /* the pass whose body loaded it, -1 */
  gboolean  row_loaded;
  gboolean  need_ptr;
  gboolean  need_scr;
} SkVal;

typedef enum {
  NK_ELEM,
  NK_ROWV,
  NK_REDUCE,
  NK_SOFTMAX,
  NK_LAYERNORM,
  NK_ROOT,
} NodeKind;

typedef struct
{
  FwNode   *node;
  guint     id;
  NodeKind  kind;
  gint      pass;        /* NK_ELEM, NK_ROOT: its pass; stage nodes: the first stage's pass */
  gint      last_pass;   /* stage nodes: the pass of the last stage */
  SkVal    *out;
} SkNode;

typedef struct
{
  FwPlan            *plan;
  const FwCandidate *cand;
  FwSuperKernel     *kernel;
  GPtrArray         *vals;      /* SkVal*, owned */
  GHashTable        *by_value;  /* FwValue* → SkVal* */
  GArray            *nodes;     /* SkNode */
  FwNode            *root;
  SkVal             *tile;
  gint               rank;
  gint64             dims[FW_MAX_RANK];
  gint               row_axes;  /* trailing axes the row operations reduce, 0 when none */
  gint               moved;     /* the space axis a row operation reduces though it is not the last, moved last
                                   for iteration (opset 13 Softmax on an inner axis); -1 when none */
  gint               split;     /* first inner axis of the space, -1 until known */
  gint               n_lead, n_inner;
  gint64             lead[FW_MAX_RANK], inner[FW_MAX_RANK];
  gint64             n_rows, row_len;
  gint64             chunk, n_chunks;
  gint               n_passes;
  gint               n_scratch;
  gboolean           in_place;  /* the root computes into the output the epilogue overwrites */
  gint64             gemm_k;    /* the inner dimension of the sgemm the region follows, 0 when none */
  guint              n_imm;
  GString           *decls;     /* file-scope constants */
  GString           *body;      /* the entry's body */
} Gen;

G_GNUC_PRINTF (2, 3) static gboolean
unsupported (GError **error, const char *format, ...)
{
  va_list args;
  g_autofree char *message = NULL;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED, _("host SuperKernel: %s"), message);
  return FALSE;
}

/* ---- literals and comments ---- */

/* Exact and locale-independent: printf's %a follows LC_NUMERIC's decimal point. */
static void
append_hex_double (GString *s, double v)
{
  guint64 bits;
  gint e;
  guint64 mant;

  if (isnan (v))
    {
      g_string_append (s, "NAN");
      return;
    }
  if (isinf (v))
    {
      g_string_append (s, v < 0 ? "(-INFINITY)" : "INFINITY");
      return;
    }
  memcpy (&bits, &v, sizeof bits);
  e = (gint) ((bits >> 52) & 0x7ff);
  mant = bits & ((G_GUINT64_CONSTANT (1) << 52) - 1);
  g_string_append (s, (bits >> 63) ? "-0x" : "0x");
  if (e == 0)
    g_string_append_printf (s, "0.%013" G_GINT64_MODIFIER "xp-1022", mant);
  else
    g_string_append_printf (s, "1.%013" G_GINT64_MODIFIER "xp%+d", mant, e - 1023);
}

static void
append_float_literal (GString *s, float v)
{
  if (isnan (v) || isinf (v))
    {
      append_hex_double (s, v);
      return;
    }
  g_string_append (s, "((float) ");
  append_hex_double (s, (double) v);
  g_string_append_c (s, ')');
}

static const char *
reg_type (FwDType dtype)
{
  switch (dtype)
    {
    case FW_DTYPE_FLOAT:
    case FW_DTYPE_FLOAT16:
      return "float";
    case FW_DTYPE_DOUBLE:
      return "double";
    case FW_DTYPE_INT64:
      return "int64_t";
    case FW_DTYPE_INT32:
      return "int32_t";
    case FW_DTYPE_INT8:
      return "int8_t";
    case FW_DTYPE_UINT8:
    case FW_DTYPE_BOOL:
      return "uint8_t";
    default:
      return NULL;
    }
}

static const char *
mem_type (FwDType dtype)
{
  return dtype == FW_DTYPE_FLOAT16 ? "uint16_t" : reg_type (dtype);
}

static gboolean
is_floatish (FwDType dtype)
{
  return dtype == FW_DTYPE_FLOAT || dtype == FW_DTYPE_FLOAT16;
}

static void
append_int_literal (GString *s, gint64 v)
{
  if (v == G_MININT64)
    g_string_append (s, "(-INT64_C(9223372036854775807) - 1)");
  else
    g_string_append_printf (s, "INT64_C(%" G_GINT64_FORMAT ")", v);
}

/* Element i of a constant as a literal of dtype's register type. */
static void
append_const_element (GString *s, FwTensor *t, gint64 i, FwDType dtype)
{
  double d = 0;
  gint64 n = 0;

  if (is_floatish (dtype) || dtype == FW_DTYPE_DOUBLE)
    {
      fw_tensor_get_double (t, i, &d);
      if (dtype == FW_DTYPE_DOUBLE)
        append_hex_double (s, d);
      else
        append_float_literal (s, (float) d);
      return;
    }
  fw_tensor_get_int64 (t, i, &n);
  if (dtype == FW_DTYPE_BOOL)
    g_string_append (s, n ? "1" : "0");
  else
    append_int_literal (s, n);
}

/* Model strings inside comments: printable ASCII only; '*' (so no comment ends early), '\\' and '?' (no
 * line splices or trigraphs) and every other byte as \xNN; long names are cut. */
static void
append_comment_text (GString *s, const char *text)
{
  gsize n = 0;

  if (text == NULL)
    return;
  for (const guchar *p = (const guchar *) text; *p; p++, n++)
    {
      if (n >= 160)
        {
          g_string_append (s, "...");
          return;
        }
      if (*p < 0x20 || *p > 0x7e || *p == '*' || *p == '\\' || *p == '?')
        g_string_append_printf (s, "\\x%02x", *p);
      else
        g_string_append_c (s, (char) *p);
    }
}

/* ---- the group's values ---- */

static SkVal *
val_new (Gen *g, FwValue *value, SvKind kind)
{
  SkVal *v = g_new0 (SkVal, 1);

  v->id = g->vals->len;
  v->value = value;
  v->kind = kind;
  v->map = MAP_RIGHT;
  v->dtype = value ? value->dtype : FW_DTYPE_FLOAT;
  v->in_index = -1;
  v->out_index = -1;
  v->imm_index = -1;
  v->loaded_pass = -1;
  v->scratch_slot = -1;
  g_ptr_array_add (g->vals, v);
  if (value)
    g_hash_table_insert (g->by_value, value, v);
  return v;
}

static gboolean
is_member (Gen *g, const FwNode *node)
{
  return fw_kernel_spec_contains (g->cand->spec, node);
}

/* Which inputs of a node are data the kernel computes with (the rest are parameters read at generation). */
static gboolean
is_data_slot (const FwNode *node, guint slot)
{
  const char *op = node->op_type;

  if (g_str_has_prefix (op, "Reduce") || strcmp (op, "Dropout") == 0)
    return slot == 0;
  return TRUE;
}

static gboolean
is_root_op (const FwNode *node)
{
  return strcmp (node->op_type, "MatMul") == 0 || strcmp (node->op_type, "Gemm") == 0 ||
         strcmp (node->op_type, "Conv") == 0;
}

static FwSpecKind
spec_kind (Gen *g, const FwValue *value)
{
  const FwSpecValue *v = fw_kernel_spec_lookup (g->cand->spec, value);
  return v != NULL ? v->kind : FW_SPEC_INPUT;
}

static SkVal *
use_value (Gen *g, FwValue *value, GError **error)
{
  SkVal *v = g_hash_table_lookup (g->by_value, value);

  if (v != NULL)
    return v;
  if (!fw_value_is_static (value) || value->rank < 0)
    {
      unsupported (error, _("value %u has a dynamic shape"), value->index);
      return NULL;
    }
  if (reg_type (value->dtype) == NULL)
    {
      unsupported (error, _("dtype %s is not supported"), fw_dtype_name (value->dtype));
      return NULL;
    }
  if (value->constant != NULL && spec_kind (g, value) == FW_SPEC_IMMEDIATE)
    {
      v = val_new (g, value, value->constant->n_elements == 1 ? SV_IMM_SCALAR : SV_IMM_ARRAY);
      if (v->kind == SV_IMM_ARRAY)
        {
          v->imm_index = g->n_imm++;
          g_string_append_printf (g->decls, "static const %s c%d[%" G_GINT64_FORMAT "] = {", reg_type (v->dtype),
                                  v->imm_index, value->constant->n_elements);
          for (gint64 i = 0; i < value->constant->n_elements; i++)
            {
              g_string_append (g->decls, i ? ", " : " ");
              append_const_element (g->decls, value->constant, i, v->dtype);
            }
          g_string_append (g->decls, " };\n");
        }
      return v;
    }
  v = val_new (g, value, SV_EXTERNAL);
  v->in_index = g->kernel->inputs->len;
  g_ptr_array_add (g->kernel->inputs, value);
  return v;
}

static gboolean
is_row_op (const FwNode *node)
{
  const char *op = node->op_type;

  return strcmp (op, "Softmax") == 0 || strcmp (op, "LogSoftmax") == 0 || strcmp (op, "LayerNormalization") == 0 ||
         strcmp (op, "GlobalAveragePool") == 0 || strcmp (op, "GlobalMaxPool") == 0 ||
         strcmp (op, "ReduceMean") == 0 || strcmp (op, "ReduceSum") == 0 || strcmp (op, "ReduceMax") == 0 ||
         strcmp (op, "ReduceMin") == 0 || strcmp (op, "ReduceSumSquare") == 0 || strcmp (op, "ReduceL1") == 0 ||
         strcmp (op, "ReduceL2") == 0 || strcmp (op, "ReduceProd") == 0;
}

/* Collects values, finds the root, the row axes and the space. */
static gboolean
collect (Gen *g, GError **error)
{
  const FwKernelSpec *spec = g->cand->spec;

  g->root = fw_kernel_spec_get_root (spec);
  for (guint i = 0; i < fw_kernel_spec_get_n_nodes (spec); i++)
    {
      FwNode *node = fw_kernel_spec_get_node (spec, i);
      SkNode sn = { node, i, NK_ELEM, 0, 0, NULL };
      FwValue *out0 = node->n_outputs > 0 ? node->outputs[0] : NULL;

      if (node->domain[0] != '\0')
        return unsupported (error, _("operator %s of another domain"), node->op_type);
      if (is_root_op (node) && node != g->root)
        return unsupported (error, _("%s inside an epilogue"), node->op_type);
      if (out0 == NULL)
        return unsupported (error, _("%s without an output"), node->op_type);
      for (guint k = 0; k < node->n_inputs; k++)
        {
          FwValue *v = node->inputs[k];
          if (v == NULL || !is_data_slot (node, k) || (v->producer && is_member (g, v->producer)))
            continue;
          if (use_value (g, v, error) == NULL)
            return FALSE;
        }
      for (guint k = 0; k < node->n_outputs; k++)
        {
          FwValue *v = node->outputs[k];
          gboolean outside;
          SkVal *sv;

          if (v == NULL)
            continue;
          outside = v->is_output;
          for (guint u = 0; u < v->n_uses; u++)
            if (v->uses[u].slot == FW_USE_IMPLICIT || !is_member (g, v->uses[u].node))
              outside = TRUE;
          if (k > 0)
            {
              if (outside || v->n_uses > 0)
                return unsupported (error, _("%s with a second output in use"), node->op_type);
              continue;
            }
          if (!fw_value_is_static (v))
            return unsupported (error, _("value %u has a dynamic shape"), v->index);
          if (reg_type (v->dtype) == NULL)
            return unsupported (error, _("dtype %s is not supported"), fw_dtype_name (v->dtype));
          sv = val_new (g, v, SV_INTERNAL);
          if (outside)
            {
              sv->out_index = g->kernel->outputs->len;
              g_ptr_array_add (g->kernel->outputs, v);
            }
          sn.out = sv;
        }
      g_array_append_val (g->nodes, sn);
    }
  if (g->kernel->outputs->len == 0)
    return unsupported (error, _("the group has no output"));
  return TRUE;
}

/* The space is the planner's (the candidate's FwKernelSpec); the rows are those its row operations reduce,
 * which this target requires to agree. */
static gboolean
find_space (Gen *g, GError **error)
{
  const FwKernelSpec *spec = g->cand->spec;
  const FwSpace *space = fw_kernel_spec_get_space (spec);
  gint moved_from_end = 0;

  g->split = -1;
  g->moved = -1;
  g->rank = 0;
  for (guint i = 0; i < g->nodes->len; i++)
    {
      SkNode *sn = &g_array_index (g->nodes, SkNode, i);
      FwNode *node = sn->node;
      const char *why = NULL;
      const FwRowOp *op;
      gint r, from_end;

      if (!is_row_op (node))
        continue;
      op = fw_kernel_spec_get_row_op (spec, i, &why);
      if (why != NULL)
        return unsupported (error, "%s", why);
      if (op->axes == 0)
        return unsupported (error, _("%s reduces nothing"), node->op_type);
      from_end = op->from_end;
      r = from_end != 0 ? 1 : op->axes;
      if (g->row_axes != 0 && g->row_axes != r)
        return unsupported (error, _("row operations over different numbers of axes"));
      if (g->row_axes != 0 && moved_from_end != from_end)
        return unsupported (error, _("row operations over different axes"));
      g->row_axes = r;
      moved_from_end = from_end;
      if (!op->full_out && !op->keepdims)
        sn->out->map = MAP_LEAD;
    }
  if (space->rank > FW_MAX_RANK)
    return unsupported (error, _("rank over %d"), FW_MAX_RANK);
  g->rank = space->rank;
  memcpy (g->dims, space->dims, sizeof (gint64) * (gsize) space->rank);
  if (g->root != NULL)
    {
      SkVal *out = g_array_index (g->nodes, SkNode, 0).out;
      gint inner = strcmp (g->root->op_type, "Conv") == 0 ? 2 : 1;
      gint min_rank = inner + (inner == 2 ? 2 : 1);

      if (g_array_index (g->nodes, SkNode, 0).node != g->root)
        return unsupported (error, _("the root is not the group's first node"));
      if (moved_from_end != 0)
        return unsupported (error, _("a row operation that does not reduce the %s tile's rows"), g->root->op_type);
      if (out->dtype != FW_DTYPE_FLOAT)
        return unsupported (error, _("%s in %s (sgemm computes float32)"), g->root->op_type,
                            fw_dtype_name (out->dtype));
      /* A 1-D MatMul operand loses its matrix dim in the result (numpy.matmul), so the result may be a
         vector; both 1-D gives a scalar, no row to run the epilogue over. */
      if (strcmp (g->root->op_type, "MatMul") == 0 && g->root->n_inputs == 2 && g->root->inputs[0] &&
          g->root->inputs[1] && (g->root->inputs[0]->rank == 1 || g->root->inputs[1]->rank == 1))
        min_rank = 1;
      if (out->value->rank < min_rank)
        return unsupported (error, _("%s of rank %d"), g->root->op_type, out->value->rank);
      if (g->row_axes != 0 && g->row_axes != inner)
        return unsupported (error, _("a row operation that does not reduce the %s tile's rows"), g->root->op_type);
      g->split = g->rank - inner;
    }
  else if (g->row_axes > 0)
    {
      if (g->row_axes > g->rank || moved_from_end > g->rank)
        return unsupported (error, _("row axes beyond the space"));
      g->split = g->rank - g->row_axes;
      if (moved_from_end != 0)
        g->moved = g->rank - moved_from_end;
    }
  return TRUE;
}

/* Before the space is known: which values are per-channel vectors and which do not map at all. */
static gboolean
mark_maps (Gen *g, GError **error)
{
  /* Channel vectors: Conv's bias, BatchNormalization's parameters. */
  for (guint i = 0; i < g->nodes->len; i++)
    {
      FwNode *node = g_array_index (g->nodes, SkNode, i).node;
      gboolean bn = strcmp (node->op_type, "BatchNormalization") == 0;
      if (!(bn || (node == g->root && strcmp (node->op_type, "Conv") == 0)))
        continue;
      for (guint k = bn ? 1 : 0; k < node->n_inputs; k++)
        {
          SkVal *v = node->inputs[k] ? g_hash_table_lookup (g->by_value, node->inputs[k]) : NULL;
          if (v == NULL || (node == g->root && k != 2))
            continue;
          if (v->value->rank != 1)
            return unsupported (error, _("%s parameters that are not per channel"), node->op_type);
          v->map = MAP_CHANNEL;
        }
    }
  if (g->root != NULL)
    for (guint k = 0; k < g->root->n_inputs; k++)
      {
        SkVal *v = g->root->inputs[k] ? g_hash_table_lookup (g->by_value, g->root->inputs[k]) : NULL;
        gboolean gemm_c = strcmp (g->root->op_type, "Gemm") == 0 && k == 2;
        gboolean elsewhere = FALSE;
        /* A root operand the epilogue also reads (a residual of the MatMul's input) stays in the space. */
        for (guint u = 0; v != NULL && u < v->value->n_uses; u++)
          if (v->value->uses[u].node != g->root && is_member (g, v->value->uses[u].node))
            elsewhere = TRUE;
        if (v != NULL && v->map != MAP_CHANNEL && !gemm_c && !elsewhere)
          v->map = MAP_NONE;
      }
  return TRUE;
}

/* Strides of every value over the space; FALSE when a value does not map onto it. */
static gboolean
map_values (Gen *g, GError **error)
{
  gint lead = g->split >= 0 ? g->split : g->rank;

  for (guint i = 0; i < g->vals->len; i++)
    {
      SkVal *v = g_ptr_array_index (g->vals, i);
      gint64 acc = 1;

      memset (v->strides, 0, sizeof v->strides);
      if (v->kind == SV_TILE)
        {
          for (gint a = g->rank - 1; a >= 0; a--)
            {
              v->strides[a] = g->dims[a] == 1 ? 0 : acc;
              acc *= g->dims[a];
            }
          continue;
        }
      switch (v->map)
        {
        case MAP_NONE:
        default:
          break;
        case MAP_CHANNEL:
          if (g->rank < 2 || v->value->dims[0].value != g->dims[1])
            return unsupported (error, _("per-channel parameters that do not match the channels"));
          v->strides[1] = g->dims[1] == 1 ? 0 : 1;
          break;
        case MAP_LEAD:
          if (v->value->rank != lead)
            return unsupported (error, _("a reduction result that does not map onto the rows"));
          for (gint a = lead - 1; a >= 0; a--)
            {
              gint64 d = v->value->dims[a].value;
              if (d != 1 && d != g->dims[a])
                return unsupported (error, _("a reduction result that does not map onto the rows"));
              v->strides[a] = d == 1 ? 0 : acc;
              acc *= d;
            }
          break;
        case MAP_RIGHT:
          if (v->value->rank > g->rank)
            return unsupported (error, _("a value of higher rank than the group's space"));
          for (gint a = v->value->rank - 1; a >= 0; a--)
            {
              gint sa = g->rank - v->value->rank + a;
              gint64 d = v->value->dims[a].value;
              if (d != 1 && d != g->dims[sa])
                {
                  g_autofree char *shape = fw_value_format_shape (v->value);
                  return unsupported (error, _("a value of shape %s does not broadcast into the group's space"), shape);
                }
              v->strides[sa] = d == 1 ? 0 : acc;
              acc *= d;
            }
          break;
        }
    }
  /* A keepdims=0 result read inside the group would be read right-aligned by numpy rules. */
  for (guint i = 0; i < g->vals->len; i++)
    {
      SkVal *v = g_ptr_array_index (g->vals, i);
      if (v->map == MAP_LEAD)
        for (guint u = 0; u < v->value->n_uses; u++)
          if (is_member (g, v->value->uses[u].node))
            return unsupported (error, _("a keepdims=0 reduction read inside the group"));
    }
  return TRUE;
}

/* Moves the axis g->moved last in the space and in every value's strides, so it becomes the row. */
static void
move_axis_last (Gen *g)
{
  gint m = g->moved;
  gint64 d;

  if (m < 0 || m == g->rank - 1)
    return;
  d = g->dims[m];
  memmove (g->dims + m, g->dims + m + 1, (g->rank - 1 - m) * sizeof (gint64));
  g->dims[g->rank - 1] = d;
  for (guint i = 0; i < g->vals->len; i++)
    {
      SkVal *v = g_ptr_array_index (g->vals, i);
      gint64 st = v->strides[m];
      memmove (v->strides + m, v->strides + m + 1, (g->rank - 1 - m) * sizeof (gint64));
      v->strides[g->rank - 1] = st;
    }
}

/* The original axis of space axis a, before move_axis_last. */
static gint
unmoved_axis (const Gen *g, gint a)
{
  if (g->moved < 0 || a < g->moved)
    return a;
  return a == g->rank - 1 ? g->moved : a + 1;
}

static gboolean
val_in_space (const SkVal *v)
{
  return v->kind == SV_TILE || v->map != MAP_NONE;
}

/* Merges adjacent axes of the same side of the split where every value allows. */
static void
collapse (Gen *g)
{
  gint split = g->split;
  gint n = 0;
  gint64 gd[FW_MAX_RANK];
  gboolean ginner[FW_MAX_RANK];
  gint last_axis[FW_MAX_RANK];

  for (gint a = 0; a < g->rank; a++)
    {
      gboolean inner = split >= 0 && a >= split;
      gboolean merge = FALSE;

      if (g->dims[a] == 1)
        continue;
      if (n > 0 && ginner[n - 1] == inner)
        {
          gint p = last_axis[n - 1];
          merge = TRUE;
          for (guint i = 0; i < g->vals->len && merge; i++)
            {
              SkVal *v = g_ptr_array_index (g->vals, i);
              if (!val_in_space (v))
                continue;
              if (!((v->strides[p] == 0 && v->strides[a] == 0) ||
                    (v->strides[a] != 0 && v->strides[p] == v->strides[a] * g->dims[a])))
                merge = FALSE;
            }
        }
      if (merge)
        {
          gd[n - 1] *= g->dims[a];
          last_axis[n - 1] = a;
        }
      else
        {
          gd[n] = g->dims[a];
          ginner[n] = inner;
          last_axis[n] = a;
          n++;
        }
    }
  g->n_lead = g->n_inner = 0;
  for (gint k = 0; k < n; k++)
    {
      /* Without a split, the innermost merged axis is the row. */
      gboolean inner = split >= 0 ? ginner[k] : k == n - 1;
      for (guint i = 0; i < g->vals->len; i++)
        {
          SkVal *v = g_ptr_array_index (g->vals, i);
          gint slot = inner ? FW_MAX_RANK / 2 + g->n_inner : g->n_lead;
          if (val_in_space (v))
            v->cstr[slot] = v->strides[last_axis[k]];
        }
      if (inner)
        g->inner[g->n_inner++] = gd[k];
      else
        g->lead[g->n_lead++] = gd[k];
    }
  if (g->n_inner == 0)
    g->inner[g->n_inner++] = 1;  /* strides stay 0 */
  g->n_rows = 1;
  for (gint k = 0; k < g->n_lead; k++)
    g->n_rows *= g->lead[k];
  g->row_len = 1;
  for (gint k = 0; k < g->n_inner; k++)
    g->row_len *= g->inner[k];
  g->chunk = g->inner[g->n_inner - 1];
  g->n_chunks = 1;
  if (g->split < 0 && g->root == NULL && g->n_inner == 1 && g->row_len > 2 * CHUNK_ELEMENTS)
    {
      g->chunk = CHUNK_ELEMENTS;
      g->n_chunks = (g->row_len + CHUNK_ELEMENTS - 1) / CHUNK_ELEMENTS;
    }
  for (guint i = 0; i < g->vals->len; i++)
    {
      SkVal *v = g_ptr_array_index (g->vals, i);
      v->rowv = TRUE;
      for (gint k = 0; k < g->n_inner; k++)
        if (val_in_space (v) && v->cstr[FW_MAX_RANK / 2 + k] != 0)
          v->rowv = FALSE;
    }
  /* A one-element row (a Conv on a 1×1 plane, squeeze-excite): nothing varies along it, and without row
     operations every value is simply computed in the one-iteration loop. */
  if (g->row_len == 1 && g->row_axes == 0)
    for (guint i = 0; i < g->vals->len; i++)
      {
        SkVal *v = g_ptr_array_index (g->vals, i);
        v->rowv = v->kind == SV_IMM_SCALAR;
      }
}

#define LEAD_STRIDE(v, k) ((v)->cstr[(k)])
#define INNER_STRIDE(v, k) ((v)->cstr[FW_MAX_RANK / 2 + (k)])

/* ---- passes ---- */

static gint
ready (SkVal *v)
{
  return v->kind == SV_INTERNAL ? v->pass : 0;
}

static void
use_at (SkVal *v, gint pass)
{
  if (v->kind == SV_INTERNAL && !v->rowv && pass > v->pass)
    v->scratch = TRUE;
}

static SkVal *
input_val (Gen *g, const FwNode *node, guint k)
{
  return k < node->n_inputs && node->inputs[k] ? g_hash_table_lookup (g->by_value, node->inputs[k]) : NULL;
}

static gboolean
assign_passes (Gen *g, GError **error)
{
  gint max_pass = 0;

  for (guint i = 0; i < g->nodes->len; i++)
    {
      SkNode *sn = &g_array_index (g->nodes, SkNode, i);
      FwNode *node = sn->node;
      SkVal *x = input_val (g, node, 0);
      gint p = 0;

      if (node == g->root)
        {
          sn->kind = NK_ROOT;
          sn->pass = sn->out->pass = 0;
          if (sn->out->rowv)
            return unsupported (error, _("a degenerate %s"), node->op_type);
          continue;
        }
      if (is_row_op (node))
        {
          if (x == NULL || x->rowv)
            return unsupported (error, _("%s over a broadcast input"), node->op_type);
          for (gint a = g->split; a < g->rank; a++)
            if (x->value && x->value->rank == g->rank && x->value->dims[unmoved_axis (g, a)].value != g->dims[a])
              return unsupported (error, _("%s over a broadcast input"), node->op_type);
          if (g->moved >= 0 && (x->value == NULL || x->value->rank != g->rank))
            return unsupported (error, _("%s over a broadcast input"), node->op_type);
          p = ready (x);
          sn->pass = p;
          if (strcmp (node->op_type, "Softmax") == 0 || strcmp (node->op_type, "LogSoftmax") == 0 ||
              strcmp (node->op_type, "LayerNormalization") == 0)
            {
              gint last = p + 2;
              sn->kind = strcmp (node->op_type, "LayerNormalization") == 0 ? NK_LAYERNORM : NK_SOFTMAX;
              for (guint k = 1; sn->kind == NK_LAYERNORM && k < 3; k++)
                {
                  SkVal *w = input_val (g, node, k);
                  if (w != NULL)
                    last = MAX (last, ready (w));
                }
              use_at (x, p);
              use_at (x, p + 1);
              use_at (x, last);
              for (guint k = 1; sn->kind == NK_LAYERNORM && k < 3; k++)
                {
                  SkVal *w = input_val (g, node, k);
                  if (w != NULL)
                    use_at (w, last);
                }
              sn->last_pass = last;
              sn->out->pass = last;
              if (sn->out->rowv)
                return unsupported (error, _("a degenerate %s"), node->op_type);
              max_pass = MAX (max_pass, last);
            }
          else
            {
              sn->kind = NK_REDUCE;
              if (!is_floatish (x->dtype) || !is_floatish (sn->out->dtype))
                return unsupported (error, _("%s in %s"), node->op_type, fw_dtype_name (x->dtype));
              use_at (x, p);
              sn->last_pass = p;
              sn->out->pass = p + 1;
              if (!sn->out->rowv)
                return unsupported (error, _("%s whose result is not per row"), node->op_type);
              max_pass = MAX (max_pass, p);
            }
          continue;
        }
      for (guint k = 0; k < node->n_inputs; k++)
        {
          SkVal *w = is_data_slot (node, k) ? input_val (g, node, k) : NULL;
          if (w != NULL)
            p = MAX (p, ready (w));
        }
      if (sn->out->rowv)
        {
          sn->kind = NK_ROWV;
          for (guint k = 0; k < node->n_inputs; k++)
            {
              SkVal *w = is_data_slot (node, k) ? input_val (g, node, k) : NULL;
              if (w != NULL && !w->rowv)
                return unsupported (error, _("%s reads a row but produces one value per row"), node->op_type);
            }
          sn->pass = sn->out->pass = p;
        }
      else
        {
          sn->kind = NK_ELEM;
          sn->pass = sn->out->pass = p;
          for (guint k = 0; k < node->n_inputs; k++)
            {
              SkVal *w = is_data_slot (node, k) ? input_val (g, node, k) : NULL;
              if (w != NULL)
                use_at (w, p);
            }
          max_pass = MAX (max_pass, p);
        }
    }
  g->n_passes = max_pass + 1;
  g->n_scratch = 0;
  for (guint i = 0; i < g->vals->len; i++)
    {
      SkVal *v = g_ptr_array_index (g->vals, i);
      if (v->scratch)
        v->scratch_slot = g->n_scratch++;
    }
  if (g->n_scratch > 0 && g->row_len > G_MAXINT32 / MAX (g->n_scratch, 1))
    return unsupported (error, _("rows too long for the scratch buffer"));
  return TRUE;
}

/* ---- emitting ---- */

static const char *
ptr_base (SkVal *v, char *buf, gsize len)
{
  if (v->kind == SV_TILE)
    g_snprintf (buf, len, "dst");
  else if (v->kind == SV_IMM_ARRAY)
    g_snprintf (buf, len, "c%d", v->imm_index);
  else if (v->out_index >= 0)
    g_snprintf (buf, len, "out%d", v->out_index);
  else
    g_snprintf (buf, len, "in%d", v->in_index);
  return buf;
}

static void
append_load (GString *s, SkVal *v, const char *index)
{
  char base[32];

  (void) base;
  g_string_append_printf (s, "const %s v%u = ", reg_type (v->dtype), v->id);
  if (v->dtype == FW_DTYPE_FLOAT16 && v->kind != SV_IMM_ARRAY)
    g_string_append_printf (s, "fw_h2f (P%u[%s]);\n", v->id, index);
  else
    g_string_append_printf (s, "P%u[%s];\n", v->id, index);
}

/* v's element j of the innermost loop, relative to its row pointer: unit stride except along a moved axis. */
static void
inner_index (Gen *g, SkVal *v, char *buf, gsize len)
{
  gint64 st = INNER_STRIDE (v, g->n_inner - 1);

  if (st == 0)
    g_snprintf (buf, len, "0");
  else if (st == 1)
    g_snprintf (buf, len, "j");
  else
    g_snprintf (buf, len, "j * %" G_GINT64_FORMAT, st);
}

/* The expression for v in pass `pass` (-1: row scope), emitting a load into s first when needed. */
static void
operand (Gen *g, GString *s, SkVal *v, gint pass, GString *out)
{
  if (v->kind == SV_IMM_SCALAR)
    {
      append_const_element (out, v->value->constant, 0, v->dtype);
      return;
    }
  if (v->rowv || pass < 0)
    {
      /* Per-row inputs were loaded by the row prologue, per-row results computed at row scope. */
      g_string_append_printf (out, "v%u", v->id);
      return;
    }
  if (v->kind == SV_INTERNAL && v->pass == pass)
    {
      g_string_append_printf (out, "v%u", v->id);
      return;
    }
  if (v->loaded_pass != pass)
    {
      char j[48];
      inner_index (g, v, j, sizeof j);
      v->loaded_pass = pass;
      if (v->kind == SV_INTERNAL)
        {
          v->need_scr = TRUE;
          g_string_append_printf (s, "      const %s v%u = S%u[j];\n", reg_type (v->dtype), v->id, v->id);
        }
      else
        {
          v->need_ptr = TRUE;
          g_string_append (s, "      ");
          append_load (s, v, j);
        }
    }
  g_string_append_printf (out, "v%u", v->id);
}

/* Adds operand k of node to args (an expression string each); FALSE when missing. */
static const char *
arg (Gen *g, GString *s, const FwNode *node, guint k, gint pass, GPtrArray *keep)
{
  SkVal *v = input_val (g, node, k);
  GString *e;

  if (v == NULL)
    return NULL;
  e = g_string_new (NULL);
  operand (g, s, v, pass, e);
  g_ptr_array_add (keep, e->str);
  g_string_free (e, FALSE);
  return g_ptr_array_index (keep, keep->len - 1);
}

static gboolean
const_scalar (const FwNode *node, guint k, double *out)
{
  FwValue *v = k < node->n_inputs ? node->inputs[k] : NULL;

  return v != NULL && v->constant != NULL && v->constant->n_elements == 1 &&
         fw_tensor_get_double (v->constant, 0, out);
}

static char *
flit (float f)
{
  GString *s = g_string_new (NULL);
  append_float_literal (s, f);
  return g_string_free (s, FALSE);
}

/* The C expression of an elementwise node's output 0 in register type. */
static char *
elementwise_expr (Gen *g, GString *s, const FwNode *node, gint pass, SkVal *out, GError **error)
{
  const char *op = node->op_type;
  g_autoptr(GPtrArray) keep = g_ptr_array_new_with_free_func (g_free);
  const char *a = arg (g, s, node, 0, pass, keep);
  const char *b = node->n_inputs > 1 ? arg (g, s, node, 1, pass, keep) : NULL;
  SkVal *va = input_val (g, node, 0);
  gboolean fl = is_floatish (out->dtype) && va && is_floatish (va->dtype);
  /* float64 computes with the double functions and literals, as the reference's float64 kernels do: the
     same expressions with no 'f' suffix (sf). */
  gboolean dbl = out->dtype == FW_DTYPE_DOUBLE && va && va->dtype == FW_DTYPE_DOUBLE;
  gboolean fx = fl || dbl;
  const char *sf = dbl ? "" : "f";
  gboolean num = fl || (va && va->dtype == out->dtype && out->dtype != FW_DTYPE_BOOL);

  if (a == NULL)
    {
      unsupported (error, _("%s without its input"), op);
      return NULL;
    }
#define NEED(cond)                                                                                         \
  if (!(cond))                                                                                             \
    {                                                                                                      \
      unsupported (error, _("operator %s on %s is not supported"), op, fw_dtype_name (va->dtype));         \
      return NULL;                                                                                         \
    }
  if (strcmp (op, "Identity") == 0 || strcmp (op, "Dropout") == 0)
    return g_strdup (a);
  if (strcmp (op, "Add") == 0 || strcmp (op, "Sub") == 0 || strcmp (op, "Mul") == 0)
    {
      NEED (num && b);
      return g_strdup_printf ("(%s %c %s)", a, op[0] == 'A' ? '+' : op[0] == 'S' ? '-' : '*', b);
    }
  if (strcmp (op, "Div") == 0)
    {
      NEED ((fx || num) && b);
      if (fx)
        return g_strdup_printf ("(%s / %s)", a, b);
      /* Integers: C's division truncates toward zero as ONNX's does; by zero gives 0 and INT_MIN / -1 wraps,
         as the reference chooses (ONNX leaves both undefined). */
      if (out->dtype == FW_DTYPE_UINT8)
        return g_strdup_printf ("(%s == 0 ? (uint8_t) 0 : (uint8_t) (%s / %s))", b, a, b);
      return g_strdup_printf ("((%s) fw_sdiv (%s, %s))", reg_type (out->dtype), a, b);
    }
  if (strcmp (op, "Pow") == 0)
    {
      double e;
      NEED (fx && b);
      if (const_scalar (node, 1, &e) && e == 2.0)
        return g_strdup_printf ("(%s * %s)", a, a);
      if (const_scalar (node, 1, &e) && e == 0.5)
        return g_strdup_printf ("sqrt%s (%s)", sf, a);
      if (const_scalar (node, 1, &e) && e == 1.0)
        return g_strdup (a);
      return g_strdup_printf ("pow%s (%s, (%s) %s)", sf, a, dbl ? "double" : "float", b);
    }
  if (strcmp (op, "Max") == 0 || strcmp (op, "Min") == 0 || strcmp (op, "Sum") == 0 || strcmp (op, "Mean") == 0)
    {
      GString *e;
      NEED (fx);
      e = g_string_new (a);
      for (guint k = 1; k < node->n_inputs; k++)
        {
          const char *x = arg (g, s, node, k, pass, keep);
          char *prev = g_strdup (e->str);
          if (x == NULL)
            {
              g_free (prev);
              continue;
            }
          g_string_truncate (e, 0);
          /* The reference's rule (a NaN on either side wins), as comparisons: fmaxf and fminf drop NaNs,
             and are calls that keep the loop from vectorising. */
          if (strcmp (op, "Max") == 0)
            g_string_append_printf (e, "((%s) != (%s) || (%s) > (%s) ? (%s) : (%s))", prev, prev, prev, x, prev, x);
          else if (strcmp (op, "Min") == 0)
            g_string_append_printf (e, "((%s) != (%s) || (%s) < (%s) ? (%s) : (%s))", prev, prev, prev, x, prev, x);
          else
            g_string_append_printf (e, "(%s + %s)", prev, x);
          g_free (prev);
        }
      if (strcmp (op, "Mean") == 0)
        {
          g_autofree char *n = flit ((float) node->n_inputs);
          char *r;
          if (dbl)
            {
              GString *d = g_string_new (NULL);
              append_hex_double (d, (double) node->n_inputs);
              g_free (n);
              n = g_string_free (d, FALSE);
            }
          r = g_strdup_printf ("(%s / %s)", e->str, n);
          g_string_free (e, TRUE);
          return r;
        }
      return g_string_free (e, FALSE);
    }
  if (strcmp (op, "Where") == 0)
    {
      const char *c = node->n_inputs > 2 ? arg (g, s, node, 2, pass, keep) : NULL;
      NEED (b && c);
      return g_strdup_printf ("(%s ? %s : %s)", a, b, c);
    }
  if (strcmp (op, "Equal") == 0 || strcmp (op, "Less") == 0 || strcmp (op, "Greater") == 0 ||
      strcmp (op, "LessOrEqual") == 0 || strcmp (op, "GreaterOrEqual") == 0)
    {
      const char *cmp = strcmp (op, "Equal") == 0 ? "==" : strcmp (op, "Less") == 0 ? "<" :
                        strcmp (op, "Greater") == 0 ? ">" : strcmp (op, "LessOrEqual") == 0 ? "<=" : ">=";
      NEED (b);
      return g_strdup_printf ("((uint8_t) (%s %s %s))", a, cmp, b);
    }
  if (strcmp (op, "Not") == 0)
    return g_strdup_printf ("((uint8_t) !%s)", a);
  if (strcmp (op, "And") == 0 || strcmp (op, "Or") == 0 || strcmp (op, "Xor") == 0)
    {
      NEED (b);
      if (op[0] == 'X')
        return g_strdup_printf ("((uint8_t) ((%s != 0) != (%s != 0)))", a, b);
      return g_strdup_printf ("((uint8_t) (%s %s %s))", a, op[0] == 'A' ? "&&" : "||", b);
    }
  if (strcmp (op, "Cast") == 0)
    {
      if (out->dtype == FW_DTYPE_FLOAT16 && va->dtype != FW_DTYPE_FLOAT16)
        return g_strdup_printf ("fw_h2f (fw_f2h ((float) %s))", a);
      if (out->dtype == FW_DTYPE_BOOL)
        return g_strdup_printf ("((uint8_t) (%s != 0))", a);
      return g_strdup_printf ("((%s) %s)", reg_type (out->dtype), a);
    }
  if (strcmp (op, "Neg") == 0)
    {
      NEED (num);
      return g_strdup_printf ("(-%s)", a);
    }
  if (strcmp (op, "Abs") == 0)
    {
      NEED (num);
      if (fx)
        return g_strdup_printf ("fabs%s (%s)", sf, a);
      return g_strdup_printf ("(%s < 0 ? -%s : %s)", a, a, a);
    }
  NEED (fx);
  if (strcmp (op, "Relu") == 0)
    return g_strdup_printf ("(%s > 0.0%s ? %s : 0.0%s)", a, sf, a, sf);
  if (strcmp (op, "Sigmoid") == 0)
    return g_strdup_printf ("(1.0%s / (1.0%s + exp%s (-%s)))", sf, sf, sf, a);
  if (strcmp (op, "Tanh") == 0 || strcmp (op, "Exp") == 0 || strcmp (op, "Log") == 0 || strcmp (op, "Sqrt") == 0 ||
      strcmp (op, "Floor") == 0 || strcmp (op, "Ceil") == 0 || strcmp (op, "Sin") == 0 || strcmp (op, "Cos") == 0)
    {
      g_autofree char *fn = g_ascii_strdown (op, -1);
      return g_strdup_printf ("%s%s (%s)", fn, sf, a);
    }
  if (strcmp (op, "Erf") == 0)
    return dbl ? g_strdup_printf ("erf (%s)", a) : g_strdup_printf ("fw_erf (%s)", a);
  if (strcmp (op, "Reciprocal") == 0)
    return g_strdup_printf ("(1.0%s / %s)", sf, a);
  if (strcmp (op, "Round") == 0)
    return g_strdup_printf ("rint%s (%s)", sf, a);
  if (strcmp (op, "Sign") == 0)
    return g_strdup_printf ("((%s) ((%s > 0.0%s) - (%s < 0.0%s)))", reg_type (out->dtype), a, sf, a, sf);
  if (strcmp (op, "Softplus") == 0)
    return g_strdup_printf ("log1p%s (exp%s (%s))", sf, sf, a);
  if (strcmp (op, "Softsign") == 0)
    return g_strdup_printf ("(%s / (1.0%s + fabs%s (%s)))", a, sf, sf, a);
  if (strcmp (op, "Mish") == 0)
    return g_strdup_printf ("(%s * tanh%s (log1p%s (exp%s (%s))))", a, sf, sf, sf, a);
  /* The rest read float attributes into float literals: float32 and float16 only. */
  NEED (fl);
  if (strcmp (op, "Clip") == 0)
    {
      g_autofree char *lo = NULL, *hi = NULL;
      const char *lo_arg = node->n_inputs > 1 ? arg (g, s, node, 1, pass, keep) : NULL;
      const char *hi_arg = node->n_inputs > 2 ? arg (g, s, node, 2, pass, keep) : NULL;
      GString *e = g_string_new (a);
      if (node->opset > 0 && node->opset < 11)
        {
          lo = flit (fw_node_get_attr_float (node, "min", -G_MAXFLOAT));
          hi = flit (fw_node_get_attr_float (node, "max", G_MAXFLOAT));
          lo_arg = lo;
          hi_arg = hi;
        }
      if (lo_arg)
        {
          char *prev = g_strdup (e->str);
          g_string_printf (e, "(%s < %s ? %s : %s)", prev, lo_arg, lo_arg, prev);
          g_free (prev);
        }
      if (hi_arg)
        {
          char *prev = g_strdup (e->str);
          g_string_printf (e, "(%s > %s ? %s : %s)", prev, hi_arg, hi_arg, prev);
          g_free (prev);
        }
      return g_string_free (e, FALSE);
    }
  if (strcmp (op, "HardSigmoid") == 0 || strcmp (op, "HardSwish") == 0)
    {
      gboolean swish = strcmp (op, "HardSwish") == 0;
      g_autofree char *alpha = flit (swish ? 1.0f / 6.0f : fw_node_get_attr_float (node, "alpha", 0.2f));
      g_autofree char *beta = flit (swish ? 0.5f : fw_node_get_attr_float (node, "beta", 0.5f));
      g_autofree char *y = g_strdup_printf ("(%s * %s + %s)", a, alpha, beta);
      /* Clamped as the reference clamps (a NaN stays NaN), with comparisons that vectorise. */
      g_autofree char *hs = g_strdup_printf ("(%s < 0.0f ? 0.0f : (%s > 1.0f ? 1.0f : %s))", y, y, y);
      return swish ? g_strdup_printf ("(%s * %s)", a, hs) : g_strdup (hs);
    }
  if (strcmp (op, "LeakyRelu") == 0 || strcmp (op, "Elu") == 0 || strcmp (op, "ThresholdedRelu") == 0)
    {
      float def = op[0] == 'L' ? 0.01f : 1.0f;
      g_autofree char *alpha = flit (fw_node_get_attr_float (node, "alpha", def));
      if (op[0] == 'L')
        return g_strdup_printf ("(%s < 0.0f ? %s * %s : %s)", a, alpha, a, a);
      if (op[0] == 'E')
        return g_strdup_printf ("(%s < 0.0f ? %s * (expf (%s) - 1.0f) : %s)", a, alpha, a, a);
      return g_strdup_printf ("(%s > %s ? %s : 0.0f)", a, alpha, a);
    }
  if (strcmp (op, "Selu") == 0)
    {
      g_autofree char *alpha = flit (fw_node_get_attr_float (node, "alpha", 1.67326319217681884765625f));
      g_autofree char *gamma = flit (fw_node_get_attr_float (node, "gamma", 1.05070102214813232421875f));
      return g_strdup_printf ("(%s <= 0.0f ? %s * (%s * expf (%s) - %s) : %s * %s)", a, gamma, alpha, a, alpha, gamma,
                              a);
    }
  if (strcmp (op, "PRelu") == 0)
    {
      NEED (b);
      return g_strdup_printf ("(%s < 0.0f ? %s * %s : %s)", a, b, a, a);
    }
  if (strcmp (op, "Gelu") == 0)
    {
      const char *approx = fw_node_get_attr_string (node, "approximate");
      g_autofree char *inv_sqrt2 = flit ((float) (1.0 / G_SQRT2));
      g_autofree char *k0 = flit ((float) sqrt (2.0 / G_PI));
      g_autofree char *k1 = flit (0.044715f);
      if (approx == NULL || strcmp (approx, "none") == 0)
        return g_strdup_printf ("(0.5f * %s * (1.0f + fw_erf (%s * %s)))", a, a, inv_sqrt2);
      if (strcmp (approx, "tanh") == 0)
        return g_strdup_printf ("(0.5f * %s * (1.0f + tanhf (%s * (%s + %s * %s * %s * %s))))", a, k0, a, k1, a, a, a);
      unsupported (error, _("Gelu with an unknown approximation"));
      return NULL;
    }
  if (strcmp (op, "BatchNormalization") == 0)
    {
      const char *scale = arg (g, s, node, 1, pass, keep), *bias = arg (g, s, node, 2, pass, keep);
      const char *mean = arg (g, s, node, 3, pass, keep), *var = arg (g, s, node, 4, pass, keep);
      g_autofree char *eps = flit (fw_node_get_attr_float (node, "epsilon", 1e-5f));
      if (!scale || !bias || !mean || !var || fw_node_get_attr_int (node, "training_mode", 0))
        {
          unsupported (error, _("BatchNormalization in training mode"));
          return NULL;
        }
      return g_strdup_printf ("((%s - %s) / sqrtf (%s + %s) * %s + %s)", a, mean, var, eps, scale, bias);
    }
#undef NEED
  unsupported (error, _("operator %s is not supported"), op);
  return NULL;
}

static void
append_store (Gen *g, GString *s, SkVal *v, const char *indent, gboolean row_scope)
{
  if (v->out_index >= 0)
    {
      char idx[48];
      if (row_scope)
        g_snprintf (idx, sizeof idx, "0");
      else
        inner_index (g, v, idx, sizeof idx);
      if (row_scope)
        g_string_append_printf (s, "%sout%d[b%u] = ", indent, v->out_index, v->id);
      else
        {
          v->need_ptr = TRUE;
          g_string_append_printf (s, "%sP%u[%s] = ", indent, v->id, idx);
        }
      if (v->dtype == FW_DTYPE_FLOAT16)
        g_string_append_printf (s, "fw_f2h (v%u);\n", v->id);
      else
        g_string_append_printf (s, "v%u;\n", v->id);
    }
  if (v->scratch && !row_scope)
    {
      v->need_scr = TRUE;
      g_string_append_printf (s, "%sS%u[j] = v%u;\n", indent, v->id, v->id);
    }
}

/* A float16 result is rounded to half as the reference stores it, though it stays in a float register, so
 * fused and unfused runs agree. */
#define HALF_OPEN(v) ((v)->dtype == FW_DTYPE_FLOAT16 ? "fw_h2f (fw_f2h (" : "")
#define HALF_CLOSE(v) ((v)->dtype == FW_DTYPE_FLOAT16 ? "))" : "")

/* Statements of one node at row scope (NK_ROWV). */
static gboolean
emit_rowv_node (Gen *g, GString *s, SkNode *sn, GError **error)
{
  g_autofree char *e = elementwise_expr (g, s, sn->node, -1, sn->out, error);

  if (e == NULL)
    return FALSE;
  g_string_append_printf (s, "    const %s v%u = %s%s%s;\n", reg_type (sn->out->dtype), sn->out->id, HALF_OPEN (sn->out),
                          e, HALF_CLOSE (sn->out));
  append_store (g, s, sn->out, "    ", TRUE);
  return TRUE;
}

static const char *
reduce_kind (const char *op)
{
  if (strcmp (op, "GlobalAveragePool") == 0)
    return "ReduceMean";
  if (strcmp (op, "GlobalMaxPool") == 0)
    return "ReduceMax";
  return op;
}

/* Accumulator declarations (row scope) for stages in pass p. */
static void
emit_acc_decls (Gen *g, GString *s, gint p)
{
  for (guint i = 0; i < g->nodes->len; i++)
    {
      SkNode *sn = &g_array_index (g->nodes, SkNode, i);
      const char *op = reduce_kind (sn->node->op_type);
      if (sn->kind == NK_REDUCE && sn->pass == p)
        {
          if (strcmp (op, "ReduceMax") == 0)
            g_string_append_printf (s, "    float a%u = -INFINITY;\n", sn->id);
          else if (strcmp (op, "ReduceMin") == 0)
            g_string_append_printf (s, "    float a%u = INFINITY;\n", sn->id);
          else if (strcmp (op, "ReduceProd") == 0)
            g_string_append_printf (s, "    double a%u = 1.0;\n", sn->id);
          else
            g_string_append_printf (s, "    double a%u = 0.0;\n", sn->id);
        }
      if ((sn->kind == NK_SOFTMAX || sn->kind == NK_LAYERNORM) && sn->pass == p)
        g_string_append_printf (s, "    %s a%u = %s;\n", sn->kind == NK_SOFTMAX ? "float" : "double", sn->id,
                                sn->kind == NK_SOFTMAX ? "-INFINITY" : "0.0");
      if ((sn->kind == NK_SOFTMAX || sn->kind == NK_LAYERNORM) && sn->pass + 1 == p)
        g_string_append_printf (s, "    double d%u = 0.0;\n", sn->id);
    }
}

/* Statements after pass p: reduction results, at row scope. */
static void
emit_finals (Gen *g, GString *s, gint p)
{
  g_autofree char *n = flit ((float) g->row_len);

  for (guint i = 0; i < g->nodes->len; i++)
    {
      SkNode *sn = &g_array_index (g->nodes, SkNode, i);
      const char *op = reduce_kind (sn->node->op_type);
      guint o = sn->out ? sn->out->id : 0;

      if (sn->kind == NK_REDUCE && sn->pass == p)
        {
          if (strcmp (op, "ReduceMax") == 0 || strcmp (op, "ReduceMin") == 0)
            g_string_append_printf (s, "    const float v%u = a%u;\n", o, sn->id);
          else if (strcmp (op, "ReduceMean") == 0)
            g_string_append_printf (s, "    const float v%u = (float) (a%u / %" G_GINT64_FORMAT ".0);\n", o, sn->id,
                                    g->row_len);
          else if (strcmp (op, "ReduceL2") == 0)
            g_string_append_printf (s, "    const float v%u = (float) sqrt (a%u);\n", o, sn->id);
          else
            g_string_append_printf (s, "    const float v%u = (float) a%u;\n", o, sn->id);
          append_store (g, s, sn->out, "    ", TRUE);
        }
      if (sn->kind == NK_LAYERNORM && sn->pass == p)
        g_string_append_printf (s, "    const float m%u = (float) (a%u / %" G_GINT64_FORMAT ".0);\n", sn->id, sn->id,
                                g->row_len);
      if (sn->kind == NK_LAYERNORM && sn->pass + 1 == p)
        {
          g_autofree char *eps = flit (fw_node_get_attr_float (sn->node, "epsilon", 1e-5f));
          g_string_append_printf (s, "    const float r%u = 1.0f / sqrtf ((float) (d%u / %s) + %s);\n", sn->id, sn->id,
                                  n, eps);
        }
      if (sn->kind == NK_SOFTMAX && sn->pass == p)
        g_string_append_printf (s, "    const float m%u = a%u;\n", sn->id, sn->id);
      if (sn->kind == NK_SOFTMAX && sn->pass + 1 == p)
        g_string_append_printf (s, "    const float s%u = (float) d%u;\n", sn->id, sn->id);
    }
}

/* The loop body of pass p into s. */
static gboolean
emit_pass_body (Gen *g, GString *s, gint p, GError **error)
{
  for (guint i = 0; i < g->nodes->len; i++)
    {
      SkNode *sn = &g_array_index (g->nodes, SkNode, i);
      FwNode *node = sn->node;
      SkVal *x = input_val (g, node, 0);
      GString *xe = g_string_new (NULL);
      gboolean ok = TRUE;

      switch (sn->kind)
        {
        case NK_ROOT:
          if (sn->pass == p)
          {
            g_autoptr(GString) e = g_string_new (NULL);
            operand (g, s, g->tile, p, e);
            if (strcmp (node->op_type, "Gemm") == 0 && input_val (g, node, 2) != NULL)
              {
                double beta = fw_node_get_attr_float (node, "beta", 1.0f);
                g_autofree char *bl = flit ((float) beta);
                g_string_append (e, beta == 1.0 ? " + " : " + ");
                if (beta != 1.0)
                  g_string_append_printf (e, "%s * ", bl);
                operand (g, s, input_val (g, node, 2), p, e);
              }
            else if (strcmp (node->op_type, "Conv") == 0 && input_val (g, node, 2) != NULL)
              {
                g_string_append (e, " + ");
                operand (g, s, input_val (g, node, 2), p, e);
              }
            g_string_append_printf (s, "      const float v%u = %s;\n", sn->out->id, e->str);
            append_store (g, s, sn->out, "      ", FALSE);
          }
          break;
        case NK_ELEM:
          if (sn->pass == p)
            {
              g_autofree char *e = elementwise_expr (g, s, node, p, sn->out, error);
              if (e == NULL)
                ok = FALSE;
              else
                {
                  g_string_append_printf (s, "      const %s v%u = %s%s%s;\n", reg_type (sn->out->dtype), sn->out->id,
                                          HALF_OPEN (sn->out), e, HALF_CLOSE (sn->out));
                  append_store (g, s, sn->out, "      ", FALSE);
                }
            }
          break;
        case NK_REDUCE:
          if (sn->pass == p)
            {
              const char *op = reduce_kind (node->op_type);
              operand (g, s, x, p, xe);
              /* The reference's rule: a NaN wins (x != x is NaN; the flags keep finite-math off). */
              if (strcmp (op, "ReduceMax") == 0)
                g_string_append_printf (s, "      a%u = (%s > a%u || %s != %s) ? %s : a%u;\n", sn->id, xe->str, sn->id,
                                        xe->str, xe->str, xe->str, sn->id);
              else if (strcmp (op, "ReduceMin") == 0)
                g_string_append_printf (s, "      a%u = (%s < a%u || %s != %s) ? %s : a%u;\n", sn->id, xe->str, sn->id,
                                        xe->str, xe->str, xe->str, sn->id);
              else if (strcmp (op, "ReduceSumSquare") == 0 || strcmp (op, "ReduceL2") == 0)
                g_string_append_printf (s, "      a%u += (double) %s * (double) %s;\n", sn->id, xe->str, xe->str);
              else if (strcmp (op, "ReduceProd") == 0)
                g_string_append_printf (s, "      a%u *= (double) %s;\n", sn->id, xe->str);
              else if (strcmp (op, "ReduceL1") == 0)
                g_string_append_printf (s, "      a%u += fabs ((double) %s);\n", sn->id, xe->str);
              else
                g_string_append_printf (s, "      a%u += (double) %s;\n", sn->id, xe->str);
            }
          break;
        case NK_SOFTMAX:
        case NK_LAYERNORM:
          if (sn->pass == p || sn->pass + 1 == p || sn->last_pass == p)
            operand (g, s, x, p, xe);
          if (sn->kind == NK_SOFTMAX && sn->pass == p)
            g_string_append_printf (s, "      a%u = %s > a%u ? %s : a%u;\n", sn->id, xe->str, sn->id, xe->str, sn->id);
          else if (sn->kind == NK_SOFTMAX && sn->pass + 1 == p)
            g_string_append_printf (s, "      d%u += (double) expf (%s - m%u);\n", sn->id, xe->str, sn->id);
          else if (sn->kind == NK_SOFTMAX && sn->last_pass == p)
            {
              if (strcmp (node->op_type, "LogSoftmax") == 0)
                g_string_append_printf (s, "      const float v%u = %s - m%u - logf (s%u);\n", sn->out->id, xe->str,
                                        sn->id, sn->id);
              else
                g_string_append_printf (s, "      const float v%u = expf (%s - m%u) / s%u;\n", sn->out->id, xe->str,
                                        sn->id, sn->id);
              append_store (g, s, sn->out, "      ", FALSE);
            }
          else if (sn->pass == p)
            g_string_append_printf (s, "      a%u += (double) %s;\n", sn->id, xe->str);
          else if (sn->pass + 1 == p)
            g_string_append_printf (s, "      d%u += (double) (%s - m%u) * (double) (%s - m%u);\n", sn->id, xe->str,
                                    sn->id, xe->str, sn->id);
          else if (sn->last_pass == p)
            {
              g_autoptr(GString) e = g_string_new (NULL);
              SkVal *scale = input_val (g, node, 1), *bias = input_val (g, node, 2);
              g_string_append_printf (e, "(%s - m%u) * r%u", xe->str, sn->id, sn->id);
              if (scale)
                {
                  g_string_append (e, " * ");
                  operand (g, s, scale, p, e);
                }
              if (bias)
                {
                  g_string_append (e, " + ");
                  operand (g, s, bias, p, e);
                }
              g_string_append_printf (s, "      const float v%u = %s;\n", sn->out->id, e->str);
              append_store (g, s, sn->out, "      ", FALSE);
            }
          break;
        case NK_ROWV:
        default:
          break;
        }
      g_string_free (xe, TRUE);
      if (!ok)
        return FALSE;
    }
  return TRUE;
}

/* Row-scope loads of per-row inputs and base offsets of everything read or written. */
static void
emit_row_prologue (Gen *g, GString *s, const char *row, const char *tile_row)
{
  if (g->n_lead > 0)
    {
      g_string_append_printf (s, "    int64_t rem = %s;\n", row);
      for (gint k = g->n_lead - 1; k >= 0; k--)
        {
          if (k > 0)
            g_string_append_printf (s, "    const int64_t i%d = rem %% %" G_GINT64_FORMAT "; rem /= %" G_GINT64_FORMAT ";\n",
                                    k, g->lead[k], g->lead[k]);
          else
            g_string_append_printf (s, "    const int64_t i0 = rem;\n");
        }
      g_string_append (s, "    (void) rem;\n");
    }
  for (guint i = 0; i < g->vals->len; i++)
    {
      SkVal *v = g_ptr_array_index (g->vals, i);
      gboolean memory = v->kind == SV_EXTERNAL || v->kind == SV_IMM_ARRAY || v->kind == SV_TILE || v->out_index >= 0;
      if (!memory || !val_in_space (v))
        continue;
      g_string_append_printf (s, "    const int64_t b%u = 0", v->id);
      if (v->kind == SV_TILE)
        g_string_append_printf (s, " + (%s) * %" G_GINT64_FORMAT, tile_row, g->row_len);
      else
        for (gint k = 0; k < g->n_lead; k++)
          if (LEAD_STRIDE (v, k) != 0)
            g_string_append_printf (s, " + i%d * %" G_GINT64_FORMAT, k, LEAD_STRIDE (v, k));
      g_string_append (s, ";\n");
      v->row_loaded = FALSE;
      if (v->rowv && v->kind != SV_INTERNAL)
        {
          char base[32];
          v->row_loaded = TRUE;
          if (v->dtype == FW_DTYPE_FLOAT16)
            g_string_append_printf (s, "    const float v%u = fw_h2f (%s[b%u]);\n", v->id,
                                    ptr_base (v, base, sizeof base), v->id);
          else
            g_string_append_printf (s, "    const %s v%u = %s[b%u];\n", reg_type (v->dtype), v->id,
                                    ptr_base (v, base, sizeof base), v->id);
        }
    }
}

/* The row body: sections and passes. */
static gboolean
emit_row (Gen *g, GString *s, GError **error)
{
  for (gint p = 0; p <= g->n_passes; p++)
    {
      for (guint i = 0; i < g->nodes->len; i++)
        {
          SkNode *sn = &g_array_index (g->nodes, SkNode, i);
          if (sn->kind == NK_ROWV && sn->pass == p && !emit_rowv_node (g, s, sn, error))
            return FALSE;
        }
      if (p == g->n_passes)
        break;
      emit_acc_decls (g, s, p);
      {
        g_autoptr(GString) body = g_string_new (NULL);
        gint last = g->n_inner - 1;

        for (guint i = 0; i < g->vals->len; i++)
          {
            SkVal *v = g_ptr_array_index (g->vals, i);
            v->need_ptr = v->need_scr = FALSE;
          }
        if (!emit_pass_body (g, body, p, error))
          return FALSE;
        g_string_append (s, "    {\n");
        for (gint k = 0; k < last; k++)
          g_string_append_printf (s, "    for (int64_t k%d = 0; k%d < %" G_GINT64_FORMAT "; k%d++)\n", k, k,
                                  g->inner[k], k);
        g_string_append (s, "    {\n      const int64_t q = 0");
        for (gint k = 0; k < last; k++)
          {
            gint64 n = 1;
            for (gint m = k + 1; m < g->n_inner; m++)
              n *= g->inner[m];
            g_string_append_printf (s, " + k%d * %" G_GINT64_FORMAT, k, n);
          }
        g_string_append (s, ";\n      (void) q;\n");
        for (guint i = 0; i < g->vals->len; i++)
          {
            SkVal *v = g_ptr_array_index (g->vals, i);
            char base[32];
            if (v->need_ptr)
              {
                gboolean w = v->kind == SV_INTERNAL;
                /* In place the tile and the output are one buffer: no restrict on either. */
                gboolean shared = g->in_place && (v->kind == SV_TILE || v->out_index >= 0);
                g_string_append_printf (s, "      %s%s *%sP%u = %s + b%u", w ? "" : "const ",
                                        v->kind == SV_IMM_ARRAY ? reg_type (v->dtype) : mem_type (v->dtype),
                                        shared ? "" : "restrict ", v->id, ptr_base (v, base, sizeof base), v->id);
                for (gint k = 0; k < last; k++)
                  if (INNER_STRIDE (v, k) != 0)
                    g_string_append_printf (s, " + k%d * %" G_GINT64_FORMAT, k, INNER_STRIDE (v, k));
                g_string_append (s, ";\n");
              }
            if (v->need_scr)
              g_string_append_printf (s, "      %s *restrict S%u = (%s *) scr + %" G_GINT64_FORMAT " + q;\n",
                                      reg_type (v->dtype), v->id, reg_type (v->dtype),
                                      (gint64) v->scratch_slot * g->row_len);
          }
        if (g->n_chunks > 1)
          g_string_append (s, "      for (int64_t j = j0; j < j1; j++)\n      {\n");
        else
          g_string_append_printf (s, "      for (int64_t j = 0; j < %" G_GINT64_FORMAT "; j++)\n      {\n",
                                  g->inner[last]);
        g_string_append (s, body->str);
        g_string_append (s, "      }\n    }\n    }\n");
      }
      emit_finals (g, s, p);
    }
  return TRUE;
}

/* One parallel region over rows [0, count): `row_expr` names the row in the space (the tile's row is t).
 * row_pre, when not NULL, is code that fills the tile's row t first (a direct convolution), so the epilogue
 * reads it from cache. */
static gboolean
emit_region (Gen *g, const char *count, const char *row_expr, const char *row_pre, GError **error)
{
  GString *s = g->body;
  gint64 elements = g->n_rows * g->row_len, ops = 0;
  g_autoptr(GString) row = g_string_new (NULL);

  /* Right after sgemm, OpenBLAS's threads still spin on the cores waiting for more work, and an OpenMP
     team started then shares a core with them: ViT's MLP GELU epilogue took 10 ms on two threads against
     well under 1 ms on one. So an epilogue that is cheap beside its product (a few operations per element
     against 2K flops) runs on the calling thread; a heavy one (Softmax, LayerNorm, transcendentals after a
     short product) still takes the team. */
  for (guint i = 0; i < g->nodes->len; i++)
    {
      SkNode *sn = &g_array_index (g->nodes, SkNode, i);
      const char *op = sn->node->op_type;
      if (sn->kind == NK_ROOT)
        continue;
      ops += sn->kind != NK_ELEM || strcmp (op, "Erf") == 0 || strcmp (op, "Exp") == 0 || strcmp (op, "Tanh") == 0 ||
             strcmp (op, "Sigmoid") == 0 || strcmp (op, "Log") == 0 || strcmp (op, "Gelu") == 0 ? 8 : 1;
    }
  g_string_append_printf (s, "  {\n    int fail = 0;\n#pragma omp parallel num_threads(%s)\n  {\n",
                          elements > PARALLEL_MIN_ELEMENTS && 2 * g->gemm_k < 32 * ops ? "nt" : "1");
  /* Scratch holds float or narrower values only, 8 bytes a slot keeps any register type aligned. */
  if (g->n_scratch > 0)
    g_string_append_printf (s, "    double *scr = (double *) malloc (sizeof (double) * %" G_GINT64_FORMAT ");\n",
                            (gint64) g->n_scratch * g->row_len);
  else
    g_string_append (s, "    double *scr = NULL;\n");
  g_string_append_printf (s, "#pragma omp for schedule(static)\n  for (int64_t t = 0; t < %s; t++)\n  {\n", count);
  if (g->n_scratch > 0)
    g_string_append (s, "    if (scr == NULL) continue;\n");
  if (g->n_chunks > 1)
    g_string_append_printf (s, "    const int64_t r = t / %" G_GINT64_FORMAT ", c = t %% %" G_GINT64_FORMAT ";\n"
                               "    const int64_t j0 = c * %" G_GINT64_FORMAT ";\n"
                               "    const int64_t j1 = j0 + %" G_GINT64_FORMAT " < %" G_GINT64_FORMAT " ? j0 + %"
                               G_GINT64_FORMAT " : %" G_GINT64_FORMAT ";\n",
                            g->n_chunks, g->n_chunks, g->chunk, g->chunk, g->row_len, g->chunk, g->row_len);
  else
    g_string_append_printf (s, "    const int64_t r = %s;\n", row_expr);
  g_string_append (s, "    (void) r;\n");
  if (row_pre != NULL)
    g_string_append (s, row_pre);
  emit_row_prologue (g, s, "r", "t");
  if (!emit_row (g, s, error))
    return FALSE;
  g_string_append (s, "  }\n");
  if (g->n_scratch > 0)
    g_string_append (s, "    if (scr == NULL)\n    {\n#pragma omp atomic write\n      fail = 1;\n    }\n");
  g_string_append (s, "    free (scr);\n  }\n    if (fail)\n      goto out;\n  }\n");
  return TRUE;
}

/* Where the root's result goes: the group's output itself when the epilogue is elementwise and writes one
 * float32 output laid out as the tile (each element is read before the same element is written, so it
 * can be overwritten in place), else a tile of n floats. In place saves the allocation, whose fresh pages
 * cost more than a bias Add, and a third of the epilogue's memory traffic. */
static void
decide_in_place (Gen *g)
{
  SkVal *out = NULL;

  g->in_place = FALSE;
  if (g->root == NULL || g->n_passes != 1 || g->kernel->outputs->len != 1)
    return;
  for (guint i = 0; i < g->vals->len; i++)
    {
      SkVal *v = g_ptr_array_index (g->vals, i);
      if (v->out_index == 0)
        out = v;
    }
  if (out == NULL || out->dtype != FW_DTYPE_FLOAT || out->rowv || out->scratch || out->map != MAP_RIGHT ||
      out->value->rank != g->rank)
    return;
  for (gint a = 0; a < g->rank; a++)
    if (out->strides[a] != g->tile->strides[a])
      return;
  g->in_place = TRUE;
}

static void
emit_tile (Gen *g, gint64 n)
{
  if (g->in_place)
    g_string_append (g->body, "  dst = out0;\n");
  else
    g_string_append_printf (g->body, "  tile = (float *) malloc (sizeof (float) * %" G_GINT64_FORMAT ");\n"
                            "  if (!tile) goto out;\n  dst = tile;\n", n);
}

static gboolean
check_int (gint64 v, GError **error)
{
  if (v < 0 || v > G_MAXINT32)
    return unsupported (error, _("a matrix dimension over 2^31"));
  return TRUE;
}

static gboolean
emit_matmul (Gen *g, GError **error)
{
  FwNode *node = g->root;
  SkVal *a = input_val (g, node, 0), *b = input_val (g, node, 1);
  GString *s = g->body;
  gint rank = g->rank, nb;
  gint64 M, N, K, NB = 1;
  gint64 sa[FW_MAX_RANK] = { 0 }, sb[FW_MAX_RANK] = { 0 };
  gboolean a1, b1;

  if (a == NULL || b == NULL || a->kind == SV_IMM_SCALAR || b->kind == SV_IMM_SCALAR || a->value->rank < 1 ||
      b->value->rank < 1 || (a->value->rank == 1 && b->value->rank == 1) || a->dtype != FW_DTYPE_FLOAT ||
      b->dtype != FW_DTYPE_FLOAT)
    return unsupported (error, _("MatMul on two vectors or non-float32 operands"));
  /* A 1-D A is a [1, K] row and a 1-D B a [K, 1] column whose unit dim the result drops: the tile is laid
     out as the result either way. */
  a1 = a->value->rank == 1;
  b1 = b->value->rank == 1;
  nb = rank - (a1 ? 0 : 1) - (b1 ? 0 : 1);
  M = a1 ? 1 : g->dims[nb];
  N = b1 ? 1 : g->dims[rank - 1];
  K = a->value->dims[a->value->rank - 1].value;
  if (!check_int (M, error) || !check_int (N, error) || !check_int (K, error))
    return FALSE;
  for (gint x = 0; x < 2; x++)
    {
      FwValue *v = x == 0 ? a->value : b->value;
      gint64 *st = x == 0 ? sa : sb;
      gint64 acc;
      if (v->rank < 2)
        continue;
      acc = v->dims[v->rank - 1].value * v->dims[v->rank - 2].value;
      for (gint d = v->rank - 3; d >= 0; d--)
        {
          gint oa = nb - (v->rank - 2) + d;
          if (oa < 0)
            return unsupported (error, _("MatMul operand of higher rank than its result"));
          st[oa] = v->dims[d].value == 1 ? 0 : acc;
          acc *= v->dims[d].value;
        }
    }
  for (gint d = 0; d < nb; d++)
    NB *= g->dims[d];
  /* A shared 2-D right operand and a left one with the result's batch dims: one tall matrix, one sgemm. */
  if (!a1 && !b1 && b->value->rank == 2 && a->value->rank == rank && NB > 1 && NB * M <= G_MAXINT32)
    {
      gboolean same = TRUE;
      for (gint d = 0; d < nb; d++)
        same = same && a->value->dims[d].value == g->dims[d];
      if (same)
        {
          M *= NB;
          NB = 1;
          nb = 0;
        }
    }
  /* The whole product first, in as few sgemm calls as the reference makes (one per batch matrix), then one
     parallel region for the epilogue. Tiles of a few hundred rows each cost an sgemm call that OpenBLAS runs
     below its efficient size, and every switch between its threads and OpenMP's leaves one set spinning
     against the other on the same cores: ViT's MLP ran slower fused than unfused that way. */
  emit_tile (g, NB * M * N);
  g->gemm_k = K;
  g_string_append_printf (s, "  for (int64_t bt = 0; bt < %" G_GINT64_FORMAT "; bt++)\n  {\n", NB);
  g_string_append (s, "  int64_t offa = 0, offb = 0, brem = bt;\n");
  for (gint d = nb - 1; d >= 0; d--)
    {
      g_string_append_printf (s, "  { const int64_t ix = brem %% %" G_GINT64_FORMAT "; brem /= %" G_GINT64_FORMAT
                              "; offa += ix * %" G_GINT64_FORMAT "; offb += ix * %" G_GINT64_FORMAT "; }\n",
                              g->dims[d], g->dims[d], sa[d], sb[d]);
    }
  g_string_append (s, "  (void) brem;\n");
  g_string_append_printf (s, "  rt->sgemm (0, 0, %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                          ", 1.0f, in%d + offa, %" G_GINT64_FORMAT ", in%d + offb, %" G_GINT64_FORMAT
                          ", 0.0f, dst + bt * %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ");\n",
                          M, N, K, a->in_index, K, b->in_index, N, M * N, N);
  g_string_append (s, "  }\n");
  {
    /* The space's rows: NB × M, or NB when B is a vector (its rows run along M). */
    g_autofree char *count = g_strdup_printf ("%" G_GINT64_FORMAT, g->n_rows);
    return emit_region (g, count, "t", NULL, error);
  }
}

static gboolean
emit_gemm (Gen *g, GError **error)
{
  FwNode *node = g->root;
  SkVal *a = input_val (g, node, 0), *b = input_val (g, node, 1);
  GString *s = g->body;
  gint64 M = g->dims[0], N = g->dims[1], K;
  gboolean ta = fw_node_get_attr_int (node, "transA", 0) != 0, tb = fw_node_get_attr_int (node, "transB", 0) != 0;
  g_autofree char *alpha = flit (fw_node_get_attr_float (node, "alpha", 1.0f));

  if (g->rank != 2 || a == NULL || b == NULL || a->kind != SV_EXTERNAL || b->kind != SV_EXTERNAL ||
      a->value->rank != 2 || b->value->rank != 2 || a->dtype != FW_DTYPE_FLOAT || b->dtype != FW_DTYPE_FLOAT)
    return unsupported (error, _("Gemm on operands that are not float32 matrices"));
  K = a->value->dims[ta ? 0 : 1].value;
  if (!check_int (M, error) || !check_int (N, error) || !check_int (K, error))
    return FALSE;
  /* One sgemm over all rows, then the epilogue: see emit_matmul. */
  emit_tile (g, M * N);
  g->gemm_k = K;
  g_string_append_printf (s, "  rt->sgemm (%d, %d, %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                          ", %s, in%d, %" G_GINT64_FORMAT ", in%d, %" G_GINT64_FORMAT ", 0.0f, dst, %" G_GINT64_FORMAT
                          ");\n", ta, tb, M, N, K, alpha, a->in_index, ta ? M : K, b->in_index, tb ? K : N, N);
  {
    g_autofree char *count = g_strdup_printf ("%" G_GINT64_FORMAT, M);
    return emit_region (g, count, "t", NULL, error);
  }
}

static gboolean
emit_conv (Gen *g, GError **error)
{
  FwNode *node = g->root;
  SkVal *x = input_val (g, node, 0), *w = input_val (g, node, 1);
  GString *s = g->body;
  gint64 NI, C, H, W, M, OH, OW, KH, KW, G, CG, MG, KK, OHW;
  gint64 sh = 1, sw = 1, dh = 1, dw = 1, pt = 0, pl = 0;
  gboolean direct;
  const char *auto_pad = fw_node_get_attr_string (node, "auto_pad");
  guint n = 0;
  const gint64 *v;

  if (g->rank != 4 || x == NULL || w == NULL || x->kind != SV_EXTERNAL || w->kind != SV_EXTERNAL ||
      x->value->rank != 4 || w->value->rank != 4 || x->dtype != FW_DTYPE_FLOAT || w->dtype != FW_DTYPE_FLOAT)
    return unsupported (error, _("Conv other than 2-D float32"));
  NI = x->value->dims[0].value;
  C = x->value->dims[1].value;
  H = x->value->dims[2].value;
  W = x->value->dims[3].value;
  M = g->dims[1];
  OH = g->dims[2];
  OW = g->dims[3];
  KH = w->value->dims[2].value;
  KW = w->value->dims[3].value;
  G = fw_node_get_attr_int (node, "group", 1);
  if (G < 1 || C % G != 0 || M % G != 0 || w->value->dims[0].value != M || w->value->dims[1].value * G != C)
    return unsupported (error, _("Conv groups that do not divide the channels"));
  CG = C / G;
  MG = M / G;
  KK = CG * KH * KW;
  OHW = OH * OW;
  if ((v = fw_node_get_attr_ints (node, "strides", &n)) && n == 2)
    sh = v[0], sw = v[1];
  if ((v = fw_node_get_attr_ints (node, "dilations", &n)) && n == 2)
    dh = v[0], dw = v[1];
  if (auto_pad != NULL && (strcmp (auto_pad, "SAME_UPPER") == 0 || strcmp (auto_pad, "SAME_LOWER") == 0))
    {
      gint64 th = MAX (0, (OH - 1) * sh + (KH - 1) * dh + 1 - H), tw = MAX (0, (OW - 1) * sw + (KW - 1) * dw + 1 - W);
      gboolean upper = strcmp (auto_pad, "SAME_UPPER") == 0;
      pt = upper ? th / 2 : th - th / 2;
      pl = upper ? tw / 2 : tw - tw / 2;
    }
  else if ((v = fw_node_get_attr_ints (node, "pads", &n)) && n == 4)
    pt = v[0], pl = v[1];
  if (sh < 1 || sw < 1 || dh < 1 || dw < 1 || !check_int (MG, error) || !check_int (OHW, error) ||
      !check_int (KK, error) || KK * OHW > G_MAXINT32)
    return unsupported (error, _("Conv attributes out of range"));
  emit_tile (g, NI * M * OHW);
  if (G > 1 && KK <= DIRECT_CONV_TAPS)
    {
      g_autoptr(GString) pre = g_string_new (NULL);

      /* Each output plane is computed in the region, right before the epilogue reads it: one row of
         outputs at a time, every tap a unit- or fixed-stride pass over the positions where it lands inside
         the input (found once per row, so the inner loop has no test and vectorises). Taps are summed in
         im2col's order (channel, kernel row, kernel column). */
      g_string_append_printf (pre, "    {\n      const int64_t img = t / %" G_GINT64_FORMAT ", m = t %% %" G_GINT64_FORMAT
                              ", grp = m / %" G_GINT64_FORMAT ";\n", M, M, MG);
      g_string_append_printf (pre, "      const float *xs = in%d + (img * %" G_GINT64_FORMAT " + grp * %" G_GINT64_FORMAT
                              ") * %" G_GINT64_FORMAT ";\n", x->in_index, C, CG, H * W);
      g_string_append_printf (pre, "      const float *wk = in%d + m * %" G_GINT64_FORMAT ";\n", w->in_index, KK);
      g_string_append_printf (pre, "      float *d = dst + t * %" G_GINT64_FORMAT ";\n", OHW);
      g_string_append_printf (pre, "      for (int64_t oh = 0; oh < %" G_GINT64_FORMAT "; oh++)\n      {\n", OH);
      g_string_append_printf (pre, "        float *dr = d + oh * %" G_GINT64_FORMAT ";\n", OW);
      g_string_append_printf (pre, "        for (int64_t ow = 0; ow < %" G_GINT64_FORMAT "; ow++)\n          dr[ow] = 0.0f;\n", OW);
      g_string_append_printf (pre, "        for (int64_t c = 0; c < %" G_GINT64_FORMAT "; c++)\n", CG);
      g_string_append_printf (pre, "        for (int64_t ki = 0; ki < %" G_GINT64_FORMAT "; ki++)\n        {\n", KH);
      g_string_append_printf (pre, "          const int64_t ih = oh * %" G_GINT64_FORMAT " - %" G_GINT64_FORMAT " + ki * %"
                              G_GINT64_FORMAT ";\n", sh, pt, dh);
      g_string_append_printf (pre, "          if (ih < 0 || ih >= %" G_GINT64_FORMAT ")\n            continue;\n", H);
      g_string_append_printf (pre, "          const float *src = xs + c * %" G_GINT64_FORMAT " + ih * %" G_GINT64_FORMAT
                              ";\n", H * W, W);
      g_string_append_printf (pre, "          for (int64_t kj = 0; kj < %" G_GINT64_FORMAT "; kj++)\n          {\n", KW);
      g_string_append_printf (pre, "            const float wv = wk[(c * %" G_GINT64_FORMAT " + ki) * %" G_GINT64_FORMAT
                              " + kj];\n", KH, KW);
      g_string_append_printf (pre, "            const int64_t off = kj * %" G_GINT64_FORMAT " - %" G_GINT64_FORMAT ";\n",
                              dw, pl);
      g_string_append_printf (pre, "            int64_t lo = off >= 0 ? 0 : (-off + %" G_GINT64_FORMAT " - 1) / %"
                              G_GINT64_FORMAT ";\n", sw, sw);
      g_string_append_printf (pre, "            int64_t hi = %" G_GINT64_FORMAT " - off <= 0 ? 0 : (%" G_GINT64_FORMAT
                              " - off + %" G_GINT64_FORMAT " - 1) / %" G_GINT64_FORMAT ";\n", W, W, sw, sw);
      g_string_append_printf (pre, "            lo = lo < %" G_GINT64_FORMAT " ? lo : %" G_GINT64_FORMAT ";\n"
                              "            hi = hi < %" G_GINT64_FORMAT " ? hi : %" G_GINT64_FORMAT ";\n"
                              "            hi = hi > lo ? hi : lo;\n", OW, OW, OW, OW);
      g_string_append_printf (pre, "            for (int64_t ow = lo; ow < hi; ow++)\n"
                              "              dr[ow] = dr[ow] + wv * src[ow * %" G_GINT64_FORMAT " + off];\n", sw);
      g_string_append (pre, "          }\n        }\n      }\n    }\n");
      {
        g_autofree char *count = g_strdup_printf ("%" G_GINT64_FORMAT, NI * M);
        return emit_region (g, count, "t", pre->str, error);
      }
    }
  direct = KH == 1 && KW == 1 && sh == 1 && sw == 1 && pt == 0 && pl == 0 && OH == H && OW == W;
  g->gemm_k = KK;
  if (!direct)
    g_string_append_printf (s, "  col = (float *) malloc (sizeof (float) * %" G_GINT64_FORMAT ");\n  if (!col) goto out;\n",
                            KK * OHW);
  /* Every image's and group's product first (one sgemm each, as the reference), then one region for the
     epilogue: see emit_matmul. */
  g_string_append_printf (s, "  for (int64_t tb = 0; tb < %" G_GINT64_FORMAT "; tb++)\n  {\n", NI * G);
  g_string_append_printf (s, "  const int64_t img = tb / %" G_GINT64_FORMAT ", grp = tb %% %" G_GINT64_FORMAT ";\n", G, G);
  g_string_append_printf (s, "  const float *xs = in%d + (img * %" G_GINT64_FORMAT " + grp * %" G_GINT64_FORMAT ") * %"
                          G_GINT64_FORMAT ";\n", x->in_index, C, CG, H * W);
  if (direct)
    g_string_append (s, "  const float *cols = xs;\n");
  else
    {
      /* The taps that land inside the input on a row are found once per row, so the copy has no test. */
      g_string_append_printf (s, "#pragma omp parallel for num_threads(%s) schedule(static)\n"
                              "  for (int64_t kr = 0; kr < %" G_GINT64_FORMAT "; kr++)\n  {\n",
                              KK * OHW > PARALLEL_MIN_ELEMENTS ? "nt" : "1", KK);
      g_string_append_printf (s, "    const int64_t c = kr / %" G_GINT64_FORMAT ", ki = (kr / %" G_GINT64_FORMAT ") %% %"
                              G_GINT64_FORMAT ", kj = kr %% %" G_GINT64_FORMAT ";\n", KH * KW, KW, KH, KW);
      g_string_append_printf (s, "    const float *src = xs + c * %" G_GINT64_FORMAT ";\n", H * W);
      g_string_append_printf (s, "    float *dst = col + kr * %" G_GINT64_FORMAT ";\n", OHW);
      g_string_append_printf (s, "    const int64_t off = kj * %" G_GINT64_FORMAT " - %" G_GINT64_FORMAT ";\n", dw, pl);
      g_string_append_printf (s, "    int64_t lo = off >= 0 ? 0 : (-off + %" G_GINT64_FORMAT " - 1) / %" G_GINT64_FORMAT
                              ";\n", sw, sw);
      g_string_append_printf (s, "    int64_t hi = %" G_GINT64_FORMAT " - off <= 0 ? 0 : (%" G_GINT64_FORMAT " - off + %"
                              G_GINT64_FORMAT " - 1) / %" G_GINT64_FORMAT ";\n", W, W, sw, sw);
      g_string_append_printf (s, "    lo = lo < %" G_GINT64_FORMAT " ? lo : %" G_GINT64_FORMAT ";\n"
                              "    hi = hi < %" G_GINT64_FORMAT " ? hi : %" G_GINT64_FORMAT ";\n"
                              "    hi = hi > lo ? hi : lo;\n", OW, OW, OW, OW);
      g_string_append_printf (s, "    for (int64_t oh = 0; oh < %" G_GINT64_FORMAT "; oh++)\n    {\n", OH);
      g_string_append_printf (s, "      const int64_t ih = oh * %" G_GINT64_FORMAT " - %" G_GINT64_FORMAT " + ki * %"
                              G_GINT64_FORMAT ";\n", sh, pt, dh);
      g_string_append_printf (s, "      float *d = dst + oh * %" G_GINT64_FORMAT ";\n", OW);
      g_string_append_printf (s, "      if (ih < 0 || ih >= %" G_GINT64_FORMAT ")\n      {\n"
                              "        for (int64_t ow = 0; ow < %" G_GINT64_FORMAT "; ow++) d[ow] = 0.0f;\n"
                              "        continue;\n      }\n", H, OW);
      g_string_append_printf (s, "      const float *row = src + ih * %" G_GINT64_FORMAT ";\n", W);
      g_string_append (s, "      for (int64_t ow = 0; ow < lo; ow++) d[ow] = 0.0f;\n");
      g_string_append_printf (s, "      for (int64_t ow = lo; ow < hi; ow++) d[ow] = row[ow * %" G_GINT64_FORMAT
                              " + off];\n", sw);
      g_string_append_printf (s, "      for (int64_t ow = hi; ow < %" G_GINT64_FORMAT "; ow++) d[ow] = 0.0f;\n    }\n  }\n",
                              OW);
      g_string_append (s, "  const float *cols = col;\n");
    }
  g_string_append_printf (s, "  rt->sgemm (0, 0, %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                          ", 1.0f, in%d + grp * %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", cols, %" G_GINT64_FORMAT
                          ", 0.0f, dst + (img * %" G_GINT64_FORMAT " + grp * %" G_GINT64_FORMAT ") * %"
                          G_GINT64_FORMAT ", %" G_GINT64_FORMAT ");\n",
                          MG, OHW, KK, w->in_index, MG * KK, KK, OHW, M, MG, OHW, OHW);
  g_string_append (s, "  }\n");
  {
    g_autofree char *count = g_strdup_printf ("%" G_GINT64_FORMAT, NI * M);
    return emit_region (g, count, "t", NULL, error);
  }
}

static void
emit_header (Gen *g, GString *src)
{
  g_string_append (src, "/* Fusion Workbench host SuperKernel, generated: do not edit.\n");
  g_string_append_printf (src, " * group kind: ");
  append_comment_text (src, g->cand->kind);
  g_string_append_printf (src, ", %u nodes\n", g->cand->nodes->len);
  for (guint i = 0; i < g->cand->nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (g->cand->nodes, i);
      g_string_append_printf (src, " * node %u: ", i);
      append_comment_text (src, node->op_type);
      g_string_append (src, " \"");
      append_comment_text (src, node->name);
      g_string_append (src, "\"\n");
    }
  for (guint i = 0; i < g->kernel->inputs->len; i++)
    {
      FwValue *v = g_ptr_array_index (g->kernel->inputs, i);
      g_autofree char *shape = fw_value_format_shape (v);
      g_string_append_printf (src, " * in%u: %s ", i, fw_dtype_name (v->dtype));
      append_comment_text (src, shape);
      g_string_append (src, " \"");
      append_comment_text (src, v->name);
      g_string_append (src, "\"\n");
    }
  for (guint i = 0; i < g->kernel->outputs->len; i++)
    {
      FwValue *v = g_ptr_array_index (g->kernel->outputs, i);
      g_autofree char *shape = fw_value_format_shape (v);
      g_string_append_printf (src, " * out%u: %s ", i, fw_dtype_name (v->dtype));
      append_comment_text (src, shape);
      g_string_append (src, " \"");
      append_comment_text (src, v->name);
      g_string_append (src, "\"\n");
    }
  g_string_append (src, " */\n");
  g_string_append (src,
    "#include <math.h>\n"
    "#include <stdint.h>\n"
    "#include <stdlib.h>\n"
    "#include <string.h>\n\n"
    "typedef void (*fw_sk_sgemm) (int trans_a, int trans_b, int m, int n, int k, float alpha, const float *a,\n"
    "                             int lda, const float *b, int ldb, float beta, float *c, int ldc);\n"
    "typedef struct { int abi; int reserved; fw_sk_sgemm sgemm; } fw_sk_runtime;\n\n");
  g_string_append_printf (src, "const int fw_sk_abi_version = %d;\n\n", FW_SK_ABI_VERSION);
  /* erff is a library call, and one call in a loop keeps GCC from vectorising the whole loop: an erf-GELU
     epilogue ran at erff's speed whatever else it fused. This is the rational approximation XLA and Eigen
     use for float32, branch-free so it vectorises: within 4.3e-7 relative error of erf over the normal
     floats (about 4 ulp; glibc's erff is within 1), NaN stays NaN, the clamp is where erf rounds to ±1. */
  g_string_append (src,
    "static inline float\nfw_erf (float x)\n{\n"
    "  const float c = x < -3.832506856900711f ? -3.832506856900711f : (x > 3.832506856900711f ? 3.832506856900711f : x);\n"
    "  const float x2 = c * c;\n"
    "  float p = -2.72614225801306e-10f, q = -1.45660718464996e-05f;\n"
    "  p = p * x2 + 2.77068142495902e-08f;\n  p = p * x2 + -2.10102402082508e-06f;\n"
    "  p = p * x2 + -5.69250639462346e-05f;\n  p = p * x2 + -7.34990630326855e-04f;\n"
    "  p = p * x2 + -2.95459980854025e-03f;\n  p = p * x2 + -1.60960333262415e-02f;\n"
    "  q = q * x2 + -2.13374055278905e-04f;\n  q = q * x2 + -1.68282697438203e-03f;\n"
    "  q = q * x2 + -7.37332916720468e-03f;\n  q = q * x2 + -1.42647390514189e-02f;\n"
    "  return c * p / q;\n}\n\n");
  g_string_append (src,
    "static inline int64_t\nfw_sdiv (int64_t x, int64_t y)\n{\n"
    "  if (y == 0)\n    return 0;\n"
    "  if (y == -1)\n    return (int64_t) (0 - (uint64_t) x);\n"
    "  return x / y;\n}\n\n");
  g_string_append (src,
    "static inline float\nfw_h2f (uint16_t h)\n{\n"
    "  uint32_t s = (uint32_t) (h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, f;\n"
    "  float out;\n"
    "  if (e == 0 && m == 0)\n    f = s;\n"
    "  else if (e == 0)\n  {\n    e = 113;\n    while (!(m & 0x400u))\n    {\n      m <<= 1;\n      e--;\n    }\n"
    "    f = s | (e << 23) | ((m & 0x3ffu) << 13);\n  }\n"
    "  else if (e == 31)\n    f = s | 0x7f800000u | (m << 13);\n"
    "  else\n    f = s | ((e + 112) << 23) | (m << 13);\n"
    "  memcpy (&out, &f, 4);\n  return out;\n}\n\n"
    "static inline uint16_t\nfw_f2h (float v)\n{\n"
    "  uint32_t x, s, a, r, rem;\n"
    "  memcpy (&x, &v, 4);\n  s = (x >> 16) & 0x8000u;\n  a = x & 0x7fffffffu;\n"
    "  if (a > 0x7f800000u)\n    return (uint16_t) (s | 0x7e00u);\n"
    "  if (a >= 0x477ff000u)\n    return (uint16_t) (s | 0x7c00u);\n"
    "  if (a < 0x38800000u)\n  {\n"
    "    uint32_t e = a >> 23, m = (a & 0x7fffffu) | 0x800000u, sh = 126 - e, half;\n"
    "    if (a < 0x33000000u)\n      return (uint16_t) s;\n"
    "    r = m >> sh;\n    rem = m & ((1u << sh) - 1);\n    half = 1u << (sh - 1);\n"
    "    if (rem > half || (rem == half && (r & 1u)))\n      r++;\n"
    "    return (uint16_t) (s | r);\n  }\n"
    "  r = (a - 0x38000000u) >> 13;\n  rem = a & 0x1fffu;\n"
    "  if (rem > 0x1000u || (rem == 0x1000u && (r & 1u)))\n    r++;\n"
    "  return (uint16_t) (s | r);\n}\n\n");
}

static void
gen_clear (Gen *g)
{
  g_ptr_array_unref (g->vals);
  g_hash_table_unref (g->by_value);
  g_array_unref (g->nodes);
  g_string_free (g->decls, TRUE);
  g_string_free (g->body, TRUE);
}

gboolean
fw_host_codegen (FwSuperKernel *kernel, GError **error)
{
  Gen g = { 0 };
  GString *src;
  gboolean ok;

  g.plan = kernel->plan;
  g.cand = kernel->candidate;
  g.kernel = kernel;
  if (g.cand->spec == NULL)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_INVALID, _("host SuperKernel: candidate %u has no kernel spec"),
                   g.cand->index);
      return FALSE;
    }
  g.vals = g_ptr_array_new_with_free_func (g_free);
  g.by_value = g_hash_table_new (NULL, NULL);
  g.nodes = g_array_new (FALSE, TRUE, sizeof (SkNode));
  g.decls = g_string_new (NULL);
  g.body = g_string_new (NULL);

  ok = collect (&g, error) && mark_maps (&g, error) && find_space (&g, error);
  if (ok && g.root != NULL)
    g.tile = val_new (&g, NULL, SV_TILE);
  ok = ok && map_values (&g, error);
  if (ok)
    {
      move_axis_last (&g);
      collapse (&g);
    }
  ok = ok && assign_passes (&g, error);
  if (ok)
    decide_in_place (&g);
  if (ok && g.root == NULL)
    {
      g_autofree char *count = g_strdup_printf ("%" G_GINT64_FORMAT, g.n_rows * g.n_chunks);
      ok = emit_region (&g, count, "t", NULL, error);
    }
  else if (ok && strcmp (g.root->op_type, "MatMul") == 0)
    ok = emit_matmul (&g, error);
  else if (ok && strcmp (g.root->op_type, "Gemm") == 0)
    ok = emit_gemm (&g, error);
  else if (ok)
    ok = emit_conv (&g, error);
  if (!ok)
    {
      gen_clear (&g);
      return FALSE;
    }

  src = g_string_new (NULL);
  emit_header (&g, src);
  g_string_append (src, g.decls->str);
  if (g.decls->len)
    g_string_append_c (src, '\n');
  g_string_append (src, "int\nfw_sk_entry (const fw_sk_runtime *rt, const void *const *ins, void *const *outs, int nt)\n{\n");
  for (guint i = 0; i < kernel->inputs->len; i++)
    {
      FwValue *v = g_ptr_array_index (kernel->inputs, i);
      g_string_append_printf (src, "  const %s *restrict in%u = (const %s *) ins[%u];\n", mem_type (v->dtype), i,
                              mem_type (v->dtype), i);
    }
  for (guint i = 0; i < kernel->outputs->len; i++)
    {
      FwValue *v = g_ptr_array_index (kernel->outputs, i);
      g_string_append_printf (src, "  %s *restrict out%u = (%s *) outs[%u];\n", mem_type (v->dtype), i,
                              mem_type (v->dtype), i);
    }
  g_string_append (src, "  float *tile = NULL, *col = NULL, *dst = NULL;\n  int status = 1;\n  (void) rt;\n  (void) ins;\n"
                       "  (void) dst;\n");
  g_string_append (src, "  if (nt < 1)\n    nt = 1;\n");
  g_string_append (src, g.body->str);
  g_string_append (src, "  status = 0;\nout:\n  free (tile);\n  free (col);\n  return status;\n}\n");
  kernel->source = g_string_free (src, FALSE);
  gen_clear (&g);
  return TRUE;
}
