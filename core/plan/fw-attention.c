/* fw-attention.c: the fused attention group (docs/kernel-spec.md, "Attention").
 *
 * The score chain MatMul → scale → mask → Softmax → MatMul is one kernel: per block of query rows it makes
 * the scores, applies the chain, normalises and multiplies by V without the scores leaving the chip. This
 * file says which chains are one (fw_attention_match, for discovery, with the reasons for those that stay
 * refused), describes a group's attention for the spec with its blocks chosen for the profile, and prices
 * it. The scores of one row block over all keys are kept whole when they fit; otherwise the keys are walked
 * in blocks with an online softmax, and the kernel then re-reads K and V once per query block, which the
 * price counts. */
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-kernel-spec-private.h"
#include "fw-plan-private.h"

/* Most query rows one block holds: enough for the cube's 16-row fractals, few enough that a block's
 * scores over a few hundred keys fit the Unified Buffer. */
#define ATTENTION_Q_BLOCK 64
/* The fewest keys one block of the online softmax holds. */
#define ATTENTION_MIN_KEY_BLOCK 64
/* Most score-chain operators between the scores and the Softmax (a scale, a mask, a bias or two). */
#define ATTENTION_MAX_CHAIN 4

static gboolean
is_chain_op (const FwNode *node)
{
  return fw_node_is_onnx_op (node, "Mul") || fw_node_is_onnx_op (node, "Div") || fw_node_is_onnx_op (node, "Add") ||
         fw_node_is_onnx_op (node, "Sub");
}

static FwValue *
out0 (const FwNode *node)
{
  return node->n_outputs > 0 ? node->outputs[0] : NULL;
}

/* The first reader of v that reads it at `slot` (or anywhere for -1) and satisfies pred, or NULL. */
static FwNode *
reader (const FwValue *v, gint slot, gboolean (*pred) (const FwNode *))
{
  for (guint u = 0; v != NULL && u < v->n_uses; u++)
    if ((slot < 0 || (gint) v->uses[u].slot == slot) && pred (v->uses[u].node))
      return v->uses[u].node;
  return NULL;
}

static gboolean
is_next (const FwNode *node)
{
  return is_chain_op (node) || fw_node_is_onnx_op (node, "Softmax");
}

static gboolean
is_matmul (const FwNode *node)
{
  return fw_node_is_onnx_op (node, "MatMul");
}

static gboolean
refuse (FwReasonCode *code, char **why, FwNode **culprit, FwReasonCode c, FwNode *node, char *message)
{
  *code = c;
  *why = message;
  *culprit = node;
  return FALSE;
}

/* The types the attention kernel computes on: float32, and the half ones it widens as it loads them. */
static gboolean
computes_in (FwDType dtype)
{
  return dtype == FW_DTYPE_FLOAT || dtype == FW_DTYPE_FLOAT16 || dtype == FW_DTYPE_BFLOAT16;
}

/* The other operand of a chain operator: a scalar, or a float tensor broadcasting into the scores. */
static gboolean
chain_operand_fits (const FwNode *node, const FwValue *chain, const FwValue *scores)
{
  const FwValue *other;

  if (node->n_inputs != 2 || node->inputs[0] == NULL || node->inputs[1] == NULL)
    return FALSE;
  other = node->inputs[0] == chain ? node->inputs[1] : node->inputs[0];
  if (other == chain || !fw_value_is_static (other) || !computes_in (other->dtype) || other->rank > scores->rank)
    return FALSE;
  if (!fw_value_is_static (out0 (node)) || out0 (node)->rank != scores->rank)
    return FALSE;
  for (gint a = 0; a < scores->rank; a++)
    if (out0 (node)->dims[a].value != scores->dims[a].value)
      return FALSE;
  for (gint j = 0; j < other->rank; j++)
    {
      gint64 d = other->dims[j].value, s = scores->dims[scores->rank - other->rank + j].value;
      if (d != 1 && d != s)
        return FALSE;
    }
  return TRUE;
}

