/* fw-host-int8.c: the host SuperKernel of an integer (QDQ) group (plan/fw-qdq.h): MatMul, Gemm or Conv on
 * int8/uint8 operands summed in int32, then the dequantisation, the float epilogue and the requantisation
 * per output element, inlined.
 *
 * Every product is brought to one form, C[r][c] = Σk U[r][k] · S[c][k], U unsigned and S signed bytes, both
 * packed with k contiguous and padded with zeros to a multiple of 64: the operand of AVX-512 VNNI's
 * vpdpbusd (u8 × s8 summed four at a time into int32). An int8 operand on the unsigned side is shifted by
 * +128 (x ^ 0x80) and a uint8 one on the signed side by −128, the zero points shifted alike, so
 * Σ (u − zu)(s − zs) = Σ u·s − zs·Σu − zu·Σs + K·zu·zs is exact whatever the types. Padded taps of a Conv
 * hold the activation's zero point, so they dequantise to 0 as ONNX pads the float input. The VNNI path
 * is chosen at run time (rt->features); the portable path computes the same integers with scalar loops.
 *
 * The float part follows the ONNX operators' arithmetic: y = float(acc) × (s_a · s_b[c]) + bias[c], the
 * bias dequantised as (b − zp) × scale; QuantizeLinear divides by its scale, clamps to the type's range
 * less the zero point, rounds half to even (rintf) and adds the zero point (fw-kernels-quantize.c). */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-host-codegen-private.h"
#include "plan/fw-qdq.h"

typedef struct
{
  FwSuperKernel *kernel;
  FwQdqGroup     q;
  GString       *decls;
  GString       *body;
  GHashTable    *locals;    /* FwValue* → "t<N>" of the epilogue */
  guint          n_tmp;
} Int8Gen;

static guint
add_input (Int8Gen *g, FwValue *v)
{
  for (guint i = 0; i < g->kernel->inputs->len; i++)
    if (g_ptr_array_index (g->kernel->inputs, i) == v)
      return i;
  g_ptr_array_add (g->kernel->inputs, v);
  return g->kernel->inputs->len - 1;
}

#define zp_at fw_qdq_zero_point_at
#define scale_at fw_qdq_scale_at

static void
qrange (FwDType t, gint64 *lo, gint64 *hi)
{
  *lo = t == FW_DTYPE_INT8 ? -128 : 0;
  *hi = t == FW_DTYPE_INT8 ? 127 : 255;
}

/* C for the QuantizeLinear of float expression x by p: an int expression. */
static char *
quantize_expr (const FwQdqParams *p, const char *x)
{
  gint64 lo, hi, zp = zp_at (p, 0);
  g_autofree char *s = fw_hc_flit (scale_at (p, 0));
  g_autofree char *flo = NULL, *fhi = NULL;

  qrange (p->qtype, &lo, &hi);
  flo = fw_hc_flit ((float) (lo - zp));
  fhi = fw_hc_flit ((float) (hi - zp));
  return g_strdup_printf ("fw_q (%s, %s, %s, %s, %" G_GINT64_FORMAT ")", x, s, flo, fhi, zp);
}

/* The expression of an operand element as the unsigned (unsigned_side) or signed byte the product takes,
 * from input `in` at flat index `i`. */
static char *
byte_expr (Int8Gen *g, const FwQdqOperand *op, gboolean unsigned_side, const char *i)
{
  FwValue *src = op->q.node != NULL ? op->q.real : op->dq.integer;
  guint k = add_input (g, src);
  g_autofree char *raw = NULL;
  gboolean is_signed = op->dq.qtype == FW_DTYPE_INT8;

  if (op->q.node != NULL)
    {
      g_autofree char *x = g_strdup_printf ("in%u[%s]", k, i);
      raw = quantize_expr (&op->q, x);
    }
  else
    raw = g_strdup_printf ("in%u[%s]", k, i);
  /* The shift by 128 flips the top bit of the byte. */
  if (unsigned_side)
    return is_signed ? g_strdup_printf ("(uint8_t) ((uint8_t) (%s) ^ 0x80u)", raw) : g_strdup_printf ("(uint8_t) (%s)", raw);
  return is_signed ? g_strdup_printf ("(int8_t) (%s)", raw) : g_strdup_printf ("(int8_t) ((uint8_t) (%s) ^ 0x80u)", raw);
}

