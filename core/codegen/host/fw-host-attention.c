/* fw-host-attention.c: the host kernel of a fused attention group (FwAttentionSpec, fw-kernel-spec.h).
 *
 * One parallel loop over (batch, block of query rows). Each block loads its Q rows, then walks the keys in
 * the planner's key blocks (one block when the scores fit whole): it loads the block's K and V, makes the
 * block's scores Q·K with one sgemm, applies the score chain to them row by row, and folds them into the
 * row's running maximum and sum (an online softmax: what was summed is rescaled by exp(old max − new max)),
 * then adds P·V to the rows' outputs with a second sgemm; after the last key block each output row is
 * divided by its sum and written through the strides of the views after the product.
 *
 * Q, K, V and the masks are loaded as expressions of the block's coordinates: an operand made inside the
 * group (its prologue: the heads split off and repeated by views, a slice, a concat, a rotary embedding's
 * products and sums) is computed from the kernel inputs as it is loaded, each view an index expression,
 * each concat a choice between its parts. */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-host-codegen-private.h"
#include "plan/fw-kernel-spec.h"

static gboolean
is_op (const FwNode *node, const char *op)
{
  return strcmp (node->op_type, op) == 0;
}

/* Coordinates of `v` (rank `v->rank`) for an operand of a node whose result has coordinates `c` (rank
 * `rank`): numpy broadcasting from the right, "0" along v's axes of one. */
char **
fw_hc_broadcast_coords (const FwValue *v, char **c, gint rank)
{
  char **s = g_new0 (char *, v->rank + 1);

  for (gint j = 0; j < v->rank; j++)
    s[j] = g_strdup (v->dims[j].value == 1 ? "0" : c[j + rank - v->rank]);
  return s;
}

/* The linear index of coordinates c over dims, then the coordinates of the same element over v's dims: a
 * view's operand. */
char **
fw_hc_reshape_coords (const FwValue *from, char **c, const FwValue *to)
{
  GString *lin = g_string_new ("0");
  char **s = g_new0 (char *, to->rank + 1);
  gint64 stride = 1;

  for (gint a = from->rank - 1; a >= 0; a--)
    {
      if (from->dims[a].value != 1)
        g_string_append_printf (lin, " + (%s) * %" G_GINT64_FORMAT, c[a], stride);
      stride *= from->dims[a].value;
    }
  stride = 1;
  for (gint a = to->rank - 1; a >= 0; a--)
    {
      if (to->dims[a].value == 1)
        s[a] = g_strdup ("0");
      else if (a == 0)
        s[a] = g_strdup_printf ("((%s) / %" G_GINT64_FORMAT ")", lin->str, stride);
      else
        s[a] = g_strdup_printf ("(((%s) / %" G_GINT64_FORMAT ") %% %" G_GINT64_FORMAT ")", lin->str, stride,
                                to->dims[a].value);
      stride *= to->dims[a].value;
    }
  g_string_free (lin, TRUE);
  return s;
}

static gboolean value_expr (Gen *g, FwValue *v, char **c, GString *out, GError **error);

/* A value from outside the group: a literal, or the kernel input read at its own contiguous offset. */
static gboolean
source_expr (Gen *g, FwValue *v, char **c, GString *out, GError **error)
{
  gint64 stride = 1;
  gint in;

  if (v->dtype != FW_DTYPE_FLOAT && !fw_hc_is_half (v->dtype))
    return fw_hc_unsupported (error, _("attention operand of type %s"), fw_dtype_name (v->dtype));
  if (v->constant != NULL && v->constant->n_elements == 1)
    {
      fw_hc_append_const_element (out, v->constant, 0, FW_DTYPE_FLOAT);
      return TRUE;
    }
  in = fw_hc_kernel_input (g, v);
  /* A half operand is widened as it is loaded (the branch-free conversion: the row loads still vectorise);
     the kernel computes in float32 and rounds once, where its result leaves it. */
  if (fw_hc_is_half (v->dtype))
    {
      g->half = TRUE;
      g_string_append_printf (out, "fw_%s2f (", fw_hc_half_letter (v->dtype));
    }
  {
    GString *index = g_string_new ("0");

    for (gint a = v->rank - 1; a >= 0; a--)
      {
        if (v->dims[a].value != 1)
          g_string_append_printf (index, " + (%s) * %" G_GINT64_FORMAT, c[a], stride);
        stride *= v->dims[a].value;
      }
    if (g->row_reads != NULL)
      {
        g_string_append_printf (out, "in%d[o%u + k]", in, g->row_reads->len);
        g_ptr_array_add (g->row_reads, g_string_free (index, FALSE));
      }
    else
      {
        g_string_append_printf (out, "in%d[%s]", in, index->str);
        g_string_free (index, TRUE);
      }
  }
  if (fw_hc_is_half (v->dtype))
    g_string_append_c (out, ')');
  return TRUE;
}

