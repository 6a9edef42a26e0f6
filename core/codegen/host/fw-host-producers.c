/* fw-host-producers.c: the compute roots of host SuperKernels. Which library computes a root is decided once,
 * by fw_hc_choose_producer: a oneDNN primitive where oneDNN takes the shape (fw-host-dnnl.c; constant weights
 * reordered once into its layout), else MatMul, Gemm and Conv (im2col) whole into the tile by as few sgemm
 * calls as the reference kernels make, and a grouped Conv with few taps per group row by row by a direct
 * loop in the epilogue's region. The epilogue's region follows, over the root's plain result. */
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-host-codegen-private.h"
#include "fw-host-activation-block.h"
#include "fw-host-dnnl.h"

static void
emit_tile (Gen *g, gint64 n)
{
  if (g->in_place)
    g_string_append (g->body, "  dst = out0;\n");
  else if (g->team)
    /* One tile for the team: every thread gets the pointer (or NULL) one of them allocated. */
    g_string_append_printf (g->body, "#pragma omp single copyprivate(tile)\n"
                            "  tile = (float *) malloc (sizeof (float) * %" G_GINT64_FORMAT ");\n"
                            "  if (!tile) goto out;\n  dst = tile;\n", n);
  else
    g_string_append_printf (g->body, "  tile = (float *) malloc (sizeof (float) * %" G_GINT64_FORMAT ");\n"
                            "  if (!tile) goto out;\n  dst = tile;\n", n);
}

static gboolean
check_int (gint64 v, GError **error)
{
  if (v < 0 || v > G_MAXINT32)
    return fw_hc_unsupported (error, _("a matrix dimension over 2^31"));
  return TRUE;
}

/* A MatMul's product as the sgemm calls compute it: NB batch matrices of [M, K] × [K, N] over the result's
 * nb batch dims, operands' batch strides sa, sb (0 where broadcast). */
typedef struct
{
  SkVal   *a, *b;
  gboolean a1, b1;
  gint     nb;
  gint64   M, N, K, NB;
  gint64   sa[FW_MAX_RANK], sb[FW_MAX_RANK];
} MatShape;

static gboolean
matmul_shape (Gen *g, MatShape *ms, GError **error)
{
  FwNode *node = g->root;
  SkVal *a = fw_hc_input_val (g, node, 0), *b = fw_hc_input_val (g, node, 1);
  gint rank = g->rank, nb;
  gint64 M, N, K, NB = 1;
  gint64 *sa = ms->sa, *sb = ms->sb;
  gboolean a1, b1;

  memset (ms, 0, sizeof *ms);
  if (a == NULL || b == NULL || a->kind == SV_IMM_SCALAR || b->kind == SV_IMM_SCALAR || a->value->rank < 1 ||
      b->value->rank < 1 || (a->value->rank == 1 && b->value->rank == 1) || !fw_hc_is_floatish (a->dtype) ||
      !fw_hc_is_floatish (b->dtype))
    return fw_hc_unsupported (error, _("MatMul on two vectors or operands not float32, float16 or bfloat16"));
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
            return fw_hc_unsupported (error, _("MatMul operand of higher rank than its result"));
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
  ms->a = a, ms->b = b, ms->a1 = a1, ms->b1 = b1, ms->nb = nb;
  ms->M = M, ms->N = N, ms->K = K, ms->NB = NB;
  return TRUE;
}

/* The call of the root's primitive (kernel->dnnl) into dst, with the residual it adds (absorbed) or NULL,
 * in the layout the run's table gives. */
static void
emit_primitive_call (Gen *g, const char *src, const char *weights)
{
  SkVal *r = g->kernel->residual != NULL ? g_hash_table_lookup (g->by_value, g->kernel->residual) : NULL;
  g_autofree char *residual = r != NULL ? g_strdup_printf ("in%d", r->in_index) : g_strdup ("NULL");

  g_string_append_printf (g->body, "  if (rt->producer_run (rt->producer, %s, %s, dst, %s, rt->layout, nt) != 0)\n"
                          "    goto out;\n", src, weights, residual);
}