static void
append_runtime (GString *s)
{
  g_string_append (s,
    "#include <math.h>\n#include <stdint.h>\n#include <stdlib.h>\n#include <string.h>\n"
    "#if defined(__x86_64__) && defined(__GNUC__)\n#include <immintrin.h>\n#define FW_HAVE_VNNI 1\n#endif\n\n"
    "typedef void (*fw_sk_sgemm) (int trans_a, int trans_b, int m, int n, int k, float alpha, const float *a,\n"
    "                             int lda, const float *b, int ldb, float beta, float *c, int ldc);\n"
    "typedef struct { int abi; int features; fw_sk_sgemm sgemm; } fw_sk_runtime;\n\n");
  g_string_append_printf (s, "const int fw_sk_abi_version = %d;\n\n", FW_SK_ABI_VERSION);
  g_string_append (s,
    "static inline int\nfw_q (float x, float s, float lo, float hi, int zp)\n{\n"
    "  float v = x / s;\n  v = v > lo ? v : lo;\n  v = v < hi ? v : hi;\n  return (int) rintf (v) + zp;\n}\n\n"
    "static void\nfw_dot_portable (const uint8_t *u, const int8_t *w, int64_t r0, int64_t r1, int64_t nc, int64_t kp,\n"
    "                 int32_t *acc, int64_t rs, int64_t cs)\n{\n"
    "  for (int64_t r = r0; r < r1; r++)\n    for (int64_t c = 0; c < nc; c++)\n    {\n"
    "      const uint8_t *a = u + r * kp;\n      const int8_t *b = w + c * kp;\n      int32_t sum = 0;\n"
    "      for (int64_t k = 0; k < kp; k++)\n        sum += (int32_t) a[k] * (int32_t) b[k];\n"
    "      acc[r * rs + c * cs] = sum;\n    }\n}\n\n"
    "#ifdef FW_HAVE_VNNI\n"
    "/* Four rows by four columns of dot products, 64 bytes of k a step. */\n"
    "__attribute__ ((target (\"avx512f,avx512bw,avx512vnni\"))) static void\n"
    "fw_dot_vnni (const uint8_t *u, const int8_t *w, int64_t r0, int64_t r1, int64_t nc, int64_t kp,\n"
    "             int32_t *acc, int64_t rs, int64_t cs)\n{\n"
    "  for (int64_t r = r0; r < r1; r += 4)\n    for (int64_t c = 0; c < nc; c += 4)\n    {\n"
    "      __m512i s[4][4];\n      const uint8_t *a[4];\n      const int8_t *b[4];\n"
    "      for (int i = 0; i < 4; i++)\n      {\n"
    "        a[i] = u + (r + i < r1 ? r + i : r1 - 1) * kp;\n"
    "        b[i] = w + (c + i < nc ? c + i : nc - 1) * kp;\n"
    "        for (int j = 0; j < 4; j++)\n          s[i][j] = _mm512_setzero_si512 ();\n      }\n"
    "      for (int64_t k = 0; k < kp; k += 64)\n      {\n"
    "        __m512i va[4], vb[4];\n"
    "        for (int i = 0; i < 4; i++)\n        {\n"
    "          va[i] = _mm512_loadu_si512 ((const void *) (a[i] + k));\n"
    "          vb[i] = _mm512_loadu_si512 ((const void *) (b[i] + k));\n        }\n"
    "        for (int i = 0; i < 4; i++)\n          for (int j = 0; j < 4; j++)\n"
    "            s[i][j] = _mm512_dpbusd_epi32 (s[i][j], va[i], vb[j]);\n      }\n"
    "      for (int i = 0; i < 4 && r + i < r1; i++)\n        for (int j = 0; j < 4 && c + j < nc; j++)\n"
    "          acc[(r + i) * rs + (c + j) * cs] = _mm512_reduce_add_epi32 (s[i][j]);\n    }\n}\n#endif\n\n");
}

