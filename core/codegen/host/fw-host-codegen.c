/* fw-host-codegen.c: one candidate → C99 source specialised to its shapes and dtypes.
 *
 * The group's iteration space is split into lead axes (one flat index r, spread over OpenMP threads) and
 * inner axes (a row: the axes row reductions reduce, the spatial plane a Conv tile covers, or the
 * innermost contiguous run of an elementwise chain). Adjacent axes are merged wherever every operand
 * allows, so the innermost loop is long, unit-stride and vectorisable. Each row is processed in passes: a
 * reduction consumes a pass and its result is usable from the next one; values computed in one pass and
 * read in a later one live in a per-thread row scratch buffer, everything else in locals. A compute root
 * (MatMul, Gemm, Conv) is computed whole into a tile by as few sgemm calls as the reference kernels make,
 * then the epilogue runs over the tile's rows in one parallel region; a grouped Conv with few taps per
 * group is computed row by row inside that region instead, just before its epilogue.
 *
 * Nothing the model names reaches the source outside comments, and comments are escaped: generated
 * identifiers only, constants as exact hex literals.
 *
 * This file assembles the source from the phases (their files are listed in fw-host-codegen-private.h):
 * the schedule, then the root's product and the region, then the header, the entry and its body. */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "fw-error.h"
#include "fw-host-codegen-private.h"
#include "plan/fw-qdq.h"

gboolean
fw_hc_unsupported (GError **error, const char *format, ...)
{
  va_list args;
  g_autofree char *message = NULL;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, FW_ERROR, FW_ERROR_UNSUPPORTED, _("host SuperKernel: %s"), message);
  return FALSE;
}

/* Model strings inside comments: printable ASCII only; '*' (so no comment ends early), '\\' and '?' (no
 * line splices or trigraphs) and every other byte as \xNN; long names are cut. */
void
fw_hc_append_comment_text (GString *s, const char *text)
{
  gsize n = 0;

  if (text == NULL)
    return;
  for (const guchar *p = (const guchar *) text; *p; p++, n++)
    {
      if (n >= 160)
        {
          g_string_append (s, "...");
          return;
        }
      if (*p < 0x20 || *p > 0x7e || *p == '*' || *p == '\\' || *p == '?')
        g_string_append_printf (s, "\\x%02x", *p);
      else
        g_string_append_c (s, (char) *p);
    }
}

static void
emit_header (Gen *g, GString *src)
{
  g_string_append (src, "/* Fusion Workbench host SuperKernel, generated: do not edit.\n");
  g_string_append_printf (src, " * group kind: ");
  fw_hc_append_comment_text (src, g->cand->kind);
  g_string_append_printf (src, ", %u nodes\n", g->cand->nodes->len);
  for (guint i = 0; i < g->cand->nodes->len; i++)
    {
      FwNode *node = g_ptr_array_index (g->cand->nodes, i);
      g_string_append_printf (src, " * node %u: ", i);
      fw_hc_append_comment_text (src, node->op_type);
      g_string_append (src, " \"");
      fw_hc_append_comment_text (src, node->name);
      g_string_append (src, "\"\n");
    }
  for (guint i = 0; i < g->kernel->inputs->len; i++)
    {
      FwValue *v = g_ptr_array_index (g->kernel->inputs, i);
      g_autofree char *shape = fw_value_format_shape (v);
      g_string_append_printf (src, " * in%u: %s ", i, fw_dtype_name (v->dtype));
      fw_hc_append_comment_text (src, shape);
      g_string_append (src, " \"");
      fw_hc_append_comment_text (src, v->name);
      g_string_append (src, "\"\n");
    }
  for (guint i = 0; i < g->kernel->outputs->len; i++)
    {
      FwValue *v = g_ptr_array_index (g->kernel->outputs, i);
      g_autofree char *shape = fw_value_format_shape (v);
      g_string_append_printf (src, " * out%u: %s ", i, fw_dtype_name (v->dtype));
      fw_hc_append_comment_text (src, shape);
      g_string_append (src, " \"");
      fw_hc_append_comment_text (src, v->name);
      g_string_append (src, "\"\n");
    }
  g_string_append (src, " */\n");
  fw_hc_append_prelude (src, g->half);
}

