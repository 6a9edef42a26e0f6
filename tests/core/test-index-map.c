/* test-index-map: injective operators inside groups as index maps (core/plan/fw-index-map.c): each kind
 * the maps follow joins a group with the map it should have, and each kind they do not is refused with
 * its code. The host kernels of the accepted groups are verified in test-codegen-host (index-maps). */
#include "config.h"

#include <string.h>

#include "fw-test-models.h"
#include "plan/fw-kernel-spec.h"
#include "graph/fw-graph-private.h"
#include "plan/fw-plan.h"

/* The candidate holding the node named `name`, or NULL. */
static const FwCandidate *
holding (const FwPlan *plan, const char *name)
{
  for (guint i = 0; i < plan->candidates->len; i++)
    {
      const FwCandidate *c = g_ptr_array_index (plan->candidates, i);
      for (guint n = 0; n < c->nodes->len; n++)
        if (strcmp (fw_node_get_name (g_ptr_array_index (c->nodes, n)), name) == 0)
          return c;
    }
  return NULL;
}

static const FwSpecValue *
value_named (const FwCandidate *c, const char *name)
{
  for (guint i = 0; i < fw_kernel_spec_get_n_values (c->spec); i++)
    {
      const FwSpecValue *v = fw_kernel_spec_get_value (c->spec, i);
      if (strcmp (v->value->name, name) == 0)
        return v;
    }
  return NULL;
}

static const FwRefusal *
refusal_of (const FwPlan *plan, FwReasonCode code, const char *refused)
{
  for (guint i = 0; i < plan->refusals->len; i++)
    {
      const FwRefusal *r = g_ptr_array_index (plan->refusals, i);
      if (r->code == code && r->refused != NULL && strcmp (fw_node_get_name (r->refused), refused) == 0)
        return r;
    }
  return NULL;
}

/* The epilogue takes the Transpose and the Relu after it: the output leaves through a permuted map that
 * writes each element once; the conservative strategy keeps it out. */
static void
test_transpose_epilogue (void)
{
  g_autoptr(FwModel) model = fw_test_index_model (FW_TEST_INDEX_TRANSPOSE_EPILOGUE);
  g_autoptr(FwPlan) plan = fw_test_plan_with (model, FW_STRATEGY_BALANCED);
  g_autoptr(FwPlan) conservative = fw_test_plan_with (model, FW_STRATEGY_CONSERVATIVE);
  const FwCandidate *c = holding (plan, "/t");
  const FwSpecValue *y;

  g_assert_nonnull (c);
  g_assert_cmpuint (c->nodes->len, ==, 4);
  g_assert_nonnull (c->root);
  y = value_named (c, "y");
  g_assert_nonnull (y);
  g_assert_cmpint (y->kind, ==, FW_SPEC_OUTPUT);
  g_assert_true (y->map.indexed);
  g_assert_true (y->map.bijective);
  g_assert_false (y->map.linear);
  /* Space [2, 16, 24]; y is [2, 24, 16]: the space's last axis strides by 16 in it. */
  g_assert_cmpint (y->map.strides[2], ==, 16);
  g_assert_cmpint (y->map.strides[1], ==, 1);
  g_assert_true (fw_kernel_spec_has_index_maps (c->spec, TRUE));
  /* The strided store costs whole blocks: more bytes written than the tensor has. */
  g_assert_cmpfloat (fw_candidate_get_cost (c)->bytes_written_after, >, 2.0 * 16 * 24 * 4);
  g_assert_null (holding (conservative, "/t"));
  g_assert_nonnull (refusal_of (conservative, FW_NF_STRATEGY, "/t"));
}

/* The Slice joins backward as a prologue: the group reads its producer's result at an offset with step 2,
 * only the elements the slice keeps. */
static void
test_slice_prologue (void)
{
  g_autoptr(FwModel) model = fw_test_index_model (FW_TEST_INDEX_SLICE_PROLOGUE);
  g_autoptr(FwPlan) plan = fw_test_plan_with (model, FW_STRATEGY_BALANCED);
  const FwCandidate *c = holding (plan, "/slice");
  const FwSpecValue *x;

  g_assert_nonnull (c);
  g_assert_cmpuint (c->nodes->len, ==, 5);
  x = value_named (c, "x");
  g_assert_nonnull (x);
  g_assert_cmpint (x->kind, ==, FW_SPEC_INPUT);
  g_assert_true (x->map.indexed);
  g_assert_cmpint (x->map.offset, ==, 16);
  g_assert_cmpint (x->map.strides[2], ==, 2);
  g_assert_cmpint (x->map.strides[1], ==, 64);
  g_assert_cmpint (x->map.touched, ==, 2 * 8 * 16);
  g_assert_false (x->map.bijective);
  g_assert_cmpuint (fw_candidate_get_resource (c)->kernel_inputs, ==, 2);
}

/* Reshape and Transpose of attention's head split between elementwise operators: one kernel, the input
 * read through the composed map, the residual plainly. */