static gboolean
operand_expr (Gen *g, FwValue *v, char **c, gint rank, GString *out, GError **error)
{
  char **s = fw_hc_broadcast_coords (v, c, rank);
  gboolean ok = value_expr (g, v, s, out, error);

  g_strfreev (s);
  return ok;
}

/* Concat: the part the coordinate along the axis falls in, read at the coordinate less the parts before. */
static gboolean
concat_expr (Gen *g, FwNode *p, char **c, GString *out, GError **error)
{
  FwValue *v = p->outputs[0];
  gint64 axis = fw_node_get_attr_int (p, "axis", 0), start = 0;
  guint closing = 0;

  axis = axis < 0 ? axis + v->rank : axis;
  if (axis < 0 || axis >= v->rank)
    return fw_hc_unsupported (error, _("Concat axis out of range"));
  g_string_append_c (out, '(');
  for (guint k = 0; k < p->n_inputs; k++)
    {
      FwValue *x = p->inputs[k];
      char **s;
      gboolean ok;

      if (x == NULL || x->dims[axis].value == 0)
        continue;
      s = g_new0 (char *, x->rank + 1);
      for (gint a = 0; a < x->rank; a++)
        s[a] = a == axis ? g_strdup_printf ("((%s) - %" G_GINT64_FORMAT ")", c[a], start) : g_strdup (c[a]);
      start += x->dims[axis].value;
      if (k + 1 < p->n_inputs)
        {
          g_string_append_printf (out, "(%s) < %" G_GINT64_FORMAT " ? ", c[axis], start);
          closing++;
        }
      ok = value_expr (g, x, s, out, error);
      g_strfreev (s);
      if (!ok)
        return FALSE;
      if (k + 1 < p->n_inputs)
        g_string_append (out, " : (");
    }
  for (guint i = 0; i < closing; i++)
    g_string_append_c (out, ')');
  g_string_append_c (out, ')');
  return TRUE;
}

static gboolean
view_expr (Gen *g, FwNode *p, char **c, GString *out, GError **error)
{
  FwValue *v = p->outputs[0], *x = p->inputs[0];
  char **s;
  gboolean ok;

  if (is_op (p, "Transpose"))
    {
      guint n = 0;
      const gint64 *perm = fw_node_get_attr_ints (p, "perm", &n);
      s = g_new0 (char *, x->rank + 1);
      for (gint i = 0; i < v->rank; i++)
        {
          gint64 a = perm != NULL && (gint) n == v->rank ? perm[i] : v->rank - 1 - i;
          if (a < 0 || a >= x->rank || s[a] != NULL)
            {
              g_strfreev (s);
              return fw_hc_unsupported (error, _("Transpose with a bad perm"));
            }
          s[a] = g_strdup (c[i]);
        }
    }
  else if (is_op (p, "Expand"))
    s = fw_hc_broadcast_coords (x, c, v->rank);
  else if (is_op (p, "Slice"))
    {
      gint64 start[FW_MAX_RANK], step[FW_MAX_RANK];
      if (x->rank > FW_MAX_RANK || !fw_node_slice_params (p, start, step))
        return fw_hc_unsupported (error, _("Slice with starts or steps known only at run time"));
      s = g_new0 (char *, x->rank + 1);
      for (gint a = 0; a < x->rank; a++)
        s[a] = g_strdup_printf ("((%s) * %" G_GINT64_FORMAT " + %" G_GINT64_FORMAT ")", c[a], step[a], start[a]);
    }
  else
    s = fw_hc_reshape_coords (v, c, x);
  ok = value_expr (g, x, s, out, error);
  g_strfreev (s);
  return ok;
}