/* The runtime table as the generated code declares it (FwSkRuntime, FwSkProducerRun) and the ABI version
 * the loader checks: one text for every kind of kernel. */
void
fw_hc_append_runtime_table (GString *src)
{
  g_string_append (src,
    "typedef void (*fw_sk_sgemm) (int trans_a, int trans_b, int m, int n, int k, float alpha, const float *a,\n"
    "                             int lda, const float *b, int ldb, float beta, float *c, int ldc);\n"
    "typedef int (*fw_sk_producer_run) (void *producer, const float *src, const float *weights, float *dst,\n"
    "                                   const float *residual, int layout, int nt);\n"
    "typedef struct { int abi; int features; fw_sk_sgemm sgemm; fw_sk_producer_run producer_run; void *producer;\n"
    "                 int layout; } fw_sk_runtime;\n\n");
  g_string_append_printf (src, "const int fw_sk_abi_version = %d;\n\n", FW_SK_ABI_VERSION);
}

void
fw_hc_append_prelude (GString *src, gboolean half)
{
  g_string_append (src,
    "#include <math.h>\n"
    "#include <stdint.h>\n"
    "#include <stdlib.h>\n"
    "#include <string.h>\n\n");
  fw_hc_append_runtime_table (src);
  /* The runtime table's CPU features, which pick a kernel's body (fw-superkernel.c). */
  g_string_append_printf (src, "#define FW_SK_CPU_F16C %d\n#define FW_SK_CPU_AVX512 %d\n#define FW_SK_CPU_AVX2 %d\n"
                               "#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))\n"
                               "#define FW_SK_X86 1\n#else\n#define FW_SK_X86 0\n#endif\n\n",
                          FW_SK_CPU_F16C, FW_SK_CPU_AVX512, FW_SK_CPU_AVX2);
  /* erff is a library call, and one call in a loop keeps GCC from vectorising the whole loop: an erf-GELU
     epilogue ran at erff's speed whatever else it fused. This is the rational approximation XLA and Eigen
     use for float32, branch-free so it vectorises: within 4.3e-7 relative error of erf over the normal
     floats (about 4 ulp; glibc's erff is within 1), NaN stays NaN, the clamp is where erf rounds to ±1. */
  g_string_append (src,
    "static inline float\nfw_erf (float x)\n{\n"
    "  const float c = x < -3.832506856900711f ? -3.832506856900711f : (x > 3.832506856900711f ? 3.832506856900711f : x);\n"
    "  const float x2 = c * c;\n"
    "  float p = -2.72614225801306e-10f, q = -1.45660718464996e-05f;\n"
    "  p = p * x2 + 2.77068142495902e-08f;\n  p = p * x2 + -2.10102402082508e-06f;\n"
    "  p = p * x2 + -5.69250639462346e-05f;\n  p = p * x2 + -7.34990630326855e-04f;\n"
    "  p = p * x2 + -2.95459980854025e-03f;\n  p = p * x2 + -1.60960333262415e-02f;\n"
    "  q = q * x2 + -2.13374055278905e-04f;\n  q = q * x2 + -1.68282697438203e-03f;\n"
    "  q = q * x2 + -7.37332916720468e-03f;\n  q = q * x2 + -1.42647390514189e-02f;\n"
    "  return c * p / q;\n}\n\n");
  /* expf is a library call too, and attention's softmax made one per score. This is Cephes' expf (Cody-Waite
     reduction by ln 2 in two parts, a degree-6 polynomial), branch-free so it vectorises: within 1 ulp of
     exp over [-86, 88.7] (tried on every 97th float there). 2^n is put together from the rounding shift's
     bits (no float-to-int conversion, undefined on NaN), as 2^(n-1) · 2 so that n = 128 does not overflow
     the exponent field. Below -86 it gives 0 (exp is under 4.4e-38 there), above 88.72 infinity, NaN stays
     NaN. */
  g_string_append (src,
    "static inline float\nfw_exp (float x)\n{\n"
    "  const float c = x < -86.0f ? -86.0f : (x > 88.72283935546875f ? 88.72283935546875f : x);\n"
    "  const float t = c * 1.44269504088896341f + 12582912.0f;  /* n in the low bits: round to nearest */\n"
    "  const float n = t - 12582912.0f;\n"
    "  const float r = (c - n * 0.693359375f) - n * -2.12194440e-4f;\n"
    "  float p = 1.9875691500e-4f, s;\n  uint32_t b;\n"
    "  p = p * r + 1.3981999507e-3f;\n  p = p * r + 8.3334519073e-3f;\n"
    "  p = p * r + 4.1665795894e-2f;\n  p = p * r + 1.6666665459e-1f;\n"
    "  p = p * r + 5.0000001201e-1f;\n  p = p * (r * r) + r + 1.0f;\n"
    "  memcpy (&b, &t, sizeof b);\n  b = (b - 0x4B400000u + 126u) << 23;\n  memcpy (&s, &b, sizeof s);\n"
    "  const float y = p * s * 2.0f;\n"
    "  return x < -86.0f ? 0.0f : (x > 88.72283935546875f ? INFINITY : y);\n}\n\n");
  g_string_append (src,
    "static inline int64_t\nfw_sdiv (int64_t x, int64_t y)\n{\n"
    "  if (y == 0)\n    return 0;\n"
    "  if (y == -1)\n    return (int64_t) (0 - (uint64_t) x);\n"
    "  return x / y;\n}\n\n");
  if (half)
    fw_hc_append_half_helpers (src);
}

