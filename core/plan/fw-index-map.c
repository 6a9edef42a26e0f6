/* fw-index-map.c: index maps, where each value of a group lies over the group's iteration space
 * (docs/kernel-spec.md, "Index maps").
 *
 * Injective operators (Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Slice, Expand, Gather with constant
 * indices) move no arithmetic, only addresses: inside a group they become index arithmetic. Each value's
 * coordinates are affine functions of the space's coordinates, found by following the members from one
 * anchor (the compute root's result, the row operation's input or the group's sink, whose shape is the
 * space) across each member in whichever direction it allows: from a result to its operands always (a
 * reshape by the quotient and remainder of the linear index, which stay affine only when no axis of the
 * space is cut in two; a transpose by a permutation; a slice or a gather by an offset and a step), from an
 * operand to the result where the member is a bijection (an elementwise operator, a reshape, a transpose).
 * A value's map is then its element offset and its strides over the space axes, what every generator reads;
 * none of them derives it again. Groups without injective members get no maps: everything in them maps by
 * numpy broadcasting, as before. */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-kernel-spec-private.h"
#include "fw-plan-private.h"

/* Index maps follow ranks up to this (FW_MAX_RANK is 64, and coordinates are copied often). */
#define MAP_RANK FW_INDEX_MAP_RANK

/* off + Σ c[a] · i_a over the space axes. */
typedef struct
{
  gint64 off;
  gint64 c[MAP_RANK];
} Aff;

typedef struct
{
  gboolean known;
  gboolean tainted;  /* reached across an injective member */
  gboolean lin_only; /* only the linear index is affine (a view that cuts an axis of the space): lin */
  gint     rank;
  Aff      ax[MAP_RANK];
  Aff      lin;
} Coords;

typedef struct
{
  const FwSpace *space;
  GHashTable    *coords;  /* FwValue* → Coords* */
  FwReasonCode   code;
  char          *why;
  FwNode        *culprit;
} Mapper;

static gboolean
fail (Mapper *m, FwReasonCode code, FwNode *node, char *why)
{
  if (m->why == NULL)
    {
      m->code = code;
      m->why = why;
      m->culprit = node;
    }
  else
    g_free (why);
  return FALSE;
}

/* A Transpose's perm (NULL: reversed) as a permutation of rank axes: a model shape inference could not
 * check may name an axis twice, one past the rank, or too few. */
static gboolean
valid_perm (const gint64 *perm, guint n, gint rank)
{
  guint64 seen = 0;

  if (perm == NULL)
    return TRUE;
  if (n != (guint) rank || rank > 64)
    return FALSE;
  for (gint b = 0; b < rank; b++)
    {
      if (perm[b] < 0 || perm[b] >= rank || (seen & (G_GUINT64_CONSTANT (1) << perm[b])) != 0)
        return FALSE;
      seen |= G_GUINT64_CONSTANT (1) << perm[b];
    }
  return TRUE;
}

static gboolean
bad_perm (Mapper *m, FwNode *node)
{
  return fail (m, FW_NF_INDEX_MAP, node,
               g_strdup_printf (_("%s “%s” has a perm that does not permute its input's axes"), node->op_type,
                                node->name));
}

/* ---- affine arithmetic ---- */

static void
aff_zero (Aff *a)
{
  memset (a, 0, sizeof *a);
}

static void
aff_add_scaled (Aff *dst, const Aff *src, gint64 k)
{
  dst->off += src->off * k;
  for (gint a = 0; a < MAP_RANK; a++)
    dst->c[a] += src->c[a] * k;
}

static gboolean
aff_equal (const Aff *x, const Aff *y, const FwSpace *space)
{
  if (x->off != y->off)
    return FALSE;
  for (gint a = 0; a < space->rank; a++)
    if (space->dims[a] > 1 && x->c[a] != y->c[a])
      return FALSE;
  return TRUE;
}

static void
aff_range (const Aff *x, const FwSpace *space, gint64 *lo, gint64 *hi)
{
  *lo = *hi = x->off;
  for (gint a = 0; a < space->rank; a++)
    {
      gint64 t = x->c[a] * (space->dims[a] - 1);
      if (t < 0)
        *lo += t;
      else
        *hi += t;
    }
}

/* x = q·d + r with r's terms in [0, d): the quotient (want_rem FALSE) or the remainder, when the split is
 * clean (every term either a multiple of d or part of a remainder that stays below d); FALSE otherwise. */
