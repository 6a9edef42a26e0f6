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
 * is chosen at run time (rt->features), then AVX2 (exact int16 pair products); the portable path computes the
 * same integers with scalar loops.
 *
 * The float part follows the ONNX operators' arithmetic: y = float(acc) × (s_a · s_b[c]) + bias[c], the
 * bias dequantised as (b − zp) × scale; QuantizeLinear divides by its scale, clamps to the type's range
 * less the zero point, rounds half to even (rintf there; here by adding and taking off 1.5·2²³, the same on
 * the clamped range, which vectorises without SSE4.1) and adds the zero point (fw-kernels-quantize.c). */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-host-codegen-private.h"
#include "graph/fw-window.h"
#include "plan/fw-qdq.h"

typedef struct
{
  FwSuperKernel *kernel;
  FwQdqGroup     q;
  GString       *decls;
  guint          s_input;   /* the kernel input the signed operand is read from */
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

/* The runtime text every integer kernel starts with: the table, QuantizeLinear, and the micro-kernel in its
 * two forms. The micro-kernel sums mi (at most 6) rows of unsigned bytes, each read at ntaps offsets toff
 * for kt bytes, against 64 signed columns packed as a VNNI panel: per 16 columns (ws bytes apart), per 4
 * bytes of k, the 16 columns' 4 bytes side by side, so one vpdpbusd takes 4 bytes of a row broadcast
 * against 16 columns. 6 rows by 4 vectors keep 24 int32 accumulators in registers. */
static void
append_runtime (GString *s)
{
  g_string_append (s,
    "#include <math.h>\n#include <stdint.h>\n#include <stdlib.h>\n#include <string.h>\n"
    "#if defined(__x86_64__) && defined(__GNUC__)\n#include <immintrin.h>\n#define FW_HAVE_VNNI 1\n"
    "#define FW_VNNI_TARGET __attribute__ ((target (\"avx512f,avx512bw,avx512dq,avx512vl,avx512vnni\")))\n"
    "#define FW_AVX2_TARGET __attribute__ ((target (\"avx2\")))\n#endif\n"
    /* GCC's -O3 unrolls a depthwise Conv's loop over taps and jams the copies into its loop over channels,
       which then stays scalar: mobilenet_v3_small_qdq's 5×5 depthwise kernels ran 4x slower so. */
    "#if defined(__GNUC__) && !defined(__clang__)\n"
    "#define FW_NO_JAM __attribute__ ((optimize (\"no-loop-unroll-and-jam\")))\n#else\n#define FW_NO_JAM\n#endif\n\n");
  fw_hc_append_runtime_table (s);
  g_string_append (s,
    "static inline int\nfw_q (float x, float s, float lo, float hi, int zp)\n{\n"
    "  float v = x / s;\n  v = v > lo ? v : lo;\n  v = v < hi ? v : hi;\n"
    "  return (int) ((v + 12582912.0f) - 12582912.0f) + zp;\n}\n\n"
    "static void\nfw_mk_portable (int mi, const uint8_t *const *rows, const int64_t *toff, int64_t ntaps, int64_t kt,\n"
    "                const int8_t *w, int64_t ws, int32_t *t)\n{\n"
    "  for (int i = 0; i < mi; i++)\n    for (int j = 0; j < 64; j++)\n    {\n"
    "      const int8_t *wb = w + (j >> 4) * ws + (j & 15) * 4;\n      int32_t sum = 0;\n"
    "      for (int64_t tp = 0; tp < ntaps; tp++)\n        for (int64_t k = 0; k < kt; k += 4)\n        {\n"
    "          const uint8_t *u = rows[i] + toff[tp] + k;\n          const int8_t *x = wb + (tp * kt + k) * 16;\n"
    "          sum += u[0] * x[0] + u[1] * x[1] + u[2] * x[2] + u[3] * x[3];\n        }\n"
    "      t[i * 64 + j] = sum;\n    }\n}\n\n"
    );
  /* Each row count written out, its accumulators plain variables: with an array indexed by a loop, GCC
     interchanged the loops and reloaded the columns for each row. */
  g_string_append (s, "#ifdef FW_HAVE_VNNI\n");
  for (gint mi = 1; mi <= 6; mi++)
    {
      g_string_append_printf (s, "static FW_VNNI_TARGET void\n"
                              "fw_mk_vnni_%d (const uint8_t *const *rows, const int64_t *toff, int64_t ntaps, int64_t kt,\n"
                              "               const int8_t *w, int64_t ws, int32_t *t)\n{\n", mi);
      for (gint i = 0; i < mi; i++)
        g_string_append_printf (s, "  __m512i a%d0 = _mm512_setzero_si512 (), a%d1 = a%d0, a%d2 = a%d0, a%d3 = a%d0;\n",
                                i, i, i, i, i, i, i);
      g_string_append (s, "  for (int64_t tp = 0; tp < ntaps; tp++)\n  {\n    const int8_t *wt = w + tp * kt * 16;\n");
      for (gint i = 0; i < mi; i++)
        g_string_append_printf (s, "    const uint8_t *r%d = rows[%d] + toff[tp];\n", i, i);
      g_string_append (s, "    for (int64_t k = 0; k < kt; k += 4)\n    {\n"
                          "      const __m512i w0 = _mm512_loadu_si512 ((const void *) (wt + k * 16));\n"
                          "      const __m512i w1 = _mm512_loadu_si512 ((const void *) (wt + ws + k * 16));\n"
                          "      const __m512i w2 = _mm512_loadu_si512 ((const void *) (wt + 2 * ws + k * 16));\n"
                          "      const __m512i w3 = _mm512_loadu_si512 ((const void *) (wt + 3 * ws + k * 16));\n"
                          "      int32_t v;\n      __m512i b;\n");
      for (gint i = 0; i < mi; i++)
        g_string_append_printf (s, "      memcpy (&v, r%d + k, 4);\n      b = _mm512_set1_epi32 (v);\n"
                                "      a%d0 = _mm512_dpbusd_epi32 (a%d0, b, w0);\n      a%d1 = _mm512_dpbusd_epi32 (a%d1, b, w1);\n"
                                "      a%d2 = _mm512_dpbusd_epi32 (a%d2, b, w2);\n      a%d3 = _mm512_dpbusd_epi32 (a%d3, b, w3);\n",
                                i, i, i, i, i, i, i, i, i);
      g_string_append (s, "    }\n  }\n");
      for (gint i = 0; i < mi; i++)
        for (gint j = 0; j < 4; j++)
          g_string_append_printf (s, "  _mm512_storeu_si512 ((void *) (t + %d), a%d%d);\n", i * 64 + j * 16, i, j);
      g_string_append (s, "}\n\n");
    }
  g_string_append (s, "static FW_VNNI_TARGET void\n"
                      "fw_mk_vnni_n (int mi, const uint8_t *const *rows, const int64_t *toff, int64_t ntaps, int64_t kt,\n"
                      "              const int8_t *w, int64_t ws, int32_t *t)\n{\n  switch (mi)\n  {\n");
  for (gint mi = 6; mi >= 2; mi--)
    g_string_append_printf (s, "  case %d: fw_mk_vnni_%d (rows, toff, ntaps, kt, w, ws, t); break;\n", mi, mi);
  g_string_append (s, "  default: fw_mk_vnni_1 (rows, toff, ntaps, kt, w, ws, t); break;\n");
  g_string_append (s, "  }\n}\n\n");
  /* AVX2 without VNNI: the panel's bytes widened to int16 and multiplied by vpmaddwd, whose int32 pair sums
     are exact (2 · 255 · 128 fits). vpmaddubsw would be one instruction fewer but sums its pairs in saturating
     int16, which full-range weights overflow (ONNX Runtime's error on such CPUs). Two rows at a time share
     each widened panel vector (4 of them, 8 accumulators and the row's bytes: 13 of the 16 registers); per
     row and 16 columns, four accumulators hold each column's two partial sums side by side. */
  g_string_append (s,
    "static FW_AVX2_TARGET void\n"
    "fw_mk_avx2 (int mi, const uint8_t *const *rows, const int64_t *toff, int64_t ntaps, int64_t kt,\n"
    "            const int8_t *w, int64_t ws, int32_t *t)\n{\n"
    "  for (int i = 0; i < mi; i += 2)\n    for (int g = 0; g < 4; g++)\n    {\n"
    "      const int two = i + 1 < mi;\n"
    "      __m256i a0 = _mm256_setzero_si256 (), a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0, b2 = a0, b3 = a0;\n"
    "      int32_t part[32];\n"
    "      for (int64_t tp = 0; tp < ntaps; tp++)\n      {\n"
    "        const uint8_t *r = rows[i] + toff[tp], *q = rows[two ? i + 1 : i] + toff[tp];\n"
    "        const int8_t *wt = w + g * ws + tp * kt * 16;\n"
    "        for (int64_t k = 0; k < kt; k += 4)\n        {\n"
    "          const int8_t *x = wt + k * 16;\n"
    "          const __m256i w0 = _mm256_cvtepi8_epi16 (_mm_loadu_si128 ((const __m128i *) x));\n"
    "          const __m256i w1 = _mm256_cvtepi8_epi16 (_mm_loadu_si128 ((const __m128i *) (x + 16)));\n"
    "          const __m256i w2 = _mm256_cvtepi8_epi16 (_mm_loadu_si128 ((const __m128i *) (x + 32)));\n"
    "          const __m256i w3 = _mm256_cvtepi8_epi16 (_mm_loadu_si128 ((const __m128i *) (x + 48)));\n"
    "          int32_t v;\n          __m256i u;\n"
    "          memcpy (&v, r + k, 4);\n          u = _mm256_cvtepu8_epi16 (_mm_set1_epi32 (v));\n"
    "          a0 = _mm256_add_epi32 (a0, _mm256_madd_epi16 (u, w0));\n"
    "          a1 = _mm256_add_epi32 (a1, _mm256_madd_epi16 (u, w1));\n"
    "          a2 = _mm256_add_epi32 (a2, _mm256_madd_epi16 (u, w2));\n"
    "          a3 = _mm256_add_epi32 (a3, _mm256_madd_epi16 (u, w3));\n"
    "          memcpy (&v, q + k, 4);\n          u = _mm256_cvtepu8_epi16 (_mm_set1_epi32 (v));\n"
    "          b0 = _mm256_add_epi32 (b0, _mm256_madd_epi16 (u, w0));\n"
    "          b1 = _mm256_add_epi32 (b1, _mm256_madd_epi16 (u, w1));\n"
    "          b2 = _mm256_add_epi32 (b2, _mm256_madd_epi16 (u, w2));\n"
    "          b3 = _mm256_add_epi32 (b3, _mm256_madd_epi16 (u, w3));\n"
    "        }\n      }\n"
    "      _mm256_storeu_si256 ((__m256i *) part, a0);\n      _mm256_storeu_si256 ((__m256i *) (part + 8), a1);\n"
    "      _mm256_storeu_si256 ((__m256i *) (part + 16), a2);\n      _mm256_storeu_si256 ((__m256i *) (part + 24), a3);\n"
    "      for (int c = 0; c < 16; c++)\n        t[i * 64 + g * 16 + c] = part[2 * c] + part[2 * c + 1];\n"
    "      if (!two)\n        continue;\n"
    "      _mm256_storeu_si256 ((__m256i *) part, b0);\n      _mm256_storeu_si256 ((__m256i *) (part + 8), b1);\n"
    "      _mm256_storeu_si256 ((__m256i *) (part + 16), b2);\n      _mm256_storeu_si256 ((__m256i *) (part + 24), b3);\n"
    "      for (int c = 0; c < 16; c++)\n        t[(i + 1) * 64 + g * 16 + c] = part[2 * c] + part[2 * c + 1];\n"
    "    }\n}\n#endif\n\n");
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
  gint64 nb, nr, nc, k;
  gint64 a_batch, b_batch;  /* element offsets per batch of A and B (0: shared) */
  gint64 b_ks, b_cs;        /* S[c][k] = B[b_batch·bt + k·b_ks + c·b_cs] */
  gboolean conv;            /* output [bt][c][r]; else [bt][r][c] */
  gboolean depthwise;       /* a Conv with one input channel per group and one group per channel */
  /* How the micro-kernel reads a row: ntaps runs of kt bytes (a multiple of 4), krun of them real. A Conv
   * reads its activation as padded NHWC bytes (hp × wp pixels of cp channels), one run per tap; a product
   * reads packed rows of kt bytes, one run. */
  gint64 ntaps, kt, krun;
  gint64 ncp;               /* columns padded to the micro-kernel's 64 */
  /* Conv */
  gint64 C, H, W, KH, KW, OH, OW, sh, sw, dh, dw, pt, pl, hp, wp;
} Shape;

/* Rows of one tile: four micro-kernel calls of 6 rows, by 64 columns. */
#define TILE_ROWS 24

static gboolean
conv_shape (const FwNode *node, Shape *sh, GError **error)
{
  const FwValue *x = node->inputs[0], *w = node->inputs[1];
  const gint64 k[2] = { w->dims[2].value, w->dims[3].value };
  FwWindow2d win;

  if (!fw_window_2d (node, k, &win))
    return fw_hc_unsupported (error, _("Conv attributes out of range"));
  sh->conv = TRUE;
  sh->nb = x->dims[0].value;
  sh->C = x->dims[1].value;
  sh->H = win.in[0];
  sh->W = win.in[1];
  sh->nc = w->dims[0].value;
  sh->KH = k[0];
  sh->KW = k[1];
  sh->OH = win.out[0];
  sh->OW = win.out[1];
  sh->nr = sh->OH * sh->OW;
  sh->sh = win.s[0], sh->sw = win.s[1];
  sh->dh = win.d[0], sh->dw = win.d[1];
  sh->pt = win.begin[0], sh->pl = win.begin[1];
  sh->depthwise = fw_node_get_attr_int (node, "group", 1) != 1;
  if (sh->depthwise && (fw_node_get_attr_int (node, "group", 1) != sh->C || w->dims[1].value != 1 || sh->nc != sh->C))
    return fw_hc_unsupported (error, _("a grouped integer Conv other than depthwise (one channel per group)"));
  if (sh->sh < 1 || sh->sw < 1 || sh->dh < 1 || sh->dw < 1 || (!sh->depthwise && w->dims[1].value != sh->C))
    return fw_hc_unsupported (error, _("Conv attributes out of range"));
  sh->a_batch = sh->C * sh->H * sh->W;
  sh->b_batch = 0;
  sh->b_ks = 1;
  sh->b_cs = w->dims[1].value * sh->KH * sh->KW;
  return TRUE;
}

static gboolean
product_shape (const FwNode *node, gint64 k, Shape *sh, GError **error)
{
  const FwValue *a = node->inputs[0], *b = node->inputs[1], *y = node->outputs[0];

  memset (sh, 0, sizeof *sh);
  sh->k = k;
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

/* The micro-kernel's reading of the shape: padded runs, taps, the padded activation. */
static void
finish_shape (Shape *sh)
{
  sh->ncp = (sh->nc + 63) / 64 * 64;
  if (sh->conv)
    {
      sh->ntaps = sh->KH * sh->KW;
      sh->krun = sh->C;
      sh->kt = (sh->C + 3) / 4 * 4;
      sh->hp = MAX (sh->H + sh->pt, (sh->OH - 1) * sh->sh + (sh->KH - 1) * sh->dh + 1);
      sh->wp = MAX (sh->W + sh->pl, (sh->OW - 1) * sh->sw + (sh->KW - 1) * sh->dw + 1);
    }
  else
    {
      sh->ntaps = 1;
      sh->krun = sh->k;
      sh->kt = (sh->k + 3) / 4 * 4;
    }
}

static gint64
round64 (gint64 n)
{
  return (n + 63) / 64 * 64;
}

/* The panel's bytes (before the int64 column corrections). */
static gint64
panel_bytes (const Shape *sh)
{
  return sh->depthwise ? round64 (sh->ntaps * sh->nc * 4) : sh->ncp * sh->ntaps * sh->kt;
}

static void
emit_decls_of_io (Int8Gen *g, GString *s, gboolean with_output)
{
  for (guint i = 0; i < g->kernel->inputs->len; i++)
    {
      FwValue *v = g_ptr_array_index (g->kernel->inputs, i);
      g_string_append_printf (s, "  const %s *restrict in%u = (const %s *) ins[%u];\n  (void) in%u;\n",
                              fw_hc_mem_type (v->dtype), i, fw_hc_mem_type (v->dtype), i, i);
    }
  if (with_output)
    g_string_append_printf (s, "  %s *restrict out0 = (%s *) outs[0];\n  (void) out0;\n",
                            fw_hc_mem_type (g->q.result->dtype), fw_hc_mem_type (g->q.result->dtype));
}

/* fw_pack_s: the signed operand (batch offset boff) as the VNNI panel, and per column the constant part of
 * the zero-point correction, fix[c] = −zu·Σk s + K·zu·zs[c]. */
static char *
pack_s_body (Int8Gen *g, const Shape *sh, gint64 zu)
{
  GString *s = g_string_new (NULL);
  g_autofree char *i = g_strdup_printf ("boff + k * %" G_GINT64_FORMAT " + c * %" G_GINT64_FORMAT, sh->b_ks, sh->b_cs);
  g_autofree char *sb = byte_expr (g, &g->q.b, FALSE, i);
  gint64 ws = sh->ntaps * sh->kt * 16;

  if (sh->depthwise)
    {
      /* A depthwise Conv's weights as int32 [tap][c], their zero point taken off: its few taps are summed
         directly, (u − zu)(s − zs), without the panel. */
      g_string_append_printf (s, "  (void) fix;\n#pragma omp parallel for num_threads(nt) schedule(static)\n"
                              "  for (int64_t c = 0; c < %" G_GINT64_FORMAT "; c++)\n"
                              "    for (int64_t k = 0; k < %" G_GINT64_FORMAT "; k++)\n"
                              "      ((int32_t *) ps)[k * %" G_GINT64_FORMAT " + c] = (int32_t) (%s) - (int32_t) zsb[%s];\n",
                              sh->nc, sh->ntaps, sh->nc, sb, g->q.b.dq.n == 1 ? "0" : "c");
      return g_string_free (s, FALSE);
    }
  g_string_append_printf (s, "#pragma omp parallel for num_threads(nt) schedule(static)\n"
                          "  for (int64_t c = 0; c < %" G_GINT64_FORMAT "; c++)\n  {\n"
                          "    int8_t *d = ps + (c >> 4) * %" G_GINT64_FORMAT " + (c & 15) * 4;\n    int64_t sum = 0;\n",
                          sh->ncp, ws);
  g_string_append_printf (s, "    for (int64_t tp = 0; tp < %" G_GINT64_FORMAT "; tp++)\n"
                          "      for (int64_t kk = 0; kk < %" G_GINT64_FORMAT "; kk++)\n      {\n        int8_t x = 0;\n"
                          "        const int64_t kq = tp * %" G_GINT64_FORMAT " + kk;\n"
                          "        if (c < %" G_GINT64_FORMAT " && kk < %" G_GINT64_FORMAT ")\n        {\n",
                          sh->ntaps, sh->kt, sh->kt, sh->nc, sh->krun);
  /* A Conv's weight [c][cin][ki][kj] is k = cin·taps + tap; the panel runs tap by tap. */
  g_string_append_printf (s, "          const int64_t k = kk * %" G_GINT64_FORMAT " + tp;\n"
                          "          x = %s;\n          sum += x;\n        }\n"
                          "        d[(kq >> 2) * 64 + (kq & 3)] = x;\n      }\n", sh->ntaps, sb);
  g_string_append_printf (s, "    if (c < %" G_GINT64_FORMAT ")\n      fix[c] = -(int64_t) %" G_GINT64_FORMAT
                          " * sum + (int64_t) %" G_GINT64_FORMAT " * %" G_GINT64_FORMAT " * zsb[%s];\n  }\n",
                          sh->nc, zu, sh->k, zu, g->q.b.dq.n == 1 ? "0" : "c");
  return g_string_free (s, FALSE);
}

/* The activation of batch bt as the bytes the micro-kernel reads (xu), and their row sums when a column
 * zero point needs them. */
static char *
pack_u_body (Int8Gen *g, const Shape *sh, gint64 zu, gboolean need_rsum)
{
  GString *s = g_string_new (NULL);

  if (sh->conv)
    {
      g_autofree char *ua = byte_expr (g, &g->q.a, TRUE, "i");
      /* Padding and the channels past C hold the zero point: dequantised, 0, as ONNX pads the float input. */
      g_string_append_printf (s, "    memset (xu, %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ");\n", zu,
                              sh->hp * sh->wp * sh->kt);
      /* A row of a channel is quantised into bytes along w, where the loop vectorises, then spread kt apart
         (the first Conv of mobilenet_v3_small_qdq spent a third of its time quantising one pixel at a time). */
      g_string_append_printf (s, "#pragma omp parallel for num_threads(nt) schedule(static)\n"
                              "    for (int64_t h = 0; h < %" G_GINT64_FORMAT "; h++)\n"
                              "      for (int64_t c = 0; c < %" G_GINT64_FORMAT "; c++)\n      {\n"
                              "        uint8_t row[%" G_GINT64_FORMAT "];\n#pragma omp simd\n"
                              "        for (int64_t w = 0; w < %" G_GINT64_FORMAT "; w++)\n        {\n",
                              sh->H, sh->C, sh->W, sh->W);
      g_string_append_printf (s, "          const int64_t i = bt * %" G_GINT64_FORMAT " + (c * %" G_GINT64_FORMAT
                              " + h) * %" G_GINT64_FORMAT " + w;\n          row[w] = %s;\n        }\n"
                              "        uint8_t *d = xu + ((h + %" G_GINT64_FORMAT ") * %" G_GINT64_FORMAT " + %" G_GINT64_FORMAT
                              ") * %" G_GINT64_FORMAT " + c;\n"
                              "        for (int64_t w = 0; w < %" G_GINT64_FORMAT "; w++)\n          d[w * %" G_GINT64_FORMAT
                              "] = row[w];\n      }\n",
                              sh->C * sh->H * sh->W, sh->H, sh->W, ua, sh->pt, sh->wp, sh->pl, sh->kt, sh->W, sh->kt);
      if (need_rsum)
        g_string_append_printf (s, "#pragma omp parallel for num_threads(nt) schedule(static)\n"
                                "    for (int64_t r = 0; r < %" G_GINT64_FORMAT "; r++)\n    {\n"
                                "      const uint8_t *p = FW_ROW (r);\n      int32_t sum = 0;\n"
                                "      for (int64_t tp = 0; tp < %" G_GINT64_FORMAT "; tp++)\n"
                                "        for (int64_t c = 0; c < %" G_GINT64_FORMAT "; c++)\n"
                                "          sum += p[fw_toff[tp] + c];\n      rsum[r] = sum;\n    }\n",
                                sh->nr, sh->ntaps, sh->C);
    }
  else
    {
      g_autofree char *i = g_strdup_printf ("bt * %" G_GINT64_FORMAT " + r * %" G_GINT64_FORMAT " + k", sh->a_batch, sh->k);
      g_autofree char *ua = byte_expr (g, &g->q.a, TRUE, i);
      g_string_append_printf (s, "#pragma omp parallel for num_threads(nt) schedule(static)\n"
                              "    for (int64_t r = 0; r < %" G_GINT64_FORMAT "; r++)\n    {\n"
                              "      uint8_t *d = xu + r * %" G_GINT64_FORMAT ";\n      int32_t sum = 0;\n"
                              "      int64_t k = 0;\n      for (k = 0; k < %" G_GINT64_FORMAT "; k++)\n"
                              "      {\n        const uint8_t x = %s;\n        d[k] = x;\n        sum += x;\n      }\n"
                              "      for (; k < %" G_GINT64_FORMAT "; k++)\n        d[k] = 0;\n",
                              sh->nr, sh->kt, sh->k, ua, sh->kt);
      g_string_append (s, need_rsum ? "      rsum[r] = sum;\n    }\n" : "      (void) sum;\n    }\n");
    }
  return g_string_free (s, FALSE);
}

/* The per-element part of a tile's epilogue, for r, c and the int32 sum t: dequantise, bias, the float
 * epilogue, requantise. */
static gboolean
epilogue_body (Int8Gen *g, const Shape *sh, gboolean need_rsum, GString *s, GError **error)
{
  g_autoptr(GString) stmts = g_string_new (NULL);
  const char *result;
  FwValue *bias_v = g->q.bias.node != NULL ? g->q.bias.integer : g->q.float_bias;
  const char *pc = g->q.b.dq.n == 1 ? "0" : "c";

  g_hash_table_insert (g->locals, g->q.root->outputs[0], g_strdup ("y"));
  for (guint i = 0; i < g->q.epilogue->len; i++)
    if (!epilogue_statement (g, g_ptr_array_index (g->q.epilogue, i), stmts, error))
      return FALSE;
  result = g->q.epilogue->len > 0 ? g_hash_table_lookup (g->locals, g->q.result == g->q.out.integer ?
                                                         g->q.out.real : g->q.result) : "y";
  if (result == NULL)
    return fw_hc_unsupported (error, _("the integer group's result is not its last node's"));
  if (sh->conv)
    g_string_append_printf (s, "      const int64_t o = bt * %" G_GINT64_FORMAT " + c * %" G_GINT64_FORMAT " + r;\n",
                            sh->nr * sh->nc, sh->nr);
  else
    g_string_append_printf (s, "      const int64_t o = bt * %" G_GINT64_FORMAT " + r * %" G_GINT64_FORMAT " + c;\n",
                            sh->nr * sh->nc, sh->nc);
  if (sh->depthwise)
    g_string_append_printf (s, "      const int64_t exact = acc[(r - r0) * %" G_GINT64_FORMAT " + c];\n", sh->nc);
  else
    g_string_append_printf (s, "      const int64_t exact = (int64_t) t[(r - r0) * 64 + (c - c0)] + fix[c]%s;\n",
                            need_rsum ? (g->q.b.dq.n == 1 ? " - zsb[0] * (int64_t) rsum[r]" : " - zsb[c] * (int64_t) rsum[r]") : "");
  g_string_append_printf (s, "      float y = (float) exact * mult[%s];\n", pc);
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
      g_string_append_printf (s, "      FW_DST (o, r, c) = (%s) %s;\n", g->q.out.qtype == FW_DTYPE_INT8 ? "int8_t" : "uint8_t", q);
    }
  else
    g_string_append_printf (s, "      FW_DST (o, r, c) = %s;\n", result);
  return TRUE;
}