/* The C expression of v's element at coordinates c (rank v->rank). */
static gboolean
value_expr (Gen *g, FwValue *v, char **c, GString *out, GError **error)
{
  FwNode *p = v->producer;
  const char *bin = NULL;

  if (p == NULL || !fw_kernel_spec_contains (g->cand->spec, p))
    return source_expr (g, v, c, out, error);
  if (p->domain[0] != '\0' || p->outputs[0] != v)
    return fw_hc_unsupported (error, _("%s in an attention operand"), p->op_type);
  if (is_op (p, "Concat"))
    return concat_expr (g, p, c, out, error);
  if (is_op (p, "Neg"))
    {
      gboolean ok;
      g_string_append (out, "(-");
      ok = operand_expr (g, p->inputs[0], c, v->rank, out, error);
      g_string_append_c (out, ')');
      return ok;
    }
  bin = is_op (p, "Add") ? " + " : is_op (p, "Sub") ? " - " : is_op (p, "Mul") ? " * " : is_op (p, "Div") ? " / " : NULL;
  if (bin != NULL)
    {
      gboolean ok;
      if (p->n_inputs != 2 || p->inputs[0] == NULL || p->inputs[1] == NULL)
        return fw_hc_unsupported (error, _("%s without two operands"), p->op_type);
      g_string_append_c (out, '(');
      ok = operand_expr (g, p->inputs[0], c, v->rank, out, error);
      g_string_append (out, bin);
      ok = ok && operand_expr (g, p->inputs[1], c, v->rank, out, error);
      g_string_append_c (out, ')');
      return ok;
    }
  if (is_op (p, "Transpose") || is_op (p, "Expand") || is_op (p, "Slice") || is_op (p, "Reshape") ||
      is_op (p, "Flatten") || is_op (p, "Squeeze") || is_op (p, "Unsqueeze"))
    return view_expr (g, p, c, out, error);
  return fw_hc_unsupported (error, _("%s in an attention operand"), p->op_type);
}

/* The statement loading an operand's element at the space coordinates (c0…, r, k) into `dst`. */
static gboolean
emit_load (Gen *g, const FwAttentionSpec *a, FwValue *v, const char *r, const char *k, const char *dst,
           GString *s, GError **error)
{
  gint rank = a->lead_rank + 2;
  char **c = g_new0 (char *, rank + 1);
  gboolean ok;

  for (gint i = 0; i < a->lead_rank; i++)
    c[i] = g_strdup_printf ("c%d", i);
  c[rank - 2] = g_strdup (r);
  c[rank - 1] = g_strdup (k);
  g_string_append_printf (s, "%s = ", dst);
  ok = operand_expr (g, v, c, rank, s, error);
  g_string_append (s, ";\n");
  g_strfreev (c);
  return ok;
}

/* The score chain's statements on x, the score at row i0 + i and key j0 + j: each link reads the value the
 * one before it made (the scores first) and a scale or a mask. Prologue members between them in the
 * group's order are not links. */