/* The primitive computing the whole group into its output (kernel->absorbed): no tile, no region. */
static gboolean
emit_absorbed (Gen *g, const char *src, const char *weights)
{
  const FwValue *y = g->kernel->absorbed;
  gint64 n = fw_value_get_n_elements (y);

  g_string_append (g->body, "  /* The bias, residual and epilogue are the primitive's (oneDNN post-ops). */\n");
  if (!fw_hc_is_half (y->dtype))
    {
      g_string_append (g->body, "  dst = out0;\n");
      emit_primitive_call (g, src, weights);
      return TRUE;
    }
  /* A half result: the primitive's float32 one rounded once, in whatever layout the primitive wrote it. */
  g_string_append_printf (g->body, "  tile = (float *) malloc (sizeof (float) * %" G_GINT64_FORMAT ");\n"
                          "  if (!tile)\n    goto out;\n  dst = tile;\n", n);
  emit_primitive_call (g, src, weights);
  g_string_append_printf (g->body, "  fw_f2%s_row (cpu, dst, out0, %" G_GINT64_FORMAT ");\n", fw_hc_half_letter (y->dtype), n);
  return TRUE;
}

/* Whether a oneDNN root's weights are a half constant the primitive takes widened once (widened_weights),
 * so that the kernel passes none. */
static gboolean
widens_weights (const FwValue *w)
{
  return w != NULL && w->constant != NULL && fw_hc_is_half (w->constant->dtype) &&
         fw_tensor_get_data (w->constant, NULL) != NULL;
}

/* The root's second operand as the product reads it: NULL for a primitive that widened its half constant
 * weights once (a panel of them each run cost as much as the product), else fw_hc_root_operand's. */
static const char *
product_weights (Gen *g, SkVal *w, char *buf, gsize len)
{
  if (g->kernel->producer_kind == FW_SK_PRODUCER_ONEDNN && widens_weights (w->value))
    {
      g_strlcpy (buf, "NULL", len);
      return buf;
    }
  return fw_hc_root_operand (g, w, buf, len);
}

/* One sgemm per batch matrix into dst. */
static void
emit_matmul_sgemm (Gen *g, const MatShape *ms, const char *pa, const char *pb)
{
  GString *s = g->body;
  const gint64 M = ms->M, N = ms->N, K = ms->K;

  g_string_append_printf (s, "  for (int64_t bt = 0; bt < %" G_GINT64_FORMAT "; bt++)\n  {\n", ms->NB);
  g_string_append (s, "  int64_t offa = 0, offb = 0, brem = bt;\n");
  for (gint d = ms->nb - 1; d >= 0; d--)
    {
      g_string_append_printf (s, "  { const int64_t ix = brem %% %" G_GINT64_FORMAT "; brem /= %" G_GINT64_FORMAT
                              "; offa += ix * %" G_GINT64_FORMAT "; offb += ix * %" G_GINT64_FORMAT "; }\n",
                              g->dims[d], g->dims[d], ms->sa[d], ms->sb[d]);
    }
  g_string_append (s, "  (void) brem;\n");
  g_string_append_printf (s, "  rt->sgemm (0, 0, %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                          ", 1.0f, %s + offa, %" G_GINT64_FORMAT ", %s + offb, %" G_GINT64_FORMAT
                          ", 0.0f, dst + bt * %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ");\n",
                          M, N, K, pa, K, pb, N, M * N, N);
  g_string_append (s, "  }\n");
}

gboolean
fw_hc_emit_matmul (Gen *g, GError **error)
{
  MatShape ms;
  char abuf[32], bbuf[32];
  const char *pa, *pb;

  if (!matmul_shape (g, &ms, error))
    return FALSE;
  /* The whole product first, in as few sgemm calls as the reference makes (one per batch matrix), or one
     primitive, then one parallel region for the epilogue. Tiles of a few hundred rows each cost an sgemm call
     that OpenBLAS runs below its efficient size, and every switch between its threads and OpenMP's leaves one
     set spinning against the other on the same cores: ViT's MLP ran slower fused than unfused that way. */
  g->gemm_k = ms.K;
  pa = fw_hc_root_operand (g, ms.a, abuf, sizeof abuf);
  pb = product_weights (g, ms.b, bbuf, sizeof bbuf);
  if (g->kernel->absorbed != NULL)
    return emit_absorbed (g, pa, pb);
  emit_tile (g, ms.NB * ms.M * ms.N);
  if (g->kernel->producer_kind == FW_SK_PRODUCER_ONEDNN)
    emit_primitive_call (g, pa, pb);
  else
    emit_matmul_sgemm (g, &ms, pa, pb);
  {
    /* The space's rows: NB × M, or NB when B is a vector (its rows run along M). */
    g_autofree char *count = g_strdup_printf ("%" G_GINT64_FORMAT, g->n_rows);
    return fw_hc_emit_region (g, count, "t", NULL, error);
  }
}

