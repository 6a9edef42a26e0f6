/* fw-rule-match.c: running a compiled pattern over a candidate's nodes.
 *
 * A pattern is a tree of sequences, repeated elements and alternatives (fw-rules-private.h). Rather than
 * enumerating its expansions (a repeated class alone has dozens), the matcher carries the set of positions
 * that a prefix of the pattern can reach as a bit mask, so every alternative and repetition is explored at
 * once and a match costs O(pattern size × nodes) bit operations. */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "graph/fw-dtype.h"

#include "rules/fw-rules-private.h"

static inline guint
lowest_bit (guint64 bits)
{
#if defined(__GNUC__) || defined(__clang__)
  return (guint) __builtin_ctzll (bits);
#else
  guint k = 0;
  while ((bits & 1) == 0)
    {
      bits >>= 1;
      k++;
    }
  return k;
#endif
}

static inline gboolean
mask_empty (FwRuleMask m)
{
  return (m.w[0] | m.w[1]) == 0;
}

static inline FwRuleMask
mask_or (FwRuleMask a, FwRuleMask b)
{
  a.w[0] |= b.w[0];
  a.w[1] |= b.w[1];
  return a;
}

static inline void
mask_set (FwRuleMask *m, guint p)
{
  m->w[p >> 6] |= G_GUINT64_CONSTANT (1) << (p & 63);
}

static inline gboolean
mask_test (FwRuleMask m, guint p)
{
  return (m.w[p >> 6] >> (p & 63)) & 1;
}

FwOpClass
fw_rule_node_class (const FwNode *node)
{
  const FwOpInfo *info = node->op ? node->op : fw_op_lookup (node->domain, node->op_type);

  return info ? info->op_class : FW_OP_CLASS_OPAQUE;
}

static inline gboolean
domain_equal (const char *node_domain, const char *atom_domain)
{
  if (fw_rule_domain_is_default (node_domain))
    return atom_domain[0] == '\0';
  return strcmp (node_domain, atom_domain) == 0;
}

static inline gboolean
atom_matches (const FwRuleAtom *atom, const FwNode *node)
{
  switch (atom->kind)
    {
    case FW_RULE_ATOM_OP:
      /* A custom op's row may come from a registry installed after the rules were read: same name. */
      if (node->op != NULL && node->op->custom == NULL)
        return node->op == atom->info;
      return strcmp (node->op_type, atom->op_type) == 0 && domain_equal (node->domain, atom->domain);
    case FW_RULE_ATOM_LITERAL:
      return (node->op == NULL || node->op->custom != NULL) && strcmp (node->op_type, atom->op_type) == 0
             && domain_equal (node->domain, atom->domain);
    case FW_RULE_ATOM_CLASS:
      return fw_rule_node_class (node) == atom->op_class;
    default:
      return FALSE;
    }
}

static FwRuleMask
step_atom (const FwRuleAtom *atom, FwNode * const *nodes, guint n_nodes, FwRuleMask in)
{
  FwRuleMask out = { { 0, 0 } };

  for (guint k = 0; k < 2; k++)
    {
      guint64 bits = in.w[k];
      while (bits != 0)
        {
          guint p = k * 64 + lowest_bit (bits);
          bits &= bits - 1;
          if (p < n_nodes && atom_matches (atom, nodes[p]))
            mask_set (&out, p + 1);
        }
    }
  return out;
}

static FwRuleMask run_seq (const FwRuleSeq *seq, FwNode * const *nodes, guint n_nodes, FwRuleMask in);

static FwRuleMask
run_elem (const FwRuleElem *elem, FwNode * const *nodes, guint n_nodes, FwRuleMask in)
{
  FwRuleMask out = { { 0, 0 } };
  FwRuleMask cur = in;

  if (elem->repeat_min == 0)
    out = in;
  for (guint r = 1; r <= elem->repeat_max; r++)
    {
      FwRuleMask next = { { 0, 0 } };

      for (guint a = 0; a < elem->n_alts; a++)
        {
          const FwRuleAlt *alt = &elem->alts[a];
          next = mask_or (next, alt->sub ? run_seq (alt->sub, nodes, n_nodes, cur)
                                         : step_atom (&alt->atom, nodes, n_nodes, cur));
        }
      if (mask_empty (next))
        break;
      if (r >= elem->repeat_min)
        out = mask_or (out, next);
      if (r >= elem->repeat_min && memcmp (&next, &cur, sizeof next) == 0)
        break; /* the same positions again: later repetitions add nothing */
      cur = next;
    }
  return out;
}

static FwRuleMask
run_seq (const FwRuleSeq *seq, FwNode * const *nodes, guint n_nodes, FwRuleMask in)
{
  FwRuleMask cur = in;

  for (guint e = 0; e < seq->n_elems && !mask_empty (cur); e++)
    cur = run_elem (&seq->elems[e], nodes, n_nodes, cur);
  return cur;
}