static gboolean
emit_chain (Gen *g, const FwAttentionSpec *a, GString *s, GError **error)
{
  const FwKernelSpec *spec = g->cand->spec;
  FwValue *prev = a->scores->outputs[0];

  for (guint p = 0; p < fw_kernel_spec_get_n_nodes (spec); p++)
    {
      FwNode *node = fw_kernel_spec_get_node (spec, p);
      const char *op = node->op_type;
      gboolean first;
      FwValue *other;

      if (node == a->softmax)
        break;
      if (node->n_inputs != 2 || (node->inputs[0] != prev && node->inputs[1] != prev))
        continue;
      first = node->inputs[0] == prev;
      other = first ? node->inputs[1] : node->inputs[0];
      g_string_append (s, "            {\n");
      if (!emit_load (g, a, other, "(i0 + i)", "(j0 + j)", "              const float y", s, error))
        return FALSE;
      if (strcmp (op, "Add") == 0)
        g_string_append (s, "              x = x + y;\n");
      else if (strcmp (op, "Mul") == 0)
        g_string_append (s, "              x = x * y;\n");
      else if (strcmp (op, "Sub") == 0)
        g_string_append (s, first ? "              x = x - y;\n" : "              x = y - x;\n");
      else if (strcmp (op, "Div") == 0)
        g_string_append (s, first ? "              x = x / y;\n" : "              x = y / x;\n");
      else
        return fw_hc_unsupported (error, _("%s on attention scores"), op);
      g_string_append (s, "            }\n");
      prev = node->outputs[0];
    }
  return TRUE;
}

/* An operand's block load row by row: where every input it reads is read at consecutive elements along the
 * block's columns (k), each row is the element expression over in<N>[o<i> + k], o<i> the read's index at
 * k = 0 computed once per row, and the loop vectorises. Index expressions of views carry a division and a
 * remainder per axis they regroup, which GCC cannot fold (it does not know k's range), and they cost more
 * than the load. Whether the reads are consecutive is asked of the expressions themselves, once per process
 * on every coordinate of the operand (check), not worked out here a second way: when it fails, the
 * element-by-element loads run. */
typedef struct
{
  char      *expr;    /* the element, reading in<N>[o<i> + k] */
  GPtrArray *at_k;    /* char*: read i's index at the block's coordinates */
  GPtrArray *at_0;    /* char*: the same at k = 0 */
} RowLoad;

static void
row_load_clear (RowLoad *l)
{
  g_free (l->expr);
  g_clear_pointer (&l->at_k, g_ptr_array_unref);
  g_clear_pointer (&l->at_0, g_ptr_array_unref);
}

/* The coordinates of a block load: the operand's row r0 + r and column k0 + k (transposed, its row k0 + k
 * and column r0 + r); k0_only: k replaced by 0. */
static void
block_coords (gboolean transposed, const char *r0, const char *k0, gboolean k0_only, char **r, char **k)
{
  const char *kv = k0_only ? "0" : "k";

  *r = transposed ? g_strdup_printf ("(%s + %s)", k0, kv) : g_strdup_printf ("(%s + r)", r0);
  *k = transposed ? g_strdup_printf ("(%s + r)", r0) : g_strdup_printf ("(%s + %s)", k0, kv);
}

static gboolean
row_load (Gen *g, const FwAttentionSpec *a, FwValue *v, gboolean transposed, const char *r0, const char *k0,
          RowLoad *out, GError **error)
{
  GPtrArray **lists[2] = { &out->at_k, &out->at_0 };
  gboolean ok = TRUE;

  memset (out, 0, sizeof *out);
  for (guint pass = 0; pass < 2 && ok; pass++)
    {
      g_autofree char *r = NULL, *k = NULL;
      GString *e = g_string_new (NULL);

      block_coords (transposed, r0, k0, pass == 1, &r, &k);
      g->row_reads = g_ptr_array_new_with_free_func (g_free);
      ok = emit_load (g, a, v, r, k, "x", e, error);
      *lists[pass] = g_steal_pointer (&g->row_reads);
      if (pass == 0 && ok)
        out->expr = g_strndup (e->str + 4, e->len - 6);  /* "x = EXPR;\n" */
      g_string_free (e, TRUE);
    }
  if (!ok || out->at_k->len != out->at_0->len)
    {
      row_load_clear (out);
      return FALSE;
    }
  return TRUE;
}

/* Statements setting `name` (a local declared before the team starts) to 1 when every read of l is
 * consecutive along k on every coordinate of the operand: its lead coordinates from b, rows 0..n_rows-1,
 * columns 0..n_cols-1; else 2. Once per process (a static; threads that race to it compute the same answer). */