gboolean
fw_hc_emit_gemm (Gen *g, GError **error)
{
  FwNode *node = g->root;
  SkVal *a = fw_hc_input_val (g, node, 0), *b = fw_hc_input_val (g, node, 1);
  GString *s = g->body;
  gint64 M = g->dims[0], N = g->dims[1], K;
  gboolean ta = fw_node_get_attr_int (node, "transA", 0) != 0, tb = fw_node_get_attr_int (node, "transB", 0) != 0;
  g_autofree char *alpha = fw_hc_flit (fw_node_get_attr_float (node, "alpha", 1.0f));
  char abuf[32], bbuf[32];
  const char *pa, *pb;

  if (g->rank != 2 || a == NULL || b == NULL || a->kind != SV_EXTERNAL || b->kind != SV_EXTERNAL ||
      a->value->rank != 2 || b->value->rank != 2 || !fw_hc_is_floatish (a->dtype) || !fw_hc_is_floatish (b->dtype))
    return fw_hc_unsupported (error, _("Gemm on operands that are not float32, float16 or bfloat16 matrices"));
  K = a->value->dims[ta ? 0 : 1].value;
  if (!check_int (M, error) || !check_int (N, error) || !check_int (K, error))
    return FALSE;
  /* One sgemm over all rows, then the epilogue: see emit_matmul. */
  g->gemm_k = K;
  pa = fw_hc_root_operand (g, a, abuf, sizeof abuf);
  pb = product_weights (g, b, bbuf, sizeof bbuf);
  if (g->kernel->absorbed != NULL)
    return emit_absorbed (g, pa, pb);
  emit_tile (g, M * N);
  if (g->kernel->producer_kind == FW_SK_PRODUCER_ONEDNN)
    emit_primitive_call (g, pa, pb);
  else
    g_string_append_printf (s, "  rt->sgemm (%d, %d, %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                            ", %s, %s, %" G_GINT64_FORMAT ", %s, %" G_GINT64_FORMAT ", 0.0f, dst, %" G_GINT64_FORMAT
                            ");\n", ta, tb, M, N, K, alpha, pa, ta ? M : K, pb, tb ? K : N, N);
  {
    g_autofree char *count = g_strdup_printf ("%" G_GINT64_FORMAT, M);
    return fw_hc_emit_region (g, count, "t", NULL, error);
  }
}

/* A 2-D Conv's shapes and attributes, named as its loops use them. */
typedef struct
{
  char   x[32], w[32];  /* the float32 data and weights: kernel inputs, or panels of half ones */
  gint64 NI, C, H, W, M, OH, OW, KH, KW, G, CG, MG, KK, OHW;
  gint64 sh, sw, dh, dw, pt, pl;
} ConvGeom;

static gboolean
conv_geometry (Gen *g, ConvGeom *cv, GError **error)
{
  FwNode *node = g->root;
  SkVal *x = fw_hc_input_val (g, node, 0), *w = fw_hc_input_val (g, node, 1);
  gint64 NI, C, H, W, M, OH, OW, KH, KW, G, CG, MG, KK, OHW;
  gint64 sh = 1, sw = 1, dh = 1, dw = 1, pt = 0, pl = 0;
  const char *auto_pad = fw_node_get_attr_string (node, "auto_pad");
  guint n = 0;
  const gint64 *v;

  if (g->rank != 4 || x == NULL || w == NULL || x->kind != SV_EXTERNAL || w->kind != SV_EXTERNAL ||
      x->value->rank != 4 || w->value->rank != 4 || !fw_hc_is_floatish (x->dtype) || !fw_hc_is_floatish (w->dtype))
    return fw_hc_unsupported (error, _("Conv other than 2-D float32, float16 or bfloat16"));
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
    return fw_hc_unsupported (error, _("Conv groups that do not divide the channels"));
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
    return fw_hc_unsupported (error, _("Conv attributes out of range"));
  *cv = (ConvGeom) { "", "", NI, C, H, W, M, OH, OW, KH, KW, G, CG, MG, KK, OHW, sh, sw, dh, dw, pt, pl };
  return TRUE;
}

