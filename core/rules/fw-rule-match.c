/* fw-rule-match.c: running a compiled pattern over a candidate's nodes.
 *
 * A pattern is a tree of sequences, repeated elements and alternatives (fw-rules-private.h). Rather than
 * enumerating its expansions (a repeated class alone has dozens), the matcher carries the set of positions
 * that a prefix of the pattern can reach as a bit mask, so every alternative and repetition is explored at
 * once and a match costs O(pattern size × nodes) bit operations. */
#include "config.h"

#include <string.h>

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
      if (node->op != NULL)
        return node->op == atom->info;
      return strcmp (node->op_type, atom->op_type) == 0 && domain_equal (node->domain, atom->domain);
    case FW_RULE_ATOM_LITERAL:
      return node->op == NULL && strcmp (node->op_type, atom->op_type) == 0
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

static gboolean
at_least (gint64 have, gint64 need)
{
  return need < 0 || (have >= 0 && have >= need);
}

gboolean
fw_rule_when_holds (const FwRuleEntry *entry, FwNode * const *nodes, guint start, guint end)
{
  static const char * const matmul_ops[] = { "MatMul", "MatMulInteger", "Gemm", NULL };
  static const char * const conv_ops[] = { "Conv", "ConvInteger", "ConvTranspose", NULL };
  const gint64 *need = entry->min_dim;

  if (entry->pub.dtype_mask != 0)
    {
      const FwNode *first = nodes[start];
      const FwValue *y = first->n_outputs > 0 ? first->outputs[0] : NULL;
      FwDType dtype = y ? y->dtype : FW_DTYPE_UNDEFINED;

      if (dtype == FW_DTYPE_UNDEFINED || (guint) dtype >= 32 || !(entry->pub.dtype_mask & (1u << dtype)))
        return FALSE;
    }
  if (!entry->has_min_dim)
    return TRUE;
  if (need[FW_RULE_DIM_M] >= 0 || need[FW_RULE_DIM_N] >= 0 || need[FW_RULE_DIM_K] >= 0)
    {
      gint64 mnk[3] = { -1, -1, -1 };
      guint k;

      for (k = start; k < end && !node_is (nodes[k], matmul_ops); k++)
        ;
      if (k == end)
        return FALSE;
      matmul_dims (nodes[k], mnk);
      if (!at_least (mnk[0], need[FW_RULE_DIM_M]) || !at_least (mnk[1], need[FW_RULE_DIM_N])
          || !at_least (mnk[2], need[FW_RULE_DIM_K]))
        return FALSE;
    }
  if (need[FW_RULE_DIM_C] >= 0 || need[FW_RULE_DIM_H] >= 0 || need[FW_RULE_DIM_W] >= 0)
    {
      gint64 chw[3] = { -1, -1, -1 };
      guint k;

      for (k = start; k < end && !node_is (nodes[k], conv_ops); k++)
        ;
      if (k == end)
        return FALSE;
      conv_dims (nodes[k], chw);
      if (!at_least (chw[0], need[FW_RULE_DIM_C]) || !at_least (chw[1], need[FW_RULE_DIM_H])
          || !at_least (chw[2], need[FW_RULE_DIM_W]))
        return FALSE;
    }
  if (need[FW_RULE_DIM_ELEMENTS] >= 0)
    {
      const FwNode *last = nodes[end - 1];
      const FwValue *y = last->n_outputs > 0 ? last->outputs[0] : NULL;
      gint64 n = y && y->rank >= 0 ? dims_product (y, 0, y->rank) : -1;

      if (!at_least (n, need[FW_RULE_DIM_ELEMENTS]))
        return FALSE;
    }
  return TRUE;
}

/* Runs start where a window of 127 nodes begins at a multiple of 64: every run of at most 64 nodes lies
 * whole in one window, and positions stay below 128. */
gboolean
fw_rule_forbid_matches (const FwRuleCompiled *compiled, FwNode * const *nodes, guint n_nodes)
{
  const FwRuleSeq *seq = compiled->seq;
  const FwRuleEntry *entry = compiled->entry;
  gboolean has_when = entry->has_min_dim || entry->pub.dtype_mask != 0;

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