static gboolean
aff_divmod (const Aff *x, const FwSpace *space, gint64 d, gboolean want_rem, Aff *out)
{
  Aff q, r;
  gint64 lo, hi;

  if (d <= 0 || x->off < 0)
    return FALSE;
  aff_zero (&q);
  aff_zero (&r);
  q.off = x->off / d;
  r.off = x->off % d;
  for (gint a = 0; a < space->rank; a++)
    {
      if (space->dims[a] <= 1 || x->c[a] == 0)
        continue;
      if (x->c[a] % d == 0)
        q.c[a] = x->c[a] / d;
      else
        r.c[a] = x->c[a];
    }
  aff_range (&r, space, &lo, &hi);
  if (lo < 0 || hi >= d)
    return FALSE;
  *out = want_rem ? r : q;
  return TRUE;
}

/* ---- coordinates of values ---- */

static Coords *
lookup (Mapper *m, const FwValue *v)
{
  return v != NULL ? g_hash_table_lookup (m->coords, v) : NULL;
}

static gboolean
is_known (Mapper *m, const FwValue *v)
{
  Coords *c = lookup (m, v);
  return c != NULL && c->known;
}

static void
strides_of (const FwValue *v, gint64 *cs)
{
  gint64 acc = 1;

  for (gint b = v->rank - 1; b >= 0; b--)
    {
      cs[b] = acc;
      acc *= v->dims[b].value;
    }
}

/* The linear index of v at c, affine. */
static void
linear (const FwValue *v, const Coords *c, Aff *out)
{
  gint64 cs[FW_MAX_RANK];

  if (c->lin_only)
    {
      *out = c->lin;
      return;
    }
  strides_of (v, cs);
  aff_zero (out);
  for (gint b = 0; b < c->rank; b++)
    aff_add_scaled (out, &c->ax[b], cs[b]);
}

/* Records v's coordinates; FALSE when it was reached before with others (read through two maps). */
static gboolean
assign (Mapper *m, FwNode *node, FwValue *v, const Coords *c)
{
  Coords *old = lookup (m, v);

  if (old != NULL && old->known)
    {
      Aff x, y;
      linear (v, old, &x);
      linear (v, c, &y);
      if (!aff_equal (&x, &y, m->space))
          return fail (m, FW_NF_INDEX_MAP, node,
                       g_strdup_printf (_("%s “%s” would read “%s” through two different index maps"), node->op_type,
                                        node->name, v->name));
      old->tainted |= c->tainted;
      return TRUE;
    }
  old = g_new (Coords, 1);
  *old = *c;
  old->known = TRUE;
  g_hash_table_insert (m->coords, v, old);
  return TRUE;
}

/* Coordinates of `to` holding the same linear index as `from` at c (a reshape either way). */
static gboolean
relinearise (Mapper *m, const FwValue *from, const Coords *c, const FwValue *to, Coords *out)
{
  Aff lin;
  gint64 cs[FW_MAX_RANK];

  linear (from, c, &lin);
  strides_of (to, cs);
  out->rank = to->rank;
  out->tainted = TRUE;
  out->lin_only = FALSE;
  out->lin = lin;
  for (gint b = 0; b < to->rank; b++)
    {
      Aff q;
      if (to->dims[b].value == 1)
        {
          aff_zero (&out->ax[b]);
          continue;
        }
      /* An axis of the space cut in two: the coordinates are not affine, the linear index still is, which is
         all a same-shaped reader or a further view needs. */
      if (!aff_divmod (&lin, m->space, cs[b], FALSE, &q) || !aff_divmod (&q, m->space, to->dims[b].value, TRUE, &out->ax[b]))
        out->lin_only = TRUE;
    }
  return TRUE;
}

static gboolean
const_ints (const FwNode *node, guint k, gint64 *out, gint64 max, gint64 *n)
{
  FwValue *v = k < node->n_inputs ? node->inputs[k] : NULL;

  *n = 0;
  if (v == NULL || v->constant == NULL || v->constant->n_elements > max)
    return FALSE;
  for (gint64 i = 0; i < v->constant->n_elements; i++)
    if (!fw_tensor_get_int64 (v->constant, i, &out[i]))
      return FALSE;
  *n = v->constant->n_elements;
  return TRUE;
}

