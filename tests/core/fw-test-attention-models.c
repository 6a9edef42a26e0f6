/* fw-test-attention-models.c: small attention score chains (fw-test-models.h, fw_test_attention_model):
 * Q [2, 4, sq, 8] · K [2, 4, 8, sk] / √8 + a causal-style mask [1, 1, sq, sk] → Softmax → · V [2, 4, sk, 8]
 * → Transpose (0, 2, 1, 3) → Reshape [2, sq, 32], the way exported decoders write it, and the variants that
 * stay refused. */
#include "config.h"

#include "fw-test-models.h"

#define op fw_test_add_node

#define input fw_test_add_float_input

static void
ints (FwGraph *g, const char *name, gint64 n, const gint64 *values)
{
  g_autoptr(FwTensor) t = fw_tensor_new_int64 (1, &n, values);
  g_assert_nonnull (fw_graph_add_initializer (g, name, t, NULL));
}

/* x[…, from:to] along the last axis. */
static void
slice_last (FwGraph *g, const char *name, const char *x, const char *from, const char *to, const char *out)
{
  const char *ins[4] = { x, from, to, "axis" };
  const char *outs[1] = { out };

  g_assert_nonnull (fw_graph_add_node (g, "Slice", "", name, 4, ins, 1, outs, NULL));
}

/* p [2, n, 16, 8] ← MatMul (x, w) viewed as [2, 16, n, 8] and its heads moved before the rows. */
static void
heads (FwGraph *g, const char *p, const char *w, gint64 n)
{
  g_autofree char *m = g_strconcat (p, ".m", NULL), *r = g_strconcat (p, ".r", NULL);
  g_autofree char *shape = g_strconcat (p, ".shape", NULL), *mm = g_strconcat ("/", p, "_proj", NULL);
  g_autofree char *view = g_strconcat ("/", p, "_view", NULL), *split = g_strconcat ("/", p, "_split", NULL);
  gint64 dims[4] = { 2, 16, n, 8 }, perm[4] = { 0, 2, 1, 3 };

  ints (g, shape, 4, dims);
  op (g, "MatMul", mm, "x", w, m);
  op (g, "Reshape", view, m, shape, r);
  fw_node_set_attr_ints (op (g, "Transpose", split, r, NULL, p), "perm", 4, perm);
}

/* out = x·cos + concat (−x[…, 4:], x[…, :4])·sin, as Hugging Face's rotate_half writes it. */
static void
rotary (FwGraph *g, const char *x, const char *half, const char *out)
{
  g_autofree char *lo = g_strconcat (x, ".lo", NULL), *hi = g_strconcat (x, ".hi", NULL);
  g_autofree char *neg = g_strconcat (x, ".neg", NULL), *cat = g_strconcat (x, ".cat", NULL);
  g_autofree char *xc = g_strconcat (x, ".cos", NULL), *xs = g_strconcat (x, ".sin", NULL);
  g_autofree char *n1 = g_strconcat ("/", x, "_lo", NULL), *n2 = g_strconcat ("/", x, "_hi", NULL);
  g_autofree char *n3 = g_strconcat ("/", x, "_neg", NULL), *n4 = g_strconcat ("/", x, "_cat", NULL);
  g_autofree char *n5 = g_strconcat ("/", x, "_cos", NULL), *n6 = g_strconcat ("/", x, "_sin", NULL);
  g_autofree char *n7 = g_strconcat ("/", x, "_rot", NULL);
  const char *ins[2];
  const char *outs[1] = { cat };

  slice_last (g, n1, x, "zero", half, lo);
  slice_last (g, n2, x, half, "end", hi);
  op (g, "Neg", n3, hi, NULL, neg);
  ins[0] = neg;
  ins[1] = lo;
  fw_node_set_attr_int (fw_graph_add_node (g, "Concat", "", n4, 2, ins, 1, outs, NULL), "axis", -1);
  op (g, "Mul", n5, x, "cos", xc);
  op (g, "Mul", n6, cat, "sin", xs);
  op (g, "Add", n7, xc, xs, out);
}