static gboolean
emit_conv_direct (Gen *g, const ConvGeom *cv, GError **error)
{
  const gint64 NI = cv->NI, C = cv->C, H = cv->H, W = cv->W, M = cv->M, OH = cv->OH, OW = cv->OW, KH = cv->KH,
               KW = cv->KW, CG = cv->CG, MG = cv->MG, KK = cv->KK, OHW = cv->OHW, sh = cv->sh, sw = cv->sw,
               dh = cv->dh, dw = cv->dw, pt = cv->pt, pl = cv->pl;
  g_autoptr(GString) pre = g_string_new (NULL);

  /* Each output plane is computed in the region, right before the epilogue reads it: one row of
     outputs at a time, every tap a unit- or fixed-stride pass over the positions where it lands inside
     the input (found once per row, so the inner loop has no test and vectorises). Taps are summed in
     im2col's order (channel, kernel row, kernel column). */
  g_string_append_printf (pre, "    {\n      const int64_t img = t / %" G_GINT64_FORMAT ", m = t %% %" G_GINT64_FORMAT
                          ", grp = m / %" G_GINT64_FORMAT ";\n", M, M, MG);
  g_string_append_printf (pre, "      const float *xs = %s + (img * %" G_GINT64_FORMAT " + grp * %" G_GINT64_FORMAT
                          ") * %" G_GINT64_FORMAT ";\n", cv->x, C, CG, H * W);
  g_string_append_printf (pre, "      const float *wk = %s + m * %" G_GINT64_FORMAT ";\n", cv->w, KK);
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
    return fw_hc_emit_region (g, count, "t", pre->str, error);
  }
}

static gboolean
emit_conv_sgemm (Gen *g, const ConvGeom *cv, GError **error)
{
  GString *s = g->body;
  const gint64 NI = cv->NI, C = cv->C, H = cv->H, W = cv->W, M = cv->M, OH = cv->OH, OW = cv->OW, KH = cv->KH,
               KW = cv->KW, G = cv->G, CG = cv->CG, MG = cv->MG, KK = cv->KK, OHW = cv->OHW, sh = cv->sh,
               sw = cv->sw, dh = cv->dh, dw = cv->dw, pt = cv->pt, pl = cv->pl;
  gboolean direct;

  direct = KH == 1 && KW == 1 && sh == 1 && sw == 1 && pt == 0 && pl == 0 && OH == H && OW == W;
  g->gemm_k = KK;
  if (!direct)
    g_string_append_printf (s, "  col = (float *) malloc (sizeof (float) * %" G_GINT64_FORMAT ");\n  if (!col) goto out;\n",
                            KK * OHW);
  /* Every image's and group's product first (one sgemm each, as the reference), then one region for the
     epilogue: see emit_matmul. */
  g_string_append_printf (s, "  for (int64_t tb = 0; tb < %" G_GINT64_FORMAT "; tb++)\n  {\n", NI * G);
  g_string_append_printf (s, "  const int64_t img = tb / %" G_GINT64_FORMAT ", grp = tb %% %" G_GINT64_FORMAT ";\n", G, G);
  g_string_append_printf (s, "  const float *xs = %s + (img * %" G_GINT64_FORMAT " + grp * %" G_GINT64_FORMAT ") * %"
                          G_GINT64_FORMAT ";\n", cv->x, C, CG, H * W);
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
                          ", 1.0f, %s + grp * %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", cols, %" G_GINT64_FORMAT
                          ", 0.0f, dst + (img * %" G_GINT64_FORMAT " + grp * %" G_GINT64_FORMAT ") * %"
                          G_GINT64_FORMAT ", %" G_GINT64_FORMAT ");\n",
                          MG, OHW, KK, cv->w, MG * KK, KK, OHW, M, MG, OHW, OHW);
  g_string_append (s, "  }\n");
  {
    g_autofree char *count = g_strdup_printf ("%" G_GINT64_FORMAT, NI * M);
    return fw_hc_emit_region (g, count, "t", NULL, error);
  }
}

gboolean
fw_hc_emit_conv (Gen *g, GError **error)
{
  ConvGeom cv = { 0 };

  if (!conv_geometry (g, &cv, error))
    return FALSE;
  fw_hc_root_operand (g, fw_hc_input_val (g, g->root, 0), cv.x, sizeof cv.x);
  product_weights (g, fw_hc_input_val (g, g->root, 1), cv.w, sizeof cv.w);
  if (g->kernel->absorbed != NULL)
    return emit_absorbed (g, cv.x, cv.w);
  emit_tile (g, cv.NI * cv.M * cv.OHW);
  if (g->kernel->producer_kind == FW_SK_PRODUCER_ONEDNN)
    {
      g_autofree char *count = g_strdup_printf ("%" G_GINT64_FORMAT, cv.NI * cv.M);
      g->gemm_k = cv.KK;
      emit_primitive_call (g, cv.x, cv.w);
      return fw_hc_emit_region (g, count, "t", NULL, error);
    }
  if (g->kernel->producer_kind == FW_SK_PRODUCER_DIRECT)
    return emit_conv_direct (g, &cv, error);
  return emit_conv_sgemm (g, &cv, error);
}

/* Whether a product's operands are what its float32 primitive is given: float32, or half ones widened as a
 * Conv's are (a panel of the source each run, constant weights once: fw_hc_root_operand, widened_weights).
 * bert_like_float16's products ran on sgemm with their weights widened into a panel on every run. */
