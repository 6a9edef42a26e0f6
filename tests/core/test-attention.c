/* test-attention: the fused attention group (core/plan/fw-attention.c, fw-discovery-attention.c): the score
 * chain with its scale, mask and the head merge after it is one candidate under balanced, its blocks are the
 * spec's (one key block for short keys, the online softmax for long ones), it is priced by the bytes it
 * moves, each chain that stays refused has its code, and the Ascend target refuses it with FW-TG-003. The
 * host kernels are verified against the reference in test-codegen-host (attention). */
#include "config.h"

#include <string.h>

#include "codegen/ascend/fw-ascend.h"
#include "fw-error.h"
#include "fw-test-models.h"
#include "plan/fw-kernel-spec.h"
#include "plan/fw-plan.h"
#include "plan/fw-schedule.h"

#define plan_for fw_test_plan_with
#define refusal_of fw_test_refusal_of

static const FwCandidate *
attention_of (const FwPlan *plan)
{
  for (guint i = 0; i < plan->candidates->len; i++)
    {
      const FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      if (strcmp (c->kind, "attention") == 0)
        return c;
    }
  return NULL;
}

/* Sixteen keys: one candidate of seven nodes (the head merge included), one key block, the output written
 * through the transpose, one launch instead of seven. */
static void
test_short (void)
{
  g_autoptr(FwModel) model = fw_test_attention_model (FW_TEST_ATTENTION_SHORT);
  g_autoptr(FwPlan) plan = plan_for (model, FW_STRATEGY_BALANCED);
  const FwCandidate *c = attention_of (plan);
  const FwAttentionSpec *a;

  g_assert_nonnull (c);
  g_assert_cmpuint (c->nodes->len, ==, 7);
  g_assert_true (fw_candidate_is_fused (c));
  a = fw_kernel_spec_get_attention (c->spec);
  g_assert_nonnull (a);
  g_assert_cmpstr (fw_node_get_name (a->scores), ==, "/scores");
  g_assert_cmpstr (fw_node_get_name (a->product), ==, "/product");
  g_assert_cmpstr (a->out->name, ==, "y");
  g_assert_cmpint (a->lead_rank, ==, 2);
  g_assert_cmpint (a->sq, ==, 16);
  g_assert_cmpint (a->sk, ==, 16);
  g_assert_cmpint (a->d, ==, 8);
  g_assert_cmpint (a->key_block, ==, 16);
  g_assert_false (a->online);
  /* y[b, s, h·8 + e] = o[b, h, s, e]: strides over (b, h, s, e) of the [2, 16, 32] result. */
  g_assert_cmpint (a->out_strides[0], ==, 512);
  g_assert_cmpint (a->out_strides[1], ==, 8);
  g_assert_cmpint (a->out_strides[2], ==, 32);
  g_assert_cmpint (a->out_strides[3], ==, 1);
  g_assert_cmpuint (fw_candidate_get_cost (c)->launches_before, ==, 7);
  g_assert_cmpuint (fw_candidate_get_cost (c)->launches_after, ==, 1);
  g_assert_cmpfloat (fw_candidate_get_cost (c)->saving_s, >, 0);
  /* Q, K, V, the mask and the result, each once: 2·4·16·8 floats for each of the four, 16·16 of the mask
   * per batch. */
  g_assert_cmpfloat (fw_candidate_get_cost (c)->bytes_read_after, ==, 4.0 * (3 * 1024 + 8 * 256));
  g_assert_cmpfloat (fw_candidate_get_cost (c)->bytes_written_after, ==, 4.0 * 1024);
  g_assert_cmpfloat (fw_candidate_get_resource (c)->ub_bytes, <=, fw_candidate_get_resource (c)->ub_budget_bytes);
}

/* 2,048 keys do not fit one row block's scores: key blocks with the online softmax, K and V read once per
 * query block, all within the budget. */
static void
test_online (void)
{
  g_autoptr(FwModel) model = fw_test_attention_model (FW_TEST_ATTENTION_LONG);
  g_autoptr(FwPlan) plan = plan_for (model, FW_STRATEGY_BALANCED);
  const FwCandidate *c = attention_of (plan);
  const FwAttentionSpec *a;
  gdouble n_qb;

  g_assert_nonnull (c);
  a = fw_kernel_spec_get_attention (c->spec);
  g_assert_nonnull (a);
  g_assert_true (a->online);
  g_assert_cmpint (a->key_block, <, a->sk);
  g_assert_cmpint (a->key_block % 16, ==, 0);
  g_assert_cmpfloat (fw_candidate_get_resource (c)->ub_bytes, <=, fw_candidate_get_resource (c)->ub_budget_bytes);
  n_qb = (gdouble) ((a->sq + a->q_block - 1) / a->q_block);
  g_assert_cmpfloat (fw_candidate_get_cost (c)->bytes_read_after, >=, 4.0 * 8 * n_qb * a->sk * 16);
}

/* Under conservative the chain stays apart, FW-NF-014 on the Softmax. */
static void
test_conservative (void)
{
  g_autoptr(FwModel) model = fw_test_attention_model (FW_TEST_ATTENTION_SHORT);
  g_autoptr(FwPlan) plan = plan_for (model, FW_STRATEGY_CONSERVATIVE);

  g_assert_null (attention_of (plan));
  g_assert_nonnull (refusal_of (plan, FW_NF_STRATEGY, "/softmax"));
}

/* Scores read outside the chain would have to leave the kernel: FW-NF-002 on the node that makes them. */
static void
test_outside_use (void)
{
  g_autoptr(FwModel) model = fw_test_attention_model (FW_TEST_ATTENTION_OUTSIDE_USE);
  g_autoptr(FwPlan) plan = plan_for (model, FW_STRATEGY_BALANCED);

  g_assert_null (attention_of (plan));
  g_assert_nonnull (refusal_of (plan, FW_NF_OUTSIDE_USE, "/scale"));
}