static void
emit_row_check (const FwAttentionSpec *a, const RowLoad *l, const char *name, guint unit, gint64 n_rows,
                gint64 n_cols, GString *s)
{
  gint64 nb = 1, inner = 1;

  for (gint i = 0; i < a->lead_rank; i++)
    nb *= a->lead[i];
  g_string_append_printf (s, "  static int %s_%u_known = 0;\n  int %s = __atomic_load_n (&%s_%u_known, __ATOMIC_RELAXED);\n"
                             "  if (%s == 0)\n  {\n    %s = 1;\n"
                             "    for (int64_t b = 0; b < %" G_GINT64_FORMAT " && %s == 1; b++)\n    {\n",
                          name, unit, name, name, unit, name, name, nb, name);
  for (gint i = a->lead_rank - 1; i >= 0; i--)
    {
      g_string_append_printf (s, "      const int64_t c%d = (b / %" G_GINT64_FORMAT ") %% %" G_GINT64_FORMAT ";\n"
                                 "      (void) c%d;\n", i, inner, a->lead[i], i);
      inner *= a->lead[i];
    }
  g_string_append_printf (s, "      const int64_t i0 = 0, j0 = 0;\n      (void) i0;\n      (void) j0;\n"
                             "      for (int64_t r = 0; r < %" G_GINT64_FORMAT " && %s == 1; r++)\n"
                             "        for (int64_t k = 0; k < %" G_GINT64_FORMAT "; k++)\n"
                             "          if (0", n_rows, name, n_cols);
  for (guint i = 0; i < l->at_k->len; i++)
    g_string_append_printf (s, " || (%s) != (%s) + k", (char *) g_ptr_array_index (l->at_k, i),
                            (char *) g_ptr_array_index (l->at_0, i));
  g_string_append_printf (s, ")\n          {\n            %s = 2;\n            break;\n          }\n    }\n"
                             "    __atomic_store_n (&%s_%u_known, %s, __ATOMIC_RELAXED);\n  }\n",
                          name, name, unit, name);
}

/* The loads of one block of an operand: rows r0 + r for r < nr, columns k0 + k for k < nk, into
 * buf[r * ld + k]; transposed, the operand's rows k0 + k and columns r0 + r (buf's rows are its columns).
 * With fast (the operand's RowLoad) and its check's local `check`, row by row where the check passed. */
static gboolean
emit_block_load (Gen *g, const FwAttentionSpec *a, FwValue *v, gboolean transposed, const char *rows,
                 const char *cols, const char *r0, const char *k0, const char *buf, gint64 ld, const RowLoad *fast,
                 const char *check, GString *s, GError **error)
{
  g_autofree char *r = NULL, *k = NULL;
  g_autofree char *dst = g_strdup_printf ("            %s[r * %" G_GINT64_FORMAT " + k]", buf, ld);

  block_coords (transposed, r0, k0, FALSE, &r, &k);
  if (fast != NULL)
    {
      g_string_append_printf (s, "        if (%s == 1)\n          for (int64_t r = 0; r < %s; r++)\n          {\n",
                              check, rows);
      for (guint i = 0; i < fast->at_0->len; i++)
        g_string_append_printf (s, "            const int64_t o%u = %s;\n", i, (char *) g_ptr_array_index (fast->at_0, i));
      g_string_append_printf (s, "            for (int64_t k = 0; k < %s; k++)\n              %s[r * %" G_GINT64_FORMAT
                                 " + k] = %s;\n          }\n        else\n", cols, buf, ld, fast->expr);
    }
  g_string_append_printf (s, "        for (int64_t r = 0; r < %s; r++)\n          for (int64_t k = 0; k < %s; k++)\n"
                             "          {\n", rows, cols);
  if (!emit_load (g, a, v, r, k, dst, s, error))
    return FALSE;
  g_string_append (s, "          }\n");
  return TRUE;
}