/* [2, 2, 16, 8] → [2, 4, 16, 8]: each key/value head serves two query heads. */
static void
repeat_kv (FwGraph *g, const char *x, const char *out)
{
  g_autofree char *u = g_strconcat (x, ".u", NULL), *e = g_strconcat (x, ".e", NULL);
  g_autofree char *n1 = g_strconcat ("/", x, "_unsqueeze", NULL), *n2 = g_strconcat ("/", x, "_expand", NULL);
  g_autofree char *n3 = g_strconcat ("/", x, "_repeat", NULL);

  op (g, "Unsqueeze", n1, x, "axis2", u);
  op (g, "Expand", n2, u, "expanded", e);
  op (g, "Reshape", n3, e, "repeated", out);
}

/* Llama's attention block on x [2, 16, 32]: four query heads and two key/value heads of 8, rotary
 * embeddings on Q and K, K and V repeated for the query heads, the causal-style mask, the heads merged. */
/* Half of q's last axis as the exporter computes it: Shape → Gather → Div → Unsqueeze, folded at load. */
static void
half_of (FwGraph *g, const char *x, const char *out)
{
  gint64 three = 3, two = 2, zero = 0;
  g_autoptr(FwTensor) t3 = fw_tensor_new_int64 (0, NULL, &three);
  g_autoptr(FwTensor) t2 = fw_tensor_new_int64 (0, NULL, &two);
  g_autofree char *shape = g_strconcat (x, ".dims", NULL), *dim = g_strconcat (x, ".dim", NULL);
  g_autofree char *h = g_strconcat (x, ".h", NULL);

  g_assert_nonnull (fw_graph_add_initializer (g, "three", t3, NULL));
  g_assert_nonnull (fw_graph_add_initializer (g, "two", t2, NULL));
  ints (g, "axis0", 1, &zero);
  op (g, "Shape", "/q_shape", x, NULL, shape);
  op (g, "Gather", "/q_dim", shape, "three", dim);
  op (g, "Div", "/q_half_div", dim, "two", h);
  op (g, "Unsqueeze", "/q_half", h, "axis0", out);
}

static FwModel *
rotary_model (gboolean shaped)
{
  FwModel *model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  g_autoptr(GRand) rand = g_rand_new_with_seed (19);
  gint64 x[3] = { 2, 16, 32 }, wq[2] = { 32, 32 }, wkv[2] = { 32, 16 }, table[4] = { 1, 1, 16, 8 };
  gint64 mask[4] = { 1, 1, 16, 16 }, zero = 0, half = 4, end = 8, axis = -1, axis2 = 2;
  gint64 expanded[5] = { 2, 2, 2, 16, 8 }, repeated[4] = { 2, 4, 16, 8 }, kt[4] = { 0, 1, 3, 2 };
  gint64 merge[4] = { 0, 2, 1, 3 }, shape[3] = { 2, 16, 32 };
  float scale = 2.8284271247461903f;

  input (g, "x", 3, x);
  fw_test_add_random_weight (g, rand, "wq", 2, wq, 0.3f);
  fw_test_add_random_weight (g, rand, "wk", 2, wkv, 0.3f);
  fw_test_add_random_weight (g, rand, "wv", 2, wkv, 0.3f);
  fw_test_add_random_weight (g, rand, "cos", 4, table, 1.0f);
  fw_test_add_random_weight (g, rand, "sin", 4, table, 1.0f);
  fw_test_add_random_weight (g, rand, "mask", 4, mask, 1.0f);
  ints (g, "zero", 1, &zero);
  ints (g, "half", 1, &half);
  ints (g, "end", 1, &end);
  ints (g, "axis", 1, &axis);
  ints (g, "axis2", 1, &axis2);
  ints (g, "expanded", 5, expanded);
  ints (g, "repeated", 4, repeated);
  ints (g, "merged", 3, shape);
  {
    g_autoptr(FwTensor) t = fw_tensor_new_float (0, NULL, &scale);
    g_assert_nonnull (fw_graph_add_initializer (g, "scale", t, NULL));
  }
  heads (g, "q", "wq", 4);
  heads (g, "k", "wk", 2);
  heads (g, "v", "wv", 2);
  if (shaped)
    half_of (g, "q", "q.half");
  rotary (g, "q", shaped ? "q.half" : "half", "qr");
  rotary (g, "k", "half", "kr");
  repeat_kv (g, "kr", "kx");
  repeat_kv (g, "v", "vx");
  fw_node_set_attr_ints (op (g, "Transpose", "/k_t", "kx", NULL, "kt"), "perm", 4, kt);
  op (g, "MatMul", "/scores", "qr", "kt", "s");
  op (g, "Div", "/scale", "s", "scale", "ss");
  op (g, "Add", "/mask", "ss", "mask", "sm");
  fw_node_set_attr_int (op (g, "Softmax", "/softmax", "sm", NULL, "p"), "axis", -1);
  op (g, "MatMul", "/product", "p", "vx", "o");
  fw_node_set_attr_ints (op (g, "Transpose", "/merge", "o", NULL, "t"), "perm", 4, merge);
  op (g, "Reshape", "/heads", "t", "merged", "y");
  g_assert_true (fw_graph_add_output (g, "y", NULL));
  g_assert_true (fw_graph_link (g, NULL));
  g_assert_true (fw_test_infer (model, NULL, NULL, NULL));
  return model;
}