/* A Softmax over the queries is no attention the kernel computes: FW-NF-024. */
static void
test_softmax_axis (void)
{
  g_autoptr(FwModel) model = fw_test_attention_model (FW_TEST_ATTENTION_SOFTMAX_AXIS);
  g_autoptr(FwPlan) plan = plan_for (model, FW_STRATEGY_BALANCED);
  const FwRefusal *r;

  g_assert_null (attention_of (plan));
  r = refusal_of (plan, FW_NF_ATTENTION, "/softmax");
  g_assert_nonnull (r);
  g_assert_cmpstr (fw_reason_code_string (r->code), ==, "FW-NF-024");
}

/* A mask that widens the scores (rank 5 against rank 4): FW-NF-024 on the Add. */
static void
test_mask_rank (void)
{
  g_autoptr(FwModel) model = fw_test_attention_model (FW_TEST_ATTENTION_MASK_RANK);
  g_autoptr(FwPlan) plan = plan_for (model, FW_STRATEGY_BALANCED);

  g_assert_null (attention_of (plan));
  g_assert_nonnull (refusal_of (plan, FW_NF_ATTENTION, "/mask"));
}

static gboolean
holds (const FwCandidate *c, const char *name)
{
  for (guint i = 0; i < c->nodes->len; i++)
    if (strcmp (fw_node_get_name (g_ptr_array_index (c->nodes, i)), name) == 0)
      return TRUE;
  return FALSE;
}

/* Llama's block: the rotary embeddings of Q and K, the heads split off and K and V repeated for the query
 * heads are the operands' prologue, computed as the kernel loads them; the projections stay their own. The
 * block is four kernels: three projections and the attention. */
static void
test_rotary (void)
{
  g_autoptr(FwModel) model = fw_test_attention_model (FW_TEST_ATTENTION_ROTARY);
  g_autoptr(FwPlan) plan = plan_for (model, FW_STRATEGY_BALANCED);
  const FwCandidate *c = attention_of (plan);
  static const char *const inside[] = {
    "/q_view", "/q_split", "/q_lo", "/q_hi", "/q_neg", "/q_cat", "/q_cos", "/q_sin", "/q_rot", "/k_rot",
    "/kr_unsqueeze", "/kr_expand", "/kr_repeat", "/k_t", "/v_split", "/v_repeat", "/merge", "/heads",
  };

  g_assert_nonnull (c);
  for (guint i = 0; i < G_N_ELEMENTS (inside); i++)
    if (!holds (c, inside[i]))
      g_error ("the attention does not hold %s", inside[i]);
  g_assert_false (holds (c, "/q_proj"));
  g_assert_cmpuint (c->nodes->len, ==, 34);
  g_assert_nonnull (fw_kernel_spec_get_attention (c->spec));
  g_assert_cmpuint (plan->after.launches, ==, 4);
}

/* Q's rotary halves cut where Shape (q) says, as exporters write it: with the head split inside, the group
 * would feed its own slice bounds through the folded Shape, a cycle once it is one node. The split stays
 * its own kernel; the rest of the prologue joins, and the fused graph has an order. */
static void
test_rotary_shaped (void)
{
  g_autoptr(FwModel) model = fw_test_attention_model (FW_TEST_ATTENTION_ROTARY_SHAPED);
  g_autoptr(FwPlan) plan = plan_for (model, FW_STRATEGY_BALANCED);
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) steps = NULL;
  const FwCandidate *c = attention_of (plan);

  g_assert_nonnull (c);
  g_assert_false (holds (c, "/q_split"));
  g_assert_true (holds (c, "/q_rot"));
  g_assert_true (holds (c, "/q_lo"));
  g_assert_true (holds (c, "/k_split"));
  steps = fw_schedule_build (plan, NULL, 0, &error);
  g_assert_no_error (error);
  g_assert_nonnull (steps);
}

/* The Ascend target has no lowering for it yet: FW-TG-003, in arranging and in generating. */
static void
test_ascend_refuses (void)
{
  g_autoptr(FwModel) model = fw_test_attention_model (FW_TEST_ATTENTION_SHORT);
  g_autoptr(FwPlan) plan = plan_for (model, FW_STRATEGY_BALANCED);
  g_autoptr(GError) error = NULL;
  const FwCandidate *c = attention_of (plan);
  FwUbArrangement arrangement;
  FwAscendKernel *k;

  g_assert_nonnull (c);
  fw_ub_arrangement_init (&arrangement);
  g_assert_false (fw_ascend_arrange (plan, c, &arrangement, &error));
  fw_ub_arrangement_clear (&arrangement);
  g_assert_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "[FW-TG-003]"));
  g_clear_error (&error);
  k = fw_ascend_kernel_generate (plan, c, &error);
  g_assert_null (k);
  g_assert_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "[FW-TG-003]"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/plan/attention/short", test_short);
  g_test_add_func ("/core/plan/attention/online", test_online);
  g_test_add_func ("/core/plan/attention/conservative", test_conservative);
  g_test_add_func ("/core/plan/attention/outside-use", test_outside_use);
  g_test_add_func ("/core/plan/attention/softmax-axis", test_softmax_axis);
  g_test_add_func ("/core/plan/attention/mask-rank", test_mask_rank);
  g_test_add_func ("/core/plan/attention/rotary", test_rotary);
  g_test_add_func ("/core/plan/attention/rotary-shaped", test_rotary_shaped);
  g_test_add_func ("/core/plan/attention/ascend-refuses", test_ascend_refuses);
  return g_test_run ();
}