static void
emit_coords (const FwAttentionSpec *a, GString *s)
{
  gint64 inner = 1;

  for (gint i = a->lead_rank - 1; i >= 0; i--)
    {
      g_string_append_printf (s, "      const int64_t c%d = (b / %" G_GINT64_FORMAT ") %% %" G_GINT64_FORMAT ";\n", i,
                              inner, a->lead[i]);
      g_string_append_printf (s, "      (void) c%d;\n", i);
      inner *= a->lead[i];
    }
  g_string_append (s, "      (void) b;\n");
  g_string_append (s, "      const int64_t oo = 0");
  for (gint i = 0; i < a->lead_rank; i++)
    if (a->out_strides[i] != 0)
      g_string_append_printf (s, " + c%d * %" G_GINT64_FORMAT, i, a->out_strides[i]);
  g_string_append (s, ";\n");
}

/* The online softmax over one key block's scores in srow: srow becomes the row's P, and what the row's
 * output summed so far is rescaled to the new maximum (P·V is added for the whole block after). */
static void
emit_fold (const FwAttentionSpec *a, GString *s)
{
  /* Both loops vectorise: the maximum is exact in any order; the sum goes into eight lane sums (score j
     into lane j % 8, added pairwise after), an order fixed whatever the vector width, so the AVX2 and the
     baseline body agree to the bit (the reference's order is another again). exp is the prelude's fw_exp,
     not a library call per score. */
  g_string_append (s, "          float mx = m[i];\n#pragma omp simd reduction(max:mx)\n"
                      "          for (int64_t j = 0; j < nk; j++)\n"
                      "            mx = srow[j] > mx ? srow[j] : mx;\n"
                      "          const float corr = m[i] == -INFINITY ? 0.0f : fw_exp (m[i] - mx);\n"
                      "          float ls[8] = { 0 };\n          int64_t jl = 0;\n"
                      "          for (; jl + 8 <= nk; jl += 8)\n            for (int q = 0; q < 8; q++)\n            {\n"
                      "              const float p = fw_exp (srow[jl + q] - mx);\n              srow[jl + q] = p;\n"
                      "              ls[q] += p;\n            }\n"
                      "          for (int64_t j = jl; j < nk; j++)\n          {\n"
                      "            const float p = fw_exp (srow[j] - mx);\n            srow[j] = p;\n"
                      "            ls[j - jl] += p;\n          }\n"
                      "          const float sum = ((ls[0] + ls[1]) + (ls[2] + ls[3])) + ((ls[4] + ls[5]) + (ls[6] + ls[7]));\n"
                      "          l[i] = l[i] * corr + sum;\n          m[i] = mx;\n");
  g_string_append_printf (s, "          float *restrict orow = o + i * %" G_GINT64_FORMAT ";\n"
                          "          for (int64_t e = 0; e < %" G_GINT64_FORMAT "; e++)\n            orow[e] *= corr;\n",
                          a->dv, a->dv);
}