gint
fw_hc_kernel_input (Gen *g, FwValue *v)
{
  for (guint i = 0; i < g->kernel->inputs->len; i++)
    if (g_ptr_array_index (g->kernel->inputs, i) == v)
      return (gint) i;
  g_ptr_array_add (g->kernel->inputs, v);
  return (gint) g->kernel->inputs->len - 1;
}

static void emit_function_body (Gen *g, GString *src);

/* A kernel's body twice: compiled for AVX2 (with F16C for a half kernel), taken at run time where the CPU
 * has them, and at the baseline (SSE2, or FW_SK_PORTABLE; fw-host-toolchain.c: no -march). The AVX2 copy
 * runs the float32 arithmetic eight lanes wide where the baseline's is four, with the same operations in
 * the same order (no FMA: -ffp-contract=off; every sum the loops vectorise has its lanes fixed in the
 * source, not by the vector width), so both give the same bits. A half kernel's conversions are F16C or
 * AVX-512 instructions either way. Eight lanes made bert_like's fused kernels 11 % faster (erf-GELU
 * epilogues, LayerNorm, attention's softmax). The price is a second compile of the body, paid where the
 * kernel reads or writes as many elements as would take two threads (a half kernel always: its conversions
 * need it). */
static gboolean
wide_body (Gen *g)
{
  GPtrArray *sides[2] = { g->kernel->inputs, g->kernel->outputs };
  gint64 n = 0;

  if (g->half)
    return TRUE;
  for (guint s = 0; s < G_N_ELEMENTS (sides); s++)
    for (guint i = 0; i < sides[s]->len; i++)
      {
        FwValue *v = g_ptr_array_index (sides[s], i);
        if (v->constant == NULL)
          n += fw_value_get_n_elements (v);
      }
  return n >= PARALLEL_MIN_ELEMENTS;
}