FwRuleMask
fw_rule_seq_run (const FwRuleSeq *seq, FwNode * const *nodes, guint n_nodes, FwRuleMask starts)
{
  g_return_val_if_fail (n_nodes < FW_RULE_MASK_BITS, starts);
  return run_seq (seq, nodes, n_nodes, starts);
}

gboolean
fw_rule_seq_match_full (const FwRuleSeq *seq, FwNode * const *nodes, guint n_nodes)
{
  FwRuleMask start = { { 1, 0 } };

  if (n_nodes < seq->min_len || n_nodes > seq->max_len || n_nodes >= FW_RULE_MASK_BITS)
    return FALSE;
  return mask_test (run_seq (seq, nodes, n_nodes, start), n_nodes);
}

/* `when` */

static gint64
dim_at (const FwValue *value, gint axis)
{
  if (value == NULL || value->rank < 0 || axis < 0 || axis >= value->rank)
    return -1;
  return value->dims[axis].value >= 0 ? value->dims[axis].value : -1;
}

static gint64
dims_product (const FwValue *value, gint from, gint to)
{
  gint64 n = 1;

  for (gint k = from; k < to; k++)
    {
      gint64 d = dim_at (value, k);
      if (d < 0)
        return -1;
      if (d != 0 && n > G_MAXINT64 / d)
        n = G_MAXINT64;
      else
        n *= d;
    }
  return n;
}

static gboolean
node_is (const FwNode *node, const char * const *op_types)
{
  if (!fw_rule_domain_is_default (node->domain))
    return FALSE;
  for (guint k = 0; op_types[k]; k++)
    if (strcmp (node->op_type, op_types[k]) == 0)
      return TRUE;
  return FALSE;
}

/* M, N, K of a MatMul (batch dims folded into M, as a MatMul with a 2-D weight runs) or Gemm. */
static void
matmul_dims (const FwNode *node, gint64 *mnk)
{
  const FwValue *a = node->n_inputs > 0 ? node->inputs[0] : NULL;
  const FwValue *b = node->n_inputs > 1 ? node->inputs[1] : NULL;
  const FwValue *y = node->n_outputs > 0 ? node->outputs[0] : NULL;
  gint r = y ? y->rank : -1;

  mnk[0] = mnk[1] = mnk[2] = -1;
  if (strcmp (node->op_type, "Gemm") == 0)
    {
      gboolean trans_a = fw_node_get_attr_int (node, "transA", 0) != 0;
      mnk[0] = r == 2 ? dim_at (y, 0) : -1;
      mnk[1] = r == 2 ? dim_at (y, 1) : -1;
      mnk[2] = a && a->rank == 2 ? dim_at (a, trans_a ? 0 : 1) : -1;
      return;
    }
  if (r >= 0)
    {
      if (b && b->rank == 1)
        {
          mnk[0] = dims_product (y, 0, r);
          mnk[1] = 1;
        }
      else if (r >= 1)
        {
          mnk[0] = dims_product (y, 0, r - 1);
          mnk[1] = dim_at (y, r - 1);
        }
    }
  if (a && a->rank >= 1)
    mnk[2] = dim_at (a, a->rank - 1);
}

static void
conv_dims (const FwNode *node, gint64 *chw)
{
  const FwValue *y = node->n_outputs > 0 ? node->outputs[0] : NULL;
  gint r = y ? y->rank : -1;

  chw[0] = r >= 2 ? dim_at (y, 1) : -1;
  chw[1] = r >= 4 ? dim_at (y, r - 2) : -1;
  chw[2] = r >= 3 ? dim_at (y, r - 1) : -1;
}

/* The hidden size of the first normalisation in the match: the elements of the axes a
 * LayerNormalization normalises (from `axis` on), or of the trailing axes the first ReduceMean averages (a
 * decomposed LayerNorm or RMSNorm). */