gboolean
fw_hc_emit_attention (Gen *g, GError **error)
{
  const FwAttentionSpec *a = fw_kernel_spec_get_attention (g->cand->spec);
  gint rank = a->lead_rank + 2;
  gint64 nb = 1, nqb = (a->sq + a->q_block - 1) / a->q_block, qb = a->q_block, kb = a->key_block;
  g_autofree char *d = g_strdup_printf ("%" G_GINT64_FORMAT, a->d);
  g_autofree char *dv = g_strdup_printf ("%" G_GINT64_FORMAT, a->dv);
  const gint64 *os = a->out_strides;
  GString *s = g->body;
  RowLoad rows[3];
  g_autofree char *round_out = fw_hc_is_half (a->out->dtype)
                               ? g_strdup_printf ("fw_f2%s (", fw_hc_half_letter (a->out->dtype)) : g_strdup ("");
  gint64 block;
  gboolean wide, ok;

  for (gint i = 0; i < a->lead_rank; i++)
    nb *= a->lead[i];
  if (a->out->dtype != FW_DTYPE_FLOAT && !fw_hc_is_half (a->out->dtype))
    return fw_hc_unsupported (error, _("attention result of type %s"), fw_dtype_name (a->out->dtype));
  g->half |= fw_hc_is_half (a->out->dtype);
  g_ptr_array_add (g->kernel->outputs, a->out);
  g_string_append_printf (s, "  /* attention: %" G_GINT64_FORMAT " batches, %" G_GINT64_FORMAT " queries in blocks of %"
                          G_GINT64_FORMAT ", %" G_GINT64_FORMAT " keys in blocks of %" G_GINT64_FORMAT "%s */\n",
                          nb, a->sq, qb, a->sk, kb, a->online ? ", online softmax" : "");
  if (!row_load (g, a, a->q, FALSE, "i0", "0", &rows[0], error) ||
      !row_load (g, a, a->k, TRUE, "j0", "0", &rows[1], error) ||
      !row_load (g, a, a->v, FALSE, "j0", "0", &rows[2], error))
    {
      for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
        row_load_clear (&rows[i]);
      return FALSE;
    }
  emit_row_check (a, &rows[0], "q_rows", g->cand->index, a->sq, a->d, s);
  emit_row_check (a, &rows[1], "k_rows", g->cand->index, a->sk, a->d, s);
  emit_row_check (a, &rows[2], "v_rows", g->cand->index, a->sk, a->dv, s);
  block = qb * kb + qb * a->dv + 2 * qb + qb * a->d + a->d * kb + kb * a->dv;
  /* Threads where there are two blocks or more and the multiply-adds of both products pass the elementwise
     floor: a score is d + dv of them and its row's loads, not one element's work. Counting scores alone
     kept llama_decoder's attention (16 heads of 32x32 scores, 16 384) on one thread, 175 µs of a 1.7 ms
     run. */
  wide = nb * nqb > 1 && nb * a->sq * a->sk * (a->d + a->dv) > PARALLEL_MIN_ELEMENTS;
  if (g->team)
    {
      /* Team form (FwSuperKernel.team): the program's team shares the query blocks, and the blocks' buffer
         is the per-thread one it passes after the output. */
      g->kernel->team_wide |= wide;
      g->kernel->team_scratch_bytes = MAX (g->kernel->team_scratch_bytes, block * (gint64) sizeof (float));
      g_string_append (s, "  {\n    {\n    float *sb = (float *) outs[1];\n");
      if (wide)
        g_string_append (s, "#pragma omp for schedule(static)\n");
      else
        g_string_append_printf (s, "#pragma omp for schedule(static, %" G_GINT64_FORMAT ")\n", MAX (nb * nqb, 1));
      g_string_append_printf (s, "    for (int64_t t = 0; t < %" G_GINT64_FORMAT "; t++)\n    {\n", nb * nqb);
    }
  else
    {
      g_string_append_printf (s, "  {\n    int fail = 0;\n#pragma omp parallel num_threads(%s)\n    {\n",
                              wide ? "nt" : "1");
      g_string_append_printf (s, "    float *sb = (float *) malloc (sizeof (float) * %" G_GINT64_FORMAT ");\n", block);
      g_string_append (s, "    if (sb == NULL)\n    {\n#pragma omp atomic write\n      fail = 1;\n    }\n");
      g_string_append_printf (s, "#pragma omp for schedule(static)\n    for (int64_t t = 0; t < %" G_GINT64_FORMAT
                              "; t++)\n    {\n      if (sb == NULL)\n        continue;\n", nb * nqb);
    }
  g_string_append_printf (s, "      const int64_t b = t / %" G_GINT64_FORMAT ", i0 = (t %% %" G_GINT64_FORMAT ") * %"
                          G_GINT64_FORMAT ";\n", nqb, nqb, qb);
  g_string_append_printf (s, "      const int64_t nr = %" G_GINT64_FORMAT " - i0 < %" G_GINT64_FORMAT " ? %"
                          G_GINT64_FORMAT " - i0 : %" G_GINT64_FORMAT ";\n", a->sq, qb, a->sq, qb);
  emit_coords (a, s);
  g_string_append_printf (s, "      float *sc = sb, *o = sc + %" G_GINT64_FORMAT ", *m = o + %" G_GINT64_FORMAT
                          ", *l = m + %" G_GINT64_FORMAT ";\n      float *qa = l + %" G_GINT64_FORMAT
                          ", *ka = qa + %" G_GINT64_FORMAT ", *vb = ka + %" G_GINT64_FORMAT ";\n",
                          qb * kb, qb * a->dv, qb, qb, qb * a->d, a->d * kb);
  g_string_append_printf (s, "      for (int64_t i = 0; i < nr; i++)\n      {\n        m[i] = -INFINITY;\n"
                          "        l[i] = 0.0f;\n        for (int64_t e = 0; e < %s; e++)\n"
                          "          o[i * %s + e] = 0.0f;\n      }\n      {\n", dv, dv);
  ok = emit_block_load (g, a, a->q, FALSE, "nr", d, "i0", "0", "qa", a->d, &rows[0], "q_rows", s, error);
  if (!ok)
    goto done;
  g_string_append_printf (s, "      }\n      for (int64_t j0 = 0; j0 < %" G_GINT64_FORMAT "; j0 += %" G_GINT64_FORMAT ")\n"
                          "      {\n", a->sk, kb);
  g_string_append_printf (s, "        const int64_t nk = %" G_GINT64_FORMAT " - j0 < %" G_GINT64_FORMAT " ? %"
                          G_GINT64_FORMAT " - j0 : %" G_GINT64_FORMAT ";\n", a->sk, kb, a->sk, kb);
  /* K's block key by key (the rows of Kᵀ, unit stride along the head's elements in the usual layouts), for
     a transposed product. */
  ok = emit_block_load (g, a, a->k, TRUE, "nk", d, "j0", "0", "ka", a->d, &rows[1], "k_rows", s, error) &&
       emit_block_load (g, a, a->v, FALSE, "nk", dv, "j0", "0", "vb", a->dv, &rows[2], "v_rows", s, error);
  if (!ok)
    goto done;
  /* The block's two products go to sgemm (OpenBLAS): called from inside the team, its OpenMP build runs
     each on the calling thread, with register-blocked AVX2/AVX-512 kernels that this file's C, compiled for
     any x86-64, does not reach. Q·K first, into the block's scores. */
  g_string_append_printf (s, "        rt->sgemm (0, 1, (int) nr, (int) nk, %s, 1.0f, qa, %s, ka, %s, 0.0f, sc, %"
                          G_GINT64_FORMAT ");\n", d, d, d, kb);
  g_string_append (s, "        for (int64_t i = 0; i < nr; i++)\n        {\n");
  g_string_append_printf (s, "          float *restrict srow = sc + i * %" G_GINT64_FORMAT ";\n", kb);
  g_string_append (s, "          for (int64_t j = 0; j < nk; j++)\n          {\n            float x = srow[j];\n");
  if (!(ok = emit_chain (g, a, s, error)))
    goto done;
  g_string_append (s, "            srow[j] = x;\n          }\n");
  emit_fold (a, s);
  g_string_append (s, "        }\n");
  /* Then P·V added to the rows' rescaled outputs. */
  g_string_append_printf (s, "        rt->sgemm (0, 0, (int) nr, %s, (int) nk, 1.0f, sc, %" G_GINT64_FORMAT
                          ", vb, %s, 1.0f, o, %s);\n      }\n", dv, kb, dv, dv);
  g_string_append_printf (s, "      for (int64_t i = 0; i < nr; i++)\n      {\n        const float inv = 1.0f / l[i];\n"
                          "        for (int64_t e = 0; e < %s; e++)\n"
                          "          out0[oo + (i0 + i) * %" G_GINT64_FORMAT " + e * %" G_GINT64_FORMAT "] = "
                          "%so[i * %s + e] * inv%s;\n      }\n",
                          dv, os[rank - 2], os[rank - 1], round_out, dv, fw_hc_is_half (a->out->dtype) ? ")" : "");
  if (g->team)
    g_string_append (s, "    }\n    }\n  }\n");
  else
    g_string_append (s, "    }\n    free (sb);\n    }\n    if (fail)\n      goto out;\n  }\n");
done:
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    row_load_clear (&rows[i]);
  return ok;
}