static gboolean
product_operands (const SkVal *a, const SkVal *b)
{
  return fw_hc_is_floatish (a->dtype) && fw_hc_is_floatish (b->dtype);
}

/* The root as a oneDNN primitive's description; FALSE with *why when the operands are not what a float32
 * primitive takes. */
static gboolean
describe_root (Gen *g, FwDnnlDesc *d, char **why)
{
  const char *op = g->root->op_type;
  SkVal *w;

  memset (d, 0, sizeof *d);
  d->alpha = 1.0f;
  if (strcmp (op, "Conv") == 0)
    {
      ConvGeom cv;
      SkVal *x = fw_hc_input_val (g, g->root, 0);

      w = fw_hc_input_val (g, g->root, 1);
      /* Half operands too: the kernel widens the source into a float32 panel and rounds the epilogue's
         result (fw_hc_root_operand), and the constant weights are widened once (fw_hc_choose_producer). */
      if (!conv_geometry (g, &cv, NULL) || !fw_hc_is_floatish (x->dtype) ||
          (w->dtype != FW_DTYPE_FLOAT && !(fw_hc_is_half (w->dtype) && w->value->constant != NULL)))
        {
          *why = g_strdup (_("a Conv other than 2-D float32"));
          return FALSE;
        }
      d->kind = FW_DNNL_CONV;
      d->n = cv.NI, d->c = cv.C, d->h = cv.H, d->w = cv.W, d->m = cv.M, d->oh = cv.OH, d->ow = cv.OW;
      d->kh = cv.KH, d->kw = cv.KW, d->groups = cv.G;
      d->sh = cv.sh, d->sw = cv.sw, d->dh = cv.dh, d->dw = cv.dw, d->pt = cv.pt, d->pl = cv.pl;
      /* The least far-side padding that gives the output size ONNX computed (oneDNN checks that they agree,
         rounding down as ONNX does): negative where the last window stops short of the edge, and 0 then. */
      d->pb = MAX (0, (cv.OH - 1) * cv.sh + (cv.KH - 1) * cv.dh + 1 - cv.H - cv.pt);
      d->pr = MAX (0, (cv.OW - 1) * cv.sw + (cv.KW - 1) * cv.dw + 1 - cv.W - cv.pl);
      d->block = fw_host_activation_block (g->root->graph);
    }
  else if (strcmp (op, "Gemm") == 0)
    {
      SkVal *a = fw_hc_input_val (g, g->root, 0);
      gboolean ta = fw_node_get_attr_int (g->root, "transA", 0) != 0;
      gboolean tb = fw_node_get_attr_int (g->root, "transB", 0) != 0;
      gint64 M = g->dims[0], N = g->dims[1], K;

      w = fw_hc_input_val (g, g->root, 1);
      if (g->rank != 2 || a == NULL || w == NULL || !product_operands (a, w) || a->value->rank != 2 ||
          w->value->rank != 2)
        {
          *why = g_strdup (_("a Gemm on operands other than float32 matrices"));
          return FALSE;
        }
      K = a->value->dims[ta ? 0 : 1].value;
      fw_dnnl_desc_set_product (d, M, K, N, ta, tb, fw_node_get_attr_float (g->root, "alpha", 1.0f));
    }
  else
    {
      MatShape ms;
      gint64 a_dims[FW_MAX_RANK], b_dims[FW_MAX_RANK];
      gboolean ok = matmul_shape (g, &ms, NULL) && !ms.a1 && !ms.b1 && product_operands (ms.a, ms.b);

      for (gint k = 0; ok && k < ms.a->value->rank; k++)
        a_dims[k] = ms.a->value->dims[k].value;
      for (gint k = 0; ok && k < ms.b->value->rank; k++)
        b_dims[k] = ms.b->value->dims[k].value;
      if (!ok || !fw_dnnl_desc_set_matmul (d, ms.a->value->rank, a_dims, ms.b->value->rank, b_dims, g->rank, g->dims))
        {
          *why = g_strdup (_("a MatMul of a vector, of operands other than float32 or of rank over 6"));
          return FALSE;
        }
      w = ms.b;
    }
  if (w->value->constant != NULL && fw_tensor_get_data (w->value->constant, NULL) != NULL)
    d->weights = w->value->constant;
  return TRUE;
}

/* ---- An epilogue oneDNN computes inside the primitive ---- */