/* Slice's start and step on every axis of its input (the ends are in the result's shape). */
static gboolean
slice_params (const FwNode *node, gint64 *start, gint64 *step)
{
  const FwValue *in = node->inputs[0];
  gint64 starts[FW_MAX_RANK], axes[FW_MAX_RANK], steps[FW_MAX_RANK], ns, na, nt;

  for (gint a = 0; a < in->rank; a++)
    start[a] = 0, step[a] = 1;
  if (node->opset > 0 && node->opset < 10)
    {
      guint n_st = 0, n_ax = 0;
      const gint64 *st = fw_node_get_attr_ints (node, "starts", &n_st);
      const gint64 *ax = fw_node_get_attr_ints (node, "axes", &n_ax);
      if (st == NULL || n_st > FW_MAX_RANK)
        return FALSE;
      ns = n_st;
      memcpy (starts, st, sizeof (gint64) * n_st);
      na = ax ? n_ax : ns;
      for (gint64 i = 0; i < na; i++)
        axes[i] = ax ? ax[i] : i;
      nt = 0;
    }
  else
    {
      if (!const_ints (node, 1, starts, FW_MAX_RANK, &ns))
        return FALSE;
      if (node->n_inputs > 3 && node->inputs[3] != NULL)
        {
          if (!const_ints (node, 3, axes, FW_MAX_RANK, &na) || na != ns)
            return FALSE;
        }
      else
        for (na = 0; na < ns; na++)
          axes[na] = na;
      nt = 0;
      if (node->n_inputs > 4 && node->inputs[4] != NULL && (!const_ints (node, 4, steps, FW_MAX_RANK, &nt) || nt != ns))
        return FALSE;
    }
  for (gint64 i = 0; i < ns; i++)
    {
      gint64 a = axes[i] < 0 ? axes[i] + in->rank : axes[i];
      gint64 d = in->dims[a < 0 || a >= in->rank ? 0 : a].value;
      gint64 s = starts[i], t = nt > 0 ? steps[i] : 1;
      if (a < 0 || a >= in->rank || t == 0)
        return FALSE;
      s = s < 0 ? s + d : s;
      s = t > 0 ? CLAMP (s, 0, d) : CLAMP (s, 0, d - 1);
      start[a] = s;
      step[a] = t;
    }
  return TRUE;
}

/* Gather along `axis` with constant indices forming a progression first + i·step (a single index drops
 * the axis). */
static gboolean
gather_params (const FwNode *node, gint *axis, gint64 *first, gint64 *step, gboolean *scalar)
{
  const FwValue *in = node->inputs[0], *idx = node->n_inputs > 1 ? node->inputs[1] : NULL;
  gint64 a = fw_node_get_attr_int (node, "axis", 0), d, prev = 0;

  a = a < 0 ? a + in->rank : a;
  if (a < 0 || a >= in->rank || idx == NULL || idx->constant == NULL || idx->rank > 1)
    return FALSE;
  d = in->dims[a].value;
  *axis = (gint) a;
  *scalar = idx->rank == 0;
  *step = 0;
  for (gint64 i = 0; i < idx->constant->n_elements; i++)
    {
      gint64 x;
      if (!fw_tensor_get_int64 (idx->constant, i, &x))
        return FALSE;
      x = x < 0 ? x + d : x;
      if (x < 0 || x >= d)
        return FALSE;
      if (i == 0)
        *first = x;
      else if (i == 1)
        *step = x - prev;
      else if (x - prev != *step)
        return FALSE;
      prev = x;
    }
  return idx->constant->n_elements > 0;
}

static gboolean
is_op (const FwNode *node, const char *op)
{
  return strcmp (node->op_type, op) == 0;
}

static gboolean
is_view (const FwNode *node)
{
  return is_op (node, "Reshape") || is_op (node, "Flatten") || is_op (node, "Squeeze") || is_op (node, "Unsqueeze");
}

gboolean
fw_index_map_follows (const FwNode *node, FwReasonCode *code, char **why)
{
  const char *op = node->op_type;

  if (node->domain[0] != '\0')
    return FALSE;
  if (is_view (node) || is_op (node, "Transpose") || is_op (node, "Expand"))
    return TRUE;
  if (is_op (node, "Slice"))
    {
      gint64 start[FW_MAX_RANK], step[FW_MAX_RANK];
      if (node->inputs[0] != NULL && node->inputs[0]->rank <= FW_MAX_RANK && slice_params (node, start, step))
        return TRUE;
      *code = FW_NF_INDEX_MAP;
      *why = g_strdup_printf (_("Slice “%s” takes its starts, axes or steps at run time"), node->name);
      return FALSE;
    }
  if (is_op (node, "Gather"))
    {
      gint axis;
      gint64 first, step;
      gboolean scalar;
      if (node->inputs[0] != NULL && node->inputs[0]->rank <= FW_MAX_RANK &&
          gather_params (node, &axis, &first, &step, &scalar))
        return TRUE;
      *code = FW_NF_GATHER_INDICES;
      *why = g_strdup_printf (_("Gather “%s” takes indices that are computed at run time or do not step evenly"),
                              node->name);
      return FALSE;
    }
  if (is_op (node, "GatherElements") || is_op (node, "GatherND"))
    {
      *code = FW_NF_GATHER_INDICES;
      *why = g_strdup_printf (_("%s “%s” reads at data-dependent indices"), op, node->name);
      return FALSE;
    }
  if (is_op (node, "Concat") || is_op (node, "Split") || is_op (node, "Pad"))
    {
      *code = FW_NF_PIECEWISE;
      *why = g_strdup_printf (_("%s “%s” maps parts of the tile to different tensors; a tile cannot follow a "
                                "piecewise index map yet"), op, node->name);
      return FALSE;
    }
  *code = FW_NF_INDEX_MAP;
  *why = g_strdup_printf (_("%s “%s” interleaves or repeats an axis of the tile; its index map is not affine"), op,
                          node->name);
  return FALSE;
}