/* The epilogue over rows r0..r1 by columns c0..c1 of a tile whose sums lie tw apart, vectorised along c,
 * where the sums lie contiguous. A product's output runs along c too; a Conv's (NCHW) runs along r, so its
 * results are written into a tile and stored from there a channel at a time: written straight, in the
 * element's loop, the conv stores were byte scatters and the loop stayed scalar (mobilenet_v3_small_qdq's
 * 1×1 Conv of 16 to 72 channels at 56×56 took 1.5 ms of its 8 ms run). A depthwise Conv's tile is all its
 * channels wide; past 64 KiB it writes straight. */
static void
append_epilogue_loop (Int8Gen *g, const Shape *sh, GString *src, gint64 tw, const char *element)
{
  const char *type = fw_hc_mem_type (g->q.result->dtype);
  gboolean tiled = sh->conv && TILE_ROWS * tw * (gint64) fw_dtype_bits (g->q.result->dtype) <= 8 * 65536;

  if (tiled)
    g_string_append_printf (src, "  %s tile[%d * %" G_GINT64_FORMAT "];\n"
                            "#define FW_DST(o, r, c) tile[((r) - r0) * %" G_GINT64_FORMAT " + ((c) - c0)]\n",
                            type, TILE_ROWS, tw, tw);
  else
    g_string_append (src, "#define FW_DST(o, r, c) out0[o]\n");
  g_string_append (src, "  for (int64_t r = r0; r < r1; r++)\n#pragma omp simd\n    for (int64_t c = c0; c < c1; c++)\n    {\n");
  g_string_append (src, element);
  g_string_append (src, "    }\n#undef FW_DST\n");
  if (tiled)
    g_string_append_printf (src, "  for (int64_t c = c0; c < c1; c++)\n  {\n"
                            "    %s *restrict d = out0 + bt * %" G_GINT64_FORMAT " + c * %" G_GINT64_FORMAT " + r0;\n"
                            "    const %s *restrict q = tile + (c - c0);\n#pragma omp simd\n"
                            "    for (int64_t i = 0; i < r1 - r0; i++)\n      d[i] = q[i * %" G_GINT64_FORMAT "];\n  }\n",
                            type, sh->nr * sh->nc, sh->nr, type, tw);
}