/* Q [.., Sq, D], K [.., D, Sk], V [.., Sk, Dv] and the product [.., Sq, Dv] with the scores' lead axes. */
static gboolean
shapes_fit (const FwNode *scores, const FwNode *product, char **why)
{
  const FwValue *q = scores->inputs[0], *k = scores->inputs[1], *s = out0 (scores);
  const FwValue *v = product->inputs[1], *o = out0 (product);

  if (q->rank < 2 || k->rank < 2 || v->rank < 2 || s->rank < 2 || s->rank > FW_ATTENTION_RANK ||
      o->rank != s->rank)
    {
      *why = g_strdup_printf (_("the products' ranks (Q %d, K %d, V %d) are not those of batched matrices up to rank %d"),
                              q->rank, k->rank, v->rank, FW_ATTENTION_RANK);
      return FALSE;
    }
  for (gint a = 0; a < s->rank - 2; a++)
    if (o->dims[a].value != s->dims[a].value)
      {
        *why = g_strdup (_("V broadcasts the product over more batches than the scores have"));
        return FALSE;
      }
  if (v->dims[v->rank - 2].value != s->dims[s->rank - 1].value)
    {
      *why = g_strdup (_("V's rows are not the scores' keys"));
      return FALSE;
    }
  return TRUE;
}

/* The legality of a chain found scores → … → Softmax → product. */
static gboolean
legal (FwNode *scores, FwNode *softmax, FwNode *product, GPtrArray *chain, FwReasonCode *code, char **why,
       FwNode **culprit)
{
  FwValue *s = out0 (scores);
  FwRowOp op;
  char *shape_why = NULL;

  for (guint i = 0; i < chain->len; i++)
    {
      FwNode *n = g_ptr_array_index (chain, i);
      for (guint k = 0; k < n->n_inputs; k++)
        if (n->inputs[k] != NULL && !fw_value_is_static (n->inputs[k]))
          return refuse (code, why, culprit, FW_NF_DYNAMIC, n,
                         g_strdup_printf (_("%s “%s” of an attention has a dynamic shape; bind its symbols with --bind"),
                                          n->op_type, n->name));
      if (!fw_value_is_static (out0 (n)))
        return refuse (code, why, culprit, FW_NF_DYNAMIC, n,
                       g_strdup_printf (_("%s “%s” of an attention has a dynamic shape; bind its symbols with --bind"),
                                        n->op_type, n->name));
      for (guint k = 0; k < n->n_inputs; k++)
        if (n->inputs[k] != NULL && fw_node_is_data_input (n, k) && !computes_in (n->inputs[k]->dtype))
          return refuse (code, why, culprit, FW_NF_ATTENTION, n,
                         g_strdup_printf (_("%s “%s” computes in %s; the fused attention kernel computes in float32, "
                                            "float16 or bfloat16 only"),
                                          n->op_type, n->name, fw_dtype_name (n->inputs[k]->dtype)));
      /* Every value but the product's result is made and read inside. */
      if (n != product)
        {
          FwValue *v = out0 (n);
          if (v->is_output || v->n_uses != 1)
            return refuse (code, why, culprit, FW_NF_OUTSIDE_USE, n,
                           g_strdup_printf (_("“%s” of an attention is also used outside it; its scores never leave the "
                                              "fused kernel"), v->name));
        }
      if (is_chain_op (n))
        {
          FwValue *prev = out0 ((FwNode *) g_ptr_array_index (chain, i - 1));
          if (!chain_operand_fits (n, prev, s))
            return refuse (code, why, culprit, FW_NF_ATTENTION, n,
                           g_strdup_printf (_("%s “%s” on the scores takes an operand that is neither a scalar nor a tensor "
                                              "broadcasting into the scores"), n->op_type, n->name));
        }
    }
  if (!fw_node_row_op_full (softmax, &op, NULL) || op.axes != 1 || op.from_end != 0)
    return refuse (code, why, culprit, FW_NF_ATTENTION, softmax,
                   g_strdup_printf (_("Softmax “%s” does not normalise over the keys (the scores' last axis)"),
                                    softmax->name));
  if (!shapes_fit (scores, product, &shape_why))
    return refuse (code, why, culprit, FW_NF_ATTENTION, product, shape_why);
  return TRUE;
}