/* n's other operand than v, or NULL when n is not binary over v. */
static FwValue *
other_operand (const FwNode *n, const FwValue *v)
{
  if (n->n_inputs != 2 || n->n_outputs < 1)
    return NULL;
  return n->inputs[0] == v ? n->inputs[1] : n->inputs[1] == v ? n->inputs[0] : NULL;
}

static gboolean
scalar_is (const FwValue *v, double want, double tol)
{
  double x = 0;

  return v != NULL && v->constant != NULL && v->constant->dtype == FW_DTYPE_FLOAT && v->constant->n_elements == 1 &&
         fw_tensor_get_double (v->constant, 0, &x) && fabs (x - want) <= tol;
}

/* b, an Add's operand, as the primitive's bias: a constant float32 (or half) tensor of one value per output column
 * (matmul: the last axis of a result of rank r, any leading dims 1) or per channel (conv: axis 1 of
 * [N, M, OH, OW]). */
static gboolean
bias_fits (const FwDnnlDesc *d, const FwValue *out, const FwValue *b)
{
  gint64 n = d->kind == FW_DNNL_CONV ? d->m : d->dst_dims[d->ndims - 1];
  gint axis = d->kind == FW_DNNL_CONV ? 1 : out->rank - 1;

  if (b == NULL || b->constant == NULL || !fw_hc_is_floatish (b->dtype) || b->rank > out->rank ||
      fw_tensor_get_data (b->constant, NULL) == NULL || b->constant->n_elements != n)
    return FALSE;
  /* Right-aligned against the result: only the column (channel) axis may be other than 1. */
  for (gint i = 0; i < b->rank; i++)
    if (b->dims[i].value != 1 && out->rank - b->rank + i != axis)
      return FALSE;
  return TRUE;
}

/* Whether nodes[*p..] begin with erf-GELU of x as torch writes it: x / √2 (or x · 1/√2), Erf, + 1, then x ·
 * that and · 0.5 (or x · 0.5 first); *p past them and *y its result. */
static gboolean
match_gelu (FwNode *const *nodes, guint n, guint *p, FwValue *x, FwValue **y)
{
  FwNode *a, *b;
  FwValue *t, *u;

  if (*p + 5 > n)
    return FALSE;
  a = nodes[*p];
  if (!((fw_node_is_onnx_op (a, "Div") && a->inputs[0] == x && scalar_is (a->inputs[1], G_SQRT2, 1e-6)) ||
        (fw_node_is_onnx_op (a, "Mul") && scalar_is (other_operand (a, x), 1.0 / G_SQRT2, 1e-6))))
    return FALSE;
  t = a->outputs[0];
  a = nodes[*p + 1];
  if (!fw_node_is_onnx_op (a, "Erf") || a->inputs[0] != t)
    return FALSE;
  t = a->outputs[0];
  a = nodes[*p + 2];
  if (!fw_node_is_onnx_op (a, "Add") || !scalar_is (other_operand (a, t), 1.0, 0.0))
    return FALSE;
  t = a->outputs[0];
  a = nodes[*p + 3];
  b = nodes[*p + 4];
  if (fw_node_is_onnx_op (a, "Mul") && other_operand (a, t) == x && fw_node_is_onnx_op (b, "Mul") &&
      scalar_is (other_operand (b, a->outputs[0]), 0.5, 0.0))
    u = b->outputs[0];
  else if (fw_node_is_onnx_op (a, "Mul") && scalar_is (other_operand (a, x), 0.5, 0.0) &&
           fw_node_is_onnx_op (b, "Mul") && other_operand (b, a->outputs[0]) == t)
    u = b->outputs[0];
  else
    return FALSE;
  *p += 5;
  *y = u;
  return TRUE;
}

/* Whether nodes[*p..] begin with HardSwish of x: the op, or x · HardSigmoid (x) with torch's 1/6 and 1/2
 * (MobileNetV3's activation), or else with HardSigmoid of x alone (its squeeze-excite gate, with *post_alpha and
 * *post_beta); *p past them and *y its result. FW_DNNL_POST_NONE, *p unchanged, when neither. */