/* The operand's coordinates from the result's, for numpy broadcasting (right-aligned, size-1 axes at 0). */
static gboolean
broadcast_back (const FwValue *in, const FwValue *res, const Coords *out, Coords *c)
{
  if (out->lin_only)
    {
      /* Only an operand of the result's own shape follows a linear index. */
      if (in->rank != res->rank)
        return FALSE;
      for (gint b = 0; b < in->rank; b++)
        if (in->dims[b].value != res->dims[b].value)
          return FALSE;
      *c = *out;
      return TRUE;
    }
  c->rank = in->rank;
  c->tainted = out->tainted;
  for (gint b = 0; b < in->rank; b++)
    {
      gint ob = out->rank - in->rank + b;
      if (in->dims[b].value == 1 || ob < 0)
        aff_zero (&c->ax[b]);
      else
        c->ax[b] = out->ax[ob];
    }
  return TRUE;
}

/* Input k of node from its result's coordinates; FALSE when it cannot be (a reduction's input). */
static gboolean
backward (Mapper *m, FwNode *node, guint k, const Coords *out, Coords *c)
{
  FwValue *in = node->inputs[k], *res = node->outputs[0];
  FwRowOp op;

  memset (c, 0, sizeof *c);
  if (fw_node_class (node) == FW_OP_CLASS_INJECTIVE)
    {
      if (k != 0)
        return FALSE;
      if (is_view (node))
        {
          if (!relinearise (m, res, out, in, c))
            return fail (m, FW_NF_INDEX_MAP, node,
                         g_strdup_printf (_("%s “%s” cuts an axis of the tile in two; the tile cannot follow it"),
                                          node->op_type, node->name));
          return TRUE;
        }
      if (out->lin_only)
        return fail (m, FW_NF_INDEX_MAP, node,
                     g_strdup_printf (_("%s “%s” reads a view that cuts an axis of the tile in two"), node->op_type,
                                      node->name));
      c->rank = in->rank;
      c->tainted = TRUE;
      if (is_op (node, "Transpose"))
        {
          guint n = 0;
          const gint64 *perm = fw_node_get_attr_ints (node, "perm", &n);
          if (!valid_perm (perm, n, in->rank))
            return bad_perm (m, node);
          for (gint b = 0; b < in->rank; b++)
            c->ax[perm ? perm[b] : in->rank - 1 - b] = out->ax[b];
          return TRUE;
        }
      if (is_op (node, "Expand"))
        {
          if (!broadcast_back (in, res, out, c))
            return FALSE;
          c->tainted = TRUE;
          return TRUE;
        }
      if (is_op (node, "Slice"))
        {
          gint64 start[FW_MAX_RANK], step[FW_MAX_RANK];
          slice_params (node, start, step);
          for (gint b = 0; b < in->rank; b++)
            {
              aff_zero (&c->ax[b]);
              c->ax[b].off = start[b];
              aff_add_scaled (&c->ax[b], &out->ax[b], step[b]);
            }
          return TRUE;
        }
      if (is_op (node, "Gather"))
        {
          gint axis, ob = 0;
          gint64 first, step;
          gboolean scalar;
          gather_params (node, &axis, &first, &step, &scalar);
          for (gint b = 0; b < in->rank; b++)
            {
              aff_zero (&c->ax[b]);
              if (b == axis)
                {
                  c->ax[b].off = first;
                  if (!scalar)
                    aff_add_scaled (&c->ax[b], &out->ax[ob++], step);
                }
              else
                c->ax[b] = out->ax[ob++];
            }
          return TRUE;
        }
      return FALSE;
    }
  if (fw_node_row_op_full (node, &op, NULL) && op.axes > 0 && !op.full_out && k == 0)
    return FALSE;  /* a reduction's input is the row it sweeps: known from the space, not from its result */
  if (k >= 1 && is_op (node, "BatchNormalization") && in->rank == 1 && out->rank >= 2 && !out->lin_only)
    {
      c->rank = 1;
      c->tainted = out->tainted;
      c->ax[0] = out->ax[1];
      return TRUE;
    }
  if (fw_node_class (node) == FW_OP_CLASS_OUT_FUSABLE)
    {
      /* The root's operands go through the cube; Gemm's C and Conv's bias are broadcast into its result. */
      if (k != 2)
        return FALSE;
      if (is_op (node, "Conv") && in->rank == 1 && out->rank >= 2 && !out->lin_only)
        {
          c->rank = 1;
          c->tainted = out->tainted;
          c->ax[0] = out->ax[1];
          return TRUE;
        }
    }
  if (in->rank > out->rank)
    return FALSE;
  return broadcast_back (in, res, out, c);
}