static void
append_array (GString *s, const char *type, const char *name, gint64 n, gboolean is_float, const FwQdqParams *p,
              gint64 shift, float other_scale)
{
  g_string_append_printf (s, "static const %s %s[%" G_GINT64_FORMAT "] = {", type, name, n);
  for (gint64 i = 0; i < n; i++)
    {
      if (i % 8 == 0)
        g_string_append (s, "\n  ");
      if (is_float)
        {
          g_autofree char *f = fw_hc_flit (other_scale * scale_at (p, i));
          g_string_append_printf (s, "%s, ", f);
        }
      else
        g_string_append_printf (s, "%" G_GINT64_FORMAT ", ", zp_at (p, i) + shift);
    }
  g_string_append (s, "\n};\n");
}

/* The operand expression of an epilogue input, indexed by the flat output index o. */
static char *
operand_expr (Int8Gen *g, FwValue *v)
{
  const FwValue *out = g->q.root->outputs[0];
  const char *local = g_hash_table_lookup (g->locals, v);
  GString *idx;
  gint64 stride = 1, ostride = 1;
  guint k;

  if (local != NULL)
    return g_strdup (local);
  k = add_input (g, v);
  if (fw_value_get_n_elements (v) == 1)
    return g_strdup_printf ("in%u[0]", k);
  if (fw_value_get_n_elements (v) == fw_value_get_n_elements (out))
    return g_strdup_printf ("in%u[o]", k);
  idx = g_string_new ("0");
  for (gint a = out->rank - 1; a >= 0; a--)
    {
      gint va = v->rank - (out->rank - a);
      gint64 d = out->dims[a].value;
      if (va >= 0 && v->dims[va].value != 1)
        {
          g_string_append_printf (idx, " + ((o / %" G_GINT64_FORMAT ") %% %" G_GINT64_FORMAT ") * %" G_GINT64_FORMAT,
                                  ostride, d, stride);
          stride *= d;
        }
      ostride *= d;
    }
  {
    char *r = g_strdup_printf ("in%u[%s]", k, idx->str);
    g_string_free (idx, TRUE);
    return r;
  }
}

static gboolean
epilogue_statement (Int8Gen *g, const FwNode *n, GString *s, GError **error)
{
  g_autofree char *a = operand_expr (g, n->inputs[0]);
  g_autofree char *b = n->n_inputs > 1 ? operand_expr (g, n->inputs[1]) : NULL;
  char *name = g_strdup_printf ("t%u", g->n_tmp++);
  const char *op = n->op_type;
  g_autofree char *e = NULL;

  if (strcmp (op, "Relu") == 0)
    e = g_strdup_printf ("(%s > 0.0f ? %s : 0.0f)", a, a);
  else if (b != NULL && (strcmp (op, "Add") == 0 || strcmp (op, "Sub") == 0 || strcmp (op, "Mul") == 0 ||
                         strcmp (op, "Div") == 0))
    e = g_strdup_printf ("(%s %c %s)", a, op[0] == 'A' ? '+' : op[0] == 'S' ? '-' : op[0] == 'M' ? '*' : '/', b);
  else if (strcmp (op, "Sigmoid") == 0)
    e = g_strdup_printf ("(1.0f / (1.0f + expf (-%s)))", a);
  else if (strcmp (op, "Tanh") == 0)
    e = g_strdup_printf ("tanhf (%s)", a);
  else if (strcmp (op, "Erf") == 0)
    e = g_strdup_printf ("erff (%s)", a);
  else if (strcmp (op, "Neg") == 0)
    e = g_strdup_printf ("(-%s)", a);
  else if (strcmp (op, "Abs") == 0)
    e = g_strdup_printf ("fabsf (%s)", a);
  else if (strcmp (op, "Exp") == 0)
    e = g_strdup_printf ("expf (%s)", a);
  else if (strcmp (op, "Sqrt") == 0)
    e = g_strdup_printf ("sqrtf (%s)", a);
  else if (strcmp (op, "Identity") == 0)
    e = g_strdup (a);
  else
    {
      g_free (name);
      return fw_hc_unsupported (error, _("no integer-kernel epilogue for %s"), op);
    }
  g_string_append_printf (s, "      const float %s = %s;\n", name, e);
  g_hash_table_insert (g->locals, n->outputs[0], name);
  return TRUE;
}