static FwDnnlPost
match_hard (FwNode *const *nodes, guint n, guint *p, FwValue *x, FwValue **y, float *post_alpha, float *post_beta)
{
  FwNode *a = *p < n ? nodes[*p] : NULL;
  float alpha, beta;

  if (a == NULL || a->n_inputs < 1 || a->inputs[0] != x)
    return FW_DNNL_POST_NONE;
  if (fw_node_is_onnx_op (a, "HardSwish"))
    {
      *p += 1;
      *y = a->outputs[0];
      return FW_DNNL_POST_HARD_SWISH;
    }
  if (!fw_node_is_onnx_op (a, "HardSigmoid"))
    return FW_DNNL_POST_NONE;
  alpha = fw_node_get_attr_float (a, "alpha", 0.2f);
  beta = fw_node_get_attr_float (a, "beta", 0.5f);
  if (*p + 1 < n && fw_node_is_onnx_op (nodes[*p + 1], "Mul") && other_operand (nodes[*p + 1], a->outputs[0]) == x &&
      fabsf (alpha - 1.0f / 6.0f) <= 1e-7f && beta == 0.5f)
    {
      *p += 2;
      *y = nodes[*p - 1]->outputs[0];
      return FW_DNNL_POST_HARD_SWISH;
    }
  *post_alpha = alpha;
  *post_beta = beta;
  *p += 1;
  *y = a->outputs[0];
  return FW_DNNL_POST_HARD_SIGMOID;
}

/* A Conv's own bias (its third input) as d's bias: a constant float32 (or half, widened) vector of one value
 * per channel. */
static gboolean
own_bias (const FwDnnlDesc *d, const FwNode *root)
{
  const FwValue *b = root->n_inputs > 2 ? root->inputs[2] : NULL;

  return b != NULL && d->kind == FW_DNNL_CONV && b->constant != NULL &&
         fw_hc_is_floatish (b->dtype) && b->rank == 1 &&
         b->constant->n_elements == d->m && fw_tensor_get_data (b->constant, NULL) != NULL;
}

/* r, an Add's operand, as a conv's residual: a computed float32 tensor of exactly the result's shape. */
static gboolean
residual_fits (const FwDnnlDesc *d, const FwValue *out, const FwValue *r)
{
  if (d->kind != FW_DNNL_CONV || r == NULL || r == out || r->constant != NULL || r->dtype != FW_DTYPE_FLOAT ||
      r->rank != out->rank)
    return FALSE;
  for (gint i = 0; i < r->rank; i++)
    if (r->dims[i].value != out->dims[i].value)
      return FALSE;
  return TRUE;
}

/* A half constant as float32, for a primitive that reorders its weights once (NULL for any other). */
static FwTensor *
widened_weights (const FwValue *w)
{
  return widens_weights (w) ? fw_dnnl_float_tensor (w->constant) : NULL;
}

/* The group's epilogue as d's bias, residual and post-op, when that is all of it: [a bias Add] [a residual
 * Add] [Relu | erf-GELU], the last result the group's one output. Then d is filled, *residual set (NULL
 * when none) and the result returned; else NULL, d unchanged. A Conv's own bias is the bias (and then no
 * bias Add follows it); a Gemm with C (its C and beta stay in generated C) and an alpha other than 1 (oneDNN
 * would scale the bias with the product) are not taken. Where oneDNN computes them the pass of generated C
 * over the result goes, with its read and write of every element (bert_like's erf-GELU epilogues took
 * 170 µs of their kernels' 700), and a Conv kernel can read and write channels-last. A half group's
 * primitive computes in float32 from its widened source and the result is rounded once (emit_absorbed), as
 * the generated pass does; its bias is widened once, and a residual stays in the generated pass.
 * mobilenet_v3_small_float16's Convs ran plain, each with two reorders and a pass: 4.0 -> 2.8 ms a run. */
static FwValue *
absorb_epilogue (Gen *g, FwDnnlDesc *d, FwValue **residual, FwTensor **bias_owned)
{
  const FwKernelSpec *spec = g->cand->spec;
  g_autofree FwNode **nodes = g_new0 (FwNode *, fw_kernel_spec_get_n_nodes (spec) + 1);
  FwValue *x = g->root->outputs[0], *bias = NULL, *res = NULL;
  FwDnnlPost post = FW_DNNL_POST_NONE;
  gboolean conv_bias = own_bias (d, g->root);
  float hard_alpha = 0, hard_beta = 0;
  guint n = 0, p = 0;

  *residual = NULL;
  if (g->team || g->kernel->outputs->len != 1 || d->alpha != 1.0f || d->bias != NULL || d->weights == NULL ||
      (g->root->n_inputs > 2 && g->root->inputs[2] != NULL && !conv_bias))
    return NULL;
  for (guint i = 0; i < fw_kernel_spec_get_n_nodes (spec); i++)
    if (fw_kernel_spec_get_node (spec, i) != g->root)
      nodes[n++] = fw_kernel_spec_get_node (spec, i);
  if (!conv_bias && p < n && fw_node_is_onnx_op (nodes[p], "Add") && bias_fits (d, x, other_operand (nodes[p], x)))
    {
      bias = other_operand (nodes[p], x);
      x = nodes[p++]->outputs[0];
    }
  if (p < n && fw_node_is_onnx_op (nodes[p], "Add") && residual_fits (d, x, other_operand (nodes[p], x)))
    {
      res = other_operand (nodes[p], x);
      x = nodes[p++]->outputs[0];
    }
  if (p < n && fw_node_is_onnx_op (nodes[p], "Relu") && nodes[p]->inputs[0] == x)
    {
      post = FW_DNNL_POST_RELU;
      x = nodes[p++]->outputs[0];
    }
  else if (match_gelu (nodes, n, &p, x, &x))
    post = FW_DNNL_POST_GELU_ERF;
  else
    post = match_hard (nodes, n, &p, x, &x, &hard_alpha, &hard_beta);
  if (p != n || x != g_ptr_array_index (g->kernel->outputs, 0) || !fw_hc_is_floatish (x->dtype))
    return NULL;
  if (conv_bias || bias != NULL)
    *bias_owned = fw_dnnl_float_tensor (conv_bias ? g->root->inputs[2]->constant : bias->constant);
  d->bias = *bias_owned;
  d->post = post;
  d->post_alpha = hard_alpha;
  d->post_beta = hard_beta;
  d->residual = res != NULL;
  *residual = res;
  return x;
}