/* The result's coordinates from operand k's, where the member is a bijection from it (or a reduction). */
static gboolean
forward (Mapper *m, FwNode *node, guint k, const Coords *in_c, Coords *c)
{
  FwValue *in = node->inputs[k], *res = node->outputs[0];
  FwRowOp op;

  memset (c, 0, sizeof *c);
  if (k != 0 && fw_node_class (node) == FW_OP_CLASS_INJECTIVE)
    return FALSE;
  if (is_view (node))
    return relinearise (m, in, in_c, res, c);
  if (is_op (node, "Transpose"))
    {
      guint n = 0;
      const gint64 *perm = fw_node_get_attr_ints (node, "perm", &n);
      if (in_c->lin_only)
        return fail (m, FW_NF_INDEX_MAP, node,
                     g_strdup_printf (_("%s “%s” reads a view that cuts an axis of the tile in two"), node->op_type,
                                      node->name));
      if (!valid_perm (perm, n, res->rank))
        return bad_perm (m, node);
      c->rank = res->rank;
      c->tainted = TRUE;
      for (gint b = 0; b < res->rank; b++)
        c->ax[b] = in_c->ax[perm ? perm[b] : res->rank - 1 - b];
      return TRUE;
    }
  if (fw_node_class (node) == FW_OP_CLASS_INJECTIVE || fw_node_class (node) == FW_OP_CLASS_OUT_FUSABLE)
    return FALSE;
  if (fw_node_row_op_full (node, &op, NULL) && op.axes > 0 && !op.full_out)
    {
      gint lead = in->rank - op.axes, b = 0;
      if (k != 0 || op.from_end != 0 || in_c->lin_only)
        return FALSE;
      c->rank = res->rank;
      c->tainted = in_c->tainted;
      for (gint a = 0; a < in->rank; a++)
        {
          if (a < lead)
            c->ax[b++] = in_c->ax[a];
          else if (op.keepdims)
            aff_zero (&c->ax[b++]);
        }
      return b == res->rank;
    }
  /* Elementwise: the operand of the result's own shape carries its coordinates over. */
  if (in->rank != res->rank)
    return FALSE;
  for (gint b = 0; b < res->rank; b++)
    if (in->dims[b].value != res->dims[b].value)
      return FALSE;
  *c = *in_c;
  return TRUE;
}

static gboolean
same_dims (const FwValue *v, const FwSpace *space)
{
  if (v == NULL || v->rank != space->rank || !fw_value_is_static (v))
    return FALSE;
  for (gint a = 0; a < space->rank; a++)
    if (v->dims[a].value != space->dims[a])
      return FALSE;
  return TRUE;
}

/* The value whose coordinates are the space's own: the root's result, a row operation's input, else the
 * latest member's result of the space's shape. */
static FwValue *
anchor (GPtrArray *nodes, FwNode *root, const FwSpace *space)
{
  if (root != NULL && root->n_outputs > 0 && same_dims (root->outputs[0], space))
    return root->outputs[0];
  for (guint i = 0; i < nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (nodes, i);
      FwRowOp op;
      if (fw_node_row_op_full (node, &op, NULL) && op.axes > 0 && node->n_inputs > 0 &&
          same_dims (node->inputs[0], space))
        return node->inputs[0];
    }
  for (guint i = nodes->len; i > 0; i--)
    {
      FwNode *node = g_ptr_array_index (nodes, i - 1);
      if (node->n_outputs > 0 && same_dims (node->outputs[0], space))
        return node->outputs[0];
    }
  return NULL;
}