FwModel *
fw_test_attention_model (FwTestAttentionCase which)
{
  FwModel *model = fw_test_model_new (13);
  FwGraph *g = fw_model_get_graph (model);
  g_autoptr(GRand) rand = g_rand_new_with_seed (17);
  gint64 sk = which == FW_TEST_ATTENTION_LONG ? 2048 : 16, sq = which == FW_TEST_ATTENTION_LONG ? 64 : 16;
  gint64 q[4] = { 2, 4, sq, 8 }, k[4] = { 2, 4, 8, sk }, v[4] = { 2, 4, sk, 8 };
  gint64 mask[5] = { 1, 1, 1, sq, sk }, perm[4] = { 0, 2, 1, 3 }, shape_dims[1] = { 3 }, shape[3] = { 2, sq, 32 };
  float scale = 2.8284271247461903f;

  if (which == FW_TEST_ATTENTION_ROTARY || which == FW_TEST_ATTENTION_ROTARY_SHAPED)
    {
      g_object_unref (model);
      return rotary_model (which == FW_TEST_ATTENTION_ROTARY_SHAPED);
    }
  input (g, "q", 4, q);
  input (g, "k", 4, k);
  input (g, "v", 4, v);
  {
    g_autoptr(FwTensor) t = fw_tensor_new_float (0, NULL, &scale);
    g_autoptr(FwTensor) s = fw_tensor_new_int64 (1, shape_dims, shape);
    g_assert_nonnull (fw_graph_add_initializer (g, "scale", t, NULL));
    g_assert_nonnull (fw_graph_add_initializer (g, "shape", s, NULL));
  }
  /* A rank-5 mask makes the Add's result rank 5: no longer the scores. */
  if (which == FW_TEST_ATTENTION_MASK_RANK)
    fw_test_add_random_weight (g, rand, "mask", 5, mask, 1.0f);
  else
    fw_test_add_random_weight (g, rand, "mask", 4, mask + 1, 1.0f);
  op (g, "MatMul", "/scores", "q", "k", "s");
  op (g, "Div", "/scale", "s", "scale", "ss");
  op (g, "Add", "/mask", "ss", "mask", "sm");
  fw_node_set_attr_int (op (g, "Softmax", "/softmax", "sm", NULL, "p"), "axis",
                        which == FW_TEST_ATTENTION_SOFTMAX_AXIS ? 2 : -1);
  op (g, "MatMul", "/product", "p", "v", which == FW_TEST_ATTENTION_MASK_RANK ? "y" : "o");
  if (which != FW_TEST_ATTENTION_MASK_RANK)
    {
      fw_node_set_attr_ints (op (g, "Transpose", "/merge", "o", NULL, "t"), "perm", 4, perm);
      op (g, "Reshape", "/heads", "t", "shape", "y");
    }
  g_assert_true (fw_graph_add_output (g, "y", NULL));
  /* The scaled scores leave the graph too: they cannot stay on chip. */
  if (which == FW_TEST_ATTENTION_OUTSIDE_USE)
    g_assert_true (fw_graph_add_output (g, "ss", NULL));
  g_assert_true (fw_graph_link (g, NULL));
  g_assert_true (fw_test_infer (model, NULL, NULL, NULL));
  return model;
}