/* The shapes of the product: batches, rows (U), columns (S), and how the output and the operands step. */
typedef struct
{
  gint64 nb, nr, nc, k, kp;
  gint64 a_batch, b_batch;  /* element offsets per batch of A and B (0: shared) */
  gint64 b_ks, b_cs;        /* S[c][k] = B[b_batch·bt + k·b_ks + c·b_cs] */
  gboolean conv;            /* output [bt][c][r]; else [bt][r][c] */
  /* Conv */
  gint64 C, H, W, KH, KW, OH, OW, sh, sw, dh, dw, pt, pl;
} Shape;

static gboolean
conv_shape (const FwNode *node, Shape *sh, GError **error)
{
  const FwValue *x = node->inputs[0], *w = node->inputs[1], *y = node->outputs[0];
  const char *auto_pad = fw_node_get_attr_string (node, "auto_pad");
  const gint64 *v;
  guint n = 0;

  sh->conv = TRUE;
  sh->nb = x->dims[0].value;
  sh->C = x->dims[1].value;
  sh->H = x->dims[2].value;
  sh->W = x->dims[3].value;
  sh->nc = w->dims[0].value;
  sh->KH = w->dims[2].value;
  sh->KW = w->dims[3].value;
  sh->OH = y->dims[2].value;
  sh->OW = y->dims[3].value;
  sh->nr = sh->OH * sh->OW;
  sh->sh = sh->sw = sh->dh = sh->dw = 1;
  sh->pt = sh->pl = 0;
  if ((v = fw_node_get_attr_ints (node, "strides", &n)) && n == 2)
    sh->sh = v[0], sh->sw = v[1];
  if ((v = fw_node_get_attr_ints (node, "dilations", &n)) && n == 2)
    sh->dh = v[0], sh->dw = v[1];
  if (auto_pad != NULL && (strcmp (auto_pad, "SAME_UPPER") == 0 || strcmp (auto_pad, "SAME_LOWER") == 0))
    {
      gint64 th = MAX (0, (sh->OH - 1) * sh->sh + (sh->KH - 1) * sh->dh + 1 - sh->H);
      gint64 tw = MAX (0, (sh->OW - 1) * sh->sw + (sh->KW - 1) * sh->dw + 1 - sh->W);
      gboolean upper = strcmp (auto_pad, "SAME_UPPER") == 0;
      sh->pt = upper ? th / 2 : th - th / 2;
      sh->pl = upper ? tw / 2 : tw - tw / 2;
    }
  else if ((v = fw_node_get_attr_ints (node, "pads", &n)) && n == 4)
    sh->pt = v[0], sh->pl = v[1];
  if (sh->sh < 1 || sh->sw < 1 || sh->dh < 1 || sh->dw < 1 || w->dims[1].value != sh->C)
    return fw_hc_unsupported (error, _("Conv attributes out of range"));
  sh->a_batch = sh->C * sh->H * sh->W;
  sh->b_batch = 0;
  sh->b_ks = 1;
  sh->b_cs = sh->C * sh->KH * sh->KW;
  return TRUE;
}