static gint64
hidden_dim (FwNode * const *nodes, guint start, guint end)
{
  static const char * const mean_ops[] = { "ReduceMean", NULL };
  static const char * const ln_ops[] = { "LayerNormalization", NULL };

  for (guint k = start; k < end; k++)
    {
      const FwNode *node = nodes[k];
      const FwValue *x = node->n_inputs > 0 ? node->inputs[0] : NULL;
      gint r = x ? x->rank : -1;
      gint64 axis;

      if (r < 1)
        continue;
      if (node_is (node, ln_ops))
        {
          axis = fw_node_get_attr_int (node, "axis", -1);
          axis = axis < 0 ? axis + r : axis;
          return axis >= 0 && axis < r ? dims_product (x, (gint) axis, r) : -1;
        }
      if (node_is (node, mean_ops))
        {
          guint n = 0;
          const gint64 *axes = fw_node_get_attr_ints (node, "axes", &n);
          /* One trailing axis (the usual export), given as an attribute or a constant input. */
          axis = axes != NULL && n == 1 ? axes[0] : -1;
          if (axes == NULL && node->n_inputs > 1 && node->inputs[1] && node->inputs[1]->constant &&
              node->inputs[1]->constant->n_elements == 1)
            fw_tensor_get_int64 (node->inputs[1]->constant, 0, &axis);
          axis = axis < 0 ? axis + r : axis;
          return axis == r - 1 ? dim_at (x, r - 1) : -1;
        }
    }
  return -1;
}

/* Every dim the match has, -1 where it has none or it is not known. */
static void
match_dims (FwNode * const *nodes, guint start, guint end, gint64 *dims)
{
  static const char * const matmul_ops[] = { "MatMul", "MatMulInteger", "Gemm", NULL };
  static const char * const conv_ops[] = { "Conv", "ConvInteger", "ConvTranspose", NULL };
  const FwNode *last = nodes[end - 1];
  const FwValue *y = last->n_outputs > 0 ? last->outputs[0] : NULL;
  guint k;

  for (guint d = 0; d < FW_RULE_N_DIMS; d++)
    dims[d] = -1;
  for (k = start; k < end && !node_is (nodes[k], matmul_ops); k++)
    ;
  if (k < end)
    matmul_dims (nodes[k], dims + FW_RULE_DIM_M);
  for (k = start; k < end && !node_is (nodes[k], conv_ops); k++)
    ;
  if (k < end)
    conv_dims (nodes[k], dims + FW_RULE_DIM_C);
  dims[FW_RULE_DIM_ELEMENTS] = y && y->rank >= 0 ? dims_product (y, 0, y->rank) : -1;
  dims[FW_RULE_DIM_HIDDEN] = hidden_dim (nodes, start, end);
}

/* The value an operand name stands for in the match: the first node's first input and output; the first
 * compute node's weight (its second input); the bias: Gemm's C or Conv's B, else the other operand of the
 * first Add that reads a compute node's result. */
static const FwValue *
operand_of (FwNode * const *nodes, guint start, guint end, FwRuleOperand which)
{
  static const char * const compute_ops[] = { "MatMul", "MatMulInteger", "Gemm", "Conv", "ConvInteger",
                                              "ConvTranspose", NULL };
  static const char * const add_ops[] = { "Add", NULL };
  const FwNode *first = nodes[start];

  if (which == FW_RULE_OPERAND_INPUT)
    return first->n_inputs > 0 ? first->inputs[0] : NULL;
  if (which == FW_RULE_OPERAND_OUTPUT)
    return first->n_outputs > 0 ? first->outputs[0] : NULL;
  for (guint k = start; k < end; k++)
    {
      const FwNode *node = nodes[k];
      if (!node_is (node, compute_ops))
        continue;
      if (which == FW_RULE_OPERAND_WEIGHT)
        return node->n_inputs > 1 ? node->inputs[1] : NULL;
      if (node->n_inputs > 2 && node->inputs[2] != NULL)
        return node->inputs[2];
      for (guint a = k + 1; a < end; a++)
        {
          const FwNode *add = nodes[a];
          if (!node_is (add, add_ops) || add->n_inputs != 2 || node->n_outputs == 0)
            continue;
          if (add->inputs[0] == node->outputs[0])
            return add->inputs[1];
          if (add->inputs[1] == node->outputs[0])
            return add->inputs[0];
        }
      return NULL;
    }
  return NULL;
}

static char *
dtype_list (guint32 mask)
{
  GString *s = g_string_new (NULL);

  for (guint d = 0; d < 32; d++)
    if (mask & (1u << d))
      g_string_append_printf (s, "%s%s", s->len ? ", " : "", fw_dtype_name ((FwDType) d));
  return g_string_free (s, FALSE);
}

/* Whether a value's dtype is one of mask; *unmet says why not. */
static gboolean
dtype_holds (const FwValue *value, guint32 mask, const char *what, char **unmet)
{
  FwDType dtype = value ? value->dtype : FW_DTYPE_UNDEFINED;
  g_autofree char *allowed = NULL;

  if (dtype != FW_DTYPE_UNDEFINED && (guint) dtype < 32 && (mask & (1u << dtype)))
    return TRUE;
  if (unmet == NULL)
    return FALSE;
  allowed = dtype_list (mask);
  if (value == NULL)
    *unmet = g_strdup_printf (_("the match has no %s operand (%s required)"), what, allowed);
  else if (dtype == FW_DTYPE_UNDEFINED)
    *unmet = g_strdup_printf (_("the %s dtype is not known (%s required)"), what, allowed);
  else
    *unmet = g_strdup_printf (_("the %s dtype is %s, not %s"), what, fw_dtype_name (dtype), allowed);
  return FALSE;
}