gboolean
fw_attention_match (FwNode *scores, GPtrArray *nodes, FwReasonCode *code, char **why, FwNode **culprit)
{
  g_autoptr(GPtrArray) chain = g_ptr_array_new ();
  FwNode *cur = scores, *softmax = NULL, *product;

  *code = 0;
  *why = NULL;
  *culprit = NULL;
  if (!is_matmul (scores) || scores->n_inputs != 2 || scores->inputs[0] == NULL || scores->inputs[1] == NULL ||
      out0 (scores) == NULL)
    return FALSE;
  g_ptr_array_add (chain, scores);
  for (guint step = 0; step <= ATTENTION_MAX_CHAIN && softmax == NULL; step++)
    {
      FwNode *next = reader (out0 (cur), -1, is_next);
      if (next == NULL || out0 (next) == NULL)
        return FALSE;
      g_ptr_array_add (chain, next);
      if (fw_node_is_onnx_op (next, "Softmax"))
        softmax = next;
      cur = next;
    }
  if (softmax == NULL)
    return FALSE;
  product = reader (out0 (softmax), 0, is_matmul);
  if (product == NULL || product->n_inputs != 2 || product->inputs[1] == NULL || out0 (product) == NULL)
    return FALSE;
  g_ptr_array_add (chain, product);
  if (!legal (scores, softmax, product, chain, code, why, culprit))
    return FALSE;
  for (guint i = 0; i < chain->len; i++)
    g_ptr_array_add (nodes, g_ptr_array_index (chain, i));
  return TRUE;
}

/* ---- the operands' prologues ---- */

gboolean
fw_attention_prologue_op (const FwNode *node)
{
  static const char *const ops[] = {
    "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Transpose", "Expand", "Slice", "Concat", "Neg", "Mul", "Add",
    "Sub", "Div",
  };
  FwValue *v = out0 (node);
  gboolean known = FALSE;

  if (node->domain[0] != '\0' || v == NULL || node->n_outputs != 1 || !fw_value_is_static (v) ||
      v->dtype != FW_DTYPE_FLOAT || v->rank > FW_MAX_RANK)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (ops) && !known; i++)
    known = strcmp (node->op_type, ops[i]) == 0;
  if (!known)
    return FALSE;
  for (guint k = 0; k < node->n_inputs; k++)
    if (node->inputs[k] != NULL && fw_node_is_data_input (node, k) &&
        (!fw_value_is_static (node->inputs[k]) || node->inputs[k]->dtype != FW_DTYPE_FLOAT))
      return FALSE;
  if (fw_node_is_onnx_op (node, "Slice"))
    {
      gint64 start[FW_MAX_RANK], step[FW_MAX_RANK];
      if (!fw_node_slice_params (node, start, step))
        return FALSE;
      for (gint a = 0; a < node->inputs[0]->rank; a++)
        if (step[a] <= 0)
          return FALSE;
    }
  return TRUE;
}

gboolean
fw_attention_used_inside (const FwNode *node, gboolean (*inside) (const FwNode *, gpointer), gpointer data)
{
  for (guint k = 0; k < node->n_outputs; k++)
    {
      const FwValue *v = node->outputs[k];
      if (v == NULL)
        continue;
      if (v->is_output)
        return FALSE;
      /* A reader that does not run (a Shape folded at load) reads no element. */
      for (guint u = 0; u < v->n_uses; u++)
        if (!inside (v->uses[u].node, data) && fw_node_runs (v->uses[u].node))
          return FALSE;
    }
  return TRUE;
}

/* ---- the spec's attention ---- */

static gboolean
in_nodes (const FwNode *node, gpointer nodes)
{
  return g_ptr_array_find (nodes, node, NULL);
}

static gboolean
has_attention_shape (GPtrArray *nodes)
{
  guint matmuls = 0, softmaxes = 0;

  for (guint i = 0; i < nodes->len; i++)
    {
      const FwNode *n = g_ptr_array_index (nodes, i);
      matmuls += is_matmul (n) ? 1 : 0;
      softmaxes += fw_node_is_onnx_op (n, "Softmax") ? 1 : 0;
    }
  return matmuls == 2 && softmaxes == 1;
}

/* The strides `out` lies at over the product's axes: through the views after it (their index map), or its
 * own contiguous ones. */