static gboolean
data_input (const FwNode *node, guint k)
{
  return k < node->n_inputs && node->inputs[k] != NULL && fw_node_is_data_input (node, k);
}

static gboolean
scalar (const FwValue *v)
{
  return v->constant != NULL && v->constant->n_elements <= 1;
}

/* One sweep over the members; *changed when a value got its coordinates. */
static gboolean
sweep (Mapper *m, GPtrArray *nodes, gboolean *done, gboolean *changed)
{
  for (guint i = 0; i < nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (nodes, i);
      FwValue *res = node->n_outputs > 0 ? node->outputs[0] : NULL;
      Coords c;

      /* A member whose operands were all derived from its result once needs no second look: later paths to
         those operands are checked against them when they arrive. */
      if (res == NULL || done[i])
        continue;
      if (!is_known (m, res))
        for (guint k = 0; k < node->n_inputs && !is_known (m, res); k++)
          if (data_input (node, k) && is_known (m, node->inputs[k]) && forward (m, node, k, lookup (m, node->inputs[k]), &c))
            {
              if (!assign (m, node, res, &c))
                return FALSE;
              *changed = TRUE;
            }
      if (m->why != NULL)
        return FALSE;
      if (!is_known (m, res))
        continue;
      done[i] = TRUE;
      for (guint k = 0; k < node->n_inputs; k++)
        {
          gboolean had;
          if (!data_input (node, k) || scalar (node->inputs[k]) || !backward (m, node, k, lookup (m, res), &c))
            {
              if (m->why != NULL)
                return FALSE;
              continue;
            }
          had = is_known (m, node->inputs[k]);
          if (!assign (m, node, node->inputs[k], &c))
            return FALSE;
          *changed |= !had;
        }
    }
  return TRUE;
}

/* Whether v's elements are each read or written once by the space: offset 0 and strides that are a
 * permutation of v's own contiguous strides. */
static gboolean
bijective (const FwIndexMap *map, const FwSpace *space, gint64 elements)
{
  gboolean used[FW_MAX_RANK] = { FALSE };
  gint64 expect = 1, covered = 1;

  if (map->offset != 0)
    return FALSE;
  for (;;)
    {
      gint best = -1;
      for (gint a = 0; a < space->rank; a++)
        if (!used[a] && space->dims[a] > 1 && map->strides[a] == expect)
          best = a;
      if (best < 0)
        break;
      used[best] = TRUE;
      covered *= space->dims[best];
      expect *= space->dims[best];
    }
  for (gint a = 0; a < space->rank; a++)
    if (!used[a] && space->dims[a] > 1)
      return FALSE;
  return covered == elements;
}

static void
to_map (const FwValue *v, const Coords *c, const FwSpace *space, FwIndexMap *map)
{
  gint64 cs[FW_MAX_RANK], acc = 1;

  Aff lin;

  memset (map, 0, sizeof *map);
  strides_of (v, cs);
  (void) cs;
  map->indexed = c->tainted;
  linear (v, c, &lin);
  map->offset = lin.off;
  for (gint a = 0; a < space->rank; a++)
    map->strides[a] = space->dims[a] > 1 ? lin.c[a] : 0;
  map->linear = map->offset == 0;
  for (gint a = space->rank - 1; a >= 0; a--)
    {
      if (space->dims[a] > 1 && map->strides[a] != acc)
        map->linear = FALSE;
      acc *= space->dims[a];
    }
  map->touched = 1;
  for (gint a = 0; a < space->rank; a++)
    if (map->strides[a] != 0)
      map->touched *= space->dims[a];
  map->bijective = bijective (map, space, MAX (fw_value_get_n_elements (v), 1));
}

static gboolean
in_range (const FwValue *v, const Coords *c, const FwSpace *space)
{
  if (c->lin_only)
    {
      gint64 lo, hi;
      aff_range (&c->lin, space, &lo, &hi);
      return lo >= 0 && hi < MAX (fw_value_get_n_elements (v), 1);
    }
  for (gint b = 0; b < c->rank; b++)
    {
      gint64 lo, hi;
      aff_range (&c->ax[b], space, &lo, &hi);
      if (lo < 0 || hi >= MAX (v->dims[b].value, 1))
        return FALSE;
    }
  return TRUE;
}

static gboolean
has_injective (GPtrArray *nodes)
{
  for (guint i = 0; i < nodes->len; i++)
    if (fw_node_class (g_ptr_array_index (nodes, i)) == FW_OP_CLASS_INJECTIVE)
      return TRUE;
  return FALSE;
}