/* One tile, TILE_ROWS rows from r0 by the 64 columns of group cg: the micro-kernel, then the epilogue over
 * the tile while it is in L1. Written twice, for VNNI and portable. */
static void
append_tile (Int8Gen *g, const Shape *sh, GString *src, const char *name, const char *mk, const char *attr,
             const char *element)
{
  g_string_append_printf (src, "static %svoid\n%s (const void *const *ins, void *const *outs, const uint8_t *xu, "
                          "const int8_t *ps,\n    const int64_t *fix, const int32_t *rsum, int64_t bt, int64_t r0, "
                          "int64_t cg)\n{\n", attr, name);
  emit_decls_of_io (g, src, TRUE);
  g_string_append_printf (src, "  int32_t t[%d * 64];\n  (void) rsum;\n"
                          "  const int64_t r1 = r0 + %d < %" G_GINT64_FORMAT " ? r0 + %d : %" G_GINT64_FORMAT ";\n"
                          "  const int64_t c0 = cg * 64, c1 = c0 + 64 < %" G_GINT64_FORMAT " ? c0 + 64 : %"
                          G_GINT64_FORMAT ";\n", TILE_ROWS, TILE_ROWS, sh->nr, TILE_ROWS, sh->nr, sh->nc, sh->nc);
  g_string_append_printf (src, "  for (int64_t rb = r0; rb < r1; rb += 6)\n  {\n"
                          "    const int mi = r1 - rb < 6 ? (int) (r1 - rb) : 6;\n    const uint8_t *rows[6];\n"
                          "    for (int i = 0; i < 6; i++)\n      rows[i] = FW_ROW (rb + (i < mi ? i : mi - 1));\n"
                          "    %s (mi, rows, fw_toff, %" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", ps + c0 / 16 * %"
                          G_GINT64_FORMAT ", %" G_GINT64_FORMAT ", t + (rb - r0) * 64);\n  }\n",
                          mk, sh->ntaps, sh->kt, sh->ntaps * sh->kt * 16, sh->ntaps * sh->kt * 16);
  append_epilogue_loop (g, sh, src, 64, element);
  g_string_append (src, "}\n\n");
}