static gboolean
tail_strides (GPtrArray *tail, FwNode *product, FwAttentionSpec *att)
{
  FwValue *o = out0 (product);
  FwSpace space = { 0 };
  gint64 stride = 1;

  space.rank = o->rank;
  for (gint a = o->rank - 1; a >= 0; a--)
    {
      space.dims[a] = o->dims[a].value;
      att->out_strides[a] = stride;
      stride *= o->dims[a].value;
    }
  if (tail->len > 1)
    {
      FwReasonCode code = 0;
      g_autofree char *why = NULL;
      FwNode *culprit = NULL;
      g_autoptr(GHashTable) maps = fw_index_maps_compute (tail, product, &space, &code, &why, &culprit);
      const FwIndexMap *map = maps != NULL ? g_hash_table_lookup (maps, att->out) : NULL;

      if (map == NULL || !map->bijective || map->offset != 0)
        return FALSE;
      for (gint a = 0; a < o->rank; a++)
        att->out_strides[a] = map->strides[a];
    }
  return TRUE;
}

static gdouble
block_bytes (const FwAttentionSpec *a, guint n_masks, gint64 qb, gint64 kb)
{
  /* Q's block and K's and V's (double-buffered, the next block loading while this one computes), the mask
   * blocks likewise, the scores, the running output and one maximum and sum per row. */
  gdouble elements = 2.0 * qb * a->d + 2.0 * kb * a->d + 2.0 * kb * a->dv + 2.0 * n_masks * qb * kb + (gdouble) qb * kb +
                     (gdouble) qb * a->dv + 2.0 * qb;
  return elements * 4;
}

/* The masks and scales the score chain reads from HBM (not immediates), in chain order: each link reads
 * the value the one before it made. */
static GPtrArray *
chain_operands (const FwAttentionSpec *a)
{
  GPtrArray *out = g_ptr_array_new ();
  FwValue *prev = out0 (a->scores);

  while (prev != NULL && prev->n_uses == 1 && prev->uses[0].node != a->softmax)
    {
      FwNode *link = prev->uses[0].node;
      FwValue *other = link->n_inputs == 2 ? link->inputs[link->inputs[0] == prev ? 1 : 0] : NULL;
      if (other != NULL && !fw_value_is_immediate (other))
        g_ptr_array_add (out, other);
      prev = out0 (link);
    }
  return out;
}

static guint
n_mask_operands (const FwAttentionSpec *a)
{
  g_autoptr(GPtrArray) masks = chain_operands (a);
  return masks->len;
}

/* The largest blocks that fit the budget: all keys at once when a row block's scores fit, else key blocks
 * of a multiple of 16 (then the softmax is online), and fewer query rows only when the smallest key block
 * does not fit. */
static void
choose_blocks (FwAttentionSpec *a, guint n_masks, gdouble budget)
{
  a->q_block = MIN (a->sq, ATTENTION_Q_BLOCK);
  a->key_block = a->sk;
  while (block_bytes (a, n_masks, a->q_block, a->key_block) > budget && a->key_block > ATTENTION_MIN_KEY_BLOCK)
    a->key_block = MAX (ATTENTION_MIN_KEY_BLOCK, (a->key_block / 2 + 15) / 16 * 16);
  while (block_bytes (a, n_masks, a->q_block, a->key_block) > budget && a->q_block > 1)
    a->q_block = MAX (1, a->q_block / 2);
  a->key_block = MIN (a->key_block, a->sk);
  a->online = a->key_block < a->sk;
}