static gboolean
product_shape (const FwNode *node, gint64 k, Shape *sh, GError **error)
{
  const FwValue *a = node->inputs[0], *b = node->inputs[1], *y = node->outputs[0];

  memset (sh, 0, sizeof *sh);
  sh->k = k;
  sh->kp = (k + 63) / 64 * 64;
  if (strcmp (node->op_type, "Conv") == 0)
    return conv_shape (node, sh, error);
  sh->nr = y->dims[y->rank - 2].value;
  sh->nc = y->dims[y->rank - 1].value;
  sh->nb = fw_value_get_n_elements (y) / MAX (sh->nr * sh->nc, 1);
  if (strcmp (node->op_type, "Gemm") == 0)
    {
      gboolean tb = fw_node_get_attr_int (node, "transB", 0) != 0;
      sh->b_ks = tb ? 1 : sh->nc;
      sh->b_cs = tb ? k : 1;
      return TRUE;
    }
  if (a->rank != y->rank || (b->rank != 2 && b->rank != y->rank))
    return fw_hc_unsupported (error, _("an integer MatMul whose operands broadcast their batch axes"));
  for (gint d = 0; b->rank > 2 && d < y->rank - 2; d++)
    if (a->dims[d].value != b->dims[d].value)
      return fw_hc_unsupported (error, _("an integer MatMul whose operands broadcast their batch axes"));
  sh->a_batch = sh->nr * k;
  sh->b_batch = b->rank == 2 ? 0 : k * sh->nc;
  sh->b_ks = sh->nc;
  sh->b_cs = 1;
  return TRUE;
}

/* Packs U (rows of A, or a Conv's im2col patches) for batch bt, with its row sums. */
static void
emit_pack_u (Int8Gen *g, const Shape *sh, gint64 zu)
{
  GString *s = g->body;
  g_autofree char *ua = NULL;

  if (sh->conv)
    {
      ua = byte_expr (g, &g->q.a, TRUE, "i");
      /* The activation as bytes once, then the patches from it. */
      g_string_append_printf (s, "    for (int64_t i = bt * %" G_GINT64_FORMAT "; i < (bt + 1) * %" G_GINT64_FORMAT
                              "; i++)\n      xu[i - bt * %" G_GINT64_FORMAT "] = %s;\n",
                              sh->a_batch, sh->a_batch, sh->a_batch, ua);
      g_string_append_printf (s, "#pragma omp parallel for num_threads(nt) schedule(static)\n"
                              "    for (int64_t r = 0; r < %" G_GINT64_FORMAT "; r++)\n    {\n", sh->nr);
      g_string_append_printf (s, "      const int64_t oh = r / %" G_GINT64_FORMAT ", ow = r %% %" G_GINT64_FORMAT ";\n"
                              "      uint8_t *d = pu + r * %" G_GINT64_FORMAT ";\n      int32_t sum = 0;\n      int64_t k = 0;\n",
                              sh->OW, sh->OW, sh->kp);
      g_string_append_printf (s, "      for (int64_t c = 0; c < %" G_GINT64_FORMAT "; c++)\n"
                              "        for (int64_t ki = 0; ki < %" G_GINT64_FORMAT "; ki++)\n"
                              "          for (int64_t kj = 0; kj < %" G_GINT64_FORMAT "; kj++, k++)\n          {\n",
                              sh->C, sh->KH, sh->KW);
      g_string_append_printf (s, "            const int64_t ih = oh * %" G_GINT64_FORMAT " - %" G_GINT64_FORMAT
                              " + ki * %" G_GINT64_FORMAT ", iw = ow * %" G_GINT64_FORMAT " - %" G_GINT64_FORMAT
                              " + kj * %" G_GINT64_FORMAT ";\n", sh->sh, sh->pt, sh->dh, sh->sw, sh->pl, sh->dw);
      g_string_append_printf (s, "            const uint8_t x = ih >= 0 && ih < %" G_GINT64_FORMAT " && iw >= 0 && iw < %"
                              G_GINT64_FORMAT " ? xu[(c * %" G_GINT64_FORMAT " + ih) * %" G_GINT64_FORMAT " + iw] : %"
                              G_GINT64_FORMAT ";\n", sh->H, sh->W, sh->H, sh->W, zu);
      g_string_append (s, "            d[k] = x;\n            sum += x;\n          }\n");
    }
  else
    {
      g_autofree char *i = g_strdup_printf ("bt * %" G_GINT64_FORMAT " + r * %" G_GINT64_FORMAT " + k", sh->a_batch, sh->k);
      ua = byte_expr (g, &g->q.a, TRUE, i);
      g_string_append_printf (s, "#pragma omp parallel for num_threads(nt) schedule(static)\n"
                              "    for (int64_t r = 0; r < %" G_GINT64_FORMAT "; r++)\n    {\n", sh->nr);
      g_string_append_printf (s, "      uint8_t *d = pu + r * %" G_GINT64_FORMAT ";\n      int32_t sum = 0;\n"
                              "      int64_t k = 0;\n      for (k = 0; k < %" G_GINT64_FORMAT "; k++)\n"
                              "      {\n        const uint8_t x = %s;\n        d[k] = x;\n        sum += x;\n      }\n",
                              sh->kp, sh->k, ua);
    }
  g_string_append_printf (s, "      for (; k < %" G_GINT64_FORMAT "; k++)\n        d[k] = 0;\n"
                          "      rsum[r] = sum;\n    }\n", sh->kp);
}