static gboolean
member (GPtrArray *nodes, const FwNode *node)
{
  return node != NULL && g_ptr_array_find (nodes, node, NULL);
}

/* Checks that what leaves the kernel through a map is written whole and once, that every read stays
 * inside its tensor, and that a row operation's rows are the space's own. */
static gboolean
check (Mapper *m, GPtrArray *nodes, FwNode *root, GHashTable *maps)
{
  for (guint i = 0; i < nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (nodes, i);
      FwRowOp op;

      for (guint k = 0; k < node->n_outputs; k++)
        {
          FwValue *v = node->outputs[k];
          FwIndexMap *map = v ? g_hash_table_lookup (maps, v) : NULL;
          gboolean leaves = v && v->is_output;
          for (guint u = 0; v && u < v->n_uses; u++)
            if (!member (nodes, v->uses[u].node))
              leaves = TRUE;
          if (map != NULL && map->indexed && leaves && !map->bijective)
            return fail (m, FW_NF_INDEX_MAP, node,
                         g_strdup_printf (_("“%s” would leave the kernel through an index map that does not write "
                                            "each of its elements once"), v->name));
        }
      if (node != root && fw_node_row_op_full (node, &op, NULL) && op.axes > 0 && node->n_inputs > 0)
        {
          Coords *c = lookup (m, node->inputs[0]);
          FwValue *x = node->inputs[0];
          gint from = x->rank - (op.from_end != 0 ? op.from_end : op.axes);
          gint to = op.from_end != 0 ? from + 1 : x->rank;
          if (c == NULL || !c->tainted)
            continue;
          if (c->lin_only)
            return fail (m, FW_NF_INDEX_MAP, node,
                         g_strdup_printf (_("the rows %s “%s” reduces are not the rows of the tile after its "
                                            "index maps"), node->op_type, node->name));
          for (gint b = MAX (from, 0); b < to; b++)
            {
              gint a = m->space->rank - (x->rank - b);
              gboolean ok = a >= 0 && c->ax[b].off == 0 && c->ax[b].c[a] == 1;
              for (gint o = 0; ok && o < m->space->rank; o++)
                if (o != a && m->space->dims[o] > 1 && c->ax[b].c[o] != 0)
                  ok = FALSE;
              if (!ok)
                return fail (m, FW_NF_INDEX_MAP, node,
                             g_strdup_printf (_("the rows %s “%s” reduces are not the rows of the tile after its "
                                                "index maps"), node->op_type, node->name));
            }
        }
      for (guint k = 0; k < node->n_inputs; k++)
        {
          FwValue *v = node->inputs[k];
          Coords *c = lookup (m, v);
          if (v == NULL || c == NULL || member (nodes, v->producer) || !c->tainted)
            continue;
          if (!in_range (v, c, m->space))
            return fail (m, FW_NF_INDEX_MAP, node,
                         g_strdup_printf (_("%s “%s” would read “%s” outside its bounds"), node->op_type, node->name,
                                          v->name));
        }
    }
  return TRUE;
}

static void
unreached (Mapper *m, FwNode *node)
{
  Coords *out = lookup (m, node->outputs[0]);
  gboolean injective = fw_node_class (node) == FW_OP_CLASS_INJECTIVE;

  for (guint k = 0; k <= node->n_inputs && m->why == NULL; k++)
    {
      FwValue *v = k < node->n_inputs ? (data_input (node, k) ? node->inputs[k] : NULL) : node->outputs[0];
      gboolean needed = injective || (out != NULL && out->tainted) || (k == node->n_inputs && v->rank > m->space->rank);
      if (v != NULL && needed && lookup (m, v) == NULL && !scalar (v) &&
          !(node->n_inputs > 0 && fw_node_class (node) == FW_OP_CLASS_OUT_FUSABLE && k < 2))
        fail (m, FW_NF_INDEX_MAP, node,
              g_strdup_printf (_("“%s” does not map onto the tile through the group's index maps"), v->name));
    }
}