/* A depthwise Conv's rows TILE_ROWS from r0: per output pixel, the taps' zero-point-free products summed
 * along the channels (contiguous in the padded NHWC bytes, so the loop vectorises), then the epilogue.
 * Written twice, for the AVX-512 target and portable. */
static void
append_depthwise (Int8Gen *g, const Shape *sh, GString *src, const char *name, const char *attr, gint64 zu,
                  const char *element)
{
  g_string_append_printf (src, "static %sFW_NO_JAM void\n%s (const void *const *ins, void *const *outs, const uint8_t *xu, "
                          "const int8_t *ps,\n    int64_t bt, int64_t r0)\n{\n", attr, name);
  emit_decls_of_io (g, src, TRUE);
  g_string_append_printf (src, "  int32_t acc[%d * %" G_GINT64_FORMAT "];\n  const int32_t *wz = (const int32_t *) ps;\n"
                          "  const int64_t r1 = r0 + %d < %" G_GINT64_FORMAT " ? r0 + %d : %" G_GINT64_FORMAT ";\n"
                          "  const int64_t c0 = 0, c1 = %" G_GINT64_FORMAT ";\n",
                          TILE_ROWS, sh->nc, TILE_ROWS, sh->nr, TILE_ROWS, sh->nr, sh->nc);
  g_string_append_printf (src, "  for (int64_t r = r0; r < r1; r++)\n  {\n    const uint8_t *p = FW_ROW (r);\n"
                          "    int32_t *a = acc + (r - r0) * %" G_GINT64_FORMAT ";\n"
                          "    for (int64_t c = 0; c < %" G_GINT64_FORMAT "; c++)\n      a[c] = 0;\n"
                          "    for (int64_t tp = 0; tp < %" G_GINT64_FORMAT "; tp++)\n    {\n"
                          "      const uint8_t *x = p + fw_toff[tp];\n      const int32_t *w = wz + tp * %" G_GINT64_FORMAT ";\n"
                          "      for (int64_t c = 0; c < %" G_GINT64_FORMAT "; c++)\n"
                          "        a[c] += ((int32_t) x[c] - %" G_GINT64_FORMAT ") * w[c];\n    }\n  }\n",
                          sh->nc, sh->nc, sh->ntaps, sh->nc, sh->nc, zu);
  append_epilogue_loop (g, sh, src, sh->nc, element);
  g_string_append (src, "}\n\n");
}