static void
emit_entries (Gen *g, GString *src)
{
  static const char args[] = " (const fw_sk_runtime *rt, const void *const *ins, void *const *outs, int nt)";
  const char *both = g->half ? "(FW_SK_CPU_AVX2 | FW_SK_CPU_F16C)" : "FW_SK_CPU_AVX2";

  if (!wide_body (g))
    {
      g_string_append_printf (src, "int\nfw_sk_entry%s\n{\n", args);
      emit_function_body (g, src);
      return;
    }

  g_string_append_printf (src, "#if FW_SK_X86\n__attribute__ ((target (\"%s\"))) static int\nfw_sk_entry_avx2%s\n{\n",
                          g->half ? "avx2,f16c" : "avx2", args);
  emit_function_body (g, src);
  g_string_append_printf (src, "#endif\n\nstatic int\nfw_sk_entry_base%s\n{\n", args);
  emit_function_body (g, src);
  g_string_append_printf (src, "\nint\nfw_sk_entry%s\n{\n#if FW_SK_X86\n  if ((rt->features & %s) == %s)\n"
                               "    return fw_sk_entry_avx2 (rt, ins, outs, nt);\n#endif\n"
                               "  return fw_sk_entry_base (rt, ins, outs, nt);\n}\n", args, both, both);
}

static void
gen_clear (Gen *g)
{
  g_ptr_array_unref (g->vals);
  g_hash_table_unref (g->by_value);
  g_array_unref (g->nodes);
  g_string_free (g->decls, TRUE);
  g_string_free (g->body, TRUE);
}

gboolean
fw_host_codegen (FwSuperKernel *kernel, GError **error)
{
  Gen g = { 0 };
  GString *src;
  gboolean ok, attention, whole;

  g.plan = kernel->plan;
  g.cand = kernel->candidate;
  g.kernel = kernel;
  if (g.cand->spec == NULL)
    {
      g_set_error (error, FW_ERROR, FW_ERROR_INVALID, _("host SuperKernel: candidate %u has no kernel spec"),
                   g.cand->index);
      return FALSE;
    }
  if (fw_candidate_is_integer (g.cand))
    return fw_hc_int8_codegen (kernel, error);
  g.vals = g_ptr_array_new_with_free_func (g_free);
  g.by_value = g_hash_table_new (NULL, NULL);
  g.nodes = g_array_new (FALSE, TRUE, sizeof (SkNode));
  g.decls = g_string_new (NULL);
  g.body = g_string_new (NULL);

  /* A fused attention and a horizontal GEMM write their whole bodies themselves. A scope's attention
     sub-kernel is in team form (see below): its per-block sgemm calls run on the calling team thread (the
     OpenMP build of OpenBLAS does not nest a team inside one); a horizontal GEMM calls sgemm over whole
     matrices and is never a scope's sub-kernel. */
  attention = fw_kernel_spec_get_attention (g.cand->spec) != NULL;
  whole = attention || fw_kernel_spec_get_hgemm (g.cand->spec) != NULL;
  g.team = attention && kernel->unit_name != NULL;
  ok = fw_kernel_spec_get_hgemm (g.cand->spec) != NULL ? fw_hc_emit_hgemm (&g, error)
       : attention ? fw_hc_emit_attention (&g, error) : fw_hc_schedule (&g, error);
  if (ok && !whole)
    fw_hc_choose_producer (&g);
  for (guint i = 0; ok && i < g.vals->len; i++)
    g.half |= fw_hc_is_half (((SkVal *) g_ptr_array_index (g.vals, i))->dtype);
  /* A scope's sub-kernel that calls no library joins its program's one team (fw-host-scope.c); sgemm and
     oneDNN run their own threads, so a sub-kernel calling them keeps its parallel regions. */
  if (!whole)
    g.team = ok && kernel->unit_name != NULL && !g.half &&
             (g.root == NULL || kernel->producer_kind == FW_SK_PRODUCER_DIRECT);
  kernel->team = g.team;
  if (whole)
    ;
  else if (ok && g.root == NULL)
    {
      g_autofree char *count = g_strdup_printf ("%" G_GINT64_FORMAT, g.n_rows * g.n_chunks);
      ok = fw_hc_emit_region (&g, count, "t", NULL, error);
    }
  else if (ok && strcmp (g.root->op_type, "MatMul") == 0)
    ok = fw_hc_emit_matmul (&g, error);
  else if (ok && strcmp (g.root->op_type, "Gemm") == 0)
    ok = fw_hc_emit_gemm (&g, error);
  else if (ok)
    ok = fw_hc_emit_conv (&g, error);
  if (!ok)
    {
      gen_clear (&g);
      return FALSE;
    }

  src = g_string_new (NULL);
  emit_header (&g, src);
  g_string_append (src, g.decls->str);
  if (g.decls->len)
    g_string_append_c (src, '\n');
  emit_entries (&g, src);
  kernel->source = g_string_free (src, FALSE);
  kernel->half = g.half;
  if (kernel->unit_name != NULL)
    {
      /* A scope's sub-kernel: the same function, file-local, its constants inside it so that the units of one
         scope program cannot clash. */
      GString *unit = g_string_new (NULL);

      g_string_append_printf (unit, "static int\n%s (const fw_sk_runtime *rt, const void *const *ins, "
                              "void *const *outs, int nt)\n{\n", kernel->unit_name);
      g_string_append (unit, g.decls->str);
      emit_function_body (&g, unit);
      kernel->unit = g_string_free (unit, FALSE);
    }
  kernel->scratch_elements = g.n_scratch > 0 ? (gint64) g.n_scratch * g.row_len : 0;
  gen_clear (&g);
  return TRUE;
}