GHashTable *
fw_index_maps_compute (GPtrArray *nodes, FwNode *root, const FwSpace *space, FwReasonCode *code, char **why,
                       FwNode **culprit)
{
  Mapper m = { space, NULL, 0, NULL, NULL };
  GHashTable *maps = NULL;
  FwValue *a;
  gboolean changed = TRUE, *done;
  Coords id = { .known = TRUE, .rank = space->rank };

  if (!has_injective (nodes) || space->rank <= 0)
    goto done;
  m.coords = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  if (space->rank > MAP_RANK)
    {
      fail (&m, FW_NF_INDEX_MAP, g_ptr_array_index (nodes, 0),
            g_strdup_printf (_("the tile has rank %d; index maps follow ranks up to %d"), space->rank, MAP_RANK));
      goto done;
    }
  for (guint i = 0; i < nodes->len && m.why == NULL; i++)
    {
      FwNode *node = g_ptr_array_index (nodes, i);
      FwReasonCode c;
      char *w = NULL;
      if (fw_node_class (node) == FW_OP_CLASS_INJECTIVE && !fw_index_map_follows (node, &c, &w))
        fail (&m, c, node, w != NULL ? w : g_strdup_printf (_("%s “%s” is not followed"), node->op_type, node->name));
      for (guint k = 0; k < node->n_outputs; k++)
        if (node->outputs[k] != NULL && !fw_value_is_static (node->outputs[k]))
          fail (&m, FW_NF_DYNAMIC, node, g_strdup_printf (_("%s “%s” has a dynamic shape"), node->op_type, node->name));
      for (guint k = 0; k < node->n_inputs + node->n_outputs; k++)
        {
          FwValue *v = k < node->n_inputs ? node->inputs[k] : node->outputs[k - node->n_inputs];
          if (v != NULL && v->rank > MAP_RANK)
            fail (&m, FW_NF_INDEX_MAP, node, g_strdup_printf (_("“%s” has rank %d; index maps follow ranks up to %d"),
                                                             v->name, v->rank, MAP_RANK));
        }
    }
  a = m.why == NULL ? anchor (nodes, root, space) : NULL;
  if (m.why == NULL && a == NULL)
    fail (&m, FW_NF_INDEX_MAP, g_ptr_array_index (nodes, nodes->len - 1),
          g_strdup (_("no value of the group has the tile's shape to anchor its index maps")));
  for (gint b = 0; b < space->rank; b++)
    {
      aff_zero (&id.ax[b]);
      id.ax[b].c[b] = 1;
    }
  if (m.why == NULL)
    assign (&m, NULL, a, &id);
  done = g_new0 (gboolean, MAX (nodes->len, 1));
  for (;;)
    {
      FwValue *seed = NULL;
      for (guint round = 0; m.why == NULL && changed && round <= nodes->len + 1; round++)
        {
          changed = FALSE;
          sweep (&m, nodes, done, &changed);
        }
      /* A member no relation reaches (a LayerNorm's quotient, made from a reduction's result and a value
         from outside) but of the space's own shape lies over it plainly; what it meets is checked against
         what is known already. */
      for (guint i = nodes->len; m.why == NULL && seed == NULL && i > 0; i--)
        {
          FwNode *node = g_ptr_array_index (nodes, i - 1);
          FwValue *res = node->n_outputs > 0 ? node->outputs[0] : NULL;
          if (res != NULL && !is_known (&m, res) && same_dims (res, space))
            seed = res;
        }
      if (seed == NULL)
        break;
      assign (&m, NULL, seed, &id);
      changed = TRUE;
    }
  g_free (done);
  if (m.why == NULL)
    {
      GHashTableIter iter;
      gpointer key, value;

      maps = g_hash_table_new_full (NULL, NULL, NULL, g_free);
      g_hash_table_iter_init (&iter, m.coords);
      while (g_hash_table_iter_next (&iter, &key, &value))
        {
          FwIndexMap *map = g_new (FwIndexMap, 1);
          to_map (key, value, space, map);
          g_hash_table_insert (maps, key, map);
        }
      /* Whatever the walk could not reach has no map a kernel could use: an injective member's values, and the
         operands of a member whose result lies over the space through a map. */
      for (guint i = 0; i < nodes->len && m.why == NULL; i++)
        unreached (&m, g_ptr_array_index (nodes, i));
      if (m.why == NULL)
        check (&m, nodes, root, maps);
      if (m.why != NULL)
        g_clear_pointer (&maps, g_hash_table_unref);
    }
done:
  if (m.coords != NULL)
    g_hash_table_unref (m.coords);
  if (code)
    *code = m.code;
  if (culprit)
    *culprit = m.culprit;
  if (why)
    *why = m.why;
  else
    g_free (m.why);
  return maps;
}

gboolean
fw_node_slice_params (const FwNode *node, gint64 *start, gint64 *step)
{
  if (node->n_inputs == 0 || node->inputs[0] == NULL || node->inputs[0]->rank > FW_MAX_RANK)
    return FALSE;
  return slice_params (node, start, step);
}