static gboolean
dim_holds (FwRuleDim d, gint64 have, gint64 min, gint64 max, gint64 eq, char **unmet)
{
  const char *name = fw_rule_dim_names[d];

  if (min < 0 && max < 0 && eq < 0)
    return TRUE;
  if (have >= 0 && (min < 0 || have >= min) && (max < 0 || have <= max) && (eq < 0 || have == eq))
    return TRUE;
  if (unmet == NULL)
    return FALSE;
  if (have < 0)
    {
      *unmet = g_strdup_printf (_("%s is not known here (no such node in the match, or a symbolic dim)"), name);
      return FALSE;
    }
  {
    g_autofree char *h = g_strdup_printf ("%" G_GINT64_FORMAT, have);
    g_autofree char *b = g_strdup_printf ("%" G_GINT64_FORMAT, min >= 0 && have < min ? min : max >= 0 && have > max ? max : eq);
    if (min >= 0 && have < min)
      *unmet = g_strdup_printf (_("%s is %s, below %s"), name, h, b);
    else if (max >= 0 && have > max)
      *unmet = g_strdup_printf (_("%s is %s, above %s"), name, h, b);
    else
      *unmet = g_strdup_printf (_("%s is %s, not %s"), name, h, b);
  }
  return FALSE;
}

gboolean
fw_rule_entry_has_when (const FwRuleEntry *entry)
{
  return entry->has_dims || entry->has_operand_dtype || entry->pub.dtype_mask != 0;
}

gboolean
fw_rule_when_check (const FwRuleEntry *entry, FwNode * const *nodes, guint start, guint end, char **unmet)
{
  gint64 dims[FW_RULE_N_DIMS];

  if (unmet)
    *unmet = NULL;
  if (entry->pub.dtype_mask != 0)
    {
      const FwNode *first = nodes[start];
      if (!dtype_holds (first->n_outputs > 0 ? first->outputs[0] : NULL, entry->pub.dtype_mask, "output", unmet))
        return FALSE;
    }
  for (guint k = 0; entry->has_operand_dtype && k < FW_RULE_N_OPERANDS; k++)
    if (entry->operand_dtype[k] != 0 &&
        !dtype_holds (operand_of (nodes, start, end, (FwRuleOperand) k), entry->operand_dtype[k],
                      fw_rule_operand_names[k], unmet))
      return FALSE;
  if (!entry->has_dims)
    return TRUE;
  match_dims (nodes, start, end, dims);
  for (guint d = 0; d < FW_RULE_N_DIMS; d++)
    if (!dim_holds ((FwRuleDim) d, dims[d], entry->min_dim[d], entry->max_dim[d], entry->eq_dim[d], unmet))
      return FALSE;
  return TRUE;
}

gboolean
fw_rule_when_holds (const FwRuleEntry *entry, FwNode * const *nodes, guint start, guint end)
{
  return fw_rule_when_check (entry, nodes, start, end, NULL);
}

/* Runs start where a window of 127 nodes begins at a multiple of 64: every run of at most 64 nodes lies
 * whole in one window, and positions stay below 128. */
gboolean
fw_rule_forbid_matches (const FwRuleCompiled *compiled, FwNode * const *nodes, guint n_nodes)
{
  const FwRuleSeq *seq = compiled->seq;
  const FwRuleEntry *entry = compiled->entry;
  gboolean has_when = fw_rule_entry_has_when (entry);

  if (n_nodes < seq->min_len)
    return FALSE;
  for (guint base = 0; base < n_nodes; base += 64)
    {
      guint len = MIN (n_nodes - base, FW_RULE_MASK_BITS - 1);
      guint n_starts = MIN (len, 64u);
      FwNode * const *window = nodes + base;

      if (!has_when)
        {
          FwRuleMask starts = { { n_starts == 64 ? G_MAXUINT64 : (G_GUINT64_CONSTANT (1) << n_starts) - 1, 0 } };
          if (!mask_empty (run_seq (seq, window, len, starts)))
            return TRUE;
          continue;
        }
      for (guint s = 0; s < n_starts; s++)
        {
          FwRuleMask starts = { { 0, 0 } };
          FwRuleMask ends;

          mask_set (&starts, s);
          ends = run_seq (seq, window, len, starts);
          for (guint e = s + 1; e <= len; e++)
            if (mask_test (ends, e) && fw_rule_when_holds (entry, window, s, e))
              return TRUE;
        }
    }
  return FALSE;
}