static void
emit_pack_s (Int8Gen *g, const Shape *sh)
{
  GString *s = g->body;
  g_autofree char *i = g_strdup_printf ("bt * %" G_GINT64_FORMAT " + k * %" G_GINT64_FORMAT " + c * %" G_GINT64_FORMAT,
                                        sh->b_batch, sh->b_ks, sh->b_cs);
  g_autofree char *sb = byte_expr (g, &g->q.b, FALSE, i);

  g_string_append_printf (s, "#pragma omp parallel for num_threads(nt) schedule(static)\n"
                          "    for (int64_t c = 0; c < %" G_GINT64_FORMAT "; c++)\n    {\n", sh->nc);
  g_string_append_printf (s, "      int8_t *d = ps + c * %" G_GINT64_FORMAT ";\n      int32_t sum = 0;\n      int64_t k = 0;\n"
                          "      for (k = 0; k < %" G_GINT64_FORMAT "; k++)\n"
                          "      {\n        const int8_t x = %s;\n        d[k] = x;\n        sum += x;\n      }\n"
                          "      for (; k < %" G_GINT64_FORMAT "; k++)\n        d[k] = 0;\n      csum[c] = sum;\n    }\n",
                          sh->kp, sh->k, sb, sh->kp);
}

static gboolean
emit_epilogue (Int8Gen *g, const Shape *sh, gint64 zu, GError **error)
{
  GString *s = g->body;
  g_autoptr(GString) stmts = g_string_new (NULL);
  const char *result;
  FwValue *bias_v = g->q.bias.node != NULL ? g->q.bias.integer : g->q.float_bias;
  gint64 per_batch = sh->nr * sh->nc;

  g_hash_table_insert (g->locals, g->q.root->outputs[0], g_strdup ("y"));
  for (guint i = 0; i < g->q.epilogue->len; i++)
    if (!epilogue_statement (g, g_ptr_array_index (g->q.epilogue, i), stmts, error))
      return FALSE;
  result = g->q.epilogue->len > 0 ? g_hash_table_lookup (g->locals, g->q.result == g->q.out.integer ?
                                                         g->q.out.real : g->q.result) : "y";
  if (result == NULL)
    return fw_hc_unsupported (error, _("the integer group's result is not its last node's"));
  g_string_append_printf (s, "#pragma omp parallel for num_threads(nt) schedule(static)\n"
                          "    for (int64_t l = 0; l < %" G_GINT64_FORMAT "; l++)\n    {\n", per_batch);
  g_string_append_printf (s, "      const int64_t o = bt * %" G_GINT64_FORMAT " + l;\n", per_batch);
  if (sh->conv)
    g_string_append_printf (s, "      const int64_t c = l / %" G_GINT64_FORMAT ", r = l %% %" G_GINT64_FORMAT ";\n",
                            sh->nr, sh->nr);
  else
    g_string_append_printf (s, "      const int64_t r = l / %" G_GINT64_FORMAT ", c = l %% %" G_GINT64_FORMAT ";\n",
                            sh->nc, sh->nc);
  g_string_append_printf (s, "      const int64_t zs = zsb[%s];\n", g->q.b.dq.n == 1 ? "0" : "c");
  g_string_append_printf (s, "      const int64_t exact = (int64_t) acc[l] - zs * rsum[r] - (int64_t) %" G_GINT64_FORMAT
                          " * csum[c] + (int64_t) %" G_GINT64_FORMAT " * %" G_GINT64_FORMAT " * zs;\n",
                          zu, sh->k, zu);
  g_string_append_printf (s, "      float y = (float) exact * mult[%s];\n", g->q.b.dq.n == 1 ? "0" : "c");
  if (bias_v != NULL)
    {
      guint k = add_input (g, bias_v);
      if (g->q.bias.node != NULL)
        g_string_append_printf (s, "      y = y + (float) ((int64_t) in%u[c] - zbias[%s]) * sbias[%s];\n", k,
                                g->q.bias.n == 1 ? "0" : "c", g->q.bias.n == 1 ? "0" : "c");
      else
        g_string_append_printf (s, "      y = y + in%u[c];\n", k);
    }
  g_string_append (s, stmts->str);
  if (g->q.out.node != NULL)
    {
      g_autofree char *q = quantize_expr (&g->q.out, result);
      g_string_append_printf (s, "      out0[o] = (%s) %s;\n", g->q.out.qtype == FW_DTYPE_INT8 ? "int8_t" : "uint8_t", q);
    }
  else
    g_string_append_printf (s, "      out0[o] = %s;\n", result);
  g_string_append (s, "      (void) r;\n    }\n");
  return TRUE;
}