void
fw_hc_choose_producer (Gen *g)
{
  FwSuperKernel *k = g->kernel;
  const char *force = g_getenv ("FW_HOST_PRODUCER");
  g_autofree char *why = NULL;
  gboolean direct = FALSE;
  FwDnnlDesc d;

  k->producer_kind = FW_SK_PRODUCER_NONE;
  k->producer = (FwSuperKernelProducer) { NULL, NULL, NULL, NULL, NULL };
  if (g->root == NULL)
    return;
  if (strcmp (g->root->op_type, "Conv") == 0)
    {
      ConvGeom cv;
      direct = conv_geometry (g, &cv, NULL) && cv.G > 1 && cv.KK <= DIRECT_CONV_TAPS;
    }
  if (fw_dnnl_library () == NULL)
    why = g_strdup (_("built without oneDNN"));
  else if (force != NULL && strcmp (force, "openblas") == 0)
    why = g_strdup ("FW_HOST_PRODUCER=openblas");
  else if (describe_root (g, &d, &why))
    {
      g_autoptr(FwTensor) widened = widened_weights (g->root->inputs[1]);
      g_autoptr(FwTensor) bias = NULL;
      FwDnnlDesc plain;

      if (widened != NULL)
        d.weights = widened;
      plain = d;

      k->absorbed = absorb_epilogue (g, &d, &k->residual, &bias);
      k->dnnl = fw_dnnl_prim_new (&d, (int) g_get_num_processors (), &why);
      /* oneDNN may take the product but not the post-op: then the generated pass keeps the epilogue. */
      if (k->dnnl == NULL && k->absorbed != NULL)
        {
          g_clear_pointer (&why, g_free);
          k->absorbed = NULL;
          k->residual = NULL;
          d = plain;
          k->dnnl = fw_dnnl_prim_new (&plain, (int) g_get_num_processors (), &why);
        }
    }
  if (k->dnnl != NULL)
    {
      k->product_k = d.kind == FW_DNNL_CONV ? (guint64) (d.c / MAX (d.groups, 1) * d.kh * d.kw)
                                            : (guint64) d.src_dims[d.ndims - 1];
      k->product_alpha = fabs ((gdouble) d.alpha);
      k->product_a = g->root->inputs[0];
      k->product_b = g->root->inputs[1];
      k->producer_kind = FW_SK_PRODUCER_ONEDNN;
      /* Our own kernels behind the primitive's call (Winograd, gemv) are not oneDNN's code. */
      if (strcmp (fw_dnnl_prim_get_backend (k->dnnl), "onednn") != 0)
        k->producer = (FwSuperKernelProducer) { fw_dnnl_prim_get_backend (k->dnnl), NULL, "avx2",
                                                fw_dnnl_prim_get_impl (k->dnnl), NULL };
      else
        k->producer = (FwSuperKernelProducer) { "onednn", fw_dnnl_library (), fw_dnnl_isa (),
                                                fw_dnnl_prim_get_impl (k->dnnl), NULL };
      return;
    }
  k->producer_kind = direct ? FW_SK_PRODUCER_DIRECT : FW_SK_PRODUCER_OPENBLAS;
  k->producer_fallback = g_steal_pointer (&why);
  k->producer = (FwSuperKernelProducer) { direct ? "direct" : "openblas", NULL, NULL, NULL, k->producer_fallback };
}