/* The entry's body after its opening brace: the same for a kernel of its own and for a scope's sub-kernel. */
static void
emit_function_body (Gen *g, GString *src)
{
  FwSuperKernel *kernel = g->kernel;

  for (guint i = 0; i < kernel->inputs->len; i++)
    {
      FwValue *v = g_ptr_array_index (kernel->inputs, i);
      g_string_append_printf (src, "  const %s *restrict in%u = (const %s *) ins[%u];\n", fw_hc_mem_type (v->dtype), i,
                              fw_hc_mem_type (v->dtype), i);
    }
  for (guint i = 0; i < kernel->outputs->len; i++)
    {
      FwValue *v = g_ptr_array_index (kernel->outputs, i);
      g_string_append_printf (src, "  %s *restrict out%u = (%s *) outs[%u];\n", fw_hc_mem_type (v->dtype), i,
                              fw_hc_mem_type (v->dtype), i);
    }
  g_string_append (src, "  float *tile = NULL, *col = NULL, *dst = NULL;\n  int status = 1;\n  (void) rt;\n  (void) ins;\n"
                       "  (void) dst;\n");
  g_string_append (src, "  if (nt < 1)\n    nt = 1;\n");
  if (g->half)
    g_string_append (src, "  const int cpu = rt->features;\n  (void) cpu;\n");
  if (g->n_panels > 0)
    g_string_append_printf (src, "  float *hp[%d] = { NULL };\n", g->n_panels);
  g_string_append (src, g->body->str);
  if (g->team)
    {
      /* The tile is the team's one (omp single copyprivate) and every loop ended at its barrier. */
      g_string_append (src, "  status = 0;\nout:\n  ;\n#pragma omp single nowait\n  free (tile);\n"
                            "  (void) col;\n  return status;\n}\n");
      return;
    }
  g_string_append (src, "  status = 0;\nout:\n  free (tile);\n  free (col);\n");
  for (gint k = 0; k < g->n_panels; k++)
    g_string_append_printf (src, "  free (hp[%d]);\n", k);
  g_string_append (src, "  return status;\n}\n");
}