static gboolean
generate (Int8Gen *g, GError **error)
{
  Shape sh;
  FwQdqGroup *q = &g->q;
  gint64 zu = zp_at (&q->a.dq, 0) + (q->a.dq.qtype == FW_DTYPE_INT8 ? 128 : 0);
  gint64 shift_s = q->b.dq.qtype == FW_DTYPE_UINT8 ? -128 : 0;
  GString *s = g->body;

  if (!product_shape (q->root, q->k, &sh, error))
    return FALSE;
  if (q->bias.node != NULL && q->bias.integer->dtype != FW_DTYPE_INT32)
    return fw_hc_unsupported (error, _("an integer bias that is not int32"));
  append_array (g->decls, "float", "mult", q->b.dq.n, TRUE, &q->b.dq, 0, scale_at (&q->a.dq, 0));
  append_array (g->decls, "int64_t", "zsb", q->b.dq.n, FALSE, &q->b.dq, shift_s, 0);
  if (q->bias.node != NULL)
    {
      append_array (g->decls, "float", "sbias", q->bias.n, TRUE, &q->bias, 0, 1.0f);
      append_array (g->decls, "int64_t", "zbias", q->bias.n, FALSE, &q->bias, 0, 0);
    }
  g_ptr_array_add (g->kernel->outputs, q->result);
  g_string_append_printf (s, "  uint8_t *pu = (uint8_t *) aligned_alloc (64, %" G_GINT64_FORMAT ");\n"
                          "  int8_t *ps = (int8_t *) aligned_alloc (64, %" G_GINT64_FORMAT ");\n"
                          "  int32_t *acc = (int32_t *) malloc (sizeof (int32_t) * %" G_GINT64_FORMAT ");\n"
                          "  int32_t *rsum = (int32_t *) malloc (sizeof (int32_t) * %" G_GINT64_FORMAT ");\n"
                          "  int32_t *csum = (int32_t *) malloc (sizeof (int32_t) * %" G_GINT64_FORMAT ");\n"
                          "  uint8_t *xu = (uint8_t *) malloc (%" G_GINT64_FORMAT ");\n"
                          "  if (!pu || !ps || !acc || !rsum || !csum || !xu) goto out;\n",
                          sh.nr * sh.kp, sh.nc * sh.kp, sh.nr * sh.nc, sh.nr, sh.nc, sh.conv ? sh.a_batch : 1);
  g_string_append_printf (s, "  for (int64_t bt = 0; bt < %" G_GINT64_FORMAT "; bt++)\n  {\n", sh.nb);
  /* A shared right operand (weights) is packed once. */
  if (sh.b_batch == 0)
    g_string_append (s, "  if (bt == 0)\n  {\n");
  else
    g_string_append (s, "  {\n");
  emit_pack_s (g, &sh);
  g_string_append (s, "  }\n");
  emit_pack_u (g, &sh, zu);
  g_string_append_printf (s, "  {\n    const int64_t rs = %" G_GINT64_FORMAT ", cs = %" G_GINT64_FORMAT ";\n",
                          sh.conv ? 1 : sh.nc, sh.conv ? sh.nr : 1);
  g_string_append_printf (s, "#pragma omp parallel for num_threads(nt) schedule(dynamic, 1)\n"
                          "    for (int64_t r0 = 0; r0 < %" G_GINT64_FORMAT "; r0 += 16)\n    {\n"
                          "      const int64_t r1 = r0 + 16 < %" G_GINT64_FORMAT " ? r0 + 16 : %" G_GINT64_FORMAT ";\n",
                          sh.nr, sh.nr, sh.nr);
  g_string_append_printf (s, "#ifdef FW_HAVE_VNNI\n      if (vnni)\n        fw_dot_vnni (pu, ps, r0, r1, %" G_GINT64_FORMAT
                          ", %" G_GINT64_FORMAT ", acc, rs, cs);\n      else\n#endif\n"
                          "        fw_dot_portable (pu, ps, r0, r1, %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                          ", acc, rs, cs);\n    }\n  }\n", sh.nc, sh.kp, sh.nc, sh.kp);
  if (!emit_epilogue (g, &sh, zu, error))
    return FALSE;
  g_string_append (s, "  }\n");
  return TRUE;
}