static void
test_view_transpose (void)
{
  g_autoptr(FwModel) model = fw_test_index_model (FW_TEST_INDEX_VIEW_TRANSPOSE);
  g_autoptr(FwPlan) plan = fw_test_plan_with (model, FW_STRATEGY_BALANCED);
  const FwCandidate *c = holding (plan, "/heads");
  const FwSpecValue *x, *r;

  g_assert_nonnull (c);
  g_assert_cmpuint (c->nodes->len, ==, 5);
  x = value_named (c, "x");
  r = value_named (c, "r");
  g_assert_true (x->map.indexed);
  g_assert_true (x->map.bijective);
  /* Space [2, 4, 8, 16] over x [2, 8, 64]: (b, h, s, d) is x[b, s, 16 h + d]. */
  g_assert_cmpint (x->map.strides[0], ==, 512);
  g_assert_cmpint (x->map.strides[1], ==, 16);
  g_assert_cmpint (x->map.strides[2], ==, 64);
  g_assert_cmpint (x->map.strides[3], ==, 1);
  g_assert_false (r->map.indexed);
}

/* Gather with one constant index is a slice that drops the axis. */
static void
test_gather_row (void)
{
  g_autoptr(FwModel) model = fw_test_index_model (FW_TEST_INDEX_GATHER_ROW);
  g_autoptr(FwPlan) plan = fw_test_plan_with (model, FW_STRATEGY_BALANCED);
  const FwCandidate *c = holding (plan, "/pick");
  const FwSpecValue *x;

  g_assert_nonnull (c);
  g_assert_cmpuint (c->nodes->len, ==, 3);
  x = value_named (c, "x");
  g_assert_cmpint (x->map.offset, ==, 3 * 32);
  g_assert_cmpint (x->map.strides[0], ==, 6 * 32);
  g_assert_cmpint (x->map.strides[1], ==, 1);
}

/* What the maps cannot follow stays out, with its code. */
static void
test_refused (void)
{
  static const struct { FwTestIndexCase which; FwReasonCode code; const char *refused; } cases[] = {
    { FW_TEST_INDEX_TWO_MAPS, FW_NF_INDEX_MAP, NULL },
    { FW_TEST_INDEX_GATHER_DYNAMIC, FW_NF_GATHER_INDICES, "/pick" },
    { FW_TEST_INDEX_CONCAT, FW_NF_PIECEWISE, "/cat" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(FwModel) model = fw_test_index_model (cases[i].which);
      g_autoptr(FwPlan) plan = fw_test_plan_with (model, FW_STRATEGY_BALANCED);
      gboolean found = FALSE;

      for (guint r = 0; r < plan->refusals->len; r++)
        {
          const FwRefusal *ref = g_ptr_array_index (plan->refusals, r);
          if (ref->code == cases[i].code &&
              (cases[i].refused == NULL || strcmp (fw_node_get_name (ref->refused), cases[i].refused) == 0))
            found = TRUE;
        }
      g_assert_true (found);
      /* The refused operator runs as its own kernel. */
      if (cases[i].refused != NULL)
        g_assert_null (holding (plan, cases[i].refused));
      /* x + transpose(x): the sum and the transpose are never one kernel. */
      if (cases[i].which == FW_TEST_INDEX_TWO_MAPS)
        g_assert_true (holding (plan, "/t") == NULL || holding (plan, "/t") != holding (plan, "/sum"));
    }
}

/* A perm that names an axis twice (set after inference, as a file shape inference cannot check may hold
 * it): refused with its code, not followed past the coordinates. */
static void
test_bad_perm (void)
{
  g_autoptr(FwModel) model = fw_test_index_model (FW_TEST_INDEX_TRANSPOSE_EPILOGUE);
  FwGraph *g = fw_model_get_graph (model);
  const gint64 perms[][3] = { { 0, 2, 2 }, { 0, 7, 1 }, { -1, 1, 2 } };

  for (guint p = 0; p < G_N_ELEMENTS (perms); p++)
    {
      g_autoptr(FwPlan) plan = NULL;

      for (guint i = 0; i < g->nodes->len; i++)
        {
          FwNode *node = g_ptr_array_index (g->nodes, i);
          if (strcmp (node->name, "/t") == 0)
            fw_node_set_attr_ints (node, "perm", 3, perms[p]);
        }
      plan = fw_test_plan_with (model, FW_STRATEGY_BALANCED);
      g_assert_null (holding (plan, "/t"));
      g_assert_nonnull (refusal_of (plan, FW_NF_INDEX_MAP, "/t"));
    }
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/core/plan/index-map/transpose-epilogue", test_transpose_epilogue);
  g_test_add_func ("/core/plan/index-map/slice-prologue", test_slice_prologue);
  g_test_add_func ("/core/plan/index-map/view-transpose", test_view_transpose);
  g_test_add_func ("/core/plan/index-map/gather-row", test_gather_row);
  g_test_add_func ("/core/plan/index-map/refused", test_refused);
  g_test_add_func ("/core/plan/index-map/bad-perm", test_bad_perm);
  return g_test_run ();
}