static gboolean
generate (Int8Gen *g, GString *src, GError **error)
{
  Shape sh;
  FwQdqGroup *q = &g->q;
  gint64 zu = zp_at (&q->a.dq, 0) + (q->a.dq.qtype == FW_DTYPE_INT8 ? 128 : 0);
  gint64 shift_s = q->b.dq.qtype == FW_DTYPE_UINT8 ? -128 : 0;
  FwValue *s_src = q->b.q.node != NULL ? q->b.q.real : q->b.dq.integer;
  gboolean need_rsum = FALSE, s_const;
  g_autofree char *pack_s = NULL, *pack_u = NULL;
  g_autoptr(GString) element = g_string_new (NULL);
  GString *d = g->decls;
  gint64 pbytes, xbytes;

  if (!product_shape (q->root, q->k, &sh, error))
    return FALSE;
  finish_shape (&sh);
  if (q->bias.node != NULL && q->bias.integer->dtype != FW_DTYPE_INT32)
    return fw_hc_unsupported (error, _("an integer bias that is not int32"));
  for (gint64 c = 0; c < q->b.dq.n && !sh.depthwise; c++)
    need_rsum |= zp_at (&q->b.dq, c) + shift_s != 0;
  s_const = sh.b_batch == 0 && fw_value_get_constant (s_src) != NULL;
  append_array (d, "float", "mult", q->b.dq.n, TRUE, &q->b.dq, 0, scale_at (&q->a.dq, 0));
  append_array (d, "int64_t", "zsb", q->b.dq.n, FALSE, &q->b.dq, shift_s, 0);
  if (q->bias.node != NULL)
    {
      append_array (d, "float", "sbias", q->bias.n, TRUE, &q->bias, 0, 1.0f);
      append_array (d, "int64_t", "zbias", q->bias.n, FALSE, &q->bias, 0, 0);
    }
  g_string_append_printf (d, "static const int64_t fw_toff[%" G_GINT64_FORMAT "] = {", sh.ntaps);
  for (gint64 t = 0; t < sh.ntaps; t++)
    g_string_append_printf (d, " %" G_GINT64_FORMAT ",",
                            sh.conv ? ((t / sh.KW) * sh.dh * sh.wp + (t % sh.KW) * sh.dw) * sh.kt : 0);
  g_string_append (d, " };\n");
  if (sh.conv)
    g_string_append_printf (d, "#define FW_ROW(r) (xu + (((r) / %" G_GINT64_FORMAT ") * %" G_GINT64_FORMAT " + ((r) %% %"
                            G_GINT64_FORMAT ") * %" G_GINT64_FORMAT ") * %" G_GINT64_FORMAT ")\n\n",
                            sh.OW, sh.sh * sh.wp, sh.OW, sh.sw, sh.kt);
  else
    g_string_append_printf (d, "#define FW_ROW(r) (xu + (r) * %" G_GINT64_FORMAT ")\n\n", sh.kt);
  g_ptr_array_add (g->kernel->outputs, q->result);
  pack_s = pack_s_body (g, &sh, zu);
  g->s_input = add_input (g, s_src);
  pack_u = pack_u_body (g, &sh, zu, need_rsum);
  if (!epilogue_body (g, &sh, need_rsum, element, error))
    return FALSE;
  pbytes = panel_bytes (&sh);
  xbytes = round64 (sh.conv ? sh.hp * sh.wp * sh.kt : sh.nr * sh.kt);

  /* Every input is known now: the functions can declare them. */
  append_runtime (src);
  g_string_append (src, d->str);
  g_string_append (src, "static void\nfw_pack_s (const void *const *ins, int64_t boff, int8_t *ps, int64_t *fix, int nt)\n{\n");
  emit_decls_of_io (g, src, FALSE);
  g_string_append (src, pack_s);
  g_string_append (src, "}\n\n");
  if (s_const)
    {
      /* The host packs the constant weights once, when the kernel is prepared, and passes them back as
         rt->producer (fw-superkernel.c). */
      g_string_append (src, "void\nfw_sk_pack (const void *const *ins, void *dst, int nt)\n{\n");
      g_string_append_printf (src, "  fw_pack_s (ins, 0, (int8_t *) dst, (int64_t *) ((int8_t *) dst + %" G_GINT64_FORMAT
                              "), nt);\n}\n\n", pbytes);
      g->kernel->int8_pack_bytes = pbytes + 8 * sh.ncp;
      g->kernel->int8_pack_input = g->s_input;
    }
  if (sh.depthwise)
    {
      append_depthwise (g, &sh, src, "fw_tile_portable", "", zu, element->str);
      g_string_append (src, "#ifdef FW_HAVE_VNNI\n");
      append_depthwise (g, &sh, src, "fw_tile_vnni", "FW_VNNI_TARGET ", zu, element->str);
      append_depthwise (g, &sh, src, "fw_tile_avx2", "FW_AVX2_TARGET ", zu, element->str);
    }
  else
    {
      append_tile (g, &sh, src, "fw_tile_portable", "fw_mk_portable", "", element->str);
      g_string_append (src, "#ifdef FW_HAVE_VNNI\n");
      append_tile (g, &sh, src, "fw_tile_vnni", "fw_mk_vnni_n", "FW_VNNI_TARGET ", element->str);
      append_tile (g, &sh, src, "fw_tile_avx2", "fw_mk_avx2", "FW_AVX2_TARGET ", element->str);
    }
  g_string_append (src, "#endif\n\n");

  g_string_append (src, "int\nfw_sk_entry (const fw_sk_runtime *rt, const void *const *ins, void *const *outs, int nt)\n{\n");
  emit_decls_of_io (g, src, TRUE);
  g_string_append_printf (src, "  const int vnni = (rt->features & %d) != 0, avx2 = (rt->features & %d) != 0;\n"
                          "  int status = 1;\n  (void) vnni;\n  (void) avx2;\n  if (nt < 1)\n    nt = 1;\n",
                          FW_SK_CPU_VNNI, FW_SK_CPU_AVX2);
  g_string_append_printf (src, "  uint8_t *xu = (uint8_t *) aligned_alloc (64, %" G_GINT64_FORMAT ");\n"
                          "  int32_t *rsum = (int32_t *) malloc (sizeof (int32_t) * %" G_GINT64_FORMAT ");\n"
                          "  int8_t *own = NULL;\n  const int8_t *ps = NULL;\n  const int64_t *fix = NULL;\n"
                          "  if (!xu || !rsum)\n    goto out;\n", xbytes, need_rsum ? sh.nr : 1);
  if (s_const)
    g_string_append (src, "  if (rt->producer != NULL)\n    ps = (const int8_t *) rt->producer;\n  else\n  {\n");
  else
    g_string_append (src, "  {\n");
  g_string_append_printf (src, "    own = (int8_t *) aligned_alloc (64, %" G_GINT64_FORMAT ");\n    if (!own)\n      goto out;\n"
                          "    ps = own;\n  }\n  fix = (const int64_t *) (ps + %" G_GINT64_FORMAT ");\n",
                          round64 (pbytes + 8 * sh.ncp), pbytes);
  if (s_const)
    g_string_append_printf (src, "  if (own != NULL)\n    fw_pack_s (ins, 0, own, (int64_t *) (own + %" G_GINT64_FORMAT "), nt);\n",
                            pbytes);
  g_string_append_printf (src, "  for (int64_t bt = 0; bt < %" G_GINT64_FORMAT "; bt++)\n  {\n", sh.nb);
  if (!s_const)
    g_string_append_printf (src, "    fw_pack_s (ins, bt * %" G_GINT64_FORMAT ", own, (int64_t *) (own + %" G_GINT64_FORMAT
                            "), nt);\n", sh.b_batch, pbytes);
  g_string_append (src, pack_u);
  if (sh.depthwise)
    g_string_append_printf (src, "#pragma omp parallel for num_threads(nt) schedule(static)\n"
                            "    for (int64_t r0 = 0; r0 < %" G_GINT64_FORMAT "; r0 += %d)\n    {\n"
                            "#ifdef FW_HAVE_VNNI\n      if (vnni)\n        fw_tile_vnni (ins, outs, xu, ps, bt, r0);\n"
                            "      else if (avx2)\n        fw_tile_avx2 (ins, outs, xu, ps, bt, r0);\n"
                            "      else\n#endif\n        fw_tile_portable (ins, outs, xu, ps, bt, r0);\n    }\n  }\n",
                            sh.nr, TILE_ROWS);
  else
    g_string_append_printf (src, "#pragma omp parallel for num_threads(nt) collapse(2) schedule(static)\n"
                            "    for (int64_t r0 = 0; r0 < %" G_GINT64_FORMAT "; r0 += %d)\n"
                            "      for (int64_t cg = 0; cg < %" G_GINT64_FORMAT "; cg++)\n      {\n"
                            "#ifdef FW_HAVE_VNNI\n        if (vnni)\n          fw_tile_vnni (ins, outs, xu, ps, fix, rsum, bt, r0, cg);\n"
                            "        else if (avx2)\n          fw_tile_avx2 (ins, outs, xu, ps, fix, rsum, bt, r0, cg);\n"
                            "        else\n#endif\n          fw_tile_portable (ins, outs, xu, ps, fix, rsum, bt, r0, cg);\n      }\n  }\n",
                            sh.nr, TILE_ROWS, sh.ncp / 64);
  g_string_append (src, "  status = 0;\nout:\n  free (xu);\n  free (rsum);\n  free (own);\n  return status;\n}\n");
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
  g.locals = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  src = g_string_new ("/* Fusion Workbench host SuperKernel (integer QDQ group), generated: do not edit. */\n");
  kernel->int8_pack_bytes = 0;
  ok = generate (&g, src, error);
  if (ok)
    {
      kernel->source = g_string_free (src, FALSE);
      kernel->scratch_elements = 0;
    }
  else
    g_string_free (src, TRUE);
  g_string_free (g.decls, TRUE);
  g_hash_table_unref (g.locals);
  fw_qdq_group_clear (&g.q);
  return ok;
}