gboolean
fw_hc_int8_codegen (FwSuperKernel *kernel, GError **error)
{
  Int8Gen g = { 0 };
  GString *src;
  gboolean ok;

  g.kernel = kernel;
  if (!fw_qdq_group_describe (kernel->candidate, &g.q))
    return fw_hc_unsupported (error, _("candidate %u is not an integer group"), kernel->candidate->index);
  g.decls = g_string_new (NULL);
  g.body = g_string_new (NULL);
  g.locals = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  ok = generate (&g, error);
  if (ok)
    {
      src = g_string_new ("/* Fusion Workbench host SuperKernel (integer QDQ group), generated: do not edit. */\n");
      append_runtime (src);
      g_string_append (src, g.decls->str);
      g_string_append (src, "\nint\nfw_sk_entry (const fw_sk_runtime *rt, const void *const *ins, void *const *outs, int nt)\n{\n");
      for (guint i = 0; i < kernel->inputs->len; i++)
        {
          FwValue *v = g_ptr_array_index (kernel->inputs, i);
          g_string_append_printf (src, "  const %s *restrict in%u = (const %s *) ins[%u];\n", fw_hc_mem_type (v->dtype), i,
                                  fw_hc_mem_type (v->dtype), i);
        }
      g_string_append_printf (src, "  %s *restrict out0 = (%s *) outs[0];\n", fw_hc_mem_type (g.q.result->dtype),
                              fw_hc_mem_type (g.q.result->dtype));
      g_string_append_printf (src, "  const int vnni = (rt->features & %d) != 0;\n  int status = 1;\n  (void) vnni;\n"
                              "  if (nt < 1)\n    nt = 1;\n", FW_SK_CPU_VNNI);
      g_string_append (src, g.body->str);
      g_string_append (src, "  status = 0;\nout:\n  free (pu);\n  free (ps);\n  free (acc);\n  free (rsum);\n"
                            "  free (csum);\n  free (xu);\n  return status;\n}\n");
      kernel->source = g_string_free (src, FALSE);
      kernel->scratch_elements = 0;
    }
  g_string_free (g.decls, TRUE);
  g_string_free (g.body, TRUE);
  g_hash_table_unref (g.locals);
  fw_qdq_group_clear (&g.q);
  return ok;
}