FwAttentionSpec *
fw_attention_describe (GPtrArray *nodes, FwNode *root, const FwProfile *profile)
{
  g_autoptr(GPtrArray) chain = NULL;
  g_autoptr(GPtrArray) tail = NULL;
  g_autofree FwAttentionSpec *a = NULL;
  FwReasonCode code;
  g_autofree char *why = NULL;
  FwNode *culprit, *cur;
  FwValue *s;

  if (root == NULL || profile == NULL || !is_matmul (root) || !has_attention_shape (nodes))
    return NULL;
  chain = g_ptr_array_new ();
  if (!fw_attention_match (root, chain, &code, &why, &culprit))
    return NULL;
  for (guint i = 0; i < chain->len; i++)
    if (!g_ptr_array_find (nodes, g_ptr_array_index (chain, i), NULL))
      return NULL;
  a = g_new0 (FwAttentionSpec, 1);
  a->scores = root;
  a->product = g_ptr_array_index (chain, chain->len - 1);
  a->softmax = g_ptr_array_index (chain, chain->len - 2);
  /* Views after the product, one reading the other; the rest of the group is the operands' prologue. */
  tail = g_ptr_array_new ();
  g_ptr_array_add (tail, a->product);
  for (cur = a->product;;)
    {
      FwValue *v = out0 (cur);
      FwNode *next = v != NULL && !v->is_output && v->n_uses == 1 ? v->uses[0].node : NULL;
      if (next == NULL || !g_ptr_array_find (nodes, next, NULL) || out0 (next) == NULL)
        break;
      g_ptr_array_add (tail, next);
      cur = next;
    }
  for (guint i = 0; i < nodes->len; i++)
    {
      FwNode *n = g_ptr_array_index (nodes, i);
      if (g_ptr_array_find (chain, n, NULL) || g_ptr_array_find (tail, n, NULL))
        continue;
      if (!fw_attention_prologue_op (n) || !fw_attention_used_inside (n, in_nodes, nodes))
        return NULL;
    }
  a->out = out0 (cur);
  s = out0 (root);
  a->q = root->inputs[0];
  a->k = root->inputs[1];
  a->v = a->product->inputs[1];
  a->lead_rank = s->rank - 2;
  for (gint i = 0; i < a->lead_rank; i++)
    a->lead[i] = s->dims[i].value;
  a->sq = s->dims[s->rank - 2].value;
  a->sk = s->dims[s->rank - 1].value;
  a->d = a->q->dims[a->q->rank - 1].value;
  a->dv = a->v->dims[a->v->rank - 1].value;
  if (!fw_value_is_static (a->out) || !tail_strides (tail, a->product, a))
    return NULL;
  choose_blocks (a, n_mask_operands (a), fw_profile_budget_bytes (profile));
  return g_steal_pointer (&a);
}

static gint64
batches (const FwAttentionSpec *a)
{
  gint64 n = 1;

  for (gint i = 0; i < a->lead_rank; i++)
    n *= a->lead[i];
  return n;
}

gboolean
fw_attention_estimate_resource (const FwKernelSpec *spec, const FwProfile *profile, FwResourceEstimate *out)
{
  const FwAttentionSpec *a = spec->attention;
  guint n_masks = n_mask_operands (a);
  gint64 min_kb = MIN (a->sk, ATTENTION_MIN_KEY_BLOCK);

  memset (out, 0, sizeof *out);
  out->kernel_inputs = fw_kernel_spec_get_n_inputs (spec);
  out->kernel_outputs = 1;
  out->queues = out->kernel_inputs + 1;
  out->ub_budget_bytes = fw_profile_budget_bytes (profile);
  out->tile_elements = a->q_block * a->key_block;
  out->unit_elements = a->key_block;
  out->tile_rows = a->q_block;
  out->row_elements = a->key_block;
  out->ub_bytes = block_bytes (a, n_masks, a->q_block, a->key_block);
  out->ub_min_bytes = block_bytes (a, n_masks, 1, min_kb);
  out->ub_percent = 100.0 * out->ub_bytes / MAX (out->ub_budget_bytes, 1.0);
  /* Q, K, V and the masks double-buffered, the scores, the output and the row statistics. */
  out->n_buffers = 2 * (3 + n_masks) + 4;
  return out->ub_bytes <= out->ub_budget_bytes;
}

void
fw_attention_bytes (const FwKernelSpec *spec, gdouble *read, gdouble *written)
{
  const FwAttentionSpec *a = spec->attention;
  gdouble nb = (gdouble) batches (a), n_qb = ceil ((gdouble) a->sq / (gdouble) a->q_block);
  g_autoptr(GPtrArray) masks = chain_operands (a);

  *read = 4.0 * nb * (a->sq * a->d + n_qb * a->sk * (a->d + a->dv));
  for (guint i = 0; i < masks->len; i++)
    {
      const FwValue *m = g_ptr_array_index (masks, i);
      gdouble trailing = 1;
      /* Each batch reads its part of the mask: the rows and keys it has. */
      for (gint j = MAX (0, m->rank - 2); j < m->rank; j++)
        trailing *= (gdouble) m->dims[j].value;
      *read += 4.0 * nb * trailing;
    }
  *written = 4.0 * nb * a->sq * a->dv;
}
